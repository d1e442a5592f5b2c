"""Step 1, Capture: the failing command, what was expected, what happened (the trace), what was tried,
and the artifacts to read. Every edit is a `capture_edited` event (debug.md follows); artifacts are
toggled in a list (`artifacts_chosen`). The trace can be pasted or captured by running the command
after approval (a recorded check)."""
from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Header, Input, Label, RichLog, SelectionList, Static, TextArea
from textual.widgets.selection_list import Selection

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.app.messages import OutputLine
from mltdbg.app.screens.base import StepScreen, load_engine, step_footer
from mltdbg.app.widgets.lessons import LessonsPanel

SAVE_DELAY_S = 0.4          # an edit is recorded after this pause in typing (each append is an fsync)
MAX_LISTED = 300            # artifacts listed from a folder walk; more are read when the folder is chosen
TRACE_LINES = 200           # lines of a captured run's output put into "What happened"
CAPTURE_TIMEOUT_S = 1800


def discover(root: Path, limit: int = MAX_LISTED) -> list[str]:
    """Files under root (relative, posix), skipping VCS/venv/cache folders; at most `limit`."""
    # the reader package (numpy with it) loads here, in the discovery worker, not before the first paint
    from mltdbg.analyzers.ingest import SKIP_DIRS  # noqa: PLC0415 - see above
    out: list[str] = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith(".mltdbg"))
        for f in sorted(files):
            out.append((Path(d) / f).relative_to(root).as_posix())
            if len(out) >= limit:
                return out
    return out


class CaptureScreen(StepScreen):
    STEP = "capture"
    BINDINGS = [
        Binding("ctrl+n", "next", "Next: diagnose", id="next", priority=True),
        Binding("ctrl+r", "run_command", "Run command", id="run_command", priority=True),
        Binding("ctrl+g", "cancel_run", "Cancel run", id="cancel_run", show=False, priority=True),
    ]

    class CommandFinished(Message):
        def __init__(self, result) -> None:
            super().__init__()
            self.result = result

    class ArtifactsFound(Message):
        def __init__(self, paths: list[str]) -> None:
            super().__init__()
            self.paths = paths

    def __init__(self) -> None:
        super().__init__()
        self._save_timers: dict[str, object] = {}
        self._run = None

    def compose(self) -> ComposeResult:
        c = self.state.capture
        yield Header()
        with VerticalScroll(id="form"):
            yield Static("[b]1 Capture[/b]  write it down before you debug: it becomes debug.md", id="intro")
            for msg in self.mapp.problems:
                yield Static(Text(visible(f"! {msg}")), classes="problem")
            yield Label("Command that fails")
            yield Input(c.get("command", ""), placeholder="e.g. python train.py --config cfg.yaml", id="command")
            yield Label("What I expected")
            yield Input(c.get("expected", ""), placeholder="e.g. loss below 0.8 after 300 steps", id="expected")
            yield Label("What happened (paste the full stack trace, or ctrl+r runs the command)")
            yield TextArea(c.get("happened", ""), id="happened", soft_wrap=False)
            yield LessonsPanel(id="lessons")
            yield RichLog(id="run_output", max_lines=2000, markup=False, wrap=False)
            yield Label("What I've already tried")
            yield Input(c.get("tried", ""), placeholder="e.g. lowered the lr; same", id="tried")
            yield Label("Artifacts to read (space toggles)")
            yield SelectionList[str](id="artifacts")
            with Horizontal(id="addrow"):
                yield Input(placeholder="add a path (file or folder), Enter", id="add_path")
            yield Static("", id="saved", classes="muted")
        yield step_footer()

    def on_mount(self) -> None:
        self.query_one("#run_output").display = False
        ro = self.mapp.readonly
        for w in self.query("Input, TextArea"):
            if ro:
                w.disabled = True
        self.query_one("#command", Input).focus()
        self._discover(self.mapp.root)
        self._show_saved()
        lessons = self.query_one(LessonsPanel)
        lessons.load(self.mapp.root, getattr(self.mapp.session, "id", None))
        lessons.match_later(self.query_one("#happened", TextArea).text)

    # ----- saving as the user types ------------------------------------------------------------
    @on(Input.Changed, "#command, #expected, #tried")
    def _input_changed(self, event: Input.Changed) -> None:
        self._schedule(event.input.id, event.value)

    @on(TextArea.Changed, "#happened")
    def _trace_changed(self, event: TextArea.Changed) -> None:
        self._schedule("happened", event.text_area.text)
        self.query_one(LessonsPanel).match_later(event.text_area.text)

    def _schedule(self, field: str, value: str) -> None:
        old = self._save_timers.pop(field, None)
        if old is not None:
            old.stop()
        self._save_timers[field] = self.set_timer(SAVE_DELAY_S, lambda: self._save(field, value))

    def _save(self, field: str, value: str) -> None:
        self._save_timers.pop(field, None)
        if self.mapp.readonly or self.state.capture.get(field, "") == value:
            return
        self.mapp.record("capture_edited", {"field": field, "value": value})
        self._show_saved()

    def flush(self) -> None:
        """Record every pending edit now (before leaving the screen)."""
        for t in self._save_timers.values():
            t.stop()
        self._save_timers.clear()
        vals = {"command": self.query_one("#command", Input).value, "expected": self.query_one("#expected", Input).value,
                "tried": self.query_one("#tried", Input).value, "happened": self.query_one("#happened", TextArea).text}
        for k, v in vals.items():
            self._save(k, v)

    def _show_saved(self) -> None:
        self.query_one("#saved", Static).update("saved as you type to debug.md in the session folder"
                                                + ("  (read-only: not saved)" if self.mapp.readonly else ""))

    # ----- artifacts ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="discover")
    def _discover(self, root: Path) -> None:
        self.post_message(self.ArtifactsFound(discover(root)))
        # while the user writes debug.md: load what the first diagnosis would (playbooks, weights,
        # compiled patterns), so "next: diagnose" does not pay for it (a failure here costs nothing)
        try:
            load_engine()      # (after the first paint, in this worker)
        except Exception:  # noqa: BLE001, S110 - the diagnosis itself loads all of it again and reports
            pass

    @on(ArtifactsFound)
    def _found(self, event: ArtifactsFound) -> None:
        st = self.state
        chosen_before = bool(st.artifacts or st.excluded)
        entries = list(dict.fromkeys(st.artifacts + event.paths + st.excluded))
        sl = self.query_one("#artifacts", SelectionList)
        sl.clear_options()
        for p in entries:
            on_ = p in st.artifacts if chosen_before else p not in st.excluded
            sl.add_option(Selection(Text(visible(p, keep="")), p, on_))
        if not chosen_before and not self.mapp.readonly:
            self._record_artifacts()

    @on(SelectionList.SelectedChanged, "#artifacts")
    def _toggled(self) -> None:
        self._record_artifacts()

    def _record_artifacts(self) -> None:
        if self.mapp.readonly:
            return
        sl = self.query_one("#artifacts", SelectionList)
        chosen = list(sl.selected)
        every = [sl.get_option_at_index(i).value for i in range(sl.option_count)]
        excluded = [p for p in every if p not in chosen]
        st = self.state
        if chosen != st.artifacts or excluded != st.excluded:
            self.mapp.record("artifacts_chosen", {"paths": chosen, "excluded": excluded})

    @on(Input.Submitted, "#add_path")
    def _add_path(self, event: Input.Submitted) -> None:
        raw = event.value.strip()
        if not raw:
            return
        p = Path(os.path.expanduser(raw))
        p = p if p.is_absolute() else self.mapp.root / p
        if not p.exists():
            self.notify(f"{raw}: no such file or directory", severity="error")
            return
        rel = self.mapp.session.rel(p) if self.mapp.session else str(p)
        sl = self.query_one("#artifacts", SelectionList)
        if rel not in [sl.get_option_at_index(i).value for i in range(sl.option_count)]:
            sl.add_option(Selection(Text(visible(rel, keep="")), rel, True))
        else:
            sl.select(rel)
        event.input.value = ""
        self._record_artifacts()

    # ----- capturing the trace by running the command ------------------------------------------
    def action_run_command(self) -> None:
        if self.mapp.readonly or self._run is not None:
            return
        cmd = self.query_one("#command", Input).value.strip()
        if not cmd:
            self.notify("write the failing command first", severity="warning")
            return
        from mltdbg.app.dialogs.approve import ApproveCommand  # noqa: PLC0415 - a dialog, loaded when first asked
        self.app.push_screen(ApproveCommand(cmd, self.mapp.root, "Run the failing command to capture what it prints?",
                                            python=self.mapp.user_python().describe()),
                         lambda ok: self._start(cmd) if ok else None)

    def _start(self, cmd: str) -> None:
        self.flush()
        log = self.query_one("#run_output", RichLog)
        log.clear()
        log.display = True
        log.write(Text(visible(f"$ {cmd}")))
        self._run_command(cmd)

    @work(thread=True, exclusive=True, exit_on_error=False, group="capture")
    def _run_command(self, cmd: str) -> None:
        from mltdbg.sessions.checks import CheckRun  # noqa: PLC0415 - process-group code: only when a command runs
        self._run = CheckRun(cmd, self.mapp.root, CAPTURE_TIMEOUT_S, session=self.mapp.session,
                             on_line=lambda ln: self.post_message(OutputLine(ln)), env=self.mapp.check_env(),
                             record={"purpose": "capture"})
        self.post_message(self.CommandFinished(self._run.run()))

    def action_cancel_run(self) -> None:
        if self._run is not None:
            self._run.cancel()

    @on(OutputLine)
    def _line(self, event: OutputLine) -> None:
        self.query_one("#run_output", RichLog).write(Text(visible(event.line)))

    @on(CommandFinished)
    def _finished(self, event: CommandFinished) -> None:
        r, self._run = event.result, None
        tail = "\n".join(r.output.rstrip("\n").split("\n")[-TRACE_LINES:])
        how = r.error or (f"exit code {r.exit_code}" + (", timed out" if r.timed_out else "")
                          + (", cancelled" if r.cancelled else ""))
        ta = self.query_one("#happened", TextArea)
        ta.text = f"$ {r.command}\n{tail}\n({how})"
        self._save("happened", ta.text)
        self.query_one("#run_output", RichLog).display = False
        self.notify(f"captured the output ({how}) into What happened")

    def worker_failed(self, name, error) -> None:
        self._run = None

    # ----- leaving -----------------------------------------------------------------------------
    def action_next(self) -> None:
        if self._run is not None:
            self.notify("the command is still running (ctrl+g cancels it)", severity="warning")
            return
        if not self.mapp.readonly:
            self.flush()
        self.mapp.goto("diagnose")
