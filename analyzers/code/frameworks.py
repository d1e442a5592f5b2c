"""`code:hf_trainer`, `code:lightning` (which framework drives the loop) and their clipping
settings (`code:no_grad_clip`).

In:  one parsed file (PyFile) and the run index (RunIndex), from code/index.py.
Out: `check_frameworks(f, idx)` -> Findings.
"""
from __future__ import annotations

import ast

from mltdbg.analyzers.code.index import CLEAR, HINT, INFO, Finding, PyFile, RunIndex, const, framework_of, last, src


def check_frameworks(f: PyFile, idx: RunIndex) -> list[Finding]:
    out = []
    for c in f.calls:
        kind = framework_of(f, c)
        if kind is None:
            continue
        args = {k.arg: const(k.value, src(k.value)) for k in c.keywords if k.arg}
        if kind == "hf" and last(c) in ("TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig", "Trainer"):
            out.append(Finding("code:hf_trainer", INFO, c.lineno, f"Hugging Face {last(c)} drives the loop",
                               data={"args": args}))
            mg = args.get("max_grad_norm")
            if isinstance(mg, (int, float)) and mg <= 0:
                out.append(Finding("code:no_grad_clip", CLEAR, c.lineno,
                                   f"max_grad_norm={mg} turns gradient clipping off"))
        elif kind == "lightning" and last(c) == "Trainer":
            out.append(Finding("code:lightning", INFO, c.lineno, "PyTorch Lightning Trainer drives the loop",
                               data={"args": args}))
            gc = args.get("gradient_clip_val", None)
            if "gradient_clip_val" not in args:
                out.append(Finding("code:no_grad_clip", HINT, c.lineno, "Lightning Trainer without gradient_clip_val"))
            elif isinstance(gc, (int, float)) and gc <= 0 or gc is None:
                out.append(Finding("code:no_grad_clip", 0.3, c.lineno, f"gradient_clip_val={gc}: no clipping"))
    for n in f.of_type(ast.ClassDef):
        if isinstance(n, ast.ClassDef) and n.name in idx.lightning_classes and not any(
                x.kind == "code:lightning" for x in out):
            out.append(Finding("code:lightning", INFO, n.lineno, f"{n.name} is a LightningModule"))
    return out
