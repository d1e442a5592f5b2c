"""Detectors added while tuning on the zoo's tune split: parameter tables, prediction
collapse, dtype wording, lr jump at a resume, eval() on a model without dropout."""
import json
from pathlib import Path

import pytest


from mltdbg.analyzers.analyze import analyze
from mltdbg.analyzers.ingest import ingest


def signals(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    run = ingest([tmp_path])
    return {s.kind: s for s in analyze(run)}


def test_lightning_summary_table_with_rank_prefix(tmp_path):
    table = ("[rank0]:   | Name | Type | Params\n[rank0]: ---\n"
             "[rank0]: 0 | tok_emb | Embedding | 3.1 M\n[rank0]: 1 | blocks | ModuleList | 120 K\n"
             "[rank0]: 2 | lm_head | Linear | 3.1 M\n[rank0]: 6.3 M Total params\n")
    s = signals(tmp_path, {"train.log": table})["log:param_imbalance"]
    assert s.data["share"] > 0.95 and s.evidence[0].line == 3


def test_plain_parameter_table(tmp_path):
    table = "module  params  share\nembedding 7,900,000 79%\nencoder 1,500,000 15%\nhead 600,000 6%\n"
    s = signals(tmp_path, {"model.log": table})["log:param_imbalance"]
    assert 0.84 < s.data["share"] < 0.86


def test_balanced_table_is_not_flagged(tmp_path):
    table = "module  params\nembedding 1,000,000\nencoder 8,000,000\nhead 1,000,000\n"
    assert "log:param_imbalance" not in signals(tmp_path, {"model.log": table})


def test_prediction_counts_on_one_class(tmp_path):
    log = "".join(f"epoch {i} loss={1.0 / (i + 1):.3f}\npred_counts: [500, 0, 0, 0, 0]\n" for i in range(5))
    assert "log:collapse_output" in signals(tmp_path, {"train.log": log})
    spread = "".join(f"epoch {i} loss={1.0 / (i + 1):.3f}\npred_counts: [100, 90, 110, 95, 105]\n" for i in range(5))
    (tmp_path / "spread").mkdir()
    assert "log:collapse_output" not in signals(tmp_path / "spread", {"train.log": spread})


def test_target_dtype_wording(tmp_path):
    tb = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    loss = F.cross_entropy(out, y)\n'
          "RuntimeError: expected target dtype to be Long or Byte, but got Float\n")
    assert "log:dtype_mismatch" in signals(tmp_path, {"err.log": tb})



def test_gradscaler_on_fp16_weights_and_a_loss_without_grad_fn(tmp_path):
    """Two tracebacks whose message names the cause: GradScaler refusing fp16 parameters (the
    weights were cast to half) and a loss that no trainable tensor reaches (all frozen)."""
    from mltdbg.playbooks.diagnose import diagnose
    tb = ('Traceback (most recent call last):\n  File "train_lora.py", line 880, in main\n'
          "    accelerator.clip_grad_norm_(params_to_optimize, args.max_grad_norm)\n"
          "ValueError: Attempting to unscale FP16 gradients.\n")
    (tmp_path / "a").mkdir()
    s = signals(tmp_path / "a", {"err.log": tb})
    assert s["log:dtype_mismatch"].evidence[0].line == 4
    tb2 = ('Traceback (most recent call last):\n  File "finetune.py", line 210, in <module>\n    loss.backward()\n'
           "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n")
    (tmp_path / "b").mkdir()
    s = signals(tmp_path / "b", {"err.log": tb2})
    assert "log:no_grad_fn" in s and "log:dtype_mismatch" not in s
    assert diagnose([str(tmp_path / "b")], []).hypotheses[0].id == "frozen_parameters"


def test_a_distribution_refusing_a_nan_parameter_is_a_non_finite_output(tmp_path):
    tb = ('Traceback (most recent call last):\n  File "sac.py", line 113, in forward\n    dist = Independent(Normal(*logits), 1)\n'
          "ValueError: Expected parameter loc (Tensor of shape (2, 2)) of distribution Normal(loc: torch.Size([2, 2]), "
          "scale: torch.Size([2, 2])) to satisfy the constraint Real(), but found invalid values:\ntensor([[nan, nan]])\n")
    s = signals(tmp_path, {"traceback.txt": tb})
    assert s["log:loss_nonfinite"].evidence[0].line == 4 and "loc" in s["log:loss_nonfinite"].summary
    ok = ("ValueError: Expected parameter probs (Tensor of shape (8, 3)) of distribution Categorical(probs: "
          "torch.Size([8, 3])) to satisfy the constraint Simplex(), but found invalid values")
    assert "log:loss_nonfinite" in signals(tmp_path, {"traceback.txt": ok})

def test_lr_jump_right_after_resume(tmp_path):
    lines = [f"step={s} loss={1.0 - s / 1000:.4f} lr={0.002 * (1 - s / 600):.6f}" for s in range(10, 260, 10)]
    lines.append("Resuming from checkpoint checkpoints/step_250.pt (global step 250)")
    lines += [f"step={s} loss={1.0 - s / 1000:.4f} lr={0.0001 * (s - 250):.6f}" for s in range(260, 400, 10)]
    s = signals(tmp_path, {"train.log": "\n".join(lines) + "\n"})
    assert s["lr_jump"].data["step"] == 250


def test_no_eval_is_harmless_without_dropout(tmp_path):
    code = '''import torch, torch.nn as nn
def build_model(h):
    return nn.Linear(4, 1) if h == 0 else nn.Sequential(nn.Linear(4, h), nn.Tanh(), nn.Linear(h, 1))
model = build_model(0)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in []:
    opt.zero_grad(); loss = ((model(x) - y) ** 2).mean(); loss.backward(); opt.step()
with torch.no_grad():
    print(model(torch.zeros(1, 4)))
'''
    assert "code:no_eval_at_inference" not in signals(tmp_path, {"train.py": code})
    drop = code.replace("nn.Tanh()", "nn.Dropout(0.5)")
    (tmp_path / "d").mkdir()
    assert "code:no_eval_at_inference" in signals(tmp_path / "d", {"train.py": drop})


def test_namespaced_metric_names_normalise():
    from mltdbg.analyzers.names import normalize
    assert normalize("optim/gnorm") == "grad_norm" and normalize("optim/lr-AdamW") == "lr"
    assert normalize("charts/eval/loss") == "val_loss" and normalize("grad_norm/layer0") == "grad_norm/layer0"


def test_warmup_spanning_the_whole_run(tmp_path):
    lines = [f"step={s} loss={3 - s / 200:.4f} lr={1e-4 * s / 190:.3e}" for s in range(10, 200, 10)]
    assert signals(tmp_path, {"train.log": "\n".join(lines) + "\n"})["lr_schedule_odd"].data["detail"] == "warm-up spans the run"
    # a warm-up that ends a third of the way in and holds its lr to the end (constant_with_warmup) is fine
    held = [f"step={s} loss={3 - s / 200:.4f} lr={1e-4 * min(1, s / 60):.3e}" for s in range(10, 200, 10)]
    (tmp_path / "held").mkdir()
    assert "lr_schedule_odd" not in signals(tmp_path / "held", {"train.log": "\n".join(held) + "\n"})


def test_nan_right_after_the_loss_saturates(tmp_path):
    vals = ["0.69", "0.05", "0.0004", "0.00001", "nan", "nan"]
    lines = [f"step={10 * (i + 1)} loss={v}" for i, v in enumerate(vals)]
    assert "nonfinite_after_saturation" in signals(tmp_path, {"train.log": "\n".join(lines) + "\n"})


def _train_relu_mlp(tmp_path: Path, kill_at: int | None) -> Path:
    """torch_runs.relu_mlp_steps with its per-layer grad norms written the way a user logs them
    (epoch, layer, grad_norm) and its loss per epoch."""
    from torch_runs import relu_mlp_steps  # noqa: PLC0415 - torch only for the tests that train

    rows = ["epoch,layer,grad_norm"]
    losses = ["epoch,loss"]
    for epoch, model, loss in relu_mlp_steps(kill_at):
        for name, p in model.named_parameters():
            if name.endswith("weight"):
                rows.append(f"{epoch},{name},{p.grad.norm().item():.6g}")
        losses.append(f"{epoch},{loss.item():.6f}")
    (tmp_path / "grad_norms.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "metrics.csv").write_text("\n".join(losses) + "\n")
    return tmp_path


def test_layers_whose_gradient_dies_mid_run_point_at_dead_units(tmp_path):
    run_dir = _train_relu_mlp(tmp_path, kill_at=4)
    sig = {s.kind: s for s in analyze(ingest([run_dir]))}
    died = sig["grad_died"]
    # the dead layer's own weights and the layers below it; the output layer's weights see only zeros
    assert set(died.data["layers"]) == {"grad_norm/0.weight", "grad_norm/2.weight", "grad_norm/4.weight"}
    assert died.data["step"] == 4 and "grad_zero_below_head" not in sig and "grad_zero" not in sig
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    d = diagnose([str(run_dir)], [])
    assert d.hypotheses[0].id == "dead_relu"
    assert "frozen_parameters" not in [h.id for h in d.hypotheses[:1]]


def test_gradient_that_never_dies_is_no_dead_unit(tmp_path):
    sig = {s.kind for s in analyze(ingest([_train_relu_mlp(tmp_path, kill_at=None)]))}
    assert "grad_died" not in sig


def test_total_grad_norm_that_drops_to_zero_is_not_frozen(tmp_path):
    # never-trainable parameters have no gradient from the first step; these had one for 6 steps
    body = "".join(f"step {i} loss {2.3 if i >= 6 else 2.3 - 0.1 * i:.3f} grad_norm {0.0 if i >= 6 else 1.5 / (i + 1):.4f}\n"
                   for i in range(20))
    sig = signals(tmp_path, {"train.log": body})
    assert sig["grad_died"].data["step"] == 6 and "grad_zero" not in sig
    zero_from_start = "".join(f"step {i} loss 2.300 grad_norm 0.0\n" for i in range(20))
    sig = signals(tmp_path, {"train.log": zero_from_start})
    assert "grad_zero" in sig and "grad_died" not in sig


def test_a_vanished_layer_gradient_that_underflows_to_zero_did_not_die(tmp_path):
    # 1e-13 beside the head's 0.4, then 0.0: float underflow of a vanishing gradient, not dead units
    rows = ["step,layer,grad_norm"]
    for i in range(12):
        rows += [f"{i},layer0.weight,{0.0 if i >= 6 else 1e-13}", f"{i},layer1.weight,{1e-7}", f"{i},layer2.weight,0.4"]
    sig = signals(tmp_path, {"grad_norms.csv": "\n".join(rows) + "\n"})
    assert "grad_died" not in sig


def test_a_dict_of_per_layer_grad_norms_in_jsonl_is_read_per_layer(tmp_path):
    # {"step": s, "grad_norms": {"encoder.layer.0.weight": ...}}: the dict's name is the plural
    lines = [json.dumps({"step": s, "loss": 2.3, "grad_norms": {f"encoder.layer.{i}.weight": 0.1 * (i + 1) for i in range(3)}})
             for s in range(0, 50, 10)]
    (tmp_path / "grads.jsonl").write_text("\n".join(lines) + "\n")
    names = {s.name for s in ingest([tmp_path]).series}
    assert {f"grad_norm/encoder.layer.{i}.weight" for i in range(3)} <= names
    from mltdbg.analyzers.names import normalize  # noqa: PLC0415

    assert normalize("grad_norms") == "grad_norm" and normalize("gradient_norms/fc1") == "grad_norm/fc1"


def test_a_namespace_of_per_layer_grad_norms_under_another_name_is_read_per_layer(tmp_path):
    # a JSON history whose per-layer dict says "layer grad norms" in its own words: the layers
    # below the head get no gradient, which the per-layer detector must see
    hist = [{"epoch": e, "loss": 2.30, "val_loss": 2.30, "layer_grad_norms": {"conv1": 0.0, "conv2": 0.0, "fc": 0.004}}
            for e in range(1, 4)]
    (tmp_path / "history.json").write_text(json.dumps(hist))
    run = ingest([tmp_path])
    assert {"grad_norm/conv1", "grad_norm/conv2", "grad_norm/fc"} <= {s.name for s in run.series}
    zero = [s for s in analyze(run) if s.kind == "grad_zero_below_head"]
    assert zero and "conv1" in zero[0].summary and "fc above them" in zero[0].summary
    from mltdbg.analyzers.names import normalize  # noqa: PLC0415

    assert [normalize(n) for n in ("per_layer_grads/fc.weight", "grad_norms_per_layer/fc1", "grad_accum/x",
                                   "grad_clip/fc1")] == ["grad_norm/fc.weight", "grad_norm/fc1", "grad_accum/x",
                                                         "grad_clip/fc1"]


def test_gnorm_per_part_in_a_key_value_log_is_a_frozen_body_under_a_live_head(tmp_path):
    """"gnorm/body=0.0000 gnorm/head=0.1675" each epoch (the short form fairseq and many trainers print): per-part
    gradient norms, the body's exactly 0 under a head that learns."""
    lines = [f"epoch={e} loss={1.09 - 0.004 * e:.4f} acc={0.35 + 0.005 * e:.4f} gnorm/body=0.0000 gnorm/head={0.15 + 0.01 * (e % 3):.4f}"
             for e in range(1, 31)]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    run = ingest([tmp_path])
    assert {"grad_norm/body", "grad_norm/head"} <= {s.name for s in run.series}
    zero = [s for s in analyze(run) if s.kind == "grad_zero_below_head"]
    assert zero and "body" in zero[0].summary and "head above them" in zero[0].summary


def _epochs_log(n: int = 24) -> str:
    return "".join(f"epoch {e} train_loss={1.6 - 0.06 * e:.4f} val_loss={1.6 - 0.06 * e:.4f} "
                   f"val_acc={min(0.986, 0.3 + 0.05 * e):.4f} saved=checkpoints/epoch_{e}.pt\n" for e in range(1, n + 1))


@pytest.mark.parametrize("loaded, stale", [
    ("checkpoints/epoch_9.pt", True),       # epoch 9 of 24: val_acc 0.75 against the best 0.986 from epoch 14
    ("checkpoints/epoch_24.pt", False),     # the last one
    ("checkpoints/epoch_20.pt", False),     # 0.986 already there (its val loss still falls: the accuracy decides)
    ("checkpoints/best.pt", False),
    ("resume", False),                      # epoch_9.pt loaded by a resume that trains on to epoch 24
])
def test_weights_of_an_epoch_the_run_trained_past_are_a_stale_checkpoint(tmp_path, loaded, stale):
    """An evaluation that restores an early epoch's weights (a text sort put epoch_9.pt after epoch_24.pt), where the
    run's own log shows that epoch well below the best it reached later."""
    if loaded == "resume":
        log = _epochs_log()
        cut = log.index("epoch 13 ")
        (tmp_path / "train.log").write_text(log[:cut] + "resumed: loaded checkpoints/epoch_9.pt\n" + log[cut:])
    else:
        (tmp_path / "train.log").write_text(_epochs_log())
        (tmp_path / "eval.log").write_text(f"$ python evaluate.py\nrestored weights from {loaded}\n[test] n=500 acc=0.7520\n")
    sigs = {s.kind: s for s in analyze(ingest([tmp_path]))}
    assert ("log:checkpoint_stale" in sigs) is stale
    if stale:
        assert sigs["log:checkpoint_stale"].data == {"loaded": loaded, "at": 9, "best_at": 14}


def _memorize_csv(lr_drop_at_climb: bool = False, plateau: bool = True) -> str:
    """60 epochs: train accuracy rises to 0.6, holds there to epoch 25 (plateau=True), then climbs
    to ~0.97 while validation accuracy falls from 0.82 to 0.6; or climbs steadily (plateau=False)."""
    import math  # noqa: PLC0415

    rows = ["epoch,train_loss,train_acc,val_loss,val_acc,lr"]
    for e in range(1, 61):
        if not plateau:
            ta = 0.3 + 0.68 * (1 - math.exp(-e / 8))
        elif e <= 25:
            ta = 0.6 * (1 - math.exp(-e / 3))
        else:
            ta = 0.6 + 0.38 * (1 - math.exp(-(e - 25) / 10))
        va = 0.82 * (1 - math.exp(-e / 3)) if e <= 12 else 0.82 - 0.22 * (1 - math.exp(-(e - 12) / 15))
        vl = 0.6 + 1.7 * math.exp(-e / 3) + (0.02 * (e - 12) if e > 12 else 0)
        lr = 0.1 if not lr_drop_at_climb or e <= 25 else 0.01
        rows.append(f"{e},{2.3 * (1 - ta):.4f},{ta:.4f},{vl:.4f},{va:.4f},{lr}")
    return "\n".join(rows) + "\n"


def test_train_accuracy_that_stops_then_memorises_points_at_noisy_labels(tmp_path):
    sig = signals(tmp_path, {"log.csv": _memorize_csv()})
    m = sig["memorized_after_plateau"]
    assert 24 <= m.data["step"] <= 27 and abs(m.data["level"] - 0.6) < 0.03 and m.data["val_best"] > 0.8
    assert "healthy" not in sig
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    d = diagnose([str(tmp_path)], [])
    assert [h.id for h in d.hypotheses[:2]] == ["label_noise", "overfitting"]
    assert d.hypotheses[0].confidence < 0.8          # the curve alone is no proof: a check settles it


def test_a_steady_climb_or_an_lr_step_at_the_climb_is_no_memorisation(tmp_path):
    assert "memorized_after_plateau" not in signals(tmp_path, {"log.csv": _memorize_csv(plateau=False)})
    assert "memorized_after_plateau" not in signals(tmp_path, {"log.csv": _memorize_csv(lr_drop_at_climb=True)})


def test_a_wide_train_val_gap_is_a_failure_even_beside_a_falling_train_loss(tmp_path):
    # validation improves a little early, then stays ~50 points under training: no curve signal names
    # it, the end gap alone does; a run like this is never "no issue found"
    import math  # noqa: PLC0415

    rows = ["epoch,train_loss,train_acc,val_loss,val_acc"]
    for e in range(1, 21):
        ta, va = 0.3 + 0.68 * (1 - math.exp(-e / 4)), 0.3 + 0.15 * (1 - math.exp(-e / 2))
        rows.append(f"{e},{2.0 * math.exp(-e / 4) + 0.03:.4f},{ta:.4f},{1.9 - 0.3 * (1 - math.exp(-e / 2)) + 0.01 * e:.4f},{va:.4f}")
    (tmp_path / "log.csv").write_text("\n".join(rows) + "\n")
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    d = diagnose([str(tmp_path)], [])
    assert d.status == "needs_more_data"
    assert [h.id for h in d.hypotheses[:2]] == ["overfitting", "preprocessing_mismatch"]


def test_a_very_noisy_loss_is_no_healthy_run(tmp_path):
    # batch size 2: the loss falls overall, but jumps by more than its own level from step to step
    import random  # noqa: PLC0415
    import math  # noqa: PLC0415

    rnd = random.Random(5)
    (tmp_path / "config.json").write_text('{"optimizer": "SGD", "lr": 0.1, "batch_size": 2, "epochs": 10}\n')
    body = "step,loss\n" + "".join(f"{s},{max(0.05, 1.5 * math.exp(-s / 3000) + rnd.gauss(0, 0.6)):.4f}\n"
                                   for s in range(0, 10000, 20))
    (tmp_path / "metrics.csv").write_text(body)
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    d = diagnose([str(tmp_path)], [])
    assert d.status == "needs_more_data" and d.hypotheses[0].id == "batch_size_too_small"


def _val_chance_csv(val_level: float, train_to: float = 0.97) -> str:
    import math  # noqa: PLC0415

    rows = ["epoch,train_loss,train_acc,val_loss,val_acc"]
    for e in range(1, 21):
        ta = 0.1 + (train_to - 0.1) * (1 - math.exp(-e / 4))
        rows.append(f"{e},{2.3 * math.exp(-e / 4) + 0.03:.4f},{ta:.4f},{2.31 + 0.05 * e:.4f},{val_level + 0.005 * (-1) ** e:.4f}")
    return "\n".join(rows) + "\n"


def test_validation_at_chance_while_training_learns_points_at_its_labels(tmp_path):
    a = tmp_path / "ten"
    a.mkdir()
    sig = signals(a, {"log.csv": _val_chance_csv(0.1)})
    assert sig["val_at_chance"].data["classes"] == 10      # from the accuracy itself: 0.1 is 1/10
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    d = diagnose([str(a)], [])
    assert d.hypotheses[0].id == "label_misalignment" and "overfitting" not in [h.id for h in d.hypotheses[:2]]
    # 0.45 with no class count: chance for two classes, merely poor for ten; not called chance
    b = tmp_path / "poor"
    b.mkdir()
    assert "val_at_chance" not in signals(b, {"log.csv": _val_chance_csv(0.45)})
    # ... unless the config says there are two classes
    c = tmp_path / "binary"
    c.mkdir()
    assert signals(c, {"log.csv": _val_chance_csv(0.5), "config.yaml": "num_classes: 2\n"})["val_at_chance"].data["classes"] == 2


def test_a_five_way_validation_at_chance_is_read_from_its_first_loss_at_ln_5(tmp_path):
    """No class count anywhere; the first validation loss 1.6048 sits at ln 5 and the validation
    accuracy at 0.2: K = 5 from the two readings, validation at chance while train accuracy climbs
    from 0.2 to 0.47 (a slow, nearly linear training loss beside it is memorising, not a small lr).
    Accuracy 0.2 beside first losses at no ln K below ten (2.3026 is ln 10: 0.2 is not 1/10) names no K."""
    import math  # noqa: PLC0415

    def csv(first_loss: float, train_shift: float = 0.0) -> str:
        rows = ["epoch,train_loss,train_acc,val_loss,val_acc"]
        for e in range(25):
            late = max(0, e - 8)
            rows.append(f"{e + 1},{1.606 + train_shift - 0.026 * late:.4f},{0.205 + 0.017 * late:.4f},"
                        f"{first_loss + 0.006 * e:.4f},{0.2 + 0.01 * math.sin(e):.4f}")
        return "\n".join(rows) + "\n"
    a = tmp_path / "five"
    a.mkdir()
    assert signals(a, {"log.csv": csv(1.6048)})["val_at_chance"].data["classes"] == 5
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    ids = [h.id for h in diagnose([str(a)], []).hypotheses]
    # (first before the refit with batch 56; its flat first nine epochs, printed identically, lift dead_relu by
    # metric_frozen's refitted weights, and since the refit with batch 57 label_misalignment ties with four other
    # weak causes at ~0.1 just below the list's cut: the reading of K and of validation at chance is what is tested
    # here, and that the slow training loss beside it does not make a small lr the answer)
    assert "lr_too_low" not in ids[:1]
    b = tmp_path / "ten"
    b.mkdir()
    assert "val_at_chance" not in signals(b, {"log.csv": csv(2.3026, train_shift=0.5)})


def test_a_loss_back_at_its_start_mid_run_is_a_restart_not_a_divergence(tmp_path):
    # a real run whose weights start over at step 60 (a resume that loaded nothing): the step count
    # goes on, the loss jumps back to where it began and falls again
    import torch  # noqa: PLC0415

    torch.manual_seed(0)
    x = torch.randn(512, 16)
    y = (x[:, :4].sum(1) > 0).long()
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    lines = []
    for step in range(120):
        if step == 60:
            for m in model:
                if hasattr(m, "reset_parameters"):
                    m.reset_parameters()
            opt = torch.optim.SGD(model.parameters(), lr=0.5)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        lines.append(f"step {step} loss {loss.item():.4f} lr 0.5")
    a = tmp_path / "reset"
    a.mkdir()
    sig = signals(a, {"train.log": "\n".join(lines) + "\n"})
    assert sig["loss_reset"].data["step"] == 60 and "divergence" not in sig
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    d = diagnose([str(a)], [])
    assert d.hypotheses[0].id == "wrong_checkpoint" and any(e.step == 60 for e in d.hypotheses[0].evidence)
    # a warm restart the schedule makes (the lr jumps back up at the same step) is no reset
    b = tmp_path / "sgdr"
    b.mkdir()
    sgdr = [ln.replace("lr 0.5", "lr 0.05" if int(ln.split()[1]) % 60 > 40 else "lr 0.5") for ln in lines]
    assert "loss_reset" not in signals(b, {"train.log": "\n".join(sgdr) + "\n"})


def test_a_per_step_batch_accuracy_that_stops_then_memorises_is_read_by_its_level(tmp_path):
    # the same run logged per step: 500 batches an epoch, each batch's accuracy off its level by up to
    # +-0.08 (noise wider than the plateau's band), validation once an epoch
    import math  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    rng = np.random.default_rng(0)
    lines = []
    for e in range(1, 61):
        ta = 0.6 * (1 - math.exp(-e / 3)) if e <= 25 else 0.6 + 0.38 * (1 - math.exp(-(e - 25) / 10))
        lines += [f"step={(e - 1) * 500 + i} train_acc={min(1.0, ta + rng.uniform(-0.08, 0.08)):.4f}" for i in range(500)]
        va = 0.82 * (1 - math.exp(-e / 3)) if e <= 12 else 0.82 - 0.22 * (1 - math.exp(-(e - 12) / 15))
        lines.append(f"step={e * 500 - 1} val_acc={va:.4f}")
    m = signals(tmp_path, {"train.log": "\n".join(lines) + "\n"})["memorized_after_plateau"]
    assert 23 * 500 <= m.data["step"] <= 27 * 500 and abs(m.data["level"] - 0.6) < 0.03


def test_a_test_accuracy_at_chance_after_the_training_loss_fell_is_held_out_at_chance(tmp_path):
    # a post's whole log: the training loss falls, and its one test accuracy line is 1/10
    lines = [f"Epoch [{e}/5], Step [{s}/600], Loss: {0.45 / (1 + 0.6 * (2 * (e - 1) + s // 100 - 1)):.4f}"
             for e in (1, 2, 3) for s in (100, 200)]
    (tmp_path / "log.txt").write_text("\n".join(lines) + "\nTest Accuracy of the model on the 10000 test images: 11.35 %\n")
    sigs = {s.kind: s for s in analyze(ingest([tmp_path]))}
    assert "held_out_at_chance" in sigs and sigs["held_out_at_chance"].data["classes"] == 10
    assert "healthy" not in sigs
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    d = diagnose([str(tmp_path)], [])
    assert d.status == "needs_more_data" and d.hypotheses[0].id == "preprocessing_mismatch"
    assert {"eval_mode_forgotten", "label_misalignment"} <= {h.id for h in d.hypotheses}
    # the same run scoring 98 % on its test set: nothing to explain there
    (tmp_path / "log.txt").write_text("\n".join(lines) + "\nTest Accuracy of the model on the 10000 test images: 98.2 %\n")
    assert "held_out_at_chance" not in {s.kind for s in analyze(ingest([tmp_path]))}


def test_a_separate_evaluation_far_below_training_validation_is_held_out_at_chance(tmp_path):
    # training prints a validation accuracy near 0.99; the job that loads the saved model prints 0.17 on
    # its test set, the class count nowhere: what training learned did not reach that evaluation
    (tmp_path / "training-job.log").write_text("".join(
        f"Epoch {e}: loss={1.0 / (1 + 2 * e):.4f} val_acc={min(0.99, 0.77 + 0.07 * e):.4f}\n" for e in range(6)))
    (tmp_path / "processing-job.log").write_text("Loaded weights from /opt/ml/model/model.pth\nTest accuracy: 0.1745\n")
    sig = {s.kind: s for s in analyze(ingest([tmp_path]))}.get("held_out_at_chance")
    assert sig is not None and sig.evidence[0].source == "processing-job.log"
    assert "0.990 that validation reached during training" in sig.summary
    # the same job scoring 0.97: nothing to explain
    (tmp_path / "processing-job.log").write_text("Loaded weights from /opt/ml/model/model.pth\nTest accuracy: 0.9712\n")
    assert "held_out_at_chance" not in {s.kind for s in analyze(ingest([tmp_path]))}


def test_a_loss_at_chance_alone_does_not_separate_unpaired_targets(tmp_path):
    """flat_loss_at_chance (taxonomy.yaml): a loss at ln K is the group's shared symptom and separates none
    of its members. A post's four epochs at ln 2, and its author saying so, gave label_misalignment 0.84,
    'diagnosis complete'; a live grad_norm beside it would not settle it either (real CPU runs of dead
    units, a width-1 layer, raw inputs and a deep sigmoid stack all keep one: benchmarks/torch_scenarios.py)."""
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    said = "model always predicts the same class for binary classification, loss stuck at 0.693"
    (tmp_path / "train.log").write_text("".join(f"Epoch {e}: loss=0.693 acc=0.50\n" for e in range(1, 5)))
    (tmp_path / "symptom.txt").write_text(said + "\n")
    d = diagnose([str(tmp_path)], [said])
    assert d.hypotheses[0].id == "label_misalignment" and d.hypotheses[0].confidence < 0.8
    assert d.status == "needs_more_data"
    assert any("flat_loss_at_chance" in n for n in d.needs)


def test_the_same_output_for_every_input_is_a_collapse(tmp_path):
    qa = "".join(f"question => {q}\ngenerated_sentence => <pad>.\n"
                 for q in ("Hi there", "Machine learning.", "Will you stand up for me?", "Thank God it's Friday!", "How?"))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    s = signals(tmp_path / "a", {"samples.log": "=== Use model ./model-1 ===\n\n" + qa})["log:collapse_output"]
    assert s.data["repeated"] == "<pad>." and s.data["count"] == 5 and s.evidence[0].line == 4
    # a classifier printing one class for every image
    preds = "".join(f"image {i}.jpg\nPrediction: 3\n" for i in range(6))
    assert signals(tmp_path / "b", {"eval.txt": preds})["log:collapse_output"].data["repeated"] == "3"


def test_varied_outputs_and_output_paths_are_no_collapse(tmp_path):
    varied = "".join(f"question => q{i}\ngenerated => answer number {i % 3}\n" for i in range(6))
    paths = "".join(f"epoch {e}\noutput: ./checkpoints/run1\n" for e in range(6))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert "log:collapse_output" not in signals(tmp_path / "a", {"samples.log": varied})
    assert "log:collapse_output" not in signals(tmp_path / "b", {"train.log": paths})


def test_a_tracebacks_source_lines_are_no_printed_outputs(tmp_path):
    """A serving log of 24 identical FastAPI tracebacks: each frame's source line `response = await f(request)` is
    code the frame ran, no model's response (it read as a collapse: mode_collapse 0.71 on a device error)."""
    frame = ('Traceback (most recent call last):\n'
             '  File "/usr/local/lib/python3.11/site-packages/fastapi/routing.py", line 161, in app\n'
             '    response = await f(request)\n'
             '               ^^^^^^^^^^^^^^^^\n'
             'NotImplementedError: Cannot copy out of meta tensor; no data!\n')
    (tmp_path / "a").mkdir()
    assert "log:collapse_output" not in signals(tmp_path / "a", {"serving.log": frame * 24})


def test_two_logs_naming_one_vocabulary_file_in_two_folders(tmp_path):
    """nanoGPT trained on data/stories_char (its train.log: "found vocab_size = 41 (inside data/stories_char/meta.pkl)")
    and sampled with sample.py's default dataset ("Loading meta from data/shakespeare_char/meta.pkl..."): encoded with
    one vocabulary, decoded with another (log:vocab_files_differ, tokenizer_mismatch). The same folder in both, or
    one log alone, is no such thing."""
    train = "tokens per iteration will be: 16,384\nfound vocab_size = 41 (inside data/stories_char/meta.pkl)\n"
    sample = "Overriding: out_dir = out-stories\nLoading meta from data/{}/meta.pkl...\n\nGWLN dZYW J cRVN, cQNaN\n"
    for d in "abc":
        (tmp_path / d).mkdir()
    s = signals(tmp_path / "a", {"train.log": train, "sample.log": sample.format("shakespeare_char")})["log:vocab_files_differ"]
    assert s.data["file"] == "meta.pkl" and {e.source for e in s.evidence} == {"train.log", "sample.log"}
    assert "log:vocab_files_differ" not in signals(tmp_path / "b", {"train.log": train, "sample.log": sample.format("stories_char")})
    assert "log:vocab_files_differ" not in signals(tmp_path / "c", {"train.log": train + sample.format("shakespeare_char")})
    # one folder written two ways, a hub cache's copy, checkpoints' saved copies: no other vocabulary
    for d, (x, y) in enumerate([
            ("found vocab_size = 41 (inside /home/u/nanoGPT/data/stories_char/meta.pkl)\n", sample.format("stories_char")),
            ("loading file /root/.cache/huggingface/hub/models--bert/snapshots/ab12/tokenizer.json\n",
             "Loading tokenizer from out/bert-sst2/tokenizer.json\n"),
            ("saving out/ckpt-1000/vocab.json\nsaving out/ckpt-2000/vocab.json\n", "loading out/final/vocab.json\n"),
            ("loaded /home/u/proj/artifacts/vocab.json\n", "loaded artifacts/vocab.json\n"),
            ("loaded ./tokenizer.json\n", "loaded /srv/app/tokenizer.json\n")]):
        (tmp_path / f"d{d}").mkdir()
        assert "log:vocab_files_differ" not in signals(tmp_path / f"d{d}", {"train.log": x, "sample.log": y}), d
    # ... while folders named saved/ or exports/ hold what is read
    (tmp_path / "e").mkdir()
    got = signals(tmp_path / "e", {"train.log": "found vocab_size = 41 (inside saved/stories_char/meta.pkl)\n",
                                   "sample.log": "Loading meta from saved/shakespeare_char/meta.pkl...\n"})
    assert "log:vocab_files_differ" in got


def _bert_finetune_log(lr: float) -> str:
    """transformers' stdout for a healthy BERT fine-tune: the fresh-head message, the banner, the dicts."""
    lines = ["Some weights of BertForSequenceClassification were not initialized from the model checkpoint at "
             "bert-base-uncased and are newly initialized: ['classifier.bias', 'classifier.weight']",
             "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.",
             "***** Running training *****", "  Num examples = 67349", "  Num Epochs = 3"]
    lines += ["{'loss': %.4f, 'grad_norm': 3.1, 'learning_rate': %.3e, 'epoch': %.2f}"
              % (0.6 * 0.999 ** s + 0.15, lr * (1 - s / 6000), s / 2000) for s in range(50, 6001, 50)]
    return "\n".join(lines) + "\n"


def test_a_healthy_bert_fine_tune_at_2e_5_is_no_issue(tmp_path):
    """The most common fine-tune there is: its fresh-head message and its 2e-5 are what such a run prints
    (they gave wrong_checkpoint 0.14 and lr_too_low, 'needs more data')."""
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    sigs = signals(tmp_path, {"train.log": _bert_finetune_log(2e-5)})
    assert "healthy" in sigs and "lr_tiny" not in sigs and "log:missing_keys" not in sigs
    assert "lr_jump" not in sigs      # the linear decay reaches exactly 0 at its last logged step
    assert diagnose([str(tmp_path)], []).status == "no_issue_found"
    # 1e-7 is low even for a fine-tune; and the fresh-head message stays a (weak) hint beside a run that failed
    (tmp_path / "train.log").write_text(_bert_finetune_log(1e-7))
    assert "lr_tiny" in {s.kind for s in analyze(ingest([tmp_path]))}
    (tmp_path / "train.log").write_text(_bert_finetune_log(2e-5).replace("'loss': 0.", "'loss': nan, 'x': 0.", 3))
    missing = {s.kind: s for s in analyze(ingest([tmp_path]))}.get("log:missing_keys")
    assert missing is not None and missing.data["expected"] and missing.strength <= 0.3


def test_a_lora_fine_tunes_loss_that_levels_off_is_no_plateau(tmp_path):
    """An LLM's SFT loss falls from 2.1 to 1.6 and levels off (text has entropy): from a pretrained model
    that is the expected shape, not a model stuck high; the same curve trained from scratch is a plateau."""
    hist = [{"step": s, "epoch": s / 667, "loss": round(1.6 + 0.5 * 0.99 ** s + 0.01 * ((s // 10) % 3 - 1), 4),
             "learning_rate": 2e-4, "grad_norm": 0.4} for s in range(10, 2001, 10)]
    state = json.dumps({"log_history": hist, "global_step": 2000})
    assert "plateau" in signals(tmp_path, {"trainer_state.json": state})
    (tmp_path / "lora").mkdir()
    lora = signals(tmp_path / "lora", {"trainer_state.json": state,
                                       "adapter_config.json": json.dumps({"peft_type": "LORA", "r": 16})})
    assert "plateau" not in lora
    assert ingest([tmp_path / "lora"]).metric("loss") is not None     # the same curve was read


def test_a_loader_worker_that_exited_unexpectedly_points_at_host_memory_weakly(tmp_path):
    err = ('Traceback (most recent call last):\n  File "C:\\\\proj\\\\train.py", line 44, in <module>\n'
           "    for i, (x, y) in enumerate(loader):\n"
           "RuntimeError: DataLoader worker (pid(s) 1234) exited unexpectedly\n")
    s = signals(tmp_path, {"err.txt": err})["log:host_oom"]
    assert s.strength == 0.4 and s.evidence[0].line == 4
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == "host_oom"     # it ranked device_mismatch first: only log:exception read it


def test_a_validation_that_is_nan_everywhere_is_no_healthy_run_and_its_zero_accuracy_is_the_same_failure(tmp_path):
    """Lightning's metrics.csv: training falls well, every val_loss is NaN and val_acc is 0 (NaN outputs
    score 0). Before, the zero accuracy read as a metric that measures something else (metric_changed
    0.65) and the run as healthy."""
    rows = ["epoch,step,train_loss,val_loss,val_acc"]
    for e in range(8):
        rows += [f"{e},{(e + 1) * 100},{2.0 * 0.7 ** e:.4f},,", f"{e},{(e + 1) * 100},,nan,0.0"]
    sigs = signals(tmp_path, {"metrics.csv": "\n".join(rows) + "\n"})
    assert "val_nonfinite_only" in sigs and "accuracy_zero" not in sigs and "healthy" not in sigs
    from mltdbg.playbooks.diagnose import diagnose
    assert diagnose([str(tmp_path)], []).hypotheses[0].id == "nan_in_data"


def test_layers_of_two_families_keep_the_models_order(tmp_path):
    """conv1..conv3 then fc1, fc2 (a CSV's columns): ordering by the numbers alone put conv1 and fc1 level
    and let a set's order pick the 'input side' (fc1 read as the first layer: unscaled inputs, 0.52)."""
    from mltdbg.analyzers.curves import _layer_order
    assert _layer_order(["conv1", "conv2", "conv3", "fc1", "fc2"]) == ["conv1", "conv2", "conv3", "fc1", "fc2"]
    assert _layer_order(["layer10", "layer2", "layer1"]) == ["layer1", "layer2", "layer10"]
    layers = ["conv1", "conv2", "conv3", "fc1", "fc2"]
    rows = ["epoch," + ",".join(f"{n}_grad_norm" for n in layers) + ",loss"]
    rows += [f"{e}," + ",".join(f"{g:.3e}" for g in (1e-9, 1e-7, 1e-5, 1e-3, 1e-1)) + f",{2.30 - 0.001 * e:.4f}"
             for e in range(10)]
    sigs = signals(tmp_path, {"grad_norms.csv": "\n".join(rows) + "\n"})
    assert sigs["grad_vanish_layers"].data["first_layer"] == "grad_norm/conv1"
    assert "grad_first_layer_large" not in sigs


@pytest.mark.parametrize("raw, name", [
    # PyTorch's TensorBoard tutorial names the set after the metric
    ("Loss/train", "loss"), ("Loss/test", "val_loss"), ("Accuracy/train", "accuracy"), ("Accuracy/test", "val_accuracy"),
    ("Loss/validation", "val_loss"), ("loss_train", "loss"),
    # the whole model's gradient norm under a gradients namespace is no layer's
    ("Gradients/total_norm", "grad_norm"), ("gradients/global_norm", "grad_norm"), ("grad_norm/total", "grad_norm"),
    ("gradients/fc1.weight", "grad_norm/fc1.weight"), ("something/train", "something/train"),
    # ... per step or epoch as Lightning names them, and its maximum over an update: no layers either
    ("grad/global_norm_step", "grad_norm"), ("gradients/total_norm_epoch", "grad_norm"),
    ("grad/global_norm_max", "grad_norm_max"), ("grad_norm/encoder_step", "grad_norm/encoder_step")])
def test_a_metric_named_before_its_set(raw, name):
    from mltdbg.analyzers.names import normalize
    assert normalize(raw) == name


def test_the_tensorboard_tutorials_tags_are_read_as_loss_and_grad_norm(tmp_path):
    """Loss/train and Gradients/total_norm: the grad norm's 60x growth before the NaN is read (it was a
    layer named total_norm, and the loss a series named loss/train)."""
    from torch.utils.tensorboard import SummaryWriter
    w = SummaryWriter(str(tmp_path / "runs"))
    for s in range(300):
        w.add_scalar("Loss/train", 3.0 * 0.99 ** s + 0.5 if s < 200 else 0.5 + (s - 200) * 0.05, s)
        w.add_scalar("Gradients/total_norm", 1.0 if s < 200 else 1.05 ** (s - 200), s)
    w.add_scalar("Loss/train", float("nan"), 300)
    w.close()
    run = ingest([tmp_path])
    assert {"loss", "grad_norm"} <= {s.name for s in run.series}
    # (the gradients grow once the loss climbs: read as grad_growth_with_loss since that reading exists)
    assert {"grad_growth", "grad_growth_with_loss"} & {s.kind for s in analyze(run)}


@pytest.mark.parametrize("bs, lr, high", [(2, 0.1, True), (4, 0.1, True), (32, 0.1, False), (256, 0.1, False),
                                          (256, 0.5, False), (16, 0.5, True)])
def test_an_sgd_lr_is_judged_against_its_batch_size(tmp_path, bs, lr, high):
    """SGD's lr scales with the batch (0.1 per 256): ImageNet's 0.1 at batch size 2 is high."""
    log = (f"Namespace(arch='resnet18', batch_size={bs}, epochs=90, lr={lr}, momentum=0.9, optimizer='sgd')\n"
           + "".join(f"Epoch: [0][{i * 10:4d}/5000]\tLoss {6.9 - 0.01 * i:.4f}\n" for i in range(1, 6)))
    assert ("lr_high" in signals(tmp_path, {"train.log": log})) is high


def test_a_loss_at_chance_under_an_lr_far_too_high_is_the_lr(tmp_path):
    """A BERT fine-tune at lr 0.05 (an older transformers' TrainingArguments repr, no optim line: the
    Trainer's AdamW ran) whose loss sits at ln 2 from the first logged step: the first updates blew the
    model to a constant output. Read before as unpaired targets (label_misalignment 0.29, lr_too_high
    nowhere): the lr was not judged (no optimizer named) and a loss at chance weighs against the lr."""
    text = ("TrainingArguments(\n_n_gpu=1,\nlearning_rate=0.05,\nlr_scheduler_type=linear,\nnum_train_epochs=3,\n"
            "per_device_train_batch_size=16,\nwarmup_steps=0,\n)\n"
            + "".join(f"{{'loss': {v}, 'learning_rate': {lr}, 'epoch': {e}}}\n"
                      for v, lr, e in ((0.6931, 0.049, 0.1), (0.6932, 0.048, 0.2), (0.6931, 0.047, 0.3), (0.6931, 0.046, 0.4))))
    sigs = signals(tmp_path, {"out.txt": text})
    assert "chance_under_high_lr" in sigs and sigs["lr_high"].data["lr"] == 0.049
    from mltdbg.playbooks.diagnose import diagnose
    assert diagnose([str(tmp_path)], []).hypotheses[0].id == "lr_too_high"


def test_a_short_loss_that_settles_at_chance_after_a_rise_is_at_chance(tmp_path):
    """0.6931, 0.6412, 0.7233, 0.6987, then 0.6934, 0.6932, 0.6931: a short series that came to rest at ln 2 after
    moving. Only a whole series at ln K (or all but a higher first point) was read, so the rest at chance was not."""
    vals = (0.6931, 0.6412, 0.7233, 0.6987, 0.6934, 0.6932, 0.6931)
    sigs = signals(tmp_path, {"train.log": "".join(f"epoch {i} loss {v}\n" for i, v in enumerate(vals))})
    assert "loss_at_chance" in sigs and "settled there after 3 points" in sigs["loss_at_chance"].summary
    # a loss that falls through ln 2 and keeps falling is not at chance
    vals = (0.95, 0.80, 0.6934, 0.6932, 0.6931, 0.52, 0.41)
    (tmp_path / "b").mkdir()
    assert "loss_at_chance" not in signals(tmp_path / "b", {"train.log": "".join(f"epoch {i} loss {v}\n"
                                                                                   for i, v in enumerate(vals))})


def test_a_fine_tune_lr_of_a_named_pretrained_model_is_not_low(tmp_path):
    """lr 2e-5 in a config that names bert-base-chinese, 5e-6 in a log printing a Qwen fine-tune's settings: the usual
    fine-tune lrs, read as lr_tiny ("low for the optimizer") in ten corpus posts, none of them an lr too low. A
    pretrained model named in a config, log or code head sets the fine-tune scale for lowness; a CNN from scratch
    at 2e-6 stays low."""
    (tmp_path / "a").mkdir()
    assert "lr_tiny" not in signals(tmp_path / "a", {"config.yaml": "model_name: bert-base-chinese\nlr: 2.0e-5\nepochs: 3\n"})
    (tmp_path / "b").mkdir()
    assert "lr_tiny" not in signals(tmp_path / "b", {"train.log": "train_config: {'llm_name': 'Qwen2.5-1.5B', 'lr': 5e-06, "
                                                                   "'num_epochs': 3}\n"})
    (tmp_path / "c").mkdir()
    assert "lr_tiny" in signals(tmp_path / "c", {"config.yaml": "model: resnet18\noptimizer: adam\nlr: 2.0e-6\n"})


def _hf_loss_log(train: list[float], val: list[float]) -> str:
    """Trainer-style dict lines: two train losses an epoch, then the epoch's eval; lr linear to ~0."""
    lines, n = [], len(train)
    for i, t in enumerate(train):
        lr = 2e-5 * (1 - (i + 1) / n) + 1e-8
        lines.append(f"{{'loss': {t:.4f}, 'grad_norm': 6.1, 'learning_rate': {lr:.4g}, 'epoch': {0.5 * (i + 1):.2f}}}")
        if i % 2 == 1:
            lines.append(f"{{'eval_loss': {val[i // 2]:.4f}, 'eval_accuracy': 0.64, 'epoch': {0.5 * (i + 1):.1f}}}")
    return "\n".join(lines) + "\n"


def test_a_train_loss_that_floors_then_drops_late_as_validation_worsens_is_memorisation(tmp_path):
    # labels from a noisy source: the train loss floors near 0.88 for three epochs, then falls fast
    # while the val loss climbs from its best (no train accuracy logged)
    train = [1.03, 0.94, 0.90, 0.89, 0.88, 0.87, 0.86, 0.80, 0.74, 0.65, 0.56, 0.49, 0.42, 0.38, 0.35, 0.34]
    val = [0.83, 0.81, 0.82, 0.86, 0.95, 1.08, 1.22, 1.26]
    sig = signals(tmp_path, {"trainer.log": _hf_loss_log(train, val)})
    m = sig["memorized_after_plateau"]
    assert m.data["second"] > 1.5 * m.data["first"] and m.evidence[0].line is not None
    # (the val rise beside an unfitted train set stays below a finding's strength)
    assert sig["train_val_divergence"].strength <= 0.25
    # the linear decay's last points (ratio 5x, one usual step apart) are no lr jump
    assert "lr_jump" not in sig


def test_a_train_loss_that_falls_fastest_first_is_overfitting_not_memorisation(tmp_path):
    train = [1.03, 0.70, 0.52, 0.41, 0.33, 0.27, 0.22, 0.18, 0.15, 0.12, 0.10, 0.085, 0.07, 0.06, 0.05, 0.045]
    val = [0.60, 0.55, 0.57, 0.62, 0.70, 0.78, 0.85, 0.90]
    sig = signals(tmp_path, {"trainer.log": _hf_loss_log(train, val)})
    assert "memorized_after_plateau" not in sig and sig["train_val_divergence"].strength > 0.25


def _stall_jsonl(lr_of) -> str:
    """146 records every 10 steps: a loss that falls for 20 records, then sits at 2.04 (10 classes)."""
    return "".join(json.dumps({"step": 10 * i, "loss": round(2.29 - 0.0125 * min(i, 20) + 0.0005 * (i % 3), 5),
                               "lr": lr_of(i)}) + "\n" for i in range(1, 147))


def test_a_loss_that_stops_when_the_lr_collapses_is_the_schedule(tmp_path):
    """A StepLR meant per epoch (step_size 10) stepped per batch: the lr halves every 10 steps (1e-40 by the
    end) and the loss stops moving at 2.04: the stall is what an lr of ~0 does to any model. Read before as a
    plateau too (here lr_schedule_bug 0.56, plateau_underfitting 0.27; a benchmark-style run with its accuracy
    frozen as well: plateau_underfitting 0.50 first, lr_schedule_bug 5th)."""
    sigs = signals(tmp_path, {"metrics.jsonl": _stall_jsonl(lambda i: 0.05 * 0.5 ** (i // 1)),
                              "config.yaml": "optimizer: sgd\nlr: 0.05\nscheduler: {name: step, step_size: 10}\n"})
    assert "stall_under_lr_collapse" in sigs and not {"plateau", "below_chance_stuck", "no_gap_unfitted"} & set(sigs)
    from mltdbg.playbooks.diagnose import diagnose
    d = diagnose([str(tmp_path)], ["training loss stops improving at about 2.04 and sits flat"])
    assert d.hypotheses[0].id == "lr_schedule_bug" and all(h.confidence < 0.1 for h in d.hypotheses[1:])


def _composer_console(lr_of) -> str:
    """MosaicML Composer's console: per-batch blocks of tab-indented "Train <name>: <value>" lines, an eval block per
    epoch. A 6-class model whose loss sits near 1.8 from the first logged batch."""
    out, b = [], 0
    for e in range(1, 31):
        for k in (20, 40, 60):
            b += 20
            out += [f"[epoch={e}][batch={k}/60]:", f"\t Train time/epoch: {e - 1}", f"\t Train time/batch: {b - 1}",
                    f"\t Train loss/train/total: {1.81 + 0.02 * ((b // 20) % 3 - 1):.4f}",
                    f"\t Train metrics/train/MulticlassAccuracy: {0.519 + 0.002 * ((b // 20) % 2):.4f}",
                    f"\t Train lr-SGD/group0: {lr_of(b):.4f}"]
        out += ["[Eval batch=2/2] Eval on eval data:", "\t Eval metrics/eval/MulticlassAccuracy: 0.5310",
                "\t Eval metrics/eval/CrossEntropy: 1.8186"]
    return "\n".join(out) + "\n"


def test_composer_names_and_a_loss_flat_from_the_start_under_an_lr_gone_to_zero(tmp_path):
    """Composer's "loss/train/total", "metrics/eval/MulticlassAccuracy" and "lr-SGD/group0" are the loss, the validation
    accuracy and the lr; an lr stepped per batch that is 0.0000 from the fifth logged batch leaves the loss flat from its
    first logged point: the collapse's stall (read before as a loss stuck at chance, and the names not at all)."""
    sigs = signals(tmp_path, {"console.log": _composer_console(lambda b: 0.05 * 0.25 ** (b // 20))})
    assert "stall_under_lr_collapse" in sigs and "loss_at_chance" not in sigs
    from mltdbg.analyzers.ingest import ingest
    names = {x.name for x in ingest([tmp_path]).series}
    assert {"loss", "accuracy", "lr", "val_accuracy", "val_loss", "epoch", "step"} <= names
    # a TensorBoard tag of an epoch's duration ("Time/epoch") is no epoch counter
    from mltdbg.analyzers.names import normalize
    assert normalize("Time/epoch") != "epoch" and normalize("Train time/epoch") == "epoch"
    # under a steady lr the same flat loss is no schedule's
    assert "stall_under_lr_collapse" not in signals(tmp_path, {"console.log": _composer_console(lambda b: 0.05)})


def test_a_plateau_under_a_steady_lr_stays_a_plateau(tmp_path):
    sigs = signals(tmp_path, {"metrics.jsonl": _stall_jsonl(lambda i: 0.05)})
    assert "plateau" in sigs and "stall_under_lr_collapse" not in sigs
    # ... and one long flat before the lr is cut to 0 late in the run stopped on its own
    sigs = signals(tmp_path, {"metrics.jsonl": _stall_jsonl(lambda i: 0.05 if i < 110 else 0.0)})
    assert "plateau" in sigs and "stall_under_lr_collapse" not in sigs


def test_a_rising_val_loss_beside_a_near_perfect_val_accuracy_is_weak_overfitting(tmp_path):
    """A churn model at 0.99 test accuracy from epoch 2 on, its test loss 0.014 -> 0.019 (a few confident errors):
    no model that got worse on held-out data. Read before as overfitting 0.85 (the numbers: a Korean post's log,
    its features leaking the target)."""
    def log(accs):
        return "".join(f"epoch {e} loss={0.34 / e:.4f} acc={min(0.996, 0.86 + 0.03 * e):.4f} "
                       f"val_loss={0.0144 + 0.0003 * abs(e - 4) ** 1.2:.4f} val_acc={a:.4f}\n"
                       for e, a in zip(range(1, 21), accs))
    (tmp_path / "train.log").write_text(log([0.983] + [0.995 - 0.0002 * e for e in range(19)]))
    held = {s.kind: s for s in analyze(ingest([tmp_path]))}["train_val_divergence"]
    assert held.strength <= 0.25 and "validation accuracy holds at 0.99" in held.summary
    # the same losses with validation accuracy falling from 0.99 to 0.95: overfitting as before
    (tmp_path / "train.log").write_text(log([0.983] + [0.995 - 0.0025 * e for e in range(19)]))
    fell = {s.kind: s for s in analyze(ingest([tmp_path]))}["train_val_divergence"]
    assert fell.strength == 1.0 and "holds" not in fell.summary


def test_a_loss_below_ln_k_with_validation_at_chance_is_held_out_at_chance(tmp_path):
    """A 4-class sensor model whose features and labels were sorted by different keys: the training loss creeps from
    ln 4 to 1.24 (it memorises) while validation accuracy stays at 24 %. A model learning slowly on paired data is
    above chance on held-out data by the time its loss is 0.15 nats under ln K."""
    lines = []
    for e in range(1, 41):
        lines += [f"Epoch(train) [{e}][{i}/25]  lr: 1.0000e-03  loss: {1.3913 - 0.0038 * (e - 1) - 0.0002 * i:.4f}"
                  for i in (10, 20, 25)]
        lines.append(f"Epoch(val) [{e}][1/1]    accuracy/top1: {24.0 + (1.5 if e % 3 == 0 else -0.4):.4f}")
    (tmp_path / "20261206_220936.log").write_text("\n".join(lines) + "\n")
    sig = {s.kind: s for s in analyze(ingest([tmp_path]))}.get("held_out_at_chance")
    assert sig is not None and sig.data["classes"] == 4 and "below ln 4" in sig.summary
    # the same loss with validation climbing to 40 %: learning, slowly
    (tmp_path / "20261206_220936.log").write_text("\n".join(
        ln.replace("accuracy/top1: 2", "accuracy/top1: 3").replace("accuracy/top1: 3", "accuracy/top1: 4")
        for ln in lines) + "\n")
    assert "held_out_at_chance" not in {s.kind for s in analyze(ingest([tmp_path]))}


@pytest.mark.parametrize("line, collapsed", [
    ("[Epoch 3/25] eval: modes 0/8, high-quality 0.0%, sample std (0.06, 0.03)", True),
    ("==> epoch 15: generated digits cover 1/10 classes, FD 121.3", True),
    ("eval: modes covered: 2 of 25", True),
    ("[Epoch 3/25] eval: modes 7/8, high-quality 81.0%", False),
    ("==> epoch 15: generated digits cover 10/10 classes, FD 2.3", False),
    ("modes 1/2", False),                                       # too few kinds to call it a collapse
])
def test_a_printed_mode_coverage_that_covers_few_kinds_is_a_collapse(tmp_path, line, collapsed):
    sigs = signals(tmp_path, {"log.txt": "[Epoch 0/25] [Batch 0/100] [D loss: 0.68] [G loss: 0.59]\n" + line + "\n"})
    assert ("log:collapse_output" in sigs) is collapsed


@pytest.mark.parametrize("line", ["replay buffer covered 1000/10000 transitions", "Test coverage: 3 of 40 modules skipped"])
def test_a_coverage_that_names_no_modes_or_classes_is_no_collapse(tmp_path, line):
    assert "log:collapse_output" not in signals(tmp_path, {"log.txt": "step 1 loss=0.5\n" + line + "\n"})


_GCN_REPR = ("Net(\n  (emb): Embedding(4000, 256)\n  (conv1): GCNConv(\n    272, 8\n"
             "    (lin): Linear(in_features=272, out_features=8, bias=True)\n  )\n  (conv2): GCNConv(\n    8, 5\n"
             "    (lin): Linear(in_features=8, out_features=5, bias=True)\n  )\n  (drop): Dropout(p=0.5, inplace=False)\n)\n")


def test_printed_torch_module_with_an_embedding_holding_the_budget(tmp_path):
    """print(model) gives each leaf's sizes: a 4000 x 256 embedding per node beside a GCN body 8 units wide
    holds 99.8% of the parameters (PyG-style run, with no parameter table printed)."""
    s = signals(tmp_path, {"nohup.out": _GCN_REPR + "Epoch: 001, Loss: 1.6119, Train: 0.2220, Val: 0.2140\n"})
    assert s["log:param_imbalance"].data["part"] == "emb" and s["log:param_imbalance"].data["share"] > 0.99
    assert s["log:param_imbalance"].evidence[0].line == 2


@pytest.mark.parametrize("model", [
    # an LSTM body four times the embedding's size
    "Net(\n  (emb): Embedding(1000, 32)\n  (rnn): LSTM(32, 128, num_layers=2, batch_first=True)\n"
    "  (fc): Linear(in_features=128, out_features=2, bias=True)\n)\n",
    # a word-level LSTM classifier: a 20,000 x 100 table beside a 128-wide LSTM is an ordinary design
    "Net(\n  (emb): Embedding(20000, 100)\n  (rnn): LSTM(100, 128, batch_first=True)\n"
    "  (fc): Linear(in_features=128, out_features=2, bias=True)\n)\n",
    # a layer whose parameters the print does not give: the split is not read
    "Net(\n  (emb): Embedding(4000, 256)\n  (body): MyBlock(272, 4096)\n  (fc): Linear(in_features=8, out_features=5, bias=True)\n)\n",
])
def test_printed_torch_module_with_a_body_or_an_unknown_layer_is_no_imbalance(tmp_path, model):
    assert "log:param_imbalance" not in signals(tmp_path, {"out.log": model})


def _frame(scaled_cols: int):
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(0)
    df = pd.DataFrame({f"f{i}": rng.normal(0, 1, 400) for i in range(scaled_cols)})
    df["annual_income"] = rng.normal(60000, 20000, 400)
    return df


@pytest.mark.parametrize("form", ["transposed", "transposed_truncated", "printed", "printed_wrapped"])
def test_a_described_frame_scaled_but_for_one_column(tmp_path, form):
    """X_train.describe() after preprocessing: eight columns of mean 0 / std 1 and an income column left at std
    ~20,000 (the scaler's column list missed it); transposed or as printed, whole, truncated by pandas ("..." for
    std) or wrapped in blocks whose header line ends in a backslash. Cited at a line that shows the column."""
    import pandas as pd
    d = _frame(8).describe()
    text = {"transposed": d.T.to_string(), "transposed_truncated": str(d.T), "printed": d.to_string()}.get(form)
    if form == "printed_wrapped":
        with pd.option_context("display.width", 60, "display.max_columns", 50, "display.expand_frame_repr", True):
            text = str(d)
        assert "\\\n" in text
    s = signals(tmp_path, {"console.txt": "X_train after preprocessing:\n" + text + "\n"})["log:inputs_unscaled"]
    assert s.data["column"] == "annual_income"
    q = s.evidence[0].quote
    assert q.startswith("annual_income") or (q.startswith("std") and f"{d['annual_income']['std']:.0f}"[:3] in q.replace(",", ""))


def test_describe_before_and_after_the_scaler_is_no_finding(tmp_path):
    """The raw frame's describe(), then the scaled one's (every column standardised): two tables, not one whose
    income column was left out."""
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(2)
    raw = pd.DataFrame({"age": rng.normal(40, 10, 400), "tenure": rng.normal(30, 12, 400), "visits": rng.normal(8, 3, 400),
                        "balance": rng.normal(2000, 900, 400), "annual_income": rng.normal(6e4, 2e4, 400)})
    scaled = (raw - raw.mean()) / raw.std()
    with pd.option_context("display.width", 60, "display.max_columns", 50):
        text = "before:\n" + str(raw.describe()) + "\nafter:\n" + str(scaled.describe()) + "\n"
    assert np.isfinite(scaled.values).all()
    assert "log:inputs_unscaled" not in signals(tmp_path, {"console.txt": text})


def test_a_described_raw_frame_is_no_finding(tmp_path):
    """The raw data's describe() (ages, incomes, counts at their own sizes) says nothing about the model's inputs."""
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(1)
    raw = pd.DataFrame({"age": rng.normal(40, 10, 300), "income": rng.normal(6e4, 2e4, 300),
                        "visits": rng.poisson(5, 300), "score": rng.normal(0, 1, 300)})
    assert "log:inputs_unscaled" not in signals(tmp_path, {"console.txt": str(raw.describe().T) + "\n" + str(raw.describe())})
    # ... nor a raw frame of one-hot columns and flags beside its incomes (a gradient-boosting input)
    onehot = pd.get_dummies(pd.Series(rng.integers(0, 6, 300)).astype(str), prefix="region").astype(float)
    onehot["income"] = rng.normal(6e4, 2e4, 300)
    onehot["customer_id"] = np.arange(300) * 1000.0
    (tmp_path / "b").mkdir()
    assert "log:inputs_unscaled" not in signals(tmp_path / "b", {"console.txt": onehot.describe().T.to_string() + "\n"})


def test_outputs_printed_beside_inputs_or_listed_under_a_caption_are_read(tmp_path):
    """A VAE's reconstructions as "in : <input>" / "out: <output>" pairs, and its prior samples listed one a line under
    "samples from prior:", all the same string: a collapse. A bare "out:" without inputs, and printed shapes listed
    under an "Outputs:" caption, are not."""
    pairs = "".join(f"  in : C{'C' * i}O\n  out: CC(=O)NC1CCCC1\n" for i in range(5))
    listed = "samples from prior:\n" + "  CC(=O)NC1CCCC1\n" * 6 + "\nunique: 1/1000\n"
    for d in "abcd":
        (tmp_path / d).mkdir()
    assert signals(tmp_path / "a", {"stdout.txt": "reconstructions (val):\n" + pairs})["log:collapse_output"].data[
        "repeated"] == "CC(=O)NC1CCCC1"
    assert signals(tmp_path / "b", {"stdout.txt": listed})["log:collapse_output"].data["count"] == 6
    assert "log:collapse_output" not in signals(tmp_path / "c", {"run.log": "".join("out: 32\n" for _ in range(6))})
    shapes = "Outputs:\n" + "torch.Size([32, 10])\n" * 6
    assert "log:collapse_output" not in signals(tmp_path / "d", {"run.log": shapes})
    # review cases (stop 64): a layer's shapes and channel counts printed as in/out pairs
    for i, pair in enumerate(("in: torch.Size([32, 3, 224, 224])\nout: torch.Size([32, 10])\n", "in: 64\nout: 64\n")):
        (tmp_path / f"e{i}").mkdir()
        assert "log:collapse_output" not in signals(tmp_path / f"e{i}", {"shapes.log": pair * 6})


def test_a_printed_dict_of_zero_shares_per_relu_is_dead_units(tmp_path):
    """An IPython cell that hooks the ReLUs and prints each one's share of zero outputs: {'relu1': 0.686, 'relu3': 0.989,
    'relu5': 0.977} under "(v == 0).float().mean()". The same dict of mean activations (no zero test above it), or of
    shares under one half, is no such reading."""
    cell = ("In [34]: with torch.no_grad():\n    ...:     _ = model(Xva)\n"
            "    ...: {k: round((v == 0).float().mean().item(), 3) for k, v in acts.items()}\n")
    for d in "abc":
        (tmp_path / d).mkdir()
    got = signals(tmp_path / "a", {"session.txt": cell + "Out[34]: {'relu1': 0.686, 'relu3': 0.989, 'relu5': 0.977}\n"})
    assert got["dead_units"].data["share"] == 0.989 and got["dead_units"].data["layer"] == "relu3"
    means = cell.replace("(v == 0).float().mean()", "v.mean()") + "Out[34]: {'relu1': 0.686, 'relu3': 0.989}\n"
    assert "dead_units" not in signals(tmp_path / "b", {"session.txt": means})
    assert "dead_units" not in signals(tmp_path / "c", {"session.txt": cell + "Out[34]: {'relu1': 0.12, 'relu3': 0.31}\n"})
