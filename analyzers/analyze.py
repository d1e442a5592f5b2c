"""Ingest -> signals: the whole UI-free analysis of a run in one call.

`analyze(run, baseline, repo_root)` runs every analyzer and returns their signals;
each analyzer is independent, and one that fails adds a warning instead of
stopping the others.
"""
from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

from mltdbg.analyzers.curves import Quoter, ordered, resume_jump, resume_lr_jump
from mltdbg.analyzers.model import LOC_LINE, Run, Series, Signal


# Every analyzer module analyze() (and prepare) loads by name; warm() loads them ahead of a first call.
MODULES = ("tracebacks", "config", "curves", "log_findings", "code", "frozen_metric", "data_tables",
           "probes.results", "crossrank", "gap", "baseline")


def warm() -> None:
    """Import every analyzer module now (a caller with idle time; analyze() would on its first call)."""
    for mod in MODULES:
        importlib.import_module(f"{__package__}.{mod}")


def prepare(run: Run) -> None:
    """Fill the derived parts of a run (tracebacks, facts) once, in place."""
    for step, mod, fn in (("tracebacks", "tracebacks", "extract_tracebacks"), ("facts", "config", "extract_facts")):
        try:
            getattr(importlib.import_module(f"{__package__}.{mod}"), fn)(run)
        except Exception as e:  # noqa: BLE001 - one analyzer's bug must not lose the diagnosis
            run.warnings.append(f"(analysis) {step} extraction failed: {type(e).__name__}: {e}")


def analyze(run: Run, baseline: Run | None = None, repo_root: Path | None = None) -> list[Signal]:
    """Every signal the analyzers find in `run` (and against `baseline`, when given)."""

    def call(mod: str, fn: str, *a):
        assert mod in MODULES, mod    # (warm() loads MODULES: keep the list whole)
        return getattr(importlib.import_module(f"{__package__}.{mod}"), fn)(*a)
    prepare(run)
    if baseline is not None:
        prepare(baseline)
    out: list[Signal] = []
    steps = [("curves", lambda: call("curves", "curve_signals", run)),
             ("log text", lambda: call("log_findings", "text_signals", run)),
             ("config", lambda: call("config", "config_signals", run)),
             ("code", lambda: call("code", "code_signals", run)),
             ("frozen metric", lambda: call("frozen_metric", "frozen_metric_signals", run)),
             ("data tables", lambda: call("data_tables", "data_table_signals", run)),
             ("probes", lambda: call("probes.results", "probe_signals", run)),
             ("ranks", lambda: call("crossrank", "rank_signals", run))]
    if baseline is not None:
        steps.append(("baseline", lambda: call("baseline", "compare", run, baseline, repo_root)))
    for name, fn in steps:
        try:
            out += fn()
        except Exception as e:  # noqa: BLE001
            run.warnings.append(f"(analysis) {name} analyzer failed: {type(e).__name__}: {e}")
    try:    # needs the curve signals: a gap the curves already explain is not repeated
        out += call("gap", "gap_signals", run, {s.kind for s in out})
    except Exception as e:  # noqa: BLE001
        run.warnings.append(f"(analysis) gap analyzer failed: {type(e).__name__}: {e}")
    out += _resume_jumps(run, out)
    return [s for s in out if s.strength > 0]


def _step_after_line(s: Series, sig: Signal) -> int | None:
    """The step of the first point of `s` logged after the line a resume message was cited at, in the
    same file ("Resuming from checkpoint ckpt/epoch3.pt" names no step; the loss line after it does)."""
    ev = next((e for e in sig.evidence if e.line is not None), None)
    if ev is None or s.source != ev.source or s.loc_kind != LOC_LINE or s.locs is None:
        return None
    after = np.flatnonzero(s.locs > ev.line)
    if not len(after) or not (s.locs < ev.line).any():
        return None
    return int(s.steps[after[0]])


def _resume_jumps(run: Run, signals: list[Signal]) -> list[Signal]:
    """A loss jump at a step where the log says it resumed, or where steps restart."""
    loss, lr = run.metric("loss"), run.metric("lr")
    if loss is None and lr is None:
        return []
    s = ordered(loss) if loss is not None else None
    lrs = ordered(lr) if lr is not None else None
    q = Quoter(run)
    seen = set()
    out = []
    for sig in signals:
        if sig.kind not in ("log:resume", "step_restart"):
            continue
        st = sig.data.get("step")
        if not isinstance(st, int) and loss is not None:
            st = _step_after_line(loss, sig)
        if isinstance(st, int):
            if st in seen:
                continue
            seen.add(st)
            for j in (resume_jump(s, st, q) if s is not None else None,
                      resume_lr_jump(lrs, st, q) if lrs is not None else None):
                if j is not None:
                    out.append(j)
    return out
