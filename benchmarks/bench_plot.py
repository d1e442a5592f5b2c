"""Plot redraw cost at 120x30 for series of any length, and proof nothing that matters is dropped.

    .venv/bin/python benchmarks/bench_plot.py [--points 1000,100000,1000000,10000000] [--runs 7]

For each length, a deterministic loss curve (noise, one spike of 50x at 37 % of the steps, the
first NaN at 81 %, NaN to the end) is handed to the TUI's MetricPlot inside a running Textual app
(App.run_test at 120x30). Times, medians of --runs: a full-view redraw (`render()`: window cut,
min-max downsampling, plotext), a 20x zoom around the spike (from the series' one-time min-max
reduction), a 500x zoom (cut from the original points), and the EMA-smoothed full view; and the
first redraw after new data or after turning smoothing on (the one-time reduction / EMA). Checks, per redraw: the spike's step and
value are among the points drawn (where in view), the first NaN is marked, and the points handed
to plotext stay ~2 per column. Target: < 50 ms per redraw. Exit status 1 when a check fails.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time

import numpy as np
from textual.app import App, ComposeResult

from mltdbg.app.widgets.plot import MetricPlot

W, H = 120, 30


def curve(n: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    rng = np.random.default_rng(0)
    steps = np.arange(n, dtype=np.int64) * 10
    values = 2.0 * np.exp(-np.arange(n) / max(n / 5, 1)) + 0.3 + rng.normal(0, 0.02, n)
    spike = int(n * 0.37)
    values[spike] = 50.0
    nan_at = int(n * 0.81)
    values[nan_at:] = np.nan
    return steps, values, int(steps[spike]), int(steps[nan_at])


class PlotApp(App):
    def compose(self) -> ComposeResult:
        yield MetricPlot(id="plot")


def timed(plot: MetricPlot, runs: int) -> tuple[float, str]:
    out, ts = "", []
    for _ in range(runs):
        t = time.perf_counter()
        out = plot.render().plain
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), out


async def bench(points: list[int], runs: int) -> bool:
    ok = True
    app = PlotApp()
    async with app.run_test(size=(W, H)) as pilot:
        plot = app.query_one(MetricPlot)
        await pilot.pause()
        print(f"MetricPlot at {plot.size.width}x{plot.size.height} (app {W}x{H}); medians of {runs} redraws; target < 50 ms")
        for n in points:
            steps, values, spike_step, nan_step = curve(n)
            plot.smooth = False
            plot.window = (0.0, 1.0)
            plot.set_data({"loss": (steps, values)})
            t = time.perf_counter()
            plot.render()
            first = time.perf_counter() - t          # the one-time reduction of a long series
            full, text = timed(plot, runs)
            problems = []
            s, v = plot._visible("run", "loss", steps, values, steps[0], steps[-1], plot.size.width)
            if not np.any((s == spike_step) & (v == 50.0)):
                problems.append("spike not drawn")
            if f"non-finite@{nan_step:g}" not in text:
                problems.append("first NaN not marked")
            drawn_full = plot.last_points
            lo = (spike_step - steps[0]) / (steps[-1] - steps[0])

            def zoomed(half: float, what: str):
                """Zoom to lo +- half of the span: redraw time and the points drawn (spike checked)."""
                plot.window = (max(0.0, lo - half), min(1.0, lo + half))
                took, _ = timed(plot, runs)
                span = steps[-1] - steps[0]
                zs, zv = plot._visible("run", "loss", steps, values, steps[0] + plot.window[0] * span,
                                       steps[0] + plot.window[1] * span, plot.size.width)
                if not np.any((zs == spike_step) & (zv == 50.0)):
                    problems.append(f"spike lost in {what}")
                return took, zs

            zoom, zs = zoomed(0.025, "zoom")        # 20x: from the one-time reduction
            in_window = int(np.count_nonzero((steps >= zs.min()) & (steps <= zs.max()))) if len(zs) else 0
            deep, ds = zoomed(0.001, "deep zoom")   # 500x: past what the reduction holds, original points
            if n >= 2_000_000 and not np.all(np.isin(ds, steps)):
                problems.append("deep zoom drew points that are not in the data")
            plot.window = (0.0, 1.0)
            plot.smooth = True
            t = time.perf_counter()
            plot.render()
            first_ema = time.perf_counter() - t      # EMA of the whole series, once
            smooth, _ = timed(plot, runs)
            plot.smooth = False
            if drawn_full > 4 * plot.size.width + 16:
                problems.append(f"{drawn_full} points handed to plotext")
            ok &= not problems
            print(f"{n:>11,} pts: first {first * 1e3:5.0f} ms, then {full * 1e3:4.1f} ms ({drawn_full} drawn) | zoom 20x "
                  f"{zoom * 1e3:4.1f} ms ({in_window:,} in view) | 500x {deep * 1e3:4.1f} ms | EMA first "
                  f"{first_ema * 1e3:5.0f} ms, then {smooth * 1e3:4.1f} ms | "
                  + ("spike, zoomed spike and first NaN kept" if not problems else "FAIL: " + "; ".join(problems)),
                  flush=True)
        app.exit()
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", default="1000,100000,1000000,10000000")
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    return 0 if asyncio.run(bench([int(x) for x in a.points.split(",")], a.runs)) else 1


if __name__ == "__main__":
    sys.exit(main())
