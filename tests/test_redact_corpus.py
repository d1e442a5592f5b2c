"""Redaction against the adversarial corpus (tests/adversarial/secrets.jsonl, not_secrets.txt): every
secret shape is masked with its context kept, and ML vocabulary comes through unchanged."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mltdbg.analyzers.common.redact import MASK, redact, redact_obj

ADV = Path(__file__).resolve().parent / "adversarial"
CASES = [json.loads(x) for x in (ADV / "secrets.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
BENIGN = [x for x in (ADV / "not_secrets.txt").read_text(encoding="utf-8").splitlines() if x and not x.startswith("#")]


def test_the_corpus_covers_the_shapes_the_issue_names():
    shapes = {c["shape"] for c in CASES}
    assert len(shapes) == len(CASES) >= 30
    for needed in ("wandb_login_cli", "yaml_quoted_with_spaces", "argv_list_json", "netrc_one_line", "netrc_multi_line",
                   "url_userinfo", "env_dump", "cli_flag_space"):
        assert needed in shapes


@pytest.mark.parametrize("case", CASES, ids=[c["shape"] for c in CASES])
def test_secret_gone_context_kept(case):
    out = redact(case["text"])
    assert case["secret"] not in out and MASK in out, out
    assert case["keep"] in out, out
    assert redact(out) == out                     # a redacted log re-redacts to itself


@pytest.mark.parametrize("text", BENIGN)
def test_ml_vocabulary_is_not_redacted(text):
    assert redact(text) == text


def test_a_quoted_password_with_spaces_is_masked_whole():
    assert redact('password: "correct horse battery staple"') == f'password: "{MASK}"'
    assert redact("password: correct horse battery staple  # old") == f"password: {MASK}  # old"


def test_structured_values_too():
    obj = {"argv": ["python", "train.py", "--api_key", "abcd1234efgh5678ijkl"], "auth": "dXNlcjpnaHBfYWJjZGVmZ2hp",
           "pad_token": "<pad>", "netrc": "machine api.wandb.ai login u password abcdef0123456789"}
    out = redact_obj(obj)
    assert out["argv"] == ["python", "train.py", "--api_key", MASK]     # the item after the flag
    assert out["auth"] == MASK and out["pad_token"] == "<pad>" and "abcdef0123456789" not in out["netrc"]
    assert "abcd1234efgh5678ijkl" not in redact(json.dumps(obj["argv"]))     # and as text
    assert redact_obj(["--max-tokens", "512", "--hub_token", "$HF_TOKEN"]) == \
        ["--max-tokens", "512", "--hub_token", "$HF_TOKEN"]
