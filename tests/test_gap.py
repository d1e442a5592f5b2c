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
