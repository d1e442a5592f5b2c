"""Binding a playbook's instrumentation snippet to the user's own code. UI-free.

    names = resolve_names(text, "train.py")   # {"model": "net", "optimizer": "opt", "loader": "dl", ...}
    bound = bind(snippet, names)              # placeholders filled; bound.unresolved lists what was not found
    limited = step_limit(bound.text)          # `# mltdbg: steps=N` -> (N, snippet without the directive)

In: a snippet written with the placeholders `{model}`, `{optimizer}`, `{loader}`, `{batch}`, `{loss}`
(only these exact forms are replaced; other braces, e.g. f-string fields, are left alone) and the
text of the file it goes into. Out: the snippet with the names that file uses, read from its AST
through the code checks' own index (mltdbg.analyzers.code.index: PyFile, its backward calls,
optimizer steps and constructors, loops). A name that cannot be read from the file is written as
`<<name?>>`: such a snippet is shown, never run, until the user edits it (ScratchWorktree.check
refuses while a marker is left).

Where the names come from (the first `.backward(` call of the file is the training step):
    loss       the receiver of `.backward()` (`scaler.scale(loss).backward()`: its argument)
    loader     the iterable of the innermost `for` loop around it that is not `range(...)`
               (`enumerate(dl)` / `tqdm(dl)`: the first argument); a call (`get_batches()`) is not
               reused, it would start a second pass
    batch      that loop's target (`xb, yb`; the item of `enumerate`)
    optimizer  the receiver of the optimizer step after it (`scaler.step(opt)`: the argument), else
               the only optimizer the file builds
    model      the receiver of `.parameters()` given to that optimizer's constructor, else the first
               forward call in the loop (`net(xb)`)
"""
from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from mltdbg.analyzers.code.index import PyFile, arg, dotted, last, pyfile_of, recv
from mltdbg.analyzers.model import TextArtifact

PLACEHOLDERS = ("model", "optimizer", "loader", "batch", "loss")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
UNRESOLVED = re.compile(r"<<(\w+)\?>>")
_STEPS = re.compile(r"^[ \t]*#[ \t]*mltdbg:[ \t]*steps[ \t]*=[ \t]*(\d+)[ \t]*\r?\n?", re.M)
_WRAPPERS = {"enumerate", "tqdm", "trange", "iter", "track", "progress_bar"}
# The counter the step limit keeps in the instrumented module's globals.
STEP_COUNTER = "_mltdbg_step"


@dataclass
class Bound:
    """A snippet with its placeholders filled; `unresolved`: placeholders written as `<<name?>>`."""

    text: str
    names: dict[str, str | None] = field(default_factory=dict)
    unresolved: list[str] = field(default_factory=list)

    @property
    def runnable(self) -> bool:
        return not self.unresolved


def placeholders(snippet: str) -> list[str]:
    """The placeholders a snippet uses, in first-use order."""
    return list(dict.fromkeys(_PLACEHOLDER.findall(snippet)))


def _name(n: ast.AST | None) -> str | None:
    """A plain (dotted) variable name, or None for calls, subscripts and expressions."""
    d = dotted(n) if n is not None else None
    return d if d and not d.endswith(("()", "[]")) and "()" not in d and "[]" not in d else None


def resolve_names(text: str, path: str = "train.py") -> dict[str, str | None]:
    """The placeholder names as the file `path` (its `text`) spells them; None where not found
    (also when the file does not parse)."""
    out: dict[str, str | None] = dict.fromkeys(PLACEHOLDERS)
    try:
        f = pyfile_of(TextArtifact(path, Path(path), "code", text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return out
    if not f.backward_calls:
        out["optimizer"] = next(iter(f.optimizers)) if len(f.optimizers) == 1 else None
        out["model"] = _model_of_optimizer(f, out["optimizer"])
        return out
    bw = next((c for c in f.backward_calls if f.loops_of(c)), f.backward_calls[0])
    r = recv(bw)
    if isinstance(r, ast.Call) and last(r) == "scale":
        r = arg(r, 0)
    out["loss"] = _name(r)
    loop = next((lp for lp in f.loops_of(bw) if isinstance(lp, ast.For)
                 and not (isinstance(lp.iter, ast.Call) and last(lp.iter) == "range")), None)
    if loop is not None:
        it: ast.expr | None = loop.iter
        target = loop.target
        while isinstance(it, ast.Call) and last(it) in _WRAPPERS:
            if last(it) == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                target = target.elts[1]
            it = arg(it, 0)
        out["loader"] = _name(it)
        out["batch"] = ast.unparse(target) if isinstance(target, (ast.Name, ast.Tuple, ast.Attribute)) else None
    steps = [c for c in f.opt_steps(f.scope_of(bw)) if c.lineno >= bw.lineno]
    if steps:
        s = steps[0]
        r = recv(s)
        scaler = "scaler" in (_name(r) or "").rsplit(".", 1)[-1].lower()
        out["optimizer"] = _name(arg(s, 0)) if scaler else _name(r)
    if out["optimizer"] is None and len(f.optimizers) == 1:
        out["optimizer"] = next(iter(f.optimizers))
    out["model"] = _model_of_optimizer(f, out["optimizer"])
    if out["model"] is None:
        scope_nodes = f.within(loop) if loop is not None else f.in_scope(f.scope_of(bw))
        fwd = next((c for c in scope_nodes if isinstance(c, ast.Call) and f.is_forward(c)), None)
        out["model"] = _name(fwd.func) if fwd is not None else None
    return out


def _model_of_optimizer(f: PyFile, opt: str | None) -> str | None:
    """`net` for `opt = SGD(net.parameters(), ...)` (the last such assignment of the file)."""
    if not opt:
        return None
    ctor = None
    for d, v in f.all_assigns():
        if d == opt and isinstance(v, ast.Call) and f.is_optimizer_ctor(v):
            ctor = v
    p = arg(ctor, 0, "params") if ctor is not None else None
    if isinstance(p, ast.Call) and last(p) in ("parameters", "named_parameters"):
        return _name(recv(p))
    return None


def bind(snippet: str, names: dict[str, str | None]) -> Bound:
    """The snippet with each placeholder replaced by its name, or by `<<name?>>` where there is none."""
    missing: list[str] = []

    def sub(m: re.Match) -> str:
        key = m.group(1)
        v = names.get(key)
        if v:
            return v
        if key not in missing:
            missing.append(key)
        return f"<<{key}?>>"

    return Bound(_PLACEHOLDER.sub(sub, snippet), {k: names.get(k) for k in placeholders(snippet)}, missing)


def unresolved_in(text: str) -> list[str]:
    """The `<<name?>>` markers left in text (e.g. the added lines of a scratch diff)."""
    return list(dict.fromkeys(UNRESOLVED.findall(text)))


def step_limit(snippet: str) -> tuple[int | None, str]:
    """(N, snippet without the directive) for a snippet holding `# mltdbg: steps=N`; (None, snippet) else."""
    m = _STEPS.search(snippet)
    if m is None:
        return None, snippet
    return int(m.group(1)), _STEPS.sub("", snippet)


def limited(part: str, steps: int, first: bool) -> str:
    """A snippet part that prints for the first `steps` steps only. The first part counts the steps
    (in the module's globals, so it works inside functions too) and says once when it stops."""
    body = textwrap.indent(textwrap.dedent(part).strip("\n"), "    ")
    head = ""
    if first:
        head = (f"{STEP_COUNTER} = globals()[{STEP_COUNTER!r}] = globals().get({STEP_COUNTER!r}, 0) + 1\n"
                f"if {STEP_COUNTER} == {steps + 1}:\n"
                f"    print('[mltdbg] instrumentation: printed {steps} step(s), quiet from here', flush=True)\n")
    return head + f"if globals().get({STEP_COUNTER!r}, 0) <= {steps}:\n{body}\n"


__all__ = ["PLACEHOLDERS", "Bound", "bind", "limited", "placeholders", "resolve_names", "step_limit",
           "unresolved_in"]
