"""A scripted Anthropic Messages API on 127.0.0.1 for tests (stdlib http.server in a thread).

    with FakeAnthropic() as srv:
        srv.push(tool_use([("list_artifacts", {})], think="Reading the run."), Status(529), submit({...}))
        client = anthropic.Anthropic(api_key="k", base_url=srv.url)

Each POST /v1/messages first passes the documented request rules below; a request that
breaks one is answered 400 invalid_request_error, recorded in `srv.refused`, and does not
use up a scripted response. Otherwise it takes the next queued response: a message (served
as JSON, or as the SSE event stream when the request says "stream": true), a `Status` (an
error with its JSON body and headers), a `StreamError` (a 200 stream that breaks off with an
`error` event, as the API does when it is overloaded mid-response), or a callable(request_body)
-> any of these. Every request is recorded (`srv.requests`: path, lowercased headers, parsed
body). An empty queue answers 500 so a test that expected fewer calls fails loudly.

Request rules (platform.claude.com docs, checked 2026-12-01):
- at most 4 blocks with cache_control in one request (prompt caching);
- no empty text blocks (Messages API);
- every tool_use of an assistant turn is answered by a tool_result in the next user turn;
- thinking blocks go back unchanged (their signature is checked);
- on claude-sonnet-5-5, claude-opus-5-5 and claude-fable-5-1 a forced tool_choice ("tool" or "any")
  is refused ("What's new in Claude Sonnet 5.5" / "Opus 5.5": forced tool use returns an error);
- on claude-sonnet-5-5 thinking {"type": "disabled"} is refused (use "between_tools"), and on
  claude-opus-5-5 and claude-fable-5-1 thinking cannot be disabled.
"""
from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ids = itertools.count(1)

NO_FORCED_TOOL_CHOICE = {"claude-sonnet-5-5", "claude-opus-5-5", "claude-fable-5-1"}
NO_DISABLED_THINKING = {"claude-sonnet-5-5", "claude-opus-5-5", "claude-fable-5-1"}
MAX_CACHE_MARKS = 4


@dataclass
class Status:
    code: int
    message: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    error_code: str | None = None          # error.details.error_code (e.g. enforced_spend_limit_reached)

    def body(self) -> dict:
        kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error",
                529: "overloaded_error"}.get(self.code, "api_error")
        err: dict[str, Any] = {"type": kind, "message": self.message or kind}
        if self.error_code:
            err["details"] = {"error_code": self.error_code}
        return {"type": "error", "error": err}


@dataclass
class StreamError:
    """A stream that starts (HTTP 200, message_start) and then sends an `error` event."""

    type: str = "overloaded_error"
    message: str = "Overloaded"


def message(content: list[dict], stop_reason: str = "end_turn", usage: dict | None = None,
            model: str = "claude-sonnet-5-5", stop_details: dict | None = None) -> dict:
    m = {"id": f"msg_{next(_ids):04d}", "type": "message", "role": "assistant", "model": model,
         "content": content, "stop_reason": stop_reason, "stop_sequence": None,
         "usage": usage or {"input_tokens": 1200, "output_tokens": 150,
                            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 3000}}
    if stop_details is not None:
        m["stop_details"] = stop_details
    return m


def thinking(t: str) -> dict:
    """A thinking block as the API returns it with display "summarized" (the text between tool calls)."""
    return {"type": "thinking", "thinking": t, "signature": f"sig{next(_ids):06d}" + "A" * 24}


def text(t: str, think: str | None = None, **kw) -> dict:
    return message(([thinking(think)] if think else []) + [{"type": "text", "text": t}], **kw)


def tool_use(calls: list[tuple[str, dict]], say: str | None = None, think: str | None = None, **kw) -> dict:
    content = [thinking(think)] if think else []
    content += [{"type": "text", "text": say}] if say else []
    content += [{"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": n, "input": i} for n, i in calls]
    return message(content, stop_reason="tool_use", **kw)


def submit(answer: dict, say: str | None = None, **kw) -> dict:
    return tool_use([("submit_diagnosis", answer)], say, **kw)


def cut(partial_text: str = "The loss rises from step 100 and", think: str | None = None) -> dict:
    """A response that hit max_tokens (thinking counts toward it)."""
    return text(partial_text, think=think, stop_reason="max_tokens")


def refusal(category: str = "cyber", explanation: str = "This request was declined.") -> dict:
    return message([], stop_reason="refusal",
                   stop_details={"type": "refusal", "category": category, "explanation": explanation})


def sse_events(msg: dict) -> list[tuple[str, dict]]:
    """The Messages API streaming events that build `msg`, text, thinking and tool input in small deltas."""
    start = {**msg, "content": [], "stop_reason": None, "usage": {**msg["usage"], "output_tokens": 1}}
    start.pop("stop_details", None)
    ev: list[tuple[str, dict]] = [("message_start", {"type": "message_start", "message": start})]
    for i, b in enumerate(msg["content"]):
        if b["type"] == "text":
            ev.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}))
            t = b["text"]
            for k in range(0, len(t), 7):
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "text_delta", "text": t[k:k + 7]}}))
        elif b["type"] == "thinking":
            ev.append(("content_block_start", {"type": "content_block_start", "index": i,
                                               "content_block": {"type": "thinking", "thinking": "", "signature": ""}}))
            t = b["thinking"]
            for k in range(0, len(t), 9):
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "thinking_delta", "thinking": t[k:k + 9]}}))
            ev.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                               "delta": {"type": "signature_delta", "signature": b["signature"]}}))
        else:
            ev.append(("content_block_start", {"type": "content_block_start", "index": i,
                                               "content_block": {**b, "input": {}}}))
            js = json.dumps(b["input"])
            for k in range(0, len(js), 40):
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "input_json_delta", "partial_json": js[k:k + 40]}}))
        ev.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    delta = {"stop_reason": msg["stop_reason"], "stop_sequence": None}
    if msg.get("stop_details") is not None:
        delta["stop_details"] = msg["stop_details"]
    ev.append(("message_delta", {"type": "message_delta", "delta": delta,
                                 "usage": {"output_tokens": msg["usage"]["output_tokens"]}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    return ev


def _walk(x: Any):
    if isinstance(x, dict):
        yield x
        for v in x.values():
            yield from _walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from _walk(v)


def request_problems(body: dict, signatures: set[str]) -> list[str]:
    """The documented request rules `body` breaks (empty: accepted)."""
    out = []
    model = body.get("model", "")
    parts = [body.get("system"), body.get("tools"), body.get("messages")]
    marks = sum(1 for d in _walk(parts) if "cache_control" in d)
    if marks > MAX_CACHE_MARKS:
        out.append(f"A maximum of {MAX_CACHE_MARKS} blocks with cache_control may be provided. Found {marks}.")
    if any(d.get("type") == "text" and not str(d.get("text", "")).strip() for d in _walk([body.get("system"), body.get("messages")])):
        out.append("messages: text content blocks must be non-empty")
    tc = body.get("tool_choice") or {}
    if model in NO_FORCED_TOOL_CHOICE and tc.get("type") in ("tool", "any"):
        out.append(f"tool_choice: forced tool use (type {tc.get('type')!r}) is not supported on {model}; "
                   "use tool_choice {\"type\": \"auto\"}")
    th = body.get("thinking") or {}
    if model in NO_DISABLED_THINKING and th.get("type") == "disabled":
        out.append(f"thinking.type: 'disabled' is not supported on {model}; use 'between_tools'")
    msgs = body.get("messages") or []
    for k, m in enumerate(msgs):
        content = m.get("content") if isinstance(m.get("content"), list) else []
        if m.get("role") == "assistant":
            for b in content:
                if b.get("type") == "thinking" and b.get("signature") not in signatures:
                    out.append(f"messages.{k}: Invalid `signature` in `thinking` block")
            ids = {b["id"] for b in content if b.get("type") == "tool_use"}
            nxt = msgs[k + 1].get("content") if k + 1 < len(msgs) and isinstance(msgs[k + 1].get("content"), list) else []
            answered = {b.get("tool_use_id") for b in nxt if b.get("type") == "tool_result"}
            if ids - answered:
                out.append(f"messages.{k + 1}: tool_use ids were found without tool_result blocks immediately after")
    return out


class FakeAnthropic:
    def __init__(self):
        self.queue: deque[Any] = deque()
        self.requests: list[dict] = []
        self.refused: list[tuple[int, str]] = []     # (request index, why) of requests that broke a rule
        self.signatures: set[str] = set()            # of the thinking blocks served
        self._lock = threading.Lock()
        srv = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # keep test output clean
                pass

            def _json(self, code: int, obj: dict, headers: dict | None = None) -> None:
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, events: list[tuple[str, dict]]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                for name, ev in events:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(ev)}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

            def do_POST(self):
                n = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(n)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with srv._lock:
                    i = len(srv.requests)
                    srv.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                         "body": body, "raw": raw.decode("utf-8", "replace")})
                    problems = request_problems(body, srv.signatures)
                    if problems:
                        srv.refused.append((i, "; ".join(problems)))
                        resp: Any = Status(400, "; ".join(problems))
                    else:
                        resp = srv.queue.popleft() if srv.queue else Status(500, "no scripted response left")
                if callable(resp):
                    resp = resp(body)
                if isinstance(resp, Status):
                    return self._json(resp.code, resp.body(), resp.headers)
                if isinstance(resp, StreamError):
                    err = {"type": "error", "error": {"type": resp.type, "message": resp.message}}
                    if not body.get("stream"):   # the same failure on a plain request is its HTTP twin
                        return self._json(529 if resp.type == "overloaded_error" else 500, err)
                    start = message([])
                    return self._sse([("message_start", {"type": "message_start",
                                                         "message": {**start, "stop_reason": None}}),
                                      ("error", err)])
                with srv._lock:
                    srv.signatures.update(b["signature"] for b in resp["content"] if b.get("type") == "thinking")
                if body.get("stream"):
                    return self._sse(sse_events(resp))
                return self._json(200, resp)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def push(self, *responses: dict | Status | StreamError | Callable) -> FakeAnthropic:
        self.queue.extend(responses)
        return self

    def start(self) -> FakeAnthropic:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def tool_results(self, i: int) -> list[dict]:
        """The tool_result blocks of request i's last user message."""
        last = self.requests[i]["body"]["messages"][-1]
        return [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]

    def texts(self, i: int) -> list[str]:
        """The text blocks of request i's last user message."""
        last = self.requests[i]["body"]["messages"][-1]
        return [b["text"] for b in last["content"] if isinstance(b, dict) and b.get("type") == "text"]
