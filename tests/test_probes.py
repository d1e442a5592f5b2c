"""Model probes on real small torch models on CPU, through the real launcher (a subprocess in this
interpreter): one test per finding, the healthy case, and the bad inputs (a TARGET that does not
import, a GPU model on a CPU box, out of memory, a hang, 10B parameters)."""
from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
import torch
from probe_helpers import kinds, probe, project


def _load_models(proj):
    spec = importlib.util.spec_from_file_location("user_models", proj / "models.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.fixture(scope="module")
def proj(tmp_path_factory):
    return project(tmp_path_factory.mktemp("probes"))


def test_params_finds_the_79_percent_embedding_case_and_counts_tied_weights_once(proj):
    r = probe(proj, "params", "models.py:TinyLM")
    assert r.status == "ok", r.error
    model = _load_models(proj).TinyLM()
    unique = sum(p.numel() for p in model.parameters())          # torch dedups the tied head
    p = r.result.result["params"]
    assert p["total"] == unique and p["counted_on"] == "meta"
    assert [["embed.weight", "lm_head.weight"]] == p["tied"]
    emb = sum(x.numel() for n, x in model.named_parameters() if n.startswith(("embed", "pos")))
    assert p["by_kind"]["embeddings"]["params"] == emb
    f = next(f for f in r.result.findings if f.kind == "param_imbalance")
    assert 0.785 < f.data["embeddings_share"] < 0.795
    assert f"{100 * emb / unique:.1f}%" in f.summary and "79." in f.summary


def test_deep_sigmoid_mlp_vanishes(proj):
    r = probe(proj, "gradients", "models.py:deep_sigmoid")
    assert r.status == "ok", r.error
    assert "grad_vanish" in kinds(r) and "grad_explode" not in kinds(r)
    f = next(f for f in r.result.findings if f.kind == "grad_vanish")
    assert f.data["ratio"] < 1e-4
    rows = r.result.result["layers"]
    assert [x["layer"] for x in rows][:2] == ["0", "2"]            # forward order
    assert rows[0]["grad_norm"] < 1e-6 < rows[-1]["grad_norm"]


def test_rnn_without_clipping_explodes(proj):
    r = probe(proj, "gradients", "models.py:RNNNoClip", "--batch", "randn:8,40,8")
    assert r.status == "ok", r.error
    f = next(f for f in r.result.findings if f.kind == "grad_explode")
    assert f.data["total_norm"] > 1e3 and f.data["worst_layer"] == "rnn"
    assert r.result.result["batch"] == "randn:8,40,8"


def test_relu_with_a_large_negative_bias_has_dead_units_not_vanishing(proj):
    r = probe(proj, "gradients", "models.py:dead_relu")
    assert r.status == "ok", r.error
    f = next(f for f in r.result.findings if f.kind == "dead_units")
    assert f.data["layer"] == "1" and f.data["share"] == 1.0
    assert "grad_vanish" not in kinds(r)         # exactly-zero gradients are dead units, not vanishing ones
    first = r.result.result["layers"][0]
    assert first["layer"] == "0" and first["grad_norm"] == 0.0


def test_a_healthy_net_has_no_findings(proj):
    r = probe(proj, "gradients", "models.py:healthy", "--steps", "3")
    assert r.status == "ok", r.error
    assert kinds(r) == []
    assert len(r.result.result["total_grad_norm"]) == 3
    assert all(0 < x["update_ratio"] < 0.1 for x in r.result.result["layers"])


def test_frozen_parameters_in_params_and_gradients(proj):
    model = _load_models(proj).FrozenEncoder()
    frozen = sum(p.numel() for p in model.parameters() if not p.requires_grad)
    r = probe(proj, "params", "models.py:FrozenEncoder")
    p = r.result.result["params"]
    assert p["frozen"] == frozen and p["trainable"] == p["total"] - frozen
    f = next(f for f in r.result.findings if f.kind == "frozen_params")
    assert "encoder.* (4 tensors)" in f.summary
    g = probe(proj, "gradients", "models.py:FrozenEncoder")
    f = next(f for f in g.result.findings if f.kind == "frozen_params")
    assert f.data["names"] == ["encoder.0.weight", "encoder.0.bias", "encoder.2.weight", "encoder.2.bias"]
    assert "no_grad_params" not in kinds(g)


def test_nan_hunt_names_the_batch_and_the_module(proj):
    r = probe(proj, "nan-hunt", "models.py:LogNet", "--batch", "models.py:batches", "--step", "models.py:loss_fn",
              "--steps", "8")
    assert r.status == "ok", r.error
    first = r.result.result["first_nonfinite"]
    assert (first["batch"], first["phase"], first["where"], first["inputs_finite"]) == (5, "forward", "log", True)
    assert kinds(r) == ["nonfinite_forward"]
    log = r.result.result["batches"]
    assert len(log) == 6 and set(log[0]["loss_terms"]) == {"ce", "l2"}
    assert log[0]["inputs"]["batch[0]"]["has_nan"] is False and "min" in log[0]["inputs"]["batch[0]"]
    # NaN that came with the data: named at its batch, in the inputs
    r = probe(proj, "nan-hunt", "models.py:LogNet", "--batch", "models.py:nan_batches", "--steps", "8")
    first = r.result.result["first_nonfinite"]
    assert (first["batch"], first["phase"]) == (2, "input") and kinds(r) == ["nonfinite_input"]


def test_nan_hunt_on_a_clean_model_says_so(proj):
    r = probe(proj, "nan-hunt", "models.py:healthy", "--steps", "5")
    assert r.status == "ok" and kinds(r) == [] and r.result.result["first_nonfinite"] is None
    assert any("no non-finite value in 5 batches" in n for n in r.result.notes)


def test_memory_on_cpu_is_exact_tensor_bytes_and_labelled(proj):
    r = probe(proj, "memory", "models.py:TinyLM", "--batch-size", "4", "--seq-len", "16")
    assert r.status == "ok", r.error
    res = r.result.result
    model = _load_models(proj).TinyLM()
    pbytes = sum(p.numel() * p.element_size() for p in model.parameters())
    assert res["method"] == "cpu_tensor_bytes" and "resident set" in res["method_note"]
    bk = res["by_kind"]
    assert bk["parameters"] == pbytes and bk["gradients"] == pbytes
    assert bk["optimizer_state"] >= 2 * pbytes                 # Adam: two moments per parameter
    assert bk["activations"] > 0
    assert set(res["phases"]) == {"forward", "backward", "optimizer_step"}
    assert all(isinstance(ph["peak_rss_bytes"], int) for ph in res["phases"].values())
    assert res["largest_activations"][0]["module"] == "lm_head"   # 4 x 16 x 5850 logits


# ----------------------------------------------------------------------------- bad input

def _cli(proj, *args, timeout=120):
    return subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "probe", *args], cwd=proj, capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.parametrize("target, words", [
    ("broken.py:Net", ["broken.py", "does not import", "ModuleNotFoundError", "no_such_package", "broken.py:1"]),
    ("models.py:Nope", ["models.py has no attribute 'Nope'", "TinyLM"]),
    ("missing.py:Net", ["missing.py: no such file"]),
    ("models", ["expected FILE.py:NAME"]),
])
def test_a_target_that_does_not_import_is_one_line_exit_2(proj, target, words):
    (proj / "broken.py").write_text("import no_such_package\n")
    r = _cli(proj, "params", target)
    assert r.returncode == 2, r.stderr
    err = r.stderr.strip()
    assert "Traceback" not in r.stderr and len(err.splitlines()) == 1
    for w in words:
        assert w in err


def test_a_gpu_model_on_a_cpu_box_is_a_clear_partial_result(proj):
    assert not torch.cuda.is_available(), "this test describes a machine without CUDA"
    r = probe(proj, "gradients", "models.py:needs_gpu")
    assert r.status == "partial" and r.result.error_kind == "needs_gpu"
    assert "needs a GPU" in r.error and "models.py" in r.error
    assert r.result.result["params"]["total"] == 20          # counted on the meta device, .cuda() ignored
    p = probe(proj, "params", "models.py:needs_gpu")
    assert p.status == "ok" and p.result.result["params"]["total"] == 20


def test_running_out_of_memory_keeps_the_partial_result(proj):
    r = probe(proj, "gradients", "models.py:Hog")
    assert r.status == "partial" and r.result.error_kind == "oom", r.error
    assert r.error.startswith("out of memory") and "models.py" in r.error
    assert r.result.stage.startswith("forward") and r.result.result["params"]["total"] == 20


def test_an_address_space_cap_turns_a_big_step_into_an_oom_message(proj):
    # the 2-layer transformer with 4096 sequences of 64 tokens needs gigabytes of activations
    r = probe(proj, "gradients", "models.py:TinyLM", "--batch", "randint:0:5850:4096,64", max_memory_gb=4)
    assert r.status == "partial" and r.result.error_kind == "oom", (r.status, r.error)
    assert r.result.stage == "forward (step 0)" and "DefaultCPUAllocator" in r.error


def test_a_hanging_model_is_ended_and_its_partial_result_kept(proj):
    r = probe(proj, "gradients", "models.py:Hang", timeout_s=8)
    assert r.timed_out and r.status == "timed_out"
    assert r.duration_s < 8 + 4 + 2
    assert r.result.status == "partial" and r.result.error_kind == "timeout"
    assert r.result.stage == "forward (step 0)" and r.result.result["params"]["total"] == 20
    assert "forward started" in r.output_tail                 # the model's own print, kept apart


def test_ten_billion_parameters_are_counted_on_meta_and_never_allocated(proj):
    r = probe(proj, "params", "models.py:big10b")
    assert r.status == "ok" and r.result.result["params"]["total"] == 150 * (8192 * 8192 + 8192)
    assert r.result.elapsed_s < 30
    g = probe(proj, "gradients", "models.py:big10b")
    assert g.status == "partial" and g.result.error_kind == "too_large"
    assert "10.07B parameters" in g.error and "not built" in g.error
    assert g.result.result["fit"]["need_bytes_without_activations"] > g.result.result["fit"]["available_bytes"]


def test_no_interpreter_and_no_torch_are_named(proj, tmp_path):
    r = probe(proj, "params", "models.py:TinyLM", python=str(tmp_path / "nope" / "python"))
    assert r.status == "error" and "no such interpreter" in r.error
    fake = tmp_path / "bin" / "python"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\nexec {sys.executable} -S -I \"$@\"\n")     # a python without site-packages
    fake.chmod(0o755)
    r = probe(proj, "params", "models.py:TinyLM", python=str(fake))
    assert r.result.error_kind == "no_torch" and "pass --python" in r.error


def test_probes_never_write_into_the_project(proj, tmp_path):
    before = {p: p.stat().st_mtime_ns for p in proj.rglob("*")}
    probe(proj, "gradients", "models.py:healthy")
    probe(proj, "nan-hunt", "models.py:LogNet", "--batch", "models.py:batches", "--steps", "2")
    assert {p: p.stat().st_mtime_ns for p in proj.rglob("*")} == before


def test_out_that_is_not_a_probe_result_is_not_overwritten(proj):
    mine = proj.parent / "notes.json"
    mine.write_text('{"mine": true}\n')
    r = _cli(proj, "box", "--out", str(mine))
    assert r.returncode == 2 and "not a probe result; not overwritten" in r.stderr
    assert mine.read_text() == '{"mine": true}\n'


def test_kwargs_come_from_a_config_file_and_kwargs_json(proj, tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("seed: 1\nmodel:\n  vocab: 100\n  layers: 2\n")
    r = probe(proj, "params", "models.py:TinyLM", "--config", f"{cfg}:model", "--kwargs", '{"layers": 1}')
    assert r.status == "ok", r.error
    want = sum(p.numel() for p in _load_models(proj).TinyLM(vocab=100, layers=1).parameters())
    assert r.result.result["params"]["total"] == want
    assert "param_imbalance" not in kinds(r)           # 100 x 64 embedding: the body holds most now
    r = probe(proj, "params", "models.py:TinyLM", "--config", f"{cfg}:nope")
    assert r.result.error_kind == "bad_input" and "no key 'nope'" in r.error
