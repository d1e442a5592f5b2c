"""`code:init_std_large`, `code:init_constant_weights`: weight initialisation at the wrong scale.

In:  one parsed file, every file of the run (to follow an init function's std to its callers)
     and the run's config values (`std=cfg["init_std"]`).
Out: `check_init_scale(f, files, conf)` -> Findings.

What is flagged (PyTorch's own defaults are fan-in scaled: Linear/Conv draw from
U(-1/sqrt(fan_in), 1/sqrt(fan_in)), std ~0.1 for fan_in 100; GPT-2 / BERT use std 0.02):
- a weight drawn with std >= INIT_STD_LARGE: `nn.init.normal_(w, std=1.0)`, `w.data.normal_(0, 1)`
  (both default to std 1), `nn.init.uniform_(w, -1, 1)`, `trunc_normal_` with std 1, or
  `nn.Parameter(torch.randn(d_in, d_out))` with no scale factor. Each layer then multiplies the
  activation scale by ~std*sqrt(fan_in), so a deep net's logits (and loss) are huge at step 0.
- every layer's weight set to one constant (`constant_`/`zeros_`/`ones_`/`fill_` in a loop over
  the modules or parameters): the units of a layer stay identical, nothing breaks the symmetry.
Biases, embeddings (nn.Embedding's own default is N(0, 1)) and norm layers are not flagged.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.config_values import ConfigValues, is_missing, resolve
from mltdbg.analyzers.code.index import (
    CLEAR,
    MEDIUM,
    WEAK,
    Finding,
    PyFile,
    arg,
    dotted,
    fname,
    last,
    src,
)

# std at or above this for a weight matrix is "large": with fan_in >= 16 it grows activations
# by >= 2x per layer (std * sqrt(fan_in)); standard inits sit at 0.02-0.2.
INIT_STD_LARGE = 0.5
_NOT_A_WEIGHT = re.compile(r"bias|emb|embed|pos|norm|\bbn|\bln|_bn|_ln|gamma|beta|scale|token|wte|wpe", re.IGNORECASE)
_INIT_FUNCS = {"normal_": 1.0, "trunc_normal_": 1.0, "normal": 1.0}     # default std of each
_CONST_FUNCS = {"constant_", "zeros_", "ones_", "fill_", "zero_", "constant", "zeros", "ones"}


# Keras' and Flax's layer arguments that set a kernel's init, and the constant ones among their values
_KERNEL_KW = ("kernel_initializer", "kernel_init")
_CONST_INITS = {"zeros", "ones", "constant", "Zeros", "Ones", "Constant", "zeros_init", "ones_init", "constant_init"}


def _kernel_init(f: PyFile, c: ast.Call) -> tuple[str, float | None] | None:
    """A layer call's kernel init as ("constant", None) or ("normal", stddev); None when it sets none
    of those. The value may be a string ("zeros"), a call (RandomNormal(stddev=1.0), initializers.zeros) or a
    name assigned one (KINIT = "zeros")."""
    kw: ast.AST | None = next((k.value for k in c.keywords if k.arg in _KERNEL_KW), None)
    if isinstance(kw, ast.Name):
        kw = f.value_near(kw.id, c)
    if kw is None:
        return None
    if isinstance(kw, ast.Constant) and isinstance(kw.value, str):
        return ("constant", None) if kw.value in _CONST_INITS else None
    name = last(kw) if isinstance(kw, ast.Call) else (dotted(kw) or "").rsplit(".", 1)[-1]
    if name in _CONST_INITS:
        return "constant", None
    if isinstance(kw, ast.Call) and name in ("RandomNormal", "normal", "TruncatedNormal", "truncated_normal"):
        sd = next((k.value for k in kw.keywords if k.arg == "stddev"), None)
        if sd is None and name in ("normal", "truncated_normal") and kw.args:
            sd = kw.args[0]
        v = sd.value if isinstance(sd, ast.Constant) else None
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return "normal", float(v)
    return None


def _layer_kernel_inits(f: PyFile) -> list[Finding]:
    """Keras / Flax layers (Dense, Conv ...) whose kernel init is a constant on two layers or more
    (code:init_constant_weights), or a normal of stddev >= INIT_STD_LARGE (code:init_std_large)."""
    const, large = [], []
    for c in f.calls:
        got = _kernel_init(f, c) if c.keywords else None
        if got is None:
            continue
        kind, sd = got
        if kind == "constant":
            const.append(c)
        elif sd is not None and sd >= INIT_STD_LARGE:
            large.append((c, sd))
    out = []
    if len(const) >= 2:      # (two layers or more in a row start identical: no unit of either can differ)
        out.append(Finding("code:init_constant_weights", CLEAR, const[0].lineno,
                           f"{len(const)} layers' kernels start at one constant ({src(const[0])[:70]}): the units of a "
                           "layer compute the same thing and get the same gradient, nothing breaks the symmetry",
                           data={"call": "kernel_initializer"}))
    if large:
        c, sd = large[0]
        out.append(Finding("code:init_std_large", MEDIUM if len(large) >= 2 else WEAK, c.lineno,
                           f"kernel initialised with stddev {sd:g} ({src(c)[:70]}): standard inits are fan-in scaled "
                           "(~0.02-0.1); each layer multiplies the activation scale by std*sqrt(fan_in)",
                           data={"std": sd, "every_layer": len(large) >= 2}))
    return out


def check_init_scale(f: PyFile, files: list[PyFile], conf: ConfigValues) -> list[Finding]:
    out: list[Finding] = _layer_kernel_inits(f)
    for c in f.calls_named(*_INIT_FUNCS, "uniform_", "uniform", "Parameter", *_CONST_FUNCS):
        name = last(c)
        if name in _INIT_FUNCS or name in ("uniform_", "uniform"):
            hit = _std_of(f, c, files, conf)
            if hit is None:
                continue
            target, std, how = hit
            if std < INIT_STD_LARGE or _NOT_A_WEIGHT.search(target):
                continue
            every = _over_all_layers(f, c)
            strength = (CLEAR if std >= 0.9 else MEDIUM) if every else (MEDIUM if std >= 0.9 else WEAK)
            out.append(Finding("code:init_std_large", strength, c.lineno,
                               f"{target} initialised with std {std:g} ({how})"
                               + (" for every layer" if every else "")
                               + ": standard inits are fan-in scaled (~0.02-0.1); each layer multiplies the"
                                 " activation scale by std*sqrt(fan_in), so logits and loss are huge at step 0",
                               data={"std": std, "every_layer": every}))
        elif name == "Parameter" and c.args and isinstance(c.args[0], ast.Call) and last(c.args[0]) in ("randn", "randn_like"):
            target = _assigned_to(f, c)
            if _NOT_A_WEIGHT.search(target) or len(c.args[0].args) < 2:
                continue   # a vector (bias, scale) or an embedding table
            out.append(Finding("code:init_std_large", MEDIUM, c.lineno,
                               f"{target or 'a parameter'} = nn.Parameter(torch.randn(...)) with no scale factor: "
                               "std 1 per weight, the layer's output grows with sqrt(fan_in)",
                               data={"std": 1.0, "every_layer": False}))
        elif name in _CONST_FUNCS and _over_all_layers(f, c):
            target = _init_target(c)
            if not target or "weight" not in target and "param" not in target and target not in ("p", "w"):
                continue
            if _NOT_A_WEIGHT.search(target) or _guarded_to_bias(f, c):
                continue
            out.append(Finding("code:init_constant_weights", MEDIUM, c.lineno,
                               f"every layer's {target} set to one constant ({src(c)[:60]}): the units of a layer"
                               " compute the same thing and get the same gradient, nothing breaks the symmetry",
                               data={"call": name}))
    return out


def _init_target(c: ast.Call) -> str:
    """What an init call writes: `nn.init.normal_(m.weight)` -> m.weight; `m.weight.data.normal_()` -> m.weight.data."""
    if fname(c).startswith(("nn.init.", "torch.nn.init.", "init.")) or last(c) in ("normal", "uniform", "constant",
                                                                                   "zeros", "ones"):
        return (dotted(c.args[0]) or "") if c.args else ""
    return (dotted(c.func.value) or "") if isinstance(c.func, ast.Attribute) else ""


def _std_of(f: PyFile, c: ast.Call, files: list[PyFile], conf: ConfigValues) -> tuple[str, float, str] | None:
    """(target, std, how) of a normal/uniform init call, None when it is not one or the std is unknown."""
    name = last(c)
    functional = fname(c).startswith(("nn.init.", "torch.nn.init.", "init."))
    if not functional and not isinstance(c.func, ast.Attribute):
        return None
    if not functional and name in ("normal", "uniform"):
        return None          # np.random.normal(...) / torch.normal(...) draw values, they do not init a tensor
    target = _init_target(c)
    if not target:
        return None
    off = 1 if functional else 0      # functional form takes the tensor first
    if name in ("uniform_", "uniform"):
        a = resolve(arg(c, off, "a" if functional else "from"), f, files, conf)
        b = resolve(arg(c, off + 1, "b" if functional else "to"), f, files, conf)
        a = 0.0 if is_missing(a) and arg(c, off, "a" if functional else "from") is None else a
        b = 1.0 if is_missing(b) and arg(c, off + 1, "b" if functional else "to") is None else b
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
            return None
        return target, abs(float(b) - float(a)) / 12 ** 0.5, f"uniform({a:g}, {b:g})"
    std_node = arg(c, off + 1, "std")
    if std_node is None:
        return target, _INIT_FUNCS[name], "std not given, the default is 1"
    std = resolve(std_node, f, files, conf)
    if isinstance(std, bool) or not isinstance(std, (int, float)):
        return None
    how = f"std={src(std_node)}" + ("" if isinstance(std_node, ast.Constant) else f" = {std:g}")
    return target, float(std), how


def _over_all_layers(f: PyFile, c: ast.Call) -> bool:
    """The call sits in a loop over a model's modules or parameters (or in a function given to model.apply)."""
    stacks = None
    for loop in f.loops_of(c):
        it = src(getattr(loop, "iter", loop))
        if re.search(r"\.(modules|named_modules|parameters|named_parameters|children|state_dict)\(", it):
            return True
        # ... or over a stack of layers the file builds as a ModuleList / Sequential (`for fc in self.fcs:`)
        m = re.fullmatch(r"(?:self\.|\w+\.)?(\w+)", it.strip())
        if m:
            if stacks is None:
                stacks = {_assigned_to(f, x).rsplit(".", 1)[-1] for x in f.calls if last(x) in ("ModuleList", "Sequential")}
            if m.group(1) in stacks:
                return True
    fn = f.scope_of(c)
    name = getattr(fn, "name", None)
    return bool(name) and any(last(x) == "apply" and any(dotted(a) == name for a in x.args) for x in f.calls)


def _guarded_to_bias(f: PyFile, c: ast.Call) -> bool:
    """Inside `if ... bias ...:` or `if p.dim() == 1` / `< 2` (vectors: biases and norms)."""
    p = f.parent.get(c)
    while p is not None and not isinstance(p, (ast.For, ast.FunctionDef)):
        if isinstance(p, ast.If) and re.search(r"bias|dim\(\)\s*(==\s*1|<\s*2)|ndim\s*(==\s*1|<\s*2)|norm", src(p.test)):
            return True
        p = f.parent.get(p)
    return False


def _assigned_to(f: PyFile, c: ast.Call) -> str:
    p = f.parent.get(c)
    if isinstance(p, ast.Assign) and p.targets:
        return dotted(p.targets[0]) or ""
    return ""
