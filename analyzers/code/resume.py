"""`code:resume_weights_only`: a resume that restores the weights but not the optimizer,
scheduler or step (also a transformers Trainer run on `from_pretrained("out/checkpoint-6000")` without
resume_from_checkpoint).

In:  one parsed file (PyFile, from code/index.py).
Out: `check_resume(f)` -> Findings.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import (CLEAR, MEDIUM, STRONG, Finding, PyFile, arg, const, core, dotted,
                                         is_sched_ctor, last, recv, src)


_RESUME_KEY = re.compile(r"epoch|step|iter|^it$", re.I)   # checkpoint keys that carry the loop position


# a Trainer's checkpoint folder ("out/checkpoint-6000"): it holds optimizer.pt, scheduler.pt and trainer_state.json
_HF_CKPT = re.compile(r"checkpoint-\d+")


def _hf_weights_only(f: PyFile) -> list[Finding]:
    """`model = X.from_pretrained("out/checkpoint-6000")` then `trainer.train()` with no resume_from_checkpoint:
    the Trainer starts at step 0 with a new optimizer and a new warm-up, from those weights only."""
    trainers = f.calls_named("Trainer")
    loads = f.calls_named("from_pretrained")
    if not trainers or not loads:
        return []
    handed = {dotted(k.value) for t in trainers for k in t.keywords if k.arg == "model"} \
        | {dotted(t.args[0]) for t in trainers if t.args}
    for c in f.calls_named("train"):
        if not isinstance(c.func, ast.Attribute) or c.args \
                or any(k.arg == "resume_from_checkpoint" for k in c.keywords) \
                or "trainer" not in (dotted(recv(c)) or "").lower():
            continue
        for p in loads:
            if not p.args or p.lineno > c.lineno \
                    or re.search(r"Tokenizer|Processor|Config|FeatureExtractor", src(p.func)):
                continue
            parent = f.parent.get(p)
            target = dotted(parent.targets[0]) if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
            if target is None or target not in handed:
                continue        # (weights loaded for another use than this Trainer's model)
            a = core(p.args[0])
            v = f.value_near(a.id, p) if isinstance(a, ast.Name) else a
            path = const(v) if v is not None else None
            if isinstance(path, str) and _HF_CKPT.search(path):
                return [Finding("code:resume_weights_only", CLEAR, c.lineno,
                                f"{src(c)} starts over at step 0 with a new optimizer and lr schedule: only the weights of "
                                f"{path} were loaded (from_pretrained); resume_from_checkpoint= restores the rest",
                                [(p.lineno, "the checkpoint's weights loaded here")])]
    return []


def check_resume(f: PyFile) -> list[Finding]:
    if hf := _hf_weights_only(f):
        return hf
    if not (f.has_training() or f.optimizers):
        return []
    out = []
    loads = f.calls_named("load_state_dict")
    model_loads, opt_load, sched_load = [], False, False
    for c in loads:
        r = (dotted(recv(c)) or "").rsplit(".", 1)[-1].lower()
        if "opt" in r:
            opt_load = True
        elif "sched" in r:
            sched_load = True
        elif "scaler" not in r and "ema" not in r:
            model_loads.append(c)
    if not model_loads:
        return []
    text = f.t.text.lower()
    resume_intent = "resume" in text or "start_epoch" in text
    c = model_loads[0]
    a = arg(c, 0, "state_dict")
    keyed = a is not None and isinstance(core(a), ast.Subscript) or (a is not None and isinstance(a, ast.Subscript))
    saves_opt = any(last(x) == "state_dict" and "opt" in (dotted(recv(x)) or "").lower() for x in f.calls)
    if not (resume_intent or keyed or saves_opt):
        return []    # loading pretrained weights to fine-tune: weights only is intended
    if not opt_load:
        out.append(Finding("code:resume_weights_only", STRONG if saves_opt else CLEAR, c.lineno,
                           "resume restores the model weights but not the optimizer state (Adam moments, step"
                           " count): loss/lr jump at the resume step"))
        return out
    has_sched = any(isinstance(n, ast.Call) and is_sched_ctor(n) for n in f.calls)
    if has_sched and not sched_load:
        out.append(Finding("code:resume_weights_only", MEDIUM, c.lineno,
                           "resume restores model and optimizer but not the lr scheduler: the schedule restarts"))
    reads_step = any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
                     and _RESUME_KEY.search(str(n.slice.value)) and isinstance(n.ctx, ast.Load) for n in f.of_type(ast.Subscript)) \
        or any(last(x) == "get" and x.args and _RESUME_KEY.search(str(const(x.args[0], ""))) for x in f.calls)
    if not reads_step:
        out.append(Finding("code:resume_weights_only", 0.4, c.lineno,
                           "resume does not read back the epoch/step: the loop and schedule start from 0 again"))
    return out
