"""Unified diffs as fixes: the Patch type, and applying or reverting exactly one under a repo root.

    p = Patch(diff=unified_diff("train.py", old, new), files=["train.py"], summary="halve the lr")
    apply_patch(repo_root, p)      # writes exactly that diff, or PatchError and nothing changed
    revert_patch(repo_root, p)     # undoes it, or PatchError when the files changed since

In: a git-style unified diff with `a/` `b/` paths relative to repo_root. At the top of a git work
tree the diff goes through `git apply` (checked first, so a failing diff writes nothing); anywhere
else (outside git, or a folder below the work tree's top, where git would read the paths from the
top) a strict pure-Python apply that refuses when any context line does not match and writes only
once every file matched. Used by the codemod recipes (playbooks) and the fix gate (sessions).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

from mltdbg.analyzers.common.gitrepo import apply_diff, find_repo_root


@dataclass
class Patch:
    """A fix as a diff: the diff text, the files it touches (relative to the repo root), a one-line summary."""

    diff: str                          # unified diff, a/ b/ paths relative to repo_root
    files: list[str] = field(default_factory=list)
    summary: str = ""


class PatchError(RuntimeError):
    """The patch does not apply to the files as they are now."""


def unified_diff(rel: str, old: str, new: str) -> str:
    """A git-style unified diff of one file, with the no-newline-at-end marker when needed."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    # difflib compares only the changed middle and a margin: lines both sides share at the start and
    # the end are not in any hunk (a codemod edits a few lines of a file of thousands). A hunk that
    # reaches the margin's edge (difflib aligned a repeated line differently) is diffed in full.
    ctx, lo, hi = 3, 0, 0
    while lo < min(len(a), len(b)) and a[lo] == b[lo]:
        lo += 1
    while hi < min(len(a), len(b)) - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    lo, hi = max(0, lo - ctx - 1), max(0, hi - ctx - 1)
    wa = a[lo:len(a) - hi]
    lines = list(difflib.unified_diff(wa, b[lo:len(b) - hi], f"a/{rel}", f"b/{rel}", n=ctx))
    for h in (x for x in lines if x.startswith("@@")):
        m = _HUNK.match(h)
        if m is None:
            continue
        start, n = int(m[1]), int(m[2]) if m[2] is not None else 1
        if (lo and start <= 1) or (hi and start + max(n, 1) - 1 >= len(wa)):
            lo, lines = 0, list(difflib.unified_diff(a, b, f"a/{rel}", f"b/{rel}", n=ctx))
            break
    out = [f"diff --git a/{rel} b/{rel}\n"]
    for line in lines:
        if line.startswith("@@") and lo:     # the hunk's start lines, counted from the file's top
            out.append(_HUNK.sub(lambda m: f"@@ -{int(m[1]) + lo}{',' + m[2] if m[2] is not None else ''}"
                                           f" +{int(m[3]) + lo}{',' + m[4] if m[4] is not None else ''} @@", line))
        elif line.startswith(("---", "+++")):
            out.append(line.rstrip("\n") + "\n")
        elif not line.endswith("\n"):
            out.append(line + "\n\\ No newline at end of file\n")
        else:
            out.append(line)
    return "".join(out)


def apply_patch(repo_root: str | Path, patch: Patch) -> None:
    """Apply exactly `patch` under repo_root; PatchError (nothing changed) when it does not apply."""
    _apply(Path(repo_root), patch.diff, reverse=False)


def revert_patch(repo_root: str | Path, patch: Patch) -> None:
    """Undo `patch` (applied earlier) under repo_root; PatchError when the files no longer match it."""
    _apply(Path(repo_root), patch.diff, reverse=True)


def applies(repo_root: str | Path, diff: str, reverse: bool = False) -> bool:
    """Whether `git apply --check` accepts diff in repo_root (reverse: whether it is there to undo). Writes nothing."""
    return apply_diff(repo_root, diff, reverse=reverse, check_only=True) is None


def _apply(root: Path, diff: str, reverse: bool) -> None:
    if find_repo_root(root) == root.resolve():
        why = apply_diff(root, diff, reverse=reverse, check_only=True)
        if why is not None:
            raise PatchError(why)
        why = apply_diff(root, diff, reverse=reverse)
        if why is not None:
            raise PatchError(why)
        return
    _apply_pure(root, diff, reverse)


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _parse(diff: str) -> list[tuple[str, list[tuple[int, int, list[str], list[str]]], bool, bool]]:
    """Per file: (path, hunks as (old_start, new_start, old_lines, new_lines), old_no_eol, new_no_eol)."""
    files = []
    lines = diff.splitlines(keepends=True)
    i = 0
    cur = None
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("--- "):
            path = lines[i + 1][4:].rstrip("\n")
            path = path[2:] if path.startswith("b/") else path
            cur = [path, [], False, False]
            files.append(cur)
            i += 2
            continue
        m = _HUNK.match(ln)
        if m and cur is not None:
            old, new, last = [], [], None
            i += 1
            while i < len(lines) and not lines[i].startswith(("@@", "diff --git", "--- ")):
                t = lines[i]
                if t.startswith("\\"):
                    if last in ("-", " "):
                        old[-1] = old[-1].rstrip("\n")
                        cur[2] = True
                    if last in ("+", " "):
                        new[-1] = new[-1].rstrip("\n")
                        cur[3] = True
                elif t[:1] == " ":
                    old.append(t[1:])
                    new.append(t[1:])
                elif t[:1] == "-":
                    old.append(t[1:])
                elif t[:1] == "+":
                    new.append(t[1:])
                last = t[:1]
                i += 1
            cur[1].append((int(m.group(1)), int(m.group(3)), old, new))
            continue
        i += 1
    return [tuple(x) for x in files]


def _apply_pure(root: Path, diff: str, reverse: bool) -> None:
    results = {}
    for path, hunks, _, _ in _parse(diff):
        p = (root / path)
        if not p.resolve().is_relative_to(root.resolve()):
            raise PatchError(f"{path}: outside the repository")
        try:
            text = p.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise PatchError(f"{path}: cannot read ({e})")
        lines = text.splitlines(keepends=True)
        shift = 0
        for old_start, new_start, old, new in hunks:
            start = old_start
            if reverse:    # match the new side, put the old side back
                old, new, start = new, old, new_start
            at = max(start - 1, 0) + shift if old else start + shift
            if lines[at: at + len(old)] != old:
                at = _find_exact(lines, old, start - 1 + shift)
            if at is None:
                raise PatchError(f"{path}: hunk at line {start} does not match the file")
            lines[at: at + len(old)] = new
            shift += len(new) - len(old)
        results[p] = "".join(lines)
    for p, t in results.items():    # write only once every file matched
        p.write_bytes(t.encode("utf-8"))


def _find_exact(lines: list[str], block: list[str], near: int) -> int | None:
    """Start index of `block` in `lines` closest to `near` (exact match, no fuzz)."""
    n = len(block)
    hits = [i for i in range(0, len(lines) - n + 1) if lines[i: i + n] == block]
    if not hits:
        return None
    return min(hits, key=lambda i: abs(i - near))
