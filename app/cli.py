"""`mltdbg`: the command line, a thin view over the core.

    mltdbg diagnose PATH... [--symptom TEXT]... [--baseline PATH] [--json]
    mltdbg sessions list|replay|export ...
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from pathlib import Path


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("mltdbg")
    except PackageNotFoundError:
        return "0+unknown"


class _VersionAction(argparse.Action):
    """--version, looked up only when asked (importlib.metadata costs ~30 ms at every start)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"mltdbg {_version()}")
        parser.exit()


def build_parser(with_sessions: bool = True) -> argparse.ArgumentParser:
    """The CLI's parser; without the `sessions` command when the command line is known to be
    `diagnose ...` (importing the sessions package costs ~40 ms of every start)."""
    p = argparse.ArgumentParser(prog="mltdbg", description="Debug a failing ML training run from its artifacts.")
    p.add_argument("--version", action=_VersionAction)
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("diagnose", help="rank root-cause hypotheses for a run (offline by default)")
    d.add_argument("paths", nargs="*", metavar="PATH", help="run folders or artifact files")
    d.add_argument("--symptom", action="append", default=[], metavar="TEXT", help="what you saw, in words (repeatable)")
    d.add_argument("--baseline", action="append", default=[], metavar="PATH", help="a good run to compare with")
    d.add_argument("--repo", metavar="DIR", help="the code's git repo (default: found from the paths)")
    d.add_argument("--json", action="store_true", help="print one JSON object (diagnosis.schema.json)")
    d.add_argument("--engine", choices=["auto", "offline", "claude"], default="auto")
    d.add_argument("--context", metavar="FILE.json", help="a context package (task, artifacts, symptoms, constraints)")
    if with_sessions:
        try:
            from mltdbg.sessions.cli import add_subparser
            add_subparser(sub)
        except ImportError:
            pass
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(with_sessions=argv[:1] != ["diagnose"]).parse_args(argv)
    if args.command == "diagnose":
        return _diagnose(args)
    handler = getattr(args, "handler", None)
    if handler is not None:
        return handler(args)
    return 2


def _fail(msg: str) -> int:
    print(f"mltdbg: error: {msg}", file=sys.stderr)
    return 2


def _repo_root(start: Path) -> Path | None:
    p = start.resolve()
    if p.is_file():
        p = p.parent
    for q in (p, *p.parents):
        if (q / ".git").exists():
            return q
    return None


def _diagnose(args) -> int:
    from mltdbg.playbooks.diagnose import InputError, diagnose
    paths = list(args.paths)
    symptoms = list(args.symptom)
    task, budget = None, None
    if args.context:
        try:
            ctx = json.loads(Path(args.context).read_text("utf-8"))
            base = Path(args.context).resolve().parent
            arts = ctx.get("artifacts") or {}
            for v in arts.values():
                for x in [v] if isinstance(v, str) else [x for x in v if isinstance(x, str)]:
                    # paths in a package are relative to the package file when they are not to the cwd
                    paths.append(x if os.path.lexists(x) or os.path.isabs(x) or not (base / x).exists() else str(base / x))
            symptoms += [s for s in ctx.get("symptoms") or [] if isinstance(s, str)]
            task = ctx.get("task") if isinstance(ctx.get("task"), str) else None
            budget = (ctx.get("constraints") or {}).get("max_analysis_time")
        except (OSError, ValueError, AttributeError) as e:
            return _fail(f"{args.context}: not a readable context package ({e})")
    if not paths:
        return _fail("no PATH given (a run folder or artifact files)")
    repo = Path(args.repo) if args.repo else _repo_root(Path(paths[0]))
    notices: list[str] = []
    config = None
    if args.engine != "offline":
        from mltdbg.playbooks.userconfig import load_config, parse_duration
        config = load_config()
        for w in config.warnings:
            print(f"mltdbg: warning: {w}", file=sys.stderr)
        secs = parse_duration(str(budget)) if budget is not None else None
        if secs:
            config.time_budget_s = min(config.time_budget_s, secs)
    try:
        d = diagnose(paths, symptoms, args.baseline or None, repo_root=repo, engine=args.engine,
                     notices=notices, config=config, task=task,
                     on_event=_progress if sys.stderr.isatty() and args.engine != "offline" else None)
        for n in notices:
            print(f"mltdbg: {n}", file=sys.stderr)
    except InputError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - never a traceback for the user
        return _fail(f"internal error while diagnosing: {type(e).__name__}: {e} (please report)")
    if args.json:
        print(json.dumps(d.to_json(), indent=2, allow_nan=False))
    else:
        print(render_text(d))
    return 0


def _progress(kind: str, data: dict) -> None:
    """Claude engine progress on stderr: each tool call as it happens, tokens and cost."""
    if kind == "tool_call":
        print(f"  claude: {data['name']} {json.dumps(data.get('input') or {})[:100]}", file=sys.stderr)
    elif kind == "retry":
        print(f"  claude: {data['why']}, retrying in {data['wait_s']:.1f}s", file=sys.stderr)
    elif kind == "done":
        u = data.get("usage") or {}
        cost = f", ~${u['cost_usd']:.3f}" if u.get("cost_usd") is not None else ""
        print(f"  claude: {data['outcome']} ({u.get('input_tokens', 0) + u.get('cache_read_tokens', 0) + u.get('cache_write_tokens', 0)} "
              f"tokens in, {u.get('output_tokens', 0)} out{cost})", file=sys.stderr)


_BAR = 20


def render_text(d) -> str:
    """Human-readable diagnosis: ranked causes with confidence, evidence, check, fix."""
    out = []
    label = {"diagnosis_complete": "DIAGNOSIS COMPLETE", "needs_more_data": "NEEDS MORE DATA",
             "no_issue_found": "NO ISSUE FOUND"}[d.status]
    out.append(f"{label}  (engine: {d.engine}, {d.elapsed_s:.2f}s)")
    if d.status == "needs_more_data":
        out.append("The top hypothesis is below 0.8 confidence: this is a ranking, not a finding.")
    out.append("")
    for i, h in enumerate(d.hypotheses, 1):
        n = int(round(h.confidence * _BAR))
        out.append(f"{i}. {h.id}  [{'#' * n}{'.' * (_BAR - n)}] {h.confidence:.2f}  {h.severity}")
        out.append(textwrap.indent(textwrap.fill(h.issue, 92), "   "))
        for e in h.evidence:
            where = e.source or ""
            if e.line:
                where += f":{e.line}"
            if e.step is not None:
                where += f" step {e.step}"
            out.append(f"   - {e.text}  [{where}]")
            if e.quote:
                out.append(f"       > {e.quote[:110]}")
        out.append(textwrap.indent(textwrap.fill("check: " + h.check, 92), "   "))
        if h.check_command:
            out.append(f"   $ {h.check_command}")
        out.append(textwrap.indent(textwrap.fill("fix: " + h.fix, 92), "   "))
        if h.patch:
            out.append("   (a patch is available: --json shows it)")
        out.append("")
    if d.needs:
        out.append("To settle it, bring:")
        out += [f"  - {n}" for n in d.needs]
    if d.warnings:
        out.append("Warnings:")
        out += [f"  ! {w}" for w in d.warnings[:20]]
        if len(d.warnings) > 20:
            out.append(f"  ! ... {len(d.warnings) - 20} more")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
