"""Curve analyzers on series with known shapes."""
import math
from pathlib import Path

import numpy as np
import pytest

from mltdbg.analyzers.curves import curve_signals
from mltdbg.analyzers.model import Fact, Run, Series, TextArtifact


def _run(**series) -> Run:
    run = Run(root=__import__("pathlib").Path("."))
    for name, vals in series.items():
        v = np.asarray(vals, dtype=float)
        run.series.append(Series(name, name, np.arange(len(v)) * 10, v, "m.csv", np.arange(len(v)) + 2, "line"))
    return run


def kinds(run):
    return {s.kind: s for s in curve_signals(run)}


rng = np.random.default_rng(0)
N = 400
x = np.arange(N)
falling = 2.3 * np.exp(-x / 60) + 0.3 + rng.normal(0, 0.01, N)


def test_healthy_curve_is_healthy_only():
    k = kinds(_run(loss=falling, grad_norm=1 + rng.normal(0, 0.05, N)))
    assert "healthy" in k
    assert not {"divergence", "nonfinite", "loss_spike", "grad_growth", "loss_at_chance"} & set(k)


def test_first_nonfinite_step_and_sudden():
    v = falling.copy()
    v[250:] = np.nan
    s = kinds(_run(loss=v))["nonfinite"]
    assert s.data["step"] == 2500 and s.data["sudden"] is True
    assert s.evidence[0].value == "NaN" and s.evidence[0].line == 252


def test_divergence_after_initial_fall():
    v = np.concatenate([falling[:200], falling[199] * (1 + np.linspace(0, 1.5, 200))])
    s = kinds(_run(loss=v))["divergence"]
    assert 1900 <= s.data["min_step"] <= 2100 and s.data["rise_pct"] > 50


def test_rise_before_nan_points_at_divergence():
    v = np.concatenate([falling[:200], falling[199] * np.exp(np.linspace(0, 5, 100)), [np.inf, np.nan]])
    k = kinds(_run(loss=v))
    assert k["nonfinite"].data["rise_before"] > 1 and k["nonfinite"].data["sudden"] is False
    assert "divergence" in k


def test_a_noisy_minibatch_loss_before_a_nan_is_no_divergence():
    """A per-step loss that fell to ~0.2 and scatters 0.10-0.35 step to step, then one NaN batch: the last points' mean
    (0.21) above the lowest 7-point mean (0.14) is the scatter, not a rise (read before as divergence 0.61 and
    lr_too_high first on a NaN row in the data). The same level climbing 3x into the NaN still is one."""
    g = np.random.default_rng(7)
    fall = 0.2 + 1.17 * np.exp(-np.arange(20) / 4)
    noisy = np.concatenate([fall, np.clip(0.2 + g.normal(0, 0.06, 57), 0.08, None), [np.nan]])
    k = kinds(_run(loss=noisy))
    assert "divergence" not in k and k["nonfinite"].data["rise_before"] == 0
    climb = np.concatenate([fall, np.clip(0.2 + g.normal(0, 0.06, 37), 0.08, None), 0.2 * np.exp(np.linspace(0, 1.2, 20)),
                            [np.nan]])
    assert "divergence" in kinds(_run(loss=climb))


def test_a_few_points_that_blow_up_before_the_nan_are_divergence_not_a_sudden_nan():
    # a post's five lines: 2.31, 2.29, 45, 1e18, nan
    k = kinds(_run(loss=[2.31, 2.29, 45.12, 1e18, np.nan]))
    assert k["nonfinite"].data["sudden"] is False and "nonfinite_sudden" not in k
    assert 0 < k["divergence"].strength <= 0.5           # a few points: at most SHORT_DIVERGENCE
    assert "4.33e+17x" in k["divergence"].summary          # a rise that large in words, not 20 digits of %
    # a noisy short history that is not climbing is a sudden NaN (as ArcFace's 1.98, 0.23, ... 1.17, nan)
    k = kinds(_run(loss=[1.98, 0.23, 0.42, 1.69, 2.23, 1.46, 1.17, np.nan]))
    assert k["nonfinite"].data["sudden"] is True and "divergence" not in k


def test_a_non_finite_term_of_a_multi_term_loss_is_cited_when_the_total_is_finite():
    # detectron2 style: the total is finite at every logged point, one printed term is inf
    run = _run(loss=[1.45, 3.88, 89.3], loss_cls=[5.9], loss_box_reg=[np.inf])
    s = kinds(run)["nonfinite"]
    assert s.data["metric"] == "loss_box_reg" and s.evidence[0].value in ("inf", "Infinity", "+inf")


def test_the_rise_of_a_loss_term_into_its_inf_is_a_divergence():
    run = _run(loss=[1.83, 2.92, 41.55], loss_box_reg=[0.70, 1.40, 25.01, np.inf])
    s = kinds(run)
    assert s["nonfinite"].data["metric"] == "loss_box_reg"
    assert s["divergence"].data["to_nonfinite"] and s["divergence"].evidence[0].line == 4
    # a term that was flat right before its inf: no divergence read into it
    assert "divergence" not in kinds(_run(loss=[1.83, 1.80, 1.79], loss_box_reg=[0.70, 0.69, 0.70, np.inf]))


def test_single_spike_found_not_called_divergence():
    v = falling.copy()
    v[300] = 5.0
    k = kinds(_run(loss=v))
    assert k["loss_spike"].data["worst_step"] == 3000
    assert "divergence" not in k


def test_one_bad_batch_in_the_second_half_is_a_spike_not_an_oscillation():
    r = np.random.default_rng(2)
    v = 1.5 * np.exp(-np.arange(300) / 60) + 0.5 + r.normal(0, 0.03, 300)
    v[150] = 4.2
    k = kinds(_run(loss=v))
    assert k["loss_spike"].data["worst_step"] == 1500
    assert "oscillation" not in k and "healthy" in k
    # a batch of one sample: spikes at every few steps are the back-and-forth itself
    w = 1.5 * np.exp(-np.arange(300) / 60) + 0.5 + r.normal(0, 0.03, 300)
    w[r.choice(np.arange(150, 300), 20, replace=False)] = 3.0
    assert "oscillation" in kinds(_run(loss=w))


def test_flat_at_chance_with_num_classes():
    run = _run(loss=math.log(10) + rng.normal(0, 0.005, N))
    run.facts.append(Fact("num_classes", 10, "config.yaml", 3, "num_classes: 10"))
    s = kinds(run)["loss_at_chance"]
    assert s.strength == 1.0 and abs(s.data["chance"] - math.log(10)) < 1e-9


def test_a_loss_that_learned_then_went_back_to_chance_is_no_loss_at_chance():
    """A fine-tune without warm-up: 0.695 at the first log, down to ~0.55 by step 125, then one bad
    update and ln 2 to the end. 'At chance from start to end' (unpaired targets, frozen weights) it
    is not: the model learned, then collapsed."""
    r = np.random.default_rng(3)
    v = np.r_[[0.6952, 0.6871, 0.6604, 0.6032, 0.5471, 0.5803, 0.7437, 0.8124, 0.7051, 0.6989],
              math.log(2) + r.normal(0, 0.0015, 50)]
    k = kinds(_run(loss=v))
    s = k["fell_back_to_chance"]
    assert "loss_at_chance" not in k and "healthy" not in k
    assert s.data["low_step"] == 40 and abs(s.data["chance"] - math.log(2)) < 1e-9
    assert s.evidence[0].value == 0.5471
    # at chance all along, with single-point dips of per-batch noise: still at chance
    w = math.log(2) + r.normal(0, 0.002, 60)
    w[[10, 30]] = 0.55
    k = kinds(_run(loss=w))
    assert "loss_at_chance" in k and "fell_back_to_chance" not in k


def test_a_posts_few_flat_points_off_chance_are_a_plateau_and_a_falling_running_mean_is_not():
    s = kinds(_run(loss=[0.9123, 0.9121, 0.9120, 0.9122, 0.9121]))
    assert s["plateau"].data["short"] and s["plateau"].evidence[-1].line == 6
    assert "loss_at_chance" not in s
    # fairseq's running mean falls a little at every print: still learning
    assert "plateau" not in kinds(_run(loss=[9.405, 9.399, 9.393, 9.387, 9.382, 9.378]))
    # three points are too few to call flat
    assert "plateau" not in kinds(_run(loss=[0.9123, 0.9121, 0.9122]))


def test_a_posts_few_points_at_ln_k_after_a_higher_first_one_are_at_chance():
    s = kinds(_run(loss=[2.8812, 2.3031, 2.3028, 2.3027, 2.3026]))["loss_at_chance"]
    assert s.data["k"] == 10 and s.evidence[0].line == 3 and s.evidence[-1].line == 6
    # a first point below the rest is no start it fell from
    assert "loss_at_chance" not in kinds(_run(loss=[2.0, 2.3031, 2.3028, 2.3027]))


def test_slow_linear_descent():
    s = kinds(_run(loss=2.3 - 0.0005 * x + rng.normal(0, 0.002, N)))
    assert "slow_descent" in s and "healthy" not in s


def test_a_logs_tail_is_no_slow_start():
    """`tail -n 12` of a 30-epoch log: epochs 19..30 falling slowly and evenly are the end of a run whose start is not
    there to read, no learning rate too low. The same twelve points from epoch 1 are a slow descent."""
    vals = [0.2 - 0.005 * i for i in range(12)]
    assert "slow_descent" not in kinds(_run_at(range(19, 31), loss=vals))
    assert "slow_descent" in kinds(_run_at(range(1, 13), loss=vals))


def test_a_five_point_blow_up_is_grad_growth_not_a_steady_climb():
    s = kinds(_run(loss=[10.83, 10.79, 10.91, 11.88, 15.02, np.nan], grad_norm=[2.1, 2.4, 15.3, 240.7, 9811.4, np.nan]))
    assert "grad_growth" in s and "grad_steady_climb" not in s
    # the same climb over 40 points (a sum never zeroed) is one
    assert "grad_steady_climb" in kinds(_run(loss=falling[:40], grad_norm=1 + 0.5 * np.arange(40)))


def test_train_val_divergence():
    val = np.concatenate([np.linspace(2.0, 0.8, 20), np.linspace(0.8, 1.4, 20)])
    run = _run(loss=falling)
    run.series.append(Series("val_loss", "val_loss", np.arange(40) * 100, val, "m.csv", np.arange(40) + 500, "line"))
    s = kinds(run)["train_val_divergence"]
    assert s.data["val_rise"] > 0.5


def test_grad_growth_zero_and_steady_climb():
    assert "grad_growth" in kinds(_run(grad_norm=np.logspace(0, 4, N)))
    assert "grad_zero" in kinds(_run(grad_norm=np.zeros(N)))
    climb = kinds(_run(grad_norm=1 + 0.05 * x + rng.normal(0, 0.01, N)))
    assert "grad_steady_climb" in climb


def test_lr_collapse_and_jump():
    lr = 0.1 * 0.5 ** np.arange(N)
    assert "lr_schedule_odd" in kinds(_run(lr=lr))
    lr2 = np.concatenate([np.full(200, 1e-4), np.full(200, 1e-2)])
    assert kinds(_run(lr=lr2))["lr_jump"].data["step"] == 2000


def test_a_logged_lr_that_never_comes_near_the_configured_one_is_an_odd_schedule():
    """SGD at lr 0.1 with MultiStepLR's epoch milestones [60, 120, 160] stepped per batch: the per-epoch log shows
    0.0008 from epoch 0 on, 125x below the configured lr, and the run is no longer healthy. A warm-up that reaches
    the configured lr, and the same log with no configured lr, are not."""
    loss = 1.9 * np.exp(-np.arange(40) / 8) + 0.05
    run = _run(loss=loss, lr=np.full(40, 0.0008))
    run.facts.append(Fact("lr", 0.1, "train.py", 7, "lr=0.1"))
    got = kinds(run)
    s = got["lr_schedule_odd"]
    assert s.data["detail"] == "never at the configured lr" and s.evidence[1].line == 7
    assert "healthy" not in got
    warm = _run(loss=loss, lr=np.minimum(0.1, 0.01 * (np.arange(40) + 1)))
    warm.facts.append(Fact("lr", 0.1, "train.py", 7, "lr=0.1"))
    assert "lr_schedule_odd" not in kinds(warm)
    assert "lr_schedule_odd" not in kinds(_run(loss=loss, lr=np.full(40, 0.0008)))
    # the linear scaling rule: the configured base lr is scaled in code, so the logged lr is meant to sit below it
    scaled = _run(loss=loss, lr=np.full(40, 6.25e-7))
    scaled.facts.append(Fact("lr", 2e-5, "question.txt", 3, "base_lr = 2e-5"))
    scaled.texts.append(TextArtifact("question.txt", Path("question.txt"), "text",
                                     "I use the linear scaling rule:\n\nbase_lr = 2e-5\nbs = 8\nlr = base_lr * bs / 256\n"))
    assert "lr_schedule_odd" not in kinds(scaled)


def test_an_lr_decay_across_epochs_a_post_left_out_is_no_jump():
    """Epochs 1-10 printed, then "...", epoch 100, "...", epochs 198-200 of a cosine decay: 0.0508 at epoch 100 and
    5.6e-5 at 198 are 98 epochs apart, not neighbours. The same fall between two neighbouring epochs is a jump."""
    ep = np.array(list(range(1, 11)) + [100, 198, 199, 200])
    cos = 0.05 * (1 + np.cos(np.pi * ep / 200))
    run = _run(loss=2.0 / ep, lr=cos)
    run.series[1].steps = ep
    assert "lr_jump" not in kinds(run)
    ep2 = np.arange(1, 15)
    step = np.where(ep2 < 12, 0.05, 5e-5)
    run2 = _run(loss=2.0 / ep2, lr=step)
    assert kinds(run2)["lr_jump"].data["after"] == 5e-5


def test_a_step_decay_each_epoch_collapses_a_five_epoch_log():
    """StepLR(step_size=1, gamma=0.1) logged per epoch: 0.1, 0.01, 0.001, 1e-4, 0 with the loss flat from epoch 2.
    Five points were too few to read a collapse (eight were needed), and 1e-4 is exactly 1/1000 of the peak (the
    test was "<"): the lr read as high and jumping, and the run as frozen parameters."""
    got = kinds(_run(loss=[1.92, 1.51, 1.49, 1.49, 1.49], lr=[0.1, 0.01, 0.001, 0.0001, 0.0]))
    assert got["lr_schedule_odd"].data["detail"] == "collapse"
    # the same five epochs decaying 10x in all: no collapse
    assert "lr_schedule_odd" not in kinds(_run(loss=[1.92, 1.51, 1.40, 1.33, 1.30], lr=[0.1, 0.05, 0.03, 0.02, 0.01]))


def test_a_few_points_that_fall_then_stop_are_a_plateau_and_ln3_beside_56pct_is_no_chance():
    """A post's five epochs: loss 1.201, 1.102, 1.098, 1.097, 1.097 with train accuracy 0.52-0.56. The loss sits at
    ln 3 = 1.0986 by coincidence: with no class count configured, the level alone had implied three classes at
    chance, though the accuracy is far above 1/3. Now: no loss_at_chance, and the fall that stopped is a plateau."""
    loss = [1.201, 1.102, 1.098, 1.097, 1.097]
    got = kinds(_run(loss=loss, accuracy=[0.52, 0.56, 0.56, 0.56, 0.56]))
    assert "loss_at_chance" not in got
    assert got["plateau"].data["short"] and "stays there" in got["plateau"].summary
    # the same loss with accuracy at a third is at chance, as before
    assert "loss_at_chance" in kinds(_run(loss=[1.0990, 1.0987, 1.0986, 1.0986], accuracy=[0.33, 0.34, 0.33, 0.33]))
    # a running mean that still falls at every print is no plateau
    assert "plateau" not in kinds(_run(loss=[10.2, 9.405, 9.399, 9.393, 9.388]))


def test_val_worsening_beside_an_unfitted_training_set_is_no_overfitting_finding(tmp_path):
    """A 30 % noisy-label run (benchmarks/torch_scenarios.py): val_loss bottoms at epoch 8 and climbs while train
    accuracy creeps from 0.62 to 0.82 over forty epochs. It read overfitting 0.93, a finding; memorising wrong
    labels is that slow, overfitting clean ones fits them. Beside a train accuracy below 0.9 at the end the rise is
    held under the separating strength and label_noise gets divergence_train_unfitted; a run whose train accuracy
    reaches 0.99 keeps the full reading."""
    e = np.arange(40)
    loss = 1.35 - 0.02 * e
    val = np.where(e < 8, 0.7 + 0.25 * (8 - e) / 8, 0.7 + 0.01 * (e - 8))
    acc_slow = 0.6 + 0.0055 * e
    got = kinds(_run(loss=loss, val_loss=val, accuracy=acc_slow))
    assert got["train_val_divergence"].strength <= 0.25 and "divergence_train_unfitted" in got
    fitted = np.minimum(0.99, 0.6 + 0.03 * e)
    got = kinds(_run(loss=loss, val_loss=val, accuracy=fitted))
    assert got["train_val_divergence"].strength == 1.0 and "divergence_train_unfitted" not in got
    import json
    from mltdbg.playbooks.diagnose import diagnose
    p = tmp_path / "history.json"
    p.write_text(json.dumps({"loss": loss.tolist(), "accuracy": acc_slow.tolist(), "val_loss": val.tolist(),
                             "val_accuracy": (0.65 - 0.002 * np.abs(e - 8)).tolist()}))
    d = diagnose([str(p)], [])
    assert d.status == "needs_more_data" and {h.id for h in d.hypotheses[:2]} == {"overfitting", "label_noise"}, \
        [(h.id, h.confidence) for h in d.hypotheses]


def test_a_warm_up_from_zero_then_cosine_is_no_collapse():
    # linear warm-up from exactly 0 over a tenth of the run, then a cosine decay to 0 at the end
    lr = 3e-4 * np.minimum(1, x / 20) * 0.5 * (1 + np.cos(np.pi * x / N))
    s = kinds(_run(loss=falling, lr=lr))
    assert "lr_schedule_odd" not in s and "healthy" in s
    # the same warm-up into a collapse right after its peak is one
    collapsed = np.where(x <= 20, lr, 3e-4 * 0.5 ** (x - 20))
    assert kinds(_run(loss=falling, lr=collapsed))["lr_schedule_odd"].data["detail"] == "collapse"


def test_sawtooth_epoch_period():
    period = 25
    v = 1.0 + 0.3 * ((x % period) / period) + rng.normal(0, 0.005, N) - x / 4000
    s = kinds(_run(loss=v))["sawtooth_epoch"]
    assert s.data["period"] in (period - 1, period, period + 1)


def test_sawtooth_of_class_blocks_spanning_decades():
    """Data sorted by class, not shuffled: within each epoch of 30 steps three class blocks of 10, the loss falling from a
    few nats to ~0.01 inside each block and jumping back at the next (one jump to 24). Read on a raw scale the spikes
    drowned the repeating shape (and the best lag, 20, was no fraction of the epoch); on a log scale the period is a
    third of the epoch."""
    g = np.random.default_rng(3)
    blocks = [float(g.uniform(2, 5)) * np.exp(-np.arange(10) / 2.0) + 0.005 for _ in range(18)]
    blocks[4] = blocks[4] * 5
    v = np.concatenate(blocks)
    run = _run(loss=v)
    run.series.append(Series("epoch", "epoch", np.arange(6) * 300, np.arange(6, dtype=float), "epoch.tsv", np.arange(6) + 2, "line"))
    s = kinds(run)["sawtooth_epoch"]
    assert s.data["period"] in (10, 30) and s.data["aligned"], s.summary


def test_loss_scale_halvings():
    ls = 65536 / 2 ** np.minimum(np.arange(N) // 20, 19)
    assert kinds(_run(loss_scale=ls))["loss_scale_drop"].data["halvings"] >= 3


def test_million_points_vectorised():
    big = np.concatenate([falling] * 2500)  # 1,000,000 points
    big[987_654] = np.nan
    s = kinds(_run(loss=big))["nonfinite"]
    assert s.data["step"] == 9_876_540


# ---- several series of one name; long series without per-point loops

def test_a_nan_in_one_of_many_same_named_series_is_read():
    """5,000 small logs each give a loss series of the same length: the one that went NaN is
    the one analysed (Run.metric alone would pick the first)."""
    run = Run(root=Path("."))
    for k in range(50):
        v = 2.0 / (1 + np.arange(20) * 0.1)
        if k == 37:
            v[15] = np.nan
        run.series.append(Series("loss", "loss", np.arange(20), v, f"run_{k}.log", np.arange(1, 21)))
    nan = [s for s in curve_signals(run) if s.kind == "nonfinite"]
    assert nan and nan[0].evidence[0].source == "run_37.log" and nan[0].data["step"] == 15


def test_epoch_train_level_matches_a_plain_loop():
    from mltdbg.analyzers.curves import _epoch_train_level
    rng = np.random.default_rng(0)
    ts = np.sort(rng.integers(0, 5000, 3000))
    tv = rng.normal(size=3000)
    tv[rng.integers(0, 3000, 200)] = np.nan
    ev = np.sort(rng.integers(0, 5200, 60))
    tr = Series("loss", "loss", ts, tv, "x.log", np.arange(3000))
    got = _epoch_train_level(tr, ev)
    ref, prev = np.full(len(ev), np.nan), -np.inf
    for i, s in enumerate(ev):                       # the definition, one evaluation at a time
        m = (ts > prev) & (ts <= s) & np.isfinite(tv)
        if not m.any():
            j = int(np.searchsorted(ts, s, side="right"))
            m = np.zeros(len(ts), bool)
            m[max(0, j - 3):j] = True
            m &= np.isfinite(tv)
        if m.any():
            ref[i] = np.median(tv[m])
        prev = s
    assert np.allclose(got, ref, equal_nan=True)


def test_initial_transient_of_a_long_series_is_linear_and_close_to_exact():
    from mltdbg.analyzers import curves
    n = 60_000
    x = np.arange(n)
    v = 100 * np.exp(-x / (n / 50)) + 1 + np.random.default_rng(1).normal(0, 0.05, n)
    fast = curves._initial_transient(v)                      # above TRANSIENT_EXACT_MAX: block medians
    i, w = 0, max(5, n // 20)
    while i < min(n - 1, max(3, n // 5)):                    # the exact definition
        nxt = v[i + 1:i + 1 + w]
        if v[i] <= 1.5 * abs(float(np.median(nxt))):
            break
        i += 1
    assert n > curves.TRANSIENT_EXACT_MAX and abs(fast - i) <= 0.02 * i


def test_zero_grads_below_a_live_head_are_their_own_kind_not_proof_of_frozen_parameters():
    # a printed per-layer table (one row per layer, in model order): zero up to fc1, fc2 alive
    run = Run(root=Path("."))
    rows = [("conv1.weight", 0.0), ("conv2.weight", 0.0), ("fc1.weight", 0.0), ("fc2.weight", 0.0012)]
    for i, (layer, g) in enumerate(rows):
        run.series.append(Series(f"grad_norm/{layer}", f"grad_norm/{layer}", np.array([0]), np.array([g]),
                                 "grads.txt", np.array([i + 2]), "line"))
    k = kinds(run)
    assert "grad_zero" not in k
    s = k["grad_zero_below_head"]
    assert s.data["first_live"] == "grad_norm/fc2.weight" and s.data["share"] == 0.75
    # every layer zero: plain grad_zero (nothing gets gradient)
    for x in run.series:
        x.values = np.array([0.0])
    k = kinds(run)
    assert "grad_zero" in k and "grad_zero_below_head" not in k


def test_a_falling_loss_while_the_layers_below_the_head_get_no_gradient_is_not_healthy():
    """The head alone learns, so the loss falls as a healthy curve does: not "healthy" (which argues
    against every cause, frozen parameters included) when most layers get exactly zero gradient."""
    run = _run(loss=list(np.linspace(2.3, 1.3, 20)))
    assert "healthy" in kinds(run)
    for i, g in enumerate((0.0, 0.0, 0.0, 0.05)):
        run.series.append(Series(f"grad_norm/layer{i}.weight", f"layer{i}.weight", np.array([0, 100]),
                                 np.array([g, g]), "grads.csv", np.array([2 + i, 6 + i]), "line"))
    k = kinds(run)
    assert "grad_zero_below_head" in k and "healthy" not in k


def test_an_lr_stuck_at_exactly_zero_mid_run_is_a_schedule_bug_but_a_decay_ending_at_zero_is_not():
    warm = [1e-4, 2e-4, 3e-4]
    k = kinds(_run(lr=warm + [0.0] * 5, loss=[4.21, 3.55, 3.02, 3.01, 3.01, 3.01, 3.01, 3.01]))
    s = k["lr_schedule_odd"]
    assert s.data["detail"] == "zero" and s.data["step"] == 30 and "5 of 8" in s.summary
    # linear decay that reaches 0 at its last logged point: the schedule ending, not a bug
    k = kinds(_run(lr=list(np.linspace(3e-4, 0, 40)), loss=falling[:40]))
    assert "lr_schedule_odd" not in k or k["lr_schedule_odd"].data.get("detail") != "zero"


def test_an_lr_of_zero_at_every_logged_point_is_a_schedule_bug_but_a_warm_up_from_zero_is_not():
    k = kinds(_run(lr=[0.0, 0.0], loss=[0.0029, 0.0037]))       # a post's two epochs, "LR 0.00000000"
    s = k["lr_schedule_odd"]
    assert s.data["detail"] == "zero" and "every logged point (2 points)" in s.summary
    k = kinds(_run(lr=[0.0] * 30, loss=falling[:30]))           # no "lr jumps from 0 to 0"
    assert k["lr_schedule_odd"].data["detail"] == "zero" and "lr_jump" not in k
    k = kinds(_run(lr=[0.0, 1e-5, 2e-5, 3e-5, 4e-5, 5e-5, 6e-5, 7e-5], loss=falling[:8]))   # warm-up from 0
    assert "lr_schedule_odd" not in k or k["lr_schedule_odd"].data.get("detail") != "zero"


def _code_run(tmp_path, code: str):
    from mltdbg.analyzers.config import extract_facts
    from mltdbg.analyzers.ingest import ingest
    (tmp_path / "train.py").write_text(code)
    run = ingest([tmp_path])
    extract_facts(run)
    return run


def test_fine_tuning_a_pretrained_model_at_an_adam_lr_of_5e3_is_high(tmp_path):
    """The HF Trainer's optimizer is AdamW when TrainingArguments names none; full fine-tuning of a
    pretrained model at 5e-3 is far above its recipes (1e-5..1e-4), though not above Adam's 1e-2."""
    run = _code_run(tmp_path, "model = AutoModelForSequenceClassification.from_pretrained('bert-base-uncased')\n"
                              "args = TrainingArguments(output_dir='out', learning_rate=5e-3, num_train_epochs=3)\n"
                              "Trainer(model=model, args=args).train()\n")
    assert run.fact("optimizer").value == "adamw" and run.fact("optimizer").line == 2
    s = kinds(run)["lr_high"]
    assert s.data["lr"] == 5e-3 and "fine-tuning" in s.summary and s.evidence[0].line == 2


def test_the_fine_tuning_lr_bar_spares_lora_and_ordinary_lrs(tmp_path):
    lora = _code_run(tmp_path, "model = AutoModelForCausalLM.from_pretrained('gpt2')\n"
                               "model = get_peft_model(model, LoraConfig(r=8))\n"
                               "args = TrainingArguments(output_dir='o', learning_rate=2e-3)\n")
    assert "lr_high" not in kinds(lora)
    (tmp_path / "train.py").unlink()
    ok = _code_run(tmp_path, "model = BertModel.from_pretrained('bert-base-uncased')\n"
                             "opt = torch.optim.AdamW(model.parameters(), lr=3e-5)\n")
    assert "lr_high" not in kinds(ok)
    named = _code_run(tmp_path, "args = TrainingArguments(output_dir='o', optim='sgd', learning_rate=5e-3)\n")
    assert named.fact("optimizer").value == "sgd"


def test_a_posts_bert_fine_tune_at_adamw_1e3_is_high(tmp_path):
    """A question quotes its loop: BertForSequenceClassification.from_pretrained and AdamW at lr=1e-3 (the
    classic fine-tune that collapses to one class at ln 2): full fine-tuning above 5e-4 is high, read from
    the post's snippet as from a script. 1e-4 is not."""
    from mltdbg.analyzers.config import extract_facts
    from mltdbg.analyzers.ingest import ingest

    def post(lr: str):
        (tmp_path / "question.txt").write_text(
            "bert-base-chinese finetune on my text classification, accuracy stuck at 0.5 (all predict same label)\n\n"
            "code is basically the run_glue example but I write my own loop:\n\n"
            '    model = BertForSequenceClassification.from_pretrained("bert-base-chinese", num_labels=2)\n'
            f"    optimizer = torch.optim.AdamW(model.parameters(), lr={lr})\n"
            "    for batch in train_loader:\n        loss = model(**batch).loss\n        loss.backward()\n\n"
            "train loss stays 0.693 forever. any idea??\n")
        run = ingest([tmp_path])
        extract_facts(run)
        return kinds(run)
    s = post("1e-3")["lr_high"]
    assert s.data["lr"] == 1e-3 and "fine-tuning" in s.summary and s.evidence[0].line == 6
    assert "lr_high" not in post("1e-4")


def test_grad_norm_growth_over_a_short_history():
    """A post's four epochs: gnorm 8.3, 66, 224, 531 and then NaN grew 64x; a noisy 1.2, 0.8, 1.5 did not."""
    run = _run(loss=[14.9, 14.0, 13.1, np.nan, np.nan], grad_norm=[8.3, 66.4, 224.1, 531.2, np.nan])
    s = kinds(run)["grad_growth"]
    assert s.data["short"] and round(s.data["ratio"]) == 64 and s.evidence[-1].line == 5
    assert "grad_growth" not in kinds(_run(loss=[2.0, 1.9, 1.8, 1.7], grad_norm=[1.2, 0.8, 1.5, 1.1]))
    assert "grad_growth" not in kinds(_run(loss=[2.0, 1.9, 1.8], grad_norm=[1.0, 1.5, 2.0]))   # 2x: not yet growth


def _lm_run(loss, ppl, nll=None) -> Run:
    run = Run(root=Path("."))
    st = np.arange(1, len(loss) + 1) * 1000
    for name, raw, v in [("loss", "loss", loss), ("nll_loss", "nll_loss", nll), ("perplexity", "ppl", ppl)]:
        if v is not None:
            run.series.append(Series(name, raw, st, np.asarray(v, float), "train.log", np.arange(len(v)) + 1, "line"))
    return run


def test_a_loss_printed_in_bits_is_not_a_huge_start():
    """fairseq prints losses in base 2 (ppl = 2 ** loss): 15.2 bits is 10.5 nats, a 37k-word
    vocabulary's uniform start, not above any vocabulary's; the same 15.2 in nats is."""
    loss = [15.2, 12.0, 9.0, 7.5, 6.8, 6.5]
    assert "loss_huge_at_start" not in kinds(_lm_run(loss, [2 ** x for x in loss]))
    smoothed = [x + 0.8 for x in loss]        # label-smoothed loss; ppl follows nll_loss
    assert "loss_huge_at_start" not in kinds(_lm_run(smoothed, [2 ** x for x in loss], loss))
    s = kinds(_lm_run(loss, [math.exp(x) for x in loss]))["loss_huge_at_start"]
    assert s.data["first"] == 15.2


def test_a_flat_loss_at_ln_k_names_its_own_chance_level():
    """No num_classes anywhere: 0.6931 is a binary model at chance and 2.3026 a ten-class one, even
    over a post's four epochs; 1.7 names no usual class count (ln 5 = 1.609, ln 10 = 2.303)."""
    s = kinds(_run(loss=[0.6931, 0.6931, 0.6932, 0.6931]))["loss_at_chance"]
    assert s.data["k"] == 2 and s.data["short"] and "ln(2)" in s.summary and s.evidence[-1].line == 5
    s = kinds(_run(loss=[2.3026 + 0.0001 * (i % 3) for i in range(12)]))["loss_at_chance"]
    assert s.data["k"] == 10 and s.strength == 1.0
    s = kinds(_run(loss=[1.7 + 0.001 * (i % 3) for i in range(12)]))["loss_at_chance"]
    assert s.data["k"] is None and s.strength == 0.7
    assert "loss_at_chance" not in kinds(_run(loss=[1.7, 1.7, 1.7, 1.7]))


def test_the_trainer_default_optimizer_yields_to_a_named_one(tmp_path):
    """TrainingArguments without optim= means AdamW only where nothing else names the optimizer:
    an SGD built in the code (and handed to Trainer(optimizers=...)) is what runs; a tokenizer's
    from_pretrained alone is no fine-tuning of a pretrained model."""
    run = _code_run(tmp_path, "model = BertForSequenceClassification.from_pretrained('bert-base-uncased')\n"
                              "args = TrainingArguments(output_dir='o', learning_rate=0.05)\n"
                              "opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)\n"
                              "Trainer(model=model, args=args, optimizers=(opt, None)).train()\n")
    assert [f.value for f in run.facts if f.name == "optimizer"] == ["sgd"]
    assert "lr_high" not in kinds(run)
    (tmp_path / "train.py").unlink()
    tok = _code_run(tmp_path, "tok = AutoTokenizer.from_pretrained('gpt2')\nmodel = GPT2LMHeadModel(GPT2Config())\n"
                              "args = TrainingArguments(output_dir='o', learning_rate=2e-3)\n")
    assert tok.fact("optimizer").value == "adamw" and "lr_high" not in kinds(tok)


def test_a_nan_only_in_validation_points_at_the_validation_data():
    """val_loss NaN from the first epoch while the training loss falls, finite: the training step is
    sound (no lr or gradient blow-up); the validation data carries the NaN."""
    run = _run(loss=[0.65, 0.6, 0.55, 0.5, 0.45], val_loss=[np.nan] * 5)
    s = kinds(run)["val_nonfinite_only"]
    assert s.data == {"step": 0, "count": 5, "all": True} and [e.line for e in s.evidence] == [2, 6]
    assert "val_nonfinite_only" not in kinds(_run(loss=[0.6, np.nan, np.nan], val_loss=[0.7, np.nan, np.nan]))


def test_train_level_per_evaluation_is_the_median_since_the_last_one():
    """_epoch_train_level (whole-array) against its definition, one np.median per evaluation: the
    finite train points after the previous evaluation up to this one, or the last three before it
    when there are none; NaN where even those are all non-finite."""
    from mltdbg.analyzers.curves import _epoch_train_level

    def one_by_one(tr, steps):
        out = np.full(len(steps), np.nan)
        hi = np.searchsorted(tr.steps, steps, side="right")
        lo = np.r_[0, hi[:-1]]
        fin = np.isfinite(tr.values)
        for i in range(len(steps)):
            a, b = int(lo[i]), int(hi[i])
            if a >= b or not fin[a:b].any():
                a = max(0, b - 3)
            seg = tr.values[a:b][fin[a:b]]
            if len(seg):
                out[i] = float(np.median(seg))
        return out

    rng = np.random.default_rng(3)
    for _ in range(1500):
        n = int(rng.integers(0, 40))
        v = rng.normal(size=n) * 10.0 ** int(rng.integers(-3, 3))
        k = rng.random(n)
        v[k < 0.15] = np.nan
        v[(k > 0.15) & (k < 0.2)] = np.inf
        if rng.random() < 0.3:
            v = np.round(v, 1)        # ties
        tr = Series("loss", "loss", np.sort(rng.integers(0, 50, n)), v, "x", np.arange(n))
        steps = np.sort(rng.integers(-5, 60, int(rng.integers(1, 12))))
        assert np.array_equal(_epoch_train_level(tr, steps), one_by_one(tr, steps), equal_nan=True)
    tr = Series("loss", "loss", np.arange(6), np.array([1.0, 3.0, 2.0, np.nan, 5.0, 4.0]), "x", np.arange(6))
    # step 3: only a NaN since step 2, so the last three points (3, 2, NaN): 2.5
    assert _epoch_train_level(tr, np.array([2, 3, 5])).tolist() == [2.0, 2.5, 4.5]


def test_all_nan_head_of_the_training_loss_is_read_without_numpy_warnings():
    """A training loss NaN from its first point (and after), beside a validation loss: the
    too-good-to-be-true checks find no reference and say nothing, and numpy prints no
    "All-NaN slice" warning into the user's terminal."""
    import warnings
    nan = float("nan")
    run = _run(loss=[nan] * 12, val_loss=[0.9, 0.8, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sig = curve_signals(run)
    assert not any(s.kind == "val_near_perfect" for s in sig)
    assert any(s.kind.startswith("nonfinite") for s in sig)


def test_all_nan_gradient_series_are_read_without_numpy_warnings():
    """Per-layer gradient norms that are all NaN (a layer whose grads were never finite): the
    layer analyzers reduce them to NaN and move on, with no numpy warning on the terminal."""
    import warnings
    nan = float("nan")
    ok = list(np.linspace(1.0, 0.5, 40))
    run = _run(loss=ok, grad_norm=[nan] * 40, **{"grad_norm/layer1": [nan] * 40, "grad_norm/layer2": ok})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve_signals(run)


def _spikes_every_block(v):
    """The spike test of curves._spikes with every block's median and MAD taken (no screening)."""
    from mltdbg.analyzers import curves
    n = len(v)
    block = max(5, min(max(10, min(200, n // 20)), n))
    nb = n // block
    parts = []
    if nb:
        m = v[: nb * block].reshape(nb, block)
        med = np.median(m, axis=1)[:, None]
        mad = np.median(np.abs(m - med), axis=1)[:, None]
        parts.append((m, med, mad, 0))
    if nb * block < n:
        tail = v[nb * block:] if n - nb * block >= 5 or nb == 0 else v[max(0, n - block):]
        tm = np.median(tail)
        parts.append((v[nb * block:], tm, np.median(np.abs(tail - tm)), nb * block))
    idx = []
    for x, med, mad, at in parts:
        z = (x - med) / (1.4826 * mad + 1e-12 + 1e-3 * np.abs(med))
        hit = (z > curves.SPIKE_Z) & (x > curves.SPIKE_RATIO * np.abs(med) + 1e-12)
        idx.append(np.flatnonzero(hit) + at)
    return np.concatenate(idx) if idx else np.array([], np.int64)


def test_spikes_screened_by_block_range_are_those_of_every_block():
    # _spikes skips the median of blocks whose [min, max] cannot hold a spike: the same hits as
    # testing every block, on noisy, signed, decaying, all-negative and quiet series with planted
    # spikes (some just above SPIKE_RATIO: a looser screen would lose them)
    from mltdbg.analyzers import curves
    rng = np.random.default_rng(7)
    for t in range(400):
        n = int(rng.integers(10, 4000))
        v = [rng.normal(1, 0.1, n), rng.normal(0, 1, n), np.exp(rng.normal(0, 0.5, n)) * np.linspace(3, 0.1, n),
             -np.abs(rng.normal(0, 1, n)), rng.normal(1, 0.01, n)][t % 5]
        k = int(rng.integers(0, n // 50 + 2))
        v[rng.integers(0, n, k)] *= rng.choice([1.6, 1.8, 2.5, 10.0, 100.0, -5.0, 0.1], k)
        assert curves._spikes(v)[0].tolist() == _spikes_every_block(v).tolist()


def test_an_lr_up_to_one_with_no_optimizer_named_is_a_weaker_hint():
    """1.0 is Adadelta's and L-BFGS's default and an LSTM's usual SGD rate: with no optimizer named it
    is capped at UNKNOWN_OPT_LR_CAP; named Adam, or above 1 for any optimizer, it counts in full."""
    from mltdbg.analyzers.curves import UNKNOWN_OPT_LR_CAP
    loss = [2.0, 1.9, 1.8, 1.7]
    unknown = kinds(_run(loss=loss, lr=[1.0] * 4))["lr_high"]
    assert unknown.strength == UNKNOWN_OPT_LR_CAP < 1.0
    adam = _run(loss=loss, lr=[1.0] * 4)
    adam.facts.append(Fact("optimizer", "adam", "config.yaml", 1))
    assert kinds(adam)["lr_high"].strength == 1.0
    assert kinds(_run(loss=loss, lr=[10.0] * 4))["lr_high"].strength == 1.0


def test_long_series_analysed_on_two_threads_give_the_same_signals(monkeypatch):
    """From SIDE_THREAD_POINTS the gradient-norm and lr analyzers run on a second thread: the
    signals, their order and their evidence are those of the one-thread run."""
    from mltdbg.analyzers import curves
    n = 3000
    steps = np.arange(1, n + 1)
    loss = 2.0 * np.exp(-steps / 600) + 0.2
    loss[1800] = 9.0                                   # a spike
    loss[2500:] = np.nan                               # and a NaN
    grad = 1.0 + 0.01 * steps                          # growing gradients
    lr = np.where(steps < 1500, 1e-3, 0.0)             # lr falls to 0 half-way
    run = _run(loss=loss, grad_norm=grad, lr=lr)

    def signals():
        return [(s.kind, s.summary, [(e.step, e.text) for e in s.evidence]) for s in curve_signals(run)]
    threads = []
    real = curves.ThreadPoolExecutor

    def counting(*a, **k):
        threads.append(1)
        return real(*a, **k)
    monkeypatch.setattr(curves, "ThreadPoolExecutor", counting)
    monkeypatch.setattr(curves, "SIDE_THREAD_POINTS", 10 ** 9)
    one = signals()
    monkeypatch.setattr(curves, "SIDE_THREAD_POINTS", 100)
    two = signals()
    assert threads == [1] and one == two
    kinds_seen = {k for k, _, _ in one}
    assert {"nonfinite"} <= kinds_seen and any(k.startswith("grad") for k in kinds_seen) \
        and any(k.startswith("lr") for k in kinds_seen), kinds_seen


def test_plain_sgd_is_judged_by_its_step_without_momentum(tmp_path):
    """Momentum m moves the weights by about lr / (1 - m) a step: SGD at 1e-3 with no momentum (torch's
    default when the call names none) is low, as momentum SGD at 1e-4 is; with momentum 0.9 it is not."""
    plain = _code_run(tmp_path, "opt = torch.optim.SGD(model.parameters(), lr=1e-3)\n")
    assert plain.fact("momentum").value == 0.0
    s = kinds(plain)["lr_tiny"]
    assert s.data["lr"] == 1e-3 and "sgd without momentum" in s.summary and s.evidence[0].line == 1
    (tmp_path / "train.py").unlink()
    assert "lr_tiny" not in kinds(_code_run(tmp_path, "opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)\n"))
    (tmp_path / "train.py").unlink()
    assert "lr_tiny" not in kinds(_code_run(tmp_path, "opt = torch.optim.SGD(model.parameters(), lr=1e-2)\n"))


def test_a_long_curves_sampled_medians_give_the_exact_ones_signals(monkeypatch):
    """Above 2 * MEDIAN_SAMPLE points the loss analyzers take levels and noise from an evenly spaced
    sample: on 5M points of a noisy, falling loss that diverges late, the signals and their strengths
    are those of the exact medians (MEDIAN_SAMPLE raised past the curve's length)."""
    import mltdbg.analyzers.curves as C
    rng = np.random.default_rng(7)
    n = 5_000_000
    x = np.arange(n)
    loss = 2.0 * np.exp(-x / 5e5) + 0.3 + 0.4 * np.maximum(0, x - 4_000_000) / 1e6 + rng.normal(0, 0.05, n)
    run = _run(loss=loss)
    assert n > 2 * C.MEDIAN_SAMPLE
    sampled = {s.kind: round(s.strength, 3) for s in curve_signals(run)}
    monkeypatch.setattr(C, "MEDIAN_SAMPLE", 10 * n)
    exact = {s.kind: round(s.strength, 3) for s in curve_signals(run)}
    assert sampled == exact and "divergence" in exact, (sampled, exact)


def test_smooth_is_the_centered_mean_of_the_points_its_window_covers():
    """_smooth (the moving average the loss analyzers read) against the mean taken point by point:
    full windows in the middle, windows that shrink at both ends, widths up to past the length."""
    from mltdbg.analyzers.curves import _smooth
    r = np.random.default_rng(3)
    for n in (3, 4, 7, 20, 101):
        v = r.normal(size=n)
        for w in range(2, n + 3):
            half = min(w, n) // 2
            want = [v[max(0, i - half):min(n, i + half + 1)].mean() for i in range(n)]
            assert np.allclose(_smooth(v, w), want, rtol=0, atol=1e-12), (n, w)


def test_a_short_steady_climb_into_nan_is_a_divergence():
    """nanoGPT's eight lines: the loss falls to 7.22, climbs at every print to 12.88 and goes NaN. The
    3x-the-median test for a short history missed it (12.88 < 3 x 9.05)."""
    s = kinds(_run(loss=[10.99, 9.12, 7.88, 7.22, 8.99, 10.22, 12.88, float("nan")]))
    assert s["divergence"].data["to_nonfinite"] and "nonfinite_sudden" not in s
    # a noisy history that ends lower than its peak, or rises twice only, is no climb
    for v in ([10.99, 9.12, 7.88, 7.22, 12.0, 10.22, 11.0, float("nan")], [9.0, 8.0, 7.22, 9.5, 11.0, float("nan")]):
        assert "divergence" not in kinds(_run(loss=v))


def test_a_few_finite_points_that_blow_up_are_a_divergence():
    """detectron2's metrics.json, five lines: total_loss 2.31, 1.98, 8.7, 190, 5e9 and no NaN yet. Too
    short for the smoothed rule (six points at least): a climb at every point from the minimum to 10x it
    or more is a divergence, held at a short history's strength."""
    s = kinds(_run(loss=[2.31, 1.98, 8.7, 190.4, 5e9]))
    assert s["divergence"].data["short"] and s["divergence"].strength <= 0.5
    assert [e.value for e in s["divergence"].evidence] == [1.98, 5e9]
    # a climb of two rises, one that ends below 10x its minimum, or a noisy few points: no divergence
    for v in ([2.31, 1.98, 8.7, 190.4], [1.0, 1.2, 1.5, 2.0, 2.9], [2.0, 0.2, 1.7, 1.2, 30.0]):
        assert "divergence" not in kinds(_run(loss=v)), v


def test_a_nan_loss_the_trainer_printed_as_zero_is_non_finite():
    """transformers' logging_nan_inf_filter prints a window of NaN steps as loss 0.0, beside grad_norm NaN:
    1.92, then 0.0 at every log. It had read "healthy: loss falls 100% from 1.92 to 0"; it is the loss's first
    non-finite point, cited at the loss and the grad_norm. An fp16 run's one skipped step (grad_norm inf, the
    loss finite) stays healthy."""
    nan = float("nan")
    s = kinds(_run(loss=[1.92] + [0.0] * 8, grad_norm=[3.1] + [nan] * 8))
    assert "healthy" not in s and s["nonfinite"].data["masked"] and s["nonfinite"].data["step"] == 10
    assert [e.metric for e in s["nonfinite"].evidence] == ["loss", "grad_norm"]
    loss = list(2.3 * np.exp(-np.arange(60) / 20) + 0.3)
    grads = [1.0] * 60
    grads[30] = float("inf")
    s = kinds(_run(loss=loss, grad_norm=grads))
    assert "healthy" in s and "nonfinite" not in s


def test_a_val_loss_that_rises_from_1e6_to_8e6_is_no_divergence(tmp_path):
    """Validation scored perfectly from its first epoch (val_acc 1.000, val_loss 1e-6 .. 8e-6, a train loss from
    0.3): the val loss "rose 700 % from its minimum" and read as overfitting 0.73. A rise must be a share of the
    run's starting loss to count; what is left is the too-good validation, data_leakage first."""
    e = np.arange(8)
    run = _run(loss=0.3 * np.exp(-e), accuracy=np.minimum(1, 0.9 + 0.02 * e), val_loss=1e-6 * (e + 1),
               val_accuracy=np.ones(8))
    got = kinds(run)
    assert "train_val_divergence" not in got and "val_near_perfect" in got
    # a real rise on the same scale still counts (0.5 -> 0.9 beside a start at 2.3)
    t = 2.3 * np.exp(-0.4 * e) + 0.05
    assert "train_val_divergence" in kinds(_run(loss=t, val_loss=np.r_[1.2, 0.8, 0.6, 0.5, 0.6, 0.7, 0.8, 0.9]))
    lines = "epoch,loss,accuracy,val_loss,val_accuracy\n" + "".join(
        f"{i},{0.3 * math.exp(-i):.5f},{min(1, 0.9 + 0.02 * i):.4f},{1e-6 * (i + 1):.7f},1.0000\n" for i in range(8))
    (tmp_path / "history.csv").write_text(lines)
    from mltdbg.playbooks.diagnose import diagnose
    d = diagnose([str(tmp_path)], ["validation accuracy is 100% from the first epoch, seems too good to be true"])
    assert d.hypotheses[0].id == "data_leakage", [(h.id, h.confidence) for h in d.hypotheses]


def test_a_regression_loss_off_any_sane_scale_at_the_start_is_a_huge_start():
    """An MSE of 1e18 at the first points is no init's doing on unit-scale data: raw features or targets in the
    thousands. 5e5 (a sum over pixels, house prices in thousands) says nothing without a chance level."""
    s = kinds(_run(loss=[3.5e18, 1.1e24, 3.6e23, 6.4e23, 2.0e23]))["loss_huge_at_start"]
    assert s.data["first"] == 1.1e24 and s.evidence[0].step == 10
    assert "loss_huge_at_start" not in kinds(_run(loss=[5e5, 4e5, 3e5, 2e5, 1e5]))


def test_an_mse_that_drops_hundredfold_in_one_step_then_settles_is_a_huge_start():
    """Raw millimetres into an MLP: the action MSE is 153 at the first epoch and 0.65 at the next, then hovers about 1
    (the first outputs off scale, shrunk by the first updates): loss_huge_at_start, weak. A PINN's residual falling a
    decade at a time (1040, 59, 5.8, 0.09, ...) is training, not an off-scale start."""
    robot = [153.2303,0.6485,0.5211,0.6631,0.9605,2.4930,1.7652,1.4222,1.9346,2.3153,1.1796,1.5210,1.5336,1.6192,1.3155,0.7196,1.3619,1.5060,1.5641,1.1705]
    s = kinds(_run(loss=robot))["loss_huge_at_start"]
    assert s.strength == 0.5 and s.data["first"] == 153.2303 and s.evidence[0].step == 0
    pinn = [1040.0, 58.7, 5.755, 0.0889, 0.0111, 0.004, 0.002, 0.0012, 0.0008, 0.0005, 0.0003, 0.00024, 0.00007]
    assert "loss_huge_at_start" not in kinds(_run(loss=pinn))
    # targets in their raw units (mean ~12): the first MSE is huge, then the fit goes on improving (a healthy run)
    raw_targets = [148.0] + [2.1 * 0.95 ** e for e in range(19)]
    got = kinds(_run(loss=raw_targets))
    assert "loss_huge_at_start" not in got and "healthy" in got


def test_data_time_from_two_printed_lines_is_read_a_little_weaker():
    """Two mmdetection lines (each an average over 50 iterations): data_time 1.91 of time 2.10 is the loader's
    wait. Read from fewer than three points it weighs TIMING_FEW of a whole log's."""
    from mltdbg.analyzers.curves import TIMING_FEW
    got = kinds(_run(data_time=[1.912, 1.907], step_time=[2.104, 2.098]))["data_time_high"]
    assert got.data["points"] == 2 and got.strength == TIMING_FEW
    assert "data_time_high" not in kinds(_run(data_time=[0.01, 0.012], step_time=[2.104, 2.098]))


def test_a_step_split_into_data_and_compute_time(tmp_path):
    """A CI job's training log splits each step into "data 0.621s compute 0.0016s" and its CSV into data_time_s /
    compute_time_s: the loader's wait beside the model's own time (compute never includes the wait). Data time
    that is a small share of compute is no bottleneck."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    (tmp_path / "timing.csv").write_text("step,loss,data_time_s,compute_time_s\n" + "".join(
        f"{i},{0.67 - 0.003 * i:.4f},{0.55 + 0.01 * (i % 3):.4f},0.0016\n" for i in range(1, 20)))
    (tmp_path / "job.log").write_text("".join(f"step {i:3d}/19 loss 0.66 data {0.6:.3f}s compute 0.0016s\n"
                                              for i in (5, 10, 15)))
    got = {x.kind: x for x in analyze(ingest([str(tmp_path)]))}["data_time_high"]
    assert got.data["share"] > 0.99 and "compute_time" in got.evidence[0].text
    (tmp_path / "timing.csv").unlink()      # the log's space form alone
    got = {x.kind: x for x in analyze(ingest([str(tmp_path)]))}["data_time_high"]
    assert got.evidence[0].source == "job.log"
    assert "data_time_high" not in kinds(_run(data_time=[0.001] * 5, compute_time=[0.05] * 5))
    assert "data_time_high" not in kinds(_run(data_time=[0.03] * 5, compute_time=[0.05] * 5))      # 38 %


def test_a_scripts_next_phase_under_another_tag_is_no_restart(tmp_path):
    """A distillation script prints its teacher's epochs as "[teacher] epoch 1/25 ..." and then the student's as
    "[kd] epoch 1/40 ...": the epoch counter going back is the next phase, not a resumed job (read as one, the
    healthy run was resume_mismatch 0.72). The same lines without tags are a restart."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    teacher = "".join(f"[teacher] epoch {e:3d}/25 loss {1.5 / e:.4f} val_acc 0.9\n" for e in range(1, 26))
    kd = "".join(f"[kd] epoch {e:3d}/40 loss {12.0 / e:.4f} student_acc 0.8\n" for e in range(1, 41))
    (tmp_path / "train.log").write_text(teacher + kd)
    kinds_ = {x.kind for x in analyze(ingest([str(tmp_path)]))}
    assert "step_restart" not in kinds_ and "loss_jump_at_resume" not in kinds_
    (tmp_path / "train.log").write_text((teacher + kd).replace("[teacher] ", "").replace("[kd] ", ""))
    assert "step_restart" in {x.kind for x in analyze(ingest([str(tmp_path)]))}


def test_a_noisy_loss_that_climbs_slowly_for_the_rest_of_the_run_diverged():
    """A PINN with Adam's betas swapped logs its loss every 50 steps: 0.52 down to ~0.2 by point 8, then a slow
    climb to ~0.33, each point +-0.05. The last few points alone do not clear the noise; the last third's many
    points do. An agent's value loss that grows with its returns is not read so; nor is a noisy loss that stays."""
    r = np.random.default_rng(3)
    n = 61
    trend = np.concatenate([np.linspace(0.52, 0.2, 8), np.linspace(0.2, 0.33, n - 8)])
    loss = trend + r.normal(0, 0.045, n)
    got = kinds(_run(loss=loss))["divergence"]
    assert got.data["min_step"] < 150
    assert "divergence" not in kinds(_run(loss=loss, ep_rew_mean=np.linspace(20, 38, n)))
    flat = np.concatenate([np.linspace(0.52, 0.2, 8), np.full(n - 8, 0.2)]) + r.normal(0, 0.045, n)
    assert "divergence" not in kinds(_run(loss=flat))


def test_a_first_validation_level_with_training_then_worse_is_no_gap_from_the_start(tmp_path):
    """Keras epochs 5, 20 and 50 of a 3-class model: val accuracy 0.717 beside train 0.746 at the first logged epoch,
    then 0.683 and 0.650 while train reaches 1.0; val_loss 0.683 (ln 2 within 5 %, but 0.717 accuracy is no
    two-class chance). Overfitting's shape, not validation that never learned; validation at 1/3 from the start is."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    bar = "15/15 [==============================] - 2s 121ms/step - loss: {} - accuracy: {} - val_loss: {} - val_accuracy: {}\n"

    def got(rows):
        (tmp_path / "train.log").write_text("".join(f"Epoch {e}/50\n" + bar.format(*r) for e, r in rows))
        return {s.kind for s in analyze(ingest([tmp_path]))}
    level = got([(5, (0.6120, 0.7458, 0.6833, 0.7167)), (20, (0.0914, 0.9750, 1.2410, 0.6833)),
                 (50, (0.0031, 1.0000, 2.7782, 0.6500))])
    assert "val_gap_from_start" not in level and "train_val_gap_end" in level
    chance = got([(5, (0.6120, 0.7458, 1.0990, 0.3400)), (20, (0.0914, 0.9750, 1.1010, 0.3300)),
                  (50, (0.0031, 1.0000, 1.1050, 0.3350))])
    assert "val_gap_from_start" in chance


def test_a_loss_logged_by_terms_with_validation_twins_is_read_for_overfitting(tmp_path):
    """ultralytics' results.csv logs train/box_loss, train/cls_loss and their val/ twins, no total: each term's
    validation falls to epoch 45 and then rises while training keeps falling. The term is named in the reading."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    rows = []
    for e in range(1, 121):
        tr = 1.3 * 0.985 ** e
        va = 1.25 * 0.99 ** e if e <= 45 else 1.25 * 0.99 ** 45 * (1 + 0.004 * (e - 45))
        rows.append(f"{e},{tr:.4f},{tr * 2:.4f},{va:.4f},{va * 2:.4f}")
    (tmp_path / "results.csv").write_text("epoch,train/box_loss,train/cls_loss,val/box_loss,val/cls_loss\n"
                                          + "\n".join(rows) + "\n")
    sig = {s.kind: s for s in analyze(ingest([tmp_path]))}["train_val_divergence"]
    assert sig.data["term"] in ("box_loss", "cls_loss") and "val/" in sig.summary


def test_lightning_per_epoch_train_accuracy_is_the_level_read_for_memorisation(tmp_path):
    """Lightning's metrics.csv logs train_acc_step (a batch's, noisy) and train_acc_epoch (the epoch's mean): the
    names read as the accuracy, the epoch's mean is the level. Train accuracy holds ~0.745 for 40 epochs, climbs to
    0.99 after the lr drop while validation falls from 0.76 to 0.70: labels memorised (label noise's shape)."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.analyzers.names import normalize
    assert normalize("train_acc_epoch") == normalize("train_acc_step") == "accuracy"
    rng = np.random.default_rng(1)
    rows = ["epoch,lr-SGD,step,train_acc_epoch,train_acc_step,train_loss_epoch,train_loss_step,val_acc,val_loss"]
    for e in range(60):
        acc = min(0.745, 0.3 + 0.1 * e) if e < 40 else min(0.99, 0.745 + 0.013 * (e - 39))
        lr = 0.05 if e < 40 else 0.005
        val = min(0.76, 0.3 + 0.1 * e) if e < 40 else 0.76 - 0.003 * (e - 39)
        for k in range(3):
            rows.append(f"{e},{lr},{e * 150 + 50 * k + 49},,{acc + rng.normal(0, 0.08):.4f},,{2.3 * (1 - acc):.4f},,")
        rows.append(f"{e},,{e * 150 + 149},{acc:.4f},,{2.2 * (1 - acc):.4f},,{val:.4f},{1.0 + (0.8 - val):.4f}")
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    assert "memorized_after_plateau" in {s.kind for s in analyze(ingest([tmp_path]))}


def test_arguments_spread_from_a_config_still_mean_the_trainers_adamw(tmp_path):
    """TrainingArguments(**cfg["training"]) with a posted config that names no optim: the Trainer's
    AdamW runs, and a fine-tune at 1e-2 is high for it; a config that names one wins."""
    (tmp_path / "config.yaml").write_text("training:\n  learning_rate: 1.0e-2\n  warmup_ratio: 0.0\n")
    run = _code_run(tmp_path, "model = AutoModelForSequenceClassification.from_pretrained('roberta-base')\n"
                              "args = TrainingArguments(output_dir='out', **cfg['training'])\n")
    assert run.fact("optimizer").value == "adamw" and kinds(run)["lr_high"].data["lr"] == 1e-2
    (tmp_path / "config.yaml").write_text("training:\n  learning_rate: 1.0e-2\n  optim: sgd\n")
    assert _code_run(tmp_path, (tmp_path / "train.py").read_text()).fact("optimizer").value == "sgd"


def test_a_transformer_trained_from_scratch_at_adamw_3e2_is_high(tmp_path):
    """A GPT trained from scratch (no pretrained weights) with optax.adamw at 3e-2: ten times what such
    recipes use (6e-4 to 1e-3), though not above Adam's general 1e-2 mark by much; 2e-3 is not high."""
    def run(lr: str):
        return _code_run(tmp_path, "# gpt350m, 24 layers\nmodel = GPT(GPTConfig(n_layer=24))\n"
                                   "tok = AutoTokenizer.from_pretrained('gpt2')\n"
                                   f"tx = optax.adamw(learning_rate={lr}, weight_decay=0.1)\n")
    s = kinds(run("3e-2"))["lr_high"]
    assert s.data["lr"] == 3e-2 and s.strength > 0.7
    assert "lr_high" not in kinds(run("2e-3"))


def test_a_validation_loss_at_ln2_beside_a_training_loss_near_it_is_a_loss_at_chance():
    """A binary fine-tune whose labels are not the texts' own: eval_loss 0.6932, 0.6937, 0.6981 and
    eval_accuracy 0.50 while the training loss creeps from 0.6987 to 0.6776 (memorising, 3 %). A run whose
    validation learned (accuracy 0.81) or whose training loss fell far below ln 2 is no such case."""
    loss = [0.6987, 0.6951, 0.6940, 0.6936, 0.6934, 0.6929, 0.6925, 0.6871, 0.6819, 0.6776]
    val = [np.nan] * 3 + [0.6932] + [np.nan] * 3 + [0.6937] + [np.nan, 0.6981]
    acc = [np.nan] * 3 + [0.4996] + [np.nan] * 3 + [0.5028] + [np.nan, 0.4952]
    s = kinds(_run(loss=loss, val_loss=val, val_accuracy=acc))["loss_at_chance"]
    assert s.data["k"] == 2 and s.data["val"]
    learned = [np.nan] * 3 + [0.61] + [np.nan] * 3 + [0.78] + [np.nan, 0.81]
    assert "loss_at_chance" not in kinds(_run(loss=loss, val_loss=val, val_accuracy=learned))
    fell = [0.69, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.15, 0.12, 0.1]
    assert "loss_at_chance" not in kinds(_run(loss=fell, val_loss=val, val_accuracy=acc))


def test_a_validation_metric_that_zig_zags_between_evaluations_is_unstable():
    """A UNet at batch size 2: train loss falls smoothly, validation Dice jumps 0.41, 0.14, 0.53, 0.30, 0.09 ...
    from one epoch to the next. A validation curve that improves with small wobbles is not unstable."""
    loss = [1.28, 1.17, 1.01, 0.95, 0.85, 0.80, 0.72, 0.67, 0.61, 0.59, 0.56, 0.48]
    dice = [0.412, 0.138, 0.527, 0.301, 0.089, 0.566, 0.247, 0.604, 0.151, 0.489, 0.622, 0.203]
    k = kinds(_run(loss=loss, val_dice=dice))
    s = k["val_unstable"]
    assert s.data["metric"] == "val_dice" and s.data["turns"] >= 0.6 and "healthy" not in k
    smooth = [0.41, 0.45, 0.44, 0.50, 0.52, 0.51, 0.55, 0.57, 0.56, 0.59, 0.60, 0.61]
    assert "val_unstable" not in kinds(_run(loss=loss, val_dice=smooth))


def test_a_language_models_first_loss_far_above_ln_vocab_is_a_huge_start(tmp_path):
    """A GPT-2 config with vocab_size 32000 and initializer_range 1.0: the first logged loss is 117.9, eleven
    times ln V = 10.37 (the untrained model's cross-entropy). The same run starting at 10.5 is a normal start."""
    (tmp_path / "config.json").write_text('{"model_type": "gpt2", "vocab_size": 32000, "initializer_range": 1.0}\n')

    def run(first: float):
        (tmp_path / "trainer.log").write_text("".join(
            f"{{'loss': {v}, 'grad_norm': 3.1, 'learning_rate': {3e-6 * (i + 1):.1e}, 'epoch': 0.0{i}}}\n"
            for i, v in enumerate([first, first * 0.9, first * 0.8, first * 0.75, first * 0.7])))
        from mltdbg.analyzers.config import extract_facts
        from mltdbg.analyzers.ingest import ingest
        r = ingest([tmp_path])
        extract_facts(r)
        return kinds(r)
    s = run(117.9)["loss_huge_at_start"]
    assert "vocab_size 32000" in s.summary and s.data["first"] == 117.9
    assert "loss_huge_at_start" not in run(10.5)


def _run_at(steps, **series) -> Run:
    run = Run(root=Path("."))
    for name, vals in series.items():
        v = np.asarray(vals, dtype=float)
        run.series.append(Series(name, name, np.asarray(steps, np.int64), v, "m.csv", np.arange(len(v)) + 2, "line"))
    return run


def test_a_loss_printed_at_sparse_epochs_that_stops_falling_is_a_plateau_and_unfitted_without_a_gap():
    """Epochs 0-5, then 10, 20, 40 of a 16-unit MLP on CIFAR-100: the loss falls to 3.6 by epoch 4 and moves 3 % over
    the last 90 % of the steps; train accuracy 0.18 and val loss within 2 % of train's: a model that cannot fit
    its training data. The same points still falling by a fifth over those steps are no plateau."""
    steps = [196, 392, 588, 784, 980, 1176, 2156, 4116, 8036]
    loss = [4.05, 3.79, 3.68, 3.63, 3.60, 3.58, 3.54, 3.51, 3.50]
    acc = [0.087, 0.133, 0.149, 0.157, 0.162, 0.166, 0.172, 0.178, 0.180]
    val = [3.88, 3.72, 3.66, 3.63, 3.61, 3.60, 3.58, 3.57, 3.57]
    k = kinds(_run_at(steps, loss=loss, accuracy=acc, val_loss=val))
    assert k["plateau"].data["short"] and k["no_gap_unfitted"].data["train_acc"] < 0.2
    falling = [4.05, 3.79, 3.68, 3.63, 3.60, 3.40, 3.20, 3.00, 2.80]
    assert "plateau" not in kinds(_run_at(steps, loss=falling, accuracy=acc, val_loss=val))


def test_review_cases_of_the_curve_readers_that_are_no_failure():
    """A converged val loss jittering 0.025-0.039 after falling from 0.7; a validation runtime that varies; a loss
    at sparse epochs that fell to 1 % of its start; a late train-loss drop beside a logged train accuracy that
    reaches 1.0 (clean overfitting: no memorisation read from the loss)."""
    loss = [0.9, 0.5, 0.3, 0.2, 0.15, 0.1, 0.08, 0.06, 0.05, 0.04, 0.035, 0.03]
    val = [0.7, 0.3, 0.1, 0.05, 0.035, 0.026, 0.038, 0.027, 0.039, 0.025, 0.037, 0.026]
    k = kinds(_run(loss=loss, val_loss=val))
    assert "val_unstable" not in k
    runtime = [21.4, 30.2, 19.8, 33.1, 20.5, 31.9, 19.9, 32.2, 20.1, 30.8, 21.0, 33.0]
    assert "val_unstable" not in kinds(_run(loss=loss, val_runtime=runtime))
    steps = [196, 392, 588, 784, 980, 1176, 2156, 4116, 8036]
    learned = [2.3, 0.4, 0.1, 0.05, 0.03, 0.022, 0.021, 0.021, 0.0205]
    assert "plateau" not in kinds(_run_at(steps, loss=learned))
    tr = [1.03, 0.94, 0.90, 0.89, 0.88, 0.87, 0.86, 0.80, 0.74, 0.65, 0.56, 0.49, 0.42, 0.38, 0.35, 0.34]
    acc = [0.6, 0.65, 0.7, 0.72, 0.74, 0.76, 0.8, 0.84, 0.88, 0.91, 0.94, 0.96, 0.98, 0.99, 1.0, 1.0]
    vl = [0.83, np.nan, 0.81, np.nan, 0.82, np.nan, 0.86, np.nan, 0.95, np.nan, 1.08, np.nan, 1.22, np.nan, 1.26, np.nan]
    assert "memorized_after_plateau" not in kinds(_run(loss=tr, accuracy=acc, val_loss=vl))


def test_a_loss_near_the_double_softmax_floor_beside_a_low_train_accuracy_is_no_floor():
    """10 classes (a metric's num_classes): a 1.6K-parameter CNN's loss flattens at 1.64, within the band above
    log(e + 9) - 1 = 1.461, but its train accuracy is 0.39: a model that cannot fit, passing that level, not one
    whose probabilities went into the loss (that model ranks well: its accuracy is high)."""
    from mltdbg.analyzers.model import Fact
    loss = [2.3 - 0.66 * (1 - math.exp(-i / 8)) for i in range(120)]
    acc = [0.1 + 0.29 * (1 - math.exp(-i / 8)) for i in range(120)]
    run = _run(loss=loss, accuracy=acc)
    run.facts.append(Fact(name="num_classes", value=10, source="model.py", line=18))
    assert "loss_at_softmax_floor" not in kinds(run)
    run2 = _run(loss=loss, accuracy=[min(0.95, a * 2.4) for a in acc])
    run2.facts.append(Fact(name="num_classes", value=10, source="model.py", line=18))
    assert "loss_at_softmax_floor" in kinds(run2)


def test_a_loss_printed_only_as_its_terms_is_read_as_their_sum():
    """YOLO's box/cls/dfl losses on the same rows, flat over 50 epochs (2.874 / 5.417 / 1.962 to 2.872 / 5.413 /
    1.961): their sum is the training loss, and it is a plateau. No ln K is read for that sum's start; a GAN's
    g_loss and d_loss (which pull against each other) are not summed."""
    steps = [1, 2, 3, 50]
    run = _run_at(steps, box_loss=[2.874, 2.869, 2.881, 2.872], cls_loss=[5.417, 5.409, 5.421, 5.413],
                  dfl_loss=[1.962, 1.958, 1.966, 1.961])
    k = kinds(run)
    assert "plateau" in k and "loss_huge_at_start" not in k
    gan = _run_at(steps, g_loss=[2.0, 3.0, 1.0, 4.0], d_loss=[0.5, 0.2, 0.9, 0.1])
    assert "plateau" not in kinds(gan) and "divergence" not in kinds(gan)


def test_a_keras_history_beside_its_log_gives_the_same_reading_in_either_order(tmp_path):
    """history.json (20 epochs numbered by position) beside train.log (progress lines every 8 steps and the
    epoch lines with val_loss at steps 63, 126, ...): both hold 20 val_loss points. The first file given used
    to win the tie, so a folder read history.json's val_loss against train.log's step-numbered loss: every
    validation point sat at the run's start, and the reading changed with the order the files were named in."""
    import json
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    val = [1.454, 1.443] + [1.6 + 0.1 * i for i in range(18)]
    train = [1.3 * 0.9 ** i for i in range(20)]
    (tmp_path / "history.json").write_text(json.dumps({"loss": train, "val_loss": val}))
    lines = []
    for e in range(20):
        lines.append(f"Epoch {e + 1}/20")
        lines += [f"{k * 8}/63 [====>....] - ETA: 1s - loss: {train[e] * (1.1 - 0.01 * k):.4f}" for k in range(1, 8)]
        lines.append(f"63/63 [==============================] - 1s 9ms/step - loss: {train[e]:.4f} - val_loss: {val[e]:.4f}")
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    kinds = [sorted({s.kind for s in analyze(ingest([str(tmp_path / a), str(tmp_path / b)]))})
             for a, b in (("history.json", "train.log"), ("train.log", "history.json"))]
    assert kinds[0] == kinds[1] and "val_gap_from_start" in kinds[0]
    run = ingest([str(tmp_path / "history.json"), str(tmp_path / "train.log")])
    assert run.metric("val_loss").source == "train.log"


def _fastai_noisy(tmp_path, mix: str = "") -> None:
    """A fastai table of a 5-class run on 40 % wrong training labels (a real CPU run's numbers, rounded): the
    training loss sits near ln 5 = 1.609 while validation accuracy is 0.78-0.86, then training memorises and
    validation falls."""
    train = [1.444, 1.373, 1.355, 1.334, 1.327, 1.296, 1.294, 1.275, 1.268, 1.247, 1.225, 1.211, 1.199, 1.184,
             1.169, 1.147, 1.129, 1.105, 1.095, 1.063, 1.046, 1.018, 1.001, 0.975, 0.966, 0.930, 0.912, 0.892, 0.869]
    val = [1.025, 0.858, 0.855, 0.805, 0.839, 0.802, 0.808, 0.768, 0.849, 0.804, 0.784, 0.821, 0.776, 0.852, 0.883,
           0.860, 0.833, 0.836, 0.945, 0.902, 0.898, 0.895, 0.921, 0.862, 0.940, 0.962, 0.931, 0.982, 1.024]
    acc = [0.779, 0.860, 0.858, 0.849, 0.862, 0.846, 0.837, 0.836, 0.819, 0.810, 0.804, 0.798, 0.794, 0.770, 0.732,
           0.742, 0.741, 0.737, 0.688, 0.704, 0.707, 0.684, 0.677, 0.698, 0.658, 0.656, 0.650, 0.641, 0.626]
    (tmp_path / "log.txt").write_text("epoch     train_loss  valid_loss  accuracy  time\n" + "".join(
        f"{e:<10d}{t:<12.6f}{v:<12.6f}{a:<10.6f}00:00\n" for e, (t, v, a) in enumerate(zip(train, val, acc))))
    (tmp_path / "config.json").write_text('{"opt": "adam", "lr": 0.002, "n_classes": 5' + mix + "}\n")


def test_a_training_loss_near_chance_while_validation_learns_is_noisy_labels_not_a_finding_of_overfitting(tmp_path):
    """Validation rose after its minimum while training kept falling (overfitting's separating evidence), but the
    training loss sat at 79 % of ln K while validation accuracy was 0.83: the training labels disagree with the
    inputs. Read before as overfitting 0.97, diagnosis_complete (issue 9 names this confident wrong answer);
    both stories at once hold the train/val gap group below the bar."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose
    _fastai_noisy(tmp_path)
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert {"train_at_chance_val_learned", "train_val_divergence"} <= kinds and "healthy" not in kinds
    d = diagnose([str(tmp_path)], [])
    assert d.status == "needs_more_data" and d.hypotheses[0].confidence < 0.8
    assert "label_noise" in [h.id for h in d.hypotheses[:3]]
    # the user's own words lean on the rise ("then val gets worse"): still no finding (0.82 without the hold)
    d = diagnose([str(tmp_path)], ["train loss sits around 1.3 for ages and val accuracy never gets past ~85%, "
                                   "then val gets worse"])
    assert d.status == "needs_more_data" and d.hypotheses[0].confidence < 0.8


@pytest.mark.parametrize("mix", [', "mixup_alpha": 0.4', ', "cut-mix": true', ', "label-smoothing": 0.1'])
def test_a_mixup_run_s_high_training_loss_is_no_sign_of_noisy_labels(tmp_path, mix):
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    _fastai_noisy(tmp_path, mix)
    assert "train_at_chance_val_learned" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_majority_class_s_accuracy_beside_a_loss_near_chance_is_no_sign_of_noisy_labels(tmp_path):
    """2 classes, 92 % of them one: always predicting it scores 0.92 while a class-weighted loss stays near
    ln 2 on train and on validation alike. Clean validation under noisy labels has a low validation loss."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    (tmp_path / "log.txt").write_text("epoch     train_loss  valid_loss  accuracy  time\n" + "".join(
        f"{e:<10d}{0.68 - 0.004 * e:<12.6f}{0.67 - 0.003 * e:<12.6f}{0.92:<10.6f}00:00\n" for e in range(20)))
    (tmp_path / "config.json").write_text('{"n_classes": 2}\n')
    assert "train_at_chance_val_learned" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_of_two_series_as_long_the_one_on_the_training_loss_s_axis_is_read():
    """A Trainer's dict lines (no step: numbered by position) beside an eval_results.csv at steps 500, 1000, ...
    both hold 8 val_loss points: the log's own is the one its loss is read against, whatever the file order."""
    def ser(name, src, idx):
        n = 8 if name == "val_loss" else 40
        steps = np.arange(n) if idx else np.arange(1, n + 1) * 500
        return Series(name, name, steps, np.linspace(1.0, 0.5, n), src, np.arange(n) + 1, "line", step_is_index=idx)
    for order in ((False, True), (True, False)):
        run = Run(root=Path("."))
        run.series.append(ser("loss", "trainer.log", True))
        run.series += [ser("val_loss", "eval_results.csv", False) if not o else ser("val_loss", "trainer.log", True)
                       for o in order]
        assert run.metric("val_loss").source == "trainer.log"


def test_a_training_loss_that_climbs_above_chance_while_the_classes_are_learned_is_the_lr(tmp_path):
    """A tanh MLP at SGD lr 0.5 (a real CPU run's numbers): 5 classes, the loss climbs from 2.37 to ~3.2 (2x ln 5)
    and stays while accuracy is ~0.7: confident wrong answers, update after update. Read before as label_noise
    0.70 (its training accuracy capped); noisy labels keep the loss at or below ln K."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose
    loss = [2.373, 2.880, 3.223, 3.172, 3.301, 3.150, 3.280, 3.190, 3.350, 3.120, 3.240, 3.300]
    acc = [0.596, 0.669, 0.676, 0.681, 0.690, 0.700, 0.695, 0.711, 0.705, 0.709, 0.712, 0.711]
    (tmp_path / "metrics.csv").write_text("epoch,train_loss,train_acc,val_loss,val_acc\n" + "".join(
        f"{e + 1},{a},{b},{a * 0.95:.3f},{b + 0.02:.3f}\n" for e, (a, b) in enumerate(zip(loss, acc))))
    (tmp_path / "config.json").write_text('{"num_classes": 5}\n')
    assert "loss_above_chance" in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert diagnose([str(tmp_path)], []).hypotheses[0].id == "lr_too_high"
    # the same run's start read alone: a high first loss that falls is a broken start, not this reading
    (tmp_path / "metrics.csv").write_text("epoch,train_loss,train_acc\n" + "".join(
        f"{e + 1},{9.0 - 0.5 * e:.2f},{0.3 + 0.03 * e:.2f}\n" for e in range(12)))
    assert "loss_above_chance" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_mixing_set_off_in_a_config_does_not_hide_noisy_labels(tmp_path):
    """`label_smoothing: 0.0` / `mixup: false` name the setting and turn it off: the training loss is not kept high."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    _fastai_noisy(tmp_path, ', "label_smoothing": 0.0, "mixup": false')
    assert "train_at_chance_val_learned" in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_sudden_nan_in_the_first_epoch_is_a_first_pass_nan(tmp_path):
    """HF trainer_state.json: the loss falls 0.73 -> 0.40, then NaN at step 110, epoch 0.70: the first pass over the
    data, where a bad row shows at its first visit (nonfinite_first_pass, nan_in_data first). The same NaN at
    epoch 3.2 is no first-pass NaN."""
    import json as _json
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose

    def state(epoch_per_step):
        hist = []
        for k in range(1, 16):
            loss = 0.73 - 0.033 * k if k < 11 else float("nan")
            hist.append({"epoch": round(epoch_per_step * 10 * k, 4), "grad_norm": 0.4 if k < 11 else float("nan"),
                         "learning_rate": 5e-4, "loss": loss, "step": 10 * k})
        return _json.dumps({"global_step": 150, "log_history": hist})
    (tmp_path / "trainer_state.json").write_text(state(0.00637))
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert {"nonfinite_sudden", "nonfinite_first_pass"} <= kinds
    assert diagnose([str(tmp_path)], ["the loss turns into nan partway through"]).hypotheses[0].id == "nan_in_data"
    (tmp_path / "trainer_state.json").write_text(state(0.029))
    assert "nonfinite_first_pass" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_nan_on_one_rank_first_out_of_a_calm_loss_is_that_ranks_data(tmp_path):
    """Two DDP ranks share one model: rank 1's loss turns NaN at step 7 while rank 0's at step 7 is finite, out of a
    calm loss (nonfinite_one_rank: a bad batch in rank 1's shard). Both ranks climbing and breaking at the same step
    is no one rank's doing; nor a NaN that only one rank logs a climb into. A federated client whose first point is
    NaN after the others trained finitely is the same reading (the averaged model is NaN from the next round)."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose

    def kinds(lines):
        (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
        return {s.kind: s for s in analyze(ingest([str(tmp_path)]))}

    def ddp(r1, r0=None):
        out = []
        for k in range(10):
            out.append(f"[rank0]: step {k} loss {r0(k) if r0 else 1.0 - 0.03 * k:.4f}")
            out.append(f"[rank1]: step {k} loss {r1(k)}")
        return out
    calm = ddp(lambda k: "nan" if k >= 7 else f"{1.02 - 0.03 * k:.4f}", lambda k: 1.0 - 0.03 * k if k < 8 else float("nan"))
    sig = kinds(calm)["nonfinite_one_rank"]
    assert sig.data["rank"] == 1 and sig.data["step"] == 7 and [e.line for e in sig.evidence] == [16, 15]
    assert diagnose([str(tmp_path)], ["the loss turns into nan on one gpu"]).hypotheses[0].id == "nan_in_data"
    climb = ddp(lambda k: "nan" if k >= 7 else f"{1.0 * 3 ** k:.4f}", lambda k: 3.0 ** k if k < 7 else float("nan"))
    assert "nonfinite" in kinds(climb) and "nonfinite_one_rank" not in kinds(climb)
    own = ddp(lambda k: "nan" if k >= 7 else ("9.5" if k == 6 else f"{1.02 - 0.03 * k:.4f}"))
    assert "nonfinite_one_rank" not in kinds(own)
    # both ranks climbing together after a long calm stretch, rank 1 overflowing one step first: a shared climb
    calm_then_climb = [2.30 - 0.01 * k for k in range(40)] + [2.2, 2.6, 3.1, 3.7, 4.4, 5.2]
    climb_lines = []
    for k, v in enumerate(calm_then_climb + [6.1, float("nan")]):
        r1 = "inf" if k == len(calm_then_climb) else "nan" if k > len(calm_then_climb) else f"{v + 0.01:.4f}"
        climb_lines += [f"[rank1]: step {k * 10} loss {r1}", f"[rank0]: step {k * 10} loss {v:.4f}"]
    assert "nonfinite_one_rank" not in kinds(climb_lines)
    # ... while a noisy batch loss whose last point sits 1.5x above its recent low, not climbing into it, is calm
    noisy = [1.0, 0.7, 1.1, 0.75, 1.05, 1.08, 0.72, 1.2]
    assert "nonfinite_one_rank" in kinds(ddp(lambda k: "nan" if k >= 8 else f"{noisy[k]:.4f}",
                                             lambda k: 0.9 if k < 9 else float("nan")))
    fed = []
    for rnd in range(1, 5):
        for c in ((0, 1, 2) if rnd < 4 else (0, 1, 7)):
            for e in (1, 2):
                v = "nan" if rnd == 4 and c == 7 else f"{1.0 / (rnd + e):.4f}"
                fed.append(f"(ClientAppActor pid=5{c}) site {c:02d} | round {rnd} | epoch {e}/2 | loss {v}")
    sig = kinds(fed)["nonfinite_one_rank"]
    assert sig.data["rank"] == 7 and sig.data["first_point"]


def test_a_held_out_loss_of_hundreds_of_nats_beside_a_sane_training_loss_is_off_scale(tmp_path):
    """Clients train on z-scored features (loss 1.1 -> 0.45) while the server evaluates raw ones: val_loss 190 at
    its first evaluation, thousands later (val_off_scale: inputs on another scale, preprocessing_mismatch first,
    not the unpaired labels that an accuracy stuck near chance suggested). An overfit model's held-out loss that
    climbs to 6, and a training loss as far off as its held-out one, are no such thing."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose

    def kinds(val, train=lambda e: 1.1 - 0.05 * e):
        (tmp_path / "train.log").write_text("".join(
            f"epoch {e} loss={train(e):.4f} acc={0.5 + 0.03 * e:.3f} val_loss={val(e):.4f} val_acc=0.2327\n"
            for e in range(1, 13)))
        return {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "val_off_scale" in kinds(lambda e: 190.0 * e ** 1.3)
    d = diagnose([str(tmp_path)], ["the server's test accuracy is stuck at 0.23 while every client reports 0.8"])
    assert d.hypotheses[0].id == "preprocessing_mismatch"
    assert "val_off_scale" not in kinds(lambda e: 0.9 + 0.45 * e)
    assert "val_off_scale" not in kinds(lambda e: 190.0 * e, train=lambda e: 150.0 * e)
    # a validation loss summed over its 79 batches beside a validation accuracy of 0.86: no inputs off scale
    (tmp_path / "train.log").write_text("".join(
        f"epoch {e} loss={1.1 - 0.05 * e:.4f} acc={0.5 + 0.03 * e:.3f} val_loss={190.0 - 10 * e:.2f} val_acc={0.6 + 0.02 * e:.3f}\n"
        for e in range(1, 13)))
    assert "val_off_scale" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    # ... but one class predicted throughout (an accuracy that never moves, the majority's share) is no gate
    (tmp_path / "train.log").write_text("".join(
        f"epoch {e} loss={0.5 - 0.02 * e:.4f} acc={0.8 + 0.01 * e:.3f} val_loss={300.0 + 5 * e:.2f} val_acc=0.8800\n"
        for e in range(1, 13)))
    assert "val_off_scale" in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_first_val_loss_near_ln_k_beside_an_accuracy_far_above_chance_is_no_chance_level(tmp_path):
    """A 10-class run whose first val loss happens to sit at 1.604 (ln 5 within 1 %) while its val accuracy is 0.60:
    the loss is no chance level, so a val loss that dips and then climbs 23 % while training falls is the
    train/val divergence (it was read as 'validation never improved' and nothing was said)."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    val = [1.6039, 1.5955, 1.5844, 1.5934, 1.6020, 1.6163, 1.70, 1.78, 1.85, 1.90, 1.94, 1.98]
    (tmp_path / "train.log").write_text("".join(
        f"epoch {e} loss={1.76 - 0.06 * e:.4f} acc={0.55 + 0.01 * e:.4f} val_loss={v:.4f} val_acc={0.604 - 0.006 * e:.4f}\n"
        for e, v in enumerate(val, 1)))
    assert "train_val_divergence" in {s.kind for s in analyze(ingest([str(tmp_path)]))}


@pytest.mark.parametrize("banner", [
    "2024-03-14 21:40:09,400 - wandb.wandb_agent - INFO - Agent starting run with config:\n\tlr: 2.74",
    "[I 2024-05-02 10:11:12,345] Trial 0 finished with value: 1.2 and parameters: {'lr': 0.3}.",
    "Search: Running Trial #2", "----- trial 2 -----",
    # a post's two runs side by side: "Before (last 3 epochs):" ... "After (last 3 epochs):"
    "```\nAfter (dropout 0.4, last epochs):\n```", "**new config:**"])
def test_a_searchs_next_trial_is_no_restart(tmp_path, banner):
    """A hyperparameter search's console: trial after trial, each counting its epochs from 1 with its own config. The
    step going back under the tool's banner for the next trial is no resumed job (step_restart read it as a resume
    whose loss jumped: resume_mismatch 0.76). The same step going back after 'Resuming from checkpoint' is one."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def trial(lr):
        return "".join(f"epoch {e}/8 - train_loss: {2.3 / e + lr:.4f} - val_loss: {2.4 / e + lr:.4f}\n" for e in range(1, 9))
    (tmp_path / "console.log").write_text(trial(0.1) + banner + "\n" + trial(0.9))
    assert "step_restart" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    (tmp_path / "console.log").write_text(trial(0.1) + banner + "\nResuming from checkpoint ckpt/last.pt\n" + trial(0.9))
    assert "step_restart" in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_classifiers_loss_below_zero_is_read_and_printed_negatives_are_values(tmp_path):
    """A CTC model whose digit '0' shares the blank's index: its loss, printed 'loss -0.0327' (a space and a negative
    number, which the reader took for no value), goes below 0 beside a validation accuracy and CER (loss_negative,
    label_out_of_range's). A WGAN's critic loss, a SimSiam loss that starts at 0, or an agent's loss beside its
    rewards are no such thing."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def kinds(rows, extra=""):
        (tmp_path / "train.log").write_text("".join(rows) + extra)
        return {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    ctc = [f"epoch {e} iter {10 * e} loss {2.0 - 0.3 * e:.4f} lr 3.0e-03 val_acc {0.1 * e:.4f} val_cer {1 - 0.1 * e:.4f}\n"
           for e in range(1, 10)]
    got = kinds(ctc)
    assert got["loss_negative"].data["step"] == 70 and got["loss_negative"].data["min"] == -0.7
    wgan = [f"iter {10 * e} loss {2.0 - 0.3 * e:.4f} g_loss {0.5 * e:.4f}\n" for e in range(1, 10)]
    assert "loss_negative" not in kinds(wgan)
    simsiam = [f"epoch {e} loss {-0.1 * e:.4f} knn_acc {0.1 * e:.4f}\n" for e in range(1, 10)]
    assert "loss_negative" not in kinds(simsiam)
    agent = [f"iter {10 * e} loss {2.0 - 0.3 * e:.4f} ep_rew_mean={10.5 * e:.2f} accuracy=0.5\n" for e in range(1, 10)]
    assert "loss_negative" not in kinds(agent)


def test_a_non_finite_first_batch_counted_from_one_comes_before_any_update(tmp_path):
    """A CTC keyword spotter whose inputs are shorter than its targets: 'step 1 loss inf', then nan. A step counted
    from 1 is the first batch's, computed before any update (nonfinite_before_update: not the lr, not a gradient
    that grew); a first logged step of 10 is not."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def kinds(first):
        steps = [first] + [first + k for k in range(1, 8)]
        (tmp_path / "train.log").write_text("".join(
            f"epoch 1 step {s} loss {'inf' if i == 0 else 'nan'} grad_norm nan lr 1.0e-03\n" for i, s in enumerate(steps)))
        return {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "nonfinite_before_update" in kinds(1)
    assert "nonfinite_before_update" not in kinds(10)


def test_batch_noise_on_a_loss_still_falling_in_the_second_half_is_no_oscillation(tmp_path):
    """A GRU that sits at ln 3 for 500 steps, then drops to ~0.05 with jumpy batch losses (0.04 .. 0.5): the second
    half's slow smoother lags the drop and read it as swing (oscillation 1.0, lr_too_high 0.93, diagnosis_complete
    on a healthy run ending at val_acc 0.98). A loss bouncing around one level in its second half still oscillates."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    rng = np.random.default_rng(3)
    steps = np.arange(5, 1005, 5)
    level = np.where(steps < 560, 1.1, 1.1 * np.exp(-(steps - 560) / 60.0) + 0.02)
    loss = level * (1 + 0.6 * np.abs(rng.standard_normal(len(steps)))) * np.where(steps < 560, 0.05, 1.0) + \
        np.where(steps < 560, 1.05, 0.0)
    (tmp_path / "train.log").write_text("".join(f"step {s:5d} | loss {v:.4f}\n" for s, v in zip(steps, loss)))
    assert "oscillation" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    swing = np.convolve(rng.standard_normal(len(steps) + 4), np.ones(5) / 5, "valid")
    bounce = np.where(steps < 500, 1.1 * np.exp(-steps / 150.0) + 0.6, 0.6 + 0.4 * swing)
    (tmp_path / "train.log").write_text("".join(f"step {s:5d} | loss {v:.4f}\n" for s, v in zip(steps, bounce)))
    assert "oscillation" in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_regression_that_logs_its_mse_and_no_loss_is_read_by_its_error(tmp_path):
    """Ray Tune's progress.csv of a regression trial: train_mse and val_mse, no `loss` column. The MSE is the
    loss: its NaN from report 8 on is found and cited (it was read as no loss at all)."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    mse = [4.96, 2.1, 1.4, 1.0, 0.8, 0.7, 0.67] + [float("nan")] * 8
    rows = "".join(f"{m},{m * 0.9},{i + 1}\n" for i, m in enumerate(mse))
    (tmp_path / "progress.csv").write_text("train_mse,val_mse,training_iteration\n" + rows)
    s = {x.kind: x for x in analyze(ingest([str(tmp_path)]))}["nonfinite"]
    assert s.evidence[0].source == "progress.csv" and s.evidence[0].line == 9      # the first NaN row
    # a run that logs a loss too is read by its loss, not by an error metric beside it
    (tmp_path / "progress.csv").write_text("loss,train_mse,training_iteration\n" + "".join(
        f"{1.0 / (i + 1)},{m},{i + 1}\n" for i, m in enumerate(mse)))
    assert "nonfinite" not in {x.kind for x in analyze(ingest([str(tmp_path)]))}


def test_a_parameter_norm_that_never_moves_while_the_run_trains():
    """W&B's param_norm/encoder at 10.129 at every point while the loss is logged and the encoder's gradient
    norm climbs: the optimizer never applies those gradients (built before the encoder was unfrozen)."""
    loss = 1.386 - 0.002 * np.arange(40) + rng.normal(0, 0.01, 40)
    grad = np.concatenate([np.zeros(10), np.linspace(1, 600, 30)])
    run = Run(root=Path("."))
    for name, v in (("loss", loss), ("param_norm/encoder", np.full(40, 10.12900352)), ("grad_norm/encoder", grad)):
        run.series.append(Series(name, name, np.arange(40) * 5, np.asarray(v, float), "m.csv", np.arange(40) + 2, "line"))
    s = kinds(run)["params_unchanged"]
    assert s.strength == 0.9 and s.data["grad_live"] and "optimizer" in s.evidence[-1].text
    # a norm that moves, however little an lr of 1e-5 moves it, is trained
    run.series[1].values = 10.129 + 1e-5 * np.arange(40)
    assert "params_unchanged" not in kinds(run)
    # an activation logged as the share of inactive units is a dead-unit count
    assert kinds(_run(loss=falling[:50], **{"act/frac_inactive_fc2": np.linspace(0.65, 1.0, 50)}))["dead_units"].data["share"] > 0.9


def test_a_distance_from_the_initial_weights_that_stays_zero(tmp_path):
    """A multi-task run logs param_dist_from_init/trunk = 0.0 at all 30 epochs while the trunk's gradient norm
    is nonzero (the optimizer was built while the trunk was frozen): those weights never moved. A distance that
    leaves 0 (the weights moved, however little) is trained; one printed as 0.0000 may round a small move away;
    the whole model's beside a falling loss cannot be 0 (some weights moved)."""
    import json
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def signals(rows, name="metrics.jsonl"):
        d = tmp_path / f"r{len(list(tmp_path.iterdir()))}"
        d.mkdir()
        if name.endswith(".jsonl"):
            (d / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
        else:
            keys = list(rows[0])
            (d / name).write_text(",".join(keys) + "\n" + "".join(",".join(str(r[k]) for k in keys) + "\n" for r in rows))
        return {x.kind: x for x in analyze(ingest([str(d)]))}

    grad = [0.0] * 3 + [0.6 + 0.07 * i for i in range(27)]
    rows = [{"epoch": i, "train_loss": round(2.3 - 0.01 * i, 4), "param_dist_from_init/trunk": 0.0,
             "grad_norm/trunk": round(grad[i], 4)} for i in range(30)]
    s = signals(rows)["params_unchanged"]
    assert s.strength == 0.9 and s.data["metric"] == "param_dist_from_init/trunk" and "stays 0" in s.evidence[-1].text
    moved = [dict(r, **{"param_dist_from_init/trunk": 0.0 if r["epoch"] < 3 else 1e-4 * r["epoch"]}) for r in rows]
    assert "params_unchanged" not in signals(moved)
    rounded = [{"step": r["epoch"], "loss": r["train_loss"], "grad_norm/trunk": r["grad_norm/trunk"],
                "weight_change/trunk": "0.0000"} for r in rows]
    assert "params_unchanged" not in signals(rounded, "metrics.csv")
    # the whole model's (no layer named): beside a loss that stays, 0.7 (no gradient of the same name); beside a
    # loss that falls, some weights moved
    whole = [{"step": i, "loss": round(2.3 + 0.001 * (-1) ** i, 4), "weight_change": 0} for i in range(30)]
    assert signals(whole, "metrics.csv")["params_unchanged"].strength == 0.7
    falling = [dict(r, loss=round(2.3 - 0.02 * r["step"], 4)) for r in whole]
    assert "params_unchanged" not in signals(falling, "metrics.csv")


def test_gradients_that_grow_only_once_the_loss_climbs_do_not_separate_exploding_gradients():
    """SGD at lr 0.26: the loss falls to 0.26, then climbs to 42 and NaN, the gradient norm growing with it from its
    early ~1 (0.62 at the loss minimum): the step size's story as much as exploding gradients' ("grad_norm growing
    by orders of magnitude first"). Gradients that grow while the loss still falls keep grad_growth."""
    loss = [1.64, 3.93, 1.10, 0.64, 0.69, 0.68, 0.51, 0.26, 0.46, 0.76, 0.90, 1.27, 2.23, 4.86, 8.22, 1.88, 42.7,
            float("nan"), float("nan")]
    grad = [0.44, 6.33, 1.24, 0.99, 1.53, 1.29, 0.90, 0.62, 0.88, 1.44, 1.48, 1.42, 3.98, 22.7, 24.5, 0.54, 288.8,
            float("nan"), float("nan")]
    k = kinds(_run(loss=loss, grad_norm=grad))
    assert "grad_growth_with_loss" in k and "grad_growth" not in k and k["grad_growth_with_loss"].data["loss_min_step"] == 70
    first = kinds(_run(loss=[2.0, 1.8, 1.6, 1.5, 1.4, 1.35, 1.3, 1.3, 1.9, 5.0, 40.0, float("nan")],
                       grad_norm=[1.0, 1.1, 1.0, 3.0, 9.0, 30.0, 90.0, 300.0, 900.0, 3e3, 9e3, float("nan")]))
    assert "grad_growth" in first and "grad_growth_with_loss" not in first



def test_readings_of_this_stop_kept_from_what_they_do_not_mean():
    """A loss that climbs from its first point gives no 'before' for gradients to have grown first: grad_growth stays.
    A norm printed to two decimals (45.21) may hide a small lr's updates; a whole model's norm beside a falling loss
    is no frozen model. An `l2` column is no loss. A count of inactive units is no share."""
    r = np.random.default_rng(1)
    i = np.arange(60)
    k = kinds(_run(loss=0.5 * 1.12 ** i * (1 + 0.05 * r.normal(size=60)), grad_norm=1.15 ** i * (1 + 0.05 * r.normal(size=60))))
    assert "grad_growth_with_loss" not in k
    run = Run(root=Path("."))
    for name, v in (("loss", np.linspace(2.30, 2.22, 40)), ("param_norm/fc", np.full(40, 45.21))):
        run.series.append(Series(name, name, np.arange(40), v, "t.log", np.arange(40) + 1, "line"))
    assert "params_unchanged" not in kinds(run)
    run.series[1] = Series("weight_norm", "weight_norm", np.arange(40), np.full(40, 45.2100381), "t.log", np.arange(40) + 1, "line")
    run.series[0].values = np.linspace(2.3, 0.4, 40)
    assert "params_unchanged" not in kinds(run)
    assert not {"divergence", "loss_huge_at_start"} & set(kinds(_run(accuracy=np.linspace(0.5, 0.9, 30), l2=np.linspace(1, 40, 30))))
    assert "dead_units" not in kinds(_run(loss=falling[:50], inactive_units=np.linspace(100, 200, 50)))


def test_a_training_loss_that_ends_above_validations_best_is_an_unfitted_training_set(tmp_path):
    """A timm summary.csv with 40 % of the training labels wrong: train_loss floors at 0.62 while eval_loss bottomed
    at 0.2 and climbs back to 0.67; no train accuracy logged. Read before as overfitting 0.94."""
    from mltdbg.analyzers.ingest import ingest  # noqa: PLC0415
    rows = ["epoch,train_loss,eval_loss,eval_top1,eval_top5,lr"]
    for e in range(60):
        tl = 0.62 + 1.6 * math.exp(-e / 12)
        vl = 0.2 + 1.8 * math.exp(-e / 3) + 0.47 * max(0, e - 15) / 44
        rows.append(f"{e},{tl:.4f},{vl:.4f},{min(98.6, 76 + 1.5 * e) - 0.4 * max(0, e - 15):.2f},99.0,0.0002")
    (tmp_path / "summary.csv").write_text("\n".join(rows) + "\n")
    sigs = {s.kind: s for s in curve_signals(ingest([str(tmp_path)]))}
    assert "divergence_train_unfitted" in sigs and sigs["train_val_divergence"].strength <= 0.25
    assert "above the 0.2" in sigs["divergence_train_unfitted"].summary
    # the same curves from a run that smooths its labels: a high training loss by design
    (tmp_path / "args.yaml").write_text("model: tinycnn\nsmoothing: 0.1\n")
    assert "divergence_train_unfitted" not in {s.kind for s in curve_signals(ingest([str(tmp_path)]))}


def test_a_critic_gradient_norm_that_blows_up_is_read_where_no_whole_model_norm_is_logged(tmp_path):
    """A WGAN without clipping or penalty logs gnorm_d and gnorm_g: the critic's climbs 2 -> 7e3 while the
    generator's stays small. With no whole-model grad_norm, the network norm that grew most is the gradient read."""
    from mltdbg.analyzers.ingest import ingest  # noqa: PLC0415
    from mltdbg.analyzers.names import normalize  # noqa: PLC0415
    assert [normalize(n) for n in ("gnorm_d", "gradnorm_g", "critic_grad_norm", "grad_norm_D")] == [
        "grad_norm/d", "grad_norm/g", "grad_norm/critic", "grad_norm/d"]
    (tmp_path / "wgan_train.log").write_text("".join(
        f"iter {i * 100} loss_d={-(1.05 ** i):.3f} loss_g={0.9 ** i:.4f} gnorm_d={2.2 * 1.2 ** i:.3f} "
        f"gnorm_g={0.15 + 0.01 * (i % 3):.3f}\n" for i in range(50)))
    sigs = {s.kind: s for s in curve_signals(ingest([str(tmp_path)]))}
    assert any(k.startswith("grad_growth") or k == "grad_explosion" for k in sigs), sorted(sigs)


def test_a_loss_that_sat_near_zero_most_of_the_run_before_its_nan_is_no_saturation():
    """nonfinite_after_saturation reads a loss that FELL to ~0 just before the NaN (log of a saturated value); a
    sparse-reward DQN's td_loss printed 0.00000 for most of the run, then NaN from a 0/0 observation, is not that."""
    def sat(vals):
        return "nonfinite_after_saturation" in {s.kind for s in curve_signals(_run(loss=vals))}
    assert sat([0.9, 0.7, 0.4, 0.2, 0.05, 0.01, 0.002, 0.0004, float("nan")])
    assert not sat([0.01, 0.00001, 0.0, 0.0, 0.0, 0.0, 0.0, 0.00001, 0.0, 0.0, float("nan")])


def test_a_ppo_kl_of_zero_at_every_update_is_a_policy_that_never_moves():
    """CleanRL's PPO with Adam(agent.critic.parameters()): approx_kl 0 at every update while value_loss falls. The
    value loss falling had the run read as healthy; the policy's weights never change."""
    n = 30
    base = {"loss": [50 * 0.9 ** i + 14 for i in range(n)], "entropy": [0.6931] * n}
    frozen = kinds(_run(**base, **{"losses/approx_kl": [0.0, -0.0, 4.6e-10, -4.6e-10] * 7 + [0.0, 0.0]}))
    assert "params_unchanged" in frozen and "healthy" not in frozen
    moving = kinds(_run(**base, **{"losses/approx_kl": [0.001 + 0.0001 * (i % 5) for i in range(n)]}))
    assert "params_unchanged" not in moving
    # TRL's averaged name for it, beside its clip fraction
    trl = kinds(_run(loss=base["loss"], **{"policy/clipfrac_avg": [0.0] * n, "policy/approxkl_avg": [0.0] * n}))
    assert "params_unchanged" in trl


def test_a_vae_kl_at_zero_is_no_policy_that_never_moves():
    """A VAE's kl_divergence at 0 every epoch (posterior collapse) or an approx_kl with no policy-gradient sibling in
    its file says nothing of a policy."""
    n = 30
    assert "params_unchanged" not in kinds(_run(loss=[2 * 0.9 ** i + 1 for i in range(n)], kl_divergence=[0.0] * n))
    assert "params_unchanged" not in kinds(_run(loss=[2 * 0.9 ** i + 1 for i in range(n)], approx_kl=[0.0] * n))


def test_a_discriminator_norm_that_drifts_tenfold_is_not_the_runs_gradient():
    """With no whole-model norm, a network's norm stands for the run's gradient only where it grew by orders of
    magnitude: a stable GAN's D norm drifting 0.5 -> 5 gave grad_steady_climb 0.36 (review of stop 57)."""
    n = 60
    drift = kinds(_run(loss_d=[0.69] * n, loss_g=[0.7] * n, **{"grad_norm/d": [0.5 + 4.5 * i / (n - 1) for i in range(n)],
                                                                "grad_norm/g": [0.2] * n}))
    assert not any(k.startswith("grad_") for k in drift), sorted(drift)


def test_a_lone_training_loss_under_its_own_name_is_the_run_s_loss(tmp_path):
    """A run that prints one training loss named for its objective ("bpr_loss") and no `loss`: its falling curve is
    read as the run's (a healthy BPR run with SGD lr 1.0 read only from its config: lr_too_high 0.62)."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    (tmp_path / "log.txt").write_text("".join(f"epoch {i:03d} | bpr_loss {0.1 + 0.6 * math.exp(-i / 20):.4f}\n"
                                              for i in range(1, 121)))
    kinds = {s.kind for s in analyze(ingest([tmp_path]))}
    assert "healthy" in kinds
    (tmp_path / "log.txt").write_text("".join(f"epoch {i:03d} | g_loss {0.1 + 0.6 * math.exp(-i / 20):.4f}\n"
                                              for i in range(1, 121)))
    assert "healthy" not in {s.kind for s in analyze(ingest([tmp_path]))}
    # the best loss so far is no training loss: falling or flat by construction, it would hide the rise of the real one
    from mltdbg.analyzers.curves import _lone_term
    (tmp_path / "log.txt").write_text("".join(
        f"epoch {i:03d} | val_loss {0.6 - 0.04 * i if i < 8 else 0.28 + 0.05 * (i - 8):.4f} | best_loss "
        f"{min(0.6 - 0.04 * k if k < 8 else 0.28 + 0.05 * (k - 8) for k in range(1, i + 1)):.4f}\n" for i in range(1, 30)))
    assert _lone_term(ingest([tmp_path])) is None


def test_a_validation_roc_auc_near_1_from_the_first_epoch_is_near_perfect(tmp_path):
    """A churn model that logs only a ROC AUC for validation, 0.99 from epoch 1 (a column that holds the target's
    answer): too good to be true, as an accuracy of 0.99 would be; a run whose AUC climbs to 0.93 is not."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def log(auc):
        return "".join(f"[epoch {e:02d}] train_loss={0.33 / e:.4f} val_loss={0.1 - e / 1000:.4f} val_auc={auc(e):.4f}\n"
                       for e in range(1, 16))
    (tmp_path / "train_output.txt").write_text(log(lambda e: 0.990 + e / 5000))
    near = [s for s in analyze(ingest([tmp_path])) if s.kind == "val_near_perfect"]
    assert near and near[0].data["by"] == "auc" and near[0].data["early"] and "ROC AUC" in near[0].summary
    (tmp_path / "train_output.txt").write_text(log(lambda e: 0.7 + e / 65))
    assert "val_near_perfect" not in {s.kind for s in analyze(ingest([tmp_path]))}


def test_gradients_largest_at_the_start_are_no_explosion(tmp_path):
    """Raw CT intensities into a U-Net without normalisation: grad_norm 1.2e4 at the first step, falling to single
    digits with batch-to-batch spikes after it. The largest gradients came first (grad_huge_start_falls), which
    weighs against exploding_gradients (read before at 0.52 over the unscaled inputs)."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    rng = np.random.default_rng(0)
    g = [12000 * 0.5 ** i + 3 + rng.random() * 2 + (30 if i % 37 == 36 else 0) for i in range(300)]
    (tmp_path / "train.log").write_text("".join(f"step {i} loss {0.9 + 800 * 0.7 ** i + 0.1 * rng.random():.4f} grad_norm {x:.3f} "
                                                f"acc {min(0.8, 0.2 + i / 200):.3f}\n" for i, x in enumerate(g)))
    sig = {s.kind: s for s in analyze(ingest([tmp_path]))}
    assert sig["grad_huge_start_falls"].data["ratio"] > 1000
    # a healthy run whose loss goes to ~0 and whose gradients shrink 200x with it: no broken scale
    (tmp_path / "train.log").write_text("".join(f"step {i} loss {2.3 * 0.98 ** i:.5f} grad_norm {20 * 0.97 ** i:.6f}\n"
                                                for i in range(300)))
    assert "grad_huge_start_falls" not in {s.kind for s in analyze(ingest([tmp_path]))}


def test_dpo_rewards_far_from_zero_at_the_first_step_are_another_reference(tmp_path):
    """TRL's DPO dicts: at the first logged step (epoch 0.016) rewards/chosen 1.96 and rewards/rejected 1.67 and a
    loss of 0.97 (ln 2 while the policy is its reference): the reference model is an earlier checkpoint. A run whose
    rewards start near 0 and loss at ln 2 is no such reading."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def log(c0, r0, l0):
        return "".join(f"{{'loss': {l0 - 0.02 * i:.4f}, 'rewards/chosen': {c0 + 0.05 * i:.4f}, 'rewards/rejected': "
                       f"{r0 - 0.08 * i:.4f}, 'epoch': {0.016 + 0.15 * i:.4f}}}\n" for i in range(12))
    (tmp_path / "train.log").write_text(log(1.96, 1.67, 0.97))
    sig = {s.kind: s for s in analyze(ingest([tmp_path]))}
    assert sig["dpo_reference_differs"].strength == 0.8 and "healthy" not in sig
    (tmp_path / "train.log").write_text(log(0.01, -0.01, 0.693))
    assert "dpo_reference_differs" not in {s.kind for s in analyze(ingest([tmp_path]))}
    # IPO starts at 1/(2 beta)^2 with rewards at 0; SimPO's rewards are beta * log p, negative from the start
    (tmp_path / "train.log").write_text(log(0.0, 0.0, 25.0))
    assert "dpo_reference_differs" not in {s.kind for s in analyze(ingest([tmp_path]))}
    (tmp_path / "train.log").write_text(log(-2.6, -2.9, 0.9))
    assert "dpo_reference_differs" not in {s.kind for s in analyze(ingest([tmp_path]))}


def test_a_val_loss_minimum_among_the_last_evaluations_within_its_swings_is_no_divergence():
    """A noisy validation loss still reaching new lows near the end (its minimum 3 evaluations from the end, the
    last fifth's median above it by less than val's usual step-to-step swing) has not turned; the same minimum
    followed by a steady climb has (UrbanSound-style run read overfitting 0.69 from the noise)."""
    train = [2.2 * math.exp(-e / 8) + 0.25 for e in range(25)]
    noisy = [2.1, 1.9, 1.7, 1.9, 1.5, 1.4, 1.36, 1.12, 0.95, 1.1, 0.96, 0.9, 0.86, 0.53, 0.73, 0.4, 0.59, 0.62,
             0.41, 0.44, 0.36, 0.284, 0.283, 0.46, 0.375]
    assert "train_val_divergence" not in kinds(_run(loss=train, val_loss=noisy))
    steady = [2.1 - 0.09 * e for e in range(20)] + [0.39, 0.45, 0.52, 0.6, 0.7]
    assert "train_val_divergence" in kinds(_run(loss=train, val_loss=steady))


def test_validation_that_kept_pace_with_training_beside_a_far_worse_separate_evaluation_is_a_leaking_split():
    """Validation accuracy as high as training's to the end while a separate evaluation (another file) scores a
    third of it: the validation split shares what training saw. A validation that fell behind training as it fitted
    says no such thing."""
    def run_with(val_behind: float, test: float = 0.362) -> Run:
        run = _run(loss=[2.2 * math.exp(-e / 8) + 0.25 for e in range(25)],
                   accuracy=[min(0.92, 0.2 + 0.035 * e) for e in range(25)],
                   val_accuracy=[min(0.95, 0.22 + 0.036 * e) - val_behind * e / 24 for e in range(25)])
        run.series.append(Series("val_accuracy", "test_acc", np.array([0]), np.array([test]), "eval.log",
                                 np.array([3]), "line"))
        return run
    got = kinds(run_with(0.0))
    assert "held_out_at_chance" in got and got["held_out_below_val"].data["held_out"] == pytest.approx(0.362)
    got = kinds(run_with(0.1, test=0.3))
    assert "held_out_at_chance" in got and "held_out_below_val" not in got


def test_a_short_run_s_epoch_losses_that_swing_back_up_oscillate():
    """Thirty epoch means whose second half jumps back up again and again (1.20 -> 2.31 -> 1.50 -> 1.17 -> 1.49)
    oscillate: below 20 points the smoothed half was as wide as the slow reference, so no swing could show. Thirty
    epochs falling with a little noise do not."""
    swing = [2.34, 2.28, 2.26, 2.23, 2.24, 2.18, 2.17, 2.11, 2.06, 1.97, 1.89, 2.06, 2.10, 1.99, 1.87, 1.67, 1.65,
             1.70, 1.52, 1.39, 1.49, 1.72, 1.34, 1.61, 1.20, 2.31, 1.50, 1.17, 1.16, 1.49]
    assert "oscillation" in kinds(_run(loss=swing))
    calm = [2.3 * math.exp(-e / 10) + 0.3 + 0.02 * ((-1) ** e) for e in range(30)]
    assert "oscillation" not in kinds(_run(loss=calm))


def test_a_saw_tooth_is_found_beside_one_block_s_extreme_first_epoch():
    """Four class blocks per epoch, repeated for 8 epochs (loss 1.5 -> 0.97 -> 1.43 ...), after a first epoch whose
    first block was driven to 1e-8: on the log scale that block's -18 was the whole autocorrelation and the repeat
    read as an oscillation (lr_too_high 0.87 for an unshuffled MindSpore run). Clipped to its 5th-95th percentiles
    the period shows."""
    first = [0.5, 0.013, 8e-5, 1.7e-6, 8e-8, 10.7, 4.1, 2.0, 1.36, 1.2, 1.6, 1.4, 1.36, 1.3, 1.28, 1.59, 1.58, 1.55,
             1.51, 1.47]
    blocks = [1.55, 1.54, 1.52, 1.49, 1.46, 1.36, 1.30, 1.24, 1.10, 0.97, 1.43, 1.39, 1.40, 1.34, 1.32, 1.61, 1.63,
              1.57, 1.51, 1.46]
    loss = first + [v * (1 - 0.01 * e) + 0.005 * ((i * 7 + e) % 3) for e in range(1, 8) for i, v in enumerate(blocks)]
    got = kinds(_run(loss=loss, epoch=[e for e in range(8) for _ in range(20)]))
    assert got["sawtooth_epoch"].data["aligned"] and "oscillation" not in got


def test_a_val_loss_lower_at_every_evaluation_beside_a_training_loss_at_chance_is_slow_learning():
    """A model card at lr 5e-5: training loss at ln 3 (1.0998 ... 1.0894), validation loss lower at every one of 10
    evaluations (1.0966 -> 1.0884) and its accuracy up 0.378 -> 0.423: learning, slowly (slow_descent, creeping), not
    labels unpaired from their inputs. The same losses with validation accuracy at chance throughout say no such thing."""
    train = [1.0998, 1.097, 1.0948, 1.0933, 1.0912, 1.0909, 1.0896, 1.0882, 1.089, 1.0894]
    val = [1.0966, 1.0949, 1.0934, 1.0921, 1.091, 1.0901, 1.0893, 1.0888, 1.0885, 1.0884]
    acc = [0.3783, 0.4017, 0.4067, 0.4117, 0.405, 0.4117, 0.415, 0.4167, 0.4233, 0.4233]
    got = kinds(_run(loss=train, val_loss=val, val_accuracy=acc))
    assert "loss_at_chance" in got and got["slow_descent"].data["val"]
    got = kinds(_run(loss=train, val_loss=val, val_accuracy=[0.333 + 0.001 * (i % 2) for i in range(10)]))
    assert "loss_at_chance" in got and "slow_descent" not in got


def test_a_logged_embedding_spread_that_falls_to_nothing_is_a_collapse():
    """test_embedding_std 6e-3 -> 8e-5 over 40 epochs while the contrastive loss goes to 0: every input maps to one
    point (embedding_collapse), and the falling loss is no healthy run. A spread that settles at half its start is
    training, not a collapse."""
    loss = [0.26 * math.exp(-e / 4) + 0.0014 for e in range(40)]
    got = kinds(_run(loss=loss, val_embedding_std=[6e-3 * math.exp(-e / 8) + 8e-5 for e in range(40)]))
    assert got["embedding_collapse"].data["metric"] == "val_embedding_std" and "healthy" not in got
    got = kinds(_run(loss=loss, embedding_std=[0.3 + 0.3 * math.exp(-e / 8) for e in range(40)]))
    assert "embedding_collapse" not in got and "healthy" in got
    for name in ("z_var", "latent_var", "output_std", "logits_std"):   # a VAE's posterior variance shrinks by design
        got = kinds(_run(loss=loss, **{name: [0.95 * math.exp(-e / 6) + 0.01 for e in range(40)]}))
        assert "embedding_collapse" not in got, name


def test_a_pruning_runs_sparsity_is_no_share_of_dead_units():
    """A logged "sparsity" of 75 % in a pruning run is its weights' share at zero, not activations; an activation
    sparsity (act_sparsity, relu_sparsity) still reads as dead units."""
    loss = [3.25 - 0.001 * e for e in range(24)]
    assert "dead_units" not in kinds(_run(loss=loss, sparsity=[0.75] * 24))
    for name in ("weight_sparsity_fraction", "actual_sparsity", "target_sparsity_factor"):
        assert "dead_units" not in kinds(_run(loss=loss, **{name: [0.9] * 24})), name
    assert kinds(_run(loss=loss, act_sparsity=[0.9] * 24))["dead_units"].data["share"] == pytest.approx(0.9)


def test_a_policy_entropy_at_zero_from_the_start_and_one_that_collapses_with_the_return():
    """RL: a policy's entropy of ~1e-7 from its first update never explores (entropy_zero_from_start: its head's init
    or huge inputs); an entropy that falls from 0.6 to 0 while the return rose to 40 and fell back to 9 collapsed onto
    one action (entropy_collapse). A healthy run's entropy that halves while the return climbs is neither."""
    ret = [10 + 2 * e for e in range(20)]
    got = kinds(_run(**{"charts/episodic_return": [-0.64] * 20, "losses/entropy": [1e-7] * 20}))
    assert got["entropy_zero_from_start"].data["metric"] == "losses/entropy"
    got = kinds(_run(episode_reward_mean=[19.6, 40.6, 12.2] + [9.3] * 12, entropy=[0.6, 0.23, 0.07] + [0.0] * 12))
    assert "entropy_collapse" in got and "entropy_zero_from_start" not in got
    got = kinds(_run(episode_reward_mean=ret, entropy=[0.69 - 0.015 * e for e in range(20)]))
    assert not {"entropy_collapse", "entropy_zero_from_start"} & set(got)
    fall = [19.6, 40.6, 12.2] + [9.3] * 12
    for name, ent in (("cross_entropy", [2.3 * math.exp(-e) + 0.002 for e in range(15)]),        # a classifier's loss
                      ("train/entropy", [2.8 - 0.6 * e for e in range(15)]),                       # SAC: below 0 by design
                      ("losses/entropy", [0.0] * 5 + [1.38] * 10)):                                # logged 0 before learning
        got = kinds(_run(episode_reward_mean=fall, **{name: ent}))
        assert not {"entropy_collapse", "entropy_zero_from_start"} & set(got), name


def test_a_tiny_lr_that_is_a_warm_up_never_ending_is_the_schedule_not_a_low_setting():
    """The logged lr climbs the whole run to 4e-5 (a 20000-step warm-up in a 160-step run): the warm-up never ends
    (lr_schedule_odd), and its tiny values are no lr_tiny of their own (they read lr_too_low 0.88 with the slow fall)."""
    got = kinds(_run(loss=[5.0 - 0.001 * e for e in range(160)], lr=[2.5e-7 * (e + 1) for e in range(160)]))
    assert got["lr_schedule_odd"].data["detail"] == "warm-up spans the run" and "lr_tiny" not in got


def test_a_configured_warm_up_whose_ramp_spans_the_run_far_below_the_configured_lr_is_longer_than_the_run():
    """A LAION recipe's `warmup: 20000` with `lr: 0.005` in a 160-step run: the logged lr climbs the whole run to
    4e-5 (125x below the configured lr), so the configured warm-up is longer than the run (config:warmup_exceeds_run,
    citing the warm-up, the last logged lr and the configured lr). No such reading from the ramp alone, from a ramp
    that reaches the configured lr, or where the config names no warm-up."""
    def run(lr_end, warmup=True):
        r = _run(loss=[5.0 - 0.001 * e for e in range(160)], lr=[lr_end / 160 * (e + 1) for e in range(160)])
        r.facts.append(Fact("lr", 0.005, "config.yaml", 6, "lr: 0.005"))
        if warmup:
            r.facts.append(Fact("warmup_steps", 20000, "config.yaml", 8, "warmup: 20000"))
        return r
    got = kinds(run(4e-5))
    sig = got["config:warmup_exceeds_run"]
    assert "20000" in sig.summary and "125x" in sig.summary
    assert [e.source for e in sig.evidence] == ["config.yaml", "m.csv", "config.yaml"]
    assert "config:warmup_exceeds_run" not in kinds(run(4e-5, warmup=False))
    assert "config:warmup_exceeds_run" not in kinds(run(0.005))


def test_a_contrastive_term_whose_validation_twin_sits_at_ln_batch_is_a_gap_from_the_start(tmp_path):
    """BLIP's log: an image-text contrastive term (loss_ita) beside a captioning one (loss_lm), summed for the run's
    loss, and only the contrastive term evaluated (val_loss_ita). With batch 128 its chance level is ln 128 = 4.852:
    a validation twin that starts there and never improves while training creeps down is validation the model cannot
    use (val_gap_from_start, or memorizing_from_start where training creeps from that chance level as here, as with
    unpaired images and captions), not overfitting; before, no term named `loss_*`
    was compared with its twin and the run read healthy. The same twin that learns and then climbs is the divergence."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def write(val):
        (tmp_path / "config.yaml").write_text("batch_size: 128\nlr: 0.003\n")
        (tmp_path / "log.txt").write_text("".join(
            f'{{"epoch": {e}, "train_loss_ita": "{4.93 - 0.19 * e:.4f}", "train_loss_lm": "{3.75 / (1 + e):.4f}", '
            f'"val_loss_ita": {v:.4f}}}\n' for e, v in enumerate(val)))
        return {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    got = write([4.864, 4.854, 4.90, 4.99, 5.30, 5.70, 6.10, 6.53, 7.05, 7.17])
    gap = [got[k] for k in ("val_gap_from_start", "memorizing_from_start") if k in got]
    assert gap and gap[0].data["chance"] == pytest.approx(math.log(128)) and gap[0].data["term"] == "loss_ita"
    assert "healthy" not in got and "train_val_divergence" not in got
    got = write([4.50, 3.90, 3.50, 3.30, 3.35, 3.50, 3.70, 3.90, 4.10, 4.30])
    assert "train_val_divergence" in got and "val_gap_from_start" not in got


def test_a_contrastive_val_loss_climbing_while_retrieval_improves_is_overfitting_not_a_gap(tmp_path):
    """128 image-caption pairs trained for 30 epochs: val loss_ita dips 1.6 % and then climbs to 9 while zero-shot
    accuracy rises 9 % -> 34 % in the same file: validation the model reads, its contrastive loss grown overconfident
    (train_val_divergence), not data it cannot use (it read val_gap_from_start at ln 64). The same loss beside a score
    that stays at its first value is the gap."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def write(zs):
        (tmp_path / "config.yaml").write_text("batch_size: 64\nlr: 0.005\n")
        val = [4.924, 4.863, 4.847] + [4.9 + 0.14 * e for e in range(27)]
        (tmp_path / "log.txt").write_text("".join(
            f'{{"epoch": {e}, "train_loss_ita": "{4.26 * 0.8 ** e:.4f}", "train_loss_lm": "0.0000", '
            f'"val_zs_acc": {zs(e):.4f}, "val_loss_ita": {v:.4f}}}\n' for e, v in enumerate(val)))
        return {s.kind for s in analyze(ingest([str(tmp_path)]))}
    got = write(lambda e: min(33.6, 9.2 + 2.0 * e))
    assert "train_val_divergence" in got and "val_gap_from_start" not in got
    assert "val_gap_from_start" in write(lambda e: 9.2 + 0.3 * (e % 3))


def test_a_loss_stuck_at_the_softmax_floor_of_the_class_count_its_level_implies_beside_near_perfect_accuracy():
    """Softmax before CrossEntropyLoss on 6 classes, no class count given: the loss stays at 1.052 while accuracy is
    99 %; log(1 + (K - 1) / e) = 1.052 names K = 6.07, whose floor is 1.044 (loss_at_softmax_floor). Beside an accuracy
    of 0.80, or at a level that names no whole class count (0.50), no such reading."""
    loss = [1.56, 1.14] + [1.07 - 0.018 * (1 - math.exp(-e / 5)) for e in range(23)]
    got = kinds(_run(loss=loss, accuracy=[86.3] + [99.0] * 24))
    assert got["loss_at_softmax_floor"].data["k"] == 6
    assert "loss_at_softmax_floor" not in kinds(_run(loss=loss, accuracy=[60.0] + [80.0] * 24))
    low = [x - 0.552 for x in loss]
    assert "loss_at_softmax_floor" not in kinds(_run(loss=low, accuracy=[86.3] + [99.0] * 24))


def test_a_loss_flattening_a_little_above_its_softmax_floor_names_the_class_count_below_it():
    """An HF Trainer's log of a 10-class softmax-before-cross-entropy model, no class count given and a first logged
    loss already under ln 10: the loss flattens at 1.488 (2 % above the floor log(1 + 9 / e) = 1.459; the level itself
    names K = 10.3) beside 99.3 % eval accuracy: loss_at_softmax_floor with K = 10. Not below a floor: a level that
    names K = 10.8 is no class count's."""
    loss = [2.253, 2.078] + [1.4877 + 0.45 * math.exp(-e / 2.5) for e in range(23)]
    got = kinds(_run(loss=loss, val_accuracy=[0.55, 0.9] + [0.993] * 23))
    assert got["loss_at_softmax_floor"].data["k"] == 10
    far = loss[:2] + [x + 0.04 for x in loss[2:]]
    assert "loss_at_softmax_floor" not in kinds(_run(loss=far, val_accuracy=[0.55, 0.9] + [0.993] * 23))


def test_a_training_return_far_above_the_held_out_return_for_the_whole_run_is_a_generalisation_gap():
    """Tianshou's DQN on one maze layout: train/reward climbs to 0.95 while test_reward on 50 unseen levels stays near
    -0.3 every epoch (return_gap). A test return that follows the training one, or ends close to it, is none."""
    train = [0.74, 0.74, -0.4, 0.88, 0.95, 0.94, 0.75, 0.95, 0.93, 0.95, 0.95, 0.95]
    got = kinds(_run(**{"train/reward": train, "test/reward": [-0.37, -0.29, -0.33, -0.33, -0.32, -0.37, -0.30, -0.28,
                                                                -0.31, -0.27, -0.32, -0.29]}))
    assert got["return_gap"].data["train_end"] == pytest.approx(0.95)
    follows = kinds(_run(**{"train/reward": train, "test/reward": [x - 0.1 for x in train]}))
    assert "return_gap" not in follows


def test_a_loss_still_creeping_onto_its_softmax_floor_beside_near_perfect_accuracy_is_read_there():
    """A Keras model returning tf.nn.softmax into SparseCategoricalCrossentropy(from_logits=True), 10 classes: the loss
    creeps from 2.29 to 1.469 and is still edging down in its second third (no plateau read), while train accuracy is
    0.995: it ends on the floor log(1 + 9 / e) = 1.461 all the same (loss_at_softmax_floor)."""
    loss = [1.461 + 0.83 * math.exp(-e / 18) for e in range(90)]
    got = kinds(_run(loss=loss, accuracy=[min(0.995, 0.13 + 0.03 * e) for e in range(90)]))
    assert "plateau" not in got and got["loss_at_softmax_floor"].data["k"] == 10


def test_a_psnr_of_50_db_at_the_first_evaluation_is_near_perfect_from_the_start():
    """A denoiser whose inputs are its clean targets (BasicSR's dataroot_lq on the target folder): validation PSNR is
    59 dB at the first evaluation and 69 dB at the end (val_near_perfect by psnr). A healthy field that climbs from
    21 dB to 40 dB is none."""
    got = kinds(_run(loss=[4e-4 * 0.8 ** e for e in range(12)], val_psnr=[59.2 + 0.8 * e for e in range(12)]))
    assert got["val_near_perfect"].data["by"] == "psnr"
    healthy = kinds(_run(loss=[8e-3 * 0.7 ** e for e in range(12)], val_psnr=[21.0 + 1.8 * e for e in range(12)]))
    assert "val_near_perfect" not in healthy


def test_a_configured_warm_up_is_not_read_past_a_longer_configured_run_or_as_shorter_than_its_logged_ramp():
    """The warm-up ramp read as the configured warm-up outlasting the run (config:warmup_exceeds_run) only where the
    config names no longer run (warmup_steps 20000 beside max_steps 200000 is a log cut short) and the warm-up is no
    shorter than the points its ramp was logged at (warmup_steps 50 under a 160-point ramp is another schedule)."""
    def run(extra):
        r = _run(loss=[5.0 - 0.001 * e for e in range(160)], lr=[4e-5 / 160 * (e + 1) for e in range(160)])
        r.facts.append(Fact("lr", 0.005, "config.yaml", 6, "lr: 0.005"))
        r.facts.extend(extra)
        return kinds(r)
    assert "config:warmup_exceeds_run" in run([Fact("warmup_steps", 20000, "config.yaml", 8, "warmup: 20000")])
    assert "config:warmup_exceeds_run" not in run([Fact("warmup_steps", 20000, "config.yaml", 8, "warmup: 20000"),
                                                   Fact("max_steps", 200000, "config.yaml", 9, "max_steps: 200000")])
    assert "config:warmup_exceeds_run" not in run([Fact("warmup_steps", 50, "config.yaml", 8, "warmup: 50")])


def test_a_healthy_loss_that_merely_ends_near_some_softmax_floor_is_none():
    """A loss that starts off any chance level (0.9) and ends at 0.560 beside 97.5 % accuracy: its level names K = 3's
    floor, but no class count is known and the first loss sat at no ln K (label smoothing ends there too): no
    loss_at_softmax_floor. An episode's length is no return, and an error under a score's name is no score."""
    loss = [0.56 + 0.34 * math.exp(-e / 6) for e in range(30)]
    assert "loss_at_softmax_floor" not in kinds(_run(loss=loss, accuracy=[min(0.975, 0.6 + 0.03 * e) for e in range(30)]))
    got = kinds(_run(**{"charts/episodic_length": [3231.0] * 10, "charts/episodic_return": [18.0 + 0.1 * e for e in range(10)],
                        "eval/episodic_return": [18.5 + 0.05 * e for e in range(10)]}))
    assert "return_gap" not in got
    from mltdbg.analyzers.curves import _val_score_learned
    r = _run(val_top1_err=[0.2, 0.5, 0.7, 0.9], val_loss_ita=[4.9, 4.8, 5.0, 5.5])     # (a rising error: it got worse)
    assert not _val_score_learned(r, "m.csv")


def test_second_review_cases_of_the_psnr_and_pose_readings():
    """A resumed run's PSNR above 50 dB (first evaluation at step 400000 of 410000), or one that starts at 52 dB and
    falls to 12 dB, is not near perfect from the start; an infinite PSNR (outputs equal to targets) is. A dialogue
    model's joint-goal accuracy at 0 is an accuracy at 0."""
    def got(steps, vals):
        r = Run(root=Path("."))
        r.series.append(Series("loss", "loss", np.asarray(steps, np.int64), np.linspace(1e-3, 5e-4, len(steps)), "m.csv",
                               np.arange(len(steps)) + 2, "line"))
        r.series.append(Series("val_psnr", "val_psnr", np.asarray(steps, np.int64), np.asarray(vals, float), "m.csv",
                               np.arange(len(steps)) + 2, "line"))
        return {s.kind for s in curve_signals(r)}
    assert "val_near_perfect" not in got([400000 + 1000 * i for i in range(10)], [50.4 + 0.05 * i for i in range(10)])
    assert "val_near_perfect" not in got([50 * (i + 1) for i in range(10)], [52.0 - 4.4 * i for i in range(10)])
    assert "val_near_perfect" in got([50 * (i + 1) for i in range(10)], [math.inf] * 10)
    from mltdbg.analyzers.frozen_metric import _is_accuracy
    assert _is_accuracy("val_joint_goal_acc") and not _is_accuracy("acc_pose")


def test_a_column_per_layer_of_inactive_shares_is_dead_units(tmp_path):
    """A report's table with a column per hidden layer of the share of units that output zero ("inactive L1" ..
    "inactive L5", L5 at 1.00 every epoch): dead units. A count of inactive units is no share."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    head = "| epoch | train_loss | inactive L1 | inactive L2 | inactive L3 |\n|---|---|---|---|---|\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "report.md").write_text(head + "".join(f"| {e} | 1.609 | 0.00 | 0.36 | 1.00 |\n" for e in range(1, 7)))
    assert "dead_units" in {s.kind for s in analyze(ingest([str(tmp_path / "a")]))}
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "report.md").write_text(head + "".join(f"| {e} | 1.609 | 0 | 12 | 128 |\n" for e in range(1, 7)))
    assert "dead_units" not in {s.kind for s in analyze(ingest([str(tmp_path / "b")]))}


def test_a_nan_that_each_posted_run_meets_at_one_step_is_that_steps_batch(tmp_path):
    """A post's two runs, captioned "lr=1e-3:" and "lr=1e-4:", each finite and calm up to step 136 and NaN from step
    137: nonfinite_same_step (the same batch whatever the lr), and no resumed job. A lower lr that meets its NaN
    later, or a loss that climbs into the NaN, says nothing of the kind."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def block(lr, losses, nan_at):
        rows = "".join(f"step {k:4d} | loss {v:.4f} | grad_norm 0.45\n" for k, v in zip(range(120, nan_at), losses))
        return f"lr={lr}:\n```\n{rows}" + "".join(f"step {k:4d} | loss nan | grad_norm nan\n" for k in (nan_at, nan_at + 1)) + "```\n"

    calm = [0.4 - 0.001 * i for i in range(40)]
    (tmp_path / "post.md").write_text("Loss goes NaN, here are two runs.\n\n" + block("1e-3", calm, 137) + block("1e-4", calm, 137))
    got = {x.kind: x for x in analyze(ingest([str(tmp_path)]))}
    assert got["nonfinite_same_step"].data == {"step": 137, "attempts": 2}
    assert "step_restart" not in got and "loss_jump_at_resume" not in got
    (tmp_path / "post.md").write_text("two runs\n\n" + block("1e-3", calm, 137) + block("1e-4", calm, 152))
    assert "nonfinite_same_step" not in {x.kind for x in analyze(ingest([str(tmp_path)]))}
    climb = calm[:14] + [1.0, 3.0, 9.0]
    (tmp_path / "post.md").write_text("two runs\n\n" + block("1e-3", climb, 137) + block("1e-4", climb, 137))
    assert "nonfinite_same_step" not in {x.kind for x in analyze(ingest([str(tmp_path)]))}


def test_validation_ahead_of_training_under_heavy_dropout_is_expected(tmp_path):
    """A metrics table with validation accuracy above training accuracy all run and the training accuracy flat: with
    `dropout: 0.5` in the config both readings are held at 0.3 and train_regularised cites the config's line (noisy
    labels are not needed to explain it). Without the dropout they keep their weight."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    rows = ["epoch,loss,accuracy,val_loss,val_accuracy"]
    for e in range(1, 31):
        acc = 0.70 + 0.07 * min(e, 10) / 10
        rows.append(f"{e},{1.2 - 0.4 * min(e, 10) / 10:.4f},{acc:.4f},{0.9 - 0.35 * min(e, 10) / 10:.4f},{acc + 0.12:.4f}")
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "config.yaml").write_text("model:\n  hidden: 256\n  dropout: 0.5\noptim:\n  lr: 0.001\n")
    got = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert got["val_above_train"].strength <= 0.3 and got["train_regularised"].evidence[0].line == 3
    (tmp_path / "config.yaml").write_text("model:\n  hidden: 256\noptim:\n  lr: 0.001\n")
    got = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert got["val_above_train"].strength > 0.3 and "train_regularised" not in got
    # switched off, a note, or tqdm's own smoothing: no regularisation
    for off in ("p.add_argument('--label_smoothing', type=float, default=0.0)\n", "# TODO: try mixup later\n",
                "for xb, yb in tqdm(loader, smoothing=0.1):\n    pass\n", "loss:\n  label_smoothing: 0.0\n"):
        (tmp_path / ("train.py" if "(" in off else "extra.yaml")).write_text(off)
        assert "train_regularised" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}, off
        for f in ("train.py", "extra.yaml"):
            (tmp_path / f).unlink(missing_ok=True)
    (tmp_path / "extra.yaml").write_text("loss:\n  label_smoothing: 0.1\n")
    assert "train_regularised" in {s.kind for s in analyze(ingest([str(tmp_path)]))}


def test_a_warm_up_run_again_mid_run_is_a_schedule_started_over():
    """Warm-up to 2e-3, cosine decay, and at step 1750 the lr back at the warm-up's first value climbing to the peak
    again while the steps go on (a fresh scheduler after a resume): lr_rewarm at the ramp's start. A plain warm-up and
    cosine, or SGDR's periodic restarts that jump back to the peak, say nothing of the kind."""
    import math as _m

    def warm_cos(step, start=0, total=2500):
        k = step - start
        return 2e-3 * k / 150 if k < 150 else 2e-3 * 0.5 * (1 + _m.cos(_m.pi * (k - 150) / (total - 150)))
    steps = list(range(10, 2510, 10))
    resumed = [warm_cos(s) if s <= 1750 else warm_cos(s, start=1750) for s in steps]
    s = kinds(_run_at(steps, lr=resumed))["lr_rewarm"]
    assert s.data["step"] == 1760 and s.strength == 0.7
    assert "lr_rewarm" not in kinds(_run_at(steps, lr=[warm_cos(s) for s in steps]))
    sgdr = [2e-3 * 0.5 * (1 + _m.cos(_m.pi * (s % 500) / 500)) for s in steps]
    assert "lr_rewarm" not in kinds(_run_at(steps, lr=sgdr))
    # a triangular CyclicLR of two cycles climbs as long as it fell
    tri = [1e-4 + 9e-4 * (1 - abs((i % 50) - 25) / 25) for i in range(100)]
    assert "lr_rewarm" not in kinds(_run_at(range(100), lr=tri))


def test_a_summarys_last_lr_far_below_the_configured_one_is_a_schedule_that_decayed_it_away():
    """A W&B run page's summary keeps the last lr only: 1e-157 where the config says 0.1 is lr_schedule_odd
    (a per-epoch StepLR stepped per batch), citing the summary and the config. A last lr of 1e-5 (a planned decay)
    or exactly 0 (a cosine's end) is none."""
    def run(last):
        r = _run(loss=[2.30, 2.09, 2.08, 2.08, 2.08], lr=[last])
        r.facts.append(Fact("lr", 0.1, "config.yaml", 13, "  lr: 0.1"))
        return kinds(r)
    got = run(1e-157)["lr_schedule_odd"]
    assert got.data["detail"] == "collapse" and got.evidence[1].source == "config.yaml"
    assert "lr_schedule_odd" not in run(1e-5) and "lr_schedule_odd" not in run(0.0)
