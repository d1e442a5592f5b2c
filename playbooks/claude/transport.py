"""Talking to the Messages API: one request with retries and streaming, the errors
sorted into what to retry, what to stop on and what the loop must change, and the
shape of the messages sent back (echoed blocks, tool results, cache breakpoints).

In: an `anthropic.Anthropic` client, the request's keyword arguments, the run's
deadline, a cancel event and `emit(kind, **data)`. Out: the final `Message`, or one of
the exceptions below. Retried (with backoff; a server's retry-after wins): HTTP
408/409/429/5xx/529, timeouts, dropped connections, and the same errors arriving as
an `error` event inside a 200 stream (e.g. `overloaded_error`). Not retried: a 429
that says a spend limit is reached (it stops at once with the API's message), and
every other 4xx.
"""
from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable
from typing import Any

EPHEMERAL = {"type": "ephemeral"}
# Error types in a body (HTTP or in-stream) that are worth another attempt, with their HTTP twins.
RETRY_TYPES = {"overloaded_error": 529, "api_error": 500, "rate_limit_error": 429, "timeout_error": 504}
# error.details.error_code of a 429 that waiting does not cure (the org's or contract's spend limit).
SPEND_LIMIT_CODES = {"enforced_spend_limit_reached", "contract_spend_limit_reached",
                     "linked_organization_spend_limit_reached"}
RETRY_AFTER_CAP_S = 60.0
_TOO_LONG = re.compile(r"(?i)prompt is too long|context (window|length)|too many (input )?tokens|exceeds? the (maximum|context)")
TRIMMED = "[trimmed to fit the context window: call the tool again if you still need this]"
TRIM_ABOVE = 400           # tool results longer than this (characters) are trimmed first, oldest first


class Fallback(Exception):
    """Stop the Claude run and show the offline result with this notice."""

    def __init__(self, kind: str, notice: str):
        super().__init__(notice)
        self.kind, self.notice = kind, notice


class ToolChoiceRefused(Exception):
    """A 400 whose message names tool_choice: send the request again without forcing a tool."""


class ContextTooLong(Exception):
    """A 400 saying the prompt does not fit the model's context window: trim and send again."""


class Transport:
    """Sends requests for one run; `send(kw, turn)` -> Message or one of the exceptions above."""

    def __init__(self, client: Any, cfg: Any, deadline: float, cancel: threading.Event,
                 emit: Callable[..., None], retries: list[dict], partial: Callable[[str], str]):
        self.client, self.cfg, self.deadline, self.cancel = client, cfg, deadline, cancel
        self.emit, self.retries, self.partial = emit, retries, partial

    def _time_up(self) -> Fallback:
        return Fallback("time_budget", self.partial(f"Claude reached the time budget ({self.cfg.time_budget_s:g} s)"))

    def _cancelled(self) -> Fallback:
        return Fallback("cancelled", self.partial("Claude run cancelled"))

    def send(self, kw: dict, turn: int) -> Any:
        import anthropic  # noqa: PLC0415 - heavy to import; only once a request is really sent
        cfg = self.cfg
        last = ""
        forced = kw.get("tool_choice", {}).get("type") in ("tool", "any")
        for attempt in range(cfg.max_retries + 1):
            remaining = self.deadline - time.monotonic()
            if remaining <= 1:
                raise self._time_up()
            timeout = min(cfg.request_timeout_s, remaining)
            self.emit("request", turn=turn, attempt=attempt, forced=forced)
            retry_after = None
            try:
                return self._once(kw, timeout)
            except anthropic.APIStatusError as e:
                status, etype, code, msg = error_info(e)
                if code in SPEND_LIMIT_CODES:
                    raise Fallback("spend_limit", f"the Anthropic API stopped the run: {msg} ({code}; retrying will not "
                                   "help until the limit is raised or resets); showing the offline result.") from None
                if status == 400 and forced and "tool_choice" in msg:
                    raise ToolChoiceRefused(msg) from None
                if status in (400, 413) and _TOO_LONG.search(msg):
                    raise ContextTooLong(msg) from None
                headers = e.response.headers if e.response is not None else {}
                twin = RETRY_TYPES.get(etype or "")
                retryable = status in (408, 409, 429) or status >= 500 or (status == 200 and twin is not None)
                if headers.get("x-should-retry") == "false":
                    retryable = False
                if not retryable:
                    hint = " (check ANTHROPIC_API_KEY)" if status in (401, 403) else ""
                    raise Fallback("api_error", f"the Anthropic API refused the request: {status} {msg}{hint}; "
                                   "showing the offline result.") from None
                last = (f"{etype} inside the response stream" if status == 200 else
                        f"HTTP {status}{' overloaded' if status == 529 else ''}")
                retry_after = retry_after_s(headers)
            except anthropic.APITimeoutError:
                last = f"timeout after {timeout:.0f} s"
            except anthropic.APIConnectionError as e:
                last = f"connection error ({str(e)[:120]})"
            except anthropic.APIError as e:   # a broken stream, an unparsable body
                last = f"{type(e).__name__}: {str(e)[:120]}"
            if attempt == cfg.max_retries:
                break
            wait = retry_after if retry_after is not None else (
                min(cfg.retry_max_s, cfg.retry_base_s * 2 ** attempt) * (0.5 + random.random() / 2))
            if time.monotonic() + wait >= self.deadline:
                break
            self.retries.append({"turn": turn, "attempt": attempt + 1, "why": last, "wait_s": round(wait, 3)})
            self.emit("retry", attempt=attempt + 1, why=last, wait_s=wait)
            if self.cancel.wait(wait):
                raise self._cancelled()
        raise Fallback("unavailable", f"the Anthropic API is unavailable ({last}, {cfg.max_retries + 1} attempts); "
                       "showing the offline result.")

    def _once(self, kw: dict, timeout: float) -> Any:
        if not self.cfg.stream:
            return self.client.messages.create(**kw, timeout=timeout)
        with self.client.messages.stream(**kw, timeout=timeout) as s:
            for ev in s:
                if self.cancel.is_set():
                    s.close()
                    raise self._cancelled()
                if time.monotonic() > self.deadline:   # a slow trickle must not outlive the budget
                    s.close()
                    raise self._time_up()
                if ev.type == "text":
                    self.emit("text", text=ev.text)
            return s.get_final_message()


def error_info(e: Any) -> tuple[int, str | None, str | None, str]:
    """(HTTP status, error.type, error.details.error_code, message) of an API error, from its body."""
    body = getattr(e, "body", None)
    err = body.get("error") if isinstance(body, dict) else None
    err = err if isinstance(err, dict) else {}
    details = err.get("details") if isinstance(err.get("details"), dict) else {}
    msg = str(err.get("message") or e)[:300]
    code = details.get("error_code")
    return int(getattr(e, "status_code", 0) or 0), err.get("type"), code if isinstance(code, str) else None, msg


def retry_after_s(headers: Any) -> float | None:
    """Seconds a response asks us to wait (retry-after-ms or retry-after), capped."""
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return min(RETRY_AFTER_CAP_S, max(0.0, float(ms) / 1000))
        s = headers.get("retry-after")
        if s is not None:
            return min(RETRY_AFTER_CAP_S, max(0.0, float(s)))
    except (TypeError, ValueError):
        return None
    return None


# ---------------------------------------------------------------- the messages sent back

def echo(block: Any) -> dict | None:
    """An assistant content block as it goes back in the next request, or None to leave it out.

    Text and tool_use keep their known fields; thinking blocks go back whole and unchanged
    (the API checks their signature); an empty text block is left out (the API refuses it).
    """
    d = block.model_dump(exclude_none=True)
    t = d.get("type")
    if t == "text":
        return {"type": "text", "text": d["text"]} if d.get("text", "").strip() else None
    if t == "tool_use":
        return {k: d[k] for k in ("type", "id", "name", "input") if k in d}
    d.pop("citations", None)
    return d


def tool_result(tool_use_id: str, text: str, is_error: bool) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": text or "(empty)", "is_error": is_error}


def move_cache_mark(messages: list[dict]) -> None:
    """Keep one moving cache breakpoint on the last block (besides system, tools and the overview),
    so each turn reads the conversation so far from the cache. The API allows 4 breakpoints."""
    for m in messages[1:]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                b.pop("cache_control", None)
    last = messages[-1]
    if len(messages) > 1 and isinstance(last["content"], list) and last["content"]:
        last["content"][-1]["cache_control"] = EPHEMERAL


def trim(messages: list[dict], keep_last: int = 2) -> int:
    """Shorten long tool results so the conversation fits the context window again: those before the
    last `keep_last` messages first, the latest ones only when nothing older is left. Returns how many."""
    for end in (max(1, len(messages) - keep_last), len(messages)):
        n = 0
        for m in messages[1:end]:
            if m["role"] != "user" or not isinstance(m["content"], list):
                continue
            for b in m["content"]:
                c = b.get("content")
                if b.get("type") == "tool_result" and isinstance(c, str) and len(c) > TRIM_ABOVE and TRIMMED not in c:
                    b["content"] = c[:200] + "\n" + TRIMMED
                    n += 1
        if n:
            return n
    return 0
