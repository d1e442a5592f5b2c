"""A scripted Anthropic Messages API on 127.0.0.1 for tests (stdlib http.server in a thread).

    with FakeAnthropic() as srv:
        srv.push(tool_use([("list_artifacts", {})]), Status(529), submit({...}))
        client = anthropic.Anthropic(api_key="k", base_url=srv.url)

Each POST /v1/messages takes the next queued response: a message (served as JSON,
or as the SSE event stream when the request says "stream": true), a `Status`
(an error with its JSON body and headers), or a callable(request_body) -> either.
Every request is recorded (`srv.requests`: path, lowercased headers, parsed body).
An empty queue answers 500 so a test that expected fewer calls fails loudly.
"""
from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

_ids = itertools.count(1)


@dataclass
class Status:
    code: int
    message: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    def body(self) -> dict:
        kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error",
                529: "overloaded_error"}.get(self.code, "api_error")
        return {"type": "error", "error": {"type": kind, "message": self.message or kind}}


def message(content: list[dict], stop_reason: str = "end_turn", usage: dict | None = None,
            model: str = "claude-sonnet-5-5") -> dict:
    return {"id": f"msg_{next(_ids):04d}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": usage or {"input_tokens": 1200, "output_tokens": 150,
                               "cache_creation_input_tokens": 0, "cache_read_input_tokens": 3000}}


def text(t: str, **kw) -> dict:
    return message([{"type": "text", "text": t}], **kw)


def tool_use(calls: list[tuple[str, dict]], say: str | None = None, **kw) -> dict:
    content = [{"type": "text", "text": say}] if say else []
    content += [{"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": n, "input": i} for n, i in calls]
    return message(content, stop_reason="tool_use", **kw)


def submit(answer: dict, say: str | None = None, **kw) -> dict:
    return tool_use([("submit_diagnosis", answer)], say, **kw)


def sse_events(msg: dict) -> list[tuple[str, dict]]:
    """The Messages API streaming events that build `msg`, text and tool input in small deltas."""
    start = {**msg, "content": [], "stop_reason": None,
             "usage": {**msg["usage"], "output_tokens": 1}}
    ev: list[tuple[str, dict]] = [("message_start", {"type": "message_start", "message": start})]
    for i, b in enumerate(msg["content"]):
        if b["type"] == "text":
            ev.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}))
            t = b["text"]
            for k in range(0, len(t), 7):
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "text_delta", "text": t[k:k + 7]}}))
        else:
            ev.append(("content_block_start", {"type": "content_block_start", "index": i,
                                               "content_block": {**b, "input": {}}}))
            js = json.dumps(b["input"])
            for k in range(0, len(js), 40):
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "input_json_delta", "partial_json": js[k:k + 40]}}))
        ev.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    ev.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                                 "usage": {"output_tokens": msg["usage"]["output_tokens"]}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    return ev


class FakeAnthropic:
    def __init__(self):
        self.queue: deque[Any] = deque()
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        srv = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # keep test output clean
                pass

            def do_POST(self):
                n = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(n)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with srv._lock:
                    srv.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                         "body": body, "raw": raw.decode("utf-8", "replace")})
                    resp = srv.queue.popleft() if srv.queue else Status(500, "no scripted response left")
                if callable(resp):
                    resp = resp(body)
                if isinstance(resp, Status):
                    data = json.dumps(resp.body()).encode()
                    self.send_response(resp.code)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in resp.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("cache-control", "no-cache")
                    self.send_header("connection", "close")
                    self.end_headers()
                    for name, ev in sse_events(resp):
                        self.wfile.write(f"event: {name}\ndata: {json.dumps(ev)}\n\n".encode())
                        self.wfile.flush()
                    self.close_connection = True
                    return
                data = json.dumps(resp).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def push(self, *responses: dict | Status | Callable) -> "FakeAnthropic":
        self.queue.extend(responses)
        return self

    def start(self) -> "FakeAnthropic":
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
