"""Plain-text reader: metric series from logs printed in the common styles (written the way
the real tools print them), text kinds, and bad input (empty, binary, non-UTF-8, gzip, a
5 MB line)."""
from __future__ import annotations

import gzip
import logging
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import Run
from mltdbg.analyzers.readers import textlog
from mltdbg.analyzers.readers.textlog.arrays import byte_windows

FIX = Path(__file__).parent / "fixtures" / "text"


def read(path: Path) -> Run:
    run = Run(root=path.parent)
    assert textlog.sniff(path, path.read_bytes()[:4096])
    textlog.read(path, path.name, run)
    return run


def series(run: Run, name: str, rank=None):
    found = [s for s in run.series if s.name == name and s.rank == rank]
    assert len(found) == 1, (name, [(s.name, s.raw_name, s.rank) for s in run.series])
    return found[0]


def line_of(path: Path, needle: str, nth: int = 0) -> int:
    hits = [i for i, ln in enumerate(path.read_bytes().decode().split("\n"), 1) if needle in ln]
    return hits[nth]


def python_logger(path: Path, fmt: str) -> logging.Logger:
    log = logging.getLogger(f"trainer.{path.stem}")
    log.handlers.clear()
    h = logging.FileHandler(path)
    h.setFormatter(logging.Formatter(fmt))
    log.addHandler(h)
    log.setLevel(logging.INFO)
    log.propagate = False
    return log


NOISE = [
    "torch version 2.1.0 cuda: 12.1 cudnn: 8902 python=3.10.12",
    "pid 12345 host 10.0.0.1 port: 29500 master_addr=192.168.1.10",
    "train.py:123: UserWarning: something at 0x7f3a2b1c",
    "started at 2024-05-01 12:00:01 (eta: 1:02:03), checkpoint saved to /ckpt/step_100.pt",
    "Loaded 1,234 samples from shard-00003-of-00008 in 12:03",
]


@pytest.mark.parametrize("fmt", [
    "%(asctime)s - %(levelname)s - %(name)s - %(message)s",        # the common tutorial format
    logging.BASIC_FORMAT,                                           # "INFO:name:message"
    "[%(asctime)s][%(name)s][%(levelname)s] - %(message)s",        # hydra's default
])
def test_python_logging_lines(tmp_path, fmt):
    p = tmp_path / "train.log"
    log = python_logger(p, fmt)
    losses = [2.5 - 0.1 * i for i in range(8)]
    for i, loss in enumerate(losses):
        if i == 3:
            for n in NOISE:
                log.info(n)
        log.info("step %d | loss=%.4f | lr=%.2e | grad_norm=%.3f", i * 10, loss, 3e-4, 1.0 + i)
    log.handlers[0].close()
    run = read(p)
    assert sorted(s.name for s in run.series) == ["grad_norm", "loss", "lr"]
    loss = series(run, "loss")
    assert loss.steps.tolist() == [i * 10 for i in range(8)]
    assert loss.values.tolist() == [float(f"{v:.4f}") for v in losses]
    assert loss.locs.tolist() == [line_of(p, f"step {i * 10} |") for i in range(8)]
    assert not loss.step_is_index and loss.source == "train.log" and loss.loc_kind == "line"
    assert series(run, "lr").values.tolist() == [3e-4] * 8
    assert run.texts[0].kind == "log"


def test_torch_training_loop_losses_read_back_exactly(tmp_path):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(64, 4), torch.randn(64, 1)
    p = tmp_path / "stdout.txt"
    written = []
    with open(p, "w") as f:
        for step in range(1, 31):
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
            opt.step()
            written.append(loss.item())
            print(f"Iter {step}/30 loss: {loss.item():.6f} grad_norm: {gn.item():.4e}", file=f)
    run = read(p)
    s = series(run, "loss")
    assert s.steps.tolist() == list(range(1, 31))
    assert s.values.tolist() == [float(f"{v:.6f}") for v in written]
    assert len(series(run, "grad_norm")) == 30


def test_hf_trainer_printed_dicts(tmp_path):
    """HF Trainer prints log dicts with print(dict) between tqdm redraws of its progress bar."""
    p = tmp_path / "output.log"
    rows = []
    with open(p, "w") as f:
        for i in range(1, 6):
            for n in (i * 10 - 1, i * 10):   # tqdm redraws the bar with '\r'
                f.write(f"\r {n * 2}%|##        | {n}/50 [00:0{i}<00:10,  4.20it/s]")
            d = {"loss": 2.5 / i, "grad_norm": 1.5 * i, "learning_rate": 5e-05 * (1 - i / 10), "epoch": 0.2 * i}
            if i == 4:
                d["loss"], d["grad_norm"] = float("nan"), float("inf")
            rows.append(d)
            f.write("\n" + str(d) + "\n")
        f.write(str({"eval_loss": 1.9, "eval_runtime": 3.2, "epoch": 1.0}) + "\n")
        f.write(str({"eval_loss": 1.7, "eval_runtime": 3.1, "epoch": 1.0}) + "\n")
        f.write(str({"train_runtime": 100.1, "train_samples_per_second": 50.0, "train_loss": 2.1, "epoch": 1.0}) + "\n")
    run = read(p)
    loss = series(run, "loss")
    assert loss.raw_name == "loss"
    assert loss.steps.tolist() == [10, 20, 30, 40, 50]          # from the progress bar before each dict
    assert loss.values[:3].tolist() == [2.5, 1.25, 2.5 / 3]
    assert math.isnan(loss.values[3]) and loss.values[4] == 0.5
    assert loss.locs.tolist() == [line_of(p, "'loss'", k) for k in range(5)]
    gn = series(run, "grad_norm")
    assert gn.values[3] == math.inf
    assert series(run, "lr").values.tolist() == [r["learning_rate"] for r in rows]
    assert series(run, "val_loss").values.tolist() == [1.9, 1.7]
    # the summary's train_loss is a mean of the run, not a point of the loss curve
    assert all(s.raw_name != "train_loss" for s in run.series)


def test_keras_fit_epochs(tmp_path):
    p = tmp_path / "keras.log"
    hist = {"loss": [0.9123, 0.5011, 0.3507], "accuracy": [0.61, 0.75, 0.83],
            "val_loss": [1.0211, 0.7010, 0.8123], "val_accuracy": [0.55, 0.70, 0.69]}
    with open(p, "w") as f:
        for e in range(3):
            f.write(f"Epoch {e + 1}/3\n")
            metrics = " - ".join(f"{k}: {v[e]:.4f}" for k, v in hist.items())
            f.write(f"1875/1875 [==============================] - 4s 2ms/step - {metrics}\n")
    run = read(p)
    for k, v in hist.items():
        s = series(run, k)
        assert s.steps.tolist() == [1, 2, 3] and s.values.tolist() == v
        assert s.locs.tolist() == [2, 4, 6]


def test_keras3_progress_bar_with_redraws(tmp_path):
    """Keras 3 on a terminal redraws the batch line with '\\r'; every redraw is a point."""
    p = tmp_path / "keras3.log"
    with open(p, "w") as f:
        for e in (1, 2):
            f.write(f"Epoch {e}/2\n")
            for b in (1, 2, 3, 4):
                f.write(f"\r{b}/4 ━━━━━━━━━━━━━━━━━━━━ 0s 3ms/step - accuracy: 0.{e}{b}00 - loss: {e}.{b}000")
            f.write(" - val_accuracy: 0.5000 - val_loss: 0.9000\n")
    run = read(p)
    loss = series(run, "loss")
    assert loss.steps.tolist() == [1, 2, 3, 4, 5, 6, 7, 8]      # batch counter made global over epochs
    assert loss.values.tolist() == [1.1, 1.2, 1.3, 1.4, 2.1, 2.2, 2.3, 2.4]
    assert loss.locs.tolist() == [2, 2, 2, 2, 4, 4, 4, 4]        # line numbers stay the file's '\n' lines
    assert series(run, "val_loss").steps.tolist() == [4, 8]


def test_tqdm_postfix(tmp_path):
    """tqdm's format: '{desc}: {percentage}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}, {postfix}]'."""
    p = tmp_path / "tqdm.err"
    with open(p, "w") as f:
        f.write("Starting\n")
        for epoch in (0, 1):
            for n in range(0, 101, 25):
                f.write(f"\rEpoch {epoch}: {n:3d}%|{'█' * (n // 10):10s}| {n}/100 [00:0{n // 25}<00:04, 24.51it/s, "
                        f"loss={3 - epoch / 2 - n / 100:.3f}, lr=1.00e-03]")
            f.write("\n")
    run = read(p)
    loss = series(run, "loss")
    # tqdm restarts its counter every epoch: the counter is made global
    assert loss.steps.tolist() == [0, 25, 50, 75, 100, 100, 125, 150, 175, 200]
    assert loss.values.tolist()[:3] == [3.0, 2.75, 2.5]
    assert set(loss.locs.tolist()) == {2, 3}
    # the end of epoch 0 and the start of epoch 1 are the same step: one lr point there
    assert series(run, "lr").steps.tolist() == [0, 25, 50, 75, 100, 125, 150, 175, 200]


def test_tutorial_epoch_and_step_counters(tmp_path):
    p = tmp_path / "log.txt"
    with open(p, "w") as f:
        for e in (1, 2):
            for s in (100, 200, 300):
                f.write(f"Epoch [{e}/2], Step [{s}/300], Loss: {1 / (e * s):.4f}\n")
    loss = series(read(p), "loss")
    assert loss.steps.tolist() == [100, 200, 300, 400, 500, 600]


def test_rank_prefixes(tmp_path):
    p = tmp_path / "torchrun.log"
    with open(p, "w") as f:
        f.write("W0501 12:00:00.000000 123 torch/distributed/run.py:779] Setting OMP_NUM_THREADS\n")
        for s in range(4):
            for r in range(2):
                prefix = ["[rank{r}]:", "[default{r}]:"][s % 2].format(r=r)
                f.write(f"{prefix}step={s} loss={2.0 - s * 0.1 - r * 0.01:.2f}\n")
        f.write("[RANK 1] step 4 loss 1.5\n[RANK 1] step 5 loss nan\n")
    run = read(p)
    r0, r1 = series(run, "loss", rank=0), series(run, "loss", rank=1)
    assert r0.values.tolist() == [2.0, 1.9, 1.8, 1.7]
    assert r1.steps.tolist() == [0, 1, 2, 3, 4, 5] and math.isnan(r1.values[-1])
    assert r1.locs.tolist() == [3, 5, 7, 9, 10, 11]


def test_a_federated_runs_clients_are_read_apart(tmp_path):
    """Flower under Ray prints each client's evaluation in its actor's prefix, the clients interleaved in
    another order every round: read as one series, it jumped between clients of 8 and 180 examples (spikes
    of 3.4x its level, batch_size_too_small at 0.86). One series per client, as ranks are."""
    p = tmp_path / "flower.log"
    rng = __import__("random").Random(0)
    with open(p, "w") as f:
        for rnd in range(1, 6):
            f.write(f"INFO :      [ROUND {rnd}]\n")
            for d in rng.sample(range(4), 4):
                f.write(f"(ClientAppActor pid={61230 + d}) device {d}: val_loss={d + 1 / rnd:.4f} val_acc=0.{50 + d}\n")
        f.write("[site 07] loss=0.5\n[site 07] loss=0.4\n")
        # ... and a client's name closed by a column bar ("site 07 | round 4 | epoch 1/2 | loss 0.0710")
        f.write("(ClientAppActor pid=53765) site 03 | epoch 1/2 | loss 0.0710\n"
                "(ClientAppActor pid=53792) site 11 | epoch 1/2 | loss 0.0642\n"
                "(ClientAppActor pid=53765) site 03 | epoch 2/2 | loss 0.0563\n"
                "(ClientAppActor pid=53792) site 11 | epoch 2/2 | loss 0.0468\n")
    run = read(p)
    for d in range(4):
        assert series(run, "val_loss", rank=d).values.tolist() == [round(d + 1 / r, 4) for r in range(1, 6)]
    assert series(run, "loss", rank=7).values.tolist() == [0.5, 0.4]
    assert series(run, "loss", rank=3).values.tolist() == [0.0710, 0.0563]
    assert series(run, "loss", rank=11).values.tolist() == [0.0642, 0.0468]


def test_flowers_server_evaluation_lines_are_the_global_models_held_out_scores(tmp_path):
    """Flower prints the server's evaluation of the averaged model by position: `fit progress: (round, loss,
    {metrics}, seconds)`, after `initial parameters (loss, other metrics): loss, {metrics}` for round 0. The loss
    has no name and the dict's accuracy is no training accuracy: val_loss and val_accuracy by round. A logger's
    level ("INFO :      [ROUND 2]") is no metric."""
    p = tmp_path / "flwr_run.log"
    lines = ["INFO :      initial parameters (loss, other metrics): 2.3026, {'accuracy': 0.1}"]
    for r in range(1, 5):
        lines += [f"INFO :      [ROUND {r}]", "INFO :      aggregate_fit: received 4 results and 0 failures",
                  f"INFO :      fit progress: ({r}, {2.3 / (r + 1):.4f}, {{'accuracy': {0.2 * r:.1f}, 'f1': 0.{r}}}, "
                  f"{1.2 * r:.3f})"]
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    loss, acc = series(run, "val_loss"), series(run, "val_accuracy")
    assert loss.steps.tolist() == [0, 1, 2, 3, 4] and loss.values.tolist() == [2.3026, 1.15, 0.7667, 0.575, 0.46]
    assert acc.values.tolist() == [0.1, 0.2, 0.4, 0.6, 0.8] and acc.locs.tolist() == [1, 4, 7, 10, 13]
    names = {s.name for s in run.series}
    assert "accuracy" not in names and "info" not in names and "progress" not in names
    # numpy 2's reprs, and a 'loss' among the metrics (the tuple's loss already)
    p.write_text("\n".join(ln.replace("'accuracy': ", "'loss': 1.0, 'accuracy': np.float64(").replace(", 'f1'", "), 'f1'")
                           for ln in lines) + "\n")
    run = read(p)
    assert series(run, "val_accuracy").values.tolist() == [0.1, 0.2, 0.4, 0.6, 0.8]
    assert len([s for s in run.series if s.name == "val_loss"]) == 1


# Flower's end-of-run History as flwr 1.x prints it through its logger (pprint'ed dicts over several lines)
_HISTORY = """INFO :      [SUMMARY]
INFO :      Run finished 3 round(s) in 31.21s
INFO :      	History (loss, distributed):
INFO :      		round 1: 0.8348
INFO :      		round 2: 0.3865
INFO :      		round 3: nan
INFO :      	History (loss, centralized):
INFO :      		round 0: 2.3026
INFO :      		round 1: 0.41
INFO :      		round 2: 0.38
INFO :      		round 3: 0.37
INFO :      	History (metrics, distributed, fit):
INFO :      	{'train_acc': [(1, 0.71),
INFO :      	               (2, 0.82),
INFO :      	               (3, 0.9)]}
INFO :      	History (metrics, distributed, evaluate):
INFO :      	{'accuracy': [(1, 0.659),
INFO :      	              (2, 0.7647),
INFO :      	              (3, 0.772)]}
INFO :      	History (metrics, centralized):
INFO :      	{'accuracy': [(0, 0.1), (1, 0.5), (2, 0.61), (3, 0.64)],
INFO :      	 'f1': [(0, 0.05),
INFO :      	        (1, 0.4)]}
INFO :      
"""


def test_flowers_history_sections_split_the_clients_training_from_the_evaluations(tmp_path):
    """Flower's History at the end of a run: the clients' evaluation loss (distributed) and the server's
    (centralized) by round, and dicts of (round, value) lists over several lines. `fit` metrics are the clients'
    TRAINING metrics, `evaluate` and `centralized` ones held-out; where both a centralized and a distributed series
    have one name the server's keeps it and the clients' takes `_distributed`. The scanner read none of it."""
    p = tmp_path / "flwr_summary.log"
    p.write_text("INFO :      Starting Flower ServerApp\n" + _HISTORY)
    run = read(p)
    loss, dist = series(run, "val_loss"), series(run, "val_loss_distributed")
    assert (loss.steps.tolist(), loss.values.tolist(), loss.locs.tolist()) == ([0, 1, 2, 3], [2.3026, 0.41, 0.38, 0.37],
                                                                               [9, 10, 11, 12])
    assert dist.steps.tolist() == [1, 2, 3] and dist.values[:2].tolist() == [0.8348, 0.3865] and math.isnan(dist.values[2])
    assert dist.locs.tolist() == [5, 6, 7]
    fit = series(run, "accuracy")       # the clients' training accuracy, not a held-out one
    assert (fit.steps.tolist(), fit.values.tolist(), fit.locs.tolist()) == ([1, 2, 3], [0.71, 0.82, 0.9], [14, 15, 16])
    ev = series(run, "val_accuracy_distributed")
    assert (ev.steps.tolist(), ev.values.tolist(), ev.locs.tolist()) == ([1, 2, 3], [0.659, 0.7647, 0.772], [18, 19, 20])
    cen = series(run, "val_accuracy")
    assert (cen.steps.tolist(), cen.values.tolist(), cen.locs.tolist()) == ([0, 1, 2, 3], [0.1, 0.5, 0.61, 0.64], [22] * 4)
    f1 = series(run, "val_f1")
    assert (f1.steps.tolist(), f1.values.tolist(), f1.locs.tolist()) == ([0, 1], [0.05, 0.4], [23, 24])
    names = {s.name for s in run.series}
    assert names == {"val_loss", "val_loss_distributed", "accuracy", "val_accuracy_distributed", "val_accuracy", "val_f1"}
    # the clients' evaluation alone (no server-side evaluation): it is the val_loss / val_accuracy
    p.write_text("".join(ln + "\n" for ln in _HISTORY.splitlines()[:6] + _HISTORY.splitlines()[11:20]))
    run = read(p)
    assert series(run, "val_loss").values[:2].tolist() == [0.8348, 0.3865]
    assert series(run, "val_accuracy").values.tolist() == [0.659, 0.7647, 0.772]
    assert series(run, "accuracy").values.tolist() == [0.71, 0.82, 0.9]
    assert {s.name for s in run.series} == {"val_loss", "val_accuracy", "accuracy"}


def test_flowers_history_leaves_the_server_evaluation_to_its_fit_progress_lines(tmp_path):
    """The centralized History repeats what the `fit progress:` lines gave round by round: one val_loss and one
    val_accuracy, on the fit progress lines (each round's own line), not a second copy on the summary's."""
    p = tmp_path / "flwr_run.log"
    lines = ["INFO :      initial parameters (loss, other metrics): 2.3026, {'accuracy': 0.1}"]
    for r, (lo, acc) in enumerate([(0.41, 0.5), (0.38, 0.61), (0.37, 0.64)], 1):
        lines += [f"INFO :      [ROUND {r}]", f"INFO :      fit progress: ({r}, {lo}, {{'accuracy': {acc}}}, {1.5 * r})"]
    p.write_text("\n".join(lines) + "\n" + _HISTORY)
    run = read(p)
    loss, acc = series(run, "val_loss"), series(run, "val_accuracy")
    assert loss.values.tolist() == [2.3026, 0.41, 0.38, 0.37] and loss.locs.tolist() == [1, 3, 5, 7]
    assert acc.values.tolist() == [0.1, 0.5, 0.61, 0.64] and acc.locs.tolist() == [1, 3, 5, 7]
    assert series(run, "val_accuracy_distributed").values.tolist() == [0.659, 0.7647, 0.772]
    assert series(run, "val_f1").locs.tolist() == [7 + 22, 7 + 23]    # (the fit progress lines have no f1)


def test_flowers_older_history_without_the_loggers_prefix(tmp_path):
    """Older Flower printed the History bare, each metrics dict on one line and the next header right after it
    (`...]}History (metrics, ...):`); the fit dict's 'loss' is the clients' training loss."""
    p = tmp_path / "history.txt"
    p.write_text("History (loss, distributed):\n\tround 1: 0.83\n\tround 2: 0.51\n\tround 3: 0.47\n"
                 "History (metrics, distributed, fit):\n{'accuracy': [(1, 0.5), (2, 0.6), (3, 0.7)], "
                 "'loss': [(1, 1.5), (2, 1.2), (3, 1.1)]}History (metrics, distributed, evaluate):\n"
                 "{'accuracy': [(1, 0.4), (2, 0.45), (3, np.float64(0.5))]}\n")
    run = read(p)
    assert series(run, "val_loss").values.tolist() == [0.83, 0.51, 0.47]
    tr, va = series(run, "accuracy"), series(run, "val_accuracy")
    assert (tr.steps.tolist(), tr.values.tolist(), tr.locs.tolist()) == ([1, 2, 3], [0.5, 0.6, 0.7], [6, 6, 6])
    assert (va.steps.tolist(), va.values.tolist(), va.locs.tolist()) == ([1, 2, 3], [0.4, 0.45, 0.5], [7, 7, 7])
    assert series(run, "loss").values.tolist() == [1.5, 1.2, 1.1]
    assert {s.name for s in run.series} == {"val_loss", "accuracy", "val_accuracy", "loss"}


_DEEPXDE_STAGE = """Compiling model...
'compile' took 0.000394 s

Training model...

Step      Train loss                Test loss                 Test metric
{rows}

Best model at step {best}:
  train loss: {best_train}
  test loss: {best_test}
  test metric: [{best_metric}]

'train' took 15.041861 s

"""


def test_deepxdes_training_table_sums_the_loss_terms_by_step(tmp_path):
    """DeepXDE prints a table of bracketed lists by position: a row's Step, its training loss terms, its test loss
    terms and its metrics. loss / val_loss are the sums of the terms (DeepXDE's own total), val_metric the metric, by
    the Step column; an L-BFGS stage after Adam prints its own header and its steps run on; a NaN term makes the sum
    NaN. The `Best model` summary repeats one row and is not read as a series of its own."""
    rows1 = ["0         [4.50e+01, 3.30e-02]      [4.76e+01, 3.30e-02]      [8.37e-01]",
             "250       [4.08e-01, 2.89e-06]      [4.43e-01, 2.89e-06]      [1.65e-02]",
             "500       [3.24e-02, 2.17e-07]      [3.72e-02, 2.17e-07]      [1.95e-03]"]
    rows2 = ["500       [3.24e-02, 2.17e-07]      [3.72e-02, 2.17e-07]      [1.95e-03]",   # (the stage's start: the same row)
             "550       [4.26e-05, nan]           [6.98e-05, 3.82e-11]      [3.16e-05]",
             "594       [5.66e-06, 3.62e-14]      [inf, 3.62e-14]           [nan]"]
    text = (_DEEPXDE_STAGE.format(rows="\n".join(rows1), best=500, best_train="3.24e-02", best_test="3.72e-02",
                                  best_metric="1.95e-03")
            + _DEEPXDE_STAGE.format(rows="\n".join(rows2), best=500, best_train="3.24e-02", best_test="3.72e-02",
                                    best_metric="1.95e-03") + "Final l2_error: 7.4843e-06\n")
    p = tmp_path / "train.log"
    p.write_text(text)
    run = read(p)
    loss, val, met = series(run, "loss"), series(run, "val_loss"), series(run, "val_metric")
    assert loss.steps.tolist() == val.steps.tolist() == met.steps.tolist() == [0, 250, 500, 550, 594]
    assert loss.locs.tolist() == met.locs.tolist() == [7, 8, 9, 25, 26]
    assert loss.values[[0, 1, 2, 4]].tolist() == [45 + 0.033, 0.408 + 2.89e-06, 0.0324 + 2.17e-07, 5.66e-06 + 3.62e-14]
    assert math.isnan(loss.values[3])
    assert val.values[:4].tolist() == [47.6 + 0.033, 0.443 + 2.89e-06, 0.0372 + 2.17e-07, 6.98e-05 + 3.82e-11]
    assert math.isinf(val.values[4])
    assert met.values[:4].tolist() == [0.837, 0.0165, 0.00195, 3.16e-05] and math.isnan(met.values[4])
    names = {s.name for s in run.series}
    assert names == {"loss", "val_loss", "val_metric", "l2_error"}    # no series of the summary's, none named step
    assert all(len(s) == 5 for s in run.series if s.name != "l2_error")


def test_deepxdes_table_without_metrics_and_with_several(tmp_path):
    """The metric column may be missing (or `[]`); several metrics give val_metric, val_metric_2, ... A header with
    one row under it (a post quoting it) is no curve."""
    p = tmp_path / "pinn.log"
    p.write_text("Step      Train loss                Test loss                 Test metric\n"
                 "0         [1.00e+00, 2.00e+00]      [3.00e+00, 4.00e+00]      []\n"
                 "100       [5.00e-01, 1.00e+00]      [1.50e+00, 2.00e+00]      []\n")
    run = read(p)
    assert series(run, "loss").values.tolist() == [3.0, 1.5] and series(run, "val_loss").values.tolist() == [7.0, 3.5]
    assert {s.name for s in run.series} == {"loss", "val_loss"}
    p.write_text("Step      Train loss      Test loss\n"
                 "0         [1.00e+00]      [2.00e+00]\n"
                 "10        [5.00e-01]      [1.00e+00]\n"
                 "\nStep      Train loss                          Test loss                           Test metric\n"
                 "20        [2.00e-01, 1.00e-02, 3.00e-03]      [2.50e-01, 1.00e-02, 3.00e-03]      [1.00e-01, 2.00e-01]\n"
                 "30        [1.00e-01, 1.00e-02, 3.00e-03]      [1.50e-01, 1.00e-02, 3.00e-03]      [5.00e-02, 1.00e-01]\n")
    run = read(p)
    assert series(run, "loss").steps.tolist() == [0, 10, 20, 30]
    assert series(run, "loss").values.tolist() == [1.0, 0.5, 0.2 + 0.01 + 0.003, 0.1 + 0.01 + 0.003]
    m1, m2 = series(run, "val_metric"), series(run, "val_metric_2")
    assert (m1.steps.tolist(), m1.values.tolist(), m1.locs.tolist()) == ([20, 30], [0.1, 0.05], [6, 7])
    assert m2.values.tolist() == [0.2, 0.1]
    p.write_text("Step      Train loss                Test loss                 Test metric\n"
                 "0         [1.00e+00, 2.00e+00]      [3.00e+00, 4.00e+00]      [5.00e-01]\n")
    assert not read(p).series


@pytest.mark.parametrize("block", [61, 97, 256])
def test_a_deepxde_table_and_a_flower_history_cut_by_blocks_read_as_whole(tmp_path, monkeypatch, block):
    """A big log is read a block at a time, cut at any line: a table's rows, its summary and a History section go
    on in the next block (the table or section open at a block's end is carried)."""
    rows = [f"{100 * i:<10}[{1 / (i + 1):.2e}, 1.00e-03]      [{2 / (i + 1):.2e}, 1.00e-03]      [{0.5 / (i + 1):.2e}]"
            for i in range(6)]
    p = tmp_path / "both.log"
    p.write_text(_DEEPXDE_STAGE.format(rows="\n".join(rows), best=500, best_train="1.67e-01", best_test="3.34e-01",
                                       best_metric="8.33e-02") + _HISTORY)
    whole = read(p)
    monkeypatch.setattr(textlog, "BLOCK_BYTES", block)
    cut = read(p)
    assert {s.name for s in whole.series} == {"loss", "val_loss", "val_metric", "val_loss_distributed", "accuracy",
                                              "val_accuracy_distributed", "val_accuracy", "val_f1"}
    def points(run):     # (values as text: NaN == NaN)
        return sorted((s.name, s.steps.tolist(), [repr(v) for v in s.values.tolist()], s.locs.tolist()) for s in run.series)
    assert points(cut) == points(whole)


# tool -> metric -> (steps, values): lines as Megatron-LM, mmdetection (mmcv), fairseq, timm and
# torchvision's reference scripts print them (tests/fixtures/text/styles/)
STYLES = {
    "megatron": {"loss": ([10, 20, 30], [7.1, 6.9, 6.5]), "loss_scale": ([10, 20, 30], [65536.0, 32768.0, 32768.0]),
                 "grad_norm": ([10, 20, 30], [3.215, 2.5, 2.125]), "lr": ([10, 20, 30], [1.5e-4] * 3)},
    # "Epoch [2][50/7330]": the per-epoch iteration counter is made global
    "mmcv": {"loss": ([50, 100, 7380], [1.2345, 1.1, 0.9]), "data_time": ([50, 100, 7380], [0.021] * 3),
             "memory": ([50, 100, 7380], [3000.0] * 3), "grad_norm": ([50, 100, 7380], [10.5] * 3)},
    "fairseq": {"loss": ([100, 200, 300], [9.123, 8.5, 8.25]), "grad_norm": ([100, 200, 300], [2.1] * 3),
                "lr": ([100, 200, 300], [1.25e-05] * 3)},
    "timm": {"loss": ([50, 100, 150], [6.912, 6.8, 6.7]), "lr": ([50, 100, 150], [1e-4] * 3),
             "step_time": ([50, 100, 150], [0.512] * 3), "data_time": ([50, 100, 150], [0.012] * 3)},
    "torchvision": {"loss": ([100, 200, 300], [6.9012, 6.8, 6.75]), "accuracy": ([100, 200, 300], [0.125] * 3),
                    "lr": ([100, 200, 300], [0.1] * 3)},
}


@pytest.mark.parametrize("tool", sorted(STYLES))
def test_other_peoples_styles(tool):
    run = read(FIX / "styles" / f"{tool}.log")
    for name, (steps, values) in STYLES[tool].items():
        s = series(run, name)
        assert (s.steps.tolist(), s.values.tolist()) == (steps, values), name
    # nothing named after a time, a version, an id or a setting
    names = {s.name for s in run.series}
    assert not names & {"eta", "version", "pid", "cuda", "port", "date", "size", "python", "pytorch"}


def test_units_percent_and_number_forms(tmp_path):
    p = tmp_path / "units.log"
    p.write_text(
        "step 1 acc: 45% time: 12.3ms thr=1.2s/it mem=3.2GB loss=1e-3 gnorm=-inf\n"
        "step 2 acc: 46.5% time: 12.1ms thr=1.1s/it mem=3.3GB loss=NaN gnorm=Infinity\n"
        "step 3 acc: 47% time: 11.0ms thr=1.0s/it mem=3.3GB loss='nan' gnorm=+2.5E+02\n")
    run = read(p)
    assert series(run, "accuracy").values.tolist() == [45, 46.5, 47]
    assert series(run, "step_time").values.tolist() == [12.3, 12.1, 11.0]
    assert series(run, "memory").values.tolist() == [3.2, 3.3, 3.3]
    loss = series(run, "loss").values
    assert loss[0] == 1e-3 and np.isnan(loss[1:]).all()
    assert series(run, "grad_norm").values.tolist() == [-math.inf, math.inf, 250.0]


def test_long_keys_and_tensor_reprs(tmp_path):
    p = tmp_path / "long.log"
    p.write_text(
        "it 1 train/grad_norm/encoder.layer.11.attention: 0.000123456789 loss=tensor(2.3100, device='cuda:0')\n"
        "it 2 train/grad_norm/encoder.layer.11.attention: 0.000023456789 loss=tensor(nan, device='cuda:0')\n"
        "{'loss': np.float64(0.5), 'acc1': np.float32(0.25), 'it': 3}\n")
    run = read(p)
    g = series(run, "grad_norm/encoder.layer.11.attention")
    assert g.values.tolist() == [0.000123456789, 0.000023456789]
    loss = series(run, "loss")
    assert loss.steps.tolist() == [1, 2, 3] and loss.values[0] == 2.31 and math.isnan(loss.values[1])


def test_no_metrics_from_prose_and_identifiers(tmp_path):
    p = tmp_path / "noise.log"
    p.write_text("\n".join(NOISE * 3) + "\nThe loss went up 3 times. Epoch took 12:03.\n")
    run = read(p)
    assert run.series == []
    assert run.texts[0].n_lines == 16


def test_bad_input(tmp_path):
    (tmp_path / "empty.log").write_bytes(b"")
    (tmp_path / "weights.bin").write_bytes(bytes(range(256)) * 64)
    (tmp_path / "latin1.log").write_bytes("step 1 loss=0.5\nÉpoque terminée\nstep 2 loss=0.4\n".encode("latin-1"))
    with gzip.open(tmp_path / "old.log.gz", "wt") as f:
        f.write("".join(f"step {i} loss={1 / (i + 1):.3f}\n" for i in range(5)))
    huge = "x=" + "1" * (5 * 1024 * 1024)
    (tmp_path / "huge.log").write_text(f"step 1 loss=0.5\n{huge}\nstep 2 loss=0.25\n")
    run = ingest([tmp_path])
    w = run.warnings
    assert "empty.log: empty file" in w
    assert "weights.bin: binary file, skipped" in w
    assert "latin1.log:2: not valid UTF-8; undecodable bytes replaced" in w
    assert any(x.startswith("huge.log:2: 1 line(s) longer than 100 KB") for x in w)
    assert all("\n" not in x for x in w)
    by_src = {s.source: s for s in run.series}
    assert by_src["latin1.log"].values.tolist() == [0.5, 0.4]
    assert by_src["latin1.log"].locs.tolist() == [1, 3]
    assert by_src["old.log.gz"].values.tolist() == [1.0, 0.5, 0.333, 0.25, 0.2]
    assert by_src["huge.log"].values.tolist() == [0.5, 0.25] and by_src["huge.log"].locs.tolist() == [1, 3]


def test_text_kinds(tmp_path):
    files = {
        "train.py": "import torch\nloss = 0.5\n",
        "run.sh": "python train.py --lr 1e-3\n",
        "config.yaml": "lr: 0.001\nbatch_size: 32\n",
        "hparams": "lr: 0.001\nbatch_size: 32\noptimizer: adam\n",
        "args": '{"lr": 0.001, "epochs": 3}',
        "README.md": "# Run\nCUDA out of memory fixed\n",
        "stdout": "loss: 0.5\nloss: 0.4\nloss: 0.3\n",
        "slurm-1234.out": "step 1 loss=0.5\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    run = ingest([tmp_path])
    kinds = {t.path: t.kind for t in run.texts}
    assert kinds == {"train.py": "code", "run.sh": "code", "config.yaml": "config", "hparams": "config",
                     "args": "config", "README.md": "text", "stdout": "log", "slurm-1234.out": "log"}
    # only logs are mined for metrics (a log of one line keeps its one point)
    assert {s.source for s in run.series} == {"stdout", "slurm-1234.out"}
    assert next(s for s in run.series if s.source == "stdout").step_is_index


def test_line_access_matches_locs(tmp_path):
    p = tmp_path / "mixed.log"
    p.write_text("héllo wörld\r\nstep 7 loss=0.7\r\n\r\nstep 8 loss=0.6\r\n")
    run = read(p)
    s, art = series(run, "loss"), run.texts[0]
    assert [art.line(n) for n in s.locs] == ["step 7 loss=0.7", "step 8 loss=0.6"]


def test_whitespace_tables_fastai_and_pandas(tmp_path):
    """fastai prints a padded per-epoch table (its metrics, `accuracy` here, are the validation set's);
    a printed pandas DataFrame adds its index column."""
    import pandas as pd
    p = tmp_path / "train.log"
    hist = pd.DataFrame({"epoch": [0, 1, 2], "train_loss": [0.435641, 0.237202, 0.171016],
                         "valid_loss": [0.352603, 0.260322, 0.383311], "accuracy": [0.95, 0.9375, 0.9575],
                         "time": ["00:01", "00:02", "00:01"]})
    fastai = "epoch     train_loss  valid_loss  accuracy  time    \n" + "".join(
        f"{r.epoch:<10d}{r.train_loss:<12.6f}{r.valid_loss:<12.6f}{r.accuracy:<10.6f}{r.time:<10s}\n"
        for r in hist.itertuples())
    p.write_text("model: 333190 parameters\n" + fastai + "Better model found at epoch 1\n"
                 + hist.drop(columns="time").to_string() + "\n")
    run = read(p)
    fa = [s for s in run.series if s.locs[0] == 3]
    assert {s.name for s in fa} == {"loss", "val_loss", "val_accuracy"}
    vl = next(s for s in fa if s.name == "val_loss")
    assert vl.steps.tolist() == [0, 1, 2] and vl.values.tolist() == [0.352603, 0.260322, 0.383311]
    assert vl.locs.tolist() == [3, 4, 5]
    pdl = [s for s in run.series if s.locs[0] == 8 and s.name == "loss"]
    assert pdl and pdl[0].values.tolist() == [0.435641, 0.237202, 0.171016]


def test_a_table_with_a_rule_of_dashes_under_its_header(tmp_path):
    """skorch (and tabulate's "simple" format) print a run of dashes per column under the header: a rule, not the
    end of the table."""
    p = tmp_path / "train.log"
    p.write_text("  epoch    train_loss    valid_acc    valid_loss     dur\n"
                 "-------  ------------  -----------  ------------  ------\n"
                 "      1       43.3391       0.6800       10.1882  0.0552\n"
                 "      2       16.9783       0.7550        3.5820  0.0493\n"
                 "      3       17.1124       0.6683       14.2340  0.0496\n")
    run = read(p)
    vl = series(run, "val_loss")
    assert vl.steps.tolist() == [1, 2, 3] and vl.values.tolist() == [10.1882, 3.582, 14.234] and vl.locs.tolist() == [3, 4, 5]
    assert series(run, "loss").values.tolist() == [43.3391, 16.9783, 17.1124]
    # a row of dashes after rows have been read ends the table, as any line that is not a row
    p.write_text(p.read_text() + "-------  ------------\n      4       12.5344       0.6733       22.7174  0.0485\n")
    assert series(read(p), "val_loss").values.tolist() == [10.1882, 3.582, 14.234]


def test_a_table_whose_header_is_one_space_apart_when_its_step_column_leads(tmp_path):
    """fastai 0.7 printed `epoch trn_loss val_loss accuracy` with single spaces; prose led by
    "epoch" with lines that are not rows of as many numbers is no table."""
    p = tmp_path / "train.log"
    p.write_text("epoch trn_loss val_loss accuracy\n0 0.465021 0.354633 0.915533\n1 0.413693 0.325593 0.923896\n"
                 "2 0.71977 0.759003 0.737836\n// I stopped execution here\n")
    run = read(p)
    vl = series(run, "val_loss")
    assert vl.steps.tolist() == [0, 1, 2] and vl.values.tolist() == [0.354633, 0.325593, 0.759003]
    assert vl.locs.tolist() == [2, 3, 4] and series(run, "loss").raw_name == "trn_loss"
    assert series(run, "val_accuracy").raw_name == "accuracy"     # fastai's metrics: the validation set's
    prose = tmp_path / "notes.log"
    prose.write_text("epoch after epoch the loss stays high\n3 of them diverged early\nepoch 4 was fine\n")
    assert not [s for s in read(prose).series if s.name in ("loss", "after", "the")]
    unled = tmp_path / "u.log"
    unled.write_text("trn_loss val_loss accuracy\n0.465021 0.354633 0.915533\n0.413693 0.325593 0.923896\n")
    assert read(unled).series == []


def test_full_width_separators_of_cjk_posts(tmp_path):
    """`loss：2.30，acc：0.11` (full-width colon and comma, as Chinese posts print them) reads as
    `loss: 2.30, acc: 0.11`; lines and quotes are those of the file as written."""
    p = tmp_path / "train.log"
    p.write_text("训练开始\nepoch：1，loss：2.3012，acc：0.11，lr＝0.01\nepoch：2，loss：1.9012，acc：0.31，lr＝0.01\n"
                 "epoch：3，loss：nan，lr＝0.01\n", encoding="utf-8")
    run = read(p)
    loss = series(run, "loss")
    assert loss.steps.tolist() == [1, 2, 3] and loss.values[:2].tolist() == [2.3012, 1.9012]
    assert math.isnan(loss.values[2]) and loss.locs.tolist() == [2, 3, 4]
    assert series(run, "accuracy").values.tolist() == [0.11, 0.31] and series(run, "lr").values.tolist() == [0.01] * 3
    assert run.texts[0].line(4) == "epoch：3，loss：nan，lr＝0.01"


def test_delimited_tables_as_pasted_from_a_notebook(tmp_path):
    """HF Trainer's per-epoch table pasted as markdown (headers of several words, the |---| rule)
    and as tab-separated cells; YOLOv5's whitespace table led by Epoch with `0/299` counters."""
    md = tmp_path / "output.txt"
    md.write_text("Training finished.\n| Epoch | Training Loss | Validation Loss | Accuracy |\n|---|---|---|---|\n"
                  "| 1 | 0.693400 | 0.693147 | 0.500000 |\n| 2 | 0.693200 | 0.693150 | 0.500000 |\n"
                  "| 3 | nan | nan | 0.500000 |\nTrainOutput(global_step=3)\n")
    run = read(md)
    loss, acc = series(run, "loss"), series(run, "val_accuracy")     # (the Trainer's metrics are the eval set's)
    assert loss.raw_name == "Training Loss" and loss.steps.tolist() == [1, 2, 3] and loss.locs.tolist() == [4, 5, 6]
    assert loss.values[:2].tolist() == [0.6934, 0.6932] and math.isnan(loss.values[2])
    assert acc.values.tolist() == [0.5, 0.5, 0.5] and series(run, "val_loss").raw_name == "Validation Loss"
    tsv = tmp_path / "cells.log"
    tsv.write_text("Epoch\tTraining Loss\tValidation Loss\n1\t0.90\t1.00\n2\t0.80\t0.95\n")
    vl = series(read(tsv), "val_loss")
    assert vl.steps.tolist() == [1, 2] and vl.values.tolist() == [1.0, 0.95] and vl.locs.tolist() == [2, 3]
    yolo = tmp_path / "train.log"
    yolo.write_text("      Epoch   gpu_mem       box       obj       cls    labels  img_size\n"
                    "     0/299     3.5G    0.1092   0.06960   0.04020        23       640\n"
                    "     1/299     3.5G    0.1042   0.06900   0.04000        23       640\n"
                    "     2/299     3.5G       nan       nan       nan        23       640\n")
    run = read(yolo)
    box = series(run, "box")
    assert box.steps.tolist() == [0, 1, 2] and box.values[:2].tolist() == [0.1092, 0.1042] and math.isnan(box.values[2])
    assert "gpu_mem" not in {s.raw_name for s in run.series}      # "3.5G" is not a number


def test_yolo_tables_with_their_header_before_each_epoch_and_a_progress_bar_on_each_row(tmp_path):
    """YOLOv5/v8 print the table's header before each epoch's row, end the row with its tqdm bar
    ("640: 100%|###| 8/8 [...]") and, in a saved log, rewrite it in place with \\r; the validation
    lines between are another table. Rows under one header are one table: every epoch is a point,
    the NaN is cited at its epoch and line."""
    rows = []
    for e in range(1, 6):
        box = "nan" if e == 4 else f"{2.0 - 0.1 * e:.4f}"
        bar = "\r".join(f"     {e}/100      2.61G      {box}      1.234      1.456         45        640:  {p}%|#    | "
                        f"{p // 10}/10 [00:02<00:00,  3.21it/s]" for p in (0, 100))
        rows += ["", "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size", bar,
                 "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100%|###| 4/4",
                 f"                   all        128        929      0.{e}      0.5      0.4      0.3"]
    p = tmp_path / "train.log"
    p.write_text("\n".join(rows) + "\n")
    run = read(p)
    box = series(run, "box_loss")
    assert box.steps.tolist() == [1, 2, 3, 4, 5] and box.locs.tolist() == [3, 8, 13, 18, 23]
    assert box.values[:3].tolist() == [1.9, 1.8, 1.7] and math.isnan(box.values[3]) and box.values[4] == 1.5
    assert run.texts[0].line(18).startswith("     4/100")
    # two tables under different headers stay apart, each with its own rows
    q = tmp_path / "two.log"
    q.write_text("epoch  train_loss  valid_loss\n1  0.9  1.0\n2  0.8  0.9\nsummary\n"
                 "epoch  train_loss  accuracy\n1  0.5  0.7\n2  0.4  0.8\n")
    assert sorted(len(s) for s in read(q).series if s.name == "loss") == [2, 2]


def test_darknets_training_line_with_each_value_before_its_name(tmp_path):
    """Darknet prints ` 1234: 5.61, 5.70 avg loss, 0.001 rate, 2.3 seconds, 64 images`: iteration,
    the batch's loss, the running average, the lr. Its NaN prints as `-nan`; the Region lines between
    are left to the scanner. One such line in prose is no curve."""
    lines = ["Loading weights from darknet53.conv.74...Done!", "Learning Rate: 0.001, Momentum: 0.9, Decay: 0.0005"]
    for i in range(1, 7):
        loss = "-nan" if i >= 5 else f"{10.0 - i:.6f}"
        lines += [f"Region 82 Avg IOU: 0.{i}, Class: 0.5, Obj: 0.4, No Obj: 0.005, .5R: 0.5, .75R: 0.1,  count: 8",
                  f" {i}: {loss}, {loss} avg loss, 0.001000 rate, 2.345678 seconds, {i * 64} images, 5.1 hours left"]
    p = tmp_path / "train.log"
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    loss, avg, lr = series(run, "loss"), series(run, "avg_loss"), series(run, "lr")
    assert loss.steps.tolist() == list(range(1, 7)) and loss.locs.tolist() == [4, 6, 8, 10, 12, 14]
    assert loss.values[:4].tolist() == [9.0, 8.0, 7.0, 6.0] and np.isnan(loss.values[4:]).all()
    assert avg.raw_name == "avg loss" and lr.values.tolist() == [0.001] * 6
    assert run.texts[0].line(12).startswith(" 5: -nan")
    q = tmp_path / "post.txt"
    q.write_text("My log ended with 1200: 0.52, 0.61 avg loss, 0.001 rate and then nothing.\n")
    assert not [s for s in read(q).series if s.name == "avg_loss"]


def test_darknet_lines_are_found_at_the_edges_of_a_block():
    """The trigger search (numpy on the byte 'v') finds a line at offset 0, one that ends the block
    without a newline, and tries a line with two triggers once; text with no trigger costs no regex."""
    from mltdbg.analyzers.readers.textlog.darknet import _trigger_at, scan_darknet
    first = b" 1: 5.5, 5.5 avg loss, 0.001 rate, 1.0 seconds, 64 images\n"
    twice = b" 2: 5.4, 5.45 avg loss, 0.001 rate, note: avg of avg\n"
    last = b" 3: 5.3, 5.4 avg loss, 0.001 rate"
    data = first + b"x avg\n" + twice + last
    nl = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
    rows = scan_darknet(data, nl, 10)
    assert [(r[0], r[2], r[4]) for r in rows] == [(1, 5.5, 11), (2, 5.45, 13), (3, 5.4, 14)]
    want, at = [], data.find(b" avg")
    while at >= 0:
        want.append(at)
        at = data.find(b" avg", at + 1)
    assert _trigger_at(data) == want and _trigger_at(b" av") == [] and _trigger_at(b" avg") == [0]
    assert _trigger_at(b"loss 0.5 lr 0.1\n" * 100) == []


def test_a_comparison_table_is_no_curve_and_an_empty_tab_cell_is_a_cell(tmp_path):
    p = tmp_path / "results.log"
    p.write_text("| Model | Loss | Accuracy |\n|---|---|---|\n| resnet18 | 0.52 | 0.91 |\n| resnet50 | 0.91 | 0.88 |\n"
                 "| vit | 2.3 | 0.10 |\n")
    assert read(p).series == []
    q = tmp_path / "cells.log"
    q.write_text("Epoch\tTraining Loss\tValidation Loss\n1\t0.90\t\n2\t0.80\t0.95\n3\t0.70\t\n")
    assert series(read(q), "loss").values.tolist() == [0.9, 0.8, 0.7]


def test_a_pipe_in_a_log_line_is_not_a_table(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("epoch 1 | loss 0.5 | acc 0.7\nepoch 2 | loss 0.4 | acc 0.8\nepoch 3 | loss 0.3 | acc 0.85\n")
    loss = series(read(p), "loss")
    assert loss.steps.tolist() == [1, 2, 3] and loss.values.tolist() == [0.5, 0.4, 0.3]
    assert {s.raw_name for s in read(p).series} <= {"loss", "acc", "epoch"}


def test_data_csv_is_text_not_metrics(tmp_path):
    (tmp_path / "train.csv").write_text("f0,f1,label\n0.5,1.5,1\n,2.0,0\n0.1,0.2,1\n")
    run = ingest([tmp_path])
    assert run.series == [] and [(t.path, t.kind) for t in run.texts] == [("train.csv", "text")]


def test_metrics_at_the_very_start_and_end_of_a_file(tmp_path):
    p = tmp_path / "edges.log"
    p.write_text("loss=0.5 step=1\n" + "noise line without numbers\n" * 50 + "step=9 loss=0.25")
    loss = series(read(p), "loss")
    assert loss.steps.tolist() == [1, 9] and loss.values.tolist() == [0.5, 0.25] and loss.locs.tolist() == [1, 52]


def test_byte_windows_near_the_ends_match_a_plain_loop():
    rng = np.random.default_rng(1)
    for nb in (3, 20, 40, 100, 1000):
        b = rng.integers(0, 255, nb, dtype=np.uint8)
        for back, fwd in ((16, 16), (64, 48), (0, 16)):
            got = byte_windows(b, np.arange(nb), back, fwd)
            ref = np.zeros((nb, back + fwd), np.uint8)
            for p in range(nb):
                for j in range(back + fwd):
                    if 0 <= p - back + j < nb:
                        ref[p, j] = b[p - back + j]
            assert (got == ref).all(), (nb, back, fwd)


# ---- print styles kept apart, counters mapped to global steps, big logs read a block at a time

def test_three_styles_of_one_loss_stay_apart(tmp_path):
    """A logging line, an HF dict and a tqdm bar all print `loss`: one series per style, each on
    the global step axis (the bar's per-epoch counter mapped), none named after tqdm's desc."""
    p = tmp_path / "mixed.log"
    out = []
    for i in range(60):
        k = i % 20 + 1
        out.append(f"\rTraining: {k * 5:3d}%|####      | {k}/20 [00:01<00:02, 9.1it/s, loss={3.0 - i * 0.01:.3f}]")
        if (i + 1) % 5 == 0:
            out.append(f"\r2024-05-01 12:00:00,000 - INFO - trainer - step {i + 1} | loss={2.0 - i * 0.01:.4f}\n")
        if (i + 1) % 10 == 0:
            out.append(f"\r{{'loss': {1.0 - i * 0.01:.4f}, 'epoch': {(i + 1) / 20:.2f}}}\n")
        if k == 20:
            out.append("\n")
    p.write_text("".join(out))
    run = read(p)
    losses = sorted((s for s in run.series if s.name == "loss"), key=len)
    assert [len(s) for s in losses] == [6, 12, 60]
    hf, logged, bar = losses
    assert bar.steps.tolist() == list(range(1, 61))                 # 3 passes of 20 -> steps 1..60
    assert logged.steps.tolist() == list(range(5, 61, 5)) and logged.values[0] == 2.0 - 0.04
    assert hf.steps.tolist() == list(range(10, 61, 10)) and hf.values[0] == pytest.approx(1.0 - 0.09)
    assert "training" not in {s.name for s in run.series}


def test_a_counter_that_goes_back_early_is_a_restart_not_a_pass(tmp_path):
    """Passes over a loop map to global steps only when every return to the start came after
    the counter reached (nearly) its total; one that went back early is a restart, and then the
    counter is left as printed (the analyzers see the step going back)."""
    def steps(counts):
        p = tmp_path / "bar.log"
        p.write_text("".join(f"\r{k}/100 [00:01, loss={k / 100:.2f}]" for n in counts for k in range(1, n + 1)) + "\n")
        return series(read(p), "loss").steps.tolist()
    assert steps([100, 100, 30]) == list(range(1, 231))
    assert steps([100, 40, 30]) == list(range(1, 101)) + list(range(1, 41)) + list(range(1, 31))


def test_keras_epoch_of_redraws_longer_than_a_metric_line(tmp_path):
    """A terminal capture of fit(): one '\\n' line per epoch holds every '\\r' redraw (here 160 KB)."""
    p = tmp_path / "keras.log"
    rows = ["Epoch 1/1\n"] + [f"\r{k:4d}/1875 [{'=' * (k * 30 // 1875):<30}] - ETA: 5s - loss: {2 - k / 1875:.4f}"
                              for k in range(1, 1876)] + [" - val_loss: 0.9000\n"]
    p.write_text("".join(rows))
    assert len(rows[1]) * 1875 > 100 * 1024
    run = read(p)
    loss = series(run, "loss")
    assert len(loss) == 1875 and loss.steps[-1] == 1875 and run.warnings == []


def test_big_log_reads_every_line_keeps_a_sparse_text(tmp_path):
    """A log over SPARSE_TEXT_BYTES: every metric read (block by block), the text keeps the
    head, the tail and the lines the text analyzers want, every line at its own number; a
    blanked line still quotes from the file."""
    from mltdbg.analyzers.readers.textlog.sparse import SPARSE_TEXT_BYTES, SparseText
    p = tmp_path / "big.log"
    n = SPARSE_TEXT_BYTES // 28 + 100_000
    mid = n // 2
    with open(p, "w") as f:
        for i in range(n):
            if i == mid:
                f.write("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                        "RuntimeError: CUDA error: an illegal memory access was encountered\n")
            f.write(f"step={i} loss={'nan' if i == mid + 10 else f'{1 + i % 7 / 10:.4f}'} lr=0.001\n")
    run = read(p)
    art = run.texts[0]
    assert isinstance(art, SparseText) and art.kind == "log"
    assert len(art.text) < p.stat().st_size / 5
    # the count is of every kept line (head and tail included), and is said so
    assert any("MB log: metrics read from every line" in w and f"({art.kept_lines:,} lines kept in all)" in w
               for w in run.warnings)
    lines = p.read_text().split("\n")
    assert art.n_lines == len(lines) - 1
    tb = lines.index("Traceback (most recent call last):") + 1
    for k in (1, 2, tb, tb + 2, len(lines) - 1):            # head, traceback, tail: kept as written
        assert art.line(k) == lines[k - 1]
    far = tb + 50_000
    assert art.text.split("\n")[far - 1] == "" and art.line(far) == lines[far - 1]   # read back from disk
    loss = series(run, "loss")
    assert len(loss) == n and loss.locs[-1] == len(lines) - 1
    bad = np.flatnonzero(np.isnan(loss.values))
    assert loss.steps[bad].tolist() == [mid + 10] and art.line(int(loss.locs[bad[0]])).startswith(f"step={mid + 10} loss=nan")


def test_word_finder_matches_a_plain_search():
    from mltdbg.analyzers.readers.textlog.sparse import MID_WORDS, WordFinder
    rng = np.random.default_rng(3)
    words = list(MID_WORDS)
    parts = []
    for _ in range(3000):
        parts.append(bytes(rng.integers(32, 127, rng.integers(0, 40), dtype=np.uint8)))
        if rng.random() < 0.3:
            parts.append(words[rng.integers(len(words))])
    data = b"".join(parts)
    for offset in (0, 1):   # odd and even alignments
        d = data[offset:]
        got = WordFinder(d).find(d)
        for w, at in zip(MID_WORDS, got):
            ref, i = [], d.find(w)
            while i >= 0:
                ref.append(i)
                i = d.find(w, i + 1)
            assert at.tolist() == ref, w


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_sparse_texts_compact_line_index_answers_as_the_full_one(seed, monkeypatch, tmp_path):
    """SparseText keeps offsets for its lines with text only; every line lookup (line_of,
    lines_of, start_of, line, n_lines, text_line_starts) gives what a full index of the same text
    gives: ASCII and not, lines that run across the pieces it is read in, a text that ends with
    and without a newline, a blank first line."""
    from mltdbg.analyzers.model import TextArtifact
    from mltdbg.analyzers.readers.textlog import sparse as sp
    monkeypatch.setattr(sp, "STARTS_PIECE", 7)
    rng = np.random.default_rng(seed)
    for case in range(40):
        lines = []
        for _ in range(int(rng.integers(1, 60))):
            r = rng.random()
            lines.append("" if r < 0.6 else ("é" * int(rng.integers(1, 4)) if seed == 2 and r < 0.7
                                            else "x" * int(rng.integers(1, 20))))
        text = "\n".join(lines) + ("\n" if case % 2 else "")
        full = TextArtifact(path="a.log", abspath=tmp_path / "a.log", kind="log", text=text)
        art = sp.SparseText(path="a.log", abspath=tmp_path / "a.log", kind="log", text=text, gz=True)
        art.set_index(*sp.compact_starts(text.encode(), text))
        assert art.n_lines == full.n_lines
        offs = np.arange(len(text) + 2)
        assert art.lines_of(offs).tolist() == full.lines_of(offs).tolist()
        assert [art.line_of(int(o)) for o in offs] == [full.line_of(int(o)) for o in offs]
        for n in range(0, len(full.line_starts) + 2):
            assert art.start_of(n) == full.start_of(n) and art.line(n) == full.line(n)
        starts = full.text_line_starts()
        with_text = [int(s) for s in starts if s < len(text) and text[s] != "\n"]
        assert art.text_line_starts().tolist() == with_text
        assert art.line_starts.tolist() == full.line_starts.tolist()


def test_per_layer_rows_with_a_label_between_name_and_number(tmp_path):
    """`  layers.0.weight grad_norm: 1.00e-09` under each epoch line: one grad_norm/<layer> series per
    layer, the first table included ("grad" is in its rows, not above it), and no 'grad_norm' curve
    over the rows (read as steps it grew 1e-9 -> 3e-2 'every epoch': exploding gradients)."""
    p = tmp_path / "train.log"
    lines = []
    for e in range(1, 4):
        lines.append(f"Epoch {e}: loss=0.6931")
        lines += [f"  layers.{i}.weight grad_norm: {10 ** (-(6 - i) * 1.5):.2e}" for i in range(4)]
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    names = [s.name for s in run.series]
    assert "grad_norm" not in names and "grad_norm/layers.0.weight" in names
    l0 = series(run, "grad_norm/layers.0.weight")
    assert l0.steps.tolist() == [0, 1, 2] and l0.locs.tolist() == [2, 7, 12]


def test_per_layer_rows_named_by_a_sequentials_index(tmp_path):
    """An nn.Sequential's parameters are named by index ("0.weight", "12.bias"): such rows are a
    per-layer table too. Read as key=value lines they made one 'grad_norm' curve that rose from
    2e-13 to 3e-3 over the table's rows (exploding gradients, or missing zero_grad)."""
    p = tmp_path / "ausgabe.txt"
    lines = ["Epoche  1/20 - train_loss: 0.6932 - val_loss: 0.6932", "", "Gradientennormen (nach Epoche 1):"]
    lines += [f"  {i}.weight   grad_norm = {10 ** (-13 + i / 2):.3e}" for i in range(0, 20, 2)]
    lines += ["", "Epoche  2/20 - train_loss: 0.6932 - val_loss: 0.6931", "1.5 seconds"]
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    names = [s.name for s in run.series]
    assert "grad_norm" not in names and "grad_norm/0.weight" in names and "grad_norm/18.weight" in names
    assert series(run, "grad_norm/0.weight").values.tolist() == [1e-13]
    assert series(run, "loss").values.tolist() == [0.6932, 0.6932]


def test_the_dcgan_tutorials_epoch_and_batch_brackets_make_a_global_step(tmp_path):
    """"[1/25][50/1583]\tLoss_D: ..." (the PyTorch DCGAN tutorial's line, and the GAN scripts made from
    it): the first bracket is the epoch, the second the batch of the epoch. Read as one counter, every
    line of an epoch sat at one step (the epoch's number)."""
    p = tmp_path / "train_log.txt"
    lines = ["Starting Training Loop..."]
    for e in range(3):
        lines += [f"[{e}/25][{b}/1583]\tLoss_D: {0.5 + 0.01 * b / 50:.4f}\tLoss_G: {2.0 - e * 0.1:.4f}\t"
                  f"D(x): 0.8\tD(G(z)): 0.2 / 0.1" for b in range(0, 1583, 500)]
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    d = series(run, "loss_d")
    assert d.steps.tolist() == [e * 1583 + b for e in range(3) for b in range(0, 1583, 500)]
    assert series(run, "loss_g").values.tolist()[-1] == 1.8


def test_a_keras_evaluate_bar_after_training_is_held_out_not_a_training_point(tmp_path):
    """Keras' fit() bars (35/35, with val_ keys) then model.evaluate()'s bar (9/9, no val_ key): the
    last is the held-out set's loss and accuracy, not a training point (read as one it was a spike of
    the training loss at the end, from 0.0003 to 2.11). Keras 3's bars are read alike."""
    for bar in ("[==============================] -", "\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501"):
        lines = []
        for e in range(1, 11):
            lines += [f"Epoch {e}/10", f"35/35 {bar} 6s 176ms/step - loss: {0.7 / e:.4f} - accuracy: 0.9 - "
                                       f"val_loss: {0.5 + e / 10:.4f} - val_accuracy: 0.75"]
        lines.append(f"9/9 {bar} 1s 98ms/step - loss: 2.1104 - accuracy: 0.6929")
        p = tmp_path / "log.txt"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        run = read(p)
        assert series(run, "loss").values.tolist()[-1] == 0.07
        assert [s.values.tolist() for s in run.series if s.name == "val_loss" and len(s) == 1] == [[2.1104]]


def test_an_epochs_last_bar_only_still_makes_a_global_step(tmp_path):
    """Lightning's bars: epoch 0 shown at 12 %, 25 %, ... 100 % (4800/40000 ... 40000/40000), later epochs
    only at 100 %: the counter stays at 40000 as the epoch moves on; each epoch's bar sits at
    epoch * 40000 + its counter (every later epoch had sat at step 40000)."""
    p = tmp_path / "log.txt"
    lines = [f"Epoch 0:  {100 * n // 40000}%|#   | {n}/40000 [00:31<03:49, 153.2it/s, v_num=7, train_loss_step={0.5 + n / 1e5:.4f}]"
             for n in (4800, 10000, 20000, 40000)]
    lines += [f"Epoch {e}: 100%|##########| 40000/40000 [04:20<00:00, 153.4it/s, v_num=7, train_loss_step=0.{e}471, "
              f"val_loss=1.{e}, val_acc=0.4{e}]" for e in range(1, 4)]
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    assert series(run, "loss").steps.tolist() == [4800, 10000, 20000, 40000, 80000, 120000, 160000]
    assert series(run, "val_loss").steps.tolist() == [80000, 120000, 160000]


def test_an_epochs_bar_with_its_validation_bar_in_between_still_makes_a_global_step(tmp_path):
    """Lightning prints the validation bar (9 batches) after each epoch's training bar (68): the training
    bar's counter still restarts with every epoch and sits at epoch * 68 + its counter; the eval bar's
    own counter does not stop it."""
    p = tmp_path / "train.log"
    lines = []
    for e in range(4):
        lines += [f"Epoch {e}:  50%|#####     | 34/68 [00:11<00:13,  2.77it/s, v_num=3, train_loss_step={1.5 - 0.1 * e:.4f}]",
                  f"Epoch {e}: 100%|##########| 68/68 [00:26<00:00,  2.75it/s, v_num=3, train_loss_step={1.4 - 0.1 * e:.4f}, "
                  f"val_loss=0.9{e}, train_loss_epoch={1.45 - 0.1 * e:.4f}]",
                  "Validation DataLoader 0: 100%|##########| 9/9 [00:01<00:00,  6.41it/s]"]
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    assert [s.steps.tolist() for s in run.series if s.name == "loss"][0] == [34, 68, 102, 136, 170, 204, 238, 272]
    assert series(run, "val_loss").steps.tolist() == [68, 136, 204, 272]


def test_lightnings_version_number_is_no_metric(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("".join(f"Epoch {e}: 100%|##########| 100/100 [00:05<00:00, 19.6it/s, loss=0.{9 - e}, v_num=3, val_acc=0.{5 + e}]\n"
                         for e in range(4)))
    assert sorted(s.name for s in read(p).series) == ["epoch", "loss", "val_accuracy"]


def test_per_layer_rows_with_two_separators_are_read_and_key_value_lines_are_not(tmp_path):
    """The row test's pre-filter (at most two '=' or ':' on a row's line) keeps the label form
    `name: grad norm = value` and `name | value`; a `step=.. loss=.. grad_norm=..` line beside them
    stays a metric line."""
    p = tmp_path / "grads.log"
    p.write_text("step=1 loss=2.0 grad_norm=1.5 lr=0.001\n"
                 "conv1.weight: grad norm = 1e-08\nconv2.weight: grad norm = 2e-08\n"
                 "step=2 loss=1.9 grad_norm=1.4 lr=0.001\n"
                 "fc1.bias | 0.5\nfc2.bias | 0.25\n"
                 "step=3 loss=1.8 grad_norm=1.3 lr=0.001\n")
    run = read(p)
    assert series(run, "grad_norm/conv1.weight").values.tolist() == [1e-08]
    assert series(run, "grad_norm/fc2.bias").values.tolist() == [0.25]
    assert series(run, "loss").values.tolist() == [2.0, 1.9, 1.8]


def test_a_reused_heap_serves_big_temporaries_without_fresh_pages():
    """Within reused_heap, arrays above glibc's own mmap ceiling (32 MB) come from the heap: freeing
    and allocating them again costs no new page faults (outside, each one is a fresh mapping whose
    every 4 KB page faults in). Measured in a fresh interpreter: what this process read before
    leaves its heap in any state. Where there is no glibc it changes nothing (skipped)."""
    from mltdbg.analyzers.readers.textlog import arrays
    if arrays._MALLOPT is None:
        pytest.skip("no glibc mallopt here")
    script = """
import resource
from contextlib import nullcontext
import numpy as np
from mltdbg.analyzers.readers.textlog import arrays

def faults(ctx):
    with arrays.small_pages(), ctx:             # 4 KB pages, as the reader uses
        np.ones(6_000_000)                      # 48 MB: over the dynamic threshold's ceiling
        r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(8):
            a = np.ones(6_000_000)
            del a
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0
print(faults(nullcontext()), faults(arrays.reused_heap()), faults(nullcontext()))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    outside, inside, after = map(int, out.stdout.split())
    assert outside > 8 * 10_000 and inside < outside / 10 and after > 8 * 10_000, (outside, inside, after)


@pytest.mark.parametrize("back,fwd", [(16, 16), (64, 48), (5, 6), (3, 2)])
def test_masked_windows_are_grouped_as_the_windows_themselves(back, fwd):
    """Masked.group numbers the digit-masked windows around positions (by a hash of each
    window's words, one gather per window) exactly as grouping the cut windows does: equal
    windows share a code, different ones never do, for widths that are and are not multiples of
    8 and positions near both ends of the bytes."""
    from mltdbg.analyzers.readers.textlog.arrays import Masked, group_rows
    rng = np.random.default_rng(7)
    lines = [f"step={i} loss={rng.random():.4f} lr=3e-4 {'eval acc: 0.5' if i % 7 == 0 else ''}\n" for i in range(3000)]
    lines += ["x" * int(k) + "=1\n" for k in rng.integers(1, 80, 200)]
    data = "".join(lines).encode()
    m = Masked(data)
    pos = np.sort(rng.choice(len(data), 5000, replace=False))
    pos = np.concatenate(([0, 1, 2], pos, [len(data) - 2, len(data) - 1]))
    codes, first = m.group(pos, back, fwd)
    want, _ = group_rows(m.windows(pos, back, fwd))
    # the same partition of the positions: code i <-> code j one to one
    pairs = set(zip(codes.tolist(), want.tolist()))
    assert len(pairs) == len(set(codes.tolist())) == len(set(want.tolist()))
    assert (codes[first] == np.arange(len(first))).all()


def test_the_masked_copy_is_the_bytes_with_every_digit_as_zero():
    """Masked's copy: each digit byte '0'-'9' becomes '0', every other byte value (all 256 tried,
    across chunk borders) is left as it is, with PAD zero bytes at both ends."""
    from mltdbg.analyzers.readers.textlog import arrays
    rng = np.random.default_rng(3)
    data = bytes(range(256)) + rng.integers(0, 256, 3 * arrays.CHUNK // 2 + 17, dtype=np.uint8).tobytes()
    want = data.translate(bytes(48 if 48 <= c <= 57 else c for c in range(256)))
    m = arrays.Masked(data).m
    assert m[arrays.PAD:arrays.PAD + len(data)].tobytes() == want
    assert not m[:arrays.PAD].any() and not m[arrays.PAD + len(data):].any()


@pytest.mark.parametrize("name, body, what", [
    ("metrics.jsonl", "not json at all\nstill not json\n", "JSON record"),
    ("metrics.jsonl", '{"step": 1, "loss": ', "JSON record"),        # cut off before its first record ends
    ("metrics.csv", "hello world\nthis is not a table\n", "header row"),
])
def test_a_file_named_as_a_table_that_is_not_one_is_said_to_be_read_as_text(tmp_path, name, body, what):
    """The table reader declines it and the text reader finds no metrics: a one-line warning names the
    file, instead of a run that silently has no curve."""
    (tmp_path / name).write_text(body)
    run = ingest([tmp_path / name])
    assert not run.series
    assert len(run.warnings) == 1
    w = run.warnings[0]
    assert w.startswith(f"{name}: named like a metrics table") and what in w and "no metrics read" in w


def test_a_table_named_file_with_metrics_in_it_is_not_warned_about(tmp_path):
    """A real CSV table: no warning; a live JSONL whose last record is still being written: its whole
    records are read, nothing said."""
    (tmp_path / "a.csv").write_text("step,loss\n" + "".join(f"{i},{1 / i:.3f}\n" for i in range(1, 30)))
    (tmp_path / "b.jsonl").write_text('{"step": 1, "loss": 0.5}\n{"step": 2, "loss": 0.4}\n{"step": 3, "lo')
    for name in ("a.csv", "b.jsonl"):
        run = ingest([tmp_path / name])
        assert run.series and not run.warnings, (name, run.warnings)


@pytest.mark.parametrize("printed", ["running loss", "Average loss", "running_loss", "epoch_loss", "batch_loss",
                                     "loss_avg", "avg_train_loss", "lm loss", "Current loss", "the loss",
                                     "INFO loss", "Model loss"])
def test_a_loss_named_for_how_it_was_averaged_is_the_training_loss(tmp_path, printed):
    (tmp_path / "train.log").write_text("".join(f"step {i} {printed}: {2.5 - i / 10}\n" for i in range(1, 6)))
    (s,) = ingest([tmp_path]).series
    assert s.name == "loss" and s.values.tolist() == [2.4, 2.3, 2.2, 2.1, 2.0]


def test_each_term_of_a_multi_term_loss_is_its_own_series(tmp_path):
    # DASR's log: two terms on one line; read as one 'loss' they made two values a step
    (tmp_path / "train.log").write_text("".join(
        f"Epoch: [0158][{k * 6400}/31050]\tLoss [SR loss: {9.7 + k / 100:.3f} | contrastive loss: {0.9 + k / 100:.3f} ]\n"
        for k in range(1, 4)))
    (tmp_path / "gan.log").write_text("Epoch 3 D loss: 0.61 G loss: 2.3\nEpoch 4 D loss: 0.6 G loss: 2.2\n")
    by = {s.name: s for s in ingest([tmp_path]).series}
    assert by["sr_loss"].values.tolist() == [9.71, 9.72, 9.73] and by["sr_loss"].raw_name == "SR loss"
    assert by["contrastive_loss"].values.tolist() == [0.91, 0.92, 0.93]
    assert by["d_loss"].values.tolist() == [0.61, 0.6] and by["g_loss"].values.tolist() == [2.3, 2.2]
    assert "loss" not in by


def test_a_history_printed_as_lists_is_read_whole(tmp_path):
    # print(history.history) from Keras, and a numpy array of losses printed over two lines
    (tmp_path / "out.log").write_text(
        "Epoch 4/4\n"
        "{'loss': [0.6931, 0.6930, 0.6932, 0.6931], 'accuracy': [0.5, 0.51, 0.49, 0.5], "
        "'val_loss': [0.6932, 0.6931, 0.6931, nan]}\n"
        "milestones: [30, 60, 90]  betas = [0.9, 0.999]\n"
        "d_loss = [1.38 1.02 0.71\n 0.55 0.43]\n")
    run = ingest([tmp_path])
    by = {s.name: s for s in run.series}
    assert by["loss"].values.tolist() == [0.6931, 0.6930, 0.6932, 0.6931] and by["loss"].step_is_index
    assert by["accuracy"].values.tolist() == [0.5, 0.51, 0.49, 0.5]
    assert math.isnan(by["val_loss"].values[3]) and by["val_loss"].locs.tolist() == [2, 2, 2, 2]
    assert by["d_loss"].values.tolist() == [1.38, 1.02, 0.71, 0.55, 0.43]
    assert by["d_loss"].locs.tolist() == [4, 4, 4, 5, 5]        # each number's own line
    assert [s.name for s in run.series].count("loss") == 1      # not also the one point read before
    assert all(len(by[k]) == 1 for k in ("milestones", "betas") if k in by)   # settings, not histories


def test_a_list_printed_under_the_line_that_names_it_is_read_whole(tmp_path):
    # print(losses) then its output; a caption over numpy's multi-line print; a notebook's Out[] line
    (tmp_path / "q.txt").write_text(
        "print(train_losses)\n[2.3026, 2.3025, 2.3027, 2.3026]\n\n"
        "=== Loss Array ===\n[3.54981262e+18 1.08446422e+24 3.64640361e+23\n 6.35668752e+23 4.05704140e+23]\n\n"
        "In [7]: history.history['val_accuracy']\nOut[7]: [0.1, 0.1, 0.1]\n\n"
        "print(milestones)\n[30, 60, 90]\n")
    run = ingest([tmp_path])
    by: dict = {}
    for s in run.series:
        by.setdefault(s.name, []).append(s)
    assert [s.values.tolist() for s in by["loss"]] == [[2.3026, 2.3025, 2.3027, 2.3026],
                                                       [3.54981262e+18, 1.08446422e+24, 3.64640361e+23,
                                                        6.35668752e+23, 4.05704140e+23]]
    assert by["loss"][1].locs.tolist() == [5, 5, 5, 6, 6]
    assert by["val_accuracy"][0].values.tolist() == [0.1, 0.1, 0.1]
    assert "milestones" not in by          # a setting's list, not a history


def test_a_table_of_numbered_layers_gradients_is_read_by_layer_not_by_step(tmp_path):
    """"layer  0 (Linear 40->128)   grad_norm 2.7e-11", one row per layer: one point per layer in the table's order,
    not a 17-step grad_norm that grows 1e10x; the same rows without "grad" anywhere near are not gradients."""
    rows = "".join(f"layer {2 * i:2d} (Linear 128->128)  grad_norm {2.7e-11 * 4 ** i:.1e}\n" for i in range(17))
    (tmp_path / "q.txt").write_text("I printed the gradient norm of each Linear weight:\n```\n" + rows + "```\n")
    run = ingest([tmp_path])
    layers = [s for s in run.series if s.name.startswith("grad_norm/")]
    assert [s.name for s in layers][:3] == ["grad_norm/layer0", "grad_norm/layer2", "grad_norm/layer4"]
    assert len(layers) == 17 and all(len(s) == 1 for s in layers) and layers[0].locs.tolist() == [3]
    assert "grad_norm" not in {s.name for s in run.series}
    (tmp_path / "q.txt").write_text("Parameter count per block:\n" + rows.replace("grad_norm", "params"))
    assert not any(s.name.startswith("grad_norm/") for s in ingest([tmp_path]).series)
    # more columns after the gradient: the number "grad" names is the row's
    wide = "".join(f"layer {i:2d}  Linear(128->128)   grad {3.2e-13 * 8 ** i:.3e}   out std 0.07\n" for i in range(15))
    (tmp_path / "q.txt").write_text("I printed the gradient norm of every Linear weight:\n" + wide)
    layers = {s.name: s for s in ingest([tmp_path]).series if s.name.startswith("grad_norm/")}
    assert len(layers) == 15 and layers["grad_norm/layer0"].values.tolist() == [3.2e-13]
    # printed again and again through a log: the first table is read, not one series per printing
    (tmp_path / "q.txt").write_text("gradient norms per layer\n" + "\n".join(
        f"step {k}\n" + wide for k in range(50)))
    layers = [s for s in ingest([tmp_path]).series if s.name.startswith("grad_norm/")]
    assert len(layers) == 15


def test_a_list_that_never_closes_is_given_up_in_linear_time():
    from mltdbg.analyzers.model import TextArtifact
    from mltdbg.analyzers.readers.textlog.lists import list_series
    text = "loss: [" + " ".join(["1234567"] * 20_000) + "\n"
    art = TextArtifact("a.log", Path("a.log"), "log", text)
    assert list_series(art) == []    # a regex that could split each number's digits two ways took minutes


def test_xgboost_rounds_are_a_train_and_a_validation_loss(tmp_path):
    """XGBoost prints `[i]\ttrain-logloss:0.61\teval-logloss:0.65` per boosting round (its sklearn API
    names the sets validation_0, validation_1): the train log loss is the loss and the eval set's the
    validation loss, so a validation curve that turns up while training keeps falling reads as one."""
    from mltdbg.analyzers.names import normalize
    p = tmp_path / "xgb.log"
    p.write_text("".join(f"[{i}]\ttrain-logloss:{0.69 - 0.012 * i:.5f}\teval-logloss:"
                         f"{0.69 - 0.01 * i if i < 20 else 0.49 + 0.01 * (i - 20):.5f}\n" for i in range(40)))
    run = read(p)
    assert [(s.name, s.raw_name) for s in run.series] == [("loss", "train-logloss"), ("val_loss", "eval-logloss")]
    assert run.series[1].steps.tolist()[:3] == [0, 1, 2]
    from mltdbg.analyzers.curves import curve_signals
    assert "train_val_divergence" in {s.kind for s in curve_signals(run)}
    assert normalize("validation_1-logloss") == "val_loss" and normalize("validation_0-auc") == "val_auc"
    assert normalize("valid-mlogloss") == "val_loss" and normalize("train-rmse") == "rmse"


def test_lightgbm_names_each_metric_after_its_data_set(tmp_path):
    """LightGBM prints `[i]\ttraining's binary_logloss: 0.5\tvalid_1's binary_logloss: 0.6` per round:
    the data set's name, in the possessive, is part of the key. Read without it the train and
    validation values were one interleaved `binary_logloss` series; read with it they are the loss
    and the validation loss, and a validation curve that turns up reads as overfitting."""
    from mltdbg.analyzers.curves import curve_signals
    from mltdbg.analyzers.names import normalize
    p = tmp_path / "lgb.log"
    p.write_text("[LightGBM] [Info] Number of positive: 3000, number of negative: 7000\n" + "".join(
        f"[{i}]\ttraining's binary_logloss: {0.69 - 0.01 * i:.6f}\ttraining's auc: {0.7 + 0.004 * i:.6f}\t"
        f"valid_1's binary_logloss: {0.7 - 0.01 * i if i < 20 else 0.5 + 0.01 * (i - 20):.6f}\t"
        f"valid_1's auc: {0.69 + 0.003 * i:.6f}\n" for i in range(1, 41)))
    run = read(p)
    assert [(s.name, s.raw_name) for s in run.series] == [
        ("loss", "training's binary_logloss"), ("auc", "training's auc"),
        ("val_loss", "valid_1's binary_logloss"), ("val_auc", "valid_1's auc")]
    assert all(len(s) == 40 for s in run.series)
    assert run.series[2].values[:2].tolist() == [0.69, 0.68]
    assert "train_val_divergence" in {s.kind for s in curve_signals(run)}
    # one shape, two sets: each row's own digits ("valid_0's" beside "valid_1's")
    q = tmp_path / "two.log"
    q.write_text("".join(f"[{i}]\tvalid_0's multi_logloss: {1 - i / 100:.4f}\tvalid_1's multi_logloss: "
                         f"{2 - i / 100:.4f}\n" for i in range(1, 11)))
    two = read(q)
    assert [(s.raw_name, s.values[0]) for s in two.series] == [("valid_0's multi_logloss", 0.99),
                                                                ("valid_1's multi_logloss", 1.99)]
    assert normalize("training's l2") == "l2" and normalize("valid_0's auc") == "val_auc"
    assert normalize("holdout's binary_logloss") == "val_loss"
    assert normalize("model's loss") == "loss"      # any other owner: the metric itself


def test_megatron_counts_of_skipped_and_nan_iterations_are_two_series_and_a_nan_is_cited(tmp_path):
    """Megatron-LM ends each line with `number of skipped iterations: 0 | number of nan iterations: 0 |`:
    two counts (read before as one series called `iterations`). A NaN loss is skipped and counted
    there while the printed `lm loss` averages the finite iterations, so the count is the NaN's
    only trace: it is cited as a non-finite loss."""
    from mltdbg.analyzers.curves import curve_signals
    p = tmp_path / "megatron.log"
    p.write_text("".join(
        f" iteration {i * 10:8d}/  500000 | consumed samples: {i * 5120:12d} | learning rate: 1.500E-04 | "
        f"lm loss: {2 + 5 / i:.6E} | loss scale: {65536.0 if i <= 30 else 2.0 ** max(0, 46 - i):.1f} | grad norm: 2.345 | "
        f"number of skipped iterations: {int(i > 30):3d} | number of nan iterations: {int(i > 32):3d} |\n"
        for i in range(1, 50)))
    run = read(p)
    by = {s.name: s for s in run.series}
    assert by["skipped_steps"].raw_name == "skipped iterations" and by["nan_iterations"].values[31:34].tolist() == [0, 1, 1]
    assert np.isfinite(by["loss"].values).all()
    nan = [s for s in curve_signals(run) if s.kind == "nonfinite"]
    assert len(nan) == 1 and nan[0].data["step"] == 330 and nan[0].evidence[0].line == 33, nan


def test_a_line_that_names_a_held_out_set_holds_that_sets_metrics(tmp_path):
    """PyTorch's MNIST example (and the scripts made from it) prints `Train Epoch: 1 [640/60000 (1%)]\tLoss: 0.41`
    and, after each epoch, `Test set: Average loss: 0.0334, Accuracy: 9890/10000 (99%)`. Read before as a
    second training loss and an accuracy of 9890; the test line's keys are the validation loss and
    accuracy, and a count of a total is its fraction."""
    from mltdbg.analyzers.curves import curve_signals
    from mltdbg.analyzers.names import normalize
    lines = []
    for e in range(1, 11):
        lines += [f"Train Epoch: {e} [{b}/60000 ({b // 600}%)]\tLoss: {2.3 / (e + b / 60000):.6f}" for b in range(0, 60000, 12000)]
        lines += ["", f"Test set: Average loss: {0.3 / e + 0.03 + max(0, e - 5) * 0.05:.4f}, "
                      f"Accuracy: {9000 + e * 80}/10000 ({90 + e * 0.8:.0f}%)", ""]
    p = tmp_path / "mnist.log"
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    assert [(s.name, s.raw_name, len(s)) for s in run.series] == [
        ("epoch", "Train Epoch", 50), ("loss", "Loss", 50), ("val_loss", "test/Average loss", 10),
        ("val_accuracy", "test/Accuracy", 10)]
    assert run.series[3].values[:2].tolist() == [0.908, 0.916]
    assert "train_val_divergence" in {s.kind for s in curve_signals(run)}
    # "Validation: ..." holds the val set's keys too; a line that only mentions a test is no such line
    q = tmp_path / "val.log"
    q.write_text("".join(f"step {i}: loss={1 / i:.3f}\nValidation: loss={1 / i + 0.1:.3f} acc={i / 20:.2f}\n"
                         f"tested: loss={i:.1f}\n" for i in range(1, 11)))
    assert sorted((s.name, len(s)) for s in read(q).series) == [("loss", 10), ("loss", 10), ("val_accuracy", 10),
                                                                ("val_loss", 10)]
    assert normalize("test/val_loss") == "val_loss"       # (not val_val_loss)
    # Flax's examples: "train epoch: N, loss: ..." and "eval epoch: N, loss: ..."
    fx = tmp_path / "flax.log"
    fx.write_text("".join(f"train epoch: {e}, loss: {1 / e:.4f}, accuracy: {90 + e / 10:.2f}\n"
                          f"eval epoch: {e}, loss: {1.2 / e:.4f}, accuracy: {89 + e / 10:.2f}\n" for e in range(1, 6)))
    assert sorted((x.name, len(x)) for x in read(fx).series if not x.name.endswith("epoch")) == [
        ("accuracy", 5), ("loss", 5), ("val_accuracy", 5), ("val_loss", 5)]
    # PyTorch-Ignite's examples: "Training Results - Epoch: N  Avg accuracy: ..." and "Validation Results - Epoch: N ..."
    ig = tmp_path / "ignite.log"
    ig.write_text("".join(f"Epoch[{e}] Iteration[25/125] Loss: {1 / e:.4f}\n"
                          f"Training Results - Epoch: {e}  Avg accuracy: {0.5 + e / 20:.4f} Avg loss: {1 / e:.4f}\n"
                          f"Validation Results - Epoch: {e}  Avg accuracy: {0.45 + e / 20:.4f} Avg loss: {1.2 / e:.4f}\n"
                          for e in range(1, 6)))
    got = {(x.name, x.raw_name): len(x) for x in read(ig).series}
    assert got[("val_accuracy", "test/Avg accuracy")] == 5 and got[("val_loss", "test/Avg loss")] == 5
    assert got[("accuracy", "Avg accuracy")] == 5
    # KAIR's validation lines: "Average PSNR : 8.45dB" (the unit glued to the number) is the PSNR
    ka = tmp_path / "kair.log"
    ka.write_text("".join(f"<epoch:{e:3d}, iter: {25 * e:8,d}, Average PSNR : {20 + e / 10:.2f}dB\n" for e in range(1, 6)))
    assert {x.name: len(x) for x in read(ka).series}.get("psnr") == 5
    # a set's tag in brackets at the start of the line ("[val] epoch 3 loss=..."), not a timestamp's or a rank's
    br = tmp_path / "bracket.log"
    br.write_text("".join(f"[train] epoch {e} loss={1 / e:.4f} acc={0.5 + e / 20:.2f}\n"
                          f"[val] epoch {e} loss={1.2 / e:.4f} acc={0.45 + e / 20:.2f}\n"
                          f"[2024-01-01 10:00:0{e}] [Rank 0] step={e * 10}, loss={0.9 / e:.4f}\n" for e in range(1, 6)))
    assert sorted((x.name, len(x)) for x in read(br).series if not x.name.endswith(("epoch", "step"))) == [
        ("accuracy", 5), ("loss", 5), ("loss", 5), ("val_accuracy", 5), ("val_loss", 5)]
    # a line that opens with a validation bar and goes on with the training bar's redraws after '\r':
    # only its first segment is the validation set's
    r = tmp_path / "bars.log"
    r.write_text("".join(f"Validation: 100%|##########| 5/5 [00:01<00:00, val_acc={i / 10:.2f}]\r"
                         f"Epoch {i}: 100%|##########| 50/50 [00:05<00:00, loss={1 / i:.3f}]\n" for i in range(1, 9)))
    assert sorted((s.name, len(s)) for s in read(r).series) == [("epoch", 8), ("loss", 8), ("val_accuracy", 8)]
    # Caffe's test phase, behind its glog prefix: "Test net output #N: key = value"
    c = tmp_path / "caffe.log"
    c.write_text("".join(
        f"I0101 12:00:00.000  1234 solver.cpp:228] Iteration {i * 100}, loss = {2 / i:.5f}\n"
        f"I0101 12:00:00.000  1234 solver.cpp:244]     Train net output #0: loss = {2 / i:.5f} (* 1 = {2 / i:.5f} loss)\n"
        + (f"I0101 12:00:00.000  1234 solver.cpp:409]     Test net output #0: accuracy = {i / 100:.4f}\n"
           f"I0101 12:00:00.000  1234 solver.cpp:409]     Test net output #1: loss = {3 / i:.4f} (* 1 = {3 / i:.4f} loss)\n"
           if i % 5 == 0 else "") for i in range(1, 31)))
    by = {}
    for x in read(c).series:
        by.setdefault(x.name, []).append(len(x))
    assert by == {"loss": [30, 30], "val_accuracy": [6], "val_loss": [6]}, by
    # OpenMMLab 2 (mmengine): "Epoch(val)" after the logging prefix; "Epoch(train)" lines stay training
    mm = tmp_path / "mm.log"
    mm.write_text("".join(
        f"2023/06/01 12:00:00 - mmengine - INFO - Epoch(train)  [{e}][{it:4d}/1000]  lr: 1.0000e-02  "
        f"grad_norm: 10.5  loss: {2 / (e + it / 1000):.4f}\n" for e in range(1, 6) for it in range(200, 1001, 200)) + "".join(
        f"2023/06/01 12:00:00 - mmengine - INFO - Epoch(val) [{e}][100/100]    accuracy/top1: {40 + e:.4f}  "
        f"loss: {1 + e / 10:.4f}\n" for e in range(1, 6)))
    names = sorted((x.name, len(x)) for x in read(mm).series)
    assert ("loss", 25) in names and ("val_loss", 5) in names and ("val_accuracy", 5) in names, names
    # fairseq: "| valid | epoch 003 | valid on 'valid' subset | loss ..." (older versions: no "| valid |"); its
    # train lines print the same keys, and were read as one interleaved loss
    fs = tmp_path / "fairseq.log"
    fs.write_text("".join(
        f"2026-03-01 10:00:00 | INFO | train | epoch {e:03d} | loss {10 - e:.3f} | ppl {2 ** (10 - e):.1f} | lr 0.0005\n"
        f"2026-03-01 10:10:00 | INFO | valid | epoch {e:03d} | valid on 'valid' subset | loss {7 + abs(e - 2):.3f} | "
        f"ppl {2 ** (7 + abs(e - 2)):.1f}\n" + (f"| epoch {e:03d} | valid on 'test' subset | loss {8:.3f}\n" if e == 5 else "")
        for e in range(1, 6)))
    by = {x.name: x.values.tolist() for x in read(fs).series}
    assert by["loss"] == [9.0, 8.0, 7.0, 6.0, 5.0] and by["val_loss"][:5] == [8.0, 7.0, 8.0, 9.0, 10.0], by
    assert normalize("Minibatch Loss") == "loss"


def test_a_box_drawn_table_of_test_metrics_is_read_and_its_nan_cited(tmp_path):
    """Lightning ends `trainer.test()` with a rich table: `│         test_loss         │            nan            │`.
    Its bars read as separators, and a nan padded past the scanner's first window (read as no number
    before) is read with the long one: the NaN is found and cited."""
    from mltdbg.analyzers.curves import curve_signals
    p = tmp_path / "test.log"
    p.write_text("\n".join([
        "Testing DataLoader 0: 100%|##########| 10/10 [00:00<00:00, 50.00it/s]",
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━┓",
        "┃        Test metric        ┃       DataLoader 0        ┃",
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━┩",
        "│         test_acc          │    0.10000000149011612    │",
        "│         test_loss         │            nan            │",
        "└───────────────────────────┴───────────────────────────┘"]) + "\n")
    run = read(p)
    assert [(s.name, s.raw_name) for s in run.series] == [("val_accuracy", "test_acc"), ("val_loss", "test_loss")]
    assert math.isnan(run.series[1].values[0])
    nan = [s for s in curve_signals(run) if s.kind == "nonfinite"]
    assert nan and nan[0].evidence[0].line == 6
    # a value padded past the first window, in key: value form too
    q = tmp_path / "pad.log"
    q.write_text("".join(f"loss:{' ' * 20}{v}\n" for v in ("0.5", "0.4", "inf")))
    assert read(q).series[0].values.tolist() == [0.5, 0.4, math.inf]


def test_a_counter_word_before_a_time_is_no_counter(tmp_path):
    """kuangliu/pytorch-cifar's progress bar prints `Step: 45ms | Tot: 17s | Loss: 2.110 | Acc: 51.000% (6528/12800)`:
    `Step` there is the step's duration. Read as the step counter, every line sat at step 45 (a
    whole number with a unit is a time, a size or a share, never a counter)."""
    p = tmp_path / "cifar.log"
    p.write_text("".join(f" [=======>]  Step: 45ms | Tot: {17 + i}s | Loss: {2 / i:.3f} | Acc: {50 + i:.3f}% "
                         f"({(50 + i) * 128}/12800) 391/391\n" for i in range(1, 21)))
    by = {s.name: s for s in read(p).series}
    assert by["loss"].steps.tolist() == list(range(20)) and by["loss"].values[:2].tolist() == [2.0, 1.0]
    q = tmp_path / "steps.log"
    q.write_text("".join(f"Step: {i * 10} | loss: {1 / i:.3f}\n" for i in range(1, 11)))
    assert read(q).series[0].steps.tolist() == list(range(10, 101, 10))     # a plain one still is


def test_a_printed_torch_scalar_after_its_name_is_a_point(tmp_path):
    """`print("epoch", e, "loss", loss)` of a torch scalar prints `loss tensor(0.6931, device='cuda:0',
    grad_fn=<NllLossBackward0>)`: the number inside is the loss, a NaN too (before, only `loss: tensor(...)`
    was read); a word that merely starts like it is not ("loss tensors 3")."""
    p = tmp_path / "post.log"
    p.write_text("".join(f"epoch {i} loss tensor({2 / i:.4f}, device='cuda:0', grad_fn=<NllLossBackward0>)\n"
                         for i in range(1, 6)) + "epoch 6 loss tensor(nan, device='cuda:0')\nloss tensors 3\n")
    by = {s.name: s for s in read(p).series}
    assert by["loss"].values[:5].tolist() == [2.0, 1.0, 0.6667, 0.5, 0.4] and len(by["loss"]) == 6
    assert math.isnan(by["loss"].values[5]) and by["loss"].locs[5] == 6


def test_catboost_learn_and_test_are_the_train_and_validation_losses(tmp_path):
    """CatBoost prints `0:\tlearn: 0.68\ttest: 0.69\tbest: 0.69 (0)\ttotal: 52ms\tremaining: 52s`: `learn`
    is the training loss, `test` the eval set's (both read before under their own names, so no loss
    curve at all); a validation loss that turns up reads as overfitting. `test` alone keeps its name."""
    from mltdbg.analyzers.curves import curve_signals
    p = tmp_path / "catboost.log"
    p.write_text("Learning rate set to 0.5\n" + "".join(
        f"{i}:\tlearn: {0.7 - 0.01 * i:.7f}\ttest: {0.71 - 0.01 * i if i < 20 else 0.51 + 0.01 * (i - 20):.7f}\t"
        f"best: 0.5100000 ({min(i, 20)})\ttotal: {52 + i}ms\tremaining: {52 - i}s\n" for i in range(40)))
    by = {s.name: s.raw_name for s in read(p).series}
    assert by["loss"] == "learn" and by["val_loss"] == "test"
    assert "train_val_divergence" in {s.kind for s in curve_signals(read(p))}
    q = tmp_path / "other.log"
    q.write_text("".join(f"step {i} loss={1 / i:.3f} test: {i}\n" for i in range(1, 6)))
    assert {s.name for s in read(q).series} == {"loss", "test"}


def test_xgboost_eval_sets_0_and_1_are_the_training_and_validation_sets(tmp_path):
    """XGBoost with `eval_set=[(X_train, y_train), (X_test, y_test)]` prints `[50]\tvalidation_0-logloss:0.31\t
    validation_1-logloss:0.38`: set 0 is the training data. Both had read as val_loss (one name, two curves),
    and the run as healthy; a validation logloss that turns up while set 0 falls is overfitting. A lone
    validation_0 is an eval set."""
    from mltdbg.analyzers.curves import curve_signals
    p = tmp_path / "xgb.log"
    train = [0.66, 0.31, 0.22, 0.15, 0.10, 0.07, 0.047, 0.032, 0.022]
    val = [0.665, 0.382, 0.360, 0.370, 0.388, 0.415, 0.450, 0.482, 0.519]
    p.write_text("".join(f"[{50 * i}]\tvalidation_0-logloss:{a:.5f}\tvalidation_1-logloss:{b:.5f}\n"
                         for i, (a, b) in enumerate(zip(train, val))))
    by = {s.name: s.raw_name for s in read(p).series}
    assert by == {"loss": "validation_0-logloss", "val_loss": "validation_1-logloss"}
    assert "train_val_divergence" in {s.kind for s in curve_signals(read(p))}
    q = tmp_path / "one.log"
    q.write_text("".join(f"[{i}]\tvalidation_0-logloss:{a:.5f}\n" for i, a in enumerate(train)))
    assert {s.name for s in read(q).series} == {"val_loss"}


def test_a_number_past_float_range_reads_as_inf_without_a_warning(tmp_path):
    """`loss: 12345e305` (float() reads it as inf) and exponents beside it: inf, and no numpy overflow
    warning on the user's terminal."""
    import warnings
    p = tmp_path / "big.log"
    p.write_text("loss: 12345e305\nloss: 2.5e-3\nloss: 1.0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (s,) = read(p).series
    assert s.values.tolist() == [math.inf, 0.0025, 1.0]


def test_accuracy_under_its_framework_names_is_the_accuracy(tmp_path):
    """Keras names an accuracy metric by its class (`sparse_categorical_accuracy`, `binary_accuracy`),
    ImageNet scripts print `Acc@1`, Lightning logs `val/acc_epoch`: each is the (val) accuracy the
    curve analyzers read, not a metric of its own name."""
    from mltdbg.analyzers.names import normalize
    p = tmp_path / "keras.log"
    p.write_text("".join(f"Epoch {e}/5\n1875/1875 [==============================] - 5s 3ms/step - loss: {1 - e / 10:.4f} - "
                         f"sparse_categorical_accuracy: {0.5 + e / 20:.4f} - val_loss: {1.1 - e / 20:.4f} - "
                         f"val_sparse_categorical_accuracy: {0.45 + e / 25:.4f}\n" for e in range(1, 6)))
    names = {s.name for s in read(p).series}
    assert {"loss", "accuracy", "val_loss", "val_accuracy"} <= names, names
    assert normalize("Acc@1") == "accuracy" and normalize("val_binary_accuracy") == "val_accuracy"
    assert normalize("val/acc_epoch") == "val_accuracy" and normalize("test/loss_step") == "val_loss"
    assert normalize("val_grad_norm") == "val_grad_norm"


def test_a_key_ending_in_two_digits_before_an_equals_sign_is_read(tmp_path):
    # per-layer grad norms of a deep net past layer 9, top-10 accuracy; a time before ':' is still no key
    p = tmp_path / "train.log"
    p.write_text("".join(f"10:42:{i:02d} step={i} loss={1 / (i + 1):.3f} grad_norm/layer9=0.{i + 1} "
                         f"grad_norm/layer10=0.{i + 2} top10={0.5 + i / 100:.2f}\n" for i in range(6)))
    run = read(p)
    names = {s.name for s in run.series}
    assert {"grad_norm/layer9", "grad_norm/layer10", "top10", "loss"} <= names
    assert list(run.metric("grad_norm/layer10").values) == pytest.approx([0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
    assert list(run.metric("loss").steps) == [0, 1, 2, 3, 4, 5]


def test_per_layer_grads_printed_as_torch_tensors_and_none(tmp_path):
    # `for n, p in model.named_parameters(): print(n, p.grad.norm())` and `print(n, p.grad)` for a
    # parameter no gradient reached (None: no gradient, read as norm 0)
    p = tmp_path / "grads.txt"
    p.write_text("conv1.weight tensor(0.0023, device='cuda:0')\nconv2.weight tensor(1.5e-02)\n"
                 "fc1.weight None\nfc1.bias None\nout.weight tensor(0.3100)\n")
    by = {s.name: s for s in read(p).series}
    assert by["grad_norm/conv1.weight"].values.tolist() == [0.0023]
    assert by["grad_norm/conv2.weight"].values.tolist() == [0.015]
    assert by["grad_norm/fc1.bias"].values.tolist() == [0.0] and by["grad_norm/out.weight"].values.tolist() == [0.31]
    assert by["grad_norm/fc1.weight"].locs.tolist() == [3]


def test_a_metric_named_with_what_it_was_measured_on_is_that_metric_of_that_set(tmp_path):
    # the PyTorch tutorials' closing lines: the key is the whole phrase, not its last two words
    (tmp_path / "out.txt").write_text(
        "[1,  2000] loss: 2.191\n[1,  4000] loss: 1.853\n[2,  2000] loss: 1.590\n[2,  4000] loss: 1.511\n"
        "Finished Training\n"
        "Accuracy of the network on the 10000 test images: 54 %\n"
        "Test Accuracy of the model on the 10000 test images: 11.35 %\n"
        "Accuracy of the model on test images: 9 %\n")
    run = ingest([tmp_path])
    got = sorted((s.raw_name, s.values.tolist()) for s in run.series if s.name == "val_accuracy")
    assert got == [("Accuracy of the model on test images", [9.0]),
                   ("Accuracy of the network on the 10000 test images", [54.0]),
                   ("Test Accuracy of the model on the 10000 test images", [11.35])]
    assert not [s for s in run.series if "images" in s.name]
    from mltdbg.analyzers.names import normalize  # noqa: PLC0415

    assert [normalize(n) for n in ("loss of the model on the 500 val samples", "accuracy of the model on the train images",
                                   "test images")] == ["val_loss", "accuracy", "val_images"]


def test_per_layer_grads_printed_side_by_side_on_each_line(tmp_path):
    """One printing per line: the layers' series (step = the printing), and the line's loss kept."""
    layers = ("conv1", "conv2", "conv3", "fc1", "fc2")
    lines = [f"epoch {e} loss {2.30 - 0.001 * e:.4f} | "
             + " | ".join(f"{n}.weight grad {g:.2e}" for n, g in zip(layers, (1e-9, 1e-7, 1e-5, 1e-3, 1e-1)))
             for e in range(10)]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    run = ingest([tmp_path])
    names = {s.name: s for s in run.series}
    assert len(names["grad_norm/conv1.weight"]) == 10 and names["grad_norm/conv1.weight"].values[0] == 1e-9
    assert names["grad_norm/fc2.weight"].locs.tolist() == list(range(1, 11))
    assert len(names["loss"]) == 10
    # metric names that end in a digit are no layers without a grad label (top1/top5 beside a grad_norm)
    (tmp_path / "train.log").write_text("".join(f"step {i} top1 0.{i}1 top5 0.{i}5 acc1 0.{i}2 grad_norm 1.{i}\n"
                                                for i in range(1, 6)))
    assert not [s for s in ingest([tmp_path]).series if s.name.startswith("grad_norm/")]


def _series_of(tmp_path, name: str, text: str) -> dict[str, list[float]]:
    (tmp_path / name).write_text(text)
    run = ingest([str(tmp_path / name)])
    return {s.name: [float(v) for v in s.values] for s in run.series}


def test_a_notes_few_values_in_words_are_a_history(tmp_path):
    """A chat-style note gives its values in words: "loss went 2.3 -> 2.1 -> 45.2 -> nan", "grad norm 1.2, 3.5,
    40, 900, 2e5, inf over 6 steps". The block scanner took one number of each (or none), so the note had an
    empty ranking. Arrows read anywhere; commas and spaces only in the user's words, since a log's
    "test loss 0.1, 0.0, 0.2" is one value per class or term."""
    got = _series_of(tmp_path, "a.txt", "loss went 2.3 -> 2.1 -> 45.2 -> nan in 300 steps, sgd lr 0.8\n")
    assert got["loss"][:3] == [2.3, 2.1, 45.2] and math.isnan(got["loss"][3])
    got = _series_of(tmp_path, "b.txt", "grad norm 1.2, 3.5, 40, 900, 2e5, inf over 6 steps, LSTM, no clipping\n")
    assert got["grad_norm"][:5] == [1.2, 3.5, 40.0, 900.0, 2e5] and math.isinf(got["grad_norm"][5])
    got = _series_of(tmp_path, "c.txt", "my loss 2.302 2.301 2.301 2.300 2.300 after 5 epochs with lr 1e-7\n")
    assert got["loss"] == [2.302, 2.301, 2.301, 2.300, 2.300]
    # a history given per epoch or per step in the note's words
    got = _series_of(tmp_path, "d.txt", "Val accuracy peaks in epoch 2 and then falls apart, why?\n"
                     "val accuracy by epoch: 0.599 0.701 0.608 0.644 0.572 0.401\n")
    assert got["val_accuracy"] == [0.599, 0.701, 0.608, 0.644, 0.572, 0.401], got
    # ... but the steps a sentence names are no values (review case, stop 64)
    got = _series_of(tmp_path, "e.txt", "Why? My val loss at steps 100, 200, 300 stayed flat, and loss for epochs 1, 2, 3, 4 too.\n")
    assert got.get("val_loss") != [100.0, 200.0, 300.0] and got.get("loss") != [1.0, 2.0, 3.0, 4.0], got
    # a log's per-class values are no history
    got = _series_of(tmp_path, "train.log", "epoch 47 TRAIN loss 8.3984\ntest loss 0.0000, 0.0000, 0.0000, 0.0000\n")
    assert len(got.get("val_loss", [])) <= 1 and got["loss"] == [8.3984]


def test_a_notes_values_make_a_ranking(tmp_path):
    from mltdbg.playbooks.diagnose import diagnose
    (tmp_path / "note.txt").write_text("loss went 2.3 -> 2.1 -> 45.2 -> nan in 300 steps, sgd lr 0.8\n")
    d = diagnose([str(tmp_path / "note.txt")], [])
    assert d.hypotheses and d.hypotheses[0].id == "lr_too_high", [(h.id, h.confidence) for h in d.hypotheses]


def test_a_repeated_key_on_one_line_does_not_hide_a_posts_one_epoch_line(tmp_path):
    """A post's one Keras line is all it has, so its one-point series are kept unless the file has a longer
    history. A pasted code line, "x = (x - x.mean(axis=0)) / x.std(axis=0)", gave `axis` two points, on one line:
    read as such a history, it dropped the epoch line's loss: nan, and the post had an empty ranking."""
    got = _series_of(tmp_path, "err.txt", "preprocess.py:42: RuntimeWarning: invalid value encountered in divide\n"
                     "  x = (x - x.mean(axis=0)) / x.std(axis=0)\nEpoch 1/10 - loss: nan - accuracy: 0.1000\n")
    assert math.isnan(got["loss"][0]) and got["accuracy"] == [0.1]
    # a history of two lines still drops a training key's lone point
    got = _series_of(tmp_path, "train.log", "step 1 loss 0.5\nstep 2 loss 0.4\nlr 0.1\n")
    assert got["loss"] == [0.5, 0.4] and "lr" not in got


_ISSUE_MD = """## Describe the bug
When I train with `--fp16` the loss becomes `nan` after ~2k steps. The same config with `--bf16` on an A100 trains fine.

<details>
<summary>Training log</summary>

```
{'loss': 2.4312, 'learning_rate': 4.9e-05, 'epoch': 0.1}
{'loss': 2.1034, 'learning_rate': 4.8e-05, 'epoch': 0.2}
{'loss': 1.9876, 'learning_rate': 4.7e-05, 'epoch': 0.3}
{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.6e-05, 'epoch': 0.4}
{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.5e-05, 'epoch': 0.5}
```
</details>

## Environment
- transformers 4.38.1
- torch 2.2.0
- GPU: V100 32GB
"""


def test_a_github_issue_saved_as_markdown_is_read_like_a_text_post(tmp_path):
    """An issue saved as issue.md (kind text) had no metrics read (only .txt posts were), and its template's
    headings and bullet lists counted against its prose: nothing read, lr_too_low 0.14 from the lr alone. Its
    fenced log and its curve table are read now; its markup counts neither way; a NaN the trainer printed as
    0.0 beside grad_norm nan is found although the dicts carry no step (matched by line)."""
    from mltdbg.analyzers.prose import prose_sentences
    from mltdbg.playbooks.diagnose import diagnose
    (tmp_path / "issue.md").write_text(_ISSUE_MD)
    run = ingest([str(tmp_path / "issue.md")])
    got = {s.name: [float(v) for v in s.values] for s in run.series}
    assert got["loss"] == [2.4312, 2.1034, 1.9876, 0.0, 0.0] and len(got["grad_norm"]) == 2
    assert prose_sentences(run.texts) == [_ISSUE_MD.split("\n")[1]]
    d = diagnose([str(tmp_path / "issue.md")], [])
    assert d.hypotheses[0].id == "mixed_precision_overflow", [(h.id, h.confidence) for h in d.hypotheses]
    assert any(e.quote and "'grad_norm': nan" in e.quote for h in d.hypotheses for e in h.evidence)
    # a markdown table of the curve
    table = ("My validation loss starts increasing after epoch 8 while training loss keeps going down. Is this normal?\n\n"
             "| epoch | train_loss | val_loss |\n|---|---|---|\n| 1 | 1.20 | 1.10 |\n| 4 | 0.70 | 0.80 |\n"
             "| 8 | 0.40 | 0.68 |\n| 12 | 0.20 | 0.75 |\n| 16 | 0.08 | 0.92 |\n| 20 | 0.03 | 1.15 |\n")
    (tmp_path / "q2").mkdir()
    (tmp_path / "q2" / "question.md").write_text(table)
    got = {s.name: [float(v) for v in s.values] for s in ingest([str(tmp_path / "q2")]).series}
    assert got["val_loss"] == [1.10, 0.80, 0.68, 0.75, 0.92, 1.15]
    # a project's README is documentation: its tables are no run's history
    (tmp_path / "q2" / "question.md").rename(tmp_path / "q2" / "README.md")
    assert ingest([str(tmp_path / "q2")]).series == []


def test_a_lone_nan_grad_norm_is_cited():
    """A grad_norm of one or two points with a NaN had gone unread (its analysis wants three)."""
    from mltdbg.analyzers.curves import curve_signals
    from mltdbg.analyzers.model import Series
    run = Run(root=Path("."))
    run.series = [Series(name="grad_norm", raw_name="grad_norm", steps=np.arange(2), values=np.array([np.nan, 3.97]),
                         source="x.log", locs=np.array([1, 2])),
                  Series(name="loss", raw_name="loss", steps=np.arange(2), values=np.array([1.91, 0.92]),
                         source="x.log", locs=np.array([1, 2]))]
    sig = [s for s in curve_signals(run) if s.kind == "nonfinite_grad"]
    assert sig and 0 < sig[0].strength < 1.0


def test_a_history_list_named_for_its_list_is_read(tmp_path):
    """`train_losses = [...]`, `val_losses = [...]` (a plural, or _history / _list): the lists were skipped, their
    names not a metric's. A list of settings (`lr_list`, `milestones`) still is not a history."""
    got = _series_of(tmp_path, "out.txt", "train_losses = [0.91, 0.65, 0.43, 0.29, 0.17]\n"
                     "val_losses = [0.89, 0.70, 0.62, 0.65, 0.71]\nval_acc_history = [0.61, 0.70, 0.74, 0.73, 0.72]\n"
                     "lr_list = [0.1, 0.01, 0.001]\nmilestones = [30, 60, 90]\n")
    assert got["loss"] == [0.91, 0.65, 0.43, 0.29, 0.17] and got["val_loss"][-1] == 0.71
    assert got["val_accuracy"] == [0.61, 0.70, 0.74, 0.73, 0.72]
    assert len(got.get("lr", [])) <= 1 and len(got.get("milestones", [])) <= 1


def test_a_loss_printed_as_bare_tensors_is_a_history(tmp_path):
    """print(loss) in a loop prints "tensor(2.3026, grad_fn=<NllLossBackward0>)": no name, so nothing was read
    and a post of such lines had only its words. The grad_fn of a loss function names it the loss; another
    tensor's (a mean, an addition) does not."""
    lines = "".join(f"tensor({v}, grad_fn=<NllLossBackward0>)\n" for v in (2.3026, 2.3025, 2.3027, 2.3026))
    got = _series_of(tmp_path, "out.txt", lines)
    assert got["loss"] == [2.3026, 2.3025, 2.3027, 2.3026]
    other = "".join(f"tensor({v}, grad_fn=<MeanBackward0>)\n" for v in (0.1, 0.2, 0.3, 0.4))
    assert "loss" not in _series_of(tmp_path, "o2.txt", other)


def test_a_snake_case_metric_in_the_space_form_is_read(tmp_path):
    """"epoch 1 loss 1.3862 acc 0.25 relu_zero_frac 0.98": the space form was trusted for known names only, so the
    share of dead ReLU units was dropped and zero gradients below the head read as frozen parameters. A program's
    snake_case name that ends as a metric does (_frac, _norm, _acc, _entropy ...) is trusted too; other words not."""
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose
    log = tmp_path / "log.txt"
    log.write_text("epoch 1 loss 1.3862 acc 0.25 relu_zero_frac 0.98 model_v2 3\n"
                   "epoch 2 loss 1.3861 acc 0.25 relu_zero_frac 0.99 model_v2 3\n")
    names = {s.name for s in ingest([str(log)]).series}
    assert "relu_zero_frac" in names and "model_v2" not in names, names
    (tmp_path / "grads.json").write_text(
        '{"epoch": 1, "grad_norms": {"fc1.weight": 0.0, "fc2.weight": 0.0, "fc3.weight": 0.0213}}\n'
        '{"epoch": 2, "grad_norms": {"fc1.weight": 0.0, "fc2.weight": 0.0, "fc3.weight": 0.0198}}\n')
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == "dead_relu", [(h.id, h.confidence) for h in d.hypotheses]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_utf16_log_is_read_as_its_text(tmp_path, encoding):
    """Windows PowerShell 5.1 writes a redirected log (`python train.py > train.log`) in UTF-16 with a BOM: it
    was skipped as a binary file. Now its metrics are read, and the evidence cites and verifies its lines; a
    UTF-16 CSV is read as a table and a UTF-16 script as code."""
    from mltdbg.playbooks.diagnose import diagnose
    text = "".join(f"epoch {i} loss {v} acc 0.{i}1\r\n" for i, v in enumerate(["2.30", "1.90", "1.62", "nan"], 1))
    bom = b"\xff\xfe" if encoding == "utf-16" else b"\xfe\xff"
    data = text.encode(encoding)
    (tmp_path / "train.log").write_bytes(data if data.startswith(bom) else bom + data)
    (tmp_path / "metrics.csv").write_bytes(b"\xff\xfe" + "step,val_loss\r\n0,2.1\r\n1,1.8\r\n2,1.7\r\n".encode("utf-16-le"))
    (tmp_path / "train.py").write_bytes(b"\xff\xfe" + "import torch\nloss.backward()\n".encode("utf-16-le"))
    run = ingest([str(tmp_path)])
    assert not [w for w in run.warnings if "binary" in w], run.warnings
    got = {s.name: s.values.tolist() for s in run.series}
    assert got["loss"][:3] == [2.30, 1.90, 1.62] and math.isnan(got["loss"][3])
    assert got["val_loss"] == [2.1, 1.8, 1.7]
    assert next(t for t in run.texts if t.path == "train.py").text.startswith("import torch")
    d = diagnose([str(tmp_path / "train.log")], [])
    evs = [e for h in d.hypotheses for e in h.evidence if e.source == "train.log" and e.line]
    assert evs and all(e.verified for e in evs)
    assert any(e.quote == "epoch 4 loss nan acc 0.41" for e in evs), [e.quote for e in evs]


def test_an_attached_archive_says_to_unpack_it(tmp_path):
    """A post's logs attached as an archive (GitHub takes .zip and .gz; a cluster's .tar.gz) were 'binary file,
    skipped': the warning now names the archive and what to do."""
    import io
    import tarfile
    import zipfile
    log = b"epoch 1 loss 2.30\nepoch 2 loss nan\n"
    with zipfile.ZipFile(tmp_path / "logs.zip", "w") as z:
        z.writestr("train.log", log)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        info = tarfile.TarInfo("train.log")
        info.size = len(log)
        t.addfile(info, io.BytesIO(log))
    (tmp_path / "run.tar").write_bytes(buf.getvalue())
    with gzip.open(tmp_path / "run.tar.gz", "wb") as g:
        g.write(buf.getvalue())
    (tmp_path / "weights.bin").write_bytes(bytes(range(256)) * 8)
    w = ingest([str(tmp_path)]).warnings
    for name, kind in (("logs.zip", "zip"), ("run.tar", "tar"), ("run.tar.gz", "tar")):
        assert f"{name}: a {kind} archive, not read; unpack it and pass the folder" in w, w
    assert "weights.bin: binary file, skipped" in w


def test_a_metric_named_before_is_is_read_and_a_last_words_nan_is_not_a_point(tmp_path):
    """MindSpore's LossMonitor prints "epoch: 3 step: 38, loss is 1.1734": the word before the verb is the
    key. MAE's "Loss is nan, stopping training" is the run's last message, not a point of a curve."""
    p = tmp_path / "train.log"
    p.write_text("".join(f"epoch: {e} step: 38, loss is {1.45 - 0.12 * e:.4f}\n"
                         f"epoch {e} | eval acc: 0.{40 + e} | eval loss: 1.{40 - e}\n" for e in range(1, 6)))
    run = read(p)
    loss = series(run, "loss")
    assert loss.values.tolist() == [1.33, 1.21, 1.09, 0.97, 0.85] and loss.steps.tolist() == [38, 76, 114, 152, 190]
    q = tmp_path / "mae" / "log.txt"
    q.parent.mkdir()
    q.write_text("[10:41:36.508034] Loss is nan, stopping training\n")
    assert not [s for s in read(q).series if s.name == "loss"]


def test_mindspores_loss_is_nan_at_a_step_is_a_point_of_the_curve(tmp_path):
    """MindSpore prints "loss is nan" at the step where the run went non-finite: that is a point of the loss curve
    (the NaN the diagnosis must cite); only "Loss is nan, stopping training" is a message."""
    p = tmp_path / "train.log"
    p.write_text("".join(f"epoch: 1 step: {s}, loss is {0.9 - s / 1000:.4f}\n" for s in range(10, 300, 10))
                 + "epoch: 1 step: 300, loss is nan\n")
    loss = series(read(p), "loss")
    assert np.isnan(loss.values[-1]) and loss.steps[-1] == 300


def test_a_kaggle_kernel_log_is_read_as_the_console_it_recorded(tmp_path):
    """Kaggle's kernel log: a JSON list of stream records. What was printed is read as a log at the file's own lines
    (metrics, a traceback), and the evidence cited there verifies against the file, JSON-escaped as it is."""
    import json as _json
    from mltdbg.playbooks.diagnose import diagnose
    recs = [{"stream_name": "stderr", "time": 4.2, "data": "[NbConvertApp] Converting notebook __notebook__.ipynb\n"}]
    recs += [{"stream_name": "stdout", "time": 5.0 + e, "data": f"epoch={e} train_loss={2.3 - 0.2 * e:.4f} lr=0.01\n"}
             for e in range(1, 7)]
    recs += [{"stream_name": "stderr", "time": 12.0, "data": line + "\n"} for line in (
        "Traceback (most recent call last):", '  File "/kaggle/working/__notebook__.py", line 41, in <module>',
        "    loss = F.cross_entropy(out, yb)", "IndexError: Target 10 is out of bounds.")]
    p = tmp_path / "kernel-log.json"
    p.write_text(_json.dumps(recs, indent=1))
    from mltdbg.analyzers.ingest import ingest
    run = ingest([str(tmp_path)])
    assert [t.kind for t in run.texts] == ["log"]
    loss = series(run, "loss")
    assert loss.values.tolist()[:2] == [2.1, 1.9]
    assert '"data": "epoch=1 train_loss=2.1000' in p.read_text().splitlines()[loss.locs[0] - 1]
    h = diagnose([str(tmp_path)], []).hypotheses[0]
    assert h.id == "label_out_of_range" and h.evidence and all(e.verified for e in h.evidence)
    assert any(e.source == "kernel-log.json" for e in h.evidence)


@pytest.mark.parametrize("old,new", [("job-2024-06-12-10-58-30.log", "job-2024-06-14-16-20-05.log"),
                                     ("version_1/train.log", "version_2/train.log"),
                                     ("version_2/train.log", "version_10/train.log")])
def test_of_two_equally_long_logs_the_later_job_is_read(tmp_path, old, new):
    # the user hands last week's good job beside the new one; the new one is the run in question,
    # however the names sort as text (version_10 sorts before version_2)
    for name, val in ((old, 0.1), (new, 5.0)):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("".join(f"epoch {e}: loss={1 / e:.4f} val_loss={val * e:.4f}\n"
                                             for e in range(1, 11)))
    run = ingest([str(tmp_path)])
    assert run.metric("loss").source == run.metric("val_loss").source == new
    assert run.metric("val_loss").values[-1] == 50.0


@pytest.mark.parametrize("lines, want", [
    # Korean print labels, a test split named in Korean
    (["에폭 {e}/20 손실: {l:.4f} 정확도: {a:.4f} | 테스트 손실: {v:.4f} 테스트 정확도: {b:.4f}"],
     {"loss", "accuracy", "val_loss", "val_accuracy", "epoch"}),
    # Japanese, with a Latin prefix glued to the Japanese name ("val損失")
    (["エポック {e}/20 損失: {l:.4f} 正解率: {a:.2f} val損失: {v:.4f} val正解率: {b:.2f}"],
     {"loss", "accuracy", "val_loss", "val_accuracy", "epoch"}),
    # Chinese, full-width colons and commas, a learning rate
    (["Epoch {e}，训练损失：{l:.4f}，验证集准确率：{b:.4f}，学习率：0.001"], {"loss", "val_accuracy", "lr", "epoch"}),
])
def test_metric_names_printed_in_chinese_japanese_korean_are_read(tmp_path, lines, want):
    rows = [(e, 1.0 / e, 0.5 + 0.02 * e, 1.2 / e, 0.45 + 0.02 * e) for e in range(1, 21)]
    text = "".join(lines[0].format(e=e, l=l, a=a, v=v, b=b) + "\n" for e, l, a, v, b in rows)
    p = tmp_path / "train_log.txt"
    p.write_text("학습 로그 / 学習ログ / 训练日志\n" + text, encoding="utf-8")
    run = ingest([str(tmp_path)])
    assert want <= set(run.metric_names())
    assert run.metric("loss").values.tolist() == [round(1.0 / e, 4) for e in range(1, 21)]
    assert run.metric("loss").steps.tolist() == list(range(1, 21))
    if "val_loss" in want:
        assert run.metric("val_loss").values[0] == 1.2
    # line numbers and quotes stay the file's own, in its own words
    assert run.metric("loss").locs[0] == 2
    assert run.text("train_log.txt").text.splitlines()[1] == text.splitlines()[0]


def test_cjk_names_keep_the_byte_length_and_leave_ascii_and_prose_alone():
    from mltdbg.analyzers.readers.textlog.vocabulary import cjk_keys  # noqa: PLC0415

    for t in ["에폭 1/20 손실: 0.3416 정확도: 0.8600 | 테스트 손실: 0.0685", "平均训练损失：0.3，学习率：0.001",
              "interval損失: 2", "训练损失一直不下降，怎么办？", "epoch 1 loss: 0.5"]:
        b = t.encode()
        assert len(cjk_keys(b)) == len(b) and cjk_keys(b).count(b"\n") == b.count(b"\n")
    assert cjk_keys("平均训练损失：0.3".encode()).split() == [b"avg_train_loss:", b"0.3"]
    assert cjk_keys(b"epoch 1 loss: 0.5") == b"epoch 1 loss: 0.5"
    prose = "训练损失一直不下降，怎么办？".encode()      # no value after it: prose, left as it is
    assert cjk_keys(prose) == prose
    assert b"val" not in cjk_keys("interval損失: 2".encode()).replace(b"interval", b"")


@pytest.mark.parametrize("fmt", ["iter {s:5d} | loss {l:.4e} | ic 8.5e-01 | |g| {g:.3e} | rel_l2 1.04",
                                 "ep {s}  loss {l:.4f}  val 0.9  |grad| mean {g:.1f} max 9999.0",
                                 "step {s}: loss={l:.4f}, ||grad||={g:.3f}", "step {s} loss {l:.4f} \u2016\u2207\u03b8\u2016 {g:.3f}",
                                 "step {s} loss {l:.4f} ||g||_2: {g:.3f}"])
def test_a_gradient_norm_written_as_a_norm_is_the_grad_norm(tmp_path, fmt):
    """"|g| 3.354e+00", "|grad| mean 14564.2", "||grad||=1.2", "‖∇θ‖ 2.0": a gradient norm in a formula's notation is the
    run's grad_norm (the huge gradients of raw inputs, the growth before a NaN); the file's text is unchanged."""
    p = tmp_path / "train.log"
    text = "\n".join(fmt.format(s=s, l=3 - s / 200, g=1000.0 / (s + 1)) for s in range(0, 300, 10)) + "\n"
    p.write_text(text, encoding="utf-8")
    g = series(read(p), "grad_norm")
    assert g.values.tolist()[:2] == pytest.approx([1000.0, 1000.0 / 11], rel=1e-3) and len(g.values) == 30
    assert series(read(p), "loss").values[0] == 3.0
    from mltdbg.analyzers.readers.textlog.vocabulary import norm_keys  # noqa: PLC0415 - the rewrite itself
    raw = text.encode()
    assert len(norm_keys(raw)) == len(raw) and norm_keys(raw).count(b"\n") == raw.count(b"\n")


def test_bars_around_anything_else_are_no_gradient_norm(tmp_path):
    """|w|, |x - y|, a table's cells ("| g | 9.81 |" is a column named g) and "|g|" with no room for a key (no bar before
    its space: "loss 0.5 |g| 3.3" would glue "norm" to the loss) stay as printed."""
    from mltdbg.analyzers.readers.textlog.vocabulary import norm_keys  # noqa: PLC0415 - the rewrite itself
    for b in (b"|w| 3.3", b"|x - y| 2", b"|g| 3.3", b"x|g| 3", b"step 1 | loss 0.5 | lr 0.1", b"|grad| is large",
              b"| g | 9.81 |", b"| grad | 3 |", b"loss 0.5 |g| 3.3", b"loss 0.5\t|g| 3.3"):
        assert norm_keys(b) == b, b
    # after a comma or a semicolon the space before |g| gives the key its fourth byte (review)
    for b in (b"loss=0.5, |g|=3.3", b"loss: 0.5; |g|: 3.3"):
        assert norm_keys(b) == b.replace(b" |g|", b"norm"), b
    p = tmp_path / "train.log"
    p.write_text("".join(f"step {s} loss {3 - s / 200:.3f} |w| {1 + s:.1f}\n" for s in range(0, 300, 10)))
    assert not [s for s in read(p).series if s.name == "grad_norm"]


def test_mmengine_validation_lines_sit_at_the_step_that_closed_their_epoch(tmp_path):
    # "Epoch(val) [2][4/4]": 4/4 is the evaluation loop's batch counter, no training step; mmpretrain's training lines
    # print top-1 accuracy as accuracy_top-1
    lines = []
    for e in (1, 2, 3):
        lines += [f"2026/12/06 22:08:00 - mmengine - INFO - Epoch(train) [{e}][{i:2d}/16]  base_lr: 1.0000e-03 "
                  f"lr: 1.0000e-03  eta: 0:00:12  time: 0.0100  data_time: 0.0004  loss: {2.3 / e - 0.01 * i:.4f}  "
                  f"accuracy_top-1: {30 * e + i:.4f}" for i in (10, 16)]
        lines.append(f"2026/12/06 22:08:01 - mmengine - INFO - Epoch(val) [{e}][4/4]    accuracy/top1: {20.0 * e:.4f}  "
                     f"val_loss: {2.0 / e:.4f}  data_time: 0.0016  time: 0.0328")
    (tmp_path / "20261206_220758.log").write_text("\n".join(lines) + "\n")
    run = ingest([str(tmp_path)])
    assert run.metric("loss").steps.tolist() == [10, 16, 26, 32, 42, 48]
    assert run.metric("val_accuracy").steps.tolist() == [16, 32, 48]
    assert run.metric("val_accuracy").values.tolist() == [20.0, 40.0, 60.0]
    assert run.metric("accuracy").values.tolist()[:2] == [40.0, 46.0]


def test_points_before_a_rare_line_with_a_step_are_kept(tmp_path):
    """clu's "[8] train_accuracy=1.0, train_loss=0.02" lines (their "[8]" is no step read here) with one
    "Saved checkpoint for epoch 5 at step 80." in the middle: the first ten points are the run's (read before as a
    config echo and dropped), and equal values on the lines after it are points, not one point repeated at the step
    they carry."""
    lines = []
    for i in range(1, 21):
        lines.append(f"I1207 00:39:51.361615 140426198076288 train.py:16] [{8 * i}] train_accuracy={min(1.0, 0.5 + i / 20):.4f}, "
                     f"train_loss={1 / i:.4f}")
        if i == 10:
            lines.append("I1207 00:39:53.905523 140426198076288 train.py:67] Saved checkpoint for epoch 5 at step 80.")
    p = tmp_path / "train.log"
    p.write_text("\n".join(lines) + "\n")
    by = {s.name: s for s in read(p).series}
    assert len(by["loss"]) == 20 and by["loss"].values[0] == 1.0
    assert len(by["accuracy"]) == 20 and by["accuracy"].values[-1] == 1.0


def test_an_espnet_results_line_holds_both_sets(tmp_path):
    """ESPnet prints each epoch's "Nepoch results: [train] loss=..., acc=..., [valid] loss=..., acc=..., wer=..." on one
    line: the keys after "[valid]" are the validation set's (read before as more training points)."""
    lines = []
    for e in range(1, 6):
        lines.append(f"[host] 2026-12-07 01:11:44,363 (trainer:338) INFO: {e}epoch results: [train] iter_time=3.4e-04, "
                     f"loss_ctc={50 - e:.3f}, acc={0.1 * e:.3f}, loss={47 - e:.3f}, time=0.51 seconds, total_count={10 * e}, "
                     f"[valid] loss_ctc={46 + e:.3f}, cer_ctc=0.9, acc={0.4 + 0.01 * e:.3f}, loss={45 + e:.3f}, wer=0.95")
    p = tmp_path / "train.log"
    p.write_text("\n".join(lines) + "\n")
    by = {s.name: s for s in read(p).series}
    assert by["loss"].values.tolist() == [46, 45, 44, 43, 42] and by["val_loss"].values.tolist() == [46, 47, 48, 49, 50]
    assert by["accuracy"].values[-1] == 0.5 and by["val_accuracy"].values[-1] == 0.45 and len(by["val_wer"]) == 5


def test_epoch_header_layouts_keep_their_steps_and_fold_repeated_lines(tmp_path):
    """(review) "Epoch N" headers carry their step to the lines under them: two handlers printing each loss line twice
    are one point per epoch, and one stray line before the first header leaves the epochs as steps."""
    p = tmp_path / "dup.log"
    p.write_text("".join(f"Epoch {e}\nloss={1 / e:.3f}\nloss={1 / e:.3f}\n" for e in range(1, 9)))
    loss = next(s for s in read(p).series if s.name == "loss")
    assert len(loss) == 8 and loss.steps.tolist() == list(range(1, 9)) and not loss.step_is_index
    q = tmp_path / "stray.log"
    q.write_text("loss=2.30\n" + "".join(f"Epoch {e}\nloss={1 / e:.3f}\n" for e in range(1, 9)))
    loss = next(s for s in read(q).series if s.name == "loss")
    assert loss.steps.tolist() == list(range(1, 9)) and not loss.step_is_index



def test_ranking_metrics_at_a_cut_off_and_bare_short_names(tmp_path):
    """Recommender logs print `HR@10 0.1133`, `recall@20: 0.0371`, `MRR 0.0462`, `AUC 0.71`: a key ending in digits
    before ':' or a space (where the byte tests read a time or no key) and short names in the space form."""
    p = tmp_path / "train.log"
    p.write_text("".join(f"epoch {i:03d} | bpr_loss {0.69 - i / 100:.4f} | HR@10 {0.1 + i / 50:.4f} | "
                         f"recall@20: {0.03 + i / 100:.4f} | MRR {0.04 + i / 200:.4f} | AUC {0.6 + i / 100:.3f}\n"
                         for i in range(1, 9)) + "12:30: 7 items done at 14:00 5 left\n")
    run = read(p)
    assert series(run, "hr@10").values[-1] == pytest.approx(0.26)
    assert series(run, "recall@20").values[0] == pytest.approx(0.04)
    assert series(run, "mrr").values[1] == pytest.approx(0.05)
    assert len(series(run, "auc")) == 8
    assert {s.name for s in run.series} == {"epoch", "bpr_loss", "hr@10", "recall@20", "mrr", "auc"}


def test_the_trainer_banner_s_step_counts_are_no_step(tmp_path):
    """HF Trainer's banner ("Total optimization steps = 128", "Gradient Accumulation steps = 2") before stepless
    record dicts: counts, not the step the records are at (read as one, every record sat at step 128 and the
    constant grad_norm 0.0 and eval_loss folded away)."""
    p = tmp_path / "train.log"
    p.write_text("***** Running training *****\n  Num examples = 1024\n  Num Epochs = 2\n"
                 "  Gradient Accumulation steps = 2\n  Total optimization steps = 128\n"
                 + "".join(f"{{'loss': {3.5 + (i % 3) / 10:.4f}, 'grad_norm': 0.0, 'learning_rate': 0.001, 'epoch': {i / 10}}}\n"
                           + (f"{{'eval_loss': 3.3773, 'epoch': {i / 10}}}\n" if i % 5 == 4 else "") for i in range(20)))
    run = read(p)
    assert len(series(run, "grad_norm")) == 20 and not series(run, "grad_norm").values.any()
    assert len(series(run, "val_loss")) == 4
    assert 128 not in series(run, "loss").steps


def test_one_header_s_counter_carried_to_every_record_is_no_step(tmp_path):
    """A header line with "num_updates=80" (how many updates the job will make) above stepless PPO record dicts:
    read as their step, every record sat at step 80 and the constant KL and clip-fraction columns folded to one
    point. One step carried to every point is read as no step: 30 records, 30 points."""
    p = tmp_path / "train.log"
    p.write_text("===training policy===  num_updates=80 batch_size=32\n"
                 + "".join(f"{{'objective/kl': 0.0, 'policy/approxkl_avg': 0.0, 'objective/scores': {0.1 * (i % 7):.2f}, "
                           f"'episode': {32 * i}}}\n" for i in range(30)))
    run = read(p)
    assert len(series(run, "objective/kl")) == 30 and len(series(run, "policy/approxkl_avg")) == 30


def test_a_negative_number_after_a_space_is_a_value(tmp_path):
    """'loss -0.0327' (a key, a space, a negative number: a CTC loss with a label on the blank) is a value, as
    'loss=-0.0327' is; a dash and a space between fields ('loss 0.5 - acc 0.9') is a separator, no sign."""
    p = tmp_path / "train.log"
    p.write_text("iter 10 loss 4.1457 lr 3.0e-03\niter 20 loss -0.0327 lr 3.0e-03\niter 30 loss -.1695 lr 3.0e-03\n"
                 "iter 40 loss 0.5 - lr 3.0e-03\n")
    run = read(p)
    assert series(run, "loss").values.tolist() == [4.1457, -0.0327, -0.1695, 0.5]
    assert series(run, "lr").values.tolist() == [0.003] * 4


def test_a_boxed_table_as_rich_draws_it(tmp_path):
    """rich's boxed table (heavy header, light rows, box-drawing rules) is a delimited table like markdown's; a share
    printed in percent ("86.9%") is a number on its own scale."""
    rows = "".join(f"│ {e:>5} │ {1.79 - e / 1000:>10.4f} │ {1.79 - e / 900:>8.4f} │ {0.16 + e / 500:>7.3f} │ {86.9:>10}% │\n"
                   for e in range(1, 7))
    p = tmp_path / "console.log"
    p.write_text("[12:29:52] MLP width=128 depth=3\n                 run summary\n"
                 "┏━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━┳━━━━━━━━━━━━━┓\n"
                 "┃ epoch ┃ train_loss ┃ val_loss ┃ val_acc ┃ zero_act_l1 ┃\n"
                 "┡━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━╇━━━━━━━━━━━━━┩\n" + rows +
                 "└───────┴────────────┴──────────┴─────────┴─────────────┘\n")
    run = read(p)
    loss = series(run, "loss")
    assert loss.raw_name == "train_loss" and loss.steps.tolist() == [1, 2, 3, 4, 5, 6] and loss.locs.tolist()[0] == 6
    assert series(run, "val_accuracy").values[0] == pytest.approx(0.162)
    assert [s for s in run.series if s.raw_name == "zero_act_l1"][0].values.tolist() == [86.9] * 6


@pytest.mark.parametrize("lines", [
    ["epoch 01 | train loss 0.3457 acc 0.80 | val loss 0.1400 acc 0.85",
     "epoch 02 | train loss 0.2000 acc 0.90 | val loss 0.1000 acc 0.91",
     "epoch 03 | train loss 0.1000 acc 0.95 | val loss 0.0900 acc 0.93"],
    ["epoch 1 train: loss 0.3457 acc 0.80 | Val: loss 0.1400 acc 0.85 | lr 0.001 | time 11.2s",
     "epoch 2 train: loss 0.2000 acc 0.90 | Val: loss 0.1000 acc 0.91 | lr 0.002 | time 12.2s",
     "epoch 3 train: loss 0.1000 acc 0.95 | Val: loss 0.0900 acc 0.93 | lr 0.003 | time 13.2s"],
])
def test_a_lines_held_out_part_after_a_bar_is_that_sets(tmp_path, lines):
    """"| val loss 0.14 acc 0.85" (any case) after the training part of the line: the keys there are the validation
    set's (the bare `acc` was one series of train and val values, alternating), up to the next bar (its lr is none)."""
    got = _series_of(tmp_path, "train.log", "\n".join(lines) + "\n")
    assert got["loss"] == [0.3457, 0.2, 0.1] and got["accuracy"] == [0.8, 0.9, 0.95], got
    assert got["val_loss"] == [0.14, 0.1, 0.09] and got["val_accuracy"] == [0.85, 0.91, 0.93], got
    assert "val_lr" not in got and "val_step_time" not in got, got


def test_a_bar_before_a_word_that_only_starts_like_a_set_is_no_tag(tmp_path):
    got = _series_of(tmp_path, "train.log", "".join(f"step {i} | loss {1.0 / (i + 1):.3f} | value_loss {0.5:.3f} "
                                                     f"| testing acc {0.5:.2f}\n" for i in range(3)))
    assert "val_loss" not in got and got["loss"] == [1.0, 0.5, 0.333], got


def test_auroc_and_auprc_printed_bare_are_metrics(tmp_path):
    got = _series_of(tmp_path, "train.log", "".join(f"epoch {i} | train loss {0.3 / i:.3f} auroc 0.99 | val loss 0.1 "
                                                     f"auroc 0.99{i} auprc 0.98{i}\n" for i in range(1, 4)))
    assert got["val_auroc"] == [0.991, 0.992, 0.993] and got["val_auprc"] == [0.981, 0.982, 0.983], got


def test_printed_output_kept_in_a_json_string_is_read_for_its_messages(tmp_path):
    """An autograder's results.json: a test's "output" string holds the program's printed traceback, its line
    breaks JSON-escaped. Its error message is read as a log line's, cited at the file's own line, and the evidence
    verifies against the file as it is. The same file without the message says nothing; blanking the escapes keeps
    the text's length (every offset stays)."""
    import json as _json
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.analyzers.log_findings import text_signals
    from mltdbg.analyzers.tracebacks import blank_json_escapes
    from mltdbg.playbooks.diagnose import diagnose
    out = ("[grader] train_model on X_small (1089, 64)\nTraceback (most recent call last):\n"
           '  File "/autograder/submission/train.py", line 47, in train_model\n    loss = loss_fn(model(xb), yb)\n'
           "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 128])\n")
    doc = {"score": 15.0, "tests": [{"name": "0) imports", "score": 5.0, "status": "passed", "output": ""},
                                    {"name": "1) train_model runs", "score": 0.0, "status": "failed", "output": out}]}
    p = tmp_path / "results.json"
    p.write_text(_json.dumps(doc, indent=2))
    run = ingest([str(tmp_path)])
    hit = {s.kind: s for s in text_signals(run)}["log:var_dof"]
    line = p.read_text().split("\n")[hit.evidence[0].line - 1]
    assert '"output": "[grader]' in line and "value per channel" in hit.evidence[0].quote
    h = diagnose([str(tmp_path)], []).hypotheses[0]
    assert h.id == "zero_variance_statistic" and any(e.source == "results.json" and e.verified for e in h.evidence)
    p.write_text(_json.dumps({**doc, "tests": doc["tests"][:1]}, indent=2))
    assert "log:var_dof" not in {s.kind for s in text_signals(ingest([str(tmp_path)]))}
    # a dataset's strings that quote an error (an instruction set's samples) are no program's output
    data = [{"instruction": "Explain this error", "input": "Traceback ...\nRuntimeError: CUDA out of memory. Tried to "
             "allocate 2.00 GiB\n", "response": "Lower the batch size."}]
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "train_data.json").write_text(_json.dumps(data, indent=1))
    assert "log:cuda_oom" not in {s.kind for s in text_signals(ingest([str(tmp_path / "ds")]))}
    text = p.read_text() + '"a\\nb\\t\\"c\\""'
    assert len(blank_json_escapes(text)) == len(text) and "\\n" not in blank_json_escapes(text)


def test_an_ai_assistants_turns_in_a_pasted_conversation_are_not_read(tmp_path):
    """A conversation with a chat assistant handed over as text: the user's turns (what they saw and pasted) are read;
    the assistant's (its guesses, the errors it quotes as examples: model output, no observation of the run) are blanked,
    lines kept. A post that only names an assistant, or has no user turn, is read whole."""
    chat = ("## User\nMy loss goes to nan at step 650:\n```\nstep 640 loss 0.31\nstep 650 loss nan\n```\n\n"
            "## Assistant\nThis is most likely exploding gradients. A typical message is CUDA out of memory.\n"
            "Try lowering the lr.\n\n## User\nlowering the lr did not help\n")
    p = tmp_path / "chat_export.md"
    p.write_text(chat)
    (art,) = read(p).texts
    assert "exploding" not in art.text and "CUDA out of memory" not in art.text and "lowering the lr did not" in art.text
    assert art.text.count("\n") == chat.count("\n") and len(art.text) == len(chat)
    assert art.line(13).strip() == "lowering the lr did not help"
    from mltdbg.analyzers.log_findings import text_signals  # noqa: PLC0415 - what the reader's text feeds
    assert "log:cuda_oom" not in {s.kind for s in text_signals(read(p))}
    for whole in ("Assistant: try a smaller lr\nit still diverges\n",            # no user turn: no transcript
                  "I asked Claude and ChatGPT, both said the lr. User error?\n",  # names, no turn headers
                  # an RLHF log that prints a sample of its data (review): not a conversation handed over
                  "step 1 loss 2.1\nstep 2 loss 2.0\nsample:\nstep 3 loss 1.9\nstep 4 loss 1.8\nHuman: hi\n"
                  "Assistant: hello\nstep 5 loss 1.7\nRuntimeError: CUDA out of memory\n"):
        p.write_text(whole)
        assert read(p).texts[0].text == whole
    # a chat template in code or a config is the program's text (review)
    for name, body in (("train.py", 'TEMPLATE = """\nUser:\n{q}\nAssistant:\n{a}"""\nloss.backward()\n'),
                       ("config.yaml", "chat_template:\n  user: 'User:'\nassistant:\n  x: 1\nlearning_rate: 5.0\n")):
        q = tmp_path / name
        q.write_text(body)
        from mltdbg.analyzers.ingest import ingest  # noqa: PLC0415 - the files as a run reads them
        assert [t.text for t in ingest([str(q)]).texts if t.path == name] == [body], name


def test_julias_float32_literals_are_numbers(tmp_path):
    """Flux's loops print Float32 values with Julia's own exponent letter ("loss = 1.4486f0", "lr = 1.0f-5"): the same
    numbers as 1.4486e0 and 1.0e-5, read as the series they are; words that end in f0 stay words."""
    p = tmp_path / "output.txt"
    p.write_text("".join(f"Epoch {e}: loss = {1.5 / e:.4f}f0, val_loss = {1.6 / e:.4f}f0, lr = 1.0f-{e + 2}\n"
                         for e in range(1, 9)))
    run = read(p)
    assert series(run, "loss").values[:2].tolist() == [1.5, 0.75] and series(run, "val_loss").values[0] == 1.6
    assert series(run, "lr").values[0] == pytest.approx(1e-3)
    from mltdbg.analyzers.readers.textlog.scan import julia_floats  # noqa: PLC0415 - the rewrite itself
    for b in (b"self0 f0 buf0.5", b"v1.2f0rc", b"epoch 1 loss 0.5", b"<Net object at 0x7f0a3c2b1d90> loss 0.5"):
        assert julia_floats(b) == b
    # Float32's NaN and Inf, and a value at a sentence's end (review)
    assert julia_floats(b"loss = 0.5f0, then loss = NaN32 at 0.25f0.") == b"loss = 0.5e0, then loss = NaN   at 0.25e0."
