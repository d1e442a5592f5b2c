"""Snapshots of each step screen on the demo at 80x24 and 120x40 (review the SVGs in
tests/__snapshots__/ after `pytest --snapshot-update`). Deterministic: a fixed clock (the header's
elapsed time is clamped at 0 before the session start; the lesson date is 2026-05-04), no cursor
blink, the offline engine."""
from __future__ import annotations

import datetime as dt

import pytest

from mltdbg.app.screens.capture import CaptureScreen
from mltdbg.app.screens.check import CheckScreen
from mltdbg.app.screens.fix import FixScreen
from mltdbg.app.screens.hypotheses import HypothesesScreen
from mltdbg.app.screens.lesson import LessonScreen

from tui_helpers import demo_app, until, use_this_python

FIXED_NOW = dt.datetime(2026, 5, 4, 10, 0, tzinfo=dt.timezone.utc)
SIZES = [(80, 24), (120, 40)]


def _still(app) -> None:
    for w in app.screen.query("Input, TextArea"):
        w.cursor_blink = False


async def _capture(app, pilot):
    await until(pilot, lambda: isinstance(app.screen, CaptureScreen) and app.screen.query_one("#artifacts").option_count)
    _still(app)


async def _hypotheses(app, pilot):
    await _capture(app, pilot)
    await pilot.press("ctrl+n")
    await until(pilot, lambda: isinstance(app.screen, HypothesesScreen) and app.session.state.diagnoses
                and not app.screen.query_one("#busy").display)
    await pilot.pause()


async def _check(app, pilot):
    await _hypotheses(app, pilot)
    await pilot.press("c")
    await until(pilot, lambda: isinstance(app.screen, CheckScreen) and app.screen._wt is not None)
    await pilot.pause(0.2)
    _still(app)


async def _fix(app, pilot):
    await _hypotheses(app, pilot)
    await pilot.press("f")
    await until(pilot, lambda: isinstance(app.screen, FixScreen))
    await pilot.pause()
    _still(app)


async def _lesson(app, pilot):
    await _fix(app, pilot)
    await pilot.press("n")
    await until(pilot, lambda: isinstance(app.screen, LessonScreen))
    await pilot.pause(0.2)   # the "no fix applied" toast is part of this screen's moment
    _still(app)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("step", [_capture, _hypotheses, _check, _fix, _lesson], ids=lambda f: f.__name__.strip("_"))
def test_screen_snapshot(step, size, tmp_path, monkeypatch, snap_compare):
    use_this_python(monkeypatch)
    app, _ = demo_app(tmp_path, now=lambda: FIXED_NOW)

    async def before(pilot):
        await step(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)
