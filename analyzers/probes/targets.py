"""What a probe could run on, found in a run's artifacts without executing anything (AST only).

In: a Run (its code texts and the relative paths of every artifact). Out:
- `model_targets(run)`: `file.py:Name` specs that build the model with no arguments: a module-level
  builder (`build_model()`, `make_model()`, ...) or an nn.Module subclass whose __init__ needs none,
  best first (a class other model classes use as a part ranks below the one that uses them);
- `checkpoint_files(run)`, `data_files(run)`: artifact paths a checkpoint/data probe can read.
Paths are relative to the run root; callers re-anchor them where the command will run.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from mltdbg.analyzers.code.index import PyFile, pyfile_of
from mltdbg.analyzers.model import Run

_BUILDER_RX = re.compile(r"^(build|make|create|get|init|new|load)_?(the_)?(model|net|network|lm|classifier)$|^model_fn$", re.IGNORECASE)
_MODULE_BASES = {"Module", "LightningModule", "PreTrainedModel"}
_NICE_NAME_RX = re.compile(r"model|net|lm|transformer|classifier|gpt|bert|encoder|decoder|mlp|cnn|rnn|lstm", re.IGNORECASE)
CHECKPOINT_SUFFIXES = (".pt", ".pth", ".ckpt", ".tar")
DATA_SUFFIXES = (".npy", ".npz", ".parquet", ".csv", ".tsv", ".pt")
_DATA_NAME_RX = re.compile(r"train|val|valid|test|data|dataset|features|labels|samples|x_|y_|images|inputs", re.IGNORECASE)
_CKPT_NAME_RX = re.compile(r"ckpt|checkpoint|model|weights|epoch|step|best|last|state", re.IGNORECASE)


@dataclass
class ModelTarget:
    spec: str          # "path/to/file.py:Name" (path relative to the run root)
    path: str
    name: str
    line: int
    kind: str          # "builder" | "class"
    score: float


def _base_names(node: ast.ClassDef) -> list[str]:
    out = []
    for b in node.bases:
        if isinstance(b, ast.Name):
            out.append(b.id)
        elif isinstance(b, ast.Attribute):
            out.append(b.attr)
    return out


def _no_required_args(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> bool:
    a = fn.args
    pos = a.posonlyargs + a.args
    if method:
        pos = pos[1:]
    required_pos = len(pos) - len(a.defaults)
    required_kw = sum(1 for d in a.kw_defaults if d is None)
    return required_pos <= 0 and required_kw == 0


def _called_names(f: PyFile) -> dict[str, int]:
    """Names called anywhere as `X(...)`, with how often."""
    out: dict[str, int] = {}
    for n in f.calls:
        if isinstance(n.func, ast.Name):
            out[n.func.id] = out.get(n.func.id, 0) + 1
    return out


def model_targets(run: Run) -> list[ModelTarget]:
    found: list[ModelTarget] = []
    parts_of_others: set[str] = set()
    calls: dict[str, int] = {}
    for t in run.texts:
        if t.kind != "code" or not t.path.endswith(".py"):
            continue
        try:
            f = pyfile_of(t)       # the code checks' parse and index of the same file
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        tree = f.tree
        for k, v in _called_names(f).items():
            calls[k] = calls.get(k, 0) + v
        modules: dict[str, ast.ClassDef] = {}
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and (set(_base_names(node)) & (_MODULE_BASES | set(modules))):
                modules[node.name] = node
        for name, node in modules.items():
            init = next((b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
            if init is not None and not _no_required_args(init, method=True):
                continue
            score = 1.0 + (1.0 if _NICE_NAME_RX.search(name) else 0.0)
            found.append(ModelTarget(f"{t.path}:{name}", t.path, name, node.lineno, "class", score))
            for sub in f.subtree(node):   # classes this one builds as its parts
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in modules and sub.func.id != name:
                    parts_of_others.add(sub.func.id)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and _BUILDER_RX.match(node.name) and _no_required_args(node, method=False):
                found.append(ModelTarget(f"{t.path}:{node.name}", t.path, node.name, node.lineno, "builder", 3.0))
    for m in found:
        if m.kind == "class" and m.name in parts_of_others:
            m.score -= 2.0
        if calls.get(m.name):
            m.score += 1.0
    found.sort(key=lambda m: (-m.score, m.path, m.line))
    return found


def _artifacts(run: Run, suffixes: tuple[str, ...]) -> list[str]:
    return [a for a in run.artifacts if a.lower().endswith(suffixes)]


def checkpoint_files(run: Run) -> list[str]:
    """Artifacts that look like torch checkpoints (by suffix and name), newest-looking last."""
    return [a for a in _artifacts(run, CHECKPOINT_SUFFIXES) if _CKPT_NAME_RX.search(Path(a).name)
            or not _DATA_NAME_RX.search(Path(a).name)]


def data_files(run: Run) -> list[str]:
    """Artifacts a data probe reads: arrays of any name, tables named like data (not metric logs)."""
    metric_sources = {s.source for s in run.series}
    out = []
    for a in _artifacts(run, DATA_SUFFIXES):
        low = a.lower()
        if a in metric_sources:
            continue
        if low.endswith((".npy", ".npz", ".parquet")) or _DATA_NAME_RX.search(Path(a).name):
            if low.endswith(".pt") and a in checkpoint_files(run) and not _DATA_NAME_RX.search(Path(a).name):
                continue
            out.append(a)
    return out


def train_val_pair(files: list[str]) -> tuple[str, str | None] | None:
    """(train file, val file or None) among data files: names with train / val|valid|test."""
    if not files:
        return None
    train = next((f for f in files if re.search(r"train", Path(f).name, re.IGNORECASE)), None)
    val = next((f for f in files if re.search(r"val|valid|test|dev", Path(f).name, re.IGNORECASE)), None)
    if train is None:
        return (files[0], None)
    return (train, val if val != train else None)
