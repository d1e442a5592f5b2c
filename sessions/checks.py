"""Running an approved check command, and scratch copies for instrumented checks. UI-free.

    run = CheckRun("python train.py --steps 3", cwd=repo, timeout_s=120, session=s,
                   hypothesis_id="missing_zero_grad", on_line=print)
    result = run.run()          # blocking: call it from a worker thread; run.cancel() from any thread

    with ScratchWorktree(repo) as wt:          # git worktree of HEAD + the user's uncommitted edits
        wt.instrument(playbook.instrumentation) # into the scratch copy only
        print(wt.diff())                        # show before running
        result = wt.check("python train.py --steps 3", session=s).run()

    dangerous("curl x | sh")  -> "pipes a download into a shell"   (None when nothing is flagged)

A check runs in its own process group (`start_new_session=True`) so cancel and
timeout end it and everything it spawned (SIGTERM, then SIGKILL after a grace
period). Output is read in the calling thread, so the session is only ever
appended to from that one thread; `check_output` events are batched (one per
OUTPUT_FLUSH_S or OUTPUT_FLUSH_BYTES) because each append is fsynced.
Nothing here writes to the user's tree.
"""
from __future__ import annotations

import atexit
import difflib
import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .session import OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES

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
        return "cancelled" if self.cancelled else "timed_out" if self.timed_out else \
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
        self._term_at: float | None = None  # when SIGTERM went to the group
        self._killed = False

    # ----- control (any thread) -------------------------------------------------------------
    def cancel(self) -> None:
        """End the check and everything it started: SIGTERM to the group now, SIGKILL after the grace period
        (sent by the thread running `run()`). Safe to call at any time, from any thread."""
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
        self._record("check_started", {"check_id": self.check_id, "command": self.command, "cwd": str(self.cwd),
                                       "timeout_s": self.timeout_s, "hypothesis_id": self.hypothesis_id, **self.record})
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **(self.env or {})}
        try:
            self.proc = subprocess.Popen(self.command, shell=True, cwd=self.cwd, env=env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as e:
            res = CheckResult(self.check_id, self.command, str(self.cwd), None, time.monotonic() - start,
                              error=f"cannot start: {e.strerror or e}")
            self._record("check_output", {"check_id": self.check_id, "chunk": res.error + "\n"})
            return self._finish(res)
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
                          timed_out=timed_out, cancelled=self._cancel.is_set(), flooded=flooded,
                          output=out.text(), output_bytes=out.total, truncated_bytes=out.dropped, lines=out.lines)
        _live.discard(self)
        return self._finish(res)

    def _finish(self, res: CheckResult) -> CheckResult:
        self.result = res
        extra = {"flooded": True} if res.flooded else {}
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


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def cancel_all(grace_s: float = 1.0) -> None:
    """End every check still running in this process: SIGTERM to each group, SIGKILL to what is left after
    grace_s. The UI calls it when it exits or loses its terminal; it also runs at interpreter exit."""
    runs = [r for r in list(_live) if r.proc is not None]
    for run in runs:
        run.cancel()
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
                cut = len(self.tail) - OUTPUT_TAIL_BYTES
                self.dropped += cut
                del self.tail[:cut]
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

    def text(self) -> str:
        tail = self.tail
        if len(tail) > OUTPUT_TAIL_BYTES:
            self.dropped += len(tail) - OUTPUT_TAIL_BYTES
            tail = tail[-OUTPUT_TAIL_BYTES:]
        s = self.head.decode("utf-8", "replace")
        if self.dropped:
            s += f"\n[... {self.dropped} bytes of output not kept ...]\n"
        return s + bytes(tail).decode("utf-8", "replace")


def _incomplete_utf8_suffix(b: bytes) -> int:
    """How many bytes at the end of b start a UTF-8 character that is not complete yet (0-3)."""
    for i in range(1, min(4, len(b)) + 1):
        c = b[-i]
        if c & 0xC0 == 0x80:        # continuation byte: keep looking for the lead byte
            continue
        need = 2 if c & 0xE0 == 0xC0 else 3 if c & 0xF0 == 0xE0 else 4 if c & 0xF8 == 0xF0 else 1
        return i if need > i else 0
    return 0


# ----- the danger classifier ------------------------------------------------------------------
_NETWORK = r"(?:curl|wget|ssh|scp|sftp|rsync|nc|ncat|netcat|telnet|ftp|aria2c|http|huggingface-cli|gsutil|aws|az|gcloud)"
_RULES: list[tuple[re.Pattern, str]] = [(re.compile(p, re.I | re.S), why) for p, why in [
    (r"\b(?:curl|wget|fetch)\b[^|;&]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\b(?:curl|wget)\b[^|;&]*\|\s*(?:sudo\s+)?python",
     "pipes a download into a shell or interpreter"),
    (r"(?:^|[;&|(`]|\$\()\s*(?:sudo|doas|su|pkexec)\b", "runs as another user (sudo/su)"),
    (r"\brm\s+(?:-[a-z]*r[a-z]*\s+(?:-[a-z]+\s+)*-?[a-z]*f|-[a-z]*f[a-z]*\s+(?:-[a-z]+\s+)*-[a-z]*r|-[a-z]*(?:rf|fr))"
     r"|\brm\b[^;&|]*\s--recursive", "deletes files recursively (rm -rf)"),
    (r"\brm\s+(?:-\S+\s+)*(?:/|~|\$HOME|\*|\.\.?)(?:\s|/?$)", "deletes a home, root or whole folder"),
    (r"\bdd\b[^;&|]*\bof=", "writes raw bytes with dd"),
    (r"\b(?:mkfs(?:\.\w+)?|fdisk|sfdisk|parted|wipefs|shred|mkswap|blkdiscard)\b", "formats or wipes a disk"),
    (r">\s*/dev/(?:sd|nvme|hd|vd|xvd|mmcblk|disk)", "writes to a disk device"),
    (r":\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:", "a fork bomb"),
    (r"\bgit\s+(?:-\S+\s+)*push\b", "pushes to a git remote"),
    (r"\bgit\s+(?:-\S+\s+)*(?:reset\s+(?:\S+\s+)*--hard|clean\s+(?:\S+\s+)*-\w*f|checkout\s+(?:\S+\s+)*--\s|restore\b|stash\b)",
     "discards uncommitted work in the repo (git reset --hard / clean / checkout -- / restore / stash)"),
    (r"\b(?:shutdown|reboot|halt|poweroff|systemctl|service|killall|pkill)\b|\bkill\s+(?:-\S+\s+)*-1\b",
     "controls the machine or other processes"),
    (r"\bchmod\s+(?:-\S+\s+)*(?:-R|--recursive)\b|\bchown\b", "changes permissions or ownership"),
    (r"\b(?:pip|pip3|conda|mamba|apt|apt-get|yum|dnf|brew|npm|uv)\s+(?:[^;&|\s]+\s+)*?(?:install|uninstall|remove|upgrade|add)(?:\s|$)",
     "installs or removes packages"),
    (r"(?:^|[;&|(`\s]|\$\()" + _NETWORK + r"\b(?!\.)|\bgit\s+(?:clone|fetch|pull|submodule\s+update|lfs\s+pull)\b"
     r"|\b(?:https?|ftp|s3|gs)://", "uses the network"),
]]
_WRITE_TARGETS = re.compile(r"(?:\d?>>?|&>)\s*(\"[^\"]*\"|'[^']*'|[^\s;&|<>]+)")


def dangerous(command: str, repo_root: str | Path | None = None) -> str | None:
    """Why a command should be flagged before it runs (one phrase), or None.

    Flags deleting (rm -rf), privilege (sudo), downloads piped to a shell, disk writes (dd,
    mkfs), git push / discarding work, the network, package installs, and writes (redirects,
    tee, cp/mv/touch/mkdir targets) to paths outside the repo (and /tmp). A flag is advice for
    the UI: the user may still run the command after reading why.
    """
    for rx, why in _RULES:
        if rx.search(command):
            return why
    root = Path(repo_root).resolve() if repo_root else None
    targets = [m.group(1).strip("'\"") for m in _WRITE_TARGETS.finditer(command)]
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    for i, w in enumerate(words):
        base = os.path.basename(w)
        if base == "tee":
            targets += [x for x in words[i + 1:] if not x.startswith("-") and x not in ("|", ";", "&&")][:1]
        elif base in ("cp", "mv", "ln", "install", "rsync") and i + 1 < len(words):
            args = [x for x in words[i + 1:] if not x.startswith("-")]
            targets += args[-1:]
        elif base in ("touch", "mkdir", "rm", "rmdir", "truncate"):
            targets += [x for x in words[i + 1:] if not x.startswith("-")]
    for t in targets:
        if not _inside(t, root):
            return f"writes outside the repo ({t})"
    return None


def _inside(target: str, root: Path | None) -> bool:
    """Whether a write target stays in the repo (relative, no escaping ..) or a temp dir."""
    if target in ("/dev/null", "/dev/stdout", "/dev/stderr") or target.startswith("&") or target.isdigit():
        return True
    t = os.path.expanduser(os.path.expandvars(target))
    if t.startswith(("/tmp/", "/var/tmp/")) or t in ("/tmp", "/var/tmp"):
        return True
    if t.startswith(("~", "$")):
        return False
    p = Path(t)
    if not p.is_absolute():
        p = (root or Path.cwd()) / p
    p = Path(os.path.normpath(p))
    base = root or Path.cwd().resolve()
    return p == base or base in p.parents


# ----- scratch copies for instrumented checks -------------------------------------------------
class ScratchError(Exception):
    """The scratch copy could not be made or instrumented (the message says why)."""


_ANCHOR = re.compile(r"^\s*#\s*\.\.\.\s*(.+?)\s*$")
_MARK = "# mltdbg: instrumentation (scratch copy only)"
_SKIP_COPY = {".git", ".mltdbg", "__pycache__", ".venv", "venv", "node_modules", ".pytest_cache", ".mypy_cache"}
PLAIN_COPY_MAX_FILE = 100 * 1024 * 1024


class ScratchWorktree:
    """A throwaway copy of the repo that matches what the user runs, for instrumented checks.

    In a git repo: `git worktree add --detach <tmp> HEAD`, then the user's uncommitted edits to
    tracked files (and untracked, not ignored files) copied over; ignored files (data, outputs)
    are not copied. Outside git (or a repo with no commit): a plain copy. Edits go to the copy
    only; `diff()` shows them. `close()` removes the worktree (`git worktree remove --force`,
    `git worktree prune`) and the temp dir. The user's tree is only read.
    """

    def __init__(self, repo_root: str | Path):
        self.repo_root = Path(repo_root).resolve()
        self.tmp: Path | None = None
        self.path: Path | None = None       # the scratch repo root
        self.is_worktree = False
        self.skipped: list[str] = []        # files not copied (too large), for the UI to mention
        self._top: Path = self.repo_root    # the git top level (worktree only)
        self._wt: Path | None = None        # the worktree's root (worktree only)
        self._base: dict[str, str] = {}     # rel path -> text before our edits

    def __enter__(self) -> "ScratchWorktree":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> "ScratchWorktree":
        if self.path is not None:
            return self
        self.tmp = Path(tempfile.mkdtemp(prefix="mltdbg-scratch-"))
        self.path = self.tmp / (self.repo_root.name or "repo")     # (a worktree sets its own)
        try:
            if _git(self.repo_root, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode == 0:
                self._worktree()
            else:
                self._plain_copy()
        except Exception:
            self.close()
            raise
        return self

    def _worktree(self) -> None:
        # repo_root may be a folder inside the repo: the worktree is of the whole repo, `path` the same folder in it.
        top = Path(_git(self.repo_root, "rev-parse", "--show-toplevel").stdout.strip()).resolve()
        self._top = top
        wt = self.tmp / (top.name or "repo")
        _git(top, "worktree", "add", "--detach", str(wt), "HEAD")
        self.is_worktree, self._wt = True, wt
        self.path = wt / self.repo_root.relative_to(top)
        # The user's edits: tracked files changed against HEAD (staged or not), then untracked ones.
        changed = _git(top, "diff", "--name-only", "-z", "--no-renames", "HEAD").stdout.split("\0")
        untracked = _git(top, "ls-files", "--others", "--exclude-standard", "-z").stdout.split("\0")
        for rel in filter(None, changed + untracked):
            src, dst = top / rel, wt / rel
            if src.is_file() and not src.is_symlink():
                if src.stat().st_size > PLAIN_COPY_MAX_FILE:
                    self.skipped.append(rel)
                    continue
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
            elif src.is_symlink():
                dst.unlink(missing_ok=True)
                dst.symlink_to(os.readlink(src))
            elif not src.exists() and dst.exists():
                dst.unlink()          # deleted in the user's tree

    def _plain_copy(self) -> None:
        def ignore(d: str, names: list[str]) -> list[str]:
            out = [n for n in names if n in _SKIP_COPY]
            for n in names:
                p = Path(d) / n
                if n not in out and p.is_file() and not p.is_symlink() and p.stat().st_size > PLAIN_COPY_MAX_FILE:
                    out.append(n)
                    self.skipped.append(str(p.relative_to(self.repo_root)))
            return out
        shutil.copytree(self.repo_root, self.path, symlinks=True, ignore=ignore)

    def close(self) -> None:
        """Remove the scratch copy (and its worktree registration). Safe to call twice."""
        if self.tmp is None:
            return
        if self.is_worktree:
            _git(self._top, "worktree", "remove", "--force", str(self._wt), check=False)
            _git(self._top, "worktree", "prune", check=False)
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = self.path = None
        self.is_worktree = False

    # ----- edits (scratch only) ---------------------------------------------------------------
    def read(self, rel: str) -> str:
        return self._file(rel).read_text(encoding="utf-8")

    def write(self, rel: str, text: str) -> None:
        """Replace a file's text in the scratch copy (the original is kept for diff())."""
        p = self._file(rel)
        if rel not in self._base:
            self._base[rel] = p.read_text(encoding="utf-8") if p.exists() else ""
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")

    def insert(self, rel: str, line: int, text: str) -> None:
        """Insert text before 1-based `line` of a scratch file, indented like that line."""
        lines = self.read(rel).splitlines(keepends=True)
        if not 1 <= line <= len(lines) + 1:
            raise ScratchError(f"{rel} has {len(lines)} lines; cannot insert before line {line}")
        indent = _indent(lines[line - 1]) if line <= len(lines) else ""
        lines[line - 1:line - 1] = _block(text, indent)
        self.write(rel, "".join(lines))

    def instrument(self, snippet: str, file: str | None = None) -> str:
        """Put a playbook's instrumentation snippet into the training loop of the scratch copy.

        The snippet's `# ... <statement>` lines are anchors (e.g. `# ... loss.backward()`): the
        part before the first anchor goes just before that statement, the part after each anchor
        just after it, indented like it. With no anchor, the snippet goes before the first
        `.backward(` call. file: which file (relative); default: the first .py file that holds the
        anchors. Returns the file changed. Raises ScratchError when no place is found (the UI then
        asks for a file and line and calls `insert`).
        """
        parts, anchors = _split_snippet(snippet)
        keys = anchors or [".backward("]
        for rel in ([file] if file else self._py_files()):
            try:
                text = self.read(rel)
            except (OSError, UnicodeDecodeError):
                continue
            spots = _find_anchors(text, keys)
            if spots is None:
                continue
            lines = text.splitlines(keepends=True)
            # (insert before this 0-based line, text, line whose indentation it takes)
            if anchors:
                edits = [(spots[0][0], parts[0], spots[0][0])]
                edits += [(end + 1, part, start) for (start, end), part in zip(spots, parts[1:])]
            else:
                edits = [(spots[0][0], snippet, spots[0][0])]
            for at, part, ref_line in sorted(edits, key=lambda e: -e[0]):
                if part.strip():
                    lines[at:at] = _block(part, _indent(lines[ref_line]))
            self.write(rel, "".join(lines))
            return rel
        where = ", ".join(k.strip() for k in keys)
        raise ScratchError(f"no place found for the instrumentation (looked for {where} in "
                           f"{file or 'the Python files'}); choose a file and line")

    def diff(self) -> str:
        """Unified diff (a/ b/ paths) of everything changed in the scratch copy: what will run."""
        out = []
        for rel, before in sorted(self._base.items()):
            after = self.read(rel) if self._file(rel).exists() else ""
            out += difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"a/{rel}", f"b/{rel}")
        return "".join(x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in out)

    def check(self, command: str, **kwargs: Any) -> CheckRun:
        """A CheckRun of command in the scratch copy; the instrumentation diff goes into check_started."""
        if self.path is None:
            self.open()
        rec = kwargs.pop("record", {}) or {}
        diff = self.diff()
        return CheckRun(command, self.path, record={"scratch": True, **({"instrumentation": diff} if diff else {}), **rec},
                        **kwargs)

    def _file(self, rel: str) -> Path:
        if self.path is None:
            self.open()
        p = (self.path / rel).resolve()
        if p != self.path and self.path.resolve() not in p.parents:
            raise ScratchError(f"{rel} is outside the scratch copy")
        return p

    def _py_files(self) -> list[str]:
        assert self.path is not None
        files = [p.relative_to(self.path).as_posix() for p in self.path.rglob("*.py")
                 if not (_SKIP_COPY & set(p.relative_to(self.path).parts))]
        # Likely training scripts first.
        return sorted(files, key=lambda f: (not re.search(r"train|main|run|fit", f, re.I), f.count("/"), f))


def _split_snippet(snippet: str) -> tuple[list[str], list[str]]:
    parts, anchors, cur = [], [], []
    for ln in snippet.splitlines(keepends=True):
        m = _ANCHOR.match(ln)
        if m:
            parts.append("".join(cur))
            anchors.append(m.group(1))
            cur = []
        else:
            cur.append(ln)
    parts.append("".join(cur))
    return parts, anchors


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


def _find_anchors(text: str, anchors: list[str]) -> list[tuple[int, int]] | None:
    """0-based (first, last) line of each anchor's statement, in order, or None when one is missing.

    An anchor matches a line holding it exactly (spaces ignored), else a line calling the same
    method (`.backward(`, `.step(`) after the previous anchor: `opt.step()` for `optimizer.step()`.
    """
    lines = text.splitlines()
    norm = [_norm(x.split("#", 1)[0]) for x in lines]
    ends = _statement_ends(text, len(lines))
    out, after = [], 0
    for a in anchors:
        key = _norm(a)
        meth = re.search(r"(\.\w+\()", key)
        hit = next((i for i in range(after, len(lines)) if key and key in norm[i]), None)
        if hit is None and meth:
            hit = next((i for i in range(after, len(lines)) if meth.group(1) in norm[i]), None)
        if hit is None:
            return None
        out.append((hit, ends.get(hit, hit)))
        after = ends.get(hit, hit) + 1
    return out


def _statement_ends(text: str, n: int) -> dict[int, int]:
    """0-based first line -> last line of each simple statement (multi-line calls), when the file parses."""
    import ast
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not hasattr(node, "body") and node.end_lineno:
            out[node.lineno - 1] = min(node.end_lineno - 1, n - 1)
    return out


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def _block(text: str, indent: str) -> list[str]:
    """text re-indented to `indent` (its own common indentation removed), with a marker line first."""
    import textwrap
    body = textwrap.dedent(text).strip("\n")
    return [indent + _MARK + "\n"] + [(indent + ln if ln.strip() else "") + "\n" for ln in body.splitlines()]


def _git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if check and p.returncode != 0:
        raise ScratchError(f"git {' '.join(args[:2])} failed: {p.stderr.strip() or p.stdout.strip()}")
    return p
