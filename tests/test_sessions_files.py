"""Session folders are data: a folder copied from someone else (or planted in a repo) must not make
mltdbg write through a link, and the paths it records are checked when read. Real files, real git."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from mltdbg.sessions import Session
from mltdbg.sessions.events import CaptureEdited, FixProposed
from mltdbg.sessions.fixgate import FixGate

from repo_helpers import make_repo

PROFILE = "export PATH=$HOME/bin:$PATH\n"


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"train.py": "print('hi')\n"})


def _closed_session(repo: Path) -> Session:
    s = Session.create(repo, name="shared", environment={"notes": []})
    s.close()
    return s


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.lstat(p).st_mode)


def test_new_session_files_are_owner_only(tmp_path):
    repo = _repo(tmp_path)
    s = Session.create(repo, name="mine", environment={"notes": []})
    s.append(CaptureEdited(field="command", value="python train.py"))
    s.close()
    assert _mode(s.dir) == 0o700
    assert _mode(s.dir.parent) == 0o700 and _mode(s.dir.parent.parent) == 0o700    # sessions/, .mltdbg/
    for name in ("events.jsonl", "lock", "debug.md"):
        assert _mode(s.dir / name) == 0o600, name


def test_a_lock_linked_to_the_profile_is_never_written(tmp_path):
    repo = _repo(tmp_path)
    s = _closed_session(repo)
    profile = tmp_path / "home" / ".profile"
    profile.parent.mkdir()
    profile.write_text(PROFILE)
    (s.dir / "lock").unlink()
    (s.dir / "lock").symlink_to(profile)
    n = len((s.dir / "events.jsonl").read_bytes())

    r = Session.open(s.id, repo)
    r.close()
    assert r.readonly
    assert any("lock is a link" in n for n in r.notices), r.notices
    assert profile.read_text() == PROFILE
    assert len((s.dir / "events.jsonl").read_bytes()) == n          # nothing recorded either


def test_an_events_file_linked_elsewhere_is_neither_truncated_nor_appended(tmp_path):
    repo = _repo(tmp_path)
    s = _closed_session(repo)
    elsewhere = tmp_path / "elsewhere.jsonl"
    # a torn last line: a writable open would truncate it off before appending
    elsewhere.write_bytes((s.dir / "events.jsonl").read_bytes() + b'{"v":1,"seq":9,"t"')
    before = elsewhere.read_bytes()
    (s.dir / "events.jsonl").unlink()
    (s.dir / "events.jsonl").symlink_to(elsewhere)

    r = Session.open(s.id, repo)
    r.close()
    assert r.readonly
    assert any("events.jsonl" in n and "link" in n for n in r.notices), r.notices
    assert elsewhere.read_bytes() == before


def test_an_events_file_hard_linked_elsewhere_is_not_appended(tmp_path):
    repo = _repo(tmp_path)
    s = _closed_session(repo)
    other = tmp_path / "other.jsonl"
    os.link(s.dir / "events.jsonl", other)
    before = other.read_bytes()
    r = Session.open(s.id, repo)
    r.close()
    assert r.readonly and other.read_bytes() == before


def test_a_planted_link_at_the_debug_md_temp_name_is_not_followed(tmp_path):
    repo = _repo(tmp_path)
    s = Session.create(repo, name="mine", environment={"notes": []})
    target = tmp_path / "target.txt"
    target.write_text(PROFILE)
    (s.dir / f".debug.md.{os.getpid()}.tmp").symlink_to(target)
    s.append(CaptureEdited(field="expected", value="loss below 0.8"))
    s.close()
    assert target.read_text() == PROFILE
    assert "loss below 0.8" in (s.dir / "debug.md").read_text()
    assert not (s.dir / "debug.md").is_symlink()


def test_a_git_exclude_linked_elsewhere_is_not_appended(tmp_path):
    repo = _repo(tmp_path)
    target = tmp_path / "profile"
    target.write_text(PROFILE)
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    if exclude.exists():
        exclude.unlink()
    exclude.symlink_to(target)
    s = Session.create(repo, name="mine", environment={"notes": []})
    s.close()
    assert target.read_text() == PROFILE


def _append_raw(path: Path, kind: str, payload: dict) -> None:
    seq = sum(1 for _ in path.open()) + 1
    with path.open("a") as f:
        f.write(json.dumps({"v": 1, "seq": seq, "t": "2026-05-04T10:00:00.000Z", "type": kind, "payload": payload}) + "\n")


def test_a_recorded_path_outside_the_repo_is_refused_with_a_warning_on_every_resume(tmp_path):
    repo = _repo(tmp_path)
    s = Session.create(repo, name="shared", environment={"notes": []})
    s.append(FixProposed(source="user", diff="", files=["train.py"]))
    s.close()
    events = s.dir / "events.jsonl"
    _append_raw(events, "test_added", {"file": "../../../etc/passwd", "diff": "+x\n", "written": False})
    _append_raw(events, "lesson_written", {"text": "t", "file": "/etc/profile"})
    _append_raw(events, "commit_made", {"sha": "abc", "message": "m", "files": ["ok.py", "a/../../x"]})
    for _ in range(2):
        r = Session.open(s.id, repo)
        assert r.state.fix is not None and r.state.fix.test_file is None
        assert r.state.lesson is None and r.state.commits == []
        text = " ".join(r.warnings)
        assert "../../../etc/passwd" in text and "/etc/profile" in text and "refused" in text
        assert any("problem(s) in the log" in n for n in r.notices)
        gate = FixGate.resume(repo, r)          # was: FixError on every resume
        assert gate.test is None
        r.close()
    assert Path("/etc/passwd").exists()
