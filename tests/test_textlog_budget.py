"""Text log reader over its points budget (assemble.POINTS_BUDGET, lowered here; blocks made
small so the log spans many): series are thinned (min/max per bucket of lines), yet every point
kept has the step, value and line the full read gives it, the first NaN, a planted spike, the
first and the last point survive, and one warning says so. Under the budget nothing changes."""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from mltdbg.analyzers.model import Run
from mltdbg.analyzers.readers import textlog
from mltdbg.analyzers.readers.textlog import assemble

N = 30_000
NAN_AT = 27_001      # 1-based line of the first NaN
SPIKE_AT = 12_345    # 1-based line of a loss spike


def _loss(i: int) -> float:
    return 2.5 * math.exp(-i / 6000) + 0.3 + 0.02 * math.sin(i * 0.7)


def write_steps(path: Path) -> None:
    """`step=N loss=.. lr=..` lines, a stepless eval line every 50th (its step is carried)."""
    with open(path, "w") as f:
        for i in range(1, N + 1):
            if i % 50 == 0:
                f.write(f"eval: val_loss={_loss(i) + 0.1:.4f}\n")
                continue
            loss = "nan" if i >= NAN_AT else "50.0000" if i == SPIKE_AT else f"{_loss(i):.4f}"
            f.write(f"step={i} loss={loss} lr={3e-4 * (1 + i % 3):.6f}\n")


def write_epochs(path: Path) -> None:
    """`Epoch [e/10], Step [s/3000], loss: ..`: a counter that restarts every epoch."""
    with open(path, "w") as f:
        for i in range(1, N + 1):
            e, s = (i - 1) // 3000 + 1, (i - 1) % 3000 + 1
            loss = "nan" if i >= NAN_AT else "50.0000" if i == SPIKE_AT else f"{_loss(i):.4f}"
            f.write(f"Epoch [{e}/10], Step [{s}/3000], loss: {loss}\n")


def read(path: Path) -> Run:
    run = Run(root=path.parent)
    textlog.read(path, path.name, run)
    return run


def points(s) -> set:
    return {(int(st), "nan" if math.isnan(v) else float(v), int(ln)) for st, v, ln in zip(s.steps, s.values, s.locs)}


@pytest.mark.parametrize("writer", [write_steps, write_epochs])
def test_log_over_budget_is_thinned_keeping_what_is_cited(tmp_path, monkeypatch, writer):
    path = tmp_path / "train.log"
    writer(path)
    monkeypatch.setattr(textlog, "BLOCK_BYTES", 64 * 1024)   # ~20 blocks: thinning across blocks
    full = read(path)
    assert not any("thinned" in w for w in full.warnings)
    monkeypatch.setattr(assemble, "POINTS_BUDGET", 20_000)
    thin = read(path)
    warned = [w for w in thin.warnings if "thinned above 20,000 points" in w]
    assert len(warned) == 1 and warned[0].startswith("train.log: ") and "non-finite" in warned[0]
    assert sorted((s.name, s.rank) for s in thin.series) == sorted((s.name, s.rank) for s in full.series)
    for t in thin.series:
        f = next(s for s in full.series if (s.name, s.rank) == (t.name, t.rank))
        assert t.step_is_index == f.step_is_index
        kept = points(t)
        assert kept <= points(f), t.name                   # exact steps, values and lines
        assert (t.steps[0], t.locs[0]) == (f.steps[0], f.locs[0])
        assert (t.steps[-1], t.locs[-1]) == (f.steps[-1], f.locs[-1])
        n_nan_t, n_nan_f = int(np.isnan(t.values).sum()), int(np.isnan(f.values).sum())
        assert (n_nan_t > 0) == (n_nan_f > 0)            # a series with NaN keeps NaN (its first one: below)
        if n_nan_f > 100:
            assert n_nan_t < n_nan_f // 2                # a long run of NaN is thinned like the rest
        assert np.nanmax(t.values) == np.nanmax(f.values) and np.nanmin(t.values) == np.nanmin(f.values)
    loss = next(s for s in thin.series if s.name == "loss")
    full_loss = next(s for s in full.series if s.name == "loss")
    assert len(loss) < len(full_loss) // 2
    i = int(np.flatnonzero(np.isnan(loss.values))[0])
    j = int(np.flatnonzero(np.isnan(full_loss.values))[0])
    assert (int(loss.steps[i]), int(loss.locs[i])) == (int(full_loss.steps[j]), NAN_AT)
    k = int(np.flatnonzero(loss.values == 50.0)[0])
    assert int(loss.locs[k]) == SPIKE_AT
    assert int(loss.steps[k]) == int(full_loss.steps[np.flatnonzero(full_loss.values == 50.0)[0]])


def test_log_under_budget_is_unchanged(tmp_path, monkeypatch):
    path = tmp_path / "train.log"
    write_steps(path)
    monkeypatch.setattr(textlog, "BLOCK_BYTES", 64 * 1024)
    full = read(path)
    monkeypatch.setattr(assemble, "POINTS_BUDGET", sum(len(s) for s in full.series) + 1000)
    again = read(path)
    assert again.warnings == full.warnings
    for a, b in zip(full.series, again.series):
        assert (a.name, a.rank) == (b.name, b.rank)
        assert np.array_equal(a.steps, b.steps) and np.array_equal(a.locs, b.locs)
        assert np.array_equal(a.values, b.values, equal_nan=True)


# ---------------------------------------------------------------- logs with progress counters / epochs
STEPS = 20_000
PER_EPOCH = 1_000
BAR_NAN = 18_001     # step of the first NaN
BAR_SPIKE = 7_777    # step of a loss spike


def _bar_loss(step: int) -> str:
    return "nan" if step >= BAR_NAN else "50.000" if step == BAR_SPIKE else f"{_loss(step):.3f}"


def write_bars(path: Path) -> None:
    """tqdm `\\r` redraws of a bar whose counter restarts every epoch (no epoch printed: the passes
    make the step) with a loss postfix, a logging line every 10 steps (`step N | loss=..`)."""
    with open(path, "w") as f:
        for step in range(1, STEPS + 1):
            k = (step - 1) % PER_EPOCH + 1
            f.write(f"\rTraining: {k * 100 // PER_EPOCH:3d}%|##| {k}/{PER_EPOCH} [00:01<00:02, 9.0it/s, "
                    f"loss={_bar_loss(step)}]")
            if step % 10 == 0:
                f.write(f"\r2024-05-01 12:00:00,123 - INFO - step {step} | loss={_bar_loss(step)} | lr=1e-4\n")
            if k == PER_EPOCH:
                f.write("\n")


def write_keras(path: Path) -> None:
    """Keras: `Epoch e/20` on a line of its own, then `\\r` redraws `b/1000 [==] - loss: ..` (the
    epoch carries to them; the counter restarts every epoch)."""
    with open(path, "w") as f:
        for step in range(1, STEPS + 1):
            e, b = divmod(step - 1, PER_EPOCH)
            if b == 0:
                f.write(f"Epoch {e + 1}/{STEPS // PER_EPOCH}\n")
            f.write(f"\r{b + 1}/{PER_EPOCH} [======] - ETA: 1s - loss: {_bar_loss(step)}")
            if b + 1 == PER_EPOCH:
                f.write("\n")


def write_ranks(path: Path) -> None:
    """Two ranks' `[rankR]: Epoch [e/20], Step [s/1000], loss: ..` lines (a counter that restarts
    every epoch, per rank), and a stepless eval line per rank every 100 steps (its step carried)."""
    with open(path, "w") as f:
        for step in range(1, STEPS // 2 + 1):
            e, s = divmod(step - 1, PER_EPOCH)
            for r in (0, 1):
                f.write(f"[rank{r}]: Epoch [{e + 1}/20], Step [{s + 1}/{PER_EPOCH}], loss: {_bar_loss(step + r)}\n")
                if step % 100 == 0:
                    f.write(f"[rank{r}]: eval val_loss={_loss(step) + r:.4f}\n")


def metrics_in_blocks(path: Path, block: int = 64 * 1024) -> tuple[list, Run, assemble.LogMetrics]:
    """The log fed to LogMetrics a block of whole lines at a time (as the reader does)."""
    data = path.read_bytes()
    run = Run(root=path.parent)
    acc = assemble.LogMetrics(path.name, run)
    at = 0
    while at < len(data):
        end = data.rfind(b"\n", at, at + block) + 1 or len(data)
        end = len(data) if at + block >= len(data) else end
        acc.add_block(data[at:end])
        at = end
    return acc.finish(), run, acc


@pytest.mark.parametrize("writer", [write_bars, write_keras, write_epochs, write_ranks])
def test_counter_log_over_budget_drops_segments_keeping_exact_steps(tmp_path, monkeypatch, writer):
    path = tmp_path / "train.log"
    writer(path)
    full, full_run, full_acc = metrics_in_blocks(path)
    assert not any("thinned" in w for w in full_run.warnings)
    lines = path.read_bytes().count(b"\n")
    assert full_acc.peak_segs >= min(lines, STEPS)        # read whole: a segment per counter line or redraw
    monkeypatch.setattr(assemble, "POINTS_BUDGET", 8_000)
    thin, run, acc = metrics_in_blocks(path)
    assert len([w for w in run.warnings if "thinned above 8,000 points" in w]) == 1
    assert acc.ctx is not None and acc.peak_segs < 0.6 * full_acc.peak_segs   # counter segments dropped
    assert acc.nseg < full_acc.peak_segs // 4
    # the steps are the ones the whole log gives: every kept point is a point of the full read, and
    # the same as when no segment is dropped (thinned alike)
    monkeypatch.setattr(assemble, "COMPACT_COUNTERS", False)
    kept_all, _, acc_all = metrics_in_blocks(path)
    assert acc_all.ctx is None and acc_all.peak_segs >= min(lines, STEPS)
    assert [(s.name, s.rank, len(s)) for s in thin] == [(s.name, s.rank, len(s)) for s in kept_all]
    assert [(s.name, s.rank) for s in thin] == [(s.name, s.rank) for s in full]
    for t, a, f in zip(thin, kept_all, full):
        assert np.array_equal(t.steps, a.steps) and np.array_equal(t.locs, a.locs)
        assert np.array_equal(t.values, a.values, equal_nan=True)
        assert t.step_is_index == f.step_is_index and points(t) <= points(f), t.name
        assert (t.steps[0], t.locs[0], t.steps[-1], t.locs[-1]) == (f.steps[0], f.locs[0], f.steps[-1], f.locs[-1])
        nan_t, nan_f = np.flatnonzero(np.isnan(t.values)), np.flatnonzero(np.isnan(f.values))
        assert (nan_t.size > 0) == (nan_f.size > 0)
        if nan_f.size:    # the first NaN, and the last finite value before it, at their exact step and line
            i, j = int(nan_t[0]), int(nan_f[0])
            assert (t.steps[i], t.locs[i]) == (f.steps[j], f.locs[j])
            assert (t.steps[i - 1], t.values[i - 1], t.locs[i - 1]) == (f.steps[j - 1], f.values[j - 1], f.locs[j - 1])
        assert np.nanmax(t.values) == np.nanmax(f.values)
    loss = [s for s in full if s.name == "loss"]
    assert loss and all(len(t) < len(f) // 2 for t, f in zip(thin, full) if t.name == "loss" and len(f) > 5000)
    if writer in (write_bars, write_keras):   # the steps are global: passes / epochs over a restarting counter
        bar = max(loss, key=len)
        assert int(bar.steps[np.flatnonzero(np.isnan(bar.values))[0]]) == BAR_NAN
        spike = [t for t in thin if t.name == "loss" and len(t) and (t.values == 50.0).any()]
        assert spike and int(spike[0].steps[np.flatnonzero(spike[0].values == 50.0)[0]]) == BAR_SPIKE


def test_counter_log_over_its_bytes_budget_is_thinned(tmp_path, monkeypatch):
    """Few points but many counter rows: the bytes held (points, steps, lines) trigger thinning too."""
    path = tmp_path / "train.log"
    write_bars(path)
    full, _, full_acc = metrics_in_blocks(path)
    monkeypatch.setattr(assemble, "HELD_BYTES_BUDGET", 200_000)
    thin, run, acc = metrics_in_blocks(path)
    assert sum(len(s) for s in full) < assemble.POINTS_BUDGET
    assert len([w for w in run.warnings if "thinned above" in w]) == 1
    assert acc.peak_segs < full_acc.peak_segs // 2 and acc.held_bytes <= acc.byte_limit
    for t, f in zip(thin, full):
        assert (t.name, t.rank) == (f.name, f.rank) and points(t) <= points(f)


@pytest.mark.parametrize("writer", [write_steps, write_epochs])
def test_a_log_scanned_in_worker_processes_reads_as_on_threads(tmp_path, monkeypatch, writer):
    """The scan of a big log runs in forked processes (textlog.PROCESS_MIN_BYTES; lowered here,
    with small blocks and a small sparse-text threshold so the word finder travels too): the
    series, the warnings and the kept text are the threads' to the last point."""
    path = tmp_path / "train.log"
    writer(path)
    with open(path, "a") as f:
        f.write("RuntimeError: a line the sparse text keeps\n")
    monkeypatch.setattr(textlog, "BLOCK_BYTES", 64 * 1024)
    monkeypatch.setattr(textlog, "SPARSE_TEXT_BYTES", 256 * 1024)
    monkeypatch.setattr(textlog, "PROCESS_MIN_BYTES", 1 << 60)
    threads = read(path)
    monkeypatch.setattr(textlog, "PROCESS_MIN_BYTES", 0)
    forked: list[bool] = []
    real = textlog._prepared
    monkeypatch.setattr(textlog, "_prepared", lambda b, p, i, processes=False: (forked.append(processes), real(b, p, i, processes))[1])
    procs = read(path)
    assert forked == [textlog._forks()]
    assert procs.warnings == threads.warnings and procs.texts[0].text == threads.texts[0].text
    assert "RuntimeError: a line the sparse text keeps" in procs.texts[0].text
    assert len(procs.series) == len(threads.series) > 0
    for a, b in zip(threads.series, procs.series):
        assert (a.name, a.raw_name, a.rank, a.step_is_index) == (b.name, b.raw_name, b.rank, b.step_is_index)
        assert np.array_equal(a.steps, b.steps) and np.array_equal(a.locs, b.locs)
        assert np.array_equal(a.values, b.values, equal_nan=True)


@pytest.mark.skipif(not textlog._forks(), reason="the scan runs in worker processes on Linux only")
def test_a_log_truncated_under_the_worker_processes_is_scanned_by_the_reader(tmp_path, monkeypatch):
    """The worker processes read their block from the file themselves (no pickle, no pipe). When the
    file no longer holds the bytes the reader read (truncated by a rotation meanwhile), the reader
    scans its own copy: the same series as a read of the whole file, no error."""
    path = tmp_path / "train.log"
    write_steps(path)
    monkeypatch.setattr(textlog, "BLOCK_BYTES", 64 * 1024)
    monkeypatch.setattr(textlog, "PROCESS_MIN_BYTES", 1 << 60)
    whole = read(path)
    monkeypatch.setattr(textlog, "PROCESS_MIN_BYTES", 0)
    real = textlog._blocks

    def read_then_truncate(p, gz):
        blocks = list(real(p, gz))
        os.truncate(p, 100)        # what the workers find when they read their ranges
        yield from blocks

    monkeypatch.setattr(textlog, "_blocks", read_then_truncate)
    cut = read(path)
    assert os.path.getsize(path) == 100 and cut.warnings == whole.warnings
    assert [(s.name, len(s)) for s in cut.series] == [(s.name, len(s)) for s in whole.series]
    for a, b in zip(whole.series, cut.series):
        assert np.array_equal(a.values, b.values, equal_nan=True) and np.array_equal(a.locs, b.locs)
    with open(path, "rb") as f:
        assert textlog._prepare_range((path, 0, 200), False, "x", True, None) is None
        assert not textlog._same_lines(f.read(100) + b"\n", np.array([3]))
