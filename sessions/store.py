"""Where sessions live and how to find them.

In a git repo: `<repo root>/.mltdbg/sessions/<id>/events.jsonl` (+ `debug.md`,
`lock`), with `.mltdbg/` added to `.git/info/exclude` so the tree stays clean.
Outside a repo: `<data dir>/sessions/<id>/`, the data dir being `$MLTDBG_HOME`,
else `$XDG_DATA_HOME/mltdbg`, else `~/.local/share/mltdbg`.
"""
from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from mltdbg.analyzers.common.gitrepo import find_repo_root, git_dir

EVENTS_FILE = "events.jsonl"
DEBUG_FILE = "debug.md"
LOCK_FILE = "lock"
TOOL_DIR = ".mltdbg"
EXCLUDE_LINE = "/.mltdbg/"


def data_dir() -> Path:
    """The user data dir for sessions outside a repo ($MLTDBG_HOME overrides, for tests)."""
    if os.environ.get("MLTDBG_HOME"):
        return Path(os.environ["MLTDBG_HOME"])
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else Path.home() / ".local" / "share") / "mltdbg"


def sessions_dir(repo_root: Path | None) -> Path:
    """Folder holding the session folders for a repo root (None: outside any repo)."""
    return (repo_root / TOOL_DIR / "sessions") if repo_root is not None else data_dir() / "sessions"


def ensure_excluded(repo_root: Path) -> bool:
    """Add `/.mltdbg/` to `.git/info/exclude` once (never touches .gitignore). True if it is there."""
    gd = git_dir(repo_root)
    # A `.git` file may point anywhere (a repo unpacked from someone's archive): write only into a
    # directory that is a git dir (HEAD plus objects/), and create nothing but its `info/`.
    if gd is None or not (gd / "HEAD").is_file() or not (gd / "objects").is_dir():
        return False
    exclude = gd / "info" / "exclude"
    try:
        text = exclude.read_text(encoding="utf-8", errors="replace") if exclude.exists() else ""
        if any(line.strip() in (EXCLUDE_LINE, ".mltdbg/", ".mltdbg", "/.mltdbg") for line in text.splitlines()):
            return True
        exclude.parent.mkdir(exist_ok=True)
        # O_NOFOLLOW: an info/exclude linked elsewhere (a repo unpacked from someone's archive) is not appended to.
        fd = os.open(exclude, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.write(("" if not text or text.endswith("\n") else "\n")
                    + "# mltdbg debugging sessions (local; share one by copying its folder)\n" + EXCLUDE_LINE + "\n")
        return True
    except OSError:
        return False


def new_session_id(name: str | None = None) -> str:
    """`YYYYMMDD-HHMMSS-xxxx[-slug]`: sorts by time, unique, readable."""
    sid = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)
    slug = re.sub(r"[^a-z0-9]+", "-", (name or "").lower()).strip("-")[:40]
    return f"{sid}-{slug}" if slug else sid


@dataclass
class SessionRef:
    """A session folder found on disk."""

    id: str
    dir: Path
    events: Path


def session_refs(base: Path) -> list[SessionRef]:
    """Session folders under a sessions dir, oldest first."""
    if not base.is_dir():
        return []
    refs = [SessionRef(d.name, d, d / EVENTS_FILE) for d in base.iterdir() if (d / EVENTS_FILE).is_file()]
    return sorted(refs, key=lambda r: r.id)


def resolve(path_or_id: str | Path, repo_root: Path | None = None) -> tuple[SessionRef | None, str]:
    """Find a session by folder, events file, id, unique id prefix or unique name.

    Out: (ref, "") or (None, a message saying why not). A file that is not a
    session folder's `events.jsonl` (e.g. a teammate's exported log) gives a
    ref whose `dir` is its parent.
    """
    p = Path(path_or_id).expanduser()
    if p.is_file():
        return SessionRef(p.parent.name if p.name == EVENTS_FILE else p.stem, p.parent, p), ""
    if p.is_dir() and (p / EVENTS_FILE).is_file():
        return SessionRef(p.name, p, p / EVENTS_FILE), ""
    key = str(path_or_id)
    root = find_repo_root(repo_root) if repo_root is not None else find_repo_root()
    bases = [sessions_dir(root)] if root is not None else []
    bases.append(sessions_dir(None))
    hits: list[SessionRef] = []
    for base in bases:
        refs = session_refs(base)
        exact = [r for r in refs if r.id == key]
        if exact:
            return exact[0], ""
        hits += [r for r in refs if r.id.startswith(key)]
    if not hits:   # by the name the user gave it: ids end with "-<name>"
        for base in bases:
            hits += [r for r in session_refs(base) if r.id.endswith("-" + key)]
    if len(hits) == 1:
        return hits[0], ""
    if hits:
        return None, f"'{key}' matches {len(hits)} sessions: " + ", ".join(r.id for r in hits[:5])
    where = " or ".join(str(b) for b in bases)
    return None, f"no session '{key}' (looked for a file, a folder, and ids under {where})"
