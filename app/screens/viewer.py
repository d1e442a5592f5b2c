"""The artifact viewer, opened from a citation: the file at that line, `/` to search, n/N to jump
between the cited lines (or the search hits while a search is active), Esc to go back.
A large file opens at once: its line index is built in a worker (widgets.viewer); until then the header
says "indexing… N%", rows past the scanned part show estimated numbers (~), and search waits for the index."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Header, Input, Static

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.app.screens.base import step_footer
from mltdbg.app.widgets.viewer import ArtifactView


class ViewerScreen(Screen):
    BINDINGS = [
        Binding("escape", "back", "Back", id="viewer_back"),
        Binding("slash", "search", "Search", id="viewer_search"),
        Binding("n", "jump(1)", "Next cited/hit", id="viewer_next"),
        Binding("N", "jump(-1)", "Prev", id="viewer_prev"),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("pagedown,space", "move(20)", "Page down", show=False),
        Binding("pageup", "move(-20)", "Page up", show=False),
        Binding("g", "top", "Top", show=False),
        Binding("G", "bottom", "End", show=False),
    ]

    def __init__(self, path: Path, label: str, cited: list[int], start: int | None = None):
        super().__init__()
        self.path, self.label, self.cited_lines, self.start = path, label, cited, start
        self.hits: list[int] = []
        self._progress: Timer | None = None    # refreshes "indexing… N%" until the index is complete

    def compose(self) -> ComposeResult:
        yield Header()
        self.problem = ""
        try:
            self.view = ArtifactView(self.path, [c - 1 for c in self.cited_lines], id="view")
            self.problem = "(binary file: nothing to show as text)" if self.view.index.binary else ""
        except OSError as e:
            self.view, self.problem = None, f"cannot open {self.label}: {e.strerror or e}"
        yield Static(self._where(), id="where")
        if self.view is not None:
            yield self.view
        yield Input(placeholder="search (Enter)", id="search")
        yield step_footer()

    def _where(self) -> Text:
        idx = self.view.index if self.view else None
        count = "0 lines" if idx is None else f"{len(idx)} lines" if idx.ready else \
            f"indexing… {idx.progress:.0%}, ~{len(idx)} lines"
        return Text(visible(f"{self.label}  ({count}; > cited lines: {', '.join(map(str, self.cited_lines)) or 'none'})"
                            f" {self.problem}"))

    def on_mount(self) -> None:
        self.query_one("#search").display = False
        # No view (the file cannot be opened): nothing to search, and a focusable hidden field took the focus
        # and swallowed n/N as typed text.
        self.query_one("#search").disabled = self.view is None
        if self.view is not None:
            self.view.focus()
            # before the first layout: the view scrolls there as soon as it has its size (first frame at the line)
            self.view.goto((self.start or (self.cited_lines[0] if self.cited_lines else 1)) - 1)
            if not self.view.index.ready:
                self._progress = self.set_interval(0.25, self._show_progress)

    def _show_progress(self) -> None:
        self.query_one("#where", Static).update(self._where())

    @on(ArtifactView.Indexed)
    def _indexed(self) -> None:
        if self._progress is not None:
            self._progress.stop()
        self._show_progress()

    def action_back(self) -> None:
        inp = self.query_one("#search", Input)
        if inp.display:
            inp.display = False
            if self.view:
                self.view.focus()
            return
        if self.hits:
            self.hits = []
            if self.view:
                self.view.matches = set()
                self.view.refresh()
            return
        self.dismiss()

    def action_search(self) -> None:
        inp = self.query_one("#search", Input)
        inp.display = True
        inp.focus()

    @on(Input.Submitted, "#search")
    def _search(self, event: Input.Submitted) -> None:
        event.input.display = False
        if self.view is None:
            return
        if not self.view.index.ready:
            self.notify(f"still indexing ({self.view.index.progress:.0%}): search again in a moment", severity="warning")
            self.view.focus()
            return
        self.hits = self.view.index.search(event.value)
        self.view.matches = set(self.hits)
        self.view.focus()
        self.notify(f"{len(self.hits)} line(s) match {event.value!r}" + ("; n/N jump, Esc clears" if self.hits else ""))
        if self.hits:
            self.action_jump(1)

    def action_jump(self, direction: int) -> None:
        if self.view is None:
            return
        targets = self.hits or [c - 1 for c in self.cited_lines]
        if not targets:
            return
        cur = self.view.cursor
        after = [t for t in targets if (t > cur if direction > 0 else t < cur)]
        self.view.goto((after[0] if direction > 0 else after[-1]) if after else (targets[0] if direction > 0 else targets[-1]))

    def action_move(self, n: int) -> None:
        if self.view is not None:
            self.view.goto(self.view.cursor + n)

    def action_top(self) -> None:
        self.action_move(-10**12)

    def action_bottom(self) -> None:
        self.action_move(10**12)
