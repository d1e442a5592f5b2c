"""Live runs in the TUI: the follower of `mltdbg watch` (mltdbg.analyzers.follow) run beside the plot.

In:  the session's artifacts (files or run folders, as the diagnosis read them; none: the repo root) and
     the stall time (Options.stall_minutes, else DEFAULT_STALL_MINUTES).
Out: new points appended to the screen's MetricPlot (redraw at most every REDRAW_S), and for every new
     finding (first non-finite value, spike, divergence, a log that stopped being written) a line in the
     header ("LIVE  new: first NaN in loss at step 1234 (train.log:5678)"), one toast, a mark on the plot
     and, once the diagnosis on screen predates a finding, "stale (press r)" in the title.

`LiveFollow` is an invisible widget the hypotheses screen mounts: its thread worker polls the follower
every POLL_S (reading only appended bytes; nothing when nothing was written) and posts what it found; the
worker ends when the widget goes (screen left, app quit). Only what is appended after the screen opened
is followed (the diagnosis read the rest), so a finished run costs a stat per file per poll and never
shows "LIVE". All the detection is the follower's; this module is glue and wording.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
from textual import work
from textual.css.query import NoMatches
from textual.message import Message
from textual.widget import Widget
from textual.worker import WorkerState, get_current_worker

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.app.widgets.plot import MetricPlot

# Seconds between polls: a write shows within about this long (the issue asks for 1 s); the worker
# sleeps on an Event in between, so leaving the screen ends it within one interval.
POLL_S = 0.5
# The plot is redrawn at most this often however fast points arrive (a redraw is ~tens of ms).
REDRAW_S = 0.5
# A run that has been written to while on screen and then gets no write for this long is "stalled".
# 10 minutes: longer than the usual logging interval of a training job, short enough to matter.
DEFAULT_STALL_MINUTES = 10.0
# Folders are walked for new files (a restarted job's new event file) at most this often.
RESCAN_S = 5.0
# Findings kept for the header (the newest is shown) and toasts (one per finding).
MAX_FINDINGS = 100
# Live points kept to lay again over a plot whose data was replaced (a diagnosis that read the file before
# they were written); older ones come back with the next diagnosis. ~100 bytes each: ~20 MB at most.
HISTORY_POINTS = 200_000


def headline(f: Any, short_source: bool = False) -> str:
    """One short line for a Finding (kind, metric, step, value, source, line, message); short_source: the
    file's name without its folder (the header is ~65 columns at 80)."""
    src = f.source.replace("\\", "/").rsplit("/", 1)[-1] if short_source else f.source
    where = src + (f":{f.line}" if f.line else "")
    at = f" at step {f.step}" if f.step is not None else ""
    if f.kind == "nonfinite":
        v = f.value
        word = "NaN" if v != v else ("inf" if v > 0 else "-inf")
        return f"first {word} in {f.metric}{at} ({where})"
    if f.kind == "spike":
        return f"spike in {f.metric}{at} ({where})"
    if f.kind == "divergence":
        return f"{f.metric} diverging{at} ({where})"
    if f.kind == "stalled":
        return f"log stalled: {f.message} ({where})"
    return f"{f.kind}: {f.message} ({where})"


def append_points(series: dict[str, tuple[np.ndarray, np.ndarray]], points: list[tuple]) -> int:
    """Append (metric, step or None, value, ...) points to {metric: (steps, values)} in place; a point not
    after the series' last step (already read by the diagnosis, or a restart) is left out, a point without
    a step gets the next one. Returns how many were added."""
    new: dict[str, tuple[list[float], list[float]]] = {}
    last: dict[str, float] = {}
    for name, step, value, *_ in points:
        if name not in last:
            s = series.get(name)
            last[name] = float(s[0][-1]) if s is not None and len(s[0]) else -np.inf
        st = (last[name] + 1 if np.isfinite(last[name]) else 0) if step is None else step
        if st <= last[name]:
            continue
        last[name] = st
        ss, vv = new.setdefault(name, ([], []))
        ss.append(st)
        vv.append(value)
    for name, (ss, vv) in new.items():
        old = series.get(name)
        if old is None:
            series[name] = (np.asarray(ss), np.asarray(vv, dtype=np.float64))
        else:
            series[name] = (np.concatenate([np.asarray(old[0]), np.asarray(ss)]),
                            np.concatenate([np.asarray(old[1], dtype=np.float64), np.asarray(vv, dtype=np.float64)]))
    return sum(len(v[0]) for v in new.values())


class LiveFollow(Widget):
    """Follows the session's artifacts while mounted; see the module docstring."""

    DEFAULT_CSS = "LiveFollow { display: none; }"

    class Polled(Message):
        def __init__(self, points: list[tuple], findings: list, notices: list, grew: bool) -> None:
            super().__init__()
            self.points, self.findings, self.notices, self.grew = points, findings, notices, grew

    def __init__(self, paths: list[str] | None = None, stall_s: float | None = None) -> None:
        super().__init__(id="live-follow")
        self._paths = paths
        self._stall_s = stall_s
        self._stop = threading.Event()
        self.primed = threading.Event()    # the follower has taken the files' current ends (set after poll 1)
        self._pending: list[tuple] = []
        self._pending_marks: list[dict[str, Any]] = []
        self._history: deque[tuple] = deque(maxlen=HISTORY_POINTS)
        self._marks: list[dict[str, Any]] = []
        self._plotted: dict | None = None   # the plot's series dict the history was laid over
        self._last_redraw = 0.0
        self.live = False                  # something was appended since the screen opened
        self.findings: list = []
        self.points_added = 0
        self._stale_after: int | None = None   # stale while the session has at most this many diagnoses

    # ----- setup -------------------------------------------------------------------------------
    def _follow_paths(self) -> list[str]:
        if self._paths is not None:
            return self._paths
        s = getattr(self.app, "session", None)
        if s is None:
            return []
        root = Path(s.root)
        return [str(root / a) for a in s.state.artifacts] or [str(root)]

    def _stall(self) -> float:
        if self._stall_s is not None:
            return self._stall_s
        mins = getattr(getattr(self.app, "options", None), "stall_minutes", None)
        return (DEFAULT_STALL_MINUTES if mins is None else float(mins)) * 60

    def on_mount(self) -> None:
        paths = self._follow_paths()
        if not paths:
            return
        self._follow(paths, self._stall())
        self.set_interval(REDRAW_S, self._flush)
        self.watch(self.app, "sub_title", lambda _=None: self._retitle(), init=False)

    def on_unmount(self) -> None:
        self._stop.set()

    # ----- the worker --------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="live-follow")
    def _follow(self, paths: list[str], stall_s: float) -> None:
        from mltdbg.analyzers.follow import Follower, Notice  # noqa: PLC0415 - numpy + readers, in the worker
        worker = get_current_worker()
        f = Follower(paths, stall_s=stall_s, start_at_end=True, keep_points=True, stall_after_write=True,
                     rescan_s=RESCAN_S)
        while not self._stop.is_set() and not worker.is_cancelled:
            evs = f.poll()
            self.primed.set()
            if f.points or evs or (f.written and not self.live):
                findings = [e for e in evs if not isinstance(e, Notice)]
                notices = [e for e in evs if isinstance(e, Notice)]
                self.post_message(self.Polled(list(f.points), findings, notices, f.written))
            if not f.behind:
                self._stop.wait(POLL_S)

    # ----- the UI side -------------------------------------------------------------------------
    def on_live_follow_polled(self, event: Polled) -> None:
        event.stop()
        if event.grew:
            self.live = True
        self._pending.extend(event.points)
        for n in event.notices:
            self.app.notify(f"live: {n.text()}", severity="warning", timeout=6)
        for fnd in event.findings:
            self.findings = (self.findings + [fnd])[-MAX_FINDINGS:]
            self.app.notify(headline(fnd), title="Live run", severity="warning", timeout=10)   # once each
            if fnd.kind in ("spike", "divergence") and fnd.step is not None:
                self._pending_marks.append({"step": fnd.step, "metric": fnd.metric, "label": f"live {fnd.kind}"})
            st = getattr(getattr(self.app, "session", None), "state", None)
            if st is not None and st.diagnoses:
                # a diagnosis being made now may have read the file before the finding: wait for the next one
                self._stale_after = len(st.diagnoses) + (1 if self._diagnosing() else 0)
        if event.findings:
            self._flush(force=True)
        self._retitle()

    def _diagnosing(self) -> bool:
        return any(w.group == "diagnose" and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
                   for w in self.app.workers)

    def _flush(self, force: bool = False) -> None:
        marks = self._pending_marks
        if self._stale_after is not None:
            st = getattr(getattr(self.app, "session", None), "state", None)
            if st is not None and len(st.diagnoses) > self._stale_after:
                self._stale_after = None
                self._retitle()
        if not self._pending and not marks and not self._replotted():
            return
        now = time.monotonic()
        if not force and now - self._last_redraw < REDRAW_S * 0.9:
            return
        try:
            plot = self.screen.query_one(MetricPlot)
        except NoMatches:       # no plot on this screen (yet): keep the points for later
            return
        if self._plotted is not None and plot.series is not self._plotted:
            # the screen drew a new diagnosis (set_data): lay the live points and marks over it again
            append_points(plot.series, list(self._history))
            plot.anomalies.extend(self._marks)
        self.points_added += append_points(plot.series, self._pending)
        plot.anomalies.extend(marks)
        self._history.extend(self._pending)
        self._marks = (self._marks + marks)[-MAX_FINDINGS:]
        self._pending, self._pending_marks = [], []
        self._plotted = plot.series
        if plot.metric not in plot.series and plot.available:
            plot.metric = plot.available[0]
        self._last_redraw = now
        plot.refresh()

    def _replotted(self) -> bool:
        try:
            return self._plotted is not None and self.screen.query_one(MetricPlot).series is not self._plotted
        except NoMatches:
            return False

    @property
    def stale(self) -> bool:
        return self._stale_after is not None

    def header_text(self) -> tuple[str, str]:
        """(title, sub-title) while live: the newest finding first (bold, the part that fits at 80 columns),
        then the stale marker, then the app's own sub-title (step and elapsed time)."""
        # The stale marker goes in the title, before the finding: the sub-title is cut first at 80 columns.
        title = "LIVE" + (", stale (press r)" if self.stale else "") + (
            f": {headline(self.findings[-1], short_source=True)}" if self.findings else "")
        sub = [self.app.sub_title] if self.app.sub_title else []
        return visible(title, keep=""), visible(" · ".join(sub), keep="")

    def _retitle(self) -> None:
        if not self.live and not self.findings:
            return
        self.screen.title, self.screen.sub_title = self.header_text()
