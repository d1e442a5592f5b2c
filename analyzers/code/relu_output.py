"""`code:relu_output`: the model's output goes through a ReLU.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_relu_output(f)` -> Findings.

A ReLU after the last layer clips every prediction to >= 0, and an output unit whose input goes
negative gives 0 with no gradient: a regression net that predicts 0 for every input, heatmaps that
come out all zero, logits that cannot go below 0 and settle on one class. Read in four shapes:
- `model = nn.Sequential(..., nn.ReLU())`, held by a name that is the model (`model`, `net`, or
  one the file compiles, fits or asks for parameters): a `self.block` or a helper's `layers`
  ending in a ReLU is a feature block, which is normal;
- the forward of a model class returning `F.relu(...)` / `self.relu(...)` / `x.relu()` (or a name
  last assigned one of those). A class named like a building block (`BasicBlock`, `ConvLayer`) or
  used inside another class is a part of the model, and its ReLU is normal;
- Keras: the last layer of `Sequential([...])` or of the `model.add(...)` calls is a
  `Dense`/`Conv` with `activation="relu"` (or `Activation("relu")`);
- Keras functional: the tensor given to `Model(outputs=...)` comes from such a layer.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import (FUNCS, MEDIUM, Finding, PyFile, const, core, dotted, is_model_name, kwarg,
                                         last)

_BLOCK_NAME = re.compile(r"Block|Layer|Bottleneck|Unit|Cell|Stem|Down|Up|Conv|Residual|Stage|Module|Fire|Inception",
                         re.I)
_RELU_LAYERS = ("ReLU", "ReLU6")
_KERAS_LAYERS = ("Dense", "Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose", "TimeDistributed")
_WHY = ("every prediction is clipped to >= 0, and an output unit that goes negative outputs 0 with no gradient"
        " (predictions stuck at 0)")


def _keras_relu(c: ast.AST) -> bool:
    """`Dense(n, activation="relu")` (or a Conv layer), `Activation("relu")`: a Keras layer with a ReLU."""
    if not isinstance(c, ast.Call):
        return False
    name = last(c)
    if name in _KERAS_LAYERS:
        return const(kwarg(c, "activation")) in ("relu", "relu6")
    if name == "Activation":
        a = c.args[0] if c.args else kwarg(c, "activation")
        return const(a) in ("relu", "relu6")
    return False


def _relu_call(c: ast.AST, relu_attrs: set[str]) -> bool:
    """`F.relu(x)`, `torch.relu(x)`, `self.relu(x)` (an nn.ReLU attribute), `x.relu()`."""
    if not isinstance(c, ast.Call):
        return False
    if last(c) in ("relu", "relu6", "relu_"):
        return True
    return (dotted(c.func) or "") in relu_attrs


def _relu_attrs(f: PyFile, cls: ast.ClassDef) -> set[str]:
    out = set()
    for n in f.subtree(cls):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and last(n.value) in _RELU_LAYERS:
            out |= {d for t in n.targets if (d := dotted(t))}
    return out


def _model_classes(f: PyFile) -> list[ast.ClassDef]:
    """Classes with a forward that are not a building block: not named like one, and not named
    inside another class of the file."""
    classes = [c for c in f.of_type(ast.ClassDef) if isinstance(c, ast.ClassDef)]
    used_inside = set()
    for c in classes:
        for n in f.subtree(c):
            if isinstance(n, ast.Name) and n.id != c.name:
                used_inside.add(n.id)
    return [c for c in classes
            if any(isinstance(m, FUNCS) and m.name == "forward" for m in c.body)
            and not _BLOCK_NAME.search(c.name) and c.name not in used_inside]


def _forward_relu(f: PyFile) -> list[Finding]:
    out = []
    for cls in _model_classes(f):
        fwd = next(m for m in cls.body if isinstance(m, FUNCS) and m.name == "forward")
        rets = [s.value for s in fwd.body if isinstance(s, ast.Return) and s.value is not None]
        if not rets:
            continue
        attrs = _relu_attrs(f, cls)
        e = core(rets[-1])
        if isinstance(e, ast.Name):
            v = f.value_of(e.id, fwd, rets[-1].lineno)
            e = core(v) if v is not None else e
        # (a ReLU assigned inside a loop over layers is a hidden stack's: the class may be a body whose
        # output a head takes, `model.head(model(x))`)
        if _relu_call(e, attrs) and not f.loops_of(e):
            out.append(Finding("code:relu_output", MEDIUM, rets[-1].lineno,
                               f"{cls.name}.forward returns a ReLU of its last layer: {_WHY}"))
    return out


def _sequential_relu(f: PyFile) -> list[Finding]:
    out = []
    trained = {dotted(c.func.value) for c in f.calls_named("compile", "fit", "parameters")
               if isinstance(c.func, ast.Attribute)}
    for n in f.of_type(ast.Assign):
        if not isinstance(n, ast.Assign) or not all(isinstance(t, ast.Name) for t in n.targets):
            continue
        if not any(is_model_name(t.id) or t.id in trained for t in n.targets if isinstance(t, ast.Name)):
            continue
        c = core(n.value)
        if not isinstance(c, ast.Call) or last(c) != "Sequential":
            continue
        items = c.args
        if len(items) == 1 and isinstance(items[0], ast.List):      # Keras: Sequential([...])
            items = items[0].elts
        if len(items) < 2:
            continue
        end = items[-1]
        if (isinstance(end, ast.Call) and last(end) in _RELU_LAYERS) or _keras_relu(end):
            out.append(Finding("code:relu_output", MEDIUM, getattr(end, "lineno", n.lineno),
                               f"the model's last layer is a ReLU: {_WHY}"))
    return out


def _keras_add_relu(f: PyFile) -> list[Finding]:
    """The last `m.add(layer)` for each model `m` adds a ReLU layer."""
    lasts: dict[str, ast.Call] = {}
    for c in f.calls_named("add"):
        r = dotted(c.func.value) if isinstance(c.func, ast.Attribute) else None
        if r and c.args:
            lasts[r] = c
    return [Finding("code:relu_output", MEDIUM, c.lineno, f"the model's last layer has a ReLU activation: {_WHY}")
            for c in lasts.values() if _keras_relu(c.args[0])]


def _keras_functional_relu(f: PyFile) -> list[Finding]:
    """`Model(inputs, outputs)` whose outputs tensor comes from `Dense(..., activation="relu")(x)`."""
    out = []
    for c in f.calls_named("Model"):
        o = kwarg(c, "outputs") or (c.args[1] if len(c.args) > 1 else None)
        if not isinstance(o, ast.Name):
            continue
        v = f.value_of(o.id, f.scope_of(c), c.lineno)
        if isinstance(v, ast.Call) and _keras_relu(v.func):
            out.append(Finding("code:relu_output", MEDIUM, v.lineno, f"the model's output layer has a ReLU activation: {_WHY}"))
    return out


def check_relu_output(f: PyFile) -> list[Finding]:
    """The first shape found (one finding per file): the others are not looked for."""
    for find in (_forward_relu, _sequential_relu, _keras_add_relu, _keras_functional_relu):
        if hits := find(f):
            return hits[:1]
    return []
