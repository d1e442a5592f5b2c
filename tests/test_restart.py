"""A job resumed from a checkpoint writes its steps again: the run is read as it stands (the
attempt that followed redid those steps), each side of the restart judged on its own, and the
two attempts compared at the steps both logged."""
import math

import numpy as np

from mltdbg.analyzers.analyze import analyze
from mltdbg.analyzers.curves import MAX_RESTARTS, ordered
from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import Series
from mltdbg.playbooks.diagnose import diagnose as diagnose_paths


def _curve(step: int) -> float:
    return 0.2 + 1.9 * math.exp(-step / 60)


def _write(path, rows):
    path.write_text("".join(f"step={s} loss={v:.4f}\n" for s, v in rows))


def test_a_resume_that_lost_the_training_state_is_a_jump_not_a_divergence(tmp_path):
    # steps 1..300 fall to 0.20; resumed at 201 the loss starts again at 1.52 and falls slowly
    rows = [(s, _curve(s)) for s in range(1, 301)] + [(s, 1.52 * 0.999 ** (s - 201)) for s in range(201, 500)]
    _write(tmp_path / "train.log", rows)
    sig = {x.kind: x for x in analyze(ingest([tmp_path]))}
    for wrong in ("divergence", "loss_spike", "sawtooth_epoch", "oscillation", "healthy"):
        assert wrong not in sig, sig[wrong].summary
    assert sig["step_restart"].data["step"] == 201
    jump = sig["loss_jump_at_resume"]
    assert jump.data["step"] == 201 and jump.strength == 1.0
    # compared with what the first attempt logged at step 201 (line 201), not at step 300
    assert [e.line for e in jump.evidence] == [201, 301]
    assert "at the same steps" in jump.summary
    d = diagnose_paths([str(tmp_path)], [])
    assert d.hypotheses[0].id == "resume_mismatch"


def test_a_resume_that_carries_on_is_neither_a_jump_nor_a_saw(tmp_path):
    rng = np.random.default_rng(3)
    rows = [(s, _curve(s) + rng.normal(0, 0.005)) for s in range(1, 301)]
    rows += [(s, _curve(s) + rng.normal(0, 0.005)) for s in range(201, 500)]
    _write(tmp_path / "train.log", rows)
    sig = {x.kind: x for x in analyze(ingest([tmp_path]))}
    assert "step_restart" in sig and "healthy" in sig
    for wrong in ("loss_jump_at_resume", "loss_spike", "sawtooth_epoch", "oscillation", "divergence", "noisy_loss"):
        assert wrong not in sig, sig[wrong].summary


def test_a_nan_only_the_attempt_before_the_resume_wrote_is_still_cited(tmp_path):
    # the first attempt blew up at step 290 (why it was resumed); the second ran clean from 201
    rows = [(s, float("nan") if s >= 290 else _curve(s)) for s in range(1, 296)]
    rows += [(s, _curve(s)) for s in range(201, 500)]
    _write(tmp_path / "train.log", rows)
    nan = {x.kind: x for x in analyze(ingest([tmp_path]))}["nonfinite"]
    assert nan.data["step"] == 290 and nan.evidence[0].line == 290
    assert nan.evidence[1].line == 289       # the last finite value the same attempt wrote


def test_a_jump_in_one_term_of_a_multi_term_loss_is_read(tmp_path):
    # the weights of one head were not restored: its term jumps, the total barely moves
    rows = [f"step={s} loss={_curve(s):.4f} contrastive_loss={0.9 - s / 1000:.4f}\n" for s in range(1, 101)]
    rows += [f"step={s} loss={_curve(s) * 1.05:.4f} contrastive_loss={7.4 - s / 1000:.4f}\n" for s in range(81, 160)]
    (tmp_path / "train.log").write_text("".join(rows))
    jump = {x.kind: x for x in analyze(ingest([tmp_path]))}["loss_jump_at_resume"]
    assert jump.data["step"] == 81 and jump.evidence[-1].metric == "contrastive_loss"


def test_many_backward_steps_are_not_resumes_and_keep_every_point():
    steps = np.tile(np.arange(10), MAX_RESTARTS + 2)     # a counter that starts again every segment
    s = Series("loss", "loss", steps, np.arange(len(steps), dtype=float), "a.log", np.arange(len(steps)) + 1)
    assert len(ordered(s)) == len(steps)
    two = Series("loss", "loss", np.r_[np.arange(10), np.arange(5, 12)], np.arange(17.0), "a.log", np.arange(17) + 1)
    kept = ordered(two)
    assert kept.steps.tolist() == list(range(12)) and kept.locs.tolist() == [1, 2, 3, 4, 5] + list(range(11, 18))


def test_a_restart_is_read_from_the_terms_when_no_total_loss_is_printed(tmp_path):
    # DASR resumed at epoch 158: the contrastive term jumps 0.92 -> 7.46, the SR term does not
    line = "Epoch: [0158][{}/31050]\tLoss [SR loss: {} | contrastive loss: {} ]\tTime [ 145.0 s]\n"
    rows = [(6400, 9.753, 0.892), (12800, 9.747, 0.920), (19200, 9.722, 0.918), (6400, 9.598, 7.457),
            (12800, 9.590, 7.301)]
    (tmp_path / "train.log").write_text("".join(line.format(*r) for r in rows))
    sig = {x.kind: x for x in analyze(ingest([tmp_path]))}
    assert sig["step_restart"].data["step"] == 6400
    jump = sig["loss_jump_at_resume"]
    assert jump.evidence[-1].metric == "contrastive_loss" and jump.evidence[-1].value == 7.457
    assert [e.line for e in jump.evidence] == [1, 4]


def test_a_resumed_run_that_diverged_after_the_resume_is_not_also_healthy(tmp_path):
    # the first attempt fell cleanly; the resumed one (from step 201) climbs to the end
    rows = [(s, _curve(s)) for s in range(1, 301)] + [(s, _curve(s) * (1 + (s - 200) / 60)) for s in range(201, 500)]
    _write(tmp_path / "train.log", rows)
    sig = {x.kind: x for x in analyze(ingest([tmp_path]))}
    assert "divergence" in sig and "healthy" not in sig


def test_a_second_run_posted_after_the_first_that_starts_far_above_it_is_no_resume(tmp_path):
    """A post shows two runs one after the other, depth 2 then depth 12: the second starts at step 0 with a loss of
    1.1e16, a million-million times where the first run itself started (1.2e4). Another model, not a resume of the
    first (a resume that lost its weights starts near the first run's own start)."""
    first = [(0, 1.2284e4), (1, 1.0931e4), (2, 9.8816e3), (3, 8.1e3), (468, 0.891)]
    second = [(0, 1.1384e16), (1, float("nan")), (2, float("nan"))]
    _write(tmp_path / "train.log", first + second)
    assert "loss_jump_at_resume" not in {x.kind for x in analyze(ingest([tmp_path]))}
    # (a resume that jumps a few times above where it was, as above, is still one)
    _write(tmp_path / "train.log", first + [(3, 2.4e4), (4, 2.2e4), (5, 2.0e4)])
    assert "loss_jump_at_resume" in {x.kind for x in analyze(ingest([tmp_path]))}
