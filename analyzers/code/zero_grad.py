"""`code:missing_zero_grad`: gradients never zeroed in a training loop, or zeroed between
backward() and step().

In:  one parsed file (PyFile) and the run index (RunIndex), from code/index.py.
Out: `check_zero_grad(f, idx)` -> Findings.
"""
from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right

from mltdbg.analyzers.code.index import (CLEAR, MEDIUM, STRONG, WEAK, Finding, PyFile, RunIndex, dotted, is_backward,
                                         is_model_name, last, recv, src)


def check_zero_grad(f: PyFile, idx: RunIndex) -> list[Finding]:
    out = []
    # every zero-grad node of the file, found once (each region below picks its own from these)
    all_zeros = f.zero_grads()
    file_has_zero = bool(all_zeros)
    scope_ids: dict[int, set[int]] = {}

    def zeros_in_scope(scope):
        ids = scope_ids.get(id(scope))
        if ids is None:
            ids = scope_ids[id(scope)] = {id(n) for n in f.in_scope(scope)} if all_zeros else set()
        return [z for z in all_zeros if id(z) in ids]

    # zero-grad nodes by first line, so a loop finds its own by bisection (not by testing all)
    zl = sorted(range(len(all_zeros)), key=lambda i: all_zeros[i].lineno)
    zlines = [all_zeros[i].lineno for i in zl]

    def zeros_in_loop(L):
        a, z = bisect_left(zlines, L.lineno), bisect_right(zlines, L.end_lineno or L.lineno)
        return [all_zeros[i] for i in sorted(zl[a:z]) if f.inside(all_zeros[i], L)]

    done = set()
    for b in f.backward_calls:
        scope = f.scope_of(b)
        steps = f.opt_steps(scope)
        if not steps:
            continue
        loops = f.loops_of(b)
        loop = next((L for L in loops if f.opt_steps_inside(scope, L)), None)
        region = loop if loop is not None else scope
        if id(region) in done:
            continue
        done.add(id(region))
        if loop is not None:
            nodes = f.within(region)
            zeros = zeros_in_loop(loop) if all_zeros else []
            if zeros:   # as f.within sees them: not inside a nested def (both lists are in source order)
                ids = {id(n) for n in nodes}
                zeros = [z for z in zeros if id(z) in ids]
        else:
            nodes = f.in_scope(scope)
            zeros = zeros_in_scope(scope)
        step = steps[0] if loop is None else f.opt_steps_inside(scope, loop)[0]
        if zeros:
            # zero_grad placed between backward and step in one block wipes the gradients
            bad = None
            for bb in (x for x in nodes if isinstance(x, ast.Call) and is_backward(x)):
                nxt = next((s for s in steps if s.lineno > bb.lineno), None)
                if nxt is not None:
                    bad = bad or _between(f, bb, nxt, zeros)
            if bad is not None:
                out.append(Finding("code:missing_zero_grad", CLEAR, bad.lineno,
                                   "zero_grad() runs after backward() and before step(): the step sees zero gradients",
                                   [(b.lineno, "backward()"), (step.lineno, "optimizer step")]))
            elif loop is not None and (cond := _only_under_if(f, zeros, loop, step)) is not None:
                out.append(Finding("code:missing_zero_grad", STRONG, zeros[0].lineno,
                                   f"zero_grad() runs only when `{src(cond.test)[:60]}` holds, while backward() and step() "
                                   "run every iteration: between those iterations the gradients accumulate",
                                   [(b.lineno, "backward()"), (step.lineno, "optimizer step, every iteration")]))
            elif loop is not None and (miss := _step_never_zeroed(f, scope, zeros, f.opt_steps_inside(scope, loop))):
                (never, other), first = miss, zeros[0]
                out.append(Finding("code:missing_zero_grad", CLEAR, never.lineno,
                                   f"{dotted(recv(never))}.step() runs every iteration but only {other}'s gradients are"
                                   f" zeroed in the loop: {dotted(recv(never))}'s accumulate across steps",
                                   [(getattr(first, "lineno", never.lineno), f"{other}.zero_grad(), the loop's only zeroing")]))
            continue
        if loop is None and file_has_zero:
            continue    # a step function; the caller may zero the gradients
        if loop is None and not _called_in_loop(idx, scope):
            snip = _snippet_strength(f, scope)
            if snip:    # a few quoted lines of a loop body: the loop around them was left out
                out.append(Finding("code:missing_zero_grad", snip, b.lineno,
                                   "a snippet with backward() and step() and no zero_grad() anywhere: if these lines "
                                   "run every iteration the gradients accumulate across steps",
                                   [(step.lineno, "optimizer step")]))
            continue    # one backward and one step, run once (a test, a numeric check): harmless
        outside = zeros_in_scope(scope)
        more = [(step.lineno, "optimizer step in the same loop")]
        if outside:
            more.append((outside[0].lineno, "zero_grad() only here, outside the loop"))
        strength = STRONG if loop is not None else MEDIUM
        where = "inside the loop" if loop is not None else f"in {getattr(scope, 'name', '')}()"
        out.append(Finding("code:missing_zero_grad", strength, b.lineno,
                           f"backward() and step() run every iteration but gradients are never zeroed {where}:"
                           " they accumulate across steps", more))
    return out


def _step_never_zeroed(f: PyFile, scope: ast.AST, zeros: list[ast.AST], steps: list[ast.Call]) -> tuple[ast.Call, str] | None:
    """A GAN's two optimizers: `optimizer_G.zero_grad()` in the loop, `optimizer_D.step()` with no
    `optimizer_D.zero_grad()`: (the step whose optimizer the loop never zeroes, the one it zeroes). None when a
    zero_grad is on anything but a stepped optimizer (a model's zero_grad(), a loop over optimizers: coverage unknown).
    Only steps of optimizers count: built by a torch.optim constructor where the file shows it, else named like one
    (an EMA's or SWA's own step(), a scheduler's, take no gradients)."""
    def optimizer(s: ast.Call) -> bool:
        d = dotted(recv(s)) or ""
        v = f.value_of(d, scope, s.lineno) if "." not in d else None
        if isinstance(v, ast.Call):
            return f.is_optimizer_ctor(v)
        return bool(re.search(r"opt", d, re.I)) and not re.search(r"ema|swa|sched|average", d, re.I)
    steps = [s for s in steps if optimizer(s)]
    stepped = {dotted(recv(s)) for s in steps}
    zeroed = {dotted(recv(z)) if isinstance(z, ast.Call) else None for z in zeros}
    if len(stepped) < 2 or None in stepped or None in zeroed or not zeroed <= stepped:
        return None
    never = next((s for s in steps if dotted(recv(s)) not in zeroed), None)
    return (never, str(sorted(zeroed, key=str)[0])) if never is not None else None


# An `if` over the optimizer step that makes it an accumulation (a counter modulo the accumulation steps, a flag
# named for it); another `if` over it (`if found_inf: skip ... else: optimizer.step()`) runs it nearly every iteration
_ACCUMULATING = re.compile(r"%|accum|sync|update|boundary|micro|every|grad_acc", re.I)


def _only_under_if(f: PyFile, zeros: list[ast.AST], loop: ast.AST, step: ast.AST) -> ast.If | None:
    """The `if` (inside `loop`) that every zero_grad of the loop sits under while the optimizer step does not:
    an eval block's `if iter_num % eval_interval == 0: ... optimizer.zero_grad()`. (Gradient accumulation puts
    the step under the same `if` as its zero_grad: no finding.)"""
    node = f.parent.get(step)
    while node is not None and node is not loop:
        if isinstance(node, ast.If) and (_ACCUMULATING.search(src(node.test)) or any(f.inside(z, node) for z in zeros)):
            return None         # (the step is conditional too: accumulation, or under the zero_grad's own if)
        node = f.parent.get(node)
    first: ast.If | None = None
    for z in zeros:
        node, cond = f.parent.get(z), None
        while node is not None and node is not loop:
            if isinstance(node, ast.If) and not f.inside(step, node):
                if any(f.inside(o, node) and any(f.inside(o, e) for e in node.orelse) for o in zeros if o is not z) \
                        or any(f.inside(z, e) for e in node.orelse) and any(f.inside(o, b) for o in zeros for b in node.body):
                    return None   # (zero_grad in both branches of an if / else: it runs every iteration)
                cond = node
            node = f.parent.get(node)
        if cond is None:
            return None
        first = first or cond
    return first


def _snippet_strength(f: PyFile, scope: ast.AST) -> float:
    """Strength for backward()+step() at the top level of a snippet with no zero_grad anywhere:
    0 for a script, a test or a function body; else WEAK, rising toward MEDIUM with each part
    of a training loop the snippet shows (a loss computed from a call, a forward call of the
    model, an optimizer built): the more of the loop it shows, the less likely zero_grad() sits
    in the part left out. Always below the in-loop finding (STRONG) of a whole script."""
    if not isinstance(scope, ast.Module) or f.t.path.rsplit("/", 1)[-1].startswith("test_"):
        return 0.0
    if not f.is_snippet():     # a script: its backward()/step() at top level are not a loop's body
        return 0.0
    if any(isinstance(n, ast.Assert) for n in f.nodes):
        return 0.0   # a numeric check asserts on its one step
    shown = [
        any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and any(
            "loss" in (dotted(t) or "").lower() for t in n.targets) for n in f.of_type(ast.Assign)),
        any(f.is_forward(c) for c in f.calls),
        bool(f.optimizer_ctors()),
    ]
    return WEAK + (MEDIUM - WEAK) * sum(shown) / len(shown)


def _called_in_loop(idx: RunIndex, fn: ast.AST) -> bool:
    """Is this function called from inside a loop anywhere in the run, or handed by name to another call that runs it
    for us (Ignite's `Engine(train_step)`, `Engine(process_function=update)`: a framework's loop calls it every
    iteration) where no file of the run zeroes gradients (a user's own Trainer may zero them around the step function
    it is handed)?"""
    name = getattr(fn, "name", None)
    if not name:
        return False
    if idx.loop_called is None:
        idx.loop_called = {last(c) for g in idx.files for c in g.calls if g.loops_of(c)}
        if not any(_zeroes_around_handed_step(g) for g in idx.files):
            idx.loop_called |= {a.id for g in idx.files for c in g.calls
                                for a in [*c.args, *(k.value for k in c.keywords)] if isinstance(a, ast.Name)}
    return name in idx.loop_called


# A call in a loop of a function the loop's owner was handed (`self.step_fn(batch)`, `update(engine, batch)`)
_HANDED_STEP = re.compile(r"(?:^|_)(?:fn|func|step_fn|update|train_step|closure|process\w*|step_function)$", re.I)


def _zeroes_around_handed_step(g: PyFile) -> bool:
    """A file whose loop zeroes gradients and calls a step function it was handed (a user's own Trainer): such a
    runner does the zeroing for the functions handed to it (a saliency helper's lone model.zero_grad() does not)."""
    for z in g.zero_grads():
        for loop in g.loops_of(z):
            if any(isinstance(c, ast.Call) and c is not z and _HANDED_STEP.search(last(c) or "") for c in g.within(loop)):
                return True
    return False


def _between(f: PyFile, b: ast.Call, step: ast.Call, zeros: list[ast.AST]) -> ast.AST | None:
    """A zero_grad statement in the same block after backward and before step, if any."""
    def stmt_of(n):
        p = n
        while p is not None and not isinstance(p, ast.stmt):
            p = f.parent.get(p)
        return p
    sb, ss = stmt_of(b), stmt_of(step)
    if sb is None or ss is None or f.parent.get(sb) is not f.parent.get(ss):
        return None
    target = dotted(step.args[0]) if last(step) == "step" and step.args else dotted(recv(step))
    for z in zeros:
        zr = dotted(recv(z)) if isinstance(z, ast.Call) else None
        if zr and target and zr != target and not is_model_name(zr):
            continue       # another optimizer's zero_grad does not touch these gradients
        sz = stmt_of(z)
        if sz is not None and f.parent.get(sz) is f.parent.get(sb) and sb.lineno < sz.lineno < ss.lineno:
            return sz
    return None
