"""`code:modules_in_plain_list`, `code:params_added_after_optimizer`: parameters the optimizer never sees.

- A module's layers kept in a plain Python list or dict (`self.layers = [nn.Linear(..) for _ in ..]`)
  are not registered: `.parameters()`, `.to(device)` and `state_dict()` all skip them, so those
  layers never train (and stay on the CPU, and are not saved). `nn.ModuleList` / `nn.ModuleDict`
  register them.
- An optimizer built from `model.parameters()` before a new submodule is assigned to that model
  (`model.fc = nn.Linear(..)`, `model.add_module(..)`, adapters added), or from `model.fc.parameters()`
  before `model.fc` itself is replaced, holds the old parameters only: the new layer keeps its
  initial weights.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_registration(f)` -> Findings.
"""
from __future__ import annotations

import ast
from bisect import bisect_right

from mltdbg.analyzers.code.index import CLEAR, MEDIUM, Finding, PyFile, arg, const, dotted, last, recv, src

# Layer constructors of torch.nn that hold parameters (a plain list of these is the classic bug).
_LAYERS = {"Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
           "Embedding", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell", "BatchNorm1d", "BatchNorm2d",
           "BatchNorm3d", "LayerNorm", "GroupNorm", "MultiheadAttention", "TransformerEncoderLayer",
           "TransformerDecoderLayer", "Bilinear", "Sequential", "PReLU", "InstanceNorm2d", "RMSNorm"}
# Calls that add parameters to an existing model after the fact.
_ADDERS = {"add_module", "register_module", "add_adapter", "resize_token_embeddings", "register_parameter",
           "reset_classifier", "reset_head"}   # (timm: a new classifier head)


def _module_classes(f: PyFile) -> set[str]:
    """Names of classes in this file that derive from an nn.Module-like base (by the base's last name)."""
    out: set[str] = set()
    for c in f.nodes_of(ast.ClassDef):
        bases = {(dotted(b) or "").rsplit(".", 1)[-1] for b in c.bases}
        if bases & {"Module", "LightningModule", "PreTrainedModel"} or bases & out:
            out.add(c.name)
    return out


def _builds_layer(f: PyFile, e: ast.AST, own: set[str]) -> bool:
    return any(isinstance(n, ast.Call) and (last(n) in _LAYERS or last(n) in own) for n in f.subtree(e))


def _filled_later(f: PyFile, init: ast.FunctionDef, n: ast.Assign, attr: str, own: set[str]) -> bool:
    """An empty list or dict assigned to self.<attr> that __init__ then fills with layers
    (`self.layers = []` ... `self.layers.append(nn.Linear(d, h))`, `self.heads[k] = nn.Linear(..)`)."""
    if not (isinstance(n.value, (ast.List, ast.Tuple)) and not n.value.elts
            or isinstance(n.value, ast.Dict) and not n.value.keys):
        return False
    name = f"self.{attr}"
    later = [x for x in f.subtree(init) if getattr(x, "lineno", 0) > n.lineno]
    # ... and not registered after all: the filled list wrapped whole (`nn.ModuleList(self.layers)`,
    # `nn.Sequential(*self.blocks)`), the attribute assigned again, or each item handed to add_module / setattr
    def registers(x: ast.AST) -> bool:
        if isinstance(x, ast.Assign):
            return any(dotted(t) == name for t in x.targets)
        if not isinstance(x, ast.Call):
            return False
        if last(x) in ("add_module", "register_module", "setattr"):
            return True
        return last(x) in ("ModuleList", "ModuleDict", "Sequential") and any(
            dotted(a.value if isinstance(a, ast.Starred) else a) == name for a in x.args)

    if any(registers(x) for x in later):
        return False
    for x in later:
        if (isinstance(x, ast.Call) and last(x) in ("append", "extend", "insert") and dotted(recv(x)) == name
                and any(_builds_layer(f, a, own) for a in x.args)):
            return True
        if (isinstance(x, ast.Assign) and any(isinstance(t, ast.Subscript) and dotted(t.value) == name for t in x.targets)
                and _builds_layer(f, x.value, own)):
            return True
    return False


def check_registration(f: PyFile) -> list[Finding]:
    out: list[Finding] = []
    own = _module_classes(f)
    for cls in f.nodes_of(ast.ClassDef):
        if cls.name not in own:
            continue
        for fn in cls.body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name == "__init__"):
                continue
            # the assignments of __init__ from the file's index, in ast.walk's order (no walk)
            for n in f.walk_sorted(x for x in f.subtree(fn) if isinstance(x, ast.Assign)):
                if not isinstance(n, ast.Assign) or not isinstance(n.value, (ast.List, ast.ListComp, ast.Dict,
                                                                             ast.DictComp, ast.Tuple)):
                    continue
                tgt = next((t for t in n.targets if isinstance(t, ast.Attribute) and dotted(t.value) == "self"), None)
                if tgt is None or not (_builds_layer(f, n.value, own) or _filled_later(f, fn, n, tgt.attr, own)):
                    continue
                kind = "ModuleDict" if isinstance(n.value, (ast.Dict, ast.DictComp)) else "ModuleList"
                out.append(Finding("code:modules_in_plain_list", CLEAR, n.lineno,
                                   f"self.{tgt.attr} holds layers in a plain Python "
                                   f"{'dict' if kind == 'ModuleDict' else 'list'}: they are not registered, so "
                                   f"parameters(), .to(device) and state_dict() skip them (nn.{kind} registers them)"))
    out += _added_after_optimizer(f)
    return out


def _added_after_optimizer(f: PyFile) -> list[Finding]:
    out: list[Finding] = []
    ctors = f.optimizer_ctors()
    # per scope, once: the nodes that can add parameters (a layer assigned to an attribute, an
    # add_module/register_parameter-style call), in line order; each optimizer looks only at those
    # after it (a file with hundreds of optimizers was quadratic in its node count)
    adders: dict[int, list[tuple[int, ast.AST]]] = {}
    for c in ctors:
        a = arg(c, 0, "params")
        if a is None:
            continue
        models = {dotted(recv(n)) for n in f.subtree(a) if isinstance(n, ast.Call)
                  and last(n) in ("parameters", "named_parameters") and dotted(recv(n))}
        models.discard(None)
        if not models:
            continue
        scope = f.scope_of(c)
        cand = adders.get(id(scope))
        if cand is None:
            cand = adders[id(scope)] = sorted(
                ((getattr(n, "lineno", 0), n) for n in f.in_scope(scope)
                 if (isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and last(n.value) in _LAYERS)
                 or (isinstance(n, ast.Call) and last(n) in _ADDERS)), key=lambda t: t[0])
        for line, n in cand[bisect_right(cand, c.lineno, key=lambda t: t[0]):]:
            hit = None
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    d = dotted(t) if isinstance(t, ast.Attribute) else None
                    # a submodule of a model the optimizer took, or that very module replaced
                    # (`Adam(model.fc.parameters())`, then `model.fc = nn.Linear(512, 5)`)
                    if d and any(d == m or d.startswith(m + ".") for m in models if m):
                        hit = f"{d} = {src(n.value)[:60]}"
            elif isinstance(n, ast.Call) and dotted(recv(n)) in models:
                hit = src(n)[:80]
            if hit:
                # (CLEAR where no param group is added to an optimizer anywhere: nothing hands it the new layer)
                sure = CLEAR if not f.calls_named("add_param_group") else MEDIUM
                out.append(Finding("code:params_added_after_optimizer", sure, line,
                                   f"{hit} adds parameters after the optimizer was built from "
                                   f"{', '.join(sorted(m for m in models if m))}.parameters(): it never updates them",
                                   [(c.lineno, "the optimizer is built here")]))
                break
    return out or _added_through_helpers(f) or _unfrozen_after_taken(f)


_TRAINABLE_LISTS = ("trainable_variables", "trainable_weights")


def _unfrozen_after_taken(f: PyFile) -> list[Finding]:
    """Keras/TF: the trainable variables taken once (`train_vars = model.trainable_variables`), the gradients
    computed and applied for that list, then layers unfrozen later (`base.trainable = True`) with the list never
    taken again: the unfrozen weights get no gradient and stay as they were (the fine-tuning phase that changes
    nothing)."""
    taken: dict[str, int] = {}
    for d, v in f.all_assigns():
        # (taken at the module's level: a list taken inside the step function is taken again at every call)
        if isinstance(v, ast.Attribute) and v.attr in _TRAINABLE_LISTS and f.scope_of(v) is f.tree:
            taken.setdefault(d, v.lineno)
    if not taken:
        return []
    used = {d for c in f.calls if last(c) in ("gradient", "apply_gradients")
            for n in f.subtree(c) if isinstance(n, ast.Name) and (d := n.id) in taken}
    for n in f.of_type(ast.Assign):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute)
                and n.targets[0].attr == "trainable" and const(n.value) is True):
            continue
        for name in used:
            line = taken[name]
            again = [ln for d, v in f.all_assigns() if d == name and (ln := getattr(v, "lineno", 0)) > n.lineno]
            if line < n.lineno and not again:
                return [Finding("code:params_added_after_optimizer", CLEAR, n.lineno,
                                f"{src(n)[:60]} unfreezes layers after `{name}` took the trainable variables (line {line}); "
                                f"the gradients are computed and applied for `{name}` only, so the unfrozen weights never change",
                                [(line, f"{name} taken here, once")])]
    return []


def _bound(call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """A local function's parameter names -> the dotted names a call passes for them."""
    params = [a.arg for a in fn.args.args]
    out = {p: d for p, a in zip(params, call.args) if (d := dotted(a))}
    out.update({k.arg: d for k in call.keywords if k.arg in params and (d := dotted(k.value))})
    return out


def _added_through_helpers(f: PyFile) -> list[Finding]:
    """The same order through the file's own helpers: `optimizer = make_optimizer(model)` (a function that builds
    an optimizer over its parameter's .parameters()), then `set_head(model, 5)` (one that assigns a new layer to
    an attribute of its parameter)."""
    funcs = {fn.name: fn for fn in f.funcs if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))}
    builds: dict[str, set[str]] = {}     # helper -> its parameters whose .parameters() an optimizer takes
    for c in f.optimizer_ctors():
        fn = f.scope_of(c)
        a = arg(c, 0, "params")
        if a is None or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name not in funcs:
            continue
        names = {a_.arg for a_ in fn.args.args}
        builds.setdefault(fn.name, set()).update(
            d for n in f.subtree(a) if isinstance(n, ast.Call) and last(n) in ("parameters", "named_parameters")
            and (d := dotted(recv(n))) in names)
    adds: dict[str, tuple[set[str], str]] = {}       # helper -> (its parameters it adds a layer to, the line)
    for name, fn in funcs.items():
        names = {a_.arg for a_ in fn.args.args}
        for n in f.in_scope(fn):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and last(n.value) in _LAYERS:
                for t in n.targets:
                    d = dotted(t) if isinstance(t, ast.Attribute) else None
                    if d and d.split(".")[0] in names:
                        adds.setdefault(name, (set(), f"{d} = {src(n.value)[:60]}"))[0].add(d.split(".")[0])
    if not builds or not adds:
        return []
    out: list[Finding] = []
    for scope in [f.tree] + f.funcs:
        built: dict[str, int] = {}       # model -> the line its optimizer was built on
        for c in sorted(f.calls_in(scope), key=lambda n: n.lineno):
            fname = dotted(c.func) or ""
            if fname in builds:
                for p, d in _bound(c, funcs[fname]).items():
                    if p in builds[fname]:
                        built.setdefault(d, c.lineno)
            elif fname in adds and built:
                params, what = adds[fname]
                hit = [d for p, d in _bound(c, funcs[fname]).items() if p in params and d in built]
                if hit:
                    out.append(Finding("code:params_added_after_optimizer", MEDIUM, c.lineno,
                                       f"{src(c)[:60]} runs `{what}` on {hit[0]} after the optimizer was built from "
                                       f"its parameters: the new layer is never updated",
                                       [(built[hit[0]], "the optimizer is built here")]))
                    return out
    return out
