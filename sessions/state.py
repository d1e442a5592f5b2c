"""Session state as a pure fold of its events.

`fold(events) -> SessionState`; `apply(state, event)` advances a state by one stored event in
place. The TUI renders this state; it keeps no second truth. Each stored event is read through
its typed class (`mltdbg.sessions.events`): an event of an unknown type is counted in
`unknown_types`, one that breaks its type's contract (a missing key, a wrong value) is skipped
and named in `skipped`; `state_warnings(state)` turns both into lines for the user. Neither
ever raises.

Records kept here (what happened, as recorded; the live objects are elsewhere):
    DiagnosisRecord (with its HypothesisRecord / EvidenceRecord list), CheckPlan,
    CheckRecord (a recorded check; the running one is `mltdbg.sessions.checks.CheckRun`),
    Verdict, Fix.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any, Iterable

from mltdbg.sessions.errors import EventError, UnknownEventType
from mltdbg.sessions.events import (CAPTURE_FIELDS, EVENT_TYPES, STEPS, VERDICTS, ArtifactsChosen, CaptureEdited,
                                    CheckFinished, CheckOutput, CheckStarted, ClaudeRan, CommitMade, DiagnosisMade,
                                    EnvironmentRecorded, FixProposed, LessonWritten, NoteAdded, ProbeRan, SessionAdopted, SessionResumed,
                                    SessionStarted, StepChanged, TestAdded, VerdictRecorded, VerificationRan,
                                    parse_event)
from mltdbg.sessions.log import Event

__all__ = ["STEPS", "CAPTURE_FIELDS", "VERDICTS", "FIX_STATUSES", "EVENT_TYPES", "EvidenceRecord", "HypothesisRecord",
           "DiagnosisRecord", "CheckPlan", "CheckRecord", "Verdict", "Fix", "SessionState", "fold", "apply", "finalize",
           "state_warnings", "truncation_marker"]

FIX_STATUSES = ("proposed", "confirmed", "applied", "reverted")
# Event types whose `hypothesis_id` says which hypothesis the user is working on.
_FOCUS_TYPES = ("step_changed", "check_approved", "check_edited", "check_skipped", "verdict_recorded")


def _str(v: Any, default: str = "") -> str:
    return v if isinstance(v, str) else default


def _opt_str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _opt_int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


@dataclass
class EvidenceRecord:
    """One recorded citation (a diagnosis.schema.json evidence item)."""

    text: str = ""
    source: str | None = None
    line: int | None = None
    step: int | None = None
    quote: str | None = None
    metric: str | None = None
    value: Any = None                    # a number, or "NaN"/"inf" as text
    verified: bool | None = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "EvidenceRecord":
        v = d.get("verified")
        return cls(_str(d.get("text")), _opt_str(d.get("source")), _opt_int(d.get("line")), _opt_int(d.get("step")),
                   _opt_str(d.get("quote")), _opt_str(d.get("metric")), d.get("value"),
                   v if isinstance(v, bool) else None)

    @property
    def location(self) -> str:
        """`source:line` (either part when the other is missing), or ""."""
        return ":".join(str(x) for x in (self.source, self.line) if x is not None)


@dataclass
class HypothesisRecord:
    """A ranked root cause as recorded in `diagnosis_made`: the schema's fields plus the playbook's
    extras the later steps use (title, instrumentation, test_template, lesson, needs)."""

    id: str
    issue: str = ""
    severity: str = ""
    confidence: float | None = None
    engine: str = ""
    evidence: list[EvidenceRecord] = field(default_factory=list)
    check: str = ""
    check_command: str | None = None
    fix: str = ""
    patch: str | None = None
    title: str | None = None
    instrumentation: str | None = None
    test_template: str | None = None
    lesson: str = ""
    needs: list[str] = field(default_factory=list)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "HypothesisRecord":
        """Tolerant: a value of the wrong type reads as missing."""
        return cls(id=_str(d.get("id"), "?"), issue=_str(d.get("issue")), severity=_str(d.get("severity")),
                   confidence=_num(d.get("confidence")), engine=_str(d.get("engine")),
                   evidence=[EvidenceRecord.from_json(e) for e in d.get("evidence") or [] if isinstance(e, dict)],
                   check=_str(d.get("check")), check_command=_opt_str(d.get("check_command")), fix=_str(d.get("fix")),
                   patch=_opt_str(d.get("patch")), title=_opt_str(d.get("title")),
                   instrumentation=_opt_str(d.get("instrumentation")), test_template=_opt_str(d.get("test_template")),
                   lesson=_str(d.get("lesson")),
                   needs=[x for x in d.get("needs") or [] if isinstance(x, str)] if isinstance(d.get("needs"), list) else [])

    @property
    def label(self) -> str:
        """What to call it in a list: the title, else the issue."""
        return self.title or self.issue


@dataclass
class DiagnosisRecord:
    """One `diagnosis_made`: the diagnosis.schema.json object as recorded, its plots, and its
    ranked hypotheses read from it."""

    engine: str
    diagnosis: dict[str, Any]
    plots: dict[str, Any]
    seq: int = 0
    time: str = ""
    hypotheses: list[HypothesisRecord] = field(default_factory=list)

    @classmethod
    def from_event(cls, e: DiagnosisMade, seq: int = 0, time: str = "") -> "DiagnosisRecord":
        rc = e.diagnosis.get("root_causes")
        hyps = [HypothesisRecord.from_json(h) for h in rc if isinstance(h, dict)] if isinstance(rc, list) else []
        return cls(e.engine or "unknown", e.diagnosis, e.plots, seq, time, hyps)

    @property
    def status(self) -> str:
        return _str(self.diagnosis.get("status"), "?")

    @property
    def needs(self) -> list[str]:
        n = self.diagnosis.get("needs")
        return [x for x in n if isinstance(x, str)] if isinstance(n, list) else []

    def to_json(self) -> dict[str, Any]:
        """As the export has always written it (the hypotheses are inside `diagnosis`)."""
        return {"engine": self.engine, "diagnosis": self.diagnosis, "plots": self.plots, "seq": self.seq, "time": self.time}


@dataclass
class CheckPlan:
    """What the user decided about a hypothesis's check before running it."""

    hypothesis_id: str
    command: str
    decision: str                        # approved | edited | skipped
    original_command: str | None = None  # before an edit
    seq: int = 0
    instrumentation: str | None = None   # the snippet as the user edited it (kept by later decisions)


@dataclass
class CheckRecord:
    """One recorded run of a check command and what it printed (stored output is capped).
    The check that runs is `mltdbg.sessions.checks.CheckRun`; this is what the log says about it."""

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
    diagnoses: list[DiagnosisRecord] = field(default_factory=list)
    plans: dict[str, CheckPlan] = field(default_factory=dict)
    checks: dict[str, CheckRecord] = field(default_factory=dict)
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    fixes: list[Fix] = field(default_factory=list)
    verifications: list[dict[str, Any]] = field(default_factory=list)
    lesson: dict[str, Any] | None = None
    commits: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)    # {text, seq, time}
    engine_runs: list[dict[str, Any]] = field(default_factory=list)  # claude_ran payloads (no key), with seq
    probes: list[dict[str, Any]] = field(default_factory=list)   # probe_ran payloads, with seq and time
    resumes: list[dict[str, Any]] = field(default_factory=list)  # {time, seq, interrupted_checks}
    focus_hypothesis_id: str | None = None  # the hypothesis the user chose last (step, check, verdict events)
    seq: int = 0                          # seq of the last event applied
    time: str = ""
    n_events: int = 0
    unknown_types: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)             # "seq N (type): why"

    @property
    def diagnosis(self) -> DiagnosisRecord | None:
        """The latest diagnosis record, or None."""
        return self.diagnoses[-1] if self.diagnoses else None

    @property
    def hypotheses(self) -> list[HypothesisRecord]:
        """Ranked root causes of the latest diagnosis, best first."""
        return self.diagnosis.hypotheses if self.diagnosis else []

    def hypothesis(self, hid: str | None) -> HypothesisRecord | None:
        """The latest diagnosis's hypothesis with this id, or None."""
        return next((h for h in self.hypotheses if h.id == hid), None) if hid else None

    def check_command(self, hid: str | None) -> str:
        """The command a check for hid starts from: the recorded plan, else the hypothesis's own
        check command, else the captured failing command."""
        plan = self.plans.get(hid or "")
        h = self.hypothesis(hid)
        return (plan.command if plan else None) or (h.check_command if h else None) or self.capture.get("command", "")

    @property
    def focused_hypothesis(self) -> str | None:
        """The hypothesis the user chose last, else the top-ranked one, else None."""
        if self.focus_hypothesis_id:
            return self.focus_hypothesis_id
        return self.hypotheses[0].id if self.hypotheses else None

    @property
    def fix(self) -> Fix | None:
        return self.fixes[-1] if self.fixes else None

    @property
    def running_checks(self) -> list[CheckRecord]:
        return [c for c in self.checks.values() if c.status == "running"]

    def checks_for(self, hypothesis_id: str | None) -> list[CheckRecord]:
        """The recorded checks run for a hypothesis, oldest first."""
        return [c for c in self.checks.values() if c.hypothesis_id == hypothesis_id]

    def last_verifications(self) -> list[dict[str, Any]]:
        """The latest verification round (the rerun and its test) since the latest fix (or its test)
        last changed status; [] when none ran. Only the latest round decides: an earlier failed round
        never fails a later one. Rounds are told apart by their `round` id; events without one (older
        sessions) are grouped as the longest tail in which no command repeats (a round runs each
        command once)."""
        fx = self.fix
        since = max((h.get("seq", 0) for h in fx.history), default=0) if fx else 0
        recent = [v for v in self.verifications if v.get("seq", 0) > since]
        if not recent:
            return []
        rid = recent[-1].get("round")
        if rid is not None:
            return [v for v in recent if v.get("round") == rid]
        tail: list[dict[str, Any]] = []
        for v in reversed(recent):
            if v.get("round") is not None or any(t.get("command") == v.get("command") for t in tail):
                break
            tail.insert(0, v)
        return tail

    @property
    def verified(self) -> bool | None:
        """The latest verification round's result: True when every command in it passed, False when
        one failed, None when none ran since the fix last changed status."""
        last = self.last_verifications()
        return all(v.get("passed") for v in last) if last else None

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
            elif f.name == "diagnoses":
                v = [x.to_json() for x in v]
            elif f.name == "capture":
                v = dict(v)
            d[f.name] = v
        return d


def _plain(x: Any) -> dict[str, Any]:
    return {g.name: getattr(x, g.name) for g in fields(x)}


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


def state_warnings(state: SessionState, label: str = "events.jsonl") -> list[str]:
    """The events the fold left out, one line each, for the user: "LABEL: seq N (type): why; skipped"."""
    out = [f"{label}: event {s}; skipped" for s in state.skipped]
    out += [f"{label}: {n} event(s) of type {t!r}, unknown to this version; ignored" for t, n in state.unknown_types.items()]
    return out


def apply(st: SessionState, ev: Event) -> None:
    """Advance st by one stored event, in place. Never raises: an unknown type is counted, an event
    that breaks its type's contract is named in `skipped`."""
    st.seq, st.time = ev.seq, ev.time
    st.n_events += 1
    try:
        e = parse_event(ev.type, ev.payload)
    except UnknownEventType:
        st.unknown_types[ev.type] = st.unknown_types.get(ev.type, 0) + 1
        return
    except EventError as err:
        st.skipped.append(f"seq {ev.seq} ({ev.type}): {str(err).removeprefix(f'{ev.type} event: ')}")
        return
    try:
        _HANDLERS[ev.type](st, ev, e)
    except (TypeError, ValueError, KeyError, AttributeError) as err:
        st.skipped.append(f"seq {ev.seq} ({ev.type}): {err}")
        return
    hid = getattr(e, "hypothesis_id", None) if ev.type in _FOCUS_TYPES else None
    if isinstance(hid, str) and hid:
        st.focus_hypothesis_id = hid


def _started(st: SessionState, ev: Event, e: SessionStarted) -> None:
    st.session_id = e.id or st.session_id
    st.name = e.name if e.name is not None else st.name
    st.created_at = ev.time
    st.root = e.root
    st.in_repo = e.in_repo


def _environment(st: SessionState, ev: Event, e: EnvironmentRecorded) -> None:
    st.environment = e.payload()


def _resumed(st: SessionState, ev: Event, e: SessionResumed) -> None:
    interrupted = []
    for c in st.checks.values():
        if c.status == "running":   # its process died with the previous writer; never re-run
            c.status = "interrupted"
            interrupted.append(c.check_id)
    st.resumes.append({"time": ev.time, "seq": ev.seq, "interrupted_checks": interrupted, "root": e.root})


def _capture(st: SessionState, ev: Event, e: CaptureEdited) -> None:
    st.capture[e.field] = e.value


def _artifacts(st: SessionState, ev: Event, e: ArtifactsChosen) -> None:
    st.artifacts = [str(x) for x in e.paths]
    st.excluded = [str(x) for x in e.excluded]


def _diagnosis(st: SessionState, ev: Event, e: DiagnosisMade) -> None:
    st.diagnoses.append(DiagnosisRecord.from_event(e, ev.seq, ev.time))


def _plan(decision: str):
    def h(st: SessionState, ev: Event, e) -> None:
        hid = e.hypothesis_id or ""
        prev = st.plans.get(hid)
        orig = e.original_command
        if decision == "edited" and orig is None and prev is not None:
            orig = prev.original_command or prev.command
        instr = e.instrumentation if e.instrumentation is not None else (prev.instrumentation if prev else None)
        st.plans[hid] = CheckPlan(hid, e.command, decision, orig, ev.seq, instr)
    return h


def _check_started(st: SessionState, ev: Event, e: CheckStarted) -> None:
    cid = e.check_id or f"check-{ev.seq}"
    st.checks[cid] = CheckRecord(cid, e.command, e.hypothesis_id, e.cwd, _num(e.timeout_s),
                                 started_seq=ev.seq, started_at=ev.time)


def _check_output(st: SessionState, ev: Event, e: CheckOutput) -> None:
    c = st.checks.get(e.check_id)
    if c is None:
        raise ValueError(f"output for unknown check {e.check_id!r}")
    if e.truncated_bytes:
        c.truncated_bytes += e.truncated_bytes
        c.chunks.append(truncation_marker(e.truncated_bytes))
    c.chunks.append(e.chunk)


def _check_finished(st: SessionState, ev: Event, e: CheckFinished) -> None:
    c = st.checks.get(e.check_id)
    if c is None:
        raise ValueError(f"finish of unknown check {e.check_id!r}")
    c.exit_code = e.exit_code
    c.duration_s = _num(e.duration_s)
    c.status = "interrupted" if e.interrupted else "cancelled" if e.cancelled else "timed_out" if e.timed_out else "done"
    c.finished_at = ev.time


def _verdict(st: SessionState, ev: Event, e: VerdictRecorded) -> None:
    hid = e.hypothesis_id or ""
    st.verdicts[hid] = Verdict(hid, e.verdict, e.note, e.check_id, ev.seq)


def _in_repo(path: Any, what: str) -> str:
    """A recorded path the workflow writes or commits (fix files, test file, lesson file), checked on read:
    relative to the repo root and staying inside it. A shared or hand-edited log may hold anything:
    ValueError (the event is skipped with a warning) instead of a write outside the repo later."""
    p = str(path)
    parts = p.replace("\\", "/").split("/")
    if not p or "\0" in p or p.startswith(("/", "\\", "~")) or (len(p) > 1 and p[1] == ":") or ".." in parts:
        raise ValueError(f"{what} {p!r} is not a path inside the repository; refused")
    return p


def _fix_proposed(st: SessionState, ev: Event, e: FixProposed) -> None:
    files = [_in_repo(f, "fix file") for f in e.files]
    fx = Fix(e.source, e.diff, files, e.test_diff, hypothesis_id=e.hypothesis_id)
    fx.history.append({"status": "proposed", "seq": ev.seq, "time": ev.time})
    st.fixes.append(fx)


def _fix_status(status: str):
    def h(st: SessionState, ev: Event, e) -> None:
        if not st.fixes:
            raise ValueError(f"fix {status} before any fix was proposed")
        fx = st.fixes[-1]
        fx.status = status
        fx.history.append({"status": status, "seq": ev.seq, "time": ev.time, **({"note": e.note} if e.note is not None else {})})
    return h


def _test_added(st: SessionState, ev: Event, e: TestAdded) -> None:
    # A test file for the latest fix: proposed (written false) or written through the confirmed gate.
    if not st.fixes:
        raise ValueError("test_added before any fix was proposed")
    fx = st.fixes[-1]
    fx.test_file = _in_repo(e.file, "test file")
    fx.test_diff = e.diff
    fx.test_written = e.written


def _verification(st: SessionState, ev: Event, e: VerificationRan) -> None:
    st.verifications.append({**e.payload(), "seq": ev.seq, "time": ev.time})


def _lesson(st: SessionState, ev: Event, e: LessonWritten) -> None:
    st.lesson = {"text": e.text, "file": _in_repo(e.file, "lesson file") if e.file is not None else None,
                 "seq": ev.seq, "time": ev.time}


def _commit(st: SessionState, ev: Event, e: CommitMade) -> None:
    st.commits.append({"sha": e.sha, "message": e.message, "files": [_in_repo(f, "committed file") for f in e.files],
                       "seq": ev.seq, "time": ev.time})


def _note(st: SessionState, ev: Event, e: NoteAdded) -> None:
    st.notes.append({"text": e.text, "seq": ev.seq, "time": ev.time})


def _claude_ran(st: SessionState, ev: Event, e: ClaudeRan) -> None:
    st.engine_runs.append({**e.payload(), "seq": ev.seq})


def _probe_ran(st: SessionState, ev: Event, e: ProbeRan) -> None:
    st.probes.append({**e.payload(), "seq": ev.seq, "time": ev.time})


def _adopted(st: SessionState, ev: Event, e: SessionAdopted) -> None:
    st.root = e.root
    st.notes.append({"text": f"adopted: continued in {e.root}", "seq": ev.seq, "time": ev.time})


def _step(st: SessionState, ev: Event, e: StepChanged) -> None:
    st.step = e.step


_HANDLERS = {
    "session_started": _started, "environment_recorded": _environment, "session_resumed": _resumed,
    "capture_edited": _capture, "artifacts_chosen": _artifacts, "diagnosis_made": _diagnosis,
    "check_approved": _plan("approved"), "check_edited": _plan("edited"), "check_skipped": _plan("skipped"),
    "check_started": _check_started, "check_output": _check_output, "check_finished": _check_finished,
    "verdict_recorded": _verdict, "fix_proposed": _fix_proposed, "fix_confirmed": _fix_status("confirmed"),
    "fix_applied": _fix_status("applied"), "fix_reverted": _fix_status("reverted"),
    "verification_ran": _verification, "lesson_written": _lesson, "commit_made": _commit,
    "note_added": _note, "step_changed": _step, "test_added": _test_added,
    "claude_ran": _claude_ran, "probe_ran": _probe_ran, "session_adopted": _adopted,
}
assert set(_HANDLERS) == set(EVENT_TYPES)
