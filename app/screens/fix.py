"""Step 4, Fix: the fix as a full diff (a playbook codemod, Claude's, or your own working-tree edits),
a test that would have caught the bug, and the gate: nothing is written until you type `apply` in a
dialog. Then verify: rerun the failing command (or a shorter reproduction) and the test; on failure,
revert exactly what was applied and go back to the hypotheses."""
from __future__ import annotations

import shlex
from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Header, Input, Label, RichLog, Static, TextArea

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.app.messages import OutputLine
from mltdbg.app.screens.base import StepScreen, step_footer
from mltdbg.sessions.fixgate import (CONFIRM_WORD, FixError, FixGate, NotConfirmed, fill_template, first_test_name,
                                     patch_from_diff)

NO_TEST = "# Write a test that fails with the bug and passes with the fix.\n"


class FixScreen(StepScreen):
    STEP = "fix"
    BINDINGS = [
        # Footer order is priority order (80 columns hold them all).
        Binding("a", "apply", "Apply…", id="apply"),
        Binding("v", "verify", "Verify", id="verify"),
        Binding("n", "next", "Lesson", id="next"),
        Binding("t", "edit_test", "Test", id="edit_test"),
        Binding("w", "worktree", "My edits", id="worktree"),
        Binding("u", "revert", "Revert", id="revert"),
        Binding("escape", "back", "Back", id="back"),
        Binding("x", "cancel", "Cancel run", show=False, id="cancel"),
    ]

    class Verified(Message):
        def __init__(self, verification) -> None:
            super().__init__()
            self.verification = verification

    def __init__(self) -> None:
        super().__init__()
        self.gate: FixGate | None = None
        self.hid = None
        self._verifying = False

    def compose(self) -> ComposeResult:
        app = self.mapp
        self.hid = app.focus_hypothesis()
        h = app.hypothesis(self.hid)
        yield Header()
        with VerticalScroll(id="body"):
            yield Static(Text.assemble(("4 Fix", "bold"), "  " + visible(f"{self.hid}: {h.fix}")), id="what")
            yield Static("", id="source")
            yield Static("", id="diff")
            yield Label("Test file, written with the fix after the same confirmation (t edits it: F7 selects all, a paste replaces; Esc leaves)")
            yield Input(id="test_path")
            yield TextArea("", id="test", language=None, soft_wrap=False)
            yield Label("Verify with (the failing command, or a shorter reproduction)")
            yield Input(self.state.capture.get("command", ""), id="repro")
            yield Static("", id="status")
            yield RichLog(id="verify_out", max_lines=3000, markup=False, wrap=False)
        yield step_footer()

    def on_mount(self) -> None:
        app, st = self.mapp, self.state
        h = app.hypothesis(self.hid)
        if not app.readonly:
            self.gate = FixGate.resume(app.root, app.session) if st.fix and st.fix.status != "reverted" else FixGate(app.root, app.session)
            if self.gate.patch is None and h.patch:
                try:
                    self.gate.propose(patch_from_diff(h.patch), "playbook", self.hid)
                except FixError as e:
                    self.notify(str(e), severity="error")
        fx = st.fix
        test_path = (fx.test_file if fx and fx.status != "reverted" and fx.test_file else None) or f"tests/test_{self.hid}.py"
        self.query_one("#test_path", Input).value = test_path
        content = self.gate.test.content if self.gate and self.gate.test else None
        if content is None and h.test_template:
            module = Path((fx.files[0] if fx and fx.files else "train.py")).stem
            content = fill_template(h.test_template, {"module": module})
        self.query_one("#test", TextArea).text = content or NO_TEST
        self.query_one("#verify_out").display = bool(st.verifications)
        for v in st.verifications[-2:]:
            self.query_one("#verify_out", RichLog).write(Text(visible(
                f"$ {v.get('command')}  -> exit {v.get('exit_code')}, " + ("passed" if v.get("passed") else "FAILED"))))
        if app.readonly:
            for w in self.query("Input, TextArea"):
                w.disabled = True
        self._show()
        self.query_one("#body").focus()

    # ----- showing -----------------------------------------------------------------------------
    def _show(self) -> None:
        st = self.state
        fx = st.fix
        diff = self.gate.patch.diff if self.gate and self.gate.patch else (fx.diff if fx and fx.status != "reverted" else "")
        if diff:
            self.query_one("#diff", Static).update(Syntax(visible(diff), "diff", theme="ansi_dark"))
        else:
            self.query_one("#diff", Static).update(
                "[yellow]No mechanical fix for this cause.[/] Edit the code yourself, then press w to take your "
                "working-tree diff as the fix.")
        status = fx.status if fx else "none"
        # The verification's outcome up here too: the status line under the diff is below the fold at 80x24.
        if fx and fx.status == "applied" and st.verified is not None:
            status += ", verified" if st.verified else ", verification FAILED (u reverts)"
        src = (self.gate.source if self.gate and self.gate.patch else fx.source if fx else "-")
        self.query_one("#source", Static).update(Text.assemble(      # recorded values: Text, never markup
            "fix from ", (visible(str(src), keep=""), "bold"), ", status ", (visible(str(status), keep=""), "bold"),
            visible(f"; files: {', '.join(map(str, fx.files))}") if fx and fx.files else ""))
        self.query_one("#status", Static).update(self._status_text())

    def _status_text(self) -> Content:
        st = self.state
        fx = st.fix
        lines = []
        test = self._test_text()
        if fx and fx.test_written:
            lines.append(Content.assemble(("test written:", "green"), " " + visible(str(fx.test_file))))
        elif not first_test_name(test):
            lines.append("[b yellow]No test: the commit will carry none.[/] Press t to write one (a test that would "
                         "have caught this bug).")
        elif self.gate and self.gate.test is None and test.strip() and "adapt" in test:
            lines.append("[yellow]The test is the playbook's template: edit it (t) so it runs against your code.[/]")
        if self.gate:
            for w in self.gate.warnings:
                lines.append(Content.styled(visible(str(w)), "yellow"))
        if fx and fx.status == "applied":
            verified = st.verified      # the latest verification round decides
            if verified is None:
                lines.append("Applied. Press v to verify (rerun the command and the test).")
            elif verified:
                lines.append("[b green]Verified.[/] Press n to write the lesson and commit.")
            else:
                lines.append("[b red]Verification failed.[/] Press u to revert exactly the applied diff and go back, "
                             "or edit the reproduction and press v again.")
        elif fx and fx.status in ("proposed", "confirmed"):
            lines.append("Nothing is written yet. Press a, then type apply, to write the fix"
                         + (" and the test." if first_test_name(test) else "."))
        # str lines are our own Textual markup; data lines were built as Content (never parsed)
        return Content("\n").join(x if isinstance(x, Content) else Content.from_markup(x) for x in lines)

    def _test_text(self) -> str:
        return self.query_one("#test", TextArea).text

    # ----- actions -----------------------------------------------------------------------------
    def action_back(self) -> None:
        if isinstance(self.focused, (Input, TextArea)):
            self.query_one("#body").focus()
            self._show()
            return
        self.mapp.goto("diagnose", hypothesis_id=self.hid)

    def action_edit_test(self) -> None:
        if not self.mapp.readonly:
            self.query_one("#test", TextArea).focus()

    def action_worktree(self) -> None:
        if self.gate is None:
            return
        try:
            patch = self.gate.from_worktree()
            self.gate.propose(patch, "user", self.hid)
        except FixError as e:
            self.notify(str(e), severity="error", timeout=8)
            return
        self.notify("your working-tree edits are the fix now")
        self._show()

    def action_apply(self) -> None:
        gate = self.gate
        if gate is None or self._verifying:
            return
        test = self._test_text()
        path = self.query_one("#test_path", Input).value.strip()
        if first_test_name(test) and path and (gate.test is None or (not gate.test.written and
                                                                       (gate.test.path, gate.test.content.rstrip("\n")) != (path, test.rstrip("\n")))):
            try:
                gate.add_test(path, test)
            except FixError as e:
                self.notify(str(e), severity="error")
                return
        if not gate.pending:
            self.notify("nothing to write: the fix (and test) are already in place", severity="warning")
            return
        from mltdbg.app.dialogs.confirm_apply import ConfirmApply  # noqa: PLC0415 - a dialog, loaded when first asked
        self.app.push_screen(ConfirmApply(gate.pending), self._confirmed)

    def _confirmed(self, typed: str | None) -> None:
        if typed is None:
            self.notify("cancelled: nothing was written")
            return
        try:
            written = self.gate.apply(self.gate.confirm(typed))
        except NotConfirmed as e:
            self.notify(str(e), severity="error", timeout=8)
            return
        except FixError as e:
            self.notify(str(e), severity="error", timeout=10)
            return
        self.notify("written: " + (", ".join(written) or "nothing (your edits were already there)"))
        self._show()

    def action_verify(self) -> None:
        st = self.state
        if self.gate is None or self._verifying:
            return
        if not (st.fix and st.fix.status == "applied"):
            self.notify("apply the fix first (a)", severity="warning")
            return
        repro = self.query_one("#repro", Input).value.strip()
        if not repro:
            self.notify("write the command to rerun", severity="warning")
            return
        test_cmd = f"python -m pytest -q -p no:cacheprovider {shlex.quote(self.gate.test.path)}" if self.gate.test and self.gate.test.written else None
        log = self.query_one("#verify_out", RichLog)
        log.display = True
        log.clear()
        # The command is captured text (maybe from a shared session): it runs only after the approval
        # dialog shows all of it, with its danger flag, like a check's command.
        from mltdbg.app.dialogs.approve import ApproveCommand  # noqa: PLC0415 - a dialog, loaded when first asked
        py = self.mapp.user_python().describe()
        self.app.push_screen(
            ApproveCommand(repro, self.mapp.root, "Run this to verify the fix?", python=py,
                           note=f"then: {test_cmd}" if test_cmd else ""),
            lambda ok: self._start_verify(repro, test_cmd, py) if ok else self.notify("not run"))

    def _start_verify(self, repro: str, test_cmd: str | None, py: str) -> None:
        if self._verifying:
            return
        self._verifying = True
        self.query_one("#status", Static).update(Text(visible(f"verifying with python {py} ... (x cancels)")))
        self.query_one("#body").scroll_end(animate=False)
        self._verify(repro, test_cmd, self.mapp.check_env())

    @work(thread=True, exclusive=True, exit_on_error=False, group="verify")
    def _verify(self, repro: str, test_cmd: str | None, env: dict[str, str]) -> None:
        self.post_message(OutputLine(f"$ {repro}"))
        v = self.gate.verify(repro, test_cmd, on_line=lambda ln: self.post_message(OutputLine(ln)), env=env)
        self.post_message(self.Verified(v))

    @on(OutputLine)
    def _line(self, event: OutputLine) -> None:
        self.query_one("#verify_out", RichLog).write(Text(visible(event.line)))

    @on(Verified)
    def _verified(self, event: Verified) -> None:
        self._verifying = False
        v = event.verification
        log = self.query_one("#verify_out", RichLog)
        for r in v.results:
            log.write(Text(visible(f"$ {r.command} -> {r.status}, exit {r.exit_code}")))
        if v.missing_test:
            log.write("(no test was run: the commit will carry no test)")
        self._show()
        self.query_one("#body").scroll_end(animate=False)

    def worker_failed(self, name, error) -> None:
        self._verifying = False
        self._show()

    def action_cancel(self) -> None:
        if self.gate is not None and self._verifying:
            self.gate.cancel()

    def action_revert(self) -> None:
        gate = self.gate
        if gate is None or self._verifying:
            return
        # The recorded diff may come from a shared log: reverse-applying it writes files, so it takes the
        # same typed confirmation as apply, naming the files it will touch.
        files = (list(gate.patch.files) if gate.patch is not None and gate.applied else []) + \
                ([gate.test.path] if gate.test is not None and gate.test.written else [])
        if not files:
            self.notify("nothing to revert: no fix or test is applied", severity="warning")
            return
        from mltdbg.app.dialogs.confirm_apply import ConfirmApply  # noqa: PLC0415 - a dialog, loaded when first asked
        self.app.push_screen(ConfirmApply(files, heading="Revert: this reverse-applies the recorded diff to:"),
                             self._revert_confirmed)

    def _revert_confirmed(self, typed: str | None) -> None:
        if typed is None or typed.strip() != CONFIRM_WORD:
            self.notify(f"not confirmed (type {CONFIRM_WORD}): nothing was reverted", severity="warning")
            return
        try:
            done = self.gate.revert()
        except FixError as e:
            self.notify(str(e), severity="error", timeout=10)
            return
        self.notify("reverted: " + (", ".join(done) or "nothing was written"))
        self.mapp.goto("diagnose", hypothesis_id=self.hid)

    def action_next(self) -> None:
        fx = self.state.fix
        if not (fx and fx.status == "applied"):
            self.notify("no fix is applied: the lesson can still be written, but nothing will be committed but it",
                        severity="warning")
        self.mapp.goto("lesson", hypothesis_id=self.hid)

    def on_unmount(self) -> None:
        if self.gate is not None and self._verifying:
            self.gate.cancel()
