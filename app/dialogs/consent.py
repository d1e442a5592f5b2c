"""Ask once whether artifact excerpts and code may be sent to Anthropic (the Claude engine)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ClaudeConsent(ModalScreen[bool]):
    """Returns True when the user agrees (y); the caller stores the answer in the user config."""

    DEFAULT_CSS = """
    ClaudeConsent { align: center middle; }
    ClaudeConsent > Vertical { width: 90%; max-width: 90; height: auto; border: thick $warning; padding: 1 2;
                               background: $surface; }
    """
    BINDINGS = [Binding("y", "yes", "Agree", id="consent_yes"),
                Binding("n,escape", "no", "Stay offline", id="consent_no")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("[b]Use the Claude engine?[/b]")
            yield Static(
                "\nANTHROPIC_API_KEY is set. With your agreement, mltdbg sends excerpts of the chosen artifacts "
                "and code (secrets redacted, big files cut to head, tail and windows) to Anthropic's API, "
                "and merges Claude's hypotheses with the offline ones. Its tools are read-only; nothing runs "
                "or is written without your approval.\n\nThe answer is stored in your mltdbg config; "
                "`--engine offline` always stays local.\n")
            yield Static("y: agree    n / Esc: stay offline")

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)
