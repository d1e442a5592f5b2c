"""Processes of checks, named for good: a pid plus the kernel's start time of that pid. Linux /proc; UI-free.

In:  a pid / process group id, as `CheckRun` records them in check_started (`pid`, `pgid`, `proc_start`).
Out: `process_start(pid)`, `signal_group`, `group_alive`, and `end_leftover_group(...)`, which a writable
     resume uses to end a check that a crashed mltdbg left running, never a process that merely reuses its pid.
"""
from __future__ import annotations

import os
import signal
import time
from typing import TypeGuard
from pathlib import Path

# A check left by a crashed mltdbg already ran its course: on resume it gets a short SIGTERM grace
# (enough for Python to run its handlers and flush), then SIGKILL, so resuming never hangs for long.
LEFTOVER_GRACE_S = 2.0
LEFTOVER_KILL_WAIT_S = 1.0      # after SIGKILL: how long to wait for the kernel to take the group down


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat fields after the command name (index 0 is field 3, the state), or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        return text.rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def process_start(pid: int) -> int | None:
    """When the kernel started pid (clock ticks since boot, /proc/PID/stat field 22), or None where
    that cannot be read (not Linux, already gone). With the pid it names one process for good."""
    f = _stat(pid)
    try:
        return int(f[19]) if f else None
    except (ValueError, IndexError):
        return None


def signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _group_running(pgid: int) -> bool:
    """Whether the group has a member that is not a zombie (a zombie waits for a parent to reap it and
    does nothing). Scans /proc; without /proc, whether the group exists at all."""
    try:
        pids = [int(n) for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return group_alive(pgid)
    for pid in pids:
        f = _stat(pid)
        if f and len(f) > 2 and f[2] == str(pgid) and f[0] not in ("Z", "X"):
            return True
    return False


def _positive_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def end_leftover_group(pid: object, pgid: object, proc_start: object,
                       grace_s: float = LEFTOVER_GRACE_S) -> str:
    """End the process group of a check a crashed mltdbg left running, if it is still that check.

    It is only when the group's leader (pid == pgid: checks run in their own session) is alive, still
    leads that group, and started at the recorded time (/proc/PID/stat field 22); a pid reused by an
    unrelated process has another start time and is never signalled. SIGTERM to the group, then
    SIGKILL after grace_s. Out: "ended" (gone after SIGTERM), "killed" (needed SIGKILL), "still running"
    (not even SIGKILL helped in time), "gone" (nothing left), "not ours" (pid reused), "unknown"
    (no pid or start time recorded, e.g. an older mltdbg or not Linux: left alone)."""
    if not (_positive_int(pid) and _positive_int(pgid) and _positive_int(proc_start)) or pid != pgid:
        return "unknown"
    f = _stat(pid)
    if f is None or f[0] in ("Z", "X"):
        return "gone"
    try:
        started, group = int(f[19]), int(f[2])
    except (ValueError, IndexError):
        return "unknown"
    if started != proc_start or group != pgid:
        return "not ours"
    signal_group(pgid, signal.SIGTERM)
    t0 = time.monotonic()
    while _group_running(pgid) and time.monotonic() - t0 < grace_s:
        time.sleep(0.02)
    if not _group_running(pgid):
        return "ended"
    signal_group(pgid, signal.SIGKILL)
    t0 = time.monotonic()
    while _group_running(pgid) and time.monotonic() - t0 < LEFTOVER_KILL_WAIT_S:
        time.sleep(0.02)
    return "still running" if _group_running(pgid) else "killed"
