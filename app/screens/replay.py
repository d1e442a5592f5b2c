"""`--replay`: a recorded session, read-only, one event at a time, with autoplay at a chosen speed.
It reads the log through `sessions.Replay` only: nothing is run, applied or written."""
from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from mltdbg.sessions.cli import describe
from ..widgets.plot import MetricPlot
from .hypotheses import bar

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)      # events per second


class ReplayScreen(Screen):
    CSS_PATH = "replay.tcss"
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
        yield Footer()

    def on_mount(self) -> None:
        for n in self.replay.notices + self.replay.warnings[:3]:
            self.notify(n, severity="warning", timeout=8)
        self._show()

    def _show(self) -> None:
        r = self.replay
        st = r.state
        play = f"playing at {SPEEDS[self.speed]:g} events/s" if self.timer else "paused"
        self.query_one("#pos", Static).update(
            f"[b]replay[/b] (read-only: nothing runs)  event {r.index}/{len(r)}  step [b]{escape(st.step)}[/b]  {play}")
        self.query_one("#event", Static).update(describe(r.event, st, full=True) if r.event else
                                                "(start of the session: n or space to play)")
        lines = []
        c = st.capture
        if c.get("command"):
            lines.append(f"[b]command[/b] {escape(c['command'])}")
        for i, h in enumerate(st.hypotheses[:5]):
            conf = float(h.get("confidence") or 0)
            v = st.verdicts.get(str(h.get("id")))
            lines.append(f"{i + 1}. {bar(conf)} {conf:>4.0%} {escape(str(h.get('id')))}" + (f" [{v.verdict}]" if v else ""))
        for ch in list(st.checks.values())[-2:]:
            lines.append(f"check {escape(ch.command)}: {ch.status}" + (f", exit {ch.exit_code}" if ch.exit_code is not None else ""))
        if st.fix:
            lines.append(f"fix ({st.fix.source}) {st.fix.status}: {escape(', '.join(st.fix.files))}")
        if st.lesson:
            lines.append("lesson: " + escape(st.lesson["text"]))
        if st.commits:
            lines.append(f"commit {st.commits[-1]['sha'][:12]}")
        self.query_one("#state", Static).update("\n".join(lines) or "(nothing yet)")
        plots = (st.diagnosis or {}).get("plots", {})
        self.query_one(MetricPlot).display = bool(plots)
        if plots:
            series = {m: (p.get("steps", []), p.get("values", [])) for m, p in plots.items() if not m.startswith("baseline/")}
            marks = [a for p in plots.values() for a in p.get("anomalies", []) if isinstance(a, dict)]
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
