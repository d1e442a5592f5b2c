"""`code:no_grad_clip` for a hand-written loop: no clip_grad_norm_ anywhere in the run.

In:  every parsed file (PyFile) and the run index (RunIndex), from code/index.py.
Out: `check_grad_clip(files, idx)` -> (file, Finding) pairs.
"""
from __future__ import annotations

from mltdbg.analyzers.code.index import HINT, Finding, PyFile, RunIndex


def check_grad_clip(files: list[PyFile], idx: RunIndex) -> list[tuple[PyFile, Finding]]:
    if idx.has_clip or idx.has_framework:
        return []
    for f in files:
        for b in f.backward_calls:
            scope = f.scope_of(b)
            steps = f.opt_steps(scope)
            if steps:
                return [(f, Finding("code:no_grad_clip", HINT, steps[0].lineno,
                                    "hand-written training loop without clip_grad_norm_: a single bad batch can"
                                    " blow the weights up"))]
    return []
