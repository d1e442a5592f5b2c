"""Scratch copies of the repo for instrumented checks: the user's tree is only ever read. UI-free.

    with ScratchWorktree(repo) as wt:          # git worktree of HEAD + the user's uncommitted edits
        wt.instrument(playbook.instrumentation) # into the scratch copy only
        print(wt.diff())                        # show before running
        result = wt.check("python train.py --steps 3", session=s).run()

In: the repo root (or a folder inside the repo) and a playbook's instrumentation snippet (its
`{model}`/`{optimizer}`/`{loader}`/`{batch}`/`{loss}` placeholders bound to the names of the file it
goes into, mltdbg.sessions.instrument). Out: a
temp copy that matches what the user runs, the diff of what was put into it, and CheckRuns that
run there (sessions.checks). ScratchError says why a copy or an edit could not be made.

Each copy is recorded while it lives (one small JSON file in `<repo>/.mltdbg/scratch/`, or the
data dir's `scratch/` outside a repo): its temp folder, its worktree, the process that owns it.
A copy whose owner is gone (the app crashed or was killed) is removed by `cleanup_stale`, which
every new copy runs first (and the app may run at start): its worktree is forgotten by path
(`git worktree remove --force`; never `git worktree prune`, which would touch the user's own
worktrees) and its temp folder deleted, only when that folder is a `mltdbg-scratch-*` folder of
this user directly in the temp dir (a record planted in a repo cannot aim the deletion elsewhere).
"""
from __future__ import annotations

import ast
import atexit
import difflib
import json
import os
import re
import shutil
import stat
import tempfile
import textwrap
import weakref
from pathlib import Path
from typing import Any

from mltdbg.analyzers.common.gitrepo import (GitResult, add_worktree, changed_files, find_repo_root, has_commit,
                                             remove_worktree, untracked_files)
from mltdbg.sessions.checks import CheckRun, cancel_all, process_start
from mltdbg.sessions.instrument import Bound, bind, limited, placeholders, resolve_names, step_limit, unresolved_in
from mltdbg.sessions.store import TOOL_DIR, data_dir, ensure_excluded


class ScratchError(Exception):
    """The scratch copy could not be made or instrumented (the message says why)."""


_ANCHOR = re.compile(r"^\s*#\s*\.\.\.\s*(.+?)\s*$")
_MARK = "# mltdbg: instrumentation (scratch copy only)"
_SKIP_COPY = {".git", ".mltdbg", "__pycache__", ".venv", "venv", "node_modules", ".pytest_cache", ".mypy_cache"}
PLAIN_COPY_MAX_FILE = 100 * 1024 * 1024
SCRATCH_PREFIX = "mltdbg-scratch-"
REGISTRY_MAX_BYTES = 64 * 1024      # a record is ~300 bytes; a bigger file is not ours

# The copies this process has open (tmp path -> copy): a record whose owner is this process but is
# not here was left by a screen that crashed without closing it.
_open: "weakref.WeakValueDictionary[str, ScratchWorktree]" = weakref.WeakValueDictionary()


class ScratchWorktree:
    """A throwaway copy of the repo that matches what the user runs, for instrumented checks.

    In a git repo: `git worktree add --detach <tmp> HEAD`, then the user's uncommitted edits to
    tracked files (and untracked, not ignored files) copied over; ignored files (data, outputs)
    are not copied. Outside git (or a repo with no commit): a plain copy. Edits go to the copy
    only; `diff()` shows them. `close()` removes the worktree (`git worktree remove --force` of
    its path) and the temp dir; a copy never closed (a crash) is removed by the next one
    (cleanup_stale). The user's tree is only read.
    """

    def __init__(self, repo_root: str | Path):
        self.repo_root = Path(repo_root).resolve()
        self.tmp: Path | None = None
        self.path: Path | None = None       # the scratch repo root
        self.is_worktree = False
        self.skipped: list[str] = []        # files not copied (too large), for the UI to mention
        self._top: Path = self.repo_root    # the git top level (worktree only)
        self._wt: Path | None = None        # the worktree's root (worktree only)
        self._base: dict[str, str] = {}     # rel path -> text before our edits
        self._record: Path | None = None    # this copy's file in the registry (cleanup_stale)
        self.unresolved: list[str] = []     # placeholders the last instrument() could not name

    def __enter__(self) -> "ScratchWorktree":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> "ScratchWorktree":
        if self.path is not None:
            return self
        cleanup_stale(self.repo_root)
        self.tmp = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
        self.path = self.tmp / (self.repo_root.name or "repo")     # (a worktree sets its own)
        _open[str(self.tmp)] = self
        try:
            top = find_repo_root(self.repo_root)
            with_git = top is not None and has_commit(top)
            self._record = _register(top, self.tmp, self.tmp / (top.name or "repo") if with_git else None)
            if with_git:
                self._worktree(top)
            else:
                self._plain_copy()
        except Exception:
            self.close()
            raise
        return self

    def _worktree(self, top: Path) -> None:
        # repo_root may be a folder inside the repo: the worktree is of the whole repo, `path` the same folder in it.
        self._top = top
        wt = self.tmp / (top.name or "repo")
        _must(add_worktree(top, wt))
        self.is_worktree, self._wt = True, wt
        self.path = wt / self.repo_root.relative_to(top)
        # The user's edits: tracked files changed against HEAD (staged or not), then untracked ones.
        for rel in changed_files(top) + untracked_files(top):
            src, dst = top / rel, wt / rel
            if src.is_file() and not src.is_symlink():
                if src.stat().st_size > PLAIN_COPY_MAX_FILE:
                    self.skipped.append(rel)
                    continue
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
            elif src.is_symlink():
                dst.unlink(missing_ok=True)
                dst.symlink_to(os.readlink(src))
            elif not src.exists() and dst.exists():
                dst.unlink()          # deleted in the user's tree

    def _plain_copy(self) -> None:
        def ignore(d: str, names: list[str]) -> list[str]:
            out = [n for n in names if n in _SKIP_COPY]
            for n in names:
                p = Path(d) / n
                if n not in out and p.is_file() and not p.is_symlink() and p.stat().st_size > PLAIN_COPY_MAX_FILE:
                    out.append(n)
                    self.skipped.append(str(p.relative_to(self.repo_root)))
            return out
        shutil.copytree(self.repo_root, self.path, symlinks=True, ignore=ignore)

    def close(self) -> None:
        """Remove the scratch copy (and its worktree registration). Safe to call twice."""
        if self.tmp is None:
            return
        if self.is_worktree and self._wt is not None:
            remove_worktree(self._top, self._wt)
        shutil.rmtree(self.tmp, ignore_errors=True)
        _open.pop(str(self.tmp), None)
        if self._record is not None:
            self._record.unlink(missing_ok=True)
            self._record = None
        self.tmp = self.path = None
        self.is_worktree = False

    # ----- edits (scratch only) ---------------------------------------------------------------
    def read(self, rel: str) -> str:
        return self._file(rel).read_text(encoding="utf-8")

    def write(self, rel: str, text: str) -> None:
        """Replace a file's text in the scratch copy (the original is kept for diff())."""
        p = self._file(rel)
        if rel not in self._base:
            self._base[rel] = p.read_text(encoding="utf-8") if p.exists() else ""
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")

    def insert(self, rel: str, line: int, text: str) -> None:
        """Insert text before 1-based `line` of a scratch file, indented like that line."""
        lines = self.read(rel).splitlines(keepends=True)
        if not 1 <= line <= len(lines) + 1:
            raise ScratchError(f"{rel} has {len(lines)} lines; cannot insert before line {line}")
        indent = _indent(lines[line - 1]) if line <= len(lines) else ""
        lines[line - 1:line - 1] = _block(text, indent)
        self.write(rel, "".join(lines))

    def instrument(self, snippet: str, file: str | None = None) -> str:
        """Put a playbook's instrumentation snippet into the training loop of the scratch copy.

        The snippet's placeholders (`{model}`, `{optimizer}`, `{loader}`, `{batch}`, `{loss}`) are
        filled with the names the file itself uses (mltdbg.sessions.instrument.resolve_names); one
        that cannot be read from the file is written as `<<name?>>` and `self.unresolved` lists it:
        the copy is shown, but `check()` refuses to run until the marker is edited away.
        The snippet's `# ... <statement>` lines are anchors (e.g. `# ... {loss}.backward()`): the
        part before the first anchor goes just before that statement, the part after each anchor
        just after it, indented like it. With no anchor, the snippet goes before the first
        `.backward(` call. `# mltdbg: steps=N` makes the inserted lines run for the first N steps
        only (a counter in the inserted code), then say once that they stopped.
        file: which file (relative); default: the first .py file that holds the anchors. Returns
        the file changed. Raises ScratchError when no place is found (the UI then asks for a file
        and line and calls `insert`).
        """
        steps, snippet = step_limit(snippet)
        keys: list[str] = []
        for rel in ([file] if file else self._py_files()):
            try:
                text = self.read(rel)
            except (OSError, UnicodeDecodeError):
                continue
            bound = bind(snippet, resolve_names(text, rel)) if placeholders(snippet) else Bound(snippet)
            parts, anchors = _split_snippet(bound.text)
            keys = anchors or [".backward("]
            spots = _find_anchors(text, keys)
            if spots is None:
                continue
            lines = text.splitlines(keepends=True)
            # (insert before this 0-based line, text, line whose indentation it takes)
            if anchors:
                edits = [(spots[0][0], parts[0], spots[0][0])]
                edits += [(end + 1, part, start) for (start, end), part in zip(spots, parts[1:])]
            else:
                edits = [(spots[0][0], bound.text, spots[0][0])]
            if steps is not None:
                first = next((i for i, e in enumerate(edits) if e[1].strip()), -1)
                edits = [(at, limited(part, steps, i == first) if part.strip() else part, ref)
                         for i, (at, part, ref) in enumerate(edits)]
            for at, part, ref_line in sorted(edits, key=lambda e: -e[0]):
                if part.strip():
                    lines[at:at] = _block(part, _indent(lines[ref_line]))
            self.write(rel, "".join(lines))
            self.unresolved = bound.unresolved
            return rel
        where = ", ".join(k.strip() for k in keys or [".backward("])
        raise ScratchError(f"no place found for the instrumentation (looked for {where} in "
                           f"{file or 'the Python files'}); choose a file and line")

    def unresolved_names(self) -> list[str]:
        """The `<<name?>>` markers still in the scratch edits (the user has not filled them in yet)."""
        return unresolved_in("".join(ln for ln in self.diff().splitlines(keepends=True)
                                     if ln.startswith("+") and not ln.startswith("+++")))

    def diff(self) -> str:
        """Unified diff (a/ b/ paths) of everything changed in the scratch copy: what will run."""
        out = []
        for rel, before in sorted(self._base.items()):
            after = self.read(rel) if self._file(rel).exists() else ""
            out += difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"a/{rel}", f"b/{rel}")
        return "".join(x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in out)

    def check(self, command: str, **kwargs: Any) -> CheckRun:
        """A CheckRun of command in the scratch copy; the instrumentation diff goes into check_started.
        Raises ScratchError while an unresolved `<<name?>>` marker is left in the edits."""
        if self.path is None:
            self.open()
        rec = kwargs.pop("record", {}) or {}
        left = self.unresolved_names()
        if left:
            marks = ", ".join(f"<<{n}?>>" for n in left)
            raise ScratchError(f"the instrumentation still has {marks}: the name could not be found in your code; "
                               "edit it before the check can run")
        diff = self.diff()
        return CheckRun(command, self.path, record={"scratch": True, **({"instrumentation": diff} if diff else {}), **rec},
                        **kwargs)

    def _file(self, rel: str) -> Path:
        if self.path is None:
            self.open()
        p = (self.path / rel).resolve()
        if p != self.path and self.path.resolve() not in p.parents:
            raise ScratchError(f"{rel} is outside the scratch copy")
        return p

    def _py_files(self) -> list[str]:
        assert self.path is not None
        files = [p.relative_to(self.path).as_posix() for p in self.path.rglob("*.py")
                 if not (_SKIP_COPY & set(p.relative_to(self.path).parts))]
        # Likely training scripts first.
        return sorted(files, key=lambda f: (not re.search(r"train|main|run|fit", f, re.I), f.count("/"), f))


# ----- the registry of live copies -------------------------------------------------------------------
def registry_dir(repo_root: str | Path | None) -> Path:
    """Where the records of live scratch copies of a repo are: `<git top>/.mltdbg/scratch`, or the data
    dir's `scratch/` outside a repo."""
    top = find_repo_root(repo_root) if repo_root is not None else None
    return (top / TOOL_DIR / "scratch") if top is not None else data_dir() / "scratch"


def _register(top: Path | None, tmp: Path, worktree: Path | None) -> Path | None:
    """Record a new copy; its record file, or None where it cannot be written (the copy still works)."""
    reg = registry_dir(top)
    try:
        if top is not None:
            ensure_excluded(top)
        if not _safe_dir(reg, create=True):
            return None
        rec = reg / f"{tmp.name}.json"
        fd = os.open(rec, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"tmp": str(tmp), "top": str(top) if top else None, "worktree": str(worktree) if worktree else None,
                       "pid": os.getpid(), "proc_start": process_start(os.getpid())}, f)
        return rec
    except OSError:
        return None


def _safe_dir(d: Path, create: bool = False) -> bool:
    """d is a real folder of ours (no symlink on the way from the repo's .mltdbg down), created if asked."""
    for p in (d.parent, d):
        if p.is_symlink():
            return False
        if not p.exists():
            if not create:
                return False
            try:
                p.mkdir(mode=0o700)
            except FileExistsError:
                pass
            except OSError:
                return False
        if p.is_symlink() or not p.is_dir():
            return False
    return True


def _owner_alive(rec: dict) -> bool:
    """Whether the process that made a copy still runs it (the same pid and start time; in this
    process: the copy is still open)."""
    pid, started = rec.get("pid"), rec.get("proc_start")
    if not isinstance(pid, int):
        return False
    if pid == os.getpid() and started == process_start(pid):
        return str(rec.get("tmp")) in _open
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return started is None or process_start(pid) == started


def _ours(tmp: Any) -> Path | None:
    """tmp when it is a scratch folder this code could have made: `mltdbg-scratch-*` directly in the
    temp dir, a real folder (no symlink) owned by this user; else None (never delete it)."""
    if not isinstance(tmp, str) or not os.path.isabs(tmp):
        return None
    p = Path(tmp)
    if not p.name.startswith(SCRATCH_PREFIX) or Path(os.path.realpath(p.parent)) != Path(os.path.realpath(tempfile.gettempdir())):
        return None
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return p                              # already gone: only the worktree registration is left
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        return None
    return p


def cleanup_stale(repo_root: str | Path | None) -> list[str]:
    """Remove the scratch copies of this repo whose owner is gone: forget their worktree (by its path)
    and delete their temp folder. Returns the temp folders removed. Never raises."""
    reg = registry_dir(repo_root)
    if not _safe_dir(reg):
        return []
    removed: list[str] = []
    for f in sorted(reg.glob(f"{SCRATCH_PREFIX}*.json")):
        try:
            if f.is_symlink() or f.stat().st_size > REGISTRY_MAX_BYTES:
                f.unlink(missing_ok=True)
                continue
            rec = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            f.unlink(missing_ok=True)
            continue
        if not isinstance(rec, dict):
            f.unlink(missing_ok=True)
            continue
        if _owner_alive(rec):
            continue
        tmp = _ours(rec.get("tmp"))
        if tmp is not None:
            wt, top = rec.get("worktree"), rec.get("top")
            if isinstance(wt, str) and isinstance(top, str) and Path(wt).parent == tmp and os.path.isdir(top):
                remove_worktree(top, wt)
            shutil.rmtree(tmp, ignore_errors=True)
            removed.append(str(tmp))
        f.unlink(missing_ok=True)
    return removed


def _close_all() -> None:
    """Close every copy still open in this process (interpreter exit), once the checks running in
    them are ended."""
    cancel_all()
    for wt in list(_open.values()):
        try:
            wt.close()
        except Exception:  # noqa: BLE001 - at exit: remove what can be removed
            pass


atexit.register(_close_all)


def _split_snippet(snippet: str) -> tuple[list[str], list[str]]:
    parts, anchors, cur = [], [], []
    for ln in snippet.splitlines(keepends=True):
        m = _ANCHOR.match(ln)
        if m:
            parts.append("".join(cur))
            anchors.append(m.group(1))
            cur = []
        else:
            cur.append(ln)
    parts.append("".join(cur))
    return parts, anchors


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


def _find_anchors(text: str, anchors: list[str]) -> list[tuple[int, int]] | None:
    """0-based (first, last) line of each anchor's statement, in order, or None when one is missing.

    An anchor matches a line holding it exactly (spaces ignored), else a line calling the same
    method (`.backward(`, `.step(`) after the previous anchor: `opt.step()` for `optimizer.step()`.
    """
    lines = text.splitlines()
    norm = [_norm(x.split("#", 1)[0]) for x in lines]
    ends = _statement_ends(text, len(lines))
    out, after = [], 0
    for a in anchors:
        key = _norm(a)
        meth = re.search(r"(\.\w+\()", key)
        hit = next((i for i in range(after, len(lines)) if key and key in norm[i]), None)
        if hit is None and meth:
            hit = next((i for i in range(after, len(lines)) if meth.group(1) in norm[i]), None)
        if hit is None:
            return None
        out.append((hit, ends.get(hit, hit)))
        after = ends.get(hit, hit) + 1
    return out


def _statement_ends(text: str, n: int) -> dict[int, int]:
    """0-based first line -> last line of each simple statement (multi-line calls), when the file parses."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not hasattr(node, "body") and node.end_lineno:
            out[node.lineno - 1] = min(node.end_lineno - 1, n - 1)
    return out


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def _block(text: str, indent: str) -> list[str]:
    """text re-indented to `indent` (its own common indentation removed), with a marker line first."""
    body = textwrap.dedent(text).strip("\n")
    return [indent + _MARK + "\n"] + [(indent + ln if ln.strip() else "") + "\n" for ln in body.splitlines()]


def _must(r: GitResult) -> GitResult:
    """r, or ScratchError with git's reason when it failed."""
    if not r.ok:
        raise ScratchError(r.error)
    return r
