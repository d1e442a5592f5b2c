"""W&B reader on offline run folders written by the real wandb SDK (wandb-core 0.31 and the
legacy 0.16 Python backend; tests/fixtures/wandb/make_fixture.py), compared with what
wandb's own reader + protobuf schema decoded from the same files (expected.json)."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import LOC_RECORD, Run
from mltdbg.analyzers.readers import wandb as wb

FIX = Path(__file__).parent / "fixtures" / "wandb"


def _run_dir(kind: str) -> Path:
    (d,) = [p for p in (FIX / kind).iterdir() if p.is_dir()]
    return d


def _expected(kind: str) -> dict[str, list[tuple[int, int, float]]]:
    """key -> [(record, step, value)] from wandb's own decoding, numeric items only."""
    out: dict[str, list] = {}
    for row in json.loads((FIX / kind / "expected.json").read_text()):
        step = int(row["items"]["_step"])
        for k, v in row["items"].items():
            if k.startswith("_"):
                continue
            if v.startswith("{"):                 # legacy SDK: nested dict logged as JSON
                for k2, x in json.loads(v).items():
                    out.setdefault(f"{k}.{k2}", []).append((row["record"], step, float(x)))
                continue
            try:
                x = float(v)
            except ValueError:
                continue
            out.setdefault(k, []).append((row["record"], step, x))
    return out


def _datastore(kind: str) -> Path:
    return next(_run_dir(kind).glob("run-*.wandb"))


@pytest.mark.parametrize("kind", ["core", "legacy"])
def test_history_matches_wandbs_own_decoding(kind):
    run = ingest([_run_dir(kind)])
    assert run.warnings == []
    ours = {s.raw_name: s for s in run.series if s.source.endswith(".wandb")}
    exp = _expected(kind)
    assert set(ours) == set(exp) == {"train/loss", "lr", "grad_norm", "val/loss", "eval.acc"}   # 'blob' is text
    for key, pts in exp.items():
        s = ours[key]
        assert s.loc_kind == LOC_RECORD
        np.testing.assert_array_equal(s.locs, [p[0] for p in pts])
        np.testing.assert_array_equal(s.steps, [p[1] for p in pts])
        np.testing.assert_array_equal(s.values, [p[2] for p in pts])
    loss = run.metric("loss")
    np.testing.assert_array_equal(loss.steps, np.arange(200))
    assert loss.values[77] == 40.0 and np.isnan(loss.values[120:]).all() and np.isfinite(loss.values[:120]).all()
    assert run.metric("grad_norm").values[119] == math.inf
    assert run.metric("val_loss").raw_name == "val/loss"
    assert run.metric("val_accuracy").raw_name == "eval.acc"


@pytest.mark.parametrize("kind", ["core", "legacy"])
def test_config_and_environment_facts(kind):
    run = ingest([_run_dir(kind)])
    facts = {f.name: f for f in run.facts}
    assert facts["lr"].value == 0.05 and facts["lr"].quote == "learning_rate: 0.05"
    assert facts["batch_size"].value == 32 and facts["seed"].value == 1
    assert facts["optimizer"].value == "sgd" and facts["num_layers"].value == 4
    assert facts["python_version"].value == "3.11.7"
    assert len(facts["git_sha"].value) == 40 and facts["git_remote"].value == "https://github.com/example/demo.git"
    assert facts["exit_code"].value == 1
    if kind == "legacy":                      # from files/wandb-metadata.json, with its line
        meta = _run_dir(kind) / "files" / "wandb-metadata.json"
        f = facts["git_sha"]
        assert f.source.endswith("files/wandb-metadata.json")
        assert meta.read_text().splitlines()[f.line - 1].strip() == f.quote
        assert f.value in f.quote


def test_claims_sdk_files_not_output_log():
    d = _run_dir("core")
    out = d / "files" / "output.log"
    assert not wb.sniff(out, out.read_bytes()[:4096])
    assert not wb.sniff(d / "files" / "requirements.txt", b"numpy==2\n")
    for p in (d / "logs").iterdir():
        assert wb.sniff(p, p.read_bytes()[:4096])
    meta = _run_dir("legacy") / "files" / "wandb-metadata.json"
    assert wb.sniff(meta, meta.read_bytes()[:4096])
    assert wb.sniff(_datastore("core"), _datastore("core").read_bytes()[:4096])


def test_truncated_tail_is_silent(tmp_path):
    src = _datastore("core")
    data = src.read_bytes()
    full = Run(root=tmp_path)
    wb.read(src, src.name, full)
    loss_full = next(s for s in full.series if s.name == "loss")
    cut = tmp_path / "run-x.wandb"
    cut.write_bytes(data[: len(data) * 2 // 3])
    run = Run(root=tmp_path)
    wb.read(cut, cut.name, run)
    assert run.warnings == []
    loss = next(s for s in run.series if s.name == "loss")
    assert 0 < len(loss) < len(loss_full)
    np.testing.assert_array_equal(loss.values, loss_full.values[: len(loss)])


def test_bad_checksum_in_middle_warns_once(tmp_path):
    data = bytearray(_datastore("core").read_bytes())
    data[40000] ^= 0xFF
    f = tmp_path / "run-y.wandb"
    f.write_bytes(bytes(data))
    run = Run(root=tmp_path)
    wb.read(f, f.name, run)
    assert len(run.warnings) == 1 and "checksum" in run.warnings[0] and f.name in run.warnings[0]
    loss = next(s for s in run.series if s.name == "loss")
    assert 0 < len(loss) < 200
    np.testing.assert_array_equal(loss.steps, np.arange(len(loss)))


def test_not_a_datastore(tmp_path):
    f = tmp_path / "run-z.wandb"
    f.write_bytes(b"hello world\n" * 10)
    assert not wb.sniff(f, f.read_bytes())
    run = Run(root=tmp_path)
    wb.read(f, f.name, run)
    assert run.series == [] and len(run.warnings) == 1


CONFIG_YAML = """\
wandb_version: 1

_wandb:
  desc: null
  value:
    python_version: 3.10.12
    cli_version: 0.16.6
learning_rate:
  desc: null
  value: 0.0003
batch_size:
  desc: null
  value: 128
optimizer:
  desc: null
  value: adamw
model:
  desc: null
  value:
    depth: 12
    dropout: 0.1
"""


def test_config_yaml_layout_with_lines(tmp_path):
    """files/config.yaml as W&B writes it for online runs; it wins over the .wandb config."""
    d = tmp_path / "wandb" / "run-20240101_000000-abc123"
    shutil.copytree(_run_dir("core"), d)
    (d / "files" / "config.yaml").write_text(CONFIG_YAML)
    run = ingest([tmp_path / "wandb"])
    assert run.warnings == []
    lr = [f for f in run.facts if f.name == "lr"]
    assert len(lr) == 1 and lr[0].value == 0.0003 and lr[0].line == 10 and lr[0].quote == "value: 0.0003"
    assert run.fact("batch_size").value == 128 and run.fact("optimizer").value == "adamw"
    assert run.fact("dropout").value == 0.1 and run.fact("dropout").line == 21
    assert run.fact("batch_size").quote == "value: 128"
    assert run.fact("cli_version") is None and run.fact("wandb_version") is None


def test_summary_values_are_read_only_without_a_datastore(tmp_path):
    """A post often shares a run's files/ alone: wandb-summary.json (the last value of each key) is
    then all there is, and a NaN there is the failure's only trace. Its numbers become one-point
    series (nested keys by their path), cited at their line; beside a .wandb datastore, whose history
    holds every point, the summary adds nothing."""
    from mltdbg.analyzers.curves import curve_signals
    files = tmp_path / "wandb" / "run-20240101_000000-abc123" / "files"
    files.mkdir(parents=True)
    (files / "wandb-summary.json").write_text(
        '{"_runtime": 50, "_step": 100, "_wandb": {"runtime": 50},\n "loss": 0.5,\n "val_loss": NaN,\n'
        ' "train": {"acc": 0.9}, "samples": {"_type": "table-file", "path": "t.json"}, "done": true}\n')
    run = ingest([str(tmp_path)])
    got = {(s.name, s.raw_name, int(s.steps[0]), int(s.locs[0])): s.values[0] for s in run.series}
    assert set(got) == {("loss", "loss", 100, 2), ("val_loss", "val_loss", 100, 3), ("accuracy", "train.acc", 100, 4)}
    assert math.isnan(got[("val_loss", "val_loss", 100, 3)]) and not run.warnings
    assert any(s.kind in ("nonfinite", "val_nonfinite_only") for s in curve_signals(run))
    (files / "wandb-summary.json").write_text("{not json")
    bad = ingest([str(tmp_path)])
    assert not bad.series and bad.warnings == [
        "wandb/run-20240101_000000-abc123/files/wandb-summary.json: not valid JSON (Expecting property name "
        "enclosed in double quotes: line 1 column 2 (char 1)); its final values not read"]
    # beside the datastore: the history's series only
    d = tmp_path / "with" / _run_dir("core").name
    shutil.copytree(_run_dir("core"), d)
    before = [(s.name, len(s)) for s in ingest([str(d)]).series]
    (d / "files" / "wandb-summary.json").write_text('{"_step": 9, "loss": NaN}\n')
    assert [(s.name, len(s)) for s in ingest([str(d)]).series] == before


def test_a_class_count_in_the_config_under_another_name_is_read(tmp_path):
    """files/config.yaml names the class count `n_classes` (the config reader's synonym of num_classes). A loss
    that flattens at log(e + 9) - 1 = 1.46 while the training accuracy reaches 0.999 is then cross-entropy fed
    probabilities for 10 classes: double_softmax, a finding. The first epoch's mean (2.15) is too far below
    ln 10 to give K by itself; without the config's count the level beside a near-perfect accuracy names K, a
    weaker reading (no finding)."""
    from mltdbg.playbooks.diagnose import diagnose
    files = tmp_path / "wandb" / "run-20240506_093027-gr3thd9j" / "files"
    files.mkdir(parents=True)
    floor = math.log(math.e + 9) - 1
    rows = []
    for i in range(60):
        loss = floor + 0.0004 + (2.1538 - floor) * math.exp(-i / 2.5)
        acc = 0.999 - 0.474 * math.exp(-i / 2.0)
        rows.append(json.dumps({"_step": i, "train/loss": loss, "train/accuracy": acc, "val/loss": loss + 0.02,
                                "val/accuracy": acc - 0.02, "epoch": i + 1}))
    (files / "wandb-history.jsonl").write_text("\n".join(rows) + "\n")
    config = "wandb_version: 1\n\nepochs:\n  desc: null\n  value: 60\nlr:\n  desc: null\n  value: 0.001\n" \
             "n_classes:\n  desc: null\n  value: 10\n"
    (files / "config.yaml").write_text(config)
    symptom = ["Accuracy looks great but the cross-entropy loss won't go below ~1.46 no matter how long it trains"]
    run = ingest([str(tmp_path)])
    assert run.fact("num_classes").value == 10
    top = diagnose([str(tmp_path)], symptom).hypotheses[0]
    assert top.id == "double_softmax" and top.confidence >= 0.8
    # without the config's count the level itself names K = 10 (1 + e (e^1.4616 - 1) = 10.0) beside 0.999 accuracy:
    # double_softmax still leads, but below a finding
    (files / "config.yaml").write_text(config.replace("n_classes", "n_colours"))
    top = diagnose([str(tmp_path)], symptom).hypotheses[0]
    assert top.id == "double_softmax" and top.confidence < 0.8
