"""Real git repos for tests: `git(cwd, *args)` and `make_repo(path, files)`."""
from __future__ import annotations

import subprocess
from pathlib import Path


def git(cwd, *args: str) -> str:
    """Run git in cwd; its stdout (raises on a non-zero exit)."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def make_repo(path: Path, files: dict[str, str | bytes], init: bool = True) -> Path:
    """Write files (text or bytes) under path and, with init, commit them in a new repo with a local identity."""
    path.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        p = path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
    if init:
        git(path, "init", "-q")
        git(path, "config", "user.name", "Test")
        git(path, "config", "user.email", "test@example.invalid")
        git(path, "config", "core.autocrlf", "false")
        git(path, "add", "-A")
        git(path, "commit", "-qm", "init")
    return path
