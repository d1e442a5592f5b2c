"""`code:load_not_strict`: weights loaded in a way that drops what does not fit, without a look at it.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_strict_load(f)` -> Findings.

`model.load_state_dict(sd, strict=False)` skips every key that does not match the model, without a
word: a checkpoint saved under DDP ("module.conv1.weight") or from a renamed class loads nothing, and
the model evaluates its random initialization. Keras' `load_weights(..., skip_mismatch=True)` does the
same to layers whose shapes differ. The finding is clear when the call's result (the missing and
unexpected keys) is thrown away, and weak when it is kept (the code may look at it).
"""
from __future__ import annotations

import ast

from mltdbg.analyzers.code.index import CLEAR, WEAK, Finding, PyFile, const, kwarg


def check_strict_load(f: PyFile) -> list[Finding]:
    loose = {id(c): c for c in f.calls_named("load_state_dict") if const(kwarg(c, "strict"), True) is False}
    loose |= {id(c): c for c in f.calls_named("load_weights") if const(kwarg(c, "skip_mismatch"), False) is True}
    if not loose:
        return []
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
    return out[:1]
