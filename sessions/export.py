"""Rendering a session for people: `debug.md`, the Markdown export, the JSON export, replay text.

`render_debug_md(capture, date) -> str` is the recipe's capture file;
`export_md(state) -> str` is that file followed by the hypotheses with their
evidence, the checks with their output and verdicts, the fix, verification,
lesson and commit; `export_json(state, events) -> str` is the state plus the
full event list (self-contained: no artifact is needed to read it);
`describe(event, state, full) -> str` is one stored event as replay shows it
(`mltdbg sessions replay`, the TUI's replay screen), worded with the same
pieces as the export (evidence with its citation, environment, verification, commit).
All of it is plain text (Markdown), never terminal markup.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from mltdbg.sessions.errors import EventError, UnknownEventType
from mltdbg.sessions.events import (ArtifactsChosen, CaptureEdited, CheckDecision, CheckFinished, CheckOutput,
                                    CheckStarted, ClaudeRan, CommitMade, DiagnosisMade, EnvironmentRecorded,
                                    FixProposed, FixStatusChanged, LessonWritten, NoteAdded, ProbeRan, SessionAdopted, SessionResumed,
                                    SessionStarted, StepChanged, TestAdded, VerdictRecorded, VerificationRan,
                                    parse_event)
from mltdbg.sessions.log import SCHEMA_VERSION, Event
from mltdbg.sessions.state import DiagnosisRecord, EvidenceRecord, HypothesisRecord, SessionState

# Check output shown in the Markdown export: the last lines (the full capped output is in the JSON).
MD_OUTPUT_LINES = 60
# Output lines of a finished check shown by replay (the export has the full record).
REPLAY_OUTPUT_LINES = 15
# Evidence items per hypothesis shown by replay when not asked for everything.
REPLAY_EVIDENCE = 3


def render_debug_md(capture: dict[str, str], date: str = "") -> str:
    """The capture fields in the recipe's shape: `# bug-DATE`, Command, expected, happened, tried."""
    def part(title: str, key: str, empty: str) -> str:
        text = (capture.get(key) or "").strip("\n")
        return f"## {title}\n\n{text if text.strip() else empty}\n"
    return "\n".join([
        f"# bug-{date or 'undated'}\n",
        part("Command", "command", "(not written yet)"),
        part("What I expected", "expected", "(not written yet)"),
        part("What happened", "happened", "(not written yet)"),
        part("What I've already tried", "tried", "Nothing yet."),
    ])


def _fence(text: str, lang: str = "") -> str:
    """A code block whose fence cannot be closed by the text itself."""
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip(chr(10))}\n{ticks}"


def _last_lines(text: str, n: int) -> tuple[str, int]:
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[-n:]), max(len(lines) - n, 0)


# ----- pieces shared by the export and replay ------------------------------------------------------
def confidence_text(h: HypothesisRecord) -> str:
    """"85%", or "" when the record has no confidence."""
    return f"{h.confidence:.0%}" if h.confidence is not None else ""


def evidence_text(e: EvidenceRecord) -> str:
    """What was seen, where (file:line step N) and the artifact's own words."""
    where = e.location
    if e.step is not None:
        where += f" step {e.step}"
    quote = f" `{e.quote}`" if e.quote else ""
    return e.text + (f" ({where.strip()})" if where.strip() else "") + quote


def environment_text(env: dict[str, Any]) -> str:
    git = env.get("git") if isinstance(env.get("git"), dict) else {}
    bits = [f"Python {env.get('python')}", f"torch {env.get('torch') or '-'}", f"CUDA {env.get('cuda') or '-'}",
            "GPUs: " + (", ".join(env.get("gpus") or []) or "none"),
            f"git {str(git.get('commit') or '-')[:12]}" + (" (dirty)" if git.get("dirty") else "")]
    return "; ".join(bits) + f"; {len(env.get('pip_freeze') or [])} packages"


def verification_text(command: Any, exit_code: Any, passed: Any) -> str:
    return f"`{command or ''}`: exit {exit_code}, " + ("passed" if passed else "failed")


def commit_text(sha: str, message: str) -> str:
    return f"`{sha[:12]}` {message.splitlines()[0] if message else ''}"


def export_md(state: SessionState) -> str:
    """The session as one Markdown document (what a teammate reads)."""
    out = [render_debug_md(state.capture, state.created_at[:10])]
    head = [f"Session `{state.session_id}`" + (f" ({state.name})" if state.name else ""),
            f"started {state.created_at}, last event {state.time} (#{state.seq}), step: {state.step}"]
    out.append("## Session\n\n" + "; ".join(head) + "\n")
    if state.artifacts:
        out.append("## Artifacts\n\n" + "\n".join(f"- `{a}`" for a in state.artifacts)
                   + ("\n\nExcluded: " + ", ".join(f"`{a}`" for a in state.excluded) if state.excluded else "") + "\n")

    if state.diagnosis:
        d = state.diagnosis
        lines = [f"## Hypotheses\n\nEngine: {d.engine}; status: {d.status}\n"]
        for i, h in enumerate(state.hypotheses, 1):
            v = state.verdicts.get(h.id)
            conf = confidence_text(h)
            lines.append(f"### {i}. {h.id}" + (f" ({conf})" if conf else "") + (f": **{v.verdict}**" if v else ""))
            lines.append("")
            if h.issue:
                lines.append(h.issue)
                lines.append("")
            for e in h.evidence:
                lines.append(f"- {evidence_text(e)}")
            if h.check:
                lines.append(("\n" if h.evidence else "") + f"Check: {h.check}")
            if h.fix:
                lines.append(f"Fix: {h.fix}")
            if v and v.note:
                lines.append(f"Verdict note: {v.note}")
            lines.append("")
        if len(state.diagnoses) > 1:
            lines.append(f"({len(state.diagnoses)} diagnoses were made; the latest is shown.)\n")
        out.append("\n".join(lines))

    if state.plans or state.checks:
        lines = ["## Checks\n"]
        for hid, plan in state.plans.items():
            if plan.decision == "skipped":
                lines.append(f"- {hid}: check skipped (`{plan.command}`)")
            elif plan.decision == "edited":
                lines.append(f"- {hid}: check edited from `{plan.original_command}` to `{plan.command}`")
            if plan.instrumentation:
                lines.append(f"- {hid}: instrumentation edited to:\n\n```python\n{plan.instrumentation.rstrip()}\n```\n")
        for c in state.checks.values():
            status = c.status if c.status != "done" else f"exit {c.exit_code}"
            dur = f", {c.duration_s:.1f} s" if c.duration_s is not None else ""
            lines.append(f"\n### `{c.command}`\n\nFor: {c.hypothesis_id or '-'}; {status}{dur}"
                         + (f"; cwd `{c.cwd}`" if c.cwd else ""))
            if c.truncated_bytes:
                lines.append(f"(output over the stored cap: {c.truncated_bytes} bytes from the middle not kept)")
            if c.output.strip():
                shown, hidden = _last_lines(c.output, MD_OUTPUT_LINES)
                lines.append(("" if not hidden else f"\nLast {MD_OUTPUT_LINES} lines ({hidden} earlier lines in the JSON export):")
                             + "\n" + _fence(shown))
        out.append("\n".join(lines) + "\n")

    if state.verdicts:
        out.append("## Verdicts\n\n" + "\n".join(
            f"- {v.hypothesis_id}: **{v.verdict}**" + (f" ({v.note})" if v.note else "") for v in state.verdicts.values()) + "\n")

    if state.fixes:
        fx = state.fixes[-1]
        lines = [f"## Fix\n\nSource: {fx.source}; status: {fx.status}"
                 + (f"; for {fx.hypothesis_id}" if fx.hypothesis_id else "")
                 + ("; files: " + ", ".join(f"`{f}`" for f in fx.files) if fx.files else ""), ""]
        if fx.diff:
            lines.append(_fence(fx.diff, "diff"))
        if fx.test_diff:
            lines.append("\nTest:\n\n" + _fence(fx.test_diff, "diff"))
        if len(state.fixes) > 1:
            lines.append(f"\n({len(state.fixes) - 1} earlier proposal(s): "
                         + ", ".join(f"{f.source} {f.status}" for f in state.fixes[:-1]) + ")")
        out.append("\n".join(lines) + "\n")

    if state.verifications:
        out.append("## Verification\n\n" + "\n".join(
            "- " + verification_text(v.get("command"), v.get("exit_code"), v.get("passed")) for v in state.verifications) + "\n")
    if state.lesson:
        out.append("## Lesson\n\n" + state.lesson["text"].strip()
                   + (f"\n\n(written to `{state.lesson['file']}`)" if state.lesson.get("file") else "") + "\n")
    if state.commits:
        out.append("## Commit\n\n" + "\n".join(f"- {commit_text(c['sha'], c['message'])}" for c in state.commits) + "\n")
    if state.notes:
        out.append("## Notes\n\n" + "\n".join(f"- {n['time'][:16]}: {n['text']}" for n in state.notes) + "\n")
    if state.environment:
        out.append("## Environment\n\n" + environment_text(state.environment) + "\n")
    return "\n".join(out)


def export_json(state: SessionState, events: Iterable[Event] | None = None) -> str:
    """The state and (when given) every event, as one JSON document."""
    doc: dict[str, Any] = {"format": "mltdbg-session", "schema": SCHEMA_VERSION, "session": state.session_id,
                           "state": state.to_json()}
    if events is not None:
        doc["events"] = [e.to_json() for e in events]
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str)


# ----- replay: one event at a time -----------------------------------------------------------------
# What one event may show in the replay panel: a screenful or two of text, not a pasted 30 MB log.
REPLAY_MAX_CHARS = 20_000


def describe(ev: Event, st: SessionState, full: bool = False) -> str:
    """One stored event as its author saw it: a header line (#seq, time, type, the gist) and, for big
    moments, what changed. st: the state after the event (check output and status come from it).
    full: every evidence item and each output batch (the step-by-step view)."""
    head = f"#{ev.seq:<4} {ev.time[:19].replace('T', ' ')}  {ev.type}"
    try:
        e = parse_event(ev.type, ev.payload)
    except UnknownEventType:
        return head + "  (unknown to this version; ignored)"
    except EventError as err:
        return head + f"  (damaged: {str(err).removeprefix(f'{ev.type} event: ')}; skipped)"
    gist, body = _describe(e, st, full)
    text = "\n".join([head + (f"  {gist}" if gist else "")] + [b for b in body if b])
    if len(text) > REPLAY_MAX_CHARS:    # a 30 MB note must not freeze the replay panel; the export has it all
        more = len(text) - REPLAY_MAX_CHARS
        text = text[:REPLAY_MAX_CHARS] + f"\n    ... {more:,} more characters (sessions export shows them)"
    return text


def _describe(e: Any, st: SessionState, full: bool) -> tuple[str, list[str]]:
    """(the gist after the header, body lines) for one typed event."""
    if isinstance(e, SessionStarted):
        return e.id + (f" ({e.name})" if e.name else ""), []
    if isinstance(e, EnvironmentRecorded):
        return environment_text(e.payload()), []
    if isinstance(e, CaptureEdited):
        return e.field, [_indent(e.value)]
    if isinstance(e, ArtifactsChosen):
        return f"{len(e.paths)} chosen, {len(e.excluded)} excluded", [f"    {x}" for x in e.paths[:20]]
    if isinstance(e, DiagnosisMade):
        d = DiagnosisRecord.from_event(e)
        body = []
        for i, h in enumerate(d.hypotheses, 1):
            conf = confidence_text(h)
            body.append(f"    {i}. {h.id}" + (f" {conf}" if conf else "") + f"  {h.issue}")
            body += [f"         - {evidence_text(x)}" for x in (h.evidence if full else h.evidence[:REPLAY_EVIDENCE])]
        for metric, plot in d.plots.items():
            if isinstance(plot, dict):
                body.append(f"    plot {metric}: {len(plot.get('steps') or [])} points (recorded), "
                            f"{len(plot.get('anomalies') or [])} anomalies marked")
        return f"engine {d.engine}, status {d.status}", body
    if isinstance(e, CheckDecision):
        return f"{e.hypothesis_id}: {e.command}", ([_indent("instrumentation edited to:\n" + e.instrumentation)]
                                                   if e.instrumentation else [])
    if isinstance(e, CheckStarted):
        return f"{e.check_id}: {e.command}  (recorded; not run by replay)", []
    if isinstance(e, CheckOutput):
        gist = f"{e.check_id}: +{len(e.chunk)} chars" + \
            (f" ({e.truncated_bytes} bytes dropped by the cap)" if e.truncated_bytes else "")
        return gist, [_indent(_tail(e.chunk, REPLAY_OUTPUT_LINES))] if full and e.check_id in st.checks else []
    if isinstance(e, CheckFinished):
        c = st.checks.get(e.check_id)
        body = [_indent(_tail(c.output, REPLAY_OUTPUT_LINES))] if c is not None and c.output.strip() else []
        return f"{e.check_id}: {c.status if c else '?'}, exit {e.exit_code}, {e.duration_s} s", body
    if isinstance(e, VerdictRecorded):
        return f"{e.hypothesis_id}: {e.verdict}" + (f" ({e.note})" if e.note else ""), []
    if isinstance(e, FixProposed):
        return (f"from {e.source}, files: {', '.join(e.files) or '-'}  (shown; not applied by replay)",
                [_indent(e.diff)])
    if isinstance(e, FixStatusChanged):
        return e.note or "", []
    if isinstance(e, TestAdded):
        return f"{e.file} ({'written' if e.written else 'proposed'})", [_indent(e.diff)] if full else []
    if isinstance(e, VerificationRan):
        return verification_text(e.command, e.exit_code, e.passed), []
    if isinstance(e, LessonWritten):
        return f"-> {e.file or '(not saved to a file)'}", [_indent(e.text)]
    if isinstance(e, CommitMade):
        return commit_text(e.sha, e.message), []
    if isinstance(e, NoteAdded):
        return e.text, []
    if isinstance(e, StepChanged):
        return f"-> {e.step}" + (f" ({e.hypothesis_id})" if e.hypothesis_id else ""), []
    if isinstance(e, SessionResumed):
        return "(resumed)" + (f"; interrupted: {', '.join(e.interrupted_checks)}" if e.interrupted_checks else ""), []
    if isinstance(e, ClaudeRan):
        p = e.payload()
        return f"outcome {p.get('outcome', '?')}" + (f": {p['notice']}" if p.get("notice") else ""), []
    if isinstance(e, SessionAdopted):
        return f"continued in {e.root}", []
    if isinstance(e, ProbeRan):
        return (f"{e.probe} {e.target or ''}: {e.status}" + (f" ({e.error})" if e.error else ""),
                [f"    ! {f.get('kind')}: {f.get('summary')}" for f in e.findings if isinstance(f, dict)])
    return "", []


def _indent(text: str, n: int = 4) -> str:
    return "\n".join(" " * n + line for line in text.rstrip("\n").split("\n")) if text.strip() else ""


def _tail(text: str, n: int) -> str:
    lines = text.rstrip("\n").split("\n")
    return ("    ...\n" if len(lines) > n else "") + "\n".join(lines[-n:])
