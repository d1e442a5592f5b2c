"""Git, in one place: the repo root, reading commits and diffs, applying diffs, scratch worktrees,
the commit a session records, committing a fix, and making the demo repo.

    find_repo_root(start=None) -> Path | None        the nearest folder at or above start holding `.git`
    git_dir(repo_root) -> Path | None                where `info/exclude` lives (follows worktree files)
    run_git(cwd, *args, input=None, timeout=None, max_bytes=None) -> GitResult      never raises
    output(cwd, *args) -> str | None                 stdout of a command that succeeded
    has_commit / resolve_commit / file_at / changed_files / untracked_files / dirty_files
    apply_diff(root, diff, reverse=False, check_only=False) -> None | why it does not apply
    add_worktree(top, dest) / remove_worktree(top, path)
    head_state(root) -> {commit, branch, dirty}      (GitPython)
    commit_only(top, rels, message) -> sha           (GitPython; GitError with git's reason)
    init_repo(dest, identity, message)               (GitPython)

In: folders in a work tree, revisions, paths relative to the folder given. Out: text decoded as
UTF-8 (undecodable bytes replaced), file names decoded like the OS does, or None / False when
git cannot answer (no git on PATH, not a repo, git refused). Only commit_only, init_repo and
head_state raise (GitError, one line).

Plain commands run git as a subprocess, on purpose: `import git` (GitPython) costs 37-47 ms
(measured with -X importtime, GitPython 3.2.1 in this project's venv), which every `mltdbg
diagnose` would pay for one `git show` in the verifier; it raises ImportError outright when no
git executable is on PATH; for commands its wrapper spawns the same `git` process (1.3 ms vs
1.1 ms per rev-parse, measured) and strips stdout's last newline, which a diff or `git show`
must keep; `git apply` reads the patch on stdin and `git worktree` has no object API, so
through GitPython both would be the same command line. GitPython is used where its object
model is the point: HEAD and the branch read from the refs, the dirty flag, a commit with
git's reasons as errors, init with a local identity; it is imported inside those functions.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

NO_GIT = 127        # the exit code a shell gives for a command it cannot find
TIMED_OUT = 124     # the exit code coreutils' `timeout` gives


class GitError(Exception):
    """Git could not do what was asked; the message is one line for the user."""


@dataclass(frozen=True)
class GitResult:
    """What one git command did: exit code, stdout and stderr (decoded, replacement characters for bad bytes)."""

    args: tuple[str, ...]
    code: int
    out: str
    err: str
    raw: bytes = b""            # stdout as bytes (file names, exact file contents)
    truncated: bool = False     # stdout passed max_bytes: git was stopped, `out` holds the first max_bytes

    @property
    def ok(self) -> bool:
        return self.code == 0

    @property
    def error(self) -> str:
        """Which command failed and git's reason."""
        return f"git {' '.join(self.args[:2])} failed: {self.err.strip() or self.out.strip() or f'exit {self.code}'}"


def run_git(cwd: str | Path, *args: str, input: str | None = None, timeout: float | None = None,
            max_bytes: int | None = None) -> GitResult:
    """Run `git args` in cwd (stdin: input, else nothing). Never raises: no git on PATH gives NO_GIT, a
    timeout (seconds; None waits) TIMED_OUT. Callers pass their own timeout where they had one.
    max_bytes: keep at most this much of stdout; past it git is stopped and the result is `truncated`
    (code 0: what was read is good, only incomplete), so a diff of a huge file cannot fill memory."""
    if max_bytes is not None and input is None:
        return _run_git_capped(cwd, args, timeout, max_bytes)
    try:
        p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=timeout,
                           input=input.encode("utf-8") if input is not None else None,
                           stdin=subprocess.DEVNULL if input is None else None)
    except subprocess.TimeoutExpired:
        return GitResult(args, TIMED_OUT, "", f"timed out after {timeout:g} s")
    except OSError as e:
        return GitResult(args, NO_GIT, "", f"cannot run git in {cwd}: {e.strerror or e}")
    return GitResult(args, p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"),
                     p.stdout)


def _run_git_capped(cwd: str | Path, args: tuple[str, ...], timeout: float | None, max_bytes: int) -> GitResult:
    """run_git reading stdout as it comes and stopping git once max_bytes are in."""
    try:
        p = subprocess.Popen(["git", *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    except OSError as e:
        return GitResult(args, NO_GIT, "", f"cannot run git in {cwd}: {e.strerror or e}")
    chunks: list[bytes] = []
    err: list[bytes] = []
    state = {"n": 0, "cut": False}

    def pump_out() -> None:
        while True:
            b = p.stdout.read(1 << 16)
            if not b:
                return
            room = max_bytes - state["n"]
            chunks.append(b[:room])
            state["n"] += min(len(b), room)
            if len(b) > room:
                state["cut"] = True
                p.kill()
                return

    threads = [threading.Thread(target=pump_out, daemon=True),
               threading.Thread(target=lambda: err.append(p.stderr.read(1 << 20)), daemon=True)]
    for t in threads:
        t.start()
    try:
        code = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return GitResult(args, TIMED_OUT, "", f"timed out after {timeout:g} s")
    finally:
        for t in threads:
            t.join(timeout=5)
        p.stdout.close()
        p.stderr.close()
    raw = b"".join(chunks)
    if state["cut"]:
        code = 0
    return GitResult(args, code, raw.decode("utf-8", "replace"), b"".join(err).decode("utf-8", "replace"), raw,
                     truncated=state["cut"])


def output(cwd: str | Path, *args: str, timeout: float | None = None) -> str | None:
    """stdout of `git args` in cwd, or None when it failed."""
    r = run_git(cwd, *args, timeout=timeout)
    return r.out if r.ok else None


# ----- where the repo is ------------------------------------------------------------------------
def resolved(path: str | Path) -> Path:
    """`path` made absolute with its links followed; a symlink loop (Path.resolve raises
    RuntimeError for one before Python 3.13, OSError after) stays as its absolute path, so the
    reader can name it in a warning instead of the caller failing with a traceback."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(path))


def find_repo_root(start: str | Path | None = None) -> Path | None:
    """The nearest folder at or above start (default: the current folder; a file: its folder) holding
    `.git` (a folder, or the file a worktree or submodule has), resolved; None outside any repo.

    It reads the file system only (no git process, works without git installed). A `.git` that git
    itself would reject still counts: what follows (a diff, an apply, a commit) then fails there
    instead of acting on an outer repo.
    """
    p = resolved(start if start is not None else os.getcwd())
    for d in (p, *p.parents):
        if (d / ".git").exists():
            return d
    return None


def main_repo_root(repo_root: Path) -> Path:
    """The main checkout of a linked worktree (the folder holding the shared git dir), so state
    written while a check runs in mltdbg's scratch worktree lands in the user's repo; `repo_root`
    itself otherwise."""
    if (repo_root / ".git").is_dir():
        return repo_root
    gd = git_dir(repo_root)
    return gd.parent if gd is not None and gd.name == ".git" else repo_root


def git_dir(repo_root: Path) -> Path | None:
    """The repo's git dir where `info/exclude` lives (follows a worktree's `.git` file to the main repo)."""
    dot = repo_root / ".git"
    if dot.is_dir():
        return dot
    try:
        text = dot.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.match(r"gitdir:\s*(.+)", text.strip())
    if not m:
        return None
    gd = Path(m.group(1).strip())
    gd = gd if gd.is_absolute() else (repo_root / gd).resolve()
    common = gd / "commondir"   # worktrees share info/exclude with the main repo
    if common.exists():
        c = Path(common.read_text().strip())
        gd = c if c.is_absolute() else (gd / c).resolve()
    return gd


# ----- reading ----------------------------------------------------------------------------------
def has_commit(root: str | Path) -> bool:
    """Whether root is in a git work tree whose HEAD points at a commit."""
    return run_git(root, "rev-parse", "--verify", "-q", "HEAD").ok


def resolve_commit(root: str | Path, rev: str, timeout: float | None = None) -> str | None:
    """The full sha rev names (`HEAD~1`, a short sha), or None."""
    out = output(root, "rev-parse", "--verify", "-q", rev, timeout=timeout)
    return (out.strip() or None) if out is not None else None


def file_at(root: str | Path, rev: str, path: str, timeout: float | None = None) -> str | None:
    """A file's text as it was at commit rev; path is relative to root (which may be below the git top).
    None when git does not have it, or path is absolute or climbs out with `..`."""
    if path.startswith("/") or ".." in Path(path).parts:
        return None
    return output(root, "show", f"{rev}:./{path}", timeout=timeout)


def _names(r: GitResult) -> list[str]:
    return [os.fsdecode(x) for x in r.raw.split(b"\0") if x] if r.ok else []


def changed_files(top: str | Path) -> list[str]:
    """Tracked files changed against HEAD (staged or not; deleted ones too), relative to top."""
    return _names(run_git(top, "diff", "--name-only", "-z", "--no-renames", "HEAD"))


def untracked_files(top: str | Path) -> list[str]:
    """Untracked files that are not ignored, relative to top."""
    return _names(run_git(top, "ls-files", "--others", "--exclude-standard", "-z"))


def dirty_files(root: str | Path, files: Iterable[str]) -> list[str]:
    """Which of files (relative to root) have uncommitted changes, as `git status` names them."""
    r = run_git(root, "status", "--porcelain", "--", *files)
    return [ln[3:] for ln in r.out.splitlines() if ln.strip()] if r.ok else []


# ----- writing ----------------------------------------------------------------------------------
def apply_diff(root: str | Path, diff: str, reverse: bool = False, check_only: bool = False) -> str | None:
    """`git apply` a unified diff (paths relative to root, the work tree's top) from stdin: None when it
    applied (or, with check_only, would apply), else git's reason. Checking writes nothing."""
    args = ["apply", "--whitespace=nowarn"] + (["-R"] if reverse else []) + (["--check"] if check_only else []) + ["-"]
    r = run_git(root, *args, input=diff)
    if r.ok:
        return None
    return r.err.strip() or ("git apply --check failed" if check_only else f"git apply failed (exit {r.code})")


def add_worktree(top: str | Path, dest: str | Path) -> GitResult:
    """`git worktree add --detach dest HEAD`: a checkout of HEAD at dest, registered with the repo."""
    return run_git(top, "worktree", "add", "--detach", str(dest), "HEAD")


def remove_worktree(top: str | Path, path: str | Path) -> None:
    """Remove a worktree made by add_worktree and forget it: `worktree remove --force path` (which also
    forgets a worktree whose folder is already gone). Only that worktree: never `git worktree prune`,
    which would forget every worktree of the user's whose folder is missing (an unmounted disk, say).
    Where git cannot remove it, the registration that names exactly this path is removed instead."""
    r = run_git(top, "worktree", "remove", "--force", str(path))
    if r.ok or r.code == NO_GIT:
        return
    gd = git_dir(Path(top))
    target = os.path.normpath(os.path.join(os.path.abspath(path), ".git"))
    for admin in (gd / "worktrees").iterdir() if gd is not None and (gd / "worktrees").is_dir() else ():
        try:
            named = (admin / "gitdir").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if os.path.normpath(named) == target and not Path(path).exists():
            shutil.rmtree(admin, ignore_errors=True)


# ----- GitPython: the object model --------------------------------------------------------------
def _gitpython() -> Any:
    try:
        import git  # noqa: PLC0415 - GitPython: ~40 ms to import, and ImportError without a git executable
    except ImportError as e:
        raise GitError(f"git is not available: {str(e).strip().splitlines()[0] if str(e).strip() else e!r}") from e
    return git


def head_state(root: str | Path) -> dict[str, Any]:
    """{commit: sha or None (no commit yet), branch: name or None (detached), dirty: tracked files changed}
    for the repo whose top is root. GitError when there is no repo or git cannot read it."""
    git = _gitpython()
    try:
        with git.Repo(root) as repo:
            try:
                sha = repo.head.commit.hexsha
            except ValueError:            # no commit yet
                sha = None
            try:
                branch = repo.active_branch.name
            except TypeError:             # detached HEAD
                branch = None
            # dirty = tracked files changed; untracked files (checkpoints, logs) are the norm in ML repos
            return {"commit": sha, "branch": branch, "dirty": repo.is_dirty(untracked_files=False)}
    except Exception as e:  # noqa: BLE001 - not a repo, a broken repo, permissions: one message
        raise GitError(str(e) or type(e).__name__) from e


def commit_only(top: str | Path, rels: list[str], message: str) -> str:
    """One commit holding exactly rels (relative to top): `git add -- rels`, then `git commit --only -- rels`,
    so anything else already staged stays staged and out of it. Returns the new sha; GitError with
    git's reason (no identity, nothing changed, a hook refused)."""
    git = _gitpython()
    try:
        with git.Repo(top) as repo:
            repo.git.add("--", *rels)
            repo.git.commit("-m", message, "--only", "--", *rels)
            return repo.head.commit.hexsha
    except git.GitCommandError as e:
        why = (e.stderr or e.stdout or str(e)).strip().replace("stderr: ", "").strip("' \n")
        if "Please tell me who you are" in why or "user.email" in why:
            why = "git has no identity here: set user.name and user.email (git config) and commit again"
        elif "nothing to commit" in why or "no changes added" in why:
            why = "nothing to commit: the files are unchanged"
        raise GitError(why.splitlines()[-1] if why else str(e)) from e
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as e:
        raise GitError(f"{top} is not a git repo") from e


def init_repo(dest: str | Path, identity: dict[str, str], message: str) -> None:
    """`git init` dest, set identity (`section.option` -> value) in its local config, and commit everything in it."""
    git = _gitpython()
    with git.Repo.init(dest) as repo:
        with repo.config_writer() as cw:
            for key, value in identity.items():
                section, option = key.split(".")
                cw.set_value(section, option, value)
        repo.git.add("--all")
        repo.git.commit("-m", message)
