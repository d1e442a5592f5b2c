"""The guided session on a user's own script (not the demo): names `net`, `opt`, `dl`, zero_grad missing.

capture -> diagnose (sessions.diagnosis) -> the playbook's instrumentation bound to this file's names, run
unedited in a scratch copy (real subprocess, torch on CPU), printing 3 steps only -> verdict -> a wrong fix
that fails verification and is reverted -> the right fix that passes -> lesson -> one commit.
Also: a name the file does not have is shown as `<<loader?>>` and the check refuses to run until edited;
a check printing far past the output cap keeps its `[mltdbg]` lines."""
from __future__ import annotations

import datetime as dt
import difflib
import re
import sys

import pytest

from mltdbg.sessions import Session
from mltdbg.sessions.checks import CheckRun
from mltdbg.sessions.diagnosis import diagnose_session
from mltdbg.sessions.fixgate import CONFIRM_WORD, FixGate, patch_from_diff
from mltdbg.sessions.instrument import resolve_names
from mltdbg.sessions.lesson import append_lesson, commit_fix, commit_message, lesson_entry
from mltdbg.sessions.scratch import ScratchError, ScratchWorktree
from mltdbg.sessions.session import OUTPUT_CAP_BYTES
from mltdbg.playbooks.library import causes
from repo_helpers import git, make_repo

PY = sys.executable
TRAIN = 'import sys\n\nimport torch\nfrom torch import nn\nfrom torch.utils.data import DataLoader, TensorDataset\n\n\ndef build(seed=0):\n    g = torch.Generator().manual_seed(seed)\n    x = torch.randn(512, 8, generator=g)\n    y = (x[:, 0] + x[:, 1] > 0).long()\n    torch.manual_seed(seed)\n    net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))\n    opt = torch.optim.SGD(net.parameters(), lr=0.2)\n    dl = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, generator=g)\n    return net, opt, dl\n\n\ndef train(epochs, log):\n    net, opt, dl = build()\n    crit = nn.CrossEntropyLoss()\n    step, losses = 0, []\n    for epoch in range(epochs):\n        for xb, yb in dl:\n            out = net(xb)\n            loss = crit(out, yb)\n            loss.backward()\n            gn = sum(float(p.grad.norm()) ** 2 for p in net.parameters()) ** 0.5\n            opt.step()\n            step += 1\n            losses.append(loss.item())\n            print(f"step={step} loss={loss.item():.4f} grad_norm={gn:.4f}", file=log, flush=True)\n    return sum(losses[-16:]) / 16\n\n\nif __name__ == "__main__":\n    with open("train.log", "w") as f:\n        final = train(int(sys.argv[1]) if len(sys.argv) > 1 else 6, f)\n    print(f"final loss {final:.4f}")\n    sys.exit(0 if final < 0.3 else 1)\n'
USER_TEST = """\
import io

import train


def test_the_loss_comes_down():
    assert train.train(6, io.StringIO()) < 0.3
"""


def _diff(rel: str, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{rel}", f"b/{rel}"))


def _playbook(cause: str) -> str:
    return causes()[cause].instrumentation


def test_names_are_read_from_the_users_file():
    names = resolve_names(TRAIN, "train.py")
    assert names == {"model": "net", "optimizer": "opt", "loader": "dl", "batch": "(xb, yb)", "loss": "loss"}
    scaled = "for i, (a, b) in enumerate(tqdm(loader_train)):\n    scaler.scale(l).backward()\n    scaler.step(sgd)\n"
    got = resolve_names("sgd = torch.optim.Adam(m.parameters())\n" + scaled, "t.py")
    assert got == {"model": "m", "optimizer": "sgd", "loader": "loader_train", "batch": "(a, b)", "loss": "l"}


def test_guided_walk_on_a_users_own_script(tmp_path):
    repo = make_repo(tmp_path / "proj", {"train.py": TRAIN, ".gitignore": ".mltdbg/\n"})
    s = Session.create(repo, name="own", environment={"notes": "test"})
    try:
        _walk(repo, s)
    finally:
        s.close()


def _walk(repo, s):
    # 1. Capture: the user's command really fails; its log is what the diagnosis reads.
    failing = CheckRun(f"{PY} train.py", repo, timeout_s=120, session=s).run()
    assert failing.exit_code == 1 and "final loss" in failing.output
    s.append("capture_edited", {"field": "command", "value": "python train.py"})
    s.append("capture_edited", {"field": "happened", "value": failing.output})
    s.append("capture_edited", {"field": "expected", "value": "the loss should come down below 0.3"})

    # 2. Diagnose through the session: zero_grad missing comes first.
    res = diagnose_session(s, engine="offline")
    s.append(res.event)
    top = s.state.hypotheses[0]
    assert top.id == "missing_zero_grad" and top.instrumentation and "{model}" in top.instrumentation

    # 3. The instrumented check runs unedited: the snippet speaks this file's names, 3 steps printed.
    cmd = f"{PY} train.py 2"
    status_before, log_before = git(repo, "status", "--porcelain"), (repo / "train.log").read_bytes()
    s.append("check_approved", {"hypothesis_id": top.id, "command": cmd})
    with ScratchWorktree(repo) as wt:
        assert wt.instrument(top.instrumentation) == "train.py" and wt.unresolved == []
        diff = wt.diff()
        assert "net.parameters()" in diff and "{model}" not in diff and "<<" not in diff
        check = wt.check(cmd, session=s, hypothesis_id=top.id, timeout_s=120).run()
    assert check.exit_code in (0, 1) and check.error is None, check.output[-2000:]
    before = [float(x) for x in re.findall(r"grad_norm_before_backward=([0-9.e+-]+)", check.output)]
    assert len(before) == 3 and before[0] == 0 and 0 < before[1] < before[2]      # 32 steps ran, 3 printed
    assert check.output.count("[mltdbg]") == 3 * 3 + 1 and "quiet from here" in check.output
    assert git(repo, "status", "--porcelain") == status_before and (repo / "train.log").read_bytes() == log_before
    s.append("verdict_recorded", {"hypothesis_id": top.id, "verdict": "confirmed", "check_id": check.check_id,
                                  "note": "grad norm before backward is non-zero and grows"})

    # 4. A wrong fix first (a smaller lr): verification fails, the fix is reverted.
    gate = FixGate(repo, s)
    gate.propose(patch_from_diff(_diff("train.py", TRAIN, TRAIN.replace("lr=0.2", "lr=0.1"))), source="user",
                 hypothesis_id=top.id)
    gate.add_test("tests/test_loss.py", USER_TEST)
    assert sorted(gate.apply(gate.confirm(CONFIRM_WORD))) == ["tests/test_loss.py", "train.py"]
    test_cmd = f"{PY} -m pytest -q -p no:cacheprovider tests/test_loss.py"
    v = gate.verify(f"{PY} train.py", test_cmd, timeout_s=120)
    assert not v.passed
    gate.revert()
    assert (repo / "train.py").read_text() == TRAIN

    # 5. The right fix: zero_grad before backward; both reruns pass.
    fixed = TRAIN.replace("            loss.backward()", "            opt.zero_grad()\n            loss.backward()")
    gate.propose(patch_from_diff(_diff("train.py", TRAIN, fixed)), source="user", hypothesis_id=top.id)
    if not (repo / "tests" / "test_loss.py").exists():
        gate.add_test("tests/test_loss.py", USER_TEST)
    gate.apply(gate.confirm(CONFIRM_WORD))
    v = gate.verify(f"{PY} train.py", test_cmd, timeout_s=120)
    assert v.passed, [r.output[-1500:] for r in v.results]
    assert [x["passed"] for x in s.state.verifications] == [False, False, True, True]   # (run, test) twice

    # 6. Lesson and the one commit of the fix, its test and the lesson.
    entry = lesson_entry(dt.date(2026, 5, 4), "opt.zero_grad() was missing, so gradients summed across steps",
                         "a climbing grad_norm", "test_the_loss_comes_down", "every hand-written loop needs zero_grad")
    append_lesson(repo, entry, session=s)
    sha = commit_fix(repo, ["train.py", "tests/test_loss.py", "CLAUDE.md"],
                     commit_message("gradients accumulated (zero_grad missing)", top.id, "test_the_loss_comes_down"),
                     session=s)
    files = git(repo, "show", "--name-only", "--format=", sha).split()
    assert sorted(files) == ["CLAUDE.md", "tests/test_loss.py", "train.py"]
    assert s.state.commits[-1]["sha"] == sha


def test_a_name_the_file_lacks_is_marked_and_the_check_refuses(tmp_path):
    no_loader = TRAIN.replace("for xb, yb in dl:", "for xb, yb in list(dl):")
    repo = make_repo(tmp_path / "r", {"train.py": no_loader})
    with ScratchWorktree(repo) as wt:
        wt.instrument(_playbook("label_misalignment"))
        assert wt.unresolved == ["loader"] and "next(iter(<<loader?>>))" in wt.diff()
        with pytest.raises(ScratchError, match=r"<<loader\?>>"):
            wt.check(f"{PY} train.py 1")
        wt.write("train.py", wt.read("train.py").replace("<<loader?>>", "dl"))
        assert wt.unresolved_names() == []
        r = wt.check(f"{PY} train.py 1", timeout_s=60).run()
    assert r.output.count("[mltdbg] pair ") == 5, r.output[-2000:]


def test_marker_lines_beyond_the_output_cap_are_kept(tmp_path):
    n = OUTPUT_CAP_BYTES // 20          # ~4x the cap in plain lines, a marker line in the middle
    prog = ("import sys\n"
            f"for i in range({n}):\n"
            "    print(f'noise {i:09d} ' + 'x' * 64)\n"
            f"    if i == {n // 2}: print('[mltdbg] the one line that matters')\n")
    repo = make_repo(tmp_path / "r", {"p.py": prog})
    session = Session.create(repo, name="cap")
    try:
        r = CheckRun(f"{PY} p.py", repo, timeout_s=60, session=session).run()
    finally:
        session.close()
    assert r.truncated_bytes > 0 and "[mltdbg] the one line that matters" in r.output
    stored = session.state.checks[r.check_id].output
    assert "[mltdbg] the one line that matters" in stored and stored.startswith("noise 000000000 ")
    assert len(stored.encode()) < OUTPUT_CAP_BYTES + 1024
