"""The guided session on the user's own run at 80x24: an interrupted check offers re-run/skip (not verdicts),
the demo folder is reused and resumable, bad paths are refused before a session exists, every screen's
primary keys fit the footer, Esc leaves a text field, and the plot's y axis has nice, upright ticks."""
from __future__ import annotations

import asyncio
import os

import numpy as np
import pytest
from textual.app import App

from mltdbg.app import tui
from mltdbg.app.cli import build_parser
from mltdbg.app.dialogs.approve import ApproveCommand
from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.capture import CaptureScreen
from mltdbg.app.screens.check import CheckScreen
from mltdbg.app.screens.fix import FixScreen
from mltdbg.app.screens.hypotheses import HypothesesScreen
from mltdbg.app.screens.lesson import LessonScreen
from mltdbg.app.widgets.plot import MetricPlot, nice_ticks
from mltdbg.sessions import demo
from mltdbg.sessions.store import data_dir

from tui_helpers import demo_app, footer_keys, until, use_this_python

SLOW = "python -c \"import time; print('check started', flush=True); time.sleep(120)\""


async def _to(app, pilot, screen_type, key: str | None = None) -> None:
    if key:
        await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, screen_type), what=screen_type.__name__)
    if screen_type is HypothesesScreen:
        await until(pilot, lambda: app.session.state.diagnoses and not app.screen.query_one("#busy").display,
                    what="diagnosis")
    await pilot.pause(0.2)


def test_an_interrupted_check_offers_rerun_or_skip_not_verdicts_at_80x24(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)
    seen = {}

    async def first():
        async with app.run_test(size=(100, 30)) as pilot:
            await _to(app, pilot, CaptureScreen)
            await _to(app, pilot, HypothesesScreen, "ctrl+n")
            await _to(app, pilot, CheckScreen, "c")
            await until(pilot, lambda: app.screen._wt is not None, what="scratch")
            app.screen.query_one("#cmd").value = SLOW
            await pilot.press("a")
            await pilot.pause()
            await pilot.press("y")
            await until(pilot, lambda: any("check started" in c.output for c in app.session.state.checks.values()),
                        what="running")
            seen["id"] = app.session.id
            # The log as a killed TUI leaves it: the check started, no finish (a clean exit records "cancelled").
            log = app.session.dir / "events.jsonl"
            seen["log"], seen["bytes"] = log, log.read_bytes()
            app.exit()

    asyncio.run(first())
    seen["log"].write_bytes(seen["bytes"])
    again = MltdbgApp(Options(cwd=str(repo), resume=seen["id"], engine="offline"))

    async def second():
        async with again.run_test(size=(80, 24)) as pilot:
            # the resumed session mounts its check screen, then the footer fills in: wait for both
            await until(pilot, lambda: isinstance(again.screen, CheckScreen) and footer_keys(again), what="footer")
            screen = again.screen
            assert isinstance(screen, CheckScreen)
            note = screen.query_one("#interrupted")
            assert note.display and "INTERRUPTED" in str(note.render())
            assert 0 < note.region.y < 6 and note.region.height > 0        # at the top, on screen
            keys = [d for _, d, _ in footer_keys(again)]
            assert "Run" in keys and "Skip" in keys
            assert not {"Confirm", "Deny", "Unsure"} & set(keys)
            assert "1 confirmed" not in str(screen.query_one("#verdict_bar").render())
            await pilot.press("1")
            await pilot.pause()
            assert not again.session.state.verdicts and isinstance(again.screen, CheckScreen)
            await pilot.press("s")                                       # skipping is offered and works
            await until(pilot, lambda: isinstance(again.screen, HypothesesScreen), what="skipped")

    asyncio.run(second())


def test_demo_folder_is_reused_old_temp_copies_go_and_resume_finds_it(tmp_path, monkeypatch):
    monkeypatch.setattr(demo.tempfile, "tempdir", str(tmp_path))        # the temp dir this test looks at
    old = demo.make_demo_repo()                                         # what earlier versions left behind
    assert old.parent.name.startswith(demo.TEMP_PREFIX) and old.parent.parent == tmp_path
    keep = tmp_path / "mltdbg-demo-notours"
    (keep / "something").mkdir(parents=True)                            # not a demo copy: left alone
    with pytest.raises(SystemExit, match="no demo copy yet"):
        tui.options_from(tui.build_parser().parse_args(["--demo", "--resume"]))
    a = demo.fresh_demo_repo()
    assert not old.parent.exists() and keep.exists()
    assert a == data_dir() / "demo" / demo.DEMO_NAME and (a / ".git").is_dir()
    (a / "marker").write_text("x")
    monkeypatch.setattr(os, "environ", dict(os.environ))                # options_from puts python first on PATH
    o = tui.options_from(tui.build_parser().parse_args(["--demo", "--resume", "s1"]))
    assert o.cwd == str(a) and o.resume == "s1" and (a / "marker").exists()   # the same copy, not a new one
    o = tui.options_from(tui.build_parser().parse_args(["--demo"]))
    assert o.cwd == str(a) and not (a / "marker").exists()               # the same folder, a fresh copy
    assert set(tmp_path.glob(demo.TEMP_PREFIX + "*")) == {keep}          # no new temp copies


def test_a_missing_path_is_refused_before_any_session_exists(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert tui.main([str(tmp_path / "nonexistent")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"mltdbg-tui: {tmp_path / 'nonexistent'}: no such file or directory"
    assert not data_dir().exists() and not (tmp_path / ".mltdbg").exists()


def test_diagnose_help_has_a_description_and_engine_help():
    sub = build_parser()._subparsers._group_actions[0].choices["diagnose"]
    text = sub.format_help()
    assert "ranked root-cause hypotheses" in text
    engine = next(a for a in sub._actions if "--engine" in a.option_strings)
    assert engine.help and "offline" in engine.help


def test_every_screens_primary_keys_fit_the_footer_at_80x24_and_esc_leaves_a_field(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, _repo = demo_app(tmp_path)
    want = {CaptureScreen: ["Next: diagnose", "Run command"],
            HypothesesScreen: ["Check", "Fix", "Evidence", "Metric", "Log", "EMA", "Back"],
            CheckScreen: ["Run", "Edit", "Snippet", "Skip", "Confirm", "Deny", "Unsure", "Back"],
            FixScreen: ["Apply…", "Verify", "Lesson", "Test", "My edits", "Revert", "Back"],
            LessonScreen: ["Write & commit", "Back"]}

    async def footer_ok(pilot, screen_type) -> None:
        # the footer fills in after the screen is up: wait for its keys (a loaded machine takes longer
        # than any fixed pause), then check them
        await until(pilot, lambda: len(footer_keys(app)) > len(want[screen_type]), what=f"{screen_type.__name__} footer")
        shown = footer_keys(app)
        assert all(right <= 80 for _, _, right in shown), shown
        descs = [d for _, d, _ in shown]
        assert descs[:len(want[screen_type])] == want[screen_type] and "Help" in descs, descs

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await _to(app, pilot, CaptureScreen)
            await footer_ok(pilot, CaptureScreen)
            await _to(app, pilot, HypothesesScreen, "ctrl+n")
            await footer_ok(pilot, HypothesesScreen)
            await _to(app, pilot, CheckScreen, "c")
            await footer_ok(pilot, CheckScreen)
            cmd = app.screen.query_one("#cmd")
            before = cmd.value
            await pilot.press("e")
            assert app.focused is cmd
            await pilot.press("escape")                                  # leaves the field, stays on the screen
            assert isinstance(app.screen, CheckScreen) and app.focused is not cmd
            await pilot.press("a")                                       # an action now, not a typed letter
            await until(pilot, lambda: isinstance(app.screen, ApproveCommand), what="approval dialog")
            assert cmd.value == before
            await pilot.press("n")
            await _to(app, pilot, CheckScreen)
            await _to(app, pilot, HypothesesScreen, "escape")
            await _to(app, pilot, FixScreen, "f")
            await footer_ok(pilot, FixScreen)
            await _to(app, pilot, LessonScreen, "n")
            await footer_ok(pilot, LessonScreen)

    asyncio.run(go())


def test_nice_ticks_are_even_and_a_flat_series_keeps_an_upright_axis():
    lo, hi, ticks = nice_ticks(10869.6, 43468.7)
    assert (lo, hi) == (10000.0, 50000.0) and ticks == [10000.0, 20000.0, 30000.0, 40000.0, 50000.0]
    lo, hi, ticks = nice_ticks(0.5, 0.5)
    assert lo < 0.5 < hi and len(set(np.round(np.diff(ticks), 9))) == 1

    class Host(App):
        def compose(self):
            yield MetricPlot(id="p")

    async def go():
        host = Host()
        async with host.run_test(size=(60, 16)) as pilot:
            p = host.query_one(MetricPlot)
            for log in (False, True):
                p.set_data({"loss": (np.arange(50), np.full(50, 0.5))})
                p.log_scale = log
                await pilot.pause()
                labels = [float(line.split("┤")[0]) for line in p.render().plain.splitlines() if "┤" in line]
                assert len(labels) >= 3 and labels == sorted(labels, reverse=True), labels   # top is the largest
                assert labels[0] > 0.5 > labels[-1]

    asyncio.run(go())


def test_the_offline_engine_notice_is_in_the_status_line_not_a_toast(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    repo = demo.make_demo_repo(tmp_path / "demo-classifier")
    app = MltdbgApp(Options(cwd=str(repo), name="demo", command="python train.py", engine="auto"))

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await _to(app, pilot, CaptureScreen)
            await _to(app, pilot, HypothesesScreen, "ctrl+n")
            assert not any("offline engine" in str(n.message).lower() for n in app._notifications)
            assert "offline engine" in str(app.screen.query_one("#status").render()).lower()

    asyncio.run(go())
