"""Session folders are data: a folder copied from someone else (or planted in a repo) must not make
mltdbg write through a link, and the paths it records are checked when read. Real files, real git."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from mltdbg.sessions import Session
from mltdbg.sessions.events import ArtifactsChosen, CaptureEdited, FixProposed
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


def test_a_file_name_with_an_undecodable_byte_is_recorded_and_resumes(tmp_path):
    """os.fsdecode turns a byte that is not UTF-8 into a lone surrogate: the event is still written
    (as its JSON escape) and a resume reads back the very same name."""
    repo = _repo(tmp_path)
    name = os.fsdecode(b"runs/loss\xff\\x.log")
    (repo / "runs").mkdir()
    s = Session.create(repo, name="bytes", environment={"notes": []})
    s.append(ArtifactsChosen(paths=[name]))
    s.append(CaptureEdited(field="command", value=f"python train.py --log {name}"))
    s.close()
    json.loads((s.dir / "events.jsonl").read_bytes().splitlines()[-1])          # still strict JSON
    r = Session.open(s.id, repo)
    r.close()
    assert not r.readonly and not r.warnings, (r.notices, r.warnings)
    assert r.state.artifacts == [name]
    assert r.state.capture["command"].endswith(name)
    assert "\\udcff" in (s.dir / "debug.md").read_text()


def test_an_events_file_that_is_a_link_is_not_read(tmp_path):
    """The log of a copied session folder may be a link to any file of the user: it is refused, not read."""
    from mltdbg.sessions.log import read_log
    repo = _repo(tmp_path)
    s = _closed_session(repo)
    real = tmp_path / "real.jsonl"
    real.write_bytes((s.dir / "events.jsonl").read_bytes())
    (s.dir / "events.jsonl").unlink()
    (s.dir / "events.jsonl").symlink_to(real)
    loaded = read_log(s.dir / "events.jsonl", "x/events.jsonl")
    assert loaded.events == [] and loaded.refused == "x/events.jsonl: a symbolic link: not read " \
        "(a session's log is a plain file in its folder)"
    r = Session.open(s.id, repo)
    r.close()
    assert r.readonly and r.state.n_events == 0
    assert r.notices[0] == f"opened read-only: {s.id}/events.jsonl: a symbolic link: not read " \
        "(a session's log is a plain file in its folder)"
    assert real.read_bytes() == (s.dir / "events.jsonl").read_bytes()     # nothing appended either


def test_an_events_file_that_is_a_fifo_does_not_block(tmp_path):
    import threading
    from mltdbg.sessions.errors import SessionError
    from mltdbg.sessions.log import read_log
    repo = _repo(tmp_path)
    s = _closed_session(repo)
    (s.dir / "events.jsonl").unlink()
    os.mkfifo(s.dir / "events.jsonl")
    got: list = []
    t = threading.Thread(target=lambda: got.append(read_log(s.dir / "events.jsonl", "x/events.jsonl")), daemon=True)
    t.start()
    t.join(10)
    assert got, "read_log blocked on a FIFO"
    assert got[0].refused == "x/events.jsonl: not a plain file (a FIFO, device or folder): not read"
    try:                                    # by id: not a session (its log is no plain file); a message, no hang
        Session.open(s.id, repo)
        raise AssertionError("a FIFO log opened as a session")
    except SessionError as e:
        assert "no session" in str(e)


def test_a_writable_open_makes_an_older_version_s_0755_session_private(tmp_path):
    repo = _repo(tmp_path)
    s = _closed_session(repo)
    dirs = [s.dir, s.dir.parent, s.dir.parent.parent]                 # <id>/, sessions/, .mltdbg/
    files = [s.dir / n for n in ("events.jsonl", "lock", "debug.md")]
    for p in dirs:
        os.chmod(p, 0o755)
    for p in files:
        os.chmod(p, 0o644)
    r = Session.open(s.id, repo, readonly=True)                      # a viewer changes nothing
    r.close()
    assert [_mode(p) for p in dirs + files] == [0o755] * 3 + [0o644] * 3
    r = Session.open(s.id, repo)
    r.close()
    assert not r.readonly
    assert [_mode(p) for p in dirs + files] == [0o700] * 3 + [0o600] * 3
    assert _mode(repo) != 0o700                                       # the repo itself is not ours to change


def test_tightening_modes_never_follows_a_link(tmp_path):
    repo = _repo(tmp_path)
    s = _closed_session(repo)
    target = tmp_path / "notes.md"
    target.write_text(PROFILE)
    os.chmod(target, 0o644)
    (s.dir / "debug.md").unlink()
    (s.dir / "debug.md").symlink_to(target)
    r = Session.open(s.id, repo)
    r.close()
    assert not r.readonly and _mode(target) == 0o644 and target.read_text() == PROFILE


def test_a_git_file_pointing_outside_gets_nothing_created_there(tmp_path):
    """A `.git` file whose gitdir: names a folder that is no git dir: no info/exclude is made there."""
    from mltdbg.sessions.store import ensure_excluded
    repo = tmp_path / "repo"
    repo.mkdir()
    target = tmp_path / "elsewhere" / "deep"
    (repo / ".git").write_text(f"gitdir: {target}\n")
    assert ensure_excluded(repo) is False
    assert not (tmp_path / "elsewhere").exists()


def test_a_worktree_git_file_still_excludes_in_the_main_repo(tmp_path):
    import subprocess
    main = tmp_path / "main"
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    subprocess.run(["git", "-C", str(main), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty",
                    "-m", "x"], check=True)
    wt = tmp_path / "wt"
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(wt)], check=True)
    from mltdbg.sessions.store import ensure_excluded
    assert ensure_excluded(wt) is True
    assert "/.mltdbg/" in (main / ".git" / "info" / "exclude").read_text()


def test_a_session_from_elsewhere_is_read_only_until_adopted(tmp_path, monkeypatch):
    """A teammate's session folder copied into my clone: read-only (nothing recorded is acted on) until
    adopted; the adoption is recorded, and later opens are writable."""
    import shutil
    import subprocess
    from mltdbg.sessions import Session
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    theirs, mine = tmp_path / "alice" / "proj", tmp_path / "bob" / "proj"
    for r in (theirs, mine):
        r.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(r)], check=True)
    s = Session.create(theirs, name="shared")
    s.append("capture_edited", {"field": "command", "value": "python train.py"})
    sid = s.id
    s.close()
    shutil.copytree(s.ref.dir, mine / ".mltdbg" / "sessions" / sid)
    ro = Session.open(sid, repo_root=mine)
    assert ro.readonly and any("Adopt it" in n for n in ro.notices)
    n_before = len(ro.state.notes)
    ro.close()
    rw = Session.open(sid, repo_root=mine, adopt=True)
    assert not rw.readonly and rw.state.root == str(mine.resolve()) and len(rw.state.notes) == n_before + 1
    rw.close()
    again = Session.open(sid, repo_root=mine)
    assert not again.readonly
    again.close()
    home = Session.open(sid, repo_root=theirs)      # the original stays writable where it was recorded
    assert not home.readonly
    home.close()
