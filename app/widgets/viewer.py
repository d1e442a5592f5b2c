"""An artifact viewer for files of any size: line offsets found once with numpy over an mmap, only the
visible lines rendered (`render_line`), lines read on demand. Cited lines are marked; the cursor line
is highlighted."""
from __future__ import annotations

import mmap
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.analyzers.ingest import is_binary

MAX_LINE_CHARS = 2000       # a longer line is cut for display (minified JSON, progress bars)


class LineIndex:
    """A file's line starts (numpy array) over an mmap; `line(i)` (0-based) decodes one line."""

    def __init__(self, path: Path):
        self.path = path
        self.binary = False
        with open(path, "rb") as f:
            head = f.read(4096)
            self.binary = is_binary(head)
            size = f.seek(0, 2)
            if size == 0 or self.binary:
                self.mm, self.starts = None, np.zeros(1 if size == 0 else 0, dtype=np.int64)
                return
            self.mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        nl = np.flatnonzero(np.frombuffer(self.mm, dtype=np.uint8) == 10)
        ends_with_nl = self.mm[-1:] == b"\n"
        self.starts = np.concatenate(([0], nl[:-1] + 1 if ends_with_nl else nl + 1)).astype(np.int64)
        self.size = size
        self._line = lru_cache(maxsize=4096)(self._read)

    def __len__(self) -> int:
        return len(self.starts)

    def _read(self, i: int) -> str:
        a = int(self.starts[i])
        b = int(self.starts[i + 1]) if i + 1 < len(self.starts) else self.size
        return self.mm[a:min(b, a + MAX_LINE_CHARS * 4)].decode("utf-8", "replace").rstrip("\r\n")[:MAX_LINE_CHARS]

    def line(self, i: int) -> str:
        return self._line(i) if self.mm is not None else ""

    def search(self, pattern: str) -> list[int]:
        """0-based numbers of lines holding pattern (case-insensitive, literal), whole-buffer regex."""
        if self.mm is None or not pattern:
            return []
        rx = re.compile(re.escape(pattern.encode("utf-8")), re.I)
        offs = np.fromiter((m.start() for m in rx.finditer(self.mm)), dtype=np.int64)
        return sorted(set(np.searchsorted(self.starts, offs, "right").astype(int) - 1)) if len(offs) else []


class ArtifactView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    ArtifactView { height: 1fr; }
    """
    cursor = reactive(0)

    def __init__(self, path: Path, cited: list[int], *, id: str | None = None):
        super().__init__(id=id)
        self.index = LineIndex(path)
        self.cited = sorted(set(i for i in cited if 0 <= i < len(self.index)))
        self.matches: set[int] = set()
        width = 12 + MAX_LINE_CHARS // 20
        self.virtual_size = Size(width, len(self.index))

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        i = scroll_y + y
        if i >= len(self.index):
            return Strip.blank(self.size.width)
        mark = ">" if i in self.cited else "*" if i in self.matches else " "
        base = Style(reverse=True) if i == self.cursor else Style(bold=True) if i in self.cited else Style()
        gutter = Segment(f"{mark}{i + 1:>7} ", Style(dim=i != self.cursor) + (Style(color="yellow") if mark == ">" else Style()))
        # A Segment goes to the terminal as it is: an ESC in the artifact would be obeyed on every repaint.
        text = visible(self.index.line(i).expandtabs(4), keep="")
        x = self.scroll_offset.x
        strip = Strip([gutter, Segment(text[x:x + self.size.width], base)])
        return strip.crop(0, self.size.width).extend_cell_length(self.size.width, base if i == self.cursor else Style())

    def goto(self, i: int) -> None:
        """Put the cursor on 0-based line i and scroll it into view (a third from the top)."""
        i = max(0, min(i, len(self.index) - 1))
        self.cursor = i
        self.scroll_to(y=max(0, i - self.size.height // 3), animate=False)

    def watch_cursor(self) -> None:
        self.refresh()
