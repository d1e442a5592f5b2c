"""Context packages: a JSON file that says what to diagnose (`mltdbg diagnose --context FILE.json`).

    {"task": "Diagnose training failure",
     "artifacts": {"training_logs": "runs/train.log", "model_code": ["train.py"], ...},
     "symptoms": ["Gradient norm exploded"],
     "constraints": {"max_analysis_time": "5 minutes"}}

`load_context(path) -> ContextPackage` (paths, symptoms, task, time budget), ContextError with one
line naming the file when it cannot be read. Artifact paths are taken as given when they exist
from the cwd (or are absolute), else relative to the package file's folder when they exist there.
Every artifact group is read; the group names are free.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class ContextError(Exception):
    """The context package cannot be used; the message is one line naming the file."""


@dataclass
class ContextPackage:
    paths: list[str] = field(default_factory=list)       # artifact paths, in the package's order
    symptoms: list[str] = field(default_factory=list)
    task: str | None = None
    max_analysis_time: Any = None                         # as written ("5 minutes", 300, ...)

    @property
    def time_budget_s(self) -> float | None:
        """max_analysis_time in seconds, None when absent or not a duration."""
        if self.max_analysis_time is None:
            return None
        from mltdbg.playbooks.userconfig import parse_duration  # noqa: PLC0415 - reads YAML config code: only when a budget is given
        return parse_duration(str(self.max_analysis_time))


def load_context(path: str | os.PathLike) -> ContextPackage:
    """Read a context package; ContextError when it is not readable JSON of the expected shape."""
    p = Path(path)
    try:
        ctx = json.loads(p.read_text("utf-8"))
        return parse_context(ctx, p.resolve().parent)
    except (OSError, ValueError, AttributeError, TypeError) as e:
        raise ContextError(f"{path}: not a readable context package ({e})") from e


def parse_context(ctx: dict[str, Any], base: Path) -> ContextPackage:
    """A package from its JSON object; base: the folder its relative paths may be relative to.
    AttributeError/TypeError when a part has the wrong shape (load_context words them)."""
    out = ContextPackage()
    arts = ctx.get("artifacts") or {}
    for v in arts.values():
        for x in [v] if isinstance(v, str) else [x for x in v if isinstance(x, str)]:
            # paths in a package are relative to the package file when they are not to the cwd
            out.paths.append(x if os.path.lexists(x) or os.path.isabs(x) or not (base / x).exists() else str(base / x))
    out.symptoms = [s for s in ctx.get("symptoms") or [] if isinstance(s, str)]
    out.task = ctx.get("task") if isinstance(ctx.get("task"), str) else None
    out.max_analysis_time = (ctx.get("constraints") or {}).get("max_analysis_time")
    return out
