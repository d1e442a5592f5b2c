"""Step 5, Lesson: a pre-filled, editable CLAUDE.md line in the recipe's format, appended under
`## Things that have bitten us`, then one commit holding the fix, its test and the lesson (only
those files). Outside git the lesson is written to CLAUDE.md only, and the screen says so."""
from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Label, Static, TextArea

from mltdbg.sessions.fixgate import first_test_name
from mltdbg.sessions.fixgate import _added_text
from mltdbg.sessions.lesson import LESSON_FILE, LessonError, NotAGitRepo, append_lesson, commit_fix, commit_message, lesson_entry
from .base import StepScreen


def _split_lesson(text: str) -> tuple[str, str, str]:
    """A playbook lesson "What. Caught from X. Added T. Lesson: L." -> (what, how caught, lesson)."""
    what, how, lesson = text, "", ""
    if "Lesson:" in text:
        text, lesson = text.split("Lesson:", 1)
    parts = [p.strip() for p in text.replace("\n", " ").split(". ") if p.strip()]
    what = parts[0] if parts else ""
    how = next((p for p in parts if p.lower().startswith("caught")), "")
    return what, how.replace("Caught from", "Caught by"), lesson.strip()


class LessonScreen(StepScreen):
    STEP = "lesson"
    CSS_PATH = "lesson.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back", id="back"),
        Binding("ctrl+s", "commit", "Write & commit", id="commit", priority=True),
    ]

    def compose(self) -> ComposeResult:
        app, st = self.mapp, self.state
        self.hid = app.focus_hypothesis()
        h = app.hypothesis(self.hid)
        fx = st.fix if st.fix and st.fix.status == "applied" else None
        test_name = first_test_name(_added_text(fx.test_diff)) if fx and fx.test_written and fx.test_diff else None
        what, how, lesson = _split_lesson(str(h.get("lesson") or ""))
        entry = (st.lesson or {}).get("text") or lesson_entry(
            app.now().date(),
            what or str(h.get("title") or h.get("issue") or "the bug"), how or "Caught by mltdbg, not by a test",
            test_name, lesson)
        msg = commit_message(str(h.get("title") or h.get("issue") or self.hid), self.hid, test_name)
        yield Header()
        with VerticalScroll(id="body"):
            yield Static(f"[b]5 Lesson[/b]  one line for {LESSON_FILE} (edit it), then one commit", id="what")
            yield TextArea(entry, id="entry", soft_wrap=True)
            yield Label("Commit message")
            yield TextArea(msg, id="message", soft_wrap=True)
            yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        if self.mapp.readonly:
            for w in self.query(TextArea):
                w.read_only = True
        self._show()
        self.query_one("#entry", TextArea).focus()

    def _files(self) -> list[str]:
        fx = self.state.fix
        if not (fx and fx.status == "applied"):
            return []
        return list(fx.files) + ([fx.test_file] if fx.test_written and fx.test_file else [])

    def _show(self) -> None:
        st = self.state
        lines = []
        files = self._files()
        if st.commits:
            c = st.commits[-1]
            lines.append(f"[b green]Committed {escape(c['sha'][:12])}[/]: {escape(c['message'].splitlines()[0])}")
            lines.append("files: " + escape(", ".join(c["files"])))
            lines.append(f"Done. ctrl+q quits; the session is kept: mltdbg-tui --replay {escape(self.mapp.session.id)} "
                         "shows it to a teammate.")
        elif not st.in_repo:
            lines.append("[yellow]Not a git repo: nothing can be committed.[/] ctrl+s writes the lesson to "
                         f"{LESSON_FILE} only.")
        else:
            lines.append("ctrl+s appends the line to CLAUDE.md and makes one commit of: "
                         + escape(", ".join(files + [LESSON_FILE])) + ". Nothing else is staged.")
            fx = st.fix
            if not (fx and fx.test_written):
                lines.append("[b yellow]The commit carries no test.[/]")
        if st.lesson:
            lines.append(f"lesson written to {escape(str(st.lesson.get('file') or LESSON_FILE))}")
        self.query_one("#status", Static).update("\n".join(lines))

    def action_commit(self) -> None:
        app, st = self.mapp, self.state
        if app.readonly or st.commits:
            return
        entry = self.query_one("#entry", TextArea).text.strip()
        if not entry:
            self.notify("the lesson is empty", severity="warning")
            return
        if st.lesson is None:   # a retried commit must not append the lesson twice
            try:
                append_lesson(app.root, entry, session=app.session)
            except OSError as e:
                self.notify(f"cannot write {LESSON_FILE}: {e.strerror or e}", severity="error")
                return
        try:
            sha = commit_fix(app.root, self._files() + [LESSON_FILE], self.query_one("#message", TextArea).text,
                             session=app.session)
        except NotAGitRepo as e:
            self.notify(str(e), severity="warning", timeout=10)
            self._show()
            return
        except LessonError as e:
            self.notify(str(e), severity="error", timeout=10)
            self._show()
            return
        self.notify(f"committed {sha[:12]}")
        self._show()

    def action_back(self) -> None:
        self.mapp.goto("fix", hypothesis_id=self.hid)
