"""The lesson: one line in CLAUDE.md, and one commit holding exactly the fix, its test and the lesson.

    entry = lesson_entry(date.today(), "Gradients accumulated across steps (zero_grad missing)",
                         "a climbing grad_norm, not by a test", "test_grads_do_not_accumulate",
                         "an lr=0 test that checks grads repeat across steps catches accumulation")
    append_lesson(repo, entry, session=s)           # under "## Things that have bitten us"
    sha = commit_fix(repo, ["train.py", "tests/test_grads.py", "CLAUDE.md"], "Fix: ...", session=s)

commit_fix stages only the files given (never `git add -A`): other dirty files stay
as they are, staged or not, and out of the commit.

The lesson step starts from a draft made from the session (no UI needed to test it):
    draft = lesson_draft(session.state, hypothesis_id, date.today())
    draft.entry, draft.message, draft.files      # CLAUDE.md line, commit message, the fix's files + its test
split_lesson(playbook_lesson) -> (what, how caught, lesson) reads a playbook's `lesson` text.
"""
from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterable

from mltdbg.analyzers.common.gitrepo import GitError, commit_only, find_repo_root
from mltdbg.sessions.fixgate import added_text, first_test_name
from mltdbg.sessions.state import SessionState

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
    root = Path(repo_root).resolve()
    top = find_repo_root(root) if root.is_dir() else None
    if top is None:
        raise NotAGitRepo(f"{root} is not in a git repo: the fix cannot be committed; the lesson can still be "
                          f"written to {LESSON_FILE}")
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
        sha = commit_only(top, rels, msg)
    except GitError as e:
        raise LessonError(f"commit failed: {e}") from e
    if session is not None:
        session.append("commit_made", {"sha": sha, "message": msg, "files": [str(top / r) for r in rels]})
    return sha


def commit_message(bug: str, hypothesis_id: str | None = None, test_name: str | None = None,
                   verified: bool | None = True) -> str:
    """A commit message that names the bug: a short subject, then what the commit holds. `verified` is
    the latest verification round's result (SessionState.verified): the test is said to catch the bug
    only when it passed; a failed or missing verification is said plainly."""
    subject = "Fix: " + " ".join(bug.split()).rstrip(".")
    subject = subject if len(subject) <= 72 else subject[:69].rstrip() + "..."
    body = []
    if hypothesis_id:
        body.append(f"Root cause: {hypothesis_id} (diagnosed with mltdbg).")
    if not test_name:
        body.append("No test was added for this fix.")
    elif verified:
        body.append(f"Adds {test_name}, which would have caught it.")
    else:
        body.append(f"Adds {test_name}.")
    if verified is False:
        body.append("Not verified: the latest verification failed.")
    elif verified is None:
        body.append("Not verified: no verification ran after the fix was applied.")
    body.append(f"Lesson recorded in {LESSON_FILE}.")
    return subject + "\n\n" + "\n".join(body) + "\n"


# ----- the draft the lesson step starts from ------------------------------------------------------
@dataclass
class LessonDraft:
    entry: str                 # the CLAUDE.md line (the recorded one once a lesson was written)
    message: str               # the commit message
    files: list[str]           # the applied fix's files and its written test (CLAUDE.md is added on commit)
    test_name: str | None      # the test the commit carries, if any


def split_lesson(text: str) -> tuple[str, str, str]:
    """A playbook lesson "What. Caught from X. Added T. Lesson: L." -> (what, how caught, lesson)."""
    what, how, lesson = text, "", ""
    if "Lesson:" in text:
        text, lesson = text.split("Lesson:", 1)
    parts = [p.strip() for p in text.replace("\n", " ").split(". ") if p.strip()]
    what = parts[0] if parts else ""
    how = next((p for p in parts if p.lower().startswith("caught")), "")
    return what, how.replace("Caught from", "Caught by"), lesson.strip()


def lesson_files(state: SessionState) -> list[str]:
    """What the commit holds besides CLAUDE.md: the applied fix's files and its test once written."""
    fx = state.fix
    if not (fx and fx.status == "applied"):
        return []
    return list(fx.files) + ([fx.test_file] if fx.test_written and fx.test_file else [])


def lesson_draft(state: SessionState, hypothesis_id: str | None, date: _dt.date | str | None) -> LessonDraft:
    """The lesson line and commit message for the hypothesis the fix was for, from what the session
    recorded: the playbook's lesson, the hypothesis's title, the test written with the fix."""
    h = state.hypothesis(hypothesis_id)
    title = (h.title or h.issue) if h else ""
    fx = state.fix if state.fix and state.fix.status == "applied" else None
    test_name = first_test_name(added_text(fx.test_diff)) if fx and fx.test_written and fx.test_diff else None
    what, how, lesson = split_lesson(h.lesson if h else "")
    entry = (state.lesson or {}).get("text") or lesson_entry(
        date, what or title or "the bug", how or "Caught by mltdbg, not by a test", test_name, lesson)
    message = commit_message(title or str(hypothesis_id), hypothesis_id, test_name, state.verified if fx else True)
    return LessonDraft(entry, message, lesson_files(state), test_name)
