"""Data files posted with a run: a CSV/TSV of features or samples (not a metric table), and numpy
arrays (.npy/.npz, scanned by readers/npdata.py).

In:  the run's text artifacts named *.csv / *.tsv (the tabular reader keeps a table whose columns
     name no metric or step as text: a dataset, not a log).
Out: `data:missing_values` when a printed `df.isnull().sum()` counts missing values in a column (any
     text artifact), when a printed `df.describe()` or `df.info()` counts fewer values in one column than
     in the others (a count is of the values that are not NaN), or when a column that otherwise holds numbers has cells a float parser
     makes NaN or inf: empty, "?", "NA", "nan", "null", "inf", ... (the UCI auto-mpg "?" is the
     classic). Evidence: the first such cell's line, quoted. Strength 0.7 for placeholder words
     and inf, 0.5 for empty cells only (a blank is sometimes meant as 0).

     `data:nonfinite` when a float array of a .npy/.npz holds NaN/inf rows: evidence names the file,
     the array and its first such row (`metric` "row N" or "KEY: row N", re-read by the verifier).

Bounded: at most MAX_ROWS rows of a file are looked at (the csv module, one pass).
"""
from __future__ import annotations

import csv
import re
from collections import Counter
from functools import cache, partial
from typing import Callable

from mltdbg.analyzers.model import ArrayScan, Evidence, Run, Signal
from mltdbg.analyzers.readers.npdata import row_label
from mltdbg.analyzers.readers.tabular import DELIMITERS
from mltdbg.analyzers.tracebacks import line_quote

MAX_ROWS = 200_000
# Cells that become NaN/inf when the column is parsed as numbers (compared lower-cased, stripped).
PLACEHOLDERS = frozenset({"?", "na", "n/a", "nan", "null", "none", "missing", "#n/a", "-", "--",
                          "inf", "-inf", "+inf", "infinity", "-infinity"})


def _number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return s.lower().lstrip("+-") not in ("nan", "inf", "infinity")


def _delimiter(lines: list[str]) -> str | None:
    """The delimiter that splits (nearly) every one of the first rows into the same number (>= 2) of cells."""
    best = None
    for d in DELIMITERS:
        rows = [r for r in csv.reader(lines[:40], delimiter=d) if r]
        if not rows:
            continue
        n, same = Counter(len(r) for r in rows).most_common(1)[0]
        if n >= 2 and same >= 0.8 * len(rows) and len(rows[0]) == n and (best is None or n > best[1]):
            best = (d, n)
    return best[0] if best else None


def data_table_signals(run: Run) -> list[Signal]:
    out: list[Signal] = [_nonfinite_array(a) for a in run.arrays[:20]]
    for art in run.texts:
        if art.kind != "code" and "dtype: int64" in art.text:
            s = _missing_counts(art.path, art.text)
            if s is not None:
                out.append(s)
                continue
        rows = cache(partial(_transposed_rows, art.text))     # (read by both, searched once)
        if art.kind != "code" and ("non-null" in art.text or ("count" in art.text and "std" in art.text)):
            s = _summary_counts(art.path, art.text, rows)
            if s is not None:
                out.append(s)
                continue
        if art.kind != "code" and "std" in art.text and "mean" in art.text:
            s = _scale_spread(art.path, art.text, rows)
            if s is not None:
                out.append(s)
        if not art.path.lower().removesuffix(".gz").endswith((".csv", ".tsv")):
            continue
        s = _missing_values(art.path, art.text)
        if s is not None:
            out.append(s)
    return out


# pandas' `df.isnull().sum()` printed: one "column  count" line per column, then "dtype: int64" (a
# value_counts() has a "Name: ..." before its dtype). Asked for with a missing-value word just above.
_COUNT_ROW = re.compile(r"^(\S.*?)\s+(\d+)\s*$")
_MISSING_WORDS = re.compile(r"isnull|isna|null|missing|\bnan\b", re.I)
COUNT_CONTEXT_LINES = 3


def _missing_counts(path: str, text: str) -> Signal | None:
    """data:missing_values from a printed per-column missing-value count: the first column whose count
    is above 0, cited at its line."""
    lines = text.split("\n")
    for end, line in enumerate(lines):
        if line.strip() != "dtype: int64":
            continue
        rows: list[tuple[int, str, int]] = []
        i = end - 1
        while i >= 0 and (m := _COUNT_ROW.match(lines[i].rstrip("\r"))):
            rows.append((i + 1, m.group(1).strip(), int(m.group(2))))
            i -= 1
        above = "\n".join(lines[max(0, i - COUNT_CONTEXT_LINES + 1):i + 1])
        if len(rows) < 2 or not _MISSING_WORDS.search(above):
            continue
        rows.reverse()
        bad = [r for r in rows if r[2] > 0]
        if not bad:
            continue
        ln, col, n = bad[0]
        names = ", ".join(r[1] for r in bad[:5]) + (", ..." if len(bad) > 5 else "")
        summary = f"{path}: the printed missing-value counts show {len(bad)} of {len(rows)} columns with missing values ({names})"
        return Signal("data:missing_values", 0.7, summary,
                      [Evidence(text=f"{col} has {n} missing values", source=path, line=ln,
                                quote=line_quote(lines[ln - 1].rstrip("\r")))],
                      {"rows": None, "of": None, "columns": [r[1] for r in bad], "placeholders": [], "counts": True})
    return None


# pandas' summaries, printed: `df.describe()` (a "count" row, one number per column) or its transpose
# `df.describe().T` (a header "count mean std min ...", one row per column with its count first), and
# `df.info()` ("  3   sqft_living15  18608 non-null  float64" under "RangeIndex: 18611 entries").
# (each pattern starts with a literal, which the regex engine looks for first: ~30 ms each over a 60 MB log
# that holds the words "count", "mean" and "std" but no such table; a log without them costs nothing)
_DESCRIBE_HEAD = re.compile(r"count[ \t]+mean[ \t]+std[ \t]+min\b")
_DESCRIBE_ROW = re.compile(r"^[ \t]*(\S+)\s+(\d+(?:\.0+)?)\s+[-+\d.eE]+\s")
_COUNT_LINE = re.compile(r"\n[ \t]*count((?:[ \t]+\d+(?:\.0+)?)+)[ \t]*\r?(?=\n|$)")
_INFO_ROW = re.compile(r"^\s*(?:\d+\s+)?(\S+)\s+(\d+)\s+non-null\s+\w+")
_INFO_ENTRIES = re.compile(r"Index:\s*(\d+)\s+entries")     # RangeIndex / Int64Index / Index
_INFO_HEAD = re.compile(r"^[ \t]*#?[ \t]*Column[ \t]+Non-Null Count[ \t]+Dtype", re.M)
SUMMARY_ROWS = 400     # columns read from one summary


def _lines_after(text: str, pos: int) -> list[str]:
    end = pos - 1
    for _ in range(SUMMARY_ROWS + 1):       # (the lines' end found first: no copy of the text's whole tail)
        end = text.find("\n", end + 1)
        if end < 0:
            end = len(text)
            break
    return text[pos:end].split("\n", SUMMARY_ROWS + 1)[1:SUMMARY_ROWS + 1]


def _transposed_rows(text: str) -> list[tuple[int, re.Match, str]] | None:
    """The rows of a printed describe().T (its "count mean std min" header first on its line): (1-based line,
    _DESCRIBE_ROW's match, the row); None when the text holds no such header."""
    h = _DESCRIBE_HEAD.search(text)
    if h is None or text[text.rfind("\n", 0, h.start()) + 1:h.start()].strip():
        return None
    line0 = text.count("\n", 0, h.start()) + 1
    out = []
    for j, row in enumerate(_lines_after(text, h.start())):
        if not (m := _DESCRIBE_ROW.match(row.rstrip("\r"))):
            break
        out.append((line0 + 1 + j, m, row))
    return out


def _summary_counts(path: str, text: str, transposed: Callable[[], list | None]) -> Signal | None:
    """data:missing_values from a printed describe() / info(): the columns that count fewer values
    than the most any column counts (or than the frame's entries), cited at the first one's line.
    Each form is found by one search over the text; only the lines after it are split."""
    found: list[tuple[int, str, int, str]] = []      # (1-based line, column, count, the line)
    most = 0
    described = "mean" in text
    rows = transposed() if described else None
    if rows is not None:
        found = [(ln, m.group(1), int(float(m.group(2))), row) for ln, m, row in rows]
    elif described and (c := _COUNT_LINE.search(text)) is not None:
        line0 = text.count("\n", 0, c.start()) + 2        # the match starts at the newline before the line
        head = text[text.rfind("\n", 0, c.start()) + 1:c.start()].split()
        counts = [int(float(x)) for x in c.group(1).split()]
        if len(head) == len(counts):
            found = [(line0, n, k, c.group(0).strip("\n")) for n, k in zip(head, counts)]
    elif "non-null" in text and (e := _INFO_ENTRIES.search(text) or _INFO_HEAD.search(text)) is not None:
        # (info()'s "RangeIndex: N entries" line, or, where a post pasted only the column rows, their header)
        line0 = text.count("\n", 0, e.start()) + 1
        found = [(line0 + 1 + j, r.group(1), int(r.group(2)), row) for j, row in enumerate(_lines_after(text, e.start()))
                 if (r := _INFO_ROW.match(row))]
        most = int(e.group(1)) if e.re is _INFO_ENTRIES else 0
    if len(found) < 2:
        return None
    most = max([most] + [r[2] for r in found])
    bad = [r for r in found if r[2] < most]
    if not bad:
        return None
    ln, col, n, quote = bad[0]
    names = ", ".join(r[1] for r in bad[:5]) + (", ..." if len(bad) > 5 else "")
    summary = (f"{path}: the printed data summary counts fewer values in {len(bad)} of {len(found)} columns than "
               f"the {most} rows ({names}): the values not counted are NaN")
    return Signal("data:missing_values", 0.7, summary,
                  [Evidence(text=f"{col} counts {n} values of {most}: {most - n} missing", source=path, line=ln,
                            quote=line_quote(quote.rstrip("\r")))],
                  {"rows": None, "of": None, "columns": [r[1] for r in bad], "placeholders": [], "counts": True})


# data:scale_spread: a printed describe() whose columns' standard deviations differ by this factor or more, the
# largest at least SPREAD_MIN_STD (income in yen beside a 0-1 ratio): features in their raw units
SPREAD_RATIO = 1e3
SPREAD_MIN_STD = 100.0
# a summary's header naming its columns, std among them, and nothing else on the line ("  mean  std  min  max")
_STD_HEAD = re.compile(r"^[ \t]*(?:(?:count|mean|min|max|25%|50%|75%|median)[ \t]+)*std(?:[ \t]+(?:count|mean|min|max|25%|50%|75%|median))*[ \t]*\r?$",
                       re.M)
_STD_ROW = re.compile(r"\nstd((?:[ \t]+[-+]?[\d.]+(?:e[-+]?\d+)?)+)[ \t]*\r?(?=\n|$)")


def _scale_spread(path: str, text: str, transposed: Callable[[], list | None]) -> Signal | None:
    """data:scale_spread from the `std` row of a printed describe() (the wide form; describe().T gives each
    column's std third on its row) whose columns differ in scale by SPREAD_RATIO or more."""
    stds: list[tuple[str, float]] = []
    line, quote = 0, ""
    if (m := _STD_ROW.search(text)) is not None:
        try:
            vals = [float(v) for v in m.group(1).split()]
        except ValueError:
            return None     # (pandas' truncated row: "std  0.3  ...  0.2")
        # the column names: the nearest line above with as many names as the row has numbers
        for above in reversed(text[max(0, m.start() - 4096):m.start()].split("\n")[-6:]):
            names = above.split()
            if len(names) == len(vals) and not any(_number(n) for n in names):
                stds = list(zip(names, vals))
                break
        line, quote = text.count("\n", 0, m.start()) + 2, m.group(0).strip("\n")
    elif (rows := transposed()) is not None:
        for ln, _, row in rows:
            parts = row.split()
            try:
                stds.append((parts[0], float(parts[3])))
            except (ValueError, IndexError):
                break
            if not line:
                line, quote = ln, row
    elif (h := _STD_HEAD.search(text)) is not None:
        # describe().T with a subset of its columns ('[["mean", "std", "min", "max"]]'): std where the header says
        names = h.group(0).split()
        k = names.index("std")
        line0 = text.count("\n", 0, h.start()) + 1
        for j, row in enumerate(_lines_after(text, h.start())):
            parts = row.split()
            if len(parts) != len(names) + 1 or _number(parts[0]):
                break
            try:
                stds.append((parts[0], float(parts[k + 1])))
            except ValueError:
                break
            if not line:
                line, quote = line0 + 1 + j, row
    pos = [(n, v) for n, v in stds if v > 0]
    if len(pos) < 2:
        return None
    hi, lo = max(pos, key=lambda t: t[1]), min(pos, key=lambda t: t[1])
    if hi[1] < SPREAD_MIN_STD or hi[1] / lo[1] < SPREAD_RATIO:
        return None
    txt = (f"{path}: the printed data summary's columns differ in scale {hi[1] / lo[1]:,.0f}x ({hi[0]} std {hi[1]:g}, "
           f"{lo[0]} std {lo[1]:g}): features in their raw units")
    return Signal("data:scale_spread", 0.6, txt, [Evidence(text=txt, source=path, line=line, quote=line_quote(quote.rstrip("\r")))],
                  {"ratio": hi[1] / lo[1], "largest": hi[0], "smallest": lo[0]})


def _missing_values(path: str, text: str) -> Signal | None:
    lines = text.split("\n", MAX_ROWS + 1)[:MAX_ROWS + 1]
    first_line = 1                      # the header: the first non-blank line
    while lines and not lines[0].strip():
        lines.pop(0)
        first_line += 1
    d = _delimiter(lines)
    if d is None or len(lines) < 2:
        return None
    header = next(csv.reader([lines[0]], delimiter=d))
    n = len(header)
    numeric = [0] * n
    other = [0] * n
    missing: list[list[tuple[int, str]]] = [[] for _ in range(n)]
    rows = 0
    reader = csv.reader(lines[1:], delimiter=d)
    for cells in reader:          # reader.line_num: lines consumed so far (a quoted cell may span lines)
        if len(cells) != n:
            continue
        rows += 1
        for j, c in enumerate(cells):
            v = c.strip()
            if _number(v):
                numeric[j] += 1
            elif v == "" or v.lower() in PLACEHOLDERS:
                missing[j].append((first_line + reader.line_num, v))
            else:
                other[j] += 1
    cols = [j for j in range(n) if missing[j] and numeric[j] >= max(1, 2 * other[j])]
    if not cols:
        return None
    hits = sorted((ln, header[j], v) for j in cols for ln, v in missing[j])
    words = {v for _, _, v in hits if v}
    bad_rows = len({ln for ln, _, _ in hits})
    ln, col, v = hits[0]
    quote = line_quote(lines[ln - first_line].rstrip("\r"))
    shown = f"'{v}'" if v else "an empty cell"
    names = ", ".join(dict.fromkeys(header[j] for j in cols))
    summary = (f"{path}: {bad_rows} of {rows} rows have cells that parse as NaN/inf in numeric column(s) {names} "
               f"(first: {shown} in {col} at line {ln})")
    ev = [Evidence(text=f"{col} is {shown} where the other rows hold numbers", source=path, line=ln, quote=quote)]
    if len(hits) > 1 and hits[1][0] != ln:
        ln2, col2, v2 = hits[1]
        ev.append(Evidence(text=f"{col2} is {repr(v2) if v2 else 'an empty cell'} here too", source=path, line=ln2,
                           quote=line_quote(lines[ln2 - first_line].rstrip("\r"))))
    return Signal("data:missing_values", 0.7 if words else 0.5, summary, ev,
                  {"rows": bad_rows, "of": rows, "columns": [header[j] for j in cols], "placeholders": sorted(words)})


def _nonfinite_array(a: ArrayScan) -> Signal:
    name = f"{a.source}" + (f" ({a.key})" if a.key else "")
    summary = (f"{name}: {a.bad_rows:,} of {a.rows:,} rows hold NaN/inf (first: row {a.first_row}, "
               f"{a.first_value}; {a.dtype} {list(a.shape)})")
    ev = Evidence(text=f"row {a.first_row} of {a.key or 'the array'} holds {a.first_value}", source=a.source,
                  metric=row_label(a.key, a.first_row), value=a.first_value)
    return Signal("data:nonfinite", 0.8, summary, [ev],
                  {"rows": a.bad_rows, "of": a.rows, "first_row": a.first_row, "array": a.key, "value": a.first_value})
