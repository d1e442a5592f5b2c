"""Running an approved check command in its own process group. UI-free.

    run = CheckRun("python train.py --steps 3", cwd=repo, timeout_s=120, session=s,
                   hypothesis_id="missing_zero_grad", on_line=print)
    result = run.run()          # blocking: call it from a worker thread; run.cancel() from any thread

A check runs in its own process group (`start_new_session=True`) so cancel and
timeout end it and everything it spawned (SIGTERM, then SIGKILL after a grace
period). Output is read in the calling thread, so the session is only ever
appended to from that one thread; `check_output` events are batched (one per
OUTPUT_FLUSH_S or OUTPUT_FLUSH_BYTES) because each append is fsynced.
Nothing here writes to the user's tree. Instrumented checks run in a scratch copy
(mltdbg.sessions.scratch); whether a command should be flagged before it runs is
mltdbg.analyzers.common.safety.
"""
from __future__ import annotations

import atexit
import os
import selectors
import signal
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from mltdbg.sessions.procs import group_alive as _group_alive
from mltdbg.sessions.procs import process_start  # noqa: F401 - re-exported: scratch and tests import it from here
from mltdbg.sessions.procs import signal_group as _signal_group
from mltdbg.sessions.session import MARKER_HEADER, OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES, keep_marker_lines, line_cut

DEFAULT_TIMEOUT_S = 600.0
KILL_GRACE_S = 3.0              # SIGTERM -> SIGKILL
OUTPUT_FLUSH_S = 0.25           # batch check_output events: each append is an fsync
OUTPUT_FLUSH_BYTES = 16 * 1024
CALLBACK_LINES_PER_S = 200      # more than this per second is counted, not shown live: the UI stays responsive
MAX_OUTPUT_BYTES = 256 * 1024 * 1024   # a check printing more than this is stopped (flood)
_READ_SIZE = 64 * 1024

_live: "weakref.WeakSet[CheckRun]" = weakref.WeakSet()


@dataclass
class CheckResult:
    """What a finished check did. `output` is capped: head and tail kept, the middle counted."""

    check_id: str
    command: str
    cwd: str
    exit_code: int | None          # negative: killed by that signal
    duration_s: float
    timed_out: bool = False
    cancelled: bool = False
    interrupted: bool = False      # cancelled because the UI ended (quit, hangup), not by the user's x
    flooded: bool = False          # stopped for printing more than max_output_bytes
    output: str = ""
    output_bytes: int = 0          # everything it printed
    truncated_bytes: int = 0       # not kept in `output`
    lines: int = 0
    error: str | None = None       # could not start (the message says why)

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not (self.timed_out or self.cancelled or self.flooded)

    @property
    def status(self) -> str:
        if self.error:
            return "error"
        return "interrupted" if self.interrupted else "cancelled" if self.cancelled else "timed_out" if self.timed_out else \
            "flooded" if self.flooded else "done"


class CheckRun:
    """One run of a shell command in its own process group, output streamed and capped.

    command: a shell command line (run with /bin/sh, as the user approved it).
    cwd: where it runs (the repo root or a scratch copy). timeout_s: then it is ended.
    session: a writable Session to record check_started/check_output/check_finished in (optional).
    on_line(str): called per output line (without newline) in the thread that calls run();
        beyond CALLBACK_LINES_PER_S a line "[... N lines not shown live ...]" replaces the rest.
    env: extra environment variables (PYTHONUNBUFFERED=1 is set so Python output streams live).
    """

    def __init__(self, command: str, cwd: str | Path, timeout_s: float | None = DEFAULT_TIMEOUT_S,
                 session: Any = None, hypothesis_id: str | None = None,
                 on_line: Callable[[str], None] | None = None, env: dict[str, str] | None = None,
                 kill_grace_s: float = KILL_GRACE_S, max_output_bytes: int = MAX_OUTPUT_BYTES,
                 record: dict[str, Any] | None = None):
        self.command = command
        self.cwd = Path(cwd)
        self.timeout_s = timeout_s
        self.session = session
        self.hypothesis_id = hypothesis_id
        self.on_line = on_line
        self.env = env
        self.kill_grace_s = kill_grace_s
        self.max_output_bytes = max_output_bytes
        self.record = dict(record or {})    # extra check_started payload (e.g. the instrumentation diff)
        self.check_id = session.new_check_id() if session is not None else f"c-{os.urandom(2).hex()}"
        self.proc: subprocess.Popen | None = None
        self.result: CheckResult | None = None
        self._cancel = threading.Event()
        self._interrupted = False
        self._term_at: float | None = None  # when SIGTERM went to the group
        self._killed = False

    # ----- control (any thread) -------------------------------------------------------------
    def cancel(self, interrupted: bool = False) -> None:
        """End the check and everything it started: SIGTERM to the group now, SIGKILL after the grace period
        (sent by the thread running `run()`). Safe to call at any time, from any thread. interrupted: the
        UI is ending (quit, hangup, exit), so the result is recorded as interrupted, the same status a
        resume gives a check whose finish never reached the log, whichever of the two wins the race."""
        if interrupted:
            self._interrupted = True
        self._cancel.set()
        self._terminate()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.result is None

    # ----- running (one thread) -------------------------------------------------------------
    def run(self) -> CheckResult:
        """Start the command, stream its output until it ends, record it; returns the result. Never raises
        for a failing command; a command that cannot start gives exit_code None and `error`."""
        start = time.monotonic()
        started = {"check_id": self.check_id, "command": self.command, "cwd": str(self.cwd),
                   "timeout_s": self.timeout_s, "hypothesis_id": self.hypothesis_id, **self.record}
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **(self.env or {})}
        try:
            self.proc = subprocess.Popen(self.command, shell=True, cwd=self.cwd, env=env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as e:
            self._record("check_started", started)
            res = CheckResult(self.check_id, self.command, str(self.cwd), None, time.monotonic() - start,
                              error=f"cannot start: {e.strerror or e}")
            self._record("check_output", {"check_id": self.check_id, "chunk": res.error + "\n"})
            return self._finish(res)
        # Recorded once the process exists: its group (the session leader's pid, start_new_session) and
        # when the kernel started it, so a later start can tell a check this crashed app left running
        # from an unrelated process that reuses the pid, and end the group.
        self._record("check_started", {**started, "pid": self.proc.pid, "pgid": self.proc.pid,
                                       "proc_start": process_start(self.proc.pid)})
        _live.add(self)
        if self._cancel.is_set():            # cancelled before the process existed
            self._terminate()
        out = _Capture(self)
        timed_out = flooded = False
        deadline = start + self.timeout_s if self.timeout_s else None
        sel = selectors.DefaultSelector()
        fd = self.proc.stdout.fileno()
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
        eof = False
        exited_at: float | None = None
        try:
            while not eof:
                now = time.monotonic()
                if deadline is not None and now >= deadline and not self._stopping:
                    timed_out = True
                    self._terminate()
                if self._stopping and not self._killed and now - self._term_at >= self.kill_grace_s:
                    self._kill()
                if exited_at is None and self.proc.poll() is not None:
                    exited_at = now
                # The main process is gone but something it left (a daemon that escaped the group)
                # holds the pipe open: stop reading after the grace period.
                if exited_at is not None and now - exited_at > self.kill_grace_s:
                    break
                for _ in sel.select(timeout=0.05):
                    try:
                        data = os.read(fd, _READ_SIZE)
                    except BlockingIOError:
                        continue
                    if not data:
                        eof = True
                        break
                    out.feed(data)
                    if out.total > self.max_output_bytes and not self._stopping:
                        flooded = True
                        self._terminate()
                out.tick()
        finally:
            sel.close()
            self.proc.stdout.close()
        code = self.proc.wait()
        # The leader is gone. Whatever it left in its group (background children) ends with the check:
        # SIGTERM, what is left of the grace period, then SIGKILL. Return only once they are gone
        # (bounded: an orphan nobody reaps stays a zombie member of the group).
        if _group_alive(self.proc.pid):
            self._terminate()
            while _group_alive(self.proc.pid) and time.monotonic() - self._term_at < self.kill_grace_s:
                time.sleep(0.02)
            if _group_alive(self.proc.pid):
                self._kill()
                t0 = time.monotonic()
                while _group_alive(self.proc.pid) and time.monotonic() - t0 < 1.0:
                    time.sleep(0.01)
        out.close()
        res = CheckResult(self.check_id, self.command, str(self.cwd), code, time.monotonic() - start,
                          timed_out=timed_out, cancelled=self._cancel.is_set(),
                          interrupted=self._interrupted, flooded=flooded,
                          output=out.text(), output_bytes=out.total, truncated_bytes=out.dropped, lines=out.lines)
        _live.discard(self)
        return self._finish(res)

    def _finish(self, res: CheckResult) -> CheckResult:
        self.result = res
        extra: dict[str, Any] = {"flooded": True} if res.flooded else {}
        if res.interrupted:
            extra["interrupted"] = True
        if res.error:
            extra["error"] = res.error
        self._record("check_finished", {"check_id": self.check_id, "exit_code": res.exit_code,
                                        "duration_s": round(res.duration_s, 3), "timed_out": res.timed_out,
                                        "cancelled": res.cancelled, "output_bytes": res.output_bytes, **extra})
        return res

    @property
    def _stopping(self) -> bool:
        return self._term_at is not None

    def _terminate(self) -> None:
        if self.proc is None or self._term_at is not None:
            return
        self._term_at = time.monotonic()
        _signal_group(self.proc.pid, signal.SIGTERM)

    def _kill(self) -> None:
        self._killed = True
        _signal_group(self.proc.pid, signal.SIGKILL)

    def _record(self, type: str, payload: dict[str, Any]) -> None:
        if self.session is not None:
            self.session.append(type, payload)


def cancel_all(grace_s: float = 1.0) -> None:
    """End every check still running in this process: SIGTERM to each group, SIGKILL to what is left after
    grace_s. The UI calls it when it exits or loses its terminal; it also runs at interpreter exit."""
    runs = [r for r in list(_live) if r.proc is not None]
    for run in runs:
        run.cancel(interrupted=True)
    t0 = time.monotonic()
    while any(_group_alive(r.proc.pid) for r in runs) and time.monotonic() - t0 < grace_s:
        time.sleep(0.02)
    for run in runs:
        _signal_group(run.proc.pid, signal.SIGKILL)


atexit.register(cancel_all)


class _Capture:
    """A check's output: head and tail kept in memory, lines to the callback (rate-limited), batched events."""

    def __init__(self, run: CheckRun):
        self.run = run
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self.marks = bytearray()    # `[mltdbg]` lines of the dropped middle (bounded, session.keep_marker_lines)
        self.total = 0
        self.lines = 0
        self.partial = b""          # an unfinished last line for the callback
        self.pending = bytearray()  # not yet sent as a check_output event
        self.last_flush = time.monotonic()
        self.window = time.monotonic()
        self.shown = 0
        self.hidden = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self.lines += data.count(b"\n")
        room = OUTPUT_HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data_tail = data[room:]
        else:
            data_tail = data
        if data_tail:
            self.tail += data_tail
            if len(self.tail) > 2 * OUTPUT_TAIL_BYTES:   # trim in batches, not per chunk
                self._cut()
        if self.run.session is not None:
            self.pending += data
        if self.run.on_line is not None:
            self._lines(data)
        if len(self.pending) >= OUTPUT_FLUSH_BYTES:
            self.flush()

    def _lines(self, data: bytes) -> None:
        buf = self.partial + data
        cut = buf.rfind(b"\n")
        if cut < 0:
            self.partial = buf[-OUTPUT_TAIL_BYTES:]     # a newline-free flood must not grow without bound
            return
        self.partial = buf[cut + 1:]
        now = time.monotonic()
        if now - self.window >= 1.0:
            self._report_hidden()
            self.window, self.shown = now, 0
        room = CALLBACK_LINES_PER_S - self.shown
        if room <= 0:
            self.hidden += buf.count(b"\n", 0, cut + 1)
            return
        lines = buf[:cut].split(b"\n")
        if len(lines) > room:
            self.hidden += len(lines) - room
            lines = lines[:room]
        self.shown += len(lines)
        for ln in lines:
            self.run.on_line(ln.decode("utf-8", "replace").rstrip("\r"))

    def _report_hidden(self) -> None:
        if self.hidden:
            self.run.on_line(f"[... {self.hidden} lines not shown live: output too fast; kept in the check's output ...]")
            self.hidden = 0

    def tick(self) -> None:
        if self.pending and time.monotonic() - self.last_flush >= OUTPUT_FLUSH_S:
            self.flush()
        if self.run.on_line is not None and self.hidden and time.monotonic() - self.window >= 1.0:
            self._report_hidden()
            self.window, self.shown = time.monotonic(), 0

    def flush(self) -> None:
        self.last_flush = time.monotonic()
        if not self.pending or self.run.session is None:
            return
        # Decode only whole characters; a split multi-byte character waits for the next chunk.
        data = bytes(self.pending)
        keep = _incomplete_utf8_suffix(data)
        chunk, self.pending = data[:len(data) - keep], bytearray(data[len(data) - keep:])
        self.run.session.append("check_output", {"check_id": self.run.check_id,
                                                 "chunk": chunk.decode("utf-8", "replace")})

    def close(self) -> None:
        if self.run.on_line is not None:
            if self.partial:
                self.run.on_line(self.partial.decode("utf-8", "replace"))
            self._report_hidden()
        if self.pending and self.run.session is not None:
            self.run.session.append("check_output", {"check_id": self.run.check_id,
                                                     "chunk": bytes(self.pending).decode("utf-8", "replace")})
            self.pending.clear()

    def _cut(self) -> None:
        cut = line_cut(self.tail, len(self.tail) - OUTPUT_TAIL_BYTES)
        keep_marker_lines(self.tail[:cut], self.marks)
        self.dropped += cut
        del self.tail[:cut]

    def text(self) -> str:
        """Head, the kept marker lines of the dropped middle, the count of bytes not kept, the tail."""
        if len(self.tail) > OUTPUT_TAIL_BYTES:
            self._cut()
        s = self.head.decode("utf-8", "replace")
        if self.marks:
            s += "\n" + MARKER_HEADER + self.marks.decode("utf-8", "replace")
        if self.dropped:
            s += f"\n[... {self.dropped} bytes of output not kept ...]\n"
        return s + bytes(self.tail).decode("utf-8", "replace")


def _incomplete_utf8_suffix(b: bytes) -> int:
    """How many bytes at the end of b start a UTF-8 character that is not complete yet (0-3)."""
    for i in range(1, min(4, len(b)) + 1):
        c = b[-i]
        if c & 0xC0 == 0x80:        # continuation byte: keep looking for the lead byte
            continue
        need = 2 if c & 0xE0 == 0xC0 else 3 if c & 0xF0 == 0xE0 else 4 if c & 0xF8 == 0xF0 else 1
        return i if need > i else 0
    return 0
