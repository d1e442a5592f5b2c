"""`code:no_shuffle`: a training DataLoader without shuffle=True or a sampler (or a tf.data pipeline from
in-memory data batched without .shuffle()).

In:  one parsed file (PyFile, from code/index.py).
Out: `check_no_shuffle(f)` -> Findings.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import FUNCS, MEDIUM, Finding, PyFile, arg, const, dotted, kwarg, last, src


# a loader or dataset named for evaluation, not training (the DataLoader branch also passes over "calib")
_NOT_TRAIN = re.compile(r"val|test|eval|dev\b|holdout|pred|infer")


def check_no_shuffle(f: PyFile) -> list[Finding]:
    out = []
    train_iters = set()
    for b in f.backward_calls:
        for L in f.loops_of(b):
            if isinstance(L, (ast.For, ast.AsyncFor)):
                train_iters |= {dotted(n) for n in f.subtree(L.iter) if dotted(n)}
    for c in f.calls:
        if last(c) != "DataLoader":
            continue
        smp = kwarg(c, "sampler")
        unshuffled_sampler = smp is not None and _sampler_unshuffled(f, smp)
        if any(k.arg is None for k in c.keywords) or (smp is not None and not unshuffled_sampler) \
                or kwarg(c, "batch_sampler") is not None:
            continue
        sh = kwarg(c, "shuffle")
        if unshuffled_sampler:
            sh = smp      # (the sampler's own shuffle=False: said explicitly, as a loader's would be)
        elif sh is not None and const(sh, "?") is not False:
            continue
        ds = arg(c, 0, "dataset")
        p = f.parent.get(c)
        target = " ".join(dotted(t) or "" for t in p.targets) if isinstance(p, ast.Assign) else ""
        fn = f.scope_of(c)
        fn_name = fn.name if isinstance(fn, FUNCS) else ""
        words = f"{target} {src(ds) if ds is not None else ''}".lower()
        if _NOT_TRAIN.search(words) or "calib" in words:
            continue
        if "train" in words:
            strength = 0.6
        elif target and target in train_iters:
            strength = MEDIUM
        elif "train" in fn_name.lower() and not re.search(r"val|test|eval|pred|infer", fn_name.lower()):
            strength = MEDIUM      # e.g. Lightning's train_dataloader()
        else:
            continue
        if sh is not None:
            strength -= 0.15       # an explicit shuffle=False is sometimes deliberate (time series, curricula)
        blocks = _class_ordered(f)
        out.append(Finding("code:no_shuffle", max(strength, 0.7) if blocks else strength, c.lineno,
                           "training DataLoader without shuffle=True or a sampler: every epoch sees the same order"
                           + (" and the labels were built class by class, so the batches run one class after another"
                              if blocks else " (class-sorted data gives an epoch-periodic saw-tooth)")))
    return out or _tf_data_unshuffled(f)


def _sampler_unshuffled(f: PyFile, smp: ast.AST) -> bool:
    """A DistributedSampler built with shuffle=False (inline, or a name bound to one): every rank reads its shard
    in the stored order, every epoch."""
    if isinstance(smp, ast.Name):
        smp = f.value_near(smp.id, smp) or smp
    return isinstance(smp, ast.Call) and last(smp) == "DistributedSampler" and const(kwarg(smp, "shuffle"), True) is False


def _class_ordered(f: PyFile) -> bool:
    """The labels are built class by class: a loop over the classes (its variable named for a class or label, or
    iterating range(num_classes), the classes, enumerate(classes)) whose body repeats the loop's class as labels
    (`ys += [cls] * len(imgs)`, `np.full(n, cls)`). Not any loop that repeats its index (a collate's
    `idx += [i] * len(boxes)`). Read once per file (every training loader of the file asks)."""
    hit = f.memo.get("class_ordered")
    if hit is None:
        hit = f.memo["class_ordered"] = _class_loop(f)
    return bool(hit)


def _class_loop(f: PyFile) -> bool:
    for L in f.of_type(ast.For):
        if not isinstance(L, ast.For):
            continue
        target = L.target.elts[0] if isinstance(L.target, ast.Tuple) and L.target.elts else L.target
        if not isinstance(target, ast.Name) or not (_CLASS_VAR.fullmatch(target.id) or _CLASS_ITER.search(src(L.iter))):
            continue
        v = target.id
        for n in f.within(L):
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and any(
                    isinstance(x, ast.List) and len(x.elts) == 1 and isinstance(x.elts[0], ast.Name) and x.elts[0].id == v
                    for x in (n.left, n.right)):
                return True
            if isinstance(n, ast.Call) and last(n) in ("full", "full_like") and any(
                    isinstance(a, ast.Name) and a.id == v for a in [*n.args[1:], *(k.value for k in n.keywords)]):
                return True
    return False


# labels built class by class: `[0] * len(neg) + [1] * len(pos)` (the data in class order)
_CLASS_BLOCKS = re.compile(r"\[\s*\d+\s*\]\s*\*\s*[^+\n]{1,120}\+\s*\[\s*\d+\s*\]\s*\*")
# a loop over the classes: its variable (cls, c, k, label, class_id, digit, y) or what it iterates
_CLASS_VAR = re.compile(r"cls|c|k|y|label\w*|lbl|class\w*|cat\w*|digit|target")
_CLASS_ITER = re.compile(r"class|label|categor|num_cls|n_cls|range\(\s*(?:10|100)\s*\)", re.I)


def _tf_data_unshuffled(f: PyFile) -> list[Finding]:
    """A training tf.data pipeline built from in-memory data (`from_tensor_slices(...)...batch(64)`) with no
    `.shuffle(` in its chain, nor later on its name: every epoch runs the same order; clear where the labels
    were built class by class."""
    shuffled = {(dotted(k.func) or "").rsplit(".", 1)[0] for k in f.calls_named("shuffle")}
    fits = {dotted(k.args[0]) for k in f.calls_named("fit") if k.args}
    taped: set[str | None] | None = None
    for c in f.calls_named("batch"):
        if not isinstance(c.func, ast.Attribute):
            continue
        chain = src(c)
        if "from_tensor_slices" not in chain or ".shuffle(" in chain:
            continue
        p = f.parent.get(c)
        while isinstance(p, (ast.Attribute, ast.Call)):
            p = f.parent.get(p)
        target = " ".join(dotted(t) or "" for t in p.targets) if isinstance(p, ast.Assign) else ""
        if not target or _NOT_TRAIN.search(target.lower()):
            continue
        if target in shuffled:
            continue
        # ... that trains: handed to fit(), iterated under a GradientTape, or named for training
        fitted = target in fits
        if taped is None:       # loops whose body records a GradientTape: what they iterate (found once)
            taped = {dotted(L.iter) for L in f.of_type(ast.For, ast.AsyncFor) if isinstance(L, (ast.For, ast.AsyncFor))
                     and any(isinstance(k, ast.Call) and last(k) == "GradientTape" for k in f.within(L))}
        if not (fitted or target in taped or "train" in target.lower()):
            continue
        sorted_labels = bool(_CLASS_BLOCKS.search(f.t.text)) or _class_ordered(f)
        return [Finding("code:no_shuffle", 0.7 if sorted_labels else MEDIUM, c.lineno,
                        f"{target} is batched from in-memory data with no .shuffle(): every epoch sees the same order"
                        + (" (the labels were built class by class, so each batch holds one class)" if sorted_labels
                           else ""))]
    return []
