"""The Textual app: composition, global bindings and routing between the five step screens.

State lives in the session log (`mltdbg.sessions.Session`); screens render `session.state`
and record what the user does as session events. This module holds no workflow logic
beyond choosing the screen for a step.
"""
from __future__ import annotations

import datetime as dt
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from rich.text import Text
from textual import work
from textual.app import App
from textual.binding import Binding

from mltdbg.analyzers.common.gitrepo import resolved
from mltdbg.analyzers.common.sanitize import visible
from mltdbg.sessions import STEPS, HypothesisRecord, Session, SessionError
from mltdbg.sessions.interpreter import UserPython, python_env, user_python
from mltdbg.sessions.events import ArtifactsChosen, CaptureEdited, SessionEvent, StepChanged

# The recipe's rule: after an hour on one bug, stop, re-read debug.md, reproduce it small.
RESET_AFTER_S = 3600
# Quitting while the environment record (pip freeze ~1 s, its own timeout 20 s) still runs waits this
# long for it, so a session quit at once still records its machine; longer and quitting feels stuck.
ENV_WAIT_ON_EXIT_S = 3.0


@dataclass
class Options:
    """What the command line asked for (see app/tui.py)."""

    paths: list[str] = field(default_factory=list)
    baseline: list[str] = field(default_factory=list)
    resume: str | None = None          # "" -> pick from a list
    replay: str | None = None
    demo: bool = False
    engine: str = "auto"
    cwd: str = "."
    name: str | None = None
    command: str | None = None         # the failing command, prefilled in the capture form
    env: dict[str, str] = field(default_factory=dict)   # extra environment for checks (the demo's python)
    python: str | None = None          # --python: the interpreter the user's code runs with
    adopt: bool = False                # --adopt: continue a session recorded elsewhere (else read-only)
    stall_minutes: float | None = None  # --stall-minutes: a live run unwritten this long is a finding (app/widgets/live.py)


class MltdbgApp(App):
    """mltdbg-tui. `now` (a callable returning a datetime) and `session` are injectable for tests."""

    TITLE = "mltdbg"
    # Every screen's stylesheet is read with the app's, once, before the first paint: a screen that names
    # its own CSS_PATH makes Textual re-parse the whole stylesheet (~0.1 s) the first time it is shown,
    # and its rules would reach other screens' widgets from then on (each file scopes its rules by its screen).
    CSS_PATH = ["mltdbg_app.tcss", *(f"screens/{s}.tcss" for s in ("capture", "hypotheses", "check", "fix", "lesson",
                                                                   "probe", "viewer", "replay"))]
    BINDINGS = [
        Binding("f1", "help", "Help", id="help"),
        Binding("question_mark", "help", "Help", show=False, id="help_q"),
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
    ]

    def __init__(self, options: Options | None = None, *, session: Session | None = None,
                 now: Callable[[], dt.datetime] | None = None):
        super().__init__()
        self.options = options or Options()
        self.session: Session | None = session
        self.replay = None
        self.now = now or (lambda: dt.datetime.now(dt.timezone.utc))
        self.problems: list[str] = []       # bad input found at start, shown on the capture screen
        self._reset_shown = False
        self._notified: set[str] = set()
        self.series: dict[str, Any] = {}    # metric -> (steps, values) of the live run (full resolution)
        self.anomalies: list[dict[str, Any]] = []
        self.diagnosis = None               # the live Diagnosis (hypothesis extras: instrumentation, tests)
        self.baseline_series: dict[str, Any] = {}
        self.warnings: list[str] = []       # ingest warnings of the last diagnosis
        self.stale = False                  # a verdict came in: diagnose again on the hypotheses screen
        self.environment_done = threading.Event()   # set once a new session's environment is recorded
        self._env_claim = threading.Lock()  # held by whoever records it: the worker, or on_unmount if it never ran
        self._created = False               # this run created the session (it records the environment)

    # ----- the user's interpreter --------------------------------------------------------------
    def user_python(self) -> UserPython:
        """The interpreter checks, captures and verification run `python` with (sessions.interpreter)."""
        st = self.session.state if self.session else None
        try:
            return user_python(self.options.python, st.capture.get("command") if st else self.options.command,
                               cwd=self.root)
        except ValueError:
            return user_python(None, None, cwd=self.root)

    def check_env(self) -> dict[str, str]:
        """Extra environment for every command the user's code runs in: `python` is user_python()."""
        if self.session is None:
            return dict(self.options.env)
        try:
            return {**self.options.env, **python_env(self.user_python(), self.session.dir / "python-shim")}
        except OSError:
            return dict(self.options.env)

    # ----- start -------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)
        o = self.options
        if o.replay is not None:
            from mltdbg.app.screens.replay import ReplayScreen  # noqa: PLC0415 - only for --replay
            from mltdbg.sessions import Replay  # noqa: PLC0415 - only for --replay
            try:
                self.replay = Replay(o.replay, o.cwd)
            except SessionError as e:
                self.exit(message=Text(visible(f"mltdbg-tui: cannot replay {o.replay}: {e}")))
                return
            self.title = visible(f"mltdbg · replay · {self._name_of(self.replay.jump(len(self.replay)))}", keep="")
            self.replay.jump(0)
            self.push_screen(ReplayScreen())
            return
        if self.session is None and o.resume == "":
            from mltdbg.app.dialogs.picker import SessionPicker  # noqa: PLC0415 - only for --resume without an id
            self.push_screen(SessionPicker(o.cwd), self._picked)
            return
        if self.session is None:
            try:
                self.session = self._open_or_create()
            except SessionError as e:
                self.exit(message=Text(visible(f"mltdbg-tui: {e}")))
                return
        self._show_session()
        if self._created:
            # After the first paint, in a worker: pip freeze alone is ~1 s in a large environment.
            self.call_after_refresh(self._record_environment, self.session)

    @work(thread=True, group="environment", exit_on_error=False)
    def _record_environment(self, session: Session) -> None:
        """environment_recorded for a new session, off the UI thread (Session.append is thread-safe)."""
        if not self._env_claim.acquire(blocking=False):
            return                          # the app is quitting and recorded it itself
        try:
            session.record_environment()
        finally:
            self.environment_done.set()

    def _picked(self, sid: str | None) -> None:
        if not sid:
            self.exit()
            return
        try:
            self.session = Session.open(sid, self.options.cwd, adopt=self.options.adopt)
        except SessionError as e:
            self.exit(message=f"mltdbg-tui: {e}")
            return
        self._show_session()

    def _open_or_create(self) -> Session:
        o = self.options
        if o.resume:
            return Session.open(o.resume, o.cwd, adopt=o.adopt)
        missing = [p for p in o.paths if not os.path.lexists(p)]
        self.problems += [f"{p}: no such file or directory (left out)" for p in missing]
        s = Session.create(o.cwd, name=o.name, defer_environment=True)   # recorded by a worker, after the first paint
        self._created = True
        chosen = [p for p in o.paths if p not in missing]
        if chosen:
            s.append(ArtifactsChosen(paths=[str(resolved(p)) for p in chosen], excluded=[]))
        if o.command:
            s.append(CaptureEdited(field="command", value=o.command))
        return s

    def _show_session(self) -> None:
        s = self.session
        assert s is not None
        self.title = visible(f"mltdbg · {self._name_of(s.state)}", keep="")
        for n in s.notices:
            self.notify(n, title="Session", severity="warning", timeout=8)
        if not s.state.in_repo and not s.readonly and not s.state.diagnoses:
            self.problems.append("not a git repo: the session works, but the fix cannot be committed "
                                 "(the lesson step can still write CLAUDE.md)")
        self._tick()
        self.goto(s.state.step if s.state.step in STEPS else STEPS[0], record=False)

    @staticmethod
    def _name_of(state) -> str:
        return state.name or state.session_id or "session"

    # ----- routing -----------------------------------------------------------------------------
    @property
    def root(self) -> Path:
        return Path(self.session.root) if self.session else Path(self.options.cwd)

    @property
    def readonly(self) -> bool:
        return self.session is None or self.session.readonly

    def record(self, event: SessionEvent | str, payload: dict[str, Any] | None = None) -> bool:
        """Append an event (typed, or type and payload) unless the session is read-only (then say so).
        Returns whether it was written."""
        if self.readonly:
            self.notify("read-only session: nothing is recorded or run", severity="warning")
            return False
        self.session.append(event, payload)
        return True

    def goto(self, step: str, record: bool = True, hypothesis_id: str | None = None) -> None:
        """Show the screen of a workflow step; record it as step_changed (with the hypothesis it is for)."""
        from mltdbg.app.screens import screen_for  # noqa: PLC0415 - the screens import this module
        if record and not self.readonly:
            self.session.append(StepChanged(step=step, hypothesis_id=hypothesis_id))
        screen = screen_for(step)
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        self._tick()

    def focus_hypothesis(self) -> str | None:
        """The hypothesis the user chose last, else the top one (SessionState.focused_hypothesis)."""
        return self.session.state.focused_hypothesis if self.session is not None else None

    def hypothesis(self, hid: str | None) -> HypothesisRecord:
        """The recorded hypothesis for hid (with the playbook's extras), or an empty record for hid."""
        st = self.session.state if self.session else (self.replay.state if self.replay else None)
        return (st.hypothesis(hid) if st else None) or HypothesisRecord(id=hid or "")

    def notify(self, message: str, *, title: str = "", severity: str = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Every toast of the app (screens' and widgets' notify() land here): its text is data (paths,
        the recorded root, error messages quoting files), so it is shown as text with control characters
        visible, never as markup, whatever a caller passes. A toast needing style builds it elsewhere."""
        super().notify(visible(str(message)), title=visible(str(title), keep=""), severity=severity,
                       timeout=timeout, markup=False)

    def notify_once(self, text: str, severity: str = "warning") -> None:
        """A toast shown once per run of the app (engine notices repeat on every diagnosis)."""
        if text not in self._notified:
            self._notified.add(text)
            self.notify(text, severity=severity, timeout=8)

    # ----- time --------------------------------------------------------------------------------
    def elapsed_s(self) -> float:
        st = self.session.state if self.session else None
        if not st or not st.created_at:
            return 0.0
        try:
            start = dt.datetime.fromisoformat(st.created_at.replace("Z", "+00:00"))
        except ValueError:
            return 0.0
        return max(0.0, (self.now() - start).total_seconds())

    def _tick(self) -> None:
        if self.session is None:
            return
        e = int(self.elapsed_s())
        self.sub_title = f"{self.session.state.step} · {e // 3600}:{e % 3600 // 60:02d}:{e % 60:02d}" + \
            (" · read-only" if self.session.readonly else "")
        if e >= RESET_AFTER_S and not self._reset_shown and not self.session.readonly:
            self._reset_shown = True
            from mltdbg.app.dialogs.reset import ResetPrompt  # noqa: PLC0415 - shown once, after an hour
            self.push_screen(ResetPrompt(self.session.dir / "debug.md"))

    # ----- global actions ----------------------------------------------------------------------
    def action_help(self) -> None:
        from mltdbg.app.dialogs.help import HelpScreen  # noqa: PLC0415 - loaded when first asked
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def on_unmount(self) -> None:
        # Leaving mid-check ends the check's process group; the session log keeps everything.
        from mltdbg.sessions.checks import cancel_all  # noqa: PLC0415 - process-group code, needed only on exit
        cancel_all()
        if self.session is not None:
            if self._created and self._env_claim.acquire(blocking=False):
                self.session.record_environment()   # quit before the worker ran (exit cancels pending workers)
            elif self._created:
                self.environment_done.wait(ENV_WAIT_ON_EXIT_S)
            self.session.close()
