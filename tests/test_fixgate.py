"""The fix gate on real temp git repos (and a plain folder): confirmation, exact apply/revert, verify."""
from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

import pytest

from mltdbg.analyzers.common.patch import Patch, unified_diff
from mltdbg.sessions import Session
from mltdbg.sessions.fixgate import (CONFIRM_WORD, FixError, FixGate, NotConfirmed, fill_template, first_test_name)
from repo_helpers import git, make_repo

PY = sys.executable
SCRIPT = '''\
import sys

LR = 0.5


def main():
    total = 0
    for step in range(10):
        total += step
    print("total", total)
    sys.exit(0 if LR < 0.3 else 1)


if __name__ == "__main__":
    main()
'''
FIXED = SCRIPT.replace("LR = 0.5", "LR = 0.25")
TEST = '''\
import train


def test_lr_is_small_enough():
    assert train.LR < 0.3
'''


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def lr_patch() -> Patch:
    return Patch(diff=unified_diff("train.py", SCRIPT, FIXED), files=["train.py"], summary="halve the lr")


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "repo", {"train.py": SCRIPT, "README.md": "readme\n"})


@pytest.fixture
def session(repo):
    s = Session.create(repo, environment={"notes": "test"})
    yield s
    s.close()


def test_apply_is_refused_without_the_typed_confirmation(repo, session):
    gate = FixGate(repo, session)
    gate.propose(lr_patch(), hypothesis_id="lr_too_high")
    before = sha(repo / "train.py")
    with pytest.raises(NotConfirmed):
        gate.apply(None)
    for typed in ("", "y", "yes", "APPLY", "appl", "apply!"):
        with pytest.raises(NotConfirmed):
            gate.confirm(typed)
    # A token from another gate (or forged) does not open this one.
    other = FixGate(repo)
    other.propose(lr_patch())
    with pytest.raises(NotConfirmed):
        gate.apply(other.confirm(CONFIRM_WORD))
    assert sha(repo / "train.py") == before
    assert session.state.fix.status == "proposed"
    assert [e.type for e in session.events if e.type.startswith("fix_")] == ["fix_proposed"]


def test_apply_writes_exactly_the_diff_and_revert_restores_bytes(repo, session):
    before = (repo / "train.py").read_bytes()
    gate = FixGate(repo, session)
    patch = lr_patch()
    gate.propose(patch)
    token = gate.confirm(f"  {CONFIRM_WORD} ")
    assert gate.apply(token) == ["train.py"]
    assert (repo / "train.py").read_text() == FIXED
    assert re.sub(r"(?m)^index .*\n", "", git(repo, "diff")) == patch.diff     # exactly the proposed diff
    # The token is single use.
    with pytest.raises(NotConfirmed):
        gate.apply(token)
    assert [h["status"] for h in session.state.fix.history] == ["proposed", "confirmed", "applied"]
    assert session.state.fix.files == ["train.py"]
    assert gate.revert() == ["train.py"]
    assert (repo / "train.py").read_bytes() == before
    assert git(repo, "status", "--porcelain") == ""
    assert session.state.fix.status == "reverted"


def test_a_change_after_confirming_needs_a_new_confirmation(repo):
    gate = FixGate(repo)
    gate.propose(lr_patch())
    token = gate.confirm(CONFIRM_WORD)
    gate.add_test("test_train.py", TEST)
    with pytest.raises(NotConfirmed):
        gate.apply(token)
    assert not (repo / "test_train.py").exists()
    assert sorted(gate.apply(gate.confirm(CONFIRM_WORD))) == ["test_train.py", "train.py"]
    assert (repo / "test_train.py").read_text() == TEST


def test_conflicting_uncommitted_edits_refuse_the_fix(repo, session):
    (repo / "train.py").write_text(SCRIPT.replace("LR = 0.5", "LR = 0.7  # my experiment"))
    before = sha(repo / "train.py")
    gate = FixGate(repo, session)
    gate.propose(lr_patch())
    with pytest.raises(FixError, match="train.py has uncommitted changes that conflict"):
        gate.apply(gate.confirm(CONFIRM_WORD))
    assert sha(repo / "train.py") == before
    assert session.state.fix.status == "confirmed"


def test_dirty_unrelated_files_are_left_alone(repo):
    (repo / "README.md").write_text("my notes\n")
    (repo / "scratch.txt").write_text("untracked\n")
    gate = FixGate(repo)
    gate.propose(lr_patch())
    gate.apply(gate.confirm(CONFIRM_WORD))
    assert (repo / "README.md").read_text() == "my notes\n" and (repo / "scratch.txt").read_text() == "untracked\n"
    gate.revert()
    assert (repo / "README.md").read_text() == "my notes\n"
    assert git(repo, "status", "--porcelain").splitlines() == [" M README.md", "?? scratch.txt"]


def test_revert_refuses_when_the_file_changed_since(repo):
    gate = FixGate(repo)
    gate.propose(lr_patch())
    gate.apply(gate.confirm(CONFIRM_WORD))
    (repo / "train.py").write_text("rewritten\n")
    with pytest.raises(FixError, match="nothing was reverted"):
        gate.revert()
    assert (repo / "train.py").read_text() == "rewritten\n"


def test_verify_reruns_both_commands_and_records_them(repo, session):
    gate = FixGate(repo, session)
    v = gate.verify(f"{PY} train.py", None, timeout_s=60)
    assert not v.passed and v.missing_test and v.results[0].exit_code == 1
    gate.propose(lr_patch())
    gate.apply(gate.confirm(CONFIRM_WORD))
    gate.add_test("test_train.py", TEST)
    assert gate.apply(gate.confirm(CONFIRM_WORD)) == ["test_train.py"]
    v = gate.verify(f"{PY} train.py", f"{PY} -m pytest -q -p no:cacheprovider test_train.py", timeout_s=120)
    assert v.passed and [r.exit_code for r in v.results] == [0, 0] and not v.missing_test
    runs = session.state.verifications
    assert [(r["exit_code"], r["passed"]) for r in runs] == [(1, False), (0, True), (0, True)]
    assert "1 passed" in runs[-1]["output"]
    fx = session.state.fix
    assert fx.test_file == "test_train.py" and fx.test_written and "+def test_lr_is_small_enough" in fx.test_diff
    # Revert undoes the fix and removes the test it wrote.
    assert sorted(gate.revert()) == ["test_train.py", "train.py"]
    assert not (repo / "test_train.py").exists() and (repo / "train.py").read_text() == SCRIPT


def test_failing_test_makes_verification_fail(repo):
    gate = FixGate(repo)
    gate.propose(lr_patch(), test=("test_bad.py", "def test_fails():\n    assert False\n"))
    gate.apply(gate.confirm(CONFIRM_WORD))
    v = gate.verify(f"{PY} train.py", f"{PY} -m pytest -q -p no:cacheprovider test_bad.py", timeout_s=120)
    assert not v.passed and [r.exit_code for r in v.results] == [0, 1]


def test_the_users_own_edits_as_the_fix(repo, session):
    (repo / "train.py").write_text(FIXED)
    gate = FixGate(repo, session)
    patch = gate.from_worktree()
    assert patch.files == ["train.py"] and "+LR = 0.25" in patch.diff
    gate.propose(patch, source="user")
    assert gate.in_tree and gate.pending == []
    assert gate.apply(gate.confirm(CONFIRM_WORD)) == []       # already there: nothing written
    assert (repo / "train.py").read_text() == FIXED
    assert session.state.fix.source == "user" and session.state.fix.status == "applied"


def test_from_worktree_without_edits_or_git(repo, tmp_path):
    with pytest.raises(FixError, match="no uncommitted edits"):
        FixGate(repo).from_worktree()
    plain = make_repo(tmp_path / "plain", {"train.py": SCRIPT}, init=False)
    with pytest.raises(FixError, match="not the root of a git repo"):
        FixGate(plain).from_worktree()


def test_outside_git_apply_and_revert_are_exact(tmp_path):
    plain = make_repo(tmp_path / "plain", {"train.py": SCRIPT}, init=False)
    before = (plain / "train.py").read_bytes()
    gate = FixGate(plain)
    gate.propose(lr_patch(), test=("tests/test_train.py", TEST))
    assert gate.apply(gate.confirm(CONFIRM_WORD)) == ["train.py", "tests/test_train.py"]
    assert (plain / "train.py").read_text() == FIXED and (plain / "tests/test_train.py").read_text() == TEST
    gate.revert()
    assert (plain / "train.py").read_bytes() == before and not (plain / "tests/test_train.py").exists()


def test_paths_outside_the_repo_and_existing_tests_are_refused(repo):
    gate = FixGate(repo)
    with pytest.raises(FixError, match="outside the repository"):
        gate.propose(Patch(diff="", files=["../elsewhere.py"]))
    gate.propose(lr_patch())
    with pytest.raises(FixError, match="already exists"):
        gate.add_test("README.md", "x = 1\n")


def test_resume_rebuilds_an_applied_fix_from_the_log(repo, session):
    gate = FixGate(repo, session)
    gate.propose(lr_patch(), test=("test_train.py", TEST))
    gate.apply(gate.confirm(CONFIRM_WORD))
    session.close()
    s2 = Session.open(session.dir)
    try:
        again = FixGate.resume(repo, s2)
        assert again.applied and again.test is not None and again.test.written
        assert sorted(again.revert()) == ["test_train.py", "train.py"]
        assert (repo / "train.py").read_text() == SCRIPT and not (repo / "test_train.py").exists()
        assert s2.state.fix.status == "reverted"
    finally:
        s2.close()


def test_templates_fill_only_their_placeholders():
    tpl = 'from {module} import build_model\n\ndef test_x():\n    d = {"a": 1}\n    print(f"{d} {missing}")\n'
    out = fill_template(tpl, {"module": "train"})
    assert out.startswith("from train import build_model") and '{"a": 1}' in out and "{d} {missing}" in out
    assert first_test_name(out) == "test_x"
