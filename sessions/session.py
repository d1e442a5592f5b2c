"""A live debugging session: an append-only, fsynced event log plus its derived state.

    s = Session.create(repo_root, name="nan at step 1200")    # records the environment
    s.append(CaptureEdited(field="command", value="python train.py"))   # a typed event (sessions.events)
    s.append("capture_edited", {"field": "command", "value": "python train.py"})   # the same, by name
    s.state.capture["command"]
    s = Session.open(s.id)        # resume = load + fold; a crash loses at most the event being written

One writer per session, enforced with an fcntl lock the kernel drops when the
process dies; a second opener gets the session read-only with a notice.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mltdbg.analyzers.common.gitrepo import resolved
from mltdbg.analyzers.common.redact import redact_count
from mltdbg.sessions.errors import ReadOnlyError, SessionError
from mltdbg.sessions.events import (PATH_KEYS, SessionAdopted, SessionEvent, SessionResumed, SessionStarted,
                                    parse_event)
from mltdbg.sessions.export import render_debug_md
from mltdbg.sessions.log import (PRIVATE_DIR_MODE, SCHEMA_VERSION, Event, EventWriter, LoadedLog, dumps_line, now_iso,
                                 open_private, read_log)
from mltdbg.sessions.procs import end_leftover_group
from mltdbg.sessions.state import SessionState, apply, finalize, fold, state_warnings
from mltdbg.sessions.store import (DEBUG_FILE, EVENTS_FILE, LOCK_FILE, TOOL_DIR, SessionRef, ensure_excluded,
                                   find_repo_root, new_session_id, resolve, session_refs, sessions_dir)

__all__ = ["OUTPUT_CAP_BYTES", "Session", "SessionError", "ReadOnlyError", "SessionSummary", "list_sessions",
           "held_elsewhere", "root_of", "recorded_root"]

# Stored output per check: the first and last half are kept, the middle is counted
# (`truncated_bytes`). 256 KiB holds a long pytest or training log's start and end.
OUTPUT_CAP_BYTES = 256 * 1024
OUTPUT_HEAD_BYTES = OUTPUT_CAP_BYTES // 2
OUTPUT_TAIL_BYTES = OUTPUT_CAP_BYTES - OUTPUT_HEAD_BYTES
# Lines an instrumentation prints start with this marker; those in the dropped middle are kept too,
# up to OUTPUT_MARKER_BYTES (a 3-step check prints a few hundred bytes; the bound keeps a check that
# prints the marker on every line of a long run within the cap plus 32 KiB).
OUTPUT_MARKER = b"[mltdbg]"
OUTPUT_MARKER_BYTES = 32 * 1024
MARKER_HEADER = "[... the [mltdbg] lines of the part not kept: ...]\n"


def line_cut(buf: bytes | bytearray, cut: int) -> int:
    """cut moved to just after the end of its line (so whole lines are dropped), where buf has one."""
    j = buf.find(b"\n", max(cut - 1, 0))
    return j + 1 if 0 <= j < len(buf) - 1 else cut


def keep_marker_lines(dropped: bytes | bytearray, kept: bytearray) -> None:
    """Append the marker lines of dropped output to kept, while it stays within OUTPUT_MARKER_BYTES."""
    if OUTPUT_MARKER not in dropped:
        return
    for ln in bytes(dropped).split(b"\n"):
        if OUTPUT_MARKER in ln and len(kept) + len(ln) + 1 <= OUTPUT_MARKER_BYTES:
            kept += ln + b"\n"


class Session:
    """An open session. Use `Session.create` / `Session.open`, then `append`; read `state`."""

    def __init__(self, ref: SessionRef, root: Path, loaded: LoadedLog, readonly: bool, notices: list[str],
                 lock_fd: int | None, live_elsewhere: bool):
        self.ref = ref
        self.root = root                    # repo root (or the folder a repo-less session started in)
        self.readonly = readonly
        self.notices = notices              # messages for the user: read-only, repo moved, damage found
        self.live_elsewhere = live_elsewhere
        self.events: list[Event] = loaded.events
        self._lock_fd = lock_fd
        self._writer: EventWriter | None = None
        self._seq = max((e.seq for e in loaded.events), default=0)
        self._outputs: dict[str, _OutputCap] = {}
        self._append_lock = threading.RLock()
        self._state = fold(self.events)
        # "events.jsonl:LINE: what is wrong", then the events the fold skipped
        self.warnings = loaded.warnings + state_warnings(self._state, f"{ref.id}/{ref.events.name}")
        if readonly and not live_elsewhere:
            finalize(self._state)          # nobody is running its checks any more

    # ----- opening -------------------------------------------------------------------------
    @classmethod
    def create(cls, repo_root: Path | str | None = None, name: str | None = None,
               environment: dict[str, Any] | None = None, *, defer_environment: bool = False) -> "Session":
        """Start a new session for the repo holding repo_root (default: the cwd).

        environment: the environment_recorded payload; None records this machine's now.
        defer_environment: write no environment_recorded now; the caller calls `record_environment()`
        later (the TUI does, in a worker thread after its first paint: pip freeze alone takes ~1 s).
        """
        start = Path(repo_root or os.getcwd()).resolve()
        repo = find_repo_root(start)
        if repo is not None:
            ensure_excluded(repo)
        root = repo or start
        sid = new_session_id(name)
        d = sessions_dir(repo) / sid
        try:
            for up in reversed(d.parents[:2]):          # .mltdbg/ and sessions/ (or the data dir's): owner-only
                up.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
            d.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=False)
        except OSError as e:
            raise SessionError(f"cannot create session folder {d}: {e.strerror or e}") from e
        lock_fd, _ = _lock(d)
        ref = SessionRef(sid, d, d / EVENTS_FILE)
        s = cls(ref, root, LoadedLog(), readonly=False, notices=[], lock_fd=lock_fd, live_elsewhere=False)
        s._writer = EventWriter(ref.events)
        s.append(SessionStarted(id=sid, name=name, root=str(root), in_repo=repo is not None, schema=SCHEMA_VERSION,
                                pid=os.getpid()))
        if not defer_environment:
            s.record_environment(environment)
        s._write_debug_md()
        return s

    def record_environment(self, environment: dict[str, Any] | None = None) -> Event | None:
        """Append environment_recorded: the given payload, else this machine's now (pip freeze, nvidia-smi,
        git: 0.2-1 s, so callers with a UI run it in a worker thread; append is thread-safe).
        Returns None, writing nothing, when the session was closed meanwhile or is read-only."""
        if environment is None:
            from mltdbg.sessions.environment import record_environment  # noqa: PLC0415 - probes git/pip: only when needed
            environment = record_environment(self.root if self._state.in_repo else None)
        with self._append_lock:     # the same lock as close(): a session closed meanwhile gets nothing
            if self._writer is None or self.readonly:
                return None
            return self.append("environment_recorded", environment)

    @classmethod
    def open(cls, path_or_id: str | Path, repo_root: Path | str | None = None, readonly: bool = False,
             adopt: bool = False) -> "Session":
        """Resume a session (folder, events file, id or id prefix): load its log, fold it.

        Writable unless readonly=True, another live process holds it, the file
        is not a session folder's log, or it was written by a newer version;
        each reason is added to `notices`. A session recorded elsewhere (its
        recorded repo root is not the one it is read against now: a teammate's
        clone, another machine) is read-only until adopted (adopt=True records
        `session_adopted`). A writable open records `session_resumed`, which
        marks checks left running as interrupted.
        """
        ref, why = resolve(path_or_id, Path(repo_root) if repo_root else None)
        if ref is None:
            raise SessionError(why)
        notices: list[str] = []
        loaded = read_log(ref.events, f"{ref.id}/{ref.events.name}")
        if loaded.refused:          # a link or a FIFO where the log should be: nothing is read or written
            readonly = True
            notices.append(f"opened read-only: {loaded.refused}")
        if not readonly and ref.events.name != EVENTS_FILE:
            readonly = True
            notices.append(f"{ref.events} is not inside a session folder: opened read-only")
        if not readonly and loaded.newest_version > SCHEMA_VERSION:
            readonly = True
            notices.append(f"written by a newer mltdbg (schema {loaded.newest_version}): opened read-only so this "
                           f"version does not mix its events into it; upgrade mltdbg to continue it")
        root = root_of(ref, loaded, notices)
        recorded = recorded_root(loaded)
        foreign = recorded is not None and not _same_dir(recorded, root)
        if foreign and not readonly and not adopt:
            readonly = True
            notices.append(f"opened read-only: recorded in {recorded}, not here; nothing recorded in it is acted on. "
                           "Adopt it (mltdbg-tui --resume ID --adopt) to continue it in this repo")
        lock_fd, live = None, False
        if not readonly:
            lock_fd, holder = _lock(ref.dir)
            if lock_fd is None:
                readonly, live = True, holder not in ("unwritable", "unsafe")
                notices.append("opened read-only: " + (f"this session is open in another mltdbg ({holder})" if live
                                                       else f"{ref.dir / LOCK_FILE} is a link or not a plain file: "
                                                       "not touched" if holder == "unsafe"
                                                       else f"cannot write in {ref.dir}"))
        else:
            live = held_elsewhere(ref.dir)
            if live:
                notices.append("this session is open in another mltdbg: what you see may still change")
        s = cls(ref, root, loaded, readonly, notices, lock_fd, live)
        if s.warnings:
            notices.append(f"{len(s.warnings)} problem(s) in the log; loaded what could be read: "
                           + s.warnings[0] + (" ..." if len(s.warnings) > 1 else ""))
        missing = s.missing_artifacts()
        if missing:
            notices.append(f"{len(missing)} of {len(s.state.artifacts)} artifacts are not on this machine "
                           f"(e.g. {missing[0]}): plots and outputs shown come from the session record")
        if not readonly:
            try:
                s._writer = EventWriter(ref.events)     # refuses a link: nothing of the target is touched
            except OSError as e:
                s.readonly = True
                s.notices.append(f"opened read-only: {ref.events}: {e.strerror or e}")
                s.close()
                return s
            s._tighten_modes()
            if loaded.torn_offset is not None:
                # The fragment was never a committed event (its append never returned): drop it so
                # the next line starts clean. Complete lines before it are untouched.
                os.ftruncate(s._writer.fd, loaded.torn_offset)
            if loaded.missing_newline:
                s._writer.write(b"\n")
            running = [c.check_id for c in s.state.running_checks]
            leftovers = s._end_leftover_checks(running)
            if foreign:
                s.append(SessionAdopted(root=str(root)))
            s.append(SessionResumed(root=str(root), pid=os.getpid(), interrupted_checks=running,
                                    leftovers=leftovers or None))
        return s

    def _tighten_modes(self) -> None:
        """Older versions made session folders 0755 and files 0644: on a writable open, take the group and
        other bits off our own folders (the session's, and its sessions/ and .mltdbg/ or data dir) and files
        (events.jsonl, lock, debug.md). Through file descriptors opened without following links, and only
        for entries this user owns; nothing else is touched, and a failure only costs a notice."""
        dirs = [self.ref.dir]
        parent = self.ref.dir.parent
        if parent.name == "sessions":
            dirs.append(parent)
            if parent.parent.name == TOOL_DIR or parent == sessions_dir(None):
                dirs.append(parent.parent)
        fds = [(fd, False) for fd in (self._writer.fd if self._writer else None, self._lock_fd) if fd is not None]
        for path, flags in [(d, os.O_RDONLY | os.O_DIRECTORY) for d in dirs] + [(self.ref.dir / DEBUG_FILE, os.O_RDONLY)]:
            try:
                fds.append((os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC), True))
            except OSError:
                continue                    # a link (ELOOP), missing or unreadable: left as it is
        for fd, ours_to_close in fds:
            try:
                st = os.fstat(fd)
                if st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) & 0o077 \
                        and (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode) and st.st_nlink == 1):
                    os.fchmod(fd, stat.S_IMODE(st.st_mode) & ~0o077)
            except OSError as e:
                self.notices.append(f"could not make {self.ref.dir} private: {e.strerror or e}")
            finally:
                if ours_to_close:
                    os.close(fd)

    def _end_leftover_checks(self, running: list[str]) -> list[dict[str, Any]]:
        """Checks the previous writer started and never finished may still be running (their process
        group outlives a crash). We hold the lock, so no live mltdbg owns them: end each one whose
        recorded process is still that process (procs.end_leftover_group), and say so in `notices`.
        Out: {"check_id", "pgid", "outcome"} for each check whose process was still there."""
        if not running:
            return []
        started = {e.payload.get("check_id"): e.payload for e in self.events if e.type == "check_started"}
        out = []
        for cid in running:
            p = started.get(cid, {})
            outcome = end_leftover_group(p.get("pid"), p.get("pgid"), p.get("proc_start"))
            if outcome in ("unknown", "gone"):
                continue
            out.append({"check_id": cid, "pgid": p.get("pgid"), "outcome": outcome})
            self.notices.append(
                f"check {cid} was still running from an earlier mltdbg (process group {p.get('pgid')}): "
                + ({"ended": "ended it", "killed": "killed it",
                    "still running": "sent SIGKILL, but it is still running"}.get(outcome)
                   or "its pid now belongs to another process: left alone"))
        return out

    # ----- writing -------------------------------------------------------------------------
    def append(self, event: SessionEvent | str, payload: dict[str, Any] | None = None) -> Event | None:
        """Record one event; returns once it is fsynced (the UI may then move on).

        event: a typed event (`mltdbg.sessions.events`), or its type name with the payload as a
        dict, checked against the same contract: EventError (a SessionError) for an unknown type,
        a missing key or a wrong value, and nothing is written. Payloads are JSON-only; secrets
        are redacted and repo paths made relative to the root first. `check_output` chunks beyond
        the head of the output cap are held in memory and written (last OUTPUT_TAIL_BYTES, with
        the count of dropped bytes) just before that check's `check_finished`; such a call returns None.
        """
        if self.readonly:
            raise ReadOnlyError("session is read-only" + (f": {self.notices[0]}" if self.notices else ""))
        if isinstance(event, SessionEvent):
            if payload is not None:
                raise TypeError("append(event) takes a typed event or (type, payload), not both")
        else:
            event = parse_event(event, payload)
        type, payload = event.TYPE, event.payload()
        with self._append_lock:    # a check's worker thread and the UI thread may append at once
            if type == "check_output":
                return self._append_output(payload)
            if type == "check_finished":
                self._flush_output(str(payload.get("check_id", "")))
            return self._write(type, payload)

    def _write(self, type: str, payload: dict[str, Any]) -> Event:
        for key in PATH_KEYS.get(type, ()):
            if key in payload:
                v = payload[key]
                payload[key] = [self.rel(x) for x in v] if isinstance(v, (list, tuple)) else self.rel(v) if isinstance(v, (str, Path)) else v
        clean, n_redacted = redact_count(payload)
        ev = Event(self._seq + 1, now_iso(), type, clean, SCHEMA_VERSION, redacted=n_redacted > 0)
        line = dumps_line(ev)
        assert self._writer is not None
        self._writer.write(line)
        self._seq += 1
        ev.payload = json.loads(line)["payload"]   # in memory exactly what a reload will see
        self.events.append(ev)
        apply(self._state, ev)
        if type == "capture_edited":
            self._write_debug_md()
        return ev

    def _append_output(self, p: dict[str, Any]) -> Event | None:
        cid = str(p.get("check_id", ""))
        head = self._outputs.setdefault(cid, _OutputCap()).take(str(p.get("chunk", "")))
        return self._write("check_output", {"check_id": cid, "chunk": head}) if head else None

    def _flush_output(self, cid: str) -> None:
        cap = self._outputs.pop(cid, None)
        if cap is not None and cap.tail:
            tail, dropped = cap.final_tail()
            marks = cap.final_marks()
            if marks:
                self._write("check_output", {"check_id": cid, "chunk": marks})
            self._write("check_output", {"check_id": cid, "chunk": tail, "tail": True, "truncated_bytes": dropped})

    def pending_output(self, check_id: str) -> str:
        """Output of a running check held for the tail (not yet in the log), for live display."""
        cap = self._outputs.get(check_id)
        return cap.tail[-OUTPUT_TAIL_BYTES:].decode("utf-8", "ignore") if cap else ""

    def new_check_id(self) -> str:
        return f"c{len(self._state.checks) + 1}-{secrets.token_hex(2)}"

    def _write_debug_md(self) -> None:
        """debug.md beside the log, rewritten atomically (tmp + rename) from the capture."""
        path = self.ref.dir / DEBUG_FILE
        tmp = path.with_name(f".{DEBUG_FILE}.{os.getpid()}.tmp")
        try:
            if os.path.lexists(tmp):
                os.unlink(tmp)                      # a leftover (or a planted link): removed, never followed
            fd = open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as f:   # a lone surrogate: its escape
                f.write(render_debug_md(self._state.capture, self._state.created_at[:10]))
            os.replace(tmp, path)                   # replaces a link named debug.md, not its target
        except OSError as e:
            self.notices.append(f"could not write {path}: {e.strerror or e}")

    # ----- reading -------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.ref.id

    @property
    def dir(self) -> Path:
        return self.ref.dir

    @property
    def state(self) -> SessionState:
        """The current state (kept up to date by `append`; do not mutate it)."""
        return self._state

    def reload(self) -> SessionState:
        """Re-read the log (a read-only viewer following another process's session)."""
        loaded = read_log(self.ref.events, f"{self.ref.id}/{self.ref.events.name}")
        self.events, self.warnings = loaded.events, loaded.warnings
        self._seq = max((e.seq for e in loaded.events), default=0)
        self._state = fold(self.events)
        self.warnings = loaded.warnings + state_warnings(self._state, f"{self.ref.id}/{self.ref.events.name}")
        if self.readonly:
            self.live_elsewhere = held_elsewhere(self.ref.dir)
            if not self.live_elsewhere:
                finalize(self._state)
        return self._state

    def rel(self, path: str | Path) -> str:
        """A path as stored: relative to the root (posix) when under it, else as given."""
        p = Path(path)
        if p.is_absolute():
            try:
                return resolved(p).relative_to(self.root.resolve()).as_posix() or "."
            except ValueError:
                return str(p)
        return p.as_posix()

    def missing_artifacts(self) -> list[str]:
        """Recorded artifacts that are not present under the root on this machine."""
        return [a for a in self._state.artifacts if not (self.root / a).exists()]

    def close(self) -> None:
        """Release the writer and the lock (a crash releases them too)."""
        with self._append_lock:     # never in the middle of an append from a worker thread
            self._close()

    def _close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _OutputCap:
    """Keeps a check's output within OUTPUT_CAP_BYTES: head written live, tail held in memory."""

    def __init__(self) -> None:
        self.stored = 0
        self.tail = bytearray()
        self.dropped = 0
        self.marks = bytearray()            # marker lines of the dropped middle (bounded)

    def take(self, chunk: str) -> str:
        """The part of chunk to write now; the rest goes to the tail buffer."""
        room = OUTPUT_HEAD_BYTES - self.stored
        if room <= 0:
            self._hold(chunk.encode("utf-8", "replace"))
            return ""
        b = chunk.encode("utf-8", "replace")
        if len(b) <= room:
            self.stored += len(b)
            return chunk
        head = b[:room].decode("utf-8", "ignore")      # never split a character
        self.stored = OUTPUT_HEAD_BYTES
        self._hold(b[len(head.encode("utf-8")):])
        return head

    def _hold(self, b: bytes) -> None:
        self.tail += b
        if len(self.tail) > 2 * OUTPUT_TAIL_BYTES:     # trim in batches: no 128 KiB copy per line
            self._cut()

    def _cut(self) -> None:
        cut = line_cut(self.tail, len(self.tail) - OUTPUT_TAIL_BYTES)
        keep_marker_lines(self.tail[:cut], self.marks)
        self.dropped += cut
        del self.tail[:cut]

    def final_tail(self) -> tuple[str, int]:
        if len(self.tail) > OUTPUT_TAIL_BYTES:
            self._cut()
        return self.tail.decode("utf-8", "ignore"), self.dropped

    def final_marks(self) -> str:
        """The kept marker lines of the dropped part, with a header line ("" when none)."""
        return MARKER_HEADER + self.marks.decode("utf-8", "ignore") if self.marks else ""


def _lock(d: Path) -> tuple[int | None, str | None]:
    """Take the session's exclusive lock. Out: (fd, None) or (None, who holds it | 'unwritable')."""
    path = d / LOCK_FILE
    try:
        fd = open_private(path, os.O_RDWR | os.O_CREAT)     # a lock linked to ~/.profile is never written
    except OSError as e:
        return None, "unsafe" if e.errno in (errno.ELOOP, errno.EPERM) or os.path.islink(path) else "unwritable"
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
        except OSError:
            holder = ""
        os.close(fd)
        return None, holder or "another process"
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()} on {os.uname().nodename}\n".encode(), 0)
    return fd, None


def held_elsewhere(d: Path) -> bool:
    """Whether a live process holds the session's lock; opens the lock file read-only, writes nothing."""
    try:
        fd = os.open(d / LOCK_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)   # closing drops the shared lock we may have taken


def recorded_root(loaded: LoadedLog) -> str | None:
    """Where the session was last taken up: the newest `session_adopted` root, else the started root."""
    root = None
    for e in loaded.events:
        if e.type in ("session_started", "session_adopted") and isinstance(e.payload.get("root"), str):
            root = e.payload["root"]
    return root


def _same_dir(a: str, b: Path) -> bool:
    try:
        return Path(a).resolve() == b.resolve()
    except OSError:
        return False


def root_of(ref: SessionRef, loaded: LoadedLog, notices: list[str]) -> Path:
    """The repo root a session's paths are read against now (from where its folder sits, else the
    recorded root, else the cwd's repo); appends a notice to `notices` when that is not the recorded one."""
    recorded = recorded_root(loaded)
    parts = ref.dir.resolve().parts
    if len(parts) >= 3 and parts[-3:-1] == (TOOL_DIR, "sessions"):
        root = Path(*parts[:-3])
    elif isinstance(recorded, str) and Path(recorded).is_dir():
        root = Path(recorded)
    else:
        root = find_repo_root() or Path.cwd()
    if isinstance(recorded, str) and Path(recorded) != root:
        notices.append(f"the session was recorded in {recorded}; it is now read against {root} "
                       f"(its paths are relative to the repo root)")
    return root


@dataclass
class SessionSummary:
    """One line of `list_sessions`."""

    id: str
    dir: Path
    created_at: str
    updated_at: str
    name: str | None
    step: str
    n_events: int
    title: str                 # the captured command or the first line of what happened
    top_hypothesis: str | None
    live: bool                 # open in a running mltdbg now
    problems: int              # damaged lines and skipped events found


def list_sessions(repo_root: Path | str | None = None) -> list[SessionSummary]:
    """Sessions of the repo holding repo_root (default: cwd), or of the data dir outside a repo; newest last."""
    repo = find_repo_root(repo_root)
    out = []
    for ref in session_refs(sessions_dir(repo)):
        loaded = read_log(ref.events, f"{ref.id}/{EVENTS_FILE}")
        st = fold(loaded.events)
        title = st.capture.get("command") or next((x for x in st.capture.get("happened", "").splitlines() if x.strip()), "")
        top = st.hypotheses[0].id if st.hypotheses else None
        problems = len(loaded.warnings) + len(state_warnings(st))
        out.append(SessionSummary(ref.id, ref.dir, st.created_at, st.time, st.name, st.step, st.n_events,
                                  title.strip(), top, held_elsewhere(ref.dir), problems))
    return out
