"""Metric tables: CSV/TSV, JSONL streams, HF `trainer_state.json` and JSON lists of metric dicts.

In:  a file whose *content* is a metric table (sniffed, not judged by its name alone).
Out: one `Series` per numeric column / field (`source=rel`, `locs` = 1-based line of the row,
     or of the line where the row's JSON object starts). Bad rows become ONE warning per file
     ("rel:LINE: N rows ... (first shown), skipped"); the rest is kept. A truncated last line
     (a file still being written) is dropped silently. JSON that is not metrics (a config) is
     left to the text reader.

Cells: blank = missing (that series has no point there: PyTorch Lightning's CSVLogger writes
train and val metrics on separate rows sharing `step`); `nan`, `inf`, `-inf`, `Infinity` are
values and kept.
"""
from __future__ import annotations

import io
import json
import os
import re
import warnings
from dataclasses import replace
from itertools import chain, repeat
from pathlib import Path

import numpy as np

from mltdbg.analyzers.ingest import (HEAD_BYTES, MAX_TEXT_BYTES, WIDE_HEAD_BYTES, has_holes, decode_utf8, head_bytes,
                                     is_binary, read_bytes, read_text)
from mltdbg.analyzers.model import LOC_LINE, Run, Series, TextArtifact
from mltdbg.analyzers.names import CANONICAL, LAYER_NAME, WHOLE_MODEL, normalize, rename_by_layout
from mltdbg.analyzers.readers.textlog.kind import table_name
from mltdbg.analyzers.readers.textlog.layergrads import layer_series

# Step columns in order of preference; then the epoch; else the row index.
STEP_COLUMNS = ("step", "global_step", "trainer/global_step", "_step", "iteration", "iter", "it",
                "train/global_step", "num_updates")
EPOCH_COLUMNS = ("epoch", "train/epoch")
# Clock columns are not metrics (and "time" would read as step time).
CLOCK_COLUMNS = {"wall time", "wall_time", "walltime", "timestamp", "_timestamp", "created_at",
                 "date", "datetime", "time_stamp", "relative time (process)"}
DELIMITERS = (",", "\t", ";", "|")
# HF Trainer's last log_history row is a run summary: its train_loss is a mean, not a point.
SUMMARY_KEYS = {"train_runtime", "total_flos"}   # (two keys: _read_json tests them one by one)
# A column is a metric when at least this share of its non-blank cells are numbers.
NUMERIC_SHARE = 0.5
# JSON documents larger than this are not parsed to sniff them: json.loads holds ~6x the text as
# Python objects (a 64 MB trainer_state.json is ~400 MB parsed; HF's for a 500k-step run is ~40 MB).
MAX_JSON_SNIFF = 64 * 1024 * 1024
# An HF trainer_state.json that pyarrow reads (no Python objects: about its own size in memory)
# is read up to this size.
MAX_JSON_ARROW = 1024 * 1024 * 1024
# A table wider than this is not metrics (an exported feature matrix); a row with more than
# EXTRA_CELLS cells beyond its header is junk and is dropped, not given columns.
MAX_COLUMNS = 10_000
EXTRA_CELLS = 8
SNIFF_BYTES = 1 << 20
SNIFF_ROWS = 40          # rows after the header that the sniffer looks at

# JSON NaN must stay a value while a missing field is missing; both would be NaN in a frame,
# so NaN is parsed as this sentinel and turned back into NaN per series.
_NAN = -1.2345678901234567e308


def _constant(name: str) -> float:
    return {"NaN": _NAN, "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


_DEC = json.JSONDecoder(parse_constant=_constant)


# ---- sniffing --------------------------------------------------------------------------------

_cache: dict[tuple, tuple] = {}


def _key(path: Path):
    try:
        st = path.stat()
        return (str(path), st.st_size, st.st_mtime_ns)
    except OSError:
        return (str(path), None, None)


def sniff(path: Path, head: bytes) -> bool:
    """True when the file is a metric table (CSV/TSV, JSONL, trainer_state / metric-list JSON)."""
    if not head or is_binary(head):
        return False
    kind = _detect(path, head)
    _cache.clear()  # only the file being read is worth keeping
    if kind is not None:
        _cache[_key(path)] = kind
    return kind is not None


def _detect(path: Path, head: bytes):
    if len(head) >= HEAD_BYTES and head.count(b"\n") < 3:
        # The header (or first record) is wider than the sniff head: a metrics.csv with hundreds of
        # columns. Read on until the header and some rows are in, however wide (to WIDE_HEAD_BYTES).
        try:
            head = head_bytes(path, WIDE_HEAD_BYTES, lines=SNIFF_ROWS + 1)
        except OSError:
            pass
    s = head.lstrip()
    if s[:1] in (b"{", b"["):
        first = s.split(b"\n", 1)[0].strip()
        if first.startswith(b"{") and first.endswith(b"}") and (b"\n" in s or len(head) < HEAD_BYTES):
            kind = _detect_jsonl(path, head)
            if kind:
                return kind
        return _detect_json(path)
    return _detect_csv(path, head)


def _metric_dict(d) -> bool:
    """A dict with at least one numeric (non-bool) value."""
    return isinstance(d, dict) and any(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in _flatten(d).values())


# "acc" as a word or a name's end (val_acc, top1_acc, acc@1, trainacc), not "acceleration" or "account"
_ACC = re.compile(r"acc(?![a-z])|accuracy")


def _metricish_keys(records) -> bool:
    """Some key names a metric or a step (so a dataset of {'text', 'label'} is not a metric list)."""
    for r in records[:50]:
        for k in _flatten(r):
            low = k.lower()
            n = normalize(low)
            if (n in CANONICAL or n.startswith("val_") or "loss" in low or _ACC.search(low)
                    or low in STEP_COLUMNS or n.startswith("grad_norm")):
                return True
    return False


def _detect_jsonl(path: Path, head: bytes):
    if b"\n" not in head.strip() and table_name(path) != "jsonl":
        return None
    lines = [ln for ln in head.split(b"\n")[:40] if ln.strip()]
    if not head.endswith(b"\n") and len(lines) > 1:
        lines = lines[:-1]  # the head may cut the last line, or the file is still being written
    recs, bad = [], 0
    for ln in lines:
        r = loads_lenient(ln.decode("utf-8", "replace"))
        if r is None:
            bad += 1
        else:
            recs.append(r)
    if bad > len(lines) / 3:
        return None
    if not recs or not all(isinstance(r, dict) for r in recs):
        return None
    if len(recs) < 2 and table_name(path) != "jsonl":
        return None
    if all(_operation(r) is not None for r in recs):
        return ("operations",)
    if not any(_metric_dict(r) for r in recs) or not _metricish_keys(recs):
        return None
    return ("jsonl",)


def _operation(r: dict) -> tuple[str, list] | None:
    """(type, path) of a tracker's queued operation, one JSON object a line (Neptune's offline and async queues,
    `.neptune/.../data-1.log`: {"obj": {"type": "LogFloats", "path": ["train", "loss"], "values": [{"value": 0.5,
    "step": 3.0, "ts": ...}]}, "version": 16}); None for any other record."""
    obj = r.get("obj")
    if isinstance(obj, dict) and isinstance(obj.get("type"), str) and isinstance(obj.get("path"), list):
        return obj["type"], obj["path"]
    return None


def _read_operations(path: Path, rel: str, run: Run) -> None:
    """The numeric series a tracker's operation queue logged (LogFloats: one record per value, named by the
    attribute's path joined with `/`, at its step); the other operations (parameters, tags, stdout) are left to
    the text reader's copy of the file."""
    text = decode_utf8(read_bytes(path, rel, run), rel, run)
    recs, lines, bad = [], [], []
    for i, ln in enumerate(text.split("\n"), 1):
        if not ln.strip():
            continue
        r = loads_lenient(ln)
        op = _operation(r) if isinstance(r, dict) else None
        if op is None:
            bad.append(i)
            continue
        kind, where = op
        if kind != "LogFloats" or not all(isinstance(x, str) for x in where):
            continue
        name = "/".join(where)
        values = r["obj"].get("values")
        if not isinstance(values, list):
            bad.append(i)
            continue
        for v in values:
            x = v.get("value") if isinstance(v, dict) else None
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                rec = {name: x}
                st = v.get("step")
                if isinstance(st, (int, float)) and not isinstance(st, bool):
                    rec["step"] = st
                recs.append(rec)
                lines.append(i)
    emit_records(run, rel, path, recs, np.asarray(lines, dtype=np.int64), bad)


def _detect_json(path: Path):
    try:
        size = path.stat().st_size
        if size > MAX_JSON_SNIFF and size > MAX_JSON_ARROW:
            return None
        data = read_bytes(path)
    except OSError:
        return None
    hist = _log_history_arrow(data)
    if hist is not None:
        return ("json_arrow", data, hist)
    if len(data) > MAX_JSON_SNIFF:
        return None
    try:
        doc = json.loads(data, parse_constant=_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    rows, where, beside = _json_history(doc, "grad" in path.name.lower())
    if rows is None:
        return None
    return ("json", _one_series_named(doc, rows, path), where, beside)


# Keys of one exported series' points besides its value: {"step": 3, "value": 0.41, "timestamp": "..."}
_POINT_KEYS = frozenset({"step", "x", "timestamp", "ts", "time", "wall_time", "walltime"})
_SERIES_NAME_KEYS = ("path", "name", "metric", "key", "tag", "attribute", "series")


def _one_series_named(doc, rows: list, path: Path) -> list:
    """One exported series per file ({"path": "val/loss", "type": "FloatSeries", "values": [{"step": 0, "value":
    1.09}, ...]}, Neptune's and other trackers' per-attribute downloads): its points' `value` named by the document's
    own name for it, else by the file's folder and stem (`val/loss.json` -> val/loss)."""
    if not rows or not all(isinstance(r, dict) and "value" in r and set(r) - {"value"} <= _POINT_KEYS for r in rows[:50]):
        return rows
    named = next((doc[k] for k in _SERIES_NAME_KEYS if isinstance(doc, dict) and isinstance(doc.get(k), str)
                  and doc[k].strip()), None)
    name = named.strip() if named else f"{path.parent.name}/{path.stem}" if path.parent.name else path.stem
    return [{(name if k == "value" else k): v for k, v in r.items()} for r in rows]


def _log_history_arrow(data: bytes):
    """HF's trainer_state.json through pyarrow's JSON reader (one C pass, no Python object per
    value): the `log_history` list as one Arrow struct array, or None when pyarrow is missing,
    the document is not one object with a `log_history` list of objects, or Arrow cannot read
    it as is (then json.loads reads it the way it always did)."""
    if b'"log_history"' not in data:
        return None
    pa = _arrow()
    if pa is None:
        return None
    try:
        table = pa.json.read_json(pa.py_buffer(data if data.endswith(b"\n") else data + b"\n"),
                                  read_options=pa.json.ReadOptions(block_size=min(len(data) + 2, 2**31 - 1)),
                                  parse_options=pa.json.ParseOptions(newlines_in_values=True))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError, OverflowError):
        return None
    if table.num_rows != 1 or table.column_names.count("log_history") != 1:
        return None
    col = table.column("log_history").combine_chunks()
    if not pa.types.is_list(col.type) or not pa.types.is_struct(col.type.value_type) or col.null_count:
        return None
    return col.flatten()      # the list's elements (one row per log_history entry)


def _metric_rows(doc, grad_file: bool = False):
    """(list of row dicts, key holding them or None) when a JSON document is metrics, else (None, None).

    Accepted: {"log_history": [...]} (HF), a list of metric dicts, a dict with one list of metric
    dicts (e.g. "history"), Keras' history.json {"loss": [...], "val_loss": [...]}, and Sacred's metrics.json
    {"loss": {"steps": [...], "values": [...]}}; in a file
    named after gradients (`grad_file`), a dict keyed by layers of one number or a list of numbers
    each ({"layer0": [1e-9, ...], ...}: a hook's per-layer norms, one list entry per step)."""
    if isinstance(doc, dict):
        lh = doc.get("log_history")
        if isinstance(lh, list) and all(isinstance(r, dict) for r in lh):
            return lh, "log_history"
        for k, v in doc.items():
            if isinstance(v, list) and len(v) >= 2 and all(isinstance(r, dict) for r in v) \
                    and sum(_metric_dict(r) for r in v) >= len(v) / 2 and _metricish_keys(v):
                return v, k
        # Keras History.history: every value a list of numbers, some key a metric
        if doc and all(isinstance(v, list) and v and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) for x in v) for v in doc.values()) \
                and _metricish_keys([{k: 0 for k in doc}]):
            n = max(len(v) for v in doc.values())
            rows = [{k: v[i] for k, v in doc.items() if i < len(v)} for i in range(n)]
            return rows, "columns"
        # Sacred's FileStorageObserver (metrics.json): {"loss": {"steps": [...], "values": [...], "timestamps": [...]}, ...},
        # one row per step that any metric was logged at
        if doc and all(isinstance(v, dict) and isinstance(v.get("steps"), list) and isinstance(v.get("values"), list)
                       for v in doc.values()) and _metricish_keys([{k: 0 for k in doc}]):
            by: dict = {}
            for name, v in doc.items():
                for st, x in zip(v["steps"], v["values"]):
                    if isinstance(st, (int, float)) and isinstance(x, (int, float)) and not isinstance(x, bool):
                        by.setdefault(st, {"step": st})[name] = x
            if by:
                return [by[st] for st in sorted(by)], "columns"
        # a per-layer dump, {"encoder.layer.0.weight": 3e-9, ...}: one row per parameter (read as
        # grad_norm/<layer> when the file or a key names gradients: _layer_table)
        scalars = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in doc.values())
        if len(doc) >= 2 and scalars and sum(str(k).endswith((".weight", ".bias")) for k in doc) * 2 >= len(doc):
            return [{"layer": k, "value": v} for k, v in doc.items()], "layers"
        if grad_file and len(doc) >= 2 and sum(bool(LAYER_NAME.fullmatch(str(k))) for k in doc) * 2 >= len(doc):
            if scalars:
                return [{"layer": k, "value": v} for k, v in doc.items()], "layers"
            if all(isinstance(v, list) and v and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
                   for v in doc.values()):
                return [{"layer": k, "value": x, "step": i} for k, v in doc.items() for i, x in enumerate(v)], "layer_lists"
        if grad_file:
            # the same dump one level down, {"epoch": [1, 2, ...], "layers": {"encoder.0": [...], ...}}:
            # the steps from the run's own step/epoch list where its length fits
            nested = [v for v in doc.values() if isinstance(v, dict) and len(v) >= 2]
            if len(nested) == 1:
                rows, kind = _metric_rows(nested[0], grad_file)
                steps = next((doc[k] for k in ("step", "steps", "epoch", "epochs", "iteration", "iterations")
                              if isinstance(doc.get(k), list)), None)
                if kind == "layer_lists" and steps is not None and all(r["step"] < len(steps) for r in rows):
                    rows = [{**r, "step": steps[r["step"]]} for r in rows]
                if kind in ("layers", "layer_lists"):
                    return rows, kind
        return None, None
    if isinstance(doc, list) and len(doc) >= 1 and all(isinstance(r, dict) for r in doc) \
            and sum(_metric_dict(r) for r in doc) >= len(doc) / 2 and _metricish_keys(doc):
        return doc, None
    return None, None


def _json_history(doc, grad_file: bool = False):
    """_metric_rows, and where the top level holds none, a history one level down: {"config": {...},
    "history": {"loss": [...]}}, or one history per split, {"train": {"loss": [...]}, "val": {...}}
    (read as "val/loss"). Returns (rows, where, beside); `beside`: settings stand beside the history (a
    scalar, or a dict that is no history: {"config": {"lr": 5.0}, "history": ...}), so the file is a
    config too. Each dict inside is read once."""
    rows, where = _metric_rows(doc, grad_file)
    if not isinstance(doc, dict):
        return rows, where, False
    settings = "log_history" not in doc
    scalar = settings and any(isinstance(v, (str, int, float)) for v in doc.values())
    subs = {k: v for k, v in doc.items() if isinstance(v, dict) and v}
    if rows is not None and (scalar or not subs or not settings):
        return rows, where, scalar
    inside = {k: _metric_rows(v) for k, v in subs.items()}
    beside = scalar or (settings and any(r is None for r, _ in inside.values()))
    if rows is None:
        found = [(k, r, w) for k, (r, w) in inside.items() if r is not None and w not in ("layers", "layer_lists")]
        if len(found) == 1:
            _, rows, where = found[0]
        elif found and all(w == "columns" for _, _, w in found):
            n = max(len(r) for _, r, _ in found)
            rows, where = [{f"{k}/{m}": x for k, r, _ in found if i < len(r) for m, x in r[i].items()}
                           for i in range(n)], "columns"
    return rows, where, beside


def split_csv_line(line: str, d: str) -> list[str]:
    return [c.strip().strip('"').strip() for c in line.split(d)]


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _detect_csv(path: Path, head: bytes):
    text = head.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if len(head) >= HEAD_BYTES and len(lines) > 1:
        lines = lines[:-1]          # the head may end inside a line
    lines = [ln for ln in lines if ln.strip()]
    named = table_name(path) == "csv"
    if len(lines) < 2:
        return None
    best = None
    for d in DELIMITERS:
        header = split_csv_line(lines[0], d)
        # (the first name may be empty: pandas' to_csv writes its index there, a W&B "Export CSV" of a run's history)
        if len(header) < 2 or any((not h and j) or len(h) > 100 or _is_number(h) for j, h in enumerate(header)):
            continue
        rows = [split_csv_line(ln, d) for ln in lines[1:40]]
        same = [r for r in rows if len(r) == len(header)]
        if len(same) < max(1, 0.6 * len(rows)):
            continue
        numeric_cols = sum(
            1 for j in range(len(header))
            if sum(_is_number(r[j]) for r in same if r[j]) >= max(1, 0.6 * sum(1 for r in same if r[j])))
        if numeric_cols == 0:
            continue
        if not named and (len(same) < 3 or numeric_cols < 1 or d == "|" and lines[0].lstrip()[:1] == "|"):
            continue
        # a table of features (a dataset) is not a metric log; a long table names its metrics in a column of
        # its own (a CloudWatch / SageMaker export's `timestamp,metric_name,value`)
        low = {h.strip().lower() for h in header}
        if not _metricish_keys([{h: 0 for h in header}]) and not (low & METRIC_KEY_COLUMNS and low & set(VALUE_COLUMNS)):
            continue
        if best is None or len(header) > best[1]:
            best = (d, len(header))
    return ("csv", best[0]) if best else None


# ---- reading ---------------------------------------------------------------------------------


def read(path: Path, rel: str, run: Run) -> None:
    """Append the series of a metric table to `run` (warnings for junk rows)."""
    n_series = len(run.series)
    _read(path, rel, run)
    # (a column without a name is pandas' index, written by to_csv: a row counter, no metric)
    run.series[n_series:] = [x for x in run.series[n_series:] if x.raw_name.strip()]
    mine = run.series[n_series:]
    _strip_run_prefix(mine)
    if path.name == "scalars.json":
        run.series[n_series:] = mine = _mmengine_eval_rows(mine)
    elif mine and all(s.loc_kind == LOC_LINE for s in mine) and path.suffix.lower() in (".json", ".jsonl"):
        _score_records_held_out(mine)
        run.series[n_series:] = mine
    rename_by_layout(mine)
    layers = _wide_layer_columns(path, [s.raw_name for s in mine])
    has_total = any(x.name == "grad_norm" for x in mine)
    for s in mine:      # a gradient file's column per layer: what its bare name cannot say
        if s.raw_name in layers:
            s.name = "grad_norm/" + s.raw_name.strip()
        elif layers and not has_total and s.raw_name.strip().lower() in WHOLE_MODEL:
            s.name, has_total = "grad_norm", True        # beside the layers' columns, `total` / `global` is the whole model's norm


def _mmengine_eval_rows(series: list[Series]) -> list[Series]:
    """mmengine's vis_data/scalars.json holds the training records ({"loss", "lr", "epoch", "iter", "step"}) and
    the validation ones ({"accuracy/top1", "data_time", "step"}: no epoch, no iter, their step the epoch they
    close) in one stream, told apart by nothing but those keys. A series whose records lack the training
    records' `epoch` (or `iter`) is validation's: named so (val/ prefix), and at the training step that
    ended its epoch; a timing column both kinds print keeps its training points."""
    marker = next((s for s in series if s.raw_name in ("epoch", "iter")), None)
    if marker is None:
        return series
    ends: dict[int, int] = {}                  # epoch -> the last training step in it
    if marker.raw_name == "epoch":
        for e, st in zip(marker.values.tolist(), marker.steps.tolist()):
            if np.isfinite(e) and e == int(e):
                ends[int(e)] = max(ends.get(int(e), st), st)
    out = []
    for s in series:
        evals = ~np.isin(s.locs, marker.locs)
        if s is marker or s.raw_name in ("epoch", "iter", "step") or not evals.any():
            out.append(s)
            continue
        if not evals.all():                    # data_time, time: the training records' part
            k = ~evals
            out.append(replace(s, steps=s.steps[k], values=s.values[k], locs=s.locs[k]))
            continue
        steps = s.steps
        if ends and all(int(x) in ends for x in steps.tolist()):
            steps = np.array([ends[int(x)] for x in steps.tolist()], np.int64)
        out.append(_evaluations(s, steps=steps))
    return out


def _evaluations(s: Series, **changes) -> Series:
    """`s` as a held-out evaluation's series (val/ before a raw name that does not already say its set)."""
    raw = s.raw_name or s.name
    raw = raw if raw.lower().startswith(("val", "test", "eval")) else f"val/{raw}"
    return replace(s, name=normalize(raw), raw_name=raw, **changes)


# A score of a held-out evaluation by its name (accuracy, AUC, F1, AP, mAP, IoU, BLEU ...), as names.normalize spells it
_SCORE_NAME = re.compile(r"(?:^|[/_])(?:accuracy|acc|auc|f1|precision|recall|ap\d*|map\w*|miou|iou|dice|bleu|rouge\w*|top\d)"
                         r"(?:$|[/_])")


def _score_records_held_out(series: list[Series]) -> None:
    """A JSON-lines metrics file whose score records carry no training loss (detectron2's metrics.json: training
    records {"total_loss", "loss_cls", "lr", "iteration"}, evaluation ones {"bbox/AP", "churn/accuracy",
    "iteration"}): a score that never shares a record with the training loss is the evaluation's (named val/...).
    Names that already say their set (val_, train_) keep it."""
    loss = next((s for s in series if s.name == "loss"), None)
    if loss is None or not any(s is not loss and s.name not in ("epoch", "iter", "step", "iteration")
                               and np.isin(s.locs, loss.locs).any() for s in series):
        return      # (a melted table, one metric a row: no record holds two, so none is told apart by them)
    for i, s in enumerate(series):
        raw = (s.raw_name or s.name).lower()
        if s is loss or s.name.startswith("val_") or raw.startswith(("train", "val", "test", "eval")) \
                or not _SCORE_NAME.search(s.name) or np.isin(s.locs, loss.locs).any():
            continue
        series[i] = _evaluations(s)


# A W&B chart export names each column `<run name> - <metric>` ("enc-warmup - grad_norm/encoder")
_RUN_PREFIX = re.compile(r"(.+) - (\S.*)")      # (greedy: a run's name may hold " - ", a metric's seldom does)


def _strip_run_prefix(series: list[Series]) -> None:
    """The metric's own name for the columns of a W&B chart export of one run (every column `<run> - <metric>`,
    one run name): the run's name is no part of what was measured."""
    ms = [_RUN_PREFIX.fullmatch(s.raw_name or "") for s in series]
    if not series or not all(ms) or len({m.group(1) for m in ms if m}) != 1:
        return
    for s, m in zip(series, ms):
        if m:
            s.raw_name = m.group(2)
            s.name = normalize(s.raw_name)


def _read(path: Path, rel: str, run: Run) -> None:
    kind = _cache.pop(_key(path), None)
    if kind is None:
        kind = _detect(path, head_bytes(path, HEAD_BYTES))
        if kind is None:
            run.warnings.append(f"{rel}: not a metric table")
            return
    if kind[0] == "csv":
        _read_csv(path, rel, run, kind[1])
    elif kind[0] == "json_arrow":
        if not _read_json_arrow(path, rel, run, kind[1], kind[2]):
            try:
                doc = json.loads(kind[1], parse_constant=_constant) if len(kind[1]) <= MAX_JSON_SNIFF else None
            except (ValueError, UnicodeDecodeError, RecursionError):
                doc = None
            rows, where, _ = _json_history(doc, "grad" in path.name.lower()) if doc is not None else (None, None, False)
            if rows is None:
                run.warnings.append(f"{rel}: not a metric table")
                return
            _read_json(path, rel, run, rows, where)
    elif kind[0] == "jsonl":
        _read_jsonl(path, rel, run)
    elif kind[0] == "operations":
        _read_operations(path, rel, run)
    else:
        _read_json(path, rel, run, kind[1], kind[2], kind[3])


def _read_csv(path: Path, rel: str, run: Run, delim: str) -> None:
    if _csv_streamed_arrow(path, rel, run, delim) or _csv_ascii_arrow(path, rel, run, delim):
        return
    import pandas as pd  # lazily: ~0.3 s to import, and most runs have no table to parse  # noqa: PLC0415 - heavy; only for this file format
    text = read_text(path, rel, run)
    # the header is the first non-blank line
    lead = len(text) - len(text.lstrip("\r\n"))
    header_line = text.count("\n", 0, lead) + 1
    body_start = text.find("\n", lead)
    if body_start < 0:
        return
    header = split_csv_line(text[lead:body_start].rstrip("\r"), delim)
    if len(header) > MAX_COLUMNS:
        run.warnings.append(f"{rel}:{header_line}: {len(header):,} columns, more than the {MAX_COLUMNS:,} read as "
                            f"metrics; not read as a table")
        return
    body = text[body_start + 1:]
    # a last line without its newline is still being written: keep it only if it is whole
    if body and not body.endswith("\n"):
        cut = body.rfind("\n") + 1
        tail = body[cut:]
        if len(tail.split(delim)) != len(header):
            body = body[:cut]
    if not body or body.isspace():
        return
    if "\r" in body:     # a lone CR would end a row for pandas but not a line for the citations
        body = re.sub(r"\r(?!\n)", " ", body)
    body_b = body.encode("utf-8", "replace")
    raw = np.frombuffer(body_b, dtype=np.uint8)
    ncol = len(header)
    quoted = '"' in body
    if not quoted and _csv_arrow(run, rel, path, body_b, delim, header, header_line, None):
        return              # every line a row: Arrow alone
    nl = _newlines(raw)
    nlines = len(nl) + (0 if body.endswith("\n") else 1)
    fields = None
    if not quoted:  # cells per line from delimiter counts (quotes would hide delimiters)
        dpos = np.flatnonzero(raw == ord(delim))
        ends = np.append(nl, len(raw)) if nlines > len(nl) else nl
        fields = np.diff(np.searchsorted(dpos, ends), prepend=0) + 1
        # a row with more cells is junk, and pandas gives every cell a column: bound the width
        width = min(max(ncol, int(fields.max())), ncol + EXTRA_CELLS)
    else:
        width = ncol + EXTRA_CELLS
    if fields is not None and _csv_arrow(run, rel, path, body_b, delim, header, header_line, fields):
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            df = pd.read_csv(io.StringIO(body), sep=delim, header=None, names=list(range(width)),
                             keep_default_na=False, na_values=[""], skip_blank_lines=False,
                             engine="c", on_bad_lines="warn", low_memory=False)
        except Exception as e:  # the C tokenizer gave up: nothing sensible to keep
            run.warnings.append(f"{rel}:{header_line}: could not be parsed as a table ({type(e).__name__})")
            return
    lines = np.arange(len(df), dtype=np.int64) + header_line + 1
    skipped = [int(m.group(1)) for w in caught for m in [re.search(r"line (\d+)", str(w.message))] if m]
    if skipped:  # pandas dropped these rows: realign rows to their lines
        keep = np.ones(nlines, bool)
        keep[np.array(skipped) - 1] = False
        lines = (np.flatnonzero(keep) + header_line + 1)[:len(df)]
    bad = np.zeros(len(df), bool)
    if fields is not None:
        f = fields[lines - header_line - 1]
        blank = f == 1
        bad |= (f != ncol) & ~blank  # a blank line has one empty "cell": nothing, not junk
    else:
        extra = df.iloc[:, ncol:].notna().any(axis=1).to_numpy() if width > ncol else np.zeros(len(df), bool)
        bad |= extra
    cols = {h: df[j] for j, h in enumerate(header) if j < df.shape[1]}
    _emit(run, rel, path, header, cols, lines, bad, n_skipped=len(skipped),
          first_skipped=min(skipped) + header_line if skipped else None)


def _read_jsonl(path: Path, rel: str, run: Run) -> None:
    data = read_bytes(path, rel, run)
    # Arrow reads the bytes as they are (a 67 MB file: no 35 ms decode and 35 ms encode back);
    # bytes that are not valid UTF-8 go the careful way, which replaces them and says where
    valid = data.isascii()
    if not valid:
        try:
            data.decode("utf-8")
            valid = True
        except UnicodeDecodeError:
            pass
    if valid and _jsonl_arrow(run, rel, path, data):
        return
    text = decode_utf8(data, rel, run)
    del data
    lines = text.split("\n")
    last = None
    if lines[-1] == "":
        lines.pop()
    elif lines:  # no final newline: the last record may still be being written
        last = lines.pop()
    recs, nums, bad_lines = [], [], []
    # each chunk of lines is parsed as one JSON array (one C call); only a chunk holding a broken
    # line is read line by line
    for a in range(0, len(lines), JSONL_CHUNK):
        chunk = lines[a:a + JSONL_CHUNK]
        if all(chunk):
            try:
                recs += json.loads("[" + ",".join(chunk) + "]", parse_constant=_constant)
                nums.append(np.arange(a + 1, a + len(chunk) + 1, dtype=np.int64))
                continue
            except ValueError:
                pass
        got = []
        for i, ln in enumerate(chunk, a + 1):
            if not ln.strip():
                continue
            r = loads_lenient(ln)
            if r is None:
                bad_lines.append(i)
            else:
                recs.append(r)
                got.append(i)
        nums.append(np.array(got, dtype=np.int64))
    lineno = np.concatenate(nums) if nums else np.zeros(0, np.int64)
    if last is not None and last.strip():
        r = loads_lenient(last)
        if r is not None:  # else truncated, not bad
            recs.append(r)
            lineno = np.append(lineno, len(lines) + 1)
    if set(map(type, recs)) - {dict}:
        isdict = np.array([isinstance(r, dict) for r in recs], dtype=bool)
        bad_lines += lineno[~isdict].tolist()
        recs = [r for r, k in zip(recs, isdict) if k]
        lineno = lineno[isdict]
    emit_records(run, rel, path, recs, lineno, sorted(bad_lines))


JSONL_CHUNK = 20_000
# Python's json writes NaN/Infinity; f-strings and other writers print nan/inf
_BARE = re.compile(r"(?<![\w\"])(-?)(nan|inf|infinity)(?![\w\"])", re.I)


def loads_lenient(line: str):
    try:
        return _DEC.decode(line)
    except ValueError:
        pass
    fixed = _BARE.sub(lambda m: m.group(1) + ("NaN" if m.group(2).lower() == "nan" else "Infinity"), line)
    if fixed == line:
        return None
    try:
        return _DEC.decode(fixed.replace("-NaN", "NaN"))
    except ValueError:
        return None


def _read_json(path: Path, rel: str, run: Run, rows, where, beside: bool = False) -> None:
    text = read_text(path, rel, run)
    if beside:     # settings beside the history (_json_history): the file is a config too
        run.texts.append(TextArtifact(path=rel, abspath=path, kind="config", text=text))
    starts = _row_lines(text, where, len(rows), rows)
    a, b = sorted(SUMMARY_KEYS)
    keep = [i for i, r in enumerate(rows) if a not in r and b not in r]
    if len(keep) < len(rows):
        rows = [rows[i] for i in keep]
    lineno = np.asarray(starts, dtype=np.int64)[keep] if len(starts) else np.ones(len(rows), np.int64)
    emit_records(run, rel, path, rows, lineno, [])


def _read_json_arrow(path: Path, rel: str, run: Run, data: bytes, hist) -> bool:
    """_read_json for a log_history that Arrow read (_log_history_arrow): the same series from
    its columns (_emit_arrow). False (nothing done) when some column is not numbers: then
    json.loads and _read_json read it."""
    pa = _arrow()
    leaves: list = []
    for i in range(hist.type.num_fields):
        _struct_leaves(pa, hist.type.field(i).name, hist.field(i), leaves)
    names = [n for n, _ in leaves]
    if len(set(names)) != len(names):
        return False
    n = len(hist)
    m = re.search(rb'"log_history"\s*:\s*\[', data)
    lineno = _row_starts_indented(data, m.end(), n) if m and n else None    # the bytes as they are: no decode
    if lineno is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return False
        lineno = np.asarray(_row_lines(text, "log_history", n) if n else [], dtype=np.int64)
    # HF Trainer's last log_history row is a run summary (SUMMARY_KEYS): not a point
    summary = np.zeros(n, bool)
    for name, c in leaves:
        if name in SUMMARY_KEYS and c.null_count < n:
            summary |= ~c.is_null().to_numpy(zero_copy_only=False)
    cols = [c for _, c in leaves]
    if summary.any():
        if summary[-1] and not summary[:-1].any():     # the usual place: the last row (a view, no copy)
            cols = [c.slice(0, n - 1) for c in cols]
        else:
            keep = pa.array(~summary)
            cols = [c.filter(keep) for c in cols]
        lineno = lineno[~summary]
    return _emit_arrow(pa, run, rel, path, names, cols, lineno, 0, None, bools=True)


def _row_lines(text: str, where, n: int, rows: list | None = None) -> list[int]:
    """Line where each element of the metric list starts (found by decoding element by element)."""
    if where == "columns":  # Keras history: a row is an index into every list
        return [1] * n
    if where in ("layers", "layer_lists"):   # one key per layer: each row at its layer's key
        line_of: dict[str, int] = {}
        i, line = 0, 1
        for km in re.finditer(r'"((?:[^"\\]|\\.)*)"\s*:', text):
            line += text.count("\n", i, km.start())
            i = km.start()
            line_of.setdefault(km.group(1), line)     # the first time a name is a key (other keys: "epoch", "layers")
        if rows is not None:
            return [line_of.get(str(r["layer"]), 1) for r in rows]
        return [1] * n
    if where is None:
        m = re.match(r"\s*\[", text)
    else:
        m = re.search(r'"' + re.escape(where) + r'"\s*:\s*\[', text)
    if not m:
        return [1] * n
    fast = _row_lines_indented(text, m.end(), n)
    if fast is not None:
        return fast
    dec = json.JSONDecoder(parse_constant=_constant)
    i, out = m.end(), []
    ws = re.compile(r"[\s,]*")
    for _ in range(n):
        i = ws.match(text, i).end()
        out.append(i)
        try:
            _, i = dec.raw_decode(text, i)
        except ValueError:
            break
    offs = np.array(out, dtype=np.int64)
    lens = np.fromiter(map(len, text.split("\n")), dtype=np.int64)
    line_starts = np.concatenate(([0], np.cumsum(lens + 1)[:-1]))
    res = np.searchsorted(line_starts, offs, side="right").tolist()
    return res + [res[-1] if res else 1] * (n - len(res))


# ---- the Arrow paths (pyarrow's multi-threaded CSV and JSON readers) -------------------------
# Used when pyarrow imports and the file is regular (CSV without quotes, JSONL of objects); any
# surprise (a type clash, a line Arrow rejects) falls back to the pandas / json paths above,
# which read every odd file the same way they always did.

def _arrow():
    try:
        import pyarrow  # noqa: PLC0415, F401 - optional; heavy, only for a metric table
        import pyarrow.csv  # noqa: PLC0415, F401
        import pyarrow.json  # noqa: PLC0415, F401
        return pyarrow
    except ImportError:
        return None


def _arrow_columns(pa, table, names: list[str]) -> dict:
    """Arrow columns -> what _numeric reads: float arrays for numbers (missing = NaN, a NaN in the
    data = the _NAN sentinel), pandas objects for text (parsed by _numeric as before)."""
    import pandas as pd  # noqa: PLC0415 - only for the rare text column
    out = {}
    for name, col in zip(names, table.columns):
        t = col.type
        if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
            if pa.types.is_boolean(t):
                col = col.cast(pa.float64())
            v = col.to_numpy(zero_copy_only=False)      # read-only when Arrow's own buffer
            if v.dtype != np.float64:
                v = v.astype(np.float64)
            nan = np.isnan(v)
            if col.null_count or nan.any():
                v = v.copy() if not v.flags.writeable else v
                if col.null_count:
                    nulls = col.is_null().to_numpy(zero_copy_only=False)
                    v[nan & ~nulls] = _NAN
                    v[nulls] = np.nan
                else:
                    v[nan] = _NAN
            out[name] = v
        elif pa.types.is_null(t):
            out[name] = np.full(len(col), np.nan)
        else:
            try:
                col = col.cast(pa.string())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass
            out[name] = pd.Series(col.to_pandas(), dtype=object)
    return out


def _ascii_header(data: bytes, delim: str) -> tuple[int, int, list[str]] | None:
    """(bytes of blank lines before the header, offset of the header's '\n', the header's cells) of a
    CSV's bytes; None when there is no whole header line, it is not ASCII, or it has too many cells."""
    lead = len(data) - len(data.lstrip(b"\r\n"))
    body_start = data.find(b"\n", lead)
    if body_start < 0 or not data[lead:body_start].isascii():
        return None
    header = split_csv_line(data[lead:body_start].decode("ascii").rstrip("\r"), delim)
    return None if len(header) > MAX_COLUMNS else (lead, body_start, header)


def _csv_ascii_arrow(path: Path, rel: str, run: Run, delim: str) -> bool:
    """The usual metric CSV (ASCII, no quotes, every line a row) straight from its bytes to
    Arrow: no decoding, no text copy. False (nothing done, no warning) for anything else; the
    text path then reads the file and says what is odd about it."""
    if _arrow() is None:
        return False
    data = read_bytes(path)
    found = _ascii_header(data, delim)
    if found is None:
        return False
    lead, body_start, header = found
    end = len(data)
    if not data.endswith(b"\n"):       # a last line still being written: kept only if whole
        cut = data.rfind(b"\n") + 1
        if not data[cut:].isascii():
            return False
        if len(data[cut:].split(delim.encode())) != len(header):
            end = cut
    if end <= body_start + 1:
        return False
    # ASCII and no quote: looked for in the first MB here (a quoted or non-ASCII file leaves at
    # once); in the rest only when Arrow typed some column as text (a cell of numbers, true/false
    # or nothing holds neither, and no byte of an unrejected row is outside a cell)
    near = min(end, body_start + 1 + SNIFF_BYTES)
    if not data[body_start:near].isascii() or data.find(b'"', body_start + 1, near) >= 0:
        return False

    def ascii_unquoted(plain: bool) -> bool:
        return plain or data.isascii() and data.find(b'"', near, end) < 0

    header_line = data.count(b"\n", 0, lead) + 1
    # a view of the body, not a copy (a 1M-row CSV is 30 MB): Arrow reads any buffer. Without a
    # '\r' in it, Arrow's rows are its '\n' lines one for one once it keeps blank lines (and
    # rejects them, as rows of one cell): no line count needed (a memchr, not a count pass)
    nlines = EVERY_LINE_A_ROW if data.find(b"\r", body_start + 1, end) < 0 else \
        data.count(b"\n", body_start + 1, end) + (0 if data[end - 1] == 10 else 1)
    return _csv_arrow(run, rel, path, memoryview(data)[body_start + 1:end], delim, header, header_line, None,
                      nlines=nlines, verify=ascii_unquoted)


# `nlines` for _csv_arrow: the body has no '\r', so Arrow's rows are its lines when no line is rejected
EVERY_LINE_A_ROW = -1


class _StreamedBody:
    """A CSV body (from `start` to the size the file had when opened) as Arrow's reader pulls it,
    on Arrow's I/O thread (the reading overlaps the parsing, as when Arrow reads a path itself):
    each block is looked at for a '\\r' on the way, and kept for a look after the parse."""

    closed = False

    def __init__(self, f, start: int, size: int):
        f.seek(start)
        self.f, self.left = f, size - start
        self.blocks: list[bytes] = []
        self.cr = False

    def read(self, n: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        b = self.f.read(self.left if n is None or n < 0 else min(n, self.left))
        self.left -= len(b)
        self.cr = self.cr or b"\r" in b
        self.blocks.append(b)
        return b

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        pass


def _csv_streamed_arrow(path: Path, rel: str, run: Run, delim: str) -> bool:
    """_csv_ascii_arrow for the regular file (not gzip, no holes, within what read_bytes reads in
    one go, its last line whole, no '\\r', quote, NUL or non-ASCII byte in its first MB): Arrow
    reads the body from the file while it parses, instead of after read_bytes has read it all.
    The same rows, from the same bytes: a '\\r' met later, or a text column whose cells hold a
    quote, a NUL or a non-ASCII byte, and nothing is done here (False): _csv_ascii_arrow and the
    text path read the file as they always did."""
    if _arrow() is None:
        return False
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 2 or size > MAX_TEXT_BYTES // 2 or has_holes(f.fileno(), size):
                return False
            head = f.read(min(size, SNIFF_BYTES))
            if head[:2] == b"\x1f\x8b" or not head.isascii() or b"\x00" in head or b"\r" in head:
                return False
            f.seek(size - 1)
            if f.read(1) != b"\n":
                return False
            found = _ascii_header(head, delim)
            if found is None:
                return False
            lead, body_start, header = found
            if body_start + 1 >= size or head.find(b'"', body_start + 1) >= 0:
                return False
            body = _StreamedBody(f, body_start + 1, size)

            def as_read(plain: bool) -> bool:
                # (a cell of numbers, true/false or nothing holds no quote, NUL or non-ASCII byte)
                return not body.cr and (plain or all(b.isascii() and b'"' not in b and b"\x00" not in b
                                                     for b in body.blocks))

            return _csv_arrow(run, rel, path, body, delim, header, lead + 1, None, nlines=EVERY_LINE_A_ROW,
                              verify=as_read)
    except OSError:
        return False


def _csv_arrow(run: Run, rel: str, path: Path, body: bytes | memoryview | _StreamedBody, delim: str, header: list[str],
               header_line: int, fields: np.ndarray | None, nlines: int | None = None, verify=None) -> bool:
    """The body of an unquoted CSV through pyarrow: rows with the header's cell count, blank lines
    skipped, the rest counted as bad (as the pandas path counts them). False: not read here.

    fields None: only when every line is a row (no blank line, Arrow rejects none), so the rows
    are the lines one for one; else the caller counts cells per line and asks again. `body` may
    be a memoryview (no copy of a big body); `nlines`: its line count when the caller has it
    (a memoryview cannot count); or a _StreamedBody. `verify(plain)`: called after the parse, plain
    when every column is numbers, true/false or empty (text may hide what the caller has not
    looked for); False: not read here."""
    pa = _arrow()
    ncol = len(header)
    if pa is None or ncol < 2:
        return False
    rejected = []
    try:
        table = pa.csv.read_csv(
            body if isinstance(body, _StreamedBody) else pa.py_buffer(body),
            read_options=pa.csv.ReadOptions(column_names=[f"c{j}" for j in range(ncol)]),
            parse_options=pa.csv.ParseOptions(delimiter=delim, quote_char=False,
                                              ignore_empty_lines=nlines != EVERY_LINE_A_ROW,
                                              invalid_row_handler=lambda row: rejected.append(1) or "skip"),
            convert_options=pa.csv.ConvertOptions(null_values=[""], strings_can_be_null=True,
                                                  quoted_strings_can_be_null=True))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        return False
    if fields is None:
        if nlines is None and not isinstance(body, _StreamedBody):      # (a stream comes with nlines)
            raw = body if isinstance(body, bytes) else bytes(body)
            nlines = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
        if rejected or (nlines != EVERY_LINE_A_ROW and table.num_rows != nlines):
            return False
        badl = np.zeros(0, bool)
        lines = np.arange(header_line + 1, header_line + 1 + table.num_rows, dtype=np.int64)
    else:
        good = fields == ncol
        if table.num_rows != int(good.sum()):
            return False
        badl = ~good & (fields != 1)
        lines = np.flatnonzero(good).astype(np.int64) + header_line + 1
    if verify is not None and not verify(all(pa.types.is_integer(c.type) or pa.types.is_floating(c.type)
                                             or pa.types.is_boolean(c.type) or pa.types.is_null(c.type)
                                             for c in table.columns)):
        return False
    nbad = int(badl.sum())
    first_bad = int(np.flatnonzero(badl)[0]) + header_line + 1 if nbad else None
    if not _emit_arrow(pa, run, rel, path, header, list(table.columns), lines, nbad, first_bad, bools=False):
        cols = _arrow_columns(pa, table, header)
        _emit(run, rel, path, header, cols, lines, np.zeros(len(lines), bool), n_skipped=nbad,
              first_skipped=first_bad)
    return True


def _struct_leaves(pa, name: str, col, out: list) -> None:
    """(a/b name, column) for every leaf of nested struct columns (W&B history rows)."""
    if pa.types.is_struct(col.type):
        col = col.combine_chunks() if hasattr(col, "combine_chunks") else col
        for i in range(col.type.num_fields):
            f = col.type.field(i)
            _struct_leaves(pa, f"{name}/{f.name}", col.field(i), out)
    else:
        out.append((name, col))


def _jsonl_arrow(run: Run, rel: str, path: Path, data: bytes) -> bool:
    """A JSONL file of objects, one per line (its bytes, valid UTF-8), through pyarrow; False when
    Arrow cannot read it as is (bare nan/inf, a broken line, a field that is a number here and
    text there)."""
    pa = _arrow()
    if pa is None:
        return False
    b = np.frombuffer(data, np.uint8)
    nl = _newlines(b)
    if data[:1] == b"{" and data.endswith(b"\n") and bool(np.all(b[nl[:-1] + 1] == 123)):
        # the usual file: every line starts a record (so none is blank); line i is row i
        return _jsonl_arrow_read(pa, run, rel, path, data, np.arange(1, len(nl) + 1, dtype=np.int64))
    starts = np.concatenate(([0], nl + 1))
    ends = np.concatenate((nl, [len(data)]))
    if not data.endswith(b"\n"):        # the last line may still be being written
        last = data[starts[-1]:]
        if last.strip() and not isinstance(loads_lenient(last.decode("utf-8", "replace")), dict):
            data, starts, ends = data[:starts[-1]], starts[:-1], ends[:-1]
    elif len(starts):
        starts, ends = starts[:-1], ends[:-1]
    if not len(starts):
        return False
    # lines that hold a record: the first byte after blanks is '{'
    first = np.minimum(starts, max(len(data) - 1, 0))
    rec = (ends > starts) & (b[first] == ord("{")) if len(data) else np.zeros(0, bool)
    if not rec.any() or ((ends > starts) & ~rec & (b[first] > 32)).any():
        return False                     # a line that is not an object: the careful path says which
    return _jsonl_arrow_read(pa, run, rel, path, data, np.flatnonzero(rec).astype(np.int64) + 1)


def _jsonl_arrow_read(pa, run: Run, rel: str, path: Path, data: bytes, lines: np.ndarray) -> bool:
    """_jsonl_arrow once the lines holding a record are known (1-based, `lines`)."""
    try:
        table = pa.json.read_json(pa.py_buffer(data if data.endswith(b"\n") else data + b"\n"),
                                  read_options=pa.json.ReadOptions(block_size=1 << 22))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError, OverflowError):
        return False
    if table.num_rows != len(lines):
        return False
    leaves: list = []
    for name, col in zip(table.column_names, table.columns):
        _struct_leaves(pa, name, col, leaves)
    names = [n for n, _ in leaves]
    if len(set(names)) != len(names):
        return False
    if not _emit_arrow(pa, run, rel, path, names, [c for _, c in leaves], lines, 0, None, bools=True):
        cols = _arrow_columns(pa, pa.table({n: c for n, c in leaves}), names)
        _emit(run, rel, path, names, cols, lines, np.zeros(len(lines), bool), json_rows=True)
    return True


def _emit_arrow(pa, run: Run, rel: str, path: Path, header: list[str], columns: list, lines: np.ndarray,
                n_skipped: int, first_skipped: int | None, bools: bool) -> bool:
    """_emit for a table of numbers only, straight from Arrow's columns: Arrow keeps missing
    cells (null) apart from NaN values, so no sentinel and no junk mask is needed, and full
    columns share one steps and one lines array. False (nothing done) when some column that
    _emit would read is text: then _emit reads them all."""
    num: dict = {}                        # name -> Arrow column (numbers; converted below, once)
    skip = _bucket_columns(header)
    for h, col in zip(header, columns):
        if h.strip().lower() in CLOCK_COLUMNS or h in skip:
            continue
        t = col.type
        if pa.types.is_boolean(t):
            if not bools:
                continue                  # True/False cells: not a metric (as pandas' bool columns)
            col, t = col.cast(pa.float64()), pa.float64()
        if pa.types.is_null(t):
            continue
        if not (pa.types.is_integer(t) or pa.types.is_floating(t)):
            return False
        if col.null_count == len(col):
            continue
        num[h] = col
    if n_skipped:
        run.warnings.append(f"{rel}:{first_skipped}: {n_skipped} rows not numeric or with the wrong number of "
                            f"cells (first shown), skipped")
    lower = {h.strip().lower(): h for h in num}
    step_col = next((lower[c] for c in STEP_COLUMNS if c in lower), None)
    if step_col is None:
        step_col = next((lower[c] for c in EPOCH_COLUMNS if c in lower), None)
    has_step = None                       # None: every row has a step
    if step_col is not None:
        scol = num[step_col]
        sv = scol.to_numpy(zero_copy_only=False)       # int64 stays int64 until a value needs float
        sp = ~scol.is_null().to_numpy(zero_copy_only=False) if scol.null_count else None
        if sv.dtype.kind in "iu":
            ok = np.ones(len(sv), bool) if sp is None else sp
            steps_all = sv.astype(np.int64, copy=False) if sp is None else np.where(sp, sv, 0).astype(np.int64)
        else:
            ok = np.isfinite(sv) if sp is None else np.isfinite(sv) & sp
            steps_all = np.where(ok, sv, 0).astype(np.int64)
        has_step = None if ok.all() else ok
        dup_steps = bool(np.any(steps_all[1:] == steps_all[:-1]))
    metric_cols = [h for h in num if h != step_col]
    tag = _tb_tag(path) if [h.strip().lower() for h in metric_cols] == ["value"] else None
    for h in metric_cols:
        col = num[h]
        if not col.null_count and has_step is None:
            vals = col.to_numpy(zero_copy_only=False)
            v = vals if vals.dtype == np.float64 else vals.astype(np.float64)
            locs = lines
            steps = steps_all if step_col is not None else np.arange(len(v), dtype=np.int64)
            dup = dup_steps if step_col is not None else False
        else:
            # the rows that hold a value (and a step): the column's non-null values only, not a
            # NaN-filled copy of all its rows (a val_loss every 1,000 rows is a thousandth of them)
            if col.null_count:
                idx = np.flatnonzero(col.is_valid().to_numpy(zero_copy_only=False))
                v = np.array(col.drop_null().to_numpy(zero_copy_only=False), dtype=np.float64)
                if has_step is not None:
                    k = has_step[idx]
                    idx, v = idx[k], v[k]
            elif has_step is not None:    # (always, when the column has no null)
                idx = np.flatnonzero(has_step)
                v = col.to_numpy(zero_copy_only=False)[idx].astype(np.float64, copy=False)
            if not len(idx):
                continue
            locs = lines[idx]
            steps = steps_all[idx] if step_col is not None else np.arange(len(v), dtype=np.int64)
            dup = step_col is not None
        if dup:   # the same value at the same step again (HF repeats 'epoch' in train and eval rows) is one point
            same = (steps[1:] == steps[:-1]) & ((v[1:] == v[:-1]) | (np.isnan(v[1:]) & np.isnan(v[:-1])))
            if same.any():
                keep = np.r_[True, ~same]
                steps, v, locs = steps[keep], v[keep], locs[keep]
        raw = tag or h
        run.series.append(Series(name=normalize(raw), raw_name=raw, steps=steps, values=v, source=rel, locs=locs,
                                 loc_kind=LOC_LINE, step_is_index=step_col is None))
    return True


def _newlines(b: np.ndarray) -> np.ndarray:
    """Offsets of the '\\n' bytes of b (uint8), a block at a time (a block's mask stays in cache:
    ~1.5x faster than one mask of a 67 MB file)."""
    step = 1 << 20
    if len(b) <= step:
        return np.flatnonzero(b == 10)
    return np.concatenate([np.flatnonzero(b[a:a + step] == 10) + a for a in range(0, len(b), step)])


def _row_lines_indented(text: str | bytes, at: int, n: int) -> list[int] | None:
    """_row_lines for a pretty-printed list (json.dump(..., indent=k), as HF Trainer writes
    trainer_state.json): every element starts on a line of its own that holds only spaces and
    then `{` at the first element's column, until a line indented less ends the list. None
    when the text is not laid out so (then each element is decoded to find where it ends).
    `text` may be the file's bytes (no decode and re-encode of a big file)."""
    rows = _row_starts_indented(text, at, n)
    return None if rows is None else rows.tolist()


def _row_starts_indented(text: str | bytes, at: int, n: int) -> np.ndarray | None:
    """_row_lines_indented as an int64 array."""
    head = text[at:at + 4096]
    i0 = at + len(head) - len(head.lstrip())
    raw = isinstance(text, bytes)
    if text[i0:i0 + 1] != (b"{" if raw else "{") or not text.isascii():
        return None
    b = np.frombuffer(text if isinstance(text, bytes) else text.encode("ascii"), np.uint8)
    ls0 = (text.rfind(b"\n", 0, i0) if isinstance(text, bytes) else text.rfind("\n", 0, i0)) + 1
    c = i0 - ls0
    if c == 0 or b[ls0:i0].tobytes().strip(b" "):
        return None
    first = int(np.count_nonzero(b[:ls0] == 10))      # lines before the first element's
    # the lines from ls0 on, a block of the text at a time (its bytes still in cache for the
    # gathers): the element lines up to the first line indented less (the list's end)
    lim = len(b) - c                  # a line starting at or after lim is too short to look at
    out: list[np.ndarray] = []
    got = 0                           # lines looked at so far
    step = 1 << 20
    for a in range(ls0, len(b), step):
        st = _newlines(b[a:a + step]) + (a + 1)
        if a == ls0:
            st = np.concatenate(([ls0], st))
        st = st[:np.searchsorted(st, lim)]
        spaces, row, lead = _line_heads(b, st, c)
        stop = np.flatnonzero(~spaces & (lead != 10) & (lead != 13))
        if stop.size:
            row = row[:stop[0]]
        out.append(np.flatnonzero(row) + got)
        got += len(st)
        if stop.size or len(st) and st[-1] >= lim - 1 or sum(map(len, out)) > n:
            break
    rows = np.concatenate(out) if out else np.zeros(0, np.int64)
    if len(rows) != n:
        return None
    return (rows + first + 1).astype(np.int64)


def _line_heads(b: np.ndarray, st: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per line start in st: its first c bytes all spaces, those then `{`, its first byte."""
    wide = st[:np.searchsorted(st, len(b) - 7)] if c < 8 else st[:0]
    rest = st[len(wide):]
    spaces = np.ones(len(rest), bool)
    for j in range(c):                                      # 1-D gathers, a column at a time
        spaces &= b[rest + j] == 32
    row = spaces & (b[rest + c] == ord("{"))
    lead = b[rest]
    if not len(wide):
        return spaces, row, lead
    # the first 8 bytes of each line as one little-endian word: one gather, not c + 2
    words = np.ndarray((len(b) - 7,), dtype="<u8", buffer=b, strides=(1,))[wide]
    sp = np.uint64(int.from_bytes(b" " * c, "little"))
    spaces_w = (words & np.uint64((1 << (8 * c)) - 1)) == sp
    row_w = (words & np.uint64((1 << (8 * (c + 1))) - 1)) == (sp | np.uint64(ord("{") << (8 * c)))
    lead_w = (words & np.uint64(0xFF)).astype(np.uint8)
    return (np.concatenate((spaces_w, spaces)), np.concatenate((row_w, row)), np.concatenate((lead_w, lead)))


def _flatten(d: dict, prefix: str = "") -> dict:
    """Nested dicts to 'a/b' keys (W&B history rows)."""
    if not any(isinstance(v, dict) for v in d.values()):
        return d if not prefix else {prefix + k: v for k, v in d.items()}
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}/"))
        else:
            out[prefix + k] = v
    return out


def emit_records(run: Run, rel: str, path: Path, recs: list, lineno: np.ndarray, bad_lines: list[int]) -> None:
    if any(isinstance(v, dict) for r in recs[:200] for v in r.values()):
        recs = [_flatten(r) for r in recs]
    if not recs:
        if bad_lines:
            run.warnings.append(f"{rel}:{bad_lines[0]}: {len(bad_lines)} lines not valid JSON objects (first shown), skipped")
        return
    header, cols = _columns(recs)
    _emit(run, rel, path, header, cols, np.asarray(lineno, dtype=np.int64), np.zeros(len(recs), bool),
          n_skipped=len(bad_lines), first_skipped=min(bad_lines) if bad_lines else None, json_rows=True)


def _columns(recs: list[dict]):
    """Column per key: a float array (NaN = missing) when every value is a number, else an
    object Series. C-level map over the records, no Python loop per record."""
    import pandas as pd  # noqa: PLC0415 - heavy; only for this file format
    if len(recs) >= COLUMNS_BY_FRAME:
        return _columns_frame(pd, recs)
    keys = list(dict.fromkeys(chain.from_iterable(recs)))
    cols = {}
    for k in keys:
        try:
            cols[k] = np.fromiter(map(dict.get, recs, repeat(k), repeat(np.nan)), dtype=np.float64, count=len(recs))
        except (TypeError, ValueError):  # strings, lists, None: the slow, careful path
            cols[k] = pd.Series(list(map(dict.get, recs, repeat(k))), dtype=object)
    return [str(k) for k in keys], {str(k): v for k, v in cols.items()}


# From this many records on, the columns come from one pandas DataFrame (its C loop over the
# records beats one pass per key).
COLUMNS_BY_FRAME = 20_000


def _columns_frame(pd, recs: list[dict]):
    """_columns through pandas.DataFrame: the same columns (a bool counts as 0/1, as float() reads it)."""
    df = pd.DataFrame(recs)
    cols = {}
    for k in df.columns:
        c = df[k]
        if c.dtype == bool:
            c = c.astype(np.float64)
        if pd.api.types.is_numeric_dtype(c.dtype):
            cols[str(k)] = c.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            cols[str(k)] = pd.Series(c.to_numpy(dtype=object), dtype=object)
    return [str(k) for k in df.columns], cols


def _numeric(col):
    """(float values with NaN = missing, junk mask) for one column; None if it is not numeric."""
    import pandas as pd  # noqa: PLC0415 - heavy; only for this file format
    if isinstance(col, np.ndarray):
        return col, np.zeros(len(col), bool)
    if col.dtype == bool or col.dtype == object and len(col) and col.map(type).eq(bool).mean() > 0.5:
        return None
    if pd.api.types.is_numeric_dtype(col.dtype):
        return col.to_numpy(dtype=np.float64, na_value=np.nan), np.zeros(len(col), bool)
    present = col.notna().to_numpy()
    if col.dtype == object:  # JSON: numbers, strings, lists mixed
        isnum = col.map(lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)).to_numpy()
        vals = np.where(isnum, col.where(isnum, np.nan).to_numpy(dtype=object), np.nan).astype(np.float64)
        strs = present & ~isnum
        if strs.any():
            conv = pd.to_numeric(col.where(strs).astype("str").where(strs), errors="coerce").to_numpy(dtype=np.float64)
            lit = col.where(strs).astype("str").str.strip().str.lower().isin(("nan", "-nan", "+nan")).to_numpy()
            ok = strs & (~np.isnan(conv) | lit)
            vals = np.where(ok, np.where(lit, _NAN, conv), vals)
            junk = strs & ~ok
        else:
            junk = np.zeros(len(col), bool)
    else:  # text column from CSV (has "nan"/"inf" or junk cells)
        s = col.astype("str")
        conv = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64)
        lit = s.str.strip().str.lower().isin(("nan", "-nan", "+nan")).to_numpy() & present
        vals = np.where(lit, _NAN, conv)
        vals[~present] = np.nan
        junk = present & np.isnan(conv) & ~lit
    nonblank = int(present.sum())
    if nonblank == 0 or (nonblank - int(junk.sum())) < NUMERIC_SHARE * nonblank:
        return None
    return vals, junk


def _tb_tag(path: Path) -> str | None:
    """TensorBoard's CSV download is named run-<run>-tag-<tag>.csv; its one metric column is 'Value'."""
    m = re.search(r"-tag-(.+?)\.csv", path.name)
    return m.group(1) if m else None


def _bucket_columns(header: list[str]) -> set[str]:
    """A W&B chart export's `<run> - <metric>__MIN` / `__MAX` columns (the spread of each sampled
    bucket) beside the `<run> - <metric>` column itself: the same curve again, not metrics."""
    names = set(header)
    return {h for h in header if h.endswith(("__MIN", "__MAX")) and h[:-5] in names}


# A text column naming layers or parameters: its rows are layers, not steps (a per-layer table of
# gradient norms written by a hook: `layer,grad_norm` / `name,grad_mean`), named like layers (names.LAYER_NAME:
# `conv1.weight`, `layer3`, nn.Sequential's `0.weight`).
LAYER_COLUMNS = {"layer", "layer_name", "layers", "name", "param", "param_name", "parameter", "parameter_name",
                 "params", "module", "module_name", "tensor", "weight"}


def _layer_table(run: Run, rel: str, path: Path, header: list[str], cols: dict, numeric: dict,
                 lines: np.ndarray) -> bool:
    """A per-layer table: one `grad_norm/<layer>` series per layer from its gradient column (step:
    its step/epoch column where it has one, else 0: one printing of the table), as the text reader
    reads the same table in a log (textlog/layergrads.py). True when the table is one (its other
    numeric columns are per-layer facts, not curves, and are not read); False to read it as steps."""
    name_col = next((h for h in header if h not in numeric and h.strip().lower() in LAYER_COLUMNS), None)
    if name_col is None:
        return False
    file_grad = "grad" in path.name.lower()
    grad_col = next((h for h in numeric if "grad" in h.lower()), None)
    if grad_col is None and file_grad:
        grad_col = next((h for h in numeric if h.strip().lower() not in STEP_COLUMNS + EPOCH_COLUMNS), None)
    names = ["" if x is None else str(x).strip() for x in cols[name_col]]
    named = [x for x in names if x and x.lower() != "nan"]
    lower = {h.strip().lower(): h for h in numeric}
    step_col = next((lower[c] for c in STEP_COLUMNS + EPOCH_COLUMNS if c in lower), None)
    steps = numeric[step_col][0] if step_col is not None else None
    # parameter-like names (`layer1.weight`, `encoder.layers.0.attn`, `conv3`), mostly distinct
    # (within a step, where the table has steps: a hook writes every layer at every step): a run
    # name or a tag column (`exp1` on every row) is not a list of layers
    rows_of = [(x, steps[i] if steps is not None else 0) for i, x in enumerate(names) if x and x.lower() != "nan"]
    if len(named) < 2 or sum(bool(LAYER_NAME.fullmatch(x)) for x in named) < 0.6 * len(named) \
            or len(set(named)) < 2 or len(set(rows_of)) < 0.3 * len(named):
        return False
    if grad_col is None:
        return True       # per-layer values that are not gradients (weight norms, counts): no curve
    vals = numeric[grad_col][0]
    rows = []
    for i, nm in enumerate(names):
        v = vals[i]
        if not nm or nm.lower() == "nan" or np.isnan(v):
            continue
        st = int(steps[i]) if steps is not None and np.isfinite(steps[i]) and steps[i] != _NAN else 0
        rows.append((st, nm, float(v) if v != _NAN else float("nan"), int(lines[i])))
    run.series.extend(layer_series(rows, rel))
    return True


def _wide_layer_columns(path: Path, metric_cols: list[str]) -> set[str]:
    """A gradient file's columns named after layers (`epoch,conv1,conv2,fc1`: one column per layer, a
    row per step): what normalize() cannot tell from the bare name. Two such columns at least, and
    at least half of the metric columns; a column that names a known metric (loss, lr) is left out."""
    if "grad" not in path.name.lower():
        return set()
    # (a layer's index in its Sequential may follow its name: `conv0(0)`, `conv1(2)`)
    layers = {h for h in metric_cols if LAYER_NAME.fullmatch(_MODULE_INDEX.sub("", h.strip()))
              and normalize(h) not in CANONICAL}
    # ... with its columns that name a layer in a plain word (`fc1,fc2,fc3,head,total`: `head`), never a
    # whole-model column (`total`, `global`) nor a clock, a counter or a clipping figure (`time_s`, `clip_coef`);
    # the epoch and the whole-model columns are no metric columns for the half below
    plain = {h for h in metric_cols if _PLAIN_LAYER.fullmatch(h.strip())}
    counted = [h for h in metric_cols if h.strip().lower() not in WHOLE_MODEL and h.strip().lower() not in EPOCH_COLUMNS]
    if len(layers) < 2 or 2 * len(layers | plain) < len(counted):
        return set()
    return layers | plain


_MODULE_INDEX = re.compile(r"\(\d+\)$")
# The plain words that name a network's part (a module's usual attribute name).
_PLAIN_LAYER = re.compile(r"(?i)(?:lm_|cls_|output_|final_)?(?:head|classifier|embed(?:ding)?s?|encoder|decoder|backbone|"
                          r"neck|stem|pooler|proj(?:ection)?|out(?:put)?|fc|linear|conv|attn|attention|mlp|rnn|lstm|gru)")


# A "long" table names its metric in a column of its own (tbparse's `step,tag,value`, a melted
# DataFrame's `epoch,metric,value`, `key,value,step`): one series per name, never one curve of
# every metric's values in a row.
KEY_COLUMNS = ("tag", "metric", "metric_name", "key", "name", "series", "variable")
# ... and the key columns that make a table of no metric-named header a long table (not "name" / "key": a customer list's
# id,name,value,label is data)
METRIC_KEY_COLUMNS = frozenset({"tag", "metric", "metric_name", "series"})
VALUE_COLUMNS = ("value", "val", "metric_value", "scalar")
MAX_KEYS = 1000


def _long_table(run: Run, rel: str, header: list[str], cols: dict, numeric: dict, lines: np.ndarray,
                good: np.ndarray) -> bool:
    """One series per name of a long table's key column (step: its step/epoch column, else the
    name's own row count). True when the table is one; False to read its columns as metrics."""
    lower_all = {h.strip().lower(): h for h in header}
    key_col = next((lower_all[c] for c in KEY_COLUMNS if c in lower_all and lower_all[c] not in numeric), None)
    if key_col is None:
        return False
    lower = {h.strip().lower(): h for h in numeric}
    val_col = next((lower[c] for c in VALUE_COLUMNS if c in lower), None)
    if val_col is None:
        return False
    import pandas as pd  # noqa: PLC0415 - heavy; only for this file format
    # the names as codes (pandas' hash factorize: no Python step per row; a missing cell is -1)
    codes, uniques = pd.factorize(pd.Series(cols[key_col], copy=False).astype("string").str.strip())
    named = np.array([bool(u) and u.lower() != "nan" for u in map(str, uniques)], bool)
    # a name per metric, each named on several rows (one row per name is a table of final results)
    n_names = int(named.sum())
    if not n_names or n_names > MAX_KEYS or len(codes) < 2 * n_names:
        return False
    step_col = next((lower[c] for c in STEP_COLUMNS + EPOCH_COLUMNS if c in lower), None)
    vals = numeric[val_col][0]
    sv = numeric[step_col][0] if step_col is not None else None
    keep = (codes >= 0) & good & ~np.isnan(vals)
    keep[keep] = named[codes[keep]]
    if sv is not None:
        keep &= np.isfinite(sv) & (sv != _NAN)
    rows = np.flatnonzero(keep)
    by = np.argsort(codes[rows], kind="stable")              # each name's rows, in file order
    cuts = np.flatnonzero(np.diff(codes[rows][by])) + 1
    groups = sorted(np.split(rows[by], cuts), key=lambda g: g[0]) if len(rows) else []
    for idx in groups:                                       # the names in the order the file shows them
        k = str(uniques[codes[idx[0]]])
        v = vals[idx].astype(np.float64)
        v[v == _NAN] = np.nan
        steps = sv[idx].astype(np.int64) if sv is not None else np.arange(len(idx), dtype=np.int64)
        run.series.append(Series(name=normalize(k), raw_name=k, steps=steps, values=v, source=rel,
                                 locs=lines[idx], loc_kind=LOC_LINE, step_is_index=sv is None))
    return True


def _emit(run: Run, rel: str, path: Path, header: list[str], cols: dict, lines: np.ndarray,
          bad: np.ndarray, n_skipped: int = 0, first_skipped: int | None = None, json_rows: bool = False) -> None:
    """Series from columns: one per numeric column except the step column (a per-layer table:
    one per layer, _layer_table)."""
    bad = bad.astype(bool)
    numeric = {}
    skip = _bucket_columns(header)
    for h in header:
        if h.strip().lower() in CLOCK_COLUMNS or h in skip:
            continue
        r = _numeric(cols[h])
        if r is not None:
            numeric[h] = r
            bad |= r[1]
    if _layer_table(run, rel, path, header, cols, numeric, lines) or _long_table(run, rel, header, cols, numeric,
                                                                                   lines, ~bad):
        return
    nbad = int(bad.sum())
    if nbad or n_skipped:
        first = [int(lines[np.flatnonzero(bad)[0]])] if nbad else []
        if first_skipped is not None:
            first.append(first_skipped)
        what = "lines not valid JSON objects or not numeric" if json_rows else "rows not numeric or with the wrong number of cells"
        run.warnings.append(f"{rel}:{min(first)}: {nbad + n_skipped} {what} (first shown), skipped")
    lower = {h.strip().lower(): h for h in numeric}
    step_col = next((lower[c] for c in STEP_COLUMNS if c in lower), None)
    if step_col is None:
        step_col = next((lower[c] for c in EPOCH_COLUMNS if c in lower), None)
    good = ~bad
    if step_col is not None:
        sv = numeric[step_col][0]
        has_step = good & np.isfinite(sv) & (sv != _NAN)
        steps_all = np.where(has_step, sv, 0).astype(np.int64)
    metric_cols = [h for h in numeric if h != step_col]
    tag = _tb_tag(path) if [h.strip().lower() for h in metric_cols] == ["value"] else None
    for h in metric_cols:
        vals = numeric[h][0]
        present = good & ~np.isnan(vals)
        if step_col is not None:
            present &= has_step
            steps = steps_all[present]
        else:
            steps = np.arange(int(present.sum()), dtype=np.int64)
        if not present.any():
            continue
        if present.all():          # a full column: its arrays as they are (series share steps and lines)
            v, locs = vals, lines
        else:
            v, locs = vals[present], lines[present]
        # the same value at the same step again (HF repeats 'epoch' in train and eval rows) is one point
        same = (steps[1:] == steps[:-1]) & (v[1:] == v[:-1])
        if same.any():
            keep = np.r_[True, ~same]
            steps, v, locs = steps[keep], v[keep], locs[keep]
        sent = v == _NAN
        if sent.any():
            v = v.copy() if (v is vals or not v.flags.writeable) else v
            v[sent] = np.nan
        raw = tag or h
        run.series.append(Series(name=normalize(raw), raw_name=raw, steps=steps, values=v,
                                 source=rel, locs=locs, loc_kind=LOC_LINE,
                                 step_is_index=step_col is None))
