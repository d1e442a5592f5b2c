"""Edit an instrumentation snippet before its check runs: the names mltdbg could not read from the
user's code are marked `<<name?>>` and listed ("fill in: model, loader"). ctrl+s returns the edited
text (the caller re-binds it and still refuses while a marker is left); Esc returns None."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from mltdbg.sessions.instrument import unresolved_in


def fill_in_line(text: str) -> Text:
    """The line under the editor: which markers are left, or that none is."""
    left = unresolved_in(text)
    if left:
        return Text.assemble(("fill in: ", "bold #ffff00"), ", ".join(left),
                             "  (replace each <<name?>> with the name your code uses)")
    return Text("no marker left: ctrl+s saves, then a runs the check after approval", style="#00ff00")


class EditSnippet(ModalScreen["str | None"]):
    DEFAULT_CSS = """
    EditSnippet { align: center middle; }
    EditSnippet > Vertical { width: 100%; height: 100%; border: thick $accent; background: $surface; }
    EditSnippet TextArea { height: 1fr; }
    EditSnippet #fill { height: auto; }
    """
    BINDINGS = [Binding("ctrl+s", "save", "Save", id="snippet_save", priority=True),
                Binding("escape", "cancel", "Cancel", id="snippet_cancel", priority=True)]

    def __init__(self, snippet: str) -> None:
        super().__init__()
        self.snippet = snippet

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Edit the instrumentation (it goes into a scratch copy only):", classes="title")
            yield TextArea(self.snippet, language=None, id="snippet", soft_wrap=False, show_line_numbers=True)
            yield Static(fill_in_line(self.snippet), id="fill")
        yield Footer()

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        self._mark(area)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.query_one("#fill", Static).update(fill_in_line(event.text_area.text))

    def _mark(self, area: TextArea) -> None:
        """Put the cursor on the first marker, selected, so typing replaces it."""
        for row, line in enumerate(area.text.split("\n")):
            col = line.find("<<")
            if col >= 0:
                end = line.find("?>>", col)
                area.selection = ((row, col), (row, end + 3 if end >= 0 else col + 2))
                return

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)
