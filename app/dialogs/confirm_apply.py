"""The fix gate's confirmation: the files to be written, and an input where the user types `apply`.
A stray key cannot confirm: only the typed word, then Enter, returns it."""
from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.sessions.fixgate import CONFIRM_WORD


class ConfirmApply(ModalScreen[str | None]):
    """Returns what the user typed (the gate checks it), or None on Esc."""

    DEFAULT_CSS = """
    ConfirmApply { align: center middle; }
    ConfirmApply > Vertical { width: 90%; max-width: 90; height: auto; border: thick $warning; padding: 1 2;
                              background: $surface; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="confirm_cancel")]

    def __init__(self, files: list[str], heading: str = "This writes to your files:"):
        super().__init__()
        self.files, self.heading = files, heading

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(visible(self.heading)), classes="title")
            yield Static(Text("\n".join(f"  {visible(f, keep='')}" for f in self.files) or "  (nothing)"))
            yield Static(f"\nType [b]{CONFIRM_WORD}[/b] and press Enter to write them. Esc cancels.")
            yield Input(placeholder=CONFIRM_WORD, id="typed")

    def on_mount(self) -> None:
        self.query_one("#typed", Input).focus()

    @on(Input.Submitted, "#typed")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
