"""A metric plot drawn with plotext: one metric at a time, the baseline overlaid, anomalies marked.

Data in: `series` {metric: (steps, values)} at any length (the live run's full series, or the
downsampled record from the session), `baseline` the same for a good run, `anomalies`
[{step, metric?, label}]. Every redraw takes the visible window, smooths it (EMA, optional) and
min-max downsamples it to ~2 points per column before plotext sees it, so a 1,000,000-point
series redraws as fast as a short one. The metric order and the marks from analyzer signals are
the sessions core's (`mltdbg.sessions.plots`), so what is recorded and what is drawn agree.
"""
from __future__ import annotations

import math
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
# A series longer than 4x this is reduced once (min-max, this many buckets) for redraws and zooms.
REDUCED_BUCKETS = 16384
Y_TICKS = 5               # about this many labelled y ticks (a 24-row terminal gives the plot ~8 rows)
NICE_STEPS = (1.0, 2.0, 5.0, 10.0)        # tick steps are these times a power of ten (the usual "nice numbers")
X_TICK_COLUMNS = 12       # at most one x tick per this many columns: a label ("12.5k") plus room to breathe
LOG_STEPS = (1.0, 2.0, 5.0, 10.0)         # on a log axis: whole decades once the range spans more than one


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


def _warm() -> None:
    """What the first smoothed redraw needs, loaded ahead on a worker thread."""
    import pandas  # noqa: PLC0415, F401 - only to have it loaded before the user asks for smoothing


def ema(values: np.ndarray, alpha: float = EMA_ALPHA) -> np.ndarray:
    """Exponential moving average over finite values (non-finite points stay as they are)."""
    import pandas as pd  # noqa: PLC0415 - heavy (~0.25 s): imported on a worker when the plot mounts (_warm)
    s = pd.Series(values).where(np.isfinite(values))
    sm = s.ewm(alpha=alpha, ignore_na=True).mean().to_numpy()
    return np.where(np.isfinite(values), sm, values)


def nice_ticks(lo: float, hi: float, n: int = Y_TICKS, steps=NICE_STEPS) -> tuple[float, float, list[float]]:
    """Axis bounds widened to whole steps and evenly spaced ticks at a nice step (1, 2, 2.5, 5 x 10^k).
    A flat range (lo == hi) is padded around the value, so the axis is never empty or inverted."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0, 1.0, [0.0, 0.5, 1.0]
    lo, hi = min(lo, hi), max(lo, hi)
    if hi - lo <= 1e-12 * max(abs(lo), abs(hi), 1.0):
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    raw = (hi - lo) / max(n - 1, 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in steps if m * mag >= raw * (1 - 1e-9))
    lo2, hi2 = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
    count = int(round((hi2 - lo2) / step))
    return lo2, hi2, [round(lo2 + i * step, 12) for i in range(count + 1)]


def inner_ticks(lo: float, hi: float, n: int = Y_TICKS) -> list[float]:
    """Evenly spaced nice ticks (1, 2, 5 x 10^k apart) that lie inside [lo, hi], at most n of them (or
    3 where only one would fit n) and as many as fit (the axis is not widened: used for the step axis, whose range is the data's)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo + 0.0] if math.isfinite(lo) else []
    n = max(n, 2)

    def inside(step: float) -> list[float]:
        first = math.ceil(lo / step - 1e-9) * step
        return [round(first + i * step, 12) + 0.0 for i in range(int((hi - first) / step + 1e-9) + 1)]
    mag = 10.0 ** math.floor(math.log10((hi - lo) / n))
    prev: list[float] = []
    for step in (m * mag for m in (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)):
        ticks = inside(step)
        if len(ticks) <= n:
            # one tick says nothing about the scale: then the next finer step (one more than n, at most 3)
            return ticks if len(ticks) >= 2 or not prev else prev
        prev = ticks
    return prev


_SUFFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def compact(v: float, digits: int = 3) -> str:
    """A short label: 10k, 20k, 1.2M, 0.025, 250 (k/M/G/T from a thousand up)."""
    if v == 0:
        return "0"
    for scale, suffix in _SUFFIXES:
        if abs(v) >= scale:
            return f"{v / scale:.{digits}g}{suffix}"
    return f"{v:.{digits}g}"


def tick_labels(ticks: list[float]) -> list[str]:
    """Compact labels for a tick list, with as many digits as it takes to tell them apart."""
    for digits in range(3, 10):
        labels = [compact(t, digits) for t in ticks]
        if len(set(labels)) == len(labels):
            return labels
    return [f"{t:g}" for t in ticks]


def tick_label(t: float, log: bool = False) -> str:
    """A tick's label: the value itself (on a log axis the tick is log10 of it)."""
    v = 10.0 ** t if log else t
    if log or not 1e-3 <= abs(v) < 1e6:
        return f"{v:.3g}" if v else "0"
    return f"{v:.6g}"        # nice ticks are short: 20000, 0.025


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
        # (which, metric, smooth) -> (steps, values) of the series' EMA and of its min-max reduction
        self._cache: dict[tuple[str, str, bool], tuple[np.ndarray, np.ndarray]] = {}

    def on_mount(self) -> None:
        # the first 's' (smoothing) would otherwise freeze the UI while pandas imports
        self.run_worker(_warm, thread=True, group="plot-warm", exit_on_error=False)

    def set_data(self, series, baseline=None, anomalies=None) -> None:
        self._cache = {}
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
    def _prepared(self, which: str, metric: str, steps: np.ndarray, values: np.ndarray):
        """The full series (EMA-smoothed over all of it when smoothing is on) and, for a long one, its
        min-max reduction to REDUCED_BUCKETS buckets (every spike and non-finite run kept): both made
        once per set_data, so a redraw or a zoom costs the same for 1e3 or 1e7 points."""
        key = (which, metric, self.smooth)
        if key not in self._cache:
            v = ema(values) if self.smooth and len(values) else values
            self._cache[key] = (steps, v)
            if len(steps) > 4 * REDUCED_BUCKETS:
                self._cache[(which + ":reduced", metric, self.smooth)] = minmax_downsample(steps, v, REDUCED_BUCKETS)
        steps, v = self._cache[key]
        return steps, v, self._cache.get((which + ":reduced", metric, self.smooth))

    def _visible(self, which: str, metric: str, steps: np.ndarray, values: np.ndarray, lo_step: float,
                 hi_step: float, width: int):
        """The window [lo_step, hi_step] at ~2 points per column: from the reduction while the window
        holds plenty of its points, else cut from the full data (a deep zoom re-samples the original)."""
        width = max(width, 8)
        steps, values, red = self._prepared(which, metric, steps, values)
        if red is not None:
            rs, rv = red
            j0, j1 = np.searchsorted(rs, lo_step, "left"), np.searchsorted(rs, hi_step, "right")
            if j1 - j0 >= 8 * width:
                return minmax_downsample(rs[j0:j1], rv[j0:j1], width)
        i0, i1 = np.searchsorted(steps, lo_step, "left"), np.searchsorted(steps, hi_step, "right")
        return minmax_downsample(steps[i0:i1], values[i0:i1], width)

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
        s, v = self._visible("run", self.metric, steps, values, lo_step, hi_step, w)
        self.last_points = len(s)
        # A log axis is drawn as log10 of the values on a linear axis with our own ticks: plotext's log
        # scale inverts a flat series' axis and labels uneven ticks.
        ys: list[np.ndarray] = []
        ok = np.isfinite(v) & ((v > 0) if self.log_scale else True)
        if ok.any():
            y = np.log10(v[ok]) if self.log_scale else v[ok]
            ys.append(y)
            plt.plot(s[ok].tolist(), y.tolist(), label=self.metric, color="cyan", marker="braille")
        if self.metric in self.baseline:
            bs, bv = self.baseline[self.metric]
            bs, bv = self._visible("baseline", self.metric, bs, bv, lo_step, hi_step, w)
            bok = np.isfinite(bv) & ((bv > 0) if self.log_scale else True)
            if bok.any():
                by = np.log10(bv[bok]) if self.log_scale else bv[bok]
                ys.append(by)
                plt.plot(bs[bok].tolist(), by.tolist(), label="baseline", color="gray", marker="braille")
        if ys:
            allv = np.concatenate(ys)
            ylo, yhi, ticks = nice_ticks(float(allv.min()), float(allv.max()), min(Y_TICKS, max(2, (h - 3) // 2)),
                                         LOG_STEPS if self.log_scale else NICE_STEPS)
            plt.ylim(ylo, yhi)
            plt.yticks(ticks, [tick_label(t, True) for t in ticks] if self.log_scale else tick_labels(ticks))
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
        plt.xlim(lo_step, hi_step)
        xt = inner_ticks(lo_step, hi_step, max(2, min(6, w // X_TICK_COLUMNS)))
        plt.xticks(xt, tick_labels(xt))
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
