"""`train_val_gap_end`: training far better than validation at the last values a run printed.

A post often shows one epoch line ("loss: 0.035 - accuracy: 0.988 - val_loss: 2.68 -
val_accuracy: 0.593"): too short for a curve, but the gap itself is evidence for the train/val-gap
group (overfitting most often; other preprocessing or unpaired labels on the val side). What
separates the group's members needs the curve (curves.py: train_val_divergence, val_gap_from_start),
so this signal alone keeps them below the bar (taxonomy `confusable: train_val_gap`).

In:  a Run. Out: `gap_signals(run)` -> at most one Signal, citing the last train and val values (a
train series logged per step is read as its mean over the last validation interval).
Not emitted when the curve analyzers already name the gap (divergence or a gap from the start).
"""
from __future__ import annotations

import numpy as np

from mltdbg.analyzers.curves import Quoter, ordered
from mltdbg.analyzers.model import Run, Series, Signal

# Accuracy gap (fraction) at the end that counts, and the train accuracy it needs (a model that
# fits its training data); a val loss this many times the train loss counts the same way.
ACC_GAP = 0.15
TRAIN_ACC_MIN = 0.8
LOSS_RATIO = 2.5
# ... and, where the accuracies are logged and close, the val loss at least this far above the train loss (nats):
# 0.028 against 0.003 is a ratio of 9 between two losses of a model that fits both sets (val accuracy 0.987), no gap
# to explain. (Without accuracies the ratio alone counts: an MSE of 0.006 against 0.06 is a regression's gap.)
LOSS_GAP_MIN = 0.1


def _last(s: Series, per: int = 1) -> tuple[float, int] | None:
    """(the series' level at its end, the index of its last finite point): the last value, or, with
    per > 1, the mean of its last `per` finite points (a per-step train series beside a per-epoch
    validation one: its last evaluation interval as the epoch's own mean would be, not whichever batch
    came last; a median of single samples' losses sits far below their mean)."""
    v = s.values
    ok = np.flatnonzero(np.isfinite(v))
    if not len(ok):
        return None
    i = int(ok[-1])
    return (float(v[i]) if per <= 1 else float(np.mean(v[ok[-per:]]))), i


def _per(train: Series, val: Series) -> int:
    """Train points per validation point, when training is logged more often (1 otherwise)."""
    return max(1, len(train) // max(1, len(val))) if len(train) >= 2 * len(val) else 1


def _settled(s: Series) -> tuple[float, int] | None:
    """(the median of a swinging validation series' last SETTLED points, the index of the point nearest that
    median among them): where it sits at the end, not the one evaluation it happened to end on."""
    ok = np.flatnonzero(np.isfinite(s.values))[-SETTLED:]
    if not len(ok):
        return None
    v = s.values[ok]
    m = float(np.median(v))
    return m, int(ok[int(np.argmin(np.abs(v - m)))])


# evaluations read when the validation metric swings from one to the next (curves.py: val_unstable)
SETTLED = 3


def gap_signals(run: Run, already: set[str] | None = None) -> list[Signal]:
    if already and already & {"train_val_divergence", "val_gap_from_start", "memorizing_from_start", "val_above_train"}:
        return []
    # a validation metric that swings by a quarter of its level between evaluations is read at its settled level
    # (a val loss of 0.59, 2.19, 1.34, 9.64 under a large lr ends 6x the train loss at one point, not at its level)
    val_end = _settled if already and "val_unstable" in already else _last
    q = Quoter(run)
    acc, vacc = run.metric("accuracy"), run.metric("val_accuracy")
    acc_close = False       # accuracies logged and no gap between them
    if acc is not None and vacc is not None:
        acc, vacc = ordered(acc), ordered(vacc)
        a, b = _last(acc, _per(acc, vacc)), val_end(vacc)
        if a and b:
            scale = 100.0 if max(a[0], b[0]) > 1.0 else 1.0
            ta, va = a[0] / scale, b[0] / scale
            acc_close = ta - va < ACC_GAP
            if ta >= TRAIN_ACC_MIN and ta - va >= ACC_GAP:
                txt = f"at the end train accuracy is {a[0]:g} and val accuracy {b[0]:g} (a gap of {(ta - va) * 100:.0f} points)"
                return [Signal("train_val_gap_end", min(1.0, (ta - va) / 0.3), txt,
                               [q.ev(acc, a[1], "train accuracy at the end"), q.ev(vacc, b[1], "val accuracy at the end")],
                               {"train": ta, "val": va})]
    loss, vloss = run.metric("loss"), run.metric("val_loss")
    if loss is not None and vloss is not None:
        loss, vloss = ordered(loss), ordered(vloss)
        a, b = _last(loss, _per(loss, vloss)), val_end(vloss)
        if a and b and a[0] > 0 and b[0] >= LOSS_RATIO * a[0] and (b[0] - a[0] >= LOSS_GAP_MIN or not acc_close):
            ratio = b[0] / a[0]
            txt = f"at the end val loss is {b[0]:g}, {ratio:.1f}x the train loss {a[0]:g}"
            return [Signal("train_val_gap_end", min(1.0, 0.5 + 0.5 * min(1.0, (ratio - LOSS_RATIO) / 5)), txt,
                           [q.ev(loss, a[1], "train loss at the end"), q.ev(vloss, b[1], "val loss at the end")],
                           {"ratio": ratio})]
    return []
