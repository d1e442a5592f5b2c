"""`mltdbg probe PROBE ...`: run one of the spec's analysis scripts as a check, in the interpreter the
user's training uses, and print what it found.

    mltdbg probe params model.py:build_model [--config cfg.yaml:model] [--kwargs JSON]
    mltdbg probe gradients model.py:Net --batch auto|randn:8,3,32,32|data.py:make_batch [--step loss.py:loss_fn]
    mltdbg probe memory model.py:Net --batch ... [--device cuda]
    mltdbg probe nan-hunt model.py:Net --batch data.py:loader --step train.py:loss_fn --steps 50
    mltdbg probe checkpoint ckpt.pt [--target model.py:Net]
    mltdbg probe box [--checkpoint-dir DIR]
    mltdbg probe data train.npy [--val val.npy] [--num-classes 10] [--label-column label]

Common: --python PATH (default: this interpreter), --out FILE.json (default: .mltdbg/probes/), --timeout S,
--max-memory-gb G, --session ID (record a probe_ran event), --json (print the result document), --md
(print the Markdown analysis). Exit status: 0 the probe ran; 1 it failed or stopped early (a partial
result is kept); 2 unusable input (a TARGET that does not import, a missing file), one line on stderr.

Also the diagnose side: `--probe-results FILE.json` and `attach_analyses(diagnosis, repo, notices)`,
which writes the Markdown analysis of every probe result a diagnosis read and lists it in
`analysis_artifacts`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

RC_OK, RC_FAILED, RC_BAD_INPUT = 0, 1, 2
# Probe runner exit statuses (analyzers/probes/runner/mltdbg_probe.py).
RUNNER_BAD_INPUT = 4
BAD_INPUT_KINDS = ("bad_input", "import", "no_torch")
TABLE_ROWS = 15

_MODEL_HELP = "FILE.py:build_model or module:Class (called with --kwargs/--config as keyword arguments)"


def add_subparser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("probe", help="run an analysis script (params, gradients, memory, nan-hunt, checkpoint, box, data)",
                       description="Run one analysis on the model, a checkpoint, the data or the machine, in the "
                                   "interpreter your training uses; the result goes to a JSON file.")
    ps = p.add_subparsers(dest="probe", metavar="PROBE", required=True)

    def common(q):
        g = q.add_argument_group("running")
        g.add_argument("--python", metavar="PATH", help="the interpreter your training uses (default: this one)")
        g.add_argument("--out", metavar="FILE.json", help="where the result goes (default: .mltdbg/probes/ in the repo)")
        g.add_argument("--timeout", type=float, default=None, metavar="S", help="end the probe after S seconds (default 600)")
        g.add_argument("--max-memory-gb", type=float, default=None, metavar="G", help="cap the probe's address space")
        g.add_argument("--session", metavar="ID", help="record a probe_ran event in this session")
        g.add_argument("--json", action="store_true", help="print the result document instead of a summary")
        g.add_argument("--md", action="store_true", help="print the Markdown analysis instead of a summary")
        q.set_defaults(handler=run)

    def model(q, batch: bool, steps: int | None):
        q.add_argument("target", metavar="TARGET", help=_MODEL_HELP)
        q.add_argument("--kwargs", metavar="JSON", help="keyword arguments for TARGET, as a JSON object")
        q.add_argument("--config", metavar="FILE[:KEY]", help="keyword arguments from a YAML/JSON file (KEY: a dotted sub-key)")
        q.add_argument("--device", metavar="DEV", help="auto (default), cpu, cuda, cuda:N" + (", meta (default for params)" if not batch else ""))
        if batch:
            q.add_argument("--batch", default="auto", metavar="SPEC",
                           help="auto (from the first layer), randn:B,D,..., randint:LOW:HIGH:B,T, or FILE.py:fn "
                                "returning a batch or a DataLoader")
            q.add_argument("--batch-size", type=int, metavar="N", help="batch size of a synthetic batch")
            q.add_argument("--seq-len", type=int, metavar="T", help="sequence length of a synthetic batch")
            q.add_argument("--step", metavar="FILE.py:fn", help="your loss function: fn(model, batch) -> loss or {term: loss}")
            q.add_argument("--optimizer", default="adam", metavar="NAME", help="sgd, adam (default), adamw, or FILE.py:fn(params)")
            q.add_argument("--lr", type=float, default=1e-3)
            q.add_argument("--seed", type=int, default=0)
        if steps is not None:
            q.add_argument("--steps", type=int, default=steps, metavar="N", help=f"training steps (default {steps})")

    q = ps.add_parser("params", help="parameter counts per module and by kind; architecture balance")
    model(q, batch=False, steps=None)
    common(q)
    q = ps.add_parser("gradients", help="per-layer gradient norms, update/weight ratios, dead and saturated units")
    model(q, batch=True, steps=1)
    common(q)
    q = ps.add_parser("memory", help="peak memory of forward, backward and optimizer step, by kind")
    model(q, batch=True, steps=None)
    common(q)
    q = ps.add_parser("nan-hunt", help="train N steps and name the first batch and module that went non-finite")
    model(q, batch=True, steps=20)
    common(q)
    q = ps.add_parser("checkpoint", help="a checkpoint's contents (torch.load weights_only=True: never unpickles code)")
    q.add_argument("path", metavar="PATH")
    q.add_argument("--target", dest="target_model", metavar="TARGET",
                   help="compare its keys with this model's state dict (" + _MODEL_HELP + ")")
    q.add_argument("--kwargs", metavar="JSON")
    q.add_argument("--config", metavar="FILE[:KEY]")
    common(q)
    q = ps.add_parser("box", help="the machine: OOM-killer lines, GPU memory and errors, disk, /dev/shm, limits")
    q.add_argument("--checkpoint-dir", metavar="DIR", help="where the run writes checkpoints (free space; default: here)")
    common(q)
    q = ps.add_parser("data", help="NaN/inf, ranges, labels, train/val duplicates, per-channel mean/std")
    q.add_argument("path", metavar="PATH", help=".npy, .npz, .csv, .tsv, .parquet or .pt")
    q.add_argument("--val", metavar="PATH", help="a validation file to check for samples shared with PATH")
    q.add_argument("--num-classes", type=int, metavar="K", help="labels must lie in [0, K)")
    q.add_argument("--label-column", metavar="NAME", help="the label column/array (default: label, y, target, ...)")
    common(q)
    return p


_PASS = {"kwargs": "--kwargs", "config": "--config", "device": "--device", "batch": "--batch", "batch_size": "--batch-size",
         "seq_len": "--seq-len", "step": "--step", "steps": "--steps", "optimizer": "--optimizer", "lr": "--lr", "seed": "--seed",
         "target_model": "--target", "val": "--val", "num_classes": "--num-classes", "label_column": "--label-column",
         "checkpoint_dir": "--checkpoint-dir"}


def runner_args(args: argparse.Namespace) -> list[str]:
    """The runner's argument list for parsed `mltdbg probe` arguments."""
    subject = getattr(args, "path", None) if args.probe in ("checkpoint", "data") else getattr(args, "target", None)
    out: list[str] = [str(subject)] if subject else []
    for dest, flag in _PASS.items():
        v = getattr(args, dest, None)
        if v is not None and not (dest == "batch" and v == "auto"):
            out += [flag, str(v)]
    return out


def _fail(msg: str, code: int = RC_BAD_INPUT) -> int:
    print(f"mltdbg probe: error: {msg}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    from mltdbg.sessions.probes import DEFAULT_TIMEOUT_S, ProbeLaunchError, run_probe  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
    session = None
    if args.session:
        from mltdbg.sessions.session import Session, SessionError  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
        try:
            session = Session.open(args.session)
        except SessionError as e:
            return _fail(f"--session {args.session}: {e}")
        if session.readonly:
            return _fail(f"--session {args.session}: read-only ({'; '.join(session.notices) or 'held elsewhere'})")
    try:
        r = run_probe(args.probe, runner_args(args), python=args.python, out=args.out,
                      timeout_s=args.timeout or DEFAULT_TIMEOUT_S, max_memory_gb=args.max_memory_gb, session=session)
    except ProbeLaunchError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return 130
    finally:
        if session is not None:
            session.close()
    if r.result is None:
        if r.output_tail.strip():
            print(_tail(r.output_tail), file=sys.stderr)
        return _fail(r.error or "the probe wrote no result", RC_FAILED)
    pr = r.result
    if pr.status == "error" and not pr.result and not args.json:
        return _fail(r.error or "the probe failed", RC_BAD_INPUT if pr.error_kind in BAD_INPUT_KINDS else RC_FAILED)
    if args.json:
        print(Path(r.out).read_text(encoding="utf-8").rstrip())
    elif args.md:
        from mltdbg.analyzers.probes.report import render  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
        print(render(pr).rstrip())
    else:
        print(summary(pr, r.duration_s))
    if r.status == "ok":
        return RC_OK
    if r.output_tail.strip() and pr.error_kind not in BAD_INPUT_KINDS:
        print(_tail(r.output_tail), file=sys.stderr)
    return _fail(r.error or f"the probe stopped: {r.status}", RC_FAILED)


def _tail(text: str, n: int = 8) -> str:
    lines = [ln for ln in text.rstrip().splitlines() if ln.strip()][-n:]
    return "the probe's output (last lines):\n" + "\n".join("  | " + ln[:200] for ln in lines)


def summary(pr, duration_s: float | None = None) -> str:
    """A short human summary: status, findings, the probe's main table, notes, the result path."""
    from mltdbg.analyzers.probes.report import fmt_number, log_bars  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
    env = pr.environment
    head = f"PROBE {pr.probe}" + (f"  {pr.target}" if pr.target else "") + f"  {pr.status.upper()}"
    bits = [f"{duration_s:.1f}s" if duration_s is not None else None, env.get("device"),
            f"torch {env['torch']}" if env.get("torch") else None]
    out = [head + "  (" + ", ".join(b for b in bits if b) + ")"]
    if pr.status != "ok":
        out.append(f"  stopped at stage '{pr.stage}' (the error is below); what it measured before:")
    if pr.findings:
        out.append("findings:")
        out += [f"  ! {f.kind} ({f.severity}): {f.summary}" for f in pr.findings]
    else:
        out.append("findings: none")
    r = pr.result
    p = r.get("params") if isinstance(r.get("params"), dict) else None
    if p and pr.probe != "params" and pr.status != "ok":
        out.append(f"parameters (counted on {p.get('counted_on', '?')}): {fmt_number(p.get('total'))} total, "
                   f"{fmt_number(p.get('trainable'))} trainable")
    if p and pr.probe == "params":
        out.append(f"parameters: {fmt_number(p.get('total'))} total, {fmt_number(p.get('trainable'))} trainable, {fmt_number(p.get('frozen'))} frozen")
        for k, v in sorted((p.get("by_kind") or {}).items(), key=lambda t: -(t[1].get("share") or 0)):
            out.append(f"  {k:<12} {fmt_number(v.get('params')):>14}  {100 * (v.get('share') or 0):5.1f}%")
    if pr.probe == "gradients" and r.get("layers"):
        from mltdbg.analyzers.probes.results import grad_rows, value  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
        rows = grad_rows(pr)
        out.append("per-layer gradient norm (forward order):")
        out += ["  " + ln for ln in log_bars([(str(x.get("layer")), value(x.get("grad_norm"))) for x in rows[:TABLE_ROWS]])]
        if len(rows) > TABLE_ROWS:
            out.append(f"  ... {len(rows) - TABLE_ROWS} more layers in the result")
    if pr.probe == "memory" and r.get("by_kind"):
        from mltdbg.analyzers.probes.report import fmt_bytes  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
        out.append(f"memory ({r.get('method')}): " + ", ".join(f"{k} {fmt_bytes(v)}" for k, v in r["by_kind"].items()))
        for ph, v in (r.get("phases") or {}).items():
            peak = v.get("peak_allocated_bytes", v.get("peak_rss_bytes"))
            out.append(f"  {ph:<15} peak {fmt_bytes(peak)}" + ("" if v.get("peak_rss_resettable", True) else " (process peak since start)"))
    if pr.probe == "nan-hunt":
        first = r.get("first_nonfinite")
        out.append(f"first non-finite: batch {first['batch']}, {first['phase']}, {first['where']}" if isinstance(first, dict)
                   else f"no non-finite value in {r.get('batches_done', 0)} batches")
    if pr.probe == "box":
        for name, item in r.items():
            if isinstance(item, dict) and item.get("available") is False:
                out.append(f"  {name}: unavailable ({item.get('unavailable')})")
    out += [f"note: {n}" for n in pr.notes]
    out.append(f"result: {pr.source}")
    return "\n".join(x for x in out if x != "")


# ----------------------------------------------------------------------------- diagnose side

def add_diagnose_args(d: argparse.ArgumentParser) -> None:
    d.add_argument("--probe-results", action="append", default=[], metavar="FILE.json",
                   help="a `mltdbg probe` result to use as evidence (repeatable)")


def attach_analyses(diagnosis, repo: Path | None, notices: list[str]) -> dict[str, Any]:
    """Write the Markdown analysis of every probe result the diagnosis read (into .mltdbg/probes/analysis/)
    and list them in `diagnosis.analysis_artifacts`."""
    run = getattr(diagnosis, "run", None)
    if run is None or not any(t.kind == "probe" for t in run.texts):
        return {}
    from mltdbg.sessions.probes import analysis_dir, write_analyses  # noqa: PLC0415 - lazy CLI/TUI import: start-up and --help stay fast
    try:
        written = write_analyses(run, analysis_dir(repo))
    except OSError as e:
        notices.append(f"could not write the probe analyses: {e.strerror or e}")
        return {}
    diagnosis.analysis_artifacts.update(written)
    notices += [f"wrote {name}: {path}" for name, path in written.items()]
    return written
