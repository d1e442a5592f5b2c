"""Text log reader over its points budget (assemble.POINTS_BUDGET, lowered here; blocks made
small so the log spans many): series are thinned (min/max per bucket of lines), yet every point
kept has the step, value and line the full read gives it, the first NaN, a planted spike, the
first and the last point survive, and one warning says so. Under the budget nothing changes."""
from __future__ import annotations

import math
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
