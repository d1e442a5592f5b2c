"""Step 3, Check: the selected hypothesis's minimal check. The exact command is shown (flagged when
dangerous); the user approves, edits or skips it. Instrumentation goes into a scratch worktree only,
and its diff is shown before anything runs. Output streams live; one key cancels the whole process
group. Then the verdict (confirmed / denied / inconclusive) goes back to the ranking."""
from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Header, Input, RichLog, Static

from mltdbg.analyzers.common.safety import dangerous
from mltdbg.analyzers.common.sanitize import visible
from mltdbg.app.dialogs.approve import ApproveCommand
from mltdbg.app.dialogs.snippet import EditSnippet
from mltdbg.app.messages import OutputLine
from mltdbg.app.screens.base import StepScreen, step_footer
from mltdbg.app.screens.probe import holds_probe, open_probe_view
from mltdbg.sessions.checks import DEFAULT_TIMEOUT_S, CheckRun
from mltdbg.sessions.instrument import bind, placeholders, resolve_names
from mltdbg.sessions.scratch import ScratchError, ScratchWorktree

VERDICT_KEYS = {"1": "confirmed", "2": "denied", "3": "inconclusive"}


class CheckScreen(StepScreen):
    STEP = "check"
    # Footer order is priority order (80 columns hold them all); which show depends on the state (check_action).
    BINDINGS = [
        Binding("x", "cancel", "Cancel run", id="cancel"),
        Binding("a", "approve", "Run", id="approve"),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("i", "edit_snippet", "Snippet", id="edit_snippet"),
        Binding("s", "skip", "Skip", id="skip"),
        Binding("1", "verdict('confirmed')", "Confirm", id="confirmed"),
        Binding("2", "verdict('denied')", "Deny", id="denied"),
        Binding("3", "verdict('inconclusive')", "Unsure", id="inconclusive"),
        Binding("escape", "back", "Back", id="back"),
        # After Back: shown when 80 columns leave room (the hypotheses screen always shows it).
        Binding("p", "probe", "Probe", id="probe"),     # a probe result in the session (e.g. this check's)
    ]

    class CheckFinished(Message):
        def __init__(self, result) -> None:
            super().__init__()
            self.result = result

    class ScratchReady(Message):
        def __init__(self, diff: str, error: str | None, snippet: str = "", left: list[str] | None = None) -> None:
            super().__init__()
            self.diff, self.error = diff, error
            self.snippet, self.left = snippet, list(left or [])     # the bound snippet; markers left in it

    def __init__(self) -> None:
        super().__init__()
        self.hid = None
        self._run: CheckRun | None = None       # the check running now (set before its worker starts)
        self._wt: ScratchWorktree | None = None
        self._snippet = ""                      # the instrumentation as bound to the user's file (what `i` edits)
        self._left: list[str] = []              # `<<name?>>` markers still in the scratch copy

    def compose(self) -> ComposeResult:
        app = self.mapp
        self.hid = app.focus_hypothesis()
        h = app.hypothesis(self.hid)
        yield Header()
        with VerticalScroll(id="top"):
            yield Static("", id="interrupted")
            yield Static(Text.assemble(("3 Check", "bold"), "  ",
                                       visible(f"{self.hid}: {h.check or 'no check written'}")), id="what")
            yield Input(self.state.check_command(self.hid), id="cmd")
            yield Static("", id="flag")
            yield Static("", id="instr")
        yield RichLog(id="out", max_lines=5000, markup=False, wrap=False)
        yield Static("", id="verdict_bar")
        yield step_footer()

    def on_mount(self) -> None:
        out = self.query_one("#out", RichLog)
        self._flag()
        last = self._last_check()
        if last is not None:
            # The status first: a long command is cut at the panel's edge (no wrap), its outcome must not be.
            out.write(Text(visible(f"[{last.status}" + (f", exit {last.exit_code}" if last.exit_code is not None else "")
                                   + f"] $ {last.command}")))
            out.write(Text(visible(last.output or "")))
        if self._interrupted():
            # First line of the panel, so it is seen at 80x24 whatever the output's length.
            self.query_one("#interrupted", Static).update(Text.assemble(
                ("INTERRUPTED:", "bold #ffff00"), " this check never finished (mltdbg-tui closed mid-run); its output "
                "is incomplete. a runs it again, s skips it."))
        else:
            if self.query_one("#cmd", Input).value.strip():
                out.write("Press a to approve and run the command, e to edit it, s to skip this check.")
            else:
                out.write("No command for this check yet: press e to write one (it runs only after you approve "
                          "it), 1/2/3 to record what you found by hand, s to skip.")
        self._verdict_bar()
        out.focus()
        plan = self.state.plans.get(self.hid or "")
        # An edit the user saved (resume, replay) wins over the playbook's snippet.
        instr = (plan.instrumentation if plan else None) or self.mapp.hypothesis(self.hid).instrumentation
        if instr and not self.mapp.readonly:
            self.query_one("#instr", Static).update("preparing the scratch copy for the instrumentation ...")
            self._scratch(instr)

    def on_unmount(self) -> None:
        if self._run is not None:
            self._run.cancel(interrupted=True)
        if self._wt is not None:
            self._wt.close()

    def _last_check(self):
        runs = [c for c in self.state.checks.values() if c.hypothesis_id == self.hid]
        return runs[-1] if runs else None

    def _interrupted(self) -> bool:
        """The latest check of this hypothesis never finished (killed with the TUI): no verdict from it."""
        last = self._last_check()
        return self._run is None and last is not None and last.status == "interrupted"

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Keys that make no sense now are hidden and inactive: verdicts while running or after an interrupted
        check, cancel when nothing runs, approve/edit/skip while running."""
        running = self._run is not None
        if action == "cancel":
            return running
        if action in ("approve", "edit", "skip"):
            return not running
        if action == "edit_snippet":
            return not running and bool(self._snippet) and not self.mapp.readonly
        if action == "verdict":
            return not running and not self._interrupted()
        if action == "probe":
            return not running and holds_probe(self.state, self.mapp.root)
        return True

    def _flag(self) -> None:
        why = dangerous(self.query_one("#cmd", Input).value, self.mapp.root)
        self.query_one("#flag", Static).update(
            Text.assemble(("FLAGGED:", "bold #ff0000"), " this command " + visible(why)) if why else
            Text(f"runs in {'a scratch copy of the repo' if self._wt is not None else 'the repo'}, in its own process group, "
                 f"timeout {DEFAULT_TIMEOUT_S:.0f} s", style="dim"))

    def _verdict_bar(self) -> None:
        v = self.state.verdicts.get(self.hid or "")
        last = self._last_check()
        txt = Text.assemble("verdict: ", (visible(str(v.verdict)), "bold"), ". ") if v else Text()
        self.query_one("#interrupted", Static).display = self._interrupted()
        self.refresh_bindings()
        if self._run is not None:
            txt.append("running ... x cancels it (the whole process group)")
        elif self._interrupted():
            txt.append("interrupted check: a runs it again, s skips it")
        elif last is not None:
            txt.append("What does the output say? 1 confirmed  2 denied  3 inconclusive")
        self.query_one("#verdict_bar", Static).update(txt)

    # ----- instrumentation in a scratch copy ---------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="scratch")
    def _scratch(self, snippet: str) -> None:
        old, self._wt = self._wt, None
        if old is not None:
            old.close()
        wt = ScratchWorktree(self.mapp.root)
        try:
            wt.open()
            rel = wt.instrument(snippet)
            bound = snippet
            if placeholders(snippet):       # the snippet as bound to that file: what the editor shows
                try:
                    # the user's own file (the scratch copy's is already instrumented), read only
                    user_text = (Path(self.mapp.root) / rel).read_text(encoding="utf-8")
                    bound = bind(snippet, resolve_names(user_text, rel)).text
                except (OSError, UnicodeDecodeError):
                    pass
            self._wt = wt
            self.post_message(self.ScratchReady(wt.diff(), None, bound, wt.unresolved_names()))
        except (ScratchError, OSError) as e:
            wt.close()
            self.post_message(self.ScratchReady("", str(e)))

    @on(ScratchReady)
    def _scratch_ready(self, event: ScratchReady) -> None:
        w = self.query_one("#instr", Static)
        self._snippet, self._left = event.snippet, event.left
        self._flag()      # where the command runs follows the scratch copy (self._wt): say so
        self.refresh_bindings()
        if event.error:
            w.update(Text.assemble(("instrumentation not applied:", "#ffff00"),
                                   f" {visible(event.error)}. The command runs uninstrumented."))
        elif event.left:
            w.update(Text.assemble((self._refused(), "bold #ffff00"), "\n",
                                   visible(event.diff)))
        else:
            w.update(Syntax("# instrumentation, in a scratch copy only (your tree is not touched):\n" + visible(event.diff),
                            "diff", theme="ansi_dark", word_wrap=False))

    def _refused(self) -> str:
        names = ", ".join(self._left)
        return (f"not runnable yet: fill in {names} (mltdbg could not find {'these names' if len(self._left) > 1 else 'this name'} "
                "in your code); i edits the snippet")

    def action_edit_snippet(self) -> None:
        if self.mapp.readonly or self._run is not None or not self._snippet:
            return
        self.app.push_screen(EditSnippet(self._snippet), self._snippet_saved)

    def _snippet_saved(self, text: str | None) -> None:
        if text is None or text == self._snippet:
            return
        cmd = self.query_one("#cmd", Input).value.strip() or self.state.check_command(self.hid)
        self.mapp.record("check_edited", {"hypothesis_id": self.hid, "command": cmd, "instrumentation": text})
        self._snippet = text
        self.query_one("#instr", Static).update("re-instrumenting the scratch copy with your edit ...")
        self._scratch(text)

    # ----- the decision ------------------------------------------------------------------------
    def action_edit(self) -> None:
        if not self.mapp.readonly:
            self.query_one("#cmd", Input).focus()

    @on(Input.Submitted, "#cmd")
    def _edited(self, event: Input.Submitted) -> None:
        self._record_edit()
        self._flag()
        self.query_one("#out").focus()

    @on(Input.Changed, "#cmd")
    def _changed(self) -> None:
        self._flag()

    def _record_edit(self) -> None:
        cmd = self.query_one("#cmd", Input).value.strip()
        before = self.state.check_command(self.hid)
        if cmd and cmd != before:
            self.mapp.record("check_edited", {"hypothesis_id": self.hid, "command": cmd, "original_command": before})

    def action_approve(self) -> None:
        if self.mapp.readonly or self._run is not None:
            return
        cmd = self.query_one("#cmd", Input).value.strip()
        if not cmd:
            self.notify("no command to run: press e and write one", severity="warning")
            return
        if self._left:
            self.notify(self._refused(), severity="error", markup=False)
            return
        self._record_edit()
        wt = self._wt.path if self._wt is not None else None
        self.app.push_screen(ApproveCommand(cmd, wt or self.mapp.root, "Run this check?",
                                            python=self.mapp.user_python().describe(),
                                            note=f"(a scratch copy of {self.mapp.root}, with the instrumentation)" if wt else "",
                                            detail=self._wt.diff() if self._wt is not None else ""),
                             lambda ok: self._start(cmd) if ok else None)

    def _start(self, cmd: str) -> None:
        self.mapp.record("check_approved", {"hypothesis_id": self.hid, "command": cmd})
        out = self.query_one("#out", RichLog)
        out.clear()
        out.write(Text(visible(f"$ {cmd}") + ("   (in a scratch copy with the instrumentation)" if self._wt else "")))
        # The run exists before its worker starts: the bar shows "running", and a cancel (x, or leaving the
        # screen) that comes first is kept by the run and ends it as soon as it starts.
        app = self.mapp
        kw = dict(session=app.session, hypothesis_id=self.hid, timeout_s=DEFAULT_TIMEOUT_S, env=app.check_env(),
                  on_line=lambda ln: self.post_message(OutputLine(ln)))
        try:
            self._run = self._wt.check(cmd, **kw) if self._wt is not None else CheckRun(cmd, app.root, **kw)
        except (ScratchError, OSError) as e:        # the scratch copy went away under us
            self.notify(f"the check did not start: {e}", severity="error", markup=False)
            return
        self._verdict_bar()
        self._execute(self._run)

    @work(thread=True, exclusive=True, exit_on_error=False, group="check")
    def _execute(self, run: CheckRun) -> None:
        self.post_message(self.CheckFinished(run.run()))

    def action_cancel(self) -> None:
        run = self._run
        if run is not None:
            run.cancel()
            self.notify("cancelling: the check's process group is being ended")

    @on(OutputLine)
    def _line(self, event: OutputLine) -> None:
        self.query_one("#out", RichLog).write(Text(visible(event.line)))

    @on(CheckFinished)
    def _finished(self, event: CheckFinished) -> None:
        r, self._run = event.result, None
        self.query_one("#out", RichLog).write(Text(visible(
            f"[{r.status}" + (f", exit {r.exit_code}" if r.exit_code is not None else "")
            + f", {r.duration_s:.1f} s]" + (f" {r.error}" if r.error else ""))))
        self._verdict_bar()

    def worker_failed(self, name, error) -> None:
        self._run = None
        self._verdict_bar()

    def action_skip(self) -> None:
        if self._run is not None:
            return
        if self.mapp.record("check_skipped", {"hypothesis_id": self.hid,
                                              "command": self.query_one("#cmd", Input).value.strip()}):
            self.mapp.goto("diagnose", hypothesis_id=self.hid)

    def action_verdict(self, verdict: str) -> None:
        if self._run is not None:
            self.notify("the check is still running", severity="warning")
            return
        if self._interrupted():
            self.notify("that check never finished: a runs it again, s skips it", severity="warning")
            return
        last = self._last_check()
        payload = {"hypothesis_id": self.hid, "verdict": verdict,
                   "note": f"after check `{last.command}`" if last else "without running the check"}
        if last is not None:
            payload["check_id"] = last.check_id
        if self.mapp.record("verdict_recorded", payload):
            self.mapp.stale = True      # the ranking is redone with this verdict
            self.mapp.goto("diagnose", hypothesis_id=self.hid)

    def action_probe(self) -> None:
        open_probe_view(self, self.state, self.mapp.root)

    def focus_body(self) -> None:
        self.query_one("#out").focus()

    def action_back(self) -> None:
        if self.leave_input():
            self._record_edit()
            self._flag()
            return
        if self._run is not None:
            self.notify("the check is still running: x cancels it first", severity="warning")
            return
        self.mapp.goto("diagnose", hypothesis_id=self.hid)
