"""The bundled demo: a tiny repo whose training run really fails (gradients accumulate: no zero_grad).

    repo = make_demo_repo()      # a fresh copy in a temp dir, git-initialised with one commit
    # cd repo && python train.py  -> exits 1; runs/latest/train.log is its log

The copy lives in a temp dir so the demo session can apply a fix and commit it
without touching the installed package.
"""
from __future__ import annotations

import tempfile
from importlib import resources
from pathlib import Path

from mltdbg.analyzers.common.gitrepo import init_repo

DEMO_NAME = "demo-classifier"
_SKIP = {"__pycache__", ".mltdbg", ".git", ".pytest_cache"}
# A local identity: the demo must commit on a machine where git has none configured.
_IDENTITY = {"user.name": "mltdbg demo", "user.email": "demo@mltdbg.invalid", "commit.gpgsign": "false"}


def demo_source():
    """The bundled demo repo as an importlib.resources Traversable."""
    return resources.files("mltdbg.app").joinpath("demo/repo")


def make_demo_repo(dest: str | Path | None = None) -> Path:
    """Copy the demo to dest (default: a new temp dir), `git init` it with one commit; returns its path.

    dest must not exist or be an empty folder (ValueError otherwise).
    """
    if dest is None:
        dest = Path(tempfile.mkdtemp(prefix="mltdbg-demo-")) / DEMO_NAME
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise ValueError(f"{dest} is not empty: the demo needs a new folder")
    src = demo_source()
    if not src.is_dir():
        raise FileNotFoundError("the bundled demo is missing from this installation (mltdbg/app/demo/repo)")
    _copy(src, dest)
    init_repo(dest, _IDENTITY, "Demo classifier: training diverges (final loss is not below 0.8)")
    return dest


def _copy(src, dest: Path) -> None:
    """Copy a Traversable tree (works for a plain folder and for a zipped install alike)."""
    dest.mkdir(parents=True, exist_ok=True)
    for item in src.iterdir():
        if item.name in _SKIP or item.name.endswith(".pyc"):
            continue
        if item.is_dir():
            _copy(item, dest / item.name)
        else:
            (dest / item.name).write_bytes(item.read_bytes())
