"""`code:fp16_no_scaler`: float16 autocast or a half() model in training without a GradScaler.

In:  one parsed file (PyFile) and the run index (RunIndex), from code/index.py.
Out: `check_fp16(f, idx)` -> Findings.
"""
from __future__ import annotations

import re

from mltdbg.analyzers.code.index import (CLEAR, Finding, PyFile, RunIndex, arg, const, dotted, fname, framework_of,
                                         is_model_name, kwarg, last, recv, src)


# A post's snippet (PyFile.is_snippet) that casts the model to half: the training loop is elsewhere
# (the post says what it trains); the finding is weaker than in a whole script.
SNIPPET_STRENGTH = 0.35


def check_fp16(f: PyFile, idx: RunIndex) -> list[Finding]:
    if idx.has_scaler or any(framework_of(f, c) for c in f.calls):
        return []
    if not f.has_training():
        if not f.is_snippet():
            return []
        return [Finding("code:fp16_no_scaler", SNIPPET_STRENGTH, c.lineno,
                        "model cast to float16 (model.half()) in a snippet: trained like this, without fp32 "
                        "master weights or a GradScaler, updates underflow and Adam's eps rounds to 0")
                for c in f.calls if last(c) == "half" and is_model_name(dotted(recv(c)))][:1]
    out = []
    for c in f.calls:
        leaf = last(c)
        if leaf == "autocast":
            if const(kwarg(c, "enabled"), True) is False:
                continue
            dt = kwarg(c, "dtype")
            dev = arg(c, 0, "device_type")
            if dt is not None:
                s = src(dt)
                if "float16" not in s and "half" not in s or "bfloat16" in s:
                    continue
            elif dev is not None:
                if const(dev) != "cuda":
                    continue
            elif "cuda" not in fname(c) and fname(c) not in ("autocast",) and "amp" not in fname(c):
                continue
            out.append(Finding("code:fp16_no_scaler", CLEAR, c.lineno,
                               "float16 autocast in training without a GradScaler: small gradients underflow to 0"
                               " and overflows are not skipped"))
        elif (leaf == "half" and is_model_name(dotted(recv(c)))) or \
                (leaf == "to" and is_model_name(dotted(recv(c))) and re.search(r"float16|\bhalf\b", src(c))):
            out.append(Finding("code:fp16_no_scaler", 0.6, c.lineno,
                               "model cast to float16 for training without a GradScaler (or fp32 master weights)"))
    return out[:2]
