"""Typed session events: one frozen dataclass per event type, the contract of `events.jsonl`.

Each class names its `TYPE` (the past-tense string stored in the log) and declares its payload
keys as fields. A field without a default is a key every event of the type carries (its value may
still be None where the annotation allows it); a field with a default is optional and left out of
the payload while it is None. Keys outside the contract (a caller's extra facts, such as
check_started's `purpose` or fix_proposed's `summary` of a future version) travel in `extra`,
untouched. Types are checked when an event is built: `str` also takes a path (stored as text),
`float` also takes an int.

In:  `parse_event(type, payload) -> SessionEvent`, or build one: `NoteAdded(text="...")`.
     Both raise EventError (a SessionError) for an unknown type, a missing key or a wrong value.
Out: `event.payload() -> dict` (what `Session.append` writes); EVENT_TYPES, EVENT_CLASSES;
     PATH_KEYS (payload keys holding repo paths, stored relative to the repo root).

Writers (`Session.append`) raise on a bad event; readers (`state.fold`) skip it with a warning.
"""
from __future__ import annotations

import functools
import numbers
import os
import types
import typing
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Callable, ClassVar

from mltdbg.sessions.errors import EventError, UnknownEventType

# The workflow steps the TUI shows (one screen each), in order.
STEPS = ("capture", "diagnose", "check", "fix", "lesson")
CAPTURE_FIELDS = ("command", "expected", "happened", "tried")
VERDICTS = ("confirmed", "denied", "inconclusive")


@dataclass(frozen=True)
class SessionEvent:
    """A fact of a session, before it is stored (the stored envelope is `log.Event`)."""

    TYPE: ClassVar[str] = ""
    PATHS: ClassVar[tuple[str, ...]] = ()      # keys holding repo paths (made relative when written)

    extra: dict[str, Any] = field(default_factory=dict, kw_only=True, compare=False)

    def __post_init__(self) -> None:
        spec = _spec(type(self))
        for name, ok, tp in spec.checks:
            v = getattr(self, name)
            if not ok(v):
                raise EventError(f"{self.TYPE} event: {name!r} should be {_type_name(tp)}, not {type(v).__name__} {_short(v)}")
        clash = [k for k in self.extra if k in spec.names]
        if clash:
            raise EventError(f"{self.TYPE} event: {', '.join(clash)} given twice (as a field and in extra)")
        self.validate()

    def validate(self) -> None:
        """Checks beyond the types (allowed values); raises EventError."""

    def payload(self) -> dict[str, Any]:
        """The JSON payload: every required key, the optional ones that are set, then `extra`."""
        out: dict[str, Any] = {}
        spec = _spec(type(self))
        for name in spec.names:
            v = getattr(self, name)
            if v is not None or name in spec.required:
                out[name] = list(v) if isinstance(v, tuple) else v
        out.update(self.extra)
        return out

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> "SessionEvent":
        """The event of this type holding payload; EventError names a missing key or wrong value."""
        if not isinstance(payload, dict):
            raise EventError(f"{cls.TYPE} event: the payload is {type(payload).__name__}, not an object")
        spec = _spec(cls)
        missing = [n for n in spec.names if n in spec.required and n not in payload]
        if missing:
            raise EventError(f"{cls.TYPE} event: missing key{'s' if len(missing) > 1 else ''} "
                             + ", ".join(repr(m) for m in missing))
        known = {k: payload[k] for k in spec.names if k in payload}
        return cls(**known, extra={k: v for k, v in payload.items() if k not in spec.names} if len(known) < len(payload) else {})


# ----- the event types (the order of EVENT_TYPES) ---------------------------------------------------
@dataclass(frozen=True)
class SessionStarted(SessionEvent):
    TYPE: ClassVar[str] = "session_started"
    id: str
    name: str | None
    root: str
    in_repo: bool
    schema: int | None = None
    pid: int | None = None


@dataclass(frozen=True)
class EnvironmentRecorded(SessionEvent):
    """What this machine had (best effort: every key may be missing; record_environment has more)."""

    TYPE: ClassVar[str] = "environment_recorded"
    python: str | None = None
    platform: str | None = None
    torch: str | None = None
    cuda: str | None = None
    gpus: list[str] | None = None
    pip_freeze: list[str] | None = None
    git: dict[str, Any] | None = None
    notes: Any = None


@dataclass(frozen=True)
class SessionResumed(SessionEvent):
    TYPE: ClassVar[str] = "session_resumed"
    root: str
    pid: int | None
    interrupted_checks: list[str]
    # Interrupted checks whose process group was still there: {"check_id", "pgid", "outcome"}, the outcome
    # as procs.end_leftover_group says it ("ended", "killed", "still running", "not ours", ...).
    leftovers: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class CaptureEdited(SessionEvent):
    TYPE: ClassVar[str] = "capture_edited"
    field: str
    value: str

    def validate(self) -> None:
        if self.field not in CAPTURE_FIELDS:
            raise EventError(f"capture_edited event: field {self.field!r} is not one of {', '.join(CAPTURE_FIELDS)}")


@dataclass(frozen=True)
class ArtifactsChosen(SessionEvent):
    TYPE: ClassVar[str] = "artifacts_chosen"
    PATHS: ClassVar[tuple[str, ...]] = ("paths", "excluded")
    paths: list[str]
    excluded: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DiagnosisMade(SessionEvent):
    """diagnosis: a diagnosis.schema.json object (root causes may carry the playbook's extras);
    plots: {metric or "baseline/metric": plots.plot_record(...)}."""

    TYPE: ClassVar[str] = "diagnosis_made"
    engine: str
    diagnosis: dict[str, Any]
    plots: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckDecision(SessionEvent):
    hypothesis_id: str | None
    command: str
    original_command: str | None = None      # before an edit
    instrumentation: str | None = None       # the instrumentation snippet as the user edited it (names filled in)


@dataclass(frozen=True)
class CheckApproved(CheckDecision):
    TYPE: ClassVar[str] = "check_approved"


@dataclass(frozen=True)
class CheckEdited(CheckDecision):
    TYPE: ClassVar[str] = "check_edited"


@dataclass(frozen=True)
class CheckSkipped(CheckDecision):
    TYPE: ClassVar[str] = "check_skipped"


@dataclass(frozen=True)
class CheckStarted(SessionEvent):
    TYPE: ClassVar[str] = "check_started"
    PATHS: ClassVar[tuple[str, ...]] = ("cwd",)
    check_id: str
    command: str
    cwd: str | None = None
    timeout_s: float | None = None
    hypothesis_id: str | None = None
    # The check's process, named for good (CheckRun records them once it exists): its pid, its process
    # group (the same: a check leads its own session) and the kernel's start time of that pid
    # (/proc/PID/stat field 22, clock ticks), so a resume can end a check a crashed mltdbg left running
    # and never an unrelated process that reuses the pid.
    pid: int | None = None
    pgid: int | None = None
    proc_start: int | None = None


@dataclass(frozen=True)
class CheckOutput(SessionEvent):
    """A batch of a check's output. The stored output of a check is capped (session.OUTPUT_CAP_BYTES):
    the tail part comes last with `tail` and the count of bytes dropped before it."""

    TYPE: ClassVar[str] = "check_output"
    check_id: str
    chunk: str
    tail: bool | None = None
    truncated_bytes: int | None = None


@dataclass(frozen=True)
class CheckFinished(SessionEvent):
    TYPE: ClassVar[str] = "check_finished"
    check_id: str
    exit_code: int | None
    duration_s: float | None
    timed_out: bool = False
    cancelled: bool = False
    output_bytes: int | None = None
    interrupted: bool | None = None
    flooded: bool | None = None
    error: str | None = None


@dataclass(frozen=True)
class VerdictRecorded(SessionEvent):
    TYPE: ClassVar[str] = "verdict_recorded"
    hypothesis_id: str | None
    verdict: str
    note: str = ""
    check_id: str | None = None

    def validate(self) -> None:
        if self.verdict not in VERDICTS:
            raise EventError(f"verdict_recorded event: verdict {self.verdict!r} is not one of {', '.join(VERDICTS)}")


@dataclass(frozen=True)
class FixProposed(SessionEvent):
    TYPE: ClassVar[str] = "fix_proposed"
    PATHS: ClassVar[tuple[str, ...]] = ("files",)
    source: str                              # playbook | claude | user
    diff: str
    files: list[str]
    test_diff: str = ""
    hypothesis_id: str | None = None
    summary: str | None = None


@dataclass(frozen=True)
class FixStatusChanged(SessionEvent):
    """A step of the latest proposed fix."""

    PATHS: ClassVar[tuple[str, ...]] = ("files",)
    note: str | None = None
    files: list[str] | None = None


@dataclass(frozen=True)
class FixConfirmed(FixStatusChanged):
    TYPE: ClassVar[str] = "fix_confirmed"


@dataclass(frozen=True)
class FixApplied(FixStatusChanged):
    TYPE: ClassVar[str] = "fix_applied"


@dataclass(frozen=True)
class FixReverted(FixStatusChanged):
    TYPE: ClassVar[str] = "fix_reverted"


@dataclass(frozen=True)
class VerificationRan(SessionEvent):
    TYPE: ClassVar[str] = "verification_ran"
    command: str
    exit_code: int | None
    passed: bool
    check_id: str | None = None
    output: str | None = None                # the last part of what it printed
    status: str | None = None                # set when not "done": timed_out, cancelled, ...
    round: str | None = None                 # one id per verify() call: the latest round decides


@dataclass(frozen=True)
class LessonWritten(SessionEvent):
    TYPE: ClassVar[str] = "lesson_written"
    PATHS: ClassVar[tuple[str, ...]] = ("file",)
    text: str
    file: str | None = None


@dataclass(frozen=True)
class CommitMade(SessionEvent):
    TYPE: ClassVar[str] = "commit_made"
    PATHS: ClassVar[tuple[str, ...]] = ("files",)
    sha: str
    message: str
    files: list[str]


@dataclass(frozen=True)
class NoteAdded(SessionEvent):
    TYPE: ClassVar[str] = "note_added"
    text: str


@dataclass(frozen=True)
class SessionAdopted(SessionEvent):
    """The user continues, in this repo, a session recorded elsewhere (a teammate's clone, another machine)."""
    TYPE: ClassVar[str] = "session_adopted"
    root: str


@dataclass(frozen=True)
class StepChanged(SessionEvent):
    TYPE: ClassVar[str] = "step_changed"
    step: str
    hypothesis_id: str | None = None         # the hypothesis the user went there for

    def validate(self) -> None:
        if self.step not in STEPS:
            raise EventError(f"step_changed event: step {self.step!r} is not one of {', '.join(STEPS)}")


@dataclass(frozen=True)
class TestAdded(SessionEvent):
    """A test file for the latest fix; written: it is on disk (written through the confirmed gate)."""

    __test__: ClassVar[bool] = False         # not a pytest test class
    TYPE: ClassVar[str] = "test_added"
    PATHS: ClassVar[tuple[str, ...]] = ("file",)
    file: str
    diff: str
    written: bool


@dataclass(frozen=True)
class ClaudeRan(SessionEvent):
    """One run of the Claude engine (redacted, never the key); its record's keys are all in `extra`."""

    TYPE: ClassVar[str] = "claude_ran"


@dataclass(frozen=True)
class ProbeRan(SessionEvent):
    """One `mltdbg probe` run (mltdbg.sessions.probes): what ran, where its result file is, what it found.
    findings: [{kind, severity, summary}]; error: one line when it did not finish."""

    TYPE: ClassVar[str] = "probe_ran"
    PATHS: ClassVar[tuple[str, ...]] = ("result_file",)
    probe: str
    status: str                              # ok | partial | error | timed_out
    target: str | None
    result_file: str | None
    exit_code: int | None
    duration_s: float
    argv: list[str]
    findings: list[dict[str, Any]]
    error: str | None = None
    python: str | None = None

    def validate(self) -> None:
        if self.status not in PROBE_STATUSES:
            raise EventError(f"probe_ran event: status {self.status!r} is not one of {', '.join(PROBE_STATUSES)}")


PROBE_STATUSES = ("ok", "partial", "error", "timed_out")


EVENT_CLASSES: dict[str, type[SessionEvent]] = {c.TYPE: c for c in (
    SessionStarted, EnvironmentRecorded, SessionResumed, CaptureEdited, ArtifactsChosen, DiagnosisMade,
    CheckApproved, CheckEdited, CheckSkipped, CheckStarted, CheckOutput, CheckFinished, VerdictRecorded,
    FixProposed, FixConfirmed, FixApplied, FixReverted, VerificationRan, LessonWritten, CommitMade,
    NoteAdded, StepChanged, TestAdded, ClaudeRan, ProbeRan, SessionAdopted)}
# Every event type this version understands, in the order they were introduced.
EVENT_TYPES = tuple(EVENT_CLASSES)
PATH_KEYS: dict[str, tuple[str, ...]] = {t: c.PATHS for t, c in EVENT_CLASSES.items() if c.PATHS}


def parse_event(type: str, payload: dict[str, Any] | None) -> SessionEvent:
    """The typed event for a stored or given (type, payload); EventError when it breaks the contract."""
    cls = EVENT_CLASSES.get(type)
    if cls is None:
        raise UnknownEventType(f"unknown event type {type!r} (this version knows {len(EVENT_TYPES)} types: "
                               f"see mltdbg.sessions.events)")
    return cls.from_payload({} if payload is None else payload)


# ----- type checks (compiled once per class: the fold parses every event of a resumed log) ----------
@dataclass(frozen=True)
class _Spec:
    names: tuple[str, ...]                             # payload fields, in order
    required: frozenset[str]
    checks: tuple[tuple[str, Callable[[Any], bool], Any], ...]   # (name, check, annotation)


@functools.cache
def _spec(cls: type) -> _Spec:
    hints = typing.get_type_hints(cls)
    fs = [f for f in fields(cls) if f.name != "extra"]
    return _Spec(tuple(f.name for f in fs),
                 frozenset(f.name for f in fs if f.default is MISSING and f.default_factory is MISSING),
                 tuple((f.name, _checker(hints[f.name]), hints[f.name]) for f in fs if hints[f.name] is not Any))


def _checker(tp: Any) -> Callable[[Any], bool]:
    """A function telling whether a value is of annotation tp (str takes a path; float takes an int)."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        parts = [_checker(a) for a in typing.get_args(tp)]
        return lambda v: any(p(v) for p in parts)
    if tp is Any:
        return lambda v: True
    if tp is type(None):
        return lambda v: v is None
    if tp is str:
        return lambda v: isinstance(v, (str, os.PathLike))
    if tp is bool:
        return lambda v: isinstance(v, bool) or getattr(getattr(v, "dtype", None), "kind", "") == "b"
    if tp is int:
        return lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool)
    if tp is float:
        return lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool)
    if origin is list or tp is list:
        args = typing.get_args(tp)
        item = _checker(args[0]) if args else None
        return lambda v: isinstance(v, (list, tuple)) and (item is None or all(item(x) for x in v))
    if origin is dict or tp is dict:
        return lambda v: isinstance(v, dict)
    return lambda v: isinstance(v, tp)


def _type_name(tp: Any) -> str:
    names = {str: "text", int: "an integer", float: "a number", bool: "true or false", type(None): "null"}
    if typing.get_origin(tp) in (types.UnionType, typing.Union):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    if typing.get_origin(tp) is list:
        return f"a list of {_type_name(typing.get_args(tp)[0])}"
    if typing.get_origin(tp) is dict:
        return "an object"
    return names.get(tp, getattr(tp, "__name__", str(tp)))


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."
