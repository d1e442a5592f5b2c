"""DeepXDE's training table, where the values come by position in bracketed lists.

DeepXDE (physics-informed networks) prints, after `Training model...`:

    Step      Train loss                Test loss                 Test metric
    0         [4.50e+01, 3.30e-02]      [4.76e+01, 3.30e-02]      [8.37e-01]
    250       [4.08e-01, 2.89e-06]      [4.43e-01, 2.89e-06]      [1.65e-02]

one list entry per loss term (the PDE residual, each boundary condition) and one per metric given to compile()
(the metric column may be missing or `[]`). Each model.train() prints its own header (Adam then L-BFGS), the steps
running on. The byte scanner reads `key: value` and reads nothing here, or odd things; these lines are read here (the
header found with bytes.find, the rows with one regex over the lines after it, as flower.py and darknet.py do) and the
scanner's reading of them, and of the `Best model at step N:` summary that repeats one row, is dropped by the caller
(assemble.py).

The loss is the sum of a row's terms (DeepXDE's own total: its summary's `train loss` is that sum); NaN and inf are
kept (a NaN term makes the sum NaN). No series per term: the terms have no names in the log (their order is the
order of the PDE's equations and conditions in the script), and a training series with `loss` in its name beside the
total is read by the curve analyzers as a named term of a multi-term loss (curves.loss_terms).

In:  the bytes of a block of a log, its newline offsets, the lines before it and the table open at its start.
Out: `scan_deepxde(data, nl, line0, open_)` -> (rows, the table open at its end: DeepXDEOpen);
     `deepxde_series(rows, rel)` -> `loss`, `val_loss` and one held-out series per metric position (`val_metric`,
     then `val_metric_2`, ...: the name normalize gives the summary's `test metric:`) stepped by the Step column;
     `deepxde_lines(rows)` -> the lines read here.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from mltdbg.analyzers.model import LOC_LINE, Series

_TRIGGER = b"Train loss"
# (a logger's or a rank's prefix before "Step" is allowed: the rows must then carry the same one)
_HEADER = re.compile(rb"(?P<pre>[^\n]*?)Step[ \t]+Train loss[ \t]+Test loss(?:[ \t]+Test metric)?[ \t]*\r?")
_LIST = rb"\[([^\[\]\n]*)\]"
_ROW = rb"(\d+)[ \t]+" + _LIST + rb"[ \t]+" + _LIST + rb"(?:[ \t]+" + _LIST + rb")?[ \t]*\r?(?=\n|\Z)"
_SUMMARY = b"Best model at step "
# How many indented lines after "Best model at step N:" belong to it (train loss, test loss, test metric, and the
# uncertainty's four lines where the model gives one).
SUMMARY_LINES = 8
# A table counts when it has this many rows (a header and one row quoted in prose are no curve).
MIN_ROWS = 2

ROW, HEAD, SUMMARY = 0, 1, 2


class Row(NamedTuple):
    """One line read here: a table's row (ROW), its header (HEAD) or a summary line (SUMMARY; only ROW has values)."""
    kind: int
    table: int                  # the table's number in the log (its header's order)
    step: int
    train: tuple[float, ...]
    test: tuple[float, ...]
    metrics: tuple[float, ...]
    line: int                   # 1-based


_ROW_RES: dict[bytes, re.Pattern] = {}


def _row_re(pre: bytes) -> re.Pattern:
    """A row behind `pre`, from the newline before it (a literal first byte: the regex engine skips to each newline
    with a fast search, where a multi-line `^` tried every byte: ~15 ms a 4 MB block of other lines, not 60)."""
    rx = _ROW_RES.get(pre)
    if rx is None:
        if len(_ROW_RES) >= 64:     # (logs of many prefixes: the cache stays small)
            _ROW_RES.clear()
        rx = _ROW_RES[pre] = re.compile(rb"\n" + re.escape(pre) + _ROW)
    return rx


def _floats(b: bytes) -> tuple[float, ...] | None:
    """A printed list's numbers ("4.50e+01, nan"), None when one is no number."""
    b = b.strip()
    if not b:
        return ()
    try:
        return tuple(float(x) for x in b.split(b","))
    except ValueError:
        return None


# the table open at a block's end: its header's prefix, its number, and how many lines its summary may still take
# at the next block's start (0: none begun)
DeepXDEOpen = tuple[bytes, int, int]


def scan_deepxde(data: bytes, nl: np.ndarray, line0: int,
                 open_: DeepXDEOpen | None) -> tuple[list[Row], DeepXDEOpen | None]:
    """The table lines of one block. `open_`: the table whose header came in an earlier block (its rows may go on
    here), None when none; returned for the next block."""
    heads = []      # (offset of the header line's start, offset after its line, prefix)
    at = data.find(_TRIGGER)
    while at >= 0:
        ls = data.rfind(b"\n", 0, at) + 1
        le = data.find(b"\n", at)
        le = len(data) if le < 0 else le
        m = _HEADER.fullmatch(data, ls, le)
        if m is not None:
            heads.append((ls, le + 1, m.group("pre")))
        at = data.find(_TRIGGER, le)
    if not heads and open_ is None:
        return [], None
    out: list[Row] = []

    def line_of(offset: int) -> int:
        return int(np.searchsorted(nl, offset)) + line0 + 1

    n = open_[1] if open_ is not None else -1
    parts = [(0, open_[0], n)] if open_ is not None else []
    for ls, after, pre in heads:
        n += 1
        out.append(Row(HEAD, n, -1, (), (), (), line_of(ls)))
        parts.append((after, pre, n))
    ends = [h[0] for h in heads] + [len(data)]
    if open_ is None:
        ends = ends[1:]
    left = 0
    if open_ is not None and open_[2]:      # a summary that the block before ended inside
        left = _summary(data, nl, line0, -1, open_[2], ends[0], open_[1], out)
    for (start, pre, table), end in zip(parts, ends):
        if start >= end:
            continue
        # (the part's first line from the newline before it; the block's first line has none)
        first = _row_re(pre).match(b"\n" + data[:data.find(b"\n") + 1 or len(data)]) if start == 0 else None
        for m in ([first] if first is not None else []) + list(_row_re(pre).finditer(data, max(start - 1, 0), end)):
            train, test = _floats(m.group(2)), _floats(m.group(3))
            metrics = _floats(m.group(4)) if m.group(4) is not None else ()
            if not train or not test or metrics is None:
                continue
            out.append(Row(ROW, table, int(m.group(1)), train, test, metrics,
                           line0 + 1 if m is first else line_of(m.start() + 1)))
        # the summary after a table ("Best model at step N:" and its indented lines) repeats one of its rows
        at = data.find(_SUMMARY, start, end)
        while at >= 0:
            k = int(np.searchsorted(nl, at))
            out.append(Row(SUMMARY, table, -1, (), (), (), k + line0 + 1))
            left = _summary(data, nl, line0, k, SUMMARY_LINES, end, table, out)
            at = data.find(_SUMMARY, at + len(_SUMMARY), end)
    out.sort(key=lambda r: r.line)
    return out, (parts[-1][1], parts[-1][2], left) if parts else None


def _summary(data: bytes, nl: np.ndarray, line0: int, k: int, left: int, end: int, table: int,
             out: list[Row]) -> int:
    """The indented lines after line k (0-based in the block; -1: from the block's first line), at most `left`
    of them, before `end`, into `out`: how many it may still take in the next block when the block ends first."""
    for j in range(k + 1, k + 1 + left):
        s = int(nl[j - 1]) + 1 if 0 < j <= len(nl) else 0 if j == 0 else len(data)
        if s >= len(data):
            return k + 1 + left - j
        if s >= end or data[s:s + 1] not in (b" ", b"\t"):
            break
        out.append(Row(SUMMARY, table, -1, (), (), (), j + line0 + 1))
    return 0


def _kept(rows: list[Row]) -> list[Row]:
    """The rows of the tables of MIN_ROWS rows or more, a row that repeats the one before it (a second stage's first
    row at the step the first stage ended on, same values) left out."""
    count: dict[int, int] = {}
    for r in rows:
        if r.kind == ROW:
            count[r.table] = count.get(r.table, 0) + 1
    out: list[Row] = []
    for r in rows:
        if r.kind != ROW or count[r.table] < MIN_ROWS:
            continue
        if out and r.step == out[-1].step and all(np.array_equal(a, b, equal_nan=True) for a, b in zip(r[3:6], out[-1][3:6])):
            continue
        out.append(r)
    return out


def deepxde_series(rows: list[Row], rel: str) -> list[Series]:
    kept = _kept(rows)
    if len(kept) < MIN_ROWS:
        return []
    steps = np.array([r.step for r in kept], dtype=np.int64)
    locs = np.array([r.line for r in kept], dtype=np.int64)
    # (a plain sum: NaN in a term makes the total NaN, inf stays inf)
    out = [Series(name="loss", raw_name="Train loss", steps=steps, values=np.array([sum(r.train) for r in kept]),
                  source=rel, locs=locs, loc_kind=LOC_LINE),
           Series(name="val_loss", raw_name="Test loss", steps=steps, values=np.array([sum(r.test) for r in kept]),
                  source=rel, locs=locs, loc_kind=LOC_LINE)]
    for k in range(max(len(r.metrics) for r in kept)):
        have = [i for i, r in enumerate(kept) if len(r.metrics) > k]
        if len(have) < MIN_ROWS:
            continue
        name, raw = ("val_metric", "Test metric") if k == 0 else (f"val_metric_{k + 1}", f"Test metric [{k + 1}]")
        out.append(Series(name=name, raw_name=raw, steps=steps[have],
                          values=np.array([kept[i].metrics[k] for i in have], dtype=np.float64), source=rel,
                          locs=locs[have], loc_kind=LOC_LINE))
    return out


def deepxde_lines(rows: list[Row]) -> set[int]:
    """The lines deepxde_series reads, with their tables' headers and summaries (the scanner's reading of them is
    dropped); none when it reads nothing."""
    kept = _kept(rows)
    if len(kept) < MIN_ROWS:
        return set()
    tables = {r.table for r in kept}
    return {r.line for r in rows if r.table in tables}
