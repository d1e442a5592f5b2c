"""Metric tables inside a log: whitespace-aligned (fastai's per-epoch table, a printed DataFrame,
YOLOv5's `Epoch gpu_mem box obj cls` rows) and, in a log of at most EXTRA_TABLES_BYTES, delimited
by '|' or tabs with headers of several words (HF Trainer's table as pasted from a notebook,
`| Epoch | Training Loss | Validation Loss |`, markdown's `|---|` rule skipped; skorch's and tabulate's
rule of dashes under a whitespace-aligned header skipped too; rich's boxed tables read as such, their box-drawing
characters taken as bars and dashes).

In:  the bytes of a log and the offsets of its newlines.
Out: `read_tables(data, rel, nl)` -> one Series per numeric column (step = the epoch column,
     else the row index; locs = 1-based line numbers); `scan_tables` and
     `tables_series` do the same a block of a big log at a time (a table whose rows run past a
     block goes on in the next). Tables of one log with the same header are one table: YOLOv5
     prints its header again before each epoch's one row.
"""
from __future__ import annotations

import re

import numpy as np

from mltdbg.analyzers.model import LOC_LINE, Series
from mltdbg.analyzers.names import layout_names, normalize


# A header of a whitespace-aligned table pads its cells: "epoch     train_loss  valid_loss".
_TABLE_TRIGGER = b"loss  "
_TABLE_HEADER = re.compile(rb"[ \t]*[A-Za-z_][\w/.\-]*(?:[ \t]{2,}[A-Za-z_][\w/.\-]*)+[ \t]*\Z")
MAX_TABLE_HEADERS = 200  # trigger hits examined per file (a table header is printed once or per epoch)
# More header shapes looked for in a log (or block) of at most this many bytes: a delimited header
# ("Loss |", "Loss\t") or a whitespace one led by "Epoch" ("Epoch   gpu_mem   box"). Each is one
# more pass over the bytes (~0.5 ms per MB), spent on what posts and short logs hold, not on every
# 4 MB block of a big log.
EXTRA_TABLES_BYTES = 1024 * 1024
_EXTRA_TRIGGERS = (b"oss |", b"oss\t", b"OSS |", b"OSS\t", b"poch  ", b"POCH  ")
# ... and a header whose names are one space apart, led by its step column (fastai 0.7's
# "epoch trn_loss val_loss accuracy", a hand-printed history). One space also separates the words
# of prose, so the step column must come first and the rows below must carry the same count of
# cells, numbers in most (as any table's rows).
_SPACED_HEADER = re.compile(rb"(?im)^[ \t]*(?:epochs?|steps?|iters?|iterations?|global_step)"
                            rb"(?:[ \t]+[A-Za-z_][\w/.\-]*)+[ \t]*\r?$")
# ... looked for only in a log of at most this many bytes (a post's pasted history; the search tries
# every line start, ~12 ms per MB, which a big log's blocks should not pay)
SPACED_HEADER_BYTES = 65536
_DELIMITED_HEADER = re.compile(rb"[ \t|]*[A-Za-z_][\w/.\- ]*(?:[ \t]*[|\t][ \t]*[A-Za-z_][\w/.\- ]*)+[ \t|]*\Z")
_RULE = re.compile(rb"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*\Z")
# ... and the rule of dashes that skorch, tabulate's "simple" format and R print under a whitespace-aligned header,
# one run of dashes per column ("-------  ------------  -----------")
_WS_RULE = re.compile(rb"[ \t]*-{3,}(?:[ \t]+-{3,})*[ \t]*\Z")
_EPOCH_OF = re.compile(rb"(\d+)/\d+\Z")     # "3/299": the epoch counter of YOLOv5's rows
# A progress bar after a row's cells: YOLOv5/v8 end each epoch's row with its tqdm bar
# ("640: 100%|##########| 229/229 [01:10<00:00, 3.25it/s]"); the row is the part before it.
_TQDM_TAIL = re.compile(rb":?[ \t]+\d{1,3}%\|.*\Z")
# A table's step column, by name, in this order of preference (_series_of); the first column of a
# delimited metrics table must be one of them (or a plural / global spelling): what its rows step along.
_STEP_COLUMNS = ("epoch", "step", "iteration", "iter")
_ROW_AXES = frozenset(_STEP_COLUMNS) | {"steps", "epochs", "global step", "global_step"}


def _triggers(data: bytes):
    """Offsets of the table triggers in data, in order."""
    small = len(data) <= EXTRA_TABLES_BYTES
    needles = (_TABLE_TRIGGER,) + (_EXTRA_TRIGGERS if small else ())
    hits = [m.start() for nd in needles for m in re.finditer(re.escape(nd), data)]
    if len(data) <= SPACED_HEADER_BYTES:
        hits += [m.start() for m in _SPACED_HEADER.finditer(data)]
    return sorted(hits)


SMALL_FIND_BYTES = 65536


def has_trigger(data: bytes) -> bool:
    """`_TABLE_TRIGGER in data` (or, in at most EXTRA_TABLES_BYTES, one of the other header
    shapes), by whole-array compares: bytes.find with a needle that ends in a space (the most
    common byte of a log) skips little and cost ~10 ms per 4 MB block."""
    if len(data) <= EXTRA_TABLES_BYTES and any(nd in data for nd in _EXTRA_TRIGGERS):
        return True
    if len(data) <= SPACED_HEADER_BYTES and _SPACED_HEADER.search(data):
        return True
    if len(data) <= SMALL_FIND_BYTES:     # a small file's few KB: the plain search is quicker
        return _TABLE_TRIGGER in data
    b = np.frombuffer(data, np.uint8)
    n = len(b) - len(_TABLE_TRIGGER) + 1
    if n <= 0:
        return False
    at = np.flatnonzero(b[:n] == _TABLE_TRIGGER[0])
    for j in range(1, len(_TABLE_TRIGGER)):
        at = at[b[at + j] == _TABLE_TRIGGER[j]]
    return at.size > 0


# Box-drawing characters (U+2500-U+257F, UTF-8 e2 94 xx / e2 95 xx), as rich's and tabulate's boxed tables draw them
# ("┃ epoch ┃ train_loss ┃", "│     1 │     1.7931 │", "├───────┼────────────┤"): the horizontal strokes read as a
# markdown rule's dashes, every other one as a cell bar, each in the same three bytes (offsets and lines stay put).
_BOX = re.compile(rb"\xe2[\x94\x95][\x80-\xbf]")
_BOX_HORIZONTAL = frozenset(b"\xe2\x94" + bytes([c]) for c in (0x80, 0x81, 0x84, 0x85, 0x88, 0x89)) | \
    frozenset(b"\xe2\x95" + bytes([c]) for c in (0x8c, 0x8d, 0x90))


def box_as_pipes(data: bytes) -> bytes:
    """`data` with each box-drawing character as three ASCII bytes: '---' for a horizontal stroke, '|  ' for the
    rest."""
    return _BOX.sub(lambda m: b"---" if m.group(0) in _BOX_HORIZONTAL else b"|  ", data)


def _float_or_none(cell: bytes):
    try:
        return float(cell)
    except ValueError:
        if cell.endswith(b"%"):     # a share printed in percent ("86.9%"), kept on its own scale as printed
            try:
                return float(cell[:-1])
            except ValueError:
                return None
        m = _EPOCH_OF.match(cell)
        return float(m.group(1)) if m else None


def _cells(line: bytes, delim: bytes | None) -> list[bytes]:
    """A row's cells: split on whitespace, or on '|' / tab (outer pipes of a markdown row dropped)."""
    if delim is None:
        return line.split()
    # (spaces only: a tab row's empty last cell is a cell)
    parts = [c.strip() for c in line.strip(b" \r" if delim == b"\t" else None).split(delim)]
    if delim == b"|" and parts and parts[0] == b"":
        parts = parts[1:]
    if delim == b"|" and parts and parts[-1] == b"":
        parts = parts[:-1]
    return parts


def read_tables(data: bytes, rel: str, nl: np.ndarray) -> list[Series]:
    """Whitespace-aligned metric tables inside a log: fastai's per-epoch table, a printed
    pandas DataFrame of the history. One series per numeric column; step = the epoch column,
    else the row index. Rows end at the first line that is not a row of the table."""
    closed, open_table = scan_tables(data, rel, nl)
    return tables_series(closed, rel, open_table)


def scan_tables(data: bytes, rel: str, nl: np.ndarray, line0: int = 0, carry: dict | None = None,
                trigger: bool | None = None):
    """read_tables over one block of a log that is read a block at a time.

    `line0`: lines before this block; `carry`: the table whose rows ran to the end of the
    previous block (its rows continue at the start of this one). Returns (series of the tables
    that ended in this block, the table still open at its end or None); tables_series() turns
    the log's closed tables and its last open one into series.
    `trigger`: has_trigger(data), when the caller has it."""
    out: list[dict] = []
    if b"\xe2\x94" in data or b"\xe2\x95" in data:
        data = box_as_pipes(data)
        trigger = None
    if carry is not None:
        pos, line = _rows(data, 0, carry["names"], carry["rows"], carry["line"], carry.get("delim"))
        if pos < len(data):
            out.append(close_table(carry))
            carry = None
        else:
            carry["line"] = line
            return out, carry
    if not (has_trigger(data) if trigger is None else trigger):
        return out, None
    seen = set()
    for k, at in enumerate(_triggers(data)):
        if k >= MAX_TABLE_HEADERS:
            break
        ls = data.rfind(b"\n", 0, at) + 1
        if ls in seen:
            continue
        seen.add(ls)
        le = data.find(b"\n", at)
        le = len(data) if le < 0 else le
        header = data[ls:le].rstrip(b"\r")
        delim = b"|" if b"|" in header else b"\t" if b"\t" in header.strip() else None
        if not (_DELIMITED_HEADER if delim else _TABLE_HEADER).match(header) and not (
                delim is None and len(data) <= SPACED_HEADER_BYTES and _SPACED_HEADER.match(header)):
            continue
        names = [h.decode("ascii", "replace") for h in _cells(header, delim)]
        if len(names) < 2 or not all(names):
            continue
        if delim is not None and names[0].strip().lower() not in _ROW_AXES and not (
                "loss" in names[0].lower() and any(n.strip().lower() in _ROW_AXES for n in names[1:3])):
            continue   # a comparison table (one row per model or setting) is no curve (a model card's
            #            "| Training Loss | Epoch | Step | Validation Loss |" is one: a loss, then its axes)
        line = line0 + int(np.searchsorted(nl, ls)) + 1
        table = {"names": names, "rows": [], "line": line, "delim": delim}
        pos, table["line"] = _rows(data, le + 1, names, table["rows"], line, delim)
        if pos >= len(data) and le < len(data):   # rows run to the end of the block: may go on
            return out, table
        out.append(close_table(table))
    return out, None


def _rows(data: bytes, pos: int, names: list[str], rows: list, line: int,
          delim: bytes | None = None) -> tuple[int, int]:
    """Append the table rows found from `pos` on; (offset where they stop, last line number)."""
    while pos < len(data):
        e = data.find(b"\n", pos)
        e = len(data) if e < 0 else e
        raw = data[pos:e].rstrip(b"\r")
        if b"\r" in raw:            # a progress line rewritten in place: its last state is the row
            raw = raw.rsplit(b"\r", 1)[1]
        if delim is None and b"%|" in raw:
            raw = _TQDM_TAIL.sub(b"", raw)
        rule = _RULE if delim == b"|" else _WS_RULE if delim is None else None
        if not rows and rule is not None and rule.match(raw):    # the rule under the header (markdown's, skorch's)
            line += 1
            pos = e + 1
            continue
        cells = _cells(raw, delim)
        if len(cells) == len(names) + 1 and delim is None:   # pandas prints its index first
            cells = cells[1:]
        vals = [_float_or_none(c) for c in cells] if len(cells) == len(names) else []
        if not vals or sum(v is not None for v in vals) * 2 < len(vals):
            return pos, line
        line += 1
        rows.append((line, vals))
        pos = e + 1
    return pos, line


def close_table(table: dict) -> dict:
    """One finished table in compact form: its header, line numbers and a rows x columns array."""
    rows = table["rows"]
    vals = np.array([[np.nan if v is None else v for v in r[1]] for r in rows], dtype=np.float64) \
        if rows else np.empty((0, len(table["names"])))
    return {"names": table["names"], "locs": np.array([r[0] for r in rows], dtype=np.int64), "vals": vals}


def tables_series(tables: list[dict], rel: str, open_table: dict | None = None) -> list[Series]:
    """The series of a log's closed tables and of the one still open at its end (scan_tables).
    Tables with the same header are joined in file order (YOLOv5 prints its header before each
    epoch's row); a table of fewer than two rows gives none."""
    merged: dict[tuple, list[dict]] = {}
    for t in tables + ([close_table(open_table)] if open_table else []):
        merged.setdefault(tuple(t["names"]), []).append(t)
    out = []
    for names, parts in merged.items():
        locs = np.concatenate([t["locs"] for t in parts])
        if len(locs) < 2:
            continue
        vals = np.concatenate([t["vals"] for t in parts])
        out += _series_of(list(names), locs, vals, rel)
    return out


def _series_of(names: list[str], locs: np.ndarray, vals: np.ndarray, rel: str) -> list[Series]:
    out = []
    cols = {n: vals[:, j] for j, n in enumerate(names)}
    lower = {n.lower(): n for n in names}
    # the first step column whose values are all whole numbers (a model card's Epoch of 0.27, 0.53 beside its Step)
    step_col = next((lower[c] for c in _STEP_COLUMNS if c in lower and np.isfinite(cols[lower[c]]).all()
                     and (cols[lower[c]] == np.round(cols[lower[c]])).all()), None) \
        or next((lower[c] for c in _STEP_COLUMNS if c in lower), None)
    if step_col is not None and np.isfinite(cols[step_col]).all():
        steps, is_index = cols[step_col].astype(np.int64), False
    else:
        step_col, steps, is_index = None, np.arange(len(locs), dtype=np.int64), True
    by_layout = layout_names(names)
    for n, v in cols.items():
        if n == step_col or np.isnan(v).all() or n.strip().lower() in _ROW_AXES:
            continue    # (a time column, "00:01", is not a metric; nor are the other step columns, a card's Step)
        name = by_layout.get(n) or normalize(n)
        out.append(Series(name=name, raw_name=n, steps=steps, values=np.ascontiguousarray(v), source=rel,
                          locs=locs, loc_kind=LOC_LINE, step_is_index=is_index))
    return out
