"""The text a big log keeps: its head, its tail and the lines the text analyzers look for.

In:  the blocks of a log as they are read (bytes, newline offsets, global line numbers).
Out: `SparseText` (a TextArtifact): the log's text with every line in place (line N of the
     text is line N of the file) but the lines nobody reads blanked: a 1 GB log of metric
     lines keeps its first and last HEAD_BYTES/TAIL_BYTES and the lines that mention an error,
     a warning, NaN, a resume, a checkpoint, a traceback or a crash (with a few lines around
     them), so it costs about one byte per line instead of its size. `line(n)` of a blanked
     line is read back from the file (a quote for a cited metric line).

Why these lines: the text analyzers read a big log's head and tail in full (config facts,
crossrank and log_findings read at most 2,000,000 characters of a head; log_findings 1,000,000
of a tail) and only CORE_GATES of log_findings in between; tracebacks are parsed from their
header on. MID_WORDS holds those gates and the crash words (a test keeps them in step).

How the lines are found without one pass per word: see WordFinder (one table lookup per two
bytes marks the candidates of every word at once; only those are compared with the words).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mltdbg.analyzers.ingest import open_utf8
from mltdbg.analyzers.model import TextArtifact
from mltdbg.analyzers.readers.textlog.arrays import raw_bytes_at, split_halves

# Logs above this size keep a sparse text (smaller ones keep all of it, as they always did).
SPARSE_TEXT_BYTES = 32 * 1024 * 1024
# Kept whole at the start and at the end (config facts and crossrank read up to 2,000,000
# characters of a log's head; log_findings reads 512,000 of its head and 1,000,000 of its tail).
HEAD_BYTES = 2 * 1024 * 1024
TAIL_BYTES = 2 * 1024 * 1024
# Words that keep a line in the middle of a big log: log_findings.CORE_GATES (what it scans a
# big log's middle for), then tracebacks and crashes (tracebacks.py, crossrank.py).
MID_WORDS = (b"rror", b"Warning", b"nan", b"NaN", b"oss scale", b"esum", b"heckpoint",
             b"Traceback", b"xception", b"Killed", b"SIGKILL", b"xitcode", b"egmentation", b"core dumped",
             b"Fatal Python", b"out of memory", b"OOM", b"NCCL", b"imed out", b"SeqNum")
# Lines kept around a word's line (multi-line messages), and after a traceback header (its
# frames; tracebacks.py reads at most 3,000 lines of one, most are under 100).
CONTEXT_LINES = 2
TRACEBACK_LINES = 300
# Lines kept per word in the middle (log_findings hands at most 5,000 per gate to its detectors).
MID_CAP = 5000
# Where line offsets are remembered for reading a blanked line back: every this many lines.
INDEX_EVERY = 4096


# WordFinder.find splits a block's lookups in two halves at a multiple of this many pairs
# (below it, one thread: a small block is not worth a second one).
FIND_ALIGN = 1 << 16


class WordFinder:
    """Finds MID_WORDS in blocks of one log, one table lookup per two bytes.

    Every occurrence of a word of three or more bytes puts one of two adjacent byte pairs of it
    (at offsets j and j+1) on an even offset of the block, so only even offsets are looked at.
    The pairs chosen for each word are the rarest adjacent two in a sample of the log (its first
    block): few candidates, each compared with the word."""

    SAMPLE = 4 * 1024 * 1024

    def __init__(self, sample: bytes, words: tuple[bytes, ...] = MID_WORDS):
        self.words = words
        n = min(len(sample), self.SAMPLE)
        count = np.zeros(65536, np.int64)
        if n >= 2:
            count += np.bincount(np.frombuffer(sample, "<u2", count=n // 2), minlength=65536)
            count += np.bincount(np.frombuffer(sample, "<u2", count=(n - 1) // 2, offset=1), minlength=65536)
        self.pick = []        # per word: ((pair, offset), (pair, offset))
        self.wanted = np.zeros(65536, bool)
        for w in words:
            pairs = [(w[j] | (w[j + 1] << 8), j) for j in range(len(w) - 1)]
            best = min(range(len(pairs) - 1), key=lambda j: count[pairs[j][0]] + count[pairs[j + 1][0]])
            two = (pairs[best], pairs[best + 1])
            self.pick.append(two)
            for v, _ in two:
                self.wanted[v] = True

    def find(self, data: bytes) -> list[np.ndarray]:
        """Offsets of every occurrence of each word in data (one sorted array per word)."""
        n = len(data)
        out = [np.zeros(0, np.int64) for _ in self.words]
        if n < 3:
            return out
        even = np.frombuffer(data, "<u2", count=n // 2)
        # the table lookups over the block, its two halves on two threads (numpy frees the GIL);
        # np.take, not wanted[even]: fancy indexing by uint16 costs twice as much (4.3 vs 2.0 ms
        # a 4 MB block), and a uint16 is always inside the 65,536-entry table
        cand = np.concatenate(split_halves(
            lambda lo, hi: np.flatnonzero(np.take(self.wanted, even[lo:hi], mode="clip")) + lo,
            len(even), FIND_ALIGN))
        if cand.size == 0:
            return out
        pair = even[cand]
        cand = cand * 2
        b = np.frombuffer(data, np.uint8)
        for i, (w, two) in enumerate(zip(self.words, self.pick)):
            at = np.concatenate([cand[pair == v] - j for v, j in two])
            at = at[(at >= 0) & (at + len(w) <= n)]
            if at.size:
                ok = (raw_bytes_at(b, at, 0, len(w)) == np.frombuffer(w, np.uint8)).all(axis=1)
                out[i] = np.unique(at[ok])
        return out


def keep_lines(data: bytes, nl: np.ndarray, words_cap: list[int], finder: WordFinder,
               hits: list[np.ndarray] | None = None) -> np.ndarray:
    """Line indices (0-based, in this block) a sparse text keeps, from the MID_WORDS in it.
    `words_cap`: lines each word may still keep (updated in place); `hits`: finder.find(data)
    when the caller has it (found on another thread)."""
    if hits is None:
        hits = finder.find(data)
    keep = []
    for i, at in enumerate(hits):
        if at.size == 0 or words_cap[i] <= 0:
            continue
        lines = np.unique(np.searchsorted(nl, at))[:words_cap[i]]
        words_cap[i] -= len(lines)
        after = TRACEBACK_LINES if finder.words[i] == b"Traceback" else CONTEXT_LINES
        span = np.arange(-CONTEXT_LINES, after + 1)
        keep.append((lines[:, None] + span[None, :]).ravel())
    if not keep:
        return np.zeros(0, np.int64)
    k = np.unique(np.concatenate(keep))
    nlines = len(nl) + (0 if data.endswith(b"\n") else 1)
    return k[(k >= 0) & (k < nlines)]


def sparse_block(data: bytes, nl: np.ndarray, keep: np.ndarray) -> bytes:
    """The block's bytes with every line not in `keep` (sorted line indices) emptied: its
    newline stays, so line numbers do not move."""
    if keep.size == 0:
        return b"\n" * len(nl)      # nl holds every newline of the block (no second count of 4 MB)
    starts = np.concatenate(([0], nl + 1))
    parts = []
    prev = 0          # next line not written yet
    # runs of consecutive kept lines are copied in one slice each
    brk = np.flatnonzero(np.diff(keep) != 1) + 1
    for a, z in zip(np.r_[0, brk].tolist(), np.r_[brk, len(keep)].tolist()):
        first, last = int(keep[a]), int(keep[z - 1])
        parts.append(b"\n" * (first - prev))
        end = int(starts[last + 1]) if last + 1 < len(starts) else len(data)
        parts.append(data[int(starts[first]):end])
        prev = last + 1
    nlines = len(nl)
    parts.append(b"\n" * max(0, nlines - prev))
    return b"".join(parts)


@dataclass
class SparseText(TextArtifact):
    """A big log's TextArtifact whose text keeps only some lines (see the module docstring).
    `line(n)` reads a blanked line back from the file, by a sparse index of line offsets.

    Line offsets are kept for the lines with text only (`compact_starts`): a blanked line is one
    character, so every other offset follows from them (start of line i = i + the lengths of the
    kept lines before it). A 50M-line log's full offset array was 400 MB; this is bounded by
    what the text keeps. `line_starts` (the full array) is still there for a caller that needs
    it, built on first use; the core reads through the methods below."""

    marks: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)  # offset of line 1 + k*INDEX_EVERY
    gz: bool = False
    _read_back: dict = field(default_factory=dict, repr=False)
    # set by set_index: number of line starts, kept lines' 0-based indices, their starts and ends
    _count: int = field(default=0, repr=False)
    _kidx: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    _kstart: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    _kend: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    _ex: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64), repr=False)

    def set_index(self, count: int, kidx: np.ndarray, kstart: np.ndarray, kend: np.ndarray) -> None:
        self._count, self._kidx, self._kstart, self._kend = count, kidx, kstart, kend
        self._ex = np.concatenate(([0], np.cumsum(kend - kstart))).astype(np.int64)

    @property
    def kept_lines(self) -> int:
        """Lines of the log whose text is kept."""
        return len(self._kidx)

    @property
    def line_starts(self) -> np.ndarray:
        if self._starts is None:
            idx = np.arange(self._count, dtype=np.int64)
            self._starts = idx + self._ex[np.searchsorted(self._kidx, idx, side="left")]
        return self._starts

    def _n_starts(self) -> int:
        return self._count

    def start_of(self, n: int) -> int:
        if not 1 <= n <= self._count:
            return len(self.text)
        return n - 1 + int(self._ex[self._kidx.searchsorted(n - 1)])

    def text_line_starts(self) -> np.ndarray:
        return self._kstart

    def line_of(self, offset: int) -> int:
        return int(self.lines_of(np.asarray([offset], np.int64))[0])

    def lines_of(self, offsets: np.ndarray) -> np.ndarray:
        o = np.asarray(offsets, dtype=np.int64)
        j = np.searchsorted(self._kstart, o, side="right") - 1      # last kept line starting at or before
        jj = np.maximum(j, 0)
        inside = (j >= 0) & (o <= self._kend[jj]) if len(self._kidx) else np.zeros(o.shape, bool)
        blank = o - self._ex[j + 1]                                  # a blanked line is one character
        kidx = self._kidx[jj] if len(self._kidx) else np.zeros(o.shape, np.int64)
        return np.minimum(np.where(inside, kidx, blank) + 1, self._count)

    def line(self, n: int) -> str:
        s = TextArtifact.line(self, n)
        if s or not 1 <= n <= self._count:
            return s
        hit = self._read_back.get(n)
        if hit is None:
            hit = self._read_back[n] = self._disk_line(n)
            if len(self._read_back) > 10_000:
                self._read_back.clear()
        return hit

    def seek_marks(self) -> list[tuple[int, int]]:
        """(0-based line, byte offset where it starts) every INDEX_EVERY lines, as the reader
        found them: a re-reader of the file (the evidence verifier) seeks near a line with them
        instead of counting newlines from the start (a 500 MB log: 0.8 s per diagnosis)."""
        if self.gz:
            return []
        return [(k * INDEX_EVERY, int(o)) for k, o in enumerate(self.marks.tolist())]

    def _disk_line(self, n: int) -> str:
        """Line n as it is in the file now ('' when it cannot be read)."""
        k = (n - 1) // INDEX_EVERY
        if self.gz or k >= len(self.marks):
            return ""
        try:
            with open(self.abspath, "rb") as f:
                f.seek(int(self.marks[k]))
                for _ in range((n - 1) - k * INDEX_EVERY):
                    if not f.readline():
                        return ""
                raw = f.readline(1 << 20)
        except OSError:
            return ""
        return raw.rstrip(b"\n").decode("utf-8", "replace").rstrip("\r")


def open_blocks(path: Path, gz: bool):
    """A binary stream of the file's content; gz: not its own bytes (gunzipped, or UTF-16 as UTF-8: ingest.open_utf8)."""
    return open_utf8(path) if gz else open(path, "rb")


# compact_starts reads the text this many characters at a time (bounded temporaries).
STARTS_PIECE = 4 * 1024 * 1024


def compact_starts(data: bytes, text: str) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The line index of a sparse text (`data` its UTF-8 bytes): the number of line starts and,
    for each line with text, its 0-based index, start and end (offset of its newline or the
    text's end), all in characters. A piece at a time: no array of one entry per line."""
    ascii_ = data.isascii()
    n = len(data) if ascii_ else len(text)
    b = np.frombuffer(data, np.uint8) if ascii_ else None
    kidx, kstart, kend = [], [], []
    lines_before = 0
    prev_nl = True        # the character before the piece is a newline (or the text starts)
    for a in range(0, n, STARTS_PIECE):
        c = b[a:a + STARTS_PIECE] if b is not None else \
            np.frombuffer(text[a:a + STARTS_PIECE].encode("utf-32-le"), "<u4")
        isnl = c == 10
        after_nl = np.empty(len(c), bool)
        after_nl[0] = prev_nl
        after_nl[1:] = isnl[:-1]
        p = np.flatnonzero(after_nl & ~isnl)                  # a line with text starts here
        kidx.append(lines_before + np.searchsorted(np.flatnonzero(isnl), p))
        kstart.append(p + a)
        kend.append(np.flatnonzero(isnl & ~after_nl) + a)     # ... and ends here (its newline)
        lines_before += int(np.count_nonzero(isnl))
        prev_nl = bool(isnl[-1])
    ki = np.concatenate(kidx) if kidx else np.zeros(0, np.int64)
    ks = np.concatenate(kstart).astype(np.int64) if kstart else np.zeros(0, np.int64)
    ke = np.concatenate(kend).astype(np.int64) if kend else np.zeros(0, np.int64)
    if len(ke) < len(ks):                                    # the last line has no newline
        ke = np.append(ke, n)
    return lines_before + 1, ki.astype(np.int64), ks, ke
