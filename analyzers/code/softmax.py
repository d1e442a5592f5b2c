"""`code:softmax_before_ce`, `code:log_softmax_unstable`, `code:unsafe_log`: softmax fed to
cross-entropy, log of softmax/sigmoid, log of a value that can be 0. `code:softmax_one_unit`: a softmax
over a single output unit (Keras `Dense(1, activation="softmax")`, `Dense(1)` then `Activation("softmax")`,
an nn.Sequential's `nn.Linear(n, 1)` then `nn.Softmax(dim=-1)`): it outputs 1.0 whatever the input and passes
back a gradient of exactly 0, so nothing below it trains (binary outputs want a sigmoid, or two units).

In:  one parsed file (PyFile) and the run index (RunIndex), from code/index.py.
Out: `check_softmax(f, idx)` -> Findings.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import (CLEAR, STRONG, WEAK, Finding, PyFile, RunIndex, arg, const, core, dotted, fname,
                                         is_softmax_call, kwarg, last, safe_from_zero, sequential_ending, softmax_attrs,
                                         src)
from mltdbg.analyzers.code.output_act import model_outputs


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
    d = f.memo.get("prob_models")
    if d is None:
        d = {}
        for name, v in f.all_assigns():
            c = core(v)
            if not isinstance(c, ast.Call):
                continue
            if last(c) in idx.prob_classes:
                d[name] = idx.prob_classes[last(c)]
            elif (end := sequential_ending(c, "Softmax")) is not None:
                d[name] = (f, end.lineno)
        f.memo["prob_models"] = d
    return d


def _is_ce(c: ast.Call, ce_names: set[str]) -> bool:
    if last(c) == "cross_entropy":
        return True
    if fname(c) in ce_names:      # (fname: dotted(c.func), kept on the node; "?..." is never a target name)
        return True
    return isinstance(c.func, ast.Call) and last(c.func) == "CrossEntropyLoss"


_LOG_FUNCS = ("torch.log", "np.log", "numpy.log", "th.log", "jnp.log", "jax.numpy.log")


def _exp_normalised(f: PyFile, scope: ast.AST, x: ast.AST) -> bool:
    """Whether `x` divides by a sum of exp() (`pos / e.sum(axis=1)`, `jnp.exp(s) / jnp.sum(jnp.exp(s))`, with `e`
    assigned from an exp() in the same scope): a softmax written out by hand."""
    x = core(x)
    if not (isinstance(x, ast.BinOp) and isinstance(x.op, ast.Div)):
        return False
    d = core(x.right)
    if not (isinstance(d, ast.Call) and last(d) == "sum"):
        return False

    def exp_call(n: ast.AST) -> bool:
        c = core(n)
        if not (isinstance(c, ast.Call) and last(c) == "exp"):
            return False
        a = core(c.args[0]) if c.args else None      # exp(z - z.max()): stabilised, nothing overflows
        return not (isinstance(a, ast.BinOp) and isinstance(a.op, ast.Sub) and "max" in src(a.right))
    # (the scope's names bound to an exp(), read only once a division by a sum is in hand)
    exps = {n for n, lst in f.assigns(scope).items() if any(exp_call(v) for _, v in lst)}

    def is_exp(n: ast.AST) -> bool:
        return exp_call(n) or (dotted(core(n)) or "") in exps
    if isinstance(d.func, ast.Attribute) and is_exp(d.func.value):
        return True
    return bool(d.args) and is_exp(d.args[0])


def check_softmax(f: PyFile, idx: RunIndex) -> list[Finding]:
    """softmax -> cross-entropy, log(softmax), log of values that can be 0."""
    out = []
    sm_attrs = set()
    for cls in f.of_type(ast.ClassDef):
        sm_attrs |= softmax_attrs(cls, f)
    sm_attrs |= {d for d, v in f.all_assigns() if isinstance(v, ast.Call) and last(v) == "Softmax"}
    ce_ctors = [(d, v) for d, v in f.all_assigns() if isinstance(v, ast.Call) and last(v) == "CrossEntropyLoss"]
    ce_names = {d for d, _ in ce_ctors}
    prob_models = _prob_models(f, idx)
    ce_called = False
    for scope in [f.tree] + f.funcs:
        probs = None
        for c in f.calls_in(scope):
            # softmax -> cross entropy
            if _is_ce(c, ce_names):
                ce_called = True
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
            if fname(c) in _LOG_FUNCS and c.args:
                x = c.args[0]
            elif isinstance(c.func, ast.Attribute) and c.func.attr == "log" and not c.args \
                    and fname(c).split(".")[0] not in ("math", "np", "numpy", "torch", "logging", "logger", "log"):
                x = c.func.value
            if x is None:
                continue
            probs = probs if probs is not None else _prob_names(f, scope, idx, sm_attrs)
            where = _prob_source(f, x, probs, prob_models, sm_attrs, c.lineno)
            if where is None and _exp_normalised(f, scope, x):
                # (weaker than log(softmax()): written out, it fails only where a logit grows past ~88)
                out.append(Finding("code:log_softmax_unstable", 0.6, c.lineno,
                                   f"log of exp() over its sum, a softmax written out ({src(x)[:60]}): exp overflows to"
                                   " inf once a logit passes ~88 in float32 and inf/inf is NaN; use logsumexp /"
                                   " log_softmax"))
            elif where is not None:
                out.append(Finding("code:log_softmax_unstable", STRONG, c.lineno,
                                   "log of softmax underflows to log(0) = -inf; use log_softmax",
                                   [(where[1], "softmax here", where[0])] if where != (f, c.lineno) else []))
            elif isinstance(px := core(x), ast.Call) and last(px) == "prod" and _PROB_TEXT.search(src(px)) \
                    and ".shape" not in src(px):
                # (a sequence's probability as the product of its tokens': under float32's tiny past a few dozen
                # tokens, log(0) = -inf; a correct sum of log-probabilities never is)
                out.append(Finding("code:unsafe_log", CLEAR, c.lineno,
                                   f"log of a product ({src(x)[:60]}): the product of many probabilities underflows to "
                                   "0 and its log is -inf; sum the log-probabilities (log_softmax, gather, sum)"))
            elif not (safe_from_zero(f, scope, x, c.lineno, 0) or _made_safe_in_place(f, scope, x, c.lineno)):
                out.append(Finding("code:log_softmax_unstable", 0.6, c.lineno,
                                   "log of sigmoid underflows to -inf; use F.logsigmoid or BCEWithLogits")
                           if _of_sigmoid(f, scope, x, c.lineno) else
                           Finding("code:unsafe_log", WEAK, c.lineno,
                                   f"log({src(x)}) without an epsilon or clamp: -inf when the value is 0"))
    if ce_ctors and not ce_called:      # a criterion built but its call not quoted (a post's model class + criterion)
        idx.ce_built.append((f, ce_ctors[0][1].lineno))
    elif not ce_called:
        # ... or handed as a class to a wrapper that builds and calls it (skorch's
        # `NeuralNetClassifier(Module, criterion=nn.CrossEntropyLoss)`; skorch's own default, NLLLoss of the log of
        # the module's probabilities, expects a softmax output and is not this)
        ref = next((k.value for c in f.calls for k in c.keywords
                    if k.arg in _CRITERION_KEYWORDS and isinstance(k.value, (ast.Attribute, ast.Name))
                    and (dotted(k.value) or "").rsplit(".", 1)[-1] == "CrossEntropyLoss"), None)
        if ref is not None:
            idx.ce_built.append((f, ref.lineno))
    out += _activation_before_logits_loss(f)
    out += _softmax_one_unit(f)
    return out


# The keywords a wrapper takes its loss class by (skorch's criterion=; not a registry's dict(ce=nn.CrossEntropyLoss))
_CRITERION_KEYWORDS = frozenset({"criterion", "loss", "loss_fn", "loss_func", "loss_function"})


# A product's operand that holds probabilities (a name or a call that says so)
_PROB_TEXT = re.compile(r"prob|softmax|sigmoid|gather|likelihood|\bp\b", re.I)


def _of_sigmoid(f: PyFile, scope: ast.AST, x: ast.AST, line: int, depth: int = 0) -> bool:
    """Whether `x` is a sigmoid's output or one minus it: `torch.sigmoid(z)`, or a name bound to one in its scope
    (`p = torch.sigmoid(logits).squeeze(1)` then `log(p)`, `log(1 - p)`): a hand-written binary cross-entropy."""
    e = core(x)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Sub) and const(e.left) in (1, 1.0):
        e = core(e.right)
    if isinstance(e, ast.Call):
        return last(e) == "sigmoid"
    if isinstance(e, ast.Name) and depth < 2:
        v = f.value_of(e.id, scope, line)
        return v is not None and _of_sigmoid(f, scope, v, line, depth + 1)
    return False


def _made_safe_in_place(f: PyFile, scope: ast.AST, x: ast.AST, line: int) -> bool:
    """`x` (or the name inside `1 - x`) is kept off 0 in place before `line`: `p.clamp_(1e-7, 1 - 1e-7)`,
    `p.clip_(...)`, `p.add_(eps)`, `p += 1e-7`."""
    e = core(x)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Sub):
        e = core(e.right)
    if not isinstance(e, ast.Name):
        return False
    for n in f.scope_nodes_of(scope, ast.Call, ast.AugAssign):
        if getattr(n, "lineno", line) >= line:
            continue
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == e.id and n.func.attr in ("clamp_", "clip_", "clamp_min_", "add_"):
            return True
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == e.id \
                and isinstance(n.op, ast.Add):
            return True
    return False


def _one_unit(c: ast.AST) -> bool:
    """A Keras Dense / torch nn.Linear layer of one output unit."""
    if not isinstance(c, ast.Call):
        return False
    if last(c) == "Dense":
        return const(arg(c, 0, "units")) == 1
    return last(c) == "Linear" and const(arg(c, 1, "out_features")) == 1


def _softmax_layer(c: ast.AST, after: ast.AST) -> bool:
    """A softmax layer over the last axis, after layer `after`: Keras Activation("softmax") / Softmax() (axis -1
    unless told), torch nn.Softmax(dim=-1) (another dim after an nn.Linear(n, 1) is a softmax over positions,
    attention pooling's weights: no bug)."""
    if not isinstance(c, ast.Call):
        return False
    if last(c) == "Activation":
        return const(arg(c, 0, "activation")) == "softmax"
    if last(c) != "Softmax":
        return False
    if isinstance(after, ast.Call) and last(after) == "Linear":
        return const(arg(c, 0, "dim")) == -1
    return const(arg(c, 0, "axis"), -1) == -1


def _softmax_one_unit(f: PyFile) -> list[Finding]:
    out = []
    what = "a softmax over one unit is 1.0 for every input and its gradient is 0: nothing below it trains " \
           "(one output wants a sigmoid, or two units with softmax)"
    for c in f.calls_named("Dense"):
        act = kwarg(c, "activation")
        if _one_unit(c) and act is not None and (const(act) == "softmax" or (dotted(act) or "").endswith("softmax")):
            out.append(Finding("code:softmax_one_unit", STRONG, c.lineno, what))
    # a one-unit layer, then a softmax layer: the next item of a layer list (Sequential([...]), nn.Sequential(...))
    # or the next model.add(...) of the same model
    seqs: list[list[ast.expr]] = [list(c.args) for c in f.calls_named("Sequential")]
    seqs += [list(n.elts) for n in f.nodes_of(ast.List)]
    adds: dict[str, list[ast.expr]] = {}
    for c in f.calls_named("add"):
        if isinstance(c.func, ast.Attribute) and c.args:
            adds.setdefault(dotted(c.func.value) or "?", []).append(c.args[0])
    seqs += list(adds.values())
    seen = {x.line for x in out}
    for items in seqs:
        for a, b in zip(items, items[1:]):
            if _one_unit(a) and _softmax_layer(b, a) and b.lineno not in seen:
                seen.add(b.lineno)
                out.append(Finding("code:softmax_one_unit", STRONG, b.lineno, what, [(a.lineno, "the one-unit layer", f)]))
    return out


# Losses that apply the output's activation themselves -> the activation a model must not end in.
_LOGITS_LOSSES = {"BCEWithLogitsLoss": "sigmoid", "binary_cross_entropy_with_logits": "sigmoid",
                  "sigmoid_cross_entropy_with_logits": "sigmoid", "softmax_cross_entropy_with_logits": "softmax",
                  "softmax_cross_entropy_with_logits_v2": "softmax", "sparse_softmax_cross_entropy_with_logits": "softmax"}
# Keras losses that do so when built with from_logits=True
_KERAS_LOGITS = {"BinaryCrossentropy": "sigmoid", "binary_crossentropy": "sigmoid", "BinaryFocalCrossentropy": "sigmoid",
                 "CategoricalCrossentropy": "softmax", "categorical_crossentropy": "softmax",
                 "SparseCategoricalCrossentropy": "softmax", "sparse_categorical_crossentropy": "softmax"}


def _activation_before_logits_loss(f: PyFile) -> list[Finding]:
    """Softmax -> cross-entropy in the other forms: a model that ends in a sigmoid or softmax
    (code/output_act.py: an nn.Sequential ending in nn.Sigmoid(), a forward returning sigmoid(...),
    Keras' last `Dense(..., activation="softmax")`) in a file whose loss applies that activation
    itself (BCEWithLogitsLoss, tf.nn.*_with_logits, a Keras cross-entropy with from_logits=True): the
    loss sees sigmoid(sigmoid(x)) or softmax(softmax(x)), stuck near its chance value."""
    losses = [(c, _LOGITS_LOSSES[last(c)]) for c in f.calls_named(*_LOGITS_LOSSES)]
    losses += [(c, _KERAS_LOGITS[last(c)]) for c in f.calls_named(*_KERAS_LOGITS)
               if const(kwarg(c, "from_logits")) is True]
    for c, act in losses:      # (model_outputs reads the file's outputs once, whatever it is asked)
        for _, line, where in model_outputs(f, (act,))[:1]:
            return [Finding("code:softmax_before_ce", 0.7, c.lineno,
                            f"{last(c)} applies the {act} itself, and {where} already ends in a {act}: the loss sees "
                            f"{act}({act}(x)) (give it the raw logits)", [(line, f"{act} applied here", f)])]
    return []


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
