"""Textual messages shared by several screens (one definition each).

OutputLine(line): one line a running command printed (a check, a captured run, a verification),
posted from the worker thread that runs it to the screen that shows it. The text is the
command's own output: show it with markup off.
"""
from __future__ import annotations

from textual.message import Message


class OutputLine(Message):
    """A line of a running command's output (untrusted text: never render it as markup)."""

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line
