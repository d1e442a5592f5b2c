"""A metric plot drawn with plotext: one metric at a time, the baseline overlaid, anomalies marked.

Data in: `series` {metric: (steps, values)} at any length (the live run's full series, or the
downsampled record from the session), `baseline` the same for a good run, `anomalies`
[{step, metric?, label}]. Every redraw takes the visible window, smooths it (EMA, optional) and
min-max downsamples it to ~2 points per column before plotext sees it, so a 1,000,000-point
series redraws as fast as a short one. The metric order and the marks from analyzer signals are
the sessions core's (`mltdbg.sessions.plots`), so what is recorded and what is drawn agree.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from mltdbg.analyzers.downsample import minmax_downsample
from mltdbg.sessions.plots import PLOTTED_METRICS
EMA_ALPHA = 0.1           # smoothing weight of the newest point (TensorBoard's slider at 0.9)
ZOOM_STEP = 2.0
PAN_FRACTION = 0.25


def as_floats(values: Any) -> np.ndarray:
    """Values from a session record (numbers, or "NaN"/"inf"/"-inf" strings) as float64."""
    if isinstance(values, np.ndarray):
        return values.astype(np.float64, copy=False)
    out = np.empty(len(values), dtype=np.float64)
    for i, v in enumerate(values):         # recorded plots are ~400 points: a loop is fine here
        try:
            out[i] = float(v)
        except (TypeError, ValueError):
            out[i] = np.nan
    return out


def ema(values: np.ndarray, alpha: float = EMA_ALPHA) -> np.ndarray:
    """Exponential moving average over finite values (non-finite points stay as they are)."""
    import pandas as pd  # noqa: PLC0415 - heavy; only for this file format
    s = pd.Series(values).where(np.isfinite(values))
    sm = s.ewm(alpha=alpha, ignore_na=True).mean().to_numpy()
    return np.where(np.isfinite(values), sm, values)


class MetricPlot(Widget):
    DEFAULT_CSS = """
    MetricPlot { height: 1fr; min-height: 8; }
    """
    metric = reactive("loss")
    log_scale = reactive(False)
    smooth = reactive(False)
    window = reactive((0.0, 1.0))          # visible part of the step range, as fractions

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.series: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.baseline: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.anomalies: list[dict[str, Any]] = []
        self.last_points = 0               # points handed to plotext in the last redraw

    def set_data(self, series, baseline=None, anomalies=None) -> None:
        self.series = {k: (np.asarray(s), as_floats(v)) for k, (s, v) in series.items() if len(s)}
        self.baseline = {k: (np.asarray(s), as_floats(v)) for k, (s, v) in (baseline or {}).items() if len(s)}
        self.anomalies = list(anomalies or [])
        if self.metric not in self.series and self.available:
            self.metric = self.available[0]
        self.log_scale = _wide_range(self.series.get(self.metric))
        self.refresh()

    @property
    def available(self) -> list[str]:
        known = [m for m in PLOTTED_METRICS if m in self.series]
        return known + sorted(m for m in self.series if m not in PLOTTED_METRICS)

    # ----- keys (called by the screen) ---------------------------------------------------------
    def next_metric(self) -> None:
        av = self.available
        if av:
            self.metric = av[(av.index(self.metric) + 1) % len(av)] if self.metric in av else av[0]
            self.log_scale = _wide_range(self.series.get(self.metric))

    def zoom(self, factor: float) -> None:
        lo, hi = self.window
        mid, half = (lo + hi) / 2, (hi - lo) / 2 / factor
        half = min(max(half, 0.005), 0.5)
        lo, hi = mid - half, mid + half
        shift = max(0.0, -lo) - max(0.0, hi - 1.0)
        self.window = (max(0.0, lo + shift), min(1.0, hi + shift))

    def pan(self, direction: int) -> None:
        lo, hi = self.window
        d = (hi - lo) * PAN_FRACTION * direction
        d = max(-lo, min(d, 1.0 - hi))
        self.window = (lo + d, hi + d)

    def reset_view(self) -> None:
        self.window = (0.0, 1.0)

    # ----- drawing -----------------------------------------------------------------------------
    def _visible(self, steps: np.ndarray, values: np.ndarray, lo_step: float, hi_step: float, width: int):
        i0, i1 = np.searchsorted(steps, lo_step, "left"), np.searchsorted(steps, hi_step, "right")
        s, v = steps[i0:i1], values[i0:i1]
        if self.smooth and len(v):
            v = ema(v)
        return minmax_downsample(s, v, max(width, 8))

    def render(self) -> Text:
        import plotext as plt  # noqa: PLC0415 - plotext only when a plot is drawn
        w, h = max(self.size.width, 20), max(self.size.height, 6)
        if self.metric not in self.series:
            have = ", ".join(self.available) or "none"
            return Text(f"no {self.metric} series to plot (have: {have})", style="dim")
        steps, values = self.series[self.metric]
        first, last = float(steps[0]), float(steps[-1])
        span = max(last - first, 1.0)
        lo_step, hi_step = first + self.window[0] * span, first + self.window[1] * span
        plt.clear_figure()
        plt.plotsize(w, h - 1)
        plt.theme("clear")
        s, v = self._visible(steps, values, lo_step, hi_step, w)
        self.last_points = len(s)
        ok = np.isfinite(v) & ((v > 0) if self.log_scale else True)
        if ok.any():
            plt.plot(s[ok].tolist(), v[ok].tolist(), label=self.metric, color="cyan", marker="braille")
        if self.metric in self.baseline:
            bs, bv = self.baseline[self.metric]
            bs, bv = self._visible(bs, bv, lo_step, hi_step, w)
            bok = np.isfinite(bv) & ((bv > 0) if self.log_scale else True)
            if bok.any():
                plt.plot(bs[bok].tolist(), bv[bok].tolist(), label="baseline", color="gray", marker="braille")
        marks = []
        bad = s[~np.isfinite(v)]
        if len(bad):
            marks.append((float(bad[0]), "non-finite", "red"))
        for a in self.anomalies:
            st = a.get("step")
            if isinstance(st, (int, float)) and (a.get("metric") in (None, self.metric)):
                marks.append((float(st), str(a.get("label", "")), "red" if "finite" in str(a.get("label")) else "yellow"))
        for st, _, color in marks:
            if lo_step <= st <= hi_step:
                plt.vline(st, color)
        if self.log_scale:
            plt.yscale("log")
        plt.xlim(lo_step, hi_step)
        out = Text.from_ansi(plt.build().rstrip("\n"))
        legend = " ".join(f"|{lab}@{st:g}" for st, lab, _ in marks if lab and lo_step <= st <= hi_step)
        zoom = "" if self.window == (0.0, 1.0) else f" zoom {lo_step:g}-{hi_step:g}"
        out.append(f"\n{self.metric}{' log' if self.log_scale else ''}{' EMA' if self.smooth else ''}{zoom}"
                   f"  {len(values)} pts  {legend}"[: w], style="dim")
        return out

    def watch_metric(self) -> None:
        self.refresh()

    def watch_log_scale(self) -> None:
        self.refresh()

    def watch_smooth(self) -> None:
        self.refresh()

    def watch_window(self) -> None:
        self.refresh()


# A positive series spanning more than this ratio is drawn on a log axis by default
# (a blow-up to 1e8 otherwise flattens the whole healthy part into the bottom row).
WIDE_RANGE = 1e3


def _wide_range(sv) -> bool:
    if sv is None:
        return False
    v = np.asarray(sv[1], dtype=float)
    v = v[np.isfinite(v)]
    return bool(len(v) and v.min() > 0 and v.max() / v.min() > WIDE_RANGE)
