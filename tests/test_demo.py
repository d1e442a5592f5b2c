"""The bundled demo repo, and the whole headless walk on it with real torch on CPU:
capture -> diagnose -> instrumented check -> verdict -> fix gate -> verify -> test -> lesson -> commit."""
from __future__ import annotations

import datetime as dt
import re
import sys

import git as gitpython
import pytest

from mltdbg.playbooks.diagnose import diagnose
from mltdbg.sessions import Session
from mltdbg.analyzers.common.safety import dangerous
from mltdbg.sessions.checks import CheckRun
from mltdbg.sessions.scratch import ScratchWorktree
from mltdbg.sessions.demo import make_demo_repo
from mltdbg.sessions.fixgate import CONFIRM_WORD, FixGate, NotConfirmed, first_test_name, patch_from_diff
from mltdbg.sessions.lesson import append_lesson, commit_fix, commit_message, lesson_entry
from repo_helpers import git

PY = sys.executable
# The test a user would write for the demo: with zero_grad, grad_norm stays flat over 50 steps;
# with the bug it climbs about twentyfold.
DEMO_TEST = '''\
import io
import re

import train


def test_grad_norm_does_not_climb():
    log = io.StringIO()
    train.train({"seed": 0, "lr": 0.02, "batch_size": 64}, 50, log)
    norms = [float(x) for x in re.findall(r"grad_norm=([0-9.]+)", log.getvalue())]
    assert len(norms) == 10
    assert max(norms) <= 2 * norms[0]
'''


def test_demo_repo_is_a_fresh_git_repo_with_one_commit(tmp_path):
    repo = make_demo_repo(tmp_path / "demo")
    r = gitpython.Repo(repo)
    assert len(list(r.iter_commits())) == 1 and not r.is_dirty(untracked_files=True)
    assert sorted(r.head.commit.stats.files) == [".gitignore", "CLAUDE.md", "config.yaml", "runs/latest/train.log",
                                                 "train.py"]
    assert r.config_reader("repository").get_value("user", "email") == "demo@mltdbg.invalid"
    with pytest.raises(ValueError, match="not empty"):
        make_demo_repo(repo)
    # Default: a new temp dir each time.
    a, b = make_demo_repo(), make_demo_repo()
    assert a != b and (a / "train.py").read_bytes() == (repo / "train.py").read_bytes()


def test_full_headless_walk_on_the_demo(tmp_path):
    repo = make_demo_repo(tmp_path / "demo")
    s = Session.create(repo, name="demo", environment={"notes": "test"})
    try:
        _walk(repo, s)
    finally:
        s.close()


def _walk(repo, s):
    # 1. Capture: the failing command, run after approval; it really fails.
    cmd = f"{PY} train.py"
    assert dangerous(cmd, repo) is None
    s.append("capture_edited", {"field": "command", "value": "python train.py"})
    failing = CheckRun(cmd, repo, timeout_s=300, session=s).run()
    assert failing.exit_code == 1 and "final loss is not below 0.8" in failing.output
    s.append("capture_edited", {"field": "happened", "value": failing.output})

    # 2. Diagnose: the top hypothesis is the missing zero_grad, with a codemod diff.
    d = diagnose([str(repo)], repo_root=repo)
    top = d.top
    assert top is not None and top.id == "missing_zero_grad" and top.patch and top.instrumentation
    s.append("diagnosis_made", {"engine": d.engine, "diagnosis": d.to_json(), "plots": {}})
    assert s.state.hypotheses[0].id == "missing_zero_grad"

    # 3. Check: the playbook's instrumentation in a scratch copy only, its diff shown, 3 steps run.
    before_head = git(repo, "status", "--porcelain")
    check_cmd = f"{PY} train.py --steps 3 --log runs/check/train.log"
    s.append("check_approved", {"hypothesis_id": top.id, "command": check_cmd})
    with ScratchWorktree(repo) as wt:
        wt.instrument(top.instrumentation)
        assert "print(f\"[mltdbg] grad_norm_before_backward" in wt.diff()
        check = wt.check(check_cmd, session=s, hypothesis_id=top.id, timeout_s=300).run()
    assert git(repo, "status", "--porcelain") == before_head and not (repo / "runs" / "check").exists()
    before = [float(x) for x in re.findall(r"grad_norm_before_backward=([0-9.e+-]+)", check.output)]
    assert len(before) == 3 and before[0] == 0 and 0 < before[1] < before[2]   # grads carried over and growing
    s.append("verdict_recorded", {"hypothesis_id": top.id, "verdict": "confirmed", "check_id": check.check_id,
                                  "note": "grad norm before backward is non-zero and grows"})
    assert s.state.verdicts[top.id].verdict == "confirmed"

    # 4. Fix: the codemod's diff through the gate.
    (repo / "config.yaml").write_text((repo / "config.yaml").read_text() + "# my unrelated note\n")   # unrelated dirt
    gate = FixGate(repo, s)
    patch = patch_from_diff(top.patch)
    assert patch.files == ["train.py"]
    gate.propose(patch, source="playbook", hypothesis_id=top.id)
    original = (repo / "train.py").read_bytes()
    with pytest.raises(NotConfirmed):
        gate.apply(None)
    assert (repo / "train.py").read_bytes() == original
    assert gate.apply(gate.confirm(CONFIRM_WORD)) == ["train.py"]
    assert "optimizer.zero_grad()" in (repo / "train.py").read_text()
    gate.add_test("tests/test_zero_grad.py", DEMO_TEST)
    assert gate.apply(gate.confirm(CONFIRM_WORD)) == ["tests/test_zero_grad.py"]
    v = gate.verify(cmd, f"{PY} -m pytest -q -p no:cacheprovider tests/test_zero_grad.py", timeout_s=300)
    assert v.passed, [r.output[-2000:] for r in v.results]
    assert "final loss" in v.results[0].output and "1 passed" in v.results[1].output

    # 5. Lesson and the one commit.
    test_name = first_test_name(DEMO_TEST)
    entry = lesson_entry(dt.date(2026, 5, 4), "optimizer.zero_grad() was missing, so gradients summed across steps",
                         "a climbing grad_norm, not by a test", test_name,
                         "every hand-written loop needs a test that grad_norm does not climb")
    append_lesson(repo, entry, session=s)
    claude = (repo / "CLAUDE.md").read_text()
    assert claude.startswith("# demo-classifier\n") and claude.endswith(f"## Things that have bitten us\n\n{entry}\n")
    msg = commit_message("gradients accumulated across steps (optimizer.zero_grad() missing)", top.id, test_name)
    sha = commit_fix(repo, gate.patch.files + [gate.test.path, "CLAUDE.md"], msg, session=s)

    r = gitpython.Repo(repo)
    commit = r.commit(sha)
    assert len(list(r.iter_commits())) == 2 and commit.parents[0] != commit
    assert sorted(commit.stats.files) == ["CLAUDE.md", "tests/test_zero_grad.py", "train.py"]
    assert "zero_grad" in commit.message and test_name in commit.message
    assert (commit.tree / "train.py").data_stream.read() == (repo / "train.py").read_bytes()
    # Unrelated changes (the user's note, the rerun's log) stay in the tree, unstaged.
    status = git(repo, "status", "--porcelain").splitlines()
    assert " M config.yaml" in status and " M runs/latest/train.log" in status
    assert not [ln for ln in status if ln[0] not in (" ", "?")]      # nothing staged

    # The session holds every step.
    st = s.state
    assert st.fix.status == "applied" and st.fix.test_written and st.fix.test_file == "tests/test_zero_grad.py"
    assert [x["passed"] for x in st.verifications] == [True, True]
    assert st.lesson["text"] == entry and st.commits[-1]["sha"] == sha
    assert st.checks[check.check_id].status == "done" and "grad_norm_before_backward" in st.checks[check.check_id].output
    again = Session.open(s.dir, readonly=True)
    assert again.state.commits[-1]["sha"] == sha and again.state.verdicts[top.id].verdict == "confirmed"
