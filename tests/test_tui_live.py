"""Live runs in the TUI: the hypotheses screen follows a run that is still being written (app/widgets/live.py
over mltdbg.analyzers.follow). Real temp run folders, real text logs appended to while the app runs."""
from __future__ import annotations

import asyncio
import math

from textual.widgets import Header

from mltdbg.analyzers.follow import Follower
from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.hypotheses import HypothesesScreen
from mltdbg.app.widgets.live import LiveFollow, append_points, headline
from mltdbg.app.widgets.plot import MetricPlot

from tui_helpers import until


def _lines(a: int, b: int) -> str:
    return "".join(f"step={s} loss={2.0 * math.exp(-s / 40):.5f} lr=0.001\n" for s in range(a, b))


def _append(path, text: str) -> None:
    with open(path, "a") as f:
        f.write(text)


def _header(app) -> str:
    return str(app.screen.query_one(Header).query_one("HeaderTitle").render())


async def _to_live_hypotheses(app, pilot):
    await pilot.pause()
    await pilot.press("ctrl+n")
    await until(pilot, lambda: isinstance(app.screen, HypothesesScreen) and app.session.state.diagnoses, what="diagnosis")
    await until(pilot, lambda: app.screen.query(LiveFollow) and app.screen.query_one(LiveFollow).primed.is_set(),
                timeout=20, what="the follower's first poll")
    return app.screen.query_one(LiveFollow)


def test_appended_points_join_the_plot_and_a_nan_shows_in_the_header(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    log = run_dir / "train.log"
    log.write_text(_lines(1, 61))
    app = MltdbgApp(Options(cwd=str(tmp_path), paths=[str(run_dir)], engine="offline"))

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            live = await _to_live_hypotheses(app, pilot)
            plot = app.screen.query_one(MetricPlot)
            assert len(plot.series["loss"][0]) == 60
            assert "LIVE" not in _header(app)            # nothing appended yet: not a live run
            _append(log, _lines(61, 81))
            await until(pilot, lambda: len(plot.series["loss"][0]) == 80, timeout=20, what="20 appended points")
            # (the header is redrawn on its own throttled tick, after the plot: wait for it, not for a fixed time)
            await until(pilot, lambda: "LIVE" in _header(app), timeout=5, what="LIVE in the header")
            assert plot.series["loss"][0][-1] == 80
            assert not live.findings
            _append(log, _lines(81, 83) + "step=83 loss=nan lr=0.001\n")
            await until(pilot, lambda: "NaN" in _header(app), timeout=20, what="the NaN in the header")
            await pilot.pause(0.6)                          # the throttled redraw
            head = _header(app)
            assert "LIVE, stale (press r): first NaN in loss at step 83 (train.log:83)" in head, head
            assert head.index("(press r)") + len("(press r)") < 70     # inside the header's room at 80 columns
            steps, values = plot.series["loss"]
            assert steps[-1] == 83 and math.isnan(values[-1])
            assert [f.kind for f in live.findings] == ["nonfinite"]
            # the plot redrawn from data read before the appends (a diagnosis that started earlier): the live
            # points are laid over it again
            plot.set_data({"loss": (steps[:60], values[:60])})
            await until(pilot, lambda: len(plot.series["loss"][0]) == 83, timeout=10, what="live points laid again")
            # r: a new diagnosis reads the whole file; the marker goes, the NaN stays the newest finding
            await pilot.press("r")
            await until(pilot, lambda: len(app.session.state.diagnoses) == 2 and "stale" not in _header(app),
                        timeout=60, what="re-diagnosis clearing the stale marker")
            assert "first NaN in loss at step 83" in _header(app)
    asyncio.run(go())


def test_a_run_that_stops_being_written_is_flagged_as_stalled(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    log = run_dir / "train.log"
    log.write_text(_lines(1, 41))
    # 0.02 min = 1.2 s without a write
    app = MltdbgApp(Options(cwd=str(tmp_path), paths=[str(run_dir)], engine="offline", stall_minutes=0.02))

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            live = await _to_live_hypotheses(app, pilot)
            await pilot.pause(2.0)                          # a finished run only looked at is never "stalled"
            assert not live.findings and "stalled" not in _header(app)
            _append(log, _lines(41, 45))
            await until(pilot, lambda: live.live, timeout=20, what="the write seen")
            await until(pilot, lambda: "stalled" in _header(app), timeout=20, what="the stall finding")
            assert [f.kind for f in live.findings] == ["stalled"]
            assert "LIVE, stale (press r): log stalled: no write" in _header(app) and "train.log" in _header(app)
            _append(log, _lines(45, 47))                    # writing again, then stopping again: flagged again
            await until(pilot, lambda: len(live.findings) == 2, timeout=20, what="the second stall")
    asyncio.run(go())


def test_follower_hands_points_and_arms_the_stall_clock_at_the_first_write(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(_lines(1, 11))
    now = [0.0]
    f = Follower([log], stall_s=60, start_at_end=True, clock=lambda: now[0], keep_points=True,
                 stall_after_write=True)
    assert f.poll() == [] and f.points == []
    now[0] = 600.0
    assert f.poll() == []                                 # nothing written since the start: no stall
    _append(log, _lines(11, 13))
    assert f.poll() == []
    assert [(p[0], p[1], p[3], p[4]) for p in f.points if p[0] == "loss"] == \
        [("loss", 11, "train.log", 11), ("loss", 12, "train.log", 12)]
    assert {p[0] for p in f.points} == {"loss", "lr"}
    now[0] = 661.0
    out = f.poll()
    assert [e.kind for e in out] == ["stalled"] and f.points == []


def test_append_points_keeps_steps_increasing():
    import numpy as np
    series = {"loss": (np.arange(1, 4), np.array([1.0, 0.9, 0.8]))}
    n = append_points(series, [("loss", 3, 0.7), ("loss", 4, 0.6), ("loss", None, float("nan")), ("acc", None, 0.5)])
    assert n == 3
    assert series["loss"][0].tolist() == [1, 2, 3, 4, 5] and math.isnan(series["loss"][1][-1])
    assert series["acc"][0].tolist() == [0] and series["acc"][1].tolist() == [0.5]


def test_headline_words():
    from mltdbg.analyzers.follow import Finding
    assert headline(Finding("nonfinite", "loss", 1234, float("nan"), "train.log", 5678, "")) == \
        "first NaN in loss at step 1234 (train.log:5678)"
    assert headline(Finding("nonfinite", "grad_norm", 7, float("-inf"), "m.jsonl", None, "")) == \
        "first -inf in grad_norm at step 7 (m.jsonl)"
