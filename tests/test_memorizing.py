"""A training loss that creeps down from chance: memorising unpaired targets (validation rises from its
first evaluation) or learning with a too-small lr (validation falls with it). Real CPU torch runs."""
from __future__ import annotations

import json

from mltdbg.analyzers.analyze import analyze
from mltdbg.analyzers.ingest import ingest
from mltdbg.playbooks.diagnose import diagnose
from tests.torch_runs import cluster_history, cluster_step_log


def _run(tmp_path, lr: float, shuffled: bool):
    (tmp_path / "history.json").write_text(json.dumps(cluster_history(lr, shuffled)))
    (tmp_path / "config.yaml").write_text(f"optimizer: adam\nlearning_rate: {lr}\nbatch_size: 32\n")
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    return sigs, diagnose([str(tmp_path)], [])


def test_targets_shuffled_apart_from_inputs_are_memorised_from_chance_not_overfit(tmp_path):
    sigs, d = _run(tmp_path, 1e-3, shuffled=True)
    assert "memorizing_from_start" in sigs and "train_val_divergence" not in sigs
    assert sigs["memorizing_from_start"].evidence[0].source == "history.json"
    assert d.hypotheses[0].id == "label_misalignment" and d.status == "needs_more_data"
    assert "overfitting" not in [h.id for h in d.hypotheses[:2]]


def test_a_tiny_lr_creeping_down_from_chance_is_slow_learning_not_memorising(tmp_path):
    sigs, d = _run(tmp_path, 1e-5, shuffled=False)
    assert "memorizing_from_start" not in sigs
    assert "slow_descent" in sigs and "loss_at_chance" in sigs       # it barely moved, but it moved steadily
    assert d.hypotheses[0].id == "lr_too_low"


def test_a_train_accuracy_that_falls_back_under_adam_lr_0_1_is_unstable_steps_not_a_cap(tmp_path):
    # a real run: three hidden ReLU layers, Adam at lr 0.1 (ten times a usual top): train accuracy
    # reaches ~0.65 by the middle of the run and gives it back (0.47 at the end)
    (tmp_path / "history.json").write_text(json.dumps(cluster_history(0.1, False, epochs=20, hidden=3)))
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert "train_acc_falls" in sigs and "train_acc_capped" not in sigs
    assert sigs["train_acc_falls"].data["middle"] - sigs["train_acc_falls"].data["level"] > 0.05
    d = diagnose([str(tmp_path)], [])
    # (no lr in the history: a divergence and a falling train accuracy alone. Their strengths follow the
    # run's own numbers, which move with the CPU torch computes on: 0.83 on one machine, below 0.8 on another)
    assert d.hypotheses[0].id == "lr_too_high" and d.hypotheses[0].confidence < 0.9
    assert "label_noise" not in [h.id for h in d.hypotheses[:3]]


def test_a_first_loss_far_above_chance_that_then_sits_at_chance_is_a_collapse_not_learning(tmp_path):
    # a real run: Adam at lr 0.2 blows the MLP up in its first epoch (loss 5.27), after which it
    # predicts the class prior: loss 1.39 +- 0.02 at ln 4 and train accuracy 0.25 to the end
    (tmp_path / "history.json").write_text(json.dumps(cluster_history(0.2, False, epochs=20)))
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert "healthy" not in sigs                     # was: "loss falls 74% from 5.272 to 1.391"
    assert sigs["loss_at_chance"].data["k"] == 4 and sigs["collapsed_to_chance"].data["first"] > 5
    d = diagnose([str(tmp_path)], [])
    assert d.status == "needs_more_data"
    assert {h.id for h in d.hypotheses[:2]} == {"dead_relu", "lr_too_high"}


def test_a_grad_norm_that_grows_then_holds_four_digits_is_a_sum_never_zeroed(tmp_path):
    # a real run without optimizer.zero_grad(): the gradient buffer sums every backward; its norm grows
    # from ~3 to ~1540 and then holds 1539.x while the loss runs away
    (tmp_path / "train.log").write_text(cluster_step_log(zero_grad=False))
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert sigs["grad_pinned"].data["value"] > 1000 and sigs["grad_pinned"].data["points"] >= 10
    d = diagnose([str(tmp_path)], [])
    # the log alone: at the bar at most (0.80 after the refit with batch 56, 0.79 before); the code settles it
    assert d.hypotheses[0].id == "missing_zero_grad" and d.hypotheses[0].confidence < 0.85
    # the same run with zero_grad(): gradients computed afresh, nothing pinned, nothing failing
    (tmp_path / "train.log").write_text(cluster_step_log(zero_grad=True))
    assert "grad_pinned" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert diagnose([str(tmp_path)], []).status == "no_issue_found"
    # a norm logged after clipping at 1.0 sits at 1.0000 once the gradients outgrow the threshold
    (tmp_path / "train.log").write_text("".join(f"step={i} loss={2.0 - 0.01 * i:.4f} grad_norm={min(1.0, 0.01 * 1.2 ** i):.4f}\n"
                                                for i in range(60)))
    assert "grad_pinned" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_loss_at_chance_beside_a_printed_model_of_eight_sigmoid_layers_ranks_vanishing_gradients(tmp_path):
    # what print(model) shows for a deep sigmoid MLP, beside a run whose loss never leaves ln 4
    import torch  # noqa: PLC0415

    layers: list = [torch.nn.Linear(20, 64), torch.nn.Sigmoid()]
    for _ in range(7):
        layers += [torch.nn.Linear(64, 64), torch.nn.Sigmoid()]
    (tmp_path / "model.txt").write_text(str(torch.nn.Sequential(*layers, torch.nn.Linear(64, 4))) + "\n")
    (tmp_path / "train.log").write_text("".join(f"step={10 * i} loss={1.3863 + 0.004 * ((-1) ** i):.4f}\n"
                                                for i in range(1, 60)))
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == "vanishing_gradients" and d.status == "needs_more_data"
    assert any(e.source == "model.txt" for e in d.hypotheses[0].evidence)


def test_a_loss_that_rises_and_falls_with_each_class_block_of_an_unshuffled_epoch_is_data_order(tmp_path):
    # a real run on a training set sorted by label and never shuffled, logged every step: the loss
    # climbs at each new class block (16 batches) and falls through it, the same way each epoch
    (tmp_path / "train.log").write_text(cluster_step_log(zero_grad=True, epochs=6, sorted_by_class=True, every=1))
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert 64 % sigs["sawtooth_epoch"].data["period"] == 0 and "per epoch of 64 points" in sigs["sawtooth_epoch"].summary
    assert "oscillation" not in sigs and "train_val_gap_end" not in sigs
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == "data_not_shuffled" and d.status == "needs_more_data"


def test_a_loss_flat_at_the_cross_entropy_floor_of_probabilities_is_a_softmax_before_the_loss(tmp_path):
    # a real run whose model ends in nn.Softmax before cross_entropy: it ranks the classes well (val
    # accuracy ~0.8) but its loss flattens just above log(e + 3) - 1 = 0.744 and never goes below it
    (tmp_path / "train.log").write_text(cluster_step_log(epochs=30, softmax_output=True, adam=True))
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert sigs["loss_at_softmax_floor"].data["k"] == 4
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == "double_softmax" and d.status == "needs_more_data"
    # the same model without the softmax goes well below that floor: no such signal
    (tmp_path / "train.log").write_text(cluster_step_log(epochs=30, adam=True))
    assert "loss_at_softmax_floor" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_loss_that_scatters_like_single_samples_points_at_the_batch_not_the_lr(tmp_path):
    # a real run at batch size 1 (momentum SGD, lr 0.01), logged every step: each logged loss is one
    # sample's, jumping by several times its median from step to step
    (tmp_path / "train.log").write_text(cluster_step_log(epochs=2, every=1, batch=1))
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert sigs["loss_per_sample_noise"].data["ratio"] >= 2.5
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == "batch_size_too_small" and d.status == "needs_more_data"
    # batch 32: batch means scatter far less
    (tmp_path / "train.log").write_text(cluster_step_log(epochs=2, every=1))
    assert "loss_per_sample_noise" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_validation_that_starts_level_with_training_and_worsens_from_there_is_overfitting(tmp_path):
    # a real run (2,048 samples of overlapping clusters, three hidden layers, Adam 3e-3, 40 epochs):
    # validation is as good as training at the first evaluation and never better, then climbs 4x
    # while training fits to ~97 %: overfitting from the first epoch, not validation from elsewhere
    (tmp_path / "history.json").write_text(json.dumps(cluster_history(3e-3, False, epochs=40, n=2048, hidden=3)))
    sigs = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert "train_val_divergence" in sigs and "val_gap_from_start" not in sigs
    d = diagnose([str(tmp_path)], [])
    # (how sure it is follows the run's own numbers, which move with the CPU torch computes on: 0.92 on one
    # machine, below 0.8 on another; the separating train_val_divergence is there on both)
    assert "overfitting" in [h.id for h in d.hypotheses[:2]]


def test_the_same_failures_under_adam_at_batch_2_and_at_batch_64_are_read_too(tmp_path):
    # real runs: no zero_grad under Adam (the summed gradient's norm creeps, +-2 %, 0.5 % point to point);
    # batch size 2 (its loss scatters 1.8x its level); label-sorted data at batch 64 (the epoch's
    # saw-tooth fades as every block is learned)
    for log, kind, cause in ((cluster_step_log(zero_grad=False, adam=True), "grad_pinned", "missing_zero_grad"),
                             (cluster_step_log(epochs=2, every=1, batch=2), "loss_per_sample_noise", "batch_size_too_small"),
                             (cluster_step_log(epochs=5, sorted_by_class=True, every=1, batch=64), "sawtooth_epoch",
                              "data_not_shuffled")):
        (tmp_path / "train.log").write_text(log)
        assert kind in {s.kind for s in analyze(ingest([str(tmp_path)]))}, kind
        d = diagnose([str(tmp_path)], [])
        assert d.hypotheses[0].id == cause and d.status == "needs_more_data", (cause, d.hypotheses[:2])


def test_a_third_set_of_runs_is_read_at_shorter_and_sparser_logging(tmp_path):
    # real runs (benchmarks/torch_scenarios.py's third set): a 10-epoch collapse (Adam lr 0.5), a train
    # accuracy that peaks in the first third and falls back (Adam lr 0.15, three hidden layers), a
    # never-zeroed gradient logged every 5 steps (its norm climbs in stairs), and targets shuffled apart
    # from 2,048 inputs at Adam 3e-4 (validation flat while training creeps down from ln 4)
    for files, kind, causes in (
            ({"history.json": json.dumps(cluster_history(0.5, False, epochs=10))}, "collapsed_to_chance",
             {"dead_relu", "lr_too_high"}),
            ({"history.json": json.dumps(cluster_history(0.15, False, epochs=20, hidden=3))}, "train_acc_falls",
             {"lr_too_high"}),
            ({"train.log": cluster_step_log(zero_grad=False, epochs=5, every=5)}, "grad_pinned", {"missing_zero_grad"}),
            ({"history.json": json.dumps(cluster_history(3e-4, True, n=2048, epochs=25))}, "memorizing_from_start",
             {"label_misalignment"})):
        for old in tmp_path.iterdir():
            old.unlink()
        for name, text in files.items():
            (tmp_path / name).write_text(text)
        assert kind in {s.kind for s in analyze(ingest([str(tmp_path)]))}, kind
        assert diagnose([str(tmp_path)], []).hypotheses[0].id in causes, kind
