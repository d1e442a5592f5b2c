"""`mltdbg watch PATH... [--json] [--interval S] [--stall-minutes N] [--once]`: follow a running job headless.

In:  files or run folders (logs, JSONL, CSV, TensorBoard event files; new files in a folder are picked up).
Out: one line per new finding on stdout (text, or one JSON object per line with --json: kind, metric,
     step, value, source, line, message); notices (truncated, rotated, falling behind) on stderr.
Ctrl-C ends it with exit code 0. The follower itself is mltdbg.analyzers.follow (no terminal there).
"""
from __future__ import annotations

import json
import sys
import time

from mltdbg.analyzers.common.sanitize import visible

# Seconds between polls: a write is reported within about this long (the issue asks for 1 s).
DEFAULT_INTERVAL = 0.2


def add_subparser(sub) -> None:
    w = sub.add_parser("watch", help="follow a running job's logs and print findings as they appear")
    w.add_argument("paths", nargs="+", metavar="PATH", help="log files, JSONL/CSV metric files, event files or run folders")
    w.add_argument("--json", action="store_true", help="one JSON object per finding, one per line")
    w.add_argument("--interval", type=float, default=DEFAULT_INTERVAL, metavar="S", help="seconds between polls (default 0.2)")
    w.add_argument("--stall-minutes", type=float, default=None, metavar="N",
                   help="report a finding when no followed file is written for N minutes")
    w.add_argument("--from-end", action="store_true", help="skip what the files hold now; follow only what is appended")
    w.add_argument("--once", action="store_true", help="one pass over what is there now, then exit")
    w.set_defaults(handler=run)


def _emit(ev, as_json: bool) -> None:
    from mltdbg.analyzers.follow import Notice  # noqa: PLC0415 - loaded with the follower, only for `watch`
    if isinstance(ev, Notice):
        print(visible(f"mltdbg: watch: {ev.text()}", keep=""), file=sys.stderr, flush=True)
    elif as_json:   # json.dumps escapes control characters: nothing raw reaches the terminal
        print(json.dumps(ev.to_json(), allow_nan=False), flush=True)
    else:
        print(visible(ev.text(), keep=""), flush=True)


def run(args) -> int:
    from mltdbg.analyzers.follow import Follower  # noqa: PLC0415 - numpy and the readers load only for `watch`
    if args.interval <= 0:
        print("mltdbg: error: --interval must be > 0", file=sys.stderr)
        return 2
    stall_s = args.stall_minutes * 60 if args.stall_minutes is not None else None
    try:
        f = Follower(args.paths, stall_s=stall_s, start_at_end=args.from_end)
        while True:
            for ev in f.poll():
                _emit(ev, args.json)
            if args.once and not f.behind:
                return 0
            if not f.behind:
                time.sleep(args.interval)
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:
        return 0
