"""`code:frozen_params`, `code:params_not_in_optimizer`, `code:frozen_random_init`: the optimizer holds only frozen
parameters, or another module's than the loop trains, or a fresh layer the loop runs (a new head:
`head = nn.Linear(512, 10)`, then `loss = ce(head(model(x)), y)`) goes to no optimizer and stays
at its random initialisation.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_params(f)` -> Findings.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import (CLEAR, MEDIUM, MODULE_MOVES, STRONG, Finding, PyFile, arg, const, core, dotted,
                                         fname, is_model_name, last, model_calls, recv, src)


def param_paths(f: PyFile, e: ast.AST, scope: ast.AST, line: int, depth: int = 0) -> list[str]:
    """Module paths whose .parameters() go into an optimizer (`model.head`), [] when unknown."""
    paths = [dotted(recv(n)) for n in f.subtree(e) if isinstance(n, ast.Call)
             and last(n) in ("parameters", "named_parameters") and dotted(recv(n))]
    if not paths and isinstance(e, ast.Name) and depth < 2:
        v = f.value_of(e.id, scope, line)
        if v is not None:
            return param_paths(f, v, scope, line, depth + 1)
    return paths


def check_params(f: PyFile) -> list[Finding]:
    out = []
    freezes: list[tuple[str, int]] = []
    unfreezes: list[str] = []
    for n in f.of_type(ast.For, ast.AsyncFor, ast.Call, ast.Assign):
        if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.iter, ast.Call) \
                and last(n.iter) in ("parameters", "named_parameters") and dotted(recv(n.iter)):
            path = dotted(recv(n.iter))
            for s in n.body:   # only unconditional statements of the loop body freeze everything
                if isinstance(s, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad"
                                                     for t in s.targets) and const(s.value) is False:
                    freezes.append((path, s.lineno))
                elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and last(s.value) == "requires_grad_" \
                        and const(arg(s.value, 0, "requires_grad"), True) is False:
                    freezes.append((path, s.lineno))
            for s in f.subtree(n):
                if isinstance(s, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad"
                                                     for t in s.targets) and const(s.value) is not False:
                    unfreezes.append(path)
        elif isinstance(n, ast.Call) and last(n) == "requires_grad_" and dotted(recv(n)):
            if const(arg(n, 0, "requires_grad"), True) is False:
                if isinstance(f.parent.get(n), ast.Expr) and not isinstance(f.parent.get(f.parent.get(n)), (ast.For, ast.If)):
                    freezes.append((dotted(recv(n)), n.lineno))
            else:
                unfreezes.append(dotted(recv(n)))
        elif isinstance(n, ast.Call) and last(n) == "set_requires_grad" and n.args and (net := dotted(n.args[0])):
            # pix2pix / CycleGAN's helper: set_requires_grad(self.netD, False) around each network's update
            on = const(arg(n, 1, "requires_grad"), False)
            if on is False and isinstance(f.parent.get(n), ast.Expr):
                freezes.append((net, n.lineno))
            elif on is not False:
                unfreezes.append(net)
        elif isinstance(n, ast.Assign):
            if any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in n.targets) and const(n.value) is not False \
                    and not _helper_argument(f, n):
                unfreezes.append("")           # some parameter made trainable: we cannot say which
    if freezes:
        # a new submodule assigned after the freeze (a fresh head) is trainable
        first_freeze = min(line for _, line in freezes)
        for n in f.of_type(ast.Assign):
            if isinstance(n, ast.Assign) and n.lineno > first_freeze and isinstance(n.value, ast.Call):
                for t in n.targets:
                    d = dotted(t)
                    if d and isinstance(t, ast.Attribute):
                        unfreezes.append(d)

    def trainable(p: str) -> bool:
        covered = any(p == fz or p.startswith(fz + ".") for fz, _ in freezes)
        if not covered:
            return True
        return any(u == "" or u == p or u.startswith(p + ".") or p.startswith(u + ".") for u in unfreezes)

    for c in f.optimizer_ctors():
        scope = f.scope_of(c)
        a = arg(c, 0, "params")
        if a is None:
            continue
        paths = param_paths(f, a, scope, c.lineno)
        if not paths:
            continue
        if freezes and not any(trainable(p) for p in paths):
            fz = next((fz, line) for fz, line in freezes if any(p == fz or p.startswith(fz + ".") for p in paths))
            if _stepped_before(f, c, fz[1]):
                continue        # trained, then frozen (a teacher frozen for distillation, a stage that is done)
            out.append(Finding("code:frozen_params", STRONG, fz[1],
                               f"every parameter given to the optimizer ({', '.join(sorted(set(paths)))}) is frozen"
                               f" (requires_grad=False on {fz[0]}): nothing trains", [(c.lineno, "optimizer built here")]))
            continue
        out.extend(_check_opt_vs_forward(f, c, scope, paths))
    if not out:
        out.extend(_fresh_layer_unoptimized(f))
    if not out:
        out.extend(_model_rebuilt_after_optimizer(f))
    if not out:
        out.extend(_frozen_from_scratch(f))
    return out


# What brings trained weights into a model: without one of these in the file, the model it builds starts random
_LOADS_WEIGHTS = frozenset({"load_state_dict", "from_pretrained", "load", "load_weights", "load_checkpoint",
                            "load_pretrained", "hf_hub_download", "load_from_checkpoint", "restore", "load_model"})


def _frozen_from_scratch(f: PyFile) -> list[Finding]:
    """`code:frozen_random_init`: a loop over a model's parameters that freezes some of them (`if not
    name.startswith("classifier"): param.requires_grad = False`) in a file that builds the model and never loads
    weights into anything (no load_state_dict / from_pretrained / torch.load / pretrained=True): the frozen layers
    keep their random initialisation, and only the rest (a linear head on random features) trains."""
    if any(last(c) in _LOADS_WEIGHTS for c in f.calls) or any(
            kw.arg in ("pretrained", "weights") and not (isinstance(kw.value, ast.Constant) and kw.value.value in (None, False))
            for c in f.calls for kw in c.keywords):
        return []       # (weights=ResNet18_Weights.DEFAULT, pretrained=args.pretrained: weights loaded)
    for n in f.of_type(ast.For):
        if not (isinstance(n, ast.For) and isinstance(n.iter, ast.Call)
                and last(n.iter) in ("parameters", "named_parameters") and dotted(recv(n.iter))):
            continue
        for s in f.subtree(n):
            if isinstance(s, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad"
                                                 for t in s.targets) and const(s.value) is False:
                path = dotted(recv(n.iter))
                built = f.value_of(path, f.scope_of(n), n.lineno)
                if not (isinstance(built, ast.Call) and is_model_name(path)) \
                        or any(b.lineno < n.lineno for b in f.backward_calls) \
                        or built.args and isinstance(built.args[0], ast.Constant) and built.args[0].value is True:
                    return []       # (a backward() above the freeze: trained, then frozen, as a distillation's teacher)
                return [Finding("code:frozen_random_init", MEDIUM, s.lineno,
                                f"{path} is built in this file and no weights are loaded into it, yet this loop freezes "
                                f"part of it (requires_grad=False): those layers stay at their random initialisation",
                                [(built.lineno, f"{path} built here")])]
    return []


def _stepped_before(f: PyFile, ctor: ast.Call, line: int) -> bool:
    """The optimizer `ctor` builds (`opt = Adam(...)`, `opt: Optimizer = ...`) steps (`opt.step()`, AMP's
    `scaler.step(opt)`) before `line`: its parameters were trained before they were frozen there. A step in the
    optimizer's own scope counts by its line; one inside a function counts where that function is called before
    `line` (`train_teacher()` then the freeze), or always inside a method other than the freeze's (a trainer's methods
    run in an order the file does not show, so no frozen optimizer is claimed); a function called only after the
    freeze does not, nor a step after the freeze in the freeze's own function."""
    parent = f.parent.get(ctor)
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target] if isinstance(parent, ast.AnnAssign) \
        else []
    names = {d.split(".")[-1] for t in targets if (d := dotted(t))}     # (opt, self.opt: by the last part)
    if not names:
        return False
    scope = f.scope_of(ctor)
    calls = [n for n in f.of_type(ast.Call) if isinstance(n, ast.Call)]    # (isinstance: of_type's nodes are typed AST)
    for n in calls:
        if last(n) != "step" or n.lineno <= ctor.lineno:
            continue
        if not any((dotted(x) or "").split(".")[-1] in names for x in (recv(n), *n.args)):
            continue
        fn = f.scope_of(n)
        if fn is scope:
            if n.lineno < line:
                return True
        elif isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if fn.lineno <= line <= (fn.end_lineno or fn.lineno):
                if n.lineno < line:
                    return True        # (stepped, then frozen, in one function)
                continue
            if isinstance(f.parent.get(fn), ast.ClassDef):
                return True
            if any(last(c) == fn.name and c.lineno < line and f.scope_of(c) is not fn for c in calls):
                return True
    return False


_OPT_NAME = re.compile(r"(?:^|_)(?:opt|optim|optimi[sz]er)(?:$|_|\d)", re.I)


def _model_rebuilt_after_optimizer(f: PyFile) -> list[Finding]:
    """`model = Net(); optimizer = build_optimizer(model, ...)` (an optimizer built in a helper the model is handed
    to, which _check_opt_vs_forward's per-constructor reading cannot follow), then `model = Net().to(device)` in
    the same scope and no optimizer built after it: the optimizer steps the first model's weights, the loop trains
    the second, which stays at its initialisation. (A rebinding that keeps the module, `model = model.to(device)`,
    `model = DDP(model)`, is not one.)"""
    for scope in [f.tree] + list(f.funcs):
        opts: list[tuple[int, str]] = []        # (line, the model name the optimizer took) in this scope
        for n in f.in_scope(scope):
            if not isinstance(n, ast.Assign) or len(n.targets) != 1 or not isinstance(n.targets[0], ast.Name):
                continue
            name, v = n.targets[0].id, n.value
            if isinstance(v, ast.Call) and (f.is_optimizer_ctor(v) or _OPT_NAME.search(name)):
                took = [x.id for x in ast.walk(v) if isinstance(x, ast.Name)]
                opts += [(n.lineno, m) for m in took if m != name]
                continue
            if not isinstance(core(v), ast.Call) or not opts:
                continue
            earlier = [line for line, m in opts if m == name]
            if not earlier or any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(v)):
                continue       # (never handed to an optimizer, or a rebinding of the same module)
            later_opt = any(isinstance(x, ast.Assign) and x.lineno > n.lineno and isinstance(x.value, ast.Call)
                            and (f.is_optimizer_ctor(x.value) or any(isinstance(t, ast.Name) and _OPT_NAME.search(t.id)
                                                                     for t in x.targets))
                            for x in f.in_scope(scope))
            trains_after = any(b.lineno > n.lineno and f.scope_of(b) is scope for b in f.backward_calls)
            reloaded = any(last(c) == "load_state_dict" and dotted(recv(c)) == name and c.lineno > n.lineno
                           for c in f.calls_named("load_state_dict"))
            if later_opt or not is_model_name(name) or not trains_after or reloaded:
                continue      # (the model rebuilt to load the best weights for evaluation: no training follows)
            return [Finding("code:params_not_in_optimizer", CLEAR, n.lineno,
                            f"{name} is built anew here after the optimizer took the parameters of the {name} before it"
                            f" (line {earlier[-1]}): the optimizer steps weights the loop no longer uses, and the new"
                            f" {name} stays at its initialisation", [(earlier[-1], "optimizer built here")])]
    return []


def _helper_argument(f: PyFile, n: ast.Assign) -> bool:
    """`param.requires_grad = requires_grad` inside a set_requires_grad helper: the value is the helper's argument,
    read at each call (check_params reads the calls)."""
    fn = f.scope_of(n)
    return isinstance(n.value, ast.Name) and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and fn.name == "set_requires_grad" and n.value.id in {a.arg for a in fn.args.args}


# torch.nn layers that hold weights and start random: built fresh, run in the loop and given to no
# optimizer, they never learn. (A pretrained module left out of the optimizer is often meant: a
# frozen backbone under a trained head.)
_FRESH_LAYERS = re.compile(r"^(?:torch\.)?nn\.(?:Linear|Bilinear|Conv[123]d|ConvTranspose[123]d|Embedding|LSTM|GRU|RNN"
                           r"|MultiheadAttention|Sequential)$")


def _fresh_layer_unoptimized(f: PyFile) -> list[Finding]:
    """A layer built fresh in the training loop's scope (`head = nn.Linear(512, 10).to(device)`), called in
    the loop before backward() and used nowhere else (not in an optimizer, a parameter list, another module,
    a state dict): its weights never change."""
    opts = f.optimizer_ctors()
    if len(opts) != 1:
        return []
    opt = opts[0]
    scope = f.scope_of(opt)
    b = f.backward_after(scope, opt.lineno)
    loops = f.loops_of(b) if b is not None else []
    if b is None or not loops:
        return []
    for c in f.within(loops[-1]):
        if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.lineno <= b.lineno):
            continue
        name = c.func.id
        v = f.value_of(name, scope, c.lineno)
        built = core(v) if v is not None else None
        if not isinstance(built, ast.Call) or not _FRESH_LAYERS.match(fname(built)):
            continue
        if f.under_no_grad(c) is not None:
            continue
        if all(_layer_use_only(f, n) for n in f.nodes_of(ast.Name) if n.id == name):
            return [Finding("code:params_not_in_optimizer", CLEAR, built.lineno,
                            f"{name} = {fname(built)}(...) is run in the training loop but its parameters go to no"
                            f" optimizer: it stays at its random initialisation", [(c.lineno, f"{name} called here"),
                                                                                    (opt.lineno, "optimizer built here")])]
    return []


def _layer_use_only(f: PyFile, n: ast.Name) -> bool:
    """n is the layer's own assignment, a call of it, or a device / mode move (`head.to(device)`)."""
    p = f.parent.get(n)
    if isinstance(n.ctx, ast.Store):
        return True
    if isinstance(p, ast.Call) and p.func is n:
        return True
    return isinstance(p, ast.Attribute) and p.attr in MODULE_MOVES and isinstance(f.parent.get(p), ast.Call)


def _check_opt_vs_forward(f: PyFile, opt: ast.Call, scope: ast.AST, paths: list[str]) -> list[Finding]:
    """The optimizer holds one module's parameters but the training loop runs another."""
    roots = {p.split(".")[0] if not p.startswith("self.") else ".".join(p.split(".")[:2]) for p in paths}
    b = f.backward_after(scope, opt.lineno)
    if b is None:
        return []
    loops = f.loops_of(b)
    region = loops[-1] if loops else scope
    key = f"params:fwd:{id(region)}"     # the forward calls of a region, found once per file
    calls: list[ast.Call] | None = f.memo.get(key)  # type: ignore[assignment]
    if calls is None:
        calls = f.memo[key] = model_calls(f, f.within(region) if loops else f.in_scope(scope))
    fwd = [c for c in calls if c.lineno <= b.lineno]
    if not fwd:
        return []
    # the optimizer's model rebuilt after the optimizer (`model = Net().to(device)`): the optimizer holds the old
    # tensors (an optimizer built inside a helper the model is handed to: _model_rebuilt_after_optimizer)
    for r in roots:
        for line, v in f.assigns_between(scope, r, opt.lineno, b.lineno):
            cv = core(v)
            if isinstance(cv, ast.Call) and r not in src(v) and (last(cv)[:1].isupper()
                                                                  or last(cv) in ("from_pretrained", "load_model")):
                return [Finding("code:params_not_in_optimizer", CLEAR, line,
                                f"{r} is rebuilt after the optimizer was created: the optimizer updates the old"
                                " parameters, the loop trains the new ones", [(opt.lineno, "optimizer built here")])]
    # (a GAN's generator optimizer: its first backward is the discriminator's, but the loop runs the generator too;
    # a call under no_grad is no training run of its module: a DQN's target network gives the TD target that way, and an
    # optimizer over its parameters alone leaves the online network untrained)
    grad_fwd = [x for x in fwd if f.under_no_grad(x) is None]
    others_run = any((dotted(x.func) or "").split(".")[0] not in roots for x in grad_fwd)
    for c in calls if loops else fwd:
        if others_run and f.under_no_grad(c) is not None:
            continue
        m = dotted(c.func)
        mroot = m.split(".")[0] if not m.startswith("self.") else ".".join(m.split(".")[:2])
        if mroot in roots or any(p.startswith(m + ".") or m.startswith(p) for p in paths):
            return []
        v = f.value_of(mroot, scope, c.lineno)
        if v is not None and any(r in src(v) for r in roots):
            return []       # e.g. net = DDP(model) / torch.compile(model)
        vals = [v for _, v in f.assigns(scope).get(mroot, [])]
        if any(r in src(v) for v in vals for r in roots):
            return []
    run_call = grad_fwd[0] if grad_fwd else fwd[0]
    m = dotted(run_call.func)
    return [Finding("code:params_not_in_optimizer", CLEAR, opt.lineno,
                    f"the optimizer gets the parameters of {', '.join(sorted(roots))} but the training loop runs {m}:"
                    f" {m}'s weights never change", [(run_call.lineno, f"forward through {m}")])]
