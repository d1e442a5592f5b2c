"""Lesson lines in CLAUDE.md and the one commit holding exactly the fix, its test and the lesson."""
from __future__ import annotations

import datetime as dt

import git as gitpython
import pytest

from mltdbg.sessions import Session
from mltdbg.sessions.lesson import (HEADING, LessonError, NotAGitRepo, append_lesson, commit_fix, commit_message,
                                    lesson_entry)
from repo_helpers import git, make_repo

RECIPE = ("- (2026-05-04) Off-by-one in DataLoader dropped the last sample of every epoch. Caught by a stack-trace "
          "error, not by a test. Added test_last_sample_included. Lesson: every loader needs a length-preservation test.")


def test_entry_in_the_recipe_format():
    assert lesson_entry(dt.date(2026, 5, 4), "Off-by-one in DataLoader dropped the last sample of every epoch",
                        "a stack-trace error, not by a test", "test_last_sample_included",
                        "every loader needs a length-preservation test") == RECIPE
    # Already-punctuated parts, "Caught by"/"Lesson:" prefixes and newlines give the same line.
    assert lesson_entry("2026-05-04", "Off-by-one in DataLoader dropped the last sample\nof every epoch.",
                        "Caught by a stack-trace error, not by a test.", "test_last_sample_included",
                        "Lesson: every loader needs a length-preservation test.") == RECIPE


def test_entry_without_a_test_says_so():
    e = lesson_entry("2026-05-04", "lr too high", "a NaN loss", None, "smoke-test the lr")
    assert e == "- (2026-05-04) lr too high. Caught by a NaN loss. No test added. Lesson: smoke-test the lr."


def test_claude_md_created_when_missing(tmp_path):
    p = append_lesson(tmp_path, RECIPE)
    assert p == tmp_path / "CLAUDE.md"
    assert p.read_text() == f"{HEADING}\n\n{RECIPE}\n"


def test_heading_added_at_the_end_keeping_the_file(tmp_path):
    original = b"# proj\n\nSome notes\n- keep me\n"
    (tmp_path / "CLAUDE.md").write_bytes(original)
    text = append_lesson(tmp_path, RECIPE).read_bytes()
    assert text == original + f"\n{HEADING}\n\n{RECIPE}\n".encode()
    # A file without a final newline keeps all its bytes too.
    (tmp_path / "CLAUDE.md").write_bytes(b"# proj\nno newline at end")
    assert append_lesson(tmp_path, RECIPE).read_bytes() == b"# proj\nno newline at end\n\n" + f"{HEADING}\n\n{RECIPE}\n".encode()


def test_entry_goes_at_the_end_of_the_existing_section(tmp_path):
    before = ("# proj\n\nintro  \n\n## Things that have bitten us\n\n- (2026-01-01) old one.\n\n"
              "## Commands\n\n```\npython train.py\n```\n")
    (tmp_path / "CLAUDE.md").write_text(before)
    after = append_lesson(tmp_path, RECIPE).read_text()
    assert after == before.replace("- (2026-01-01) old one.\n", f"- (2026-01-01) old one.\n{RECIPE}\n")
    # A second lesson follows the first; the rest is unchanged.
    after2 = append_lesson(tmp_path, "- second")
    assert after2.read_text() == after.replace(f"{RECIPE}\n", f"{RECIPE}\n- second\n")


def test_empty_section_and_crlf_files(tmp_path):
    (tmp_path / "CLAUDE.md").write_bytes(b"# p\r\n\r\n## Things that have bitten us\r\n\r\n## Next\r\nx\r\n")
    out = append_lesson(tmp_path, "- one").read_bytes()
    assert out == b"# p\r\n\r\n## Things that have bitten us\r\n\r\n- one\r\n\r\n## Next\r\nx\r\n"


def test_commit_holds_only_the_fix_files(tmp_path):
    repo = make_repo(tmp_path / "r", {"train.py": "lr = 1\n", "README.md": "readme\n", "other.py": "x = 1\n"})
    s = Session.create(repo, environment={"notes": "test"})
    (repo / "train.py").write_text("lr = 0.5\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_lr.py").write_text("def test_lr():\n    pass\n")
    (repo / "README.md").write_text("my unrelated edit\n")       # dirty, unstaged: must stay so
    (repo / "other.py").write_text("x = 2\n")
    git(repo, "add", "other.py")                                  # staged by the user: stays staged, not committed
    (repo / "untracked.txt").write_text("u\n")
    append_lesson(repo, RECIPE, session=s)
    msg = commit_message("lr too high made the loss diverge", "lr_too_high", "test_lr")
    sha = commit_fix(repo, ["train.py", "tests/test_lr.py", repo / "CLAUDE.md"], msg, session=s)
    r = gitpython.Repo(repo)
    c = r.commit(sha)
    assert r.head.commit.hexsha == sha and len(c.parents) == 1
    assert sorted(c.stats.files) == ["CLAUDE.md", "tests/test_lr.py", "train.py"]
    assert c.message.startswith("Fix: lr too high made the loss diverge\n")
    assert sorted(git(repo, "status", "--porcelain").splitlines()) == sorted(["M  other.py", " M README.md", "?? untracked.txt"])
    assert (repo / "README.md").read_text() == "my unrelated edit\n"
    assert s.state.lesson["text"] == RECIPE and s.state.lesson["file"] == "CLAUDE.md"
    assert s.state.commits[-1]["sha"] == sha
    assert sorted(s.state.commits[-1]["files"]) == ["CLAUDE.md", "tests/test_lr.py", "train.py"]
    s.close()


def test_commit_outside_git_says_so_and_claude_md_still_works(tmp_path):
    (tmp_path / "train.py").write_text("x\n")
    with pytest.raises(NotAGitRepo, match="not in a git repo"):
        commit_fix(tmp_path, ["train.py"], "Fix: x")
    assert append_lesson(tmp_path, RECIPE).read_text().endswith(RECIPE + "\n")


def test_commit_with_nothing_changed_is_a_clear_error(tmp_path):
    repo = make_repo(tmp_path / "r", {"train.py": "lr = 1\n"})
    with pytest.raises(LessonError, match="commit failed: nothing to commit"):
        commit_fix(repo, ["train.py"], "Fix: nothing")
    with pytest.raises(LessonError, match="outside the repo"):
        commit_fix(repo, [tmp_path / "elsewhere.py"], "Fix: x")


def test_the_commit_message_follows_the_latest_verification():
    ok = commit_message("lr too high", "lr_too_high", "test_lr", verified=True)
    assert "Adds test_lr, which would have caught it." in ok and "Not verified" not in ok
    failed = commit_message("lr too high", "lr_too_high", "test_lr", verified=False)
    assert "would have caught" not in failed and "Adds test_lr." in failed
    assert "Not verified: the latest verification failed." in failed
    assert "no verification ran" in commit_message("lr too high", None, None, verified=None)
