"""The one evidence verifier, shared by every engine.

An evidence item is verified when the tool re-reads the artifact and finds it:
- a quote must appear (whitespace-insensitive) within QUOTE_WINDOW lines of the cited line
  of the file as it is on disk now (re-read, not the parsed copy);
- a cited value must match the parsed series of that metric at that step (NaN/inf included).
Anything else (text with no citation, a path outside the run, a missing file) is unverified.
"""
from __future__ import annotations

import json
import math
import os
import re
from bisect import bisect_right
from pathlib import Path

import numpy as np

from mltdbg.analyzers.common.gitrepo import file_at
from mltdbg.analyzers.ingest import UTF16_BOMS, data_blocks, drop_nul_runs
from mltdbg.analyzers.model import Evidence, Run
from mltdbg.analyzers.readers.npdata import ARRAY_SUFFIXES, cited_row_nonfinite
from mltdbg.analyzers.readers.textlog.sparse import SparseText
from mltdbg.analyzers.tracebacks import blank_json_escapes

# The rule: the quoted text must appear within 3 lines of the cited line.
QUOTE_WINDOW = 3
# Values printed in logs are rounded: accept this relative difference.
VALUE_RTOL = 1e-3

_WS = re.compile(r"\s+")
# Files are re-read from disk a block at a time: a quote on line 900,000 of a 50 MB log needs
# only that line's neighbours, not the whole file decoded and split.
_BLOCK = 1 << 20
# What one re-read may hold: one line's last LINE_CAP bytes (a quote is cut at 300 characters), and
# HELD_CAP for the window of lines (a window of minified 40 MB lines is not read whole).
LINE_CAP = 1 << 20
HELD_CAP = 32 << 20
_AT_COMMIT = re.compile(r"^(.+)@([0-9a-f]{7,40})$")
GIT_SHOW_TIMEOUT_S = 20.0   # one `git show` of a file at a commit; a hung git must not hang verification


def _lines_at_commit(root: Path, sha: str, rel: str) -> list[str] | None:
    text = file_at(root, sha, rel, timeout=GIT_SHOW_TIMEOUT_S)
    return text.split("\n") if text is not None else None


def _norm(s: str) -> str:
    return _WS.sub(" ", s).strip()


class _DiskLines:
    """Lines of a plain (not gzipped) file on disk by number, as `text.split("\n")` numbers them,
    without holding the file. Block boundaries seen on the way are kept as (line, offset) marks,
    so a later read seeks close to its line. Bounded like the readers (analyzers.ingest): read up
    to the size the file has when opened (a log still growing), holes of a sparse file skipped and
    NUL runs dropped, at most LINE_CAP bytes of one line kept (its end: a hole's text follows it)."""

    def __init__(self, path: Path, marks: list[tuple[int, int]] | None = None):
        """`marks`: (line, offset) pairs known already (a big log's reader index), to seek by."""
        self.path = path
        self.marks = sorted({(0, 0), *(marks or ())})   # (0-based line, byte offset where it starts)

    def get(self, lo: int, hi: int) -> list[str]:
        """Lines lo..hi-1 (0-based; fewer at the end of the file), decoded with replacement."""
        line, off = self.marks[bisect_right(self.marks, (lo, math.inf)) - 1]
        buf = bytearray()       # from the start of line `line` on (holes left out)
        n = 0                   # line ends in buf
        with open(self.path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            for at, blk in data_blocks(f, size, off, _BLOCK):
                c = blk.count(b"\n")
                if c and line + n + c <= lo:    # line lo starts after this block: skip, keep a mark
                    k = blk.rfind(b"\n")
                    line, n, off = line + n + c, 0, at + k + 1
                    buf = bytearray(blk[k + 1:])
                    self.marks.insert(bisect_right(self.marks, (line, off)), (line, off))
                    continue
                buf += blk
                n += c
                if not c and len(buf) > LINE_CAP and line + n <= lo:
                    del buf[:len(buf) - LINE_CAP]    # inside one very long line before the window: keep its end
                if line + n >= hi or len(buf) > HELD_CAP:
                    break
        parts = bytes(buf).split(b"\n")
        return [drop_nul_runs(x)[-LINE_CAP:].decode("utf-8", errors="replace") for x in parts[max(0, lo - line):hi - line]]


class Verifier:
    """Re-reads artifacts (cached per file for one diagnosis) and checks evidence."""

    def __init__(self, run: Run):
        self.run = run
        self._lines: dict[str, list[str] | _DiskLines | None] = {}
        self._sorted: dict[int, bool] = {}     # id(series) -> its steps are non-decreasing
        self._rows: dict[tuple[str, str], bool] = {}   # (array file, row label) -> row holds NaN/inf

    def _points_at(self, s, step) -> np.ndarray:
        """Indexes of the series' points at `step`: a binary search when its steps are sorted (one
        check per series), a scan otherwise (a 10M-point series costs ~10 ms a scan)."""
        key = id(s)
        if key not in self._sorted:
            st = s.steps
            self._sorted[key] = bool(len(st) < 2 or (st[1:] >= st[:-1]).all())
        if self._sorted[key]:
            lo, hi = np.searchsorted(s.steps, step, "left"), np.searchsorted(s.steps, step, "right")
            return np.arange(lo, hi)
        return np.flatnonzero(s.steps == step)

    def _file_lines(self, source: str) -> list[str] | _DiskLines | None:
        """The file's lines (a list, or a _DiskLines reading them on demand); None if unreadable."""
        if source in self._lines:
            return self._lines[source]
        lines = None
        root = self.run.root.resolve()
        m = _AT_COMMIT.match(source)
        if m:   # a line as it was in an earlier commit (baseline diffs cite removed lines so)
            self._lines[source] = _lines_at_commit(root, m.group(2), m.group(1))
            return self._lines[source]
        p = self._inside_root(source)
        try:
            if p is not None and p.is_file():
                with open(p, "rb") as f:
                    gz = f.read(2) in (b"\x1f\x8b", *UTF16_BOMS)     # (not its own bytes: read as the readers read it)
                if gz:
                    from mltdbg.analyzers.ingest import read_bytes  # noqa: PLC0415 - loaded only on this path, keeps the common path light
                    lines = read_bytes(p).decode("utf-8", errors="replace").split("\n")
                else:
                    lines = _DiskLines(p, self._seek_marks(source))
        except (ValueError, OSError):
            lines = None
        self._lines[source] = lines
        return lines

    def _seek_marks(self, source: str) -> list[tuple[int, int]]:
        """A big log's line offsets from its reader (SparseText), when the run read it."""
        for t in self.run.texts:
            if t.path == source and isinstance(t, SparseText):
                return t.seek_marks()
        return []

    def check(self, ev: Evidence) -> bool:
        if ev.source and ev.quote and ev.line:
            return self._check_quote(ev)
        if ev.source and ev.metric and ev.source.lower().endswith(ARRAY_SUFFIXES):
            # a numpy data file's row cited as holding NaN/inf (read once: every hypothesis that
            # cites it asks again, and an .npz member is decompressed whole)
            key = (ev.source, ev.metric)
            if key not in self._rows:
                p = self._inside_root(ev.source)
                self._rows[key] = p is not None and p.is_file() and cited_row_nonfinite(p, ev.metric)
            return self._rows[key]
        if ev.metric and ev.step is not None and ev.value is not None:
            return self._check_value(ev)
        return False

    def _inside_root(self, source: str) -> Path | None:
        """The cited file's path, None when it lies outside the run root (never read there)."""
        root = self.run.root.resolve()
        try:
            p = (root / source).resolve()
            p.relative_to(root)
        except (ValueError, OSError):
            return None
        return p

    def _check_quote(self, ev: Evidence) -> bool:
        lines = self._file_lines(ev.source)
        if not lines:
            return False
        q = _norm(ev.quote)
        if not q:
            return False
        lo = max(0, ev.line - 1 - QUOTE_WINDOW)
        hi = ev.line + QUOTE_WINDOW
        near = lines.get(lo, hi) if isinstance(lines, _DiskLines) else lines[lo:hi]
        # (a console log saved as JSON strings, Kaggle's: the printed line stands in the file JSON-escaped)
        forms = {q, _norm(json.dumps(ev.quote)[1:-1]), _norm(json.dumps(ev.quote, ensure_ascii=False)[1:-1])}
        for s in near:
            ns = _norm(s.replace("\r", "\n"))
            if any(f and f in ns for f in forms):
                return True
            # (printed output kept in a JSON string, read with its escapes blanked: log_findings._output_in_json)
            if "\\" in s and q in _norm(blank_json_escapes(s)):
                return True
        # a quote spanning several lines
        return q in _norm(" ".join(near))

    def _check_value(self, ev: Evidence) -> bool:
        want = _as_float(ev.value)
        if want is None:
            return False
        for s in self.run.series:
            if s.name != ev.metric and s.raw_name != ev.metric:
                continue
            if ev.source and s.source != ev.source:
                continue
            if ev.step is None:
                continue
            idx = self._points_at(s, ev.step)
            for i in idx:
                got = float(s.values[i])
                if math.isnan(want) and math.isnan(got):
                    return True
                if math.isinf(want) and got == want:
                    return True
                if math.isfinite(want) and math.isfinite(got) and abs(got - want) <= VALUE_RTOL * max(abs(want), 1e-12):
                    return True
        return False

    def verify(self, evidence: list[Evidence]) -> list[Evidence]:
        for ev in evidence:
            ev.verified = self.check(ev)
        return evidence


def _as_float(v) -> float | None:
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        t = v.strip().lower()
        if t in ("nan", "-nan"):
            return float("nan")
        if t in ("inf", "+inf", "infinity"):
            return float("inf")
        if t in ("-inf", "-infinity"):
            return float("-inf")
        try:
            return float(t)
        except ValueError:
            return None
    return None


def verified_share(evidence: list[Evidence]) -> float:
    if not evidence:
        return 0.0
    return sum(1 for e in evidence if e.verified) / len(evidence)
