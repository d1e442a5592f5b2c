"""Which Python the user's code runs with, and the environment that makes `python` mean it. UI-free.

    py = user_python(explicit=None, command="python train.py", environ=os.environ)
    py.path, py.source          # "/home/u/proj/.venv/bin/python", "VIRTUAL_ENV"
    env = python_env(py, shim_dir, os.environ)   # {"PATH": ..., "VIRTUAL_ENV": ...} for CheckRun(env=...)

Order (first that names an existing file wins): `--python` (explicit), the interpreter the captured
command names by path (`.venv/bin/python train.py`), the active virtualenv (VIRTUAL_ENV), the active
conda env (CONDA_PREFIX), else the first `python` (then `python3`) on PATH. Commands are shell lines
that say `python`: `python_env` puts a folder with `python`/`python3` scripts running the chosen interpreter
first on PATH (then the interpreter's own bin folder, for its console scripts such as torchrun).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

# A command's program is a Python interpreter when its file name is python, python3 or python3.11 (etc.).
_PYTHON_NAME = re.compile(r"python(\d+(\.\d+)?)?")


@dataclass(frozen=True)
class UserPython:
    """The interpreter for the user's code: `path` (absolute; None when none was found) and `source`
    (where it came from: --python, the command, VIRTUAL_ENV, CONDA_PREFIX, PATH)."""

    path: str | None
    source: str

    def describe(self) -> str:
        """One line for a dialog: `/x/.venv/bin/python (from VIRTUAL_ENV)`."""
        return f"{self.path} (from {self.source})" if self.path else "no python found on PATH"


def _exe(p: str | Path | None) -> str | None:
    if not p:
        return None
    path = Path(p).expanduser()
    return str(path.absolute()) if path.is_file() and os.access(path, os.X_OK) else None


def command_python(command: str | None, cwd: str | Path | None = None) -> str | None:
    """The interpreter a command names by path (`.venv/bin/python x.py`, `/opt/py/bin/python3 -m y`),
    after leading `VAR=value` assignments; None for a bare `python` or anything else."""
    try:
        words = shlex.split(command or "")
    except ValueError:
        return None
    while words and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]):
        words.pop(0)
    if not words or "/" not in words[0] or not _PYTHON_NAME.fullmatch(Path(words[0]).name):
        return None
    p = Path(words[0]).expanduser()
    return _exe(p if p.is_absolute() or cwd is None else Path(cwd) / p)


def user_python(explicit: str | None = None, command: str | None = None, environ: Mapping[str, str] | None = None,
                cwd: str | Path | None = None) -> UserPython:
    """The interpreter the user's code runs with (see the module docstring for the order).
    `explicit` that is not an executable file raises ValueError (a one-line message)."""
    env = os.environ if environ is None else environ
    if explicit:
        found = _exe(explicit) or _exe(shutil.which(explicit, path=env.get("PATH")))
        if not found:
            raise ValueError(f"--python {explicit}: not an executable file")
        return UserPython(found, "--python")
    found = command_python(command, cwd)
    if found:
        return UserPython(found, "the command")
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        if env.get(var):
            found = _exe(Path(env[var]) / "bin" / "python") or _exe(Path(env[var]) / "bin" / "python3")
            if found:
                return UserPython(found, var)
    for name in ("python", "python3"):
        found = _exe(shutil.which(name, path=env.get("PATH")))
        if found:
            return UserPython(found, "PATH")
    return UserPython(None, "PATH")


def python_env(py: UserPython, shim_dir: str | Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Extra environment for a check so `python`/`python3` in its command run `py`: a folder of links
    (scripts made in shim_dir) first on PATH, then the interpreter's bin folder. {} when no interpreter was found."""
    if not py.path:
        return {}
    env = os.environ if environ is None else environ
    shim = Path(shim_dir)
    shim.mkdir(parents=True, exist_ok=True)
    # Scripts, not symlinks: a virtualenv's python finds its pyvenv.cfg next to the path it was started by.
    script = f"#!/bin/sh\nexec {shlex.quote(py.path)} \"$@\"\n"
    for name in ("python", "python3"):
        f = shim / name
        if not f.is_file() or f.is_symlink() or f.read_text(encoding="utf-8") != script:
            f.unlink(missing_ok=True)
            f.write_text(script, encoding="utf-8")
            f.chmod(0o755)
    out = {"PATH": os.pathsep.join([str(shim), str(Path(py.path).parent), env.get("PATH", "")])}
    venv = Path(py.path).parent.parent
    if (venv / "pyvenv.cfg").is_file():
        out["VIRTUAL_ENV"] = str(venv)
    return out
