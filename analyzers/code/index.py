"""The code checks' shared ground: small AST helpers, the per-file index, the facts of a run.

In:  Python source held by a Run's TextArtifacts (kind "code"); never executed.
Out: `parse_code(run)` parses every code file ONCE into a `PyFile` (parents, scopes, imports,
     assignments, calls, optimizers, backward calls; further per-scope facts memoised on
     first use) and `build_index(files)` gathers the run-wide `RunIndex` (classes that end in
     softmax or hold dropout/batch-norm, GradScaler, clipping, frameworks). Every check
     reads these two objects; codemods can build a `PyFile` from a tree they already hold.
     The AST helpers (`dotted`, `fname`, `last`, `arg`, `const`, `is_opt_step`, ...) answer
     small questions about one node. Strengths (STRONG .. INFO) are shared by all checks.
"""
from __future__ import annotations

import ast
import bisect
import gc
import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, TypeVar

from mltdbg.analyzers.model import Run, TextArtifact
from mltdbg.analyzers.prose import FENCE, is_documentation, prose_sentences, quoted_code

# Strengths. Strong = the pattern is the bug in almost every case we have seen;
# weak = worth a look only when the curves point the same way.
STRONG = 0.8
CLEAR = 0.7
MEDIUM = 0.5
WEAK = 0.25
HINT = 0.2
INFO = 0.1

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
LOOPS = (ast.For, ast.While, ast.AsyncFor)
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Calls that train a model on data: a fit (sklearn, Keras), Keras' batch and generator fits, a backward pass
FIT_CALLS = frozenset({"fit", "backward", "train_on_batch", "partial_fit", "fit_generator"})
_FUNC_TYPES, _NESTED_TYPES = frozenset(FUNCS), frozenset(NESTED)   # exact-type tests of the index walk

# Called things that are a forward pass of a network, by the tokens of the callee's last name:
# a token ending in model/net (model, resnet, netG, unet), or one of these whole words.
_MODEL_WORDS = {"encoder", "decoder", "classifier", "backbone", "generator", "discriminator", "policy",
                "critic", "actor", "student", "teacher", "transformer", "vae", "autoencoder", "detector",
                "segmenter"}
# Libraries whose import marks a file as PyTorch code (eval()/train() modes exist only there).
_TORCH_LIBS = ("torch", "transformers", "lightning", "pytorch_lightning", "timm", "accelerate", "torchvision",
               "deepspeed", "peft", "trl", "fairseq", "ignite", "diffusers", "torchaudio", "torchtext")
# An AST node type, for nodes_of.
_N = TypeVar("_N", bound=ast.AST)

_NOT_MODEL_PREFIX = ("get_", "build_", "create_", "make_", "load_", "init_", "setup_", "save_", "_")
_OPTIMIZERS = {"SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
               "LBFGS", "SparseAdam", "ASGD", "Rprop", "Lion", "Adafactor", "AdamW8bit", "Adam8bit",
               "FusedAdam", "LAMB", "Lamb", "Muon", "Sophia", "Shampoo"}
EPOCH_SCHED = {"StepLR", "MultiStepLR", "ExponentialLR", "ReduceLROnPlateau"}
AMBIG_SCHED = {"CosineAnnealingLR", "LinearLR", "PolynomialLR", "LambdaLR", "MultiplicativeLR"}
STEP_SCHED = {"OneCycleLR", "CyclicLR"}
PASSTHRU = {"to", "float", "double", "half", "bfloat16", "cpu", "cuda", "view", "reshape", "squeeze",
             "unsqueeze", "contiguous", "clone", "permute", "transpose", "flatten", "type", "type_as"}
_SAFE_LOG = {"clamp", "clip", "clamp_min", "clamp_", "maximum", "max", "fmax", "exp", "softplus",
             "tensor", "as_tensor", "full", "ones", "arange", "linspace", "numel", "size", "len",
             "sigmoid_", "nan_to_num", "where"}


# ---------------------------------------------------------------- small AST helpers


def dotted(n: ast.AST | None) -> str | None:
    """`a.b.c` for Name/Attribute chains, `f()` / `x[]` marks for calls and subscripts."""
    if isinstance(n, ast.Name):
        return n.id
    if isinstance(n, ast.Attribute):
        b = dotted(n.value)
        return f"{b}.{n.attr}" if b else None
    if isinstance(n, ast.Call):
        b = dotted(n.func)
        return f"{b}()" if b else None
    if isinstance(n, ast.Subscript):
        b = dotted(n.value)
        return f"{b}[]" if b else None
    return None


def fname(call: ast.Call) -> str:
    """Dotted name of what is called; `?.attr` when the receiver is an expression."""
    d = getattr(call, "_mltdbg_fname", None)    # memo on the node: checks ask for it many times
    if d is None:
        d = dotted(call.func)
        if not d:
            d = "?." + call.func.attr if isinstance(call.func, ast.Attribute) else "?"
        call._mltdbg_fname = d
    return d


def last(call: ast.Call) -> str:
    try:
        return call._mltdbg_last               # memo on the node, as fname's
    except AttributeError:
        d = call._mltdbg_last = fname(call).rsplit(".", 1)[-1]
        return d


# A module's calls that move it or set its mode and return the module itself (`model.cuda().eval()`,
# `head.to(device)`): the module's own name, not a use of its output.
MODULE_MOVES = frozenset({"to", "cuda", "cpu", "train", "float", "double", "half", "bfloat16"})


def recv(call: ast.Call) -> ast.expr | None:
    return call.func.value if isinstance(call.func, ast.Attribute) else None


def kwarg(call: ast.Call, name: str) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def arg(call: ast.Call, i: int, name: str | None = None) -> ast.expr | None:
    if name is not None:
        v = kwarg(call, name)
        if v is not None:
            return v
    return call.args[i] if len(call.args) > i else None


def const(n: ast.AST | None, default=None):
    try:
        return ast.literal_eval(n) if n is not None else default
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return default


def src(n: ast.AST) -> str:
    d = getattr(n, "_mltdbg_src", None)      # memo on the node: several checks print the same node
    if d is None:
        try:
            d = ast.unparse(n)
        except Exception:  # unparse of odd nodes must not stop the checks
            d = ""
        try:
            n._mltdbg_src = d
        except AttributeError:
            pass
    return d


def core(e: ast.AST) -> ast.AST:
    """Strip shape/device/dtype method chains and subscripts: `softmax(x).view(-1)[0]` -> `softmax(x)`."""
    while True:
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in PASSTHRU:
            e = e.func.value
        elif isinstance(e, ast.Subscript):
            e = e.value
        else:
            return e


def chain_attrs(e: ast.AST) -> set[str]:
    """Method/attribute names applied along a receiver chain: `out.detach().cpu()` -> {detach, cpu}."""
    out = set()
    while True:
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
            out.add(e.func.attr)
            e = e.func.value
        elif isinstance(e, ast.Attribute):
            out.add(e.attr)
            e = e.value
        elif isinstance(e, ast.Subscript):
            e = e.value
        else:
            return out


@lru_cache(maxsize=8192)   # (asked for every call of a file, by several checks: the names repeat)
def is_model_name(d: str | None) -> bool:
    """Does a dotted callee look like a network (`model`, `self.net`, `encoder`)?"""
    if not d or d.endswith(("()", "[]")):
        return False
    leaf = d.rsplit(".", 1)[-1]
    if not leaf or leaf[0].isupper() or leaf.lower().startswith(_NOT_MODEL_PREFIX):
        return False
    toks = [t for t in re.split(r"[_\d]+", leaf.lower()) if t]
    if any(t.endswith(("model", "net")) or t.startswith(("model", "net")) for t in toks):
        return True
    # a role word: the first token (`generator_ema`, `teacher`), not a suffix (`config_generator`)
    return bool(toks) and toks[0] in _MODEL_WORDS


def is_backward(c: ast.Call) -> bool:
    return last(c) in ("backward", "manual_backward")


def is_opt_step(c: ast.Call, optimizers: set[str]) -> bool:
    """`optimizer.step()`, `self.opt.step()`, `scaler.step(opt)`: not a scheduler or an env."""
    if last(c) != "step":
        return False
    r = dotted(recv(c)) or ""
    leaf = r.rsplit(".", 1)[-1].lower()
    if "sched" in leaf:
        return False
    return r in optimizers or "opt" in leaf or (leaf in ("scaler", "grad_scaler") and bool(c.args))


def is_zero_grad(n: ast.AST) -> bool:
    """zero_grad() on anything, `p.grad = None`, `p.grad.zero_()`."""
    if isinstance(n, ast.Call):
        if last(n) == "zero_grad":
            return True
        if last(n) in ("zero_", "detach_", "fill_") and "grad" in chain_attrs(n.func):
            return True
    if isinstance(n, (ast.Assign, ast.AugAssign)):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target]
        return any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in targets)
    return False


def sequential_ending(c: ast.AST, layer: str) -> ast.Call | None:
    """The last layer of `nn.Sequential(..., layer())` when it is a call of `layer`, else None."""
    if isinstance(c, ast.Call) and last(c) == "Sequential" and c.args and isinstance(c.args[-1], ast.Call) \
            and last(c.args[-1]) == layer:
        return c.args[-1]
    return None


def is_softmax_call(c: ast.AST, softmax_attrs: set[str]) -> bool:
    if not isinstance(c, ast.Call):
        return False
    return last(c) == "softmax" or (dotted(c.func) or "") in softmax_attrs


def is_no_grad_with(n: ast.AST) -> bool:
    if not isinstance(n, (ast.With, ast.AsyncWith)):
        return False
    for it in n.items:
        e = it.context_expr
        if isinstance(e, ast.Call):
            if last(e) in ("no_grad", "inference_mode"):
                return True
            if last(e) == "set_grad_enabled" and const(arg(e, 0, "mode"), True) is False:
                return True
    return False


def is_sched_ctor(c: ast.Call) -> bool:
    leaf = last(c)
    return leaf in EPOCH_SCHED | AMBIG_SCHED | STEP_SCHED or bool(re.match(r"get_\w*schedule", leaf)) \
        or leaf == "get_scheduler" or leaf in ("CosineAnnealingWarmRestarts", "SequentialLR", "ChainedScheduler")


def safe_from_zero(f: PyFile, scope: ast.AST, e: ast.AST, line: int, depth: int) -> bool:
    """Is an expression kept away from 0 (an added constant/eps, clamp, exp...)?"""
    for n in ast.walk(e):
        if isinstance(n, ast.Constant):
            if e is n:
                return True
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            return True
        elif isinstance(n, ast.Call) and last(n) in _SAFE_LOG:
            return True
        elif isinstance(n, ast.Name) and "eps" in n.id.lower():
            return True
    c = core(e)
    if isinstance(c, (ast.Name, ast.Attribute)) and depth < 2:
        v = f.value_of(dotted(c), scope, line)
        if v is not None:
            return safe_from_zero(f, scope, v, line, depth + 1)
        return False
    return False


def model_calls(f: PyFile, nodes: Iterable[ast.AST]) -> list[ast.Call]:
    return [c for c in nodes if isinstance(c, ast.Call) and f.is_forward(c)]


# ---------------------------------------------------------------- per-file index

_FIELDS: dict[type, tuple[str, ...]] = {}


# Fields that hold only the parser's shared singletons (Load/Store/Del, operators, comparison
# operators): one instance serves every node of the file, so it has no parent, scope or place of
# its own, and a third of a file's nodes are these. Checks read them as attributes (n.ctx, n.op).
_SINGLETON_FIELDS = frozenset({"ctx", "op", "ops"})
# Fields that never hold a node (identifiers, literals, flags in Python's AST grammar): not read at
# all, which saves a fifth of the index's walk (Name, Constant and Attribute nodes are most nodes).
_PLAIN_FIELDS = frozenset({"name", "asname", "module", "level", "attr", "id", "kind", "conversion", "arg",
                           "is_async", "type_comment", "tag", "kwd_attrs", "rest"})


def _node_fields(t: type) -> tuple[str, ...]:
    """The fields of AST type t that may hold child nodes (the shared singletons and plain fields left out)."""
    plain = _SINGLETON_FIELDS | _PLAIN_FIELDS
    if t is ast.Constant:
        plain |= {"value"}                    # a literal, never a node
    elif t in (ast.Global, ast.Nonlocal):
        plain |= {"names"}                    # identifiers
    return tuple(f for f in getattr(t, "_fields", ()) if f not in plain)


def _children(n: ast.AST) -> list[ast.AST]:
    """`list(ast.iter_child_nodes(n))` without its two generators (this runs once per node), less the
    shared singletons of _SINGLETON_FIELDS."""
    fields = _FIELDS.get(type(n))
    if fields is None:
        fields = _FIELDS[type(n)] = _node_fields(type(n))
    out = []
    for name in fields:
        v = getattr(n, name, None)
        if isinstance(v, ast.AST):
            out.append(v)
        elif isinstance(v, list):
            out += [x for x in v if isinstance(x, ast.AST)]
    return out


def _line(t: tuple[int, ast.AST]) -> int:
    return t[0]


def _ordered_lines(nodes: list) -> list[int] | None:
    """The nodes' line numbers when they ascend (bisect may search them), else None."""
    lines = [n.lineno for n in nodes]
    return lines if all(a <= b for a, b in zip(lines, lines[1:])) else None


@dataclass
class Finding:
    kind: str
    strength: float
    line: int
    text: str
    more: list[tuple] = field(default_factory=list)   # extra (line, words) or (line, words, PyFile) citations
    data: dict = field(default_factory=dict)


# A file of at most this many non-blank lines is a quoted snippet (PyFile.is_snippet).
SNIPPET_LINES = 30


class PyFile:
    """One parsed file: parents, scopes, imports, assignments per scope."""

    def __init__(self, t: TextArtifact, tree: ast.Module):
        self.t, self.tree = t, tree
        self._scope_nodes: dict[int, list[ast.AST]] = {id(tree): []}
        # one pre-order pass in source order: every node, its parent's position, the nodes of each
        # scope, and each node's subtree as a range of self.nodes (so `within` needs no second walk).
        # AST node types have no subclasses: the type tests are set lookups, not isinstance.
        self.nodes: list[ast.AST] = [tree]
        up: list[int] = [-1]                  # pre-order index of each node's parent
        # (node, the scope list it goes in, that scope's node, its parent's pre-order index)
        stack: list[tuple[ast.AST, list | None, ast.AST | None, int]] = [
            (c, self._scope_nodes[id(tree)], tree, 0) for c in reversed(_children(tree))]
        nodes, push, pop = self.nodes, stack.append, stack.pop
        add, add_up = nodes.append, up.append
        by_type: dict[type, list[int]] = {type(tree): [0]}
        home: list[ast.AST | None] = [None]  # per node: the scope whose list holds it (None: in none)
        put = home.append
        while stack:
            n, bucket, owner, pi = pop()
            i = len(nodes)
            add(n)
            add_up(pi)
            ty = type(n)
            at = by_type.get(ty)
            if at is None:
                by_type[ty] = [i]
            else:
                at.append(i)
            if ty in _NESTED_TYPES:
                if ty in _FUNC_TYPES:
                    inner: list | None = self._scope_nodes.setdefault(id(n), [])
                    inner_owner: ast.AST | None = n
                else:
                    inner = inner_owner = None
                put(None)
            else:
                if bucket is not None:
                    bucket.append(n)
                put(owner)
                inner, inner_owner = bucket, owner
            kids = _children(n)
            if kids:
                kids.reverse()
                for c in kids:
                    push((c, inner, inner_owner, i))
        # parents and positions in two C-level passes over the finished lists
        self.parent: dict[ast.AST, ast.AST] = dict(zip(nodes[1:], map(nodes.__getitem__, up[1:])))
        pos: dict[int, int] = dict(zip(map(id, nodes), range(len(nodes))))
        size = [1] * len(nodes)
        for i in range(len(nodes) - 1, 0, -1):
            size[up[i]] += size[i]
        self._size = size
        self._up = up
        self._home = home
        self._scope_keys = frozenset(self._scope_nodes)   # in_scope may add non-scope nodes' lists later
        self._depth: list[int] | None = None
        self._pos = pos
        self._by_type = by_type
        self._within: dict[int, list[ast.AST]] = {}
        self.calls: list[ast.Call] = self.nodes_of(ast.Call)
        self.imports: dict[str, str] = {}
        for n in self.of_type(ast.Import, ast.ImportFrom):
            if isinstance(n, ast.Import):
                for a in n.names:
                    self.imports[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(n, ast.ImportFrom):
                for a in n.names:
                    self.imports[a.asname or a.name] = f"{n.module or ''}.{a.name}"
        self.funcs = self.of_type(*FUNCS)
        self._assigns: dict[int, dict[str, list[tuple[int, ast.AST]]]] = {}
        self._all_assigns: list[tuple[str, ast.AST]] | None = None
        self._scope_of: dict[ast.AST, ast.AST] = {}
        self._steps: dict[int, list[ast.Call]] = {}
        self._step_lines: dict[int, list[int] | None] = {}
        self._by_name: dict[str, list[ast.Call]] | None = None
        self.memo: dict[str, object] = {}   # per-file results a check computes once
        self.backward_calls = [c for c in self.calls if is_backward(c)]
        self.optimizers = {d for d, v in self.all_assigns() if isinstance(v, ast.Call) and self.is_optimizer_ctor(v)}

    # --- structure
    def nodes_of(self, t: type[_N]) -> list[_N]:
        """Nodes of one AST type, typed as that type (see of_type)."""
        return [n for n in self.of_type(t) if isinstance(n, t)]

    def of_type(self, *types: type) -> list[ast.AST]:
        """Nodes of exactly these AST types, in source (pre-)order: what a scan of `nodes` with
        isinstance would keep, without visiting the other nodes (AST node types have no subclasses)."""
        pos = [self._by_type.get(t, ()) for t in types]
        if len(pos) == 1:
            return [self.nodes[i] for i in pos[0]]
        return [self.nodes[i] for i in sorted(i for p in pos for i in p)]

    def holds(self, n: ast.AST, t: type) -> bool:
        """Whether n's subtree (nested defs included) holds a node of AST type t: one bisection of
        the type's pre-order positions, no walk."""
        i = self._pos.get(id(n))
        if i is None or self.nodes[i] is not n:
            return any(isinstance(x, t) for x in ast.walk(n))
        at = self._by_type.get(t, ())
        k = bisect.bisect_left(at, i)
        return k < len(at) and at[k] < i + self._size[i]

    def walk_order(self, *types: type) -> list[ast.AST]:
        """Nodes of exactly these AST types in `ast.walk(tree)`'s order (breadth first: by depth,
        then in source order, which is how a breadth-first walk orders the nodes of one depth),
        without walking the tree again."""
        d = self._depths()
        idx = sorted((i for t in types for i in self._by_type.get(t, ())), key=lambda i: (d[i], i))
        return [self.nodes[i] for i in idx]

    def walk_sorted(self, nodes: Iterable[ast.AST]) -> list[ast.AST]:
        """Nodes of this file's tree (all under one node) in the order `ast.walk` of that node visits them."""
        d, pos = self._depths(), self._pos
        return sorted(nodes, key=lambda n: (d[pos[id(n)]], pos[id(n)]))

    def _depths(self) -> list[int]:
        if self._depth is None:
            up, depth = self._up, [0] * len(self.nodes)
            for i in range(1, len(depth)):
                depth[i] = depth[up[i]] + 1
            self._depth = depth
        return self._depth

    def subtree(self, n: ast.AST) -> list[ast.AST]:
        """n and every node under it (nested defs and classes too), in source order: what
        `ast.walk(n)` visits, as a slice of the file's index."""
        i = self._pos.get(id(n))
        if i is None or self.nodes[i] is not n:   # not a node of this file's tree
            return list(ast.walk(n))
        return self.nodes[i:i + self._size[i]]

    def scope_of(self, n: ast.AST) -> ast.AST:
        hit = self._scope_of.get(n)
        if hit is None:
            p = self.parent.get(n)
            while p is not None and not isinstance(p, FUNCS + (ast.Module,)):
                p = self.parent.get(p)
            hit = self._scope_of[n] = p if p is not None else self.tree
        return hit

    def opt_steps(self, scope: ast.AST) -> list[ast.Call]:
        """Optimizer step calls of a scope, in source order."""
        key = id(scope)
        if key not in self._steps:
            self._steps[key] = [c for c in self.calls_in(scope) if is_opt_step(c, self.optimizers)]
        return self._steps[key]

    def opt_steps_inside(self, scope: ast.AST, region: ast.AST) -> list[ast.Call]:
        """The optimizer steps of `scope` (opt_steps) inside `region` (a loop of it): the steps on its
        lines by bisection (as backward_after), then the exact ancestor test on those few."""
        steps = self.opt_steps(scope)
        key = id(scope)
        if key not in self._step_lines:
            self._step_lines[key] = _ordered_lines(steps)
        lines = self._step_lines[key]
        if lines is not None:
            lo: int = getattr(region, "lineno", 0)
            hi: int = getattr(region, "end_lineno", None) or lo
            steps = steps[bisect.bisect_left(lines, lo):bisect.bisect_right(lines, hi)]
        return [s for s in steps if self.inside(s, region)]

    def calls_in(self, scope: ast.AST) -> list[ast.Call]:
        """The calls of in_scope(scope), in source order."""
        return self.scope_nodes_of(scope, ast.Call)

    def scope_nodes_of(self, scope: ast.AST, *types: type) -> list[Any]:
        """The nodes of in_scope(scope) of exactly these AST types, in source order: grouped by
        scope for every scope at once (a check that visits each scope in turn reads only these)."""
        key = "scope_nodes:" + ",".join(t.__name__ for t in types)
        by: dict[int, list[ast.AST]] | None = self.memo.get(key)  # type: ignore[assignment]
        if by is None:   # from the type index: only the nodes of these types are visited
            by = {}
            home, nodes = self._home, self.nodes
            at = self._by_type.get(types[0], []) if len(types) == 1 else sorted(
                i for t in types for i in self._by_type.get(t, ()))
            for i in at:
                h = home[i]
                if h is not None:
                    k = id(h)
                    if k in by:
                        by[k].append(nodes[i])
                    else:
                        by[k] = [nodes[i]]
            self.memo[key] = by
        if id(scope) in self._scope_keys:
            return by.get(id(scope), [])
        return [n for n in self.in_scope(scope) if type(n) in types]   # not a scope (rare)

    def home(self, n: ast.AST) -> ast.AST | None:
        """The scope whose in_scope list holds n: its nearest enclosing def or the module; None
        inside a class body or a lambda (in no scope's list). For a few nodes found by the name or
        type indexes; a check that reads whole scopes groups them with scope_nodes_of."""
        i = self._pos.get(id(n))
        if i and self.nodes[i] is n and not isinstance(n, NESTED):   # recorded in the index's one pass
            return self._home[i]
        p = self.parent.get(n)
        while p is not None and not isinstance(p, NESTED):
            p = self.parent.get(p)
        if p is None:
            return self.tree
        return p if isinstance(p, FUNCS) else None

    def zero_grads(self) -> list[ast.AST]:
        """Every zero-grad node of the file (is_zero_grad) in source order, found once: calls by
        their names, assignments to `.grad` among the assignments."""
        hit = self.memo.get("zero_grads")
        if hit is None:
            cand = self.calls_named("zero_grad", "zero_", "detach_", "fill_") + self.of_type(ast.Assign, ast.AugAssign)
            pos = self._pos
            hit = self.memo["zero_grads"] = sorted((n for n in cand if is_zero_grad(n)), key=lambda n: pos[id(n)])
        return hit  # type: ignore[return-value]

    def calls_named(self, *names: str) -> list[ast.Call]:
        """Calls whose callee's last name is one of `names` (`x.step()`, `step()`), in source order:
        what a scan of `calls` for them keeps, from an index built once per file."""
        if self._by_name is None:
            self._by_name = {}
            for c in self.calls:
                self._by_name.setdefault(last(c), []).append(c)
        if len(names) == 1:
            return self._by_name.get(names[0], [])
        pos = self._pos
        return sorted((c for n in set(names) for c in self._by_name.get(n, ())), key=lambda c: pos[id(c)])

    def class_of(self, n: ast.AST) -> ast.ClassDef | None:
        p = self.parent.get(n)
        while p is not None and not isinstance(p, ast.ClassDef):
            p = self.parent.get(p)
        return p

    def in_scope(self, scope: ast.AST) -> list[ast.AST]:
        """Nodes of a function (or module) body in source order, not descending into nested defs/classes."""
        key = id(scope)
        if key not in self._scope_nodes:   # a node that is not a scope of its own (rare)
            out = []
            stack = list(ast.iter_child_nodes(scope))[::-1]
            while stack:   # pre-order, in source order
                n = stack.pop()
                if isinstance(n, NESTED):
                    continue
                out.append(n)
                stack.extend(list(ast.iter_child_nodes(n))[::-1])
            self._scope_nodes[key] = out
        return self._scope_nodes[key]

    def within(self, n: ast.AST) -> list[ast.AST]:
        """Nodes under n (n first), in source order, not descending into nested defs/classes.
        Computed once per node and shared: callers must not modify the list."""
        hit = self._within.get(id(n))
        if hit is not None:
            return hit
        i = self._pos.get(id(n))
        if i is None or self.nodes[i] is not n:   # not a node of this file's tree
            out = [n]
            stack = _children(n)[::-1]
            while stack:
                x = stack.pop()
                if isinstance(x, NESTED):
                    continue
                out.append(x)
                stack.extend(_children(x)[::-1])
            return out
        nodes, size = self.nodes, self._size
        out = [n]
        j, end = i + 1, i + size[i]
        while j < end:
            x = nodes[j]
            if isinstance(x, NESTED):
                j += size[j]          # skip the nested def/class and everything in it
                continue
            out.append(x)
            j += 1
        self._within[id(n)] = out
        return out

    def loops_of(self, n: ast.AST) -> list[ast.AST]:
        """Enclosing loops inside n's scope, innermost first (only when n is in the loop body)."""
        out, child, p = [], n, self.parent.get(n)
        while p is not None and not isinstance(p, FUNCS + (ast.Module,)):
            if isinstance(p, LOOPS) and (child in p.body or child in p.orelse):
                out.append(p)
            child, p = p, self.parent.get(p)
        return out

    def inside(self, n: ast.AST, anc: ast.AST) -> bool:
        """n is under anc (not anc itself): a range test on the pre-order index for this tree's nodes."""
        pos = self._pos
        i, a = pos.get(id(n)), pos.get(id(anc))
        if i is not None and a is not None and self.nodes[i] is n and self.nodes[a] is anc:
            return a < i < a + self._size[a]
        p = self.parent.get(n)
        while p is not None:
            if p is anc:
                return True
            p = self.parent.get(p)
        return False

    def under_no_grad(self, n: ast.AST) -> ast.AST | None:
        p = self.parent.get(n)
        while p is not None and not isinstance(p, FUNCS + (ast.Module,)):
            if is_no_grad_with(p):
                return p
            p = self.parent.get(p)
        return None

    # --- assignments
    def assigns(self, scope: ast.AST) -> dict[str, list[tuple[int, ast.AST]]]:
        key = id(scope)
        if key not in self._assigns:
            d: dict[str, list[tuple[int, ast.AST]]] = {}
            for n in self.scope_nodes_of(scope, ast.Assign, ast.AnnAssign):
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        for tt in (t.elts if isinstance(t, ast.Tuple) else [t]):
                            name = dotted(tt)
                            if name:
                                d.setdefault(name, []).append((n.lineno, n.value))
                elif isinstance(n, (ast.AnnAssign,)) and n.value is not None:
                    name = dotted(n.target)
                    if name:
                        d.setdefault(name, []).append((n.lineno, n.value))
            for v in d.values():
                v.sort(key=lambda x: x[0])
            self._assigns[key] = d
        return self._assigns[key]

    def value_near(self, name: str, node: ast.AST) -> ast.AST | None:
        """The expression last assigned to `name` before `node`, in `node`'s own scope, else at module level
        (`KINIT = "zeros"` or `MODEL_DIR = "/models/x"` read inside a function)."""
        line = getattr(node, "lineno", 10**9)
        return self.value_of(name, self.scope_of(node), line) or self.value_of(name, self.tree, line)

    def value_of(self, name: str | None, scope: ast.AST, before: int) -> ast.AST | None:
        """The expression last assigned to `name` in scope before line `before`."""
        if not name:
            return None
        got = self.assigns(scope).get(name)
        if not got:
            return None
        k = bisect.bisect_right(got, before, key=_line)
        return got[k - 1][1] if k else None

    def assigns_between(self, scope: ast.AST, name: str, after: int, before: int) -> list[tuple[int, ast.AST]]:
        """(line, value) of the assignments to `name` in scope on lines strictly between the two."""
        got = self.assigns(scope).get(name)
        if not got:
            return []
        return got[bisect.bisect_right(got, after, key=_line):bisect.bisect_left(got, before, key=_line)]

    def all_assigns(self) -> list[tuple[str, ast.AST]]:
        """(dotted target, value) of every plain assignment in the file."""
        if self._all_assigns is None:
            self._all_assigns = [(d, n.value) for n in self.of_type(ast.Assign)
                                 for d in (dotted(t) for t in n.targets) if d]
        return self._all_assigns

    def is_optimizer_ctor(self, c: ast.Call) -> bool:
        lc = last(c)
        if lc in _OPTIMIZERS:
            return True
        if not lc[:1].isupper():      # most calls: no class is built
            return False
        f = fname(c)
        return ".optim." in f".{self.origin(f)}." and "lr_scheduler" not in f and not is_sched_ctor(c)

    def optimizer_ctors(self) -> list[ast.Call]:
        """The file's optimizer constructor calls in source order (found once per file)."""
        hit = self.memo.get("optimizer_ctors")
        if hit is None:
            hit = self.memo["optimizer_ctors"] = [c for c in self.calls if self.is_optimizer_ctor(c)]
        return hit  # type: ignore[return-value]

    def _backward_by_scope(self) -> dict[int, tuple[list[ast.Call], list[int] | None]]:
        """id(scope) -> (its backward calls in source order, their lines when they ascend), built once."""
        by: dict[int, tuple[list[ast.Call], list[int] | None]] | None = self.memo.get("backward_by_scope")  # type: ignore[assignment]
        if by is None:
            groups: dict[int, list[ast.Call]] = {}
            for b in self.backward_calls:
                groups.setdefault(id(self.scope_of(b)), []).append(b)
            by = self.memo["backward_by_scope"] = {k: (bs, _ordered_lines(bs)) for k, bs in groups.items()}
        return by

    def backward_in(self, scope: ast.AST) -> list[ast.Call]:
        """The backward calls whose scope (scope_of) is `scope`, in source order."""
        return self._backward_by_scope().get(id(scope), ([], []))[0]

    def backward_after(self, scope: ast.AST, line: int) -> ast.Call | None:
        """The first backward call of `scope` on a line after `line` (source order), from a per-scope
        index built once per file: a check asks this for every optimizer it finds."""
        bs, lines = self._backward_by_scope().get(id(scope), ([], []))
        if lines is None:      # source order is not line order here (rare): scan
            return next((b for b in bs if b.lineno > line), None)
        k = bisect.bisect_right(lines, line)
        return bs[k] if k < len(bs) else None

    def origin(self, d: str) -> str:
        """Full module path of a dotted name through the file's imports."""
        head, _, rest = d.partition(".")
        full = self.imports.get(head, head)
        return f"{full}.{rest}" if rest else full

    def is_forward(self, c: ast.Call) -> bool:
        """A call through a network variable (`model(x)`, `self.net(x)`), not a factory in a module."""
        d = dotted(c.func)
        if not is_model_name(d):
            return False
        head = d.split(".")[0]
        return "." not in d or head == "self" or head not in self.imports

    @property
    def uses_torch(self) -> bool:
        """Imports a torch library, or (a post's snippet, imports cut off) names `torch` itself."""
        hit = self.memo.get("uses_torch")
        if hit is None:
            hit = self.memo["uses_torch"] = any(v.split(".")[0] in _TORCH_LIBS for v in self.imports.values()) or (
                not self.imports and any(n.id == "torch" for n in self.nodes_of(ast.Name)))
        return bool(hit)

    def is_snippet(self) -> bool:
        """A quoted snippet (a post's few lines), not a whole script: at most SNIPPET_LINES
        non-blank lines. Its findings are weaker: the rest of the loop is not shown."""
        return sum(1 for ln in self.t.text.splitlines() if ln.strip()) <= SNIPPET_LINES

    def has_training(self) -> bool:
        return bool(self.backward_calls)


# ---------------------------------------------------------------- facts over every file of the run


@dataclass
class RunIndex:
    """Facts over every code file of a run."""

    files: list[PyFile]
    prob_classes: dict[str, tuple[PyFile, int]] = field(default_factory=dict)   # class -> (file, softmax line)
    class_dropout: dict[str, bool] = field(default_factory=dict)               # class -> holds dropout/BN (or unknown layers)
    lightning_classes: set[str] = field(default_factory=set)
    has_scaler: bool = False
    has_clip: bool = False
    has_framework: bool = False
    sched_steps: set[str] = field(default_factory=set)                          # leaf names that get .step()
    ce_used: list[tuple[PyFile, int]] = field(default_factory=list)
    ce_built: list[tuple[PyFile, int]] = field(default_factory=list)          # CrossEntropyLoss() built, never called
    loop_called: set[str] | None = None                                       # names called inside a loop
    model_dropout: dict[str, bool] = field(default_factory=dict)               # memo of _may_drop


NORM_LAYERS = re.compile(r"Dropout|BatchNorm|dropout|SyncBatchNorm|drop_path|DropPath")
_PLAIN_LAYERS = {"Linear", "Conv1d", "Conv2d", "Conv3d", "ReLU", "GELU", "Tanh", "Sigmoid", "SiLU", "LayerNorm",
                 "Embedding", "Sequential", "ModuleList", "ModuleDict", "Flatten", "MaxPool2d", "AvgPool2d",
                 "AdaptiveAvgPool2d", "Identity", "Softmax", "LogSoftmax", "LeakyReLU", "ELU", "GRU", "LSTM",
                 "RNN", "Parameter", "RMSNorm", "GroupNorm", "MaxPool1d", "Upsample", "ConvTranspose2d", "Mish",
                 "Softplus", "Unflatten", "ZeroPad2d", "PixelShuffle", "Hardtanh", "PReLU"}


def build_index(files: list[PyFile]) -> RunIndex:
    idx = RunIndex(files)
    class_nodes: dict[str, tuple[PyFile, ast.ClassDef]] = {}
    for f in files:
        for n in f.of_type(ast.ClassDef, ast.Name, ast.Attribute):
            if isinstance(n, ast.ClassDef):
                class_nodes[n.name] = (f, n)
                if any((dotted(b) or "").rsplit(".", 1)[-1] == "LightningModule" for b in n.bases):
                    idx.lightning_classes.add(n.name)
                    idx.has_framework = True
            elif isinstance(n, ast.Name) and n.id in ("GradScaler", "ShardedGradScaler"):
                idx.has_scaler = True
            elif isinstance(n, ast.Attribute) and n.attr in ("GradScaler", "ShardedGradScaler"):
                idx.has_scaler = True
        for c in f.calls:
            lc = last(c)
            if lc in ("clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_gradients", "clip_grad_value"):
                idx.has_clip = True
            elif lc == "Accelerator":
                idx.has_scaler = True    # accelerate scales fp16 itself
            elif lc == "step":
                r = dotted(recv(c))
                if r:
                    idx.sched_steps.add(r.rsplit(".", 1)[-1])
            if framework_of(f, c):
                idx.has_framework = True
    # classes whose forward returns softmax; classes with dropout/batch-norm (or layers we cannot see)
    for name, (f, cls) in class_nodes.items():
        sm_attrs = softmax_attrs(cls, f)
        for m in cls.body:
            if isinstance(m, FUNCS) and m.name == "forward":
                rets = [s for s in m.body if isinstance(s, ast.Return) and s.value is not None]
                if rets:
                    r = rets[-1]
                    if _returns_prob(f, m, r.value, sm_attrs):
                        idx.prob_classes[name] = (f, r.lineno)
    for name, (f, cls) in class_nodes.items():
        is_module = any((dotted(b) or "").endswith(("Module", "Sequential")) for b in cls.bases) or \
            any(isinstance(m, FUNCS) and m.name == "forward" for m in cls.body)
        if is_module:
            idx.class_dropout[name] = _holds_dropout(cls, class_nodes, set())
    return idx


_SM_CACHE: dict[int, tuple[ast.AST, set[str]]] = {}


def softmax_attrs(cls: ast.AST, f: PyFile) -> set[str]:
    """`self.x` attributes that are nn.Softmax or a Sequential ending in Softmax. `f`: the file
    that holds cls (its index serves the class's nodes without a walk)."""
    hit = _SM_CACHE.get(id(cls))
    if hit is not None and hit[0] is cls:
        return hit[1]
    if len(_SM_CACHE) > 10000:
        _SM_CACHE.clear()
    out = set()
    for n in f.subtree(cls):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
            v = n.value
            if last(v) == "Softmax" or sequential_ending(v, "Softmax") is not None:
                for t in n.targets:
                    d = dotted(t)
                    if d:
                        out.add(d)
    _SM_CACHE[id(cls)] = (cls, out)
    return out


def _returns_prob(f: PyFile, fn: ast.AST, e: ast.AST, sm_attrs: set[str]) -> bool:
    c = core(e)
    if is_softmax_call(c, sm_attrs):
        return True
    if isinstance(c, ast.Name):
        v = f.value_of(c.id, fn, 10**9)
        return v is not None and is_softmax_call(core(v), sm_attrs)
    return False


def _holds_dropout(cls: ast.ClassDef, classes: dict, seen: set) -> bool:
    """True when the class uses dropout/batch-norm, another such class, or layers we cannot see."""
    if cls.name in seen:
        return False
    seen.add(cls.name)
    body = src(cls)
    if NORM_LAYERS.search(body):
        return True
    for n in ast.walk(cls):
        if isinstance(n, ast.Call):
            leaf = last(n)
            if leaf in classes and leaf != cls.name:
                if _holds_dropout(classes[leaf][1], classes, seen):
                    return True
            elif leaf[:1].isupper() and leaf not in _PLAIN_LAYERS and leaf not in ("super",) \
                    and ("nn." in fname(n) or "models." in fname(n) or "from_pretrained" in fname(n)):
                return True   # a library block (ResNet, TransformerEncoderLayer): assume it has dropout/BN
            elif leaf in ("from_pretrained", "create_model") or fname(n).startswith(("torchvision.models", "models.")):
                return True
    return False


def framework_of(f: PyFile, c: ast.Call) -> str | None:
    """'hf' for transformers/trl Trainer + TrainingArguments, 'lightning' for pl.Trainer."""
    leaf = last(c)
    if leaf not in ("Trainer", "TrainingArguments", "Seq2SeqTrainer", "Seq2SeqTrainingArguments",
                    "SFTTrainer", "SFTConfig"):
        return None
    o = f.origin(fname(c))
    if "lightning" in o:
        return "lightning"
    if "transformers" in o or "trl" in o:
        return "hf"
    mods = " ".join(f.imports.values())
    if leaf == "Trainer" and "lightning" in mods and "transformers" not in mods:
        return "lightning"
    if "transformers" in mods or "trl" in mods:
        return "hf"
    return None


# ---------------------------------------------------------------- parsing (once per file)

# One diagnosis asks for the same source's tree several times (the checks, the config facts, the
# probe targets, each codemod): the trees and PyFile indexes of the last few texts are kept,
# keyed by the text itself (a str hashes once; a hit costs one comparison of equal strings).
# Bounded by both counts and total characters so a huge repository does not pin its ASTs.
PARSE_CACHE_FILES = 256
PARSE_CACHE_CHARS = 32 * 1024 * 1024
_TREES: dict[str, ast.Module | BaseException] = {}
_PYFILES: dict[tuple[str, str], PyFile] = {}
_REPAIRED: dict[tuple[str, str], PyFile] = {}     # files checked with their offending lines blanked


def _remember(cache: dict, key, value) -> None:
    cache[key] = value
    size = sum(len(k if isinstance(k, str) else k[1]) for k in cache)
    while cache and (len(cache) > PARSE_CACHE_FILES or size > PARSE_CACHE_CHARS):
        old = next(iter(cache))          # insertion order: the oldest entry goes first
        size -= len(old if isinstance(old, str) else old[1])
        del cache[old]


@contextmanager
def gc_paused():
    """The cyclic garbage collector off while a big tree is built and walked: ast.parse and the
    index allocate hundreds of thousands of nodes without a cycle among them, and every
    collection the allocations trigger rescans all of them (a 40,000-line file parses 3x faster)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            _promote_young()
            gc.enable()


def _promote_young() -> None:
    """Move every object the young generations hold into the oldest one, unscanned. What a pause
    allocated and kept (a tree, its index) would otherwise be scanned whole by the first young
    collection after it (0.1-0.15 s for a 20,000-line file) and again on its way up, though it
    holds no cycle; in the oldest generation it waits for the next full collection, as long-lived
    objects do. freeze() + unfreeze() is that move, O(1); skipped while anyone keeps objects frozen
    (unfreeze would release theirs)."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def parse_tree(text: str) -> ast.Module:
    """`ast.parse(text)`, parsed once per distinct text while it stays in the cache. The tree is
    shared: callers must not modify it. Raises what ast.parse raises (SyntaxError, ValueError,
    RecursionError, MemoryError), every time."""
    hit = _TREES.get(text)
    if hit is None:
        try:
            with gc_paused():
                hit = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
            hit = e
        _remember(_TREES, text, hit)
    if isinstance(hit, BaseException):
        raise hit
    return hit


def pyfile_of(t: TextArtifact) -> PyFile:
    """The PyFile of a code artifact (built once per path and text; raises as parse_tree)."""
    key = (t.path, t.text)
    f = _PYFILES.get(key)
    if f is None:
        tree = parse_tree(t.text)
        with gc_paused():
            f = PyFile(t, tree)
        _remember(_PYFILES, key, f)
    return f


# A post's snippet is often not valid Python 3 as a whole (a Python 2 `print x`, a `...` line, a
# cut-off block): up to this many offending lines are blanked (same line numbers) and the rest checked.
REPAIR_LINES = 8


_FLATTENED = re.compile(r"expected an indented block after .* on line (\d+)")


def repair_tree(text: str) -> tuple[ast.Module, list[int]] | None:
    """Parse `text` with the lines ast.parse rejects replaced by `pass` at their indentation (line
    numbers unchanged); (tree, blanked line numbers), or None when REPAIR_LINES do not suffice."""
    lines = text.split("\n")
    blanked: list[int] = []
    for _ in range(REPAIR_LINES + 1):
        try:
            with gc_paused():
                return ast.parse("\n".join(lines)), blanked
        except SyntaxError as e:
            n = e.lineno or 0
            # a block pasted with its indentation lost ("def f(x):" then its body at column 0): the opener
            # becomes a no-op line and its body is read at the top level
            flat = _FLATTENED.search(e.msg or "") if isinstance(e, IndentationError) else None
            if flat is not None:
                n = int(flat.group(1))
            if not 1 <= n <= len(lines) or n in blanked or len(blanked) >= REPAIR_LINES:
                return None
            old = lines[n - 1]
            indent = old[:len(old) - len(old.lstrip())]
            # an opener whose body was cut keeps a body; anything else becomes a no-op line
            lines[n - 1] = indent + ("if True: pass" if old.rstrip().endswith(":") and flat is None else "pass")
            blanked.append(n)
        except (ValueError, RecursionError, MemoryError):
            return None
    return None


# A post saved as a text or markdown file quotes its code in ``` / ~~~ fences, or unfenced (Stack Overflow's
# four-space indent, lines pasted as they ran: prose.quoted_code, read only in a file with a sentence). The
# Python blocks (language python / py / python3 / ipython, or none and parsing as Python whole: an unlabelled
# block is as often a log) are checked as the post's own snippet: the same path, every other line blank, so
# a finding cites the post's line and the verifier finds it there.
_PY_FENCES = ("python", "py", "python3", "ipython", "ipython3")
FENCED_MAX = 200_000      # characters of a post read for its fences (a log is no post)


def _parses(text: str) -> bool:
    try:
        with gc_paused():
            ast.parse(text)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _dedented(lines: list[str], block: Iterable[int]) -> list[str]:
    """The lines `block` of `lines`, dedented by their least indent."""
    rows = [lines[j] for j in block]
    cut = min((len(x) - len(x.lstrip()) for x in rows if x.strip()), default=0)
    return [x[cut:] for x in rows]


_SNIPPET_OPENER = re.compile(r"\s*(?:for|while|def|class|with|if|import|from)\b")


# An interactive session pasted as it ran: the Python prompt and its continuation, or IPython's.
REPL_PROMPT = re.compile(r"^\s*(?:>>>|In \[\d+\]:)(?: |$)")
REPL_CONTINUED = re.compile(r"^\s*\.\.\.:?(?: |$)")


def _repl_code(lines: list[str], min_prompts: int = 2) -> list[str] | None:
    """The statements of a pasted interactive session (min_prompts prompts at least), prompts stripped, at their
    own lines; what the session printed is blank. None when `lines` are no such session."""
    out = [""] * len(lines)
    prompts, inside, depth, block, col, cell_at = 0, False, 0, False, 0, 0
    body_to = -1        # a bare cell marker's body runs to this line (exclusive)
    for i, ln in enumerate(lines):
        if i < body_to:
            continue
        bc = _BRACKET_CELL.match(ln)
        if bc:
            # "[4]  model = Net()" (Colab's cells copied as text): the code starts on the marker's line, its other
            # lines indented to the same column, then the cell's output
            prompts += 1
            w = bc.end()
            nxt = next((j for j in range(i + 1, min(len(lines), i + 1 + CELL_MAX_LINES))
                        if _BRACKET_CELL.match(lines[j]) or REPL_PROMPT.match(lines[j])), min(len(lines), i + 1 + CELL_MAX_LINES))
            body = [ln[w:]] + [x[w:] if not x[:w].strip() else x for x in lines[i + 1:nxt]]
            n = _cell_body([""] + body, 1, _BRACKET_CELL) - 1
            out[i:i + n] = body[:n]
            body_to, inside = i + max(n, 1), False
            continue
        m = REPL_PROMPT.match(ln)
        if m and not ln[m.end():].strip() and "In [" in ln:
            # "In [3]:" alone on its line (a notebook pasted as text): the cell's code is on the lines under it,
            # its output after them; chunk by chunk (blank lines apart) while the code so far still parses
            prompts += 1
            body_to = _cell_body(lines, i + 1)
            out[i + 1:body_to] = lines[i + 1:body_to]
            inside = False
            continue
        if m:
            prompts += 1
            out[i], inside, cell_at = ln[m.end():], True, i
            col = m.end() if "In [" in ln else 0       # (">>>" continues with "...": no column of its own)
            depth, block = _opened(out[i]), out[i].rstrip().endswith(":")
        elif inside and (c := REPL_CONTINUED.match(ln)):
            out[i] = ln[c.end():]
            depth += _opened(out[i])
        elif inside and col and depth <= 0 and ln.strip() and col - 2 <= len(ln) - len(ln.lstrip(" ")) <= col \
                and i - cell_at <= COLUMN_CELL_LINES and _parses("\n".join(out[cell_at:i] + [ln.lstrip(" ")])):
            out[i] = ln.lstrip(" ")   # an IPython cell's next line under its first, at the code's column (give or take
            depth += _opened(out[i])  # a space: a console's copy, a transcription), while the cell still parses: a
                                      # printed frame's header at that column is its output
        elif inside and (depth > 0 or (block and ln[:1] in " \t" and ln.strip())):
            out[i] = ln           # a continuation pasted without its "... " (an open bracket, an indented block body)
            depth += _opened(ln)
        else:
            inside = False
    # (cells whose lines parse as no code at all, "[1] https://..." references, are no session: None)
    return out if prompts >= min_prompts and any(x.strip() for x in out) and _parses("\n".join(out)) else None


_BRACKET_CELL = re.compile(r"^\[\d+\][ \t]{1,6}(?=\S)", re.M)
CELL_MAX_LINES = 300
COLUMN_CELL_LINES = 60      # an IPython cell's lines at its code's column, each parsed with the cell so far: bounded


def _cell_body(lines: list[str], start: int, marker: re.Pattern = REPL_PROMPT) -> int:
    """The end (exclusive) of the code under a bare cell marker at start - 1: its chunks of lines (blank lines
    apart, up to the next marker) as long as they parse together; the first chunk that does not (a printed
    tuple, a model summary, an epoch line) starts the cell's output."""
    end = start
    code: list[str] = []
    j = start
    stop = min(len(lines), start + CELL_MAX_LINES)      # (a cell's code is parsed chunk by chunk: bounded)
    while j < stop and not marker.match(lines[j]):
        k = j
        while k < stop and lines[k].strip() and not marker.match(lines[k]):
            k += 1
        if k > j:
            trial = code + lines[j:k]
            if not _parses("\n".join(trial)):
                break
            code, end = trial, k
        j = k + 1 if k < len(lines) and not lines[k].strip() else k
    return end


_BRACKETS = str.maketrans("", "", "\"'")


def _opened(line: str) -> int:
    """Brackets a line opens less those it closes (quotes ignored: a rough count, enough to follow a pasted
    statement over its lines)."""
    t = line.split("#", 1)[0].translate(_BRACKETS)
    return sum(t.count(ch) for ch in "([{") - sum(t.count(ch) for ch in ")]}")


def _indented_quote(lines: list[str], r: range) -> bool:
    """Whether block `r` is a Markdown-indented quote: its lines all indented four spaces or a tab, the line
    above it (if any) not, and a block statement (for, while, def, with...) opening it."""
    body = [lines[i] for i in r if lines[i].strip()]
    above = next((lines[i] for i in range(r.start - 1, -1, -1) if lines[i].strip()), "")
    return bool(body) and all(b.startswith(("    ", "\t")) for b in body) \
        and not above.startswith((" ", "\t")) and bool(_SNIPPET_OPENER.match(body[0]))


def _block_snippet(lines: list[str], r: range) -> bool:
    """Whether block `r` opens with a block statement at its own indent (`for i, (x, y) in enumerate(loader):`) and
    goes on with two or more lines indented under it: a loop or a function pasted whole (read where a line beside
    it asks a question: a post too short or not English enough for prose, not a log that echoed its code)."""
    body = [lines[i] for i in r if lines[i].strip() and not lines[i].lstrip().startswith("#")]
    if len(body) < 3 or not _SNIPPET_OPENER.match(body[0]) or not body[0].rstrip().endswith(":"):
        return False
    lead = len(body[0]) - len(body[0].lstrip())
    return all(len(b) - len(b.lstrip()) > lead for b in body[1:3])


def fenced_code(t: TextArtifact) -> TextArtifact | None:
    """The Python of `t`'s fenced blocks, and of the blocks it quotes unfenced (prose.quoted_code: a four-space
    indent, or lines pasted as they ran), each block dedented, every other line blank; None when it holds none."""
    if len(t.text) > FENCED_MAX or is_documentation(t.path):
        return None
    lines = t.text.split("\n")
    fenced = "```" in t.text or "~~~" in t.text
    sessions = ">>> " in t.text or "In [" in t.text or _BRACKET_CELL.search(t.text) is not None  # (read in the loop below)
    if sessions and not fenced and (repl := _repl_code(lines)) is not None:
        return TextArtifact(path=t.path, abspath=t.abspath, kind="code", text="\n".join(repl))
    out = [""] * len(lines)
    if not fenced:
        # (a file of such lines and no sentence, a log that printed code, quotes none; unless the code is all it
        # holds and has a block or an import: a snippet saved as a text file, "question.txt" with a training loop
        # and nothing else; two bare calls in a log are no snippet)
        quoted = quoted_code(lines)
        if quoted and not prose_sentences([t]):
            covered = {i for r in quoted for i in r}
            if any(ln.strip() and not ln.lstrip().startswith("#") and i not in covered for i, ln in enumerate(lines)) \
                    or not any(_SNIPPET_OPENER.match(lines[i]) for i in covered):
                # (but a terse post's code block, indented as Markdown quotes it under a line that is not, holds
                # a loop: its title and notes are too few words for prose, and no log indents code so)
                asks = any(ln.rstrip().endswith(("?", "？")) for i, ln in enumerate(lines) if i not in covered)
                quoted = [r for r in quoted if _indented_quote(lines, r) or (asks and _block_snippet(lines, r))]
                if not quoted:
                    return None
        for r in quoted:
            out[r.start:r.stop] = _dedented(lines, r)
        return TextArtifact(path=t.path, abspath=t.abspath, kind="code", text="\n".join(out)) if quoted else None
    opened: str | None = None        # the open fence's character, None outside a block
    python, found = False, False
    block: list[int] = []
    for i, ln in enumerate(lines + ["```"]):      # (a block the post leaves open ends with it)
        m = FENCE.match(ln)
        if opened is None:
            if m:
                opened, python, block = m.group(1)[0], m.group(2).lower() in _PY_FENCES, []
        elif (m and m.group(1)[0] == opened and not m.group(2)) or i == len(lines):
            repl = _repl_code([lines[j] for j in block], 1) if sessions else None
            code = repl if repl is not None else _dedented(lines, block)
            if any(c.strip() for c in code) and (python or _parses("\n".join(code))):
                for j, c in zip(block, code):
                    out[j] = c
                found = True
            opened = None
        else:
            block.append(i)
    if not found:
        return None
    return TextArtifact(path=t.path, abspath=t.abspath, kind="code", text="\n".join(out))


def parse_code(run: Run) -> list[PyFile]:
    """Parse every code artifact of the run; a file that does not parse is checked with its
    offending lines blanked (repair_tree) and one warning, or skipped with one warning. The fenced
    Python of a post (fenced_code) joins them, without warnings: a block that is not Python after
    repair_tree was the post's to show, not a script of the user's."""
    files = []
    for t in run.texts:
        if t.kind in ("log", "text") or t.path.lower().endswith(".ipynb"):
            f = post_code(t)
        elif t.kind == "code":
            f = _parsed(t, run.warnings)
        else:
            continue
        if f is not None:
            files.append(f)
    return files


def notebook_cells(t: TextArtifact) -> list[list[str]]:
    """Each code cell of a Jupyter notebook `t` laid over the file's lines: per cell, a list as long as the file's
    lines holding each source line at the line the JSON has it on ("" elsewhere; nbformat writes one source line
    per file line, so what is read from a cell cites the .ipynb's own lines). [] when `t` is no notebook. Read
    once a diagnosis (kept in t.memo): the code checks (notebook_code) and the config facts both ask."""
    if "notebook_cells" not in t.memo:
        t.memo["notebook_cells"] = _notebook_cells(t.text)
    return t.memo["notebook_cells"]


def _notebook_cells(text: str) -> list[list[str]]:
    try:
        nb = json.loads(text)
    except ValueError:
        return []
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return []
    file_lines = text.split("\n")
    out = []
    at = 0   # file line (0-based) searched from: cells and their lines come in file order
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source")
        src = "".join(src) if isinstance(src, list) else src if isinstance(src, str) else ""
        padded: list[str] = [""] * len(file_lines)
        for ln in src.split("\n"):
            if not ln.strip():
                continue
            needle = json.dumps(ln)[1:-1]
            k = next((i for i in range(at, len(file_lines)) if needle in file_lines[i]), None)
            if k is None:
                continue
            at = k
            padded[k] = (padded[k] + "; " + ln) if padded[k] else ln
        out.append(padded)
    return out


def notebook_code(t: TextArtifact) -> TextArtifact | None:
    """The Python of a notebook's code cells (notebook_cells), in one text at the .ipynb's lines, shell (!) and
    magic (%) lines blank; None when it has none."""
    cells = notebook_cells(t) if len(t.text) <= FENCED_MAX * 10 else []
    if not cells:
        return None
    merged = [""] * len(cells[0])
    for padded in cells:
        for i, ln in enumerate(padded):
            if ln and ln.lstrip()[:1] not in ("!", "%"):
                merged[i] = ln
    if not any(merged):
        return None
    return TextArtifact(path=t.path, abspath=t.abspath, kind="code", text="\n".join(merged))


def post_code(t: TextArtifact) -> PyFile | None:
    """The Python a post (a log or text artifact) quotes (fenced_code), or a notebook's cells (notebook_code),
    parsed at the file's own lines; None when it has none that parses (after repair_tree), without warnings."""
    if "post_code" not in t.memo:       # (read twice a diagnosis: by the code checks and by the config facts)
        c = notebook_code(t) if t.path.lower().endswith(".ipynb") else fenced_code(t)
        t.memo["post_code"] = _parsed(c, None) if c is not None else None
    return t.memo["post_code"]


def _parsed(t: TextArtifact, warnings: list[str] | None) -> PyFile | None:
    """`t` parsed, or with its offending lines blanked (repair_tree); what was skipped goes to `warnings`."""
    note = warnings.append if warnings is not None else (lambda _: None)
    try:
        return pyfile_of(t)
    except SyntaxError as e:
        fixed = repair_tree(t.text)
        if fixed is None:
            note(f"{t.path}:{e.lineno or 1}: not valid Python ({e.msg}); code checks skipped")
            return None
        tree, blanked = fixed
        note(f"{t.path}:{e.lineno or 1}: not valid Python ({e.msg}); line(s) "
             f"{', '.join(map(str, blanked))} skipped, the rest checked")
        key = (t.path, t.text)
        f = _REPAIRED.get(key)
        if f is None:
            with gc_paused():
                f = PyFile(t, tree)
            _remember(_REPAIRED, key, f)
        return f
    except (ValueError, RecursionError, MemoryError) as e:
        note(f"{t.path}:1: cannot parse ({type(e).__name__}); code checks skipped")
        return None
