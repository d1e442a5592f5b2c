"""A probe result as Markdown: findings, the probe's tables and ASCII plots (log-scale bars of the
per-layer gradient norms, parameter shares). Pure: text in, text out; `mltdbg diagnose` writes it and
lists the file in `analysis_artifacts`.
"""
from __future__ import annotations

import math
from typing import Any

from mltdbg.analyzers.probes.results import ProbeResult, value

BAR_WIDTH = 40
MAX_ROWS = 60


def _cell(x: Any) -> str:
    s = fmt_number(x) if not isinstance(x, str) else x
    return " ".join(s.replace("|", "\\|").split())


def fmt_number(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return str(x)
        return f"{x:.3g}" if (abs(x) >= 1e-3 and abs(x) < 1e5) or x == 0 else f"{x:.2e}"
    return str(x)


def fmt_bytes(n: Any) -> str:
    v = value(n)
    if v is None or not math.isfinite(v):
        return "-"
    for unit, div in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(v) >= div:
            return f"{v / div:.2f} {unit}"
    return f"{int(v)} B"


def table(head: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        out.append(f"| ... {len(rows) - MAX_ROWS} more rows |" + " |" * (len(head) - 1))
    return out


def log_bars(items: list[tuple[str, float | None]], unit: str = "") -> list[str]:
    """An ASCII bar chart on a log10 axis (zero / missing values drawn as such)."""
    pos = [v for _, v in items if v is not None and math.isfinite(v) and v > 0]
    if not pos:
        return ["(no positive values to plot)"]
    lo, hi = math.floor(math.log10(min(pos))), math.ceil(math.log10(max(pos)))
    hi = max(hi, lo + 1)
    w = max(len(n) for n, _ in items)
    w = min(w, 36)
    out = [f"{'':{w}}  10^{lo}{' ' * (BAR_WIDTH - len(str(lo)) - len(str(hi)) - 6)}10^{hi}  {unit}".rstrip()]
    for name, v in items:
        label = (name if len(name) <= w else name[: w - 1] + "~").ljust(w)
        if v is None:
            out.append(f"{label}  (no gradient)")
        elif not math.isfinite(v):
            out.append(f"{label}  {'!' * BAR_WIDTH} {v}")
        elif v <= 0:
            out.append(f"{label}  | 0")
        else:
            n = max(1, round((math.log10(v) - lo) / (hi - lo) * BAR_WIDTH))
            out.append(f"{label}  {'#' * n}{' ' * (BAR_WIDTH - n)} {v:.2e}")
    return out


def share_bars(items: list[tuple[str, float]]) -> list[str]:
    w = max((len(n) for n, _ in items), default=4)
    return [f"{n.ljust(w)}  {'#' * round(s * BAR_WIDTH)}{' ' * (BAR_WIDTH - round(s * BAR_WIDTH))} {100 * s:5.1f}%"
            for n, s in items]


def render(pr: ProbeResult) -> str:
    env = pr.environment
    out = [f"# mltdbg probe `{pr.probe}`" + (f": `{pr.target}`" if pr.target else ""), ""]
    out.append(f"- status: **{pr.status}**" + (f" (stopped at stage: {pr.stage})" if pr.status != "ok" and pr.stage else ""))
    if pr.error_message:
        out.append(f"- error ({pr.error_kind}): {pr.error_message}")
    out.append(f"- result file: `{pr.source}`")
    bits = [f"python {env.get('python_version', '?')} ({env.get('python', '?')})"]
    if env.get("torch"):
        bits.append(f"torch {env['torch']}")
    if env.get("device"):
        bits.append(f"device {env['device']}")
    bits.append("CUDA available" if env.get("cuda_available") else "no CUDA")
    out.append("- environment: " + ", ".join(bits))
    if pr.elapsed_s is not None:
        out.append(f"- took {pr.elapsed_s:.2f} s")
    for n in pr.notes:
        out.append(f"- note: {n}")
    out += ["", "## Findings", ""]
    out += [f"- **{f.kind}** ({f.severity}): {f.summary}" for f in pr.findings] or ["- none"]
    section = {"params": _params, "gradients": _gradients, "memory": _memory, "nan-hunt": _nan,
               "checkpoint": _checkpoint, "box": _box, "data": _data}[pr.probe]
    if pr.result:
        out += [""] + section(pr)
    return "\n".join(out).rstrip() + "\n"


def _params_block(p: dict[str, Any]) -> list[str]:
    out = [(f"Total **{fmt_number(p.get('total'))}** parameters ({fmt_number(p.get('trainable'))} trainable, "
            f"{fmt_number(p.get('frozen'))} frozen), {fmt_bytes(p.get('bytes'))}, counted on {p.get('counted_on', '?')}.")]
    if p.get("tied"):
        out.append("Tied (counted once): " + "; ".join(" = ".join(t) for t in p["tied"][:10]))
    kinds = sorted(((k, value(v.get("share")) or 0.0) for k, v in (p.get("by_kind") or {}).items()), key=lambda t: -t[1])
    out += ["", "### By kind", "", "```"] + share_bars(kinds) + ["```", ""]
    out += table(["kind", "parameters", "share"], [[k, (p["by_kind"][k] or {}).get("params"), f"{100 * s:.1f}%"] for k, s in kinds])
    mods = [m for m in p.get("modules") or [] if isinstance(m, dict)]
    if mods:
        out += ["", "### Modules (depth 1 and 2)", ""]
        out += table(["module", "type", "kind", "parameters", "share", "trainable"],
                     [[m.get("name"), m.get("type"), m.get("kind"), m.get("params"), f"{100 * (value(m.get('share')) or 0):.1f}%",
                       m.get("trainable")] for m in mods])
    return out


def _params(pr: ProbeResult) -> list[str]:
    p = pr.result.get("params") or {}
    return ["## Parameters", ""] + (_params_block(p) if p else ["(not counted)"])


def _gradients(pr: ProbeResult) -> list[str]:
    r = pr.result
    out = ["## Gradient flow", "", (f"Batch: {r.get('batch', '?')}; loss: {r.get('loss', '?')}; "
                                     f"optimizer: {r.get('optimizer', '?')}; steps: {r.get('steps_done', '?')}.")]
    tot = r.get("total_grad_norm") or []
    if tot:
        out.append("Total gradient norm per step: " + ", ".join(fmt_number(value(t)) for t in tot))
    flow = r.get("flow")
    if isinstance(flow, dict):
        out.append(f"Early/late gradient RMS ratio: {fmt_number(value(flow.get('ratio')))} (early {fmt_number(value(flow.get('early_rms')))}, "
                   f"late {fmt_number(value(flow.get('late_rms')))}, over {flow.get('layers')} weight layers).")
    rows = [x for x in r.get("layers") or [] if isinstance(x, dict)]
    if rows:
        out += ["", "### Per-layer gradient norm (forward order, log scale)", "", "```"]
        out += log_bars([(str(x.get("layer")), value(x.get("grad_norm"))) for x in rows[:MAX_ROWS]])
        out += ["```", ""]
        out += table(["layer", "type", "params", "grad norm", "grad RMS", "weight norm", "update/weight"],
                     [[x.get("layer"), x.get("type"), x.get("params"), value(x.get("grad_norm")), value(x.get("grad_rms")),
                       value(x.get("weight_norm")), value(x.get("update_ratio"))] for x in rows])
    acts = [a for a in r.get("activations") or [] if isinstance(a, dict)]
    if acts:
        out += ["", "### Activations", ""]
        out += table(["layer", "activation", "units", "dead share", "saturated share"],
                     [[a.get("layer"), a.get("activation"), a.get("units"),
                       f"{100 * value(a['dead_share']):.0f}%" if value(a.get("dead_share")) is not None else "-",
                       f"{100 * value(a['saturated_share']):.0f}%" if value(a.get("saturated_share")) is not None else "-"]
                      for a in acts])
    for key, label in (("frozen_params", "Frozen (requires_grad=False)"), ("no_grad_params", "Trainable but no gradient")):
        names = r.get(key) or []
        if names:
            out += ["", f"{label}: {r.get(key + '_total', len(names))} tensors, e.g. " + ", ".join(f"`{n}`" for n in names[:8])]
    if r.get("params"):
        out += ["", "## Parameters", ""] + _params_block(r["params"])
    return out


def _memory(pr: ProbeResult) -> list[str]:
    r = pr.result
    out = ["## Memory", "", f"Method: {r.get('method', '?')}: {r.get('method_note', '')}", ""]
    phases = r.get("phases") or {}
    if phases:
        if r.get("method") == "cuda_allocator":
            out += table(["phase", "peak allocated", "allocated after", "peak reserved", "seconds"],
                         [[k, fmt_bytes(v.get("peak_allocated_bytes")), fmt_bytes(v.get("allocated_after_bytes")),
                           fmt_bytes(v.get("peak_reserved_bytes")), value(v.get("seconds"))] for k, v in phases.items()])
        else:
            out += table(["phase", "process peak RSS", "seconds"],
                         [[k, fmt_bytes(v.get("peak_rss_bytes")) + ("" if v.get("peak_rss_resettable") else " (since start)"),
                           value(v.get("seconds"))] for k, v in phases.items()])
    bk = r.get("by_kind") or {}
    if bk:
        out += ["", "### By kind", ""] + table(["kind", "bytes"], [[k, fmt_bytes(v)] for k, v in bk.items()])
    la = r.get("largest_activations") or []
    if la:
        out += ["", "### Largest activations (module outputs)", ""] + table(
            ["module", "bytes"], [[a.get("module"), fmt_bytes(a.get("bytes"))] for a in la if isinstance(a, dict)])
    return out


def _stat(s: Any) -> str:
    if not isinstance(s, dict):
        return "-"
    bad = " NaN" if s.get("has_nan") else ""
    bad += " inf" if s.get("has_inf") else ""
    if "min" not in s:
        return f"{s.get('shape')}{bad}"
    mean = f" mean {fmt_number(value(s.get('mean')))}" if "mean" in s else ""
    return f"{fmt_number(value(s.get('min')))}..{fmt_number(value(s.get('max')))}{mean}{bad}"


def _nan(pr: ProbeResult) -> list[str]:
    r = pr.result
    out = ["## NaN hunt", ""]
    first = r.get("first_nonfinite")
    if isinstance(first, dict):
        out.append(f"First non-finite value: batch **{first.get('batch')}**, phase **{first.get('phase')}**, at "
                   f"`{first.get('where')}`: {first.get('detail')}")
    else:
        out.append(f"No non-finite value in {r.get('batches_done', 0)} batches.")
    rows = []
    for b in r.get("batches") or []:
        if not isinstance(b, dict):
            continue
        ins = b.get("inputs") or {}
        outs = b.get("outputs") or {}
        rows.append([b.get("batch"), "; ".join(f"{k}: {_stat(v)}" for k, v in list(ins.items())[:2]),
                     "; ".join(_stat(v) for v in list(outs.values())[:1]),
                     ", ".join(f"{k}={fmt_number(value(v))}" for k, v in (b.get("loss_terms") or {}).items()),
                     value(b.get("grad_norm"))])
    if rows:
        out += ["", "### Per batch", ""] + table(["batch", "inputs min..max", "output", "loss terms", "grad norm"], rows)
    return out


def _checkpoint(pr: ProbeResult) -> list[str]:
    r = pr.result
    out = ["## Checkpoint", ""]
    if "tensors" in r:
        out.append(f"`{r.get('file')}` ({fmt_bytes(r.get('bytes'))}): state dict under `{r.get('state_dict_key')}`, "
                   f"{fmt_number(r.get('tensors'))} tensors, {fmt_number(r.get('numel'))} values.")
        opt = r.get("optimizer_state")
        out.append(f"- optimizer state: {'present (' + str(opt.get('key')) + ')' if isinstance(opt, dict) else 'absent'}")
        out.append(f"- scheduler state: {'present' if r.get('scheduler_state') else 'absent'}")
        out.append(f"- AMP scaler state: {'present' if r.get('scaler_state') else 'absent'}")
        if r.get("counters"):
            out.append("- counters: " + ", ".join(f"{k}={v}" for k, v in r["counters"].items()))
        if r.get("ddp_prefix"):
            out.append("- every key starts with `module.` (saved from a DistributedDataParallel wrapper)")
        dts = r.get("dtypes") or {}
        out += ["", "### Dtypes", ""] + table(["dtype", "tensors", "values"], [[k, v.get("tensors"), v.get("numel")] for k, v in dts.items()])
        bad = r.get("nonfinite_tensors") or []
        if bad:
            out += ["", "### Tensors with NaN/inf", ""] + table(["tensor", "NaN", "inf", "values"],
                                                               [[b.get("name"), b.get("nan"), b.get("inf"), b.get("numel")] for b in bad])
        at = r.get("against_target")
        if isinstance(at, dict):
            out += ["", "### Against TARGET", "", f"- TARGET keys: {at.get('target_keys')}",
                    f"- missing from the checkpoint: {at.get('missing_total')} " + ", ".join(f"`{k}`" for k in (at.get("missing") or [])[:10]),
                    f"- unexpected: {at.get('unexpected_total')} " + ", ".join(f"`{k}`" for k in (at.get("unexpected") or [])[:10]),
                    f"- shape mismatches: {at.get('shape_mismatch_total')}"]
    if r.get("archive_entries"):
        a = r["archive_entries"]
        out.append(f"Archive (not unpickled): {a.get('entries')} entries, {a.get('tensor_records')} tensor records, {fmt_bytes(a.get('bytes'))}.")
    return out


def _box(pr: ProbeResult) -> list[str]:
    r = pr.result
    rows = []
    for name, item in r.items():
        if not isinstance(item, dict):
            rows.append([name, fmt_number(item) if not isinstance(item, list) else ", ".join(fmt_number(x) for x in item), ""])
            continue
        if item.get("available") is False:
            rows.append([name, "unavailable", item.get("unavailable", "")])
            continue
        src = item.get("source", item.get("path", ""))
        vals = {k: v for k, v in item.items() if k not in ("available", "source", "path", "lines")}
        text = ", ".join(f"{k}={fmt_bytes(v) if k.endswith('bytes') or k in ('MemTotal', 'MemAvailable', 'SwapTotal', 'SwapFree') else fmt_number(v) if not isinstance(v, (dict, list)) else v}"
                         for k, v in vals.items())
        rows.append([name, text, src])
    out = ["## Machine", ""] + table(["item", "value", "source / why unavailable"], rows)
    for key in ("oom_killer", "gpu_xid"):
        lines = (r.get(key) or {}).get("lines") or []
        if lines:
            out += ["", f"### {key} lines", "", "```"] + [str(x) for x in lines] + ["```"]
    return out


def _data(pr: ProbeResult) -> list[str]:
    r = pr.result
    out = ["## Data", "", f"File: `{r.get('file')}`", ""]
    arrays = r.get("arrays") or {}
    out += table(["array / column", "shape", "dtype", "NaN", "inf", "min", "max", "mean", "std"],
                 [[k, v.get("shape"), v.get("dtype"), v.get("nan"), v.get("inf"), value(v.get("min")), value(v.get("max")),
                   value(v.get("mean")), value(v.get("std"))] for k, v in arrays.items() if isinstance(v, dict)])
    for k, v in arrays.items():
        ch = (v or {}).get("per_channel") if isinstance(v, dict) else None
        if isinstance(ch, dict):
            out += ["", f"### Per channel of `{k}` (axis {ch.get('axis')})", ""] + table(
                ["channel", "mean", "std"], [[i, value(m), value(s)] for i, (m, s) in enumerate(zip(ch.get("mean") or [], ch.get("std") or []))])
    lab = r.get("labels")
    if isinstance(lab, dict) and lab.get("histogram"):
        out += ["", f"### Labels (`{lab.get('name')}`)", "", f"{lab.get('classes_seen')} classes seen, min {lab.get('min')}, max {lab.get('max')}"
                + (f", {lab['out_of_range']} out of range" if "out_of_range" in lab else ""), "", "```"]
        hist = lab["histogram"]
        top = max(hist.values()) if hist else 1
        out += [f"{k:>8}  {'#' * max(1, round(BAR_WIDTH * c / top))} {c}" for k, c in list(hist.items())[:30]] + ["```"]
    dup = r.get("duplicates")
    if isinstance(dup, dict):
        out += ["", "### Train / val duplicates", ""]
        out.append(dup.get("note") or f"{dup.get('val_rows_in_train')} of {dup.get('val_rows')} val rows are in train "
                                       f"({dup.get('compared')}); {dup.get('within_train')} duplicates within train.")
    return out
