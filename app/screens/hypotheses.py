"""Step 2, Hypotheses: the ranked root causes beside the curves.

Diagnosis runs in a worker (ingest, analyzers, engine) when the session has none yet or a verdict
came in; its result is recorded as `diagnosis_made` (with downsampled plots, so a resumed or
replayed session draws the same curves). The list, the evidence and the plot render the latest
recorded diagnosis."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Header, LoadingIndicator, OptionList, Static
from textual.widgets.option_list import Option

from ..widgets.plot import METRICS, MetricPlot, anomalies_from_signals
from .base import StepScreen

BAR_WIDTH = 10
NARROW_BELOW = 110      # columns: below this the plot goes under the list instead of beside it


def bar(p: float, width: int = BAR_WIDTH) -> str:
    n = round(max(0.0, min(1.0, p)) * width)
    return "█" * n + "░" * (width - n)


def extras(h) -> dict[str, Any]:
    """What the TUI needs later from a live hypothesis beyond the schema's fields."""
    out = {"title": h.title, "instrumentation": h.instrumentation, "test_template": h.test_template,
           "lesson": h.lesson, "needs": h.needs}
    return {k: v for k, v in out.items() if v}


class HypothesesScreen(StepScreen):
    STEP = "diagnose"
    CSS_PATH = "hypotheses.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back", id="back"),
        Binding("enter,c", "check", "Check it", id="check"),
        Binding("f", "fix", "Fix", id="fix"),
        Binding("o", "open_evidence", "Open evidence", id="open_evidence"),
        Binding("m", "metric", "Metric", id="metric"),
        Binding("g", "log", "Log", id="log_scale"),
        Binding("s", "smooth", "EMA", id="smooth"),
        Binding("plus,equals_sign", "zoom(2)", "Zoom", id="zoom_in"),
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
        def __init__(self, payload: dict, series: dict, baseline: dict, warnings: list[str], diagnosis) -> None:
            super().__init__()
            self.payload, self.series, self.baseline, self.warnings, self.diagnosis = payload, series, baseline, warnings, diagnosis

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
        yield LoadingIndicator(id="busy")
        yield Footer()

    def on_mount(self) -> None:
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
            from ..dialogs.consent import ClaudeConsent
            self.app.push_screen(ClaudeConsent(), self._consented)
            return
        self.query_one("#busy").display = True
        self.query_one("#status", Static).update("diagnosing: reading the artifacts ...")
        self._diagnose()

    def _needs_consent(self) -> bool:
        """Claude is possible (key set, engine auto) but the user was never asked."""
        import os
        if self.mapp.options.engine != "auto" or not os.environ.get("ANTHROPIC_API_KEY") or self._asked_consent:
            return False
        from mltdbg.playbooks.userconfig import load_config
        try:
            return not load_config().consent
        except Exception:  # noqa: BLE001 - an unreadable config means: ask
            return True

    _asked_consent = False

    def _consented(self, agreed: bool | None) -> None:
        self._asked_consent = True
        if agreed:
            from mltdbg.playbooks.userconfig import grant_consent
            grant_consent()
        self.action_rediagnose()

    @work(thread=True, exclusive=True, exit_on_error=False, group="diagnose")
    def _diagnose(self) -> None:
        from mltdbg.playbooks.diagnose import InputError, diagnose
        from mltdbg.sessions import plot_record
        app, st, root = self.mapp, self.state, self.mapp.root
        paths = [str(root / a) for a in st.artifacts] or [str(root)]
        trace = st.capture.get("happened", "")
        if trace.strip():
            # The pasted or captured trace is an artifact too (the traceback reader cites it).
            p = app.session.dir / "happened.txt"
            p.write_text(trace, encoding="utf-8")
            paths.append(str(p))
        symptoms = [x for x in (st.capture.get("expected", ""), trace[:4000]) if x.strip()]
        verdicts = {k: v.verdict for k, v in st.verdicts.items()}
        notices: list[str] = []
        try:
            d = diagnose(paths, symptoms, app.options.baseline or None, verdicts, root, engine=app.options.engine,
                         notices=notices, on_event=lambda kind, data=None: self.post_message(self.Progressed(_progress(kind, data))))
            self.post_message(self.Progressed("diagnosed; drawing the curves ..."))
            run, base = d.run, d.baseline
        except InputError as e:
            self.post_message(self.DiagnosisFailed(str(e)))
            return
        series = _series(run)
        baseline = _series(base) if base is not None else {}
        marks = anomalies_from_signals(d.signals)
        diag = d.to_json()
        for rc, h in zip(diag["root_causes"], d.hypotheses):
            rc.update(extras(h))
            rc["title"] = h.title
        plots = {m: plot_record(s, v, [a for a in marks if a.get("metric") in (None, m)]) for m, (s, v) in series.items()}
        plots.update({f"baseline/{m}": plot_record(s, v) for m, (s, v) in baseline.items()})
        payload = {"engine": d.engine, "diagnosis": diag, "plots": plots}
        self.post_message(self.Diagnosed(payload, series, baseline, notices + run.warnings, d))

    @on(Progressed)
    def _progressed(self, event: Progressed) -> None:
        self.query_one("#status", Static).update(escape(event.text))

    @on(DiagnosisFailed)
    def _failed(self, event: DiagnosisFailed) -> None:
        self.query_one("#busy").display = False
        self.query_one("#status", Static).update(f"[b red]cannot diagnose:[/] {escape(event.text)}\n"
                                                 "Esc: back to capture to choose other artifacts")

    @on(Diagnosed)
    def _diagnosed(self, event: Diagnosed) -> None:
        self.query_one("#busy").display = False
        app = self.mapp
        if not app.record("diagnosis_made", event.payload):
            return
        app.stale = False
        app.series, app.baseline_series, app.diagnosis = event.series, event.baseline, event.diagnosis
        app.warnings = event.warnings
        for w in event.warnings[:3]:
            app.notify_once(w)
        self._show()

    def worker_failed(self, name, error) -> None:
        self.query_one("#busy").display = False
        self.query_one("#status", Static).update(f"[b red]diagnosis failed:[/] {escape(str(error))}")

    # ----- showing -----------------------------------------------------------------------------
    def _show(self) -> None:
        st = self.state
        rec = st.diagnosis or {}
        diag = rec.get("diagnosis", {})
        status = diag.get("status", "?")
        head = f"[b]2 Hypotheses[/b]  {escape(str(rec.get('engine', '?')))} engine"
        if status == "needs_more_data":
            head += "  [b yellow]needs more data[/]: bring " + escape("; ".join(diag.get("needs") or []) or "more artifacts")
        elif status:
            head += f"  {escape(status.replace('_', ' '))}"
        self.query_one("#status", Static).update(head)
        ol = self.query_one("#hyps", OptionList)
        ol.clear_options()
        for i, h in enumerate(st.hypotheses):
            hid = str(h.get("id", "?"))
            v = st.verdicts.get(hid)
            line = (f"{i + 1}. {bar(float(h.get('confidence') or 0))} {float(h.get('confidence') or 0):>4.0%} "
                    f"{hid}  {h.get('severity', '')} · {h.get('engine', '')}" + (f"  [{v.verdict}]" if v else ""))
            ol.add_option(Option(escape(line) + "\n   " + escape(str(h.get("title") or h.get("issue", ""))[:90]), id=hid))
        if st.hypotheses:
            want = self.mapp.focus_hypothesis()
            idx = next((i for i, h in enumerate(st.hypotheses) if h.get("id") == want), 0)
            ol.highlighted = idx
            ol.focus()
            self._detail(st.hypotheses[idx])
        else:
            self.query_one("#evidence", Static).update("No hypothesis: " + escape("; ".join(diag.get("needs") or [])))
        self._plot()

    def _plot(self) -> None:
        app = self.mapp
        rec = (self.state.diagnosis or {}).get("plots", {})
        if getattr(app, "series", None):
            series, base = app.series, getattr(app, "baseline_series", {})
        else:   # resumed or replayed: the curves recorded with the diagnosis
            series = {m: (p.get("steps", []), p.get("values", [])) for m, p in rec.items() if not m.startswith("baseline/")}
            base = {m.split("/", 1)[1]: (p.get("steps", []), p.get("values", [])) for m, p in rec.items() if m.startswith("baseline/")}
        marks = []
        for m, p in rec.items():
            for a in p.get("anomalies", []) if isinstance(p, dict) else []:
                if isinstance(a, dict) and a not in marks:
                    marks.append(a)
        self.query_one(MetricPlot).set_data(series, base, marks)

    @on(OptionList.OptionHighlighted, "#hyps")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._detail(self.mapp.hypothesis(event.option.id))

    @on(OptionList.OptionSelected, "#hyps")
    def _chosen(self) -> None:
        self.action_check()   # Enter on the list: the list consumes the key, so route it here

    def _detail(self, h: dict) -> None:
        lines = [f"[b]{escape(str(h.get('issue', '')))}[/b]", ""]
        for e in h.get("evidence") or []:
            if not isinstance(e, dict):
                continue
            ok = e.get("verified")
            mark = "[green]✓ verified[/]  " if ok else "[yellow]? unverified[/]"
            where = ":".join(str(x) for x in (e.get("source"), e.get("line")) if x is not None)
            lines.append(f"{mark} {escape(str(e.get('text', '')))}" + (f" [dim]({escape(where)})[/]" if where else ""))
        if h.get("check"):
            lines += ["", f"[b]Minimal check:[/b] {escape(str(h['check']))}"]
        if h.get("check_command"):
            lines.append(f"  $ {escape(str(h['check_command']))}")
        if h.get("fix"):
            lines += ["", f"[b]Fix:[/b] {escape(str(h['fix']))}"]
        self.query_one("#evidence", Static).update("\n".join(lines))

    def _selected(self) -> str | None:
        ol = self.query_one("#hyps", OptionList)
        if ol.highlighted is None or not ol.option_count:
            return None
        return ol.get_option_at_index(ol.highlighted).id

    # ----- actions -----------------------------------------------------------------------------
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
        cites = [e for e in h.get("evidence") or [] if isinstance(e, dict) and e.get("source")]
        if not cites:
            self.notify("this hypothesis cites no file", severity="warning")
            return
        src = cites[0]["source"]
        path = self._resolve(src)
        if path is None:
            self.notify(f"{src} is not on this machine", severity="error")
            return
        lines = sorted({int(e["line"]) for e in cites if e.get("source") == src and isinstance(e.get("line"), int)})
        from .viewer import ViewerScreen
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


def _series(run) -> dict:
    """{metric: (steps, values)} for the plotted metrics (first series of each name)."""
    out: dict = {}
    for s in run.series:
        if s.name in METRICS and s.name not in out:
            out[s.name] = (s.steps, s.values)
    return out


def _progress(kind: Any, data: Any) -> str:
    """One status line for a Claude engine event (kind, data)."""
    detail = data.get("tool") or data.get("name") or "" if isinstance(data, dict) else ""
    return f"claude: {kind} {detail}".strip()[:100]
