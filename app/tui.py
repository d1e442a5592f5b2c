"""`mltdbg-tui`: the guided debugging session in the terminal.

    mltdbg-tui [PATH...] [--baseline PATH] [--engine auto|offline|claude]
    mltdbg-tui --resume [ID]        reopen a session where it was (no ID: pick one)
    mltdbg-tui --resume ID --adopt   continue here a session recorded in another clone (else read-only)
    mltdbg-tui --replay ID|FILE     show a session read-only, step by step
    mltdbg-tui --demo               a fresh copy of the bundled failing demo repo, ready to debug
    mltdbg-tui --demo --resume [ID] reopen a session in the latest demo copy
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mltdbg-tui", description="A guided debugging session for a failing training run.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="run folders or artifact files (default: the current folder)")
    p.add_argument("--baseline", action="append", default=[], metavar="PATH", help="a good run to compare with")
    p.add_argument("--resume", nargs="?", const="", metavar="ID", help="reopen a session (no ID: choose from a list)")
    p.add_argument("--adopt", action="store_true", help="with --resume: continue here a session recorded in another "
                   "clone or machine (otherwise it opens read-only)")
    p.add_argument("--replay", metavar="ID|FILE", help="show a recorded session read-only")
    p.add_argument("--demo", action="store_true", help="debug the bundled demo (a fresh copy in the user data dir; with --resume: the latest copy)")
    p.add_argument("--engine", choices=["auto", "offline", "claude"], default="auto",
                   help="who ranks the root causes: offline (built-in playbooks), claude (needs ANTHROPIC_API_KEY), "
                   "auto (Claude when a key is set and you agreed, else offline; the default)")
    p.add_argument("--name", help="a name for the new session")
    p.add_argument("--command", metavar="CMD", help="the failing command (prefilled in the capture form)")
    p.add_argument("--python", metavar="PATH", help="the interpreter your code runs with (default: the one the command "
                   "names, else the active virtualenv or conda env, else python on PATH)")
    p.add_argument("--stall-minutes", type=float, default=None, metavar="N",
                   help="a run being written while you look at it that then gets no write for N minutes is a finding "
                   "(default 10)")
    return p


def options_from(args: argparse.Namespace):
    """Options for the app; raises SystemExit with a one-line message for unusable input."""
    from mltdbg.app.mltdbg_app import Options  # noqa: PLC0415 - textual loads only once the arguments are good
    o = Options(paths=list(args.paths), baseline=list(args.baseline), resume=args.resume, replay=args.replay,
                demo=args.demo, engine=args.engine, cwd=os.getcwd(), name=args.name, command=args.command,
                python=args.python, adopt=args.adopt, stall_minutes=args.stall_minutes)
    if o.python:
        from mltdbg.sessions.interpreter import user_python  # noqa: PLC0415 - only for --python
        try:
            o.python = user_python(o.python).path
        except ValueError as e:
            raise SystemExit(f"mltdbg-tui: {e}") from None
    if o.stall_minutes is not None and not o.stall_minutes > 0:
        raise SystemExit("mltdbg-tui: --stall-minutes must be a number of minutes > 0")
    missing = [b for b in o.baseline if not os.path.lexists(b)]
    if missing:
        raise SystemExit(f"mltdbg-tui: --baseline {missing[0]}: no such file or directory")
    missing = [p for p in o.paths if not os.path.lexists(p)]
    if missing and o.resume is None and o.replay is None and not o.demo:   # refused before a session exists
        raise SystemExit(f"mltdbg-tui: {missing[0]}: no such file or directory")
    if o.demo and o.resume is not None:
        from mltdbg.sessions.demo import latest_demo_repo  # noqa: PLC0415 - only for --demo
        repo = latest_demo_repo()
        if repo is None:
            raise SystemExit("mltdbg-tui: --demo --resume: no demo copy yet (start one with mltdbg-tui --demo)")
        o.cwd = str(repo)
        o.python = o.python or sys.executable
        os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    elif o.demo:
        from mltdbg.sessions.demo import fresh_demo_repo  # noqa: PLC0415 - only for --demo
        repo = fresh_demo_repo()
        o.cwd, o.paths, o.name = str(repo), [], o.name or "demo"
        o.command = o.command or "python train.py"
        o.python = o.python or sys.executable
        # The demo's `python` must be the one mltdbg runs in (it has torch): put it first on PATH.
        os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    return o


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        opts = options_from(args)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    from mltdbg.app.mltdbg_app import MltdbgApp  # noqa: PLC0415 - see options_from
    app = MltdbgApp(opts)

    def hangup(signum, frame):
        # The terminal went away mid-check: end every check's process group; the session log is kept.
        from mltdbg.sessions.checks import cancel_all  # noqa: PLC0415 - only on a hangup
        cancel_all()
        app.exit()
    signal.signal(signal.SIGHUP, hangup)
    app.run()
    if opts.demo:
        print(f"demo repo: {opts.cwd}")
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
