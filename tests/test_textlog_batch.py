"""Small logs scanned together (textlog.prefetch) give what each gives read alone.

The reference is `textlog.read` of each file with nothing prefetched (prepare_block on the file's
own bytes); the batched side prefetches runs of files first (one scan of all their bytes, cut
per file), then reads each. Series, texts and warnings must be equal, on every small log the
tests hold (real posts' logs, the zoo's, fixtures) and on odd files written here.
"""
from __future__ import annotations

import os

import shutil
from pathlib import Path

import numpy as np
import pytest

from mltdbg.analyzers import ingest as ingest_mod
from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import Run
from mltdbg.analyzers.readers import ORDER, textlog

TESTS = Path(__file__).parent


def _textlog_files(root: Path) -> list[Path]:
    """Files under root that ingest hands to textlog as logs (no other reader sniffs them)."""
    out = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.stat().st_size > textlog.SMALL_LOG_BYTES:
            continue
        head = p.read_bytes()[:4096]
        first = next(r for r in ORDER if r.sniff(p, head))
        if first is textlog and textlog.text_kind(p, "") == "log":
            out.append(p)
    return out


def _snapshot(run: Run) -> tuple:
    series = [(s.name, s.raw_name, s.source, s.rank, s.step_is_index, s.steps.tolist(),
               np.where(np.isnan(s.values), -999.0, s.values).tolist(), s.locs.tolist()) for s in run.series]
    texts = [(t.path, t.kind, t.text) for t in run.texts]
    return series, texts, list(run.warnings)


def _read_each(files: list[Path], root: Path, batched: bool) -> tuple[Run, int]:
    run = Run(root=root)
    items = [(p, str(p.relative_to(root))) for p in files]
    used = 0
    i = 0
    while i < len(items):
        if batched:
            n = textlog.prefetch(items[i:])
            used += len(textlog._PREFETCHED)
        else:
            n = len(items) - i
        for p, rel in items[i:i + n]:
            textlog.read(p, rel, run)
        i += n
    textlog.prefetch([])
    return run, used


def _corpus(tmp_path: Path) -> tuple[Path, list[Path]]:
    """Every small log of the tests, copied under one root (own folder each: names kept)."""
    root = tmp_path / "corpus"
    k = 0
    for p in _textlog_files(TESTS):
        if root in p.parents:
            continue
        d = root / f"{k:04d}"
        d.mkdir(parents=True)
        shutil.copy(p, d / p.name)
        k += 1
    return root, _textlog_files(root)


def test_every_small_log_of_the_tests_reads_the_same_scanned_together(tmp_path):
    root, files = _corpus(tmp_path)
    assert len(files) > 150, len(files)
    ref, _ = _read_each(files, root, batched=False)
    got, used = _read_each(files, root, batched=True)
    # most were really prefetched: a corpus with two spellings of a key in one batch falls back,
    # so not all of them
    assert used > len(files) // 2, (used, len(files))
    assert sum(len(s) for s in ref.series) > 1000
    r_series, r_texts, r_warn = _snapshot(ref)
    g_series, g_texts, g_warn = _snapshot(got)
    assert g_texts == r_texts
    assert g_warn == r_warn
    for a, b in zip(g_series, r_series):
        assert a == b, a[:3]
    assert len(g_series) == len(r_series)


ODD = {
    # no final newline: its last line is a metric line
    "a_no_newline.log": b"step=1 loss=2.5\nstep=2 loss=2.4\nstep=3 loss=nan",
    # rank prefixes (one series per rank) beside a file without them
    "b_ranks.log": b"".join(b"[rank%d]: step=%d loss=%.2f\n" % (r, s, 2.0 - s / 10) for s in range(5) for r in range(2)),
    # tqdm redraws with \r, and a counter that restarts every epoch
    "c_tqdm.log": b"".join(b"Epoch %d: " % e + b"".join(b"\r%d/4 [00:01<00:00, loss=%.3f]" % (i, 1.0 / (i + e))
                                                          for i in range(1, 5)) + b"\n" for e in range(1, 4)),
    # Keras epochs
    "d_keras.log": b"Epoch 1/3\n10/10 [==============================] - 1s 5ms/step - loss: 0.9 - accuracy: 0.5\n"
                   b"Epoch 2/3\n10/10 [==============================] - 1s 5ms/step - loss: 0.7 - accuracy: 0.6\n"
                   b"Epoch 3/3\n10/10 [==============================] - 1s 5ms/step - loss: 0.6 - accuracy: 0.7\n",
    # a per-layer gradient table, in a file named for gradients
    "e_grads.log": b"step 10\nlayer1.weight grad_norm: 0.5\nlayer2.weight grad_norm: 0.0\nlayer3.weight grad_norm: 0.0\n"
                   b"step 20\nlayer1.weight grad_norm: 0.4\nlayer2.weight grad_norm: 0.0\nlayer3.weight grad_norm: 0.0\n",
    # a line longer than the metric-line limit, between metric lines
    "f_long.log": b"step=1 loss=1.0\n" + b"blob=" + b"x1=2 " * 30000 + b"\nstep=2 loss=0.9\nstep=3 loss=0.8\n",
    # starts with a digit before ':' (the anchor test at a file's first bytes)
    "g_digit.log": b"5:loss=1.0\n6:loss=0.9\n7:loss=0.8\n",
    # a table of metrics
    "h_table.log": b"epoch  train_loss  val_loss\n1      0.90        1.00\n2      0.80        0.95\n3      0.70        0.97\n",
    # HF dict lines
    "i_hf.log": b"{'loss': 2.1, 'learning_rate': 5e-05, 'epoch': 0.1}\n{'loss': 1.9, 'learning_rate': 4e-05, 'epoch': 0.2}\n",
    "j_empty_lines.log": b"\n\n\nstep=1 loss=1\n\n",
}
# files with no metric line before one with them: its lines still count from its own first line
QUIET_FIRST = {
    ".gitignore": b"__pycache__/\n",
    "notes.log": b"started the run\nnothing to see\n",
    "train.log": b"step=5 loss=1.2\nstep=10 loss=0.7\nstep=15 loss=nan\n",
}


def test_odd_small_logs_read_the_same_scanned_together(tmp_path):
    root = tmp_path / "odd"
    root.mkdir()
    for name, data in ODD.items():
        (root / name).write_bytes(data)
    files = _textlog_files(root)
    assert len(files) == len(ODD)
    ref, _ = _read_each(files, root, batched=False)
    got, used = _read_each(files, root, batched=True)
    assert used == len(files) - 1      # all but the one whose last line has no newline
    assert _snapshot(got) == _snapshot(ref)
    names = {(s.source, s.name, s.rank) for s in got.series}
    assert ("b_ranks.log", "loss", 1) in names and ("a_no_newline.log", "loss", None) in names
    nan = next(s for s in got.series if s.source == "a_no_newline.log")
    assert np.isnan(nan.values[-1]) and nan.locs.tolist() == [1, 2, 3]


def test_a_log_after_files_without_metrics_keeps_its_line_numbers(tmp_path):
    for name, data in QUIET_FIRST.items():
        (tmp_path / name).write_bytes(data)
    files = _textlog_files(tmp_path)
    assert len(files) == 3
    ref, _ = _read_each(files, tmp_path, batched=False)
    got, used = _read_each(files, tmp_path, batched=True)
    assert used == 3
    assert _snapshot(got) == _snapshot(ref)
    s = next(s for s in got.series if s.name == "loss")
    assert s.locs.tolist() == [1, 2, 3] and s.steps.tolist() == [5, 10, 15]


def test_each_file_keeps_its_own_spelling_of_a_key(tmp_path):
    """'Loss' in one file, 'loss' in the next: each file's series is named after its own spelling
    (the shared scan keeps spellings apart). A file that spells it both ways is read alone: which
    spelling names its series follows its own scan's order."""
    (tmp_path / "a.log").write_bytes(b"step=1 Loss=2.0\nstep=2 Loss=1.0\n")
    (tmp_path / "b.log").write_bytes(b"step=1 loss=2.0\nstep=2 loss=1.0\n")
    (tmp_path / "c.log").write_bytes(b"step=1 loss=2.0\nstep=2 LOSS=1.0\nstep=3 loss=0.5\n")
    files = _textlog_files(tmp_path)
    got, used = _read_each(files, tmp_path, batched=True)
    ref, _ = _read_each(files, tmp_path, batched=False)
    assert used == 2
    assert _snapshot(got) == _snapshot(ref)
    assert [s.raw_name for s in got.series][:2] == ["Loss", "loss"]
    assert got.series[2].source == "c.log" and got.series[2].steps.tolist() == [1, 2, 3]


def test_a_log_changed_after_prefetch_is_read_as_it_is_then(tmp_path):
    a = tmp_path / "a.log"
    a.write_bytes(b"step=1 loss=2.0\nstep=2 loss=1.0\n")
    (tmp_path / "b.log").write_bytes(b"step=1 loss=3.0\nstep=2 loss=2.0\n")
    items = [(p, p.name) for p in sorted(tmp_path.iterdir())]
    assert textlog.prefetch(items) == 2 and a in textlog._PREFETCHED
    a.write_bytes(b"step=1 loss=2.0\nstep=2 loss=nan\nstep=3 loss=nan\n")   # the job wrote on
    run = Run(root=tmp_path)
    for p, rel in items:
        textlog.read(p, rel, run)
    s = run.series[0]
    assert s.source == "a.log" and s.steps.tolist() == [1, 2, 3] and np.isnan(s.values[1])
    assert textlog._PREFETCHED == {}


def test_a_log_rewritten_to_the_same_size_after_prefetch_is_read_again(tmp_path):
    """read() takes the prefetched bytes only while the file's size and mtime are unchanged."""
    a = tmp_path / "a.log"
    a.write_bytes(b"step=1 loss=2.0\nstep=2 loss=1.0\n")
    assert textlog.prefetch([(a, "a.log")]) == 1 and a in textlog._PREFETCHED
    st = a.stat()
    a.write_bytes(b"step=1 loss=2.0\nstep=2 loss=nan\n")     # same length, another value
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))   # (a coarse clock could give the same mtime)
    run = Run(root=tmp_path)
    textlog.read(a, "a.log", run)
    assert np.isnan(run.series[0].values[1]) and "nan" in run.texts[0].text


def test_ingest_of_many_small_logs_equals_reading_each(tmp_path, monkeypatch):
    """Through ingest (its prefetch hook, runs cut at PREFETCH_FILES): the same as each file read alone."""
    monkeypatch.setattr(ingest_mod, "PREFETCH_FILES", 7)   # several prefetch runs over 40 files
    for k in range(40):
        lines = [f"2024-05-01 12:00:{s:02d} INFO step={s} loss={'nan' if (k, s) == (33, 15) else 2.0 / (1 + s + k)}"
                 for s in range(20)]
        (tmp_path / f"run_{k:03d}.log").write_text("\n".join(lines) + "\n")
    got = ingest([tmp_path])
    ref, _ = _read_each(sorted(tmp_path.iterdir()), tmp_path.resolve(), batched=False)
    assert _snapshot(got) == _snapshot(ref)
    bad = next(s for s in got.series if s.source == "run_033.log")
    assert np.isnan(bad.values[bad.steps.tolist().index(15)])


@pytest.mark.parametrize("size", [textlog.SMALL_LOG_BYTES + 1])
def test_a_log_over_the_small_size_is_not_prefetched(tmp_path, size):
    p = tmp_path / "big.log"
    line = b"step=1 loss=1.0\n"
    p.write_bytes(line * (size // len(line) + 1))
    assert textlog.prefetch([(p, "big.log")]) == 1 and textlog._PREFETCHED == {}


def test_a_log_with_decimal_commas_beside_english_ones_reads_the_same_scanned_together(tmp_path):
    """One German log that prints decimal commas among English logs with thousands separators: scanned together each
    file's commas are read as that file alone reads them (the German losses as decimals, the English '1,024 samples'
    untouched), whichever file comes first."""
    root = tmp_path / "mixed"
    root.mkdir()
    (root / "a_english.log").write_text("".join(f"step {i}: 1,024 samples, loss: {1 / i:.4f}\n" for i in range(1, 9)))
    (root / "b_german.log").write_text("".join(f"Epoche {i} - Verlust: {1 / i:.4f}\n".replace(".", ",")
                                               for i in range(1, 9)))
    (root / "c_english.log").write_text("".join(f"step {i}: 2,048 samples, loss: {2 / i:.4f}\n" for i in range(1, 9)))
    files = _textlog_files(root)
    ref, _ = _read_each(files, root, batched=False)
    got, used = _read_each(files, root, batched=True)
    assert used == len(files) and _snapshot(got) == _snapshot(ref)
    de = next(s for s in got.series if s.source == "b_german.log" and s.name == "loss")
    assert de.values.tolist() == [round(1 / i, 4) for i in range(1, 9)]
