"""`code:no_eval_at_inference`: a model with dropout/batch-norm run for inference without
.eval(); `code:dropout_always_on`: functional dropout in a forward that eval() cannot turn off.

In:  one parsed file (PyFile) and the run index (RunIndex), from code/index.py.
Out: `check_eval(f, idx)`, `check_functional_dropout(f)` -> Findings.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import (CLEAR, FUNCS, MEDIUM, MODULE_MOVES, NORM_LAYERS, STRONG, WEAK, Finding, PyFile,
                                         RunIndex, arg, const, core, dotted, fname, is_model_name, is_no_grad_with, last,
                                         model_calls, recv, src)


_INFER_TOKENS = {"predict", "prediction", "predictions", "evaluate", "eval", "evaluation", "infer",
                 "inference", "generate", "validate", "validation", "val"}


def _inference_regions(f: PyFile) -> list[tuple[ast.AST, ast.AST]]:
    """(scope, region node) pairs that run a model for inference."""
    regions = []
    for n in f.of_type(ast.With, ast.AsyncWith):
        if is_no_grad_with(n):
            regions.append((f.scope_of(n), n))
    for fn in f.funcs:
        toks = set(fn.name.lower().split("_"))
        deco = any(isinstance(d, (ast.Call, ast.Attribute, ast.Name)) and
                   (dotted(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1] in ("no_grad", "inference_mode")
                   for d in fn.decorator_list)
        if (deco or toks & _INFER_TOKENS) and not fn.name.startswith("test"):
            regions.append((fn, fn))
    if not f.has_training() and any(last(c) in ("load_state_dict", "load_from_checkpoint") for c in f.calls):
        regions.append((f.tree, f.tree))
    return regions


def check_eval(f: PyFile, idx: RunIndex) -> list[Finding]:
    if not f.uses_torch:
        return []       # Keras/sklearn/JAX models have no train/eval mode to forget
    out, seen = [], set()
    evals = [c for c in f.calls_named("eval", "train") if (last(c) == "eval" and not c.args) or
             (last(c) == "train" and const(arg(c, 0, "mode"), True) is False)]
    made_eval = _made_eval(f)      # (once per file: every candidate call asks)
    for scope, region in _inference_regions(f):
        cls = f.class_of(region)
        if cls is not None and (cls.name in idx.lightning_classes or isinstance(scope, FUNCS) and
                                scope.name in ("validation_step", "test_step", "predict_step", "forward")):
            continue
        nodes = f.within(region) if region is not scope else f.in_scope(scope)
        for c in nodes:
            if not isinstance(c, ast.Call):
                continue
            m = dotted(c.func)
            if isinstance(c.func, ast.Attribute) and c.func.attr in ("generate", "forward"):
                m = dotted(c.func.value)
            elif all(isinstance(a, ast.Constant) for a in c.args) and (c.keywords or c.args) \
                    and all(isinstance(k.value, ast.Constant) for k in c.keywords):
                continue    # a constructor (`resnet18(num_classes=10)`, `Net(3)`): a forward is handed data
            handed = local = None
            if not is_model_name(m) or (m == dotted(c.func) and not f.is_forward(c)):
                handed = _handed_to_evaluator(idx, c)
                if handed is None and region is not scope:
                    local = handed = _handed_to_local(idx, c, made_eval)     # (inside a no_grad block only)
                if handed is None:
                    continue
                m = handed
            if (id(scope), m) in seen:
                break
            seen.add((id(scope), m))
            if _eval_before(f, scope, cls, m, c.lineno, evals) or not _may_drop(f, idx, m) \
                    or _from_pretrained(f, m) or m in made_eval:
                break
            # a training forward inside no_grad is detached_graph, reported by check_detached
            if region is not scope and _loop_forward_all_no_grad(f, region):
                break
            strength = CLEAR if not any(_same_model(_module_of(e), m) for e in evals) else MEDIUM
            if f.is_snippet():      # a post's few lines: the eval() may sit in what was not quoted
                strength = min(strength, MEDIUM)
            if handed is not None:  # the evaluator's body is not in the run: it may call eval() itself; or it is, and
                strength = min(strength, WEAK if local is None else MEDIUM)     # its mode switch may be a helper's
            out.append(Finding("code:no_eval_at_inference", strength, c.lineno,
                               f"{m} runs for inference without {m}.eval(): dropout stays on and batch-norm uses"
                               " batch statistics", [(getattr(region, "lineno", c.lineno), "inference section starts")]
                               if getattr(region, "lineno", c.lineno) != c.lineno else []))
            break
    return out


def _handed_to_evaluator(idx: RunIndex, c: ast.Call) -> str | None:
    """The model handed to an evaluation function whose body the run does not hold
    (`evaluate(model, val_loader)` imported from elsewhere), or None."""
    name = last(c) or ""
    if isinstance(c.func, ast.Attribute) and dotted(c.func.value) == "self":
        return None         # a method of the run's own class: read as an inference region itself
    if not set(name.lower().split("_")) & _INFER_TOKENS or _local_function(idx, name) is not None:
        return None
    for a in c.args:
        d = dotted(a)
        if d and is_model_name(d):
            return d
    return None


def _handed_to_local(idx: RunIndex, c: ast.Call, made_eval: set[str]) -> str | None:
    """The model handed, inside a no_grad block, to a function of the run that runs it and never calls .eval() (a
    `run_epoch(model, test_loader)` shared by training and evaluation): that block is an inference region through it.
    Not a model made in eval mode where it is named (`ref_model = copy.deepcopy(model).eval()`)."""
    found = _local_function(idx, last(c) or "")
    if found is None:
        return None
    _, fn = found
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)]
    run = {n.func.id for n in calls if isinstance(n.func, ast.Name)}                   # parameters called: run
    switched = {(dotted(recv(n)) or "").split(".")[0] for n in calls if last(n) in ("eval", "train")}
    for a, p in zip(c.args, params):       # (model.eval(), model.module.eval(): a mode switch of the parameter)
        d = dotted(a)
        if d and is_model_name(d) and d not in made_eval and p in run and p not in switched:
            return d
    return None


def _made_eval(f: PyFile) -> set[str]:
    """Names a model is bound to in eval mode where it is named: `classifier = model.eval()` (PointNet++'s test()),
    `ref_model = copy.deepcopy(model).eval()`."""
    return {name for name, v in f.all_assigns() if isinstance(v, ast.Call) and last(v) == "eval" and not v.args}


def _same_model(r: str, m: str) -> bool:
    return bool(r) and (r == m or m.startswith(r + ".") or r.rsplit(".", 1)[-1] == m.rsplit(".", 1)[-1])


def _module_of(e: ast.Call) -> str:
    """The module an eval()/train() call puts in its mode: its receiver, through calls that return the
    module itself (`model.cuda().eval()`, `net.to(device).eval()`)."""
    r = recv(e)
    # (and calls that leave the module as it is: requires_grad_ and share_memory return it too; params keeps
    # them out, a frozen layer is no layer merely used)
    while isinstance(r, ast.Call) and (last(r) in MODULE_MOVES or last(r) in ("requires_grad_", "share_memory")):
        r = recv(r)
    return (dotted(r) if r is not None else None) or ""


def _eval_before(f: PyFile, scope, cls, m: str, line: int, evals: list[ast.Call]) -> bool:
    for e in evals:
        r = _module_of(e)
        if not _same_model(r, m):
            continue
        if f.scope_of(e) is scope and e.lineno < line:
            return True
        if cls is not None and f.class_of(e) is cls:
            return True
    # a module-level model the function reads (not its own local): put in eval mode at module level before the
    # function is first called there, and not back in train mode in between (`model.eval()`, then
    # `def predict(path): ... model(x)` serving requests)
    if isinstance(scope, FUNCS) and m.split(".")[0] not in f.assigns(scope) \
            and not any(a.arg == m.split(".")[0] for a in scope.args.args):
        calls = [c.lineno for c in f.calls_named(scope.name) if f.scope_of(c) is f.tree]
        first = min(calls) if calls else 10**9
        top = [e.lineno for e in evals if f.scope_of(e) is f.tree and _same_model(_module_of(e), m) and e.lineno < first]
        trains = [c.lineno for c in f.calls_named("train") if f.scope_of(c) is f.tree and _same_model(_module_of(c), m)]
        if top and not any(max(top) < t < first for t in trains):
            return True
    # the function is called after an eval() in its caller
    if isinstance(scope, FUNCS):
        for c in f.calls_named(scope.name):
            caller = f.scope_of(c)
            if any(f.scope_of(e) is caller and e.lineno < c.lineno for e in evals):
                return True
            if f.under_no_grad(c) is not None and any(f.scope_of(e) is caller for e in evals):
                return True
    return False


def _may_drop(f: PyFile, idx: RunIndex, m: str) -> bool:
    """Could this model hold dropout/batch-norm? False only when we know its class and it does not."""
    key = f"{f.t.path}\0{m.rsplit('.', 1)[-1]}"
    if key not in idx.model_dropout:
        idx.model_dropout[key] = _may_drop_uncached(f, idx, m.rsplit(".", 1)[-1])
    return idx.model_dropout[key]


def _may_drop_uncached(f: PyFile, idx: RunIndex, leaf: str) -> bool:
    # this file's own assignment of the variable first; other files only through classes the run defines
    for g in [f] + [x for x in idx.files if x is not f]:
        for name, v in g.all_assigns():
            if name.rsplit(".", 1)[-1] != leaf or not isinstance(core(v), ast.Call):
                continue
            ctor = core(v)
            while isinstance(ctor, ast.Call) and last(ctor) in _WRAPPERS and ctor.args \
                    and isinstance(inner := core(ctor.args[0]), ast.Call):
                ctor = inner     # DataParallel(Net()), torch.compile(build()): the wrapped model
            cls = last(ctor)
            if cls in idx.class_dropout:
                return idx.class_dropout[cls]
            if g is f and cls == "Sequential" and "torch" in g.origin(fname(ctor)) + fname(ctor).replace("nn.", "torch.nn."):
                return bool(NORM_LAYERS.search(src(ctor)))
            if g is f:
                fn = _local_function(idx, last(ctor))
                if fn is not None:   # a factory in the run's own code: read what it builds
                    body = ast.get_source_segment(fn[0].t.text, fn[1]) or ""
                    return bool(NORM_LAYERS.search(body) or _EXTERNAL_MODEL.search(body))
                return True      # built by something we cannot see into
    if idx.class_dropout and not any(idx.class_dropout.values()):
        return False       # every model class of the run is free of dropout/BN
    return True


# Wrappers that run the model they are handed, in that model's train/eval mode.
_WRAPPERS = frozenset({"DataParallel", "DistributedDataParallel", "DDP", "FullyShardedDataParallel", "FSDP", "compile"})

# Model constructors from libraries whose models usually hold dropout/batch-norm.
_EXTERNAL_MODEL = re.compile(r"from_pretrained|timm\.|torchvision|models\.|AutoModel|hub\.load|create_model")


def _local_function(idx: RunIndex, name: str):
    """(file, FunctionDef) of a top-level function `name` defined in the run's code, or None."""
    for g in idx.files:
        for node in getattr(g.tree, "body", []):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return g, node
    return None


def _from_pretrained(f: PyFile, m: str) -> bool:
    """HF from_pretrained() returns the model in eval mode."""
    for name, v in f.all_assigns():
        if name == m and isinstance(v, ast.Call) and "from_pretrained" in fname(v):
            return not any(last(c) == "train" and dotted(recv(c)) == m for c in f.calls)
    return False


def _loop_forward_all_no_grad(f: PyFile, region: ast.AST) -> bool:
    """Is this no_grad block the only forward of a training loop (then it is detached_graph, not eval)?"""
    for b in f.backward_calls:
        for L in f.loops_of(b)[:1]:
            if f.inside(region, L):
                fwd = [c for c in model_calls(f, f.within(L)) if c.lineno <= b.lineno]
                if fwd and all(f.under_no_grad(c) is not None for c in fwd):
                    return True
    return False


_FUNCTIONAL_DROPOUT = {"dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"}


def check_training_flag_at_eval(f: PyFile) -> list[Finding]:
    """`code:no_eval_at_inference`, Keras' way: a model called with `training=True` inside a function named for
    evaluation or prediction (`def eval_step(x, y): logits = model(x, training=True)`): dropout stays on and batch norm
    normalises with each evaluation batch's own statistics, as a torch model left in train mode does."""
    for fn in f.funcs:
        name = getattr(fn, "name", "")
        if name.startswith("train") or not set(name.lower().split("_")) & _INFER_TOKENS:
            continue
        for c in f.within(fn):
            if isinstance(c, ast.Call) and is_model_name(dotted(c.func)) and any(
                    k.arg == "training" and isinstance(k.value, ast.Constant) and k.value.value is True for k in c.keywords):
                m = dotted(c.func)
                return [Finding("code:no_eval_at_inference", CLEAR, c.lineno,
                                f"{name}() calls {m}(..., training=True): dropout stays on and batch norm uses each "
                                "evaluation batch's statistics", [(getattr(fn, "lineno", c.lineno), f"{name}() starts")])]
    return []


def check_functional_dropout(f: PyFile) -> list[Finding]:
    """`code:dropout_always_on`: `F.dropout(x, p)` in a forward without `training=self.training`. The
    functional form defaults to training=True: model.eval() does not reach it, so predictions stay
    random at inference (the same input, another output on each call)."""
    for fn in f.funcs:
        if getattr(fn, "name", "") != "forward":
            continue
        for c in f.calls_in(fn):
            name = fname(c)
            if last(c) not in _FUNCTIONAL_DROPOUT or not (name.startswith(("F.", "nn.functional.", "torch.nn.functional."))
                                                          or name == last(c)):
                continue
            if len(c.args) >= 3 or any(k.arg == "training" for k in c.keywords):
                continue
            return [Finding("code:dropout_always_on", STRONG, c.lineno,
                            f"{src(c.func)}(...) in forward without training=self.training: functional dropout"
                            " defaults to training=True, so model.eval() does not turn it off and predictions"
                            " stay random at inference")]      # (the first one found)
    return []
