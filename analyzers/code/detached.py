"""`code:detached_graph`: the training forward under no_grad(), backward() on a detached tensor,
a loss from detached predictions or from ones with no gradient (argmax, round).

In:  one parsed file (PyFile, from code/index.py).
Out: `check_detached(f)` -> Findings.
"""
from __future__ import annotations

import ast

from mltdbg.analyzers.code.index import (PASSTHRU, STRONG, Finding, PyFile, arg, chain_attrs, core, dotted, fname, last,
                                         model_calls, recv, src)


_LOSS_FUNCS = {"cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
               "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "ctc_loss"}
_DETACHERS = {"detach", "item", "numpy", "tolist", "data", "detach_"}
# ... and ops whose output has no gradient (an index, a rounded value): a loss on argmax(...) predictions
_NO_GRAD_OPS = {"argmax", "argmin", "round", "floor", "ceil", "sign"}
_CUTTERS = _DETACHERS | _NO_GRAD_OPS
_CRITERION_NAMES = {"criterion", "loss_fn", "loss_func", "loss_function", "lossfn", "loss_fcn"}


def check_detached(f: PyFile) -> list[Finding]:
    out = []
    done = set()
    # (a post's snippet calls the criterion it built out of sight: the usual names are the loss's)
    crit = {d for d, v in f.all_assigns() if isinstance(v, ast.Call) and last(v).endswith("Loss")} | _CRITERION_NAMES
    for b in f.backward_calls:
        scope = f.scope_of(b)
        loops = f.loops_of(b)
        region = loops[0] if loops else scope
        if id(region) in done:
            continue
        done.add(id(region))
        nodes = list(f.within(region)) if loops else list(f.in_scope(scope))
        fwd = [c for c in model_calls(f, nodes) if c.lineno <= b.lineno]
        if fwd and all(f.under_no_grad(c) is not None for c in fwd):
            w = f.under_no_grad(fwd[0])
            out.append(Finding("code:detached_graph", STRONG, w.lineno,
                               "the training forward runs under no_grad(): the loss has no graph back to the"
                               " parameters", [(b.lineno, "backward() of that loss")]))
            continue
        # backward on a tensor cut from the graph
        r = recv(b)
        if isinstance(r, ast.Name):
            v = f.value_of(r.id, scope, b.lineno)
            if v is not None and (chain_attrs(v) & {"detach", "item", "data"} or
                                  (isinstance(v, ast.Call) and fname(v) in ("torch.tensor", "torch.as_tensor"))):
                out.append(Finding("code:detached_graph", STRONG, b.lineno,
                                   f"backward() on {r.id}, which was cut from the graph (detach/item/torch.tensor):"
                                   " no gradient reaches the model"))
                continue
        # loss computed from detached predictions
        for c in nodes:
            if not (isinstance(c, ast.Call) and c.lineno <= b.lineno and
                    (last(c) in _LOSS_FUNCS or (dotted(c.func) or "") in crit)):
                continue
            a = arg(c, 0, "input")
            if a is None:
                continue
            det = chain_attrs(a) & _CUTTERS
            if not det and isinstance(core(a), ast.Name):
                v = f.value_of(core(a).id, scope, c.lineno)
                det = chain_attrs(v) & _CUTTERS if v is not None and not isinstance(core(v), ast.Call) or \
                    (v is not None and isinstance(v, ast.Call) and
                     (last(v) in _NO_GRAD_OPS or isinstance(v.func, ast.Attribute) and v.func.attr in _CUTTERS | PASSTHRU)) \
                    else set()
            if det:
                how = sorted(det)[0]
                why = f"cut from the graph by .{how}" if how in _DETACHERS else f"{how}(), which has no gradient"
                out.append(Finding("code:detached_graph", 0.75, c.lineno,
                                   f"the loss is computed from {src(a)}, {why}: gradients do not reach the model"))
                break
    return out
