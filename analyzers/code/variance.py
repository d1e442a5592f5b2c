"""`code:var_single_element`: unbiased variance over a dimension of size 1 (or a batch of one).

In:  one parsed file (PyFile, from code/index.py).
Out: `check_var(f)` -> Findings.
"""
from __future__ import annotations

import ast

from mltdbg.analyzers.code.index import HINT, PASSTHRU, Finding, PyFile, arg, const, core, fname, kwarg, recv, src


def check_var(f: PyFile) -> list[Finding]:
    out = []
    # a file whose imports hold no torch library calls numpy's or pandas' .std()/.var(): numpy's default ddof is 0
    # (no division by zero), and a pandas frame of one row is no batch of one (a snippet without its imports is
    # not known to be numpy: its hint stays)
    torch_file = f.uses_torch or not f.imports
    for c in f.calls_named("var", "std"):
        fn = fname(c)
        is_np = fn.split(".")[0] in ("np", "numpy")
        if is_np:
            if const(kwarg(c, "ddof"), 0) == 1:
                out.append(Finding("code:var_single_element", HINT, c.lineno,
                                   "variance with ddof=1 is NaN when the axis holds one element"))
            continue
        if const(kwarg(c, "unbiased"), True) is False or const(kwarg(c, "correction"), 1) == 0:
            continue
        is_method = fn not in ("torch.var", "torch.std", "th.var", "th.std")
        if is_method and not torch_file:
            continue
        x = recv(c) if is_method else arg(c, 0, "input")
        dim = arg(c, 0 if is_method else 1, "dim")
        if x is None or dim is None:
            continue
        d = const(dim)
        if not isinstance(d, int):
            continue
        scope = f.scope_of(c)
        base = x
        if isinstance(core(x), ast.Name):
            v = f.value_of(core(x).id, scope, c.lineno)
            base = v if v is not None else x
        if _size_one_along(base, d):
            out.append(Finding("code:var_single_element", 0.75, c.lineno,
                               f"{fn.rsplit('.', 1)[-1]}() over dim {d}, which has size 1: the unbiased estimate"
                               " divides by 0 (degrees of freedom <= 0)"))
        elif d == 0 and not (isinstance(scope, ast.Module) and not f.loops_of(c)):
            # (at a script's top level, outside any loop, `X.std(0)` standardises a whole data set: no batch there)
            out.append(Finding("code:var_single_element", HINT, c.lineno,
                               "unbiased variance over the batch dimension is NaN for a batch of one"))
    return out


def _size_one_along(e: ast.AST, d: int) -> bool:
    """Does the expression's dimension d literally have size 1?"""
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
        m = e.func.attr
        if m == "unsqueeze" and const(arg(e, 0, "dim")) == d:
            return True
        if m in ("mean", "sum", "amax", "amin", "max", "min", "norm") and const(kwarg(e, "keepdim")) is True \
                and const(arg(e, 0, "dim")) == d:
            return True
        if m in ("view", "reshape") and e.args:
            shape = [const(a) for a in e.args]
            if len(e.args) == 1 and isinstance(shape[0], tuple):
                shape = list(shape[0])
            try:
                return shape[d] == 1
            except IndexError:
                return False
        if m in PASSTHRU:
            return _size_one_along(e.func.value, d)
    if isinstance(e, ast.Subscript):
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        if d < 0:
            d = len(idx) + d if not any(isinstance(i, ast.Constant) and i.value is Ellipsis for i in idx) else len(idx) + d
        if 0 <= d < len(idx):
            s = idx[d]
            if isinstance(s, ast.Constant) and s.value is None:
                return True
            if isinstance(s, ast.Slice) and s.upper is not None:
                lo = const(s.lower, 0) if s.lower is not None else 0
                hi = const(s.upper)
                if isinstance(lo, int) and isinstance(hi, int) and hi - lo == 1:
                    return True
                if s.lower is not None and isinstance(s.upper, ast.BinOp) and isinstance(s.upper.op, ast.Add) \
                        and src(s.upper.left) == src(s.lower) and const(s.upper.right) == 1:
                    return True
            if isinstance(s, ast.List) and len(s.elts) == 1:
                return True
    return False
