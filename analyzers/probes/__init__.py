"""Probes: the spec's analysis scripts (parameter count, gradient flow, memory, NaN hunt, checkpoint,
machine, data) run as checks.

- `runner/` holds the scripts that run INSIDE the user's interpreter (`python runner/mltdbg_probe.py
  PROBE ... --out RESULT.json`); they import no mltdbg code and ship as package data.
- `results.py` reads a result document into typed findings and the signals both engines use.
- `report.py` renders a result as Markdown (tables and ASCII plots) for `analysis_artifacts`.
- `targets.py` finds, from a run's code, what a probe can build (`file.py:Class`) and data files.
Launching them (interpreter, timeout, where the result goes) is `mltdbg.sessions.probes`.
"""
