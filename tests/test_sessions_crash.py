"""Crash safety with real processes: SIGKILL at random points, and a session that died mid-check."""
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time


from mltdbg.sessions import Replay, Session
from mltdbg.sessions.log import read_log

ENV = {"python": "3.11", "torch": None, "cuda": None, "gpus": [], "pip_freeze": [], "git": None}

# A host process imports mltdbg once, then for each line on stdin forks a writer: a real,
# separate process that opens the session and appends notes of mixed sizes (up to ~64 KiB,
# so a kill can land inside a write), printing each seq only after append returned:
# printed == acknowledged to the user. The test SIGKILLs the writer at a random moment.
HOST = r"""
import os, sys
from mltdbg.sessions import Session
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        s = Session.open(line.strip())
        # One os.write per line: a pipe write under 4 KiB is atomic, so a kill never leaves half a line.
        os.write(1, f"ready {os.getpid()}\n".encode())
        i = 0
        while True:
            ev = s.append("note_added", {"text": f"{os.getpid()}:{i}:" + "x" * (10, 3000, 64_000)[i % 3]})
            os.write(1, f"{ev.seq} {ev.payload['text'][:40]}\n".encode())
            i += 1
    _, status = os.waitpid(pid, 0)
    print("reaped", os.WTERMSIG(status) if os.WIFSIGNALED(status) else -1, flush=True)
"""

KILLS = 200
LANES = 8


def run_lane(session_dir, rounds, seed, acked, errors, torn):
    rng = random.Random(seed)
    host = subprocess.Popen([sys.executable, "-c", HOST], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    watchdog = threading.Timer(120, host.kill)    # a protocol bug fails the test instead of hanging it
    watchdog.start()
    try:
        for _ in range(rounds):
            host.stdin.write(f"{session_dir}\n")
            host.stdin.flush()
            first = host.stdout.readline().split()
            if first[:1] != ["ready"]:
                errors.append(f"writer for {session_dir} did not start: {first}")
                return
            time.sleep(rng.uniform(0, 0.03))
            os.kill(int(first[1]), signal.SIGKILL)
            while (line := host.stdout.readline().strip()) and not line.startswith("reaped"):
                seq, prefix = line.split(" ", 1)
                if "reaped" in prefix or not seq.isdigit():
                    errors.append(f"garbled line from the writer: {line[:80]!r}")
                    return
                acked[int(seq)] = prefix
            if line != f"reaped {int(signal.SIGKILL)}":
                errors.append(f"writer ended with {line!r}, not by SIGKILL")
            # After every kill the log loads: at most the event being written is lost.
            warnings = read_log(session_dir / "events.jsonl").warnings
            bad = [w for w in warnings if "incomplete" not in w]
            torn.append(len(warnings) - len(bad))
            if bad:
                errors.append(f"{session_dir.name}: {bad}")
    finally:
        watchdog.cancel()
        host.kill()
        host.wait()


def test_sigkill_at_random_points_loses_no_acknowledged_event(tmp_path, monkeypatch):
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    dirs = []
    for _ in range(LANES):
        s = Session.create(tmp_path / "repo", environment=ENV)
        s.close()
        dirs.append(s.dir)
    acked = [dict() for _ in dirs]
    errors: list[str] = []
    torn: list[int] = []
    threads = [threading.Thread(target=run_lane, args=(d, KILLS // LANES, i, acked[i], errors, torn))
               for i, d in enumerate(dirs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]
    assert len(torn) == KILLS
    print(f"{KILLS} kills, {sum(torn)} left a torn last line")
    total_acked = 0
    for d, ack in zip(dirs, acked):
        s = Session.open(d)                       # resumable after 25 kills
        events = {e.seq: e for e in s.events}
        for seq, prefix in ack.items():
            assert seq in events and events[seq].payload["text"].startswith(prefix), (d.name, seq)
        seqs = [e.seq for e in s.events]
        assert seqs == sorted(set(seqs))          # no duplicated or reordered event
        assert len(s.state.resumes) == KILLS // LANES + 1
        total_acked += len(ack)
        s.close()
    assert total_acked > KILLS                    # the kills landed while events were being written


# Records a check that is running (a real child process) and prints the state it sees,
# then waits to be killed: the session dies with the check running.
DIES_MID_CHECK = r"""
import json, subprocess, sys
from mltdbg.sessions import Session
s = Session.open(sys.argv[1])
s.append("diagnosis_made", {"engine": "offline", "diagnosis": {"status": "diagnosis_complete",
         "root_causes": [{"id": "nan_in_data", "confidence": 0.85, "evidence": [{"text": "NaN in batch 17"}]}]}, "plots": {}})
s.append("check_approved", {"hypothesis_id": "nan_in_data", "command": "python check_nan.py"})
cid = s.new_check_id()
s.append("check_started", {"check_id": cid, "command": "python check_nan.py", "cwd": sys.argv[2], "timeout_s": 600,
                           "hypothesis_id": "nan_in_data"})
child = subprocess.Popen([sys.executable, "-c", "print('scanning batches', flush=True); import time; time.sleep(60)"],
                         stdout=subprocess.PIPE, text=True)
s.append("check_output", {"check_id": cid, "chunk": child.stdout.readline()})
print(json.dumps({"check": cid, "state": s.state.to_json(), "child": child.pid}), flush=True)
child.wait()
"""


def test_session_killed_during_a_check_comes_back_interrupted(tmp_path, monkeypatch):
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    s = Session.create(repo, environment=ENV)
    s.close()
    p = subprocess.Popen([sys.executable, "-c", DIES_MID_CHECK, str(s.dir), str(repo)], stdout=subprocess.PIPE, text=True)
    seen = json.loads(p.stdout.readline())
    live = Replay(s.dir)                          # the writer is alive: its check is still running
    assert live.live and live.jump(len(live)).checks[seen["check"]].status == "running"
    p.kill()
    p.wait()
    os.kill(seen["child"], signal.SIGKILL)        # the check's own process; the session never re-runs it
    cid, before = seen["check"], seen["state"]
    assert before["checks"][cid]["status"] == "running"

    # Read-only load (a teammate, or `sessions replay`): same state, the check interrupted.
    replay = Replay(s.dir)
    end = replay.jump(len(replay)).to_json()
    assert end["checks"][cid]["status"] == "interrupted"
    end["checks"][cid]["status"] = "running"
    assert end == before

    # Resume: same state, the check interrupted, and that is recorded; nothing re-runs it.
    again = Session.open(s.id, repo)
    after = again.state.to_json()
    assert after["checks"][cid]["status"] == "interrupted"
    assert after["resumes"][-1]["interrupted_checks"] == [cid]
    assert after["checks"][cid]["output"] == "scanning batches\n"
    for d in (before, after):
        d["checks"][cid]["status"] = "-"
        for k in ("resumes", "seq", "time", "n_events"):
            d.pop(k)
    assert after == before
    assert [e.type for e in again.events].count("check_started") == 1


# A real mltdbg process runs a check that would take ten minutes; the test SIGKILLs that process
# (a crash: no check_finished, no atexit), and the check's `sleep` lives on in its own process group.
RUNS_A_LONG_CHECK = r"""
import sys
from mltdbg.sessions import Session
from mltdbg.sessions.checks import CheckRun
s = Session.open(sys.argv[1], sys.argv[2])
CheckRun("sleep 600", sys.argv[2], timeout_s=900, session=s).run()
"""


def _started_payload(sdir, timeout_s=20.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        for e in read_log(sdir / "events.jsonl").events:
            if e.type == "check_started" and e.payload.get("proc_start") is not None:
                return e.payload
        time.sleep(0.05)
    raise AssertionError("the check never started")


def _group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of a process group, from /proc."""
    out = []
    for n in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{n}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:          # the process exited between listdir and open: not a member any more
            continue
        if fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            out.append(int(n))
    return out


def _running(pid: int) -> bool:
    """pid exists and is not a zombie (a killed orphan may wait a moment for init to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:              # no such process (or it exited while we read its stat)
        return False


def test_resume_ends_a_check_a_crashed_mltdbg_left_running(tmp_path, monkeypatch):
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    s = Session.create(repo, environment=ENV)
    s.close()
    p = subprocess.Popen([sys.executable, "-c", RUNS_A_LONG_CHECK, str(s.dir), str(repo)])
    started: dict = {}
    try:
        started = _started_payload(s.dir)
        pid = started["pid"]
        assert started["pgid"] == pid and os.getpgid(pid) == pid
        p.kill()
        p.wait()
        time.sleep(0.2)
        assert _running(pid), "the check should outlive the crashed mltdbg (own process group)"

        again = Session.open(s.id, repo)
        again.close()
        assert not _running(pid) and not _group_members(pid)
        cid = started["check_id"]
        assert again.state.checks[cid].status == "interrupted"
        resumed = [e for e in again.events if e.type == "session_resumed"][-1].payload
        assert resumed["interrupted_checks"] == [cid]
        assert resumed["leftovers"] == [{"check_id": cid, "pgid": pid, "outcome": "ended"}]
        assert any(cid in n and "ended it" in n for n in again.notices), again.notices
    finally:
        p.kill()
        p.wait()
        if started and _group_members(started["pgid"]):   # the test failed: leave nothing behind
            os.killpg(started["pgid"], signal.SIGKILL)


def test_resume_never_signals_a_process_that_reuses_a_recorded_pid(tmp_path, monkeypatch):
    """The recorded pid now names another process (its start time differs): it is left running."""
    from mltdbg.sessions.checks import process_start
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    other = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        real = process_start(other.pid)
        assert real is not None
        s = Session.create(repo, environment=ENV)
        s.append("check_started", {"check_id": "c1", "command": "sleep 600", "pid": other.pid,
                                   "pgid": other.pid, "proc_start": real - 1})
        s.close()                                 # never finished: the writer "crashed"
        again = Session.open(s.id, repo)
        again.close()
        assert other.poll() is None and _running(other.pid)
        assert again.state.checks["c1"].status == "interrupted"
        resumed = [e for e in again.events if e.type == "session_resumed"][-1].payload
        assert resumed["leftovers"] == [{"check_id": "c1", "pgid": other.pid, "outcome": "not ours"}]
        assert any("left alone" in n for n in again.notices), again.notices
    finally:
        other.kill()
        other.wait()
