"""General readers on the way people paste failures into posts: metric names with spaces and
capitals, Keras progress lines, a log of one epoch line, per-layer gradient tables without
steps, launch commands in scripts, notebooks and logs, and a few-line snippet with
backward()/step() but no zero_grad(). Small inline texts in those styles, read by the real
readers and analyzers."""
from __future__ import annotations

import json
from pathlib import Path

from mltdbg.analyzers.code import code_signals
from mltdbg.analyzers.config import extract_facts
from mltdbg.analyzers.curves import curve_signals
from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import Run
from mltdbg.analyzers.names import normalize


def run_of(tmp_path: Path, files: dict[str, str]) -> Run:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    run = ingest([tmp_path])
    extract_facts(run)
    return run


def values(run: Run, name: str) -> list[float]:
    found = [s for s in run.series if s.name == name]
    assert len(found) == 1, (name, [(s.name, s.raw_name) for s in run.series])
    return found[0].values.tolist()


def facts(run: Run, source: str) -> dict[str, list]:
    d: dict[str, list] = {}
    for f in run.facts:
        if f.source == source:
            d.setdefault(f.name, []).append((f.value, f.line))
    return d


def test_spaced_capitalised_names_and_percent(tmp_path):
    run = run_of(tmp_path, {"train.log": "Epoch 1: Avg Loss: 0.91, Validation Accuracy = 60.2%\n"
                                         "Epoch 2: Avg Loss: 0.71, Validation Accuracy = 70.2%\n"})
    assert values(run, "loss") == [0.91, 0.71]
    assert values(run, "val_accuracy") == [60.2, 70.2]
    (tmp_path / "train.log").unlink()
    run = run_of(tmp_path, {"b.log": "Epoch 1 Train Loss 0.3 val acc: 45%\nEpoch 2 Train Loss 0.2 val acc: 55%\n"})
    assert values(run, "loss") == [0.3, 0.2]
    assert values(run, "val_accuracy") == [45.0, 55.0]


def test_keras_progress_lines_with_eta_and_timings(tmp_path):
    log = ("Epoch 1/2\n"
           "32/32 [==============================] - ETA: 0s - loss: 0.9100 - accuracy: 0.6000\n"
           "32/32 [==============================] - 1s 3ms/step - loss: 0.5100 - accuracy: 0.8000"
           " - val_loss: 0.6000 - val_accuracy: 0.7500\n"
           "Epoch 2/2\n"
           "32/32 [==============================] - 0s 2ms/sample - loss: 0.4100 - accuracy: 0.8500"
           " - val_loss: 0.5500 - val_accuracy: 0.7800\n")
    run = run_of(tmp_path, {"keras.log": log})
    assert values(run, "val_loss") == [0.6, 0.55]
    assert values(run, "loss")[-2:] == [0.51, 0.41]
    assert not any(s.name in ("eta", "step") for s in run.series)


def test_a_single_epoch_line_keeps_its_values(tmp_path):
    run = run_of(tmp_path, {"post.log": "Epoch 1/1 - loss: 2.3026 - accuracy: 0.1000 - val_loss: 2.3026\n"})
    assert values(run, "loss") == [2.3026]
    assert values(run, "accuracy") == [0.1]
    # ... but next to a real curve, a stray one-point training value is still dropped
    run = run_of(tmp_path, {"post.log": "note: loss 9.0\nstep 1 acc=0.5\nstep 2 acc=0.6\n"})
    assert not [s for s in run.series if s.name == "loss"]


def test_per_layer_gradient_rows_without_steps(tmp_path):
    run = run_of(tmp_path, {"grads.txt": "layer1.weight 0.0001\nlayer2.weight 0.00001\n"
                                         "layer3.weight 0.000001\nfc.weight 0.5\n"})
    assert values(run, "grad_norm/layer1.weight") == [0.0001]
    sig = [s for s in curve_signals(run) if s.kind == "grad_vanish_layers"]
    assert len(sig) == 1 and "layer1.weight" in sig[0].summary and "fc.weight" in sig[0].summary


def test_per_layer_gradient_pipe_table_in_a_log(tmp_path):
    log = ("epoch 1 done\nGradient norms:\nname | grad_norm\n"
           "conv1.weight | 1e-8\nconv2.weight | 3e-7\nfc.weight | 0.2\n")
    run = run_of(tmp_path, {"train.log": log})
    assert values(run, "grad_norm/conv2.weight") == [3e-7]
    assert not [s for s in run.series if s.name == "grad_norm"]   # rows are layers, not steps
    assert any(s.kind == "grad_vanish_layers" for s in curve_signals(run))


def test_layer_rows_without_the_word_grad_are_not_gradients(tmp_path):
    run = run_of(tmp_path, {"params.log": "Parameter norms:\nlayer1.weight 0.0001\nfc.weight 0.5\n"})
    assert not [s for s in run.series if s.name.startswith("grad_norm/")]


def test_launch_script_with_continued_lines_and_switches(tmp_path):
    sh = ("#!/bin/bash\ntorchrun --nproc_per_node 8 train.py \\\n    --learning_rate=1e-3 \\\n"
          "    --per_device_train_batch_size 2 \\\n    --gradient_accumulation_steps 16 \\\n    --fp16\n")
    run = run_of(tmp_path, {"run.sh": sh, "command.sh": "accelerate launch --mixed_precision bf16 train.py --lr 10\n"})
    f = facts(run, "run.sh")
    assert f["lr"] == [(0.001, 3)] and f["batch_size"] == [(2, 4)] and f["grad_accum"] == [(16, 5)]
    assert f["precision"] == [("fp16", 6)]
    g = facts(run, "command.sh")
    assert g["lr"] == [(10.0, 1)] and g["precision"] == [("bf16", 1)]
    assert not [w for w in run.warnings if "does not parse" in w]


def test_command_echoed_in_a_log(tmp_path):
    run = run_of(tmp_path, {"out.log": "$ python train.py --lr 10 --batch_size 2 --bf16\nEpoch 1 loss 2.3\n"})
    f = facts(run, "out.log")
    assert f["lr"] == [(10.0, 1)] and f["batch_size"] == [(2, 1)] and f["precision"] == [("bf16", 1)]


def test_notebook_code_cells_cite_the_notebook_lines(tmp_path):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["lr = 99\n"]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
              "source": ["import torch\n", "!python train.py --lr 10 --fp16\n",
                         "opt = torch.optim.SGD(model.parameters(), lr=0.5)\n"]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    run = run_of(tmp_path, {"nb.ipynb": text})
    lines = text.split("\n")
    bang = next(i for i, ln in enumerate(lines, 1) if "!python" in ln)
    sgd = next(i for i, ln in enumerate(lines, 1) if "SGD" in ln)
    f = facts(run, "nb.ipynb")
    assert (10.0, bang) in f["lr"] and (0.5, sgd) in f["lr"]
    assert f["precision"] == [("fp16", bang)] and f["optimizer"] == [("sgd", sgd)]
    assert 99 not in [v for v, _ in f["lr"]]     # markdown cells are prose


def test_snippet_without_zero_grad_is_weaker_evidence(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    snip = run_of(tmp_path / "a", {"snippet.py": "out = model(x)\nloss = criterion(out, y)\n"
                                                 "loss.backward()\noptimizer.step()\n"})
    script = run_of(tmp_path / "b", {"train.py": "for x, y in loader:\n    out = model(x)\n"
                                                 "    loss = criterion(out, y)\n    loss.backward()\n"
                                                 "    optimizer.step()\n"})
    check = run_of(tmp_path / "c", {"check.py": "import torch\nw = torch.zeros(3, requires_grad=True)\n"
                                                "opt = torch.optim.SGD([w], lr=0.1)\nw.sum().backward()\n"
                                                "opt.step()\nassert w.grad is not None\n"})

    def zg(run):
        return [s.strength for s in code_signals(run) if s.kind == "code:missing_zero_grad"]
    assert len(zg(snip)) == 1 and len(zg(script)) == 1
    assert 0 < zg(snip)[0] < zg(script)[0]
    assert zg(check) == []
    # with zero_grad in the snippet, nothing
    ok = run_of(tmp_path / "a", {"snippet.py": "optimizer.zero_grad()\nloss.backward()\noptimizer.step()\n"})
    assert zg(ok) == []


def test_a_qualifier_after_a_metric_name_keeps_the_name(tmp_path):
    """'Loss error: 1.02' is the loss, 'Accuracy score: 0.09' the accuracy; 'top1 error' stays its own metric."""
    run = run_of(tmp_path, {"train.log": "".join(f"Loss error: {1.0 / (i + 1):.4f}\n" for i in range(4))
                            + "".join(f"Epoch {i}: 401 / 4200, Accuracy score: 0.0955\n" for i in range(3))})
    assert values(run, "loss") == [1.0, 0.5, 0.3333, 0.25]
    assert values(run, "accuracy") == [0.0955] * 3
    assert normalize("top1 error") != "accuracy" and normalize("val loss value") == "val_loss"


def test_ten_printed_losses_that_fall_then_rise_are_a_divergence_not_a_plateau(tmp_path):
    vals = [1.0298, 0.8179, 0.4704, 0.1962, 0.0619, 0.0885, 0.2776, 0.5321, 0.7532, 0.8696]
    run = run_of(tmp_path, {"train.log": "".join(f"Loss error: {v}\n" for v in vals)})
    kinds = {s.kind for s in curve_signals(run)}
    assert "divergence" in kinds and "plateau" not in kinds


def test_a_loss_printed_once_as_nan_is_cited(tmp_path):
    """One or two printed values are too short for a curve, but a NaN among them is still found
    and cited at its line (a post that says "loss=nan occurs during training")."""
    from mltdbg.analyzers.analyze import analyze
    run = run_of(tmp_path, {"question.txt": "loss=nan occurs during training\n\nwith other images loss=0 occurs.\n"})
    nf = [s for s in analyze(run) if s.kind == "nonfinite"]
    assert len(nf) == 1 and "NaN" in nf[0].summary
    assert [(e.source, e.line) for e in nf[0].evidence][:1] == [("question.txt", 1)]
