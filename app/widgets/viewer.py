"""An artifact viewer for files of any size (a 1 GB log opens at a cited line at once).

`LineIndex(path)`: a file's line starts, found once by a numpy scan over an mmap in CHUNK_BYTES steps
(`build()`, run in a worker thread by the view for files over SYNC_INDEX_BYTES, on the spot below), kept
per file in a small cache (path + size + mtime). Offsets are int64, 8 bytes a line; past
SPARSE_ABOVE_LINES lines only every SPARSE_STEP-th start is kept and a line is found by a short local scan.
`line(i)` (0-based) reads one line (pread-style slice of the mmap), `window(top, n)` the lines shown
while the index is still being built: exact from a known start, else from an estimated offset.
`ArtifactView`: renders only the visible lines (`render_line`); cited lines are marked, the cursor line is
highlighted; before the index is ready the rows past the scanned part carry "~" (estimated numbers).
Every line goes through `sanitize.visible`: an artifact's bytes are text, never terminal control.
"""
from __future__ import annotations

import bisect
import mmap
import os
import re
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.analyzers.ingest import is_binary

MAX_LINE_CHARS = 2000           # a longer line is cut for display (minified JSON, progress bars)
SYNC_INDEX_BYTES = 8 << 20      # numpy scans ~1 GB/s: a file this small is indexed on the spot (~10 ms)
CHUNK_BYTES = 16 << 20          # one scan step: a 16 MB compare mask at a time, whatever the file size
SPARSE_ABOVE_LINES = 100_000_000    # past 100M lines (800 MB of offsets) keep every SPARSE_STEP-th start
SPARSE_STEP = 64                # a line then costs at most 63 newline finds from its kept start
SAMPLE_BYTES = 1 << 20          # read at open to estimate the mean line length (the index is not ready yet)
CACHE_MAX_BYTES = 512 << 20     # offsets kept for files opened before; the latest file is always kept
MAX_SEARCH_HITS = 100_000       # search reports at most this many lines (a common word in a 1 GB log)

_View = tuple[list[np.ndarray], list[int], int, int, int]   # chunks, first line of each, step, known lines, scanned bytes
_cache: OrderedDict[tuple[str, int, int], tuple[_View, int]] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_put(key: tuple[str, int, int], view: _View, n_lines: int) -> None:
    with _cache_lock:
        _cache[key] = (view, n_lines)
        _cache.move_to_end(key)
        total = sum(sum(c.nbytes for c in v[0]) for v, _ in _cache.values())
        while len(_cache) > 1 and total > CACHE_MAX_BYTES:
            _, (old, _) = _cache.popitem(last=False)
            total -= sum(c.nbytes for c in old[0])


def _cache_get(key: tuple[str, int, int]) -> tuple[_View, int] | None:
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
        return hit


class LineIndex:
    """A file's line starts over an mmap. `ready` once `build()` has run (at once for small files);
    `line(i)` is exact for i < `known` (all lines once ready). Safe to build in one thread and read in another:
    the scan publishes its progress as one tuple."""

    def __init__(self, path: Path, *, build_now: bool | None = None, sparse_above: int = SPARSE_ABOVE_LINES):
        """build_now: scan now (default: for files up to SYNC_INDEX_BYTES), else `build()` later.
        sparse_above: the line count past which only every SPARSE_STEP-th start is kept."""
        self.path = Path(path)
        self.sparse_above = sparse_above
        self.binary = False
        self.mm: mmap.mmap | None = None
        self.ready = False
        self.n_lines = 0
        self._view: _View = ([np.zeros(1, np.int64)], [0], 1, 1, 0)
        with open(self.path, "rb") as f:
            st = os.fstat(f.fileno())
            self.binary = is_binary(f.read(4096))
            self.size = st.st_size
            self.key = (str(self.path.resolve()), st.st_size, st.st_mtime_ns)
            if self.size == 0 or self.binary:
                self.n_lines = 1 if self.size == 0 else 0
                self._view = ([np.zeros(self.n_lines, np.int64)], [0], 1, self.n_lines, self.size)
                self.ready = True
                return
            self.mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        sample = self.mm[:SAMPLE_BYTES]
        self.avg_line = len(sample) / max(1, sample.count(b"\n"))
        self._line = lru_cache(maxsize=4096)(self._read)
        hit = _cache_get(self.key)
        if hit is not None:
            self._view, self.n_lines = hit
            self.ready = True
        elif build_now if build_now is not None else self.size <= SYNC_INDEX_BYTES:
            self.build()

    # ----- the scan ----------------------------------------------------------------------------
    def build(self, cancelled: Callable[[], bool] = lambda: False) -> bool:
        """Scan the file for newlines (CHUNK_BYTES at a time, pages dropped from memory after each step).
        Returns False, leaving the index not ready, when cancelled() said so between steps."""
        if self.ready:
            return True
        assert self.mm is not None
        mm, size = self.mm, self.size
        chunks, firsts = [np.zeros(1, np.int64)], [0]
        count, step, pos = 1, 1, 0          # line 0 starts at 0
        while pos < size:
            if cancelled():
                return False
            n = min(CHUNK_BYTES, size - pos)
            starts = np.flatnonzero(np.frombuffer(mm, np.uint8, n, pos) == 10).astype(np.int64) + (pos + 1)
            if pos + n == size and len(starts) and starts[-1] == size:
                starts = starts[:-1]         # a final newline ends the last line, it starts none
            if step == 1 and count + len(starts) > self.sparse_above:
                step = SPARSE_STEP           # from here on keep every step-th start, the kept ones thinned too
                thin = [(c[(-f) % step::step], f + (-f) % step) for c, f in zip(chunks, firsts)]
                chunks, firsts = [c for c, _ in thin if len(c)], [f for c, f in thin if len(c)]
            skip = (-count) % step
            kept = starts[skip::step] if step > 1 else starts
            if len(kept):
                chunks.append(kept)
                firsts.append(count + skip)
            count += len(starts)
            pos += n
            self._view = (list(chunks), list(firsts), step, count, pos)
            if hasattr(mm, "madvise"):       # the scanned pages leave this process's memory (the page cache keeps them)
                mm.madvise(mmap.MADV_DONTNEED, pos - n, n)
        self.n_lines = count
        self.ready = True
        _cache_put(self.key, self._view, count)
        return True

    @property
    def known(self) -> int:
        """Lines whose start is known exactly (all of them once ready)."""
        return self._view[3]

    @property
    def progress(self) -> float:
        return 1.0 if self.ready or not self.size else self._view[4] / self.size

    def __len__(self) -> int:
        """The number of lines; an estimate (from the mean line length) until the index is ready."""
        if self.ready:
            return self.n_lines
        return max(self.known, int(self.size / self.avg_line) + 1)

    # ----- reading -----------------------------------------------------------------------------
    def _start(self, i: int) -> int:
        """Byte offset of line i < known: its kept start, then newline finds up to it (sparse index)."""
        chunks, firsts, step, _, _ = self._view
        b = i - i % step
        c = bisect.bisect_right(firsts, b) - 1
        a = int(chunks[c][(b - firsts[c]) // step])
        assert self.mm is not None
        for _ in range(i - b):
            a = self.mm.find(b"\n", a) + 1
        return a

    def _at(self, a: int) -> tuple[str, int]:
        """The line starting at byte a (cut for display) and the next line's start (0 past the end)."""
        assert self.mm is not None
        end = self.mm.find(b"\n", a)
        nxt = end + 1 if end >= 0 else 0
        stop = min(end if end >= 0 else self.size, a + MAX_LINE_CHARS * 4)
        return self.mm[a:stop].decode("utf-8", "replace").rstrip("\r\n")[:MAX_LINE_CHARS], nxt

    def _read(self, i: int) -> str:
        return self._at(self._start(i))[0]

    def line(self, i: int) -> str:
        """Line i (0-based), exact; "" for a line not known yet (or past the end)."""
        return self._line(i) if self.mm is not None and 0 <= i < self.known else ""

    def window(self, top: int, n: int) -> tuple[list[str], bool]:
        """n lines from line top, and whether their numbers are exact. While the index is being built a
        line past the scanned part is found from an estimated offset (the last known start plus the mean
        line length per line), moved on to the next line start; the lines after it follow from there."""
        if self.mm is None or n <= 0:
            return [], True
        known = self.known
        exact = top < known
        if exact:
            a = self._start(top)
        else:
            last = known - 1
            est = self._start(last) + int((top - last) * self.avg_line)
            est = min(est, max(0, self.size - int(n * self.avg_line)))
            a = self.mm.find(b"\n", est - 1) + 1 if est > 0 else 0
            if a == 0 and est > 0:           # no newline after the estimate: the file's last line
                a = self.mm.rfind(b"\n", 0, self.size - 1) + 1
        out: list[str] = []
        while len(out) < n and (a > 0 or not out) and a < self.size:
            text, a = self._at(a)
            out.append(text)
        return out, exact

    def search(self, pattern: str) -> list[int]:
        """0-based numbers of lines holding pattern (case-insensitive, literal), at most MAX_SEARCH_HITS;
        needs the index (ready)."""
        if self.mm is None or not pattern or not self.ready:
            return []
        rx = re.compile(re.escape(pattern.encode("utf-8")), re.I)
        lines: list[int] = []
        last = -1
        chunk_offs = [int(ch[0]) for ch in self._view[0]]
        for m in rx.finditer(self.mm):
            i = self._line_of(m.start(), chunk_offs)
            if i != last:
                lines.append(i)
                last = i
                if len(lines) >= MAX_SEARCH_HITS:
                    break
        return lines

    def _line_of(self, off: int, chunk_offs: list[int]) -> int:
        chunks, firsts, step, _, _ = self._view
        c = bisect.bisect_right(chunk_offs, off) - 1
        k = int(np.searchsorted(chunks[c], off, "right")) - 1
        a = int(chunks[c][k])
        assert self.mm is not None
        return firsts[c] + k * step + (self.mm[a:off].count(b"\n") if step > 1 else 0)


class ArtifactView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    ArtifactView { height: 1fr; }
    """
    cursor = reactive(0)

    class Indexed(Message):
        """The line index is complete: line numbers and the line count are exact from now on."""

    def __init__(self, path: Path, cited: list[int], *, id: str | None = None, build_index: bool = True):
        """build_index=False: no worker on mount; `_build_index()` starts it (tests look at the view before)."""
        super().__init__(id=id)
        self.build_index = build_index
        self._scroll_on_resize = False        # goto came before the first layout: scroll once the size is known
        self.index = LineIndex(path)
        self._cited_asked = sorted(set(i for i in cited if i >= 0))
        self.cited = [i for i in self._cited_asked if i < len(self.index)] if self.index.ready else self._cited_asked
        self.matches: set[int] = set()
        self._win: tuple[int, int, list[str], bool] | None = None
        self.virtual_size = Size(12 + MAX_LINE_CHARS // 20, len(self.index))

    def on_mount(self) -> None:
        if not self.index.ready and self.build_index:
            self.call_after_refresh(self._build_index)

    @work(thread=True, exclusive=True, group="line-index", exit_on_error=False)
    def _build_index(self) -> None:
        worker = get_current_worker()
        if self.index.build(cancelled=lambda: worker.is_cancelled) and not worker.is_cancelled:
            self.app.call_from_thread(self._indexed)

    def _indexed(self) -> None:
        self._win = None
        self.cited = [i for i in self._cited_asked if i < len(self.index)]
        self.virtual_size = Size(self.virtual_size.width, len(self.index))
        self.goto(self.cursor)
        self.refresh()
        self.post_message(self.Indexed())

    def _row(self, y: int, i: int) -> tuple[str, bool]:
        """The text of row y (line i) and whether its number is exact."""
        if self.index.ready:
            return self.index.line(i), True
        top, h = i - y, self.size.height
        if self._win is None or self._win[:2] != (top, h) or (not self._win[3] and top < self.index.known):
            lines, exact = self.index.window(top, h)
            self._win = (top, h, lines, exact)
        lines, exact = self._win[2], self._win[3]
        return (lines[y] if y < len(lines) else ""), exact

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        i = scroll_y + y
        if i >= len(self.index):
            return Strip.blank(self.size.width)
        raw, exact = self._row(y, i)
        mark = ">" if i in self.cited else "*" if i in self.matches else " "
        base = Style(reverse=True) if i == self.cursor else Style(bold=True) if i in self.cited else Style()
        num = f"{i + 1:>7}" if exact else f"~{i + 1:>6}"
        gutter = Segment(f"{mark}{num} ", Style(dim=i != self.cursor) + (Style(color="yellow") if mark == ">" else Style()))
        # A Segment goes to the terminal as it is: an ESC in the artifact would be obeyed on every repaint.
        text = visible(raw.expandtabs(4), keep="")
        x = self.scroll_offset.x
        strip = Strip([gutter, Segment(text[x:x + self.size.width], base)])
        return strip.crop(0, self.size.width).extend_cell_length(self.size.width, base if i == self.cursor else Style())

    def goto(self, i: int) -> None:
        """Put the cursor on 0-based line i and scroll it into view (a third from the top). Before the
        view's first layout the scroll waits for its size (on_resize), so the first frame is drawn at
        the line, not at the top of the file."""
        i = max(0, min(i, len(self.index) - 1))
        self.cursor = i
        if not self.size.height:
            self._scroll_on_resize = True
            return
        self.scroll_to(y=max(0, i - self.size.height // 3), animate=False, immediate=True)

    def on_resize(self) -> None:
        if self._scroll_on_resize and self.size.height:
            self._scroll_on_resize = False
            self.goto(self.cursor)

    def watch_cursor(self) -> None:
        self.refresh()
