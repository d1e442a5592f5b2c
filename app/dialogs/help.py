"""The help screen: the steps, and every key of the screen it was opened from."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

STEPS_TEXT = """[b]mltdbg-tui[/b]: a guided debugging session, one step per screen.
Esc, q or F1 closes this help.

  1 Capture      the command, what you expected, what happened
  2 Hypotheses   ranked root causes with evidence, beside the curves
  3 Check        one hypothesis's minimal check, then the verdict
  4 Fix          the fix as a diff, a test, typed confirmation, verify
  5 Lesson       one line in CLAUDE.md and one commit

Everything you do is recorded in the session: mltdbg-tui --resume
continues it, --replay ID shows it read-only. Esc goes back a step.
"""


def _key(k: str) -> str:
    return k.replace("question_mark", "?").replace("ctrl+", "^").replace("escape", "Esc")


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 95%; max-width: 100; height: 90%; border: thick $accent; padding: 0 1;
                                  background: $surface; }
    """
    BINDINGS = [Binding("escape,q,f1,question_mark", "close", "Close", id="help_close")]

    def __init__(self, under: Screen):
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        rows = []
        seen = set()
        for b in list(getattr(self.under, "BINDINGS", [])) + list(self.app.BINDINGS):
            if isinstance(b, Binding) and b.description and b.action not in seen:
                seen.add(b.action)
                rows.append(f"  {_key(b.key):<22} {b.description}")
        with VerticalScroll():
            yield Static(STEPS_TEXT)
            yield Static("[b]Keys here[/b]\n" + "\n".join(rows), markup=True)

    def action_close(self) -> None:
        self.dismiss(None)
