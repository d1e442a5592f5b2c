"""Lessons that come back, on the capture screen: as soon as a traceback is pasted, the repo's lessons
that fit it (CLAUDE.md's "Things that have bitten us" and earlier sessions' confirmed causes).

Data in: the repo root and the current session's id (`load`, read in a worker thread), then the trace text
(`match_later`, debounced). Out: a short list, best first: date, file:line, the lesson and why it fits.
Lesson and trace text are data: they go into rich `Text`, never into markup.
"""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.widgets import Static

# A pasted trace is matched after this pause in typing.
MATCH_DELAY_S = 0.3
MAX_SHOWN = 4


class LessonsPanel(Static):
    DEFAULT_CSS = """
    LessonsPanel { height: auto; max-height: 8; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None):
        super().__init__("", id=id)
        self.lessons: list = []
        self.notes: list[str] = []
        self.matches: list = []
        self._causes: dict | None = None
        self._pending: str | None = None
        self._timer = None
        self.shown = Text()

    def on_mount(self) -> None:
        self.display = False

    def load(self, repo_root: Path, session_id: str | None = None) -> None:
        self._load(Path(repo_root), session_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="lessons")
    def _load(self, root: Path, session_id: str | None) -> None:
        from mltdbg.playbooks.recall import cause_words  # noqa: PLC0415 - YAML playbooks: only when the panel loads
        from mltdbg.sessions.history import repo_lessons  # noqa: PLC0415 - reads every session: in the worker
        ls = repo_lessons(root, exclude=session_id)
        causes = cause_words()
        self.app.call_from_thread(self._loaded, ls.lessons, ls.notes, causes)

    def _loaded(self, lessons: list, notes: list[str], causes: dict) -> None:
        self.lessons, self.notes, self._causes = lessons, notes, causes
        if self._pending is not None:
            self.match_now(self._pending)

    def match_later(self, text: str) -> None:
        self._pending = text
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(MATCH_DELAY_S, lambda: self.match_now(text))

    def match_now(self, text: str) -> None:
        from mltdbg.analyzers.lessons import related_to_text  # noqa: PLC0415 - a pure function, imported where used
        self._pending = text
        self.matches = related_to_text(self.lessons, text, self._causes) if self.lessons and text.strip() else []
        self._show()

    def _show(self) -> None:
        self.display = bool(self.matches)
        out = Text()
        if self.matches:
            out.append("Seen before in this repo", style="bold yellow")
            out.append("  (lessons are hints, not proof)\n", style="dim")
        for m in self.matches[:MAX_SHOWN]:
            ls = m.lesson
            out.append(f"{ls.when}  ", style="bold")
            out.append(f"{ls.where}  ", style="dim")
            out.append(ls.headline(100))
            out.append(f"  ({', '.join(m.reasons)})\n", style="dim")
            if ls.fix:
                out.append("    fixed then: ", style="dim")
                out.append(ls.fix[:120] + "\n")
        self.shown = out
        self.update(out)
