"""`metric_frozen`: a loss or accuracy that repeats the exact same value point after point;
`accuracy_zero`: an accuracy that is exactly 0 at every logged point;
`loss_zero`: a training loss that is exactly 0 at every logged point.

A training loss or an accuracy printed identically (to every printed digit) at three or more
consecutive logged points means the model's outputs did not change between them: nothing is
updated (frozen or unregistered parameters, all-dead ReLUs, a collapse to one class after a bad
first step, a too-large init). A real learning curve, even a stalled one, moves in its last digits.

An accuracy of exactly 0, point after point, is not what a learning model produces, even a bad
one: guessing scores about 1/K on K classes, and a model that predicts one class scores that
class's share. Zero means the metric is not measuring the predictions: an integer division or an
int tensor's mean, one-hot targets compared with class indices, accuracy asked of a regression
target. In the corpus's tune part 4 of the 5 runs whose accuracy was 0 at every point were settled
as a metric bug (the fifth: exact-match plate accuracy of a model that had not learned).

A training loss of exactly 0 from its first logged point on is no loss at all: cross-entropy and
its kin reach 0 only when every target is met with certainty, which no model does at step one.
The targets are then trivially met or not there: one class in the labels (a label column missing
from the list file, every target the same), every target masked out (all set to the ignore
index), or the loss computed over nothing, or (half-precision LLM fine-tuning) an fp16 underflow.
Of the corpus tune part's posts that say their loss was exactly 0, five were settled as target bugs
(labels missing or constant), three as that underflow and five as other causes; of the two whose
logs show it from the first point, one had a list file without labels, the other a detector
trained with batch size 1.

In:  a Run (its series). Out: `frozen_metric_signals(run)` -> Signals, one per frozen series,
with evidence at the first and the last point of the run of identical values;
`zero_accuracy_signals(run)` and `zero_loss_signals(run)` -> at most one Signal each, cited at the
first and last zero.
Cost: O(n) numpy per series.
"""
from __future__ import annotations

import math
import re

import numpy as np

from mltdbg.analyzers.curves import FLOOR_LOSS, Quoter, ordered
from mltdbg.analyzers.model import Run, Series, Signal
from mltdbg.analyzers.names import FIXED_MODEL, is_held_out

# Identical values at this many consecutive points start the signal; FULL_AT points give full strength.
MIN_RUN = 3
FULL_AT = 6
# A loss repeated at this many units of its last printed decimal or fewer is at its printed precision
# (Keras prints 4 decimals: 0.5627 ... 0.0001, 0.0001, 0.0001): one or two significant digits that
# stay the same say nothing about whether the outputs moved.
FLOOR_DIGITS = 10
# Series this detector reads: the loss and accuracy-like metrics (name as normalised by names.py).
_NAMES = ("loss", "val_loss", "accuracy", "val_accuracy")
_WORDS = ("acc", "score", "f1", "top1", "error")


def _watched(name: str) -> bool:
    return (name in _NAMES or (any(w in name for w in _WORDS) and "accum" not in name)) \
        and not FIXED_MODEL.search(name)   # not grad_accum, nor a model that is meant not to train


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
        if (_is_accuracy(s.name) or s.name in _TRAIN_LOSS) and not np.any(v[finite] != 0.0):
            continue              # exactly 0 throughout is accuracy_zero's or loss_zero's (not a frozen model)
        if "loss" in s.name and 0.0 < abs(v[start]) <= FLOOR_LOSS:
            continue              # a loss repeated at its floor (1e-9) is too good to be true, not a frozen model
        if "loss" in s.name and _at_printed_floor(v[finite], float(v[start])):
            continue              # came down to its last printed digits (0.0001 of a 4-decimal log): converged, not frozen
        if length < max(MIN_RUN, len(v) / 3):
            continue              # a flat stretch of a curve that moved (or converged to its printed precision)
        seen.add(s.name)
        end = start + length - 1
        strength = min(1.0, 0.5 + 0.5 * (length - MIN_RUN) / max(1, FULL_AT - MIN_RUN))
        # (the training accuracy only: a validation accuracy scores other inputs, which a collapsed model
        # can map to one class while its training loss falls)
        # the training loss printed beside the accuracy falls, so the weights move: a training accuracy that stays
        # is not computed from the predictions (as accuracy_zero's exact 0 is not); a validation accuracy that stays
        # is a model that maps every validation input to the same output (one class)
        held = is_held_out(s.name)
        fell = _loss_fell(run, int(s.steps[start]), int(s.steps[end]), s) if _is_accuracy(s.name) else None
        if fell is not None and (held or fell[1] < LOSS_BELOW_CONSTANT * _constant_floor(float(v[start]))):
            a, b = fell
            kind, what = (("val_frozen_loss_falls", "the model is updated, yet its validation predictions never change")
                          if held else ("accuracy_stuck_loss_falls", "the accuracy is not computed from these predictions"))
            txt = (f"{s.name} is exactly {v[start]:g} at {length} consecutive logged points (step {int(s.steps[start])} to "
                   f"{int(s.steps[end])}) while the training loss falls from {a:.4g} to {b:.4g}: {what}")
            out.append(Signal(kind, strength, txt, [q.ev(s, start, txt), q.ev(s, end, f"{s.name} still {v[end]:g}")],
                              {"metric": s.name, "value": float(v[start]), "points": length, "loss_from": a, "loss_to": b}))
            continue
        txt = (f"{s.name} is exactly {v[start]:g} at {length} consecutive logged points "
               f"(step {int(s.steps[start])} to {int(s.steps[end])}): the model's outputs do not change")
        evs = [q.ev(s, start, txt), q.ev(s, end, f"{s.name} still {v[end]:g}")]
        out.append(Signal("metric_frozen", strength, txt, evs,
                          {"metric": s.name, "value": float(v[start]), "points": length,
                           "step": int(s.steps[start])}))
    return out


# The training loss falling by this share over an accuracy's frozen stretch, to below this share of the
# least cross-entropy one constant prediction can score at that accuracy: the model's outputs moved. (A
# model that learns the class prior and predicts the majority class, a collapse, lowers its loss too, but
# not below the labels' entropy.)
LOSS_FELL = 0.3
LOSS_BELOW_CONSTANT = 0.8


def _as_share(acc: float) -> float:
    """An accuracy as a share: one printed in percent (92.5) as 0.925."""
    return acc / 100.0 if acc > 1.0 else acc


def _constant_floor(acc: float) -> float:
    """The least cross-entropy (nats) of a constant prediction whose accuracy is `acc` (a share, or a
    percent): the labels' entropy when the majority class holds `acc` and the rest is as concentrated as
    it can be (floor(1/acc) classes of that share and one of the remainder)."""
    a = _as_share(acc)
    if not 0.0 < a < 1.0:
        return 0.0
    k = math.floor(1.0 / a)
    r = 1.0 - k * a
    return -k * a * math.log(a) - (r * math.log(r) if r > 1e-12 else 0.0)


def _loss_fell(run: Run, lo: int, hi: int, acc: Series) -> tuple[float, float] | None:
    """(the training loss at the start and at the end of steps lo..hi: medians of 3 points) when it fell by
    LOSS_FELL or more over them, else None. The loss is the one logged beside the accuracy `acc` (on its lines
    or records) where there is one: a log of two phases (pre-training, then fine-tuning) restarts its steps,
    and the first phase's falling loss says nothing of the second phase's outputs."""
    losses = [x for x in run.series if x.name in _TRAIN_LOSS]
    beside = [x for x in losses if x.source == acc.source and x.loc_kind == acc.loc_kind
              and np.intersect1d(x.locs, acc.locs).size]
    loss = beside[0] if beside else losses[0] if losses else None
    if loss is None:
        return None
    loss = ordered(loss)
    keep = (loss.steps >= lo) & (loss.steps <= hi) & np.isfinite(loss.values)
    v = np.asarray(loss.values[keep], dtype=float)
    if len(v) < 4:
        return None
    a, b = float(np.median(v[:3])), float(np.median(v[-3:]))
    return (a, b) if a > 0 and (a - b) / a >= LOSS_FELL else None


def _at_printed_floor(v: np.ndarray, value: float) -> bool:
    """Whether `value` is within FLOOR_DIGITS units of the last decimal all of `v` is printed to (the
    fewest decimals, up to 6, that every value has) and `v` came down to it (a series printed at that
    one value throughout did not move at all)."""
    for d in range(7):
        x = v * 10.0 ** d
        if np.all(np.abs(x - np.round(x)) < 1e-6 * np.maximum(1.0, np.abs(x))):
            return abs(value) <= FLOOR_DIGITS * 10.0 ** -d and float(np.max(np.abs(v))) > abs(value)
    return False


# Names of accuracy series (as normalised by names.py); "accum" is gradient accumulation, not accuracy.
_ACC_WORDS = ("acc", "top1", "top5", "top_1", "top_5")


# An accuracy under attack (pgd_acc, adv_accuracy, robust_acc): 0 is what a model not trained to resist scores
_ATTACKED = re.compile(r"pgd|fgsm|adv|attack|robust")


# ... and a localisation's hit rate (mmpose's acc_pose, a keypoint's or a box's accuracy), by whole tokens: a model that
# finds nothing scores exactly 0 there, no guess scores 1/K (a dialogue model's joint-goal accuracy is an accuracy)
_LOCATED = re.compile(r"(?:^|[_/.])(?:pose|kpts?|keypoints?|landmarks?|b?box(?:es)?)(?:$|[_/.])")


def _is_accuracy(name: str) -> bool:
    n = name.lower()
    return any(w in n for w in _ACC_WORDS) and "accum" not in n and not _ATTACKED.search(n) and not _LOCATED.search(n)


def _all_zero(run: Run, wanted, min_points: int, near: float = 0.0):
    """The first series whose name `wanted` accepts and whose finite points, min_points at least, are
    all exactly 0 (near > 0: all in (0, near]): (series in step order, the finite points' indexes), or None."""
    for s in run.series:
        if len(s) < min_points or not wanted(s.name):
            continue
        s = ordered(s)
        v = np.asarray(s.values, dtype=float)
        fin = np.flatnonzero(np.isfinite(v))
        if len(fin) < min_points:
            continue
        if (not np.any(v[fin] != 0.0)) if not near else bool(np.all((v[fin] > 0) & (v[fin] <= near))):
            return s, fin
    return None


def _zero_signal(run: Run, kind: str, strength: float, s, fin: np.ndarray, txt: str) -> list[Signal]:
    """The signal of an all-zero series, cited at its first zero (and its last, when there are two)."""
    q = Quoter(run)
    first, last = int(fin[0]), int(fin[-1])
    evs = [q.ev(s, first, txt)] + ([q.ev(s, last, f"{s.name} still 0")] if len(fin) > 1 else [])
    return [Signal(kind, strength, txt, evs, {"metric": s.name, "points": len(fin), "step": int(s.steps[first])})]


def zero_accuracy_signals(run: Run) -> list[Signal]:
    """`accuracy_zero` for the first accuracy series whose every finite point is exactly 0.
    Strength 0.6 for one point, 0.8 for two, 1.0 for three or more (a zero that persists)."""
    hit = _all_zero(run, _is_accuracy, 1)
    if hit is None:
        return []
    s, fin = hit
    n, first, last = len(fin), int(fin[0]), int(fin[-1])
    where = (f"at its one logged point (step {int(s.steps[first])})" if n == 1 else
             f"at all {n} logged points (step {int(s.steps[first])} to {int(s.steps[last])})")
    txt = (f"{s.name} is exactly 0 {where}: even guessing scores about 1/K, so the accuracy "
           "is not measuring the predictions")
    return _zero_signal(run, "accuracy_zero", (0.6, 0.8)[n - 1] if n < 3 else 1.0, s, fin, txt)


# A recall named for one class or index (val_recall_class_9, recall_c3, recall/7) is that class's
_PER_CLASS = re.compile(r"(?:class|cls|_c|[/_.-])\d+$|class[_-]?\w+$", re.I)
# A recall at exactly 0 for its last this many logged points (and half of them at least) ...
RECALL_ZERO_POINTS = 3
# ... beside an accuracy this high at the end: right on most samples, yet never on a positive one
RECALL_ZERO_ACC = 0.5


# Overlap scores that are 0 when no positive is predicted (segmentation's Dice and IoU, a detector's F1).
# Whole tokens of the name, never a loss ("dice_loss", "loss_giou") or a word that holds the letters ("indices").
_OVERLAP = re.compile(r"(?:^|[_/.\-])(?:m?iou|dice|jaccard|f1)(?:$|[_/.@\-])", re.I)


def zero_recall_signals(run: Run) -> list[Signal]:
    """`recall_zero`: a recall series exactly 0 at its last RECALL_ZERO_POINTS logged points or more (half the
    series at least) while an accuracy ends at RECALL_ZERO_ACC or more. A model that finds no positive at all and
    is still right on most samples predicts the majority class for every input (92 % accuracy on data that is
    92 % negative): one output regardless of the input. Cited at the first of the trailing zeros and at the
    accuracy's end. Where the run logs no accuracy, a Dice / IoU / F1 (_OVERLAP) exactly 0 so while the training
    loss falls reads the same (a segmentation model that predicts background everywhere)."""
    accs = [ordered(x) for x in run.series if _is_accuracy(x.name) and len(x)]
    for s in run.series:
        overlap = bool(_OVERLAP.search(s.name)) and "loss" not in s.name.lower()
        if ("recall" not in s.name.lower() and not overlap) or len(s) < RECALL_ZERO_POINTS or _PER_CLASS.search(s.name):
            continue          # (one class's recall at 0 beside a good accuracy is that class, not the model)
        s = ordered(s)
        v = np.asarray(s.values, dtype=float)
        fin = np.flatnonzero(np.isfinite(v))
        nz = fin[v[fin] != 0.0]
        tail = fin[fin > nz[-1]] if len(nz) else fin
        if len(tail) < max(RECALL_ZERO_POINTS, len(fin) / 2):
            continue
        held = is_held_out(s.name)
        acc = next((a for a in accs if is_held_out(a.name) == held), None) or (accs[0] if accs else None)
        q = Quoter(run)
        data: dict = {"metric": s.name, "points": len(tail)}
        if acc is None:
            # a Dice / IoU / F1 exactly 0 throughout while the loss falls: the masks are all background, the model
            # never predicts the positive class (segmentation logs print no accuracy)
            if not overlap or (fell := _loss_fell(run, int(s.steps[0]), int(s.steps[-1]), s)) is None:
                continue
            beside, where, more = f"the training loss falls from {fell[0]:.3g} to {fell[1]:.3g}", "everywhere", []
        else:
            af = np.flatnonzero(np.isfinite(acc.values))
            if not len(af) or (end := _as_share(float(acc.values[af[-1]]))) < RECALL_ZERO_ACC:
                continue
            beside, where = f"{acc.name} ends at {end:.3g}", "for every input"
            more, data["accuracy"] = [q.ev(acc, int(af[-1]), f"{acc.name} at the end")], end
        first = int(tail[0])
        txt = (f"{s.name} is exactly 0 at its last {len(tail)} logged points (from step {int(s.steps[first])}) while "
               f"{beside}: the model predicts no positive at all, the majority class {where}")
        return [Signal("recall_zero", 0.8, txt, [q.ev(s, first, txt), *more], data)]
    return []


# The training loss as names.py normalises it (component losses such as a box loss are 0 by design
# in some detectors until a stage starts, so only the main loss is read).
_TRAIN_LOSS = ("loss", "train_loss")
# A training loss at most this from its first logged point on: too good to be true (cross-entropy of a
# confident correct prediction on every sample of the first epoch).
NEAR_ZERO_LOSS = 1e-6


def zero_loss_signals(run: Run) -> list[Signal]:
    """`loss_zero` for the training loss when every finite point, two at least, is exactly 0.
    Strength 0.7 for two points, 1.0 for three or more. Else `loss_near_zero_from_start` when every
    finite point is above 0 and at most NEAR_ZERO_LOSS (1e-9 from the first logged epoch on): a fit no
    model makes in its first epoch, so too good to be true (targets leaked into the inputs, or one
    target for every sample)."""
    hit = _all_zero(run, _TRAIN_LOSS.__contains__, 2)
    if hit is not None:
        s, fin = hit
        txt = (f"{s.name} is exactly 0 at all {len(fin)} logged points (step {int(s.steps[fin[0]])} to "
               f"{int(s.steps[fin[-1]])}): from the first step on, the targets are met trivially or not there")
        return _zero_signal(run, "loss_zero", 0.7 if len(fin) == 2 else 1.0, s, fin, txt)
    hit = _all_zero(run, _TRAIN_LOSS.__contains__, 2, NEAR_ZERO_LOSS)
    if hit is None:
        return []
    s, fin = hit
    txt = (f"{s.name} is at most {float(np.max(s.values[fin])):.1e} at all {len(fin)} logged points from the first "
           f"(step {int(s.steps[fin[0]])}): no model fits that well in its first steps; the targets are leaked or trivial")
    return _zero_signal(run, "loss_near_zero_from_start", 0.7 if len(fin) == 2 else 0.9, s, fin, txt)
