"""Curve analyzers: metric series in, typed `Signal`s out. Vectorised numpy only.

`curve_signals(run)` looks at loss / val_loss / accuracy / val_accuracy /
grad_norm (total and per layer) / lr / loss_scale / timing series and reports
the shapes the taxonomy's causes leave behind (signals.md lists them).
Thresholds are named below with where they come from.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable
import re
from functools import cache
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mltdbg.analyzers.config import LOWER_IS_BETTER, is_transformerish, train_batch_sizes
from mltdbg.analyzers.model import LOC_LINE, Evidence, Run, Series, Signal, TextArtifact, value_for_json
from mltdbg.analyzers.names import FIXED_MODEL, NETWORK_PARTS, is_held_out
from mltdbg.analyzers.readers.textlog.arrays import small_pages

# A point is a spike when it sits this many robust sigmas (1.4826*MAD) above
# its block's median: 6 keeps the false-alarm rate of Gaussian noise ~1e-9.
SPIKE_Z = 6.0
# ...and is at least this many times the block median (noise on a near-flat curve is not a spike).
SPIKE_RATIO = 1.5
# ...and above 1.5x this share of the loss's first logged value (a loss that fell to 1e-3 of where it began
# and blips at its printed precision has no spike worth reading).
SPIKE_FLOOR_SHARE = 1e-2
# A val loss whose peak after its minimum is this many times its end value swung there (see _train_val).
VAL_SWING_X = 1.5
# A grad-norm spike counts in full from this many times its local median; below, in proportion to its log.
GRAD_SPIKE_FULL = 3.0
# Below this many points a curve is smoothed with a window of n/5 (>= 2) for the divergence test.
SHORT_CURVE = 30
# A rise of the smoothed loss above its running minimum this large, held to the end, is divergence.
DIVERGENCE_RISE = 0.15
# ... and more than this many standard errors of the last points' mean (a minibatch loss's scatter)
DIVERGENCE_NOISE_K = 4.0
# grad_norm growth (late median / early median) that counts as orders of magnitude.
GRAD_GROWTH_RATIO = 30.0
# ... and over a short history (3 to 7 finite points, each at least the one before): last / first.
SHORT_GRAD_GROWTH = 4.0
# Relative drop of the loss from start to end below which the run "did not learn".
NO_LEARNING_DROP = 0.03
# Adam-family learning rates above this are high for most models (common defaults 1e-4..3e-3).
ADAM_LR_HIGH = 1e-2
SGD_LR_HIGH = 1.0
# Full fine-tuning of a pretrained model (from_pretrained, the HF Trainer) with an Adam-family
# optimizer: recipes sit at 1e-5..1e-4; above this the weights are wrecked in the first steps
# (the classic BERT fine-tune at 1e-3 or 5e-3 that predicts one class at ln 2; the bar was 1e-3,
# which let that 1e-3 pass). LoRA/adapters (peft) train few new weights at 1e-4..1e-3 and keep ADAM_LR_HIGH.
FINETUNE_LR_HIGH = 5e-4
# A transformer trained from scratch with an Adam-family optimizer (GPT / BERT recipes: 6e-4 for 124M
# parameters, 1e-3 for small char models, lower as they grow): above this it diverges, mostly late.
# (LoRA/adapters keep ADAM_LR_HIGH: their few new weights train at 1e-4..5e-3.)
TRANSFORMER_LR_HIGH = 3e-3
# With no optimizer named, an lr up to this is within some common optimizer's usual range (SGD on an
# LSTM, Adadelta and L-BFGS default to 1.0): lr_high's strength is capped at UNKNOWN_OPT_LR_CAP.
UNKNOWN_OPT_LR_NORMAL = 1.0
UNKNOWN_OPT_LR_CAP = 0.6
# a model's weights loaded (not a tokenizer's, a processor's or a config's)
_PRETRAINED = re.compile(r"\b(?!\w*(?:Tokenizer|Processor|Config|FeatureExtractor)\b)\w+\.from_pretrained\(")
_ADAPTERS = re.compile(r"\b(?:peft|peft_type|LoraConfig|get_peft_model|lora_r|lora_alpha|adapter)\b", re.I)
# Cross-entropy at a standard (fan-in scaled) init sits near ln K. A first loss above
# max(INIT_LOSS_CHANCE_X * ln K, ln K + INIT_LOSS_CHANCE_PLUS) means logits far from 0 at step 0.
INIT_LOSS_CHANCE_X = 3.0
INIT_LOSS_CHANCE_PLUS = 3.0
# With K unknown: no tokenizer's vocabulary has ln V above 13 (ln 440k), so a cross-entropy
# (a run that also logs accuracy or perplexity, or an "lm"/"nll"/"ce" loss) starting above it
# did not start from a standard init.
INIT_LOSS_ABSOLUTE = 13.0
# val_off_scale: a held-out loss's median this many times the training loss's (and above the init bar)
VAL_OFF_SCALE_X = 20.0
# ... not beside a last validation accuracy above 1.5/K (K unknown: above this)
VAL_OFF_SCALE_ACC = 0.5
# (an accuracy that never moves by this much is one class predicted throughout: no gate)
VAL_OFF_SCALE_ACC_MOVES = 0.005
# loss_negative: a loss that starts above this and goes below minus the second
LOSS_NEGATIVE_START = 0.3
LOSS_NEGATIVE_BELOW = 0.01
# A huge first loss that ends this many times lower (below the bar) has recovered.
HUGE_START_FALL = 20.0
# A logged lr whose peak stays this many times below the configured lr never ran at it (curves._lr_signals).
LR_NEVER_CONFIGURED = 20.0
# An lr step between logged points more than this many times the log's usual step apart is no jump (curves._lr_signals)
JUMP_GAP = 4.0
# ... and a jump moves the lr more than this many times its median move between neighbours
JUMP_STEP_X = 3.0
# A data_time share read from fewer than 3 logged points weighs this much of a whole log's (curves._timing)
TIMING_FEW = 0.8
# A loss of any other kind (MSE, L1, a sum over pixels) starting at this or more: no target on a sane scale
# gives it; raw features or targets in the thousands and up do.
LOSS_OFF_SCALE = 1e6
# ... and back above the bar at no more than this share of the second half's points (a per-batch loss blips:
# 1.1, 5.5, 1.1, 13.3, 1.0 has recovered; an lr too high does not settle)
RECOVER_BLIPS = 0.2
# Per-step loss noise: median |step-to-step change| over the median level, second half of the
# run, >= NOISY_MIN_POINTS points. Batch-16..64 runs in the zoo measure 0.004-0.6; batch 1, 1.6.
NOISY_LOSS_RATIO = 1.0
# ... and at this ratio or more the steps are one or two samples' losses (per-sample cross-entropy
# scatters 1.5-3x its mean; a batch of B averages that down by sqrt(B): batch 32 measures 0.2-0.6,
# batch 8 ~1, batch 2 1.8, batch 1 2-5).
PER_SAMPLE_NOISE = 1.6
NOISY_MIN_POINTS = 25
# Input-side layer's grad norm over the output-side layer's (and over the median of the others)
# at one step. Zoo nets with standardised inputs: <= 3 (sigmoid stacks: 1e-7); raw 0..255 pixels
# into a conv net: 32x the last layer, 9x the others' median in its first steps.
FIRST_LAYER_GRAD_PEAK = 20.0
FIRST_LAYER_GRAD_MEDIAN = 5.0
# Overfitting needs a validation curve that first improved by at least this share.
VAL_IMPROVED = 0.03
# ... and a validation rise is one when it is this share of the run's starting loss at least: a val loss that goes
# from 1e-6 to 8e-6 (a validation set the model scores perfectly from its first epoch) rose 700 % and means nothing.
VAL_RISE_OF_START = 0.01
# The same read from accuracies (on a 0-1 scale): validation never gains VAL_ACC_IMPROVED over its
# first evaluation while train accuracy gains VAL_ACC_TRAIN_GAIN, and validation sits near chance
# (<= 1.5/K) or VAL_ACC_FAR_BELOW under train at the end.
VAL_ACC_IMPROVED = 0.02
VAL_ACC_TRAIN_GAIN = 0.2
VAL_ACC_FAR_BELOW = 0.3
# a first validation accuracy this close below the training accuracy of its epoch started level with it
VAL_ACC_LEVEL = 0.05
# Train accuracy at or below this over the last third, flat, and well above chance is "capped"
# (wrong labels cap it near 1 - their share until the model memorises them).
TRAIN_ACC_CAP = 0.92
TRAIN_ACC_FLAT = 0.05
# loss_reset: the loss had fallen to RESET_LEARNED of its start, then jumps RESET_JUMP x in one logged
# step back to RESET_BACK of its start
RESET_LEARNED = 0.5
RESET_JUMP = 2.0
RESET_BACK = 0.8
# ... and clears everything in the stretch before it by this much (a loss that scatters like single
# samples' has jumps like it all along)
RESET_CLEARS = 1.5
# val_at_chance: validation accuracy never above this many times the chance level 1/K
VAL_CHANCE_BAND = 1.5
# ... with K unknown: a usual class count K (CHANCE_CLASSES) whose 1/K the median is within this share of
VAL_CHANCE_MATCH = 0.25
# memorized_after_plateau: the plateau spans this share of the run at least, sits at or below
# MEMO_PLATEAU_MAX, and training then climbs MEMO_CLIMB above it while validation falls MEMO_VAL_DROP
MEMO_PLATEAU_SHARE = 0.2
MEMO_PLATEAU_MAX = 0.9
MEMO_CLIMB = 0.1
MEMO_VAL_DROP = 0.03
# Above this many points, the train accuracy is read as this many block means (a per-step batch
# accuracy scatters wider than the plateau band around its level; and the plateau search
# slides a window of a fifth of the points over all of them).
MEMO_POINTS = 200
# Validation better than training over the later evaluations: accuracy higher by at least
# VAL_ACC_ABOVE, or train loss / val loss above VAL_LOSS_BELOW_X (healthy zoo runs: 0.3-1.4,
# from dropout and from train losses averaged over an epoch that was still improving).
VAL_ACC_ABOVE = 0.10
VAL_LOSS_BELOW_X = 1.5
# Validation "near perfect": accuracy >= NEAR_PERFECT_ACC or a loss below NEAR_ZERO_LOSS_SHARE
# of the chance level (or of the first train loss when K is unknown).
NEAR_PERFECT_ACC = 0.99
NEAR_ZERO_LOSS_SHARE = 0.01
# A training loss at or below this (1e-9 printed epoch after epoch, or exactly 0) is at its floor: a
# too-good-to-be-true run or a loss over nothing, never a model stuck at chance or a frozen model.
FLOOR_LOSS = 1e-6


def curve_signals(run: Run) -> list[Signal]:
    """All curve signals for a run (empty when it has no usable series).

    Run with numpy's huge-page hint off (small_pages): a long series' temporaries are fresh
    memory, and right after a big log was read, finding 2 MB pages for them means compacting
    memory (10M points: 1.6 s of system time in the first call, 0.8 s with small pages).

    numpy's nan-reductions (nanmax, nanmedian, ...) warn on an all-NaN or empty slice and return
    NaN; every analyzer compares that NaN (False) or skips it, so the warning tells the user
    nothing and is kept off their terminal here, once for all analyzers."""
    with small_pages(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", _NAN_SLICE_WARNINGS, RuntimeWarning)
        return _curve_signals(run)


# What numpy says when a reduction gets nothing but NaN (or nothing at all).
_NAN_SLICE_WARNINGS = r"All-NaN (?:slice|axis) encountered|Mean of empty slice"


# Points from which the gradient-norm and learning-rate analyzers run on a second thread while the
# loss analyzers run on the caller's: their work is whole-array numpy, which frees the GIL, so on a
# 10M-line log the three series' analyses take about the longest one's time instead of the sum.
SIDE_THREAD_POINTS = 1_000_000


def _curve_signals(run: Run) -> list[Signal]:
    out: list[Signal] = []
    quote = Quoter(run)
    loss = primary(run, "loss")
    if loss is None:
        # A run may only log eval loss (or a single loss under another name): use it; or only the terms of its
        # training loss, on the same rows (YOLO's box/cls/dfl, detectron2's loss_*): their sum is the total
        loss = _lone_term(run) or run.metric("val_loss") or _summed_terms(run) or _error_curve(run)
    g, lr = primary(run, "grad_norm") or _network_grad(run), run.metric("lr")

    def grad_and_lr() -> tuple[list[Signal], list[Signal]]:
        return (_grad_signals(ordered(g), quote) if g is not None else [],
                _lr_signals(run, ordered(lr) if lr is not None else None, quote))
    side = None
    if loss is not None and len(loss) >= SIDE_THREAD_POINTS \
            and max(len(g) if g is not None else 0, len(lr) if lr is not None else 0) >= SIDE_THREAD_POINTS:
        pool = ThreadPoolExecutor(1, thread_name_prefix="curves")
        side = pool.submit(grad_and_lr)
        pool.shutdown(wait=False)     # the thread ends with its one task
    if loss is not None and len(loss) >= 3:
        cur = ordered(loss)
        out += _per_side(run, _sides(loss, cur), quote)
        out += _huge_start(run, cur, quote)
        out += _restart(loss, quote)
        out += _nonfinite_same_step(loss, quote)
        out += _loss_reset(cur, ordered(lr) if lr is not None else None, quote)
        if len(cur) < len(loss) and not any(x.kind == "nonfinite" for x in out) \
                and not np.isfinite(loss.values).all():
            # a NaN that only the attempt before a resume wrote: the reason it was resumed
            out += [x for x in _loss_signals(run, by_step(loss), quote) if x.kind.startswith("nonfinite")]
    elif loss is None:
        # no total printed, only the terms of a multi-term loss: a restart is read from them
        out += next((r for r in (_restart(x, quote) for x in loss_terms(run)) if r), [])
    if not any(x.kind == "nonfinite" for x in out):
        # a loss too short for a curve ("loss=nan" printed once, one point in another file), or one
        # term of a multi-term loss (`'loss_box_reg': inf` while the total was still finite): the
        # first non-finite value is cited all the same, the total's own series first
        bad = [x for x in run.series if "loss" in x.name and (len(x) < 3 or x.name not in ("loss", "val_loss"))
               and not np.isfinite(x.values).all()]
        if bad:
            first = min(bad, key=lambda x: (x.name not in ("loss", "val_loss"), x.name != "loss"))
            # (and the rise that ran into it: loss_box_reg 0.70, 1.40, 25.0, inf is a blow-up however short)
            out += [x for x in _loss_signals(run, ordered(first), quote)
                    if x.kind.startswith("nonfinite") or x.data.get("to_nonfinite")]
    if not any(x.kind == "nonfinite" for x in out):
        out += _counted_nonfinite(run, quote)
    if any(x.kind == "nonfinite" for x in out):
        out += _one_rank_first_nonfinite(run, quote)
    val = run.metric("val_loss")
    if loss is not None and val is not None and val is not loss and len(val) >= 3:
        out += _train_val(run, *_on_train_axis(ordered(loss), ordered(val)), quote)
    elif val is None:
        out += _term_train_val(run, quote)
    if loss is not None and val is not None and val is not loss:
        out += _val_nonfinite_only(ordered(loss), ordered(val), quote)
        out += _val_off_scale(run, ordered(loss), ordered(val), quote)
    if not any(x.kind in ("val_gap_from_start", "memorizing_from_start") for x in out):
        out += _val_acc_gap(run, quote)
    regularised = cache(lambda: _regularised_at(run))     # (read where either reading needs it, once)
    out += _val_vs_train(run, quote, regularised)
    out += _val_at_chance(run, quote)
    if not any(x.kind in ("divergence", "nonfinite") for x in out):
        out += _val_unstable(run, quote)     # (beside a training loss that runs away, validation swings with it)
    if any(x.kind == "plateau" for x in out):
        out += _no_gap_unfitted(run, quote)
    if not any(x.kind == "loss_at_chance" for x in out):
        out += _val_loss_at_chance(run, quote)
    elif not any(x.kind == "slow_descent" for x in out):
        out += _val_creeping(run, quote)
    out += _held_out_at_chance(run, quote)
    out += _accuracy_signals(run, quote, regularised)
    out += _memorized_after_plateau(run, quote)
    out += _val_above_train_early(run, quote)
    out += _train_at_chance_val_learned(run, quote)
    out += _loss_above_chance(run, quote)
    if loss is not None:
        out += _loss_negative(run, loss, quote)
    grad_sig, lr_sig = side.result() if side is not None else grad_and_lr()
    out += grad_sig
    if not any(x.kind == "nonfinite" for x in out) and (hidden := _nan_logged_as_zero(run, quote)):
        out = without(out + hidden, "healthy", {"nonfinite"})
    out += _layer_signals(run, quote)
    out += lr_sig
    out += _chance_under_high_lr(out)
    if stall := _stall_under_lr_collapse(out):
        # the plateau is the lr's: read once, as the collapse's stall (not a model too small, nor one that cannot fit)
        out = [x for x in out if x.kind not in _STALL_KINDS] + stall
    ls = run.metric("loss_scale")
    if ls is not None and len(ls) >= 3:
        out += _loss_scale(ordered(ls), quote)
    out += _timing(run, quote)
    out += _dead_units(run, quote)
    out += _embedding_collapse(run, quote)
    out += _policy_entropy(run, quote)
    out += _return_gap(run, quote)
    out += _params_unchanged(run, quote) or _policy_unchanged(run, quote)
    out += _dpo_reference_differs(run, quote)
    # Readings of the same points by a more specific signal: the huge first loss is a collapse's own start
    # (an epoch's mean, no init's loss); a jump back each epoch is the data order's first block; the
    # rise back to the start is the reset, not a divergence.
    out = without(out, "loss_huge_at_start", {"collapsed_to_chance"})
    out = without(out, "huge_start_recovers", {"collapsed_to_chance"})
    # gradients that shrink 100x are ordinary where the loss itself goes to ~0: a broken scale only beside a loss
    # that starts huge
    if not any(x.kind == "loss_huge_at_start" for x in out):
        out = [x for x in out if x.kind != "grad_huge_start_falls"]
    out = without(out, "loss_reset", lambda x: x.kind == "sawtooth_epoch" and bool(x.data.get("aligned")))
    out = without(out, "divergence", {"loss_reset"})
    # noisy labels read twice: the plateau-then-memorise reading holds the early lead of validation too
    out = without(out, "val_above_train_early", {"memorized_after_plateau"})
    # a longer run's validation at chance beside a training accuracy that climbs is the finer reading
    out = without(out, "held_out_at_chance", {"val_at_chance"})
    # an extreme lr (1 or more, read as far above its optimizer's range: an Adam-family lr, or one with no
    # optimizer named; not SGD's, which large-batch recipes take that high) is no healthy run's setting
    out = without(out, "healthy", lambda x: x.kind == "lr_high" and x.data.get("lr", 0) >= 1 and x.strength >= 0.9)
    if g is not None and loss is not None:
        out = _growth_after_rise(out, ordered(g), ordered(loss))
    return without_healthy(out)


# A gradient norm still within this factor of its early level at the loss's minimum has not grown yet there.
GROWTH_BEFORE_RISE = 3.0




def _network_grad(run: Run) -> Series | None:
    """With no whole-model gradient norm: the network norm (grad_norm/d, grad_norm/critic, ...) that grew the most
    from its first tenth to its peak: what the gradient reading has of a GAN whose critic's norm blows up while
    the generator's stays small."""
    best, grow = None, 0.0
    for s in run.series:
        if not s.name.startswith("grad_norm/") or s.name[len("grad_norm/"):] not in NETWORK_PARTS or len(s) < 5:
            continue
        v = np.abs(ordered(s).values)
        v = v[np.isfinite(v)]
        if len(v) < 5:
            continue
        first = float(np.median(v[:max(1, len(v) // 10)]))
        ratio = float(np.max(v)) / first if first > 0 else float("inf")
        if best is None or ratio > grow:
            best, grow = s, ratio
    # (only a norm that grew by orders of magnitude stands for the run's gradient: a discriminator's that drifts
    # from 0.5 to 5 while both losses hold is a GAN's ordinary course, no climb of the model's gradient)
    return best if grow >= NETWORK_GRAD_GROWTH else None


NETWORK_GRAD_GROWTH = 20.0


def _growth_after_rise(out: list[Signal], g: Series, loss: Series) -> list[Signal]:
    """grad_growth read as grad_growth_with_loss where the loss diverged from a minimum at which the gradient norm
    was still near its early level: the gradients grew with a loss already climbing (too large a step walking up
    the walls), not first, as exploding gradients do (taxonomy: "grad_norm growing by orders of magnitude first"),
    so it is no separating evidence of those."""
    gg = next((x for x in out if x.kind == "grad_growth"), None)
    dv = next((x for x in out if x.kind == "divergence" and not x.data.get("short")), None)
    if gg is None or dv is None:
        return out
    lf = np.isfinite(loss.values) & (loss.steps <= dv.data.get("step", loss.steps[-1]))
    if not lf.any():
        return out
    low = int(loss.steps[lf][int(np.argmin(loss.values[lf]))])      # where the loss began to climb
    fin = np.isfinite(g.values)
    steps, v = g.steps[fin], g.values[fin]
    if len(v) < 5:
        return out
    _, window_end, early = _early_grad(v)
    min_step = dv.data.get("min_step", low)
    upto = np.abs(v[steps <= min_step])
    # (a loss that climbs from its first points gives no "before" to compare: the minimum must come after the early
    # window the gradient's level is read from)
    if len(upto) < window_end or early <= 0 \
            or float(np.max(upto[-max(1, len(upto) // 10):])) > GROWTH_BEFORE_RISE * early:
        return out
    late = Signal("grad_growth_with_loss", gg.strength, gg.summary + f" after the loss began to climb (its minimum at step "
                  f"{min_step}, where grad_norm was still near its early {_fmt(early)})", gg.evidence,
                  {**gg.data, "loss_min_step": int(min_step)})
    return [late if x is gg else x for x in out]


# An lr_high at least this strong beside a loss at chance: the lr explains the chance (see below).
CHANCE_LR_HIGH = 0.6


def _chance_under_high_lr(out: list[Signal]) -> list[Signal]:
    """chance_under_high_lr: the loss sits at ln K while the lr is far above its optimizer's range (a
    BERT fine-tune at lr 0.05: 0.6931 from the first logged step). The first updates threw the model to
    a constant output before the log began; a loss at chance alone reads as unpaired targets."""
    at = next((x for x in out if x.kind == "loss_at_chance"), None)
    hi = next((x for x in out if x.kind == "lr_high" and x.strength >= CHANCE_LR_HIGH), None)
    if at is None or hi is None:
        return []
    txt = f"{at.summary}, under {hi.summary}"
    return [Signal("chance_under_high_lr", min(at.strength, hi.strength), txt, at.evidence[:1] + hi.evidence[:1],
                   {"lr": hi.data.get("lr"), "level": at.data.get("level")})]


# Readings of a loss that stopped moving, which an lr that fell to (nearly) 0 explains.
_STALL_KINDS = frozenset({"plateau", "below_chance_stuck", "no_gap_unfitted", "loss_at_chance"})


STALL_LR_EARLY = 0.25


def _stall_under_lr_collapse(out: list[Signal]) -> list[Signal]:
    """stall_under_lr_collapse: the loss stops moving while the logged lr has fallen 1000x in the run's first
    quarter, or sits at 0 (lr_schedule_odd's collapse and zero readings, 0.8): a per-epoch schedule stepped per
    batch, a decay over the wrong number of steps. The stall is what an lr of ~0 does to any model; read alone,
    it reads as a model too small (plateau) or one that cannot fit its data (no_gap_unfitted)."""
    lr = next((x for x in out if x.kind == "lr_schedule_odd" and x.strength >= 0.8
               and x.data.get("detail") in ("collapse", "zero")), None)
    stall = [x for x in out if x.kind in _STALL_KINDS]
    if lr is None or not stall:
        return []
    first = next((x for x in stall if x.kind == "plateau"), stall[0])
    # ... the lr at ~0 by the time the loss is flat (the plateau's first cited point): a loss that stopped long
    # before an lr cut to 0 late in the run stopped on its own
    at, stopped = lr.data.get("step"), first.evidence[0].step if first.evidence else None
    end = first.evidence[-1].step if first.evidence else None
    # (or an lr at ~0 within the run's first quarter: a loss flat from its first logged point under an lr that was
    # falling 100x an epoch from the start stopped with it)
    if at is None or stopped is None or (at > stopped and not (end and at <= STALL_LR_EARLY * end)):
        return []
    txt = f"{first.summary}, after {lr.summary}"
    return [Signal("stall_under_lr_collapse", min(lr.strength, max(x.strength for x in stall)), txt,
                   first.evidence[:1] + lr.evidence[-1:], {"level": first.data.get("level"), "lr_step": at})]


# A post's few loss points (SHORT_FLAT_POINTS to 9) that move less than this share of their level in all
# read as a plateau (at ln K they are loss_at_chance).
SHORT_FLAT_POINTS = 4
SHORT_FLAT_SPREAD = 0.005
# ... after a first point this much above the level it stopped at (_short_tail_flat)
SHORT_FELL = 1.05
# At most this many spikes in the second half of a loss are isolated events, left out of its oscillation test.
ISOLATED_SPIKES = 3
# A steady climb is read over this many logged points at least: five (2.1, 2.4, 15, 241, 9811) are a
# blow-up, which grad_growth reads, not a sum that grows with every step it is not zeroed.
STEADY_CLIMB_POINTS = 8


def _loss_reset(s: Series, lr: Series | None, q: Quoter) -> list[Signal]:
    """loss_reset: the loss had fallen to RESET_LEARNED of its starting level or below, then jumps in one
    logged step (RESET_JUMP x the point before) back to RESET_BACK of that start and falls again, as at
    the start: the weights (or the optimizer's state) started over with the step count going on. A
    resume that loaded nothing, a checkpoint that was not the one meant. Not where a logged lr jumps
    up at the same step (a warm restart the schedule makes on purpose)."""
    fi = np.flatnonzero(np.isfinite(s.values))
    v = s.values[fi]
    n = len(v)
    if n < 20:
        return []
    start = float(np.median(v[:3]))
    if start <= 0:
        return []
    runmin = np.minimum.accumulate(v)
    m = max(3, n // 20)
    cand = np.flatnonzero((v[1:] >= RESET_BACK * start) & (runmin[:-1] <= RESET_LEARNED * start)
                          & (v[1:] >= RESET_JUMP * np.maximum(v[:-1], 1e-12))) + 1
    cand = cand[(cand >= m) & (cand <= n - 1 - m)]
    head = float(np.median(v[:m]))
    # the stretch before was learned and never came near this height (a loss that scatters like single
    # samples' has jumps like it all along), the stretch after looks like the run's own start, and the
    # loss falls from there: not one noisy point, not a spike that recovers at once
    events = [k for k in cand.tolist()
              if float(np.median(v[k - m:k])) <= RESET_LEARNED * start and float(np.median(v[k:k + m])) >= 0.7 * head
              and float(np.median(v[-m:])) < 0.8 * v[k] and v[k] >= RESET_CLEARS * float(np.max(v[k - m:k]))]
    # the same jump again and again (each epoch of unshuffled data, a schedule's restarts) is no one reset
    if not events or events[-1] - events[0] > m:
        return []
    k = events[0]
    step = int(s.steps[fi[k]])
    if lr is not None and len(lr) >= 2:
        before, at = lr.values[lr.steps < step], lr.values[(lr.steps >= step) & (lr.steps <= int(s.steps[fi[min(n - 1, k + 1)]]))]
        if len(before) and len(at) and float(np.nanmax(at)) >= 2 * float(before[-1]):
            return []
    txt = (f"{s.name} jumps from {_fmt(float(v[k - 1]))} at step {int(s.steps[fi[k - 1]])} back to {_fmt(float(v[k]))} "
           f"at step {step} (it started at {_fmt(start)}) and falls again: the run started over")
    return [Signal("loss_reset", 0.7, txt, [q.ev(s, int(fi[k - 1]), f"{s.name} before the jump"), q.ev(s, int(fi[k]), txt),
                                            q.ev(s, int(fi[0]), f"{s.name} at the start")],
                   {"step": step, "before": float(v[k - 1]), "after": float(v[k]), "start": start})]


def _one_rank_first_nonfinite(run: Run, q: Quoter) -> list[Signal]:
    """`nonfinite_one_rank`: in a log whose lines carry a rank or a federated client (one loss series each), the
    first NaN/inf in the file's order is one rank's while another rank's loss at that same step is finite, or it
    is the first point of a client that joins after the others trained finitely for a while; and that rank's own
    loss was not rising into it. The ranks share one model (DDP's all-reduce, FedAvg's average): a step size too
    big or gradients grown unstable break every rank at once after a climb, one rank's batch of bad rows breaks
    that rank first, out of a calm loss (the others follow at the next update)."""
    groups: dict[str, list[Series]] = {}
    for x in run.series:
        if x.name == "loss" and x.rank is not None and x.loc_kind == LOC_LINE and len(x):
            groups.setdefault(x.source, []).append(x)
    for src, group in groups.items():
        if len({x.rank for x in group}) < 2:
            continue
        firsts = [(int(x.locs[b[0]]), int(b[0]), x) for x in group
                  if len(b := np.flatnonzero(~np.isfinite(x.values)))]
        if not firsts:
            continue
        line, i, s = min(firsts, key=lambda t: t[0])
        pre = s.values[:i]
        pre = pre[np.isfinite(pre)]
        if len(pre) >= 2 and (float(pre[-1]) > RANK_NAN_RISE * abs(float(np.median(pre[:-1])))
                              or (len(pre) >= 3 and pre[-3] < pre[-2] < pre[-1]
                                  and float(pre[-1]) > RANK_NAN_RECENT_RISE * abs(float(np.min(pre[-RANK_NAN_RECENT:]))))):
            continue                      # its own loss climbed into it (from its start, or rising to the NaN from its recent low)
        step = int(s.steps[i])
        witness = None
        for x in group:
            if x.rank == s.rank:
                continue
            ok = np.isfinite(x.values)
            if i == 0:
                before = np.flatnonzero(ok & (x.locs < line))
                if len(before) >= RANK_NAN_OTHERS_BEFORE:
                    witness = (x, int(before[-1]))
            else:
                same = np.flatnonzero(ok & (x.steps == step) & (x.locs > int(s.locs[i - 1])))
                if len(same):
                    witness = (x, int(same[0]))
            if witness is not None:
                break
        if witness is None:
            continue
        x, j = witness
        who = f"rank {s.rank}"
        txt = (f"{s.name} turned non-finite on {who} first (step {step}, line {line}) "
               + ("at its first logged point, after the other ranks had trained with a finite loss"
                  if i == 0 else f"while rank {x.rank}'s {s.name} at the same step was finite")
               + ", and not after a climb: one rank's data, not a step size every rank shares")
        return [Signal("nonfinite_one_rank", 0.9, txt,
                       [q.ev(s, i, f"first non-finite {s.name}, on {who}"),
                        q.ev(x, j, f"rank {x.rank}'s {s.name}, finite")],
                       {"step": step, "rank": s.rank, "other": x.rank, "first_point": i == 0})]
    return []


def _counted_nonfinite(run: Run, q: Quoter) -> list[Signal]:
    """A NaN the trainer counted instead of printing: Megatron-LM's "number of nan iterations" counts
    the iterations of a logging interval whose loss was NaN/inf. It skips them, and the loss it prints
    averages the others, so the printed loss stays finite."""
    s = run.metric("nan_iterations")
    if s is None:
        return []
    cur = ordered(s)
    counted = cur.values > 0          # (NaN compares False)
    if not counted.any():
        return []
    i, total = int(np.argmax(counted)), float(cur.values[counted].sum())
    txt = (f"{s.raw_name or s.name} is {_fmt(float(cur.values[i]))} at step {int(cur.steps[i])}: iterations whose loss "
           f"was NaN/inf were skipped ({total:.0f} counted in all)")
    return [Signal("nonfinite", 1.0, txt, [q.ev(cur, i, txt)],
                   {"step": int(cur.steps[i]), "metric": s.name, "finite_before": i > 0, "recovers": True,
                    "count": int(total), "counted": True})]


# A falling loss beside one of these is not a healthy run ("healthy" argues against every cause): a
# fall from a broken start, a fit capped far below 100 %, a validation that never left its first
# value, (most) layers getting no gradient at all (the head alone learns).
NOT_HEALTHY_BESIDE = frozenset({"loss_huge_at_start", "train_acc_capped", "val_gap_from_start", "grad_zero",
                                "grad_zero_below_head", "grad_died", "memorized_after_plateau",
                                "memorizing_from_start", "train_acc_falls", "collapsed_to_chance", "fell_back_to_chance",
                                "grad_pinned", "val_above_train_early", "held_out_at_chance", "val_nonfinite_only",
                                "lr_schedule_odd", "val_unstable", "train_at_chance_val_learned", "lr_rewarm",
                                "loss_above_chance", "params_unchanged", "dpo_reference_differs", "embedding_collapse"})


def without(signals: list[Signal], kind: str, beside: frozenset[str] | set[str] | Callable[[Signal], bool],
            which: Callable[[Signal], bool] | None = None) -> list[Signal]:
    """`signals` without those of `kind` (those of them `which` accepts, when given) when a signal that
    `beside` names (a set of kinds, or a test of a signal) is among them."""
    test = beside if callable(beside) else (lambda x: x.kind in beside)
    if any(test(x) for x in signals):
        return [x for x in signals if x.kind != kind or (which is not None and not which(x))]
    return signals


def without_healthy(signals: list[Signal], beside: frozenset[str] | set[str] = NOT_HEALTHY_BESIDE) -> list[Signal]:
    """`signals` without "healthy" when a signal of a kind in `beside` is among them."""
    return without(signals, "healthy", beside)


# ---------------------------------------------------------------- helpers

_SUMMED = " + "      # the raw name of a total summed from its terms (_summed_terms)
_ADVERSARIAL = re.compile(r"(?:^|_)(?:g|d|gen|disc|generator|discriminator|adv|critic)(?:_|$)", re.I)


def _summed_terms(run: Run) -> Series | None:
    """The total of a loss printed only as its terms: two or more training-loss terms logged on the same rows (same
    file, same steps, same lines), none of them a GAN's generator or discriminator loss (those pull against each
    other: their sum is no curve). Cited at the first term's lines."""
    terms = _terms_of_three(run)
    if len(terms) < 2 or _adversarial(terms):
        return None
    first = terms[0]
    same = [x for x in terms if x.source == first.source and len(x) == len(first) and np.array_equal(x.steps, first.steps)
            and np.array_equal(x.locs, first.locs)]
    if len(same) < 2:
        return None
    total = np.sum([x.values for x in same], axis=0)
    return Series("loss", _SUMMED.join(x.raw_name or x.name for x in same), first.steps, total, first.source, first.locs,
                  first.loc_kind, first.step_is_index)


def _lone_term(run: Run) -> Series | None:
    """The one training loss a run prints under a name of its own ("bpr_loss", "ce_loss", "nll_loss"), 3 points at
    least: no other training loss term beside it, no GAN's generator or discriminator loss."""
    terms = [x for x in _terms_of_three(run) if not is_held_out(x.name) and not _BEST_SO_FAR.match(x.name)]
    names = {x.name for x in terms}
    if len(names) != 1 or _adversarial(terms):
        return None
    return run.metric(names.pop())


# A record of the best value so far ("best_val_loss", "min_loss"): flat or falling by construction, no curve to read
_BEST_SO_FAR = re.compile(r"(?:best|lowest)[_/]|min_(?:val_)?loss", re.I)


def _terms_of_three(run: Run) -> list[Series]:
    """loss_terms with three points or more."""
    return [x for x in loss_terms(run) if len(x) >= 3]


def _adversarial(terms: list[Series]) -> bool:
    """Whether any of `terms` is a GAN's generator or discriminator loss (or a critic's, an adversary's)."""
    return any(_ADVERSARIAL.search(x.raw_name or x.name) for x in terms)


# A regression objective logged under its error's name with no `loss` beside it (Ray Tune's "train_mse", XGBoost's
# "train-rmse"): that curve is the run's loss, the training set's first, else the held-out one's.
_ERROR_NAMES = ("mse", "rmse", "mae", "nll", "huber", "smooth_l1", "mape")   # (not l1 / l2: as often a penalty or a norm)


def _error_curve(run: Run) -> Series | None:
    """The training (else validation) error curve of a run that logs no loss, 3 points at least."""
    return next((s for pre in ("", "val_") for n in _ERROR_NAMES
                 if (s := run.metric(pre + n)) is not None and len(s) >= 3), None)


def loss_terms(run: Run) -> list[Series]:
    """The training loss and the terms of a multi-term loss (`contrastive_loss`, a GAN's `g_loss`),
    not the held-out ones (names.normalize gives every eval/test/dev name the val_ prefix), in
    the run's order."""
    return [x for x in run.series if "loss" in x.name and not x.name.startswith("val_")
            and x.name != "loss_scale" and len(x) >= 2]


def primary(run: Run, name: str) -> Series | None:
    """The series a curve analyzer reads for a name: Run.metric's (the longest), unless it is
    finite throughout and another series of that name is not (a NaN in one of 5,000 logs, or
    in one print style's copy of the loss): the one that went non-finite is the one to read."""
    s = run.metric(name)
    if s is None or not np.isfinite(s.values).all():
        return s
    bad = [x for x in run.series if x.name == name and x is not s and len(x) >= 3
           and (x.rank in (None, 0) or s.rank not in (None, 0)) and not np.isfinite(x.values).all()]
    return max(bad, key=len) if bad else s


class Quoter:
    """Evidence for a series point, with the artifact's line as quote when it is text."""

    def __init__(self, run: Run):
        self._texts = {t.path: t for t in run.texts}

    def lines_between(self, s: Series, i: int, j: int, most: int = 20_000) -> str:
        """The text of the lines after point i's line and up to point j's (at most `most` characters of it; '' where
        the series is not a text's)."""
        art = self._texts.get(s.source)
        if art is None or s.loc_kind != LOC_LINE:
            return ""
        a, b = sorted((int(s.locs[i]), int(s.locs[j])))
        return art.text[art.start_of(a + 1):art.start_of(b)][:most]

    def ev(self, s: Series, i: int, text: str) -> Evidence:
        p = s.point(i)
        e = Evidence(text=text, source=p["source"], step=p["step"], metric=s.name, value=p["value"])
        if "line" in p:
            e.line = p["line"]
            art: TextArtifact | None = self._texts.get(s.source)
            if art is not None:
                q = art.line(e.line).strip()
                if len(q) > QUOTE_RECORDS_OVER and "\r" in q:
                    q = _record_holding(q, s.raw_name, float(s.values[i])) or q
                if q:
                    e.quote = q[:300]
        return e


# A line longer than this that holds carriage returns (a progress bar redirected to a file: every
# update of an epoch on one line) is quoted by the record that prints the point, not by its start.
QUOTE_RECORDS_OVER = 300
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf", re.IGNORECASE)


def _record_holding(line: str, key: str, value: float) -> str | None:
    """The first carriage-return record of `line` that names `key` and prints `value` right after it."""
    for rec in line.split("\r"):
        at = rec.find(key)
        m = _NUMBER.search(rec, at + len(key)) if at >= 0 else None
        if m is None:
            continue
        x = float(m.group(0))
        if (math.isnan(x) and math.isnan(value)) or abs(x - value) <= 1e-9 * max(1.0, abs(value)):
            return rec.strip()
    return None


def ordered(s: Series) -> Series:
    """The run as it stands, in step order: where the step counter goes back in the artifact's
    order (a job resumed from a checkpoint, a second run appended to the same log, a restarted
    job's second event file), the points the earlier attempt wrote at or past the step it went
    back to are superseded and left out, as the attempt that followed redid those steps.

    Interleaving both attempts by step instead reads a resume as a saw (0.20, 1.52, 0.20, 1.52:
    spikes, divergence, a period of 2 points). The points left out are still in the Series the
    readers made (the plot shows both sides); _restart flags the restart itself, restart_jump
    compares the two attempts at the steps both logged, and curve_signals cites a NaN that only
    the earlier attempt wrote. More than MAX_RESTARTS backward steps are not resumes (two
    writers' lines out of order, a counter that starts again every segment): those series keep
    every point, stably sorted by step."""
    if len(s) < 2 or (s.steps[1:] >= s.steps[:-1]).all():
        return s
    keep = _current_attempt(s)
    return _take(s, np.argsort(s.steps, kind="stable") if keep is None
                 else keep[np.argsort(s.steps[keep], kind="stable")])


def _on_train_axis(tr: Series, va: Series) -> tuple[Series, Series]:
    """A training and a validation series printed without steps on different lines of one text log
    (a Trainer's dict lines: {'loss': ..., 'epoch': 0.25}, then {'eval_loss': ..., 'epoch': 1.0}): the
    training series' points are its steps (0, 1, ...), and each validation point is put at the training
    point printed last before its line, so that the two share one axis (the lines' order is time).
    Any other pair comes back as it was."""
    if not (tr.step_is_index and va.step_is_index and tr.source == va.source and tr.loc_kind == va.loc_kind == LOC_LINE
            and len(tr) and len(va)) or _same_lines(tr, va) or (tr.locs[1:] < tr.locs[:-1]).any():
        return tr, va
    at = np.maximum(np.searchsorted(tr.locs, va.locs, side="right") - 1, 0)
    return (Series(tr.name, tr.raw_name, tr.steps, tr.values, tr.source, tr.locs, tr.loc_kind, False, tr.rank),
            Series(va.name, va.raw_name, tr.steps[at], va.values, va.source, va.locs, va.loc_kind, False, va.rank))


def _take(s: Series, idx: np.ndarray | slice) -> Series:
    """The points `idx` of `s` (indices or a slice), as a Series of the same name and source."""
    return Series(s.name, s.raw_name, s.steps[idx], s.values[idx], s.source, s.locs[idx],
                  s.loc_kind, s.step_is_index, s.rank)


def _sides(s: Series, cur: Series) -> list[Series]:
    """`cur` (ordered(s)) cut where the last attempt begins: its points before the step the last
    restart went back to, and from there on. One piece without a restart."""
    if len(cur) == len(s) or len(cur) < 2:
        return [cur]
    _, st, back = _file_steps(s)
    cut = int(np.searchsorted(cur.steps, st[int(back[-1])]))
    if cut == 0:
        return [cur]
    return [_take(cur, slice(0, cut)), _take(cur, slice(cut, len(cur)))]


def _per_side(run: Run, sides: list[Series], q: Quoter) -> list[Signal]:
    """The loss signals of each side of a restart, read apart: the jump where a resumed job
    starts again is neither a spike nor a divergence of either attempt (restart_jump reads it).
    Each kind once, the strongest reading (the earlier side's on a tie); not "healthy" when either
    side diverged, oscillated, stalled or went non-finite."""
    if len(sides) == 1:
        return _loss_signals(run, sides[0], q)
    best: dict[str, Signal] = {}
    for part in sides:
        for x in _loss_signals(run, part, q) if len(part) >= 3 else []:
            if x.kind not in best or x.strength > best[x.kind].strength:
                best[x.kind] = x
    if best.keys() & {"divergence", "oscillation", "plateau", "sawtooth_epoch", "nonfinite"}:
        best.pop("healthy", None)
    return list(best.values())


def by_step(s: Series) -> Series:
    """Every point of the series in step order (stable: a restart's repeated steps keep the
    artifact's order), superseded attempts included."""
    if len(s) < 2 or (s.steps[1:] >= s.steps[:-1]).all():
        return s
    return _take(s, np.argsort(s.steps, kind="stable"))


# More backward steps than this in one series are not resumed jobs (see ordered).
MAX_RESTARTS = 5


# A curve whose first logged step is at least this share of its last (and at least TAIL_FIRST_STEP) is a log's tail
TAIL_SHARE = 0.4
TAIL_FIRST_STEP = 5


def _a_tail(s: Series) -> bool:
    """The series starts well into the run it shows (`tail -n 12` of a log: epochs 19..30)."""
    first, last = float(s.steps[0]), float(s.steps[-1])
    return first >= TAIL_FIRST_STEP and first >= TAIL_SHARE * last


def _file_order(s: Series) -> np.ndarray | None:
    """Indices of the series' points in the artifact's order; None when that is index order."""
    locs = s.locs
    if len(locs) < 2 or bool((locs[1:] >= locs[:-1]).all()):
        return None
    return np.argsort(locs, kind="stable")


def _file_steps(s: Series) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """(_file_order(s), the steps in the artifact's order, the positions in that order where the
    step goes back: each restart's first point)."""
    order = _file_order(s)
    st = s.steps if order is None else s.steps[order]
    return order, st, np.flatnonzero(st[1:] < st[:-1]) + 1


def _current_attempt(s: Series) -> np.ndarray | None:
    """Indices of the points no later attempt redid (see ordered), in the artifact's order; None
    when the series has no restart or more than MAX_RESTARTS of them."""
    order, st, back = _file_steps(s)
    if not len(back) or len(back) > MAX_RESTARTS:
        return None
    # a point is superseded when a later restart goes back to its step or below it
    later_min = np.full(len(st), np.iinfo(np.int64).max, np.int64)
    later_min[back - 1] = st[back]
    later_min = np.minimum.accumulate(later_min[::-1])[::-1]
    pos = np.flatnonzero(st < later_min)
    return pos if order is None else order[pos]


def _fmt(v: float) -> str:
    if not math.isfinite(v):
        return str(value_for_json(v))
    a = abs(v)
    if a != 0 and (a < 1e-3 or a >= 1e5):
        return f"{v:.2e}"
    return f"{v:.4g}"


def _prefix(v: np.ndarray) -> np.ndarray:
    """[0, v0, v0+v1, ...]: the prefix sums _smooth reads its windows from (share them between
    several widths over one array)."""
    c = np.empty(len(v) + 1)
    c[0] = 0.0
    np.cumsum(v, dtype=np.float64, out=c[1:])
    return c


def _smooth(v: np.ndarray, w: int, c: np.ndarray | None = None) -> np.ndarray:
    """Centered moving average of finite values (edges shrink), O(n). `c`: _prefix(v), when
    the caller has it."""
    if w <= 1 or len(v) < 3:
        return v.astype(np.float64)
    w = min(w, len(v))
    if c is None:
        c = _prefix(v)
    n = len(v)
    half = w // 2
    out = np.empty(n)
    a, b = min(half, n), max(n - half, half)        # [a, b): full windows, a slice each (no index arrays)
    if b > a:
        np.subtract(c[a + half + 1:b + half + 1], c[a - half:b - half], out=out[a:b])
        out[a:b] /= 2 * half + 1
    # the shrinking windows at both ends, as slices too: point i < a averages v[0 : i+half+1], point
    # i >= max(a, b) averages v[max(i-half, 0) : min(i+half+1, n)] (the same sums as index arrays
    # gave, without four of them as long as the edges: a 10M-point curve's widest edge is 1M points)
    if a:
        hi = np.minimum(np.arange(half + 1, a + half + 1), n)
        out[:a] = c[hi] / hi if a + half + 1 > n else c[half + 1:a + half + 1] / hi
    r0 = max(b, a)
    if r0 < n:
        lo = np.maximum(np.arange(r0 - half, n - half), 0)
        out[r0:] = (c[n] - c[lo]) / (n - lo)
    return out


def _spikes(v: np.ndarray, floor: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Indices of robust upward spikes in a finite array, their z-scores and local baselines. A spike
    is SPIKE_RATIO times its baseline, or times `floor` where the baseline is below it."""
    n = len(v)
    if n < 10:
        return np.array([], dtype=np.int64), np.array([]), np.array([])
    # a robust local baseline: each point against the median and MAD of its block (the last, short
    # block against the last `block` points), block by block in a 2-D view (no per-point copies)
    block = max(5, min(max(10, min(200, n // 20)), n))
    nb = n // block
    idx, zs, meds = [], [], []

    def test(x, med, mad, at):
        scale = 1.4826 * mad + 1e-12 + 1e-3 * np.abs(med)
        z = (x - med) / scale
        hit = (z > SPIKE_Z) & (x > SPIKE_RATIO * np.maximum(np.abs(med), floor) + 1e-12)
        k = np.flatnonzero(hit)
        idx.append(k + at)
        zs.append(z.ravel()[k])
        meds.append(np.broadcast_to(med, x.shape).ravel()[k])
    if nb > 0:
        m = v[: nb * block].reshape(nb, block)
        # Only blocks that can hold a spike need their median (a partition per block: most of the
        # cost on a long series). A spike needs x > SPIKE_RATIO * |median| and a block's median lies
        # within its [min, max]: a block with max <= 0, or 0 <= min and max <= SPIKE_RATIO * min,
        # has none (exact, not a sample: the same hits as testing every block).
        lo, hi = m.min(axis=1), m.max(axis=1)
        rows = np.flatnonzero(~((hi <= 0) | ((lo >= 0) & (hi <= SPIKE_RATIO * lo))))
        if len(rows):
            mr = m if len(rows) == nb else m[rows]
            bm = np.median(mr, axis=1)
            bd = np.median(np.abs(mr - bm[:, None]), axis=1, overwrite_input=True)   # a temporary: no copy
            at = len(idx)
            test(mr, bm[:, None], bd[:, None], 0)
            idx[at] = rows[idx[at] // block] * block + idx[at] % block   # back to positions in v
    if nb * block < n:
        tail = v[nb * block:] if n - nb * block >= 5 or nb == 0 else v[max(0, n - block):]
        tm = np.median(tail)
        test(v[nb * block:], tm, np.median(np.abs(tail - tm)), nb * block)
    if not idx:
        return np.array([], dtype=np.int64), np.array([]), np.array([])
    return (np.concatenate(idx).astype(np.int64), np.concatenate(zs).astype(np.float64),
            np.concatenate(meds).astype(np.float64))


def _rise(r: float) -> str:
    """A relative rise as words: "35%", or "12x" / "4.4e+19x" once it is beyond 100x."""
    return f"{r * 100:.0f}%" if r < 100 else f"{_fmt(r + 1)}x"


# Above twice this many points, the levels and the noise of a loss curve are medians of an evenly
# spaced sample of about this many (a partition of a 10M-point curve's 10M differences costs ~80 ms,
# and the loss analysis took a dozen such; a 1M-point sample's median lies within ~0.1 % of a
# standard deviation of the exact one). The spike test's block medians stay exact.
MEDIAN_SAMPLE = 1 << 20


def _sampled(a: np.ndarray) -> np.ndarray:
    """`a`, or an evenly spaced sample of about MEDIAN_SAMPLE of its values (a copy) when it is longer
    than twice that."""
    return a[:: len(a) // MEDIAN_SAMPLE].copy() if len(a) > 2 * MEDIAN_SAMPLE else a


def _sampled_diffs(a: np.ndarray) -> np.ndarray:
    """Step-to-step changes of `a` (a new array): all of them, or those at about MEDIAN_SAMPLE evenly
    spaced points when `a` is longer than twice that (for their median)."""
    if len(a) <= 2 * MEDIAN_SAMPLE + 1:
        return np.diff(a)
    k = len(a) // MEDIAN_SAMPLE
    return a[1::k] - a[:-1:k]


def _level(a: np.ndarray) -> float:
    """The median of `a` (_sampled: of a sample when it is long)."""
    return float(np.median(_sampled(a)))


def _seg_median(v: np.ndarray, a: float, b: float) -> float:
    n = len(v)
    lo, hi = int(n * a), max(int(n * a) + 1, int(math.ceil(n * b)))
    seg = _sampled(v[lo:hi])
    seg = seg[np.isfinite(seg)]
    return float(np.median(seg)) if len(seg) else float("nan")


# ---------------------------------------------------------------- loss

# A reinforcement-learning run's rewards or returns ("ep_rew_mean", "rollout/return", "episode_reward")
_REWARD = re.compile(r"(?:^|[/_])(?:ep_?rew\w*|rewards?|returns?|episod\w*)(?:$|[/_])")


def _loss_signals(run: Run, s: Series, q: Quoter) -> list[Signal]:
    out: list[Signal] = []
    v = s.values
    finite = np.isfinite(v)
    bad = np.flatnonzero(~finite)
    end = int(bad[0]) if len(bad) else len(v)    # analyse the finite prefix
    pre = v[:end]
    memo: dict = {}

    def smooth_pre(w: int) -> np.ndarray:   # _smooth(pre, w), one prefix sum and one result per width
        if "c" not in memo and len(pre) >= 3:
            memo["c"] = _prefix(pre)
        k = min(w, len(pre)) if w > 1 and len(pre) >= 3 else 1
        if k not in memo:
            memo[k] = _smooth(pre, w, memo.get("c"))
        return memo[k]

    if len(bad):
        i = int(bad[0])
        data = {"step": int(s.steps[i]), "metric": s.name, "finite_before": i > 0,
                "recovers": bool(np.isfinite(v[i:]).any()), "count": int(len(bad))}
        rising = 0.0
        if i >= 8:
            w = max(3, i // 10)
            sm = smooth_pre(w)
            lo = float(np.min(sm))
            k_last = max(2, i // 10)
            last = float(np.mean(pre[-k_last:]))
            rising = (last - lo) / (abs(lo) + 1e-8)
            # a minibatch loss's own scatter: the minimum of many w-point means sits below the level by chance, so
            # the last points' mean must clear it by more than DIVERGENCE_NOISE_K of their standard errors
            # (0.14 -> 0.21 over a loss that scatters 0.10-0.35 per step is noise, not a rise). The scatter is read from
            # the median step-to-step change of the second half (robust: a blow-up's own huge steps do not count)
            d = np.diff(pre[len(pre) // 2:])
            if len(d) >= 4:
                noise = 1.4826 * float(np.median(np.abs(d - np.median(d)))) / math.sqrt(2 * k_last)
                if last - lo <= DIVERGENCE_NOISE_K * noise:
                    rising = 0.0
            # Was the loss still falling or flat right before (a sudden NaN)?
            data["sudden"] = bool(rising < 0.1 and float(np.max(pre[-3:])) < 3 * abs(_level(pre[-max(3, i // 5):])) + 1e-8)
        elif i >= 2:
            # a short history (a post's few lines): the points themselves, not a smoothed curve.
            # 2.3, 2.3, 45, 1e18 and then NaN blew up; a noisy 2.0, 0.2, 1.7, 1.2 did not. Rising
            # only when the last finite point is the highest and 3x the median of those before it
            last, med = float(pre[-1]), float(np.median(pre[:-1]))
            up = last >= float(np.max(pre)) and last > 3 * abs(med)
            rising = (last - med) / (abs(med) + 1e-8) if up else 0.0
            # ... or it climbed out of its minimum at every point into the NaN (nanoGPT's 7.22, 8.99, 10.22,
            # 12.88, nan): CLIMB_POINTS rises in a row ending CLIMB_X above the minimum
            climb = _climb_from_min(pre) if not up else None
            if climb is not None and climb[1] >= CLIMB_X:
                up, rising = True, climb[1] - 1.0
            data["sudden"] = not up
        else:
            data["sudden"] = True
        if i >= 2:
            rising = data["rise_before"] = round(rising, 3)
        ci, prev = _first_bad_in_time(s, bad, finite)   # the points cited: as written, in order
        txt = f"{s.name} first non-finite ({value_for_json(v[ci])}) at step {int(s.steps[ci])}"
        if prev is not None:
            txt += f", after {_fmt(float(v[prev]))} at step {int(s.steps[prev])}"
        if rising > 0.1:
            txt += f"; it had risen {_rise(rising)} above its minimum first"
        evs = [q.ev(s, ci, txt)]
        if prev is not None:
            evs.append(q.ev(s, prev, f"last finite {s.name} before it"))
        out.append(Signal("nonfinite", 1.0, txt, evs, data))
        # The loss ran to ~0 right before it broke: a log/exp of a saturated value (log(0), log(1-1)),
        # not bad data, is the usual cause.
        last = abs(float(v[i - 1])) if i else float("inf")
        # (a fall: the first half of the history well above it; a loss that sat at ~0 through most of the run, a
        # sparse-reward agent's td_loss of 0.00000, met its NaN some other way)
        if i >= 2 and last < 1e-3 and last < 1e-2 * float(np.max(np.abs(v[:i]))) \
                and float(np.median(np.abs(v[:max(1, i // 2)]))) > 10 * last:
            out.append(Signal("nonfinite_after_saturation", 0.9,
                              f"{s.name} had fallen to {_fmt(float(v[i-1]))} (from {_fmt(float(v[0]))}) just before the NaN/inf",
                              evs, {"step": int(s.steps[i]), "last_finite": float(v[i - 1])}))
        if data.get("sudden") and i > 0:
            # "finite and flat right before" means little after a handful of points (a post's four
            # lines): full strength only with SUDDEN_FULL_AT finite points of history.
            out.append(Signal("nonfinite_sudden", min(1.0, i / SUDDEN_FULL_AT),
                              f"{s.name} was finite and not rising right before step {int(s.steps[i])}: a sudden NaN/inf",
                              evs, {"step": int(s.steps[i])}))
            ep = _epoch_at(run, s, int(s.steps[i]))
            if ep is not None and ep[1]:
                out.append(Signal("nonfinite_first_pass", 0.7,
                                  f"{s.name} turned non-finite at step {int(s.steps[i])}, in the first epoch (epoch {ep[0]:g}), "
                                  "with no rise before: the first pass over the data, where a bad sample shows at its "
                                  "first visit (unstable loss math takes a model grown confident)",
                                  evs, {"step": int(s.steps[i]), "epoch": ep[0]}))
        if rising > DIVERGENCE_RISE:
            # from a short history (i < 8) at most SHORT_DIVERGENCE: a few points say less
            cap = 0.8 if i >= 8 else SHORT_DIVERGENCE
            out.append(Signal("divergence", min(1.0, rising / 0.6) * cap,
                              f"{s.name} rose {_rise(rising)} above its minimum before going non-finite",
                              [evs[-1]], {"step": int(s.steps[i - 1]), "rise_pct": rising * 100, "to_nonfinite": True}))

    n = len(pre)
    if 3 <= n < 10 and s.name == "loss":
        # a post's few epochs sitting at ln K (0.6931 four times): a model at chance, however short; from
        # where the loss settled there, the last three points at least, when it came down to that level (a
        # higher start it fell from: 2.88, then 2.3031, 2.3028, 2.3026; or a rise and fall before it came to
        # rest: 0.6412, 0.7233, 0.6987, then 0.6934, 0.6932, 0.6931). A loss that only rose into it (2.0, then
        # 2.3031, 2.3028) was not there from its start and is no model that never learned.
        lvl = float(np.median(pre))
        at_chance = None
        for a in range(n - 2):
            seg = pre[a:]
            la = float(np.median(seg))
            k = _num_classes(run) or implied_classes(la)
            if k and la > 0 and float(np.ptp(seg)) <= 0.01 * la \
                    and abs(la - math.log(k)) <= 0.01 * math.log(k) \
                    and (a == 0 or (abs(pre[a - 1] - la) > 0.01 * la and float(np.max(pre[:a])) > 1.01 * la)):
                at_chance = (a, la, k)
                break
        if at_chance is not None and _accuracy_above_chance(run, at_chance[2]):
            at_chance = None      # (a loss at ln 3 beside an accuracy of 0.56: the level is no chance)
        if at_chance is not None:
            a, la, k = at_chance
            txt = (f"{s.name} stays at {_fmt(la)} over {n - a} logged points (steps {int(s.steps[a])} to "
                   f"{int(s.steps[n - 1])}); ln({k}) = {math.log(k):.4f} is chance"
                   + (f"; the {_fmt(float(pre[0]))} before it was the first point's start" if a == 1 else
                      f"; it settled there after {a} points from {_fmt(float(pre[0]))}" if a else ""))
            out.append(Signal("loss_at_chance", 0.8, txt,
                              [q.ev(s, a, f"{s.name} at the start"), q.ev(s, n - 1, f"{s.name} at the end")],
                              {"level": la, "k": k, "chance": math.log(k), "rel_drop": 0.0, "short": True}))
        elif n >= SHORT_FLAT_POINTS and lvl > 0 and float(np.ptp(pre)) <= SHORT_FLAT_SPREAD * lvl \
                and (np.diff(pre) > 0).any() and (np.diff(pre) < 0).any():
            # ... or at any other level, the same to its third digit from first point to last and going
            # nowhere (0.9123, 0.9121, 0.9120, 0.9122): nothing was learned over the stretch the post shows
            # (a running mean that falls a little at every print, 9.405, 9.399, 9.393, is still learning)
            txt = (f"{s.name} stays at {_fmt(lvl)} over {n} logged points (steps {int(s.steps[0])} to "
                   f"{int(s.steps[n - 1])}; it moves {float(np.ptp(pre)) / lvl * 100:.2f}% in all)")
            out.append(Signal("plateau", 0.5, txt,
                              [q.ev(s, 0, f"{s.name} at the start"), q.ev(s, n - 1, f"{s.name} at the end")],
                              {"level": lvl, "rel_drop": float((pre[0] - pre[-1]) / lvl), "short": True}))
        elif (flat_from := _short_tail_flat(pre)) is not None:
            # ... or it fell and then stopped (1.201, 1.102, 1.098, 1.097, 1.097): the level it stopped at
            tail = pre[flat_from:]
            lvl = float(np.median(tail))
            txt = (f"{s.name} falls from {_fmt(float(pre[0]))} to {_fmt(lvl)} by step {int(s.steps[flat_from])} and stays "
                   f"there over the last {n - flat_from} logged points (steps {int(s.steps[flat_from])} to {int(s.steps[n - 1])})")
            out.append(Signal("plateau", 0.5, txt,
                              [q.ev(s, flat_from, f"{s.name} where it stops falling"), q.ev(s, n - 1, f"{s.name} at the end")],
                              {"level": lvl, "rel_drop": float((pre[0] - lvl) / lvl), "short": True}))
        elif (flat_from := _sparse_tail_flat(s, pre)) is not None:
            # ... or printed at sparse steps (epochs 0-5, then 10, 20, 40): flat over most of the run's steps
            lvl = float(pre[-1])
            txt = (f"{s.name} falls from {_fmt(float(pre[0]))} to {_fmt(float(pre[flat_from]))} by step {int(s.steps[flat_from])}, "
                   f"then moves {float(pre[flat_from] - pre[-1]) / float(pre[flat_from]) * 100:.1f}% over the last "
                   f"{(int(s.steps[-1]) - int(s.steps[flat_from])) / max(1, int(s.steps[-1]) - int(s.steps[0])) * 100:.0f}% "
                   f"of the run's steps (to {_fmt(lvl)} at step {int(s.steps[-1])})")
            out.append(Signal("plateau", 0.5, txt,
                              [q.ev(s, flat_from, f"{s.name} where it stops falling"), q.ev(s, n - 1, f"{s.name} at the end")],
                              {"level": lvl, "rel_drop": float((pre[0] - lvl) / lvl), "short": True}))
    if n < 6:
        if not len(bad) and (blow := _climb_from_min(pre)) is not None and blow[1] >= BLOWUP_X:
            # a post's few points that climb out of their minimum at every point to BLOWUP_X above it
            # (detectron2's total_loss 2.31, 1.98, 8.7, 190, 5e9): diverged, NaN or not
            i_lo, x = blow
            out.append(Signal("divergence", SHORT_DIVERGENCE,
                              f"{s.name} climbed at every point from {_fmt(float(pre[i_lo]))} (step {int(s.steps[i_lo])}) "
                              f"to {_fmt(float(pre[-1]))} (step {int(s.steps[n - 1])}), {x:.3g}x its minimum",
                              [q.ev(s, i_lo, f"{s.name} minimum {_fmt(float(pre[i_lo]))}"),
                               q.ev(s, n - 1, f"{s.name} at the end")],
                              {"step": int(s.steps[n - 1]), "rise_pct": (x - 1) * 100, "min_step": int(s.steps[i_lo]),
                               "short": True}))
        return out
    w = max(3, n // 25)
    sm = smooth_pre(w)
    start = _seg_median(pre, 0, 0.05)
    end_lvl = _seg_median(pre, 0.9, 1.0)
    imin = int(np.argmin(sm))
    lo = float(sm[imin])
    span = abs(start) + 1e-8
    rel_drop = (start - end_lvl) / span

    # Point-to-point noise (robust): a per-batch loss is noisy, and a smoothed minimum of
    # noise sits below the true level, so a rise must beat what noise alone would give.
    # (medians in place: the order of d1 does not change either median, and no copy is made)
    d1 = _sampled_diffs(pre)
    np.abs(np.subtract(d1, np.median(d1, overwrite_input=True), out=d1), out=d1)
    sigma = 1.4826 * float(np.median(d1, overwrite_input=True)) / math.sqrt(2)
    del d1
    if n < SHORT_CURVE:
        # few points along a bend: first differences carry the trend itself; second differences do not
        d2 = np.diff(pre, 2)
        sigma = min(sigma, 1.4826 * float(np.median(np.abs(d2 - np.median(d2)))) / math.sqrt(6))
    # a short curve (a post's ten printed values) keeps its turning point: a narrower window
    wd = max(5, n // 10) if n >= SHORT_CURVE else max(2, n // 5)
    smd = smooth_pre(wd)
    imin_d = int(np.argmin(smd[: n - max(2, n // 20)])) if n > 8 else imin
    lo_d = float(smd[imin_d])
    m_tail = max(3, n // 10)
    noise_floor = 3.0 * sigma * (1.2533 / math.sqrt(m_tail) + 1.0 / math.sqrt(wd))

    # Divergence: the smoothed loss fell, then rose well above its minimum and stayed up.
    if not len(bad) and imin_d < n - max(3, n // 20):
        imin, lo = imin_d, lo_d
        after = smd[imin:]
        tail_lvl = _level(pre[-m_tail:])
        rise = (float(np.max(after)) - lo) / (abs(lo) + 1e-8)
        tail_rise = (tail_lvl - lo) / (abs(lo) + 1e-8)
        fell = (start - lo) / span
        from_start = fell <= 0.05 and (tail_lvl - start) / span > DIVERGENCE_RISE and tail_lvl - start > noise_floor
        # above the minimum by more than noise: the last points' level, or (a noisy loss that climbs slowly for the
        # rest of the run: a PINN's 0.195 -> 0.33 over 50 points, each point +-0.05) the last third's, whose many
        # points carry a smaller standard error
        # (not where rewards are logged: an agent's value loss grows with the returns it learns to reach)
        # (noise correlated from one point to the next, a slow wander, has small differences and a wide spread: the
        # third's own spread about its trend, over as many independent points as its lag-1 correlation leaves)
        m_third = max(m_tail, n // 3)
        risen = tail_lvl - lo > noise_floor
        if not risen and m_third >= 15 and not any(_REWARD.search(x.name) for x in run.series):
            last3 = pre[-m_third:]
            res = last3 - np.polyval(np.polyfit(np.arange(m_third), last3, 1), np.arange(m_third))
            spread = 1.4826 * float(np.median(np.abs(res - np.median(res))))
            den = float(np.dot(res, res))
            phi = min(0.95, max(0.0, float(np.dot(res[:-1], res[1:])) / den)) if den > 0 else 0.0
            m_eff = max(2.0, m_third * (1 - phi) / (1 + phi))
            lvl3, noise = _level(last3), max(sigma, spread)
            # (and still climbing: above the third before it by twice the two levels' standard error; a flat loss's
            # slow wander sits above its smoothed minimum as often as not, not above its own earlier level)
            risen = lvl3 - lo > 3.0 * noise * (1.2533 / math.sqrt(m_eff) + 1.0 / math.sqrt(wd)) \
                and lvl3 - _level(pre[-2 * m_third:-m_third]) > 2.0 * 1.2533 * noise * math.sqrt(2.0 / m_eff)
        if (rise > DIVERGENCE_RISE and tail_rise > DIVERGENCE_RISE * 0.6 and fell > 0.05 and risen) or from_start:
            j = imin + int(np.argmax(after > lo * (1 + rise / 2) if lo > 0 else after > lo + abs(lo) * rise / 2))
            strength = min(1.0, tail_rise / 0.5)
            if from_start and fell <= 0.05:
                tail_rise = (tail_lvl - start) / span
                txt = (f"{s.name} rises from {_fmt(start)} at the start to {_fmt(tail_lvl)} at the end "
                       f"(+{tail_rise*100:.0f}%) without ever falling")
            else:
                txt = (f"{s.name} fell to {_fmt(lo)} by step {int(s.steps[imin])}, then rose "
                       f"{tail_rise*100:.0f}% (to {_fmt(tail_lvl)} at the end)")
            out.append(Signal("divergence", strength, txt,
                              [q.ev(s, imin, f"{s.name} minimum {_fmt(float(pre[imin]))}"),
                               q.ev(s, j, f"{s.name} {_fmt(float(pre[j]))}, rising"),
                               q.ev(s, n - 1, f"{s.name} at the end")],
                              {"step": int(s.steps[j]), "rise_pct": tail_rise * 100, "min_step": int(s.steps[imin])}))

    # Spikes. The high loss of the first steps (a bad init, an unscaled input) is a start, not a spike;
    # nor is a blip at the loss's last printed digits once it has come down 400x (0.0001 -> 0.0002).
    idx, z, base = _spikes(pre, SPIKE_FLOOR_SHARE * abs(float(pre[0])))
    t0 = _initial_transient(pre)
    keep = idx >= t0
    idx, z, base = idx[keep], z[keep], base[keep]
    if len(idx):
        k = int(idx[np.argmax(z)])
        strength = min(1.0, 0.35 + 0.15 * len(idx))
        txt = f"{len(idx)} spike(s) in {s.name}; worst {_fmt(float(pre[k]))} at step {int(s.steps[k])} (z={float(np.max(z)):.0f})"
        out.append(Signal("loss_spike", strength, txt, [q.ev(s, k, txt)],
                          {"count": int(len(idx)), "worst_step": int(s.steps[k]), "z": float(np.max(z))}))

    # Did it learn? at chance / plateau / slow descent / healthy. A loss at its floor (FLOOR_LOSS) at
    # every point is no level the model is stuck at: frozen_metric's loss_zero (exactly 0: a loss over
    # nothing, targets that score 0) and the too-good test below read it, and a chance signal beside
    # them would count the same points twice.
    chance = _chance_level(run)
    # (the medians first: a loss off the floor, every real curve, costs no pass over its points)
    at_floor = abs(start) <= FLOOR_LOSS and abs(end_lvl) <= FLOOR_LOSS and not (np.abs(pre) > FLOOR_LOSS).any()
    from_i, k0 = 0, None
    if t0 and n - t0 >= 6 and rel_drop >= NO_LEARNING_DROP and not at_floor:
        # a first epoch far above the rest (a bad init's or an lr's first step), then at chance from
        # there on: the fall was the transient's, not learning (Adam lr 0.2: 5.27, 1.57, then 1.39 +-
        # 0.02 at ln 4)
        s0 = _seg_median(pre[t0:], 0, 1.0)      # its level after the transient (a step or two may still settle)
        k0 = _num_classes(run) or implied_classes(s0, MEMORIZE_CHANCE_TOL)      # (a noisy level: 3 %)
        c0 = chance if chance is not None else (math.log(k0) if k0 else None)
        if c0 and abs(s0 - end_lvl) < NO_LEARNING_DROP * abs(s0) and abs(end_lvl - c0) < 0.05 * c0:
            rel_drop, from_i = (s0 - end_lvl) / (abs(s0) + 1e-8), t0
        else:
            k0 = None
    if at_floor:
        pass
    elif abs(rel_drop) < NO_LEARNING_DROP and n >= 10:
        k = _num_classes(run)
        if chance is None and (k := k0 or implied_classes(end_lvl)) is not None:
            chance = math.log(k)       # (k0: the level after a transient, read within 3 % of ln K)
        near = chance is not None and abs(end_lvl - chance) / chance < 0.05
        back = _fell_back_to_chance(s, pre, chance, q) if near and chance and not from_i else None
        if back is not None:
            out.append(back)
        else:
            txt = (f"{s.name} stays at {_fmt(end_lvl)} from step {int(s.steps[from_i])} to {int(s.steps[n-1])} "
                   f"(changes {rel_drop*100:+.1f}%)" + (f"; ln({k}) = {chance:.3f} is chance" if near else "")
                   + (f"; the {_fmt(float(pre[0]))} before it was the first steps' transient" if from_i else ""))
            out.append(Signal("loss_at_chance", 1.0 if near else 0.7, txt,
                              [q.ev(s, from_i, f"{s.name} at the start"), q.ev(s, n - 1, f"{s.name} at the end")],
                              {"level": end_lvl, "k": k, "chance": chance, "rel_drop": rel_drop}))
            if from_i and near and chance is not None and float(pre[0]) >= COLLAPSE_FROM * chance:
                txt = (f"{s.name} starts at {_fmt(float(pre[0]))} ({float(pre[0]) / chance:.1f}x the chance level "
                       f"ln K = {chance:.3f}), then falls to chance and stays there: the first updates blew the "
                       "model up and it settled on predicting the class prior")
                out.append(Signal("collapsed_to_chance", 0.8, txt,
                                  [q.ev(s, 0, f"{s.name} at the first logged point"), q.ev(s, n - 1, f"{s.name} at the end")],
                                  {"first": float(pre[0]), "chance": chance, "step": int(s.steps[from_i])}))
        out += _creeping(s, sm, start - end_lvl, noise_floor, rel_drop, q)
    elif rel_drop >= NO_LEARNING_DROP and n >= 10:
        r = 0.0    # only read when rel_drop < 0.35 (the linear test): np.corrcoef is costly on a long curve
        if rel_drop < 0.35 and np.std(sm) > 0:
            r = _line_r(sm)
        mid = _seg_median(pre, 0.45, 0.55)
        # (not on a log's tail: a curve first logged at step 19 of the 30 it shows began before it, and what it did at
        # the start is not there to read)
        linear = rel_drop < 0.35 and r < -0.9 and (mid - end_lvl) > 0.5 * (start - mid) and not _a_tail(s)
        # Improvement after the first third, relative to the start (noise-aware).
        third = _seg_median(pre, 0.3, 0.4)
        flat_late = (third - end_lvl) / span < 0.03 or (third - end_lvl) < noise_floor
        high = (end_lvl > 0.5 * chance) if chance is not None else rel_drop < 0.5
        floor_read = False      # (the plateau below reads the softmax floor; a loss still creeping onto it, after)
        if linear:
            txt = f"{s.name} falls only {rel_drop*100:.0f}% over {n} points, nearly linearly (r={r:.2f}): still falling at the end"
            out.append(Signal("slow_descent", min(1.0, 0.6 + (0.35 - rel_drop)), txt,
                              [q.ev(s, 0, f"{s.name} at the start"), q.ev(s, n - 1, f"{s.name} at the end")],
                              {"rel_drop": rel_drop, "linearity": -r}))
        elif flat_late and high and not any(x.kind == "divergence" for x in out) and not _from_pretrained(run):
            txt = (f"{s.name} drops {rel_drop*100:.0f}% in the first third, then stays flat at {_fmt(end_lvl)} "
                   f"to the end")
            if chance is not None:
                txt += f" ({end_lvl / chance * 100:.0f}% of the chance level ln K = {chance:.3f})"
            out.append(Signal("plateau", 0.8 if chance is not None else 0.6, txt,
                              [q.ev(s, int(n * 0.35), f"{s.name} a third into the run"), q.ev(s, n - 1, f"{s.name} at the end")],
                              {"level": end_lvl, "rel_drop": rel_drop}))
            if chance is not None and chance * 0.3 < end_lvl < chance * 0.97:
                out.append(Signal("below_chance_stuck", 0.6, txt, out[-1].evidence,
                                  {"level": end_lvl, "chance": chance}))
            out += _softmax_floor(run, s, pre, end_lvl, q)
            floor_read = True
        if not floor_read and _floor_classes(run, end_lvl) is not None \
                and (_num_classes(run) or implied_classes(float(pre[0]), FIRST_AT_CHANCE)):
            # (a loss still creeping toward that floor at the end, beside an accuracy near perfect, no plateau read:
            # the floor all the same, where the class count is known or the first loss sat at ln K; a healthy
            # loss that merely ends near some K's floor, label smoothing's or a segmentation's, names none)
            out += _softmax_floor(run, s, pre, end_lvl, q)

    # Oscillation: large back-and-forth of the smoothed curve in the second half. A few spikes read above
    # count as their local baselines here: one bad batch (4.2 among 0.6s) is a spike, not an oscillation;
    # a hundred (a batch of one sample) are the back-and-forth itself.
    half = pre[n // 2:]
    in_half = idx >= n // 2
    if 0 < np.count_nonzero(in_half) <= ISOLATED_SPIKES:
        half = half.copy()
        half[idx[in_half] - n // 2] = base[in_half]
    if len(half) >= 10:
        ch = _prefix(half)      # one prefix sum for both widths
        # (a half of fewer than OSC_RAW points, a short run's epoch means, is read as logged: a 3-wide mean
        # would be as wide as the slow one, 3 too below 20 points, and no swing could show)
        hs = _smooth(half, max(2, len(half) // 50), ch) if len(half) >= OSC_RAW else half.astype(np.float64)
        d = np.diff(hs)
        flips = float(np.mean(np.signbit(d[1:]) != np.signbit(d[:-1]))) if len(d) > 2 else 0.0
        del d
        resid = float(np.std(hs - _smooth(half, max(3, len(half) // 5), ch)))
        amp = resid / (abs(_level(half)) + 1e-8)
        hw = max(2, len(half) // 50)
        # a second half that still falls to under half its own starting level is a descent with batch noise on it
        # (the slow smoother lags a sharp drop and reads the drop as swing), not a loss bouncing around a level
        fifth = max(2, len(half) // 5)
        descending = abs(_level(half[-fifth:])) < OSC_STILL_FALLING * abs(_level(half[:fifth]))
        if amp > 0.15 and flips > 0.2 and resid > 2.0 * sigma / math.sqrt(hw) and not descending:
            txt = f"{s.name} oscillates in the second half (relative amplitude {amp:.2f})"
            out.append(Signal("oscillation", min(1.0, amp / 0.4), txt, [q.ev(s, n // 2 + int(np.argmax(half)), txt)],
                              {"amplitude": amp}))


    out += _noisy(s, pre, q)
    # the back-and-forth of a saw-tooth is its period's (batches ordered by class or source), not steps too large
    out = without(out + _sawtooth(run, s, pre, q), "oscillation", {"sawtooth_epoch"})
    if not len(bad) and rel_drop > 0.3 and not any(x.kind in ("divergence", "oscillation", "plateau", "sawtooth_epoch") for x in out):
        txt = f"{s.name} falls {rel_drop*100:.0f}% from {_fmt(start)} to {_fmt(end_lvl)}"
        out.append(Signal("healthy", min(1.0, rel_drop / 0.6), txt,
                          [q.ev(s, 0, f"{s.name} at the start"), q.ev(s, n - 1, f"{s.name} at the end")],
                          {"rel_drop": rel_drop}))
    return out


# Above this many points _initial_transient compares each point with an estimate of the median
# of the window after it (the median of block medians, O(n) in all), not with the exact one
# (O(n) per point: quadratic on a long run that starts high).
TRANSIENT_EXACT_MAX = 50_000


# A second half whose last fifth sits below this share of its first fifth is still descending: no oscillation.
OSC_STILL_FALLING = 0.5
OSC_RAW = 20
# Finite points before a NaN needed before "it came out of nowhere" is full-strength evidence.
SUDDEN_FULL_AT = 20
# nonfinite_one_rank: a last finite point this many times its rank's median before it is a climb into the NaN; a client
# joining with a NaN needs another rank's finite points before it, this many
RANK_NAN_RISE = 3.0
# ... or a last finite point this many times the lowest of its last RANK_NAN_RECENT (a steady climb after a calm stretch)
RANK_NAN_RECENT_RISE = 1.5
RANK_NAN_RECENT = 10
RANK_NAN_OTHERS_BEFORE = 3
# Strongest "divergence before the NaN" read from fewer than 8 finite points.
SHORT_DIVERGENCE = 0.5
# A short history's steady climb into a NaN: this many rises in a row from the minimum, ending this
# many times above it.
CLIMB_POINTS = 3
CLIMB_X = 1.5
# ... and with no NaN after it, a climb of CLIMB_POINTS rises that ends BLOWUP_X above the minimum
BLOWUP_X = 10.0


def _climb_from_min(pre: np.ndarray) -> tuple[int, float] | None:
    """(index of the minimum, last / minimum) when a short history climbs at every point from its positive
    minimum to its end, CLIMB_POINTS rises at least; else None (the callers ask how far: CLIMB_X before a
    NaN, BLOWUP_X without one)."""
    i = int(np.argmin(pre))
    low, climb = float(pre[i]), pre[i:]
    if low <= 0 or len(climb) <= CLIMB_POINTS or not bool(np.all(np.diff(climb) > 0)):
        return None
    return i, float(pre[-1]) / low


def _first_bad_in_time(s: Series, bad: np.ndarray, finite: np.ndarray) -> tuple[int, int | None]:
    """The first non-finite point as the run wrote it and the finite point written just before
    it. In step order unless the steps go back in the artifact's order (a restart: a merged
    folder of event files), where step order would put the other side's point before it."""
    i = int(bad[0])
    order = _file_order(s)
    if order is None:
        return i, (i - 1 if i > 0 else None)
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    first = int(bad[np.argmin(rank[bad])])
    before = order[: rank[first]]
    before = before[finite[before]]
    return first, (int(before[-1]) if len(before) else None)


# A loss that moves less than NO_LEARNING_DROP yet falls at this share of its smoothed steps or more,
# nearly on a line, is learning slowly, not stuck. Above CREEP_POINTS points the test reads an even
# sample of them.
CREEP_SHARE = 0.9
CREEP_POINTS = 100_000
# ... on a line: its correlation with the index below minus this (_line_r)
CREEP_LINE_R = 0.95
# A loss that starts this many times the chance level or more, then sits at chance after a transient,
# blew up in its first steps and collapsed to the class prior (dead units, saturated outputs).
COLLAPSE_FROM = 2.0
# A loss that flattens within this share above log(e + K - 1) - 1 (a third of it under 100 points: an
# epoch mean sits there more easily than every batch does), never below it: the floor of a
# cross-entropy fed probabilities (a softmax before CrossEntropyLoss) for K classes (K=4: 0.744).
SOFTMAX_FLOOR_BAND = 0.15
# K read from a first logged loss within this share of ln K (a standard init starts at chance).
FIRST_AT_CHANCE = 0.02
# A training curve whose first third holds at most this share of its fall is not front-loaded.
MEMORIZE_FRONT = 0.45
# ... and whose first point lies within this share of the chance level ln K (a first epoch's mean loss
# sits a little under it).
MEMORIZE_CHANCE_TOL = 0.03


def _softmax_floor(run: Run, s: Series, pre: np.ndarray, end_lvl: float, q: Quoter) -> list[Signal]:
    """loss_at_softmax_floor: a loss whose level sits within SOFTMAX_FLOOR_BAND above log(e + K - 1) - 1 and that
    never went below it (a plateau, or a loss still creeping onto it beside a near-perfect accuracy). Cross-entropy
    applies its own log-softmax; fed probabilities (in [0, 1]) instead of logits, its best is that floor, however
    well the model ranks the classes. K from num_classes, else from a first logged loss at ln K, else from the level
    itself beside an accuracy near perfect (_floor_classes)."""
    k = _num_classes(run)
    if k is None:
        k = implied_classes(float(pre[0]), FIRST_AT_CHANCE)
    if k is None:
        k = _floor_classes(run, end_lvl)
    if k is None:
        return []
    floor = math.log(math.e + k - 1) - 1
    band = SOFTMAX_FLOOR_BAND if len(pre) >= 100 else SOFTMAX_FLOOR_BAND / 3   # few (epoch-mean) points: closer
    if not floor <= end_lvl <= floor * (1 + band) or float(np.min(pre)) < 0.97 * floor:
        return []
    got = _train_accuracy(run, 3)
    if got is not None and float(np.median(got[2][-max(1, len(got[2]) // 5):])) < UNFIT_TRAIN_ACC:
        return []       # (the floor is where a model that ranks its classes well stops: a train accuracy of 0.39 is
        # a model that cannot fit, whose loss passes near that level on its way)
    txt = (f"{s.name} flattens at {_fmt(end_lvl)} and never goes below {_fmt(float(np.min(pre)))}: the floor of "
           f"cross-entropy over probabilities for {k} classes is log(e + {k - 1}) - 1 = {floor:.3f}")
    return [Signal("loss_at_softmax_floor", 0.8, txt, [q.ev(s, int(np.argmin(pre)), f"{s.name} at its lowest"),
                                                       q.ev(s, len(pre) - 1, f"{s.name} at the end")],
                   {"level": end_lvl, "floor": floor, "k": k})]


# _floor_classes: the accuracy (train's, else validation's; its last fifth) at least this, the class count the level
# implies from FLOOR_K_TOL under a whole number to FLOOR_K_ABOVE over it (no loss goes below its floor; an epoch's mean
# sits a little above it), up to FLOOR_K_MAX classes (above, a level names no count so closely)
FLOOR_ACC = 0.95
FLOOR_K_TOL = 0.15
FLOOR_K_ABOVE = 0.5
FLOOR_K_MAX = 20


def _floor_classes(run: Run, level: float) -> int | None:
    """The class count K whose softmax floor log(1 + (K - 1) / e) a loss level sits at, where an accuracy near perfect
    says the model ranks its classes well (a cross-entropy of logits would then be near 0): a loss stuck at 1.052
    beside 99 % accuracy is the floor of 6 classes (1.044) to within 0.07 of a class. None where no accuracy that high
    is logged, or the level names no whole K (from FLOOR_K_TOL under it to FLOOR_K_ABOVE over it)."""
    for name in ("accuracy", "val_accuracy"):
        acc = run.metric(name)
        v = _unit_values(acc.values) if acc is not None else np.zeros(0)
        if len(v) < 3:
            continue
        if float(np.median(v[-max(1, len(v) // 5):])) < FLOOR_ACC:
            return None
        kk = 1 + math.e * (math.exp(level) - 1) if 0 < level < 5 else 0.0
        # (no loss goes below its floor: the level names K from just under (rounding) to FLOOR_K_ABOVE over, where a
        # mean over the last steps, or a loss still creeping onto it, sits)
        k = math.floor(kk + FLOOR_K_TOL)
        return k if 2 <= k <= FLOOR_K_MAX and -FLOOR_K_TOL <= kk - k <= FLOOR_K_ABOVE else None
    return None


# fell_back_to_chance: the loss learned (its 3-point mean this far below ln K at two points in a row),
# then went back to ln K and stayed within this band of it for the last third and 6 points at least
FELL_BELOW = 0.88
BACK_BAND = 0.05


def _fell_back_to_chance(s: Series, pre: np.ndarray, chance: float, q: Quoter) -> Signal | None:
    """A loss that starts and ends at ln K but went well below it between: the model learned, then
    an update threw it back to a constant output (a too-large lr without warm-up; a fine-tuned
    transformer's usual failure). Unpaired targets or frozen weights never leave ln K at all."""
    n = len(pre)
    if n < 12:
        return None
    m = np.convolve(pre, np.ones(3) / 3, mode="valid")          # m[i]: mean of pre[i:i+3]
    below = m <= FELL_BELOW * chance
    two = np.flatnonzero(below[:-1] & below[1:])
    if not two.size:
        return None
    off = np.abs(pre - chance) > BACK_BAND * chance
    j = int(np.flatnonzero(off)[-1]) + 1 if off.any() else 0     # at chance from j to the end
    lo = int(two[0])
    dip = lo + int(np.argmin(m[lo:max(lo + 2, min(j, len(m)))]))
    if j <= dip + 1 or n - j < max(6, n // 3):
        return None
    k = dip + 1                                             # the middle point of the lowest mean
    txt = (f"{s.name} fell to {_fmt(float(pre[k]))} by step {int(s.steps[k])} ({float(pre[k]) / chance:.0%} of the "
           f"chance level ln K = {chance:.3f}), then went back to chance and stayed there from step "
           f"{int(s.steps[j])} to {int(s.steps[n - 1])}: the model learned, then collapsed to a constant output")
    return Signal("fell_back_to_chance", 0.8, txt,
                  [q.ev(s, k, f"{s.name} lowest"), q.ev(s, j, f"{s.name} back at chance"),
                   q.ev(s, n - 1, f"{s.name} at the end")],
                  {"low": float(pre[k]), "chance": chance, "step": int(s.steps[j]), "low_step": int(s.steps[k])})


def _creeping(s: Series, sm: np.ndarray, drop: float, noise_floor: float, rel_drop: float, q: Quoter) -> list[Signal]:
    """`slow_descent` for a loss that barely moved but fell steadily (1.402, 1.401, 1.400, ... 1.385
    over 30 epochs at Adam lr 1e-5): the smoothed curve falls at CREEP_SHARE of its steps, on a line
    (r < -0.95), by more than the noise floor."""
    n = len(sm)
    if drop <= noise_floor or drop <= 0:
        return []
    x = sm[:: max(1, n // CREEP_POINTS)]
    falling = np.diff(x) < 0
    if len(x) < 10 or np.std(x) == 0 or float(np.mean(falling)) < CREEP_SHARE:
        return []
    r = _line_r(x)
    if r >= -CREEP_LINE_R:
        return []
    txt = (f"{s.name} falls only {rel_drop*100:.1f}% over {n} points, but steadily (lower at "
           f"{np.mean(falling)*100:.0f}% of its smoothed steps, r={r:.2f}): learning, slowly")
    return [Signal("slow_descent", 0.7, txt, [q.ev(s, 0, f"{s.name} at the start"), q.ev(s, n - 1, f"{s.name} at the end")],
                   {"rel_drop": rel_drop, "linearity": -r, "creeping": True})]


def _line_r(x: np.ndarray) -> float:
    """The correlation of `x` with its index: -1 for points on a falling line."""
    return float(np.corrcoef(np.arange(len(x), dtype=np.float64), x)[0, 1])


# slow_descent read from validation beside a training loss at chance: at least this many evaluations, ...
VAL_CREEP_POINTS = 6
# ... the val accuracy up by this much from its first evaluation to its last
VAL_CREEP_ACC_GAIN = 0.03


def _val_creeping(run: Run, q: Quoter) -> list[Signal]:
    """`slow_descent` (creeping) from the held-out set beside a training loss read at chance: a val loss lower at
    every evaluation but one, on a line (r < -0.95), while val accuracy rises (a model card's 1.0966, 1.0949, ...
    1.0884 beside 0.378 -> 0.423 at lr 5e-5). Labels unpaired from their inputs keep held-out accuracy at chance;
    this model learns, slowly. Without a val accuracy no reading: the loss alone can fall to the class prior."""
    val, vacc = run.metric("val_loss"), run.metric("val_accuracy")
    if val is None or vacc is None or len(val) < VAL_CREEP_POINTS:
        return []
    vs = ordered(val)
    v = vs.values[np.isfinite(vs.values)]
    a = _unit_values(ordered(vacc).values)
    if len(v) < VAL_CREEP_POINTS or len(a) < 2 or float(a[-1]) - float(a[0]) < VAL_CREEP_ACC_GAIN \
            or int(np.count_nonzero(np.diff(v) >= 0)) > 1 or np.std(v) == 0:
        return []
    r = _line_r(v)
    if r >= -CREEP_LINE_R:
        return []
    txt = (f"{val.name} falls only {(v[0] - v[-1]) / abs(v[0]) * 100:.1f}% over {len(v)} evaluations, but at every one "
           f"(r={r:.2f}), while validation accuracy rises {float(a[0]):.3f} -> {float(a[-1]):.3f}: learning, slowly")
    return [Signal("slow_descent", 0.6, txt, [q.ev(vs, 0, f"{val.name} at the first evaluation"),
                                             q.ev(vs, len(vs) - 1, f"{val.name} at the last")],
                   {"rel_drop": float((v[0] - v[-1]) / abs(v[0])), "linearity": -r, "creeping": True, "val": True})]


def _initial_transient(v: np.ndarray) -> int:
    """How many leading points are still coming down from a high start: each is more than 1.5x
    the median of the points that follow it (0 for a run that starts at its usual level)."""
    n = len(v)
    w = max(5, n // 20)
    lim = min(n - 1, max(3, n // 5))
    if n > TRANSIENT_EXACT_MAX:
        return _initial_transient_blocks(v, w, lim)
    i = 0
    while i < lim:
        nxt = v[i + 1:i + 1 + w]
        nxt = nxt[np.isfinite(nxt)]
        if not len(nxt) or not np.isfinite(v[i]) or v[i] <= 1.5 * abs(float(np.median(nxt))):
            break
        i += 1
    return i


def _row_medians(a: np.ndarray) -> np.ndarray:
    """nanmedian of each row; np.median (one partition call) where nothing is NaN, as nanmedian goes
    row by row."""
    return (np.median if not np.isnan(a).any() else np.nanmedian)(a, axis=1)


def _initial_transient_blocks(v: np.ndarray, w: int, lim: int) -> int:
    """_initial_transient for a long series: the window median after point i is taken as the
    median of the medians of the (w // 64)-point blocks that the window covers."""
    bs = max(1, w // 64)
    head = v[: lim + 1 + w]
    nb = len(head) // bs
    k = max(1, w // bs)
    if nb < k:
        return 0
    bmed = _row_medians(head[: nb * bs].reshape(nb, bs))           # all-NaN blocks are NaN
    wmed = _row_medians(sliding_window_view(bmed, k))              # window starting at block j
    i = np.arange(lim)
    j = np.minimum((i + 1 + bs - 1) // bs, len(wmed) - 1)               # first whole block after point i
    ref = wmed[j]
    ok = np.isfinite(v[:lim]) & np.isfinite(ref) & (v[:lim] > 1.5 * np.abs(ref))
    stop = np.flatnonzero(~ok)
    return int(stop[0]) if stop.size else lim


_CE_NAME = re.compile(r"\b(lm|nll|ce|xent|cross.?entropy|ppl|perplexity)\b|lm[ _]loss", re.IGNORECASE)


# A loss of no known scale (MSE, L1) whose first logged point is at least HUGE_FIRST_X times where the second half
# settles, and at least HUGE_FIRST_MIN: the first outputs were off by orders of magnitude (raw inputs in the hundreds
# through a fresh layer, a wild init), and the first updates spent themselves shrinking them
HUGE_FIRST_X = 100.0
HUGE_FIRST_MIN = 50.0
HUGE_FIRST_SETTLED = 3.0


def _huge_first_point(s: Series, i0: int, first: float, later: np.ndarray, q: "Quoter") -> list[Signal]:
    if len(later) < 4 or first < HUGE_FIRST_MIN:
        return []
    end = float(np.median(later))
    if not (0 < end and first >= HUGE_FIRST_X * end):
        return []
    # ... and came down at once: the next point already at (or within HUGE_FIRST_SETTLED of) that level. A loss that
    # keeps falling decade after decade (a PINN's residual, 1040 -> 59 -> 5.8 -> 0.09 -> ...) is training, not a start
    # off scale
    nxt = s.values[i0 + 1:i0 + 2]
    if not (len(nxt) and np.isfinite(nxt[0]) and nxt[0] <= HUGE_FIRST_SETTLED * end):
        return []
    # ... and learned nothing after it: a healthy fit of targets in their raw units (MSE 148, 2.1, 1.8, ..., 0.8) drops at
    # once too, then keeps falling; the broken start's run makes no progress past its first update
    after = s.values[i0 + 1:]
    after = after[np.isfinite(after)]
    third = max(1, len(after) // 3)
    if float(np.median(after[-third:])) < 0.9 * float(np.median(after[:third])):
        return []
    txt = (f"{s.name} starts at {_fmt(first)} (step {int(s.steps[i0])}), {first / end:.0f}x the {_fmt(end)} it settles at "
           "in the second half: the first outputs were off scale")
    return [Signal("loss_huge_at_start", 0.5, txt, [q.ev(s, i0, txt)],
                   {"first": first, "chance": None, "ratio": first / end, "step": int(s.steps[i0])})]


def _huge_start(run: Run, s: Series, q: Quoter) -> list[Signal]:
    """loss_huge_at_start: the first logged loss far above where a standard init puts it (ln K),
    or non-finite at the very first point."""
    v = s.values
    if len(v) < 4 or _SUMMED in s.raw_name:
        return []       # (a sum of a detector's terms is no cross-entropy: ln K says nothing of its start)
    if not np.isfinite(v[0]):
        txt = f"{s.name} is {value_for_json(v[0])} at the first logged step {int(s.steps[0])}"
        out = [Signal("loss_huge_at_start", 0.8, txt, [q.ev(s, 0, txt)], {"first": value_for_json(v[0]), "nonfinite": True})]
        if not s.step_is_index and int(s.steps[0]) <= 1:
            # step 0 (or a count from 1: the first batch's) is computed before the optimizer's first update: no
            # learning rate can have caused it
            t0 = f"{s.name} is {value_for_json(v[0])} at step {int(s.steps[0])}, the first batch's, before any update"
            out.append(Signal("nonfinite_before_update", 0.9, t0, [q.ev(s, 0, t0)], {"step": int(s.steps[0])}))
        return out
    first = float(np.max(v[:2][np.isfinite(v[:2])]))
    i0 = 0 if v[0] >= first else 1
    later = v[len(v) // 2:]
    later = later[np.isfinite(later)]
    bits = _in_bits(run, s, i0)
    if bits:      # fairseq prints losses in base 2: in nats for the bars below
        first, later = first * math.log(2), later * math.log(2)
    chance = _chance_level(run)
    vocab = _vocab_size(run) if chance is None else None
    if chance is not None or vocab is not None:
        # (a language model's configured vocabulary V: its untrained cross-entropy sits near ln V)
        chance = chance if chance is not None else math.log(vocab)  # type: ignore[arg-type]
        bar = max(INIT_LOSS_CHANCE_X * chance, chance + INIT_LOSS_CHANCE_PLUS)
        ref = f"ln K = {chance:.3f} is where a standard init starts" if vocab is None else \
            f"ln V = {chance:.3f} (vocab_size {vocab}) is where a standard init starts"
    else:
        ce = bool(_CE_NAME.search(s.raw_name)) or any(
            m in run.metric_names() for m in ("accuracy", "val_accuracy", "perplexity", "val_perplexity"))
        if not ce:
            if first < LOSS_OFF_SCALE:
                return _huge_first_point(s, i0, first, later, q)
            txt = f"{s.name} starts at {_fmt(first)} (step {int(s.steps[i0])}); no loss on inputs and targets near unit " \
                  f"scale starts above {LOSS_OFF_SCALE:g}"
            return [Signal("loss_huge_at_start", 0.6, txt, [q.ev(s, i0, txt)],
                           {"first": first, "chance": None, "ratio": first / LOSS_OFF_SCALE, "step": int(s.steps[i0])})]
        bar, chance = INIT_LOSS_ABSOLUTE, None
        ref = f"no vocabulary puts a standard init's cross-entropy above {INIT_LOSS_ABSOLUTE:g}"
    if first <= bar:
        return []
    base = chance if chance is not None else INIT_LOSS_ABSOLUTE / 3
    strength = min(1.0, 0.5 + 0.25 * math.log10(first / base))
    end = float(np.median(later)) if len(later) else float("nan")
    txt = f"{s.name} starts at {_fmt(first)}{' nats (printed in bits)' if bits else ''} (step {int(s.steps[i0])}); {ref}"
    if chance is not None and math.isfinite(end) and end > bar:
        txt += f"; still {_fmt(end)} in the second half"
        strength = min(1.0, strength + 0.1)
    out = [Signal("loss_huge_at_start", strength, txt, [q.ev(s, i0, txt)],
                  {"first": first, "chance": chance, "ratio": first / base, "step": int(s.steps[i0])})]
    # ... and then trains: down below the bar (and below chance, where K is known) for good but for blips
    # (RECOVER_BLIPS), HUGE_START_FALL times under its start, and not rising in the second half. A broken scale at the start (the init's,
    # the inputs') that the updates repair; an lr too high does not settle so.
    if math.isfinite(end) and end <= bar and first >= HUGE_START_FALL * end and len(later) >= 4 \
            and (chance is None or end < 0.9 * chance):
        h = len(later) // 2
        if float(np.median(later[h:])) <= 1.1 * float(np.median(later[:h])) \
                and float(np.mean(later > bar)) <= RECOVER_BLIPS:
            t2 = f"{s.name} starts at {_fmt(first)} and then trains: {_fmt(end)} in the second half, below {_fmt(bar)}"
            out.append(Signal("huge_start_recovers", 0.7, t2, [q.ev(s, i0, "first loss"),
                                                               q.ev(s, len(v) - 1, "loss at the end")],
                              {"first": first, "end": end}))
    return out


def _nan_logged_as_zero(run: Run, q: Quoter) -> list[Signal]:
    """A NaN loss logged as 0.0: the transformers Trainer's logging_nan_inf_filter (on by default) replaces
    a NaN step's loss by the mean logged so far, and a logging window of NaN steps only prints 0.0 -
    beside a grad_norm of NaN at the same step. The first such point, after a finite nonzero loss, is
    the loss's first non-finite point."""
    loss, g = run.metric("loss"), run.metric("grad_norm")
    if loss is None or g is None or loss is g:
        return []
    # "the same step": by step, or where neither printed one (an HF dict pasted without its progress bar: the
    # steps are list positions, and grad_norm's start later) by line of one file
    by_line = (loss.step_is_index or g.step_is_index) and loss.source == g.source and loss.loc_kind == g.loc_kind == LOC_LINE
    at_l, at_g = (loss.locs, g.locs) if by_line else (loss.steps, g.steps)
    bad_steps = set(at_g[~np.isfinite(g.values)].tolist())
    if not bad_steps:
        return []
    v = loss.values
    pos = np.flatnonzero(v > 0)
    if not len(pos):
        return []
    for i in np.flatnonzero(v[pos[0]:] == 0.0) + pos[0]:
        if int(at_l[i]) in bad_steps:
            j = int(np.flatnonzero(at_g == at_l[i])[0])
            txt = (f"loss logged as 0.0 at step {int(loss.steps[i])} where grad_norm is {value_for_json(g.values[j])}: "
                   "a NaN loss the trainer's logging filter printed as 0")
            return [Signal("nonfinite", 0.8, txt, [q.ev(loss, int(i), txt), q.ev(g, j, "grad_norm at the same step")],
                           {"step": int(loss.steps[i]), "masked": True})]
    return []


def _val_off_scale(run: Run, loss: Series, val: Series, q: Quoter) -> list[Signal]:
    """`val_off_scale`: a held-out cross-entropy far above where any model's guess puts it, from its first evaluation
    on and through most of the run (its median above the bar, VAL_OFF_SCALE_X times the training loss's), while the
    training loss never left the scale a standard init starts at. Shuffled or noisy labels and an overfit model
    score near or a few nats above chance; hundreds of nats need logits hundreds of times their training size:
    inputs on another scale than training's (raw features, another normalisation) at evaluation."""
    tv, vv = loss.values[np.isfinite(loss.values)], val.values[np.isfinite(val.values)]
    if len(tv) < 2 or len(vv) < 2 or _SUMMED in loss.raw_name:
        return []
    chance = _chance_level(run)
    if chance is not None:
        bar = max(INIT_LOSS_CHANCE_X * chance, chance + INIT_LOSS_CHANCE_PLUS)
    elif _CE_NAME.search(loss.raw_name) or any(m in run.metric_names() for m in ("accuracy", "val_accuracy")):
        bar = INIT_LOSS_ABSOLUTE
    else:
        return []
    med, tmed = float(np.median(vv)), float(np.median(tv))
    if float(np.max(tv)) > bar or not (vv[0] > bar and med > bar and med > VAL_OFF_SCALE_X * tmed) or _SUMMED in val.raw_name:
        return []
    acc = run.metric("val_accuracy")
    if acc is not None and len(acc) and np.isfinite(acc.values).any() \
            and float(np.ptp(acc.values[np.isfinite(acc.values)])) >= VAL_OFF_SCALE_ACC_MOVES:
        k = _num_classes(run)
        last = float(acc.values[np.isfinite(acc.values)][-1])
        last = last / 100 if last > 1.0 else last
        if last > (1.5 / k if k else VAL_OFF_SCALE_ACC):
            return []     # (a validation accuracy far above chance: a loss summed over batches, not inputs off scale)
    i0 = int(np.flatnonzero(np.isfinite(val.values))[0])
    txt = (f"{val.name} is {_fmt(float(vv[0]))} at its first evaluation (step {int(val.steps[i0])}) and {_fmt(med)} at its "
           f"median, while {loss.name} stays under {_fmt(bar)} (median {_fmt(tmed)}): off any scale a model's guesses reach; "
           "the held-out inputs reach the model on another scale")
    return [Signal("val_off_scale", 0.8, txt, [q.ev(val, i0, txt), q.ev(loss, len(loss) - 1, f"{loss.name} at its end")],
                   {"first_val": float(vv[0]), "median": med, "train_median": tmed, "bar": bar})]


def _val_nonfinite_only(loss: Series, val: Series, q: Quoter) -> list[Signal]:
    """val_nonfinite_only: the validation loss is NaN/inf while the training loss stays finite (and
    there are at least two training points): the training step is sound, so the validation data (or
    its preprocessing) carries the NaN, not the learning rate or the gradients."""
    if len(loss) < 2 or not np.isfinite(loss.values).all():
        return []
    bad = np.flatnonzero(~np.isfinite(val.values))
    if not bad.size:
        return []
    i = int(bad[0])
    txt = (f"{val.name} is {value_for_json(val.values[i])} at step {int(val.steps[i])} ({bad.size} of {len(val)} "
           f"points) while {loss.name} stays finite ({_fmt(float(loss.values[-1]))} at its last step)")
    return [Signal("val_nonfinite_only", 0.9, txt, [q.ev(val, i, txt), q.ev(loss, len(loss) - 1, f"{loss.name} still finite")],
                   {"step": int(val.steps[i]), "count": int(bad.size), "all": bool(bad.size == len(val))})]


def _in_bits(run: Run, s: Series, i: int) -> bool:
    """The log prints this loss in bits (fairseq: ppl = 2 ** loss, not e ** loss), as told by a
    perplexity printed at the same step: log2(ppl) within 15 % of the loss (or of a printed
    nll_loss, which fairseq's ppl follows when the loss is label-smoothed) and ln(ppl) not."""
    at = int(s.steps[i])
    ppl = next((x for x in run.series if x.name == "perplexity" and x.source == s.source), None)
    if ppl is None:
        return False
    k = np.flatnonzero(ppl.steps == at)
    if not k.size or not np.isfinite(ppl.values[k[0]]) or ppl.values[k[0]] <= 1:
        return False
    p = float(ppl.values[k[0]])
    losses = [float(s.values[i])]
    nll = next((x for x in run.series if x.name == "nll_loss" and x.source == s.source), None)
    if nll is not None:
        j = np.flatnonzero(nll.steps == at)
        if j.size and np.isfinite(nll.values[j[0]]):
            losses.append(float(nll.values[j[0]]))

    def near(a: float, b: float) -> bool:
        return abs(a - b) <= 0.15 * max(abs(b), 1e-9)
    return any(near(math.log2(p), x) for x in losses) and not any(near(math.log(p), x) for x in losses)


def _noisy(s: Series, pre: np.ndarray, q: Quoter) -> list[Signal]:
    """loss_noisy: step-to-step changes as large as the loss itself in the second half (a tiny batch)."""
    half = pre[len(pre) // 2:]
    half = half[np.isfinite(half)]
    if len(half) < NOISY_MIN_POINTS:
        return []
    level = float(np.median(np.abs(_sampled(half)), overwrite_input=True))   # temporaries: medians in place
    if level <= 0:
        return []
    r = float(np.median(np.abs(_sampled_diffs(half)), overwrite_input=True)) / level
    if r < NOISY_LOSS_RATIO:
        return []
    k = len(pre) // 2 + int(np.argmax(half))
    txt = (f"{s.name} jumps by {r:.1f}x its median level ({_fmt(level)}) from one logged step to the next "
           f"in the second half of the run")
    out = [Signal("loss_noisy", min(1.0, 0.4 + 0.3 * (r - NOISY_LOSS_RATIO)), txt, [q.ev(s, k, txt)],
                  {"ratio": r, "level": level})]
    if r >= PER_SAMPLE_NOISE:
        out.append(Signal("loss_per_sample_noise", 0.8, txt + ": the scatter of single samples' losses, not of batch means",
                          [q.ev(s, k, txt)], {"ratio": r}))
    return out


def _count_fact(run: Run, name: str) -> int | None:
    """An integer fact of 2 or more (a class count, a vocabulary size), None otherwise."""
    f = run.fact(name)
    try:
        k = int(f.value) if f is not None else None
    except (TypeError, ValueError):
        k = None
    return k if k and k >= 2 else None


def _epoch_at(run: Run, s: Series, step: int) -> tuple[float, bool] | None:
    """(the epoch logged at `step` beside series `s`, whether it is the run's first epoch) from an `epoch` series of
    the same file, None without one. Fractional epochs (HF's 0.70: the share of epochs done) are the first below 1;
    whole ones (Keras' 0.., Lightning's 0.., a log's 1..) the first at their lowest value, once a later one shows."""
    e = next((x for x in run.series if x.name == "epoch" and x.source == s.source and len(x)), None)
    if e is None:
        return None
    ev = np.asarray(e.values, dtype=float)
    fin = np.isfinite(ev)
    if not fin.any():
        return None
    before = np.flatnonzero(fin & (e.steps <= step))
    if not len(before):
        return None
    at = float(ev[before[np.argmax(e.steps[before])]])
    vals = ev[fin]
    if np.any(vals != np.round(vals)):
        return at, at < 1.0
    return at, at == float(vals.min()) and float(vals.max()) > at


def _num_classes(run: Run) -> int | None:
    return _count_fact(run, "num_classes")


def _vocab_size(run: Run) -> int | None:
    return _count_fact(run, "vocab_size")


def _chance_level(run: Run, name: str = "") -> float | None:
    """ln K of the run's K classes; for a contrastive loss (`name` an InfoNCE's: CLIP's, BLIP's ITA) where no class
    count is known, ln B of its batch of B pairs: each sample's match among B in-batch candidates, guessed."""
    k = _num_classes(run)
    if not k and name and _CONTRASTIVE.search(name):
        k = min((f.value for f in train_batch_sizes(run.facts)), default=None)
        k = k if k and k > 1 else None
    return math.log(k) if k else None


# A contrastive (InfoNCE) loss's name: its chance level is ln of the batch, not of a class count
_CONTRASTIVE = re.compile(r"contrastive|infonce|info_nce|nt_?xent|(?:^|[_/])(?:ita|itc|clip)(?:$|[_/])", re.I)


# Class counts whose chance cross-entropy ln K a flat loss names by itself: 0.6931 is a binary
# classifier at chance, 2.3026 ten classes (MNIST, CIFAR-10), 4.6052 CIFAR-100, 6.9078 ImageNet.
# Only these few, within CHANCE_LEVEL_TOL: between ln 10 and ln 11 any level is near some ln K.
CHANCE_CLASSES = (2, 3, 4, 5, 10, 100, 1000)
CHANCE_LEVEL_TOL = 0.005


def implied_classes(level: float, tol: float = CHANCE_LEVEL_TOL) -> int | None:
    """K when a loss level sits at ln K (within `tol` of it) for a usual class count K (no num_classes known)."""
    if not math.isfinite(level) or level <= 0:
        return None
    return next((k for k in CHANCE_CLASSES if abs(level - math.log(k)) <= tol * math.log(k)), None)


# A saw-tooth whose period divides the epoch (points logged per epoch / period within 5 % of a whole
# number) is that much stronger (and is accepted from an autocorrelation peak of 0.4, not 0.5, repeating
# at 2p at 0.1, not 0.3).
SAWTOOTH_ALIGNED = 0.2
# A positive loss whose largest value is this many times its smallest is read on a log scale by the saw-tooth test.
SAWTOOTH_LOG_SPAN = 100.0
# An epoch-fitting lag is taken over the best lag when its autocorrelation is at most this much lower.
SAWTOOTH_FIT_SLACK = 0.1


def _sawtooth(run: Run, s: Series, pre: np.ndarray, q: Quoter) -> list[Signal]:
    """Epoch-periodic saw-tooth: a strong autocorrelation peak at a period of >= 4 points."""
    n = len(pre)
    if n < 40:
        return []
    x = pre[-min(n, 1 << 16):]
    # a loss that spans decades within each block (0.01 at a block's end, 5 at the next one's start) is read on a log
    # scale, where the few largest spikes do not drown the repeating shape
    logged = bool(np.all(x > 0)) and float(x.max()) > SAWTOOTH_LOG_SPAN * float(x.min())
    z = np.log(x) if logged else x
    # ... and clipped to its 5th-95th percentiles: one block's extreme values (a first epoch that drove a class's loss
    # to 1e-8, ln = -18, beside later blocks between 1 and 1.6) would be the whole autocorrelation, not the repeat
    lo_z, hi_z = np.percentile(z, [5, 95])
    z = np.clip(z, lo_z, hi_z)
    trend = _smooth(z, max(5, len(z) // 8))
    r = z - trend
    r = r - r.mean()
    if not np.any(r):
        return []
    f = np.fft.rfft(r, 2 * len(r))
    ac = np.fft.irfft(f * np.conj(f))[: len(r)]
    ac = ac / ac[0]
    lo, hi = 4, len(r) // 3
    if hi <= lo:
        return []
    p = lo + int(np.argmax(ac[lo:hi]))
    per_epoch, aligned = "", False
    ep = run.metric("epoch")
    if ep is not None and len(ep) > 2:
        per_epoch = " (epoch boundaries logged)"
        e = ep.values[np.isfinite(ep.values)]
        epochs = 1 + int(np.count_nonzero(np.diff(e))) if len(e) else 0   # (logged in order: no sort)
        ppe = n / epochs if epochs > 1 else 0.0
        # the epoch's length or a whole fraction of it (class blocks inside an epoch), where the autocorrelation
        # peaks nearly as high as at the best lag: the period the data order sets
        fits = [lag for lag in {int(round(ppe / k)) for k in range(1, 9)}
                if lo <= lag < hi and abs(ppe / lag - round(ppe / lag)) < 0.05]
        if fits:
            best = max(fits, key=lambda lag: float(ac[lag]))
            if float(ac[best]) >= float(ac[p]) - SAWTOOTH_FIT_SLACK:
                p = best
        aligned = ppe >= p and abs(ppe / p - round(ppe / p)) < 0.05
        if aligned:
            # the period divides the epoch: each epoch walks the data in the same order (sorted by class
            # or by source), and the loss climbs and falls with each block
            per_epoch = f" ({round(ppe / p)} per epoch of {ppe:.0f} points: the data comes in the same order each epoch)"
    peak = float(ac[p])
    # A real period: the autocorrelation dips between lag 0 and p (a smooth trend left
    # over by detrending decays without a dip), repeats at 2p, and dominates the noise. A period
    # the epoch length fixes needs less (its swings fade as the model learns every block).
    trough = float(np.min(ac[1:p]))
    need, again = (0.4, 0.1) if aligned else (0.5, 0.3)
    if peak < need or trough > 0.1 or peak - trough < 0.6 or (2 * p < len(ac) and ac[2 * p] < again):
        return []
    # (on a log scale r is already relative: its spread is the amplitude)
    amp = float(np.std(r)) if logged else float(np.std(r)) / (abs(float(np.median(x))) + 1e-8)
    if amp < 0.02:
        return []
    strength = min(1.0, peak + SAWTOOTH_ALIGNED) if aligned else min(1.0, peak)
    txt = f"{s.name} repeats with a period of {p} logged points (autocorrelation {peak:.2f}, amplitude {amp*100:.0f}%){per_epoch}"
    i = n - len(x) + int(np.argmax(r[:p * 2]))
    return [Signal("sawtooth_epoch", strength, txt, [q.ev(s, i, txt)], {"period": p, "aligned": aligned})]


# A line's leading tag ("[teacher] epoch 25/25 loss 0.018", "[kd] epoch 1/40 loss 12.3"): a phase of one script
_PHASE_TAG = re.compile(r"\s*\[([A-Za-z][\w-]{0,23})\]")
_NOT_PHASE = frozenset(("info", "warning", "warn", "debug", "error", "critical", "train", "val", "valid", "eval", "test"))


def _phase_tag(s: Series, i: int, q: Quoter) -> str | None:
    m = _PHASE_TAG.match(q.ev(s, i, "").quote or "")
    tag = m.group(1).lower() if m else None
    return None if tag is None or tag in _NOT_PHASE or tag.startswith(("rank", "default")) else tag


# Between two trials of a hyperparameter search, the tool's banner for the next one: W&B's agent ("Agent starting run
# with config:"), Optuna ("Trial 3 finished with value", "Trial 4 pruned"), Keras Tuner ("Search: Running Trial #4",
# "Trial 3 Complete"), Ray Tune ("Trial train_fn_1a2b started"), or a loop's own "--- trial 5 ---" / "Running trial".
_NEW_TRIAL = re.compile(r"agent starting run|\btrial[ _#]*\w*\s+(?:finished|pruned|complete[d]?|start(?:ed|ing)?|failed)\b"
                        r"|\brunning trial\b|\bstarting trial\b|^[ \t]*[-=#*]{2,}[ \t]*trial[ \t#]*\d+", re.I | re.M)
_RESUMED = re.compile(r"\bresum|\brestor|\bload(?:ed|ing)? (?:the )?(?:checkpoint|state|weights)", re.I)
# ... or a caption that names another run to compare with ("Before (last 3 epochs):" ... "After (last 3 epochs):", "old
# config:" / "new config:", "Run 2:", "with dropout 0.4:", "lr=1e-4:"): a post's two runs side by side, no resumed job
_OTHER_RUN = re.compile(r"^[ \t>*#_`-]*(?:after|before|now|then|old|new|previous(?:ly)?|baseline|original|modified|changed"
                        r"|lr|learning[ _]rate|seed|batch[ _]?size|bs"
                        r"|with(?:out)?|run[ \t]*#?\d+|v\d+|version[ \t]*\d+|first|second|another)\b[^\n:]{0,60}:[ \t*_`]*$",
                        re.I | re.M)


def _restart(s: Series, q: Quoter) -> list[Signal]:
    """Step counter going backwards in file order = a restart; loss jump there = bad resume. Not where the lines on
    either side carry different phase tags (a distillation's "[teacher]" epochs, then its "[kd]" epochs): a script's
    next phase, no resumed job."""
    order, _, back = _file_steps(s)
    out: list[Signal] = []
    if len(back):
        i = int(back[0]) if order is None else int(order[back[0]])
        j = int(back[0]) - 1 if order is None else int(order[back[0] - 1])
        a, b = _phase_tag(s, j, q), _phase_tag(s, i, q)
        if a is not None and b is not None and a != b:
            return out
        gap = q.lines_between(s, j, i)
        if (_NEW_TRIAL.search(gap) or _OTHER_RUN.search(gap)) and not _RESUMED.search(gap):
            return out      # a search's next trial, or another run set beside the first (its own config), no resumed job
        out.append(Signal("step_restart", 0.6, f"{s.name}: step goes back to {int(s.steps[i])} (restart)",
                          [q.ev(s, i, "step counter restarts")], {"step": int(s.steps[i])}))
    return out


# A NaN that every posted attempt meets at one step, each after a loss that was not rising (at most this many times
# its attempt's median before it): the same batch each time, whatever else changed (a lower lr, clipping)
SAME_STEP_RISE = 3.0


def _nonfinite_same_step(s: Series, q: Quoter) -> list[Signal]:
    """`nonfinite_same_step`: two or more attempts in one artifact (the step going back between them: runs
    posted one under the other, or restarts) whose loss first goes non-finite at the same step, suddenly (no
    climb before it). A divergence comes earlier at a higher lr and later at a lower one; a NaN that waits for
    one step of the data order whatever the setting is that step's batch."""
    order, st, back = _file_steps(s)
    if not len(back) or len(back) > MAX_RESTARTS:
        return []
    idx = np.arange(len(st)) if order is None else order
    v = s.values[idx]
    firsts: list[int] = []        # positions (in file order) of each attempt's first non-finite point
    for a, b in zip(np.r_[0, back], np.r_[back, len(st)]):
        bad = np.flatnonzero(~np.isfinite(v[a:b]))
        if not len(bad):
            continue
        k = a + int(bad[0])
        before = v[a:k]
        if len(before) and np.isfinite(before).all() and before[-1] > SAME_STEP_RISE * float(np.median(before)):
            return []
        firsts.append(k)
    if len(firsts) < 2 or len({int(st[k]) for k in firsts}) != 1:
        return []
    step = int(st[firsts[0]])
    txt = (f"{s.name} first goes non-finite at step {step} in each of {len(firsts)} attempts, suddenly each time: "
           "the same step whatever changed between them")
    return [Signal("nonfinite_same_step", 0.8, txt, [q.ev(s, int(idx[k]), txt) for k in firsts[:3]],
                   {"step": step, "attempts": len(firsts)})]


def resume_jump(s: Series, step: int, q: "Quoter") -> Signal | None:
    """Loss jump at a known resume step: mean of a few points after vs before."""
    v = s.values
    k = int(np.searchsorted(s.steps, step))
    if k < 3 or k > len(v) - 2:
        return None
    before = float(np.nanmedian(v[max(0, k - 5):k]))
    after = float(np.nanmax(v[k:k + 3]))
    if before > 0 and after > before * 1.2:
        txt = f"{s.name} jumps from {_fmt(before)} to {_fmt(after)} at the resume step {step} (+{(after/before-1)*100:.0f}%)"
        j = k + int(np.nanargmax(v[k:k + 3]))
        return Signal("loss_jump_at_resume", min(1.0, (after / before - 1) / 0.5), txt,
                      [q.ev(s, k - 1, "loss before the resume"), q.ev(s, j, txt)], {"step": step})
    return None


# A new attempt whose first loss is this many times the highest the earlier attempt logged is another run (a
# deeper model, another init), posted beside it: no resume of that attempt
RESTART_OTHER_RUN = 10.0


def restart_jump(s: Series, q: Quoter) -> Signal | None:
    """The loss right after the first restart of `s` (its step going back in the artifact's
    order, see ordered) against what the attempt before it logged at the same steps: a resume
    that restored the model and the training state goes on from where that attempt was at
    those steps. The max of the new attempt's first 3 points against the median of the earlier
    attempt's first 3 at or past the step it went back to (its last 5 when it never got
    there); > 1.2x is a jump, as in resume_jump."""
    order, st, back = _file_steps(s)
    if not len(back):
        return None
    fo = np.arange(len(s)) if order is None else order
    k = int(back[0])
    earlier = fo[:k]
    redone = earlier[s.steps[earlier] >= st[k]]
    ref = redone[:3] if len(redone) else earlier[-5:]
    new = fo[k:min(k + 3, int(back[1]) if len(back) > 1 else len(fo))]
    v = s.values
    before, after = v[ref][np.isfinite(v[ref])], v[new][np.isfinite(v[new])]
    if not len(before) or not len(after):
        return None
    b, j = float(np.median(before)), int(new[np.isfinite(v[new])][np.argmax(after)])
    a = float(v[j])
    if not (b > 0 and a > b * 1.2):
        return None
    seen = v[earlier][np.isfinite(v[earlier])]
    if len(seen) and float(np.max(seen)) > 0 and a >= RESTART_OTHER_RUN * float(np.max(seen)):
        return None     # (far above anything the earlier attempt logged: another model or setting, not a resume)
    same = "at the same steps" if len(redone) else "before it"
    txt = (f"{s.name} jumps from {_fmt(b)} ({same}, before the restart) to {_fmt(a)} when the steps "
           f"restart at {int(st[k])} (+{(a / b - 1) * 100:.0f}%)")
    return Signal("loss_jump_at_resume", min(1.0, (a / b - 1) / 0.5), txt,
                  [q.ev(s, int(ref[0]), f"{s.name} logged before the restart"), q.ev(s, j, txt)],
                  {"step": int(st[k])})


def resume_lr_jump(lr: Series, step: int, q: "Quoter") -> Signal | None:
    """The lr right after a resume step vs right before it: a restarted schedule or a
    fresh optimizer shows up as a jump (here > 1.3x either way within the next 4 points)."""
    v = lr.values
    k = int(np.searchsorted(lr.steps, step, side="right"))
    if k < 1 or k >= len(v):
        return None
    before = float(v[k - 1])
    after = v[k:k + 4]
    after = after[np.isfinite(after)]
    if before <= 0 or not len(after):
        return None
    j = k + int(np.argmax(np.abs(np.log(np.maximum(after, 1e-30) / before))))
    ratio = float(v[j]) / before
    if 1 / 1.3 < ratio < 1.3:
        return None
    txt = f"lr goes from {_fmt(before)} to {_fmt(float(v[j]))} right after the resume at step {step} ({ratio:.2f}x)"
    return Signal("lr_jump", min(1.0, 0.5 + abs(math.log(ratio)) / 2), txt,
                  [q.ev(lr, k - 1, "lr before the resume"), q.ev(lr, j, txt)],
                  {"step": step, "before": before, "after": float(v[j]), "at_resume": True})


# ---------------------------------------------------------------- train vs val

def _term_train_val(run: Run, q: Quoter) -> list[Signal]:
    """A run that logs its loss by terms only, each with its validation twin (ultralytics' train/box_loss and
    val/box_loss, cls, dfl): the train/validation reading of each pair, the term whose validation rises most
    kept (overfitting shows in every term; one is enough to cite)."""
    names = {s.name for s in run.series}
    best: list[Signal] = []
    for name in dict.fromkeys(x.name for x in loss_terms(run)):
        s = run.metric(name)
        if f"val_{name}" not in names or s is None or len(s) < 3:
            continue
        va = run.metric(f"val_{name}")
        if va is None or va is s or len(va) < 3:
            continue
        got = [x for x in _train_val(run, *_on_train_axis(ordered(s), ordered(va)), q, (s.raw_name, va.raw_name))
               if x.kind in ("train_val_divergence", "val_gap_from_start", "memorizing_from_start")]
        for x in got:
            x.data["term"] = s.name
        if got and (not best or got[0].strength > best[0].strength):
            best = got
    return best


def _train_val(run: Run, tr: Series, va: Series, q: Quoter, labels: tuple[str, str] = ("train loss", "val_loss")
               ) -> list[Signal]:
    v = va.values
    ok = np.isfinite(v)
    if ok.sum() < 3:
        return []
    vi = np.flatnonzero(ok)
    vv = v[vi]
    k = int(np.argmin(vv))
    imin = int(vi[k])
    vmin = float(vv[k])
    vend = float(np.median(vv[-max(1, len(vv) // 5):]))
    rise = (vend - vmin) / (abs(vmin) + 1e-8)
    t_ok = np.isfinite(tr.values)
    if t_ok.sum() < 3:
        return []
    ts, tv = tr.steps[t_ok], tr.values[t_ok]
    gap = _val_gap(run, ts, tv, va, vi, vv, q, same_lines=_same_lines(tr, va))
    if gap:
        return gap
    if imin >= len(v) - 1 or rise < 0.08:
        return []
    tail = max(1, len(vv) // 5)
    if k >= len(vv) - tail and vend - vmin < float(np.median(np.abs(np.diff(vv[len(vv) // 2:])))):
        return []        # the minimum is among the last evaluations and the "rise" is one of val's usual swings
    if vend - vmin < VAL_RISE_OF_START * max(abs(float(tv[0])), abs(float(vv[0]))):
        return []        # a rise too small to matter on the run's own scale (1e-6 -> 8e-6 beside a start at 0.3)
    # (a first val loss that dipped at all, beside a val accuracy far above 1/K, is at no chance level however near
    # ln K it reads; one that never went below its first value keeps that reading: validation that never learned)
    acc0 = _val_acc_at(run, va.steps[vi[0]]) if k > 0 else None
    if (float(vv[0]) - vmin) / (abs(float(vv[0])) + 1e-8) < VAL_IMPROVED and \
            not _val_started_with_train(float(vv[0]), _train_before(ts, tv, va.steps[vi[0]]), acc0):
        return []        # validation never improved on its first value, far above train: a gap, not overfitting
    # Train loss at the val minimum vs at the end (aligned by step).
    a = int(np.clip(np.searchsorted(ts, va.steps[imin]), 0, len(ts) - 1))
    t_at = float(np.median(tv[max(0, a - 2):a + 3]))
    t_end = float(np.median(tv[-max(1, len(tv) // 10):]))
    drop = (t_at - t_end) / (abs(t_at) + 1e-8)
    if drop < 0.02:
        return []
    if t_end >= vmin and float(np.max(vv[k:])) > VAL_SWING_X * vend:
        # a training loss still above validation's best, and a val loss that went far above where it ends:
        # an unstable run's swings, not a trend (dropout alone keeps a training loss above val's best, and
        # then validation climbs steadily to its end)
        return []
    txt = (f"{labels[1]} rises {rise*100:.0f}% from its minimum {_fmt(vmin)} at step {int(va.steps[imin])} "
           f"while {labels[0]} keeps falling ({_fmt(t_at)} -> {_fmt(t_end)})")
    unfitted = _unfitted_at_divergence(run, q, tr, t_end, vmin) or _loss_memorized(run, tr, q)
    # (beside a training set far from fitted the rise says less of overfitting: below the strength that
    # separates it from label noise, scoring.SEPARATING_MIN, so it is no finding until the labels are checked)
    strength = min(1.0, rise / 0.3) if not unfitted else min(UNFITTED_DIVERGENCE, rise / 0.3)
    if labels[1] == "val_loss" and (held := _val_accuracy_held(run)) is not None:
        # validation accuracy near perfect to the end: the rising loss is a few confident errors, no model
        # that got worse on held-out data (and a score that high is its own question: see val_near_perfect)
        strength = min(strength, UNFITTED_DIVERGENCE)
        txt += f"; validation accuracy holds at {held:.3f} to the end"
    return [Signal("train_val_divergence", strength, txt,
                   [q.ev(va, imin, "val_loss minimum"), q.ev(va, len(v) - 1, "val_loss at the end"),
                    q.ev(tr, len(tr.values) - 1, "train loss at the end")],
                   {"step": int(va.steps[imin]), "train_drop": drop, "val_rise": rise})] + unfitted


# train_val_divergence: a validation accuracy whose last fifth stays at or above this (0-1 scale), within
# VAL_ACC_HELD of its best, leaves the val loss's rise no overfitting to speak of
VAL_ACC_NEAR_PERFECT = 0.98
VAL_ACC_HELD = 0.01


def _val_accuracy_held(run: Run) -> float | None:
    """The validation accuracy at the end (median of its last fifth, 0-1 scale) when it stays near perfect and
    within VAL_ACC_HELD of its best; else None."""
    va = run.metric("val_accuracy")
    if va is None or len(va) < 3:
        return None
    v = _unit_values(ordered(va).values)
    if len(v) < 3:
        return None
    end = float(np.median(v[-max(1, len(v) // 5):]))
    return end if end >= VAL_ACC_NEAR_PERFECT and float(np.max(v)) - end < VAL_ACC_HELD else None


def _loss_memorized(run: Run, tr: Series, q: Quoter) -> list[Signal]:
    """memorized_after_plateau read from the train loss alone (no train accuracy logged), beside a val loss
    that worsens: the train loss falls MEMO_LOSS_ACCEL times faster per point in the run's second half than
    in its first, and by MEMO_LOSS_DROP of its midpoint value. Training on clean labels falls fastest
    first and slows down; on noisy labels the loss floors high while the clean share is learned, then
    drops late as the wrong labels are memorised (and validation pays for it). A step decay of the lr
    makes a late drop too: a logged lr that halves from one point to the next before the run's last
    fifth rules it out. The first point is left out: an untrained model's loss falls fast anywhere."""
    got = _train_accuracy(run, 3)
    if got is not None:
        # a logged train accuracy must show the stop too: flat through the first half (a clean run's accuracy
        # climbs from its start, 0.60 to 0.84 over the same stretch; a noisy set's holds at the clean share)
        early = got[2][1:max(2, len(got[2]) // 2)]
        if len(early) < 2 or float(np.ptp(early)) > TRAIN_ACC_FLAT:
            return []
    fi = np.flatnonzero(np.isfinite(tr.values))[1:]
    tv = tr.values[fi]
    n = len(tv)
    if n < MEMO_LOSS_POINTS:
        return []
    h = n // 2
    first = (float(tv[0]) - float(tv[h])) / h
    second = (float(tv[h]) - float(tv[-1])) / (n - 1 - h)
    mid = float(tv[h])
    if mid <= 0 or second <= 0 or (mid - float(tv[-1])) < MEMO_LOSS_DROP * mid or second < MEMO_LOSS_ACCEL * max(first, 0.0):
        return []
    lr = run.metric("lr")
    if lr is not None and len(lr) >= 3:
        lo = ordered(lr)
        lv = lo.values[np.isfinite(lo.values)]
        cut = max(1, int(0.8 * len(lv)))
        if len(lv) >= 3 and bool(np.any(lv[1:cut] <= lv[:cut - 1] / 2)):
            return []
    txt = (f"train loss falls {second / max(first, 1e-12):.1f}x faster in the run's second half "
           f"({_fmt(mid)} -> {_fmt(float(tv[-1]))}) than in its first ({_fmt(float(tv[0]))} -> {_fmt(mid)}) while "
           f"validation worsens: a late drop that memorises labels the model could not learn")
    return [Signal("memorized_after_plateau", 0.6, txt,
                   [q.ev(tr, int(fi[h]), "train loss at mid-run"), q.ev(tr, int(fi[-1]), "train loss at the end")],
                   {"first": first, "second": second, "step": int(tr.steps[fi[h]])})]


def _unfitted_at_divergence(run: Run, q: Quoter, tr: Series | None = None, t_end: float | None = None,
                            vmin: float | None = None) -> list[Signal]:
    """divergence_train_unfitted: validation worsens while the training set is still far from fitted (train
    accuracy below TRAIN_UNFITTED at the end, well above chance). A net that overfits clean labels fits its
    training set on the way; one that is memorising wrong labels climbs slowly through them (a 30 % noisy
    set: train accuracy 0.62 at the val minimum, 0.82 forty epochs on). Not a finding for either: it keeps
    overfitting below the bar until the labels are looked at. With no train accuracy logged: the training loss
    (`t_end`, the median of its last tenth) ending at or above the validation loss's best (`vmin`), where nothing
    mixes the training targets (label smoothing, mixup keep a training loss high by design): a timm summary's
    train_loss 0.62 beside an eval_loss that bottomed at 0.2 with 40 % of the training labels wrong."""
    got = _train_accuracy(run, 3)
    if got is None:
        if tr is None or t_end is None or vmin is None or not t_end >= vmin > 0 \
                or any(_MIXED_TARGETS.search(t.text[:200_000]) for t in run.texts):
            return []
        txt = (f"the training loss ends at {_fmt(t_end)}, above the {_fmt(vmin)} validation reached, while validation "
               "worsens: the training set is far from fitted (overfitting clean labels fits it; memorising wrong ones is slow)")
        return [Signal("divergence_train_unfitted", 0.6, txt, [q.ev(tr, len(tr.values) - 1, "training loss at the end")],
                       {"train_loss_end": t_end, "val_min": vmin})]
    a, fi, v = got
    end = float(np.median(v[-max(1, len(v) // 5):]))
    k = _num_classes(run)
    if not ((1 / k if k else 0.25) + 0.15 <= end < TRAIN_UNFITTED):
        return []
    txt = (f"train accuracy is {end:.3f} at the end while validation worsens: the training set is far from fitted "
           f"(overfitting clean labels fits it; memorising wrong ones is slow)")
    return [Signal("divergence_train_unfitted", 0.6, txt, [q.ev(a, int(fi[-1]), "train accuracy at the end")],
                   {"train_acc_end": end})]


def _same_lines(tr: Series, va: Series) -> bool:
    """Train and val values printed on the same lines (one per epoch): index steps align them."""
    return tr.step_is_index and va.step_is_index and len(tr) == len(va) and tr.source == va.source \
        and tr.loc_kind == va.loc_kind and np.array_equal(tr.locs, va.locs)


def _val_gap(run: Run, ts: np.ndarray, tv: np.ndarray, va: Series, vi: np.ndarray, vv: np.ndarray,
             q: Quoter, same_lines: bool = False) -> list[Signal]:
    """val_gap_from_start: validation never improves on its first evaluation while training learns,
    and sits near chance (or far above the train loss) from that first evaluation: validation data
    the model cannot use (another distribution, other preprocessing, unpaired targets), not overfitting."""
    first = float(vv[0])
    improved = (first - float(np.min(vv))) / (abs(first) + 1e-8)
    if improved >= VAL_IMPROVED or (va.step_is_index and not same_lines):
        return []
    if _CONTRASTIVE.search(va.raw_name or va.name) and _val_score_learned(run, va.source):
        return []     # (a contrastive loss climbs with its learned temperature while retrieval improves)
    t_first = _train_before(ts, tv, va.steps[vi[0]])
    t_end = float(np.median(tv[-max(1, len(tv) // 10):]))
    t_start = float(np.median(tv[: max(1, len(tv) // 20)]))
    chance = _chance_level(run, va.raw_name or va.name)
    mem = _memorizing_from_start(tv, va, vi, vv, chance, q)
    if mem or (t_start - t_end) / (abs(t_start) + 1e-8) < 0.2:
        return mem                       # else: training did not learn either, not a train/val gap
    near_chance = chance is not None and first >= 0.85 * chance
    wide = t_first < 0.7 * first and chance is None
    # validation that ends no better than it began while training lost most of its loss (and did not
    # begin level with training: a first evaluation as good as training's, worsening from there, is
    # overfitting from the first epoch on, read by _train_val)
    flat = float(np.min(vv[1:])) >= first * (1 - VAL_IMPROVED) and (t_start - t_end) / (abs(t_start) + 1e-8) >= 0.5 \
        and not _val_started_with_train(first, t_first, _val_acc_at(run, va.steps[vi[0]]))
    if not (near_chance or wide or flat):
        return []
    txt = (f"val_loss is {_fmt(first)} at its first evaluation (step {int(va.steps[vi[0]])}) and never improves"
           + (f" (chance ln K = {chance:.3f})" if chance is not None else "")
           + f" while train loss falls to {_fmt(t_end)}")
    return [Signal("val_gap_from_start", 0.8 if near_chance else 0.6, txt,
                   [q.ev(va, int(vi[0]), "val_loss at the first evaluation"), q.ev(va, int(vi[-1]), "val_loss at the end")],
                   {"first_val": first, "train_end": t_end, "chance": chance})]


# A PSNR (dB) this high at a first evaluation: errors under one grey level of 255 (val_near_perfect), that evaluation at
# most this share into the logged steps
PSNR_NEAR_PERFECT = 50.0
PSNR_EARLY = 0.2


# A held-out score (higher is better) that learned: its high values (90th percentile, as a fraction) this much above its
# first and at least VAL_SCORE_LEARNED_X times it
VAL_SCORE_LEARNED = 0.15
VAL_SCORE_LEARNED_X = 1.5
_HIGHER_BETTER = re.compile(r"(?:^|_)(?:acc\w*|top\d\w*|r\d+|r_?at_?\d+|recall\w*|r_mean|f1\w*|auc\w*|map\w*|dice\w*|iou\w*|"
                            r"bleu\w*|rouge\w*|psnr|ssim)$")
# ... not an error or a loss under such a name (val_top1_err, val_dice_loss, val_mape): config.LOWER_IS_BETTER's names


def _val_score_learned(run: Run, source: str) -> bool:
    """Whether a validation score the file `source` logs rose well above its first evaluation (zero-shot accuracy
    0.09 -> 0.34, recall 1 % -> 14 %): validation the model reads, however its contrastive loss goes (one that climbs
    from the first epochs beside it is a temperature grown overconfident, not data the model cannot use). Asked for
    contrastive losses only: a classifier's accuracy rising from below 1/K up to it learned nothing. Another file's
    scores are another job's."""
    scores = [s for s in run.series if s.name.startswith("val_") and len(s) >= 3 and _HIGHER_BETTER.search(s.name)
              and not LOWER_IS_BETTER.search(s.name) and s.source == source]
    # (a file that prints any score above 1 prints percentages: its recall of 0.39 is 0.39 %, not 39 %)
    scale = 100.0 if any(np.nanmax(np.abs(s.values), initial=0.0) > 1.0 for s in scores) else 1.0
    for s in scores:
        v = s.values[np.isfinite(s.values)]
        if len(v) < 3:
            continue
        first, high = float(v[0]) / scale, float(np.percentile(v, 90)) / scale
        if 0 <= first and high - first >= VAL_SCORE_LEARNED and high >= VAL_SCORE_LEARNED_X * first:
            return True
    return False


# A first validation loss at most this many times the training loss of the same moment started level
# with training (a val set from another distribution starts far above it, or at chance).
VAL_STARTED_WITH_TRAIN = 1.3


def _train_before(ts: np.ndarray, tv: np.ndarray, step) -> float:
    """The training loss logged up to `step`: the median of its last three points then."""
    a = int(np.clip(np.searchsorted(ts, step, side="right") - 1, 0, len(ts) - 1))
    return float(np.median(tv[max(0, a - 2):a + 1]))


def _val_started_with_train(first: float, t_first: float, acc: float | None = None) -> bool:
    """Whether validation's first value is within VAL_STARTED_WITH_TRAIN of the training loss logged up
    to that evaluation (`t_first`, _train_before), and not at a chance level ln K (a usual K, within
    5 %): a validation set the model cannot read sits there however training does. A validation accuracy
    logged with it (`acc`, as a fraction) far above that K's 1/K says the loss is not chance's."""
    k = implied_classes(first, 0.05)
    at_chance = k is not None and not (acc is not None and acc >= 1.0 / k + ACC_ABOVE_CHANCE)
    return not at_chance and first <= VAL_STARTED_WITH_TRAIN * t_first


# A validation accuracy this far above 1/K is no chance-level run, whatever its loss reads as
ACC_ABOVE_CHANCE = 0.15


def _val_acc_at(run: Run, step: float) -> float | None:
    """The validation accuracy logged at `step` (as a fraction: a percentage is divided by 100), None when none is."""
    acc = run.metric("val_accuracy")
    if acc is None or not len(acc):
        return None
    hit = np.flatnonzero(acc.steps == step)
    if not hit.size:
        return None
    v = float(acc.values[hit[0]])
    return v / 100.0 if v > 1.0 else v


def _memorizing_from_start(tv: np.ndarray, va: Series, vi: np.ndarray, vv: np.ndarray, chance: float | None,
                           q: Quoter) -> list[Signal]:
    """memorizing_from_start: validation never better than its first evaluation and ending no more than
    a tenth of the training loss's fall below it, while the training loss, from the chance level ln K
    (within MEMORIZE_CHANCE_TOL of it, K from num_classes or a usual count), falls steadily (lower at
    CREEP_SHARE of its points) and not front-loaded (its first third holds at most MEMORIZE_FRONT of the
    fall: a line, or a curve that speeds up). That is how a model fits targets not paired with their
    inputs: one epoch at a time, never generalising (random labels are fit slowly, and faster as the
    memorising takes hold). A real task is learned fastest first; a too-small lr lowers both losses."""
    n = len(tv)
    if n < 5 or len(vv) < 5:
        return []
    fall = float(tv[0] - tv[-1])
    first, v_end = float(vv[0]), float(np.median(vv[-max(1, len(vv) // 5):]))
    if fall <= 0 or v_end - first < -0.1 * fall or float(tv[0] - tv[n // 3]) > MEMORIZE_FRONT * fall:
        return []     # (validation that follows training down, even a tenth of the way, learned something)
    at_chance = (abs(float(tv[0]) - chance) <= MEMORIZE_CHANCE_TOL * chance if chance is not None
                 else implied_classes(float(tv[0]), MEMORIZE_CHANCE_TOL) is not None)
    if not at_chance:
        return []                        # learned something in its first epoch: not a start from chance
    if float(np.mean(np.diff(tv) < 0)) < CREEP_SHARE:
        return []
    txt = (f"val_loss goes from {_fmt(first)} at its first evaluation (step {int(va.steps[vi[0]])}) to {_fmt(v_end)} "
           f"while train loss falls steadily from chance, as fast late as early ({_fmt(float(tv[0]))} -> "
           f"{_fmt(float(tv[-1]))}): memorising, not learning")
    return [Signal("memorizing_from_start", 0.7, txt,
                   [q.ev(va, int(vi[0]), "val_loss at the first evaluation"), q.ev(va, int(vi[-1]), "val_loss at the end")],
                   {"first_val": first, "train_end": float(tv[-1]), "chance": chance})]


# _sparse_tail_flat: the share of the run's steps the flat tail spans at least, and how far it may still fall
SPARSE_FLAT_SPAN = 0.6
SPARSE_FLAT_MOVE = 0.03
# ... read only where the printed points are uneven: the widest gap between them this many times the narrowest
SPARSE_GAP_X = 3.0
# ... and stuck high: at this share of the first point or more (2.3 to 0.02 by epoch 5 is a run that learned)
SPARSE_FLAT_LEVEL = 0.3


def _sparse_tail_flat(s: Series, pre: np.ndarray) -> int | None:
    """Where a few points printed at uneven steps stop falling (epochs 0, 1, ... 5, then 10, 20, 40): the point
    from which the loss moves SPARSE_FLAT_MOVE of its level or less to the end while the steps from it to the end
    are SPARSE_FLAT_SPAN of the run's or more, after a first point SHORT_FELL above it. Read on the steps, not
    on the points (a point per epoch late in the run stands for many)."""
    n = len(pre)
    if s.step_is_index or n < SHORT_FLAT_POINTS or not np.all(np.isfinite(pre)) or pre[-1] <= 0:
        return None
    st = s.steps[:n].astype(float)
    span = float(st[-1] - st[0])
    gaps = np.diff(st)
    if span <= 0 or float(np.min(gaps)) <= 0 or float(np.max(gaps)) < SPARSE_GAP_X * float(np.min(gaps)):
        return None     # (evenly printed points are read as points: a running mean's slow fall is still a fall)
    for i in range(1, n - 1):
        if (st[-1] - st[i]) < SPARSE_FLAT_SPAN * span:
            break
        seg = pre[i:]
        if float(np.max(seg) - np.min(seg)) <= SPARSE_FLAT_MOVE * float(pre[i]) and float(pre[0]) >= SHORT_FELL * float(pre[i]) \
                and float(pre[i]) >= SPARSE_FLAT_LEVEL * float(pre[0]):
            return i
    return None


def _short_tail_flat(pre: np.ndarray) -> int | None:
    """Where a few points' fall stops: the start of a tail of SHORT_FLAT_POINTS - 1 points or more (half the
    points at least) within SHORT_FLAT_SPREAD of each other that does not keep falling at every point (a
    running mean's 9.405, 9.399, 9.393 still falls), after a first point SHORT_FELL above it."""
    n = len(pre)
    if n < SHORT_FLAT_POINTS or not np.all(np.isfinite(pre)) or pre[-1] <= 0:
        return None
    j = n - 1
    while j > 0 and float(np.ptp(pre[j - 1:])) <= SHORT_FLAT_SPREAD * float(pre[-1]):
        j -= 1
    tail = pre[j:]
    if len(tail) < SHORT_FLAT_POINTS - 1 or len(tail) < n / 2 or j == 0 or not (np.diff(tail) >= 0).any():
        return None
    return j if float(pre[0]) >= SHORT_FELL * float(np.median(tail)) else None


# An accuracy this far above 1/K (and at least ABOVE_CHANCE_X times it) is no model at chance
ABOVE_CHANCE_BY = 0.2
ABOVE_CHANCE_X = 1.5


def _accuracy_above_chance(run: Run, k: int) -> bool:
    """The run's train accuracy (its median, on a 0-1 scale) sits well above chance 1/k."""
    got = _train_accuracy(run, 2)
    if got is None:
        return False
    med = float(np.median(got[2]))
    return med >= 1 / k + ABOVE_CHANCE_BY and med >= ABOVE_CHANCE_X / k


def _train_accuracy(run: Run, n: int) -> tuple[Series, np.ndarray, np.ndarray] | None:
    """The train accuracy in step order, the indices of its finite points and their values on a 0-1 scale, when
    it has n finite points at least."""
    acc = run.metric("accuracy")
    if acc is None or len(acc) < n:
        return None
    a = ordered(acc)
    fi = np.flatnonzero(np.isfinite(a.values))
    if len(fi) < n:
        return None
    v = a.values[fi]
    return a, fi, v / _percent_scale(v)


def _accuracies(run: Run, n_train: int = 3, n_val: int = 3) -> tuple[Series, Series] | None:
    """The train and validation accuracy series in step order, when both are logged (as two series)
    with n_train and n_val points at least; on one axis where a text log printed them without steps
    (_on_train_axis)."""
    acc, vacc = run.metric("accuracy"), run.metric("val_accuracy")
    # (Lightning logs train_acc_step and train_acc_epoch: the epoch's mean is the level, a batch's is noise)
    per_epoch = [s for s in run.series if s.name == "accuracy" and s.raw_name.lower().endswith("epoch")
                 and len(s) >= n_train]
    if per_epoch and acc is not None and not acc.raw_name.lower().endswith("epoch"):
        acc = per_epoch[0]
    if acc is None or vacc is None or acc is vacc or len(acc) < n_train or len(vacc) < n_val:
        return None
    return _on_train_axis(ordered(acc), ordered(vacc))


def _accuracy_levels(run: Run, n: int) -> tuple[Series, np.ndarray, np.ndarray, np.ndarray] | None:
    """(validation accuracy series, its evaluations' indices, train accuracy at each, validation accuracy
    at each), both on a 0-1 scale, where the run logs both accuracies on one axis (the same lines, or
    steps: the train level since the evaluation before) with n evaluations at least that have both."""
    pair = _accuracies(run, 3, n)
    if pair is None:
        return None
    tr, va = pair
    vi = np.flatnonzero(np.isfinite(va.values))
    if len(vi) < n:
        return None
    if _same_lines(tr, va):
        t = tr.values[vi]
    elif not (tr.step_is_index or va.step_is_index):
        t = _epoch_train_level(tr, va.steps[vi])
    else:
        return None
    v = va.values[vi]
    ok = np.isfinite(t)
    if ok.sum() < n:
        return None
    scale = _percent_scale(t, v)
    return va, vi[ok], t[ok] / scale, v[ok] / scale


def _percent_scale(*values: np.ndarray) -> float:
    """100 when accuracies are printed in percent (a value above 1.5 in any of the arrays), else 1:
    what to divide them by for a 0-1 scale. NaNs are ignored; each array holds a finite value."""
    return 100.0 if max(float(np.nanmax(v)) for v in values) > 1.5 else 1.0


def _val_acc_gap(run: Run, q: Quoter) -> list[Signal]:
    """val_gap_from_start read from accuracies (a run that prints accuracy and no val_loss, as Keras
    and many posts do): validation accuracy never improves on its first evaluation while train
    accuracy climbs, and sits near chance (1/K) or far below train from the start."""
    levels = _accuracy_levels(run, 3)
    if levels is None:
        return []
    va, vi, t, v = levels
    first, v_end, t_end = float(v[0]), float(np.median(v[-max(1, len(v) // 5):])), float(np.median(t[-max(1, len(t) // 5):]))
    if float(np.max(v[1:])) - first >= VAL_ACC_IMPROVED or t_end - float(t[0]) < VAL_ACC_TRAIN_GAIN:
        return []
    k = _num_classes(run)
    near_chance = k is not None and first <= 1.5 / k
    if not (near_chance or t_end - v_end >= VAL_ACC_FAR_BELOW):
        return []
    if not near_chance and first >= float(t[0]) - VAL_ACC_LEVEL and v_end < first - VAL_ACC_IMPROVED:
        return []     # level with training at first, then worse as training climbs: overfitting's shape
    txt = (f"validation accuracy is {first:.3f} at its first evaluation (step {int(va.steps[vi[0]])}) and never "
           f"improves" + (f" (chance 1/{k} = {1 / k:.3f})" if k else "") + f" while train accuracy climbs to {t_end:.3f}")
    return [Signal("val_gap_from_start", 0.8 if near_chance else 0.6, txt,
                   [q.ev(va, int(vi[0]), "validation accuracy at the first evaluation"),
                    q.ev(va, int(vi[-1]), "validation accuracy at the end")],
                   {"first_val": first, "train_end": t_end, "chance": (1 / k) if k else None, "by": "accuracy"})]


def _accuracy_classes(run: Run, v: np.ndarray) -> int | None:
    """K for a chance level 1/K of the accuracies `v` (0-1 scale): the configured class count, else a
    usual count whose 1/K their median sits at (VAL_CHANCE_MATCH; 0.1: ten classes; not 2-5 on the
    accuracy alone: 0.45 is chance for two classes and merely poor for ten). A count below ten is taken
    when a second reading agrees: the first logged loss (validation's, else training's) at ln K within
    LOSS_K_TOL (an untrained K-way classifier's loss), 0.2 accuracy beside a first loss of 1.6094."""
    k = _num_classes(run)
    if k is None:
        med = float(np.median(v))
        k = next((c for c in CHANCE_CLASSES if c >= 10 and abs(med - 1 / c) <= VAL_CHANCE_MATCH / c), None)
        for s in (run.metric("val_loss"), run.metric("loss")) if k is None else ():
            if s is None or not len(s):
                continue
            c = implied_classes(float(ordered(s).values[0]), LOSS_K_TOL)
            if c is not None and c < 10 and abs(med - 1 / c) <= VAL_CHANCE_MATCH / c:
                return c
    return k


# how close a first logged loss sits to ln K to name K beside an accuracy at 1/K
LOSS_K_TOL = 0.01


def _val_at_chance(run: Run, q: Quoter) -> list[Signal]:
    """val_at_chance: validation accuracy at the chance level 1/K through the whole run (never above
    VAL_CHANCE_BAND / K) while train accuracy climbs VAL_ACC_TRAIN_GAIN or more above chance. Inputs
    scored against labels that are not theirs (a val set shuffled apart from its labels, another
    class order) score exactly this; a val set from another distribution still transfers something.
    K: the configured class count, else a usual count of ten or more whose 1/K the validation accuracy
    sits at (VAL_CHANCE_MATCH)."""
    pair = _accuracies(run)
    if pair is None:
        return []
    tr, va = pair
    t, v = tr.values[np.isfinite(tr.values)], va.values[np.isfinite(va.values)]
    if len(t) < 3 or len(v) < 3:
        return []
    scale = _percent_scale(t, v)
    t, v = t / scale, v / scale
    k = _accuracy_classes(run, v)
    if not k:
        return []
    t_end = float(np.median(t[-max(1, len(t) // 5):]))
    if float(np.max(v)) > VAL_CHANCE_BAND / k or t_end < 1 / k + VAL_ACC_TRAIN_GAIN or \
            float(np.max(v[1:])) - float(v[0]) >= max(VAL_ACC_IMPROVED, 0.3 / k):
        return []
    vi = np.flatnonzero(np.isfinite(va.values))
    txt = (f"validation accuracy stays at chance (1/{k} = {1 / k:.3f}; at most {float(np.max(v)):.3f}) for the whole run "
           f"while train accuracy climbs to {t_end:.3f}")
    return [Signal("val_at_chance", 0.8, txt, [q.ev(va, int(vi[0]), "validation accuracy at the first evaluation"),
                                               q.ev(va, int(vi[-1]), "validation accuracy at the end")],
                   {"classes": k, "val_max": float(np.max(v)), "train_end": t_end})]


# _val_loss_at_chance: every validation loss within this share of ln K; the training loss's last fifth within
# VAL_CHANCE_TRAIN_TOL of it
VAL_LOSS_CHANCE_TOL = 0.015
VAL_CHANCE_TRAIN_TOL = 0.05


def _val_loss_at_chance(run: Run, q: Quoter) -> list[Signal]:
    """loss_at_chance read from the validation side: every validation loss sits at ln K (three evaluations at
    least; K configured or the usual class count that level names) beside a validation accuracy at 1/K where one
    is logged, and the training loss ends near ln K too (a few percent below it is the model memorising a
    training set whose targets say nothing: 0.6987 to 0.6776 over three epochs at ln 2). Nothing that carries
    to unseen inputs was learned: the flat-loss-at-chance question (pairing, frozen, dead, too low an lr)."""
    vl, tl = run.metric("val_loss"), run.metric("loss")
    if vl is None or tl is None or vl is tl:
        return []
    vi = np.flatnonzero(np.isfinite(vl.values))
    tv = ordered(tl).values
    tv = tv[np.isfinite(tv)]
    if len(vi) < 3 or len(tv) < 3:
        return []
    vv = vl.values[vi]
    level = float(np.median(vv))
    k = _num_classes(run) or implied_classes(level)
    if not k or k < 2:
        return []
    c = math.log(k)
    t_end = float(np.median(tv[-max(1, len(tv) // 5):]))
    if float(np.max(np.abs(vv - c))) > VAL_LOSS_CHANCE_TOL * c or abs(t_end - c) > VAL_CHANCE_TRAIN_TOL * c:
        return []
    va = run.metric("val_accuracy")
    if va is not None:
        a = va.values[np.isfinite(va.values)]
        if len(a) and float(np.max(a / _percent_scale(a))) > VAL_CHANCE_BAND / k:
            return []
    txt = (f"validation loss stays at {_fmt(level)} over {len(vi)} evaluations (ln({k}) = {c:.4f} is chance) and the "
           f"training loss ends at {_fmt(t_end)}: nothing that carries to unseen inputs was learned")
    return [Signal("loss_at_chance", 0.9, txt, [q.ev(vl, int(vi[0]), "validation loss at the first evaluation"),
                                                q.ev(vl, int(vi[-1]), "validation loss at the end")],
                   {"level": level, "k": k, "chance": c, "rel_drop": 0.0, "val": True})]


# no_gap_unfitted: train and validation loss this close at the end (a share of the train loss), with train
# accuracy below UNFIT_TRAIN_ACC
NO_GAP_CLOSE = 0.05
UNFIT_TRAIN_ACC = 0.6


def _no_gap_unfitted(run: Run, q: Quoter) -> list[Signal]:
    """no_gap_unfitted: beside a plateau, the training set is not fitted (train accuracy below UNFIT_TRAIN_ACC at the
    end) and validation scores as well as training (their losses within NO_GAP_CLOSE of each other): no gap to
    close, a model that cannot fit even its training data (too small, or regularised too hard), not one that
    memorises."""
    tl, vl = run.metric("loss"), run.metric("val_loss")
    got = _train_accuracy(run, 3)
    if tl is None or vl is None or tl is vl or got is None:
        return []
    a, fi, av = got
    tv = ordered(tl).values
    tv = tv[np.isfinite(tv)]
    vi = np.flatnonzero(np.isfinite(vl.values))
    if len(tv) < 3 or len(vi) < 3:
        return []
    t_end, v_end = float(np.median(tv[-max(1, len(tv) // 5):])), float(vl.values[vi[-1]])
    acc_end = float(np.median(av[-max(1, len(av) // 5):]))
    if t_end <= 0 or abs(v_end - t_end) > NO_GAP_CLOSE * t_end or acc_end >= UNFIT_TRAIN_ACC:
        return []
    txt = (f"train accuracy ends at {acc_end:.3f} with train loss {_fmt(t_end)} and validation loss {_fmt(v_end)} within "
           f"{abs(v_end - t_end) / t_end * 100:.0f}% of it: the model cannot fit even its training data (no gap to close)")
    return [Signal("no_gap_unfitted", 0.7, txt, [q.ev(a, int(fi[-1]), "train accuracy at the end"),
                                                 q.ev(vl, int(vi[-1]), "validation loss at the end")],
                   {"train_acc": acc_end, "train_loss": t_end, "val_loss": v_end})]


# val_unstable: evaluations at least; the share of turns (a rise after a fall or a fall after a rise) among the
# steps between them; their median step as a share of the median level
VAL_UNSTABLE_POINTS = 6
# the validation series read: losses and quality scores, not runtimes or throughputs
_QUALITY = re.compile(r"loss|acc|dice|iou|f1|auc|map|precision|recall|error|bleu|rouge|wer|cer|psnr|ssim|score|top", re.I)
VAL_UNSTABLE_TURNS = 0.6
VAL_UNSTABLE_STEP = 0.25
VAL_UNSTABLE_RANGE = 0.1
# ... which holds where the first and last thirds of the series differ by less than this share of its range
VAL_UNSTABLE_TREND = 0.25


def _val_unstable(run: Run, q: Quoter) -> list[Signal]:
    """val_unstable: a validation metric that zig-zags from one evaluation to the next by a quarter of its level or
    more (Dice 0.41, 0.14, 0.53, 0.30, 0.09, 0.57 ...; a val loss 1.90, 3.05, 2.12, 4.77, 1.68) while it is read
    on the same held-out set each time: the weights change too much between evaluations (a tiny batch, batch
    statistics of two samples, an lr too large for the batch). The validation metric with the widest swings."""
    best = None
    for s in run.series:
        if not s.name.startswith("val_") or len(s) < VAL_UNSTABLE_POINTS or not _QUALITY.search(s.name):
            continue
        v = s.values[np.isfinite(s.values)]
        if len(v) < VAL_UNSTABLE_POINTS:
            continue
        d = np.diff(v)
        nz = d[d != 0]
        if len(nz) < VAL_UNSTABLE_POINTS - 1:
            continue
        turns = float(np.mean(np.sign(nz[1:]) != np.sign(nz[:-1])))
        level = float(np.median(np.abs(v)))
        if level <= 0:
            continue
        step = float(np.median(np.abs(d))) / level
        # (against the run's own range too: a converged val loss jittering 0.025-0.039 after falling from 0.7 moves
        # a third of its level but a fiftieth of its range)
        of_range = float(np.median(np.abs(d))) / max(float(np.ptp(v)), 1e-12)
        # the looser range test only where the series holds no trend (its first and last thirds' medians within a quarter of
        # its range: VAL_UNSTABLE_TREND): swings around a level, not the wobble of a curve still improving
        third = max(1, len(v) // 3)
        trend = abs(float(np.median(v[-third:])) - float(np.median(v[:third]))) / max(float(np.ptp(v)), 1e-12)
        need = VAL_UNSTABLE_RANGE if trend < VAL_UNSTABLE_TREND else VAL_UNSTABLE_STEP
        if turns >= VAL_UNSTABLE_TURNS and step >= VAL_UNSTABLE_STEP and of_range >= need \
                and (best is None or step > best[0]):
            best = (step, turns, s)
    if best is None:
        return []
    step, turns, s = best
    fi = np.flatnonzero(np.isfinite(s.values))
    lo, hi = int(fi[int(np.argmin(s.values[fi]))]), int(fi[int(np.argmax(s.values[fi]))])
    txt = (f"{s.name} swings from one evaluation to the next by {step:.0%} of its level ({_fmt(float(s.values[lo]))} to "
           f"{_fmt(float(s.values[hi]))}; {turns:.0%} of its moves turn back): the weights change too much between evaluations")
    return [Signal("val_unstable", min(1.0, 0.5 + step), txt,
                   [q.ev(s, lo, f"{s.name} at its lowest"), q.ev(s, hi, f"{s.name} at its highest")],
                   {"metric": s.name, "step": step, "turns": turns})]


# held_out_at_chance: a training loss whose last fifth sits at most this share of its first fifth
TRAIN_LEARNED_SHARE = 0.5
# ... and, where the class count is unknown, a separate evaluation at most this share of the accuracy that
# validation reached during training (itself at least APART_TRAINED)
APART_SHARE = 0.4
APART_TRAINED = 0.8
# ... or, with K classes known, a training loss that began within LOSS_K_START_TOL of ln K and ended this many nats
# under it, with held-out accuracy's last fifth at most VAL_END_CHANCE / K
BELOW_CHANCE_NATS = 0.1
LOSS_K_START_TOL = 0.05
VAL_END_CHANCE = 1.2


def _best_accuracy(s: Series) -> float:
    v = _unit_values(s.values)
    return float(np.max(v)) if len(v) else 0.0


def _unit_values(values: np.ndarray) -> np.ndarray:
    """The finite values of an accuracy-like series on a 0-1 scale (_percent_scale)."""
    v = values[np.isfinite(values)]
    return v / _percent_scale(v) if len(v) else v


def _held_out_at_chance(run: Run, q: Quoter) -> list[Signal]:
    """held_out_at_chance: every validation / test accuracy printed (one is enough: a post's closing
    "Accuracy of the network on the 10000 test images: 11 %") at the chance level 1/K (at most
    VAL_CHANCE_BAND / K) while the training loss fell to TRAIN_LEARNED_SHARE of its start or less (and
    below ln K where K is configured). What the model learned does not reach the held-out data: another
    preprocessing or model mode there, other labels, another checkpoint. K: _accuracy_classes, as in
    _val_at_chance (which reads the longer runs that print train accuracy too). Also a separate
    evaluation (a job that loads the saved model: at most three points in a file of its own) at chance
    beside the training-time validation, or, K unknown, at most APART_SHARE of what that validation reached."""
    vacc, loss = run.metric("val_accuracy"), run.metric("loss")
    if vacc is None or loss is None or vacc is loss:
        return []
    lv = ordered(loss).values
    lv = lv[np.isfinite(lv)]
    if len(lv) < 4:
        return []
    m = max(1, len(lv) // 5)
    start, end = float(np.median(lv[:m])), float(np.median(lv[-m:]))
    halved = 0 <= end <= TRAIN_LEARNED_SHARE * start
    if not halved and not end < start:
        return []
    # the primary held-out series, then a separate evaluation's few points in another file (a job that
    # loads the saved model and prints one test accuracy) beside the training-time validation
    for va in [vacc] + [x for x in run.series if x.name == "val_accuracy" and x.source not in (vacc.source, loss.source)
                        and len(x) <= 3 and x.rank in (None, 0)]:
        v = _unit_values(va.values)
        if not len(v):
            continue
        k = _accuracy_classes(run, v)
        vi = np.flatnonzero(np.isfinite(va.values))
        # (or, K known, a loss that began at ln K and ended BELOW_CHANCE_NATS under it, with validation at chance
        # to the end: an unpaired or memorised training set; a K-way model learning at a low lr is above chance
        # on held-out data by then)
        below = k is not None and start >= math.log(k) - LOSS_K_START_TOL and end <= math.log(k) - BELOW_CHANCE_NATS \
            and float(np.median(v[-max(1, len(v) // 5):])) <= VAL_END_CHANCE / k and len(v) >= 3
        if k and float(np.max(v)) <= VAL_CHANCE_BAND / k and (halved or below) \
                and not (_num_classes(run) and end >= math.log(k)):
            txt = (f"held-out accuracy {float(v[-1]):.3f} is chance (1/{k} = {1 / k:.3f}) while the training loss fell "
                   f"from {_fmt(start)} to {_fmt(end)}{'' if halved else f' (below ln {k} = {math.log(k):.3f})'}: what "
                   "training learned does not reach the held-out data")
        elif halved and va is not vacc and not k and float(np.max(v)) <= APART_SHARE * (best := _best_accuracy(vacc)) \
                and best >= APART_TRAINED:
            txt = (f"held-out accuracy {float(v[-1]):.3f} in {va.source} is far below the {best:.3f} that validation "
                   f"reached during training, while the training loss fell from {_fmt(start)} to {_fmt(end)}: "
                   "what training learned does not reach the evaluation")
        else:
            continue
        if va is not vacc and k:
            txt += f" ({va.source} evaluates apart from training, whose own validation reached {_best_accuracy(vacc):.3f})"
        held = q.ev(va, int(vi[-1]), "held-out accuracy")
        return [Signal("held_out_at_chance", 0.7, txt, [held, q.ev(loss, len(loss) - 1, "training loss at the end")],
                       {"classes": k, "val_max": float(np.max(v)), "train_start": start, "train_end": end})] \
            + (_val_kept_pace(run, q, held, float(v[-1])) if va is not vacc else [])
    return []


# held_out_below_val: the training-time validation no more than this far below training accuracy (median over
# the later evaluations), beside a separate evaluation far below both
KEPT_PACE = 0.02


def _val_kept_pace(run: Run, q: Quoter, held: Evidence, test: float) -> list[Signal]:
    """held_out_below_val: a separate evaluation far below (held_out_at_chance's) while the training-time
    validation kept pace with training accuracy to the end. A validation split that scores like the training
    set while fresh data does not shares what training saw (clips of one recording, frames of one video,
    rows of one patient on both sides of a random split); a split that only differs from training would
    have fallen behind it as the model fitted."""
    acc, vacc = run.metric("accuracy"), run.metric("val_accuracy")
    al = _aligned(acc, vacc)
    if al is None or vacc is None:
        return []
    idx, t, v = al
    scale = _percent_scale(t, v)
    gap = float(np.median(v - t)) / scale
    if gap < -KEPT_PACE:
        return []
    va = ordered(vacc)
    return [Signal("held_out_below_val", 0.6, f"validation kept pace with training (validation accuracy "
                   f"{float(np.median(v)) / scale:.3f} vs train {float(np.median(t)) / scale:.3f} over the later evaluations) "
                   f"while the separate evaluation scores {test:.3f}: the validation split shares what training saw",
                   [q.ev(va, int(idx[-1]), "val accuracy late"), held], {"gap": gap, "held_out": test})]


def _epoch_train_level(tr: Series, steps: np.ndarray) -> np.ndarray:
    """Train metric per evaluation step: the median of the finite train points since the previous
    evaluation (the last three before it when there are none). Whole-array work: the windows' points
    gathered once and sorted by (window, value), each median read at its window's middle (a run
    evaluated 100,000 times took 6 s as one np.median per window)."""
    ts, tv = tr.steps, tr.values             # in step order (ordered)
    m = len(steps)
    hi = np.searchsorted(ts, steps, side="right")
    lo = np.r_[0, hi[:-1]]                     # points after the previous evaluation
    fin = np.isfinite(tv)
    cf = np.concatenate(([0], np.cumsum(fin)))
    lo = np.where((lo < hi) & (cf[hi] > cf[lo]), lo, np.maximum(0, hi - 3))
    n = hi - lo
    idx = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n) + np.repeat(lo, n)
    win = np.repeat(np.arange(m), n)
    keep = fin[idx]
    vals, win = tv[idx[keep]], win[keep]
    order = np.lexsort((vals, win))
    vals = vals[order]
    cnt = np.bincount(win, minlength=m)
    start = np.cumsum(cnt) - cnt
    out = np.full(m, np.nan)
    has = cnt > 0
    a = start[has] + (cnt[has] - 1) // 2       # the lower middle; the upper one for an even count
    b = start[has] + cnt[has] // 2
    with np.errstate(over="ignore"):          # (1e308 + 1e308 for an odd count, where it is not taken)
        out[has] = np.where(a == b, vals[a], (vals[a] + vals[b]) / 2)    # np.median's mean of the two middle ones
    return out


def _aligned(tr: Series | None, va: Series | None, early: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(val index, train level, val value) over the later half of the evaluations (>= 2), or with `early` over
    the first half (its first evaluation left out: a training mean taken while the first epoch still learned),
    when the two series share a step axis, or were printed without steps in one text log (a Trainer's dict
    lines): there the lines' order is the time axis."""
    if tr is None or va is None or tr is va or len(tr) < 3 or len(va) < 2:
        return None
    tr, va = _on_train_axis(ordered(tr), ordered(va))
    if va.step_is_index or tr.step_is_index:
        return None
    vi = np.flatnonzero(np.isfinite(va.values))
    if len(vi) < 2 or va.steps[vi[-1]] < tr.steps[0]:
        return None
    t = _epoch_train_level(tr, va.steps[vi])
    part = slice(1, max(2, len(vi) // 2)) if early else slice(len(vi) // 2, None)
    t, v, idx = t[part], va.values[vi][part], vi[part]
    ok = np.isfinite(t)
    if ok.sum() < 1:
        return None
    return idx[ok], t[ok], v[ok]


# Where a run logs no accuracy, its held-out ROC AUC is read for near perfect as an accuracy would be (1.0 perfect).
_AUC_NAMES = ("val_auc", "val_roc_auc", "val_auroc")


def _val_vs_train(run: Run, q: Quoter, regularised: Callable[[], tuple[str, Evidence] | None]) -> list[Signal]:
    """val_above_train (validation better than training late in the run) and val_near_perfect; `regularised`:
    _regularised_at of the run, read on demand."""
    out: list[Signal] = []
    loss, val = run.metric("loss"), run.metric("val_loss")
    acc, vacc = run.metric("accuracy"), run.metric("val_accuracy")
    chance = _chance_level(run)
    best: tuple[float, str, list[Evidence], dict] | None = None
    al = _aligned(acc, vacc)
    if al is not None:
        idx, t, v = al
        scale = _percent_scale(t, v)
        gap = float(np.median(v - t)) / scale
        if gap >= VAL_ACC_ABOVE:
            va = ordered(vacc)
            txt = (f"validation accuracy {float(np.median(v)) / scale:.3f} vs train accuracy {float(np.median(t)) / scale:.3f} "
                   f"over the later evaluations (+{gap:.2f})")
            best = (min(1.0, 0.4 + 2 * gap), txt, [q.ev(va, int(idx[-1]), "val accuracy late")], {"by": "accuracy", "gap": gap})
    al = _aligned(loss, val)
    if al is not None:
        idx, t, v = al
        r = float(np.median(t / np.maximum(v, 1e-12)))
        if r >= VAL_LOSS_BELOW_X and float(np.median(v)) > 0:
            strength = min(0.7, 0.3 + 0.8 * (r - VAL_LOSS_BELOW_X))
            if best is None or strength > best[0]:
                va = ordered(val)
                txt = (f"val_loss {_fmt(float(np.median(v)))} is {r:.1f}x below the train loss "
                       f"{_fmt(float(np.median(t)))} over the later evaluations")
                best = (strength, txt, [q.ev(va, int(idx[-1]), "val_loss late")], {"by": "loss", "ratio": r})
    if best is not None:
        if (at := regularised()) is not None:
            # dropout, label smoothing or mixed targets score the training batches below what the model does at
            # evaluation: validation ahead of training is what they give, weak evidence of anything else
            best = (min(best[0], REGULARISED_CAP), f"{best[1]}; the run trains with {at[0]}, which alone puts training "
                    "behind validation", best[2], {**best[3], "regularised": at[0]})
            txt = (f"the run trains with {at[0]}: training is scored below evaluation by design, so validation ahead "
                   "of it is expected")
            out.append(Signal("train_regularised", 0.6, txt, [at[1]], {"what": at[0]}))
        out.append(Signal("val_above_train", best[0], best[1], best[2], best[3]))

    # Near perfect on validation: accuracy ~1 (or, where no accuracy is logged, a ROC AUC ~1: a churn or CTR model's
    # only score) or a loss near 0 (how close the labels are to the inputs).
    score, by = (vacc, "accuracy") if vacc is not None else (next(
        (s for n in _AUC_NAMES if (s := run.metric(n)) is not None), None), "ROC AUC")
    if score is not None and len(score) >= 2:
        va = ordered(score)
        vi = np.flatnonzero(np.isfinite(va.values))
        if len(vi):
            vals = va.values[vi]
            vals = vals / _percent_scale(vals)
            hit = np.flatnonzero(vals >= NEAR_PERFECT_ACC)
            if len(hit) and float(np.median(vals[-max(1, len(vals) // 3):])) >= NEAR_PERFECT_ACC:
                j = int(vi[hit[0]])
                early = hit[0] <= max(0, len(vals) // 3 - 1)
                txt = (f"validation {by} reaches {vals[hit[0]]:.3f} at step {int(va.steps[j])}"
                       + (" (from the first evaluations)" if early else "") + f" and ends at {vals[-1]:.3f}")
                out.append(Signal("val_near_perfect", 0.8 if early else 0.6, txt, [q.ev(va, j, txt)],
                                  {"step": int(va.steps[j]), "early": bool(early), "by": "accuracy" if vacc is not None else "auc"}))
                return out
    # ... or an image restoration's PSNR of 50 dB or more at its first evaluation (errors under one grey level of 255:
    # outputs that equal their targets before the model learned anything, inputs that are the targets)
    # (the first evaluation early in the run, not a resumed run's; the last third still that high; +inf is an output
    # equal to its target)
    ps = next((x for n in ("val_psnr", "psnr") if (x := run.metric(n)) is not None and len(x) >= 2), None)
    if ps is not None:
        pv = ordered(ps)
        pi = np.flatnonzero(~np.isnan(pv.values) & (pv.values != -np.inf))
        pvals = pv.values[pi]
        if len(pi) >= 2 and float(pvals[0]) >= PSNR_NEAR_PERFECT \
                and float(np.median(pvals[-max(1, len(pvals) // 3):])) >= PSNR_NEAR_PERFECT \
                and float(pv.steps[pi[0]]) <= PSNR_EARLY * max(float(pv.steps[pi[-1]]), 1.0):
            j = int(pi[0])
            txt = (f"{pv.raw_name or pv.name} is {_fmt(float(pv.values[j]))} dB at its first evaluation (step "
                   f"{int(pv.steps[j])}) and ends at {_fmt(float(pv.values[pi[-1]]))} dB: outputs that match their "
                   "targets before training could make them")
            out.append(Signal("val_near_perfect", 0.8, txt, [q.ev(pv, j, txt)],
                              {"step": int(pv.steps[j]), "early": True, "by": "psnr"}))
            return out
    if val is not None and val is not loss and len(val) >= 2 and loss is not None and len(loss) >= 3:
        va = ordered(val)
        vi = np.flatnonzero(np.isfinite(va.values))
        ref = chance if chance is not None else float(np.nanmax(ordered(loss).values[:3]))
        # a start above any standard init's loss (a broken init, raw inputs) is no scale for "near 0"
        if len(vi) and ref and math.isfinite(ref) and 0 < ref <= INIT_LOSS_ABSOLUTE:
            vals = va.values[vi]
            tail = float(np.median(vals[-max(1, len(vals) // 3):]))
            if tail < NEAR_ZERO_LOSS_SHARE * ref and tail >= 0:
                hit = np.flatnonzero(vals < NEAR_ZERO_LOSS_SHARE * ref)
                j = int(vi[hit[0]])
                early = hit[0] <= max(0, len(vals) // 3 - 1)
                txt = (f"val_loss falls to {_fmt(float(vals[hit[0]]))} by step {int(va.steps[j])}, under "
                       f"{NEAR_ZERO_LOSS_SHARE * 100:g}% of " + (f"chance (ln K = {chance:.3f})" if chance else "its start"))
                out.append(Signal("val_near_perfect", 0.8 if early else 0.6, txt, [q.ev(va, j, txt)],
                                  {"step": int(va.steps[j]), "early": bool(early), "by": "loss"}))
    # A training loss of ~1e-6 within the first tenth of the run: too good to be true. Near 0 in size: a loss
    # printed at -2475 (binary cross-entropy on 0-255 masks; a flow's negative log-likelihood) is far from it.
    if loss is not None and len(loss) >= 10 and not any(x.kind == "val_near_perfect" for x in out):
        tr = ordered(loss)
        v = np.abs(tr.values)
        n10 = max(2, len(v) // 10)
        head = v[:n10][np.isfinite(v[:n10])]
        if len(head) and float(np.min(head)) < FLOOR_LOSS and float(np.nanmedian(v[n10:])) < 1e-4:
            j = int(np.nanargmin(v[:n10]))
            txt = f"{tr.name} is {_fmt(float(tr.values[j]))} already at step {int(tr.steps[j])} and stays near 0"
            out.append(Signal("val_near_perfect", 0.7, txt, [q.ev(tr, j, txt)],
                              {"step": int(tr.steps[j]), "early": True, "by": "train_loss"}))
    return out


# A train accuracy whose last third sits this far (or the flat band, if wider) below its best earlier
# level falls.
ACC_FALL_FROM_BEST = 0.1
# divergence_train_unfitted: a training set this far from fitted (train accuracy at the end, 0-1)
TRAIN_UNFITTED = 0.9
# ... beside which train_val_divergence is held to this strength
UNFITTED_DIVERGENCE = 0.25
# _loss_memorized: train-loss points at least, second-half fall over first-half fall per point, and the
# second half's drop as a share of the midpoint value
MEMO_LOSS_POINTS = 6
MEMO_LOSS_ACCEL = 1.5
MEMO_LOSS_DROP = 0.3


# Scores that say a loss is a classifier's (a cross-entropy, CTC's): an accuracy, an error rate, a character or word
# error rate, precision / recall / F1
_CLASSIFIER_SCORES = re.compile(r"(?:^|_)(?:acc\w*|cer|wer|f1|error_rate|top\d\w*|precision|recall|norm_ed)$")


def _loss_negative(run: Run, s: Series, q: Quoter) -> list[Signal]:
    """`loss_negative`: a classifier's loss (an accuracy or an error rate logged beside it, or a cross-entropy / CTC /
    NLL name) that starts above 0 and later goes below it. A cross-entropy, CTC or NLL loss of probabilities is never
    negative: targets outside the classes (a label equal to CTC's blank, BCE targets above 1) or outputs that are no
    log-probabilities make it so. Not where rewards are logged, nor for a GAN's, a density's or a similarity's
    losses (no classifier score beside them)."""
    v = s.values[np.isfinite(s.values)]
    if len(v) < 3 or _SUMMED in s.raw_name or float(v[0]) <= LOSS_NEGATIVE_START or float(np.min(v)) >= -LOSS_NEGATIVE_BELOW:
        return []
    names = run.metric_names()
    if any(_REWARD.search(n) for n in names):
        return []
    if not (_CE_NAME.search(s.raw_name) or re.search(r"ctc|nll|cross", s.raw_name, re.I)
            or any(_CLASSIFIER_SCORES.search(n.removeprefix("val_")) for n in names)):
        return []
    fi = np.flatnonzero(np.isfinite(s.values))
    k = int(fi[int(np.argmax(v < -LOSS_NEGATIVE_BELOW))])
    txt = (f"{s.name} goes below 0 ({_fmt(float(s.values[k]))} at step {int(s.steps[k])}, from {_fmt(float(v[0]))}): a "
           "classifier's cross-entropy / CTC / NLL is never negative; targets outside the classes or outputs that are no "
           "log-probabilities make it so")
    return [Signal("loss_negative", 0.8, txt, [q.ev(s, int(fi[0]), f"{s.name} at the start"), q.ev(s, k, txt)],
                   {"step": int(s.steps[k]), "min": float(np.min(v))})]


def _accuracy_signals(run: Run, q: Quoter, regularised: Callable[[], tuple[str, Evidence] | None]) -> list[Signal]:
    """train_acc_capped: train accuracy flat well below 100 % (and well above chance) through the
    last third, level with the middle third, with the train loss flooring far from 0. Or
    train_acc_falls: the last third's median below the middle third's by more than the flat band
    (label noise caps a fit and overfitting keeps raising it; neither lowers it)."""
    got = _train_accuracy(run, 6)
    if got is None:
        return []
    a, fi, v = got
    n = len(v)
    last3 = float(np.median(v[-max(2, n // 3):]))
    mid3 = float(np.median(v[n // 3: max(n // 3 + 1, 2 * n // 3)]))
    k = _num_classes(run)
    floor_acc = (1.0 / k if k else 0.25) + 0.15
    # per-batch accuracy is noisy: "flat" allows three standard errors of a third's median
    sigma = 1.4826 * float(np.median(np.abs(np.diff(v) - np.median(np.diff(v))))) / math.sqrt(2)
    tol = max(TRAIN_ACC_FLAT, 3 * 1.2533 * sigma / math.sqrt(max(2, n // 3)))
    # its best level before the last third: the highest median of blocks of 3+ points (a thirtieth of
    # them: one lucky batch is no level, and a long per-step series costs one partition)
    head = v[: n - max(2, n // 3)]
    b = max(3, len(head) // 30)
    if len(head) >= b:
        meds = np.median(head[: len(head) // b * b].reshape(-1, b), axis=1)
        best_i, best = int(np.argmax(meds)) * b + b // 2, float(np.max(meds))
        # the highest of m block medians of noise alone sits ~sqrt(2 ln m) standard errors up
        by_chance = 1.2533 * sigma / math.sqrt(b) * math.sqrt(2 * math.log(max(2, len(meds))))
    else:
        best_i, best, by_chance = 0, mid3, 0.0
    if (mid3 - last3 > tol or best - last3 > max(tol, ACC_FALL_FROM_BEST, by_chance)) and max(mid3, best) >= floor_acc:
        txt = (f"train accuracy falls from {best:.3f} (step {int(a.steps[fi[best_i]])}) to {last3:.3f} in the last third "
               "of the run: training undoes what it learned (steps too large to settle, or an lr that grows)")
        return [Signal("train_acc_falls", 0.6, txt, [q.ev(a, int(fi[best_i]), "train accuracy at its best"),
                                                     q.ev(a, int(fi[-1]), "train accuracy at the end")],
                       {"middle": mid3, "best": best, "level": last3})]
    if not (floor_acc <= last3 <= TRAIN_ACC_CAP) or last3 - mid3 > tol:
        return []                         # still climbing: not a cap
    loss = run.metric("loss")
    if loss is not None and len(loss) >= 6:
        lv = ordered(loss).values
        lv = lv[np.isfinite(lv)]
        if len(lv) and float(np.median(lv[-max(2, len(lv) // 3):])) < 0.1:
            return []                     # the loss still reaches ~0: not a capped fit
    strength = 0.6
    txt = f"train accuracy stays at {last3:.3f} through the last third of the run (it was {mid3:.3f} in the middle third)"
    vacc = run.metric("val_accuracy")
    if vacc is not None and len(vacc):
        vv = vacc.values[np.isfinite(vacc.values)]
        vv = vv / _percent_scale(vv) if len(vv) else vv
        if len(vv) and float(np.median(vv[-max(1, len(vv) // 3):])) >= last3 + VAL_ACC_ABOVE:
            strength = 0.85
            txt += f"; validation accuracy is higher ({float(np.median(vv[-max(1, len(vv) // 3):])):.3f})"
    if (at := regularised()) is not None:
        strength = min(strength, REGULARISED_CAP)
        txt += f"; the run trains with {at[0]}, which caps the training score by itself"
    return [Signal("train_acc_capped", strength, txt, [q.ev(a, int(fi[-1]), "train accuracy at the end")],
                   {"level": last3, "middle": mid3})]


# Validation accuracy above training accuracy by this much (median) over the first third of the
# evaluations, its first left out, before training overtakes it: training scored against wrong labels.
VAL_ABOVE_EARLY = 0.08


# Training loss still this share of chance (ln K) or more, over the first half of the evaluations, while
# validation accuracy is this far above chance (1/K): _train_at_chance_val_learned.
TRAIN_NEAR_CHANCE = 0.75
# ... and not above it: a training loss worse than a uniform guess is confident wrong answers (an lr that
# throws the weights about, with validation taken between the throws), which noisy labels do not give
TRAIN_ABOVE_CHANCE = 1.05
VAL_LEARNED_ABOVE_CHANCE = 0.4
# Training-time mixing that keeps the training loss high by design (soft or mixed targets).
_MIXED_TARGETS = re.compile(r"(?i)(?<![a-z])(?:mix[_\- ]?up|cut[_\- ]?mix|(?:label[_\- ]?)?smoothing|manifold[_\- ]?mix)"
                            # ... not where a config sets it off (`label_smoothing: 0.0`, `mixup=False`, `cutmix: null`)
                            r"(?![\w\-]*[\"']?\s*[:=]\s*[\"']?(?:0(?:\.0+)?(?![\w.])|(?:false|none|null|off|no)\b))")


# Dropout from this rate on lowers what a model scores on its own training batches well below its evaluation score.
DROPOUT_HEAVY = 0.3
# ... so a validation ahead of training, or a training accuracy flat below 100 %, weighs at most this beside it.
REGULARISED_CAP = 0.3


def _regularised_at(run: Run) -> tuple[str, Evidence] | None:
    """What in the run's config or code scores training below evaluation by design, and where: mixed or smoothed
    targets switched on (_TRAIN_MIXING_SET), or dropout of DROPOUT_HEAVY or more; None where nothing does."""
    drop = [f for f in run.facts if f.name == "dropout" and isinstance(f.value, (int, float))
            and not isinstance(f.value, bool)]
    if drop and (f := max(drop, key=lambda x: x.value)).value >= DROPOUT_HEAVY:
        why = f"dropout {f.value:g}"
        return why, Evidence(text=why, source=f.source, line=f.line, quote=f.quote)
    for t in run.texts:
        if t.kind in ("config", "code") and (m := _TRAIN_MIXING_SET.search(t.text[:200_000])) is not None:
            why, line = m.group(1).replace("_", " ").lower(), t.line_of(m.start())
            return why, Evidence(text=why, source=t.path, line=line, quote=t.line(line).strip()[:300])
    return None


# Label smoothing, mixup or cutmix set to a value that turns it on (`label_smoothing: 0.1`,
# `CrossEntropyLoss(label_smoothing=0.1)`, `mixup_alpha: 0.2`, `cutmix=True`), on a line that is no comment: not a
# default of 0 (`default=0.0`), nor a word in a note ("# try mixup later"), nor tqdm's `smoothing=0.1`
_TRAIN_MIXING_SET = re.compile(r"(?im)^(?![ \t]*#)[^\n#]*?(?<![a-z])(label[_\- ]?smoothing|mix[_\- ]?up|cut[_\- ]?mix)(?:_?[a-z]{0,12})?"
                               r"[\"']?[ \t]*[:=][ \t]*[\"']?(?:0*\.\d*[1-9]|[1-9]\d*(?:\.\d+)?|true|on|yes)\b")


def _train_at_chance_val_learned(run: Run, q: Quoter) -> list[Signal]:
    """train_at_chance_val_learned: over the first half of the evaluations the training loss stays near the
    chance level ln K (TRAIN_NEAR_CHANCE to TRAIN_ABOVE_CHANCE of it) while validation accuracy is already well above 1/K
    (VAL_LEARNED_ABOVE_CHANCE). A model that classifies held-out data that well fits the training data as well,
    unless the training labels disagree with the inputs (a share of them wrong) or training mixes its targets
    (mixup, cutmix, label smoothing: left out when the config or code names one). What a table with the
    training loss and only validation metrics shows of noisy labels (fastai's `train_loss valid_loss accuracy`)."""
    k, loss, vacc = _num_classes(run), run.metric("loss"), run.metric("val_accuracy")
    if not k or k < 2 or vacc is None:
        return []
    al = _aligned(loss, vacc, early=True)
    if al is None or len(al[0]) < 3 or any(_MIXED_TARGETS.search(t.text[:200_000]) for t in run.texts):
        return []
    idx, t, v = al
    v = v / _percent_scale(v)
    chance = math.log(k)
    tl, va = float(np.median(t)), float(np.median(v))
    if not TRAIN_NEAR_CHANCE * chance <= tl <= TRAIN_ABOVE_CHANCE * chance or va < 1.0 / k + VAL_LEARNED_ABOVE_CHANCE:
        return []
    # ... and, where a validation loss is logged, it is low too: a majority class (imbalanced data, a weighted
    # or Dice loss) scores that accuracy with a validation loss near chance, clean labels do not
    vl = _aligned(loss, run.metric("val_loss"), early=True)
    if vl is not None and float(np.median(vl[2])) > TRAIN_NEAR_CHANCE * chance:
        return []
    s = ordered(vacc)
    txt = (f"training loss {_fmt(tl)} ({tl / chance * 100:.0f}% of chance ln K = {chance:.3f}) while validation "
           f"accuracy is {va:.3f} (chance {1 / k:.2f}) over the first half of the evaluations")
    return [Signal("train_at_chance_val_learned", 0.7, txt, [q.ev(s, int(idx[0]), txt)],
                   {"train_loss": tl, "val_accuracy": va, "classes": k})]


# A training loss that climbed to at least this share of ln K above it, over the later half of the run
# (_loss_above_chance).
LOSS_ABOVE_CHANCE = 1.2


def _loss_above_chance(run: Run, q: Quoter) -> list[Signal]:
    """loss_above_chance: the training loss rose from its first logged point to LOSS_ABOVE_CHANCE x ln K or more and
    stays there over the later half of the run (median), while the model does classify (an accuracy, train or
    validation, 0.2 or more above 1/K). Worse than a uniform guess with the classes learned is confident wrong
    answers, batch after batch: weights an update throws about (an lr far too large for the model, or gradients
    that blow up). Noisy labels keep the loss at or below ln K; a broken start (a bad init, raw inputs) is high
    first and falls, not a rise."""
    k = _num_classes(run)
    loss = run.metric("loss")
    if not k or k < 2 or loss is None or len(loss) < 6:
        return []
    cur = ordered(loss)
    v = cur.values[np.isfinite(cur.values)]
    if len(v) < 6:
        return []
    chance = math.log(k)
    late = float(np.median(v[len(v) // 2:]))
    if late < LOSS_ABOVE_CHANCE * chance or late <= float(v[0]):
        return []
    accs = [a for a in (run.metric("accuracy"), run.metric("val_accuracy")) if a is not None and len(a) >= 3]
    learned = [float(np.nanmedian(a.values / _percent_scale(a.values))) for a in accs]
    if not learned or max(learned) < 1.0 / k + 0.2:
        return []
    i = len(cur) - 1
    txt = (f"training loss rises from {_fmt(float(v[0]))} to a median {_fmt(late)} over the later half, {late / chance:.1f}x "
           f"the chance level ln K = {chance:.3f}, while accuracy is {max(learned):.2f} (chance {1 / k:.2f})")
    return [Signal("loss_above_chance", 0.7, txt, [q.ev(cur, 0, "loss at the first point"), q.ev(cur, i, txt)],
                   {"level": late, "chance": chance})]


def _val_above_train_early(run: Run, q: Quoter) -> list[Signal]:
    """val_above_train_early: validation accuracy sits above training accuracy by VAL_ABOVE_EARLY or more
    (median over the first third of the evaluations, the first one left out: a training mean taken
    while the first epoch still learned), and training overtakes validation by the end. Training scored
    against noisy labels trails a validation set scored against clean ones until the model memorises
    the wrong labels; clean overfitting has training ahead of validation from its first epochs."""
    levels = _accuracy_levels(run, 6)
    if levels is None:
        return []
    va, vi, t, v = levels
    third = max(2, len(v) // 3)
    early = float(np.median((v - t)[1:third + 1]))
    late = float(np.median((v - t)[-max(1, len(v) // 5):]))
    if early < VAL_ABOVE_EARLY or late >= 0:
        return []
    j = int(vi[1])
    txt = (f"validation accuracy is {early:+.2f} above training accuracy over the first third of the "
           f"evaluations, and {-late:.2f} below it at the end: training trailed a held-out set, then overtook it")
    return [Signal("val_above_train_early", min(1.0, 0.5 + 2.5 * (early - VAL_ABOVE_EARLY)), txt,
                   [q.ev(va, j, "val accuracy early"), q.ev(va, int(vi[-1]), "val accuracy at the end")],
                   {"early": early, "late": late})]


def _memorized_after_plateau(run: Run, q: Quoter) -> list[Signal]:
    """memorized_after_plateau: train accuracy holds a level well below 100 % for a long stretch
    (MEMO_PLATEAU_SHARE of the run or more, within TRAIN_ACC_FLAT), then climbs again by MEMO_CLIMB or
    more while validation accuracy falls from its best. What training on noisy labels does: the clean
    share is learned first, the wrong labels are memorised later, and memorising them costs validation.
    Overfitting on clean labels climbs without the long stop; a step-decayed lr makes the second rise
    too, but validation improves there (and a logged lr drop at the climb's start rules it out)."""
    pair = _accuracies(run, 10, 5)
    if pair is None:
        return []
    a, va = pair
    fi = np.flatnonzero(np.isfinite(a.values))
    if len(fi) < 10:
        return []
    v = a.values[fi] / _percent_scale(a.values[fi])
    if len(v) > MEMO_POINTS:
        # block means (a per-step accuracy's level; the window test below costs n * w): each block
        # stands at its last point
        b = int(math.ceil(len(v) / MEMO_POINTS))
        m = len(v) // b
        v, fi = v[: m * b].reshape(m, b).mean(axis=1), fi[b - 1: m * b: b]
    n = len(v)
    w = max(3, int(math.ceil(MEMO_PLATEAU_SHARE * n)))
    # the latest flat stretch: windows of w points whose range is within TRAIN_ACC_FLAT
    win = np.lib.stride_tricks.sliding_window_view(v, w)
    flat = np.flatnonzero(win.max(1) - win.min(1) <= TRAIN_ACC_FLAT)
    k = _num_classes(run)
    floor_acc = (1.0 / k if k else 0.25) + 0.15
    flat = flat[(win[flat].mean(1) >= floor_acc) & (win[flat].mean(1) <= MEMO_PLATEAU_MAX)]
    if not len(flat):
        return []
    end = int(flat[-1]) + w - 1                     # the plateau's last point
    level = float(np.median(v[flat[-1]:end + 1]))
    if end >= n - 2 or float(np.max(v[end + 1:])) < level + MEMO_CLIMB or float(v[-1]) < level + MEMO_CLIMB / 2:
        return []
    climb_step = int(a.steps[fi[end]])
    vf = np.flatnonzero(np.isfinite(va.values))
    vv = va.values[vf] / _percent_scale(va.values[vf])
    vs = va.steps[vf]
    before, after = vv[vs <= climb_step], vv[vs > climb_step]
    if not len(before) or len(after) < 2:
        return []
    best, last = float(np.max(before)), float(np.median(after[-max(1, len(after) // 3):]))
    if best - last < MEMO_VAL_DROP:
        return []
    lr = run.metric("lr")
    if lr is not None and len(lr) >= 3:
        lo = ordered(lr)
        near = np.abs(lo.steps - climb_step) <= max(1, int(np.median(np.diff(a.steps[fi]))) * 2)
        prev = lo.values[lo.steps < climb_step]
        if near.any() and len(prev) and float(np.nanmin(lo.values[near])) <= float(prev[-1]) / 2:
            return []
    txt = (f"train accuracy holds at {level:.3f} from step {int(a.steps[fi[flat[-1]]])} to {climb_step}, then climbs to "
           f"{float(v[-1]):.3f} while validation accuracy falls from {best:.3f} to {last:.3f} (memorising labels it could not learn)")
    return [Signal("memorized_after_plateau", 0.8, txt,
                   [q.ev(a, int(fi[end]), "train accuracy at the end of its plateau"),
                    q.ev(a, int(fi[-1]), "train accuracy at the end"),
                    q.ev(va, int(vf[int(np.argmax(before))]), "best validation accuracy")],
                   {"level": level, "step": climb_step, "val_best": best, "val_end": last})]


# ---------------------------------------------------------------- gradients

# grad_pinned: the last third of the grad norm (GRAD_PIN_POINTS points at least) moving by at most
# GRAD_PIN_SHARE of its level from one logged point to the next at GRAD_PIN_STILL of its steps or more,
# at GRAD_PIN_GROWTH times its early level or more. A gradient computed afresh for each batch varies by
# tens of percent from batch to batch; a sum that is never zeroed barely moves once the new batches'
# gradients are small beside it, and climbs in a stair where one batch's gradient is large (real runs
# without zero_grad: momentum SGD 2.8 -> 1539.5 +- 0.04 %; Adam 3 -> ~105, 0.5 % from point to
# point; logged every 5 steps: flat at 142, 296, then 1539, with a jump between).
GRAD_PIN_SHARE = 0.01
GRAD_PIN_STILL = 0.75
GRAD_PIN_POINTS = 10
GRAD_PIN_GROWTH = 3.0


def _grad_pinned(g: Series, fv: np.ndarray, fi: np.ndarray, early: float, q: Quoter) -> list[Signal]:
    """grad_pinned (see GRAD_PIN_SHARE): a grad norm that grew and then holds one value to four digits."""
    m = max(GRAD_PIN_POINTS, len(fv) // 3)
    if len(fv) < m + 5:
        return []
    tail = fv[-m:]
    if not float(np.min(tail)) > GRAD_PIN_GROWTH * abs(early):
        return []
    still = np.abs(np.diff(tail)) <= GRAD_PIN_SHARE * np.abs(tail[1:])
    if float(np.mean(still)) < GRAD_PIN_STILL:
        return []
    med = float(np.median(tail))
    mant = med / 10.0 ** math.floor(math.log10(med))
    if any(abs(mant - r) <= 0.002 * r for r in (1.0, 2.0, 2.5, 5.0, 10.0)):
        return []     # pinned at a round value (1.0, 0.5, 5): a clipping threshold, logged after the clip
    txt = (f"grad_norm holds near {_fmt(med)} over its last {m} logged steps, moving {GRAD_PIN_SHARE*100:.0f}% or less "
           f"from one to the next (from ~{_fmt(early)} early): a gradient computed afresh per batch varies far more; "
           "a sum never zeroed does not")
    return [Signal("grad_pinned", 0.8, txt, [q.ev(g, int(fi[len(fv) - m]), "grad_norm where it stops moving"),
                                             q.ev(g, int(fi[-1]), "grad_norm at the end")],
                   {"value": med, "points": m, "early": early})]


def _grad_nonfinite(g: Series, q: Quoter) -> list[Signal]:
    """nonfinite_grad at grad_norm's first NaN / inf, however short the series (two HF dict lines). From fewer
    than 3 points, SHORT_GRAD_NONFINITE: a lone NaN grad norm is also what an fp16 scaler's skipped first
    step prints (mmcv's first logged grad_norm: nan, then finite)."""
    bad = np.flatnonzero(~np.isfinite(g.values))
    if not len(bad):
        return []
    i = int(bad[0])
    txt = f"grad_norm first non-finite ({value_for_json(g.values[i])}) at step {int(g.steps[i])}"
    return [Signal("nonfinite_grad", 1.0 if len(g) >= 3 else SHORT_GRAD_NONFINITE, txt, [q.ev(g, i, txt)],
                   {"step": int(g.steps[i])})]


SHORT_GRAD_NONFINITE = 0.5


def _early_grad(v: np.ndarray) -> tuple[int, int, float]:
    """(first point, end of the window, median |grad_norm| over it) of a gradient norm's early level: its finite values
    past the first steps' init transients (a twentieth), over a tenth of the run (3 points at least)."""
    skip = max(1, len(v) // 20)
    end = skip + max(3, len(v) // 10)
    return skip, end, float(np.median(np.abs(v[skip:end])))


def _grad_signals(g: Series, q: Quoter) -> list[Signal]:
    out: list[Signal] = _grad_nonfinite(g, q)
    if len(g) < 3:
        return out      # (a NaN is read from one or two points; the shapes below need three)
    v = g.values
    fin = np.isfinite(v)
    bad = np.flatnonzero(~fin)
    fv = v[fin]
    fi = np.flatnonzero(fin)
    if 3 <= len(fv) < 8 and fv[0] > 0:
        # a short history (a post's few lines): the points themselves. 8.3, 66, 224, 531 and then
        # NaN grew; a noisy 1.2, 0.8, 1.5 did not: every point at least the one before, the last
        # SHORT_GRAD_GROWTH x the first
        r = float(fv[-1] / fv[0])
        if r >= SHORT_GRAD_GROWTH and bool(np.all(np.diff(fv) >= 0)):
            txt = f"grad_norm grows {r:.0f}x over {len(fv)} logged points (from {_fmt(float(fv[0]))} to {_fmt(float(fv[-1]))})"
            out.append(Signal("grad_growth", min(1.0, math.log10(r) / 3), txt,
                              [q.ev(g, int(fi[0]), "grad_norm at the first logged point"), q.ev(g, int(fi[-1]), txt)],
                              {"ratio": r, "short": True}))
    if len(fv) < 5:
        return out
    k = zero_from(fv)
    if k is not None:
        # it had gradient and then lost all of it for good: units died (or the graph was cut mid-run);
        # parameters that were never trainable have none from the first step
        txt = (f"grad_norm drops to exactly 0 at step {int(g.steps[fi[k]])} and stays 0 to the end "
               f"({len(fv) - k} of {len(fv)} logged steps; it was {_fmt(float(fv[k - 1]))} just before)")
        out.append(Signal("grad_died", 0.8, txt, [q.ev(g, int(fi[k - 1]), "grad_norm before it died"), q.ev(g, int(fi[k]), txt)],
                          {"step": int(g.steps[fi[k]]), "share": (len(fv) - k) / len(fv)}))
        return out
    zero = float(np.mean(np.abs(fv) < 1e-12))
    if zero > 0.8:
        txt = f"grad_norm is 0 at {zero*100:.0f}% of {len(fv)} logged steps"
        out.append(Signal("grad_zero", min(1.0, zero), txt, [q.ev(g, int(fi[0]), txt), q.ev(g, int(fi[-1]), "still 0 at the end")],
                          {"share": zero}))
        return out
    skip, _, early = _early_grad(fv)
    late = float(np.median(np.abs(fv[-max(3, len(fv) // 10):])))
    peak_k = int(np.argmax(fv))
    peak = float(fv[peak_k])
    ratio = late / (early + 1e-12)
    pre_nan_ratio = peak / (early + 1e-12)
    if (ratio > GRAD_GROWTH_RATIO or (len(bad) and pre_nan_ratio > GRAD_GROWTH_RATIO * 3)) and \
            not any(x.kind == "grad_growth" for x in out):
        r = max(ratio, pre_nan_ratio if len(bad) else 0)
        txt = f"grad_norm grows {r:.0f}x (from ~{_fmt(early)} to {_fmt(peak if len(bad) else late)})"
        out.append(Signal("grad_growth", min(1.0, math.log10(r) / 3), txt,
                          [q.ev(g, int(fi[skip]), "grad_norm early"), q.ev(g, int(fi[peak_k]), "grad_norm peak")],
                          {"ratio": r}))
    # Steady climb all run long (gradients accumulating): most smoothed steps go up.
    sm = _smooth(fv, max(3, len(fv) // 20))
    d = np.diff(sm)
    up = float(np.mean(d > 0)) if len(d) else 0.0
    if up > 0.75 and ratio > 3 and len(fv) >= STEADY_CLIMB_POINTS:
        txt = f"grad_norm climbs steadily ({up*100:.0f}% of steps up, {ratio:.1f}x from start to end)"
        out.append(Signal("grad_steady_climb", min(1.0, (up - 0.5) * 2) * min(1.0, math.log10(ratio) / 1.5), txt,
                          [q.ev(g, int(fi[skip]), "grad_norm early"), q.ev(g, int(fi[-1]), "grad_norm at the end")],
                          {"ratio": ratio, "monotonic_share": up}))
    out += _grad_pinned(g, fv, fi, early, q)
    first = float(np.median(np.abs(fv[:3])))
    if len(fv) >= 10 and not len(bad) and first >= GRAD_HUGE_START * late > 0:
        # the largest gradients come first and shrink by orders of magnitude: a scale the updates repair (raw
        # inputs, a broken init), the reverse of gradients that explode
        r = first / late
        txt = (f"grad_norm starts near {_fmt(first)} (its first three points) and falls {r:.0f}x to {_fmt(late)} at the "
               "end: the largest gradients came first")
        out.append(Signal("grad_huge_start_falls", min(1.0, math.log10(r) / 3), txt,
                          [q.ev(g, int(fi[0]), "grad_norm at the first logged point"), q.ev(g, int(fi[-1]), "grad_norm at the end")],
                          {"ratio": r}))
    idx, z, base = _spikes(fv)
    keep = idx >= _initial_transient(fv)
    idx, z, base = idx[keep], z[keep], base[keep]
    if len(idx):
        w = int(np.argmax(z))
        k = int(idx[w])
        rr = float(fv[k]) / (abs(float(base[w])) + 1e-12)
        txt = f"{len(idx)} grad_norm spike(s); worst {_fmt(float(fv[k]))} at step {int(g.steps[fi[k]])} ({rr:.1f}x the local median)"
        # (a gradient norm is noisy batch to batch: a blip under GRAD_SPIKE_FULL x its neighbours is a weak reading)
        weak = min(1.0, math.log10(max(rr, 1)) / math.log10(GRAD_SPIKE_FULL))
        out.append(Signal("grad_spike", min(1.0, 0.3 + 0.1 * len(idx) + 0.1 * math.log10(max(rr, 1))) * weak, txt,
                          [q.ev(g, int(fi[k]), txt)], {"count": int(len(idx)), "worst_step": int(g.steps[fi[k]]), "ratio": rr}))
    return out


_NUM = re.compile(r"\d+")
# grad_huge_start_falls: the first logged grad norms this many times the last tenth's
GRAD_HUGE_START = 100.0
# A gradient that "died": nonzero at first, then exactly 0 at the last DIED_MIN_POINTS or more points
# and at least the last DIED_MIN_SHARE of them.
DIED_MIN_POINTS = 2
DIED_MIN_SHARE = 0.25
# ... and, per layer, its typical nonzero value at least this share of the largest layer's
DIED_FADED = 1e-6


def zero_from(v: np.ndarray) -> int | None:
    """Index from which the finite values `v` are exactly 0 to the end, when they were not 0 before
    (a gradient that died); None when the last value is not 0, when every value is 0 (no gradient
    ever), or when the zero tail is too short to call."""
    nz = np.flatnonzero(v)     # exactly 0, as a dead unit's gradient is: 1e-13 is a vanished one
    if not len(nz) or nz[-1] == len(v) - 1:
        return None
    k = int(nz[-1]) + 1
    tail = len(v) - k
    return k if tail >= DIED_MIN_POINTS and tail >= DIED_MIN_SHARE * len(v) else None


def _layer_order(names: list[str]) -> list[str]:
    """Layer names in the model's order: by the numbers in them (`layer2` before `layer10`) within each
    family of names that differ only in their numbers (`conv1`..`conv3`, `fc1`, `fc2`), the families in
    the order their first member appears (a CSV's columns, a log's lines). Deterministic: numbers alone
    put conv1 and fc1 level, and the tie fell to a set's order."""
    first: dict[str, int] = {}
    for n in names:
        first.setdefault(_NUM.sub("#", n), len(first))
    return sorted(dict.fromkeys(names), key=lambda n: (first[_NUM.sub("#", n)],
                                                         tuple(int(x) for x in _NUM.findall(n)) or (10**9,)))


def _layer_signals(run: Run, q: Quoter) -> list[Signal]:
    """Per-layer grad norms: vanishing toward the input (first layer << last layer)."""
    # a printed per-layer table without steps (readers/textlog/layergrads.py) gives 1-point series
    layers = [s for s in run.series if s.name.startswith("grad_norm/") and len(s) >= 1]
    names = _layer_order([s.name for s in layers])
    # rows of a printed table (one layer per line of one file) stand in the model's order
    firsts = {s.name: (s.source, s.loc_kind, int(s.locs[0]) if s.locs is not None and len(s.locs) else -1) for s in layers}
    if (len({f[:2] for f in firsts.values()}) == 1 and next(iter(firsts.values()))[1] == LOC_LINE
            and len({f[2] for f in firsts.values()}) == len(firsts)):
        names = sorted(firsts, key=lambda n: firsts[n][2])
    if len(names) < 2:
        return []
    by = {n: run.metric(n) for n in names}      # each layer's series, looked up once
    first = by[names[0]]
    last = by[names[-1]]
    a = float(np.nanmedian(np.abs(first.values[-max(2, len(first) // 4):])))
    b = float(np.nanmedian(np.abs(last.values[-max(2, len(last) // 4):])))
    out: list[Signal] = []
    if b > 0 and 0 < a and a / b < 1e-2:   # exactly 0 is dead units / no gradient, not a vanishing one
        r = b / max(a, 1e-30)
        txt = f"per-layer grad norm {names[0]} = {_fmt(a)} vs {names[-1]} = {_fmt(b)} ({r:.0e}x smaller toward the input)"
        out.append(Signal("grad_vanish_layers", min(1.0, math.log10(r) / 4), txt,
                          [q.ev(first, len(first) - 1, f"{names[0]} late"), q.ev(last, len(last) - 1, f"{names[-1]} late")],
                          {"ratio": r, "first_layer": names[0], "last_layer": names[-1]}))
    out += _first_layer_large(by, names, q)
    out += _layers_died(by, names, q)
    zeros = [n for n in names if float(np.nanmax(np.abs(by[n].values))) < 1e-12]
    if zeros and len(zeros) >= len(names) // 2:
        s0 = by[zeros[0]]
        txt = f"{len(zeros)} of {len(names)} layers have grad norm exactly 0 ({', '.join(zeros[:3])})"
        # Zero from the input up while the layers nearest the output still get gradient: what a
        # dead ReLU layer does to everything below it, and also what a frozen backbone under a
        # trained head looks like. Its own kind, so it cannot stand as proof of frozen parameters.
        k = len(zeros)
        below_head = zeros == names[:k] and k < len(names)
        head = by[names[k]] if below_head else None
        if s0 is not None and head is not None:
            txt += f"; {names[k]} above them still gets gradient"
            out.append(Signal("grad_zero_below_head", 0.8, txt,
                              [q.ev(s0, 0, txt), q.ev(head, len(head) - 1, f"{names[k]}: nonzero")],
                              {"share": k / len(names), "first_live": names[k]}))
        elif s0 is not None:
            out.append(Signal("grad_zero", 0.8, txt, [q.ev(s0, 0, txt)], {"share": len(zeros) / len(names)}))
    return out


def _layers_died(by: dict[str, Series], names: list[str], q: Quoter) -> list[Signal]:
    """grad_died: layers whose grad norm was nonzero and then exactly 0 to the end (zero_from), one
    layer or all of them. Dead ReLU units do this to their own weights and every layer below them; a
    frozen layer has no gradient from the start (grad_zero_below_head)."""
    died = []
    typical = {}
    for n in names:
        s = by[n]
        if len(s) < 4:
            continue
        v = s.values
        fin = np.flatnonzero(np.isfinite(v))
        nz = np.abs(v[fin])
        nz = nz[nz > 0]
        typical[n] = float(np.median(nz)) if len(nz) else 0.0
        k = zero_from(v[fin])
        if k is not None:
            died.append((n, s, int(fin[k - 1]), int(fin[k])))
    # a gradient that had already vanished (1e-13 beside a head's 0.4) and then underflows to 0 faded
    # away; it did not die
    top = max(typical.values(), default=0.0)
    died = [d for d in died if typical[d[0]] >= DIED_FADED * top]
    if not died:
        return []
    n0, s0, before, at = died[0]
    txt = (f"{len(died)} of {len(names)} layers' grad norms drop to exactly 0 and stay 0 "
           f"({', '.join(d[0] for d in died[:3])}{', ...' if len(died) > 3 else ''}; {n0} from step {int(s0.steps[at])})")
    return [Signal("grad_died", 0.8, txt, [q.ev(s0, before, f"{n0} before it died"), q.ev(s0, at, txt)],
                   {"layers": [d[0] for d in died], "share": len(died) / len(names), "step": int(s0.steps[at])})]


def _first_layer_large(by: dict[str, Series], names: list[str], q: Quoter) -> list[Signal]:
    """grad_first_layer_large: the input-side layer's grad norm far above the other layers' (unscaled inputs)."""
    if len(names) < 3:
        return []
    ser = [by[n] for n in names]
    m = min(len(s) for s in ser)
    if m < 2:
        return []
    mat = np.vstack([np.abs(s.values[:m]) for s in ser])
    first, others = mat[0], np.median(mat[1:], axis=0)
    ok = np.isfinite(first) & np.isfinite(others) & (first > 0) & (others > 0)
    if ok.sum() < 2:
        return []
    r = first[ok] / others[ok]
    r_last = first[ok] / np.maximum(mat[-1][ok], 1e-30)
    idx = np.flatnonzero(ok)
    peak_k = int(np.argmax(r_last))
    peak, peak_med = float(r_last[peak_k]), float(np.max(r))
    if not ((peak >= FIRST_LAYER_GRAD_PEAK and peak_med >= FIRST_LAYER_GRAD_MEDIAN) or peak_med >= FIRST_LAYER_GRAD_PEAK):
        return []
    i = int(idx[peak_k])
    s0 = ser[0]
    txt = (f"{names[0]} (input side) has {peak:.0f}x the grad norm of {names[-1]} at step {int(s0.steps[i])} "
           f"({_fmt(float(first[i]))} vs {_fmt(float(mat[-1][i]))}; up to {peak_med:.0f}x the other layers' median)")
    dead = float(np.nanmax(first[m // 2:])) < 1e-12 if m >= 4 else False
    if dead:
        txt += "; it is exactly 0 in the second half (the units it feeds died)"
    return [Signal("grad_first_layer_large", min(1.0, math.log10(max(peak, 1.0)) / 2 + (0.15 if dead else 0.0)), txt,
                   [q.ev(s0, i, txt)], {"ratio": peak, "median_ratio": peak_med, "layer": names[0], "died": dead})]


# ---------------------------------------------------------------- lr

def _optimizer(run: Run) -> str:
    f = run.fact("optimizer")
    return str(f.value).lower() if f is not None and f.value else ""


def _fine_tuning(run: Run, adapters: bool | None = None) -> bool:
    """The code (or a post's snippet) loads a pretrained model and trains all of it (no LoRA/adapters in sight); or a launch
    command or config hands an HF script a pretrained checkpoint (`--model_name_or_path bert-base-uncased`);
    or the log's head says transformers loaded one ("Some weights of BertForSequenceClassification were not
    initialized from the model checkpoint at bert-base-uncased"); and nothing mentions adapters (`adapters`: that
    answer, where the caller has it)."""
    if _uses_adapters(run) if adapters is None else adapters:
        return False
    code = [t.text for t in run.texts if t.kind == "code"]
    # (a post quotes its code: `BertForSequenceClassification.from_pretrained(...)` in a question's snippet)
    # (the call's literal first, a find in C: the pattern has no literal prefix to scan a 64 KB log head by)
    return any(_PRETRAINED.search(c) for c in code) or any(
        _PRETRAINED.search(t.text, 0, FINETUNE_LOG_HEAD) for t in run.texts
        if t.kind in ("text", "log") and t.text.find("from_pretrained(", 0, FINETUNE_LOG_HEAD) >= 0) or any(
        f.name == "checkpoint" and "model_name_or_path" in (f.quote or "") for f in run.facts) or any(
        _LOADED_PRETRAINED.search(t.text, 0, FINETUNE_LOG_HEAD) for t in run.texts if t.kind == "log")


# A pretrained language / vision-language / diffusion model named in a config, log or code head (or an HF
# Trainer's log dicts): such runs fine-tune at 1e-6..5e-5, so an lr there is no low one (2e-5 for a BERT, 5e-6 for
# a 1.5B LLM were read as lr_tiny in ten corpus posts, none of them a learning rate too low). Read for lowness only.
_LM_NAME = re.compile(r"(?<![A-Za-z])(?:bert|roberta|deberta|electra|albert|xlnet|bart|t5|mt5|flan|gpt-?[2-4j]?|llama-?\d?|mistral"
                      r"|mixtral|qwen[\d.]*|gemma|chatglm\d?|baichuan\d?|internlm\d?|vicuna|bloomz?|falcon|phi-?\d|yi|glm"
                      r"|stable[-_ ]?diffusion|sdxl|whisper|wav2vec2?|blip-?2?|llava|minicpm)(?![A-Za-z])"
                      r"|'learning_rate':|\b(?:model_name_or_path|pretrained_model_name_or_path)\b", re.I)


def _pretrained_lm_named(run: Run) -> bool:
    return any(_LM_NAME.search(t.text, 0, FINETUNE_LOG_HEAD) for t in run.texts if t.kind in ("config", "log", "code"))


def _from_pretrained(run: Run) -> bool:
    """The run trains from a pretrained model, all of it or through adapters (LoRA, peft): its loss starts
    near what the model already knows, falls a little and levels off; that is no plateau of a model
    stuck high (a language model's loss floors well above 0)."""
    return _uses_adapters(run) or _fine_tuning(run)


def _uses_adapters(run: Run) -> bool:
    """Code or a config names adapters (peft, LoraConfig, an adapter_config.json's peft_type): a few new
    weights trained on a frozen pretrained model."""
    return any(_ADAPTERS.search(t.text) for t in run.texts if t.kind in ("code", "config"))


# transformers' messages when it loads a pretrained checkpoint into a model with a new head
_LOADED_PRETRAINED = re.compile(r"Some weights of (?:the model checkpoint at )?\S+ were not (?:initiali[sz]ed from|used when)")
FINETUNE_LOG_HEAD = 65536
# A fine-tune of a pretrained model (Adam family) runs at 1e-5..5e-5: its lr is judged for lowness as if
# this many times larger (2e-5 reads as 2e-4, normal; 1e-6 as 1e-5, still low).
FINETUNE_LR_SCALE = 10.0


# The batch size from which an SGD lr up to SGD_LR_HIGH is usual; below it the high mark falls in
# proportion (batch 2: 1/64): 20x the linear scaling rule's 0.1 per 256 examples.
SGD_FULL_LR_BATCH = 128


# A run's last lr (a tracker's summary, one point) this far under the configured lr: decayed away, not by plan.
LR_SUMMARY_COLLAPSED = 1e-12
# The share of the logged run by which an lr that fell under 1/1000 of its peak has collapsed.
LR_COLLAPSE_BY = 0.8
# ... read in a history of at least this many lr points (five epochs of a per-epoch log: 0.1, 0.01, 0.001, 1e-4, 0)
LR_COLLAPSE_POINTS = 5


def _lr_signals(run: Run, lr: Series | None, q: Quoter) -> list[Signal]:
    out: list[Signal] = []
    opt = _optimizer(run)
    sgd = "sgd" in opt or "momentum" in opt
    high = SGD_LR_HIGH if sgd else ADAM_LR_HIGH
    adapters = _uses_adapters(run)
    fine_tuning = not sgd and _fine_tuning(run, adapters)
    if fine_tuning and "adam" in opt:
        high = FINETUNE_LR_HIGH
    elif "adam" in opt and not adapters and (is_transformerish(run.facts) or _pretrained_lm_named(run)):
        high = TRANSFORMER_LR_HIGH
    gain, opt_named = _momentum_gain(run, opt, sgd)
    if fine_tuning:
        gain *= FINETUNE_LR_SCALE      # (gain is read for lowness only: lr_tiny)

    named = cache(lambda: _pretrained_lm_named(run))

    def lowness(x: float) -> float:
        """_lr_lowness of lr x, on the fine-tune scale where a pretrained model is named (looked for only
        when the lr is low otherwise, and once: the name search reads every text's head)."""
        low = _lr_lowness(x * gain, sgd)
        if low > 0 and not fine_tuning and not sgd and named():
            low = _lr_lowness(x * gain * FINETUNE_LR_SCALE, sgd)
        return low

    bs = min((f.value for f in train_batch_sizes(run.facts)), default=None) if sgd else None
    if bs is not None and bs < SGD_FULL_LR_BATCH:
        # SGD's lr scales with the batch (0.1 per 256 examples, Goyal et al.): an lr far above what
        # the batch takes is high whatever its value (ImageNet's 0.1 at batch size 2)
        high = min(high, SGD_LR_HIGH * bs / SGD_FULL_LR_BATCH)
        opt = f"{opt} at batch size {bs}"
    if lr is not None and len(lr) >= 2:
        v = lr.values
        fin = np.isfinite(v)
        if fin.sum() >= 2:
            fv, fi = v[fin], np.flatnonzero(fin)
            kp = int(np.argmax(fv))        # the peak's place among the finite points
            peak, k = float(fv[kp]), int(fi[kp])
            if (peak > high or (sgd and peak >= SGD_LR_HIGH)) and (opt or peak >= 10 * high):
                txt = f"lr reaches {_fmt(peak)} ({opt or 'optimizer unknown'}; above ~{_fmt(high)} is high)"
                strength = min(1.0, 0.4 + 0.3 * math.log10(peak / high + 1))
                if not opt and peak <= UNKNOWN_OPT_LR_NORMAL:
                    # an lr up to 1 is some common optimizer's usual value (SGD for LSTMs, Adadelta's and
                    # L-BFGS's default 1.0): without the optimizer's name it is a weaker hint
                    strength = min(strength, UNKNOWN_OPT_LR_CAP)
                out.append(Signal("lr_high", strength, txt, [q.ev(lr, k, txt)], {"lr": peak}))
            low = lowness(peak)
            if low > 0:
                txt = f"lr is at most {_fmt(peak)} all run ({opt_named or 'optimizer unknown'})"
                out.append(Signal("lr_tiny", low, txt, [q.ev(lr, k, txt)], {"lr": peak}))
            # Collapse: lr falls by >1000x with a fifth of the run or more still to go (a per-epoch
            # schedule stepped per batch). A decay meant for the run (step, exponential, cosine)
            # reaches 1/1000 of its peak in its last tenth, if at all.
            # Only after the peak: a warm-up from 0 is below it before, by design.
            below = kp + np.flatnonzero(fv[kp: max(2, int(len(fv) * LR_COLLAPSE_BY))] <= peak * 1e-3) if peak > 0 \
                else np.zeros(0, np.int64)
            # (an lr at exactly 0 from there to the end is the "zero" reading below)
            if len(below) and len(fv) >= LR_COLLAPSE_POINTS and bool(np.any(fv[int(below[0]):])):
                j = int(fi[int(below[0])])
                early = below[0] < len(fv) // 4
                where = "within the first quarter of the run" if early else \
                    f"with {100 - 100 * int(below[0]) // len(fv)}% of the logged run still to go"
                txt = f"lr falls from {_fmt(peak)} to {_fmt(float(fv[below[0]]))} {where} (step {int(lr.steps[j])})"
                out.append(Signal("lr_schedule_odd", 0.8 if early else 0.7, txt, [q.ev(lr, k, "lr peak"), q.ev(lr, j, txt)],
                                  {"detail": "collapse", "step": int(lr.steps[j])}))
            # The logged lr never comes near the configured one (LR_NEVER_CONFIGURED times below it at its peak, from
            # the first point on): a schedule that decays before the first log (MultiStepLR's epoch milestones counted
            # in steps). A warm-up reaches the configured lr; a decay starts at it.
            cf = run.fact("lr")
            try:
                conf = float(cf.value) if cf is not None else None
            except (TypeError, ValueError):
                conf = None
            if cf is not None and conf is not None and conf > 0 and len(fv) >= LR_COLLAPSE_POINTS \
                    and 0 < peak <= conf / LR_NEVER_CONFIGURED and not _lr_scaled_in_code(run, cf):
                txt = (f"logged lr is at most {_fmt(peak)} from its first point on, {conf / peak:.0f}x below the "
                       f"configured lr {cf.value}")
                out.append(Signal("lr_schedule_odd", 0.7, txt, [q.ev(lr, k, txt), Evidence(
                    text=f"configured lr = {cf.value}", source=cf.source, line=cf.line, quote=cf.quote)],
                    {"detail": "never at the configured lr", "configured": conf, "peak": peak}))
            # The lr hits exactly 0 and training goes on at 0 (a schedule whose total steps are wrong):
            # a decay that ends at 0 reaches it at its last point, not for a fifth of the run.
            nz = np.flatnonzero(fv != 0)
            z = len(fv) - 1 - int(nz[-1]) if len(nz) else 0
            if not len(nz):
                # every logged lr is exactly 0 (two points at least): a warm-up from 0 is past 0 at its
                # second step, so the schedule (or an lr too small to print) gives no update at all
                txt = f"lr is 0 at every logged point ({len(fv)} points): nothing is updated"
                out.append(Signal("lr_schedule_odd", 0.8, txt, [q.ev(lr, int(fi[0]), "lr at the start"),
                                                               q.ev(lr, int(fi[-1]), txt)], {"detail": "zero", "step": int(lr.steps[fi[0]])}))
            if len(nz) and z >= 3 and z >= 0.2 * len(fv) and not any(x.kind == "lr_schedule_odd" for x in out):
                j0 = int(fi[int(nz[-1]) + 1])
                txt = (f"lr is 0 from step {int(lr.steps[j0])} on ({z} of {len(fv)} logged points) while the run goes on: "
                       f"nothing is updated")
                out.append(Signal("lr_schedule_odd", 0.8, txt, [q.ev(lr, int(fi[int(nz[-1])]), "last nonzero lr"),
                                                               q.ev(lr, j0, txt)], {"detail": "zero", "step": int(lr.steps[j0])}))
            # Jumps: a ratio > 5x between neighbours after the first 10% (warm-up excluded).
            r = fv[1:] / np.maximum(fv[:-1], 1e-30)
            start = max(1, len(fv) // 10)
            moved = (fv[1:] != 0) | (fv[:-1] != 0)       # 0 -> 0 is no jump
            jumps = np.flatnonzero(((r[start:] > 5) | (r[start:] < 0.2)) & moved[start:]) + start
            if len(jumps) and len(fv) >= 4:
                # ... between points the log printed next to each other: across a gap of many points a post left
                # out ("...", epoch 100 then epoch 198) a smooth decay moves as far (JUMP_GAP x the usual spacing)
                st = lr.steps[fi].astype(float)
                gap = np.diff(st)
                usual = float(np.median(gap)) if len(gap) else 0.0
                if usual > 0:
                    jumps = jumps[gap[jumps] <= JUMP_GAP * usual]
            if len(jumps) and jumps[-1] == len(fv) - 2 and fv[-1] == 0:
                jumps = jumps[:-1]      # a decay that ends at exactly 0 at the last logged step (linear to 0)
            if len(jumps):
                # ... and a fall further than the schedule moves each point: a linear decay's last steps
                # (2.7e-06, 1.3e-06, 1.1e-08) are 5x apart in ratio but one usual step apart (a rise from
                # near 0 back up is a restart however small the step)
                step = np.diff(fv)
                usual_step = float(np.median(np.abs(step)))
                if usual_step > 0:
                    jumps = jumps[(step[jumps] > 0) | (-step[jumps] > JUMP_STEP_X * usual_step)]
            if len(jumps):
                j = int(jumps[0]) + 1
                txt = f"lr jumps from {_fmt(float(fv[j-1]))} to {_fmt(float(fv[j]))} at step {int(lr.steps[fi[j]])}"
                out.append(Signal("lr_jump", 0.7, txt, [q.ev(lr, int(fi[j - 1]), "lr before"), q.ev(lr, int(fi[j]), txt)],
                                  {"step": int(lr.steps[fi[j]]), "before": float(fv[j - 1]), "after": float(fv[j])}))
            # Warm-up that never ends: the lr climbs through the whole run and peaks at the last step (it
            # first reaches its peak in the run's last tenth: a warm-up to a constant lr ends early and stays)
            if len(fv) >= 8 and fv[-1] >= 0.99 * peak and fv[0] < 0.5 * peak and float(np.mean(np.diff(fv) >= 0)) > 0.9 \
                    and int(np.argmax(fv >= 0.99 * peak)) >= 0.9 * (len(fv) - 1):
                txt = (f"lr rises the whole run, from {_fmt(float(fv[0]))} to {_fmt(peak)} at the last step: "
                       f"the warm-up never ends")
                out.append(Signal("lr_schedule_odd", 0.8, txt, [q.ev(lr, int(fi[0]), "lr at the start"), q.ev(lr, k, txt)],
                                  {"detail": "warm-up spans the run"}))
                # ... and the config names that warm-up while its lr is far above the last (highest) logged one: the
                # configured warm-up is longer than the run (a LAION recipe's 20000 steps in a 160-step run), as
                # config:warmup_exceeds_run says where the config also names the run's total steps
                # (not where the config names a run longer than the warm-up, a log cut short; nor a warm-up shorter
                # than the points the ramp was logged at: another schedule than the configured one is ramping)
                wf, mf = run.fact("warmup_steps"), run.fact("max_steps")
                warm = wf.value if wf is not None and isinstance(wf.value, (int, float)) else 0
                longer = mf is not None and isinstance(mf.value, (int, float)) and mf.value > warm
                if wf is not None and warm > 0 and warm >= len(fv) and not longer \
                        and cf is not None and conf and 0 < peak <= conf / LR_NEVER_CONFIGURED \
                        and not _lr_scaled_in_code(run, cf):
                    wtxt = (f"the configured warm-up of {wf.value} steps never ends: the logged lr climbs to "
                            f"{_fmt(peak)}, {conf / peak:.0f}x below the configured lr {cf.value}")
                    out.append(Signal("config:warmup_exceeds_run", 0.8, wtxt, [
                        Evidence(text=f"warm-up {wf.value} steps", source=wf.source, line=wf.line, quote=wf.quote),
                        q.ev(lr, k, wtxt),
                        Evidence(text=f"configured lr = {cf.value}", source=cf.source, line=cf.line, quote=cf.quote)],
                        {"warmup": wf.value, "peak": peak}))
            # No warm-up: a transformer-ish run (config.is_transformerish: its tokenizer, checkpoint or
            # scheduler names one) whose lr starts at its peak (only a hint; a small net needs no warm-up).
            if len(fv) >= 20 and fv[0] >= 0.99 * peak and peak > high / 10 and not sgd and is_transformerish(run.facts):
                out.append(Signal("lr_no_warmup", 0.3, f"lr starts at its peak {_fmt(peak)} (no warm-up)",
                                  [q.ev(lr, 0, "lr at the first step")], {"detail": "no warm-up"}))
            if (rw := _lr_rewarm(lr, fv, fi, q)) is not None:
                out.append(rw)
    else:
        f = run.fact("lr")
        try:
            val = float(f.value) if f is not None else None
        except (TypeError, ValueError):
            val = None
        if val is not None and f is not None:
            ev = Evidence(text=f"configured lr = {f.value}", source=f.source, line=f.line, quote=f.quote)
            if lr is not None and len(lr) == 1 and 0 < float(lr.values[0]) < val * LR_SUMMARY_COLLAPSED:
                # a tracker's summary keeps the last lr only: 1e-157 where 0.1 was configured is no planned decay (a
                # cosine ends at its floor, a step decay a few factors of 10 down) but one stepped far more often than
                # it was meant to (a per-epoch schedule stepped per batch)
                last = float(lr.values[0])
                txt = f"the last logged lr is {_fmt(last)}, {val / last:.0e}x below the configured {f.value}: the schedule decayed it away"
                out.append(Signal("lr_schedule_odd", 0.7, txt, [q.ev(lr, 0, txt), ev],
                                  {"detail": "collapse", "step": int(lr.steps[0])}))
            if (val > high or (sgd and val >= SGD_LR_HIGH)) and opt:
                what = f"fine-tuning a pretrained model with {opt}" if high == FINETUNE_LR_HIGH else opt
                out.append(Signal("lr_high", min(1.0, 0.4 + 0.3 * math.log10(val / high + 1)),
                                  f"configured lr {f.value} for {what} is high (above ~{_fmt(high)})", [ev], {"lr": val}))
            low = lowness(val)
            if low > 0:
                out.append(Signal("lr_tiny", low, f"configured lr {f.value} is low for {opt_named or 'the optimizer'}",
                                  [ev], {"lr": val}))
    # a logged lr that is tiny because its warm-up never ends, or far below the lr configured: the schedule's doing, not
    # a low setting (a 20000-step warm-up in a 160-step run, logged at 4e-5 of a configured 5e-3)
    return without(out, "lr_tiny", lambda x: x.kind == "lr_schedule_odd" and (
        x.data.get("detail") == "warm-up spans the run"
        or x.data.get("detail") == "never at the configured lr" and lowness(float(x.data.get("configured") or 0)) == 0))


# A warm-up run again mid-run: after its early peak (in the first REWARM_PEAK_BY share of the points) the lr decayed
# below REWARM_LOW of it, then ramps back, over REWARM_RAMP points or more, to REWARM_BACK of that peak, once.
REWARM_PEAK_BY = 0.3
REWARM_LOW = 0.5
REWARM_BACK = 0.9
REWARM_RAMP = 3
# ... after a decay at least this many times as long as the ramp (a warm-up is short beside the decay it starts)
REWARM_DECAY_X = 3


def _lr_rewarm(lr: Series, fv: np.ndarray, fi: np.ndarray, q: Quoter) -> Signal | None:
    """lr_rewarm: the schedule starts over within one run whose steps go on (a resume that restored the weights and
    the step but built a fresh scheduler: its warm-up again). Not a cyclic schedule (SGDR, a triangular policy):
    those restart more than once, jump back to the peak rather than ramp, or (a triangular policy) climb as long as
    they fell."""
    n = len(fv)
    if n < 20:
        return None
    p0 = int(np.argmax(fv))
    peak = float(fv[p0])
    if peak <= 0 or p0 > REWARM_PEAK_BY * n:
        return None
    high = fv >= REWARM_BACK * peak
    back = np.flatnonzero(high[p0 + 1:] & ~high[p0:-1]) + p0 + 1       # re-entries into the peak band
    low = np.flatnonzero(fv[p0:] < REWARM_LOW * peak) + p0
    if len(low) == 0:
        return None
    back = back[back > low[0]]
    if len(back) != 1:
        return None
    t2 = int(back[0])
    t1 = int(np.argmin(fv[low[0]:t2])) + int(low[0])            # the bottom the ramp starts from
    ramp = fv[t1:t2 + 1]
    if t2 - t1 < REWARM_RAMP or float(np.mean(np.diff(ramp) > 0)) < 0.8:
        return None
    if t1 - p0 < REWARM_DECAY_X * (t2 - t1):
        return None     # (a triangular cycle climbs as long as it fell: a schedule's shape, not a warm-up run again)
    txt = (f"lr falls to {_fmt(float(fv[t1]))} by step {int(lr.steps[fi[t1]])}, then climbs back to {_fmt(float(fv[t2]))} "
           f"(its early peak {_fmt(peak)}) by step {int(lr.steps[fi[t2]])} while the steps go on: the schedule started over")
    return Signal("lr_rewarm", 0.7, txt, [q.ev(lr, int(fi[t1]), "lr where the ramp starts again"), q.ev(lr, int(fi[t2]), txt)],
                  {"step": int(lr.steps[fi[t1]]), "peak": peak})


def _lr_scaled_in_code(run: Run, f) -> bool:
    """Whether the configured lr's name is scaled into the lr the optimizer gets (`lr = base_lr * bs / 256`, the
    linear scaling rule): then the logged lr is not the configured value's, by design."""
    key = re.match(r"\s*[\"']?([A-Za-z_][\w.]*)", f.quote or "")
    if key is None:
        return False
    name = key.group(1).rsplit(".", 1)[-1]
    if name in ("lr", "learning_rate"):
        return False
    rx = re.compile(r"^[ \t]*(?:lr|learning_rate)\s*=(?=[^\n]*\b" + re.escape(name) + r"\b)(?=[^\n]*[*/])", re.M)
    return any(rx.search(t.text) for t in run.texts if len(t.text) < 2_000_000 and name in t.text)


def _momentum_gain(run: Run, opt: str, sgd: bool) -> tuple[float, str]:
    """(what an SGD lr is worth against the momentum 0.9 that _lr_lowness's SGD bounds assume, the
    optimizer as the evidence names it). Momentum m moves the weights by about lr / (1 - m) a step,
    so plain SGD (m = 0, torch's default when the call names none) at 1e-3 steps like momentum SGD at
    1e-4 and is named "sgd without momentum". (1, opt) where the momentum is unknown or not SGD's."""
    f = run.fact("momentum") if sgd else None
    try:
        m = float(f.value) if f is not None else None
    except (TypeError, ValueError):
        m = None
    if m is None or not 0.0 <= m < 1.0:
        return 1.0, opt
    return 0.1 / (1.0 - m), (f"{opt} without momentum" if m == 0.0 and "sgd" in opt else opt)


def _lr_lowness(lr: float, sgd: bool) -> float:
    """How low an lr is for its optimizer family, 0 (normal) .. 0.9 (tiny).
    Adam-family defaults sit at 1e-4..3e-3 (fine-tuning goes to 1e-5); SGD at 1e-2..1e-1."""
    if not lr or lr <= 0:
        return 0.0
    scale = 10.0 if sgd else 1.0
    for bound, strength in ((1e-6, 0.9), (1e-5, 0.7), (5e-5, 0.4)):
        if lr < bound * scale:
            return strength
    return 0.0


# ---------------------------------------------------------------- amp, timing, activations

def _loss_scale(s: Series, q: Quoter) -> list[Signal]:
    v = s.values
    fv = v[np.isfinite(v) & (v > 0)]
    if len(fv) < 3:
        return []
    r = fv[1:] / fv[:-1]
    halvings = int(np.sum(r <= 0.55))
    final, peak = float(fv[-1]), float(np.max(fv))
    if halvings >= 3 or final < 1.0:
        k = int(np.argmin(v))
        txt = f"loss scale halved {halvings} times, from {_fmt(peak)} to {_fmt(final)}"
        return [Signal("loss_scale_drop", min(1.0, 0.3 + 0.07 * halvings + (0.4 if final < 1 else 0)), txt,
                       [q.ev(s, k, txt)], {"halvings": halvings, "final_scale": final})]
    return []


def _timing(run: Run, q: Quoter) -> list[Signal]:
    """data_time_high: the step's time spent waiting for data, beside the step's time or the model's own
    (compute_time: a log that splits a step into "data 0.62s compute 0.002s")."""
    d = run.metric("data_time")
    t = run.metric("step_time") or run.metric("compute_time")
    if d is None or t is None or not len(d) or not len(t):
        return []
    dm = float(np.nanmedian(d.values))
    tm = float(np.nanmedian(t.values))
    if not tm > 0:
        return []
    # step_time may or may not include data time; compute_time never does
    share = dm / tm if dm <= tm and t.name == "step_time" else dm / (dm + tm)
    if share > 0.4:
        txt = f"data loading takes {share*100:.0f}% of each step (median data_time {_fmt(dm)} vs {t.name} {_fmt(tm)})"
        # (a line or two of a post: mmdetection's and timm's lines are averages over their logging interval, read
        # a little weaker than a run's whole log)
        few = TIMING_FEW if len(d) < 3 else 1.0
        return [Signal("data_time_high", min(1.0, share / 0.7) * few, txt, [q.ev(d, len(d) // 2, txt)],
                       {"share": share, "points": int(len(d))})]
    return []


# A logged spread of the model's representations (SimSiam's std of the normalised embedding, "embedding_std",
# "feature_var", "proj_std"): ...
# (not a latent's or an output's: a VAE's posterior variance shrinks from ~1 as it trains, by design)
_SPREAD = re.compile(r"(?:^|[/_.])(?:embed\w*|emb|feat\w*|repr\w*|represent\w*|proj\w*)"
                     r"[/_.]?(?:std|var|variance|spread)(?:$|[/_.])|(?:^|[/_.])(?:std|var)[/_.]?(?:of[/_.])?"
                     r"(?:embed\w*|emb|feat\w*|repr\w*|proj\w*)(?:$|[/_.])")
# ... read as collapsed when its last fifth's median is at most this share of its first fifth's largest value
SPREAD_COLLAPSED = 0.05


def _embedding_collapse(run: Run, q: Quoter) -> list[Signal]:
    """embedding_collapse: a logged spread of the representations that falls to SPREAD_COLLAPSED of where it began:
    every input maps to (nearly) one point, whatever the loss says (a contrastive loss without negatives goes to 0
    that way, and the retrieval scores to chance)."""
    for s in run.series:
        if len(s) < 5 or not _SPREAD.search(s.name):
            continue
        v = ordered(s).values
        v = v[np.isfinite(v)]
        if len(v) < 5:
            continue
        m = max(1, len(v) // 5)
        start, end = float(np.max(v[:m])), float(np.median(v[-m:]))     # (a collapse can be under way by the 2nd point)
        if start > 0 and 0 <= end <= SPREAD_COLLAPSED * start:
            txt = (f"{s.raw_name} falls from {_fmt(start)} to {_fmt(end)} ({end / start:.1%} of its start): the "
                   "representations collapse toward one point")
            return [Signal("embedding_collapse", min(1.0, 0.7 + 0.3 * (1 - end / (SPREAD_COLLAPSED * start))), txt,
                           [q.ev(s, 0, f"{s.raw_name} at the start"), q.ev(s, len(s) - 1, f"{s.raw_name} at the end")],
                           {"metric": s.name, "start": start, "end": end})]
    return []


# A policy's entropy as RL libraries log it (CleanRL's losses/entropy, RLlib's learner_stats/entropy, policy_entropy);
# not a coefficient, a cross-entropy or SB3's entropy_loss (its negative)
_ENTROPY = re.compile(r"(?:^|/)(?:policy_)?entropy$")
# ... near 0 from its first points: at most this (nats) for the first three; a policy that starts deterministic
ENTROPY_ZERO = 1e-3
# ... or falling to this share of where it started while the return falls to half its best after rising: a collapse
ENTROPY_COLLAPSED = 0.02


def _returns(run: Run, held_out: bool, n: int) -> list[Series]:
    """The run's return series (episodic_return, episode_reward_mean, ep_rew_mean, reward) of training or of held-out
    environments, n points at least: not a spread, a bound, a coefficient or a best so far, nor an episode's length
    or time (charts/episodic_length)."""
    return [s for s in run.series if _REWARD.search(s.name) and is_held_out(s.name) == held_out
            and not re.search(r"std|min|max|coef|best|len|steps|time", s.name) and len(s) >= n]


def _return_series(run: Run) -> Series | None:
    """The run's training return, the longest one."""
    got = _returns(run, False, 5)
    return max(got, key=len) if got else None


# return_gap: the held-out return's last fifth below the training return's by this share of the span both cover, at
# least, and never within half that gap of the training return's end
RETURN_GAP = 0.5


def _return_gap(run: Run, q: Quoter) -> list[Signal]:
    """return_gap: an agent whose training return ends high while the return on held-out environments (a test
    collector on unseen levels, an evaluation env) stays far below it for the whole run: it learned its training
    environments, not the task (one maze layout memorised; Procgen's generalisation gap)."""
    tr = _return_series(run)
    held = _returns(run, True, 3)
    if tr is None or not held:
        return []
    va = max(held, key=len)
    t, v = ordered(tr).values, ordered(va).values
    t, v = t[np.isfinite(t)], v[np.isfinite(v)]
    if len(t) < 5 or len(v) < 3:
        return []
    t_end, v_end = float(np.median(t[-max(1, len(t) // 5):])), float(np.median(v[-max(1, len(v) // 5):]))
    span = max(float(np.max(t)), float(np.max(v))) - min(float(np.min(t)), float(np.min(v)))
    gap = t_end - v_end
    if span <= 0 or gap < RETURN_GAP * span or float(np.max(v)) > t_end - 0.5 * gap:
        return []
    txt = (f"{tr.raw_name} ends at {_fmt(t_end)} while {va.raw_name} stays at {_fmt(v_end)} (at most "
           f"{_fmt(float(np.max(v)))}): the agent does well only on the environments it trains on")
    return [Signal("return_gap", 0.7, txt, [q.ev(tr, len(tr) - 1, f"{tr.raw_name} at the end"),
                                           q.ev(va, len(va) - 1, f"{va.raw_name} at the end")],
                   {"train_end": t_end, "held_out_end": v_end})]


def _policy_entropy(run: Run, q: Quoter) -> list[Signal]:
    """entropy_zero_from_start: a policy's entropy at ~0 from its first logged points (a policy head whose init, or
    inputs in the thousands, saturate its softmax: it never explores); entropy_collapse: an entropy that falls to
    ENTROPY_COLLAPSED of its start while the return, after rising, falls to half its best (steps too large for the
    policy: it collapses onto one action)."""
    ent = next((s for s in run.series if _ENTROPY.search(s.name) and len(s) >= 3), None)
    if ent is None:
        return []
    fi = np.flatnonzero(np.isfinite(ent.values))      # (ent is in step order: the curves read series ordered)
    v = ent.values[fi]
    if len(v) < 3:
        return []
    if float(np.max(np.abs(v[:3]))) <= ENTROPY_ZERO and float(np.median(np.abs(v))) <= ENTROPY_ZERO:
        txt = f"{ent.raw_name} is {_fmt(float(v[0]))} from its first logged points: the policy is deterministic before it learns"
        return [Signal("entropy_zero_from_start", 0.8, txt, [q.ev(ent, int(fi[0]), f"{ent.raw_name} at the start")],
                       {"metric": ent.name, "first": float(v[0])})]
    start, end = float(np.max(v[:max(1, len(v) // 5)])), float(np.median(v[-max(1, len(v) // 5):]))
    ret = _return_series(run)
    if ret is None or not start > 0 or not 0 <= end <= ENTROPY_COLLAPSED * start:
        return []       # (an entropy below 0 is a continuous policy's, SAC's target: no collapse onto one action)
    r = ordered(ret).values
    r = r[np.isfinite(r)]
    if len(r) < 5:
        return []
    best_i = int(np.argmax(r))
    first, best, last = float(r[0]), float(r[best_i]), float(np.median(r[-max(1, len(r) // 5):]))
    if not (best > first and best_i < len(r) - 1 and last - first < 0.5 * (best - first)):
        return []
    txt = (f"{ent.raw_name} falls from {_fmt(start)} to {_fmt(end)} while {ret.raw_name} rose to {_fmt(best)} and fell "
           f"back to {_fmt(last)}: the policy collapsed onto one action")
    return [Signal("entropy_collapse", 0.8, txt, [q.ev(ent, int(fi[-1]), f"{ent.raw_name} at the end"),
                                                 q.ev(ret, len(ret) - 1, f"{ret.raw_name} at the end")],
                   {"metric": ent.name, "start": start, "end": end})]


# a sparsity of activations by its name's tokens (act_sparsity, relu/sparsity, hidden_sparsity), not a pruning run's
_ACT_SPARSITY = re.compile(r"(?:^|[/_.])(?:acts?|activ\w*|relu\w*|neurons?|units?|hidden|features?)(?:$|[/_.])")
_WEIGHT_SPARSITY = re.compile(r"weight|prun|target|param")


# a layer's inactive units by the layer's number ("inactive L5", "inactive_layer3", "relu/inactive_h2")
_INACTIVE_LAYER = re.compile(r"(?:^|[/_.])inactive[/_.](?:l|layer|fc|conv|block|h)?\d+$")


def _dead_units(run: Run, q: Quoter) -> list[Signal]:
    out = []
    for s in run.series:
        n = s.name
        if (any(k in n for k in ("dead", "zero_frac", "frac_zero", "act_zero", "zero_act"))
                # (a sparsity of activations; a pruning run's "sparsity" is its weights')
                or "sparsity" in n and _ACT_SPARSITY.search(n) and not _WEIGHT_SPARSITY.search(n)
                or "inactive" in n and (any(k in n for k in ("frac", "share", "ratio", "pct", "percent"))
                                        # (or a column per layer of shares, "inactive L5": every value a share)
                                        or _INACTIVE_LAYER.search(n) and bool(np.all(s.values[np.isfinite(s.values)] <= 1.0)))) \
                and len(s):
            v = s.values[np.isfinite(s.values)]
            if not len(v):
                continue
            share = float(np.median(v[-max(1, len(v) // 4):]))
            if share > 1.0:
                share /= 100.0   # logged in percent
            if share > 0.5:
                txt = f"{s.raw_name} = {share*100:.0f}% of units output zero late in the run"
                out.append(Signal("dead_units", min(1.0, share), txt, [q.ev(s, len(s) - 1, txt)], {"share": share, "metric": n}))
                break
    return out


# A logged parameter norm ("param_norm/encoder", "weight_norm") read as unchanged: at least this many points ...
PARAMS_UNCHANGED_POINTS = 5
# ... moving no more than this share of its level in all (an update of lr 1e-5 moves a norm of 10 by ~1e-4 a step)
PARAMS_UNCHANGED_REL = 1e-7
_PARAM_NORM = re.compile(r"(?:param(?:eter)?s?|weights?)[_ ]?norm(?:/(.+))?")
# ... or a logged distance of the weights from where they started ("param_dist_from_init/trunk", "weight_change",
# "update_norm/encoder") that is exactly 0 at every point: nothing moved them
_PARAM_MOVED = re.compile(r"(?:(?:param(?:eter)?s?|weights?)[_ ]?(?:dist(?:ance)?|change|delta|diff|drift|movement|update)"
                          r"(?:_?norm)?(?:_from_init(?:ial)?)?|(?:dist(?:ance)?|delta)_from_init(?:ial)?|update_norm)(?:/(.+))?")
# ... printed with at least this many significant digits (10.12900352: a float logged whole, not rounded for a screen)
PARAMS_DIGITS = 6
# ... and a whole model's norm is read only beside a loss that fell less than this share of its start
PARAMS_WHOLE_FALL = 0.1


def _sig_digits(x: float) -> int:
    """Significant digits of x as printed in full (repr): 10.12900352 -> 10, 45.21 -> 4."""
    r = repr(abs(x))
    d = r.split("e")[0].replace(".", "").lstrip("0")
    return len(d.rstrip("0")) if "." in r else len(d)


def _fell_by(s: Series, share: float) -> bool:
    """Whether a series' last fifth (median) is below its first fifth's median by `share` of it or more."""
    v = s.values[np.isfinite(s.values)]
    if len(v) < 5:
        return False
    k = max(1, len(v) // 5)
    a, b = float(np.median(v[:k])), float(np.median(v[-k:]))
    return a > 0 and (a - b) / a >= share


# A PPO-family run's KL between the policy before and after each update (SB3's train/approx_kl, CleanRL's
# losses/approx_kl) and its clipped share
_POLICY_KL = re.compile(r"(?:.*/)?(?:old_)?approx_?kl(?:_avg|_mean)?|(?:.*/)?policy_kl")     # (TRL: policy/approxkl_avg)
# ... read only beside a policy-gradient sibling of the same file (a VAE's kl at 0 is posterior collapse, no policy)
_PPO_SIBLING = re.compile(r"(?:.*/)?(?:clip_?frac\w*|clip_fraction|policy_(?:gradient_)?loss|pg_loss|entropy(?:_loss)?)")
POLICY_KL_ZERO = 1e-8


# DPO's implicit rewards are beta * (log pi - log pi_ref): 0 for every pair while the policy is still the reference's
# weights. At the first logged step (the first DPO_FIRST_EPOCH of an epoch at most) both this far from 0, on the same
# side, or a loss this far above ln 2 (its value when policy == reference), say the reference is another checkpoint.
DPO_FIRST_EPOCH = 0.05
DPO_FIRST_REWARD = 0.5
DPO_FIRST_LOSS_ABOVE = 0.15
_NOT_DPO_LOG_RATIO = re.compile(r"nll_loss|log_odds", re.I)


def _dpo_reference_differs(run: Run, q: Quoter) -> list[Signal]:
    """dpo_reference_differs: a DPO run (rewards/chosen and rewards/rejected logged) whose first logged step already
    shows the policy far from its reference (see DPO_FIRST_REWARD): the reference model is not the weights the
    policy starts from (an earlier SFT checkpoint, another model's path)."""
    ch, rj, ep = run.metric("rewards/chosen"), run.metric("rewards/rejected"), run.metric("epoch")
    if ch is None or rj is None or len(ch) < 3 or len(rj) < 3 or ep is None or not len(ep):
        return []
    if float(np.nanmin(ep.values)) > DPO_FIRST_EPOCH:
        return []      # (the first points logged are not the first steps; a resumed run logs no early epoch)
    if any(_NOT_DPO_LOG_RATIO.search(s.name) for s in run.series):
        return []      # (ORPO / CPO / SimPO log rewards that are beta * log p, not log-ratios against a reference)
    ch = ordered(ch)
    c0, r0 = float(ch.values[0]), float(ordered(rj).values[0])
    loss = run.metric("loss")
    l0 = float(ordered(loss).values[0]) if loss is not None and len(loss) else float("nan")
    # (both positive: the policy already likelier than its reference on both answers, an earlier checkpoint as the
    # reference; a sigmoid-DPO loss above ln 2 adds to it, never stands alone: IPO, hinge and an added NLL start higher)
    if min(c0, r0) < DPO_FIRST_REWARD:
        return []
    high = math.isfinite(l0) and l0 >= math.log(2) + DPO_FIRST_LOSS_ABOVE
    txt = (f"at the first logged step rewards/chosen is {_fmt(c0)} and rewards/rejected {_fmt(r0)}"
           + (f", the loss {_fmt(l0)} (ln 2 = 0.693 while the policy is its reference)" if high else "")
           + ": the policy already differs from its reference before training moved it, so the reference is not "
           "the weights the policy starts from")
    return [Signal("dpo_reference_differs", 0.8 if high else 0.6, txt, [q.ev(ch, 0, txt)],
                   {"chosen": c0, "rejected": r0, "loss": l0 if math.isfinite(l0) else None})]


def _policy_unchanged(run: Run, q: Quoter) -> list[Signal]:
    """params_unchanged read from a policy-gradient run: the approximate KL between the policy before and after
    every update at 0 (|kl| <= POLICY_KL_ZERO at all of PARAMS_UNCHANGED_POINTS or more updates): the policy's
    weights never move (the actor left out of the optimizer, frozen, or an lr at 0), whatever the value loss does."""
    for s in run.series:
        if not _POLICY_KL.fullmatch(s.name) or len(s) < PARAMS_UNCHANGED_POINTS \
                or not any(x.source == s.source and _PPO_SIBLING.fullmatch(x.name) for x in run.series):
            continue
        v = s.values[np.isfinite(s.values)]
        if len(v) < PARAMS_UNCHANGED_POINTS or float(np.max(np.abs(v))) > POLICY_KL_ZERO:
            continue
        txt = (f"{s.raw_name} is 0 at all {len(v)} updates: the policy after each update is the policy before it, "
               "its weights are never updated")
        return [Signal("params_unchanged", 0.7, txt, [q.ev(s, 0, f"{s.raw_name} at the first update"),
                                                       q.ev(s, len(s) - 1, txt)],
                       {"metric": s.name, "value": 0.0, "points": len(v), "grad_live": False})]
    return []


# A zero printed as itself ("0", "0.0", "0e+00"), not rounded to a fixed width ("0.0000" holds 3e-5)
_EXACT_ZERO = re.compile(r"[-+]?0(?:\.0)?|[-+]?0(?:\.0*)?[eE][-+]?\d+")     # (Keras' 0.0000e+00 is an exact 0)
# ... the value printed after a name ("param_dist/trunk": 0.0, weight_change=0, update_norm 0)
_VALUE_AFTER = re.compile(r"""['"]?\s*[:=]?\s*([-+]?[\d.]+(?:[eE][-+]?\d+)?)""")


def _printed_exact_zero(run: Run, s: Series, q: Quoter) -> bool:
    """Whether the last point of `s` is printed as an exact zero: the number after its name on a log's line, or its
    column of a table's row (read from the file); a file that stores numbers as they were (JSON, YAML, an event
    file) is exact."""
    if not s.source.lower().endswith((".csv", ".tsv", ".txt", ".log", ".out", ".err")) and "." in s.source.rsplit("/", 1)[-1]:
        return True     # (JSON, YAML, an event file: the numbers stored as they were)
    e = q.ev(s, len(s) - 1, "")      # (the last point: a distance from the start is 0 at the first by construction)
    if e.line is None:
        return True
    line, header = e.quote or "", ""
    try:
        with open(Path(run.root) / s.source, encoding="utf-8", errors="replace") as f:
            header = f.readline()
            if not line:
                line = header if e.line == 1 else next(itertools.islice(f, e.line - 2, None), "")
    except OSError:
        if not line:
            return False
    at = line.find(s.raw_name)
    if at >= 0:
        m = _VALUE_AFTER.match(line, at + len(s.raw_name))
        return bool(m and _EXACT_ZERO.fullmatch(m.group(1)))
    for sep in (",", "\t", ";"):
        cols = [c.strip().strip("'\"") for c in header.rstrip("\n").split(sep)]
        if s.raw_name in cols:
            cells = line.rstrip("\n").split(sep)
            k = cols.index(s.raw_name)
            return k < len(cells) and bool(_EXACT_ZERO.fullmatch(cells[k].strip().strip("'\"")))
    return False


def _params_unchanged(run: Run, q: Quoter) -> list[Signal]:
    """params_unchanged: a logged parameter norm that stays exactly where it started over the run (or a logged
    distance from the initial weights that is 0 at every point) while a loss is logged beside it: those weights are
    never updated (frozen, or left out of the optimizer); stronger where the same
    layer's gradient norm is logged nonzero (gradients reach them, the optimizer never applies them)."""
    loss = run.metric("loss") or run.metric("val_loss")
    if loss is None or len(loss) < PARAMS_UNCHANGED_POINTS:
        return []
    for s in run.series:
        m = _PARAM_NORM.fullmatch(s.name) or _PARAM_MOVED.fullmatch(s.name)
        if m is None or len(s) < PARAMS_UNCHANGED_POINTS or FIXED_MODEL.search(s.name):
            continue        # (a teacher's or reference's weights are kept fixed on purpose)
        v = s.values[np.isfinite(s.values)]
        if len(v) < PARAMS_UNCHANGED_POINTS:
            continue
        if m.re is _PARAM_MOVED:
            if np.any(v) or not _printed_exact_zero(run, s, q):
                continue        # (the weights moved from where they started, or a 0.0000 may round a move away)
        elif not np.any(v):
            continue
        else:
            level = float(np.max(np.abs(v)))
            if float(np.max(v) - np.min(v)) > PARAMS_UNCHANGED_REL * level or _sig_digits(float(v[0])) < PARAMS_DIGITS:
                continue        # (a norm printed to 45.21 hides what a small lr moves: too few digits to say it never moved)
        layer = m.group(1)
        if layer is None and _fell_by(loss, PARAMS_WHOLE_FALL):
            continue        # the whole model's norm beside a loss that falls: some weights are updated
        g = run.metric(f"grad_norm/{layer}") if layer else run.metric("grad_norm")
        live = g is not None and bool(np.any(np.abs(g.values[np.isfinite(g.values)]) > 0))
        txt = (f"{s.raw_name} stays {_fmt(float(v[0]))} at all {len(v)} logged points while the loss is logged: "
               "these weights are never updated")
        if live and g is not None:
            txt += f" though their gradient ({g.raw_name}) is nonzero: the optimizer does not hold them"
        return [Signal("params_unchanged", 0.9 if live else 0.7, txt, [q.ev(s, 0, f"{s.raw_name} at the start"),
                                                                       q.ev(s, len(s) - 1, txt)],
                       {"metric": s.name, "value": float(v[0]), "points": len(v), "grad_live": live})]
    return []

