"""The activation the model's output goes through, read from a file's code.

In:  one parsed file (PyFile, from code/index.py).
Out: `model_outputs(f, wanted)` -> [(activation, line, where)] of the first shape below that has one;
     activation is a lower-case name ("relu", "relu6", "sigmoid", "softmax", ...) or "" where the
     output layer has none (a plain Linear / Dense); where says which output ("Net.forward").

Read in four shapes (what code/relu_output.py and code/softmax.py judge):
- `model = nn.Sequential(..., nn.Sigmoid())` (or Keras `Sequential([...])`), held by a name that is
  the model (`model`, `net`, or one the file compiles, fits or asks for parameters): a `self.block`
  or a helper's `layers` is a feature block, whose last activation is normal;
- the forward of a model class returning `F.relu(...)`, `torch.sigmoid(...)`, `self.act(...)` (an
  attribute bound to nn.ReLU() / nn.Sigmoid() / nn.Softmax()), `x.relu()`, or a name last assigned
  one of those. A class named like a building block (`BasicBlock`, `ConvLayer`) or used inside
  another class is a part of the model. An activation assigned inside a loop over layers is a hidden
  stack's (the class may be a body whose output a head takes) and is not read;
- Keras: the last layer of the `model.add(...)` calls is a `Dense`/`Conv` with `activation=...`
  (or an `Activation(...)` / `Softmax()` layer);
- Keras functional: the tensor given to `Model(outputs=...)` comes from such a layer.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import FUNCS, PyFile, const, core, dotted, is_model_name, kwarg, last

_BLOCK_NAME = re.compile(r"Block|Layer|Bottleneck|Unit|Cell|Stem|Down|Up|Conv|Residual|Stage|Module|Fire|Inception",
                         re.I)
# torch layer classes and functions -> the activation's name
_TORCH_LAYERS = {"ReLU": "relu", "ReLU6": "relu6", "Sigmoid": "sigmoid", "Softmax": "softmax",
                 "LogSoftmax": "log_softmax", "Tanh": "tanh"}
_TORCH_FUNCS = {"relu": "relu", "relu6": "relu6", "relu_": "relu", "sigmoid": "sigmoid", "sigmoid_": "sigmoid",
                "softmax": "softmax", "log_softmax": "log_softmax", "tanh": "tanh"}
_KERAS_LAYERS = ("Dense", "Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose", "TimeDistributed")


def keras_activation(c: ast.AST) -> str | None:
    """The activation of a Keras layer call: `Dense(n, activation="relu")` -> "relu", a plain `Dense(n)`
    -> "", `Activation("sigmoid")` -> "sigmoid", `Softmax()` -> "softmax"; None for any other call."""
    if not isinstance(c, ast.Call):
        return None
    name = last(c)
    if name in _KERAS_LAYERS:
        k = kwarg(c, "activation")
        a = const(k) if not isinstance(k, ast.Attribute) else (dotted(k) or "").rsplit(".", 1)[-1]   # or tf.nn.relu
        return a.lower() if isinstance(a, str) else ""
    if name == "Activation":
        a = const(c.args[0] if c.args else kwarg(c, "activation"))
        return a.lower() if isinstance(a, str) else None
    if name == "Softmax":
        return "softmax"
    return None


def _call_activation(c: ast.AST, attrs: dict[str, str]) -> str | None:
    """`F.relu(x)`, `torch.sigmoid(x)`, `self.act(x)` (an attribute bound to an activation layer),
    `x.relu()` -> the activation's name."""
    if not isinstance(c, ast.Call):
        return None
    return _TORCH_FUNCS.get(last(c) or "") or attrs.get(dotted(c.func) or "")


def _activation_attrs(f: PyFile, cls: ast.ClassDef) -> dict[str, str]:
    """Attributes bound to an activation layer (`self.act = nn.Sigmoid()`), or to an nn.Sequential that ends in one
    (`self.main = nn.Sequential(..., nn.Linear(128, 1), nn.Sigmoid())`: the DCGAN examples' discriminator)."""
    out = {}
    for n in f.subtree(cls):
        if not isinstance(n, ast.Assign) or not isinstance(n.value, ast.Call):
            continue
        v: ast.AST = n.value
        if last(n.value) == "Sequential" and n.value.args and isinstance(n.value.args[-1], ast.Call):
            v = n.value.args[-1]
        if isinstance(v, ast.Call) and last(v) in _TORCH_LAYERS:
            out.update({d: _TORCH_LAYERS[last(v)] for t in n.targets if (d := dotted(t))})
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


def _forward_outputs(f: PyFile) -> list[tuple[str, int, str]]:
    out = []
    for cls in _model_classes(f):
        fwd = next(m for m in cls.body if isinstance(m, FUNCS) and m.name == "forward")
        rets = [(s.value, s.lineno) for s in fwd.body if isinstance(s, ast.Return) and s.value is not None]
        if not rets:
            continue
        e = core(rets[-1][0])
        if isinstance(e, ast.Name):
            v = f.value_of(e.id, fwd, rets[-1][1])
            e = core(v) if v is not None else e
        act = _call_activation(e, _activation_attrs(f, cls))
        if act and not f.loops_of(e):
            out.append((act, rets[-1][1], f"{cls.name}.forward"))
    return out


def _sequential_outputs(f: PyFile) -> list[tuple[str, int, str]]:
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
        act = _TORCH_LAYERS.get(last(end) or "") if isinstance(end, ast.Call) else None
        act = act or keras_activation(end)
        if act is not None:
            out.append((act, getattr(end, "lineno", n.lineno), "the model's last layer"))
    return out


def _keras_add_outputs(f: PyFile) -> list[tuple[str, int, str]]:
    """The layer of the last `m.add(layer)` for each model `m`."""
    lasts: dict[str, ast.Call] = {}
    for c in f.calls_named("add"):
        r = dotted(c.func.value) if isinstance(c.func, ast.Attribute) else None
        if r and c.args:
            lasts[r] = c
    return [(act, c.lineno, "the model's last layer") for c in lasts.values() if (act := keras_activation(c.args[0])) is not None]


def _keras_functional_outputs(f: PyFile) -> list[tuple[str, int, str]]:
    """`Model(inputs, outputs)` whose outputs tensor comes from a Keras layer call `Dense(...)(x)`."""
    out = []
    for c in f.calls_named("Model"):
        o = kwarg(c, "outputs") or (c.args[1] if len(c.args) > 1 else None)
        if not isinstance(o, ast.Name):
            continue
        v = f.value_of(o.id, f.scope_of(c), c.lineno)
        if isinstance(v, ast.Call) and (act := keras_activation(v.func)) is not None:
            out.append((act, v.lineno, "the model's output layer"))
    return out


SHAPES = (_forward_outputs, _sequential_outputs, _keras_add_outputs, _keras_functional_outputs)


def model_outputs(f: PyFile, wanted: tuple[str, ...]) -> list[tuple[str, int, str]]:
    """The outputs, of the first shape in SHAPES that has one, whose activation is in `wanted` (every
    shape is read once per file: code/relu_output.py and code/softmax.py ask for other activations)."""
    shapes: list[list[tuple[str, int, str]]] | None = f.memo.get("model_outputs")   # type: ignore[assignment]
    if shapes is None:
        shapes = [find(f) for find in SHAPES]
        f.memo["model_outputs"] = shapes
    for outputs in shapes:
        if hits := [h for h in outputs if h[0] in wanted]:
            return hits
    return []
