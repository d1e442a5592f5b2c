"""`code:scheduler_wrong_loop`: an lr scheduler stepped per batch when it counts epochs (or the
reverse), or never stepped.

In:  one parsed file (PyFile) and the run index (RunIndex), from code/index.py.
Out: `check_scheduler(f, idx)` -> Findings.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import (AMBIG_SCHED, CLEAR, EPOCH_SCHED, FUNCS, STEP_SCHED, Finding, PyFile, RunIndex,
                                         const, dotted, is_sched_ctor, last, recv, src)


def _sched_kind(c: ast.Call) -> str | None:
    """'epoch' / 'step' for how often a scheduler is meant to be stepped, None when unclear."""
    leaf = last(c)
    text = " ".join(src(a) for a in list(c.args[1:]) + [k.value for k in c.keywords]).lower()
    if leaf in STEP_SCHED or re.match(r"get_\w*schedule", leaf) or leaf == "get_scheduler":
        return "step"
    if leaf in ("StepLR", "MultiStepLR"):
        nums = [v for v in (const(a) for a in list(c.args[1:]) + [k.value for k in c.keywords])
                if isinstance(v, (int, list, tuple))]
        big = any((isinstance(v, int) and v >= 1000) or (isinstance(v, (list, tuple)) and any(isinstance(x, int) and x >= 1000 for x in v)) for v in nums)
        if big or re.search(r"iter|step|len\(", text.replace("step_size", "")):
            return "step"
        return "epoch"
    if leaf in EPOCH_SCHED:
        return "epoch"
    if leaf in AMBIG_SCHED:
        if "warmup" in text:
            return "step"
        if re.search(r"epoch", text):
            return "epoch"
        if re.search(r"iter|steps|len\(|total", text):
            return "step"
    return None


def _fn_training_shape(f: PyFile) -> dict[str, str]:
    """Function name -> 'step' (backward, no loop) or 'epoch' (loop around backward)."""
    out: dict[str, str] = {}
    for b in f.backward_calls:
        fn = f.scope_of(b)
        if isinstance(fn, FUNCS):
            shape = "epoch" if f.loops_of(b) else "step"
            out[fn.name] = "epoch" if out.get(fn.name) == "epoch" else shape
    return out


def _level(f: PyFile, call: ast.Call, shapes: dict[str, str]) -> str | None:
    """Is this call at batch level or epoch level of the training loop?"""
    scope = f.scope_of(call)
    loops = f.loops_of(call)
    region = loops[0] if loops else scope
    inner_bw = [b for b in f.backward_in(scope) if region is scope or f.inside(b, region)]
    if loops:
        L = loops[0]
        if any(f.loops_of(b)[:1] == [L] for b in inner_bw):
            return "batch"
        if any(L in f.loops_of(b)[1:] for b in inner_bw):
            return "epoch"
        called = {last(c) for c in f.within(L) if isinstance(c, ast.Call)}
        kinds = {shapes[n] for n in called if n in shapes}
        if "epoch" in kinds:
            return "epoch"
        if "step" in kinds:
            return "batch"
        t = L.target if isinstance(L, (ast.For, ast.AsyncFor)) else None
        tgt = src(t).lower() if t is not None else ""
        it = src(L.iter).lower() if isinstance(L, (ast.For, ast.AsyncFor)) else ""
        if "epoch" in tgt:
            return "epoch"
        if "loader" in it or "batch" in tgt:
            return "batch"
        return None
    if inner_bw:
        return "epoch" if any(f.loops_of(b) for b in inner_bw) else "batch"
    return None


def check_scheduler(f: PyFile, idx: RunIndex) -> list[Finding]:
    if not f.has_training() and not any(isinstance(fn, ast.FunctionDef) and fn.name == "configure_optimizers"
                                        for fn in f.of_type(ast.FunctionDef)):
        return []       # (a LightningModule trains without a backward() of its own)
    out = []
    shapes = _fn_training_shape(f)
    scheds = {}
    for n in f.of_type(ast.Assign):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and is_sched_ctor(n.value):
            for t in n.targets:
                d = dotted(t)
                if d:
                    scheds[d] = (n.value, n.lineno)
    for name, (ctor, line) in scheds.items():
        kind = _sched_kind(ctor)
        leaf = name.rsplit(".", 1)[-1]
        steps = [c for c in f.calls_named("step") if (dotted(recv(c)) or "").rsplit(".", 1)[-1] == leaf]
        lit = _lightning_interval(f, name)
        if kind is not None and lit is not None:
            interval, at = lit
            if kind == "epoch" and interval == "step":
                out.append(Finding("code:scheduler_wrong_loop", CLEAR, at,
                                   f"{last(ctor)} counts epochs but Lightning steps it every batch (interval 'step'):"
                                   " the lr decays len(loader) times too fast", [(line, "scheduler created here")]))
            elif kind == "step" and interval == "epoch":
                out.append(Finding("code:scheduler_wrong_loop", CLEAR, at,
                                   f"{last(ctor)} counts optimizer steps but Lightning steps it once per epoch"
                                   " (interval 'epoch', its default): warm-up/decay barely moves",
                                   [(line, "scheduler created here")]))
            continue
        if not steps:
            if leaf in idx.sched_steps or _escapes(f, name):
                continue
            out.append(Finding("code:scheduler_wrong_loop", 0.6, line,
                               f"scheduler {name} ({last(ctor)}) is created but never stepped: the lr stays at its"
                               " initial value"))
            continue
        if kind is None:
            continue
        for s in steps:
            lvl = _level(f, s, shapes)
            if kind == "epoch" and lvl == "batch":
                out.append(Finding("code:scheduler_wrong_loop", CLEAR, s.lineno,
                                   f"{last(ctor)} counts epochs but is stepped every batch: the lr decays"
                                   f" len(loader) times too fast", [(line, "scheduler created here")]))
            elif kind == "step" and lvl == "epoch":
                out.append(Finding("code:scheduler_wrong_loop", CLEAR, s.lineno,
                                   f"{last(ctor)} counts optimizer steps but is stepped once per epoch: warm-up/decay"
                                   " barely moves", [(line, "scheduler created here")]))
    return out


def _lightning_interval(f: PyFile, name: str) -> tuple[str, int] | None:
    """How often Lightning steps scheduler `name` that configure_optimizers returns, and the line that says so:
    a {"scheduler": name, "interval": ...} dict's interval, or 'epoch' (Lightning's default) for a dict without
    one or a bare `return [opt], [name]`; None when the file does not hand it to Lightning."""
    for fn in f.of_type(ast.FunctionDef):
        if not isinstance(fn, ast.FunctionDef) or fn.name != "configure_optimizers":
            continue
        for n in f.subtree(fn):
            if isinstance(n, ast.Dict):
                keys = {const(k): v for k, v in zip(n.keys, n.values) if k is not None}
                if "scheduler" in keys and dotted(keys["scheduler"]) == name:
                    iv = const(keys["interval"]) if "interval" in keys else "epoch"
                    return (iv, n.lineno) if iv in ("step", "epoch") else None
            elif isinstance(n, ast.Return) and isinstance(n.value, ast.Tuple) and len(n.value.elts) == 2:
                second = n.value.elts[1]
                if isinstance(second, (ast.List, ast.Tuple)) and any(dotted(e) == name for e in second.elts):
                    return "epoch", n.lineno
    return None


def _escapes(f: PyFile, name: str) -> bool:
    """Is the variable handed to something else (a call, a return, a container)?"""
    for n in f.of_type(ast.Call, ast.Return, ast.Yield, ast.Dict, ast.Tuple, ast.List):
        if isinstance(n, ast.Call):
            for a in list(n.args) + [k.value for k in n.keywords]:
                if any(dotted(x) == name for x in f.subtree(a)):
                    return True
        elif isinstance(n, (ast.Return, ast.Yield)) and n.value is not None:
            if any(dotted(x) == name for x in f.subtree(n.value)):
                return True
        elif isinstance(n, (ast.Dict, ast.Tuple, ast.List)) and not isinstance(f.parent.get(n), ast.Call):
            if any(dotted(x) == name for x in f.subtree(n)):
                return True
    return False
