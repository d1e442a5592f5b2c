"""Check runs (real subprocesses, process groups) and scratch worktrees (real git repos)."""
from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mltdbg.sessions import OUTPUT_CAP_BYTES, Session
from mltdbg.sessions.checks import CheckRun
from mltdbg.sessions.scratch import ScratchError, ScratchWorktree
from repo_helpers import git, make_repo

PY = sys.executable

# A training-loop-shaped script with no torch: fast, and it has the anchors playbooks use.
LOOP = '''\
class Loss:
    def backward(self):
        pass


class Opt:
    def step(self):
        pass


optimizer = Opt()
for step in range(1, 4):
    loss = Loss()
    loss.backward()
    optimizer.step()
print("done")
'''
SNIPPET = '''\
print(f"step={step} before")
# ... loss.backward()
print(f"step={step} after_backward")
# ... optimizer.step()
print(f"step={step} after_step")
'''


def tree_hash(root: Path) -> str:
    """Hash of every file (path + bytes) under root except .git and the session folder: the user's tree."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if {".git", ".mltdbg"} & set(p.relative_to(root).parts) or not p.is_file():
            continue
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def alive(pid: int) -> bool:
    """A process exists and is not a zombie (an orphan may wait for a reaper as a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def session(tmp_path):
    repo = make_repo(tmp_path / "repo", {"train.py": LOOP})
    s = Session.create(repo, environment={"notes": "test"})
    yield s
    s.close()


def test_run_streams_lines_records_events_and_exit_code(session):
    lines = []
    cmd = f"{PY} -c \"import sys; print('one'); print('two', file=sys.stderr); sys.exit(3)\""
    run = CheckRun(cmd, session.root, timeout_s=60, session=session, hypothesis_id="lr_too_high", on_line=lines.append)
    r = run.run()
    assert r.exit_code == 3 and not r.passed and r.status == "done"
    assert lines == ["one", "two"]
    st = session.state.checks[r.check_id]
    assert st.status == "done" and st.exit_code == 3 and st.hypothesis_id == "lr_too_high"
    assert st.output == "one\ntwo\n" and st.cwd == "."
    # The log, reloaded, holds the same thing.
    again = Session.open(session.dir, readonly=True)
    assert again.state.checks[r.check_id].output == "one\ntwo\n"


def test_cancel_kills_the_whole_process_group(tmp_path):
    seen = threading.Event()
    pids = []

    def on_line(line):
        if line.startswith("child "):
            pids.append(int(line.split()[1]))
            seen.set()

    # The shell starts a sleeping child and waits; both must end on cancel.
    run = CheckRun("sleep 300 & echo child $!; wait", tmp_path, timeout_s=120, on_line=on_line)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", run.run()))
    t.start()
    assert seen.wait(30)
    leader = run.proc.pid
    assert alive(pids[0]) and alive(leader)
    run.cancel()
    t.join(30)
    r = out["r"]
    assert r.cancelled and not r.passed and r.status == "cancelled"
    assert not alive(pids[0]) and not alive(leader)


def test_cancel_escalates_to_sigkill_when_term_is_ignored(tmp_path):
    seen = threading.Event()
    pids = []
    cmd = (f"{PY} -c \"import signal, time, os; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
           f"print('child', os.getpid(), flush=True); time.sleep(300)\"")
    run = CheckRun(cmd, tmp_path, timeout_s=120, kill_grace_s=0.5,
                   on_line=lambda ln: (pids.append(int(ln.split()[1])), seen.set()) if ln.startswith("child") else None)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", run.run()))
    t.start()
    assert seen.wait(30)
    run.cancel()
    t.join(30)
    assert not t.is_alive()
    assert out["r"].cancelled
    assert not alive(pids[0])     # it ignored SIGTERM: only SIGKILL ends it


def test_a_check_ended_by_the_ui_exiting_is_recorded_as_interrupted_not_cancelled(session):
    # The user's x is "cancelled"; quitting (or a hangup) mid-check is "interrupted", the same status a
    # resume gives a check whose finish never reached the log, so which of the two wins doesn't show.
    seen = threading.Event()
    run = CheckRun("echo started; sleep 300", session.root, timeout_s=120, session=session,
                   on_line=lambda ln: seen.set())
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", run.run()))
    t.start()
    assert seen.wait(30)
    run.cancel(interrupted=True)
    t.join(30)
    r = out["r"]
    assert r.interrupted and r.cancelled and not r.passed and r.status == "interrupted"
    assert session.state.checks[r.check_id].status == "interrupted"
    again = Session.open(session.dir, readonly=True)
    assert again.state.checks[r.check_id].status == "interrupted"
    assert "started" in again.state.checks[r.check_id].output


def test_timeout_ends_the_check_and_is_recorded(session):
    run = CheckRun("echo started; sleep 60; echo never", session.root, timeout_s=0.5, session=session)
    r = run.run()
    assert r.timed_out and not r.cancelled and r.exit_code is not None and r.exit_code < 0
    assert "never" not in r.output and r.duration_s < 30
    c = session.state.checks[r.check_id]
    assert c.status == "timed_out" and c.timeout_s == 0.5 and c.output == "started\n"


def test_flood_of_output_is_capped_keeping_head_and_tail(session):
    n = 200_000
    cmd = f"{PY} -c \"import sys; sys.stdout.write(''.join(f'line {{i:07d}} ' + 'x' * 80 + chr(10) for i in range({n})))\""
    shown = []
    r = CheckRun(cmd, session.root, timeout_s=120, session=session, on_line=shown.append).run()
    assert r.exit_code == 0 and r.lines == n and r.output_bytes == n * 94
    # Kept: the first and the last lines, with the middle counted.
    assert r.output.startswith("line 0000000 ") and r.output.rstrip().endswith("x" * 80)
    assert f"line {n - 1:07d} " in r.output and r.truncated_bytes > 0
    assert len(r.output.encode()) < OUTPUT_CAP_BYTES + 200
    # The live callback got far fewer lines than were printed, and was told so.
    assert len(shown) < n // 10 and any("lines not shown live" in s for s in shown)
    # The session stored at most its cap, head and tail.
    c = session.state.checks[r.check_id]
    assert c.truncated_bytes > 0 and len(c.output.encode()) < OUTPUT_CAP_BYTES + 200
    assert c.output.startswith("line 0000000 ") and f"line {n - 1:07d} " in c.output


def test_endless_output_is_stopped_at_the_size_limit(tmp_path):
    r = CheckRun("yes flood", tmp_path, timeout_s=120, max_output_bytes=2_000_000).run()
    assert r.flooded and not r.passed and r.status == "flooded"
    assert r.output_bytes >= 2_000_000 and r.output.startswith("flood\nflood\n")


def test_a_command_that_cannot_start_is_reported_not_raised(tmp_path, session):
    r = CheckRun("echo hi", tmp_path / "missing", session=session).run()
    assert r.exit_code is None and r.error and "cannot start" in r.error
    assert session.state.checks[r.check_id].status == "done"


def test_scratch_worktree_matches_what_the_user_runs_and_leaves_their_tree_untouched(tmp_path, session):
    repo = session.root
    (repo / "train.py").write_text(LOOP.replace('print("done")', 'print("done, edited")'))   # uncommitted edit
    (repo / "helper.py").write_text("X = 1\n")                                                 # untracked
    (repo / "notes.txt").write_text("mine\n")
    before, status_before = tree_hash(repo), git(repo, "status", "--porcelain")
    with ScratchWorktree(repo) as wt:
        assert wt.is_worktree and wt.path != repo
        assert (wt.path / "helper.py").read_text() == "X = 1\n"
        changed = wt.instrument(SNIPPET)
        assert changed == "train.py"
        diff = wt.diff()
        assert diff.startswith("--- a/train.py\n+++ b/train.py\n")
        assert '+    print(f"step={step} before")' in diff and '+    print(f"step={step} after_step")' in diff
        r = wt.check(f"{PY} train.py", session=session, timeout_s=60).run()
        assert r.exit_code == 0
        assert r.output.splitlines() == [f"step={i} {w}" for i in (1, 2, 3) for w in ("before", "after_backward", "after_step")] + ["done, edited"]
        started = next(e for e in session.events if e.type == "check_started" and e.payload["check_id"] == r.check_id)
        assert started.payload["scratch"] is True and started.payload["instrumentation"] == diff
        scratch_dir = wt.tmp
    assert tree_hash(repo) == before and git(repo, "status", "--porcelain") == status_before
    assert not scratch_dir.exists()
    assert len(git(repo, "worktree", "list", "--porcelain").split("worktree ")) == 2   # only the user's own


def test_instrumented_lines_keep_the_loop_indentation(tmp_path):
    repo = make_repo(tmp_path / "r", {"train.py": LOOP})
    with ScratchWorktree(repo) as wt:
        wt.instrument(SNIPPET)
        text = wt.read("train.py")
        compile(text, "train.py", "exec")
        assert '    print(f"step={step} before")\n    loss.backward()\n' in text


def test_scratch_outside_git_is_a_plain_copy(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "train.py").write_text(LOOP)
    before = tree_hash(plain)
    with ScratchWorktree(plain) as wt:
        assert not wt.is_worktree
        wt.instrument(SNIPPET)
        r = wt.check(f"{PY} train.py", timeout_s=60).run()
        assert "step=3 after_step" in r.output
        tmp = wt.tmp
    assert tree_hash(plain) == before and not tmp.exists()


def test_instrumentation_without_a_place_says_so(tmp_path):
    repo = make_repo(tmp_path / "r", {"train.py": "print('no loop here')\n"})
    with ScratchWorktree(repo) as wt:
        with pytest.raises(ScratchError, match="no place found"):
            wt.instrument(SNIPPET)
        wt.insert("train.py", 1, "print('manual')")
        assert wt.read("train.py").splitlines()[1] == "print('manual')"
        assert "+print('manual')" in wt.diff()


def test_checks_end_when_the_program_exits(tmp_path):
    """The UI process going away (here: exiting while a check runs in a worker thread) ends the check's group."""
    prog = tmp_path / "prog.py"
    prog.write_text(
        "import sys, threading\n"
        "from mltdbg.sessions.checks import CheckRun\n"
        "seen = threading.Event()\n"
        "def on_line(line):\n"
        "    print(line, flush=True)\n"
        "    seen.set()\n"
        "run = CheckRun('sleep 300 & echo child $!; wait', '.', timeout_s=600, on_line=on_line)\n"
        "threading.Thread(target=run.run, daemon=True).start()\n"
        "seen.wait(30)\n"
        "sys.exit(0)\n")
    out = subprocess.run([PY, str(prog)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    pid = int(out.stdout.split("child ")[1].split()[0])
    assert not alive(pid)


def test_background_children_end_with_the_check(tmp_path):
    r = CheckRun("sleep 300 & echo child $!", tmp_path, timeout_s=60, kill_grace_s=0.5).run()
    assert r.exit_code == 0 and not r.cancelled
    assert not alive(int(r.output.split()[1]))


def test_scratch_of_a_folder_inside_the_repo(tmp_path):
    repo = make_repo(tmp_path / "r", {"proj/train.py": LOOP, "README.md": "x\n"})
    (repo / "proj" / "train.py").write_text(LOOP + "# edited\n")
    before = tree_hash(repo)
    with ScratchWorktree(repo / "proj") as wt:
        assert wt.path.name == "proj" and wt.read("train.py").endswith("# edited\n")
        wt.instrument(SNIPPET)
        assert "step=1 before" in wt.check(f"{PY} train.py", timeout_s=60).run().output
    assert tree_hash(repo) == before
    assert len(git(repo, "worktree", "list", "--porcelain").split("worktree ")) == 2
