"""Static checks of training code: parsed with `ast`, never executed.

In:  a Run whose `texts` hold Python source (`kind == "code"`).
Out: `code:*` Signals (vocabulary in analyzers/signals.md). Each cites the file, the
     1-based line and that line's exact text, and says in words what is wrong.

The checks follow simple data flow inside one function (a name's last assignment
before its use) and a few facts gathered over every file of the run (model classes
that end in softmax or hold dropout/batch-norm, whether a GradScaler or gradient
clipping exists anywhere). They are heuristics tuned to stay silent on correct
code: where a pattern is ambiguous the check says nothing or emits a weak signal.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from .model import Evidence, Run, Signal, TextArtifact

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

# Called things that are a forward pass of a network, by the tokens of the callee's last name:
# a token ending in model/net (model, resnet, netG, unet), or one of these whole words.
_MODEL_WORDS = {"encoder", "decoder", "classifier", "backbone", "generator", "discriminator", "policy",
                "critic", "actor", "student", "teacher", "transformer", "vae", "autoencoder", "detector",
                "segmenter"}
# Libraries whose import marks a file as PyTorch code (eval()/train() modes exist only there).
_TORCH_LIBS = ("torch", "transformers", "lightning", "pytorch_lightning", "timm", "accelerate", "torchvision",
               "deepspeed", "peft", "trl", "fairseq", "ignite", "diffusers", "torchaudio", "torchtext")
_NOT_MODEL_PREFIX = ("get_", "build_", "create_", "make_", "load_", "init_", "setup_", "save_", "_")
_OPTIMIZERS = {"SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
               "LBFGS", "SparseAdam", "ASGD", "Rprop", "Lion", "Adafactor", "AdamW8bit", "Adam8bit",
               "FusedAdam", "LAMB", "Lamb", "Muon", "Sophia", "Shampoo"}
_EPOCH_SCHED = {"StepLR", "MultiStepLR", "ExponentialLR", "ReduceLROnPlateau"}
_AMBIG_SCHED = {"CosineAnnealingLR", "LinearLR", "PolynomialLR", "LambdaLR", "MultiplicativeLR"}
_STEP_SCHED = {"OneCycleLR", "CyclicLR"}
_LOSS_FUNCS = {"cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
               "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "ctc_loss"}
_PASSTHRU = {"to", "float", "double", "half", "bfloat16", "cpu", "cuda", "view", "reshape", "squeeze",
             "unsqueeze", "contiguous", "clone", "permute", "transpose", "flatten", "type", "type_as"}
_DETACHERS = {"detach", "item", "numpy", "tolist", "data", "detach_"}
_SAFE_LOG = {"clamp", "clip", "clamp_min", "clamp_", "maximum", "max", "fmax", "exp", "softplus",
             "tensor", "as_tensor", "full", "ones", "arange", "linspace", "numel", "size", "len",
             "sigmoid_", "nan_to_num", "where"}
_INFER_TOKENS = {"predict", "prediction", "predictions", "evaluate", "eval", "evaluation", "infer",
                 "inference", "generate", "validate", "validation", "val"}
_INPUT_RE = re.compile(r"^(x|xs|x_\w+|inputs?|images?|imgs|texts?|sentences|features|feats|samples|examples|data_x|train_x|xtrain)$", re.I)
_LABEL_RE = re.compile(r"^(y|ys|y_\w+|labels?|targets?|classes|data_y|train_y|ytrain|\w+_labels?|\w+_targets?)$", re.I)


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
    return fname(call).rsplit(".", 1)[-1]


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
    try:
        return ast.unparse(n)
    except Exception:  # unparse of odd nodes must not stop the checks
        return ""


def core(e: ast.AST) -> ast.AST:
    """Strip shape/device/dtype method chains and subscripts: `softmax(x).view(-1)[0]` -> `softmax(x)`."""
    while True:
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in _PASSTHRU:
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


# ---------------------------------------------------------------- per-file index

@dataclass
class Finding:
    kind: str
    strength: float
    line: int
    text: str
    more: list[tuple] = field(default_factory=list)   # extra (line, words) or (line, words, PyFile) citations
    data: dict = field(default_factory=dict)


class PyFile:
    """One parsed file: parents, scopes, imports, assignments per scope."""

    def __init__(self, t: TextArtifact, tree: ast.Module):
        self.t, self.tree = t, tree
        self.parent: dict[ast.AST, ast.AST] = {}
        self._scope_nodes: dict[int, list[ast.AST]] = {id(tree): []}
        # one pre-order pass in source order: parents, every node, and the nodes of each scope
        self.nodes: list[ast.AST] = [tree]
        stack: list[tuple[ast.AST, list | None]] = [(c, self._scope_nodes[id(tree)])
                                                    for c in reversed(list(ast.iter_child_nodes(tree)))]
        for c, _ in stack:
            self.parent[c] = tree
        while stack:
            n, bucket = stack.pop()
            self.nodes.append(n)
            if isinstance(n, NESTED):
                inner = self._scope_nodes.setdefault(id(n), []) if isinstance(n, FUNCS) else None
            else:
                if bucket is not None:
                    bucket.append(n)
                inner = bucket
            kids = list(ast.iter_child_nodes(n))
            for c in reversed(kids):
                self.parent[c] = n
                stack.append((c, inner))
        self.calls = [n for n in self.nodes if isinstance(n, ast.Call)]
        self.imports: dict[str, str] = {}
        for n in self.nodes:
            if isinstance(n, ast.Import):
                for a in n.names:
                    self.imports[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(n, ast.ImportFrom):
                for a in n.names:
                    self.imports[a.asname or a.name] = f"{n.module or ''}.{a.name}"
        self.funcs = [n for n in self.nodes if isinstance(n, FUNCS)]
        self._assigns: dict[int, dict[str, list[tuple[int, ast.AST]]]] = {}
        self._all_assigns: list[tuple[str, ast.AST]] | None = None
        self._scope_of: dict[ast.AST, ast.AST] = {}
        self._steps: dict[int, list[ast.Call]] = {}
        self._by_name: dict[str, list[ast.Call]] | None = None
        self.optimizers = {d for d, v in self.all_assigns() if isinstance(v, ast.Call) and self.is_optimizer_ctor(v)}
        self.backward_calls = [c for c in self.calls if is_backward(c)]
        self.optimizers = {d for d, v in self.all_assigns() if isinstance(v, ast.Call) and self.is_optimizer_ctor(v)}

    # --- structure
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
            self._steps[key] = [c for c in self.in_scope(scope) if isinstance(c, ast.Call)
                                and is_opt_step(c, self.optimizers)]
        return self._steps[key]

    def calls_named(self, name: str) -> list[ast.Call]:
        if self._by_name is None:
            self._by_name = {}
            for c in self.calls:
                self._by_name.setdefault(last(c), []).append(c)
        return self._by_name.get(name, [])

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

    def within(self, n: ast.AST) -> Iterator[ast.AST]:
        """Nodes under n, not descending into nested defs/classes."""
        yield n
        stack = list(ast.iter_child_nodes(n))[::-1]
        while stack:
            x = stack.pop()
            if isinstance(x, NESTED):
                continue
            yield x
            stack.extend(list(ast.iter_child_nodes(x))[::-1])

    def loops_of(self, n: ast.AST) -> list[ast.AST]:
        """Enclosing loops inside n's scope, innermost first (only when n is in the loop body)."""
        out, child, p = [], n, self.parent.get(n)
        while p is not None and not isinstance(p, FUNCS + (ast.Module,)):
            if isinstance(p, LOOPS) and (child in p.body or child in p.orelse):
                out.append(p)
            child, p = p, self.parent.get(p)
        return out

    def inside(self, n: ast.AST, anc: ast.AST) -> bool:
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
            for n in self.in_scope(scope):
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

    def value_of(self, name: str | None, scope: ast.AST, before: int) -> ast.AST | None:
        """The expression last assigned to `name` in scope before line `before`."""
        if not name:
            return None
        best = None
        for line, v in self.assigns(scope).get(name, []):
            if line <= before:
                best = v
        return best

    def all_assigns(self) -> list[tuple[str, ast.AST]]:
        """(dotted target, value) of every plain assignment in the file."""
        if self._all_assigns is None:
            self._all_assigns = [(d, n.value) for n in self.nodes if isinstance(n, ast.Assign)
                                 for d in (dotted(t) for t in n.targets) if d]
        return self._all_assigns

    def is_optimizer_ctor(self, c: ast.Call) -> bool:
        f = fname(c)
        if last(c) in _OPTIMIZERS:
            return True
        return ".optim." in f".{self.origin(f)}." and "lr_scheduler" not in f and last(c)[:1].isupper() \
            and not _is_sched_ctor(c)

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
        return any(v.split(".")[0] in _TORCH_LIBS for v in self.imports.values())

    def has_training(self) -> bool:
        return bool(self.backward_calls)


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
    loop_called: set[str] | None = None                                       # names called inside a loop
    model_dropout: dict[str, bool] = field(default_factory=dict)               # memo of _may_drop


_NORM_LAYERS = re.compile(r"Dropout|BatchNorm|dropout|SyncBatchNorm|drop_path|DropPath")
_PLAIN_LAYERS = {"Linear", "Conv1d", "Conv2d", "Conv3d", "ReLU", "GELU", "Tanh", "Sigmoid", "SiLU", "LayerNorm",
                 "Embedding", "Sequential", "ModuleList", "ModuleDict", "Flatten", "MaxPool2d", "AvgPool2d",
                 "AdaptiveAvgPool2d", "Identity", "Softmax", "LogSoftmax", "LeakyReLU", "ELU", "GRU", "LSTM",
                 "RNN", "Parameter", "RMSNorm", "GroupNorm", "MaxPool1d", "Upsample", "ConvTranspose2d", "Mish",
                 "Softplus", "Unflatten", "ZeroPad2d", "PixelShuffle", "Hardtanh", "PReLU"}


def _index(files: list[PyFile]) -> RunIndex:
    idx = RunIndex(files)
    class_nodes: dict[str, tuple[PyFile, ast.ClassDef]] = {}
    for f in files:
        for n in f.nodes:
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
            if _framework_of(f, c):
                idx.has_framework = True
    # classes whose forward returns softmax; classes with dropout/batch-norm (or layers we cannot see)
    for name, (f, cls) in class_nodes.items():
        sm_attrs = _softmax_attrs(cls)
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


def _softmax_attrs(cls: ast.AST) -> set[str]:
    """`self.x` attributes that are nn.Softmax or a Sequential ending in Softmax."""
    hit = _SM_CACHE.get(id(cls))
    if hit is not None and hit[0] is cls:
        return hit[1]
    if len(_SM_CACHE) > 10000:
        _SM_CACHE.clear()
    out = set()
    for n in ast.walk(cls):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
            v = n.value
            if last(v) == "Softmax" or (last(v) == "Sequential" and v.args and isinstance(v.args[-1], ast.Call)
                                         and last(v.args[-1]) == "Softmax"):
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
    if _NORM_LAYERS.search(body):
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


def _framework_of(f: PyFile, c: ast.Call) -> str | None:
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


# ---------------------------------------------------------------- checks

def _check_zero_grad(f: PyFile, idx: RunIndex) -> list[Finding]:
    out = []
    file_has_zero = any(is_zero_grad(n) for n in f.nodes)
    done = set()
    for b in f.backward_calls:
        scope = f.scope_of(b)
        steps = f.opt_steps(scope)
        if not steps:
            continue
        loops = f.loops_of(b)
        loop = next((L for L in loops if any(f.inside(s, L) for s in steps)), None)
        region = loop if loop is not None else scope
        if id(region) in done:
            continue
        done.add(id(region))
        nodes = list(f.within(region)) if loop is not None else list(f.in_scope(scope))
        zeros = [n for n in nodes if is_zero_grad(n)]
        step = next(s for s in steps if loop is None or f.inside(s, loop))
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
            continue
        if loop is None and file_has_zero:
            continue    # a step function; the caller may zero the gradients
        if loop is None and not _called_in_loop(idx, scope):
            continue    # one backward and one step, run once (a test, a numeric check): harmless
        outside = [n for n in f.in_scope(scope) if is_zero_grad(n)]
        more = [(step.lineno, "optimizer step in the same loop")]
        if outside:
            more.append((outside[0].lineno, "zero_grad() only here, outside the loop"))
        strength = STRONG if loop is not None else MEDIUM
        out.append(Finding("code:missing_zero_grad", strength, b.lineno,
                           "backward() and step() run every iteration but gradients are never zeroed inside the loop:"
                           " they accumulate across steps", more))
    return out


def _called_in_loop(idx: RunIndex, fn: ast.AST) -> bool:
    """Is this function called from inside a loop anywhere in the run?"""
    name = getattr(fn, "name", None)
    if not name:
        return False
    if idx.loop_called is None:
        idx.loop_called = {last(c) for g in idx.files for c in g.calls if g.loops_of(c)}
    return name in idx.loop_called


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


def _prob_names(f: PyFile, scope: ast.AST, idx: RunIndex, sm_attrs: set[str]) -> dict[str, tuple[int, tuple]]:
    """Names in scope holding probabilities -> (line assigned, (file, line of the softmax))."""
    prob_models = _prob_models(f, idx)
    out: dict[str, tuple[int, tuple]] = {}
    for name, lst in f.assigns(scope).items():
        for line, v in lst:
            c = core(v)
            if is_softmax_call(c, sm_attrs):
                out[name] = (line, (f, line))
            elif isinstance(c, ast.Call) and (dotted(c.func) or "") in prob_models:
                out[name] = (line, prob_models[dotted(c.func)])
            elif name in out and line > out[name][0]:
                del out[name]       # reassigned to something else later
    return out


def _prob_models(f: PyFile, idx: RunIndex) -> dict[str, tuple]:
    """Variables holding a model whose output is probabilities -> (file, line of its softmax)."""
    if not hasattr(f, "_probm"):
        d = {}
        for name, v in f.all_assigns():
            c = core(v)
            if not isinstance(c, ast.Call):
                continue
            if last(c) in idx.prob_classes:
                d[name] = idx.prob_classes[last(c)]
            elif last(c) == "Sequential" and c.args and isinstance(c.args[-1], ast.Call) and last(c.args[-1]) == "Softmax":
                d[name] = (f, c.args[-1].lineno)
        f._probm = d
    return f._probm


def _is_ce(c: ast.Call, ce_names: set[str]) -> bool:
    if last(c) == "cross_entropy":
        return True
    if (dotted(c.func) or "") in ce_names:
        return True
    return isinstance(c.func, ast.Call) and last(c.func) == "CrossEntropyLoss"


def _check_softmax(f: PyFile, idx: RunIndex) -> list[Finding]:
    """softmax -> cross-entropy, log(softmax), log of values that can be 0."""
    out = []
    sm_attrs = set()
    for cls in (n for n in f.nodes if isinstance(n, ast.ClassDef)):
        sm_attrs |= _softmax_attrs(cls)
    sm_attrs |= {d for d, v in f.all_assigns() if isinstance(v, ast.Call) and last(v) == "Softmax"}
    ce_names = {d for d, v in f.all_assigns() if isinstance(v, ast.Call) and last(v) == "CrossEntropyLoss"}
    prob_models = _prob_models(f, idx)
    for scope in [f.tree] + f.funcs:
        probs = None
        for c in f.in_scope(scope):
            if not isinstance(c, ast.Call):
                continue
            # softmax -> cross entropy
            if _is_ce(c, ce_names):
                idx.ce_used.append((f, c.lineno))
                a = arg(c, 0, "input")
                if a is None:
                    continue
                probs = probs if probs is not None else _prob_names(f, scope, idx, sm_attrs)
                where = _prob_source(f, a, probs, prob_models, sm_attrs, c.lineno)
                if where is not None:
                    out.append(Finding("code:softmax_before_ce", 0.85, c.lineno,
                                       "cross-entropy is given softmax probabilities; it applies log-softmax itself and"
                                       " expects raw logits", [(where[1], "softmax applied here", where[0])]))
                continue
            # log(softmax) and log of values that can be 0
            x = None
            if fname(c) in ("torch.log", "np.log", "numpy.log", "th.log") and c.args:
                x = c.args[0]
            elif isinstance(c.func, ast.Attribute) and c.func.attr == "log" and not c.args \
                    and fname(c).split(".")[0] not in ("math", "np", "numpy", "torch", "logging", "logger", "log"):
                x = c.func.value
            if x is None:
                continue
            probs = probs if probs is not None else _prob_names(f, scope, idx, sm_attrs)
            where = _prob_source(f, x, probs, prob_models, sm_attrs, c.lineno)
            if where is not None:
                out.append(Finding("code:log_softmax_unstable", STRONG, c.lineno,
                                   "log of softmax underflows to log(0) = -inf; use log_softmax",
                                   [(where[1], "softmax here", where[0])] if where != (f, c.lineno) else []))
            elif isinstance(core(x), ast.Call) and last(core(x)) == "sigmoid":
                out.append(Finding("code:log_softmax_unstable", 0.6, c.lineno,
                                   "log of sigmoid underflows to -inf; use F.logsigmoid or BCEWithLogits"))
            elif not _safe(f, scope, x, c.lineno, 0):
                out.append(Finding("code:unsafe_log", WEAK, c.lineno,
                                   f"log({src(x)}) without an epsilon or clamp: -inf when the value is 0"))
    return out


def _prob_source(f: PyFile, a: ast.AST, probs: dict, prob_models: dict, sm_attrs, line: int) -> tuple | None:
    """(file, line) of the softmax that produced expression `a`, or None."""
    c = core(a)
    if is_softmax_call(c, sm_attrs):
        return (f, c.lineno)
    if isinstance(c, ast.Name) and c.id in probs and probs[c.id][0] <= line:
        return probs[c.id][1]
    if isinstance(c, ast.Call) and (dotted(c.func) or "") in prob_models:
        return prob_models[dotted(c.func)]
    return None


def _safe(f: PyFile, scope: ast.AST, e: ast.AST, line: int, depth: int) -> bool:
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
            return _safe(f, scope, v, line, depth + 1)
        return False
    return False


def _std_like(e: ast.AST) -> bool:
    c = core(e)
    if isinstance(c, ast.Call):
        if last(c) in ("std", "var"):
            return True
        if last(c) == "sqrt" and any(isinstance(n, ast.Call) and last(n) == "var" for n in ast.walk(c)):
            return True
    return False


def _check_div_std(f: PyFile) -> list[Finding]:
    out = []
    for n in f.nodes:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
            right = n.right
        elif isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Div):
            right = n.value
        else:
            continue
        scope = f.scope_of(n)
        bad = _std_like(right) and not _safe(f, scope, right, n.lineno, 2)
        if not bad and isinstance(core(right), (ast.Name, ast.Attribute)):
            v = f.value_of(dotted(core(right)), scope, n.lineno)
            bad = v is not None and _std_like(v) and not _safe(f, scope, v, n.lineno, 2)
        if bad:
            out.append(Finding("code:unsafe_div_std", WEAK, n.lineno,
                               f"division by {src(right)} without an epsilon: inf/NaN when the values are all equal"))
    return out


def _check_var(f: PyFile) -> list[Finding]:
    out = []
    for c in f.calls:
        if last(c) not in ("var", "std"):
            continue
        fn = fname(c)
        is_np = fn.split(".")[0] in ("np", "numpy")
        if is_np:
            if const(kwarg(c, "ddof"), 0) == 1:
                out.append(Finding("code:var_single_element", HINT, c.lineno,
                                   "variance with ddof=1 is NaN when the axis holds one element"))
            continue
        if const(kwarg(c, "unbiased"), True) is False or const(kwarg(c, "correction"), 1) == 0:
            continue
        is_method = fn not in ("torch.var", "torch.std", "th.var", "th.std")
        x = recv(c) if is_method else arg(c, 0, "input")
        dim = arg(c, 0 if is_method else 1, "dim")
        if x is None or dim is None:
            continue
        d = const(dim)
        if not isinstance(d, int):
            continue
        scope = f.scope_of(c)
        base = x
        if isinstance(core(x), ast.Name):
            v = f.value_of(core(x).id, scope, c.lineno)
            base = v if v is not None else x
        if _size_one_along(base, d):
            out.append(Finding("code:var_single_element", 0.75, c.lineno,
                               f"{fn.rsplit('.', 1)[-1]}() over dim {d}, which has size 1: the unbiased estimate"
                               " divides by 0 (degrees of freedom <= 0)"))
        elif d == 0:
            out.append(Finding("code:var_single_element", HINT, c.lineno,
                               "unbiased variance over the batch dimension is NaN for a batch of one"))
    return out


def _size_one_along(e: ast.AST, d: int) -> bool:
    """Does the expression's dimension d literally have size 1?"""
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
        m = e.func.attr
        if m == "unsqueeze" and const(arg(e, 0, "dim")) == d:
            return True
        if m in ("mean", "sum", "amax", "amin", "max", "min", "norm") and const(kwarg(e, "keepdim")) is True \
                and const(arg(e, 0, "dim")) == d:
            return True
        if m in ("view", "reshape") and e.args:
            shape = [const(a) for a in e.args]
            if len(e.args) == 1 and isinstance(shape[0], tuple):
                shape = list(shape[0])
            try:
                return shape[d] == 1
            except IndexError:
                return False
        if m in _PASSTHRU:
            return _size_one_along(e.func.value, d)
    if isinstance(e, ast.Subscript):
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        if d < 0:
            d = len(idx) + d if not any(isinstance(i, ast.Constant) and i.value is Ellipsis for i in idx) else len(idx) + d
        if 0 <= d < len(idx):
            s = idx[d]
            if isinstance(s, ast.Constant) and s.value is None:
                return True
            if isinstance(s, ast.Slice) and s.upper is not None:
                lo = const(s.lower, 0) if s.lower is not None else 0
                hi = const(s.upper)
                if isinstance(lo, int) and isinstance(hi, int) and hi - lo == 1:
                    return True
                if s.lower is not None and isinstance(s.upper, ast.BinOp) and isinstance(s.upper.op, ast.Add) \
                        and src(s.upper.left) == src(s.lower) and const(s.upper.right) == 1:
                    return True
            if isinstance(s, ast.List) and len(s.elts) == 1:
                return True
    return False


def _check_fp16(f: PyFile, idx: RunIndex) -> list[Finding]:
    if idx.has_scaler or not f.has_training() or any(_framework_of(f, c) for c in f.calls):
        return []
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


def _sched_kind(c: ast.Call) -> str | None:
    """'epoch' / 'step' for how often a scheduler is meant to be stepped, None when unclear."""
    leaf = last(c)
    text = " ".join(src(a) for a in list(c.args[1:]) + [k.value for k in c.keywords]).lower()
    if leaf in _STEP_SCHED or re.match(r"get_\w*schedule", leaf) or leaf == "get_scheduler":
        return "step"
    if leaf in ("StepLR", "MultiStepLR"):
        nums = [v for v in (const(a) for a in list(c.args[1:]) + [k.value for k in c.keywords])
                if isinstance(v, (int, list, tuple))]
        big = any((isinstance(v, int) and v >= 1000) or (isinstance(v, (list, tuple)) and any(isinstance(x, int) and x >= 1000 for x in v)) for v in nums)
        if big or re.search(r"iter|step|len\(", text.replace("step_size", "")):
            return "step"
        return "epoch"
    if leaf in _EPOCH_SCHED:
        return "epoch"
    if leaf in _AMBIG_SCHED:
        if "warmup" in text:
            return "step"
        if re.search(r"epoch", text):
            return "epoch"
        if re.search(r"iter|steps|len\(|total", text):
            return "step"
    return None


def _is_sched_ctor(c: ast.Call) -> bool:
    leaf = last(c)
    return leaf in _EPOCH_SCHED | _AMBIG_SCHED | _STEP_SCHED or bool(re.match(r"get_\w*schedule", leaf)) \
        or leaf == "get_scheduler" or leaf in ("CosineAnnealingWarmRestarts", "SequentialLR", "ChainedScheduler")


def _fn_training_shape(f: PyFile) -> dict[str, str]:
    """Function name -> 'step' (backward, no loop) or 'epoch' (loop around backward)."""
    out: dict[str, str] = {}
    for b in f.backward_calls:
        fn = f.scope_of(b)
        if isinstance(fn, FUNCS):
            shape = "epoch" if f.loops_of(b) else "step"
            out[fn.name] = "epoch" if out.get(fn.name) == "epoch" else shape
    return out


def _level(f: PyFile, call: ast.Call, shapes: dict[str, str]) -> str | None:
    """Is this call at batch level or epoch level of the training loop?"""
    scope = f.scope_of(call)
    loops = f.loops_of(call)
    region = loops[0] if loops else scope
    inner_bw = [b for b in f.backward_calls if f.scope_of(b) is scope and (f.inside(b, region) or region is scope)]
    if loops:
        L = loops[0]
        if any(f.loops_of(b)[:1] == [L] for b in inner_bw):
            return "batch"
        if any(L in f.loops_of(b)[1:] for b in inner_bw):
            return "epoch"
        called = {last(c) for c in f.within(L) if isinstance(c, ast.Call)}
        kinds = {shapes[n] for n in called if n in shapes}
        if "epoch" in kinds:
            return "epoch"
        if "step" in kinds:
            return "batch"
        t = L.target if isinstance(L, (ast.For, ast.AsyncFor)) else None
        tgt = src(t).lower() if t is not None else ""
        it = src(L.iter).lower() if isinstance(L, (ast.For, ast.AsyncFor)) else ""
        if "epoch" in tgt:
            return "epoch"
        if "loader" in it or "batch" in tgt:
            return "batch"
        return None
    if inner_bw:
        return "epoch" if any(f.loops_of(b) for b in inner_bw) else "batch"
    return None


def _check_scheduler(f: PyFile, idx: RunIndex) -> list[Finding]:
    if not f.has_training():
        return []
    out = []
    shapes = _fn_training_shape(f)
    scheds = {}
    for n in f.nodes:
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and _is_sched_ctor(n.value):
            for t in n.targets:
                d = dotted(t)
                if d:
                    scheds[d] = (n.value, n.lineno)
    for name, (ctor, line) in scheds.items():
        kind = _sched_kind(ctor)
        leaf = name.rsplit(".", 1)[-1]
        steps = [c for c in f.calls if last(c) == "step" and (dotted(recv(c)) or "").rsplit(".", 1)[-1] == leaf]
        if not steps:
            if leaf in idx.sched_steps or _escapes(f, name):
                continue
            out.append(Finding("code:scheduler_wrong_loop", 0.6, line,
                               f"scheduler {name} ({last(ctor)}) is created but never stepped: the lr stays at its"
                               " initial value"))
            continue
        if kind is None:
            continue
        for s in steps:
            lvl = _level(f, s, shapes)
            if kind == "epoch" and lvl == "batch":
                out.append(Finding("code:scheduler_wrong_loop", CLEAR, s.lineno,
                                   f"{last(ctor)} counts epochs but is stepped every batch: the lr decays"
                                   f" len(loader) times too fast", [(line, "scheduler created here")]))
            elif kind == "step" and lvl == "epoch":
                out.append(Finding("code:scheduler_wrong_loop", CLEAR, s.lineno,
                                   f"{last(ctor)} counts optimizer steps but is stepped once per epoch: warm-up/decay"
                                   " barely moves", [(line, "scheduler created here")]))
    return out


def _escapes(f: PyFile, name: str) -> bool:
    """Is the variable handed to something else (a call, a return, a container)?"""
    for n in f.nodes:
        if isinstance(n, ast.Call):
            for a in list(n.args) + [k.value for k in n.keywords]:
                if any(dotted(x) == name for x in ast.walk(a)):
                    return True
        elif isinstance(n, (ast.Return, ast.Yield)) and n.value is not None:
            if any(dotted(x) == name for x in ast.walk(n.value)):
                return True
        elif isinstance(n, (ast.Dict, ast.Tuple, ast.List)) and not isinstance(f.parent.get(n), ast.Call):
            if any(dotted(x) == name for x in ast.walk(n)):
                return True
    return False


_RESUME_KEY = re.compile(r"epoch|step|iter|^it$", re.I)   # checkpoint keys that carry the loop position


def _check_resume(f: PyFile) -> list[Finding]:
    if not (f.has_training() or f.optimizers):
        return []
    out = []
    loads = [c for c in f.calls if last(c) == "load_state_dict"]
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
    has_sched = any(isinstance(n, ast.Call) and _is_sched_ctor(n) for n in f.calls)
    if has_sched and not sched_load:
        out.append(Finding("code:resume_weights_only", MEDIUM, c.lineno,
                           "resume restores model and optimizer but not the lr scheduler: the schedule restarts"))
    reads_step = any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
                     and _RESUME_KEY.search(str(n.slice.value)) and isinstance(n.ctx, ast.Load) for n in f.nodes) \
        or any(last(x) == "get" and x.args and _RESUME_KEY.search(str(const(x.args[0], ""))) for x in f.calls)
    if not reads_step:
        out.append(Finding("code:resume_weights_only", 0.4, c.lineno,
                           "resume does not read back the epoch/step: the loop and schedule start from 0 again"))
    return out


def _inference_regions(f: PyFile) -> list[tuple[ast.AST, ast.AST]]:
    """(scope, region node) pairs that run a model for inference."""
    regions = []
    for n in f.nodes:
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


def _check_eval(f: PyFile, idx: RunIndex) -> list[Finding]:
    if not f.uses_torch:
        return []       # Keras/sklearn/JAX models have no train/eval mode to forget
    out, seen = [], set()
    evals = [c for c in f.calls if (last(c) == "eval" and not c.args) or
             (last(c) == "train" and const(arg(c, 0, "mode"), True) is False)]
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
            if not is_model_name(m) or (m == dotted(c.func) and not f.is_forward(c)):
                continue
            if (id(scope), m) in seen:
                break
            seen.add((id(scope), m))
            if _eval_before(f, scope, cls, m, c.lineno, evals) or not _may_drop(f, idx, m) \
                    or _from_pretrained(f, m):
                break
            # a training forward inside no_grad is detached_graph, reported by _check_detached
            if region is not scope and _loop_forward_all_no_grad(f, region):
                break
            strength = CLEAR if not any(_same_model(dotted(recv(e)) or "", m) for e in evals) else MEDIUM
            out.append(Finding("code:no_eval_at_inference", strength, c.lineno,
                               f"{m} runs for inference without {m}.eval(): dropout stays on and batch-norm uses"
                               " batch statistics", [(getattr(region, "lineno", c.lineno), "inference section starts")]
                               if getattr(region, "lineno", c.lineno) != c.lineno else []))
            break
    return out


def _same_model(r: str, m: str) -> bool:
    return bool(r) and (r == m or m.startswith(r + ".") or r.rsplit(".", 1)[-1] == m.rsplit(".", 1)[-1])


def _eval_before(f: PyFile, scope, cls, m: str, line: int, evals: list[ast.Call]) -> bool:
    for e in evals:
        r = dotted(recv(e)) or ""
        if not _same_model(r, m):
            continue
        if f.scope_of(e) is scope and e.lineno < line:
            return True
        if cls is not None and f.class_of(e) is cls:
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
            cls = last(ctor)
            if cls in idx.class_dropout:
                return idx.class_dropout[cls]
            if g is f and cls == "Sequential" and "torch" in g.origin(fname(ctor)) + fname(ctor).replace("nn.", "torch.nn."):
                return bool(_NORM_LAYERS.search(src(v)))
            if g is f:
                fn = _local_function(idx, last(ctor))
                if fn is not None:   # a factory in the run's own code: read what it builds
                    body = ast.get_source_segment(fn[0].t.text, fn[1]) or ""
                    return bool(_NORM_LAYERS.search(body) or _EXTERNAL_MODEL.search(body))
                return True      # built by something we cannot see into
    if idx.class_dropout and not any(idx.class_dropout.values()):
        return False       # every model class of the run is free of dropout/BN
    return True


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
                fwd = [c for c in _model_calls(f, f.within(L)) if c.lineno <= b.lineno]
                if fwd and all(f.under_no_grad(c) is not None for c in fwd):
                    return True
    return False


def _model_calls(f: PyFile, nodes: Iterable[ast.AST]) -> list[ast.Call]:
    return [c for c in nodes if isinstance(c, ast.Call) and f.is_forward(c)]


def _check_detached(f: PyFile) -> list[Finding]:
    out = []
    done = set()
    crit = {d for d, v in f.all_assigns() if isinstance(v, ast.Call) and last(v).endswith("Loss")}
    for b in f.backward_calls:
        scope = f.scope_of(b)
        loops = f.loops_of(b)
        region = loops[0] if loops else scope
        if id(region) in done:
            continue
        done.add(id(region))
        nodes = list(f.within(region)) if loops else list(f.in_scope(scope))
        fwd = [c for c in _model_calls(f, nodes) if c.lineno <= b.lineno]
        if fwd and all(f.under_no_grad(c) is not None for c in fwd):
            w = f.under_no_grad(fwd[0])
            out.append(Finding("code:detached_graph", STRONG, w.lineno,
                               "the training forward runs under no_grad(): the loss has no graph back to the"
                               " parameters", [(b.lineno, "backward() of that loss")]))
            continue
        # backward on a tensor cut from the graph
        r = recv(b)
        if isinstance(r, ast.Name):
            v = f.value_of(r.id, scope, b.lineno)
            if v is not None and (chain_attrs(v) & {"detach", "item", "data"} or
                                  (isinstance(v, ast.Call) and fname(v) in ("torch.tensor", "torch.as_tensor"))):
                out.append(Finding("code:detached_graph", STRONG, b.lineno,
                                   f"backward() on {r.id}, which was cut from the graph (detach/item/torch.tensor):"
                                   " no gradient reaches the model"))
                continue
        # loss computed from detached predictions
        for c in nodes:
            if not (isinstance(c, ast.Call) and c.lineno <= b.lineno and
                    (last(c) in _LOSS_FUNCS or (dotted(c.func) or "") in crit)):
                continue
            a = arg(c, 0, "input")
            if a is None:
                continue
            det = chain_attrs(a) & _DETACHERS
            if not det and isinstance(core(a), ast.Name):
                v = f.value_of(core(a).id, scope, c.lineno)
                det = chain_attrs(v) & _DETACHERS if v is not None and not isinstance(core(v), ast.Call) or \
                    (v is not None and isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                     and v.func.attr in _DETACHERS | _PASSTHRU) else set()
            if det:
                out.append(Finding("code:detached_graph", 0.75, c.lineno,
                                   f"the loss is computed from {src(a)}, cut from the graph by"
                                   f" .{sorted(det)[0]}: gradients do not reach the model"))
                break
    return out


def _param_paths(f: PyFile, e: ast.AST, scope: ast.AST, line: int, depth: int = 0) -> list[str]:
    """Module paths whose .parameters() go into an optimizer (`model.head`), [] when unknown."""
    paths = [dotted(recv(n)) for n in ast.walk(e) if isinstance(n, ast.Call)
             and last(n) in ("parameters", "named_parameters") and dotted(recv(n))]
    if not paths and isinstance(e, ast.Name) and depth < 2:
        v = f.value_of(e.id, scope, line)
        if v is not None:
            return _param_paths(f, v, scope, line, depth + 1)
    return paths


def _check_params(f: PyFile) -> list[Finding]:
    out = []
    freezes: list[tuple[str, int]] = []
    unfreezes: list[str] = []
    for n in f.nodes:
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
            for s in ast.walk(n):
                if isinstance(s, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad"
                                                     for t in s.targets) and const(s.value) is not False:
                    unfreezes.append(path)
        elif isinstance(n, ast.Call) and last(n) == "requires_grad_" and dotted(recv(n)):
            if const(arg(n, 0, "requires_grad"), True) is False:
                if isinstance(f.parent.get(n), ast.Expr) and not isinstance(f.parent.get(f.parent.get(n)), (ast.For, ast.If)):
                    freezes.append((dotted(recv(n)), n.lineno))
            else:
                unfreezes.append(dotted(recv(n)))
        elif isinstance(n, ast.Assign):
            if any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in n.targets) and const(n.value) is not False:
                unfreezes.append("")           # some parameter made trainable: we cannot say which
    if freezes:
        # a new submodule assigned after the freeze (a fresh head) is trainable
        first_freeze = min(line for _, line in freezes)
        for n in f.nodes:
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

    for c in f.calls:
        if not f.is_optimizer_ctor(c):
            continue
        scope = f.scope_of(c)
        a = arg(c, 0, "params")
        if a is None:
            continue
        paths = _param_paths(f, a, scope, c.lineno)
        if not paths:
            continue
        if freezes and not any(trainable(p) for p in paths):
            fz = next((fz, line) for fz, line in freezes if any(p == fz or p.startswith(fz + ".") for p in paths))
            out.append(Finding("code:frozen_params", STRONG, fz[1],
                               f"every parameter given to the optimizer ({', '.join(sorted(set(paths)))}) is frozen"
                               f" (requires_grad=False on {fz[0]}): nothing trains", [(c.lineno, "optimizer built here")]))
            continue
        out.extend(_check_opt_vs_forward(f, c, scope, paths))
    return out


def _check_opt_vs_forward(f: PyFile, opt: ast.Call, scope: ast.AST, paths: list[str]) -> list[Finding]:
    """The optimizer holds one module's parameters but the training loop runs another."""
    roots = {p.split(".")[0] if not p.startswith("self.") else ".".join(p.split(".")[:2]) for p in paths}
    bws = [b for b in f.backward_calls if f.scope_of(b) is scope and b.lineno > opt.lineno]
    if not bws:
        return []
    b = bws[0]
    loops = f.loops_of(b)
    nodes = list(f.within(loops[-1])) if loops else list(f.in_scope(scope))
    fwd = [c for c in _model_calls(f, nodes) if c.lineno <= b.lineno]
    if not fwd:
        return []
    # the optimizer's model rebuilt after the optimizer: the optimizer holds the old tensors
    for r in roots:
        for line, v in f.assigns(scope).get(r, []):
            if opt.lineno < line < b.lineno and isinstance(v, ast.Call) and r not in src(v) \
                    and last(v)[:1].isupper():
                return [Finding("code:params_not_in_optimizer", CLEAR, line,
                                f"{r} is rebuilt after the optimizer was created: the optimizer updates the old"
                                " parameters, the loop trains the new ones", [(opt.lineno, "optimizer built here")])]
    for c in fwd:
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
    m = dotted(fwd[0].func)
    return [Finding("code:params_not_in_optimizer", CLEAR, opt.lineno,
                    f"the optimizer gets the parameters of {', '.join(sorted(roots))} but the training loop runs {m}:"
                    f" {m}'s weights never change", [(fwd[0].lineno, f"forward through {m}")])]


def _check_no_shuffle(f: PyFile) -> list[Finding]:
    out = []
    train_iters = set()
    for b in f.backward_calls:
        for L in f.loops_of(b):
            if isinstance(L, (ast.For, ast.AsyncFor)):
                train_iters |= {dotted(n) for n in ast.walk(L.iter) if dotted(n)}
    for c in f.calls:
        if last(c) != "DataLoader":
            continue
        if any(k.arg is None for k in c.keywords) or kwarg(c, "sampler") is not None \
                or kwarg(c, "batch_sampler") is not None:
            continue
        sh = kwarg(c, "shuffle")
        if sh is not None and const(sh, "?") is not False:
            continue
        ds = arg(c, 0, "dataset")
        p = f.parent.get(c)
        target = " ".join(dotted(t) or "" for t in p.targets) if isinstance(p, ast.Assign) else ""
        fn = f.scope_of(c)
        fn_name = fn.name if isinstance(fn, FUNCS) else ""
        words = f"{target} {src(ds) if ds is not None else ''}".lower()
        if re.search(r"val|test|eval|dev\b|holdout|calib|pred|infer", words):
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
        out.append(Finding("code:no_shuffle", strength, c.lineno,
                           "training DataLoader without shuffle=True or a sampler: every epoch sees the same order"
                           " (class-sorted data gives an epoch-periodic saw-tooth)"))
    return out


def _category(name: str | None) -> str | None:
    if not name:
        return None
    leaf = name.rsplit(".", 1)[-1]
    if _LABEL_RE.match(leaf):
        return "y"
    if _INPUT_RE.match(leaf):
        return "x"
    return None


def _check_separate_shuffle(f: PyFile) -> list[Finding]:
    out = []
    for scope in [f.tree] + f.funcs:
        nodes = sorted((n for n in f.in_scope(scope) if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))
        shuffles, seeds, perms, indexed = [], [], {}, []
        for n in nodes:
            if isinstance(n, ast.Call):
                leaf, fn = last(n), fname(n)
                if leaf == "shuffle" and len(n.args) == 1 and kwarg(n, "random_state") is None:
                    shuffles.append((n.lineno, dotted(n.args[0]), n))
                elif leaf in ("seed", "manual_seed", "set_state"):
                    seeds.append(n.lineno)
                elif leaf in ("randperm", "permutation", "shuffle") and "rand" in fn.lower() or leaf == "randperm":
                    p = f.parent.get(n)
                    if isinstance(p, ast.Assign):
                        for t in p.targets:
                            if dotted(t):
                                perms[dotted(t)] = n.lineno
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
                s = n.slice
                key = None
                if isinstance(s, ast.Call) and last(s) in ("randperm", "permutation"):
                    key = f"call@{s.lineno}:{s.col_offset}"
                elif dotted(s) in perms:
                    key = dotted(s)
                if key:
                    indexed.append((n.lineno, dotted(n.value), key))
        # two arrays shuffled in place one after the other
        for (l1, a, n1), (l2, b, n2) in zip(shuffles, shuffles[1:]):
            if a and b and a != b and not any(l1 < s <= l2 for s in seeds):
                out.append(Finding("code:separate_shuffle", STRONG, l2,
                                   f"{a} and {b} are shuffled by two independent calls: pairs are broken",
                                   [(l1, f"{a} shuffled here")]))
        # one of inputs/targets shuffled, the other not, then paired
        shuffled = {a for _, a, _ in shuffles if a}
        if len(shuffled) == 1:
            (l1, a, n1) = shuffles[0]
            cat = _category(a)
            if cat:
                for n in nodes:
                    if n.lineno <= l1 or not isinstance(n, (ast.Call, ast.Tuple)):
                        continue
                    items = n.args if isinstance(n, ast.Call) else n.elts
                    names = [dotted(x) for x in items]
                    if a in names and any(_category(x) not in (None, cat) and x not in shuffled for x in names):
                        out.append(Finding("code:separate_shuffle", 0.6, l1,
                                           f"only {a} is shuffled, then paired with unshuffled"
                                           f" {next(x for x in names if _category(x) not in (None, cat))}",
                                           [(n.lineno, "paired here")]))
                        break
        # arrays indexed by different permutations
        by_base: dict[str, set[str]] = {}
        for line, base, key in indexed:
            if base:
                by_base.setdefault(base, set()).add(key)
        xs = [(b, k) for b, ks in by_base.items() for k in ks if _category(b) == "x"]
        ys = [(b, k) for b, ks in by_base.items() for k in ks if _category(b) == "y"]
        if xs and ys and not ({k for _, k in xs} & {k for _, k in ys}):
            line = max(l for l, base, _ in indexed if base in (xs[0][0], ys[0][0]))
            out.append(Finding("code:separate_shuffle", STRONG, line,
                               f"{xs[0][0]} and {ys[0][0]} are indexed by different random permutations"))
        elif bool(xs) != bool(ys):
            # only one side permuted while the other side is used unpermuted in the same function
            side, other = (xs, "y") if xs else (ys, "x")
            line = min(l for l, base, _ in indexed if base == side[0][0])
            partner = next((n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                            and n.lineno >= line and _category(n.id) == other), None)
            if partner is not None:
                out.append(Finding("code:separate_shuffle", 0.6, line,
                                   f"{side[0][0]} is reordered by a random permutation but {partner} is not:"
                                   " inputs and targets no longer match"))
        # zip with an offset / batches sliced with different offsets
        for n in nodes:
            if isinstance(n, ast.Call) and fname(n) == "zip" and len(n.args) == 2:
                a, b = n.args
                ba, bb = dotted(core(a)), dotted(core(b))
                if ba and bb and ba != bb and _slice_sig(a) != _slice_sig(b) and {_category(ba), _category(bb)} == {"x", "y"}:
                    out.append(Finding("code:separate_shuffle", 0.6, n.lineno,
                                       f"zip({src(a)}, {src(b)}) pairs inputs and targets with an offset"))
        for L in (n for n in nodes if isinstance(n, LOOPS)):
            sl = [(s.lineno, dotted(s.value), _slice_sig(s)) for s in f.within(L)
                  if isinstance(s, ast.Subscript) and isinstance(s.slice, ast.Slice) and isinstance(s.ctx, ast.Load)]
            xs_ = [x for x in sl if _category(x[1]) == "x"]
            ys_ = [y for y in sl if _category(y[1]) == "y"]
            if xs_ and ys_ and not ({x[2] for x in xs_} & {y[2] for y in ys_}):
                out.append(Finding("code:separate_shuffle", 0.6, ys_[0][0],
                                   f"{ys_[0][1]} is sliced with a different offset than {xs_[0][1]}: each input gets"
                                   " another sample's target", [(xs_[0][0], "inputs sliced here")]))
    # one finding per line
    uniq = {}
    for x in out:
        uniq.setdefault(x.line, x)
    return list(uniq.values())


def _slice_sig(e: ast.AST) -> str:
    if isinstance(e, ast.Subscript):
        return src(e.slice).replace(" ", "")
    return ":"


def _check_frameworks(f: PyFile, idx: RunIndex) -> list[Finding]:
    out = []
    for c in f.calls:
        kind = _framework_of(f, c)
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
    for n in f.nodes:
        if isinstance(n, ast.ClassDef) and n.name in idx.lightning_classes and not any(
                x.kind == "code:lightning" for x in out):
            out.append(Finding("code:lightning", INFO, n.lineno, f"{n.name} is a LightningModule"))
    return out


def _check_grad_clip(files: list[PyFile], idx: RunIndex) -> list[tuple[PyFile, Finding]]:
    if idx.has_clip or idx.has_framework:
        return []
    for f in files:
        for b in f.backward_calls:
            scope = f.scope_of(b)
            steps = f.opt_steps(scope)
            if steps:
                return [(f, Finding("code:no_grad_clip", HINT, steps[0].lineno,
                                    "hand-written training loop without clip_grad_norm_: a single bad batch can"
                                    " blow the weights up"))]
    return []


# ---------------------------------------------------------------- entry point

_FILE_CHECKS = (_check_zero_grad, _check_fp16, _check_scheduler, _check_eval, _check_frameworks)
_PLAIN_CHECKS = (_check_div_std, _check_var, _check_resume, _check_detached, _check_params, _check_no_shuffle,
                 _check_separate_shuffle)


def parse_code(run: Run) -> list[PyFile]:
    """Parse every code artifact of the run; a file that does not parse -> one warning, skipped."""
    files = []
    for t in run.texts:
        if t.kind != "code":
            continue
        if t.path.endswith((".ipynb",)):
            continue
        try:
            tree = ast.parse(t.text, filename=t.path)
        except SyntaxError as e:
            run.warnings.append(f"{t.path}:{e.lineno or 1}: not valid Python ({e.msg}); code checks skipped")
            continue
        except (ValueError, RecursionError, MemoryError) as e:
            run.warnings.append(f"{t.path}:1: cannot parse ({type(e).__name__}); code checks skipped")
            continue
        files.append(PyFile(t, tree))
    return files


def code_signals(run: Run) -> list[Signal]:
    """`code:*` signals for every Python code artifact in the run (never executes it)."""
    files = parse_code(run)
    if not files:
        return []
    idx = _index(files)
    found: list[tuple[PyFile, Finding]] = []
    for f in files:
        try:
            for chk in _FILE_CHECKS:
                found += [(f, x) for x in chk(f, idx)]
            found += [(f, x) for x in _check_softmax(f, idx)]
            for chk in _PLAIN_CHECKS:
                found += [(f, x) for x in chk(f)]
        except RecursionError:
            run.warnings.append(f"{f.t.path}:1: code too deeply nested to check")
    # a model whose forward ends in softmax, cross-entropy used, flow not followed
    if idx.prob_classes and idx.ce_used and not any(x.kind == "code:softmax_before_ce" for _, x in found):
        (pf, line) = next(iter(idx.prob_classes.values()))
        ce_f, ce_line = idx.ce_used[0]
        found.append((pf, Finding("code:softmax_before_ce", MEDIUM, line,
                                  "the model's forward returns softmax probabilities and the run trains with"
                                  " cross-entropy, which expects logits", [(ce_line, "cross-entropy here", ce_f)])))
    found += _check_grad_clip(files, idx)
    return _to_signals(found)


def _to_signals(found: list[tuple[PyFile, Finding]]) -> list[Signal]:
    out, seen = [], set()
    for f, x in found:
        key = (x.kind, f.t.path, x.line)
        if key in seen:
            continue
        seen.add(key)
        t = f.t
        ev = [Evidence(text=x.text, source=t.path, line=x.line, quote=t.line(x.line))]
        for m in x.more:
            mt = m[2].t if len(m) > 2 else t
            ev.append(Evidence(text=m[1], source=mt.path, line=m[0], quote=mt.line(m[0])))
        out.append(Signal(kind=x.kind, strength=round(float(x.strength), 3),
                          summary=f"{t.path}:{x.line}: {x.text}", evidence=ev,
                          data={"file": t.path, "line": x.line, **x.data}))
    out.sort(key=lambda s: -s.strength)
    return out
