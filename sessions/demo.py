"""The bundled demo: a tiny repo whose training run really fails (gradients accumulate: no zero_grad).

    repo = make_demo_repo()      # a fresh copy in a temp dir, git-initialised with one commit
    # cd repo && python train.py  -> exits 1; runs/latest/train.log is its log

The copy lives outside the installed package so the demo session can apply a fix and commit it.
`mltdbg-tui --demo` uses one reused folder, `<data dir>/demo/demo-classifier` (fresh_demo_repo: replaced
by a new copy on each launch; latest_demo_repo: the one `--demo --resume` reopens), and removes the
`mltdbg-demo-*` temp copies that earlier versions left behind.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path

from mltdbg.analyzers.common.gitrepo import init_repo
from mltdbg.sessions.store import data_dir

DEMO_NAME = "demo-classifier"
TEMP_PREFIX = "mltdbg-demo-"
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
        dest = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX)) / DEMO_NAME
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise ValueError(f"{dest} is not empty: the demo needs a new folder")
    src = demo_source()
    if not src.is_dir():
        raise FileNotFoundError("the bundled demo is missing from this installation (mltdbg/app/demo/repo)")
    _copy(src, dest)
    init_repo(dest, _IDENTITY, "Demo classifier: training diverges (final loss is not below 0.8)")
    return dest


def demo_repo_path() -> Path:
    """The one folder `mltdbg-tui --demo` uses: `<data dir>/demo/demo-classifier`."""
    return data_dir() / "demo" / DEMO_NAME


def fresh_demo_repo() -> Path:
    """A new demo copy in demo_repo_path() (the previous one, and its sessions, are replaced); old
    `mltdbg-demo-*` temp copies are removed first. Returns the repo path."""
    remove_temp_demos()
    dest = demo_repo_path()
    if dest.exists():
        shutil.rmtree(dest)
    return make_demo_repo(dest)


def latest_demo_repo() -> Path | None:
    """The demo copy `--demo --resume` reopens (demo_repo_path() when it holds a git repo), else None."""
    dest = demo_repo_path()
    return dest if (dest / ".git").is_dir() else None


def remove_temp_demos(tmp: str | Path | None = None) -> list[Path]:
    """Remove this user's `mltdbg-demo-*` folders in the temp dir that hold only a demo copy; returns them."""
    gone = []
    for d in Path(tmp or tempfile.gettempdir()).glob(TEMP_PREFIX + "*"):
        try:
            if (d.is_dir() and not d.is_symlink() and d.stat().st_uid == os.getuid()
                    and [c.name for c in d.iterdir()] in ([DEMO_NAME], [])):
                shutil.rmtree(d)
                gone.append(d)
        except OSError:
            continue        # someone else's, or in use: left alone
    return gone


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
