"""`mltdbg sessions list | replay ID|FILE | export ID --format md|json`: the command line over the sessions core.

`add_subparser(subparsers)` adds the `sessions` command to the `mltdbg`
parser (app/cli.py); its handler `run(args) -> exit code` is set as `args.handler` (and `args.func`).
The words for each event come from the core (`mltdbg.sessions.export.describe`); this module only
reads arguments, prints and steps. Exit codes: 0 ok, 1 session not found or unreadable, 2 usage.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from mltdbg.analyzers.common.sanitize import json_visible, visible

if TYPE_CHECKING:
    from mltdbg.sessions.replay import Replay


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
    # the sessions core loads when a sessions command runs, not when the parser is built: every
    # `mltdbg --help` and `mltdbg diagnose` builds this subcommand's parser (~90 ms of imports)
    from mltdbg.sessions.errors import SessionError  # noqa: PLC0415 - see above
    from mltdbg.sessions.export import describe, export_json, export_md  # noqa: PLC0415
    from mltdbg.sessions.replay import Replay  # noqa: PLC0415
    out = out or sys.stdout
    try:
        if args.sessions_cmd == "list":
            return _list(args, out)
        replay = Replay(args.session, args.repo)
    except SessionError as e:
        print(visible(f"mltdbg sessions: {e}"), file=sys.stderr)
        return 1
    for line in replay.warnings + replay.notices:
        print(visible(f"note: {line}"), file=sys.stderr)
    if args.sessions_cmd == "export":
        state = replay.jump(len(replay))
        text = export_md(state) if args.format == "md" else export_json(state, replay.events)
        if args.output:
            args.output.write_text(text, encoding="utf-8")
            print(f"wrote {args.output}", file=sys.stderr)
        else:
            # what the session recorded (check output, quotes) is shown, never obeyed by the terminal
            text = visible(text) if args.format == "md" else json_visible(text)
            out.write(text if text.endswith("\n") else text + "\n")
        return 0
    if args.step:
        return _step(replay, out)
    for st in replay:
        out.write(visible(describe(replay.event, st)) + "\n")
    _print_end(replay, out)
    return 0


def _list(args: argparse.Namespace, out: TextIO) -> int:
    from mltdbg.sessions.session import list_sessions  # noqa: PLC0415 - loaded when the command runs
    rows = list_sessions(args.repo)
    if not rows:
        print("no sessions here yet", file=out)
        return 0
    for s in rows:
        flags = ("open " if s.live else "") + (f"{s.problems} damaged line(s) " if s.problems else "")
        title = s.name or s.title or "-"
        top = f" top: {s.top_hypothesis}" if s.top_hypothesis else ""
        print(visible(f"{s.id}  {s.updated_at[:16].replace('T', ' ')}  {s.step:<8} {s.n_events:>5} events  "
                      f"{flags}{title[:60]}{top}", keep=""), file=out)
    return 0


def _step(replay: Replay, out: TextIO) -> int:
    from mltdbg.sessions.export import describe  # noqa: PLC0415 - loaded when the command runs
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
            out.write(visible(describe(replay.event, st, full=True)) + "\n")
        if replay.at_end:
            _print_end(replay, out)


def _print_end(replay: Replay, out: TextIO) -> None:
    st = replay.state
    bits = [f"step {st.step}"]
    if st.hypotheses:
        bits.append("top hypothesis " + st.hypotheses[0].id)
    if st.verdicts:
        bits.append("verdicts: " + ", ".join(f"{v.hypothesis_id}={v.verdict}" for v in st.verdicts.values()))
    if st.fix:
        bits.append(f"fix {st.fix.status}")
    interrupted = [c.check_id for c in st.checks.values() if c.status == "interrupted"]
    if interrupted:
        bits.append("interrupted checks: " + ", ".join(interrupted))
    print(visible("-- end: " + "; ".join(bits)), file=out)
