"""Scratch copies left by a crash are found by their record and removed on the next start, and only
they: the user's own worktrees are never pruned, and a record planted in a repo (or a symlink) cannot
aim the deletion anywhere else. Checks record their process group (sessions/checks.py)."""
from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from mltdbg.sessions import Session
from mltdbg.sessions.checks import CheckRun, process_start
from mltdbg.sessions.scratch import SCRATCH_PREFIX, ScratchWorktree, cleanup_stale, registry_dir
from repo_helpers import git, make_repo

ADV = Path(__file__).resolve().parent / "adversarial"


def _worktrees(repo: Path) -> list[str]:
    return [ln.split(" ", 1)[1] for ln in git(repo, "worktree", "list", "--porcelain").splitlines()
            if ln.startswith("worktree ")]


def _crash_with_a_copy_open(repo: Path) -> Path:
    """A real process opens a scratch copy and dies without closing it (as a crashed app does)."""
    code = ("import os, sys\nfrom mltdbg.sessions.scratch import ScratchWorktree\n"
            "wt = ScratchWorktree(sys.argv[1]).open()\nprint(wt.tmp, flush=True)\nos._exit(1)\n")
    p = subprocess.run([sys.executable, "-c", code, str(repo)], capture_output=True, text=True, timeout=60)
    return Path(p.stdout.strip())


def test_a_crash_leaves_a_copy_the_next_start_removes(tmp_path):
    repo = make_repo(tmp_path / "repo", {"train.py": "print('x')\n"})
    left = _crash_with_a_copy_open(repo)
    assert left.name.startswith(SCRATCH_PREFIX) and left.is_dir()
    assert len(_worktrees(repo)) == 2                                   # the attack: a registered worktree left
    assert any(registry_dir(repo).iterdir())
    with ScratchWorktree(repo) as wt:                                   # the next start
        assert not left.exists()
        assert len(_worktrees(repo)) == 2 and str(wt.tmp) in _worktrees(repo)[1]
    assert len(_worktrees(repo)) == 1 and not list(registry_dir(repo).iterdir())
    assert git(repo, "status", "--porcelain") == ""                     # .mltdbg stays out of git status


def test_a_copy_a_crashed_screen_dropped_is_removed_too(tmp_path):
    repo = make_repo(tmp_path / "repo", {"train.py": "print('x')\n"})
    wt = ScratchWorktree(repo).open()
    left = wt.tmp
    del wt                                                              # never closed: the screen died
    gc.collect()
    assert left.exists() and cleanup_stale(repo) == [str(left)]
    assert not left.exists() and len(_worktrees(repo)) == 1


def test_a_copy_still_open_is_left_alone(tmp_path):
    repo = make_repo(tmp_path / "repo", {"train.py": "print('x')\n"})
    with ScratchWorktree(repo) as wt:
        assert cleanup_stale(repo) == [] and wt.tmp.exists()


def test_the_users_own_worktrees_are_never_pruned(tmp_path):
    repo = make_repo(tmp_path / "repo", {"train.py": "print('x')\n"})
    theirs = tmp_path / "their-worktree"
    git(repo, "worktree", "add", "-q", "--detach", str(theirs), "HEAD")
    subprocess.run(["rm", "-rf", str(theirs)], check=True)              # e.g. on a disk not mounted now
    _crash_with_a_copy_open(repo)
    with ScratchWorktree(repo):
        pass
    assert str(theirs) in _worktrees(repo)                              # still registered: `prune` never ran


def test_planted_records_and_symlinks_cannot_aim_the_deletion(tmp_path):
    """tests/adversarial/scratch_records.json: records a hostile repo could ship in .mltdbg/scratch/."""
    repo = make_repo(tmp_path / "repo", {"train.py": "print('x')\n"})
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    link = Path(tempfile.gettempdir()) / f"{SCRATCH_PREFIX}planted-link-{os.getpid()}"
    link.symlink_to(victim)
    try:
        reg = registry_dir(repo)
        reg.mkdir(parents=True)
        subs = {"{victim}": str(victim), "{link}": str(link), "{repo}": str(repo)}
        for i, rec in enumerate(json.loads((ADV / "scratch_records.json").read_text())):
            text = json.dumps(rec)
            for k, v in subs.items():
                text = text.replace(k, v)
            (reg / f"{SCRATCH_PREFIX}planted{i}.json").write_text(text)
        assert cleanup_stale(repo) == []
        assert (victim / "keep.txt").read_text() == "precious" and link.is_symlink() and (repo / "train.py").exists()
        assert not list(reg.iterdir())                                  # the planted records are gone
    finally:
        link.unlink()


def test_a_registry_folder_that_is_a_symlink_is_not_used(tmp_path):
    repo = make_repo(tmp_path / "repo", {"train.py": "print('x')\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".mltdbg").mkdir()
    (repo / ".mltdbg" / "scratch").symlink_to(elsewhere)
    with ScratchWorktree(repo) as wt:
        assert wt.tmp.exists()
    assert not list(elsewhere.iterdir())                               # nothing written through the link


def test_check_started_records_the_process_group(tmp_path):
    repo = make_repo(tmp_path / "repo", {"train.py": "print('x')\n"})
    s = Session.create(repo)
    try:
        code = "import os; print(os.getpid(), os.getpgid(0), flush=True)"
        r = CheckRun(f"{sys.executable} -c '{code}'", repo, timeout_s=60, session=s).run()
        pid, pgid = map(int, r.output.split())
        started = next(e for e in s.events if e.type == "check_started")
        assert started.payload["pgid"] == pgid            # the group the check ran in, killable as one
        assert started.payload["pid"] in (pid, pgid)       # the shell that ran it leads the group
        if process_start(os.getpid()) is not None:        # Linux: the start time pins the pid
            assert isinstance(started.payload["proc_start"], int)
    finally:
        s.close()
