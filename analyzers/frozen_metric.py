"""`metric_frozen`: a loss or accuracy that repeats the exact same value point after point.

A training loss or an accuracy printed identically (to every printed digit) at three or more
consecutive logged points means the model's outputs did not change between them: nothing is
updated (frozen or unregistered parameters, all-dead ReLUs, a collapse to one class after a bad
first step, a too-large init). A real learning curve, even a stalled one, moves in its last digits.

In:  a Run (its series). Out: `frozen_metric_signals(run)` -> Signals, one per frozen series,
with evidence at the first and the last point of the run of identical values.
Cost: O(n) numpy per series.
"""
from __future__ import annotations

import numpy as np

from mltdbg.analyzers.curves import Quoter, ordered
from mltdbg.analyzers.model import Run, Signal

# Identical values at this many consecutive points start the signal; FULL_AT points give full strength.
MIN_RUN = 3
FULL_AT = 6
# Series this detector reads: the loss and accuracy-like metrics (name as normalised by names.py).
_NAMES = ("loss", "val_loss", "accuracy", "val_accuracy")
_WORDS = ("acc", "score", "f1", "top1", "error")


def _watched(name: str) -> bool:
    return name in _NAMES or any(w in name for w in _WORDS)


def frozen_metric_signals(run: Run) -> list[Signal]:
    out: list[Signal] = []
    q = Quoter(run)
    seen: set[str] = set()
    for s in run.series:
        if s.name in seen or not _watched(s.name) or len(s) < MIN_RUN:
            continue
        s = ordered(s)
        v = np.asarray(s.values, dtype=float)
        eq = v[1:] == v[:-1]
        if 1 + np.count_nonzero(eq) < max(MIN_RUN, len(v) / 3):
            continue              # too few equal neighbours for a run long enough (most series stop here)
        finite = np.isfinite(v)
        if finite.sum() < MIN_RUN:
            continue
        same = np.concatenate(([False], eq & finite[1:] & finite[:-1]))
        # longest run of consecutive equal values: run length = 1 + number of consecutive `same`
        idx = np.flatnonzero(~same)
        ends = np.append(idx[1:], len(v))
        lengths = ends - idx
        k = int(np.argmax(lengths))
        length, start = int(lengths[k]), int(idx[k])
        if length < MIN_RUN:
            continue
        if s.name in ("accuracy", "val_accuracy") or "acc" in s.name:
            if v[start] >= 0.999 * (100.0 if np.nanmax(v) > 1.0 else 1.0):
                continue          # stuck at 100 % is another story (data_leakage, too-easy task)
        if length < max(MIN_RUN, len(v) / 3):
            continue              # a flat stretch of a curve that moved (or converged to its printed precision)
        seen.add(s.name)
        end = start + length - 1
        strength = min(1.0, 0.5 + 0.5 * (length - MIN_RUN) / max(1, FULL_AT - MIN_RUN))
        txt = (f"{s.name} is exactly {v[start]:g} at {length} consecutive logged points "
               f"(step {int(s.steps[start])} to {int(s.steps[end])}): the model's outputs do not change")
        evs = [q.ev(s, start, txt), q.ev(s, end, f"{s.name} still {v[end]:g}")]
        out.append(Signal("metric_frozen", strength, txt, evs,
                          {"metric": s.name, "value": float(v[start]), "points": length,
                           "step": int(s.steps[start])}))
    return out
