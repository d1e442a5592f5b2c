"""`mltdbg sessions list | replay ID|FILE | export ID --format md|json`.

`add_subparser(subparsers)` adds the `sessions` command to the `mltdbg`
parser; its handler `run(args) -> exit code` is set as `args.handler` (and `args.func`).
Exit codes: 0 ok, 1 session not found or unreadable, 2 usage.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from .export import export_json, export_md
from .log import Event
from .session import SessionError, list_sessions
from .replay import Replay
from .state import SessionState

# Output lines of a finished check printed by replay (the export has the full record).
REPLAY_OUTPUT_LINES = 15


def add_subparser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser("sessions", help="list, replay or export recorded debugging sessions")
    p.add_argument("--repo", type=Path, default=None, help="repo whose sessions to use (default: the current one)")
    sub = p.add_subparsers(dest="sessions_cmd", metavar="{list,replay,export}")
    sub.required = True
    sub.add_parser("list", help="list the sessions of this repo")
    r = sub.add_parser("replay", help="print a session step by step (read-only: runs nothing)")
    r.add_argument("session", help="session id (or unique prefix), folder or events file")
    r.add_argument("--step", action="store_true",
                   help="interactive: Enter/n next, p previous, a number jumps there, q quits")
    e = sub.add_parser("export", help="export a session as Markdown or JSON")
    e.add_argument("session", help="session id (or unique prefix), folder or events file")
    e.add_argument("--format", choices=("md", "json"), default="md")
    e.add_argument("-o", "--output", type=Path, default=None, help="write here instead of stdout")
    p.set_defaults(func=run, handler=run)   # app/cli.py dispatches on `handler`
    return p


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        if args.sessions_cmd == "list":
            return _list(args, out)
        replay = Replay(args.session, args.repo)
    except SessionError as e:
        print(f"mltdbg sessions: {e}", file=sys.stderr)
        return 1
    for line in replay.warnings + replay.notices:
        print(f"note: {line}", file=sys.stderr)
    if args.sessions_cmd == "export":
        state = replay.jump(len(replay))
        text = export_md(state) if args.format == "md" else export_json(state, replay.events)
        if args.output:
            args.output.write_text(text, encoding="utf-8")
            print(f"wrote {args.output}", file=sys.stderr)
        else:
            out.write(text if text.endswith("\n") else text + "\n")
        return 0
    if args.step:
        return _step(replay, out)
    for st in replay:
        out.write(describe(replay.event, st) + "\n")
    _print_end(replay, out)
    return 0


def _list(args: argparse.Namespace, out: TextIO) -> int:
    rows = list_sessions(args.repo)
    if not rows:
        print("no sessions here yet", file=out)
        return 0
    for s in rows:
        flags = ("open " if s.live else "") + (f"{s.problems} damaged line(s) " if s.problems else "")
        title = s.name or s.title or "-"
        top = f" top: {s.top_hypothesis}" if s.top_hypothesis else ""
        print(f"{s.id}  {s.updated_at[:16].replace('T', ' ')}  {s.step:<8} {s.n_events:>5} events  "
              f"{flags}{title[:60]}{top}", file=out)
    return 0


def _step(replay: Replay, out: TextIO) -> int:
    print(f"{len(replay)} events. Enter/n: next, p: previous, NUMBER: jump, q: quit", file=out)
    while True:
        try:
            cmd = input(f"[{replay.index}/{len(replay)}] ").strip().lower()
        except EOFError:
            return 0
        if cmd == "q":
            return 0
        if cmd in ("", "n"):
            st = replay.next()
        elif cmd == "p":
            st = replay.prev()
        elif cmd.isdigit():
            st = replay.jump(int(cmd))
        else:
            print("Enter/n, p, a number, or q", file=out)
            continue
        if st is None:
            print("(at the end)" if replay.at_end else "(at the start)", file=out)
        elif replay.event is not None:
            out.write(describe(replay.event, st, full=True) + "\n")
        if replay.at_end:
            _print_end(replay, out)


def _print_end(replay: Replay, out: TextIO) -> None:
    st = replay.state
    bits = [f"step {st.step}"]
    if st.hypotheses:
        bits.append("top hypothesis " + str(st.hypotheses[0].get("id")))
    if st.verdicts:
        bits.append("verdicts: " + ", ".join(f"{v.hypothesis_id}={v.verdict}" for v in st.verdicts.values()))
    if st.fix:
        bits.append(f"fix {st.fix.status}")
    interrupted = [c.check_id for c in st.checks.values() if c.status == "interrupted"]
    if interrupted:
        bits.append("interrupted checks: " + ", ".join(interrupted))
    print("-- end: " + "; ".join(bits), file=out)


def describe(ev: Event, st: SessionState, full: bool = False) -> str:
    """One event as the author saw it: a header line and, for big moments, what changed."""
    p = ev.payload
    head = f"#{ev.seq:<4} {ev.time[:19].replace('T', ' ')}  {ev.type}"
    body: list[str] = []
    t = ev.type
    if t == "session_started":
        head += f"  {p.get('id', '')}" + (f" ({p['name']})" if p.get("name") else "")
    elif t == "environment_recorded":
        head += f"  Python {p.get('python')}, torch {p.get('torch') or '-'}, CUDA {p.get('cuda') or '-'}, " \
                f"{len(p.get('gpus') or [])} GPU(s), git {str((p.get('git') or {}).get('commit') or '-')[:10]}"
    elif t == "capture_edited":
        head += f"  {p.get('field')}"
        body.append(_indent(str(p.get("value", ""))))
    elif t == "artifacts_chosen":
        head += f"  {len(p.get('paths') or [])} chosen, {len(p.get('excluded') or [])} excluded"
        body += [f"    {x}" for x in (p.get("paths") or [])[:20]]
    elif t == "diagnosis_made":
        d = p.get("diagnosis") or {}
        head += f"  engine {p.get('engine')}, status {d.get('status')}"
        for i, h in enumerate(d.get("root_causes") or [], 1):
            if isinstance(h, dict):
                conf = h.get("confidence")
                body.append(f"    {i}. {h.get('id')}" + (f" {conf:.0%}" if isinstance(conf, (int, float)) else "")
                            + f"  {h.get('issue', '')}")
                for e in (h.get("evidence") or [])[:3 if not full else None]:
                    if isinstance(e, dict):
                        body.append(f"         - {e.get('text', '')}")
        for metric, plot in (p.get("plots") or {}).items():
            if isinstance(plot, dict):
                body.append(f"    plot {metric}: {len(plot.get('steps') or [])} points (recorded), "
                            f"{len(plot.get('anomalies') or [])} anomalies marked")
    elif t in ("check_approved", "check_edited", "check_skipped"):
        head += f"  {p.get('hypothesis_id')}: {p.get('command', '')}"
    elif t == "check_started":
        head += f"  {p.get('check_id')}: {p.get('command', '')}  (recorded; not run by replay)"
    elif t == "check_output":
        c = st.checks.get(str(p.get("check_id")))
        head += f"  {p.get('check_id')}: +{len(str(p.get('chunk', '')))} chars" + \
                (f" ({p['truncated_bytes']} bytes dropped by the cap)" if p.get("truncated_bytes") else "")
        if full and c is not None:
            body.append(_indent(_tail(str(p.get("chunk", "")), REPLAY_OUTPUT_LINES)))
    elif t == "check_finished":
        c = st.checks.get(str(p.get("check_id")))
        head += f"  {p.get('check_id')}: {c.status if c else '?'}, exit {p.get('exit_code')}, {p.get('duration_s')} s"
        if c is not None and c.output.strip():
            body.append(_indent(_tail(c.output, REPLAY_OUTPUT_LINES)))
    elif t == "verdict_recorded":
        head += f"  {p.get('hypothesis_id')}: {p.get('verdict')}" + (f" ({p['note']})" if p.get("note") else "")
    elif t == "fix_proposed":
        head += f"  from {p.get('source')}, files: {', '.join(p.get('files') or []) or '-'}  (shown; not applied by replay)"
        body.append(_indent(str(p.get("diff", ""))))
    elif t in ("fix_confirmed", "fix_applied", "fix_reverted"):
        pass
    elif t == "verification_ran":
        head += f"  {p.get('command')}: exit {p.get('exit_code')}, {'passed' if p.get('passed') else 'failed'}"
    elif t == "lesson_written":
        head += f"  -> {p.get('file') or '(not saved to a file)'}"
        body.append(_indent(str(p.get("text", ""))))
    elif t == "commit_made":
        head += f"  {str(p.get('sha', ''))[:12]} {str(p.get('message', '')).splitlines()[0] if p.get('message') else ''}"
    elif t == "note_added":
        head += f"  {p.get('text', '')}"
    elif t == "step_changed":
        head += f"  -> {p.get('step')}"
    elif t == "session_resumed":
        ic = p.get("interrupted_checks") or []
        head += "  (resumed)" + (f"; interrupted: {', '.join(ic)}" if ic else "")
    else:
        head += "  (unknown to this version; ignored)"
    return "\n".join([head] + [b for b in body if b])


def _indent(text: str, n: int = 4) -> str:
    return "\n".join(" " * n + line for line in text.rstrip("\n").split("\n")) if text.strip() else ""


def _tail(text: str, n: int) -> str:
    lines = text.rstrip("\n").split("\n")
    return ("    ...\n" if len(lines) > n else "") + "\n".join(lines[-n:])


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (`python -m mltdbg.sessions.cli sessions ...`) until app/cli.py wires it in."""
    parser = argparse.ArgumentParser(prog="mltdbg")
    add_subparser(parser.add_subparsers(dest="cmd", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
