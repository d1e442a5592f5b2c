"""Snapshots at 80x24 of every dialog over its real parent screen, and of the error, empty and interrupted
states (review the SVGs in tests/__snapshots__/test_tui_snapshots_states/ after `pytest --snapshot-update`).

Each state is reached as a user reaches it: a key on the real screen of a real session in a real git repo
(the demo's, or a small one made here). A state that needs a finished run (a failed check, a failed
verification, a check killed mid-run) is made in a first run of the app and shown by a second one that
resumes the session, as after a restart: the resumed screens show what was recorded, without durations.
Deterministic: a fixed clock (before the session start, so elapsed shows 0:00:00), no cursor blink, the
offline engine, and where a dialog prints a path (the approval dialog's cwd and python) a fixed folder
under /tmp instead of pytest's numbered temp dir.
"""
from __future__ import annotations

import asyncio
import datetime as dt
import shutil
import sys
from pathlib import Path


from mltdbg.app.dialogs.approve import ApproveCommand
from mltdbg.app.dialogs.confirm_apply import ConfirmApply
from mltdbg.app.dialogs.consent import ClaudeConsent
from mltdbg.app.dialogs.help import HelpScreen
from mltdbg.app.dialogs.picker import SessionPicker
from mltdbg.app.dialogs.reset import ResetPrompt
from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.capture import CaptureScreen
from mltdbg.app.screens.check import CheckScreen
from mltdbg.app.screens.fix import FixScreen
from mltdbg.app.screens.hypotheses import HypothesesScreen
from mltdbg.app.screens.replay import ReplayScreen
from mltdbg.app.screens.viewer import ViewerScreen
from mltdbg.sessions import Session
from mltdbg.sessions.demo import make_demo_repo

from repo_helpers import make_repo
from tui_helpers import demo_app, until, use_this_python

FIXED_NOW = dt.datetime(2026, 5, 4, 10, 0, tzinfo=dt.timezone.utc)
SIZE = (80, 24)
# A folder whose path is the same on every run, for the dialogs that print where a command runs.
FIXED_ROOT = Path("/tmp/mltdbg-snapshot-states")
FAILING_CHECK = "python -c \"import sys; print('loss=nan at step 3'); sys.exit(3)\""
FAILING_REPRO = "python -c \"import sys; print('loss=nan at step 3'); sys.exit(1)\""
SLOW = "python -c \"import time; print('check started', flush=True); time.sleep(120)\""


def _still(app) -> None:
    for w in app.screen.query("Input, TextArea"):
        w.cursor_blink = False


def _offline(repo: Path, **kw) -> Options:
    return Options(cwd=str(repo), name="demo", command="python train.py", engine="offline", **kw)


async def _capture(app, pilot) -> None:
    await until(pilot, lambda: isinstance(app.screen, CaptureScreen) and app.screen.query_one("#artifacts").option_count,
                what="the capture screen")
    _still(app)


async def _hypotheses(app, pilot) -> None:
    await _capture(app, pilot)
    await pilot.press("ctrl+n")
    await until(pilot, lambda: isinstance(app.screen, HypothesesScreen) and app.session.state.diagnoses
                and not app.screen.query_one("#busy").display, what="the diagnosis")
    await pilot.pause()


async def _check(app, pilot) -> None:
    await until(pilot, lambda: isinstance(app.screen, CheckScreen) and app.screen._wt is not None, what="the check")
    await pilot.pause(0.2)
    _still(app)


async def _fix(app, pilot) -> None:
    await _hypotheses(app, pilot)
    await pilot.press("f")
    await until(pilot, lambda: isinstance(app.screen, FixScreen), what="the fix screen")
    await pilot.pause()
    _still(app)


def _resumed(repo: Path, sid: str) -> MltdbgApp:
    return MltdbgApp(Options(cwd=str(repo), resume=sid, engine="offline"), now=lambda: FIXED_NOW)


# ----- dialogs ---------------------------------------------------------------------------------
def test_help_over_hypotheses(tmp_path, monkeypatch, snap_compare):
    use_this_python(monkeypatch)
    app, _ = demo_app(tmp_path, now=lambda: FIXED_NOW)

    async def before(pilot):
        await _hypotheses(app, pilot)
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_approve_command_over_capture(monkeypatch, snap_compare):
    """ctrl+r on the capture form: the command, where it runs and the interpreter `python` means there."""
    use_this_python(monkeypatch)
    base = FIXED_ROOT / "approve"
    shutil.rmtree(base, ignore_errors=True)
    repo = make_demo_repo(base / "demo-classifier")
    (base / "bin").mkdir()
    (base / "bin" / "python").symlink_to(sys.executable)     # the path the dialog shows, the same everywhere
    app = MltdbgApp(_offline(repo, python=str(base / "bin" / "python")), now=lambda: FIXED_NOW)

    async def before(pilot):
        await _capture(app, pilot)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ApproveCommand), what="the approval")
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=before)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_confirm_apply_over_fix(tmp_path, monkeypatch, snap_compare):
    use_this_python(monkeypatch)
    app, _ = demo_app(tmp_path, now=lambda: FIXED_NOW)

    async def before(pilot):
        await _fix(app, pilot)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ConfirmApply), what="the confirmation")
        await pilot.pause()
        _still(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_claude_consent_over_hypotheses(tmp_path, monkeypatch, snap_compare):
    """A key in the environment and --engine auto: asked once, before anything is sent."""
    use_this_python(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    repo = make_demo_repo(tmp_path / "demo-classifier")
    app = MltdbgApp(Options(cwd=str(repo), name="demo", command="python train.py", engine="auto"), now=lambda: FIXED_NOW)

    async def before(pilot):
        await _capture(app, pilot)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: isinstance(app.screen, ClaudeConsent), what="the consent question")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_reset_prompt_after_an_hour(tmp_path, monkeypatch, snap_compare):
    """An hour into the session the reset prompt shows debug.md (its date made fixed before it shows)."""
    use_this_python(monkeypatch)
    repo = make_demo_repo(tmp_path / "demo-classifier")
    late = {"on": False}

    def now():
        start = dt.datetime.fromisoformat(app.session.state.created_at.replace("Z", "+00:00"))
        return start + dt.timedelta(seconds=3700 if late["on"] else 0)

    app = MltdbgApp(_offline(repo), now=now)

    async def before(pilot):
        await _capture(app, pilot)
        md = app.session.dir / "debug.md"
        md.write_text(md.read_text(encoding="utf-8").replace(app.session.state.created_at[:10], "2026-05-04"),
                      encoding="utf-8")
        late["on"] = True
        await until(pilot, lambda: isinstance(app.screen, ResetPrompt), what="the reset prompt")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_session_picker_with_no_sessions(tmp_path, snap_compare):
    """--resume without an id in a repo with no session yet: the picker says so (the empty state)."""
    repo = make_demo_repo(tmp_path / "demo-classifier")
    app = MltdbgApp(Options(cwd=str(repo), resume="", engine="offline"), now=lambda: FIXED_NOW)

    async def before(pilot):
        await until(pilot, lambda: isinstance(app.screen, SessionPicker), what="the picker")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


# ----- error states ----------------------------------------------------------------------------
def test_capture_with_a_missing_path(tmp_path, monkeypatch, snap_compare):
    use_this_python(monkeypatch)
    repo = make_demo_repo(tmp_path / "demo-classifier")
    monkeypatch.chdir(repo)
    app = MltdbgApp(_offline(repo, paths=["runs/missing.log"]), now=lambda: FIXED_NOW)
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: _capture(app, pilot))


def test_viewer_on_an_artifact_that_is_gone(tmp_path, monkeypatch, snap_compare):
    """A cited file that cannot be opened: the viewer says why instead of showing lines."""
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path, now=lambda: FIXED_NOW)

    async def before(pilot):
        await _capture(app, pilot)
        app.push_screen(ViewerScreen(repo / "runs" / "gone.log", "runs/gone.log", [12]))
        await until(pilot, lambda: isinstance(app.screen, ViewerScreen), what="the viewer")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def _run_then_exit(app, steps) -> str:
    """Run the app at 100x30 through steps(pilot), exit it; the session's id."""
    seen = {}

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await steps(pilot)
            seen["id"] = app.session.id
            app.exit()

    asyncio.run(go())
    return seen["id"]


def test_check_that_failed(tmp_path, monkeypatch, snap_compare):
    """A check that exited non-zero, as the check screen shows it when the session is resumed."""
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path, now=lambda: FIXED_NOW)

    async def steps(pilot):
        await _hypotheses(app, pilot)
        await pilot.press("c")
        await _check(app, pilot)
        app.screen.query_one("#cmd").value = FAILING_CHECK
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ApproveCommand), what="the approval")
        await pilot.press("y")
        await until(pilot, lambda: any(c.status not in ("running", "started") and c.exit_code == 3
                                       for c in app.session.state.checks.values()), what="the check's end")

    sid = _run_then_exit(app, steps)
    again = _resumed(repo, sid)
    assert snap_compare(again, terminal_size=SIZE, run_before=lambda pilot: _check(again, pilot))


def test_verification_failed_on_fix(tmp_path, monkeypatch, snap_compare):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path, now=lambda: FIXED_NOW)

    async def steps(pilot):
        await _fix(app, pilot)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ConfirmApply), what="the confirmation")
        await pilot.press(*"apply", "enter")
        await until(pilot, lambda: app.session.state.fix and app.session.state.fix.status == "applied", what="applied")
        app.screen.query_one("#repro").value = FAILING_REPRO
        app.screen.query_one("#body").focus()
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ApproveCommand), what="the approval")
        await pilot.press("y")
        await until(pilot, lambda: app.session.state.verified is False and not app.screen._verifying,
                    what="the failed verification")

    sid = _run_then_exit(app, steps)
    again = _resumed(repo, sid)

    async def before(pilot):
        await until(pilot, lambda: isinstance(again.screen, FixScreen), what="the fix screen")
        await pilot.pause()
        _still(again)

    assert snap_compare(again, terminal_size=SIZE, run_before=before)


# ----- empty states ----------------------------------------------------------------------------
def test_hypotheses_with_nothing_to_read(tmp_path, monkeypatch, snap_compare):
    """A repo with no run artifacts: no hypothesis, needs_more_data and what to bring."""
    use_this_python(monkeypatch)
    repo = make_repo(tmp_path / "bare", {"README.md": "a project with no run yet\n"})
    app = MltdbgApp(Options(cwd=str(repo), name="bare", engine="offline"), now=lambda: FIXED_NOW)
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: _hypotheses(app, pilot))


def test_replay_of_a_session_with_only_its_start(tmp_path, snap_compare):
    repo = make_repo(tmp_path / "bare", {"README.md": "a project\n"})
    s = Session.create(repo, name="empty", environment={})
    sid = s.id
    s.close()
    app = MltdbgApp(Options(cwd=str(repo), replay=sid), now=lambda: FIXED_NOW)

    async def before(pilot):
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


# ----- interrupted -----------------------------------------------------------------------------
def test_check_interrupted_then_resumed(tmp_path, monkeypatch, snap_compare):
    """The TUI killed while a check ran, then resumed: the INTERRUPTED line is on screen at 80x24."""
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path, now=lambda: FIXED_NOW)
    seen = {}

    async def steps(pilot):
        await _hypotheses(app, pilot)
        await pilot.press("c")
        await _check(app, pilot)
        app.screen.query_one("#cmd").value = SLOW
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ApproveCommand), what="the approval")
        await pilot.press("y")
        await until(pilot, lambda: any("check started" in c.output for c in app.session.state.checks.values()),
                    what="running")
        # The log as a killed TUI leaves it: the check started, no finish (a clean exit records "cancelled").
        log = app.session.dir / "events.jsonl"
        seen["log"], seen["bytes"] = log, log.read_bytes()

    sid = _run_then_exit(app, steps)
    seen["log"].write_bytes(seen["bytes"])
    again = _resumed(repo, sid)
    assert snap_compare(again, terminal_size=SIZE, run_before=lambda pilot: _check(again, pilot))
