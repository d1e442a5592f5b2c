"""Probes and the rest of mltdbg: results as evidence in `diagnose` (verified, analysis_artifacts), probe
checks offered by the offline engine that run as is, the probe_ran session event, the result reader's
bad input, and the TUI widget."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from mltdbg.analyzers.probes import results
from mltdbg.playbooks import library
from mltdbg.playbooks.diagnose import context_for
from mltdbg.playbooks.probe_checks import probe_command
from mltdbg.sessions.session import Session
from mltdbg.sessions.state import fold
from probe_helpers import MODELS, probe
from repo_helpers import make_repo

BIN = str(Path(sys.executable).parent)
TRAIN = '''
from model import TinyLM

model = TinyLM()
for step in range(10):
    print(f"step={step} loss=7.0")
'''


def _mltdbg(cwd, *args, timeout=180):
    env = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", "")}
    return subprocess.run([sys.executable, "-m", "mltdbg.app.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("eng") / "lm", {"model.py": MODELS, "train.py": TRAIN,
                                                             "train.log": "".join(f"step={i} loss=7.0\n" for i in range(10))})


def _colon_log() -> str:
    """The spec's example 2: the loss flattens high and samples are colons only."""
    import math
    lines = []
    for i in range(0, 2000, 50):
        lines.append(f"step={i} loss={8.7 - 2.0 * (1 - math.exp(-i / 150)):.4f}")
        if i % 500 == 0 and i:
            lines.append("sample: " + ":" * 40)
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def colon_repo(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("spec2") / "lm", {"model.py": MODELS.split("def deep_sigmoid")[0],
                                                               "train.py": TRAIN, "train.log": _colon_log()})


def test_the_spec_case_probe_offered_run_as_is_then_evidence(colon_repo):
    repo = colon_repo
    r = _mltdbg(repo, "diagnose", ".", "--symptom", "model only outputs colons", "--engine", "offline", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    h = next(h for h in d["root_causes"] if h["id"] == "architecture_imbalance")
    assert h["confidence"] < 0.5 and h["check_command"] == "mltdbg probe params model.py:TinyLM"
    env = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", "")}
    run = subprocess.run(h["check_command"], shell=True, cwd=repo, capture_output=True, text=True, timeout=180, env=env)
    assert run.returncode == 0, run.stderr
    assert "param_imbalance" in run.stdout and "79.1%" in run.stdout
    out = Path(run.stdout.strip().splitlines()[-1].removeprefix("result: "))
    assert out.parent == repo / ".mltdbg" / "probes" and out.is_file()
    assert "/.mltdbg/" in (repo / ".git" / "info" / "exclude").read_text()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == ""
    # with the probe's result the same run is diagnosed as the imbalance, above the bar
    r = _mltdbg(repo, "diagnose", ".", "--probe-results", str(out.relative_to(repo)), "--symptom",
                "model only outputs colons", "--engine", "offline", "--json")
    d = json.loads(r.stdout)
    top = d["root_causes"][0]
    assert top["id"] == "architecture_imbalance" and top["confidence"] >= 0.8, d["root_causes"][:2]
    assert any(e["verified"] and e["source"] == str(out.relative_to(repo)) for e in top["evidence"])


def test_probe_results_become_verified_evidence_and_an_analysis_artifact(repo):
    (repo / "runs").mkdir(exist_ok=True)
    r = _mltdbg(repo, "probe", "params", "model.py:TinyLM", "--out", "runs/p.json")
    assert r.returncode == 0, r.stderr
    res = _mltdbg(repo, "diagnose", "--probe-results", "runs/p.json", "--engine", "offline", "--json")
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    jsonschema.validate(d, library.diagnosis_schema())
    top = d["root_causes"][0]
    assert top["id"] == "architecture_imbalance" and top["confidence"] >= 0.8 and d["status"] == "diagnosis_complete"
    ev = top["evidence"][0]
    assert ev["verified"] is True and ev["source"] == "p.json" and "79.1%" in ev["quote"]
    lines = (repo / "runs" / "p.json").read_text().splitlines()
    assert ev["quote"] in lines[ev["line"] - 1]
    md = Path(d["analysis_artifacts"]["parameter_analysis"])
    assert md.is_file() and md.parent == repo / ".mltdbg" / "probes" / "analysis"
    text = md.read_text()
    assert "| embeddings |" in text and "embed.weight = lm_head.weight" in text
    assert f"wrote parameter_analysis: {md}" in res.stderr


def test_a_gradients_result_ranks_vanishing_and_writes_the_gradient_analysis(repo, tmp_path):
    r = probe(repo, "gradients", "model.py:deep_sigmoid")
    res = _mltdbg(repo, "diagnose", str(r.out), "--engine", "offline", "--json")
    d = json.loads(res.stdout)
    assert d["root_causes"][0]["id"] == "vanishing_gradients" and d["root_causes"][0]["evidence"][0]["verified"]
    text = Path(d["analysis_artifacts"]["gradient_analysis"]).read_text()
    assert "### Per-layer gradient norm (forward order, log scale)" in text
    assert "| 0 | Linear |" in text and "########################################" in text


@pytest.mark.parametrize("cause, files, facts, want", [
    ("host_oom", {}, "", "mltdbg probe box"),
    ("data_leakage", {"data/train.npy": 1, "data/val.npy": 1}, "", "mltdbg probe data data/train.npy --val data/val.npy"),
    ("label_out_of_range", {"data/train.npy": 1}, "num_classes: 10\n", "mltdbg probe data data/train.npy --num-classes 10"),
    ("label_out_of_range", {"data/train.npy": 1}, "", None),     # without the class count: the playbook's own check
    ("wrong_checkpoint", {"ckpt/last.pt": 2}, "", "mltdbg probe checkpoint ckpt/last.pt --target model.py:TinyLM"),
    ("cuda_oom", {}, "batch_size: 1024\n", "mltdbg probe memory model.py:TinyLM --batch auto --batch-size 256"),
    ("vanishing_gradients", {}, "", "mltdbg probe gradients model.py:TinyLM --batch auto"),
    ("numerical_instability", {}, "", "mltdbg probe nan-hunt model.py:TinyLM --batch auto --steps 50"),
    ("overfitting", {}, "", None),
])
def test_probe_check_commands_for_the_causes_they_fit(tmp_path, cause, files, facts, want):
    import torch
    d = make_repo(tmp_path / "r", {"model.py": "import torch.nn as nn\n\nclass Block(nn.Module):\n    def __init__(self, d=4):\n"
                                                "        super().__init__()\n\n\nclass TinyLM(nn.Module):\n"
                                                "    def __init__(self, d=8):\n        super().__init__()\n        self.b = Block(d)\n",
                                   "train.log": "step=1 loss=2.0\nstep=2 loss=1.9\n", "config.yaml": facts or "seed: 0\n"}, init=True)
    for rel, kind in files.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        np.save(d / rel, np.zeros(3)) if kind == 1 else torch.save({"w": torch.zeros(2)}, d / rel)
    ctx = context_for([str(d)], repo_root=d)
    assert probe_command(cause, ctx) == want


def test_probe_ran_is_recorded_in_the_session(repo):
    with Session.create(repo, name="probes") as s:
        sid = s.id
    r = _mltdbg(repo, "probe", "params", "model.py:FrozenEncoder", "--session", sid)
    assert r.returncode == 0, r.stderr
    s = Session.open(sid, repo_root=repo, readonly=True)
    ev = [e for e in s.events if e.type == "probe_ran"]
    assert len(ev) == 1
    st = fold(s.events)
    p = st.probes[0]
    assert p["probe"] == "params" and p["status"] == "ok" and p["target"] == "model.py:FrozenEncoder"
    assert p["result_file"].startswith(".mltdbg/probes/params-") and (repo / p["result_file"]).is_file()
    assert [f["kind"] for f in p["findings"]] == ["frozen_params"]
    from mltdbg.sessions.export import describe
    assert "params model.py:FrozenEncoder: ok" in describe(ev[0], st) and "frozen_params" in describe(ev[0], st)


def test_the_result_reader_names_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="x.json: not a probe result"):
        results.parse('{"a": 1}', "x.json")
    with pytest.raises(ValueError, match="format 9; this mltdbg reads 1"):
        results.parse('{"mltdbg_probe": 9, "probe": "box"}', "y.json")
    with pytest.raises(ValueError, match="z.json: not valid JSON"):
        results.parse('{"mltdbg_probe": 1, ', "z.json")


def test_the_widget_shows_the_table_and_the_bar_chart_as_plain_text(repo, tmp_path):
    from mltdbg.app.widgets.probe import ProbeView
    from textual.app import App
    r = probe(repo, "gradients", "model.py:deep_sigmoid")
    pr = r.result
    pr.result["layers"][0]["layer"] = "[bold red]0\x1b[31m"          # untrusted module name: stays text
    shown = {}

    class A(App):
        def compose(self):
            yield ProbeView(pr)

    async def go():
        app = A()
        async with app.run_test(size=(110, 60)) as pilot:
            await pilot.pause()
            from rich.console import Console
            c = Console(width=110, record=True, color_system=None)
            c.print(app.query_one(ProbeView).render())
            shown["text"] = c.export_text()
    asyncio.run(go())
    text = shown["text"]
    assert "probe gradients" in text and "grad_vanish" in text
    assert "[bold red]0[31m" in text and "\x1b" not in text
    assert "per-layer gradient norm (log scale)" in text and "█" in text
    assert "1e-12" in text and "1e0" in text        # the log axis, labelled in powers of ten


@pytest.mark.parametrize("case, want", [("leak", "data_leakage"), ("raw", "unnormalized_inputs")])
def test_a_data_probe_result_ranks_its_cause_first(tmp_path, case, want):
    """probe:data_leak and probe:unnormalized carry playbook weights: the data probe alone moves the cause."""
    rng = np.random.default_rng(0)
    d = make_repo(tmp_path / "r", {"train.py": "print('step=1 loss=2.0')\n"}, init=True)
    (d / "data").mkdir()
    (d / "runs").mkdir()
    x = rng.normal(size=(200, 3, 8, 8)).astype(np.float32)
    args = ["data/train.npz", "--num-classes", "10"]
    if case == "leak":      # 10 of 40 validation rows are byte-identical training rows; inputs standardised
        np.savez(d / "data" / "train.npz", x=x, y=rng.integers(0, 10, 200))
        val = np.concatenate([x[:10], rng.normal(size=(30, 3, 8, 8)).astype(np.float32)])
        np.savez(d / "data" / "val.npz", x=val, y=rng.integers(0, 10, 40))
        args += ["--val", "data/val.npz"]
    else:                   # raw 0-255 pixels cast to float
        np.savez(d / "data" / "train.npz", x=rng.integers(0, 256, size=(200, 3, 8, 8)).astype(np.float32),
                 y=rng.integers(0, 10, 200))
    r = _mltdbg(d, "probe", "data", *args, "--out", "runs/data.json")
    assert r.returncode == 0, r.stderr
    kind = {"leak": "data_leak", "raw": "unnormalized"}[case]
    phrase = {"leak": "10 of 40 validation samples (25.0%)", "raw": "x is not normalised: values 0..255"}[case]
    assert f"! {kind} " in r.stdout
    res = _mltdbg(d, "diagnose", "--probe-results", "runs/data.json", "--engine", "offline", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    jsonschema.validate(out, library.diagnosis_schema())
    ranked = [h["id"] for h in out["root_causes"]]
    top = out["root_causes"][0]
    assert ranked[0] == want, out["root_causes"]
    ev = top["evidence"][0]
    assert ev["verified"] is True and ev["source"] == "data.json" and phrase in ev["quote"]
    if case == "leak":      # the hash overlap is the playbook's own check: confirmed
        assert top["confidence"] >= 0.8 and out["status"] == "diagnosis_complete"
    md = Path(out["analysis_artifacts"]["data_analysis"])
    assert md.is_file() and md.parent == d / ".mltdbg" / "probes" / "analysis"
