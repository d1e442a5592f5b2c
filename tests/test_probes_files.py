"""File and machine probes through the real launcher: checkpoint (weights_only, never unpickles code),
data (.npz, CSV, .pt, Parquet), box (every item a value or `unavailable` with its reason)."""
from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest
import torch
from probe_helpers import kinds, probe, project


@pytest.fixture(scope="module")
def proj(tmp_path_factory):
    return project(tmp_path_factory.mktemp("fileprobes"))


def _models(proj):
    spec = importlib.util.spec_from_file_location("user_models_f", proj / "models.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


class Evil:
    """Unpickling this runs os.system: a checkpoint probe must never do it."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_checkpoint_nonfinite_missing_keys_and_no_optimizer_state(proj, tmp_path):
    m = _models(proj)
    sd = m.healthy().state_dict()
    sd["0.weight"][0, 0] = float("nan")
    sd["2.bias"][1] = float("inf")
    ck = tmp_path / "weights.pt"
    torch.save({"model": sd, "epoch": 3}, ck)
    r = probe(proj, "checkpoint", str(ck), "--target", "models.py:FrozenEncoder")
    assert r.status == "ok", r.error
    res = r.result.result
    assert res["state_dict_key"] == "model" and res["counters"] == {"epoch": 3}
    assert {b["name"]: (b["nan"], b["inf"]) for b in res["nonfinite_tensors"]} == {"0.weight": (1, 0), "2.bias": (0, 1)}
    assert res["optimizer_state"] is None and res["scheduler_state"] is None
    at = res["against_target"]
    assert at["missing"] == sorted(_models(proj).FrozenEncoder().state_dict())
    assert at["unexpected_total"] == 6
    assert set(kinds(r)) == {"ckpt_nonfinite", "ckpt_no_optimizer", "ckpt_missing_keys"}


def test_a_complete_checkpoint_has_no_findings(proj, tmp_path):
    m = _models(proj).healthy()
    opt = torch.optim.Adam(m.parameters())
    m(torch.randn(2, 16)).sum().backward()
    opt.step()
    sched = torch.optim.lr_scheduler.StepLR(opt, 10)
    ck = tmp_path / "full.pt"
    torch.save({"model_state_dict": {f"module.{k}": v for k, v in m.state_dict().items()},
                "optimizer_state_dict": opt.state_dict(), "scheduler": sched.state_dict(), "step": 10}, ck)
    r = probe(proj, "checkpoint", str(ck), "--target", "models.py:healthy")
    assert r.status == "ok" and kinds(r) == []
    res = r.result.result
    assert res["ddp_prefix"] == "module." and res["against_target"]["missing_total"] == 0
    assert res["optimizer_state"]["param_states"] == 6 and res["scheduler_state"] == {"key": "scheduler"}


def test_a_checkpoint_with_pickled_code_is_refused_not_run(proj, tmp_path):
    marker = tmp_path / "PWNED"
    ck = tmp_path / "evil.pt"
    torch.save({"model": _models(proj).healthy().state_dict(), "cfg": Evil(marker)}, ck)
    r = probe(proj, "checkpoint", str(ck))
    assert not marker.exists()
    assert r.result.error_kind == "bad_input" and "weights_only=True" in r.error and "posix.system" in r.error
    assert r.result.result["archive_entries"]["tensor_records"] == 6     # what could be read without unpickling
    (tmp_path / "garbage.pt").write_bytes(b"not a checkpoint\n")
    r = probe(proj, "checkpoint", str(tmp_path / "garbage.pt"))
    assert r.status == "error" and r.error.startswith(f"{tmp_path / 'garbage.pt'}: not a readable torch checkpoint (")


def test_data_npz_nan_labels_raw_pixels_and_train_val_duplicates(proj, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, size=(100, 3, 8, 8)).astype(np.float32)
    x[5, 0, 0, 0] = np.nan
    y = rng.integers(0, 10, size=100)
    y[7], y[9] = 10, -1
    np.savez(tmp_path / "train.npz", x=x, y=y)
    np.savez(tmp_path / "val.npz", x=np.concatenate([x[:4], rng.random((20, 3, 8, 8)).astype(np.float32)]),
             y=rng.integers(0, 10, 24))
    r = probe(proj, "data", str(tmp_path / "train.npz"), "--val", str(tmp_path / "val.npz"), "--num-classes", "10")
    assert r.status == "ok", r.error
    assert kinds(r) == ["data_nonfinite", "label_out_of_range", "unnormalized", "data_leak"]
    res = r.result.result
    assert res["arrays"]["x"]["nan"] == 1 and res["labels"]["out_of_range"] == 2
    assert len(res["arrays"]["x"]["per_channel"]["mean"]) == 3
    finite = np.where(np.isfinite(x), x, np.nan)
    assert res["arrays"]["x"]["per_channel"]["mean"][0] == pytest.approx(np.nanmean(finite[:, 0]))
    assert res["duplicates"]["val_rows_in_train"] == 4 and res["duplicates"]["examples"] == [0, 1, 2, 3]
    leak = next(f for f in r.result.findings if f.kind == "data_leak")
    assert leak.data["share"] == pytest.approx(4 / 24)


def test_data_csv_columns_on_different_scales_and_a_label_histogram(proj, tmp_path):
    rng = np.random.default_rng(1)
    rows = ["age,income,f,label"] + [f"{rng.integers(18, 90)},{rng.normal(5e4, 1e4):.2f},{rng.random():.4f},{i % 3}"
                                     for i in range(60)]
    (tmp_path / "train.csv").write_text("\n".join(rows) + "\n")
    r = probe(proj, "data", str(tmp_path / "train.csv"), "--num-classes", "3")
    assert kinds(r) == ["unnormalized"]
    lab = r.result.result["labels"]
    assert lab["histogram"] == {"0": 20, "1": 20, "2": 20} and lab["out_of_range"] == 0


def test_data_pt_tuple_of_tensors_and_parquet(proj, tmp_path):
    torch.save((torch.randn(50, 4), torch.arange(50) % 5), tmp_path / "train.pt")
    r = probe(proj, "data", str(tmp_path / "train.pt"), "--num-classes", "4", "--label-column", "1")
    assert r.status == "ok", r.error
    f = next(f for f in r.result.findings if f.kind == "label_out_of_range")
    assert f.data["count"] == 10 and f.data["values"] == [4]
    (tmp_path / "t.parquet").write_bytes(b"PAR1 not really")
    r = probe(proj, "data", str(tmp_path / "t.parquet"))
    if importlib.util.find_spec("pyarrow") or importlib.util.find_spec("fastparquet"):
        assert r.result.error_kind == "bad_input" and "t.parquet: not a readable Parquet file" in r.error
        import pandas as pd
        pd.DataFrame({"a": [1.0, np.nan, 3.0], "label": [0, 1, 7]}).to_parquet(tmp_path / "ok.parquet")
        r = probe(proj, "data", str(tmp_path / "ok.parquet"), "--num-classes", "2")
        assert r.result.result["arrays"]["a"]["nan"] == 1
        assert kinds(r) == ["data_nonfinite", "label_out_of_range"]
    else:
        assert r.result.error_kind == "bad_input" and "pyarrow or fastparquet" in r.error


def test_box_reports_each_item_or_why_it_is_unavailable(proj, tmp_path):
    r = probe(proj, "box", "--checkpoint-dir", str(tmp_path))
    assert r.status == "ok", r.error
    res = r.result.result
    for name in ("oom_killer", "gpu_xid", "memory", "cgroup_memory", "nvidia_smi", "disk", "shm", "limits"):
        item = res[name]
        assert item["available"] in (True, False), name
        if not item["available"]:
            assert item["unavailable"].strip(), name        # never guessed: the reason is said
    assert res["disk"]["path"] == str(tmp_path) and res["disk"]["free_bytes"] > 0
    assert res["memory"]["MemTotal"] > 0 and res["limits"]["nofile"]["soft"] > 0
    if not torch.cuda.is_available() and not res["nvidia_smi"]["available"]:
        assert "nvidia-smi" in res["nvidia_smi"]["unavailable"]
    if res["oom_killer"]["available"]:
        assert res["oom_killer"]["count"] == len(res["oom_killer"]["lines"]) or res["oom_killer"]["count"] > 20
