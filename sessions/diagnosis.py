"""Diagnosing inside a session: what the session gives the diagnosis, and the event that records it.

    result = diagnose_session(session, baseline=["runs/good"], engine="auto", on_event=progress)
    session.append(result.event)            # diagnosis_made, with the plots a replay draws

Blocking (ingest, analyzers, engine): call it from a worker thread.
In: a writable Session: its chosen artifacts (else the repo root), the captured trace (written as
`happened.txt` in the session folder, so the traceback reader can cite it), what was expected, the
verdicts so far; its debug.md goes to the Claude engine. Out: SessionDiagnosis: the DiagnosisMade event (the ranked hypotheses with the
playbook's extras the later steps need, downsampled plots of the run and the baseline with anomaly
marks), the full-resolution series for the live plot, the warnings for the user and the live
Diagnosis. Raises mltdbg.playbooks.diagnose.InputError when nothing usable can be read.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from mltdbg.analyzers.crossrank import cross_rank, view_record
from mltdbg.analyzers.curves import primary
from mltdbg.playbooks.diagnose import diagnose
from mltdbg.sessions.events import DiagnosisMade
from mltdbg.sessions.history import repo_lessons
from mltdbg.sessions.plots import BASELINE_PREFIX, PLOTTED_METRICS, anomalies_from_signals, plot_record
from mltdbg.sessions.store import DEBUG_FILE

# The captured trace, written beside the log so the diagnosis reads it as an artifact.
TRACE_FILE = "happened.txt"
# Characters of the trace also passed as a symptom (the reader sees all of it as a file).
SYMPTOM_TRACE_CHARS = 4000


@dataclass
class DiagnosisInputs:
    paths: list[str]
    symptoms: list[str]
    verdicts: dict[str, str]             # hypothesis id -> confirmed | denied | inconclusive


@dataclass
class SessionDiagnosis:
    event: DiagnosisMade
    series: dict[str, tuple[Any, Any]]     # metric -> (steps, values) of the run, full resolution
    baseline: dict[str, tuple[Any, Any]]   # the same for the baseline run ({} without one)
    warnings: list[str] = field(default_factory=list)
    diagnosis: Any = None                  # the live playbooks Diagnosis (hypotheses with their extras)


def diagnosis_inputs(session: Any) -> DiagnosisInputs:
    """Paths, symptoms and verdicts for a diagnosis of the session's run; writes the captured trace to
    `happened.txt` in the session folder when there is one."""
    st, root = session.state, Path(session.root)
    paths = [str(root / a) for a in st.artifacts] or [str(root)]
    trace = st.capture.get("happened", "")
    if trace.strip():
        p = Path(session.dir) / TRACE_FILE
        p.write_text(trace, encoding="utf-8")
        paths.append(str(p))
    symptoms = [x for x in (st.capture.get("expected", ""), trace[:SYMPTOM_TRACE_CHARS]) if x.strip()]
    return DiagnosisInputs(paths, symptoms, {k: v.verdict for k, v in st.verdicts.items()})


def hypothesis_extras(h: Any) -> dict[str, Any]:
    """What the later steps need from a live hypothesis beyond the schema's fields (set ones only)."""
    out = {"title": h.title, "instrumentation": h.instrumentation, "test_template": h.test_template,
           "lesson": h.lesson, "needs": h.needs}
    return {k: v for k, v in out.items() if v}


def metric_series(run: Any) -> dict[str, tuple[Any, Any]]:
    """{metric: (steps, values)} for the plotted metrics of a Run: of the series of each name, the one
    the curve analyzers read (curves.primary: the longest, or the one that went non-finite: a NaN in
    a restarted job's second event file, in one of many logs), so that the marks sit on the curve
    they were found on. Every point of it, a restart's both sides included."""
    out: dict[str, tuple[Any, Any]] = {}
    for name in PLOTTED_METRICS:
        s = primary(run, name)
        if s is not None:
            out[name] = (s.steps, s.values)
    return out


def diagnosis_event(d: Any, series: dict[str, tuple[Any, Any]], baseline: dict[str, tuple[Any, Any]]) -> DiagnosisMade:
    """The diagnosis_made event for a live Diagnosis: its JSON with each hypothesis's extras and title,
    and the plots (anomaly marks on the metric they belong to, or on every metric)."""
    marks = anomalies_from_signals(d.signals)
    diag = d.to_json()
    ranks = view_record(cross_rank(d.run)) if getattr(d, "run", None) is not None else None
    if ranks is not None:
        diag["rank_view"] = ranks       # the rank table and chart a resumed session draws (no live Run then)
    for rc, h in zip(diag["root_causes"], d.hypotheses):
        rc.update(hypothesis_extras(h))
        rc["title"] = h.title
    plots = {m: plot_record(s, v, [a for a in marks if a.get("metric") in (None, m)]) for m, (s, v) in series.items()}
    plots.update({f"{BASELINE_PREFIX}{m}": plot_record(s, v) for m, (s, v) in baseline.items()})
    return DiagnosisMade(engine=d.engine, diagnosis=diag, plots=plots)


def diagnose_session(session: Any, baseline: list[str] | None = None, engine: str = "auto",
                     on_event: Callable[..., None] | None = None,
                     on_status: Callable[[str], None] | None = None) -> SessionDiagnosis:
    """Diagnose the session's run (see the module docstring); nothing is appended to the session.
    on_event: the Claude engine's progress (kind, data); on_status: a line when the ranking is done."""
    inp = diagnosis_inputs(session)
    notices: list[str] = []
    d = diagnose(inp.paths, inp.symptoms, baseline or None, inp.verdicts, Path(session.root), engine=engine,
                 notices=notices, on_event=on_event, debug_md=Path(session.dir) / DEBUG_FILE,
                 lessons=repo_lessons(Path(session.root), exclude=session.id))
    if on_status is not None:
        on_status("diagnosed; drawing the curves ...")
    series = metric_series(d.run)
    base = metric_series(d.baseline) if d.baseline is not None else {}
    return SessionDiagnosis(diagnosis_event(d, series, base), series, base, notices + d.run.warnings, d)
