"""Step 2, Hypotheses: the ranked root causes beside the curves.

Diagnosis runs in a worker (`mltdbg.sessions.diagnosis.diagnose_session`: ingest, analyzers, engine)
when the session has none yet or a verdict came in; its result is recorded as `diagnosis_made`
(with downsampled plots, so a resumed or replayed session draws the same curves). The list, the
evidence and the plot render the latest recorded diagnosis."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Header, LoadingIndicator, OptionList, Static
from textual.widgets.option_list import Option

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.analyzers.crossrank import cross_rank, view_from_record
from mltdbg.app.screens.base import StepScreen, load_engine, step_footer
from mltdbg.app.screens.probe import holds_probe, open_probe_view
from mltdbg.app.widgets.live import LiveFollow
from mltdbg.app.widgets.plot import MetricPlot
from mltdbg.app.widgets.ranks import RankPanel
from mltdbg.sessions.events import DiagnosisMade
from mltdbg.sessions.plots import recorded_series
from mltdbg.sessions.state import HypothesisRecord

BAR_WIDTH = 10
NARROW_BELOW = 110      # columns: below this the plot goes under the list instead of beside it


def is_engine_notice(warning: str) -> bool:
    """The engine selection's notice (playbooks.claude.select_engine: Claude not used, offline instead)."""
    return "offline engine" in str(warning).lower()


def bar(p: float, width: int = BAR_WIDTH) -> str:
    n = round(max(0.0, min(1.0, p)) * width)
    return "█" * n + "░" * (width - n)


class HypothesesScreen(StepScreen):
    STEP = "diagnose"
    BINDINGS = [
        # Footer order is priority order; the rest show=False (listed in the F1 help).
        Binding("enter,c", "check", "Check", id="check"),
        Binding("f", "fix", "Fix", id="fix"),
        Binding("o", "open_evidence", "Evidence", id="open_evidence"),
        Binding("p", "probe", "Probe", id="probe"),     # shown only when the session holds a probe result
        Binding("m", "metric", "Metric", id="metric"),
        Binding("g", "log", "Log", id="log_scale"),
        Binding("s", "smooth", "EMA", id="smooth"),
        Binding("escape", "back", "Back", id="back"),
        Binding("plus,equals_sign", "zoom(2)", "Zoom in", show=False, id="zoom_in"),
        Binding("minus", "zoom(0.5)", "Zoom out", show=False, id="zoom_out"),
        Binding("left,h", "pan(-1)", "Pan", show=False, id="pan_left"),
        Binding("right,l", "pan(1)", "Pan right", show=False, id="pan_right"),
        Binding("0", "reset_view", "Whole run", show=False, id="reset_view"),
        Binding("r", "rediagnose", "Re-diagnose", show=False, id="rediagnose"),
    ]

    class Progressed(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Diagnosed(Message):
        def __init__(self, event: DiagnosisMade, series: dict, baseline: dict, warnings: list[str], diagnosis) -> None:
            super().__init__()
            self.event, self.series, self.baseline, self.warnings, self.diagnosis = event, series, baseline, warnings, diagnosis

    class DiagnosisFailed(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Static("", id="status", markup=True)
                yield OptionList(id="hyps")
                with VerticalScroll(id="detail"):
                    yield Static("", id="evidence")
            with Vertical(id="right"):
                yield MetricPlot(id="plot")
                yield RankPanel(id="ranks")
        yield LoadingIndicator(id="busy")
        yield step_footer()

    def on_mount(self) -> None:
        self.mount(LiveFollow())     # a live run: appended points join the plot, new findings show in the header
        self.query_one("#busy").display = False
        self._layout(self.size.width or 80)
        st = self.state
        if not st.diagnoses or self.mapp.stale:
            if self.mapp.readonly:
                self.query_one("#status", Static).update("read-only session: no diagnosis recorded yet")
            else:
                self.action_rediagnose()
                return
        self._show()

    def on_resize(self, event) -> None:
        self._layout(event.size.width)

    def _layout(self, width: int) -> None:
        self.set_class(width < NARROW_BELOW, "narrow")

    # ----- diagnosing --------------------------------------------------------------------------
    def action_rediagnose(self) -> None:
        if self.mapp.readonly:
            return
        if self._needs_consent():
            from mltdbg.app.dialogs.consent import ClaudeConsent  # noqa: PLC0415 - shown at most once
            self.app.push_screen(ClaudeConsent(), self._consented)
            return
        self.query_one("#busy").display = True
        self.query_one("#status", Static).update("diagnosing: reading the artifacts ...")
        self._diagnose()

    def _needs_consent(self) -> bool:
        """Claude is possible (key set, engine auto) but the user was never asked."""
        import os  # noqa: PLC0415 - only when deciding whether to ask for consent
        if self.mapp.options.engine != "auto" or not os.environ.get("ANTHROPIC_API_KEY") or self._asked_consent:
            return False
        from mltdbg.playbooks.userconfig import load_config  # noqa: PLC0415 - reads YAML: only when deciding
        try:
            return not load_config().consent
        except Exception:  # noqa: BLE001 - an unreadable config means: ask
            return True

    _asked_consent = False

    def _consented(self, agreed: bool | None) -> None:
        self._asked_consent = True
        if agreed:
            from mltdbg.playbooks.userconfig import grant_consent  # noqa: PLC0415 - only when consent is given
            grant_consent()
        self.action_rediagnose()

    @work(thread=True, exclusive=True, exit_on_error=False, group="diagnose")
    def _diagnose(self) -> None:
        diagnose_session, InputError = load_engine()     # (heavy: in the worker, one thread at a time)
        app = self.mapp
        try:
            r = diagnose_session(app.session, app.options.baseline, app.options.engine,
                                 on_event=lambda kind, data=None: self.post_message(self.Progressed(_progress(kind, data))),
                                 on_status=lambda text: self.post_message(self.Progressed(text)))
        except InputError as e:
            self.post_message(self.DiagnosisFailed(str(e)))
            return
        self.post_message(self.Diagnosed(r.event, r.series, r.baseline, r.warnings, r.diagnosis))

    @on(Progressed)
    def _progressed(self, event: Progressed) -> None:
        self.query_one("#status", Static).update(Text(visible(event.text)))

    @on(DiagnosisFailed)
    def _failed(self, event: DiagnosisFailed) -> None:
        self.query_one("#busy").display = False
        self.query_one("#status", Static).update(Text.assemble(
            ("cannot diagnose:", "bold #ff0000"), f" {visible(event.text)}\nEsc: back to capture to choose other artifacts"))

    @on(Diagnosed)
    def _diagnosed(self, event: Diagnosed) -> None:
        self.query_one("#busy").display = False
        app = self.mapp
        run = getattr(event.diagnosis, "engine_run", None)
        if run is not None and app.session is not None and not app.readonly:   # Claude's run record (redacted, no key)
            app.session.append("claude_ran", run.to_json())
        if not app.record(event.event):
            return
        app.stale = False
        app.series, app.baseline_series, app.diagnosis = event.series, event.baseline, event.diagnosis
        app.warnings = event.warnings
        # The engine notice ("ran the offline engine ...") repeats on every diagnosis: it goes in the status
        # line (_show), not in a toast over the plot; other warnings are toasts, once per run of the app.
        for w in [w for w in event.warnings if not is_engine_notice(w)][:3]:
            app.notify_once(w)
        self._show()

    def worker_failed(self, name, error) -> None:
        self.query_one("#busy").display = False
        self.query_one("#status", Static).update(Text.assemble(("diagnosis failed:", "bold #ff0000"), f" {visible(str(error))}"))

    # ----- showing -----------------------------------------------------------------------------
    def _show(self) -> None:
        st = self.state
        rec = st.diagnosis
        status = rec.status if rec else "?"
        needs = rec.needs if rec else []
        head = Text.assemble(("2 Hypotheses", "bold"), f"  {visible(str(rec.engine if rec else '?'))} engine")
        if status == "needs_more_data":
            head.append_text(Text.assemble("  ", ("needs more data", "bold #ffff00"),
                                           ": bring " + visible("; ".join(map(str, needs)) or "more artifacts")))
        elif status:
            head.append(f"  {visible(str(status).replace('_', ' '))}")
        notice = next((w for w in getattr(self.mapp, "warnings", []) if is_engine_notice(w)), None)
        if notice:
            head.append("\n" + visible(notice.split(". ")[0].rstrip(".")), style="dim")
        self.query_one("#status", Static).update(head)
        ol = self.query_one("#hyps", OptionList)
        ol.clear_options()
        for i, h in enumerate(st.hypotheses):
            v = st.verdicts.get(h.id)
            conf = h.confidence or 0.0
            line = (f"{i + 1}. {bar(conf)} {conf:>4.0%} "
                    f"{h.id}  {h.severity} · {h.engine}" + (f"  [{v.verdict}]" if v else ""))
            ol.add_option(Option(Text(visible(line, keep="") + "\n   " + visible(str(h.label)[:90], keep="")), id=h.id))
        if st.hypotheses:
            want = self.mapp.focus_hypothesis()
            idx = next((i for i, h in enumerate(st.hypotheses) if h.id == want), 0)
            ol.highlighted = idx
            ol.focus()
            self._detail(st.hypotheses[idx])
        else:
            self.query_one("#evidence", Static).update(Text("No hypothesis: " + visible("; ".join(map(str, needs)))))
        self._plot()

    def _plot(self) -> None:
        app = self.mapp
        rec = self.state.diagnosis
        series, base, marks = recorded_series(rec.plots if rec else {})
        if getattr(app, "series", None):   # live: the full-resolution curves (resumed or replayed: the record's)
            series, base = app.series, getattr(app, "baseline_series", {})
        self.query_one(MetricPlot).set_data(series, base, marks)
        d = getattr(app, "diagnosis", None)     # the live run's rank view (memoised); resumed: the record's
        live = d is not None and getattr(d, "run", None) is not None
        self.query_one(RankPanel).set_view(cross_rank(d.run) if live else
                                           view_from_record(rec.diagnosis.get("rank_view")) if rec else None)

    @on(OptionList.OptionHighlighted, "#hyps")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._detail(self.mapp.hypothesis(event.option.id))

    @on(OptionList.OptionSelected, "#hyps")
    def _chosen(self) -> None:
        self.action_check()   # Enter on the list: the list consumes the key, so route it here

    def _detail(self, h: HypothesisRecord) -> None:
        # Model output and log excerpts: rich Text with control characters visible, never markup.
        out = Text(visible(str(h.issue)), style="bold")
        out.append("\n")
        for e in h.evidence:
            out.append("\n")
            out.append("✓ verified  " if e.verified else "? unverified", style="#008000" if e.verified else "#ffff00")
            out.append(" " + visible(str(e.text)))
            if e.location:
                out.append(f" ({visible(str(e.location))})", style="dim")
        if h.check:
            out.append("\n\n")
            out.append_text(Text.assemble(("Minimal check:", "bold"), " " + visible(str(h.check))))
        if h.check_command:
            out.append("\n  $ " + visible(str(h.check_command)))
        if h.fix:
            out.append("\n\n")
            out.append_text(Text.assemble(("Fix:", "bold"), " " + visible(str(h.fix))))
        self.query_one("#evidence", Static).update(out)

    def _selected(self) -> str | None:
        ol = self.query_one("#hyps", OptionList)
        if ol.highlighted is None or not ol.option_count:
            return None
        return ol.get_option_at_index(ol.highlighted).id

    # ----- actions -----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "probe":
            return holds_probe(self.state, self.mapp.root)
        return True

    def action_probe(self) -> None:
        open_probe_view(self, self.state, self.mapp.root)

    def action_back(self) -> None:
        self.mapp.goto("capture")

    def action_check(self) -> None:
        hid = self._selected()
        if hid:
            self.mapp.goto("check", hypothesis_id=hid)

    def action_fix(self) -> None:
        hid = self._selected()
        if hid:
            self.mapp.goto("fix", hypothesis_id=hid)

    def action_open_evidence(self) -> None:
        h = self.mapp.hypothesis(self._selected())
        cites = [e for e in h.evidence if e.source]
        if not cites:
            self.notify("this hypothesis cites no file", severity="warning")
            return
        src = cites[0].source
        path = self._resolve(src)
        if path is None:
            self.notify(f"{src} is not on this machine", severity="error")
            return
        lines = sorted({e.line for e in cites if e.source == src and e.line is not None})
        from mltdbg.app.screens.viewer import ViewerScreen  # noqa: PLC0415 - loaded when first opened
        self.app.push_screen(ViewerScreen(path, src, lines))

    def _resolve(self, src: str) -> Path | None:
        root = self.mapp.root
        cands = [root / src] + [root / a / src for a in self.state.artifacts] + \
                [(root / a).parent / src for a in self.state.artifacts]
        if self.mapp.session is not None:
            cands.append(self.mapp.session.dir / Path(src).name)
        return next((p for p in cands if p.is_file()), None)

    def action_metric(self) -> None:
        self.query_one(MetricPlot).next_metric()

    def action_log(self) -> None:
        p = self.query_one(MetricPlot)
        p.log_scale = not p.log_scale

    def action_smooth(self) -> None:
        p = self.query_one(MetricPlot)
        p.smooth = not p.smooth

    def action_zoom(self, factor: float) -> None:
        self.query_one(MetricPlot).zoom(factor)

    def action_pan(self, d: int) -> None:
        self.query_one(MetricPlot).pan(d)

    def action_reset_view(self) -> None:
        self.query_one(MetricPlot).reset_view()


def _progress(kind: Any, data: Any) -> str:
    """One status line for a Claude engine event (kind, data)."""
    detail = (data.get("tool") or data.get("name") or " ".join(str(data.get("text") or "").split())[-80:]
              if isinstance(data, dict) else "")
    return f"claude: {kind} {detail}".strip()[:100]
