"""The user config (model, budgets, consent) and engine selection: auto / claude / offline."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mltdbg.playbooks.claude import ClaudeEngine, select_engine
from mltdbg.playbooks.engine import OfflineEngine
from mltdbg.playbooks.userconfig import (
    DEFAULT_MODEL,
    UserConfig,
    config_path,
    grant_consent,
    load_config,
    parse_duration,
    save_config,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.delenv("MLTDBG_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def test_path_follows_xdg_then_env_override(tmp_path, monkeypatch):
    assert config_path() == tmp_path / "xdg" / "mltdbg" / "config.toml"
    (tmp_path / "xdg" / "mltdbg").mkdir(parents=True)
    (tmp_path / "xdg" / "mltdbg" / "config.yaml").write_text("model: claude-haiku-4-5\n")
    assert config_path().name == "config.yaml" and load_config().model == "claude-haiku-4-5"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert config_path() == tmp_path / "home" / ".config" / "mltdbg" / "config.toml"
    monkeypatch.setenv("MLTDBG_CONFIG", str(tmp_path / "mine.toml"))
    assert config_path() == tmp_path / "mine.toml"


def test_defaults_when_missing_and_round_trip(tmp_path):
    p = tmp_path / "c.toml"
    c = load_config(p)
    assert (c.model, c.time_budget_s, c.consent, c.warnings) == (DEFAULT_MODEL, 300.0, False, [])
    c.model, c.token_budget, c.time_budget_s = "claude-opus-4-7", 50_000, 120.0
    save_config(c, p)
    p.write_text(p.read_text() + 'theme = "dark"\n')      # a key we do not know survives a save
    c2 = load_config(p)
    assert (c2.model, c2.token_budget, c2.time_budget_s) == ("claude-opus-4-7", 50_000, 120.0)
    grant_consent(p)
    assert load_config(p).consent is True and 'theme = "dark"' in p.read_text()


def test_bad_values_warn_and_keep_defaults(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('time_budget_s = "5 minutes"\ntoken_budget = -3\nconsent = "yes"\n[claude]\nmodel = "claude-sonnet-4-6"\n')
    c = load_config(p)
    assert c.time_budget_s == 300.0 and c.model == "claude-sonnet-4-6"
    assert c.token_budget == UserConfig().token_budget and c.consent is False
    assert len(c.warnings) == 2 and all(str(p) in w for w in c.warnings)
    p.write_text("model = [unclosed")
    c = load_config(p)
    assert c.model == DEFAULT_MODEL and "not valid TOML" in c.warnings[0]


def test_effort_and_thinking_display_are_checked(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('effort = "medium"\nthinking_display = "omitted"\n')
    c = load_config(p)
    assert (c.effort, c.thinking_display, c.warnings) == ("medium", "omitted", [])
    p.write_text('effort = "extreme"\nthinking_display = "loud"\n')
    c = load_config(p)
    assert (c.effort, c.thinking_display) == (None, "summarized") and len(c.warnings) == 2


def test_mltdbg_model_overrides_the_file_for_the_run_and_is_never_saved(tmp_path, monkeypatch):
    p = tmp_path / "c.toml"
    p.write_text('model = "claude-opus-5-5"\n')
    monkeypatch.setenv("MLTDBG_MODEL", "claude-haiku-5-5")
    c = load_config(p)
    assert c.model == "claude-haiku-5-5"
    grant_consent(p)                                       # saves the config
    monkeypatch.delenv("MLTDBG_MODEL")
    assert load_config(p).model == "claude-opus-5-5" and load_config(p).consent is True


def test_prices_per_model_id_and_overrides():
    from mltdbg.playbooks.claude.cost import (  # noqa: PLC0415 - the price table, only here
        MODELS,
        PRICES_CHECKED,
        Usage,
        model_info,
        pricing_for,
    )
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", PRICES_CHECKED)
    s55 = MODELS["claude-sonnet-5-5"].price
    assert (s55.input, s55.output) == (2.0, 10.0)             # not Sonnet 4's $3/$15
    assert (MODELS["claude-opus-5-5"].price.input, MODELS["claude-opus-5-5"].price.output) == (4.0, 20.0)
    assert (MODELS["claude-haiku-4-5"].price.input, MODELS["claude-haiku-4-5"].price.output) == (1.0, 5.0)

    class U:   # a response's usage block
        def __init__(self, i, o, cw=0, cr=0):
            self.input_tokens, self.output_tokens = i, o
            self.cache_creation_input_tokens, self.cache_read_input_tokens = cw, cr
    u = Usage()
    u.add(U(1000, 100, cw=2000, cr=10_000), pricing_for(MODELS["claude-sonnet-5-5"], UserConfig()))
    assert u.cost == pytest.approx((1000 * 2 + 2000 * 2.5 + 10_000 * 0.10 + 100 * 10) / 1e6)
    assert u.budget == pytest.approx(1000 + 100 + 2000 * 1.25 + 10_000 * 0.05)
    # Haiku 5.5 bills a request whose prompt is over 100,000 tokens at its long-prompt rates.
    h = pricing_for(MODELS["claude-haiku-5-5"], UserConfig())
    short, long_ = Usage(), Usage()
    short.add(U(50_000, 1000), h)
    long_.add(U(150_000, 1000), h)
    assert short.cost == pytest.approx((50_000 * 0.10 + 1000 * 0.50) / 1e6)
    assert long_.cost == pytest.approx((150_000 * 0.50 + 1000 * 2.50) / 1e6)
    # The config overrides the table; an unknown model has no price unless the config gives one.
    own = pricing_for(MODELS["claude-sonnet-5-5"], UserConfig(price_in_per_mtok=1.0, price_out_per_mtok=4.0))
    assert (own.base.input, own.base.output, own.base.read) == (1.0, 4.0, 0.1)
    assert pricing_for(model_info("claude-x"), UserConfig()).base is None
    assert pricing_for(model_info("claude-x"), UserConfig(price_in_per_mtok=3, price_out_per_mtok=9)).base.output == 9


def test_yaml_config_and_durations(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("time_budget_s: 90s\nconsent: true\n")
    c = load_config(p)
    assert c.time_budget_s == 90 and c.consent
    save_config(c, p)
    assert "time_budget_s: 90.0" in p.read_text()
    assert [parse_duration(s) for s in ("5 minutes", "2m", "300", "1.5h", "soon")] == [300, 120, 300, 5400, None]


def test_auto_is_offline_without_key_or_consent_and_says_how_to_enable(tmp_path):
    p = tmp_path / "c.toml"
    eng, notice = select_engine("auto", load_config(p), env={})
    assert isinstance(eng, OfflineEngine) and "ANTHROPIC_API_KEY" in notice and "--engine claude" in notice
    eng, notice = select_engine("auto", load_config(p), env={"ANTHROPIC_API_KEY": "k"})
    assert isinstance(eng, OfflineEngine) and "agreed" in notice
    grant_consent(p)
    eng, notice = select_engine("auto", load_config(p), env={"ANTHROPIC_API_KEY": "k"})
    assert isinstance(eng, ClaudeEngine) and notice is None
    assert select_engine("offline", load_config(p), env={"ANTHROPIC_API_KEY": "k"})[1] is None


def test_explicit_claude_stores_consent(tmp_path):
    p = tmp_path / "c.toml"
    eng, notice = select_engine("claude", load_config(p), env={})
    assert isinstance(eng, OfflineEngine) and "ANTHROPIC_API_KEY is not set" in notice
    assert load_config(p).consent is True                  # asked once, remembered
    eng, _ = select_engine("claude", load_config(p), env={"ANTHROPIC_API_KEY": "k"})
    assert isinstance(eng, ClaudeEngine)
    with pytest.raises(ValueError):
        select_engine("gpt", load_config(p), env={})


def _cli(args, env, cwd):
    return subprocess.run([sys.executable, "-m", "mltdbg.app.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def _mlflow_run(root: Path) -> Path:
    """An MLflow file-store run (mlruns/0/<id>/metrics/loss: `timestamp value step` lines) whose loss diverges."""
    m = root / "mlruns" / "0" / "abc"
    (m / "metrics").mkdir(parents=True)
    (root / "mlruns" / "0" / "meta.yaml").write_text('name: Default\nexperiment_id: "0"\nlifecycle_stage: active\n')
    (m / "meta.yaml").write_text('run_id: abc\nexperiment_id: "0"\nstatus: 3\nlifecycle_stage: active\n')
    (m / "metrics" / "loss").write_text("".join(
        f"{1700000000000 + i} {2.3 * 0.99 ** i + (0 if i < 150 else 2 ** ((i - 150) / 5))} {i}\n" for i in range(300)))
    return root / "mlruns"


def _env(tmp_path, **kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path / "home"), **kw)
    return env


def test_cli_engine_auto_and_context_package(tmp_path):
    """`mltdbg diagnose` (auto) with no key: the offline result on stdout (valid JSON), the
    how-to-enable line on stderr; `--context` reads the spec's context package, its paths
    relative to the package file."""
    _mlflow_run(tmp_path / "proj")
    pkg = tmp_path / "proj" / "ctx.json"
    pkg.write_text(json.dumps({"task": "Diagnose training failure", "artifacts": {"loss_curves": "mlruns"},
                               "symptoms": ["Loss diverged"], "constraints": {"max_analysis_time": "5 minutes"}}))
    r = _cli(["diagnose", "--context", str(pkg), "--json"], _env(tmp_path), cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["engine"] == "offline" and "ANTHROPIC_API_KEY" in r.stderr
    r = _cli(["diagnose", "--engine", "offline", "--context", str(pkg), "--json"], _env(tmp_path), cwd=REPO)
    assert r.returncode == 0 and "ANTHROPIC_API_KEY" not in r.stderr


def test_cli_engine_claude_respects_base_url_stores_consent_and_merges(tmp_path):
    from fake_anthropic_server import FakeAnthropic, submit, tool_use
    runs = _mlflow_run(tmp_path / "proj")
    rc = {"id": "lr_too_high", "issue": "loss climbs from step 150", "severity": "critical", "confidence": 0.7,
          "evidence": [{"text": "loss at step 0", "metric": "loss", "step": 0, "value": 2.3}],
          "check": "rerun with half the lr", "fix": "halve the lr once confirmed"}
    with FakeAnthropic() as srv:
        srv.push(tool_use([("metric_summary", {"metric": "loss"})]),
                 submit({"status": "needs_more_data", "root_causes": [rc], "needs": ["the lr"]}))
        env = _env(tmp_path, ANTHROPIC_API_KEY="sk-ant-api03-" + "x" * 40, ANTHROPIC_BASE_URL=srv.url)
        r = _cli(["diagnose", str(runs), "--engine", "claude", "--json"], env, cwd=REPO)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["engine"] == "merged" and len(srv.requests) == 2
    assert {c["engine"] for c in out["root_causes"]} & {"claude", "offline+claude"}
    assert load_config(tmp_path / "xdg" / "mltdbg" / "config.toml").consent is True


def test_cli_model_flag_and_env_pick_the_model(tmp_path):
    from fake_anthropic_server import FakeAnthropic, submit
    runs = _mlflow_run(tmp_path / "proj")
    rc = {"id": "lr_too_high", "issue": "loss climbs from step 150", "severity": "critical", "confidence": 0.7,
          "evidence": [{"text": "loss at step 0", "metric": "loss", "step": 0, "value": 2.3}],
          "check": "rerun with half the lr", "fix": "halve the lr once confirmed"}
    ans = {"status": "needs_more_data", "root_causes": [rc], "needs": ["the lr"]}
    with FakeAnthropic() as srv:
        srv.push(submit(ans), submit(ans))
        env = _env(tmp_path, ANTHROPIC_API_KEY="sk-ant-api03-" + "x" * 40, ANTHROPIC_BASE_URL=srv.url,
                   MLTDBG_MODEL="claude-opus-5-5")
        r1 = _cli(["diagnose", str(runs), "--engine", "claude", "--json", "--model", "claude-haiku-4-5"], env, cwd=REPO)
        r2 = _cli(["diagnose", str(runs), "--engine", "claude", "--json"], env, cwd=REPO)
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    assert [r["body"]["model"] for r in srv.requests] == ["claude-haiku-4-5", "claude-opus-5-5"]
    assert srv.refused == [] and json.loads(r2.stdout)["engine"] == "merged"
