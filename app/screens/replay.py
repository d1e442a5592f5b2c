"""`--replay`: a recorded session, read-only, one event at a time, with autoplay at a chosen speed.
It reads the log through `sessions.Replay` only: nothing is run, applied or written. Each event is
worded by the core (`sessions.export.describe`), as `mltdbg sessions replay` and the export word it."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.app.screens.base import step_footer
from mltdbg.app.screens.hypotheses import bar
from mltdbg.app.widgets.plot import MetricPlot
from mltdbg.sessions.export import describe
from mltdbg.sessions.plots import recorded_series

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)      # events per second


class ReplayScreen(Screen):
    BINDINGS = [
        Binding("n,right", "step(1)", "Next", id="replay_next"),
        Binding("p,left", "step(-1)", "Prev", id="replay_prev"),
        Binding("space", "autoplay", "Play/pause", id="replay_play"),
        Binding("plus,equals_sign", "speed(1)", "Faster", id="replay_faster"),
        Binding("minus", "speed(-1)", "Slower", id="replay_slower"),
        Binding("home", "jump(0)", "Start", show=False, id="replay_start"),
        Binding("end", "jump(-1)", "End", show=False, id="replay_end"),
        Binding("m", "metric", "Metric", show=False, id="replay_metric"),
        Binding("q,escape", "app.quit", "Quit", id="replay_quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.speed = 2
        self.timer = None

    @property
    def replay(self):
        return self.app.replay

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="pos")
        with Horizontal(id="main"):
            with VerticalScroll(id="event_box"):
                yield Static("", id="event", markup=False)
            with VerticalScroll(id="state_box"):
                yield Static("", id="state")
                yield MetricPlot(id="plot")
        yield step_footer()   # compact, no palette key: every key fits at 80 columns

    def on_mount(self) -> None:
        for n in self.replay.notices + self.replay.warnings[:3]:
            self.notify(n, severity="warning", timeout=8)
        self._show()

    def _show(self) -> None:
        r = self.replay
        st = r.state
        play = f"playing at {SPEEDS[self.speed]:g} events/s" if self.timer else "paused"
        # Everything from the log is data (a shared session file may hold anything): rich Text, never markup.
        self.query_one("#pos", Static).update(Text.assemble(
            ("replay", "bold"), f" (read-only: nothing runs)  event {r.index}/{len(r)}  step ",
            (visible(str(st.step), keep=""), "bold"), f"  {play}"))
        self.query_one("#event", Static).update(Text(visible(describe(r.event, st, full=True))) if r.event else
                                                "(start of the session: n or space to play)")
        lines: list[Text] = []
        c = st.capture
        if c.get("command"):
            lines.append(Text.assemble(("command", "bold"), " " + visible(str(c["command"]))))
        for i, h in enumerate(st.hypotheses[:5]):
            conf = h.confidence or 0.0
            v = st.verdicts.get(h.id)
            lines.append(Text(visible(f"{i + 1}. {bar(conf)} {conf:>4.0%} {h.id}" + (f" [{v.verdict}]" if v else ""))))
        for ch in list(st.checks.values())[-2:]:
            lines.append(Text(visible(f"check {ch.command}: {ch.status}" +
                                      (f", exit {ch.exit_code}" if ch.exit_code is not None else ""))))
        if st.fix:
            lines.append(Text(visible(f"fix ({st.fix.source}) {st.fix.status}: {', '.join(map(str, st.fix.files))}")))
        if st.lesson:
            lines.append(Text("lesson: " + visible(str(st.lesson.get("text", "")))))
        if st.commits:
            lines.append(Text(visible(f"commit {str(st.commits[-1].get('sha', ''))[:12]}")))
        self.query_one("#state", Static).update(Text("\n").join(lines) if lines else "(nothing yet)")
        plots = st.diagnosis.plots if st.diagnosis else {}
        self.query_one(MetricPlot).display = bool(plots)
        if plots:
            series, _, marks = recorded_series(plots)
            self.query_one(MetricPlot).set_data(series, None, marks)

    def action_step(self, d: int) -> None:
        (self.replay.next if d > 0 else self.replay.prev)()
        if self.replay.at_end and self.timer:
            self.action_autoplay()
        self._show()

    def action_jump(self, n: int) -> None:
        self.replay.jump(len(self.replay) if n < 0 else n)
        self._show()

    def action_autoplay(self) -> None:
        if self.timer:
            self.timer.stop()
            self.timer = None
        elif not self.replay.at_end:
            self.timer = self.set_interval(1 / SPEEDS[self.speed], lambda: self.action_step(1))
        self._show()

    def action_speed(self, d: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + d))
        if self.timer:
            self.timer.stop()
            self.timer = self.set_interval(1 / SPEEDS[self.speed], lambda: self.action_step(1))
        self._show()

    def action_metric(self) -> None:
        self.query_one(MetricPlot).next_metric()
