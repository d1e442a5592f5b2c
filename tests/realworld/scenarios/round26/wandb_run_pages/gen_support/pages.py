"""Render fake-but-faithful W&B UI text (run overview, config, summary, logs, panel CSV exports)."""
import csv
import datetime as dt
import io
import math


def nf(v):
    """decode the json encoding of non-finite values"""
    if isinstance(v, dict) and "__nonfinite__" in v:
        s = v["__nonfinite__"]
        return float(s)
    return v


def ui_val(v):
    v = nf(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(ui_val(x) for x in v) + "]"
    return str(v)


def flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and "__nonfinite__" not in v:
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def duration(sec):
    sec = int(round(sec))
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    if h:
        return f"{h}h {m}m {s}s"
    if m:
        return f"{m}m {s}s"
    return f"{s}s"


def ordinal(n):
    return str(n) + ("th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def ui_time(ts):
    t = dt.datetime.fromtimestamp(ts, dt.timezone.utc)
    return f"{t.strftime('%B')} {ordinal(t.day)}, {t.year} at {t.strftime('%I:%M:%S %p').lstrip('0')}"


def overview(rec, meta):
    state = {"finished": "Finished", "crashed": "Crashed", "failed": "Failed", "preempted": "Crashed"}[rec["state"]]
    lines = [f"{rec['project']} / Runs / {rec['name']}", "",
             "Overview    Charts    System    Logs    Files    Artifacts", "",
             "Overview", ""]
    rows = [("Run path", f"{rec['entity']}/{rec['project']}/{rec['id']}"),
            ("Name", rec["name"]),
            ("State", state),
            ("Notes", meta.get("notes", "What's this run about?")),
            ("Tags", ", ".join(rec.get("tags") or []) or "+ Add tag"),
            ("Author", meta["author"]),
            ("Start time", ui_time(rec["start_time"])),
            ("Duration", duration(rec["runtime"])),
            ("Hostname", meta["host"]),
            ("OS", meta.get("os", "Linux-5.15.0-105-generic-x86_64-with-glibc2.35")),
            ("Python version", meta.get("python", "CPython 3.11.7")),
            ("Python executable", meta.get("pyexe", "/opt/conda/bin/python")),
            ("Git repository", f"git clone {meta['repo']}"),
            ("Git state", f"git checkout -b \"{rec['name']}\" {meta['commit']}"),
            ("Command", meta["command"]),
            ("System Hardware", meta.get("hw", "CPU count 16 | GPU count 1 | GPU type NVIDIA A10G")),
            ("W&B CLI Version", "0.16.6")]
    if rec.get("job_type"):
        rows.insert(5, ("Job type", rec["job_type"]))
    if rec.get("group"):
        rows.insert(5, ("Group", rec["group"]))
    w = max(len(k) for k, _ in rows)
    lines += [f"{k.ljust(w)}    {v}" for k, v in rows]
    return "\n".join(lines)


def config_table(cfg):
    flat = flatten(cfg)
    w = max(len(k) for k in flat) if flat else 4
    lines = ["Config", "Config parameters are your model's inputs. Learn more", "",
             f"{'Key'.ljust(w)}    Value"]
    lines += [f"{k.ljust(w)}    {ui_val(v)}" for k, v in sorted(flat.items())]
    return "\n".join(lines)


def summary_table(rec, drop=()):
    s = dict(rec["summary"])
    s["_wandb"] = {"runtime": int(rec["runtime"])}
    flat = flatten(s)
    flat = {k: v for k, v in flat.items() if k not in drop}
    w = max(len(k) for k in flat)
    lines = ["Summary", "Summary metrics are your model's outputs. Learn more", "",
             f"{'Key'.ljust(w)}    Value"]
    lines += [f"{k.ljust(w)}    {ui_val(v)}" for k, v in sorted(flat.items())]
    return "\n".join(lines)


def logs_tab(text, last=None, first=None, title="Logs"):
    ls = text.rstrip("\n").split("\n")
    start = 1
    if last is not None and len(ls) > last:
        start = len(ls) - last + 1
        ls = ls[-last:]
    if first is not None:
        ls = ls[:first]
    w = len(str(start + len(ls)))
    out = [title, "output.log", ""]
    out += [f"{str(start + i).rjust(w)}  {l}" for i, l in enumerate(ls)]
    return "\n".join(out)


def run_page(rec, meta, logs=None, drop_summary=()):
    parts = [overview(rec, meta), config_table(rec["config"]), summary_table(rec, drop_summary)]
    if logs:
        parts.append(logs)
    return "\n\n\n".join(parts) + "\n"


def _num(v):
    v = nf(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    return str(v)


def panel_csv(series, x="_step", max_points=None):
    """series: list of (run_name, history, metric) lines of one chart -> W&B 'Export CSV' text."""
    cols = []
    for name, hist, metric in series:
        pts = [(row[x], row[metric]) for row in hist if metric in row and x in row]
        if max_points and len(pts) > max_points:
            size = math.ceil(len(pts) / max_points)
            b = {}
            for i in range(0, len(pts), size):
                chunk = pts[i:i + size]
                vals = [nf(v) for _, v in chunk]
                fin = [v for v in vals if math.isfinite(v)]
                if len(fin) == len(vals):
                    b[chunk[0][0]] = (sum(vals) / len(vals), min(vals), max(vals))
                else:
                    bad = [v for v in vals if not math.isfinite(v)]
                    b[chunk[0][0]] = (bad[-1], min(fin) if fin else bad[0], max(fin) if fin else bad[0])
            cols.append(b)
        else:
            cols.append({s_: (nf(v), nf(v), nf(v)) for s_, v in pts})
    steps = sorted({s_ for c in cols for s_ in c})
    buf = io.StringIO()
    wr = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    head = ["Step" if x == "_step" else x]
    for name, _, metric in series:
        head += [f"{name} - {metric}", f"{name} - {metric}__MIN", f"{name} - {metric}__MAX"]
    wr.writerow(head)
    for s_ in steps:
        row = [s_]
        for c in cols:
            row += [_num(v) for v in c[s_]] if s_ in c else ["", "", ""]
        wr.writerow(row)
    return buf.getvalue()


def run_comparer(recs, diff_only=True, extra=None):
    """W&B 'Run Comparer' panel pasted as text: config + summary side by side."""
    names = [r["name"] for r in recs]
    keys = {}
    for r in recs:
        flat = {"ID": r["id"], "State": r["state"].capitalize(), "Runtime": duration(r["runtime"])}
        if extra:
            flat.update(extra.get(r["id"], {}))
        flat.update({f"config.{k}": v for k, v in flatten(r["config"]).items()})
        flat.update({f"summary.{k}": v for k, v in flatten(r["summary"]).items() if not k.startswith("_")})
        keys[r["id"]] = flat
    allk = []
    for r in recs:
        for k in keys[r["id"]]:
            if k not in allk:
                allk.append(k)
    rows = []
    for k in allk:
        vals = [keys[r["id"]].get(k, "-") for r in recs]
        plain = k in ("ID", "State", "Runtime") or (extra is not None and any(k in e for e in extra.values()))
        shown = [str(v) if (plain or v == "-") else ui_val(v) for v in vals]
        if diff_only and len(set(shown)) == 1 and k not in ("ID",):
            continue
        rows.append([k] + shown)
    w0 = max(len(r[0]) for r in rows)
    ws = [max(len(names[i]), max(len(r[i + 1]) for r in rows)) for i in range(len(names))]
    out = ["Run Comparer" + ("    [x] Diff only" if diff_only else "    [ ] Diff only"), "",
           " " * w0 + "    " + "    ".join(n.ljust(ws[i]) for i, n in enumerate(names))]
    for r in rows:
        out.append(r[0].ljust(w0) + "    " + "    ".join(r[i + 1].ljust(ws[i]) for i in range(len(names))))
    return "\n".join(out)


def runs_table(recs, columns, created):
    """the workspace 'Runs' table (name, state, created, runtime + chosen columns)"""
    head = ["Name", "State", "Created", "Runtime"] + [c for c, _ in columns]
    rows = []
    for r in recs:
        row = [r["name"], r["state"].capitalize(), created[r["id"]], duration(r["runtime"])]
        for _, fn in columns:
            row.append(fn(r))
        rows.append(row)
    ws = [max(len(str(x[i])) for x in [head] + rows) for i in range(len(head))]
    out = [f"Runs ({len(recs)})", "",
           "  ".join(h.ljust(ws[i]) for i, h in enumerate(head))]
    for row in rows:
        out.append("  ".join(str(v).ljust(ws[i]) for i, v in enumerate(row)))
    return "\n".join(out)
