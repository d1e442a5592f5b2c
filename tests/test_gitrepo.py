"""The one git module (analyzers/common/gitrepo.py) against real repos in temp dirs."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mltdbg.analyzers.common.gitrepo import (main_repo_root, NO_GIT, GitError, add_worktree, apply_diff, changed_files, commit_only,
                                             dirty_files, file_at, find_repo_root, git_dir, has_commit, head_state,
                                             init_repo, output, remove_worktree, resolve_commit, run_git, untracked_files)
from mltdbg.analyzers.common.patch import unified_diff
from repo_helpers import git, make_repo


@pytest.fixture
def repo(tmp_path) -> Path:
    return make_repo(tmp_path / "proj", {"train.py": "lr = 0.1\n", "src/model.py": "x = 1\n", ".gitignore": "*.ckpt\n"})


def test_find_repo_root_from_a_folder_a_file_and_outside(repo, tmp_path):
    assert find_repo_root(repo) == repo.resolve()
    assert find_repo_root(repo / "src") == repo.resolve()
    assert find_repo_root(repo / "src" / "model.py") == repo.resolve()        # a file: its folder
    assert find_repo_root(repo / "src" / "not_yet_there.py") == repo.resolve()
    (tmp_path / "plain").mkdir()
    assert find_repo_root(tmp_path / "plain") is None


def test_find_repo_root_defaults_to_the_current_folder(repo, monkeypatch):
    monkeypatch.chdir(repo / "src")
    assert find_repo_root() == repo.resolve()


def test_a_worktree_is_its_own_root_and_shares_the_main_git_dir(repo, tmp_path):
    wt = tmp_path / "wt"
    assert add_worktree(repo, wt).ok
    try:
        assert (wt / ".git").is_file()
        assert find_repo_root(wt / "src") == wt.resolve()
        assert git_dir(wt) == (repo / ".git").resolve() == git_dir(repo).resolve()
        assert str(wt) in git(repo, "worktree", "list")
        assert main_repo_root(wt.resolve()) == repo.resolve() and main_repo_root(repo) == repo
    finally:
        remove_worktree(repo, wt)
    assert not wt.exists() and str(wt) not in git(repo, "worktree", "list")


def test_commits_and_files_at_a_commit(repo):
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "train.py").write_text("lr = 0.2\n")
    git(repo, "commit", "-qam", "raise lr")
    assert resolve_commit(repo, "HEAD~1") == first
    assert resolve_commit(repo, first[:8]) == first
    assert resolve_commit(repo, "HEAD~5") is None
    assert file_at(repo, first, "train.py") == "lr = 0.1\n"                 # the last newline is kept
    assert file_at(repo / "src", first, "model.py") == "x = 1\n"            # relative to the folder given
    assert file_at(repo, first, "nope.py") is None
    assert file_at(repo / "src", first, "../train.py") is None              # never climbs out
    assert file_at(repo, first, str(repo / "train.py")) is None


def test_has_commit(repo, tmp_path):
    assert has_commit(repo) and has_commit(repo / "src")
    fresh = make_repo(tmp_path / "fresh", {"a.py": "x\n"}, init=False)
    git(fresh, "init", "-q")
    assert not has_commit(fresh)
    assert not has_commit(tmp_path)


def test_changed_untracked_and_dirty_files(repo):
    (repo / "train.py").write_text("lr = 0.5\n")                             # changed, not staged
    (repo / "src" / "model.py").unlink()                                     # deleted
    (repo / "notes ü.txt").write_text("mine\n")                              # untracked, non-ASCII name
    (repo / "best.ckpt").write_bytes(b"\0" * 10)                             # ignored
    (repo / "new.py").write_text("y = 2\n")
    git(repo, "add", "new.py")                                               # staged new file
    assert sorted(changed_files(repo)) == ["new.py", "src/model.py", "train.py"]
    assert untracked_files(repo) == ["notes ü.txt"]
    assert dirty_files(repo, ["train.py", ".gitignore"]) == ["train.py"]
    assert changed_files(repo.parent) == [] and untracked_files(repo.parent) == []   # not a repo: nothing


def test_apply_diff_checks_applies_reverts_and_refuses(repo):
    diff = unified_diff("train.py", "lr = 0.1\n", "lr = 0.05\n")
    assert apply_diff(repo, diff, check_only=True) is None
    assert (repo / "train.py").read_text() == "lr = 0.1\n"                   # checking writes nothing
    assert apply_diff(repo, diff) is None
    assert (repo / "train.py").read_text() == "lr = 0.05\n"
    why = apply_diff(repo, diff, check_only=True)                           # already applied
    assert why and "train.py" in why
    assert apply_diff(repo, diff, reverse=True) is None
    assert (repo / "train.py").read_text() == "lr = 0.1\n"


def test_output_and_run_git_report_failure_without_raising(repo, tmp_path):
    assert output(repo, "rev-parse", "--show-toplevel").strip() == str(repo.resolve())
    assert output(tmp_path, "rev-parse", "--show-toplevel") is None
    r = run_git(repo, "show", "no-such-rev")
    assert not r.ok and r.error.startswith("git show no-such-rev failed: ") and "no-such-rev" in r.error
    r = run_git(tmp_path / "missing", "status")
    assert r.code == NO_GIT and not r.ok


def test_without_git_on_path_reads_answer_none_and_gitpython_says_why(repo, tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    code = ("import sys\n"
            "from mltdbg.analyzers.common.gitrepo import GitError, find_repo_root, has_commit, head_state, run_git\n"
            "repo = sys.argv[1]\n"
            "print(find_repo_root(repo) is not None, has_commit(repo), run_git(repo, 'status').code)\n"
            "try:\n    head_state(repo)\nexcept GitError as e:\n    print('GitError', str(e).splitlines()[0][:60])\n")
    r = subprocess.run([sys.executable, "-c", code, str(repo)], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PATH": str(empty)})
    lines = r.stdout.splitlines()
    assert r.returncode == 0, r.stderr
    assert lines[0] == f"True False {NO_GIT}"                # the root is found from the file system alone
    assert lines[1].startswith("GitError git is not available")


def test_head_state(repo):
    sha = git(repo, "rev-parse", "HEAD").strip()
    branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    assert head_state(repo) == {"commit": sha, "branch": branch, "dirty": False}
    (repo / "untracked.log").write_text("x\n")
    assert head_state(repo)["dirty"] is False                # untracked files are the norm in ML repos
    (repo / "train.py").write_text("lr = 1\n")
    assert head_state(repo)["dirty"] is True
    git(repo, "checkout", "-q", "--detach")
    assert head_state(repo)["branch"] is None


def test_head_state_of_a_fresh_repo_and_of_no_repo(tmp_path):
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q")
    assert head_state(fresh)["commit"] is None
    with pytest.raises(GitError):
        head_state(tmp_path / "nothing-here")


def test_commit_only_commits_exactly_the_files_named(repo):
    (repo / "train.py").write_text("lr = 0.05\n")
    (repo / "src" / "model.py").write_text("x = 2\n")
    git(repo, "add", "src/model.py")                         # staged by the user: stays staged, out of the commit
    sha = commit_only(repo, ["train.py"], "Fix: lower the lr")
    assert git(repo, "rev-parse", "HEAD").strip() == sha
    assert git(repo, "show", "--name-only", "--format=", sha).split() == ["train.py"]
    assert git(repo, "diff", "--cached", "--name-only").split() == ["src/model.py"]
    with pytest.raises(GitError, match="nothing to commit"):
        commit_only(repo, ["train.py"], "again")


def test_init_repo_makes_one_commit_with_a_local_identity(tmp_path):
    dest = make_repo(tmp_path / "demo", {"train.py": "print(1)\n", "runs/a.log": "x\n"}, init=False)
    init_repo(dest, {"user.name": "Demo", "user.email": "demo@example.invalid"}, "Demo: one commit")
    assert git(dest, "log", "--format=%an <%ae> %s").strip() == "Demo <demo@example.invalid> Demo: one commit"
    assert git(dest, "config", "--local", "user.name").strip() == "Demo"
    assert git(dest, "status", "--porcelain") == ""
    assert sorted(git(dest, "ls-files").split()) == ["runs/a.log", "train.py"]
