"""`code:optimizer_arg_mismatch`: a setting passed to an optimizer (torch, optax, Keras) in the wrong positional slot.

In:  one parsed file.
Out: `check_optimizer_args(f)` -> Findings.

`torch.optim.SGD(params, cfg["lr"], cfg["weight_decay"])` runs without complaint: the third
positional parameter of SGD is `momentum`, so the weight decay becomes the momentum and there is
no weight decay at all. The check reads what each positional argument names (a config key, an
attribute, a variable) and flags one that names a different optimizer setting than its slot:
`optax.adamw(sched, cfg.beta2, cfg.beta1, ...)` runs with b1 = 0.999 and b2 = 0.9.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.config_values import config_key
from mltdbg.analyzers.code.index import STRONG, Finding, PyFile, dotted, last, src

# Positional parameters of torch.optim constructors (torch 2.x signatures), after `params`.
_SLOTS = {
    "SGD": ("lr", "momentum", "dampening", "weight_decay", "nesterov"),
    "Adam": ("lr", "betas", "eps", "weight_decay", "amsgrad"),
    "AdamW": ("lr", "betas", "eps", "weight_decay", "amsgrad"),
    "Adamax": ("lr", "betas", "eps", "weight_decay"),
    "NAdam": ("lr", "betas", "eps", "weight_decay", "momentum_decay"),
    "RAdam": ("lr", "betas", "eps", "weight_decay"),
    "RMSprop": ("lr", "alpha", "eps", "weight_decay", "momentum", "centered"),
    "Adagrad": ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"),
    "Adadelta": ("lr", "rho", "eps", "weight_decay"),
}
# ... of optax's and Keras' optimizers, whose first positional parameter is the lr (no params before it), and
# whose betas are two parameters (b1, b2 / beta_1, beta_2)
_OPTAX_SLOTS = {
    "adam": ("lr", "beta1", "beta2", "eps", "eps_root"),
    "adamw": ("lr", "beta1", "beta2", "eps", "eps_root", "mu_dtype", "weight_decay"),
    "nadam": ("lr", "beta1", "beta2", "eps", "eps_root"),
    "nadamw": ("lr", "beta1", "beta2", "eps", "eps_root", "mu_dtype", "weight_decay"),
    "lion": ("lr", "beta1", "beta2", "mu_dtype", "weight_decay"),
    "lamb": ("lr", "beta1", "beta2", "eps", "eps_root", "weight_decay"),
    "sgd": ("lr", "momentum", "nesterov"),
}
_KERAS_SLOTS = {
    "Adam": ("lr", "beta1", "beta2", "eps"),
    "AdamW": ("lr", "weight_decay", "beta1", "beta2", "eps"),
    "SGD": ("lr", "momentum", "nesterov"),
}
# Words in an argument's name -> the optimizer setting it holds.
_WORDS = [
    (re.compile(r"beta_?1$|(^|_)b1$"), "beta1"),
    (re.compile(r"beta_?2$|(^|_)b2$"), "beta2"),
    (re.compile(r"lr_decay"), "lr_decay"),
    (re.compile(r"momentum_decay"), "momentum_decay"),
    (re.compile(r"weight_?decay|(^|_)wd($|_)|l2(_reg)?$"), "weight_decay"),
    (re.compile(r"momentum|(^|_)mom($|_)"), "momentum"),
    (re.compile(r"betas?\d?$|beta_?\d"), "betas"),
    (re.compile(r"eps(ilon)?$"), "eps"),
    (re.compile(r"(^|_)(lr|learning_rate)($|_)|base_lr|max_lr"), "lr"),
    (re.compile(r"nesterov"), "nesterov"),
    (re.compile(r"dampening"), "dampening"),
    (re.compile(r"amsgrad"), "amsgrad"),
]


def _setting(e: ast.AST) -> str | None:
    """The optimizer setting an argument's name says it holds (None when it does not say)."""
    key = config_key(e)
    if key is None and isinstance(e, ast.Name):
        key = e.id
    if key is None:
        key = (dotted(e) or "").rsplit(".", 1)[-1]
    key = key.lower()
    if not key:
        return None
    for rx, name in _WORDS:
        if rx.search(key):
            return name
    return None


def check_optimizer_args(f: PyFile) -> list[Finding]:
    out: list[Finding] = []
    for c in f.calls_named(*_SLOTS, "__init__"):
        name, args = last(c), list(c.args)
        slots = _SLOTS.get(name)
        if name == "__init__":     # a subclass of an optimizer: super().__init__(params, lr, ...)
            name = _optimizer_base(f, c)
            slots = _SLOTS.get(name or "")
            if slots is not None and not (isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Call)):
                args = args[1:]    # Base.__init__(self, params, ...)
        elif slots is not None and (not f.is_optimizer_ctor(c) or re.search(r"keras|optax|tf\.", dotted(c.func) or "")):
            continue        # (Keras' and optax's constructors take the lr first: read below)
        if slots is None:
            continue
        out += _mismatches(c, name, slots, args[1:], 2)
    for c in f.calls:
        path = dotted(c.func) or ""
        table = _OPTAX_SLOTS if path.startswith("optax.") else _KERAS_SLOTS if "keras" in path else None
        slots = table.get(last(c)) if table is not None else None
        if slots is not None:
            out += _mismatches(c, path, slots, list(c.args), 1)
    return out


def _mismatches(c: ast.Call, name: str, slots: tuple[str, ...], args: list[ast.expr], first: int) -> list[Finding]:
    """Findings for the positional arguments `args` (from the optimizer's first setting on, which is positional
    argument `first` of the call) whose names hold another setting than their slot's (beta1 / beta2 fit torch's
    one `betas` slot)."""
    out = []
    for i, a in enumerate(args):
        if i >= len(slots) or isinstance(a, ast.Starred):
            break
        said = _setting(a)
        if said is None or said == slots[i] or (slots[i] == "betas" and said in ("beta1", "beta2")):
            continue
        out.append(Finding("code:optimizer_arg_mismatch", STRONG, c.lineno,
                           f"positional argument {i + first} of {name} is `{slots[i]}`, but it is given "
                           f"`{src(a)}`, which holds {said}: {name} runs with {slots[i]} = that value "
                           f"and without the intended {said}",
                           data={"optimizer": name, "slot": slots[i], "given": said}))
    return out


def _optimizer_base(f: PyFile, c: ast.Call) -> str | None:
    """The torch optimizer a class derives from, for an `__init__` call inside that class."""
    cls = f.class_of(c)
    if cls is None:
        return None
    for b in cls.bases:
        name = (dotted(b) or "").rsplit(".", 1)[-1]
        if name in _SLOTS:
            return name
    return None
