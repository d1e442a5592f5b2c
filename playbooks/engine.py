"""Hypotheses and the offline engine that ranks them from signals and playbooks.

Both engines (offline here, Claude in claude.py) take a `DiagnosisContext` and
return a `Diagnosis`; `Diagnosis.to_json()` is what `mltdbg diagnose --json`
prints (contracts/diagnosis.schema.json).

Scoring: each cause's score is log(prior) + sum(weight * signal strength) (+ a
capped symptom hint, + a verdict bonus); two pseudo-hypotheses compete with
the causes: "healthy" (the run is fine) and "other" (something no playbook
explains). Confidences are the softmax of scores / TEMPERATURE, so causes in a
confusable group share probability until a separating signal decides.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mltdbg.analyzers.model import Evidence, Run, Signal

from . import library
from .verify import Verifier

# The spec's bar: below this top confidence the status is needs_more_data.
COMPLETE_AT = 0.8
# Softmax temperature, fitted on the tune half of the fault zoo (tests/zoo, see evaluate.py).
TEMPERATURE = 1.0
# A symptom sentence is a hint: worth at most this much log-odds, never a finding.
SYMPTOM_BONUS = 1.0
# Verdicts of checks the user ran: a confirmed cause is lifted, a denied one dropped.
CONFIRMED_BONUS = 8.0
# Pseudo-hypotheses: prior log-odds of "the run is fine" and of "a cause no playbook has".
HEALTHY_PRIOR = math.log(0.25)
OTHER_PRIOR = math.log(0.12)
# Signals that show something failed: they make "healthy" implausible.
FAILURE_KINDS = ("nonfinite", "divergence", "train_val_divergence", "grad_zero", "loss_at_chance",
                 "grad_growth", "nonfinite_grad", "baseline:val_metric_drop", "plateau", "slow_descent",
                 "log:cuda_oom", "log:host_oom", "log:label_out_of_range", "log:shape_mismatch",
                 "log:device_mismatch", "log:dtype_mismatch", "log:nccl_timeout", "log:nccl_error",
                 "log:child_failed", "log:anomaly_nan", "log:nan_input", "log:exception", "log:import_error",
                 "log:collapse_output", "log:var_dof", "log:missing_keys", "dead_units", "loss_jump_at_resume",
                 "sawtooth_epoch", "grad_vanish_layers", "grad_steady_climb", "log:param_imbalance")
# Code findings that describe the setup rather than a bug.
BENIGN_CODE_KINDS = ("code:hf_trainer", "code:lightning", "code:no_grad_clip")
# A signal this weak does not satisfy a playbook's requires_any.
MIN_REQUIRED_STRENGTH = 0.15
MAX_CAUSES = 5
MAX_EVIDENCE = 6


@dataclass
class Hypothesis:
    id: str
    title: str
    issue: str
    severity: str
    confidence: float
    evidence: list[Evidence]
    check: str
    fix: str
    check_command: str | None = None
    patch: str | None = None
    engine: str = "offline"
    needs: list[str] = field(default_factory=list)
    instrumentation: str | None = None
    test_template: str | None = None
    lesson: str = ""
    codemod: str | None = None
    score: float = 0.0

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "issue": self.issue, "severity": self.severity,
                             "confidence": round(float(self.confidence), 3), "engine": self.engine,
                             "evidence": [e.to_json() for e in self.evidence],
                             "check": self.check, "fix": self.fix}
        if self.check_command:
            d["check_command"] = self.check_command
        if self.patch:
            d["patch"] = self.patch
        return d


@dataclass
class Diagnosis:
    status: str
    hypotheses: list[Hypothesis]
    quick_fixes: list[str] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    engine: str = "offline"
    elapsed_s: float = 0.0
    signals: list[Signal] = field(default_factory=list)
    run: Run | None = field(default=None, repr=False)        # what was diagnosed (not in the JSON)
    baseline: Run | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "engine": self.engine,
                "root_causes": [h.to_json() for h in self.hypotheses],
                "quick_fixes": self.quick_fixes, "needs": self.needs, "warnings": self.warnings,
                "elapsed_s": round(self.elapsed_s, 3)}

    @property
    def top(self) -> Hypothesis | None:
        return self.hypotheses[0] if self.hypotheses else None


@dataclass
class DiagnosisContext:
    """What every engine gets: the run, its signals, the user's words and verdicts."""

    run: Run
    signals: list[Signal]
    symptoms: list[str] = field(default_factory=list)
    verdicts: dict[str, str] = field(default_factory=dict)   # cause id -> confirmed|denied|inconclusive
    baseline: Run | None = None
    repo_root: Path | None = None


class OfflineEngine:
    """Analyzers + YAML playbooks; no network."""

    name = "offline"

    def diagnose(self, ctx: DiagnosisContext) -> Diagnosis:
        strongest: dict[str, Signal] = {}
        for s in ctx.signals:
            if s.kind not in strongest or s.strength > strongest[s.kind].strength:
                strongest[s.kind] = s
        failing = any(k.startswith(FAILURE_KINDS) for k in strongest if strongest[k].strength >= 0.3) or any(
            (k.startswith("code:") and k not in BENIGN_CODE_KINDS and s.strength >= 0.6) or
            (k in ("lr_schedule_odd", "loss_scale_drop", "data_time_high") and s.strength >= 0.5)
            for k, s in strongest.items())
        scored: list[tuple[float, library.CausePlaybook, list[tuple[float, Signal]], bool]] = []
        for pb in library.causes().values():
            verdict = ctx.verdicts.get(pb.id)
            if verdict == "denied":
                continue
            contrib = [(pb.evidence[k] * s.strength, s) for k, s in strongest.items() if k in pb.evidence]
            has_req = not pb.requires_any or any(
                k in strongest and strongest[k].strength >= MIN_REQUIRED_STRENGTH for k in pb.requires_any)
            sym = pb.symptom_match(ctx.symptoms)
            if not has_req and not sym and verdict != "confirmed":
                continue
            support = sum(c for c, _ in contrib)
            if not has_req:
                support = min(support, 0.0)    # symptom-only: artifacts may lower it, never raise it
            score = math.log(pb.prior) + support + (SYMPTOM_BONUS if sym else 0.0)
            if verdict == "confirmed":
                score += CONFIRMED_BONUS
            scored.append((score, pb, contrib, has_req))

        healthy = strongest.get("healthy")
        h_score = HEALTHY_PRIOR + (3.0 * healthy.strength if healthy else 0.0) - (4.0 if failing else 0.0)
        o_score = OTHER_PRIOR
        scores = [s for s, *_ in scored] + [h_score, o_score]
        m = max(scores)
        z = sum(math.exp((s - m) / TEMPERATURE) for s in scores)
        ranked = sorted(scored, key=lambda t: -t[0])
        hyps = [self._hypothesis(ctx, pb, contrib, has_req, math.exp((s - m) / TEMPERATURE) / z, s)
                for s, pb, contrib, has_req in ranked[:MAX_CAUSES]]
        p_healthy = math.exp((h_score - m) / TEMPERATURE) / z

        verifier = Verifier(ctx.run)
        for h in hyps:
            verifier.verify(h.evidence)
            # The offline engine only cites what it read; an unverified item is a bug, drop it.
            h.evidence = [e for e in h.evidence if e.verified]

        status, needs = self._status(ctx, hyps, p_healthy, failing)
        quick = [_first_sentence(h.fix) for h in hyps if h.confidence >= 0.5][:3]
        return Diagnosis(status=status, hypotheses=hyps, quick_fixes=quick, needs=needs,
                         warnings=list(ctx.run.warnings), engine=self.name, signals=ctx.signals)

    # ------------------------------------------------------------------

    def _hypothesis(self, ctx, pb, contrib, has_req, conf, score) -> Hypothesis:
        pos = sorted((c for c in contrib if c[0] > 0), key=lambda t: -t[0])
        evidence: list[Evidence] = []
        seen: set = set()
        for _, sig in pos:
            for e in sig.evidence[:2]:
                key = (e.source, e.line, e.step, e.metric)
                if len(evidence) < MAX_EVIDENCE and key not in seen:
                    seen.add(key)
                    evidence.append(Evidence(**{k: getattr(e, k) for k in ("text", "source", "line", "step", "quote", "metric", "value")}))
        top = pos[0][1].summary if pos and has_req else "suggested by the symptom only; no artifact shows it yet"
        facts = _placeholders(ctx)
        issue = _fill(pb.issue, {**facts, "top_signal": top}) or f"{pb.title}: {top}"
        if "{top_signal}" not in pb.issue and top not in issue:
            issue = f"{issue} ({top})"
        cmd = _runnable(ctx, _fill(pb.check_command, facts)) if pb.check_command else None
        return Hypothesis(id=pb.id, title=pb.title, issue=issue, severity=pb.severity, confidence=conf,
                          evidence=evidence, check=_fill(pb.check, facts) or pb.check, fix=_fill(pb.fix, facts) or pb.fix,
                          check_command=cmd, needs=list(pb.needs), instrumentation=pb.instrumentation,
                          test_template=pb.test_template, lesson=_fill(pb.lesson, {**facts, "top_signal": top}) or pb.lesson,
                          codemod=pb.codemod, score=score)

    def _status(self, ctx, hyps, p_healthy, failing) -> tuple[str, list[str]]:
        run = ctx.run
        top = hyps[0].confidence if hyps else 0.0
        if not failing and p_healthy >= top and "healthy" in {s.kind for s in ctx.signals}:
            return "no_issue_found", []
        if top >= COMPLETE_AT:
            return "diagnosis_complete", []
        needs: list[str] = []
        if not run.series and not run.tracebacks:
            needs.append("a training log or metrics file with loss per step (text log, CSV, JSONL or TensorBoard dir)")
        if ctx.symptoms and any(re.search(r"error|crash|exception|fail", s, re.I) for s in ctx.symptoms) and not run.tracebacks:
            needs.append("the full traceback (stderr of the failing command)")
        for h in hyps[:3]:
            for n in h.needs:
                if n not in needs and not _have(run, ctx, n):
                    needs.append(n)
        if not needs:
            second = hyps[1].id if len(hyps) > 1 else "the alternatives"
            needs.append(f"the result of the check for {hyps[0].id} to separate it from {second}" if hyps
                         else "a training log with loss per step")
        return "needs_more_data", needs[:6]


def _first_sentence(s: str) -> str:
    m = re.match(r"(.+?[.;])(\s|$)", s.strip())
    return (m.group(1) if m else s.strip())[:160]


def _have(run: Run, ctx: DiagnosisContext, need: str) -> bool:
    """Whether the data a `needs` line asks for is already in the run."""
    n = need.lower()
    names = set(run.metric_names())
    rules = [
        (r"per[- ]layer", lambda: any(x.startswith("grad_norm/") for x in names)),
        (r"grad(ient)?[_ ]norm", lambda: "grad_norm" in names),
        (r"loss[_ ]scale", lambda: "loss_scale" in names),
        (r"\blr\b|learning rate", lambda: "lr" in names or run.fact("lr") is not None),
        (r"val(idation)?[_ ]loss|val(idation)? metric|eval", lambda: "val_loss" in names or any(x.startswith("val_") for x in names)),
        (r"traceback|stack trace|stderr", lambda: bool(run.tracebacks)),
        (r"baseline|good run|previous run", lambda: ctx.baseline is not None),
        (r"config", lambda: any(t.kind == "config" for t in run.texts) or bool(run.facts)),
        (r"code|script|source", lambda: any(t.kind == "code" for t in run.texts)),
        (r"data[_ ]time|throughput|step time", lambda: "data_time" in names or "throughput" in names),
        (r"\bloss\b", lambda: "loss" in names),
    ]
    for rx, fn in rules:
        if re.search(rx, n):
            return fn()
    return False


def _placeholders(ctx: DiagnosisContext) -> dict[str, str]:
    run = ctx.run
    d: dict[str, str] = {}
    scripts = [t for t in run.texts if t.kind == "code" and t.path.endswith(".py")]
    train = [t for t in scripts if "backward(" in t.text or "Trainer(" in t.text or "fit(" in t.text]
    if train or scripts:
        d["script"] = (train or scripts)[0].path
    cfg = [t for t in run.texts if t.kind == "config"]
    if cfg:
        d["config"] = cfg[0].path
    for name in ("lr", "optimizer", "batch_size", "seed", "precision"):
        f = run.fact(name)
        if f is not None and f.value is not None:
            d[name] = str(f.value)
    if "lr" in d:
        try:
            d["half_lr"] = f"{float(d['lr']) / 2:g}"
        except ValueError:
            pass
    return d


_PH = re.compile(r"\{(\w+)\}")
_FLAG = re.compile(r"\s(--[\w-]+)")


def _runnable(ctx: DiagnosisContext, cmd: str | None) -> str | None:
    """A check command is offered only when the script really accepts its flags."""
    if not cmd:
        return None
    flags = _FLAG.findall(" " + cmd)
    script = next((t for t in ctx.run.texts if t.kind == "code" and t.path in cmd), None)
    if flags and (script is None or not all(f'"{f}"' in script.text or f"'{f}'" in script.text for f in flags)):
        return None
    return cmd


def _fill(template: str | None, values: dict[str, str]) -> str | None:
    """Fill {name} placeholders; None when one has no value (the caller then omits it)."""
    if not template:
        return None
    missing = [m for m in _PH.findall(template) if m not in values]
    if missing:
        return None
    return _PH.sub(lambda m: values[m.group(1)], template).strip()
