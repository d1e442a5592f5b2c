"""The one-hour prompt: stop, re-read debug.md, reproduce the bug in 10 lines."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from mltdbg.analyzers.common.sanitize import visible


class ResetPrompt(ModalScreen[None]):
    DEFAULT_CSS = """
    ResetPrompt { align: center middle; }
    ResetPrompt > Vertical { width: 95%; max-width: 100; height: 90%; border: thick $warning; padding: 0 1;
                             background: $surface; }
    ResetPrompt VerticalScroll { height: 1fr; border: round $panel; }
    """
    BINDINGS = [Binding("escape,enter", "close", "Back to work", id="reset_close")]

    def __init__(self, debug_md: Path):
        super().__init__()
        self.debug_md = debug_md

    def compose(self) -> ComposeResult:
        try:
            text = self.debug_md.read_text(encoding="utf-8")
        except OSError as e:
            text = f"(cannot read {self.debug_md}: {e.strerror or e})"
        with Vertical():
            yield Static("[b]One hour on this bug.[/b] Stop and reset: re-read debug.md below, then reproduce "
                         "the failure in 10 lines before you try another fix.")
            with VerticalScroll():
                yield Static(Text(visible(text)))     # debug.md is session data: shown, never obeyed
            yield Static("Enter / Esc: back to work", classes="muted")

    def action_close(self) -> None:
        self.dismiss(None)
