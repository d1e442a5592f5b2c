"""`--resume` without an id: pick a session (name, start, status, last step)."""
from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.sessions import list_sessions


class SessionPicker(Screen[str | None]):
    BINDINGS = [Binding("enter", "pick", "Resume", id="pick"), Binding("escape", "cancel", "Quit", id="pick_cancel")]

    def __init__(self, cwd: str):
        super().__init__()
        self.cwd = cwd

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Resume which session? (newest first)")
        yield DataTable(id="sessions", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        t = self.query_one(DataTable)
        t.add_columns("name", "started", "status", "last step", "title")
        rows = list(reversed(list_sessions(self.cwd)))
        for s in rows:
            status = "open elsewhere" if s.live else ("fixed" if s.step == "lesson" else "in progress")
            # Cells from the session folder are data: a str cell would be parsed as markup by DataTable.
            t.add_row(*(Text(visible(str(v), keep="")) for v in
                        (s.name or s.id, s.created_at[:16].replace("T", " "), status, s.step, (s.title or "-")[:40])),
                      key=s.id)
        if not rows:
            self.query_one(Static).update("No sessions in this repo yet. Esc quits; run mltdbg-tui to start one.")
        t.focus()

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_pick(self) -> None:
        t = self.query_one(DataTable)
        if t.row_count:
            self.dismiss(t.coordinate_to_cell_key(t.cursor_coordinate).row_key.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
