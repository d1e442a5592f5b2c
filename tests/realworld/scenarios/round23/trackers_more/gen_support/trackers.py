"""Writers that lay out metrics the way each tracker stores them on local disk.

Only layout/formatting lives here; every number passed in comes from a real
training run performed by gen.py.
"""
import csv
import datetime as _dt
import io
import json
import os
import random


def _mk(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)


def write_text(path, text):
    _mk(path)
    with open(path, "w") as f:
        f.write(text)


def write_json(path, obj, indent=2):
    _mk(path)
    with open(path, "w") as f:
        json.dump(obj, f, indent=indent)
        f.write("\n")


def hexid(rng, n=32):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def iso(ts, ms=True):
    d = _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc)
    if ms:
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (d.microsecond // 1000)
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def hms(ts, sep=" ", frac=True):
    d = _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc)
    s = d.strftime("%Y-%m-%d" + sep + "%H:%M:%S")
    if frac:
        s += ",%03d" % (d.microsecond // 1000)
    return s


def num(v):
    """JSON-safe float as the trackers write it (NaN/inf become strings in some)."""
    v = float(v)
    return v


# ---------------------------------------------------------------- Comet offline
def comet_offline(folder, *, key, workspace, project, name, start, stop, params,
                  metrics, outputs, others=None, tags=None, system=None, file_name="train.py"):
    """folder: the extracted <key>.zip.  metrics: list of dict(name, value, step, epoch, ts)
    outputs: list of (ts, line, is_stderr).  params: list of (ts, name, value)."""
    msgs = []
    msgs.append((start, {"type": "ws_msg", "payload": {"local_timestamp": int(start * 1000),
                 "log_other": {"key": "Created from", "val": "comet_ml 3.47.1 (offline)"}}}))
    msgs.append((start, {"type": "file_name_msg", "payload": {"local_timestamp": int(start * 1000),
                 "file_name": file_name, "file_path": "/home/dmitri/work/" + project + "/" + file_name}}))
    if system:
        p = dict(system)
        p["local_timestamp"] = int(start * 1000)
        msgs.append((start, {"type": "system_details_msg", "payload": p}))
    for k, v in (others or {}).items():
        msgs.append((start, {"type": "log_other_msg", "payload": {"local_timestamp": int(start * 1000),
                     "key": k, "value": v}}))
    for ts, n, v in params:
        msgs.append((ts, {"type": "parameter_msg", "payload": {"local_timestamp": int(ts * 1000),
                     "param": {"paramName": n, "paramValue": v, "step": None}}}))
    for m in metrics:
        msgs.append((m["ts"], {"type": "metric_msg", "payload": {"local_timestamp": int(m["ts"] * 1000),
                     "metric": {"metricName": m["name"], "metricValue": m["value"], "step": m["step"],
                                "epoch": m.get("epoch"), "runContext": None}}}))
    for ts, line, err in outputs:
        msgs.append((ts, {"type": "standard_output_msg", "payload": {"local_timestamp": int(ts * 1000),
                     "output": line + "\n", "stderr": bool(err), "context": None}}))
    msgs.sort(key=lambda t: t[0])
    buf = io.StringIO()
    for _, m in msgs:
        buf.write(json.dumps(m, allow_nan=True) + "\n")
    write_text(os.path.join(folder, "messages.json"), buf.getvalue())
    write_json(os.path.join(folder, "experiment.json"), {
        "offline_id": key, "project_name": project, "workspace": workspace,
        "start_time": int(start * 1000), "stop_time": int(stop * 1000), "tags": tags or [],
        "mode": "create", "customer_error": None, "user_provided_experiment_key": False,
        "comet_start_sourced": False, "experiment_name": name})


# ---------------------------------------------------------------- Neptune
def neptune_export(folder, *, attributes, series, string_series=None):
    """Exported run: attributes.json (simple attributes) + one JSON per series
    (values as {step, value, timestamp}), path segments become folders."""
    write_json(os.path.join(folder, "attributes.json"), attributes)
    def dump(path, typ, vals):
        body = ",\n".join("    " + json.dumps(v) for v in vals)
        write_text(os.path.join(folder, *path.split("/")) + ".json",
                   '{\n  "path": %s,\n  "type": "%s",\n  "values": [\n%s\n  ]\n}\n' % (json.dumps(path), typ, body))
    for path, pts in series.items():
        dump(path, "FloatSeries", [{"step": float(s), "value": v, "timestamp": iso(t)} for s, v, t in pts])
    for path, pts in (string_series or {}).items():
        dump(path, "StringSeries", [{"step": float(i), "value": v, "timestamp": iso(t)} for i, (v, t) in enumerate(pts)])


class NeptuneQueue:
    """Offline operation log as neptune-client 1.x writes it (one JSON op per line)."""

    def __init__(self):
        self.lines = []
        self.version = 0

    def _op(self, obj, ts):
        self.version += 1
        self.lines.append((ts, self.version, obj))

    def assign(self, path, value, ts):
        if isinstance(value, bool):
            t = "AssignBool"
        elif isinstance(value, int):
            t = "AssignInt"
        elif isinstance(value, float):
            t = "AssignFloat"
        else:
            t = "AssignString"
        self._op({"type": t, "path": path.split("/"), "value": value}, ts)

    def add_strings(self, path, values, ts):
        self._op({"type": "AddStrings", "path": path.split("/"), "values": list(values)}, ts)

    def log_float(self, path, value, step, ts):
        self._op({"type": "LogFloats", "path": path.split("/"),
                  "values": [{"value": value, "step": float(step), "ts": ts}]}, ts)

    def log_string(self, path, value, ts):
        self._op({"type": "LogStrings", "path": path.split("/"),
                  "values": [{"value": value, "step": None, "ts": ts}]}, ts)

    def write(self, path):
        buf = io.StringIO()
        for ts, ver, obj in self.lines:
            buf.write(json.dumps({"obj": obj, "version": ver, "at": int(ts * 1000)}) + "\n")
        write_text(path, buf.getvalue())


# ---------------------------------------------------------------- ClearML
def clearml_hparam(section, name, value, typ):
    return {"section": section, "name": name, "value": str(value), "type": typ, "description": ""}


def clearml_scalars_csv(folder, scalars):
    """scalars: {title: {series: [(iter, value)]}} -> one CSV per title as the web UI exports it."""
    for title, ser in scalars.items():
        iters = sorted({i for pts in ser.values() for i, _ in pts})
        cols = list(ser.keys())
        look = {s: dict(pts) for s, pts in ser.items()}
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["iteration"] + cols)
        for it in iters:
            w.writerow([it] + [("" if it not in look[s] else repr_num(look[s][it])) for s in cols])
        write_text(os.path.join(folder, title.replace("/", "_") + ".csv"), buf.getvalue())


def clearml_scalars_json(path, scalars):
    out = {}
    for title, ser in scalars.items():
        out[title] = {}
        for s, pts in ser.items():
            out[title][s] = {"name": s, "x": [i for i, _ in pts], "y": [v for _, v in pts]}
    write_json(path, out)


def repr_num(v):
    v = float(v)
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(v)


# ---------------------------------------------------------------- Guild
def yaml_scalar(v):
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "null"
    if isinstance(v, (int, float)):
        return repr(v)
    s = str(v)
    if any(c in s for c in ":#{}[],&*?|<>=!%@`'\"") or s.strip() != s or s == "":
        return "'" + s.replace("'", "''") + "'"
    return s


def guild_run(folder, *, run_id, opref, op_name, flags, cmd, started_us, stopped_us, exit_status,
              output, sourcecode, label="", host="gpu-node-3", user="mkhan", main="train"):
    g = os.path.join(folder, ".guild")
    a = os.path.join(g, "attrs")
    write_text(os.path.join(a, "flags"), "".join("%s: %s\n" % (k, yaml_scalar(v)) for k, v in flags.items()))
    write_text(os.path.join(a, "cmd"), "".join("- %s\n" % yaml_scalar(c) for c in cmd))
    write_text(os.path.join(a, "exit_status"), "%d\n" % exit_status)
    write_text(os.path.join(a, "started"), "%d\n" % started_us)
    write_text(os.path.join(a, "stopped"), "%d\n" % stopped_us)
    write_text(os.path.join(a, "initialized"), "%d\n" % (started_us - 412000))
    write_text(os.path.join(a, "id"), run_id + "\n")
    write_text(os.path.join(a, "label"), yaml_scalar(label) + "\n")
    write_text(os.path.join(a, "host"), host + "\n")
    write_text(os.path.join(a, "user"), user + "\n")
    write_text(os.path.join(a, "platform"), "Linux 5.15.0-105-generic x86_64\n")
    write_text(os.path.join(a, "op"), "op-cmd:\n  cmd-args:\n  - ${python_exe}\n  - -um\n  - guild.op_main\n"
               "  - %s\n  - __flag_args__\n  cmd-env: {}\nopref:\n  op-name: %s\n  pkg-name: guild.yml\n"
               "  pkg-type: guildfile\n  pkg-version: %s\n" % (main, op_name, opref))
    write_text(os.path.join(g, "opref"), "guildfile:%s %s %s\n" % ("/home/%s/proj/guild.yml" % user, opref, op_name))
    write_text(os.path.join(g, "output"), output)
    for rel, text in sourcecode.items():
        write_text(os.path.join(g, "sourcecode", rel), text)


def tb_csv(path, pts):
    """TensorBoard 'download CSV' of one tag: Wall time,Step,Value."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["Wall time", "Step", "Value"])
    for ts, s, v in pts:
        w.writerow(["%.6f" % ts, s, repr_num(v)])
    write_text(path, buf.getvalue())


# ---------------------------------------------------------------- Aim
def aim_dataframe_csv(path, rows_by_metric, run_hash, run_attrs):
    """Concatenation of Metric.dataframe(include_name=True, include_context=True, include_run=True)
    frames written with DataFrame.to_csv (leading unnamed index column)."""
    attr_cols = ["run.hash"] + ["run." + k for k in run_attrs]
    ctx_keys = sorted({k for (_, ctx), _ in rows_by_metric for k in ctx})
    header = ["", "idx", "step", "value", "epoch", "time"] + attr_cols + ["metric.name"] + \
        ["metric.context." + k for k in ctx_keys]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for (name, ctx), pts in rows_by_metric:
        for i, (step, value, epoch, ts) in enumerate(pts):
            d = _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
            w.writerow([i, i, step, repr_num(value), "" if epoch is None else "%.1f" % epoch, d, run_hash] +
                       [run_attrs[k] for k in run_attrs] + [name] + [ctx.get(k, "") for k in ctx_keys])
    write_text(path, buf.getvalue())


class Clock:
    """Deterministic wall clock for formatting timestamps around real numbers."""

    def __init__(self, start, seed):
        self.t = start
        self.rng = random.Random(seed)

    def tick(self, mean):
        self.t += mean * (0.85 + 0.3 * self.rng.random())
        return self.t
