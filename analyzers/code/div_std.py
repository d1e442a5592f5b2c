"""`code:unsafe_div_std`: division by a std/var without an epsilon; `code:unsafe_sqrt`: the square root
of a computed value that can be 0 (a distance, a sum of squares), with no epsilon.

sqrt's slope 1/(2 sqrt(x)) is infinite at 0: a distance between a prediction and its target that
reaches 0 sends inf back, and the square feeding it multiplies that by 0 -> NaN gradients (the
custom "Euclidean / GPS distance" loss that turns NaN at a random step). The value itself is fine,
so the loss curve looks healthy up to the step where it turns NaN.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_div_std(f)`, `check_sqrt(f)` -> Findings.
"""
from __future__ import annotations

import ast

from mltdbg.analyzers.code.index import WEAK, Finding, PyFile, core, dotted, fname, last, safe_from_zero, src


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


# The square roots that carry gradients: a framework's sqrt (torch / TensorFlow / Keras backend / JAX) or a
# tensor's .sqrt(), and `x ** 0.5`; math.sqrt and numpy's take plain numbers and give no gradient.
_GRAD_SQRT_MODULES = ("torch", "th", "tf", "K", "jnp", "jax", "backend", "F", "keras", "ops")
# Calls and ops that build a value that can be exactly 0 from tensors: the usual insides of a distance. (A
# variance's root is a std: what it divides is code:unsafe_div_std's, and var over one element zero_variance's.)
_CAN_BE_ZERO = {"square", "sum", "mean", "reduce_sum", "reduce_mean", "pow", "add", "sub", "subtract",
                "abs", "einsum", "matmul", "dot", "bmm", "norm"}
# What keeps the root's argument above 0: an epsilon, a clamp. (index.safe_from_zero, which the log and division
# checks use, takes any sum for safe; a sum of squares is 0 where the distance is.)
_SQRT_FLOOR = {"clamp", "clip", "clamp_min", "clamp_", "maximum", "max", "fmax", "softplus", "exp", "relu6"}


def _grad_sqrt_arg(n: ast.AST) -> ast.AST | None:
    """The argument of a square root that carries gradients, or None."""
    if isinstance(n, ast.Call) and last(n) == "sqrt":
        head = fname(n).split(".")[0]
        if n.args and head in _GRAD_SQRT_MODULES:
            return n.args[0]
        if not n.args and isinstance(n.func, ast.Attribute) and head not in ("math", "np", "numpy", "cmath"):
            return n.func.value          # x.sqrt()
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and isinstance(n.right, ast.Constant) \
            and n.right.value == 0.5:
        return n.left
    return None


def _floored(e: ast.AST) -> bool:
    """An epsilon or a clamp keeps `e` above 0: an eps-named value anywhere in it, a constant (or an eps attribute)
    added, a clamp/max call, tf.add(x, 1e-8)."""
    for n in ast.walk(e):
        if isinstance(n, ast.Name) and "eps" in n.id.lower():
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and any(
                isinstance(x, ast.Constant) or (isinstance(x, ast.Attribute) and "eps" in x.attr.lower())
                for x in (n.left, n.right)):
            return True
        if isinstance(n, ast.Call) and (last(n) in _SQRT_FLOOR or (
                last(n) == "add" and any(isinstance(a, ast.Constant) for a in n.args))):
            return True
    return False


def _can_be_zero(e: ast.AST) -> bool:
    """A computed tensor that can be exactly 0: a sum of squares, a difference, a reduction."""
    for n in ast.walk(e):
        if isinstance(n, ast.BinOp) and (isinstance(n.op, ast.Sub) or (
                isinstance(n.op, ast.Pow) and isinstance(n.right, ast.Constant) and n.right.value == 2)):
            return True
        if isinstance(n, ast.Call) and last(n) in _CAN_BE_ZERO:
            return True
    return False


def check_sqrt(f: PyFile) -> list[Finding]:
    out = []
    for n in f.of_type(ast.Call, ast.BinOp):
        x = _grad_sqrt_arg(n)
        if x is None or not isinstance(n, (ast.Call, ast.BinOp)):
            continue
        scope = f.scope_of(n)
        if isinstance(core(x), (ast.Name, ast.Attribute)):
            v = f.value_of(dotted(core(x)), scope, n.lineno)
            if v is None:
                continue
            x_val = v
        else:
            x_val = x
        if _can_be_zero(x_val) and not _floored(x) and not _floored(x_val):
            out.append(Finding("code:unsafe_sqrt", WEAK, n.lineno,
                               f"sqrt({src(x)}) without an epsilon: its gradient is infinite where the value is 0 "
                               "(a distance of 0), and NaN once multiplied by the square's 0"))
    return out
