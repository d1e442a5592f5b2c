"""Plot ticks: evenly spaced nice numbers (1/2/5 x 10^k) inside the data's step range, labelled compactly."""
from __future__ import annotations

import asyncio
import math

import numpy as np
from textual.app import App, ComposeResult

from mltdbg.app.widgets.plot import MetricPlot, compact, inner_ticks, nice_ticks, tick_labels


def _nice(step: float) -> bool:
    m = step / 10 ** math.floor(math.log10(step))
    return any(abs(m - k) < 1e-9 for k in (1, 2, 5, 10))


def test_inner_ticks_are_even_nice_and_inside():
    for lo, hi in [(0, 43468.7), (1, 50000), (10, 1_250_000), (0.5, 3.2), (1000, 1003), (0, 1), (3, 7),
                   (10869.6, 43468.7), (-5, 5), (0.001, 0.0042)]:
        for n in (2, 4, 6):
            t = inner_ticks(lo, hi, n)
            assert 2 <= len(t) <= max(n, 3), (lo, hi, n, t)
            assert all(lo - 1e-9 <= x <= hi + 1e-9 for x in t), (lo, hi, t)
            gaps = np.diff(t)
            assert np.allclose(gaps, gaps[0]), t
            assert _nice(float(gaps[0])), (lo, hi, t)


def test_the_uneven_example_becomes_round():
    t = inner_ticks(0, 43468.7, 6)
    assert t == [0, 10000, 20000, 30000, 40000]
    assert tick_labels(t) == ["0", "10k", "20k", "30k", "40k"]


def test_compact_labels():
    assert compact(10000) == "10k" and compact(1_200_000) == "1.2M" and compact(0.025) == "0.025"
    assert compact(250) == "250" and compact(3e9) == "3G" and compact(-20000) == "-20k"
    # labels that would collide get the digits that tell them apart
    assert tick_labels([1_000_000, 1_005_000, 1_010_000]) == ["1M", "1.005M", "1.01M"]


def test_linear_y_steps_are_1_2_5():
    for lo, hi in [(0.0028, 0.1414), (0, 43468.7), (2.3, 2.9)]:
        ylo, yhi, t = nice_ticks(lo, hi)
        assert ylo <= lo and yhi >= hi
        assert _nice(t[1] - t[0]), t


class _PlotApp(App):
    def compose(self) -> ComposeResult:
        yield MetricPlot(id="plot")


def test_rendered_plot_shows_the_round_labels():
    async def go() -> str:
        app = _PlotApp()
        async with app.run_test(size=(80, 24)) as pilot:
            plot = app.query_one(MetricPlot)
            steps = np.arange(0, 43469, 7)
            plot.set_data({"loss": (steps, 2.0 * np.exp(-steps / 20000.0) + 0.1)})
            await pilot.pause()
            return plot.render().plain
    text = asyncio.run(go())
    x_axis = [ln for ln in text.splitlines() if "10k" in ln]
    assert x_axis, text
    assert all(lab in x_axis[-1] for lab in ("10k", "20k", "30k", "40k")), x_axis[-1]
    assert "10869" not in text and "21735" not in text
