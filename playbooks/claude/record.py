"""The record of one Claude engine run, returned with its diagnosis (`Diagnosis.engine_run`).

The engine fills a `ClaudeRun` as it works (requests, retries, stop reasons, tool
calls, answers, verification, usage, outcome) and hands it back redacted, with the
API key scrubbed; the caller decides where it goes (the TUI appends it to the
session as a `claude_ran` event: `run.to_json()` is that payload).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from mltdbg.analyzers.common.redact import MASK, redact_obj


@dataclass
class ClaudeRun:
    model: str
    base_url: str
    time_budget_s: float
    token_budget: int
    engine: str = "claude"
    outcome: str = ""                     # answered | cancelled | time_budget | token_budget | unavailable | ...
    notice: str | None = None             # what the user was told when it fell back
    final_ask: str | None = None          # how the final answer was asked for: tool_choice | instruction
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    retries: list[dict[str, Any]] = field(default_factory=list)
    stops: list[dict[str, Any]] = field(default_factory=list)      # stop reasons that changed the course
    answers: list[dict[str, Any]] = field(default_factory=list)
    verification: list[dict[str, Any]] = field(default_factory=list)
    prompt: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def scrubbed(self, secret: str | None) -> ClaudeRun:
        """A copy with secrets redacted and `secret` (the API key) masked wherever it appears."""
        d = redact_obj(self.to_json())
        if secret and len(secret) >= 8:   # belt and braces: a key that no pattern knows
            d = json.loads(json.dumps(d).replace(secret, MASK))
        return ClaudeRun(**d)
