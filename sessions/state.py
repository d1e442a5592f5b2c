"""Session state as a pure fold of its events.

`fold(events) -> SessionState`; `apply(state, event)` advances a state by one
event in place. The TUI renders this state; it keeps no second truth. Payload
fields are read with defaults, so a damaged or partial event degrades to
missing fields, never to an exception.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any, Iterable

from .log import Event

# The workflow steps the TUI shows (one screen each), in order.
STEPS = ("capture", "diagnose", "check", "fix", "lesson")
CAPTURE_FIELDS = ("command", "expected", "happened", "tried")
VERDICTS = ("confirmed", "denied", "inconclusive")
FIX_STATUSES = ("proposed", "confirmed", "applied", "reverted")

# Every event type this version understands. Others are counted and skipped.
EVENT_TYPES = (
    "session_started", "environment_recorded", "session_resumed", "capture_edited", "artifacts_chosen",
    "diagnosis_made", "check_approved", "check_edited", "check_skipped", "check_started", "check_output",
    "check_finished", "verdict_recorded", "fix_proposed", "fix_confirmed", "fix_applied", "fix_reverted",
    "verification_ran", "lesson_written", "commit_made", "note_added", "step_changed",
    "test_added", "claude_ran",
)


@dataclass
class CheckPlan:
    """What the user decided about a hypothesis's check before running it."""

    hypothesis_id: str
    command: str
    decision: str                        # approved | edited | skipped
    original_command: str | None = None  # before an edit
    seq: int = 0


@dataclass
class CheckRun:
    """One run of a check command and what it printed (stored output is capped)."""

    check_id: str
    command: str
    hypothesis_id: str | None = None
    cwd: str | None = None
    timeout_s: float | None = None
    status: str = "running"              # running | done | timed_out | cancelled | interrupted
    exit_code: int | None = None
    duration_s: float | None = None
    chunks: list[str] = field(default_factory=list)
    truncated_bytes: int = 0             # output bytes not stored (between head and tail)
    started_seq: int = 0
    started_at: str = ""
    finished_at: str = ""

    @property
    def output(self) -> str:
        return "".join(self.chunks)


@dataclass
class Verdict:
    hypothesis_id: str
    verdict: str                         # confirmed | denied | inconclusive
    note: str = ""
    check_id: str | None = None
    seq: int = 0


@dataclass
class Fix:
    """A proposed change and where it went: proposed -> confirmed -> applied (-> reverted)."""

    source: str                          # playbook | claude | user
    diff: str
    files: list[str] = field(default_factory=list)
    test_diff: str = ""
    test_file: str | None = None         # set by test_added
    test_written: bool = False           # the test file is on disk (written through the gate)
    hypothesis_id: str | None = None
    status: str = "proposed"
    history: list[dict[str, Any]] = field(default_factory=list)   # [{status, seq, time}]


@dataclass
class SessionState:
    """Everything a session knows, derived from its events only."""

    session_id: str = ""
    name: str | None = None
    created_at: str = ""
    root: str = ""                        # absolute repo root when the session started
    in_repo: bool = False
    step: str = STEPS[0]
    capture: dict[str, str] = field(default_factory=lambda: dict.fromkeys(CAPTURE_FIELDS, ""))
    environment: dict[str, Any] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)    # relative to the repo root
    excluded: list[str] = field(default_factory=list)
    diagnoses: list[dict[str, Any]] = field(default_factory=list)  # {engine, diagnosis, plots, seq, time}
    plans: dict[str, CheckPlan] = field(default_factory=dict)
    checks: dict[str, CheckRun] = field(default_factory=dict)
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    fixes: list[Fix] = field(default_factory=list)
    verifications: list[dict[str, Any]] = field(default_factory=list)
    lesson: dict[str, Any] | None = None
    commits: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)    # {text, seq, time}
    engine_runs: list[dict[str, Any]] = field(default_factory=list)  # claude_ran payloads (no key), with seq
    resumes: list[dict[str, Any]] = field(default_factory=list)  # {time, seq, interrupted_checks}
    seq: int = 0                          # seq of the last event applied
    time: str = ""
    n_events: int = 0
    unknown_types: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)             # "seq N (type): why"

    @property
    def diagnosis(self) -> dict[str, Any] | None:
        """The latest diagnosis record, or None."""
        return self.diagnoses[-1] if self.diagnoses else None

    @property
    def hypotheses(self) -> list[dict[str, Any]]:
        """Ranked root causes of the latest diagnosis (diagnosis.schema.json items)."""
        d = self.diagnosis
        rc = (d or {}).get("diagnosis", {}).get("root_causes") if d else None
        return rc if isinstance(rc, list) else []

    @property
    def fix(self) -> Fix | None:
        return self.fixes[-1] if self.fixes else None

    @property
    def running_checks(self) -> list[CheckRun]:
        return [c for c in self.checks.values() if c.status == "running"]

    def copy(self) -> "SessionState":
        """An independent copy; event payloads (never mutated) are shared, not copied."""
        new = copy.copy(self)
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, dict):
                v = {k: copy.copy(x) if hasattr(x, "__dataclass_fields__") else x for k, x in v.items()}
            elif isinstance(v, list):
                v = [copy.copy(x) if hasattr(x, "__dataclass_fields__") else x for x in v]
            setattr(new, f.name, v)
        for c in new.checks.values():
            c.chunks = list(c.chunks)
        for fx in new.fixes:
            fx.history = list(fx.history)
        return new

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (check output joined into one string per check)."""
        d: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "checks":
                v = {k: {**{g.name: getattr(c, g.name) for g in fields(c) if g.name != "chunks"}, "output": c.output}
                     for k, c in v.items()}
            elif f.name == "plans" or f.name == "verdicts":
                v = {k: _plain(x) for k, x in v.items()}
            elif f.name == "fixes":
                v = [_plain(x) for x in v]
            elif f.name == "capture":
                v = dict(v)
            d[f.name] = v
        return d


def _plain(x: Any) -> dict[str, Any]:
    return {g.name: getattr(x, g.name) for g in fields(x)}


def _s(v: Any, default: str = "") -> str:
    return v if isinstance(v, str) else default


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def truncation_marker(n_bytes: int) -> str:
    return f"\n[... {n_bytes} bytes of output not stored: the session keeps the first and last part of each check's output ...]\n"


def fold(events: Iterable[Event], state: SessionState | None = None) -> SessionState:
    """The state after the given events, starting from `state` (a new one by default)."""
    st = state if state is not None else SessionState()
    for ev in events:
        apply(st, ev)
    return st


def finalize(state: SessionState) -> SessionState:
    """End of a log whose writer is gone: checks still running were interrupted."""
    for c in state.checks.values():
        if c.status == "running":
            c.status = "interrupted"
    return state


def apply(st: SessionState, ev: Event) -> None:
    """Advance st by one event, in place. Never raises for bad payloads."""
    st.seq, st.time = ev.seq, ev.time
    st.n_events += 1
    handler = _HANDLERS.get(ev.type)
    if handler is None:
        st.unknown_types[ev.type] = st.unknown_types.get(ev.type, 0) + 1
        return
    try:
        handler(st, ev, ev.payload)
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        st.skipped.append(f"seq {ev.seq} ({ev.type}): {e}")


def _started(st, ev, p):
    st.session_id = _s(p.get("id"), st.session_id)
    st.name = p.get("name") if isinstance(p.get("name"), str) else st.name
    st.created_at = ev.time
    st.root = _s(p.get("root"))
    st.in_repo = bool(p.get("in_repo"))


def _environment(st, ev, p):
    st.environment = p


def _resumed(st, ev, p):
    interrupted = []
    for c in st.checks.values():
        if c.status == "running":   # its process died with the previous writer; never re-run
            c.status = "interrupted"
            interrupted.append(c.check_id)
    st.resumes.append({"time": ev.time, "seq": ev.seq, "interrupted_checks": interrupted,
                       "root": _s(p.get("root"))})


def _capture(st, ev, p):
    f = p.get("field")
    if not isinstance(f, str):
        raise ValueError("capture_edited without a field name")
    st.capture[f] = _s(p.get("value"))


def _artifacts(st, ev, p):
    st.artifacts = [x for x in p.get("paths") or [] if isinstance(x, str)]
    st.excluded = [x for x in p.get("excluded") or [] if isinstance(x, str)]


def _diagnosis(st, ev, p):
    diag = p.get("diagnosis")
    st.diagnoses.append({"engine": _s(p.get("engine"), "unknown"), "diagnosis": diag if isinstance(diag, dict) else {},
                         "plots": p.get("plots") if isinstance(p.get("plots"), dict) else {},
                         "seq": ev.seq, "time": ev.time})


def _plan(decision):
    def h(st, ev, p):
        hid = _s(p.get("hypothesis_id"))
        prev = st.plans.get(hid)
        orig = p.get("original_command") if isinstance(p.get("original_command"), str) else None
        if decision == "edited" and orig is None and prev is not None:
            orig = prev.original_command or prev.command
        st.plans[hid] = CheckPlan(hid, _s(p.get("command")), decision, orig, ev.seq)
    return h


def _check_started(st, ev, p):
    cid = _s(p.get("check_id")) or f"check-{ev.seq}"
    st.checks[cid] = CheckRun(cid, _s(p.get("command")), p.get("hypothesis_id") if isinstance(p.get("hypothesis_id"), str) else None,
                              p.get("cwd") if isinstance(p.get("cwd"), str) else None, _num(p.get("timeout_s")),
                              started_seq=ev.seq, started_at=ev.time)


def _check_output(st, ev, p):
    c = st.checks.get(_s(p.get("check_id")))
    if c is None:
        raise ValueError(f"output for unknown check {p.get('check_id')!r}")
    dropped = p.get("truncated_bytes")
    if isinstance(dropped, int) and dropped > 0:
        c.truncated_bytes += dropped
        c.chunks.append(truncation_marker(dropped))
    c.chunks.append(_s(p.get("chunk")))


def _check_finished(st, ev, p):
    c = st.checks.get(_s(p.get("check_id")))
    if c is None:
        raise ValueError(f"finish of unknown check {p.get('check_id')!r}")
    ec = p.get("exit_code")
    c.exit_code = ec if isinstance(ec, int) and not isinstance(ec, bool) else None
    c.duration_s = _num(p.get("duration_s"))
    c.status = "cancelled" if p.get("cancelled") else "timed_out" if p.get("timed_out") else "done"
    c.finished_at = ev.time


def _verdict(st, ev, p):
    hid = _s(p.get("hypothesis_id"))
    v = _s(p.get("verdict"))
    if v not in VERDICTS:
        raise ValueError(f"unknown verdict {v!r}")
    st.verdicts[hid] = Verdict(hid, v, _s(p.get("note")), p.get("check_id") if isinstance(p.get("check_id"), str) else None, ev.seq)


def _fix_proposed(st, ev, p):
    fx = Fix(_s(p.get("source"), "user"), _s(p.get("diff")), [x for x in p.get("files") or [] if isinstance(x, str)],
             _s(p.get("test_diff")), hypothesis_id=p.get("hypothesis_id") if isinstance(p.get("hypothesis_id"), str) else None)
    fx.history.append({"status": "proposed", "seq": ev.seq, "time": ev.time})
    st.fixes.append(fx)


def _fix_status(status):
    def h(st, ev, p):
        if not st.fixes:
            raise ValueError(f"fix {status} before any fix was proposed")
        fx = st.fixes[-1]
        fx.status = status
        fx.history.append({"status": status, "seq": ev.seq, "time": ev.time, **({"note": p["note"]} if isinstance(p.get("note"), str) else {})})
    return h


def _test_added(st, ev, p):
    # A test file for the latest fix: proposed (written false) or written through the confirmed gate.
    if not st.fixes:
        raise ValueError("test_added before any fix was proposed")
    fx = st.fixes[-1]
    fx.test_file = p.get("file") if isinstance(p.get("file"), str) else fx.test_file
    fx.test_diff = _s(p.get("diff"), fx.test_diff)
    fx.test_written = bool(p.get("written"))


def _verification(st, ev, p):
    st.verifications.append({**p, "seq": ev.seq, "time": ev.time})


def _lesson(st, ev, p):
    st.lesson = {"text": _s(p.get("text")), "file": p.get("file") if isinstance(p.get("file"), str) else None,
                 "seq": ev.seq, "time": ev.time}


def _commit(st, ev, p):
    st.commits.append({"sha": _s(p.get("sha")), "message": _s(p.get("message")),
                       "files": [x for x in p.get("files") or [] if isinstance(x, str)], "seq": ev.seq, "time": ev.time})


def _note(st, ev, p):
    st.notes.append({"text": _s(p.get("text")), "seq": ev.seq, "time": ev.time})


def _claude_ran(st, ev, p):
    st.engine_runs.append({**p, "seq": ev.seq})


def _step(st, ev, p):
    step = p.get("step")
    if not isinstance(step, str) or not step:
        raise ValueError("step_changed without a step")
    st.step = step


_HANDLERS = {
    "session_started": _started, "environment_recorded": _environment, "session_resumed": _resumed,
    "capture_edited": _capture, "artifacts_chosen": _artifacts, "diagnosis_made": _diagnosis,
    "check_approved": _plan("approved"), "check_edited": _plan("edited"), "check_skipped": _plan("skipped"),
    "check_started": _check_started, "check_output": _check_output, "check_finished": _check_finished,
    "verdict_recorded": _verdict, "fix_proposed": _fix_proposed, "fix_confirmed": _fix_status("confirmed"),
    "fix_applied": _fix_status("applied"), "fix_reverted": _fix_status("reverted"),
    "verification_ran": _verification, "lesson_written": _lesson, "commit_made": _commit,
    "note_added": _note, "step_changed": _step, "test_added": _test_added,
    "claude_ran": _claude_ran,
}
assert set(_HANDLERS) == set(EVENT_TYPES)
