"""Probes as checks: for the causes a probe can confirm or deny, the `mltdbg probe ...` command that
runs as is, built from what the run's artifacts name (a model class in its code, a checkpoint, data
files, facts such as num_classes and batch_size). None when the run does not name what the probe needs.

In: a cause id and the DiagnosisContext. Out: one shell command. Paths are relative to the repo root
when one is known (where the TUI runs checks), else to the run folder.
"""
from __future__ import annotations

import shlex
from pathlib import Path

from mltdbg.analyzers.probes import targets

# Which probe checks which cause (the map; causes without a probe keep their playbook command).
PROBE_FOR = {
    "architecture_imbalance": "params",
    "vanishing_gradients": "gradients", "exploding_gradients": "gradients", "dead_relu": "gradients",
    "frozen_parameters": "gradients",
    "nan_in_data": "nan-hunt", "numerical_instability": "nan-hunt",
    "cuda_oom": "memory",
    "wrong_checkpoint": "checkpoint", "resume_mismatch": "checkpoint",
    "host_oom": "box",
    "unnormalized_inputs": "data", "data_leakage": "data", "label_out_of_range": "data",
}
# Batch sizes above this are probed at this size on a synthetic batch (a probe is one step, not a run).
MAX_PROBE_BATCH = 256


def _where(ctx, rel: str) -> str | None:
    """`rel` (relative to the run root) as the check will see it; None when the file is not there."""
    p = (ctx.run.root / rel).resolve()
    if not p.exists():
        return None
    base = Path(ctx.repo_root).resolve() if ctx.repo_root else ctx.run.root.resolve()
    try:
        return p.relative_to(base).as_posix()
    except ValueError:
        return str(p)


def _target(ctx) -> str | None:
    for t in targets.model_targets(ctx.run):
        path = _where(ctx, t.path)
        if path is not None:
            return f"{path}:{t.name}"
    return None


def _fact(ctx, name: str):
    f = ctx.run.fact(name)
    return f.value if f is not None else None


def _int(v) -> int | None:
    try:
        n = int(str(v))
    except (TypeError, ValueError):
        return None
    return n if n > 0 else None


def probe_command(cause_id: str, ctx) -> str | None:
    """The probe check for a cause, or None."""
    probe = PROBE_FOR.get(cause_id)
    if probe is None:
        return None
    q = shlex.quote
    if probe == "box":
        return "mltdbg probe box"
    if probe == "data":
        files = [w for w in (_where(ctx, f) for f in targets.data_files(ctx.run)) if w]
        pair = targets.train_val_pair(files)
        if pair is None:
            return None
        k = _int(_fact(ctx, "num_classes"))
        if cause_id == "label_out_of_range" and k is None:
            return None            # without the class count the playbook's own check says more
        if cause_id == "data_leakage" and pair[1] is None:
            return None
        cmd = f"mltdbg probe data {q(pair[0])}"
        if pair[1] and cause_id == "data_leakage":
            cmd += f" --val {q(pair[1])}"
        if k is not None:
            cmd += f" --num-classes {k}"
        return cmd
    if probe == "checkpoint":
        ck = [w for w in (_where(ctx, f) for f in targets.checkpoint_files(ctx.run)) if w]
        if not ck:
            return None
        t = _target(ctx)
        return f"mltdbg probe checkpoint {q(ck[-1])}" + (f" --target {q(t)}" if t else "")
    if cause_id == "nan_in_data":
        files = [w for w in (_where(ctx, f) for f in targets.data_files(ctx.run)) if w]
        pair = targets.train_val_pair(files)
        if pair is not None:
            return f"mltdbg probe data {q(pair[0])}"
    t = _target(ctx)
    if t is None:
        return None
    if probe == "params":
        return f"mltdbg probe params {q(t)}"
    if probe == "gradients":
        return f"mltdbg probe gradients {q(t)} --batch auto"
    if probe == "memory":
        bs = _int(_fact(ctx, "batch_size"))
        return f"mltdbg probe memory {q(t)} --batch auto" + (f" --batch-size {min(bs, MAX_PROBE_BATCH)}" if bs else "")
    return f"mltdbg probe nan-hunt {q(t)} --batch auto --steps 50"
