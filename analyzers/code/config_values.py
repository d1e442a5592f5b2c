"""Config values seen from code: `cfg["init_std"]` in train.py read as the value config.yaml gives it.

In:  the run (its YAML/JSON config files) and its parsed code files (argparse defaults).
Out: `ConfigValues` (scalar values by the last component of their key, ambiguous keys dropped) and
     `resolve(expr, ...)`, which follows a literal, a config key (`cfg["k"]`, `args.k`,
     `config.get("k")`), a local assignment, or a function parameter through the calls of that
     function, to the value an expression stands for; `is_missing(v)` when it could not.
"""
from __future__ import annotations

import ast
import json
from typing import Any

import yaml
from mltdbg.analyzers.common import yamlsafe
from mltdbg.analyzers.code.index import FUNCS, PyFile, const, dotted, kwarg, last
from mltdbg.analyzers.model import Run

_MISSING = object()


class ConfigValues:
    """Scalar config values by key (the last component of a dotted key); ambiguous keys are dropped."""

    def __init__(self, run: Run, files: list[PyFile]):
        seen: dict[str, Any] = {}
        clash: set[str] = set()

        def put(key: str, value: Any) -> None:
            k = key.rsplit(".", 1)[-1].lstrip("-").replace("-", "_")
            if isinstance(value, (dict, list)) or not k:
                return
            if k in seen and seen[k] != value:
                clash.add(k)
            seen[k] = value

        for t in run.texts:
            if t.kind != "config":
                continue
            try:
                data = yamlsafe.load(t.text)     # bounded: a YAML bomb is refused, not expanded
            except yaml.YAMLError:
                try:
                    data = json.loads(t.text)
                except ValueError:
                    continue
            for k, v in _flatten(data, ""):
                put(k, v)
        for f in files:   # argparse defaults: add_argument("--init_std", type=float, default=1.0)
            for c in f.calls_named("add_argument"):
                name = const(c.args[0]) if c.args else None
                default = kwarg(c, "default")
                if isinstance(name, str) and name.startswith("-") and default is not None:
                    v = const(default, _MISSING)
                    if v is not _MISSING:
                        put(name, v)
        self.values = {k: v for k, v in seen.items() if k not in clash}

    def get(self, key: str) -> Any:
        return self.values.get(key, _MISSING)


def _flatten(d: Any, prefix: str):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif prefix:
        yield prefix, d


def config_key(e: ast.AST) -> str | None:
    """The config key an expression reads: `cfg["init_std"]`, `args.init_std`, `config.get("init_std")`."""
    if isinstance(e, ast.Subscript):
        k = const(e.slice)
        return k if isinstance(k, str) else None
    if isinstance(e, ast.Attribute) and isinstance(e.value, (ast.Name, ast.Attribute)):
        return e.attr
    if isinstance(e, ast.Call) and last(e) == "get" and e.args:
        k = const(e.args[0])
        return k if isinstance(k, str) else None
    return None


def resolve(e: ast.AST | None, f: PyFile, files: list[PyFile], conf: ConfigValues, depth: int = 0) -> Any:
    """A number (or other literal) an expression stands for, following literals, config keys, a
    local assignment, and a function parameter through the calls of that function; _MISSING if unknown."""
    if e is None or depth > 3:
        return _MISSING
    v = const(e, _MISSING)
    if v is not _MISSING:
        return v
    key = config_key(e)
    if key is not None:
        v = conf.get(key)
        if v is not _MISSING:
            return v
    if isinstance(e, ast.Name):
        scope = f.scope_of(e)
        line = getattr(e, "lineno", 10**9)
        assigned = f.value_of(e.id, scope, line)
        if assigned is not None:
            return resolve(assigned, f, files, conf, depth + 1)
        if isinstance(scope, FUNCS):
            return _resolve_param(scope, e.id, files, conf, depth)
    return _MISSING


def _resolve_param(fn: ast.AST, name: str, files: list[PyFile], conf: ConfigValues, depth: int) -> Any:
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if name not in params and name not in [a.arg for a in fn.args.kwonlyargs]:
        return _MISSING
    full = params.index(name) if name in params else None
    pos = full - 1 if full is not None and params[0] in ("self", "cls") else full   # position at a call site
    for g in files:
        for c in g.calls_named(fn.name):
            a = kwarg(c, name)
            if a is None and pos is not None and pos < len(c.args):
                a = c.args[pos]
            v = resolve(a, g, files, conf, depth + 1)
            if v is not _MISSING:
                return v
    defaults = fn.args.defaults
    if full is not None and defaults:
        i = full - (len(params) - len(defaults))
        if 0 <= i < len(defaults):
            return const(defaults[i], _MISSING)
    return _MISSING


def is_missing(v: Any) -> bool:
    return v is _MISSING


def target_name(e: ast.AST) -> str:
    """Last component of an assignment target (`self.x_val` -> `x_val`)."""
    d = dotted(e) or ""
    return d.rsplit(".", 1)[-1]
