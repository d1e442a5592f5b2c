"""Step 5, Lesson: a pre-filled, editable CLAUDE.md line in the recipe's format, appended under
`## Things that have bitten us`, then one commit holding the fix, its test and the lesson (only
those files). Outside git the lesson is written to CLAUDE.md only, and the screen says so.
The draft (line, message, files) is `mltdbg.sessions.lesson.lesson_draft`."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Header, Label, Static, TextArea

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.app.screens.base import StepScreen, step_footer
from mltdbg.sessions.lesson import LESSON_FILE, LessonError, NotAGitRepo, append_lesson, commit_fix, lesson_draft, lesson_files


class LessonScreen(StepScreen):
    STEP = "lesson"
    BINDINGS = [
        Binding("ctrl+s", "commit", "Write & commit", id="commit", priority=True),
        Binding("escape", "back", "Back", id="back"),
    ]

    def compose(self) -> ComposeResult:
        app = self.mapp
        self.hid = app.focus_hypothesis()
        draft = lesson_draft(self.state, self.hid, app.now().date())
        yield Header()
        with VerticalScroll(id="body"):
            yield Static(f"[b]5 Lesson[/b]  one line for {LESSON_FILE} (edit it), then one commit", id="what")
            yield TextArea(draft.entry, id="entry", soft_wrap=True)
            yield Label("Commit message")
            yield TextArea(draft.message, id="message", soft_wrap=True)
            yield Static("", id="status")
        yield step_footer()

    def on_mount(self) -> None:
        if self.mapp.readonly:
            for w in self.query(TextArea):
                w.read_only = True
        self._show()
        self.query_one("#entry", TextArea).focus()

    def _show(self) -> None:
        st = self.state
        lines: list[Text] = []        # commit sha, message, file names come from the session log: Text only
        files = lesson_files(st)
        if st.commits:
            c = st.commits[-1]
            msg = (str(c.get("message") or "").splitlines() or [""])[0]
            lines.append(Text.assemble((visible(f"Committed {str(c.get('sha', ''))[:12]}", keep=""), "bold #008000"),
                                       ": " + visible(msg, keep="")))
            lines.append(Text("files: " + visible(", ".join(map(str, c.get("files", []))))))
            lines.append(Text(visible(f"Done. ctrl+q quits; the session is kept: mltdbg-tui --replay "
                                      f"{self.mapp.session.id} shows it to a teammate.")))
        elif not st.in_repo:
            lines.append(Text.assemble(("Not a git repo: nothing can be committed.", "#ffff00"),
                                       f" ctrl+s writes the lesson to {LESSON_FILE} only."))
        else:
            lines.append(Text("ctrl+s appends the line to CLAUDE.md and makes one commit of: "
                              + visible(", ".join(files + [LESSON_FILE])) + ". Nothing else is staged."))
            fx = st.fix
            if not (fx and fx.test_written):
                lines.append(Text("The commit carries no test.", style="bold #ffff00"))
            if fx and fx.status == "applied" and st.verified is not True:
                lines.append(Text("The latest verification failed: the fix may not work. Esc goes back to verify "
                                  "again; the commit message says it failed.", style="bold #ff0000") if st.verified is False
                             else Text("Not verified yet: Esc goes back, v verifies.", style="bold #ffff00"))
        if st.lesson:
            lines.append(Text("lesson written to " + visible(str(st.lesson.get("file") or LESSON_FILE))))
        self.query_one("#status", Static).update(Text("\n").join(lines))

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
            sha = commit_fix(app.root, lesson_files(st) + [LESSON_FILE], self.query_one("#message", TextArea).text,
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
