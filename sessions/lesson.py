"""The lesson: one line in CLAUDE.md, and one commit holding exactly the fix, its test and the lesson.

    entry = lesson_entry(date.today(), "Gradients accumulated across steps (zero_grad missing)",
                         "a climbing grad_norm, not by a test", "test_grads_do_not_accumulate",
                         "an lr=0 test that checks grads repeat across steps catches accumulation")
    append_lesson(repo, entry, session=s)           # under "## Things that have bitten us"
    sha = commit_fix(repo, ["train.py", "tests/test_grads.py", "CLAUDE.md"], "Fix: ...", session=s)

commit_fix stages only the files given (never `git add -A`): other dirty files stay
as they are, staged or not, and out of the commit.
"""
from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Any, Iterable

HEADING = "## Things that have bitten us"
LESSON_FILE = "CLAUDE.md"
_HEADING_RX = re.compile(r"^##[ \t]+Things that have bitten us[ \t]*(?=\r?$)", re.I | re.M)
_NEXT_HEADING_RX = re.compile(r"^#{1,2}[ \t]+\S", re.M)


class LessonError(Exception):
    """The lesson or commit could not be written; the message is one line for the user."""


class NotAGitRepo(LessonError):
    """commit_fix outside a git repo: offer to write CLAUDE.md only."""


def _sentence(text: str) -> str:
    """One line, trimmed, ending with exactly one full stop (or ?/!)."""
    s = " ".join(str(text).split()).strip()
    s = s.rstrip(".")
    return s + ("" if s.endswith(("?", "!")) else ".") if s else ""


def lesson_entry(date: _dt.date | str | None, what: str, how_caught: str, test_name: str | None, lesson: str) -> str:
    """One CLAUDE.md bullet in the recipe's format:

    `- (2026-05-04) <what>. Caught by <how>. Added <test_name>. Lesson: <lesson>.`
    how_caught may start with "Caught by" or not; test_name None or "" -> "No test added."; the
    lesson may start with "Lesson:" or not. Newlines become spaces (one line per lesson).
    """
    d = date.isoformat() if isinstance(date, (_dt.date, _dt.datetime)) else (date or _dt.date.today().isoformat())
    d = str(d)[:10]
    how = " ".join(str(how_caught).split())
    if how and not re.match(r"(?i)caught\b", how):
        how = "Caught by " + how
    lesson_s = re.sub(r"(?i)^\s*lesson\s*:\s*", "", str(lesson))
    test = " ".join(str(test_name or "").split())
    parts = [_sentence(what), _sentence(how) if how else "",
             f"Added {test.removesuffix('.')}." if test else "No test added.",
             "Lesson: " + _sentence(lesson_s) if lesson_s.strip() else ""]
    return f"- ({d}) " + " ".join(p for p in parts if p)


def append_lesson(repo_root: str | Path, entry: str, session: Any = None) -> Path:
    """Append entry under `## Things that have bitten us` in repo_root/CLAUDE.md.

    Created if missing; the heading added at the end if missing; otherwise the entry goes after
    the section's last line. Every other byte of the file stays as it was (its line endings are
    used for the new lines). Records lesson_written. Returns the file's path.
    """
    path = Path(repo_root) / LESSON_FILE
    line = " ".join(entry.split())
    line = line if line.startswith("- ") else "- " + line.lstrip("-* ")
    text = path.read_bytes().decode("utf-8", "surrogateescape") if path.exists() else ""
    nl = "\r\n" if "\r\n" in text else "\n"
    m = _HEADING_RX.search(text)
    if m is None:
        # The heading goes at the end, after one blank line; the file's bytes stay a prefix.
        prefix = text if not text or text.endswith("\n") else text + nl
        if prefix.strip() and not prefix.endswith(nl + nl):
            prefix += nl
        new = prefix + HEADING + nl + nl + line + nl
    else:
        # The section ends at the next heading of level 1-2; insert after its last non-blank line.
        nxt = _NEXT_HEADING_RX.search(text, m.end())
        end = nxt.start() if nxt else len(text)
        section = text[m.end():end]
        body_end = m.end() + len(section.rstrip(" \t\r\n"))
        head, rest = text[:body_end], text[body_end:]
        if body_end == m.end():               # empty section: one blank line after the heading
            new = head + nl + nl + line + (rest if rest.startswith(("\n", "\r\n")) else nl + rest)
        else:
            new = head + nl + line + (rest if rest else nl)
    path.write_bytes(new.encode("utf-8", "surrogateescape"))
    if session is not None:
        session.append("lesson_written", {"text": line, "file": str(path.resolve())})
    return path


def commit_fix(repo_root: str | Path, files: Iterable[str | Path], message: str, session: Any = None) -> str:
    """One commit holding exactly `files` (paths relative to repo_root, or absolute inside it).

    Stages only those files (`git add -- files`, then `git commit --only -- files`, so anything
    else already staged stays staged and out of this commit). Returns the new commit's sha and
    records commit_made. Raises NotAGitRepo outside a repo, LessonError when git refuses (no
    identity, nothing changed, a hook failed), with git's reason.
    """
    import git   # GitPython

    root = Path(repo_root).resolve()
    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as e:
        raise NotAGitRepo(f"{root} is not in a git repo: the fix cannot be committed; the lesson can still be "
                          f"written to {LESSON_FILE}") from e
    top = Path(repo.working_tree_dir).resolve()
    rels = []
    for f in files:
        p = Path(f)
        p = (p if p.is_absolute() else root / p).resolve()
        if p != top and top not in p.parents:
            raise LessonError(f"{f} is outside the repo {top}: not committed")
        rels.append(p.relative_to(top).as_posix())
    rels = list(dict.fromkeys(rels))
    if not rels:
        raise LessonError("no files to commit")
    msg = message.strip()
    if not msg:
        raise LessonError("the commit message is empty")
    try:
        repo.git.add("--", *rels)
        repo.git.commit("-m", msg, "--only", "--", *rels)
    except git.GitCommandError as e:
        why = (e.stderr or e.stdout or str(e)).strip().replace("stderr: ", "").strip("' \n")
        if "Please tell me who you are" in why or "user.email" in why:
            why = "git has no identity here: set user.name and user.email (git config) and commit again"
        elif "nothing to commit" in why or "no changes added" in why:
            why = "nothing to commit: the files are unchanged"
        raise LessonError(f"commit failed: {why.splitlines()[-1] if why else e}") from e
    sha = repo.head.commit.hexsha
    if session is not None:
        session.append("commit_made", {"sha": sha, "message": msg, "files": [str(top / r) for r in rels]})
    return sha


def commit_message(bug: str, hypothesis_id: str | None = None, test_name: str | None = None) -> str:
    """A commit message that names the bug: a short subject, then what the commit holds."""
    subject = "Fix: " + " ".join(bug.split()).rstrip(".")
    subject = subject if len(subject) <= 72 else subject[:69].rstrip() + "..."
    body = []
    if hypothesis_id:
        body.append(f"Root cause: {hypothesis_id} (diagnosed with mltdbg).")
    body.append(f"Adds {test_name}, which would have caught it." if test_name else "No test was added for this fix.")
    body.append(f"Lesson recorded in {LESSON_FILE}.")
    return subject + "\n\n" + "\n".join(body) + "\n"
