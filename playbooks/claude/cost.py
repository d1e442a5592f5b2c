"""What each Claude model costs and accepts, and how a run's usage is counted.

In: a model id (`model_info(id)`) and the user's config (price overrides). Out:
`ModelInfo` (prices, whether forced tool choice and adaptive thinking may be sent,
the output cap) and `Usage`, which adds up one run's responses: tokens per kind,
requests, the estimated cost in USD, and the tokens counted against the token
budget, where cache reads and writes weigh what they are billed relative to input.

Everything the engine knows about models is in MODELS, one row per model id; a model
not listed gets no thinking parameter, no forced tool choice and no price (the cost is
shown as unknown unless the config sets `price_in_per_mtok`/`price_out_per_mtok`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The date MODELS was last checked against Anthropic's model pages (platform.claude.com/docs/en/models/...).
PRICES_CHECKED = "2026-12-01"
# Standard prompt-caching multipliers of the input price (5-minute cache writes, cache reads),
# used where a model's row or the config gives no cache price.
CACHE_WRITE_X, CACHE_READ_X = 1.25, 0.1


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float | None = None     # 5-minute cache writes (the engine's breakpoints are ephemeral)
    cache_read: float | None = None

    @property
    def write(self) -> float:
        return self.cache_write if self.cache_write is not None else self.input * CACHE_WRITE_X

    @property
    def read(self) -> float:
        return self.cache_read if self.cache_read is not None else self.input * CACHE_READ_X


@dataclass(frozen=True)
class ModelInfo:
    id: str
    price: Price | None
    # Some models bill a whole request at higher rates once its prompt (input + cache reads + writes) is long.
    long_price: Price | None = None
    long_prompt_over: int | None = None
    adaptive_thinking: bool = True       # send thinking {"type": "adaptive", "display": ...}
    forced_tool_choice: bool = False     # documented to accept tool_choice {"type": "tool"} with the request we send
    effort: bool = True                  # accepts output_config.effort
    max_output: int = 128_000
    known: bool = True


MODELS: dict[str, ModelInfo] = {m.id: m for m in (
    # Sonnet 5.5: $2/$10, 5m cache write $2.50. Cache read: the model page said $0.20; pricing trackers
    # report a cut to $0.10 on 2026-10-07 (after that page was stored), which is what is used here.
    # Forced tool choice is a 400 on this model ("What's new in Claude Sonnet 5.5", breaking changes),
    # and so is thinking {"type": "disabled"}; adaptive thinking is on by default at effort high.
    ModelInfo("claude-sonnet-5-5", Price(2.0, 10.0, 2.50, 0.10)),
    ModelInfo("claude-sonnet-5", Price(2.0, 10.0, 2.50, 0.20)),
    # Opus 5.5: $4/$20, 5m write $5, read $0.20; forced tool choice is a 400, thinking always on.
    ModelInfo("claude-opus-5-5", Price(4.0, 20.0, 5.0, 0.20)),
    ModelInfo("claude-opus-5", Price(5.0, 25.0, 6.25, 0.50)),
    # Fable 5.1: $10/$50; the Opus 5.5 breaking changes (forced tool choice refused) apply to it too.
    ModelInfo("claude-fable-5-1", Price(10.0, 50.0)),
    # Haiku 5.5: prompts up to 100,000 tokens $0.10/$0.50 (write $0.125, read $0.01), longer ones $0.50/$2.50
    # (write $0.625, read $0.05) on every token of that request.
    ModelInfo("claude-haiku-5-5", Price(0.10, 0.50, 0.125, 0.01), long_price=Price(0.50, 2.50, 0.625, 0.05),
              long_prompt_over=100_000),
    # Haiku 4.5: $1/$5, extended (not adaptive) thinking, off unless asked for: forcing the final tool is allowed.
    ModelInfo("claude-haiku-4-5", Price(1.0, 5.0, 1.25, 0.10), adaptive_thinking=False, forced_tool_choice=True,
              effort=False, max_output=64_000),
    ModelInfo("claude-haiku-4-5-20251001", Price(1.0, 5.0, 1.25, 0.10), adaptive_thinking=False,
              forced_tool_choice=True, effort=False, max_output=64_000),
)}


def model_info(model: str) -> ModelInfo:
    """The row for `model`; for an unknown id the safe request shape (nothing optional sent) and no price."""
    return MODELS.get(model) or ModelInfo(model, None, adaptive_thinking=False, forced_tool_choice=False,
                                          effort=False, max_output=32_000, known=False)


@dataclass(frozen=True)
class Pricing:
    """A model's prices with the config's overrides applied; `at(prompt_tokens)` the rates of one request."""

    base: Price | None
    long: Price | None = None
    long_over: int | None = None

    def at(self, prompt_tokens: int) -> Price | None:
        if self.long is not None and self.long_over is not None and prompt_tokens > self.long_over:
            return self.long
        return self.base


def pricing_for(info: ModelInfo, cfg: Any) -> Pricing:
    """The table's prices for the model, each one replaced where the config sets it (price_*_per_mtok)."""
    over = {k: getattr(cfg, f"price_{k}_per_mtok", None) for k in ("in", "out", "cache_write", "cache_read")}
    base = info.price
    if base is None and (over["in"] is None or over["out"] is None):
        return Pricing(None)

    def apply(p: Price | None) -> Price:
        p = p or Price(0.0, 0.0)
        return Price(over["in"] if over["in"] is not None else p.input,
                     over["out"] if over["out"] is not None else p.output,
                     over["cache_write"] if over["cache_write"] is not None else (None if over["in"] is not None else p.cache_write),
                     over["cache_read"] if over["cache_read"] is not None else (None if over["in"] is not None else p.cache_read))
    if any(v is not None for v in over.values()):
        return Pricing(apply(base))          # an override is one flat rate: the long-prompt tier no longer applies
    return Pricing(base, info.long_price, info.long_prompt_over)


@dataclass
class Usage:
    """Tokens, requests, cost and budget tokens of one run, added up response by response."""

    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0
    requests: int = 0
    cost: float | None = 0.0        # None as soon as one response could not be priced
    budget: float = 0.0             # input + output + cache tokens weighted by their price relative to input

    def add(self, u: Any, pricing: Pricing) -> None:
        if u is None:
            return
        i = getattr(u, "input_tokens", 0) or 0
        o = getattr(u, "output_tokens", 0) or 0
        cw = getattr(u, "cache_creation_input_tokens", 0) or 0
        cr = getattr(u, "cache_read_input_tokens", 0) or 0
        self.requests += 1
        self.input, self.output, self.cache_write, self.cache_read = (
            self.input + i, self.output + o, self.cache_write + cw, self.cache_read + cr)
        p = pricing.at(i + cw + cr)
        if p is None:
            self.cost = None
            w_write, w_read = CACHE_WRITE_X, CACHE_READ_X
        else:
            if self.cost is not None:
                self.cost += (i * p.input + cw * p.write + cr * p.read + o * p.output) / 1e6
            w_write = p.write / p.input if p.input else CACHE_WRITE_X
            w_read = p.read / p.input if p.input else CACHE_READ_X
        self.budget += i + o + cw * w_write + cr * w_read

    @property
    def total(self) -> int:
        """Every token, unweighted (for display)."""
        return self.input + self.output + self.cache_write + self.cache_read

    def to_json(self) -> dict[str, Any]:
        return {"input_tokens": self.input, "output_tokens": self.output, "cache_write_tokens": self.cache_write,
                "cache_read_tokens": self.cache_read, "requests": self.requests,
                "budget_tokens": round(self.budget), "cost_usd": None if self.cost is None else round(self.cost, 5)}
