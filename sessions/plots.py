"""Plot data for the session record: downsampled so a session replays anywhere.

`plot_record(steps, values, anomalies, n_buckets)` -> `{"steps": [...],
"values": [...], "anomalies": [...], "n_points": N}` (JSON-only, NaN/inf as
strings) for the `plots` field of `diagnosis_made`. Uses the same min-max
downsampling as the TUI's plots, so the record keeps every spike and NaN.

Also here, so that what is recorded and what is drawn agree:
    PLOTTED_METRICS                          the metrics a run's plot shows (and the record keeps)
    anomalies_from_signals(signals)          plot marks [{step, metric, label}] from analyzer signals
    recorded_series(plots)                   a recorded `plots` dict back as (series, baseline, marks)
"""
from __future__ import annotations

from typing import Any, Iterable

# ~2 points per terminal column at 200 columns: enough for any replay screen.
PLOT_BUCKETS = 200
# The metrics the TUI draws (first the loss, then what explains it); others are cycled after them.
PLOTTED_METRICS = ("loss", "val_loss", "grad_norm", "lr")
BASELINE_PREFIX = "baseline/"


def plot_record(steps: Any, values: Any, anomalies: Iterable[dict[str, Any]] | Iterable[int] = (),
                n_buckets: int = PLOT_BUCKETS) -> dict[str, Any]:
    """A series as stored in a session. anomalies: steps (ints) or dicts with at least `step`."""
    import numpy as np  # noqa: PLC0415 - only when a plot is recorded: importing the sessions core stays light

    from mltdbg.analyzers.downsample import minmax_downsample  # noqa: PLC0415 - needs numpy, see above
    from mltdbg.analyzers.model import value_for_json  # noqa: PLC0415 - see above

    s = np.asarray(steps)
    v = np.asarray(values, dtype=np.float64)
    ds, dv = minmax_downsample(s, v, n_buckets)
    finite = np.isfinite(dv)
    vals: list[Any] = dv.tolist()
    if not finite.all():
        for i in np.flatnonzero(~finite).tolist():
            vals[i] = value_for_json(dv[i])
    marks = [a if isinstance(a, dict) else {"step": int(a)} for a in anomalies]
    return {"steps": ds.tolist(), "values": vals, "anomalies": marks, "n_points": int(v.shape[0])}


def anomalies_from_signals(signals: Iterable[Any]) -> list[dict[str, Any]]:
    """Marks for the plot from the analyzers' signals: first non-finite step, divergence, spikes.
    In: objects with `kind` and `data` (analyzers' Signal). Out: [{step, metric (None: every metric), label}]."""
    out = []
    for s in signals:
        d = s.data or {}
        if s.kind in ("nonfinite", "nonfinite_grad") and isinstance(d.get("step"), (int, float)):
            out.append({"step": d["step"], "metric": d.get("metric") or ("grad_norm" if s.kind == "nonfinite_grad" else None),
                        "label": "first non-finite"})
        elif s.kind in ("divergence", "train_val_divergence") and isinstance(d.get("step"), (int, float)):
            out.append({"step": d["step"], "metric": "val_loss" if s.kind == "train_val_divergence" else "loss",
                        "label": "diverges"})
        elif s.kind in ("loss_spike", "grad_spike") and isinstance(d.get("worst_step"), (int, float)):
            out.append({"step": d["worst_step"], "metric": "loss" if s.kind == "loss_spike" else "grad_norm",
                        "label": "spike"})
    return out


def recorded_series(plots: dict[str, Any]) -> tuple[dict[str, tuple[list, list]], dict[str, tuple[list, list]],
                                                     list[dict[str, Any]]]:
    """A recorded `plots` dict as the plot takes it: ({metric: (steps, values)} of the run, the same for
    the baseline (keys without "baseline/"), the anomaly marks once each)."""
    series: dict[str, tuple[list, list]] = {}
    baseline: dict[str, tuple[list, list]] = {}
    marks: list[dict[str, Any]] = []
    for m, p in plots.items():
        if not isinstance(p, dict):
            continue
        if m.startswith(BASELINE_PREFIX):
            baseline[m[len(BASELINE_PREFIX):]] = (p.get("steps", []), p.get("values", []))
        else:
            series[m] = (p.get("steps", []), p.get("values", []))
        for a in p.get("anomalies", []):
            if isinstance(a, dict) and a not in marks:
                marks.append(a)
    return series, baseline, marks
