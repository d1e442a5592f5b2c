"""`mltdbg skill install|uninstall [--project|--user] [--force]`: the Claude Code skill and
its read-only specialist agent (written by mltdbg.playbooks.skill; this is the CLI view).

Exit status 0 when done, 2 with a one-line error (a file that would be overwritten, no
install to remove, an unwritable folder).
"""
from __future__ import annotations

import argparse
import sys


def add_subparser(sub) -> None:
    p = sub.add_parser("skill", help="install the Claude Code skill and its read-only specialist agent")
    ssub = p.add_subparsers(dest="skill_command", required=True)
    for name, help_ in (("install", "write .claude/skills/ml-training-debugger/ and .claude/agents/ml-debugger-specialist.md"),
                        ("uninstall", "remove exactly what `mltdbg skill install` wrote")):
        s = ssub.add_parser(name, help=help_)
        where = s.add_mutually_exclusive_group()
        where.add_argument("--project", dest="scope", action="store_const", const="project",
                           help="in this project's .claude/ (the git repo around the current folder; default)")
        where.add_argument("--user", dest="scope", action="store_const", const="user", help="in ~/.claude/")
        s.add_argument("--force", action="store_true",
                       help="overwrite files with other content (install) / remove files changed since (uninstall)")
        s.set_defaults(scope="project", handler=run)


def run(args: argparse.Namespace) -> int:
    from mltdbg.playbooks.skill import SkillError, claude_dir, install, uninstall  # noqa: PLC0415 - reads the playbooks
    base = claude_dir(args.scope)
    try:
        if args.skill_command == "install":
            res = install(base, force=args.force)
            print(f"mltdbg skill: {len(res.written)} file(s) written, {len(res.unchanged)} unchanged in {base}")
            for rel in res.written:
                print(f"  + {rel}")
        else:
            res = uninstall(base, force=args.force)
            print(f"mltdbg skill: {len(res.removed)} file(s) removed from {base}")
            for rel in res.kept:
                print(f"  kept {rel} (changed since install; --force removes it)")
    except SkillError as e:
        print(f"mltdbg: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"mltdbg: error: {getattr(e, 'filename', None) or base}: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0
