"""train_val_gap_end: one Keras epoch line with a large train/val gap, read from a real log file."""
from __future__ import annotations

from mltdbg.analyzers.analyze import analyze
from mltdbg.analyzers.ingest import ingest
from mltdbg.playbooks.diagnose import diagnose

LINE = ("Epoch 50/50\n45000/45000 [==========================] - 449s 10ms/sample - loss: 0.0350"
        " - accuracy: 0.9882 - val_loss: 2.6765 - val_accuracy: 0.5934\n")


def test_one_epoch_line_with_a_big_gap_is_evidence_but_not_a_finding(tmp_path):
    (tmp_path / "train.log").write_text(LINE)
    sigs = [s for s in analyze(ingest([str(tmp_path)])) if s.kind == "train_val_gap_end"]
    assert len(sigs) == 1 and "0.9882" in sigs[0].summary and "0.5934" in sigs[0].summary
    assert {e.line for e in sigs[0].evidence} == {2}
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == "overfitting" and d.hypotheses[0].confidence <= 0.75
    assert d.status == "needs_more_data" and any("train_val_gap" in n for n in d.needs)


def test_no_gap_signal_when_val_keeps_up_or_the_curve_already_says_it(tmp_path):
    (tmp_path / "train.log").write_text(LINE.replace("val_loss: 2.6765", "val_loss: 0.0400")
                                        .replace("val_accuracy: 0.5934", "val_accuracy: 0.9801"))
    assert not [s for s in analyze(ingest([str(tmp_path)])) if s.kind == "train_val_gap_end"]
    rows = []
    for e in range(12):   # val falls, then rises: the curve names it (train_val_divergence)
        vl = 1.0 - 0.1 * e if e < 5 else 0.5 + 0.12 * (e - 5)
        rows.append(f"epoch={e} loss={1.0 / (e + 1):.4f} val_loss={vl:.4f}")
    (tmp_path / "train.log").write_text("\n".join(rows) + "\n")
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "train_val_divergence" in kinds and "train_val_gap_end" not in kinds


def test_a_validation_loss_that_swings_is_read_at_its_settled_level_not_its_last_spike(tmp_path):
    """RMSprop at lr 0.2 on a two-class MLP: the val loss swings 0.59 .. 12.65 from epoch to epoch and its last
    evaluation is a spike (9.64 beside a train loss of 1.52). Such swings are val_unstable, also when two huge
    spikes widen the range; the gap at the end is read from the last three evaluations' median (2.19), not from
    the spike, so there is no 6x train/val gap to explain."""
    train = [13.1993, 3.8228, 3.4705, 2.8797, 3.0857, 2.8517, 2.1988, 2.0888, 1.4573, 2.6245, 1.9398, 1.1595,
             1.1439, 2.0760, 1.5161]
    val = [4.4466, 1.2262, 2.5882, 12.6518, 1.6085, 1.5966, 1.5148, 1.5368, 1.2777, 4.1945, 0.8125, 0.5944,
           2.1884, 1.3418, 9.6350]
    (tmp_path / "train.log").write_text("".join(
        f"Epoch {i}/15 - loss: {t:.4f} - val_loss: {v:.4f}\n" for i, (t, v) in enumerate(zip(train, val), 1)))
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "val_unstable" in kinds and "train_val_gap_end" not in kinds
    # the same values ending on a settled level far above the train loss still make a gap (here the curves
    # name it, as the val loss rises away from the train loss)
    steady = val[:12] + [9.1, 9.3, 9.6]
    (tmp_path / "train.log").write_text("".join(
        f"Epoch {i}/15 - loss: {t:.4f} - val_loss: {v:.4f}\n" for i, (t, v) in enumerate(zip(train, steady), 1)))
    assert {s.kind for s in analyze(ingest([str(tmp_path)]))} & {"train_val_gap_end", "train_val_divergence"}


def test_two_tiny_losses_far_apart_in_ratio_are_no_gap(tmp_path):
    """A CNN that fits both sets: train loss 0.0032 and val loss 0.028 at the end (a ratio of 9) with val accuracy
    0.987. The ratio alone made a full-strength train_val_gap_end (overfitting 0.71 on a healthy run); the val loss
    must also sit LOSS_GAP_MIN above the train loss. A val loss of 0.9 beside 0.05 still is a gap."""
    lines = "".join(f"Epoch {i}/20 - loss: {0.9 * 0.7 ** i + 0.0032:.4f} - accuracy: {min(1.0, 0.6 + 0.03 * i):.4f} - "
                    f"val_loss: {0.8 * 0.75 ** i + 0.026:.4f} - val_accuracy: {min(0.987, 0.6 + 0.03 * i):.4f}\n"
                    for i in range(1, 21))
    (tmp_path / "train.log").write_text(lines)
    assert "train_val_gap_end" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    (tmp_path / "train.log").write_text("Epoch 20/20 - loss: 0.0500 - val_loss: 0.9000\n")
    assert "train_val_gap_end" in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    # without accuracies the ratio alone is the gap: a regression's MSE of 0.0058 against 0.060
    (tmp_path / "train.log").write_text("".join(f"epoch {i} mse: {0.5 * 0.8 ** i + 0.0058:.5f} val_mse: "
                                                f"{0.4 * 0.85 ** i + 0.06:.5f}\n" for i in range(1, 31))
                                        .replace("mse:", "loss:").replace("val_loss:", "val_loss:").replace("val_mse:", "val_loss:"))
    assert "train_val_gap_end" in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_validation_loss_that_wobbles_while_it_falls_is_not_unstable(tmp_path):
    """0.40, 0.25, 0.17, 0.13, 0.155, 0.11, ... 0.078 beside a val accuracy rising 0.90 -> 0.97: each move turns back,
    but the curve is still improving (its last third sits well below its first). The looser range test of
    val_unstable is for swings around a level; here the run is healthy."""
    val = [0.40, 0.25, 0.17, 0.13, 0.155, 0.11, 0.135, 0.095, 0.12, 0.085, 0.105, 0.078]
    rows = ["epoch,loss,val_loss,val_accuracy"] + [
        f"{e},{0.6 * 0.78 ** e + 0.03:.4f},{x:.4f},{0.9 + 0.006 * e:.4f}" for e, x in enumerate(val)]
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "val_unstable" not in kinds and "healthy" in kinds
