"""Plot data for the session record: downsampled so a session replays anywhere.

`plot_record(steps, values, anomalies, n_buckets)` -> `{"steps": [...],
"values": [...], "anomalies": [...], "n_points": N}` (JSON-only, NaN/inf as
strings) for the `plots` field of `diagnosis_made`. Uses the same min-max
downsampling as the TUI's plots, so the record keeps every spike and NaN.
"""
from __future__ import annotations

from typing import Any, Iterable

# ~2 points per terminal column at 200 columns: enough for any replay screen.
PLOT_BUCKETS = 200


def plot_record(steps: Any, values: Any, anomalies: Iterable[dict[str, Any]] | Iterable[int] = (),
                n_buckets: int = PLOT_BUCKETS) -> dict[str, Any]:
    """A series as stored in a session. anomalies: steps (ints) or dicts with at least `step`."""
    import numpy as np   # only when a plot is recorded: importing the sessions core stays light

    from ..analyzers.downsample import minmax_downsample
    from ..analyzers.model import value_for_json

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
