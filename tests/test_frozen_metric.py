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
