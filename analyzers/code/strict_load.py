"""`code:load_not_strict`: weights loaded in a way that drops what does not fit, without a look at it.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_strict_load(f)` -> Findings.

`model.load_state_dict(sd, strict=False)` skips every key that does not match the model, without a
word: a checkpoint saved under DDP ("module.conv1.weight") or from a renamed class loads nothing, and
the model evaluates its random initialization. Keras' `load_weights(..., skip_mismatch=True)` does the
same to layers whose shapes differ. The finding is clear when the call's result (the missing and
unexpected keys) is thrown away, and weak when it is kept (the code may look at it). Also a
stable-baselines3 `model.load(path)` whose result is thrown away: it loads nothing into `model`.

`code:checkpoint_sorted_as_text`: the "latest" checkpoint taken as the last of `sorted(glob("checkpoint-*"))` (or
the `max` of the names) with no key: names sort as text, so checkpoint-500 comes after checkpoint-4500 and the
run evaluates or resumes an early checkpoint.
"""
from __future__ import annotations

import ast

import re

from mltdbg.analyzers.code.index import CLEAR, MEDIUM, WEAK, Finding, PyFile, const, kwarg, last, src


# stable-baselines3's algorithms (and sb3-contrib's): `load` is a classmethod that returns a new model
_SB3 = frozenset({"PPO", "A2C", "DQN", "SAC", "TD3", "DDPG", "HER", "TRPO", "QRDQN", "RecurrentPPO", "MaskablePPO", "ARS", "TQC"})


def _load_result_discarded(f: PyFile) -> list[Finding]:
    """`model.load("ppo_cartpole")` as a statement on a stable-baselines3 model: `load` builds and returns a
    new model (a classmethod); the instance it is called on keeps its untrained weights."""
    for n in f.of_type(ast.Expr):
        c = n.value if isinstance(n, ast.Expr) else None
        if not isinstance(c, ast.Call) or last(c) != "load" or not isinstance(c.func, ast.Attribute) \
                or not isinstance(c.func.value, ast.Name):
            continue
        v = f.value_of(c.func.value.id, f.scope_of(c), c.lineno)
        if isinstance(v, ast.Call) and last(v) in _SB3:
            return [Finding("code:load_not_strict", CLEAR, c.lineno,
                            f"{src(c)[:60]} throws its result away: {last(v)}.load() returns a new model (a classmethod)"
                            f" and {c.func.value.id} keeps its untrained weights; write {c.func.value.id} = "
                            f"{last(v)}.load(...)", data={"discarded": True})]
    return []


# a listing of checkpoints: glob / listdir / iterdir whose pattern (or the code around) names them
_LISTING = ("glob", "iglob", "listdir", "iterdir", "rglob", "scandir")
_CKPT_WORD = re.compile(r"ckpt|checkpoint|epoch|step|iter|\.pth?\b|\.bin\b|\.safetensors|\.h5|\.keras|model_", re.I)


def _sorted_as_text(f: PyFile) -> list[Finding]:
    """`sorted(glob(...checkpoint...))[-1]` or `max(glob(...))` with no key (see the module docstring)."""
    for n in f.of_type(ast.Subscript, ast.Call):
        if isinstance(n, ast.Subscript):
            sl = n.slice
            if not (isinstance(sl, ast.UnaryOp) and isinstance(sl.op, ast.USub) and const(sl.operand) == 1):
                continue
            inner: ast.AST = n.value
            if isinstance(inner, ast.Name):     # ckpts = sorted(glob(...)); ... ckpts[-1]
                inner = f.value_near(inner.id, n) or inner
            if not (isinstance(inner, ast.Call) and last(inner) == "sorted" and inner.args):
                continue
            call, lst = inner, inner.args[0]
        elif isinstance(n, ast.Call) and last(n) == "max" and isinstance(n.func, ast.Name) and len(n.args) == 1:
            call, lst = n, n.args[0]
        else:
            continue
        if any(k.arg == "key" for k in call.keywords):
            continue
        listing = [c for c in f.subtree(lst) if isinstance(c, ast.Call) and last(c) in _LISTING]
        if listing and _CKPT_WORD.search(src(lst)):
            return [Finding("code:checkpoint_sorted_as_text", MEDIUM, n.lineno,
                            f"{src(n)[:70]} takes the last checkpoint name in text order: checkpoint-500 sorts after "
                            "checkpoint-4500, so an early checkpoint is taken for the latest (sort by the number)")]
    return []


def check_strict_load(f: PyFile) -> list[Finding]:
    if found := _load_result_discarded(f):
        return found
    in_order = _sorted_as_text(f)       # (a kind of its own: reported beside a loose load, not instead of it)
    loose = {id(c): c for c in f.calls_named("load_state_dict") if const(kwarg(c, "strict"), True) is False}
    loose |= {id(c): c for c in f.calls_named("load_weights") if const(kwarg(c, "skip_mismatch"), False) is True}
    if not loose:
        return in_order
    dropped = {id(n.value) for n in f.of_type(ast.Expr) if isinstance(n, ast.Expr) and id(n.value) in loose}
    out = []
    for key, c in loose.items():
        if key in dropped:
            out.append(Finding("code:load_not_strict", CLEAR, c.lineno,
                               "weights are loaded with strict=False (or skip_mismatch) and the missing/unexpected"
                               " keys are never looked at: a checkpoint whose names do not match (a 'module.' prefix"
                               " from DDP, a renamed layer) loads nothing, and the model keeps its random weights"))
        else:
            out.append(Finding("code:load_not_strict", WEAK, c.lineno,
                               "weights are loaded with strict=False (or skip_mismatch): keys that do not match are"
                               " skipped; check the missing/unexpected keys it returns"))
    return out[:1] + in_order
