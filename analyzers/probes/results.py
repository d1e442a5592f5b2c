"""Probe result documents -> typed findings -> Signals with verifiable Evidence. Pure: no process is
started here and nothing is written.

In: the JSON a probe runner wrote (`analyzers/probes/runner/mltdbg_probe.py`, format 1), either as a
file or as a `TextArtifact` of kind "probe" in a Run (the `probe` reader puts it there). Out:
`ProbeResult` (status, error, findings, tables) and `probe_signals(run)`: one Signal per finding, kind
`probe:<finding kind>` (vocabulary in analyzers/signals.md), whose Evidence quotes the finding's
summary line of the file, so the verifier re-reads it there.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mltdbg.analyzers.model import Evidence, Run, Signal

FORMAT = 1
MARKER = b'"mltdbg_probe"'
PROBES = ("params", "gradients", "memory", "nan-hunt", "checkpoint", "box", "data")
# Name of each probe's Markdown analysis in `analysis_artifacts` (the spec's example: gradient_analysis).
ANALYSIS_NAMES = {"params": "parameter_analysis", "gradients": "gradient_analysis", "memory": "memory_analysis",
                  "nan-hunt": "nan_hunt", "checkpoint": "checkpoint_analysis", "box": "machine_report",
                  "data": "data_analysis"}


@dataclass
class ProbeFinding:
    kind: str                 # e.g. "param_imbalance"; the signal is "probe:" + kind
    severity: str
    summary: str              # one line with numbers, as written in the file
    data: dict[str, Any] = field(default_factory=dict)
    line: int | None = None   # 1-based line of its summary in the file
    quote: str | None = None  # that line's text of the summary (JSON-escaped as on disk)

    @property
    def signal_kind(self) -> str:
        return "probe:" + self.kind


@dataclass
class ProbeResult:
    probe: str
    status: str               # ok | partial | error | running (a killed probe's last state)
    source: str               # path of the file (relative to the run root when read from a Run)
    target: str | None = None
    error_kind: str | None = None
    error_message: str | None = None
    error_line: int | None = None
    stage: str | None = None
    findings: list[ProbeFinding] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float | None = None
    argv: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def device(self) -> str:
        return str(self.environment.get("device") or "cpu")


def is_probe_head(head: bytes) -> bool:
    """A probe result starts with `{` and names the format key in its first bytes."""
    return head.lstrip()[:1] == b"{" and MARKER in head[:200]


def parse(text: str, source: str) -> ProbeResult:
    """Parse a result document. Raises ValueError (one line, naming `source`) when it is not one."""
    try:
        d = json.loads(text)
    except ValueError as e:
        raise ValueError(f"{source}: not valid JSON ({e})") from None
    if not isinstance(d, dict) or "mltdbg_probe" not in d:
        raise ValueError(f"{source}: not a probe result (no 'mltdbg_probe' key)")
    if d.get("mltdbg_probe") != FORMAT:
        raise ValueError(f"{source}: probe result format {d.get('mltdbg_probe')!r}; this mltdbg reads {FORMAT}")
    if d.get("probe") not in PROBES:
        raise ValueError(f"{source}: unknown probe {d.get('probe')!r}")
    err = d.get("error") if isinstance(d.get("error"), dict) else {}
    pr = ProbeResult(probe=d["probe"], status=str(d.get("status", "error")), source=source,
                     target=d.get("target") if isinstance(d.get("target"), str) else None,
                     error_kind=err.get("kind"), error_message=err.get("message"),
                     stage=err.get("stage") if isinstance(err.get("stage"), str) else d.get("stage"),
                     result=d.get("result") if isinstance(d.get("result"), dict) else {},
                     notes=[n for n in d.get("notes") or [] if isinstance(n, str)],
                     environment=d.get("environment") if isinstance(d.get("environment"), dict) else {},
                     elapsed_s=d.get("elapsed_s") if isinstance(d.get("elapsed_s"), (int, float)) else None,
                     argv=[a for a in d.get("argv") or [] if isinstance(a, str)])
    starts = _line_starts(text)
    for f in d.get("findings") or []:
        if not isinstance(f, dict) or not isinstance(f.get("kind"), str) or not isinstance(f.get("summary"), str):
            continue
        quote = json.dumps(f["summary"], ensure_ascii=False)[1:-1]
        pos = text.find('"summary": ' + json.dumps(f["summary"], ensure_ascii=False))
        pr.findings.append(ProbeFinding(kind=f["kind"], severity=str(f.get("severity", "high")), summary=f["summary"],
                                        data=f.get("data") if isinstance(f.get("data"), dict) else {},
                                        line=_line_at(starts, pos) if pos >= 0 else None,
                                        quote=quote if pos >= 0 else None))
    if pr.error_message:
        pos = text.find('"message": ' + json.dumps(pr.error_message, ensure_ascii=False))
        pr.error_line = _line_at(starts, pos) if pos >= 0 else None
    return pr


def load(path: str | Path) -> ProbeResult:
    """Read and parse a result file; ValueError/OSError with a one-line message naming it."""
    p = Path(path)
    return parse(p.read_text(encoding="utf-8", errors="replace"), str(p))


def _line_starts(text: str) -> list[int]:
    out = [0]
    i = text.find("\n")
    while i >= 0:
        out.append(i + 1)
        i = text.find("\n", i + 1)
    return out


def _line_at(starts: list[int], pos: int) -> int:
    from bisect import bisect_right  # noqa: PLC0415 - loaded only on this path, keeps the common path light
    return bisect_right(starts, pos)


# ----------------------------------------------------------------------------- signals

def _num(d: dict[str, Any], key: str, default: float = 0.0) -> float:
    v = d.get(key)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if v in ("inf", "Infinity"):
        return math.inf
    return default


def _clip(x: float) -> float:
    return round(max(0.0, min(1.0, x)), 3)


def strength(f: ProbeFinding) -> float:
    """How strongly a finding supports its causes, in [0, 1] (analyzers/signals.md's scale: 1.0 is
    unmistakable). A measured finding is stronger than the same thing read from a log."""
    d, k = f.data, f.kind
    if k == "param_imbalance":
        share = _num(d, "embeddings_share") + _num(d, "head_share")
        return _clip(0.6 + 2.0 * (share - 0.6))                 # 60 % -> 0.6, 80 % -> 1.0
    if k == "grad_vanish":
        r = _num(d, "ratio", 1e-2)
        return _clip(0.5 + 0.1 * (-math.log10(max(r, 1e-300)) - 2)) if r > 0 else 0.5
    if k == "grad_explode":
        tot = _num(d, "total_norm", math.nan)
        if d.get("nonfinite_layers") or (isinstance(tot, float) and math.isinf(tot)):
            return 1.0
        if math.isfinite(tot) and tot >= 1e3:
            return _clip(0.6 + 0.1 * math.log10(tot / 1e3))
        return 0.6
    if k == "dead_units":
        return _clip(_num(d, "share", 0.5))
    if k == "saturated":
        return _clip(0.5 * _num(d, "share", 0.5))
    if k == "frozen_params":
        return _clip(0.4 + 0.5 * _num(d, "share", 0.2)) if "share" in d else 0.5
    if k == "data_leak":
        return _clip(0.5 + 10 * _num(d, "share"))
    return FIXED_STRENGTH.get(k, 0.5)


FIXED_STRENGTH = {
    "no_grad_params": 0.8, "nonfinite_input": 1.0, "nonfinite_forward": 0.9, "nonfinite_loss": 0.8,
    "nonfinite_backward": 0.8, "nonfinite_step": 0.8, "cuda_oom": 0.9, "host_oom": 0.9,
    "ckpt_missing_keys": 0.9, "ckpt_shape_mismatch": 0.9, "ckpt_nonfinite": 0.9, "ckpt_no_optimizer": 0.6,
    "data_nonfinite": 1.0, "label_out_of_range": 1.0, "unnormalized": 0.7, "shm_small": 0.5,
    "gpu_errors": 0.8, "disk_low": 0.6, "nofile_low": 0.3,
}


def signals_of(pr: ProbeResult) -> list[Signal]:
    """One Signal per finding (and one for a probe that itself ran out of memory)."""
    out: list[Signal] = []
    where = f" ({pr.probe} probe{' of ' + pr.target if pr.target else ''})"
    for f in pr.findings:
        ev = [Evidence(text=f.summary + where, source=pr.source, line=f.line, quote=f.quote)] if f.line else \
            [Evidence(text=f.summary + where, source=pr.source)]
        out.append(Signal(kind=f.signal_kind, strength=strength(f), summary=f.summary, evidence=ev,
                          data={**f.data, "probe": pr.probe, "source": pr.source}))
    if pr.error_kind == "oom" and pr.error_message:
        kind = "probe:cuda_oom" if pr.device.startswith("cuda") else "probe:host_oom"
        text = f"the {pr.probe} probe ran out of memory at stage {pr.stage or '?'}: {pr.error_message}"
        ev = [Evidence(text=text, source=pr.source, line=pr.error_line, quote=json.dumps(pr.error_message, ensure_ascii=False)[1:-1])] \
            if pr.error_line else [Evidence(text=text, source=pr.source)]
        out.append(Signal(kind=kind, strength=0.8, summary=text[:200], evidence=ev,
                          data={"probe": pr.probe, "source": pr.source, "stage": pr.stage}))
    return out


def results_in(run: Run) -> list[ProbeResult]:
    """Every probe result among a run's artifacts (warnings for ones that do not parse)."""
    out = []
    for t in run.texts:
        if t.kind != "probe":
            continue
        try:
            out.append(parse(t.text, t.path))
        except ValueError as e:
            run.warnings.append(str(e))
    return out


def probe_signals(run: Run) -> list[Signal]:
    """The analyzer entry point (analyzers/analyze.py): signals from every probe result in the run."""
    out: list[Signal] = []
    for pr in results_in(run):
        out += signals_of(pr)
    return out


# ----------------------------------------------------------------------------- views

def grad_rows(pr: ProbeResult) -> list[dict[str, Any]]:
    """Per-layer gradient rows of a gradients result, in forward order (empty for other probes)."""
    rows = pr.result.get("layers") if pr.probe == "gradients" else None
    return [r for r in rows or [] if isinstance(r, dict)]


def value(v: Any) -> float | None:
    """A number from the document (NaN/inf written as strings), None when absent."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        t = v.strip().lower()
        if t == "nan":
            return math.nan
        if t in ("inf", "-inf"):
            return math.inf if t == "inf" else -math.inf
    return None
