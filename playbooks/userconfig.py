"""The user's mltdbg settings: which Claude model, the time and token budgets, and
whether the user agreed that redacted excerpts and code may be sent to Anthropic.

Where: `$MLTDBG_CONFIG` (a file path) if set, else `$XDG_CONFIG_HOME/mltdbg/`
(or `~/.config/mltdbg/`) `config.toml`, or `config.yaml` when only that exists.
A missing file means the defaults; a bad value is ignored with a warning in
`UserConfig.warnings`, never an exception. The API key is never stored here:
it comes from `ANTHROPIC_API_KEY` only. `MLTDBG_MODEL` overrides the model for one
run (as `mltdbg diagnose --model` does) and is never written back to the file.
"""
from __future__ import annotations

import os
import tempfile
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

# The current Sonnet (platform.claude.com models overview, checked 2026-12-01); the SDK lists it in
# anthropic.types.ModelParam from 1.9.0 on, and tests/test_claude.py checks that no deprecation warning comes.
DEFAULT_MODEL = "claude-sonnet-5-5"
# output_config.effort levels (anthropic.types.OutputConfigParam); None sends none (the model's default).
EFFORTS = ("low", "medium", "high", "xhigh", "max")
# thinking.display values (anthropic.types.ThinkingConfigAdaptiveParam).
THINKING_DISPLAYS = ("summarized", "omitted")


@dataclass
class UserConfig:
    model: str = DEFAULT_MODEL
    time_budget_s: float = 300.0        # the spec's "5 minutes"; the run stops there with partial results
    token_budget: int = 200_000         # input + output tokens over one run
    max_tokens: int = 16_000            # per response, thinking included; doubled (to the model's cap) after a cut
    consent: bool = False               # the user agreed that redacted excerpts and code may leave the machine
    base_url: str | None = None         # None: the SDK's default or ANTHROPIC_BASE_URL
    stream: bool = True                 # stream responses (progress in the UI)
    max_retries: int = 3                # per request, for 429/529/5xx/timeouts
    retry_base_s: float = 1.0           # backoff: base * 2**attempt (a server's retry-after wins)
    retry_max_s: float = 20.0
    request_timeout_s: float = 120.0
    max_turns: int = 16                 # tool-use round trips before the final answer is asked for
    effort: str | None = None           # low | medium | high | xhigh | max; None: the model's default
    thinking_display: str = "summarized"   # summarized: the model's notes between tool calls are shown; omitted
    price_in_per_mtok: float | None = None    # USD per million tokens; None: the built-in table for the model id
    price_out_per_mtok: float | None = None
    price_cache_write_per_mtok: float | None = None
    price_cache_read_per_mtok: float | None = None
    path: Path | None = field(default=None, compare=False)
    warnings: list[str] = field(default_factory=list, compare=False)
    from_env: dict[str, Any] = field(default_factory=dict, compare=False)   # settings taken from the environment


_SETTINGS = [f for f in fields(UserConfig) if f.name not in ("path", "warnings", "from_env")]
_OPTIONAL = ("base_url", "effort", "price_in_per_mtok", "price_out_per_mtok", "price_cache_write_per_mtok",
             "price_cache_read_per_mtok")
_CHOICES = {"effort": EFFORTS, "thinking_display": THINKING_DISPLAYS}


def config_path() -> Path:
    """The config file in use (it may not exist yet)."""
    env = os.environ.get("MLTDBG_CONFIG")
    if env:
        return Path(env).expanduser()
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "mltdbg"
    toml, yml = base / "config.toml", base / "config.yaml"
    if not toml.exists() and yml.exists():
        return yml
    return toml


def _is_yaml(p: Path) -> bool:
    return p.suffix.lower() in (".yaml", ".yml")


def _read(p: Path) -> tuple[dict[str, Any], str | None]:
    try:
        raw = p.read_text("utf-8")
    except FileNotFoundError:
        return {}, None
    except OSError as e:
        return {}, f"{p}: cannot read ({e.strerror or e})"
    try:
        data = yaml.safe_load(raw) if _is_yaml(p) else tomllib.loads(raw)
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as e:
        return {}, f"{p}: not valid {'YAML' if _is_yaml(p) else 'TOML'}, using defaults ({str(e).splitlines()[0]})"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, f"{p}: expected a table of settings, using defaults"
    # Settings may sit at the top level or under [claude].
    if isinstance(data.get("claude"), dict):
        data = {**{k: v for k, v in data.items() if k != "claude"}, **data["claude"]}
    return data, None


def load_config(path: str | os.PathLike | None = None) -> UserConfig:
    """The settings from `path` (default `config_path()`), defaults for anything missing or bad."""
    p = Path(path) if path else config_path()
    data, err = _read(p)
    cfg = UserConfig(path=p)
    if err:
        cfg.warnings.append(err)
    for f in _SETTINGS:
        if f.name not in data:
            continue
        v = _coerce(f.name, data[f.name], getattr(cfg, f.name))
        if v is _BAD:
            cfg.warnings.append(f"{p}: {f.name} = {data[f.name]!r} is not valid, using {getattr(cfg, f.name)!r}")
        else:
            setattr(cfg, f.name, v)
    model = os.environ.get("MLTDBG_MODEL", "").strip()
    if model:
        cfg.from_env["model"] = cfg.model      # the file's value, kept when the config is saved
        cfg.model = model
    return cfg


_BAD = object()


def _coerce(name: str, v: Any, default: Any) -> Any:
    if name in _OPTIONAL and v in (None, ""):
        return None
    if name in _CHOICES:
        return v if v in _CHOICES[name] else _BAD
    if name == "time_budget_s" and isinstance(v, str):
        v = parse_duration(v)
        if v is None:
            return _BAD
    kind = type(default) if default is not None else (str if name == "base_url" else float)
    if kind is bool:
        return v if isinstance(v, bool) else _BAD
    if kind in (int, float):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            return _BAD
        return kind(v)
    return v if isinstance(v, str) and v.strip() else _BAD


def parse_duration(s: str) -> float | None:
    """'5 minutes', '90s', '2m', '300' -> seconds (the context package's max_analysis_time)."""
    import re  # noqa: PLC0415 - loaded only on this path, keeps the common path light
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)?\s*", s, re.I)
    if not m:
        return None
    unit = (m.group(2) or "s").lower()
    return float(m.group(1)) * (60 if unit.startswith("m") else 3600 if unit.startswith("h") else 1)


def save_config(cfg: UserConfig, path: str | os.PathLike | None = None) -> Path:
    """Write every setting (atomically: temp file + rename). Keys the file had that we do not know are kept."""
    p = Path(path) if path else (cfg.path or config_path())
    data, _ = _read(p)
    for f in _SETTINGS:
        v = cfg.from_env.get(f.name, getattr(cfg, f.name))
        if v is None:
            data.pop(f.name, None)
        else:
            data[f.name] = v
    text = yaml.safe_dump(data, sort_keys=False) if _is_yaml(p) else _toml(data)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".config.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, p)
    cfg.path = p
    return p


def _toml(data: dict[str, Any]) -> str:
    """Flat settings as TOML (scalars only; nested tables are written back as they were read)."""
    import json  # noqa: PLC0415 - loaded only on this path, keeps the common path light
    lines = ["# mltdbg settings (see `mltdbg diagnose --help`)"]
    tables = []
    for k, v in data.items():
        if isinstance(v, dict):
            tables.append((k, v))
            continue
        lines.append(f"{k} = {_toml_value(v, json)}")
    for name, t in tables:
        lines.append(f"\n[{name}]")
        lines += [f"{k} = {_toml_value(v, json)}" for k, v in t.items() if not isinstance(v, dict)]
    return "\n".join(lines) + "\n"


def _toml_value(v: Any, json) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x, json) for x in v) + "]"
    return json.dumps(str(v))   # a JSON string is a valid TOML basic string


def grant_consent(path: str | os.PathLike | None = None) -> UserConfig:
    """Record that the user agreed to send redacted excerpts and code to Anthropic."""
    cfg = load_config(path)
    if not cfg.consent:
        cfg.consent = True
        save_config(cfg, path)
    return cfg
