"""`code:loss_kept_with_graph`: a training loop keeps every step's loss tensor, graph and all.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_graph_kept(f)` -> Findings.

`total_loss += loss` (or `losses.append(loss)`) where `loss` is the tensor backward() was called on:
each step's autograd graph stays reachable from the running sum, so memory grows with every step
until the GPU (or host) runs out. `loss.item()` or `loss.detach()` keeps the number only.
"""
from __future__ import annotations

import ast

from mltdbg.analyzers.code.index import CLEAR, Finding, PyFile, dotted, recv


def check_graph_kept(f: PyFile) -> list[Finding]:
    out = []
    for b in f.backward_calls:
        loss = dotted(recv(b))
        loops = f.loops_of(b)
        if not loss or not loops:
            continue
        loop, scope = loops[0], f.scope_of(b)

        def tensor_at(line: int) -> bool:    # (not `loss = loss.item()` after the backward)
            return not f.assigns_between(scope, loss, b.lineno, line)
        for n in f.subtree(loop):
            if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and dotted(n.value) == loss and tensor_at(n.lineno):
                out.append(Finding("code:loss_kept_with_graph", CLEAR, n.lineno,
                                   f"{dotted(n.target)} += {loss} adds the loss tensor itself: every step's autograd"
                                   f" graph stays alive through the sum and memory grows each step (use {loss}.item())"))
                return out
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                    and len(n.args) == 1 and dotted(n.args[0]) == loss and tensor_at(n.lineno):
                out.append(Finding("code:loss_kept_with_graph", CLEAR, n.lineno,
                                   f"{dotted(n.func.value)}.append({loss}) keeps each step's loss tensor and its autograd"
                                   f" graph: memory grows each step (append {loss}.item())"))
                return out
    return out
