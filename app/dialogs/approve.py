"""Approve a command before it runs: the exact command, where it runs, and why it is flagged if it is."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from mltdbg.analyzers.common.safety import dangerous
from mltdbg.analyzers.common.sanitize import one_line, visible


class ApproveCommand(ModalScreen[bool]):
    """Returns True when the user pressed y (or Enter on an unflagged command); a flagged command needs y."""

    DEFAULT_CSS = """
    ApproveCommand { align: center middle; }
    ApproveCommand > Vertical { width: 90%; max-width: 100; height: auto; border: thick $accent; padding: 1 2;
                                background: $surface; }
    ApproveCommand #detail { height: auto; max-height: 8; }
    ApproveCommand .danger { color: $error; text-style: bold; }
    """
    BINDINGS = [Binding("y", "yes", "Run it", id="approve_yes"), Binding("enter", "enter", "Run", show=False),
                Binding("n,escape", "no", "Don't run", id="approve_no")]

    def __init__(self, command: str, cwd: Path, question: str, python: str | None = None, note: str = "",
                 detail: str = ""):
        """cwd: where it really runs (a scratch copy for an instrumented check); python: the interpreter
        `python` means there (UserPython.describe()); note: a short line after the cwd; detail: what else
        runs with it (an instrumentation snippet), shown as is."""
        super().__init__()
        self.command, self.cwd, self.question, self.detail = command, cwd, question, detail
        self.python, self.note = python, note
        self.flag = dangerous(command, cwd)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(visible(self.question)), classes="title")
            # The whole command on one line, newlines as ⏎ and control characters as ^X: what runs is what shows.
            yield Static(Text(f"\n  $ {one_line(self.command)}\n\n  in {visible(str(self.cwd), keep='')}"
                              + (f"\n     {visible(self.note, keep='')}" if self.note else "")
                              + (f"\n  python: {visible(self.python, keep='')}" if self.python else "") + "\n"))
            if self.detail:
                with VerticalScroll(id="detail"):
                    yield Static(Text(visible(self.detail)))
            if self.flag:
                yield Static(Text(visible(f"FLAGGED: this command {self.flag}. Read it before you run it.")),
                             classes="danger")
            yield Static("y: run it    n / Esc: don't" + ("" if self.flag else "    Enter: run"))

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_enter(self) -> None:
        if not self.flag:
            self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)
