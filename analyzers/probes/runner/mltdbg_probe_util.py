"""Shared helpers of the probe runner: the result document, its atomic writes, loading the user's
callables, one-line error classification. Stdlib only (torch and numpy are imported where needed).

This file runs inside the USER's interpreter (`python mltdbg_probe.py ...`), which may not have
mltdbg installed: it must never import mltdbg. Every name is prefixed `mltdbg_probe_` so that the
runner folder, first on sys.path, cannot shadow a module of the user's project.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import math
import os
import re
import sys
import time
import traceback
from pathlib import Path
from typing import Any

FORMAT = 1   # the result document's version (analyzers/probes/results.py reads it)

# Error kinds written to doc["error"]["kind"]; the launcher and the CLI word their advice by them.
E_BAD_INPUT = "bad_input"        # the user's TARGET/--batch/--step/file is wrong (names it)
E_IMPORT = "import"              # the user's module raised while being imported
E_NO_TORCH = "no_torch"          # this interpreter has no torch (wrong --python)
E_NEEDS_GPU = "needs_gpu"        # the model asks for CUDA on a machine without it
E_OOM = "oom"                    # out of memory (CUDA or host) while probing
E_TOO_LARGE = "too_large"        # would not fit: not built (counted on the meta device instead)
E_EXCEPTION = "exception"        # anything else the user's code raised while probing


class ProbeError(Exception):
    """A failure with a one-line message for the user and a kind from the E_* list."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


def jsonable(obj: Any) -> Any:
    """Plain JSON: NaN/inf as strings, tuples as lists, numpy/torch scalars as numbers, else str()."""
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        if math.isnan(obj):
            return "NaN"
        if math.isinf(obj):
            return "inf" if obj > 0 else "-inf"
        return obj
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "item") and getattr(obj, "ndim", 1) == 0:    # numpy / torch scalar
        try:
            return jsonable(obj.item())
        except (TypeError, ValueError):
            pass
    if hasattr(obj, "tolist"):
        return jsonable(obj.tolist())
    return str(obj)


class Doc:
    """The result document. `save()` rewrites it atomically (tmp + rename) after every stage, so a
    probe that hangs or is killed still leaves its last partial state for the launcher to read."""

    def __init__(self, out: str, probe: str, argv: list[str]):
        self.path = Path(out)
        self.t0 = time.perf_counter()
        self.d: dict[str, Any] = {
            "mltdbg_probe": FORMAT, "probe": probe, "status": "running", "stage": "starting",
            "argv": list(argv), "environment": _environment(), "notes": [], "findings": [], "result": {}}

    def stage(self, name: str) -> None:
        self.d["stage"] = name
        self.save()

    def note(self, text: str) -> None:
        self.d["notes"].append(text)

    def finding(self, kind: str, summary: str, severity: str = "high", **data: Any) -> None:
        self.d["findings"].append({"kind": kind, "severity": severity, "summary": _one_line(summary), "data": data})

    def fail(self, kind: str, message: str, partial: bool) -> None:
        self.d["status"] = "partial" if partial else "error"
        self.d["error"] = {"kind": kind, "message": _one_line(message), "stage": self.d.get("stage")}

    def save(self) -> None:
        self.d["elapsed_s"] = round(time.perf_counter() - self.t0, 4)
        text = json.dumps(jsonable(self.d), indent=1, ensure_ascii=False, allow_nan=False)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        os.replace(tmp, self.path)


def _one_line(s: str, limit: int = 600) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _environment() -> dict[str, Any]:
    env: dict[str, Any] = {"python": sys.executable, "python_version": sys.version.split()[0],
                           "platform": sys.platform, "pid": os.getpid(), "cwd": os.getcwd()}
    return env


def torch_environment(env: dict[str, Any]) -> None:
    import torch
    env["torch"] = torch.__version__
    env["cuda_available"] = bool(torch.cuda.is_available())
    if env["cuda_available"]:
        env["cuda"] = torch.version.cuda
        env["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]


# ----------------------------------------------------------------------------- loading user code

def user_frame(exc: BaseException) -> str:
    """`file:line` of the innermost traceback frame outside this runner and the stdlib/site-packages."""
    here = str(Path(__file__).resolve().parent)
    best = ""
    for fr in traceback.extract_tb(exc.__traceback__):
        f = fr.filename
        if f.startswith((here, "<frozen", sys.prefix, getattr(sys, "base_prefix", sys.prefix))) \
                or "site-packages" in f or "dist-packages" in f:
            continue
        best = f"{_rel(f)}:{fr.lineno}"
    return best


def _rel(f: str) -> str:
    try:
        return os.path.relpath(f)
    except ValueError:
        return f


def load_callable(spec: str, what: str) -> Any:
    """`path/to/file.py:attr.sub` or `package.module:attr` -> the object. Raises ProbeError naming the
    spec and what is wrong (no such file, import failed at file:line, no such attribute)."""
    if ":" not in spec:
        raise ProbeError(E_BAD_INPUT, f"{what} {spec!r}: expected FILE.py:NAME or module:NAME")
    left, attr = spec.rsplit(":", 1)
    if not left or not attr or not all(p.isidentifier() for p in attr.split(".")):
        raise ProbeError(E_BAD_INPUT, f"{what} {spec!r}: expected FILE.py:NAME or module:NAME")
    if left.endswith(".py") or "/" in left or os.sep in left:
        path = Path(left)
        if not path.is_file():
            raise ProbeError(E_BAD_INPUT, f"{what} {spec!r}: {left}: no such file")
        mod = _import_file(path.resolve(), spec, what)
    else:
        if os.getcwd() not in sys.path:
            sys.path.insert(1, os.getcwd())
        mod = _import(left, spec, what)
    obj: Any = mod
    for part in attr.split("."):
        if not hasattr(obj, part):
            names = sorted(n for n in dir(obj) if not n.startswith("_"))
            hint = f" (it has: {', '.join(names[:12])}{', ...' if len(names) > 12 else ''})" if names else ""
            raise ProbeError(E_BAD_INPUT, f"{what} {spec!r}: {left} has no attribute {part!r}{hint}")
        obj = getattr(obj, part)
    return obj


def _import_file(path: Path, spec: str, what: str):
    """Import a .py file as the module it is in its project: a file inside packages (folders with
    __init__.py) is imported by its dotted name so its relative imports work."""
    parts = [path.stem]
    d = path.parent
    while (d / "__init__.py").is_file() and d.parent != d:
        parts.insert(0, d.name)
        d = d.parent
    root = str(d)
    if root not in sys.path:
        sys.path.insert(1, root)
    if os.getcwd() not in sys.path:
        sys.path.insert(2, os.getcwd())
    return _import(".".join(parts), spec, what)


def _import(name: str, spec: str, what: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and (name == e.name or name.startswith(e.name + ".")):
            raise ProbeError(E_BAD_INPUT, f"{what} {spec!r}: no module named {e.name!r} "
                                          f"(searched from {os.getcwd()})") from None
        raise ProbeError(E_IMPORT, _import_msg(spec, what, e)) from None
    except SystemExit as e:
        raise ProbeError(E_IMPORT, f"{what} {spec!r}: importing it called sys.exit({e.code}) "
                                   f"(put the training code under `if __name__ == \"__main__\":`)") from None
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        raise ProbeError(E_IMPORT, _import_msg(spec, what, e)) from None


def _import_msg(spec: str, what: str, e: BaseException) -> str:
    where = user_frame(e)
    return f"{what} {spec!r} does not import: {type(e).__name__}: {e}" + (f" (at {where})" if where else "")


def load_kwargs(kwargs_json: str | None, config: str | None) -> dict[str, Any]:
    """Keyword arguments for TARGET: `--config FILE[:KEY.SUB]` (YAML or JSON) then `--kwargs JSON` on top."""
    out: dict[str, Any] = {}
    if config:
        path, _, key = config.partition(":") if not Path(config).is_file() else (config, "", "")
        p = Path(path)
        if not p.is_file():
            raise ProbeError(E_BAD_INPUT, f"--config {config!r}: {path}: no such file")
        text = p.read_text(encoding="utf-8", errors="replace")
        try:
            if p.suffix.lower() in (".yaml", ".yml"):
                try:
                    import yaml
                except ImportError:
                    raise ProbeError(E_BAD_INPUT, f"--config {path}: a YAML file, and PyYAML is not installed "
                                                  f"in {sys.executable}; pass --kwargs JSON instead") from None
                doc = yaml.safe_load(text)
            else:
                doc = json.loads(text)
        except ProbeError:
            raise
        except Exception as e:  # noqa: BLE001 - yaml/json errors
            raise ProbeError(E_BAD_INPUT, f"--config {path}: not valid {p.suffix.lstrip('.') or 'JSON'} "
                                          f"({' '.join(str(e).split())[:200]})") from None
        for k in [k for k in key.split(".") if k]:
            if not isinstance(doc, dict) or k not in doc:
                raise ProbeError(E_BAD_INPUT, f"--config {config}: no key {k!r} in {path}")
            doc = doc[k]
        if not isinstance(doc, dict):
            raise ProbeError(E_BAD_INPUT, f"--config {config}: expected a mapping of keyword arguments, "
                                          f"got {type(doc).__name__}")
        out.update(doc)
    if kwargs_json:
        try:
            kw = json.loads(kwargs_json)
        except ValueError as e:
            raise ProbeError(E_BAD_INPUT, f"--kwargs: not valid JSON ({e})") from None
        if not isinstance(kw, dict):
            raise ProbeError(E_BAD_INPUT, "--kwargs: expected a JSON object")
        out.update(kw)
    return out


_GPU_RX = re.compile(r"CUDA|cuda|NVIDIA driver|nvidia|not compiled with CUDA|no kernel image|cudnn|NCCL", re.IGNORECASE)
_OOM_RX = re.compile(r"out of memory|can't allocate memory|not enough memory|Cannot allocate memory|"
                     r"CUBLAS_STATUS_ALLOC_FAILED|DefaultCPUAllocator", re.IGNORECASE)


def classify(exc: BaseException, cuda_available: bool) -> tuple[str, str]:
    """(error kind, one-line message) for an exception the user's model raised while probing."""
    msg = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    where = user_frame(exc)
    if where:
        msg += f" (at {where})"
    name = type(exc).__name__
    if isinstance(exc, MemoryError) or name == "OutOfMemoryError" or _OOM_RX.search(str(exc)):
        return E_OOM, "out of memory: " + msg
    if not cuda_available and _GPU_RX.search(str(exc)):
        return E_NEEDS_GPU, ("the model needs a GPU (it asked for CUDA) and this machine has none "
                             "(torch.cuda.is_available() is False): " + msg)
    return E_EXCEPTION, msg
