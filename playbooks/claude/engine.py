"""The Claude engine: a read-only agent over the Messages API that ranks hypotheses,
whose every cited line and value the tool re-checks itself; and the engine choice.

    engine, notice = select_engine("auto", load_config())
    d = engine.diagnose(ctx, on_event=lambda kind, data: ..., cancel=threading.Event())
    shown = merge(offline_diagnosis, d)          # d.engine_run: the ClaudeRun record

In: a `DiagnosisContext` (the already-ingested run, its signals, the user's symptoms
and verdicts, the repo root). Out: a `Diagnosis` with engine "claude" (its hypotheses
carry engine "claude"), or, on any failure (no network, 429/529 storm, a spend limit,
a refusal, an invalid answer twice, cancel, the time or token budget), the offline
diagnosis with a notice first in `warnings`. Either way `Diagnosis.engine_run` holds the
run's `ClaudeRun` record (redacted, never the key) for the caller to keep. It never
raises and never runs or writes anything in the user's repo.

How a run ends: the model calls the submit tool. When the run must end (an invalid or
missing answer, the turn limit, 80% of the time or token budget) the final answer is
asked for with tool_choice auto plus an instruction to call the submit tool now (other
tool calls get is_error results saying so); tool_choice forcing is used only on models
documented to accept it (cost.MODELS), and a 400 that names tool_choice drops it for the
rest of the run. Stop reasons: max_tokens asks again with twice the room (up to the
model's output cap), refusal ends the run with its own notice, a full context window
trims old tool results and asks again.
"""
from __future__ import annotations

import copy
import json
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mltdbg.analyzers.common.safety import dangerous
from mltdbg.analyzers.model import Evidence, Run
from mltdbg.playbooks import library
from mltdbg.playbooks.claude.cost import Usage, model_info, pricing_for
from mltdbg.playbooks.claude.prompt import (
    FINAL_ASK,
    NOT_RUN,
    SUBMIT,
    build_overview,
    json_in,
    submit_tool,
    system_prompt,
    validate_answer,
)
from mltdbg.playbooks.claude.record import ClaudeRun
from mltdbg.playbooks.claude.tools import ToolBox, injection_lines, patch_problem
from mltdbg.playbooks.claude.transport import (
    EPHEMERAL,
    ContextTooLong,
    Fallback,
    ToolChoiceRefused,
    Transport,
    echo,
    move_cache_mark,
    tool_result,
    trim,
)
from mltdbg.playbooks.engine import (
    COMPLETE_AT,
    Diagnosis,
    DiagnosisContext,
    Hypothesis,
    OfflineEngine,
)
from mltdbg.playbooks.userconfig import UserConfig, grant_consent, load_config
from mltdbg.playbooks.verify import Verifier, verified_share

EventFn = Callable[[str, dict], None]

# An answer whose evidence does not verify keeps at most this confidence.
UNVERIFIED_CAP = 0.5
# Ask for the final answer when this share of the time or token budget is spent.
FORCE_AT = 0.8
# Requests answered with other tools after the final answer was asked for, before giving up.
MAX_FINAL_ASKS = 2
# Times one run may ask again after a max_tokens stop (each with twice the room) or trim after a full context.
MAX_ROOM_RAISES, MAX_TRIMS = 2, 2

ENABLE_HINT = ("Claude engine off: set ANTHROPIC_API_KEY and run `mltdbg diagnose --engine claude` once "
               "(records your consent to send redacted excerpts).")


@dataclass
class ClaudeHypothesis(Hypothesis):
    """A hypothesis from Claude: what it claimed, and whether its proposed check is dangerous."""

    claimed_confidence: float = 0.0
    dangerous: bool = False
    dangerous_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        d = super().to_json()
        if self.dangerous:
            d["dangerous"] = True
            d["dangerous_reason"] = self.dangerous_reason
        return d


class ClaudeEngine:
    """Same interface as OfflineEngine: `diagnose(ctx) -> Diagnosis` (with `engine_run` set)."""

    name = "claude"

    def __init__(self, config: UserConfig | None = None, *, api_key: str | None = None,
                 debug_md: str | Path | None = None, task: str | None = None):
        self.config = config or load_config()
        self._api_key = api_key          # None: ANTHROPIC_API_KEY at call time; never recorded
        self.debug_md = debug_md         # the session's debug.md (a path or its text), for the read_debug_md tool
        self.task = task
        self.usage = Usage()

    # -------------------------------------------------------------- public

    def diagnose(self, ctx: DiagnosisContext, on_event: EventFn | None = None,
                 cancel: threading.Event | None = None, offline: Diagnosis | None = None) -> Diagnosis:
        t0 = time.monotonic()
        cfg = self.config
        cancel = cancel or threading.Event()
        self.usage = Usage()
        rec = ClaudeRun(model=cfg.model, base_url=_base_url_for_record(cfg), time_budget_s=cfg.time_budget_s,
                        token_budget=cfg.token_budget)

        def emit(kind: str, **data) -> None:
            if on_event is not None:
                try:
                    on_event(kind, data)
                except Exception:  # noqa: BLE001 - a UI callback bug must not stop the diagnosis
                    pass

        if offline is None:
            offline = OfflineEngine().diagnose(ctx)
        try:
            d = self._run(ctx, offline, emit, cancel, t0, rec)
            rec.outcome = "answered"
        except KeyboardInterrupt:   # Ctrl-C on the CLI cancels Claude, not the whole diagnosis
            notice = self._partial("Claude run cancelled", rec)
            d = _fallback(offline, notice)
            rec.outcome, rec.notice = "cancelled", notice
            emit("notice", text=notice)
        except Fallback as f:
            d = _fallback(offline, f.notice)
            rec.outcome, rec.notice = f.kind, f.notice
            emit("notice", text=f.notice)
        except Exception as e:  # noqa: BLE001 - never a crash, never a lost diagnosis
            notice = f"Claude engine failed ({type(e).__name__}: {str(e)[:200]}); showing the offline result."
            d = _fallback(offline, notice)
            rec.outcome, rec.notice = "error", notice
            emit("notice", text=notice)
        d.elapsed_s = time.monotonic() - t0
        rec.usage = self.usage.to_json()
        rec.elapsed_s = round(d.elapsed_s, 3)
        d.engine_run = rec.scrubbed(self._api_key or os.environ.get("ANTHROPIC_API_KEY"))
        emit("done", outcome=rec.outcome, usage=rec.usage)
        return d

    # -------------------------------------------------------------- the loop

    def _run(self, ctx, offline, emit, cancel, t0, rec: ClaudeRun) -> Diagnosis:
        cfg = self.config
        key = self._api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise Fallback("no_key", "ANTHROPIC_API_KEY is not set; showing the offline result. " + ENABLE_HINT)
        import anthropic  # noqa: PLC0415 - heavy to import (~1 s); only when Claude really runs
        client = anthropic.Anthropic(api_key=key, base_url=cfg.base_url or None, max_retries=0,
                                     timeout=cfg.request_timeout_s)
        info = model_info(cfg.model)
        pricing = pricing_for(info, cfg)
        transport = Transport(client, cfg, t0 + cfg.time_budget_s, cancel, emit, rec.retries,
                              lambda what: self._partial(what, rec))
        box = ToolBox(ctx, ctx.repo_root, offline, self.debug_md)
        tools = box.definitions() + [submit_tool()]
        tools[-1]["cache_control"] = EPHEMERAL          # caches every tool definition
        system = [{"type": "text", "text": system_prompt(), "cache_control": EPHEMERAL}]
        overview, sent = build_overview(ctx, offline, cfg, self.task)
        chars = len(system[0]["text"]) + len(json.dumps(tools)) + len(overview)
        rec.prompt = {"system_chars": len(system[0]["text"]), "tools_chars": len(json.dumps(tools)),
                      "overview_chars": len(overview), "excerpts": sent, "approx_tokens": chars // 4,
                      "overview": overview}
        messages: list[dict] = [{"role": "user", "content": [{"type": "text", "text": overview, "cache_control": EPHEMERAL}]}]
        emit("start", model=cfg.model, prompt_chars=chars, approx_tokens=chars // 4)
        extra: dict[str, Any] = {}
        if info.adaptive_thinking:
            # display: the text the model writes between tool calls comes back in thinking blocks,
            # empty unless display asks for it; "summarized" keeps the user informed while it works.
            extra["thinking"] = {"type": "adaptive", "display": cfg.thinking_display}
        if cfg.effort and (info.effort or not info.known):
            extra["output_config"] = {"effort": cfg.effort}
        can_force = info.forced_tool_choice
        max_tokens = cfg.max_tokens
        cap = max(cfg.max_tokens, info.max_output)
        retried_invalid = force = False
        final_asks = raises = trims = 0
        turn = 0
        while turn < cfg.max_turns + MAX_FINAL_ASKS + 3:
            if cancel.is_set():
                raise Fallback("cancelled", self._partial("Claude run cancelled", rec))
            spent_t = (time.monotonic() - t0) / max(cfg.time_budget_s, 1e-9)
            spent_tok = self.usage.budget / max(cfg.token_budget, 1)
            if spent_tok >= 1.0:
                raise Fallback("token_budget", self._partial(f"Claude reached the token budget ({cfg.token_budget})", rec))
            force = force or turn >= cfg.max_turns or spent_t >= FORCE_AT or spent_tok >= FORCE_AT
            forcing = force and can_force
            if force and not forcing:
                _ask_for_the_answer(messages)
            rec.final_ask = rec.final_ask or (("tool_choice" if forcing else "instruction") if force else None)
            move_cache_mark(messages)
            kw = dict(model=cfg.model, max_tokens=max_tokens, system=system, tools=tools, messages=messages,
                      tool_choice={"type": "tool", "name": SUBMIT} if forcing else {"type": "auto"}, **extra)
            try:
                msg = transport.send(kw, turn)
            except ToolChoiceRefused as e:
                can_force = False
                rec.stops.append({"turn": turn, "stop": "tool_choice_refused", "action": "asked again without forcing",
                                  "message": str(e)[:200]})
                continue
            except ContextTooLong as e:
                trims += 1
                if trims > MAX_TRIMS or not trim(messages):
                    raise Fallback("context", f"the conversation no longer fits {cfg.model}'s context window ({str(e)[:120]}); "
                                   "showing the offline result.") from None
                rec.stops.append({"turn": turn, "stop": "prompt_too_long", "action": "trimmed old tool results"})
                continue
            self.usage.add(getattr(msg, "usage", None), pricing)
            emit("usage", **self.usage.to_json())
            stop = getattr(msg, "stop_reason", None)
            if stop == "refusal":
                rec.stops.append({"turn": turn, "stop": stop, "action": "stopped", **_refusal_details(msg)})
                raise Fallback("refusal", f"Claude declined to continue this diagnosis (refusal{_refusal_category(msg)}); "
                               "showing the offline result.")
            if stop == "model_context_window_exceeded":
                trims += 1
                if trims > MAX_TRIMS or not trim(messages):
                    raise Fallback("context", f"the conversation filled {cfg.model}'s context window; showing the offline result.")
                rec.stops.append({"turn": turn, "stop": stop, "action": "trimmed old tool results, asked again"})
                continue
            if stop == "max_tokens":
                # Thinking counts toward max_tokens: the cut response is dropped and asked again with more room.
                raises += 1
                if raises > MAX_ROOM_RAISES or max_tokens >= cap:
                    raise Fallback("max_tokens", self._partial(f"Claude's answer did not fit max_tokens ({max_tokens})", rec))
                max_tokens = min(cap, max_tokens * 2)
                rec.stops.append({"turn": turn, "stop": stop, "action": f"asked again with max_tokens {max_tokens}"})
                emit("retry", attempt=raises, why="the response hit max_tokens", wait_s=0.0)
                continue
            turn += 1
            blocks = [b for b in (echo(x) for x in msg.content) if b is not None]
            for b in blocks:
                if b.get("type") == "thinking" and (b.get("thinking") or "").strip():
                    emit("thinking", text=b["thinking"])
            messages.append({"role": "assistant", "content": blocks or [{"type": "text", "text": "(no content)"}]})
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            texts = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text").strip()
            submit = next((u for u in uses if u.get("name") == SUBMIT), None)
            answer = submit["input"] if submit else (json_in(texts) if not uses else None)
            if submit or not uses:
                errors = validate_answer(answer) if answer is not None else [
                    f"no answer: call the {SUBMIT} tool with the ranked diagnosis"]
                rec.answers.append({"turn": turn - 1, "answer": answer, "errors": errors,
                                    **({} if submit else {"text": texts[:2000]})})
                if not errors:
                    return self._build(ctx, answer, rec, emit)
                emit("invalid_answer", errors=errors)
                if retried_invalid:
                    raise Fallback("invalid_answer", "Claude's answer did not match the diagnosis schema twice ("
                                   + "; ".join(errors[:3]) + "); showing the offline result.")
                retried_invalid, force = True, True
                fix = "Your answer is invalid:\n" + "\n".join(f"- {e}" for e in errors) + f"\nCall {SUBMIT} again with a corrected answer."
                if submit:
                    content = [tool_result(u["id"], fix if u is submit else "not run: answer first", True) for u in uses]
                else:
                    content = [{"type": "text", "text": fix}]
                messages.append({"role": "user", "content": content})
                continue
            if force:
                # The answer was asked for; other tool calls are answered, not run.
                final_asks += 1
                rec.tool_calls += [{"turn": turn - 1, "name": u["name"], "input": u.get("input"), "error": True,
                                    "result_chars": 0, "ms": 0.0, "result": NOT_RUN} for u in uses]
                if final_asks > MAX_FINAL_ASKS:
                    raise Fallback("no_answer", self._partial("Claude kept calling tools after it was asked for its answer", rec))
                messages.append({"role": "user", "content": [tool_result(u["id"], NOT_RUN, True) for u in uses]})
                continue
            results = []
            for u in uses:
                if cancel.is_set():
                    raise Fallback("cancelled", self._partial("Claude run cancelled", rec))
                emit("tool_call", name=u["name"], input=u.get("input"))
                t1 = time.monotonic()
                text, is_err = box.call(u["name"], u.get("input"))
                rec.tool_calls.append({"turn": turn - 1, "name": u["name"], "input": u.get("input"), "error": is_err,
                                       "result_chars": len(text), "ms": round((time.monotonic() - t1) * 1000, 1),
                                       **({"result": text[:300]} if is_err else {})})
                emit("tool_result", name=u["name"], chars=len(text), error=is_err, preview=text[:200])
                results.append(tool_result(u["id"], text, is_err))
            messages.append({"role": "user", "content": results})
        raise Fallback("no_answer", self._partial(f"Claude gave no answer in {cfg.max_turns} turns", rec))

    def _partial(self, what: str, rec: ClaudeRun) -> str:
        n = len(rec.tool_calls)
        return f"{what} after {n} tool call{'s' if n != 1 else ''}, before a final answer; showing the offline result."

    # -------------------------------------------------------------- the answer

    def _build(self, ctx: DiagnosisContext, answer: dict, rec: ClaudeRun, emit) -> Diagnosis:
        """The validated answer as a Diagnosis: evidence re-checked, confidence scaled by what verified."""
        run = ctx.run
        verifier = Verifier(run)
        repo = Path(ctx.repo_root).resolve() if ctx.repo_root else None
        code_verifier = Verifier(Run(root=repo)) if repo is not None and repo != run.root.resolve() else None
        titles = {pb.id: pb.title for pb in library.causes().values()}
        warnings = list(run.warnings)
        hyps: list[ClaudeHypothesis] = []
        ver_rec = []
        for rc in answer.get("root_causes", [])[:5]:
            ev = [Evidence(text=str(e.get("text", "")), source=e.get("source"), line=e.get("line"), step=e.get("step"),
                           quote=e.get("quote"), metric=e.get("metric"), value=e.get("value")) for e in rc.get("evidence", [])]
            verifier.verify(ev)
            if code_verifier is not None:
                for e in ev:
                    if not e.verified and e.quote and e.source:
                        e.verified = code_verifier.check(e)
            share = verified_share(ev)
            claimed = float(rc["confidence"])
            # Scaled by the share that verified: all verified keeps the claim, none halves it (<= 0.5).
            conf = claimed * (0.5 + 0.5 * share)
            if share == 0:
                conf = min(conf, UNVERIFIED_CAP)
            why = dangerous(rc.get("check_command"), repo)
            patch = rc.get("patch")
            bad_patch = patch_problem(patch, repo)
            if bad_patch:
                warnings.append(f"(claude) the proposed patch for {rc['id']} was dropped: it {bad_patch}")
                patch = None
            hyps.append(ClaudeHypothesis(
                id=rc["id"], title=titles.get(rc["id"], rc["id"].replace("_", " ")), issue=rc["issue"],
                severity=rc["severity"], confidence=conf, evidence=ev, check=rc["check"], fix=rc["fix"],
                check_command=rc.get("check_command"), patch=patch, engine="claude",
                claimed_confidence=claimed, dangerous=why is not None, dangerous_reason=why))
            ver_rec.append({"id": rc["id"], "claimed": claimed, "confidence": round(conf, 4),
                            "verified": [bool(e.verified) for e in ev], "dangerous": why})
        hyps.sort(key=lambda h: -h.confidence)
        rec.verification = ver_rec
        emit("verified", hypotheses=ver_rec)
        for path, ln, text in injection_lines(run):
            warnings.append(f"{path}:{ln}: this line addresses an AI assistant; it was treated as data: {text}")
        needs = [n for n in answer.get("needs", []) if isinstance(n, str)]
        status = answer.get("status", "needs_more_data")
        top = hyps[0].confidence if hyps else 0.0
        if status == "no_issue_found" and top < COMPLETE_AT:
            pass
        elif top >= COMPLETE_AT:
            status = "diagnosis_complete"
        else:
            status = "needs_more_data"
            if not needs:
                needs = [f"the result of the check for {hyps[0].id}" if hyps else "a training log with loss per step"]
            if hyps and any(not e.verified for e in hyps[0].evidence):
                needs.append(f"evidence for {hyps[0].id} that the tool can re-read (some cited lines did not say what was claimed)")
        return Diagnosis(status=status, hypotheses=list(hyps), quick_fixes=[q for q in answer.get("quick_fixes", []) if isinstance(q, str)][:5],
                         needs=needs, warnings=warnings, engine="claude", signals=ctx.signals)


# ---------------------------------------------------------------- helpers

def _ask_for_the_answer(messages: list[dict]) -> None:
    """Append the final-answer instruction to the last (user) message, once."""
    last = messages[-1]
    if last["role"] != "user" or not isinstance(last["content"], list):
        return
    if not any(b.get("type") == "text" and b.get("text") == FINAL_ASK for b in last["content"]):
        last["content"].append({"type": "text", "text": FINAL_ASK})


def _refusal_details(msg: Any) -> dict:
    sd = getattr(msg, "stop_details", None)
    if sd is None:
        return {}
    d = sd.model_dump(exclude_none=True) if hasattr(sd, "model_dump") else dict(sd) if isinstance(sd, dict) else {}
    return {k: str(v)[:300] for k, v in d.items() if k in ("category", "explanation")}


def _refusal_category(msg: Any) -> str:
    cat = _refusal_details(msg).get("category")
    return f": {cat}" if cat else ""


def _base_url_for_record(cfg: UserConfig) -> str:
    url = cfg.base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
    return re.sub(r"//[^/@]*@", "//", url)    # never a credential in a URL


def _fallback(offline: Diagnosis, notice: str) -> Diagnosis:
    d = copy.copy(offline)
    d.warnings = [f"(engine) {notice}"] + list(offline.warnings)
    return d


# ---------------------------------------------------------------- selection

def select_engine(name: str, config: UserConfig | None = None, *, env: dict | None = None):
    """(engine, notice) for --engine offline | claude | auto.

    auto: Claude only with ANTHROPIC_API_KEY set AND stored consent; otherwise the offline
    engine and a notice saying how to enable Claude. claude: the user's explicit choice is
    consent, stored in the config; without a key it is offline with a notice. notice is None
    when nothing needs saying.
    """
    env = os.environ if env is None else env
    cfg = config or load_config()
    has_key = bool(env.get("ANTHROPIC_API_KEY"))
    if name == "offline":
        return OfflineEngine(), None
    if name == "claude":
        if not cfg.consent:
            try:
                cfg.consent = grant_consent(cfg.path).consent
            except OSError as e:
                cfg.consent = True   # this run was asked for explicitly; storing it failed
                cfg.warnings.append(f"could not store consent in {cfg.path}: {e.strerror or e}")
        if not has_key:
            return OfflineEngine(), "ANTHROPIC_API_KEY is not set; ran the offline engine. " + ENABLE_HINT
        return ClaudeEngine(cfg), None
    if name == "auto":
        if has_key and cfg.consent:
            return ClaudeEngine(cfg), None
        why = "ANTHROPIC_API_KEY is not set" if not has_key else "you have not agreed yet to send excerpts to Anthropic"
        return OfflineEngine(), f"Offline engine ({why}). {ENABLE_HINT}"
    raise ValueError(f"unknown engine {name!r}: offline, claude or auto")
