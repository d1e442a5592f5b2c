"""`mltdbg`: the command line, a thin view over the core.

    mltdbg diagnose PATH... [--symptom TEXT]... [--baseline PATH] [--json]
    mltdbg sessions list|replay|export ...
"""
from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

from mltdbg.analyzers.common.gitrepo import find_repo_root
from mltdbg.analyzers.common.sanitize import visible


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
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
    d = sub.add_parser("diagnose", help="rank root-cause hypotheses for a run",
                       description="Read a training run's artifacts (logs, TensorBoard, W&B, MLflow, CSV) and print "
                       "the ranked root-cause hypotheses, each with its evidence, a minimal check and a fix.")
    d.add_argument("paths", nargs="*", metavar="PATH", help="run folders or artifact files")
    d.add_argument("--symptom", action="append", default=[], metavar="TEXT", help="what you saw, in words (repeatable)")
    d.add_argument("--baseline", action="append", default=[], metavar="PATH", help="a good run to compare with")
    d.add_argument("--repo", metavar="DIR", help="the code's git repo (default: found from the paths)")
    d.add_argument("--json", action="store_true", help="print one JSON object (diagnosis.schema.json)")
    d.add_argument("--engine", choices=["auto", "offline", "claude"], default="auto",
                   help="offline: built-in playbooks only; claude: Claude reasons over the evidence (needs "
                   "ANTHROPIC_API_KEY); auto (default): Claude when a key is set and consent is stored, else offline")
    d.add_argument("--context", metavar="FILE.json", help="a context package (task, artifacts, symptoms, constraints)")
    d.add_argument("--model", metavar="ID", help="Claude model id for this run (default: $MLTDBG_MODEL, then the config)")
    if with_sessions:
        from mltdbg.app.sessions_cli import add_subparser  # noqa: PLC0415 - the sessions core costs ~40 ms at start
        add_subparser(sub)
    from mltdbg.app.skill_cli import add_subparser as add_skill_subparser  # noqa: PLC0415 - not needed by diagnose
    add_skill_subparser(sub)
    from mltdbg.app import probe_cli  # noqa: PLC0415 - argparse only; the probe machinery loads when it runs
    probe_cli.add_subparser(sub)
    probe_cli.add_diagnose_args(d)
    from mltdbg.app import watch_cli  # noqa: PLC0415 - argparse only; the follower loads when it runs
    watch_cli.add_subparser(sub)
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
    print(visible(f"mltdbg: error: {msg}"), file=sys.stderr)
    return 2


def _diagnose(args) -> int:
    from mltdbg.playbooks.diagnose import InputError, diagnose  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
    paths = list(args.paths)
    symptoms = list(args.symptom)
    task, budget_s = None, None
    if args.context:
        from mltdbg.playbooks.context import ContextError, load_context  # noqa: PLC0415 - only with --context
        try:
            ctx = load_context(args.context)
        except ContextError as e:
            return _fail(str(e))
        paths += ctx.paths
        symptoms += ctx.symptoms
        task = ctx.task
        budget_s = ctx.time_budget_s if args.engine != "offline" else None
    paths += args.probe_results
    if not paths:
        return _fail("no PATH given (a run folder or artifact files)")
    repo = Path(args.repo) if args.repo else find_repo_root(paths[0])
    notices: list[str] = []
    config = None
    if args.engine != "offline":
        from mltdbg.playbooks.userconfig import load_config  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
        config = load_config()
        config.model = args.model or config.model
        for w in config.warnings:
            print(visible(f"mltdbg: warning: {w}"), file=sys.stderr)
        if budget_s:
            config.time_budget_s = min(config.time_budget_s, budget_s)
    try:
        lessons = None   # CLAUDE.md only, unless the repo has sessions (importing them costs ~40 ms)
        if repo is not None and (repo / ".mltdbg" / "sessions").is_dir():
            from mltdbg.sessions.history import repo_lessons  # noqa: PLC0415 - only for a repo with sessions
            lessons = repo_lessons(repo)
        d = diagnose(paths, symptoms, args.baseline or None, repo_root=repo, engine=args.engine,
                     notices=notices, config=config, task=task, lessons=lessons,
                     on_event=_progress if sys.stderr.isatty() and args.engine != "offline" else None)
        from mltdbg.app.probe_cli import attach_analyses  # noqa: PLC0415 - writes only when a probe result was read
        attach_analyses(d, repo, notices)
        for n in notices:
            print(visible(f"mltdbg: {n}"), file=sys.stderr)
    except InputError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - never a traceback for the user
        return _fail(f"internal error while diagnosing: {type(e).__name__}: {e} (please report)")
    from mltdbg.analyzers.common.redact import redact, redact_obj  # noqa: PLC0415 - only once a diagnosis is printed
    if args.json:   # json.dumps escapes every control character (ensure_ascii): nothing raw reaches the terminal
        print(json.dumps(redact_obj(d.to_json()), indent=2, allow_nan=False))
    else:           # quotes and file names come from the run: secrets masked, control characters shown
        print(visible(redact(render_text(d))))
    return 0


def _progress(kind: str, data: dict) -> None:
    """Claude engine progress on stderr: each tool call as it happens, tokens and cost."""
    if kind == "tool_call":
        print(f"  claude: {data['name']} {json.dumps(data.get('input') or {})[:100]}", file=sys.stderr)
    elif kind == "retry":
        print(f"  claude: {data['why']}, retrying in {data['wait_s']:.1f}s", file=sys.stderr)
    elif kind == "thinking":   # the model's summarized notes between tool calls (plain text, one line)
        print(visible(f"  claude: ({' '.join(str(data.get('text', '')).split())[:160]})"), file=sys.stderr)
    elif kind == "done":
        u = data.get("usage") or {}
        cost = f", ~${u['cost_usd']:.3f}" if u.get("cost_usd") is not None else ""
        print(f"  claude: {data['outcome']} ({u.get('input_tokens', 0) + u.get('cache_read_tokens', 0) + u.get('cache_write_tokens', 0)} "
              f"tokens in, {u.get('output_tokens', 0)} out{cost})", file=sys.stderr)


_BAR = 20
# A cause below this, with no evidence, gets one line (the JSON and the TUI keep its check and fix).
_FAR_BEHIND = 0.005


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
        if h.confidence < _FAR_BEHIND and not h.evidence:
            # a cause the words name far behind the ones above (a short ranking completed): one line
            out[-1] += "  (far behind; only the words point to it)"
            continue
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
