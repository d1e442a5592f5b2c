"""`code:unsafe_div_std`: division by a std/var without an epsilon.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_div_std(f)` -> Findings.
"""
from __future__ import annotations

import ast

from mltdbg.analyzers.code.index import WEAK, Finding, PyFile, core, dotted, last, safe_from_zero, src


def _std_like(e: ast.AST) -> bool:
    c = core(e)
    if isinstance(c, ast.Call):
        if last(c) in ("std", "var"):
            return True
        if last(c) == "sqrt" and any(isinstance(n, ast.Call) and last(n) == "var" for n in ast.walk(c)):
            return True
    return False


def check_div_std(f: PyFile) -> list[Finding]:
    out = []
    for n in f.of_type(ast.BinOp, ast.AugAssign):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
            right = n.right
        elif isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Div):
            right = n.value
        else:
            continue
        scope = f.scope_of(n)
        bad = _std_like(right) and not safe_from_zero(f, scope, right, n.lineno, 2)
        if not bad and isinstance(core(right), (ast.Name, ast.Attribute)):
            v = f.value_of(dotted(core(right)), scope, n.lineno)
            bad = v is not None and _std_like(v) and not safe_from_zero(f, scope, v, n.lineno, 2)
        if bad:
            out.append(Finding("code:unsafe_div_std", WEAK, n.lineno,
                               f"division by {src(right)} without an epsilon: inf/NaN when the values are all equal"))
    return out
