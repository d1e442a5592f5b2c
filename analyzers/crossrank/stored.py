"""The cross-rank view as a plain JSON record (kept in a session's diagnosis) and back.

In:  a `RankView` (`view_record`), or such a record read back from a session (`view_from_record`).
Out: `view_record(view) -> dict`: the finding, notes, roles and per-rank facts of up to MAX_ROWS rows
     (cited lines as {source, line, text, time}, texts capped at TEXT_MAX characters) and the
     step-versus-time samples of the CHART_ROWS rows a chart draws first (at most CHART_SAMPLES points
     each); `view_from_record(rec) -> RankView | None` rebuilds a view a table and chart can draw (None
     for a missing, malformed or newer record). A resumed session has no live Run to rebuild it from.
"""
from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from mltdbg.analyzers.crossrank.records import Loc, RankRow, RankView, Stream

VERSION = 1
# Rows kept (a 1,000-rank job's table is summed up past the first rows anyway; the TUI draws 16).
MAX_ROWS = 256
# Rows whose step/time samples are kept (the chart draws 6: the culprit, then the lowest last steps).
CHART_ROWS = 8
CHART_SAMPLES = 100
TEXT_MAX = 300


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def _int(x: Any) -> int | None:
    return int(x) if isinstance(x, int) and not isinstance(x, bool) else None


def _loc(loc: Loc | None) -> dict | None:
    if loc is None:
        return None
    return {"source": loc.source, "line": loc.line, "text": loc.text.strip()[:TEXT_MAX], "time": _num(loc.time),
            "step": loc.step}


def _unloc(d: Any) -> Loc | None:
    if not isinstance(d, dict) or not isinstance(d.get("source"), str) or _int(d.get("line")) is None:
        return None
    return Loc(d["source"], int(d["line"]), str(d.get("text") or "")[:TEXT_MAX], _num(d.get("time")), _int(d.get("step")))


def _chart_order(rows: list[RankRow]) -> list[RankRow]:
    return sorted((r for r in rows if len(r.steps) and np.isfinite(r.times).any()),
                  key=lambda r: (r.role != "culprit", r.last_step.step if r.last_step else 0, r.rank or 0))


def view_record(view: RankView | None) -> dict | None:
    """The record of a view (None for None)."""
    if view is None:
        return None
    charted = {id(r) for r in _chart_order(view.rows)[:CHART_ROWS]}
    rows = []
    for r in view.rows[:MAX_ROWS]:
        d: dict[str, Any] = {
            "rank": r.rank, "node": r.stream.node, "local_rank": r.stream.local_rank, "sources": r.stream.sources[:4],
            "role": r.role, "why": r.why, "n_lines": r.n_lines, "last_time": _num(r.last_time),
            "last_step": _loc(r.last_step), "last_line": _loc(r.last_line), "first_error": _loc(r.first_error),
            "error_kind": r.error_kind, "last_op": r.last_op, "last_seq": r.last_seq, "exit_code": r.exit_code,
            "signal": r.signal}
        if id(r) in charted:
            ok = np.isfinite(r.times)
            steps, times = r.steps[ok], r.times[ok]
            if len(steps) > CHART_SAMPLES:
                idx = np.unique(np.linspace(0, len(steps) - 1, CHART_SAMPLES).astype(np.int64))
                steps, times = steps[idx], times[idx]
            d["steps"], d["times"] = [int(x) for x in steps], [round(float(x), 3) for x in times]
        rows.append(d)
    out = {"version": VERSION, "layout": view.layout, "world_size": view.world_size, "missing": list(view.missing),
            "sentence": view.sentence, "reason": view.reason, "notes": list(view.notes),
            "ordering_uncertain": view.ordering_uncertain, "n_rows": len(view.rows), "rows": rows,
            "culprit": view.culprit.label if view.culprit else None}
    return json.loads(json.dumps(out, default=_plain))     # numpy numbers -> plain ones, checked serialisable


def _plain(x: Any) -> Any:
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x) if math.isfinite(float(x)) else None
    return str(x)


def view_from_record(rec: Any) -> RankView | None:
    """A drawable view from a record; None when there is none or it is not one this version reads."""
    if not isinstance(rec, dict) or rec.get("version") != VERSION or not isinstance(rec.get("rows"), list):
        return None
    rows: list[RankRow] = []
    for d in rec["rows"]:
        if not isinstance(d, dict):
            continue
        rank, local = _int(d.get("rank")), _int(d.get("local_rank"))
        node = d.get("node") if isinstance(d.get("node"), str) else None
        st = Stream(key=(node or "", rank if rank is not None else local), rank=rank, node=node, local_rank=local)
        r = RankRow(st, n_lines=_int(d.get("n_lines")) or 0, last_step=_unloc(d.get("last_step")),
                    last_line=_unloc(d.get("last_line")), last_time=_num(d.get("last_time")),
                    first_error=_unloc(d.get("first_error")), role=str(d.get("role") or "unknown"),
                    why=str(d.get("why") or ""), last_op=d.get("last_op") if isinstance(d.get("last_op"), str) else None,
                    last_seq=_int(d.get("last_seq")), exit_code=_int(d.get("exit_code")),
                    signal=d.get("signal") if isinstance(d.get("signal"), str) else None,
                    error_kind=d.get("error_kind") if isinstance(d.get("error_kind"), str) else None)
        steps, times = d.get("steps"), d.get("times")
        if isinstance(steps, list) and isinstance(times, list) and len(steps) == len(times):
            try:
                r.steps = np.asarray(steps, dtype=np.int64)
                r.times = np.asarray(times, dtype=np.float64)
            except (TypeError, ValueError):
                pass
        rows.append(r)
    if not rows:
        return None
    notes = [str(n) for n in rec.get("notes") or [] if isinstance(n, str)]
    more = _int(rec.get("n_rows"))
    if more is not None and more > len(rows):
        notes.append(f"{more - len(rows)} more ranks were in the live view; the session keeps the first {len(rows)}")
    view = RankView(rows=rows, layout=str(rec.get("layout") or "?"), world_size=_int(rec.get("world_size")),
                    missing=[x for x in rec.get("missing") or [] if isinstance(x, int)],
                    reason=str(rec.get("reason") or ""), sentence=str(rec.get("sentence") or ""), notes=notes,
                    ordering_uncertain=bool(rec.get("ordering_uncertain")))
    view.culprit = next((r for r in rows if r.role == "culprit"), None)
    view.victims = [r for r in rows if r.role == "victim"]
    return view
