"""The Textual app: composition, global bindings and routing between the five step screens.

State lives in the session log (`mltdbg.sessions.Session`); screens render `session.state`
and record what the user does as session events. This module holds no workflow logic
beyond choosing the screen for a step.
"""
from __future__ import annotations

import datetime as dt
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from textual.app import App
from textual.binding import Binding

from mltdbg.sessions import Session, SessionError, STEPS

# The recipe's rule: after an hour on one bug, stop, re-read debug.md, reproduce it small.
RESET_AFTER_S = 3600


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


class MltdbgApp(App):
    """mltdbg-tui. `now` (a callable returning a datetime) and `session` are injectable for tests."""

    TITLE = "mltdbg"
    CSS_PATH = "mltdbg_app.tcss"
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

    # ----- start -------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)
        o = self.options
        if o.replay is not None:
            from .screens.replay import ReplayScreen
            from mltdbg.sessions import Replay
            try:
                self.replay = Replay(o.replay, o.cwd)
            except SessionError as e:
                self.exit(message=f"mltdbg-tui: cannot replay {o.replay}: {e}")
                return
            self.title = f"mltdbg · replay · {self._name_of(self.replay.jump(len(self.replay)))}"
            self.replay.jump(0)
            self.push_screen(ReplayScreen())
            return
        if self.session is None and o.resume == "":
            from .dialogs.picker import SessionPicker
            self.push_screen(SessionPicker(o.cwd), self._picked)
            return
        if self.session is None:
            try:
                self.session = self._open_or_create()
            except SessionError as e:
                self.exit(message=f"mltdbg-tui: {e}")
                return
        self._show_session()

    def _picked(self, sid: str | None) -> None:
        if not sid:
            self.exit()
            return
        try:
            self.session = Session.open(sid, self.options.cwd)
        except SessionError as e:
            self.exit(message=f"mltdbg-tui: {e}")
            return
        self._show_session()

    def _open_or_create(self) -> Session:
        o = self.options
        if o.resume:
            return Session.open(o.resume, o.cwd)
        missing = [p for p in o.paths if not os.path.lexists(p)]
        self.problems += [f"{p}: no such file or directory (left out)" for p in missing]
        s = Session.create(o.cwd, name=o.name)
        chosen = [p for p in o.paths if p not in missing]
        if chosen:
            s.append("artifacts_chosen", {"paths": [str(Path(p).resolve()) for p in chosen], "excluded": []})
        if o.command:
            s.append("capture_edited", {"field": "command", "value": o.command})
        return s

    def _show_session(self) -> None:
        s = self.session
        assert s is not None
        self.title = f"mltdbg · {self._name_of(s.state)}"
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

    def record(self, type: str, payload: dict[str, Any]) -> bool:
        """Append an event unless the session is read-only (then say so). Returns whether it was written."""
        if self.readonly:
            self.notify("read-only session: nothing is recorded or run", severity="warning")
            return False
        self.session.append(type, payload)
        return True

    def goto(self, step: str, record: bool = True, **extra: Any) -> None:
        """Show the screen of a workflow step; record it as step_changed (with e.g. hypothesis_id)."""
        from .screens import screen_for
        if record and not self.readonly:
            self.session.append("step_changed", {"step": step, **extra})
        screen = screen_for(step)
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        self._tick()

    def focus_hypothesis(self) -> str | None:
        """The hypothesis the user chose last (from step_changed events), else the top one."""
        if self.session is None:
            return None
        for ev in reversed(self.session.events):
            hid = ev.payload.get("hypothesis_id") if ev.type in ("step_changed", "check_approved", "check_edited",
                                                                  "check_skipped", "verdict_recorded") else None
            if isinstance(hid, str) and hid:
                return hid
        hs = self.session.state.hypotheses
        return hs[0].get("id") if hs and isinstance(hs[0], dict) else None

    def hypothesis(self, hid: str | None) -> dict[str, Any]:
        """The recorded hypothesis dict for hid (with the playbook's extras where known)."""
        st = self.session.state if self.session else (self.replay.state if self.replay else None)
        for h in (st.hypotheses if st else []):
            if isinstance(h, dict) and h.get("id") == hid:
                return h
        return {}

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
            from .dialogs.reset import ResetPrompt
            self.push_screen(ResetPrompt(self.session.dir / "debug.md"))

    # ----- global actions ----------------------------------------------------------------------
    def action_help(self) -> None:
        from .dialogs.help import HelpScreen
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def on_unmount(self) -> None:
        # Leaving mid-check ends the check's process group; the session log keeps everything.
        from mltdbg.sessions.checks import cancel_all
        cancel_all()
        if self.session is not None:
            self.session.close()
