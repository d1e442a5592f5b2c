"""Rendering a session for people: `debug.md`, the Markdown export, the JSON export.

`render_debug_md(capture, date) -> str` is the recipe's capture file;
`export_md(state) -> str` is that file followed by the hypotheses with their
evidence, the checks with their output and verdicts, the fix, verification,
lesson and commit; `export_json(state, events) -> str` is the state plus the
full event list (self-contained: no artifact is needed to read it).
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from .log import SCHEMA_VERSION, Event
from .state import SessionState

# Check output shown in the Markdown export: the last lines (the full capped output is in the JSON).
MD_OUTPUT_LINES = 60


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
        diag = d["diagnosis"]
        lines = [f"## Hypotheses\n\nEngine: {d['engine']}; status: {diag.get('status', '?')}\n"]
        for i, h in enumerate(state.hypotheses, 1):
            if not isinstance(h, dict):
                continue
            hid = h.get("id", "?")
            v = state.verdicts.get(hid)
            conf = h.get("confidence")
            lines.append(f"### {i}. {hid}" + (f" ({conf:.0%})" if isinstance(conf, (int, float)) else "")
                         + (f": **{v.verdict}**" if v else ""))
            lines.append("")
            if h.get("issue"):
                lines.append(str(h["issue"]))
                lines.append("")
            for e in h.get("evidence") or []:
                if isinstance(e, dict):
                    where = ":".join(str(x) for x in (e.get("source"), e.get("line")) if x is not None)
                    if e.get("step") is not None:
                        where += f" step {e['step']}"
                    quote = f" `{e['quote']}`" if e.get("quote") else ""
                    lines.append(f"- {e.get('text', '')}" + (f" ({where.strip()})" if where.strip() else "") + quote)
            if h.get("check"):
                lines.append(("\n" if h.get("evidence") else "") + f"Check: {h['check']}")
            if h.get("fix"):
                lines.append(f"Fix: {h['fix']}")
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
            f"- `{v.get('command', '')}`: exit {v.get('exit_code')}, " + ("passed" if v.get("passed") else "failed")
            for v in state.verifications) + "\n")
    if state.lesson:
        out.append("## Lesson\n\n" + state.lesson["text"].strip()
                   + (f"\n\n(written to `{state.lesson['file']}`)" if state.lesson.get("file") else "") + "\n")
    if state.commits:
        out.append("## Commit\n\n" + "\n".join(
            f"- `{c['sha'][:12]}` {c['message'].splitlines()[0] if c['message'] else ''}" for c in state.commits) + "\n")
    if state.notes:
        out.append("## Notes\n\n" + "\n".join(f"- {n['time'][:16]}: {n['text']}" for n in state.notes) + "\n")
    env = state.environment
    if env:
        git = env.get("git") or {}
        bits = [f"Python {env.get('python')}", f"torch {env.get('torch') or '-'}", f"CUDA {env.get('cuda') or '-'}",
                "GPUs: " + (", ".join(env.get("gpus") or []) or "none"),
                f"git {str(git.get('commit') or '-')[:12]}" + (" (dirty)" if git.get("dirty") else "")]
        out.append("## Environment\n\n" + "; ".join(bits) + f"; {len(env.get('pip_freeze') or [])} packages\n")
    return "\n".join(out)


def export_json(state: SessionState, events: Iterable[Event] | None = None) -> str:
    """The state and (when given) every event, as one JSON document."""
    doc: dict[str, Any] = {"format": "mltdbg-session", "schema": SCHEMA_VERSION, "session": state.session_id,
                           "state": state.to_json()}
    if events is not None:
        doc["events"] = [e.to_json() for e in events]
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str)
