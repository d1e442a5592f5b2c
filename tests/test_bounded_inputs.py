"""Hostile inputs stay bounded: YAML bombs, huge configs, wide CSV headers, baseline diffs of huge files,
sparse and growing logs. The inputs are in tests/adversarial/ or made here; each test shows the attack
reproduced and the reader answering with a one-line warning instead of running away."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from mltdbg.analyzers.baseline import MAX_DIFF_FILE_LINES, compare
from mltdbg.analyzers.common import yamlsafe
from mltdbg.analyzers.common.gitrepo import run_git
from mltdbg.analyzers.ingest import ingest, read_bytes
from mltdbg.analyzers.model import Run
from mltdbg.playbooks.diagnose import diagnose
from repo_helpers import git, make_repo

ADV = Path(__file__).resolve().parent / "adversarial"


@pytest.mark.parametrize("name,why", [("yaml_bomb.yaml", "expand it past"),
                                      ("yaml_recursive.yaml", "contains it"),
                                      ("yaml_deep.yaml", "")])
def test_yaml_bombs_are_refused_with_one_line(tmp_path, name, why):
    (tmp_path / "config.yaml").write_text((ADV / name).read_text())
    (tmp_path / "train.log").write_text("".join(f"step {i} loss {2 - i / 100:.3f}\n" for i in range(50)))
    d = diagnose([str(tmp_path)], engine="offline")
    w = [x for x in d.warnings if x.startswith("config.yaml")]
    assert len(w) == 1 and "\n" not in w[0] and why in w[0], d.warnings
    assert not any("RecursionError" in x for x in d.warnings)


def test_the_bomb_is_refused_before_anything_expands_it():
    text = (ADV / "yaml_bomb.yaml").read_text()
    with pytest.raises(yamlsafe.YamlRefused, match="200,000 nodes"):
        yamlsafe.load(text)
    with pytest.raises(yamlsafe.YamlRefused, match="MB of YAML"):
        yamlsafe.load("lr: 0.1\n" + "# padding\n" * (yamlsafe.MAX_YAML_BYTES // 10 + 1))
    # ordinary anchors (a shared default block) still load
    assert yamlsafe.load("base: &b {lr: 0.1}\nrun: {<<: *b, seed: 1}\n")["run"] == {"lr": 0.1, "seed": 1}


def test_a_wide_metrics_csv_is_read_as_a_table_not_text(tmp_path):
    (tmp_path / "metrics.csv").write_text((ADV / "wide_metrics.csv").read_text())
    header = (ADV / "wide_metrics.csv").read_text().split("\n", 1)[0]
    assert len(header) > 4096 and header.count(",") > 200       # wider than the 4 KB sniff head
    run = ingest([tmp_path])
    assert not run.texts, [t.kind for t in run.texts]
    names = {s.name for s in run.series}
    assert {"loss", "val_loss", "lr"} <= names and len(names) > 200


def test_a_baseline_diff_that_deletes_a_huge_file_is_bounded(tmp_path):
    root = make_repo(tmp_path / "r", {"train.py": "lr = 1e-3\nseed = 0\n",
                                      "data.txt": "".join(f"row {i},0.5\n" for i in range(MAX_DIFF_FILE_LINES + 1000))})
    (root / "data.txt").unlink()
    (root / "train.py").write_text("lr = 1e-3\nseed = 1234\n")
    git(root, "commit", "-qam", "drop data, change seed")
    run = Run(root=root)
    kinds = {s.kind for s in compare(run, Run(root=root), repo_root=root)}
    assert "baseline:seed_changed" in kinds                         # the code change is still found
    assert any("data.txt" in w and "not read as code" in w for w in run.warnings), run.warnings


def test_git_output_is_capped(tmp_path):
    root = make_repo(tmp_path / "r", {"big.txt": "x" * 300_000 + "\n"})
    r = run_git(root, "show", "HEAD:big.txt", max_bytes=10_000)
    assert r.ok and r.truncated and len(r.raw) == 10_000
    full = run_git(root, "show", "HEAD:big.txt", max_bytes=10**7)
    assert full.ok and not full.truncated and len(full.raw) == 300_001


def test_what_is_held_of_a_big_log_is_capped_and_line_numbers_kept(tmp_path):
    p = tmp_path / "train.log"
    n = 100_000
    p.write_text("".join(f"line {i}\n" for i in range(1, n + 1)))
    run = Run(root=tmp_path)
    data = read_bytes(p, "train.log", run, cap=64 * 1024)
    lines = data.decode().split("\n")
    assert len(data) < 64 * 1024 + n and len(lines) == n + 1
    assert lines[0] == "line 1" and lines[n - 1] == f"line {n}"
    assert all(x == "" or x == f"line {i}" for i, x in enumerate(lines[:-1], 1))   # every kept line at its number
    assert len(run.warnings) == 1 and "line numbers kept" in run.warnings[0]


def test_a_sparse_log_reads_only_its_data(tmp_path):
    p = tmp_path / "train.log"
    with open(p, "wb") as f:
        f.write(b"step 1 loss 2.0\n")
        f.seek(512 * 1024**2)                     # a 512 MB hole
        f.write(b"step 2 loss 1.9\nRuntimeError: CUDA out of memory\n")
    assert p.stat().st_size > 512 * 1024**2
    run = Run(root=tmp_path)
    data = read_bytes(p, "train.log", run)
    assert data == b"step 1 loss 2.0\nstep 2 loss 1.9\nRuntimeError: CUDA out of memory\n"
    assert run.warnings and "NUL" in run.warnings[0]


def test_a_log_growing_while_read_stays_bounded(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("step 0 loss 2.0\n")
    writer = subprocess.Popen([sys.executable, "-c",
                               "import sys\nf = open(sys.argv[1], 'a')\nwhile True:\n"
                               "    f.write('step 1 loss 1.0\\n' * 4096); f.flush()", str(p)])
    try:
        while p.stat().st_size < 8 * 1024**2:
            time.sleep(0.01)
        data = read_bytes(p, cap=1024**2)
    finally:
        writer.kill()
        writer.wait()
    assert data.startswith(b"step 0 loss 2.0\n") and len(data) < 2 * 1024**2 + p.stat().st_size // 16
    assert p.stat().st_size > len(data)


def test_the_verifier_rereads_a_sparse_log_without_its_holes(tmp_path):
    """The verifier re-reads cited lines from disk: through a 512 MB hole it reads only the data
    (before, it concatenated the hole block by block: a 2 GB sparse log ran for minutes at 2 GB)."""
    from mltdbg.analyzers.model import Evidence
    from mltdbg.playbooks.verify import Verifier
    p = tmp_path / "train.log"
    with open(p, "wb") as f:
        f.write(b"step 1 loss 2.0\n")
        f.seek(512 * 1024**2)
        f.write(b"step 2 loss nan\nRuntimeError: boom\n")
    v = Verifier(Run(root=tmp_path))
    assert v.check(Evidence(text="nan", source="train.log", line=2, quote="step 2 loss nan"))
    assert v.check(Evidence(text="error", source="train.log", line=3, quote="RuntimeError: boom"))
    assert not v.check(Evidence(text="error", source="train.log", line=3, quote="not in the file"))


def test_the_verifier_seeks_a_big_logs_lines_by_the_readers_index(tmp_path, monkeypatch):
    """A quote on a late line of a big log is checked by seeking from the reader's line marks
    (SparseText.seek_marks), not by counting newlines from the start of the file (a 500 MB
    log: 0.8 s per diagnosis); the answer is the file's, right and wrong quotes alike."""
    import mltdbg.analyzers.readers.textlog as textlog
    from mltdbg.analyzers.model import Evidence
    from mltdbg.analyzers.readers.textlog.sparse import INDEX_EVERY, SparseText
    from mltdbg.playbooks.verify import Verifier, _DiskLines
    monkeypatch.setattr(textlog, "SPARSE_TEXT_BYTES", 1 << 20)
    p = tmp_path / "train.log"
    n = 300_000
    with open(p, "w") as f:
        for i in range(n):
            f.write(f"step={i} loss={'nan' if i == 250_000 else f'{1 + i % 7 / 10:.4f}'}\n")
    run = ingest([p])
    art = run.texts[0]
    assert isinstance(art, SparseText)
    marks = art.seek_marks()
    assert len(marks) == -(-n // INDEX_EVERY) and marks[3][0] == 3 * INDEX_EVERY
    with open(p, "rb") as f:       # each mark is where its line starts in the file
        for line, off in marks[::17]:
            f.seek(off)
            assert f.readline().decode().startswith(f"step={line} ")
    v = Verifier(run)
    assert v.check(Evidence(text="loss NaN", source="train.log", line=250_001, quote="step=250000 loss=nan"))
    assert not v.check(Evidence(text="loss NaN", source="train.log", line=250_001, quote="step=240000 loss=nan"))
    dl = v._lines["train.log"]
    assert isinstance(dl, _DiskLines) and set(marks) <= set(dl.marks)


def test_a_symlink_loop_given_as_the_path_is_a_one_line_error(tmp_path):
    """`mltdbg diagnose loop` where loop -> loop2 -> loop: one line naming the path (it was a
    RuntimeError traceback from Path.resolve while looking for the repo root)."""
    (tmp_path / "loop").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop")
    from mltdbg.analyzers.common.gitrepo import find_repo_root, resolved
    assert resolved(tmp_path / "loop") == tmp_path / "loop" and find_repo_root(tmp_path / "loop") is None
    r = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "diagnose", str(tmp_path / "loop"), "--json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    err = [x for x in r.stderr.splitlines() if x.startswith("mltdbg: error")]
    assert "Traceback" not in r.stderr and len(err) == 1 and "loop" in err[0] and "symbolic links" in err[0]
