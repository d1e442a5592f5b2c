"""metric_frozen: identical loss/accuracy values at consecutive logged points, read from real log files."""
from __future__ import annotations

from mltdbg.analyzers.analyze import analyze
from mltdbg.analyzers.ingest import ingest
from mltdbg.playbooks.diagnose import diagnose


def _signals(tmp_path, text: str):
    (tmp_path / "train.log").write_text(text)
    run = ingest([str(tmp_path)])
    return [s for s in analyze(run) if s.kind == "metric_frozen"], run


def test_an_accuracy_printed_identically_every_epoch_is_frozen_and_cited(tmp_path):
    log = "".join(f"Epoch {i}: 401 / 4200, Accuracy: 0.09547619047619048\n" for i in range(5))
    sigs, run = _signals(tmp_path, log)
    assert len(sigs) == 1 and sigs[0].data["points"] == 5
    first, last = sigs[0].evidence[0], sigs[0].evidence[-1]
    assert (first.source, first.line, last.line) == ("train.log", 1, 5)
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses and d.hypotheses[0].id in ("frozen_parameters", "dead_relu", "bad_initialization", "mode_collapse")
    assert d.status == "needs_more_data"        # which of them needs a check (per-layer grads, dead units)


def test_a_teachers_score_kept_fixed_during_distillation_is_not_a_frozen_model(tmp_path):
    """A distillation log prints the frozen teacher's accuracy beside the student's every epoch: teacher_acc 0.978
    at all 40 points is the teacher kept fixed on purpose. The student's own accuracy printed the same is frozen."""
    log = "".join(f"[kd] epoch {i}/40 loss {2.0 - 0.04 * i:.4f} student_acc {0.75 + 0.005 * i:.4f} teacher_acc 0.9780\n"
                  for i in range(1, 41))
    assert _signals(tmp_path, log)[0] == []
    log = "".join(f"[kd] epoch {i}/40 loss 1.3863 student_acc 0.2510 teacher_acc 0.9780\n" for i in range(1, 41))
    assert sorted(s.data["metric"] for s in _signals(tmp_path, log)[0]) == ["loss", "student_acc"]
    # a seq2seq model's own accuracy under teacher forcing is watched
    log = "".join(f"epoch {i} loss 1.3863 teacher_forcing_acc 0.2510\n" for i in range(1, 41))
    assert "teacher_forcing_acc" in {s.data["metric"] for s in _signals(tmp_path, log)[0]}


def test_a_fine_tuning_phase_frozen_after_a_pretraining_phase_that_learned_is_a_frozen_model(tmp_path):
    """A log of two phases that each count their epochs from 1: pre-training's loss falls (1.29 -> 0.14), then the
    fine-tuning's loss and accuracy repeat to the last digit. The frozen accuracy is weighed against the loss
    printed on its own lines, which did not move: the model is not updated (a new head left out of the
    optimizer), not an accuracy computed from other predictions (accuracy_stuck_loss_falls, which the
    pre-training's falling loss had made of it)."""
    pre = "".join(f"pretrain epoch {i}/4  loss {v}  acc {a}\n" for i, (v, a) in
                  enumerate([(1.2876, 0.508), (0.8644, 0.926), (0.3673, 0.987), (0.1404, 0.993)], 1))
    ft = "".join(f"ft epoch {i}/9  train_loss 1.1792  train_acc 0.196  val_loss 1.1847  val_acc 0.203\n"
                 for i in range(1, 10))
    sigs, run = _signals(tmp_path, pre + ft)
    kinds = {s.kind for s in analyze(run)}
    assert sigs and "accuracy_stuck_loss_falls" not in kinds
    assert diagnose([str(tmp_path)], []).hypotheses[0].id != "metric_changed"


def test_a_stalled_curve_that_still_moves_and_a_perfect_score_are_not_frozen(tmp_path):
    moving = "".join(f"step={i} loss={2.3026 - 0.0001 * i:.4f} accuracy={0.1 + 0.0001 * i:.4f}\n" for i in range(40))
    assert _signals(tmp_path, moving)[0] == []
    perfect = "".join(f"epoch={i} loss={0.5 / (i + 1):.4f} accuracy=1.0\n" for i in range(6))
    assert _signals(tmp_path, perfect)[0] == []


def test_a_short_repeat_inside_a_long_moving_curve_is_not_frozen(tmp_path):
    vals = [2.0 - 0.01 * i for i in range(60)]
    vals[20:23] = [vals[20]] * 3
    log = "".join(f"step={i} loss={v:.4f}\n" for i, v in enumerate(vals))
    assert _signals(tmp_path, log)[0] == []
    # a curve that converged to its printed precision: the identical tail is not a frozen model
    conv = "".join(f"step={50 * i} loss={6.7 + 2 * 0.85 ** i:.4f}\n" for i in range(40))
    assert _signals(tmp_path, conv)[0] == []


def _zero(tmp_path, text: str):
    (tmp_path / "train.log").write_text(text)
    return [s for s in analyze(ingest([str(tmp_path)])) if s.kind == "accuracy_zero"]


def test_an_accuracy_of_exactly_zero_at_every_point_is_cited_and_points_at_the_metric(tmp_path):
    # one epoch of a classifier whose loss is tiny while its accuracy reads 0 (an int division)
    sigs = _zero(tmp_path, "Epoch 50/199\n----------\ntrain Loss: 0.0236 Acc: 0.0000\nval Loss: 0.0234 Acc: 0.0000\n")
    assert len(sigs) == 1 and sigs[0].strength == 0.6 and sigs[0].data["points"] == 1
    assert sigs[0].evidence[0].line == 3 and "Acc: 0.0000" in sigs[0].evidence[0].quote
    # nine Keras epochs, loss falling, accuracy 0 throughout: full strength, first and last zero cited
    keras = "".join(f"Epoch {i}/9\n100/100 - 1s - loss: {2.0 - 0.15 * i:.4f} - acc: 0.0000e+00 - val_loss: "
                    f"{0.74 - 0.01 * i:.4f} - val_acc: 0.0000e+00\n" for i in range(1, 10))
    sigs = _zero(tmp_path, keras)
    assert len(sigs) == 1 and sigs[0].strength == 1.0 and sigs[0].data["points"] == 9
    assert [e.line for e in sigs[0].evidence] == [2, 18]
    d = diagnose([str(tmp_path)], ["the acc of training and validation are both 0 for every epoch"])
    assert "metric_changed" in [h.id for h in d.hypotheses[:3]]


def test_an_accuracy_that_starts_at_zero_and_rises_or_a_zero_accumulation_count_is_not_zero_accuracy(tmp_path):
    rising = "".join(f"step={i} loss={2.0 - 0.1 * i:.3f} accuracy={0.0 if i < 3 else 0.05 * i:.3f}\n" for i in range(10))
    assert _zero(tmp_path, rising) == []
    accum = "".join(f"step={i} loss={2.0 - 0.1 * i:.3f} grad_accum=0\n" for i in range(10))
    assert _zero(tmp_path, accum) == []


def test_an_accuracy_stuck_at_exactly_zero_is_zero_accuracy_not_a_frozen_model(tmp_path):
    log = "".join(f"epoch={i} loss={2.0 - 0.1 * i:.3f} accuracy=0.0000\n" for i in range(6))
    assert _signals(tmp_path, log)[0] == []
    assert [s.data["points"] for s in _zero(tmp_path, log)] == [6]


def test_an_accuracy_that_falls_to_zero_and_stays_is_still_frozen(tmp_path):
    log = "".join(f"epoch={i} loss={2.0 - 0.1 * i:.3f} accuracy={a}\n" for i, a in enumerate([0.4, 0.3] + [0.0] * 8))
    assert [s.data["value"] for s in _signals(tmp_path, log)[0]] == [0.0]
    assert _zero(tmp_path, log) == []


def test_a_gradient_accumulation_count_or_clip_setting_printed_every_step_is_not_a_frozen_metric(tmp_path):
    """`grad_accum=4 grad_clip_norm=1.0` on every line are settings: not a frozen accuracy ("acc" in
    "accum") and not a layer's gradient norm ("grad_" + a layer name)."""
    from mltdbg.analyzers.names import normalize
    log = "".join(f"step={i} loss={2.0 - 0.01 * i:.4f} grad_accum=4 grad_clip_norm=1.0\n" for i in range(50))
    sigs, run = _signals(tmp_path, log)
    assert sigs == [] and {s.name for s in run.series} == {"loss", "grad_accum", "grad_clip_norm"}
    assert normalize("grad_fc1") == "grad_norm/fc1" and normalize("grad_steps") == "grad_steps"


def test_a_training_loss_of_exactly_zero_from_the_first_point_is_loss_zero_not_a_frozen_model(tmp_path):
    # a Caffe solver whose list file has no label column: every clip gets one target, the loss is 0
    log = "".join(f"I0214 18:49:35.80 17331 solver.cpp:237] Iteration {i}, lr = 0.0001\n"
                  f"I0214 18:49:35.81 17331 solver.cpp:87] Iteration {i}, loss = 0\n" for i in range(20, 201, 20))
    (tmp_path / "train.log").write_text(log)
    sigs = analyze(ingest([str(tmp_path)]))
    zero = [s for s in sigs if s.kind == "loss_zero"]
    assert len(zero) == 1 and zero[0].strength == 1.0 and zero[0].data["points"] == 10
    assert [e.line for e in zero[0].evidence] == [2, 20]
    assert not [s for s in sigs if s.kind == "metric_frozen" and s.data["metric"] == "loss"]
    # nor a loss stuck at a level (chance, plateau): the same points counted twice
    assert not [s for s in sigs if s.kind in ("loss_at_chance", "plateau", "below_chance_stuck")]
    d = diagnose([str(tmp_path)], [])
    ids = [h.id for h in d.hypotheses]
    # the targets first; the other ways to a loss of 0 (every target ignored, a loss over nothing) ranked too
    assert ids[0] == "label_misalignment" and {"label_out_of_range", "metric_changed"} <= set(ids)
    # a loss of 0 alone does not tell these apart (the corpus's zero-loss posts: 5 of 13 target bugs)
    assert d.status == "needs_more_data" and d.hypotheses[0].confidence < 0.8


def test_a_step_loss_of_exactly_zero_is_not_a_loss_at_chance(tmp_path):
    (tmp_path / "train.log").write_text("".join(f"step={10 * i} loss=0.0000 lr=0.001\n" for i in range(1, 41)))
    sigs = analyze(ingest([str(tmp_path)]))
    assert [s.kind for s in sigs if s.kind == "loss_zero"] == ["loss_zero"]
    assert not [s for s in sigs if s.kind in ("loss_at_chance", "plateau", "below_chance_stuck", "healthy")]
    d = diagnose([str(tmp_path)], [])
    assert d.status == "needs_more_data" and d.hypotheses[0].confidence < 0.8


def test_a_loss_that_reaches_zero_or_a_component_loss_at_zero_is_not_loss_zero(tmp_path):
    falling = "".join(f"step={i} loss={max(0.0, 1.0 - 0.2 * i):.4f}\n" for i in range(10))
    (tmp_path / "train.log").write_text(falling)
    assert not [s for s in analyze(ingest([str(tmp_path)])) if s.kind == "loss_zero"]
    part = "".join(f"step={i} loss={2.0 - 0.1 * i:.3f} l1_loss=0.0\n" for i in range(10))
    (tmp_path / "train.log").write_text(part)
    assert not [s for s in analyze(ingest([str(tmp_path)])) if s.kind == "loss_zero"]


def test_a_loss_at_its_floor_from_the_first_epoch_is_too_good_not_frozen_or_at_chance(tmp_path):
    # 1e-9 and accuracy 1.0 from epoch 0: leakage-like, not a frozen model nor one stuck at chance
    (tmp_path / "train.log").write_text("".join(f"epoch={e} loss=1.00e-09 accuracy=1.0 val_accuracy=1.0\n"
                                                for e in range(12)))
    sigs = analyze(ingest([str(tmp_path)]))
    kinds = {s.kind for s in sigs}
    assert "val_near_perfect" in kinds
    assert not kinds & {"loss_at_chance", "plateau", "metric_frozen", "loss_zero"}
    d = diagnose([str(tmp_path)], ["validation accuracy is 100% from the first epoch"])
    assert d.hypotheses[0].id == "data_leakage" and d.status == "needs_more_data"
    # a loss that merely stays small and flat (1e-4) is still read as flat
    (tmp_path / "train.log").write_text("".join(f"step={i} loss=0.0001\n" for i in range(1, 60)))
    assert "metric_frozen" in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_loss_of_1e9_from_the_first_epoch_is_too_good_to_be_true(tmp_path):
    # Keras epochs at loss 1e-8 with accuracy 1.0 from epoch 1: the answer is in the inputs (or all one class)
    log = "".join(f"Epoch {e}/3\n1875/1875 [==============================] - 4s 2ms/step - loss: {v} - accuracy: 1.0000 - "
                  f"val_loss: {v} - val_accuracy: 1.0000\n" for e, v in ((1, "1.2e-08"), (2, "2.0e-09"), (3, "8.0e-10")))
    (tmp_path / "train.log").write_text(log)
    sig = {s.kind: s for s in analyze(ingest([tmp_path]))}
    s = sig["loss_near_zero_from_start"]
    assert s.strength == 0.9 and s.evidence[0].line == 2 and "loss_zero" not in sig
    d = diagnose([str(tmp_path)], [])
    assert [h.id for h in d.hypotheses[:2]] == ["data_leakage", "label_misalignment"] and d.status == "needs_more_data"
    # a loss that reaches 1e-9 late, after a real first epoch, is a fit, not a leak
    (tmp_path / "train.log").write_text(log.replace("1.2e-08", "0.6931"))
    assert "loss_near_zero_from_start" not in {s.kind for s in analyze(ingest([tmp_path]))}


def test_a_loss_far_below_zero_is_not_near_zero(tmp_path):
    # Pytorch-UNet's BCE on 0-255 masks prints -1087, -2475, ...: large in size, so nothing "too good to be true"
    vals = [-1086.89, -2474.71, -2207.03, -1271.2, -2474.71, -1237.98, -1086.89, -1271.2, -2196.36, -2196.36,
            -2207.03, -1695.58, -3084.04, -3084.04, -1925.2, -1605.03, -1695.58, -1237.98, -1605.03]
    (tmp_path / "train.log").write_text("".join(f"{i / 19:.4f} --- loss: {v:.6f}\n" for i, v in enumerate(vals)))
    assert "val_near_perfect" not in {s.kind for s in analyze(ingest([tmp_path]))}
    # ... while a loss of 1e-7 from its first points still is
    (tmp_path / "train.log").write_text("".join(f"{i / 19:.4f} --- loss: {1e-7:.2e}\n" for i in range(19)))
    assert "val_near_perfect" in {s.kind for s in analyze(ingest([tmp_path]))}


# A Keras run (batch size 1, an easy task) whose loss came down to Keras' fourth decimal within two
# epochs: the numbers of a real CPU run of tests' probe, as Keras prints them.
_CONVERGED = [0.0858, 0.0005, 0.0003, 0.0002, 0.0001, 0.0001, 0.0001, 0.0001, 0.0001, 0.0001]
_CONVERGED_VAL = [0.0006, 0.0003, 0.0002, 0.0001, 0.0001, 0.0001, 0.0001, 0.0001, 0.0000, 0.0000]


def _keras(loss, val_loss) -> str:
    n = len(loss)
    return "".join(f"Epoch {i + 1}/{n}\n512/512 [==============================] - 1s 2ms/step - loss: {a:.4f} "
                   f"- accuracy: 1.0000 - val_loss: {b:.4f} - val_accuracy: 1.0000\n"
                   for i, (a, b) in enumerate(zip(loss, val_loss)))


def test_a_loss_repeated_at_its_last_printed_digit_converged_and_is_neither_frozen_nor_a_spike(tmp_path):
    (tmp_path / "train.log").write_text(_keras(_CONVERGED, _CONVERGED_VAL))
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert not {"metric_frozen", "loss_spike"} & kinds
    assert diagnose([str(tmp_path)], []).status == "no_issue_found"
    # the same repeat at a level that has all its digits (a loss stuck at ln 4 = 1.3863) is a frozen model
    stuck = [1.3863] * 10
    sigs, _ = _signals(tmp_path, _keras(stuck, stuck))
    assert {s.data["metric"] for s in sigs} == {"loss", "val_loss"}


def _kinds(tmp_path, text: str) -> set[str]:
    (tmp_path / "train.log").write_text(text)
    return {s.kind for s in analyze(ingest([str(tmp_path)]))}


def _epochs(acc: str, loss_end: float, n: int = 15) -> str:
    return "".join(f"epoch {e} train_loss {2.3 - (2.3 - loss_end) * e / n:.4f} {acc}\n" for e in range(1, n + 1))


def test_a_training_accuracy_frozen_while_the_loss_falls_far_is_not_computed_from_the_predictions(tmp_path):
    """train_acc exactly 0.1 for 15 epochs while the loss falls from 2.3 to 0.34 (no constant prediction
    scores under ln 10 = 2.30 at 10 %): the accuracy is broken. Read before as a model whose outputs never
    change (frozen_parameters 0.26 first)."""
    sigs = _kinds(tmp_path, _epochs("train_acc 0.1000", 0.34))
    assert "accuracy_stuck_loss_falls" in sigs and "metric_frozen" not in sigs
    assert diagnose([str(tmp_path)], []).hypotheses[0].id == "metric_changed"


def test_an_accuracy_frozen_at_the_majority_share_or_on_validation_is_still_a_frozen_model(tmp_path):
    # the majority class's 90 %: a model that learned the prior lowers its loss to ~0.33, not below
    assert "accuracy_stuck_loss_falls" not in _kinds(tmp_path, _epochs("train_acc 0.9000", 0.40))
    # a validation accuracy scores other inputs: a collapsed model maps them to one class as its loss falls
    # (val_frozen_loss_falls, the frozen reading that says the weights still move)
    (tmp_path / "v").mkdir()
    sigs = _kinds(tmp_path / "v", _epochs("val_acc 0.1000", 0.34))
    assert "accuracy_stuck_loss_falls" not in sigs and "val_frozen_loss_falls" in sigs


def test_a_recall_of_exactly_zero_beside_a_high_accuracy_is_one_class_for_every_input(tmp_path):
    """A CSVLogger file of an imbalanced binary model: accuracy 0.919 (the negative share) and recall and precision
    exactly 0 from the second epoch on, while the loss still falls. The model predicts the majority class for every
    input: recall_zero, mode_collapse first. A recall that rises from 0 is no such signal."""
    rows = ["epoch,accuracy,loss,precision,recall,val_accuracy,val_loss,val_precision,val_recall"]
    for e in range(12):
        rec = 0.005 if e == 0 else 0.0
        rows.append(f"{e},0.919,{0.35 - 0.012 * e:.4f},{0.125 if e == 0 else 0.0},{rec},0.91,{0.285 - 0.01 * e:.4f},0.0,0.0")
    (tmp_path / "training.log").write_text("\n".join(rows) + "\n")
    run = ingest([str(tmp_path)])
    sig = [s for s in analyze(run) if s.kind == "recall_zero"]
    assert sig and sig[0].data["points"] >= 3 and sig[0].data["accuracy"] > 0.9
    d = diagnose([str(tmp_path)], ["92% accuracy from the first epoch but precision and recall are 0"])
    assert d.hypotheses[0].id == "mode_collapse"
    learning = "\n".join([rows[0]] + [f"{e},{0.7 + 0.02 * e:.3f},{0.6 - 0.03 * e:.3f},0.5,{0.05 * e:.2f},0.7,0.6,0.5,{0.05 * e:.2f}"
                                      for e in range(12)]) + "\n"
    (tmp_path / "training.log").write_text(learning)
    assert not [s for s in analyze(ingest([str(tmp_path)])) if s.kind == "recall_zero"]


def test_a_dice_of_exactly_zero_while_the_loss_falls_is_background_everywhere(tmp_path):
    """A segmentation run's metrics.csv (no accuracy): train and val loss fall every epoch while val_dice and val_iou
    are exactly 0 throughout (class weights that favour the background): recall_zero, no healthy run, mode_collapse
    first. A Dice that leaves 0 is no such signal."""
    rows = ["epoch,train_loss,val_loss,val_dice,val_iou"]
    rows += [f"{e},{0.57 * 0.85 ** e:.4f},{0.52 * 0.86 ** e:.4f},0.0,0.0" for e in range(20)]
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "recall_zero" in kinds and "healthy" not in kinds
    d = diagnose([str(tmp_path)], ["train and val loss go down nicely every epoch but val dice is exactly 0 the whole time"])
    assert d.hypotheses[0].id == "mode_collapse"
    rows = rows[:1] + [f"{e},{0.57 * 0.85 ** e:.4f},{0.52 * 0.86 ** e:.4f},{min(0.9, 0.05 * e):.2f},{min(0.8, 0.04 * e):.2f}"
                       for e in range(20)]
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    assert "recall_zero" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    # a loss term named for Dice or IoU, 0 because it is switched off, and a counter whose name holds the letters
    rows = ["epoch,train_loss,val_loss,dice_loss,loss_giou,skipped_indices"]
    rows += [f"{e},{0.57 * 0.85 ** e:.4f},{0.52 * 0.86 ** e:.4f},0.0,0.0,0" for e in range(20)]
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    assert "recall_zero" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_validation_accuracy_frozen_while_the_training_loss_falls_is_one_output_for_every_input(tmp_path):
    """Lightning's metrics.csv: val_acc exactly 0.815 at all 12 epochs while train_loss falls 0.46 -> 0.05. The model
    is updated (its loss falls), yet its validation predictions never change: val_frozen_loss_falls, mode_collapse
    ahead of frozen_parameters. With the training loss flat too it stays metric_frozen (nothing is updated)."""
    rows = ["epoch,step,train_loss,val_acc,val_loss"]
    for e in range(12):
        rows.append(f"{e},{10 * e + 9},{0.46 * 0.82 ** e:.4f},0.815,{0.5 + 0.02 * e:.4f}")
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "val_frozen_loss_falls" in kinds and "metric_frozen" not in kinds
    ids = [h.id for h in diagnose([str(tmp_path)], []).hypotheses]
    assert "mode_collapse" in ids and ("frozen_parameters" not in ids or ids.index("mode_collapse") < ids.index("frozen_parameters"))
    flat = [rows[0]] + [f"{e},{10 * e + 9},0.4600,0.815,0.5000" for e in range(12)]
    (tmp_path / "metrics.csv").write_text("\n".join(flat) + "\n")
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "metric_frozen" in kinds and "val_frozen_loss_falls" not in kinds


def test_one_classes_recall_at_zero_is_not_one_output_for_every_input(tmp_path):
    """A 10-class run that learns (accuracy 0.95) logs val_recall_class_9 at 0: that class is missed, the model does
    not predict one class for everything."""
    rows = ["epoch,loss,accuracy,val_loss,val_accuracy,val_recall_class_9"]
    rows += [f"{e},{1.0 * 0.8 ** e:.4f},{0.6 + 0.03 * e:.3f},{1.1 * 0.8 ** e:.4f},{0.6 + 0.03 * e:.3f},0.0" for e in range(12)]
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    assert "recall_zero" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_an_accuracy_under_attack_at_0_is_no_broken_metric(tmp_path):
    """pgd_acc 0.0000 every epoch beside a clean accuracy that climbs: a model not trained to resist the attack
    scores so; no accuracy_zero."""
    log = "".join(f"epoch {i} loss {2.0 - 0.1 * i:.4f} acc {0.5 + 0.04 * i:.4f} pgd_acc 0.0000\n" for i in range(1, 10))
    (tmp_path / "train.log").write_text(log)
    from mltdbg.analyzers.frozen_metric import zero_accuracy_signals
    assert zero_accuracy_signals(ingest([str(tmp_path)])) == []


def test_a_pose_accuracy_at_0_is_no_broken_metric(tmp_path):
    """mmpose's acc_pose 0.0000 every epoch (a keypoint model that finds no marker within the threshold): a
    localisation's hit rate is exactly 0 for a model that finds nothing, no guess scores 1/K; no accuracy_zero. A
    classifier's acc at 0 still is one."""
    from mltdbg.analyzers.frozen_metric import zero_accuracy_signals
    (tmp_path / "train.log").write_text("".join(f"epoch {i} loss: {0.13 - 0.01 * i:.4f} acc_pose: 0.0000\n" for i in range(1, 10)))
    assert zero_accuracy_signals(ingest([str(tmp_path)])) == []
    (tmp_path / "train.log").write_text("".join(f"epoch {i} loss: {0.13 - 0.01 * i:.4f} acc: 0.0000\n" for i in range(1, 10)))
    assert zero_accuracy_signals(ingest([str(tmp_path)]))


def test_an_accuracy_exactly_0_at_every_epoch_is_a_failure_to_explain(tmp_path):
    """A Keras link-prediction notebook prints acc 0.0000e+00 at every epoch while the losses move; the user says
    "the acc of training and validation are both 0 for every epoch". Whether or not their words name a failure, the
    run does: the metric is not measuring the predictions (no 'no issue found')."""
    log = "".join(f"Epoch {i}/9\n1/1 - 0s - loss: {2.0 - 0.15 * i:.4f} - acc: 0.0000e+00 - val_loss: {0.74 - 0.01 * i:.4f} "
                  f"- val_acc: 0.0000e+00\n" for i in range(1, 10))
    (tmp_path / "train.log").write_text(log)
    d = diagnose([str(tmp_path)], ["the acc of training and validation are both 0 for every epoch"])
    assert d.status != "no_issue_found" and d.hypotheses[0].id == "metric_changed"

