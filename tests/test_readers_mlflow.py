"""MLflow reader on stores written by the real mlflow (fixtures from
tests/fixtures/mlflow/make_fixture.py, plus a file store written live)."""
from __future__ import annotations

import gzip
import hashlib
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import LOC_LINE, LOC_RECORD, Run
from mltdbg.analyzers.readers import mlflow as mlr

FIX = Path(__file__).parent / "fixtures" / "mlflow"
NAN_STEP = 30


@pytest.fixture()
def db(tmp_path) -> Path:
    p = tmp_path / "mlflow.db"
    p.write_bytes(gzip.decompress((FIX / "mlflow.db.gz").read_bytes()))
    return p


def _by_raw(run: Run) -> dict:
    return {s.raw_name: s for s in run.series}


def _check_two_runs(run: Run, loc_kind: str) -> None:
    s = _by_raw(run)
    assert {"train/loss (run baseline)", "train/loss (run diverged)", "val_loss (run diverged)",
            "grad_norm (run diverged)", "lr (run baseline)"} <= set(s)
    div = s["train/loss (run diverged)"]
    assert div.name == "loss" and div.loc_kind == loc_kind
    np.testing.assert_array_equal(div.steps, np.arange(50))
    assert np.isnan(div.values[NAN_STEP:]).all() and np.isfinite(div.values[:NAN_STEP]).all()
    assert div.values[0] == pytest.approx(2.1)
    assert s["val_loss (run diverged)"].name == "val_loss"
    assert s["grad_norm (run diverged)"].values.tolist() == [math.inf]
    assert s["grad_norm (run baseline)"].values.tolist() == [1.0]
    lrs = sorted(f.value for f in run.facts if f.name == "lr")
    assert lrs == [3e-4, 3e-2]
    names = {f.name for f in run.facts}
    assert {"lr", "batch_size", "seed", "optimizer", "epochs", "hidden_width", "git_sha"} <= names
    assert {f.value for f in run.facts if f.name == "optimizer"} == {"adamw"}
    assert {f.value for f in run.facts if f.name == "batch_size"} == {64}


def test_file_store_fixture(tmp_path):
    root = tmp_path / "mlruns"
    shutil.copytree(FIX / "mlruns", root)
    run = ingest([root])
    assert run.warnings == []
    _check_two_runs(run, LOC_LINE)
    div = _by_raw(run)["train/loss (run diverged)"]
    assert div.source.endswith("metrics/train/loss")
    # locs are line numbers of the metric file
    lines = (root / div.source).read_text().splitlines()
    assert lines[int(div.locs[NAN_STEP]) - 1].split()[1] == "nan"
    fact = next(f for f in run.facts if f.name == "lr" and f.value == 3e-2)
    assert fact.source.endswith("params/learning_rate") and fact.line == 1 and fact.quote == "0.03"
    # meta.yaml of each run and the param/tag files are claimed by this reader, not left as text
    assert not [t for t in run.texts if "/metrics/" in t.path or "/params/" in t.path]


def test_sqlite_store_fixture_matches_file_store(db, tmp_path):
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    assert mlr.sniff(db, db.read_bytes()[:4096])
    run = Run(root=tmp_path)
    mlr.read(db, "mlflow.db", run)
    assert run.warnings == []
    _check_two_runs(run, LOC_RECORD)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before     # opened read-only
    files = ingest([FIX / "mlruns"])
    ours = _by_raw(run)
    for raw, s in _by_raw(files).items():
        np.testing.assert_array_equal(ours[raw].steps, s.steps)
        np.testing.assert_array_equal(ours[raw].values, s.values)


def test_sqlite_single_run_plain_names(db, tmp_path):
    import sqlite3
    con = sqlite3.connect(db)
    keep = con.execute("SELECT run_uuid FROM runs WHERE name='diverged'").fetchone()[0]
    for table in ("metrics", "params", "tags", "latest_metrics"):
        con.execute(f"DELETE FROM {table} WHERE run_uuid != ?", (keep,))
    con.commit()
    con.close()
    run = Run(root=tmp_path)
    mlr.read(db, "mlflow.db", run)
    loss = _by_raw(run)["train/loss"]
    assert np.isnan(loss.values[NAN_STEP]) and len(loss) == 50
    assert len(np.unique(loss.locs)) == 50


def test_live_file_store_nan(tmp_path, monkeypatch):
    mlflow = pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri("file:" + str(tmp_path / "mlruns"))
    mlflow.set_experiment("live")
    with mlflow.start_run(run_name="one"):
        mlflow.log_param("lr", 0.1)
        for s in range(20):
            mlflow.log_metric("loss", float("nan") if s == 11 else 1.0 / (s + 1), step=s * 10)
    mlflow.set_tracking_uri("")
    run = ingest([tmp_path / "mlruns"])
    loss = run.metric("loss")
    assert loss.raw_name == "loss"
    np.testing.assert_array_equal(loss.steps, np.arange(20) * 10)
    assert np.isnan(loss.values[11]) and np.isnan(loss.values).sum() == 1
    assert run.fact("lr").value == 0.1


def test_bad_metric_line_warns_and_keeps_rest(tmp_path):
    run_dir = tmp_path / "mlruns" / "1" / "abc"
    (run_dir / "metrics").mkdir(parents=True)
    (run_dir / "meta.yaml").write_text("run_id: abc\nrun_name: x\n")
    (run_dir / "metrics" / "loss").write_text("1000 1.5 0\n1001 oops 1\n1002 1.2 2\n1003 1.1\n1004 inf 4\n")
    run = ingest([tmp_path / "mlruns"])
    loss = run.metric("loss")
    assert loss.steps.tolist() == [0, 2, 4] and loss.locs.tolist() == [1, 3, 5]
    assert loss.values[-1] == math.inf
    assert len(run.warnings) == 2 and run.warnings[0].startswith("1/abc/metrics/loss:2:")


def test_sniff_rejects_lookalikes(tmp_path):
    d = tmp_path / "metrics"
    d.mkdir()
    (d / "notes.txt").write_text("accuracy went up today\n")
    assert not mlr.sniff(d / "notes.txt", (d / "notes.txt").read_bytes())
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "x").write_text("3")
    assert not mlr.sniff(tmp_path / "params" / "x", b"3")   # no meta.yaml: not a run folder
    other = tmp_path / "other.db"
    import sqlite3
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE metrics(a, b)")
    con.commit()
    con.close()
    assert not mlr.sniff(other, other.read_bytes()[:4096])


def test_fact_names():
    assert mlr.fact_name("learning_rate") == "lr"
    assert mlr.fact_name("optimizer.lr") == "lr"
    assert mlr.fact_name("train/batch_size") == "batch_size"
    # the config reader's synonyms too (one table of setting names): a tracker's n_classes is the class count
    assert mlr.fact_name("hidden_dim") == "hidden_width" and mlr.fact_name("n_classes") == "num_classes"
    assert mlr.fact_name("model/num_labels") == "num_classes" and mlr.fact_name("my_knob") == "my_knob"
    assert mlr.fact_name("betas") == "betas"      # (a raw form the config reader types further stays raw)
    # only numeric settings by synonym: class weights are no checkpoint, an eval section's shuffle is not training's
    assert mlr.fact_name("weights") == "weights" and mlr.fact_name("pretrained") == "pretrained"
    assert mlr.fact_name("eval/shuffle") == "eval/shuffle" and mlr.fact_name("eval.n_classes") == "eval.n_classes"
    assert mlr.parse_value("1e-4") == 1e-4 and mlr.parse_value("8") == 8 and mlr.parse_value("adam") == "adam"
