"""The event file: one JSON object per line, appended and fsynced, never rewritten.

Line format (schema version 1):
    {"v": 1, "seq": 7, "t": "2026-05-04T15:30:12.123Z", "type": "check_started", "payload": {...}}
plus `"redacted": true` when redaction changed the payload. `seq` counts from 1.

Reading tolerates damage and says where: a torn last line (a crash mid-write)
is ignored, a corrupted line in the middle is skipped, events written by a
newer version are loaded as far as they are understood, and events of older
versions are upgraded in memory (the file is never changed by reading).
"""
from __future__ import annotations

import errno
import json
import math
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

SCHEMA_VERSION = 1

# UPGRADES[v] turns an event dict of version v into version v + 1 (in memory).
# When the payload of an event type changes, bump SCHEMA_VERSION and add one here.
UPGRADES: dict[int, Callable[[dict], dict]] = {}


@dataclass
class Event:
    """One fact of a session, as stored."""

    seq: int
    time: str                 # ISO 8601 UTC, millisecond precision
    type: str
    payload: dict[str, Any]
    version: int = SCHEMA_VERSION
    redacted: bool = False

    def to_json(self) -> dict[str, Any]:
        d = {"v": self.version, "seq": self.seq, "t": self.time, "type": self.type, "payload": self.payload}
        if self.redacted:
            d["redacted"] = True
        return d


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def dumps_line(event: Event) -> bytes:
    """The event as one JSON line (NaN/inf written as strings: the file stays strict JSON).

    A lone surrogate (an undecodable byte of a file name, as os.fsdecode gives it) cannot be UTF-8: it is
    written as its JSON escape (`\\udcff`), which json.loads reads back as the same character. Surrogates
    only occur inside JSON strings, where `\\uXXXX` is a valid escape, so the line stays strict JSON."""
    d = event.to_json()
    try:
        s = json.dumps(d, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_plain)
    except ValueError:
        s = json.dumps(_finite(d), ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_plain)
    return (s + "\n").encode("utf-8", "backslashreplace")


def _plain(obj: Any) -> Any:
    """JSON for what callers commonly pass: numpy scalars/arrays, paths, sets; else its str()."""
    if hasattr(obj, "tolist"):          # numpy array or scalar
        return _finite(obj.tolist())
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=str)
    return str(obj)


def _finite(obj: Any) -> Any:
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):
        obj = obj.tolist()
    if isinstance(obj, float) and not math.isfinite(obj):
        return "NaN" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


PRIVATE_FILE_MODE = 0o600      # session files hold commands, outputs and paths: owner-only
PRIVATE_DIR_MODE = 0o700


def open_private(path: Path, flags: int) -> int:
    """os.open for writing a file of a session folder, which is data (it may have been copied from
    someone else): never through a symbolic link (O_NOFOLLOW), never a FIFO or device (O_NONBLOCK,
    then a plain-file check), never a file hard-linked elsewhere; created owner-only.
    OSError naming the file when it is none of those."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
        os.close(fd)
        raise OSError(errno.EPERM, "not a plain file of its own (a link or a special file): not written", str(path))
    os.set_blocking(fd, True)
    return fd


class EventWriter:
    """Appends event lines to a file: one write + fsync per event, O_APPEND, never a rewrite.
    The file is opened with `open_private`: an events.jsonl that is a link is refused (OSError)."""

    def __init__(self, path: Path):
        new = not os.path.lexists(path)
        self.path = path
        try:
            self.fd = open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except OSError as e:
            if e.errno == errno.ELOOP:      # what O_NOFOLLOW says of a symbolic link
                raise OSError(errno.ELOOP, "a symbolic link: not written", str(path)) from e
            raise
        if new:   # make the new file's directory entry durable too
            _fsync_dir(path.parent)

    def write(self, data: bytes) -> None:
        """Write all of data and fsync; returns only once it is on disk."""
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]
        os.fsync(self.fd)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass
class LoadedLog:
    """What `read_log` found: the events it could read and what was wrong."""

    events: list[Event] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)   # "events.jsonl:LINE: what is wrong"
    torn_offset: int | None = None     # byte offset where an incomplete last line starts
    missing_newline: bool = False      # last line is complete JSON but lacks its "\n"
    newest_version: int = SCHEMA_VERSION
    refused: str | None = None         # the file could not be read at all (a link, a FIFO, no access): why


def read_log(path: Path, label: str | None = None, schema: int = SCHEMA_VERSION,
             upgrades: dict[int, Callable[[dict], dict]] | None = None) -> LoadedLog:
    """Read an event file. Never raises for bad content; see LoadedLog.warnings.

    schema/upgrades: the version this reader speaks and its upgrade chain
    (defaults: this release's); older events are upgraded in memory.
    """
    upgrades = UPGRADES if upgrades is None else upgrades
    label = label or path.name
    out = LoadedLog()
    try:
        data = _read_plain(path)
    except OSError as e:
        why = ("a symbolic link: not read (a session's log is a plain file in its folder)" if e.errno == errno.ELOOP
               else e.strerror if e.errno == errno.EPERM and e.strerror else f"cannot read ({e.strerror or e})")
        out.refused = f"{label}: {why}"
        out.warnings.append(out.refused)
        return out
    if not data:
        return out
    lines = data.split(b"\n")
    unterminated = lines.pop()          # b"" when the file ends with "\n"
    newer = 0
    prev_seq = 0
    for i, raw in enumerate(lines):
        ev = _parse(raw, i + 1, label, out.warnings, schema, upgrades)
        if ev is not None:
            if ev.version > schema:
                newer = max(newer, ev.version)
            if ev.seq <= prev_seq:
                out.warnings.append(f"{label}:{i + 1}: event seq {ev.seq} follows seq {prev_seq}; kept in file order")
            prev_seq = ev.seq
            out.events.append(ev)
    if unterminated:
        n = len(lines) + 1
        ev = _parse(unterminated, n, label, None, schema, upgrades)
        if ev is None:
            out.torn_offset = len(data) - len(unterminated)
            out.warnings.append(f"{label}:{n}: last line is incomplete ({len(unterminated)} bytes, "
                                f"written when the session was interrupted); ignored")
        else:
            out.missing_newline = True
            newer = max(newer, ev.version if ev.version > schema else 0)
            out.events.append(ev)
    if newer:
        out.newest_version = newer
        out.warnings.append(f"{label}: written by a newer mltdbg (event schema {newer}; this one reads up to "
                            f"{schema}); loaded what this version understands, the rest is ignored")
    return out


def _read_plain(path: Path) -> bytes:
    """The bytes of a plain file, never through a symbolic link (O_NOFOLLOW: ELOOP) and never blocking on
    a FIFO or device (O_NONBLOCK, then a plain-file check: EPERM saying so)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EPERM, "not a plain file (a FIFO, device or folder): not read", str(path))
        return f.read()


def _parse(raw: bytes, lineno: int, label: str, warnings: list[str] | None, schema: int,
           upgrades: dict[int, Callable[[dict], dict]]) -> Event | None:
    """One line -> Event (upgraded to SCHEMA_VERSION when older), or None with a warning."""
    def bad(why: str) -> None:
        if warnings is not None:
            warnings.append(f"{label}:{lineno}: {why}; line skipped")
    if not raw.strip():
        bad("empty line")
        return None
    try:
        d = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        bad("not valid JSON (corrupted)")
        return None
    if not isinstance(d, dict) or not isinstance(d.get("type"), str) or not isinstance(d.get("seq"), int):
        bad("not an event (needs at least 'seq' and 'type')")
        return None
    v = d.get("v", 1)
    if not isinstance(v, int) or v < 1:
        bad(f"unknown schema version {v!r}")
        return None
    while v < schema:
        up = upgrades.get(v)
        if up is None:
            bad(f"schema version {v} has no upgrade to {schema}")
            return None
        d = up(d)
        v += 1
    payload = d.get("payload")
    return Event(seq=d["seq"], time=str(d.get("t", "")), type=d["type"],
                 payload=payload if isinstance(payload, dict) else {},
                 version=v,
                 redacted=bool(d.get("redacted", False)))
