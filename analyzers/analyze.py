"""Ingest -> signals: the whole UI-free analysis of a run in one call.

`analyze(run, baseline, repo_root)` runs every analyzer and returns their signals;
each analyzer is independent, and one that fails adds a warning instead of
stopping the others.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from mltdbg.analyzers.curves import (Quoter, loss_terms, ordered, restart_jump, resume_jump, resume_lr_jump, without,
                                     without_healthy)
from mltdbg.analyzers.model import LOC_LINE, Run, Series, Signal
from mltdbg.analyzers.names import is_held_out


# (step name, analyzer module, function): what prepare() fills in, what analyze() runs on the run
# alone, against a baseline, and last (the gap analyzer reads the other signals' kinds).
_PREPARE = (("tracebacks", "tracebacks", "extract_tracebacks"), ("facts", "config", "extract_facts"))
_STEPS = (("curves", "curves", "curve_signals"), ("log text", "log_findings", "text_signals"),
          ("config", "config", "config_signals"), ("code", "code", "code_signals"),
          ("frozen metric", "frozen_metric", "frozen_metric_signals"),
          ("zero accuracy", "frozen_metric", "zero_accuracy_signals"),
          ("zero loss", "frozen_metric", "zero_loss_signals"),
          ("zero recall", "frozen_metric", "zero_recall_signals"),
          ("data tables", "data_tables", "data_table_signals"), ("probes", "probes.results", "probe_signals"),
          ("ranks", "crossrank", "rank_signals"), ("posted diff", "baseline", "posted_diff_signals"),
          ("versions", "baseline", "version_pair_signals"))
_BASELINE = ("baseline", "baseline", "compare")
_GAP = ("gap", "gap", "gap_signals")
# every module the steps load by name (warm() loads them ahead of a first call)
MODULES = tuple(dict.fromkeys(mod for _, mod, _ in (*_PREPARE, *_STEPS, _BASELINE, _GAP)))


def warm() -> None:
    """Import every analyzer module now (a caller with idle time; analyze() would on its first call)."""
    for mod in MODULES:
        importlib.import_module(f"{__package__}.{mod}")


def _call(mod: str, fn: str, *a):
    """`mod.fn(*a)`, the module imported on the call (inside the caller's try: a module that fails to
    import costs its own signals only)."""
    return getattr(importlib.import_module(f"{__package__}.{mod}"), fn)(*a)


def prepare(run: Run) -> None:
    """Fill the derived parts of a run (tracebacks, facts) once, in place."""
    for step, mod, fn in _PREPARE:
        try:
            _call(mod, fn, run)
        except Exception as e:  # noqa: BLE001 - one analyzer's bug must not lose the diagnosis
            run.warnings.append(f"(analysis) {step} extraction failed: {type(e).__name__}: {e}")


def analyze(run: Run, baseline: Run | None = None, repo_root: Path | None = None) -> list[Signal]:
    """Every signal the analyzers find in `run` (and against `baseline`, when given)."""
    prepare(run)
    if baseline is not None:
        prepare(baseline)
    out: list[Signal] = []
    steps: list[tuple[str, Callable[[], list[Signal]]]] = [
        (name, partial(_call, mod, fn, run)) for name, mod, fn in _STEPS]
    if baseline is not None:
        steps.append((_BASELINE[0], partial(_call, *_BASELINE[1:], run, baseline, repo_root)))
    for name, step in steps:
        try:
            out += step()
        except Exception as e:  # noqa: BLE001
            run.warnings.append(f"(analysis) {name} analyzer failed: {type(e).__name__}: {e}")
    try:    # needs the curve signals: a gap the curves already explain is not repeated
        out += _call(*_GAP[1:], run, {s.kind for s in out})
    except Exception as e:  # noqa: BLE001
        run.warnings.append(f"(analysis) {_GAP[0]} analyzer failed: {type(e).__name__}: {e}")
    # each side of a resume may fall as a healthy curve does, but not across the resume; nor is a run healthy whose
    # optimizer setting is lost to a misspelled key, or whose scheduler is stepped at the wrong interval (it trains,
    # worse than its recipe); nor one whose recall or Dice is exactly 0 throughout (the majority class everywhere); nor
    # one that a framework, autograd's anomaly mode or the script itself stopped for a non-finite loss (the NaN is in
    # the words, not among the logged values)
    out = without_healthy(out + _resume_jumps(run, out), {"loss_jump_at_resume", "config:key_misspelled",
                                                           "code:scheduler_wrong_loop", "recall_zero",
                                                           "log:loss_nonfinite", "log:anomaly_nan"})
    # transformers' "newly initialized: ['classifier.bias', ...]" before a run that then trained well is the
    # start of a fine-tune, not weights that failed to load
    out = without(out, "log:missing_keys", {"healthy"}, lambda s: bool(s.data.get("expected")))
    # a validation accuracy of exactly 0 where the validation loss is NaN: NaN outputs score 0, one failure
    # (the accuracy is not a metric that measures something else)
    out = without(out, "accuracy_zero", {"val_nonfinite_only"}, lambda s: is_held_out(str(s.data.get("metric", ""))))
    # a score that never moves while the loss falls, beside parts of the model whose gradient is exactly 0: the loss's
    # own parameters learn (a CosFace / proxy layer's class weights) while the frozen network's outputs, which the
    # score is computed from, stay as they were; the score is the model's, not another measure's
    out = without(out, "accuracy_stuck_loss_falls", {"grad_zero", "grad_zero_below_head"})
    # gradients exactly 0 beside ReLU units that never fire (biases initialised at -1 or below, a logged share of dead
    # units): a dead unit passes no gradient back, so the zeros are the dead units', not parameters cut off from training
    out = without(out, "grad_zero", {"config:bias_init_negative", "dead_units"})
    out += _batchnorm_train_behind(out)
    return [s for s in out if s.strength > 0]


def _batchnorm_train_behind(out: list[Signal]) -> list[Signal]:
    """batchnorm_train_behind: training accuracy below validation's (val_above_train, by accuracy) in a run whose
    batch of 1-4 goes through batch norm (config:batch_size_tiny with batch norm in the code). Training scores
    with each batch's own mean and variance, noisy at that size; evaluation with the running averages: the gap is
    the batch size's, not wrong training labels (which val_above_train alone reads as)."""
    tiny = next((s for s in out if s.kind == "config:batch_size_tiny" and s.data.get("batchnorm")), None)
    above = next((s for s in out if s.kind == "val_above_train" and s.data.get("by") == "accuracy"), None)
    if tiny is None or above is None:
        return []
    return [Signal("batchnorm_train_behind", min(tiny.strength, above.strength), f"{above.summary}, with {tiny.summary}",
                   above.evidence[:1] + tiny.evidence[:1], {"batch_size": tiny.data.get("batch_size"), "gap": above.data.get("gap")})]


def _step_after_line(s: Series, sig: Signal) -> int | None:
    """The step of the first point of `s` logged after the line a resume message was cited at, in the
    same file ("Resuming from checkpoint ckpt/epoch3.pt" names no step; the loss line after it does), whichever of the
    message's citations is in that file."""
    # (the resume message in the series' own file: a notes table can say "resumed" first, the log at its line)
    ev = next((e for e in sig.evidence if e.line is not None and e.source == s.source), None)
    if ev is None or s.loc_kind != LOC_LINE or s.locs is None:
        return None
    after = np.flatnonzero(s.locs > ev.line)
    if not len(after) or not (s.locs < ev.line).any():
        return None
    return int(s.steps[after[0]])


def _resume_jumps(run: Run, signals: list[Signal]) -> list[Signal]:
    """A loss jump at a step where the log says it resumed, or where steps restart: there the
    attempts before and after the restart are compared at the steps both logged (restart_jump),
    on the loss and on each other training loss term (a GAN's or a multi-term model's
    `contrastive loss`), the largest jump kept."""
    loss, lr = run.metric("loss"), run.metric("lr")
    s = ordered(loss) if loss is not None else None
    lrs = ordered(lr) if lr is not None else None
    q = Quoter(run)
    seen = set()
    out = []
    for sig in signals:
        if sig.kind not in ("log:resume", "step_restart", "lr_rewarm"):
            continue
        st = sig.data.get("step")
        if not isinstance(st, int) and loss is not None:
            st = _step_after_line(loss, sig)
        if isinstance(st, int):
            if st in seen:
                continue
            seen.add(st)
            # (where the lr warms up again mid-run, the resume it points to is there: the loss is read across it)
            jump = resume_jump(s, st, q) if s is not None and sig.kind in ("log:resume", "lr_rewarm") else None
            if sig.kind == "step_restart":
                jumps = [j for j in (restart_jump(x, q) for x in loss_terms(run)) if j is not None]
                jump = max(jumps, key=lambda j: j.strength, default=None)
            for j in (jump, resume_lr_jump(lrs, st, q) if lrs is not None and sig.kind != "lr_rewarm" else None):
                if j is not None:
                    out.append(j)
    return out

