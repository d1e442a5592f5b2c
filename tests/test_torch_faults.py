"""Faults that real CPU torch runs show in their logs (tests/torch_runs.py: fault_step_log): a broken
init's scale, a per-epoch schedule stepped per batch, validation summaries printed without a step."""
from __future__ import annotations

import json

from mltdbg.analyzers.analyze import analyze
from mltdbg.analyzers.ingest import ingest
from mltdbg.playbooks.diagnose import diagnose
from tests.torch_runs import cluster_history, fault_step_log


def _read(tmp_path, text: str):
    (tmp_path / "train.log").write_text(text)
    run = ingest([str(tmp_path)])
    return run, {s.kind: s for s in analyze(run)}, diagnose([str(tmp_path)], [])


def test_validation_lines_with_an_epoch_and_no_step_sit_at_that_epochs_last_step(tmp_path):
    # "Epoch 1/6 | Step 60 | Loss: ..." per step, then "Epoch 1/6 | Validation Loss: ..." per epoch:
    # the validation points were at steps 1..6 (the epoch numbers), before every training step
    run, _, _ = _read(tmp_path, fault_step_log("none", style="pipe"))
    val, loss = run.metric("val_loss"), run.metric("loss")
    assert not val.step_is_index
    assert val.steps.tolist() == [60, 120, 190, 250, 320, 380]          # the last step logged in each epoch
    assert loss.steps[0] == 10 and len(loss) == 38


def test_epoch_lines_keep_their_numbers_where_no_step_lines_come_between_them(tmp_path):
    # two epochs' summaries printed after one stretch of step lines (a second phase): no new step
    # between them, so they keep their epoch numbers rather than pile onto one step
    text = "".join(f"step {s} loss={1 / s:.3f}\n" for s in range(1, 6)) + \
        "".join(f"Epoch {e} | Validation Loss: {0.5 - e / 100:.3f}\n" for e in range(1, 5))
    run, _, _ = _read(tmp_path, text)
    assert run.metric("val_loss").steps.tolist() == [1, 2, 3, 4]


def test_a_scheduler_stepped_every_batch_is_a_schedule_bug_not_a_plateau(tmp_path):
    # StepLR(step_size=30, gamma=0.5) meant per epoch, stepped per batch: the lr halves every 30 steps,
    # under 1/1000 of its peak at step ~300 of 384 while the loss stops falling; a Trainer's dict lines
    _, sigs, d = _read(tmp_path, fault_step_log("steplr_per_batch", style="hf"))
    assert sigs["lr_schedule_odd"].data["detail"] == "collapse"
    assert d.hypotheses[0].id == "lr_schedule_bug"


def test_a_huge_first_loss_that_trains_down_is_the_init_scale_not_the_lr(tmp_path):
    # weights drawn with std 3: the loss starts at ~1,600 and trains down to ~1 by the end; the val loss
    # falling to 1 % of that start is no "near perfect" validation
    _, sigs, d = _read(tmp_path, fault_step_log("bad_init"))
    assert "huge_start_recovers" in sigs and "val_near_perfect" not in sigs
    assert d.hypotheses[0].id == "bad_initialization"
    assert "lr_too_high" not in [h.id for h in d.hypotheses[:1]]


def test_a_collapse_to_chance_after_a_huge_start_is_not_a_recovery(tmp_path):
    # inputs scaled by 500 and shifted by 1,000: a first loss of ~3,000, then flat at ln 4 (the ReLUs died)
    _, sigs, _ = _read(tmp_path, fault_step_log("raw_inputs", style="pipe"))
    assert "collapsed_to_chance" in sigs and "huge_start_recovers" not in sigs


def test_a_trainers_dict_lines_without_steps_still_compare_validation_with_training(tmp_path):
    # HF Trainer's stdout: {'loss': ..., 'epoch': 0.25} and {'eval_loss': ..., 'epoch': 1.0}, no step anywhere;
    # the lines' order is the time axis: validation at half the training loss is read as such
    lines = []
    for e in range(6):
        lines += [str({"loss": round(1.2 - 0.01 * e + 0.02 * (i % 2), 4), "epoch": round(e + i / 4, 2)}) for i in range(1, 5)]
        lines.append(str({"eval_loss": round(0.5 - 0.01 * e, 4), "epoch": float(e + 1)}))
    run, sigs, _ = _read(tmp_path, "\n".join(lines) + "\n")
    assert run.metric("val_loss").step_is_index and run.metric("loss").step_is_index
    assert sigs["val_above_train"].data["by"] == "loss" and sigs["val_above_train"].data["ratio"] > 2


def test_a_run_at_chance_under_a_weight_decay_of_5_is_the_optimizer_setting_not_unpaired_targets(tmp_path):
    # SGD with weight_decay=5.0: the weights are held near 0, the loss sits at ln 4 from the first step
    (tmp_path / "config.yaml").write_text("optimizer: sgd\nlr: 0.01\nmomentum: 0.9\nweight_decay: 5.0\n")
    _, sigs, d = _read(tmp_path, fault_step_log("huge_weight_decay"))
    assert "loss_at_chance" in sigs and "config:weight_decay_high" in sigs
    assert d.hypotheses[0].id == "optimizer_misconfigured"
    assert d.hypotheses[0].confidence > 2 * max(h.confidence for h in d.hypotheses[1:])


def test_a_run_at_chance_with_eight_sigmoid_layers_in_its_config_is_vanishing_not_unpaired_targets(tmp_path):
    # eight 64-wide sigmoid layers under SGD: the loss never leaves ln 4; a Trainer's dict lines, whose val
    # accuracy repeats exactly (the outputs hardly move), beside a config.json naming the stack
    (tmp_path / "config.json").write_text('{"activation": "sigmoid", "hidden_layers": [64, 64, 64, 64, 64, 64, 64, 64]}\n')
    _, sigs, d = _read(tmp_path, fault_step_log("deep_sigmoid", style="hf", seed=1))
    assert "config:deep_saturating" in sigs and "loss_at_chance" in sigs
    assert d.hypotheses[0].id == "vanishing_gradients"


def test_sgd_at_lr_10_whose_val_loss_swings_is_a_too_high_lr_not_overfitting(tmp_path):
    # SGD at lr 10: the training loss swings between 3 and 25 (above ln 4 all run); validation's best is its
    # first evaluation (3.05) and it wanders up from there; the training loss never gets below that best
    (tmp_path / "config.yaml").write_text("optimizer: sgd\nlr: 10\nmomentum: 0.9\n")
    _, sigs, d = _read(tmp_path, fault_step_log("sgd_lr_10", style="pipe"))
    assert "train_val_divergence" not in sigs and "lr_high" in sigs
    assert d.hypotheses[0].id == "lr_too_high"
    assert "overfitting" not in [h.id for h in d.hypotheses[:2]]


def test_a_huge_first_loss_that_trains_down_and_then_holds_is_a_recovery_too(tmp_path):
    # weights with std 3 on other data: 1,075 at the first point, then ~1.1-1.3 with blips for the second half
    _, sigs, d = _read(tmp_path, fault_step_log("bad_init", seed=2))
    assert "huge_start_recovers" in sigs
    assert d.hypotheses[0].id == "bad_initialization"


def test_a_grad_norm_blip_of_one_and_a_half_times_its_neighbours_is_a_weak_spike(tmp_path):
    # hidden layers one unit wide: the grad norm wanders 0.3-0.7 batch to batch; its largest blip, 1.5x the
    # local median, was read as a grad spike of strength 0.42 (exploding_gradients first at 0.30)
    _, sigs, _ = _read(tmp_path, fault_step_log("width_1", style="hf"))
    spike = sigs.get("grad_spike")
    assert spike is None or (spike.data["ratio"] < 2 and spike.strength < 0.2)
    # a real spike keeps its full strength: the std-3 init run's 39x grad norm blip
    _, sigs, _ = _read(tmp_path, fault_step_log("bad_init", seed=2))
    assert sigs["grad_spike"].data["ratio"] > 10 and sigs["grad_spike"].strength >= 0.9


def test_a_loss_that_falls_at_lr_10_with_no_optimizer_named_is_not_a_healthy_run(tmp_path):
    # SGD at lr 10, a Trainer's dict lines with learning_rate 10.0 and nothing naming the optimizer: the loss
    # falls 70 % (from 11 to 3.5, still above ln 4) while val accuracy stays near 1/4; that was "no issue found"
    _, sigs, d = _read(tmp_path, fault_step_log("sgd_lr_10", style="hf", seed=3))
    assert sigs["lr_high"].data["lr"] == 10 and "healthy" not in sigs
    assert d.status != "no_issue_found" and d.hypotheses[0].id == "lr_too_high"


def test_validation_from_other_preprocessing_in_a_trainers_dict_lines_is_a_gap_from_the_start(tmp_path):
    # raw features x 40 + 25, standardised for training only: eval_loss ~18 from the first evaluation while the
    # training loss falls to ~0.3; printed as a Trainer's dict lines (no steps), this was overfitting 0.48
    run, sigs, d = _read(tmp_path, fault_step_log("val_not_normalized", style="hf", seed=3))
    assert "val_gap_from_start" in sigs and "train_val_divergence" not in sigs
    ev = sigs["val_gap_from_start"].evidence[0]
    assert ev.source == "train.log" and "eval_loss" in ev.quote
    assert d.hypotheses[0].id != "overfitting" and "preprocessing_mismatch" in [h.id for h in d.hypotheses[:2]]


def test_noisy_training_labels_trail_a_clean_validation_set_before_they_are_memorised(tmp_path):
    # 40 % of the training labels redrawn at random, Keras history: validation accuracy (clean labels) sits
    # ~0.1 above training accuracy for the first third, then training overtakes it as the noise is memorised
    # and validation falls; that was lr_too_low 0.32 / label_noise 0.29 (and overfitting 0.93 on other runs)
    (tmp_path / "history.json").write_text(json.dumps(cluster_history(1e-3, False, epochs=30, n=2048, label_noise=0.4)))
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert sigs["val_above_train_early"].data["early"] >= 0.08 and "healthy" not in sigs
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == "label_noise"
    assert "overfitting" not in [h.id for h in d.hypotheses[:2]]


def test_clean_labels_overfit_with_training_ahead_from_the_start(tmp_path):
    # the same MLP on 2,048 clean samples, three hidden layers: training accuracy leads from its first epochs
    (tmp_path / "history.json").write_text(json.dumps(cluster_history(3e-3, False, epochs=40, n=2048, hidden=3)))
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert "val_above_train_early" not in sigs
    assert diagnose([str(tmp_path)], []).hypotheses[0].id == "overfitting"


def test_an_lr_that_starts_at_its_peak_is_a_warm_up_hint_only_for_a_transformer(tmp_path):
    # a small MLP at a constant lr 0.01, nothing naming its optimizer, needs no warm-up: no hint (it was one,
    # and lr_schedule_bug trailed every ranking on it); the same log beside a config naming a BERT
    # tokenizer keeps it
    _, sigs, _ = _read(tmp_path, fault_step_log("none", style="hf"))
    assert "lr_no_warmup" not in sigs
    (tmp_path / "config.json").write_text('{"tokenizer_name": "bert-base-uncased", "learning_rate": 0.01}\n')
    _, sigs, _ = _read(tmp_path, fault_step_log("none", style="hf"))
    assert "lr_no_warmup" in sigs
