"""Pieces the zoo's train.py files are assembled from.

Every generated case ships a self-contained `train.py` (what a user would have);
this module holds the text it is built from: log styles (each defines
`log_train(step, epoch, m)`, `log_val(step, epoch, m)`, `log_text(msg)` and
`close()` writing one artifact format), synthetic data makers, models, and a
classifier training-loop template whose marked lines the cases replace to
inject a bug. Nothing here is imported by train.py itself.
"""
from __future__ import annotations

import textwrap

# ---------------------------------------------------------------------------
# Log styles. `RUN` (total steps, epochs, steps per epoch) is set by main().
# ---------------------------------------------------------------------------

STYLE_KV = '''
def _fmt(v):
    return f"{v:.5g}" if isinstance(v, float) else str(v)


def log_train(step, epoch, m):
    print(" ".join([f"step={step}", f"epoch={epoch}"] + [f"{k}={_fmt(v)}" for k, v in m.items()]), flush=True)


def log_val(step, epoch, m):
    print(" ".join(["[eval]", f"step={step}", f"epoch={epoch}"] + [f"{k}={_fmt(v)}" for k, v in m.items()]), flush=True)


def log_text(msg):
    print(msg, flush=True)


def close():
    pass
'''

STYLE_PYLOGGING = '''
import logging

logging.basicConfig(filename="train.log", level=logging.INFO,
                    format="%(asctime)s %(levelname)s %(name)s: %(message)s")
logger = logging.getLogger("trainer")


def log_train(step, epoch, m):
    logger.info("epoch %d step %d/%d - %s", epoch, step, RUN["total"],
                ", ".join(f"{k}: {v:.4e}" if k == "lr" else f"{k}: {v:.4f}" for k, v in m.items()))


def log_val(step, epoch, m):
    logger.info("validation after epoch %d - %s", epoch, ", ".join(f"{k}: {v:.4f}" for k, v in m.items()))


def log_text(msg):
    logger.info(msg)


def close():
    logger.info("done")
'''

STYLE_PIPE = '''
def log_train(step, epoch, m):
    parts = [f"Step {step}/{RUN['total']}"]
    for k, v in m.items():
        parts.append(f"{k} {v:.2e}" if k == "lr" else f"{k} {v:.4f}")
    print(" | ".join(parts), flush=True)


def log_val(step, epoch, m):
    print(" | ".join([f"Eval @ step {step}"] + [f"{k} {v:.4f}" for k, v in m.items()]), flush=True)


def log_text(msg):
    print(msg, flush=True)


def close():
    pass
'''

# HF Trainer prints dicts to stdout and keeps log_history in trainer_state.json.
STYLE_HFDICT = '''
import json
import os

_HF_NAMES = {"lr": "learning_rate", "val_loss": "eval_loss", "val_acc": "eval_accuracy"}
_history = []


def _hf(step, epoch, m, prefix_eval=False):
    rec = {}
    for k, v in m.items():
        rec[_HF_NAMES.get(k, ("eval_" + k) if prefix_eval else k)] = round(v, 4) if k != "lr" else v
    rec["epoch"] = round(step / RUN["per_epoch"], 2)
    return rec


def log_train(step, epoch, m):
    rec = _hf(step, epoch, m)
    print(rec, flush=True)
    _history.append({**rec, "step": step})


def log_val(step, epoch, m):
    rec = _hf(step, epoch, m, prefix_eval=True)
    print(rec, flush=True)
    _history.append({**rec, "step": step})


def log_text(msg):
    print(msg, flush=True)


def close():
    os.makedirs("output/checkpoint-final", exist_ok=True)
    losses = [r["loss"] for r in _history if "loss" in r]
    summary = {"train_runtime": 61.2, "train_samples_per_second": 812.4, "train_steps_per_second": 25.4,
               "train_loss": sum(losses) / max(1, len(losses)), "epoch": float(RUN["epochs"])}
    print(summary, flush=True)
    state = {"best_metric": None, "best_model_checkpoint": None, "epoch": float(RUN["epochs"]),
             "eval_steps": RUN["per_epoch"], "global_step": RUN["total"], "is_hyper_param_search": False,
             "is_local_process_zero": True, "is_world_process_zero": True,
             "log_history": _history + [{**summary, "step": RUN["total"]}],
             "logging_steps": RUN["log_every"], "max_steps": RUN["total"],
             "num_train_epochs": RUN["epochs"], "total_flos": 0, "train_batch_size": RUN["batch_size"]}
    with open("output/checkpoint-final/trainer_state.json", "w") as f:
        json.dump(state, f, indent=2)
'''

STYLE_KERAS = '''
import sys

_acc = {}


def log_train(step, epoch, m):
    # Keras prints one line per epoch: keep a running mean of the train metrics.
    for k, v in m.items():
        _acc.setdefault(k, []).append(v)


def log_val(step, epoch, m):
    n = RUN["per_epoch"]
    ms = 23 + (epoch * 7) % 5
    parts = [f"{n}/{n} [==============================] - {max(1, n * ms // 1000)}s {ms}ms/step"]
    names = {"acc": "accuracy", "val_acc": "val_accuracy"}
    for k, vs in _acc.items():
        if k in ("lr", "grad_norm"):
            continue
        parts.append(f"{names.get(k, k)}: {sum(vs) / len(vs):.4f}")
    for k, v in m.items():
        parts.append(f"{names.get(k, k)}: {v:.4f}")
    print(f"Epoch {epoch + 1}/{RUN['epochs']}", flush=True)
    print(" - ".join(parts), flush=True)
    _acc.clear()


def log_text(msg):
    print(msg, flush=True)


def close():
    pass
'''

# A tqdm-like progress bar written by hand: carriage returns, postfix with the metrics.
STYLE_TQDM = '''
import sys
import time

_t0 = time.time()


def _bar(i, n, width=10):
    full = int(width * i / n)
    return "\\u2588" * full + " " * (width - full)


def log_train(step, epoch, m):
    n = RUN["per_epoch"]
    i = step - epoch * n
    el = time.time() - _t0
    rate = step / max(el, 1e-9)
    post = ", ".join(f"{k}={v:.3g}" for k, v in m.items())
    sys.stderr.write(f"\\rEpoch {epoch}: {100 * i // n:3d}%|{_bar(i, n)}| {i}/{n} "
                     f"[{int(el) // 60:02d}:{int(el) % 60:02d}<00:00, {rate:.2f}it/s, {post}]")
    if i == n:
        sys.stderr.write("\\n")
    sys.stderr.flush()


def log_val(step, epoch, m):
    sys.stderr.write("Validation: " + ", ".join(f"{k}={v:.4f}" for k, v in m.items()) + "\\n")


def log_text(msg):
    sys.stderr.write(msg + "\\n")


def close():
    pass
'''

STYLE_CSV = '''
import csv
import os

_train_f = _val_f = None
_train_w = _val_w = None


def log_train(step, epoch, m):
    global _train_f, _train_w
    if _train_w is None:
        os.makedirs("logs", exist_ok=True)
        _train_f = open("logs/train_metrics.csv", "w", newline="")
        _train_w = csv.writer(_train_f)
        _train_w.writerow(["step", "epoch", *m.keys()])
    _train_w.writerow([step, epoch, *(f"{v:.6g}" for v in m.values())])


def log_val(step, epoch, m):
    global _val_f, _val_w
    if _val_w is None:
        os.makedirs("logs", exist_ok=True)
        _val_f = open("logs/val_metrics.csv", "w", newline="")
        _val_w = csv.writer(_val_f)
        _val_w.writerow(["step", "epoch", *m.keys()])
    _val_w.writerow([step, epoch, *(f"{v:.6g}" for v in m.values())])


def log_text(msg):
    print(msg, flush=True)


def close():
    for f in (_train_f, _val_f):
        if f:
            f.close()
'''

# Lightning's CSVLogger: one metrics.csv, train and val rows separate, blank cells.
STYLE_LIGHTNING_CSV = '''
import csv
import os

_rows = []
_LOG_DIR = "lightning_logs/version_0"
_PL_NAMES = {"loss": "train_loss_step", "lr": "lr-Adam", "grad_norm": "grad_2.0_norm_total"}


def log_train(step, epoch, m):
    _rows.append({"epoch": epoch, "step": step - 1, **{_PL_NAMES.get(k, k): v for k, v in m.items()}})


def log_val(step, epoch, m):
    _rows.append({"epoch": epoch, "step": step - 1, **m})


def log_text(msg):
    print(msg, flush=True)


def close():
    os.makedirs(_LOG_DIR, exist_ok=True)
    keys = []
    for r in _rows:
        keys += [k for k in r if k not in keys]
    with open(os.path.join(_LOG_DIR, "metrics.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in _rows:
            w.writerow(r)
'''

STYLE_JSONL = '''
import json

_f = open("metrics.jsonl", "w")


def log_train(step, epoch, m):
    _f.write(json.dumps({"step": step, "epoch": epoch, **{f"train/{k}": v for k, v in m.items()}}) + "\\n")


def log_val(step, epoch, m):
    _f.write(json.dumps({"step": step, "epoch": epoch, **{k.replace("val_", "val/"): v for k, v in m.items()}}) + "\\n")


def log_text(msg):
    print(msg, flush=True)


def close():
    _f.close()
'''

STYLE_BEGINNER = '''
def log_train(step, epoch, m):
    i = step - epoch * RUN["per_epoch"]
    print(f"Epoch [{epoch + 1}/{RUN['epochs']}], Step [{i}/{RUN['per_epoch']}], Loss: {m['loss']:.4f}"
          + "".join(f", {k}: {v:.4f}" for k, v in m.items() if k not in ("loss", "lr")), flush=True)


def log_val(step, epoch, m):
    print(f"Epoch [{epoch + 1}/{RUN['epochs']}] validation: " + ", ".join(f"{k} {v:.4f}" for k, v in m.items()), flush=True)


def log_text(msg):
    print(msg, flush=True)


def close():
    pass
'''

# PyTorch-tutorial TensorBoard names ("Loss/train").
STYLE_TB_TUTORIAL = '''
from torch.utils.tensorboard import SummaryWriter

writer = SummaryWriter("runs/exp1")
_TB = {"loss": "Loss/train", "val_loss": "Loss/val", "val_acc": "Accuracy/val", "lr": "LR", "grad_norm": "GradNorm"}


def log_train(step, epoch, m):
    for k, v in m.items():
        writer.add_scalar(_TB.get(k, k), v, step)


def log_val(step, epoch, m):
    for k, v in m.items():
        writer.add_scalar(_TB.get(k, k), v, step)


def log_text(msg):
    print(msg, flush=True)


def close():
    writer.close()
'''

# Hold-out TensorBoard naming ("train/total_loss", "optim/gnorm", "optim/lr-AdamW").
STYLE_TB_HOLDOUT = '''
from torch.utils.tensorboard import SummaryWriter

writer = SummaryWriter("tb")
_TB = {"loss": "train/total_loss", "lr": "optim/lr-AdamW", "grad_norm": "optim/gnorm",
       "val_loss": "eval/total_loss", "val_acc": "eval/top1"}


def log_train(step, epoch, m):
    for k, v in m.items():
        writer.add_scalar(_TB.get(k, "train/" + k), v, step)


def log_val(step, epoch, m):
    for k, v in m.items():
        writer.add_scalar(_TB.get(k, "eval/" + k), v, step)


def log_text(msg):
    pass


def close():
    writer.close()
'''

STYLE_MLFLOW = '''
import mlflow

mlflow.set_tracking_uri("file:./mlruns")
_run = None
_ML = {"loss": "train_loss", "lr": "learning_rate", "grad_norm": "grad_norm"}


def log_train(step, epoch, m):
    global _run
    if _run is None:
        _run = mlflow.start_run()
        mlflow.log_params(CFG)
    mlflow.log_metrics({_ML.get(k, k): v for k, v in m.items()}, step=step)


def log_val(step, epoch, m):
    mlflow.log_metrics(m, step=step)


def log_text(msg):
    print(msg, flush=True)


def close():
    mlflow.end_run()
'''

# torchrun-style rank-prefixed output, metric names a hold-out reader has not seen.
STYLE_RANK = '''
import time

_t0 = time.time()
_RK = {"loss": "loss", "lr": "lr", "grad_norm": "gnorm"}


def log_train(step, epoch, m):
    fields = " ".join(f"{_RK.get(k, k)}={v:.4g}" for k, v in m.items())
    print(f"[rank0]: it {step:>6d} | ep {epoch} | {fields} | t={time.time() - _t0:.1f}s", flush=True)


def log_val(step, epoch, m):
    print(f"[rank0]: eval it {step} | " + " ".join(f"{k}={v:.4g}" for k, v in m.items()), flush=True)


def log_text(msg):
    print(f"[rank0]: {msg}", flush=True)


def close():
    print("[rank0]: training finished", flush=True)
'''

# glog/absl format: "I0501 12:00:01.123456 140234 train.py:88] ..."
STYLE_ABSL = '''
import logging
import sys

_h = logging.StreamHandler(sys.stderr)
_h.setFormatter(logging.Formatter("%(levelname).1s%(asctime)s.%(msecs)03d000 %(process)d %(filename)s:%(lineno)d] %(message)s",
                                  datefmt="%m%d %H:%M:%S"))
log = logging.getLogger("train")
log.addHandler(_h)
log.setLevel(logging.INFO)


def log_train(step, epoch, m):
    rest = ", ".join(f"{k} = {v:.5g}" for k, v in m.items() if k != "loss")
    log.info("global_step %d, loss = %.5f, %s (%.1f examples/sec)", step, m["loss"], rest, 3150.0 + 10 * (step % 7))


def log_val(step, epoch, m):
    log.info("Saving dict for global step %d: %s", step, ", ".join(f"{k} = {v:.5f}" for k, v in m.items()))


def log_text(msg):
    log.info(msg)


def close():
    log.info("Loss for final step: done.")
'''

# Megatron-LM iteration lines.
STYLE_MEGATRON = '''
import time

_t0 = time.time()
_last = [time.time()]


def log_train(step, epoch, m):
    now = time.time()
    ms = (now - _last[0]) * 1000.0 / RUN["log_every"]
    _last[0] = now
    parts = [f" iteration {step:>8d}/{RUN['total']:>8d}", f"consumed samples: {step * RUN['batch_size']:>12d}",
             f"elapsed time per iteration (ms): {ms:.1f}", f"learning rate: {m['lr']:.6E}",
             f"global batch size: {RUN['batch_size']:>5d}", f"lm loss: {m['loss']:.6E}"]
    if "loss_scale" in m:
        parts.append(f"loss scale: {m['loss_scale']:.1f}")
    parts.append(f"grad norm: {m['grad_norm']:.3f}")
    parts.append(f"number of skipped iterations: {int(m.get('skipped', 0)):>3d}")
    parts.append(f"number of nan iterations: {int(m.get('nan_iters', 0)):>3d}")
    print(" | ".join(parts) + " |", flush=True)


def log_val(step, epoch, m):
    print("-" * 100)
    print(f" validation loss at iteration {step} | lm loss value: {m['val_loss']:.6E} | lm loss PPL: {__import__('math').exp(min(m['val_loss'], 50)):.6E} | ")
    print("-" * 100, flush=True)


def log_text(msg):
    print(msg, flush=True)


def close():
    print("[after training is done] datetime: 2024-05-01 12:41:07 ", flush=True)
'''

# fairseq train_inner / valid lines (losses in base 2, as fairseq prints them).
STYLE_FAIRSEQ = '''
import math
import time

_t0 = time.time()


def _stamp():
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time()))


def log_train(step, epoch, m):
    i = step - epoch * RUN["per_epoch"]
    l2 = m["loss"] / math.log(2)
    print(f"{_stamp()} | INFO | train_inner | epoch {epoch + 1:03d}: {i:>6d} / {RUN['per_epoch']} "
          f"loss={l2:.3f}, nll_loss={l2:.3f}, ppl={2 ** min(l2, 60):.2f}, wps=15321.4, ups=7.48, wpb=2048, bsz=32, "
          f"num_updates={step}, lr={m['lr']:.5g}, gnorm={m['grad_norm']:.3f}, train_wall=1, gb_free=10.6, "
          f"wall={int(time.time() - _t0)}", flush=True)


def log_val(step, epoch, m):
    l2 = m["val_loss"] / math.log(2)
    print(f"{_stamp()} | INFO | valid | epoch {epoch + 1:03d} | valid on 'valid' subset | loss {l2:.3f} | "
          f"nll_loss {l2:.3f} | ppl {2 ** min(l2, 60):.2f} | wps 40211.3 | wpb 2048 | bsz 32 | num_updates {step}", flush=True)


def log_text(msg):
    print(f"{_stamp()} | INFO | fairseq_cli.train | {msg}", flush=True)


def close():
    print(f"{_stamp()} | INFO | fairseq_cli.train | done training in {time.time() - _t0:.1f} seconds", flush=True)
'''

# mmengine runner lines.
STYLE_MMENGINE = '''
import time


def _stamp():
    return time.strftime("%m/%d %H:%M:%S", time.gmtime(time.time()))


def log_train(step, epoch, m):
    i = step - epoch * RUN["per_epoch"]
    extra = "  ".join(f"{k}: {v:.4f}" for k, v in m.items() if k not in ("lr", "loss", "data_time", "time"))
    print(f"{_stamp()} - mmengine - INFO - Epoch(train)  [{epoch + 1}][{i:>3d}/{RUN['per_epoch']}]  "
          f"lr: {m['lr']:.4e}  eta: 0:00:{max(0, RUN['total'] - step) % 60:02d}  time: {m.get('time', 0.05):.4f}  "
          f"data_time: {m.get('data_time', 0.002):.4f}  memory: 0  loss: {m['loss']:.4f}  {extra}".rstrip(), flush=True)


def log_val(step, epoch, m):
    print(f"{_stamp()} - mmengine - INFO - Epoch(val) [{epoch + 1}][10/10]    "
          + "  ".join(f"{k.replace('val_acc', 'accuracy/top1').replace('val_loss', 'loss')}: {v:.4f}" for k, v in m.items()), flush=True)


def log_text(msg):
    print(f"{_stamp()} - mmengine - INFO - {msg}", flush=True)


def close():
    pass
'''

# fastai's per-epoch table.
STYLE_FASTAI = '''
_acc = []
_header = [False]


def log_train(step, epoch, m):
    _acc.append(m["loss"])


def log_val(step, epoch, m):
    if not _header[0]:
        print("epoch     train_loss  valid_loss  accuracy  time    ", flush=True)
        _header[0] = True
    tl = sum(_acc[-5:]) / max(1, len(_acc[-5:]))
    print(f"{epoch:<10d}{tl:<12.6f}{m['val_loss']:<12.6f}{m.get('val_acc', 0.0):<10.6f}00:0{1 + epoch % 2}     ", flush=True)


def log_text(msg):
    print(msg, flush=True)


def close():
    pass
'''

STYLES = {
    "kv": STYLE_KV, "pylogging": STYLE_PYLOGGING, "pipe": STYLE_PIPE, "hfdict": STYLE_HFDICT,
    "keras": STYLE_KERAS, "tqdm": STYLE_TQDM, "csv": STYLE_CSV, "lightning_csv": STYLE_LIGHTNING_CSV,
    "jsonl": STYLE_JSONL, "beginner": STYLE_BEGINNER, "tb_tutorial": STYLE_TB_TUTORIAL,
    "tb_holdout": STYLE_TB_HOLDOUT, "mlflow": STYLE_MLFLOW, "rank": STYLE_RANK, "absl": STYLE_ABSL,
    "megatron": STYLE_MEGATRON, "fairseq": STYLE_FAIRSEQ, "mmengine": STYLE_MMENGINE, "fastai": STYLE_FASTAI,
}

# Where each style's output lands (for the README/table and for capture).
# stdout / stderr: the case captures the stream into the named file.
STYLE_FORMAT = {
    "kv": "text log key=value (stdout)", "pylogging": "Python logging file", "pipe": "text log 'Step i/N | loss x'",
    "hfdict": "HF Trainer printed dicts + trainer_state.json", "keras": "Keras-like epoch lines",
    "tqdm": "tqdm-like progress bars (stderr, \\r)", "csv": "CSV (train/val files)",
    "lightning_csv": "Lightning metrics.csv + hparams.yaml", "jsonl": "JSONL", "beginner": "tutorial prints",
    "tb_tutorial": "TensorBoard (Loss/train)", "tb_holdout": "TensorBoard only (train/total_loss, optim/gnorm)",
    "mlflow": "MLflow file store", "rank": "rank-prefixed [rank0]: lines", "absl": "absl/glog lines (stderr)",
    "megatron": "Megatron-LM iteration lines", "fairseq": "fairseq train_inner lines",
    "mmengine": "mmengine Epoch(train) lines", "fastai": "fastai epoch table",
}

# ---------------------------------------------------------------------------
# Config loading (train.py reads what the case ships)
# ---------------------------------------------------------------------------

CONFIG_YAML = '''
def load_config(path="config.yaml"):
    with open(path) as f:
        return yaml.safe_load(f)
'''

CONFIG_JSON = '''
def load_config(path="config.json"):
    with open(path) as f:
        return json.load(f)
'''


def config_argparse(defaults: dict, dump: str = "args.json") -> str:
    """argparse block whose defaults are the case's settings; dumps the parsed args."""
    lines = ["def load_config():", "    p = argparse.ArgumentParser()"]
    for k, v in defaults.items():
        t = type(v).__name__
        if isinstance(v, bool):
            lines.append(f"    p.add_argument('--{k}', type=int, default={int(v)})")
        elif v is None:
            lines.append(f"    p.add_argument('--{k}', default=None)")
        else:
            lines.append(f"    p.add_argument('--{k}', type={t}, default={v!r})")
    lines.append("    cfg = vars(p.parse_args())")
    if "/" in dump:
        lines.append(f"    os.makedirs('{dump.rsplit('/', 1)[0]}', exist_ok=True)")
    if dump.endswith(".yaml"):
        lines.append(f"    with open('{dump}', 'w') as f:\n        yaml.safe_dump(cfg, f)")
    else:
        lines.append(f"    with open('{dump}', 'w') as f:\n        json.dump(cfg, f, indent=2)")
    lines.append("    return cfg")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

DATA_BLOBS = '''
def make_split(n, cfg, seed):
    """Gaussian blobs: cfg['num_classes'] centres in cfg['dim'] dimensions."""
    g = torch.Generator().manual_seed(0)          # the same centres for every split
    centres = torch.randn(cfg["num_classes"], cfg["dim"], generator=g) * cfg.get("spread", 1.0)
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, cfg["num_classes"], (n,), generator=g)
    x = centres[y] + torch.randn(n, cfg["dim"], generator=g) * cfg.get("noise", 1.0)
    return x, y


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return TensorDataset(x, y), TensorDataset(xv, yv)
'''

DATA_SHAPES = '''
def make_split(n, cfg, seed):
    """12x12 single-channel images of 4 patterns (h-bar, v-bar, diagonal, box) plus noise."""
    g = torch.Generator().manual_seed(seed)
    s = cfg.get("image_size", 12)
    y = torch.randint(0, 4, (n,), generator=g)
    x = torch.randn(n, 1, s, s, generator=g) * cfg.get("noise", 0.8)
    pos = torch.randint(2, s - 2, (n,), generator=g)
    idx = torch.arange(s)
    for i in range(n):
        p = int(pos[i])
        if y[i] == 0:
            x[i, 0, p, :] += 1.5
        elif y[i] == 1:
            x[i, 0, :, p] += 1.5
        elif y[i] == 2:
            x[i, 0, idx, idx] += 1.5
        else:
            x[i, 0, 2:-2, 2] += 1.5
            x[i, 0, 2:-2, -3] += 1.5
    return x, y


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return TensorDataset(x, y), TensorDataset(xv, yv)
'''

# Token sequences; the class is the token that occurs most often.
DATA_SEQ = '''
def make_split(n, cfg, seed):
    g = torch.Generator().manual_seed(seed)
    k, t = cfg["num_classes"], cfg["seq_len"]
    y = torch.randint(0, k, (n,), generator=g)
    x = torch.randint(0, cfg["vocab_size"], (n, t), generator=g)
    mask = torch.rand(n, t, generator=g) < 0.35
    x[mask] = y.unsqueeze(1).expand(n, t)[mask]
    return x, y


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return TensorDataset(x, y), TensorDataset(xv, yv)
'''

# A small text corpus made from a word list; char-level LM data.
DATA_TEXT = '''
WORDS = ("the cat dog sat ran on a mat log big small red blue fox jumps over lazy quick brown "
         "and then saw it was very far near under tree house").split()


def make_corpus(n_sentences, seed):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_sentences):
        n = int(torch.randint(4, 9, (1,), generator=g))
        idx = torch.randint(0, len(WORDS), (n,), generator=g)
        out.append(" ".join(WORDS[i] for i in idx.tolist()) + ".")
    return " ".join(out)


class CharData(torch.utils.data.Dataset):
    def __init__(self, text, stoi, block):
        self.ids = torch.tensor([stoi[c] for c in text], dtype=torch.long)
        self.block = block

    def __len__(self):
        return (len(self.ids) - 1) // self.block

    def __getitem__(self, i):
        a = i * self.block
        return self.ids[a:a + self.block], self.ids[a + 1:a + self.block + 1]
'''

DATA_REGRESSION = '''
def make_split(n, cfg, seed):
    """Tabular regression: y = sin(x0) + x1 * x2 + 0.5 * x3^2 + noise."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, cfg["dim"], generator=g)
    y = torch.sin(x[:, 0]) + x[:, 1] * x[:, 2] + 0.5 * x[:, 3] ** 2 + 0.1 * torch.randn(n, generator=g)
    return x, y.unsqueeze(1)
'''

# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------

MODEL_MLP = '''
class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        layers, d = [], cfg["dim"]
        for _ in range(cfg["depth"]):
            layers += [nn.Linear(d, cfg["hidden"]), nn.ReLU()]
            d = cfg["hidden"]
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(d, cfg["num_classes"])

    def forward(self, x):
        return self.head(self.body(x))
'''

MODEL_CNN = '''
class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c = cfg["channels"]
        self.features = nn.Sequential(
            nn.Conv2d(1, c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        s = cfg.get("image_size", 12) // 4
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(2 * c * s * s, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        return self.classifier(self.features(x))
'''

MODEL_LSTM = '''
class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg["vocab_size"], cfg["emb"])
        self.lstm = nn.LSTM(cfg["emb"], cfg["hidden"], batch_first=True)
        self.out = nn.Linear(cfg["hidden"], cfg["num_classes"])

    def forward(self, x):
        h, _ = self.lstm(self.embed(x))
        return self.out(h.mean(dim=1))
'''

# ---------------------------------------------------------------------------
# The classifier training loop. Lines ending in a `# @NAME` marker are
# replaced by a case (see `fill`) to inject a bug; unreplaced markers are
# dropped, leaving the line without the marker.
# ---------------------------------------------------------------------------

CLF_HEADER = '''"""{doc}"""
import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

RUN = {{}}
'''

CLF_MAIN = '''

def grad_norm(model):
    total = 0.0
    for p in model.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return math.sqrt(total)


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    loss_sum, correct, n = 0.0, 0, 0
    for x, y in loader:
        logits = model(x)
        loss_sum += criterion(logits, y).item() * len(y)
        correct += (logits.argmax(-1) == y).sum().item()
        n += len(y)
    model.train()
    return loss_sum / n, correct / n


def main():
    cfg = load_config()
    CFG.update(cfg)
    torch.manual_seed(cfg["seed"])
    train_ds, val_ds = make_datasets(cfg)
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)  # @LOADER
    val_loader = DataLoader(val_ds, batch_size=256)
    model = Net(cfg)
    criterion = nn.CrossEntropyLoss()  # @CRITERION
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)  # @OPTIMIZER
    scheduler = None  # @SCHEDULER
    RUN.update(total=cfg["epochs"] * len(train_loader), epochs=cfg["epochs"], per_epoch=len(train_loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    log_text(f"model: {sum(p.numel() for p in model.parameters())} parameters, {len(train_ds)} training samples")
    step = 0
    for epoch in range(cfg["epochs"]):
        # @EPOCH_START
        for x, y in train_loader:
            step += 1
            optimizer.zero_grad()  # @ZERO_GRAD
            logits = model(x)  # @FORWARD
            loss = criterion(logits, y)  # @LOSS
            loss.backward()
            gnorm = grad_norm(model)
            # @CLIP
            optimizer.step()
            # @BATCH_END
            if step % cfg["log_every"] == 0:
                metrics = {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm}  # @METRICS
                # @EXTRA_METRICS
                log_train(step, epoch, metrics)
        # @EPOCH_END
        val_loss, val_acc = evaluate(model, val_loader, criterion)  # @EVAL
        log_val(step, epoch, {"val_loss": val_loss, "val_acc": val_acc})  # @EVAL_LOG
    # @AFTER_TRAINING
    close()


CFG = {}

if __name__ == "__main__":
    main()
'''


def fill(template: str, **repl: str | None) -> str:
    """Replace each `# @NAME` marked line by repl[NAME] (indented like the line).

    A marker alone on its line is dropped when not replaced; a marker after
    code is removed, keeping the code. Replacement text may span lines.
    """
    out = []
    for line in template.split("\n"):
        if "# @" not in line:
            out.append(line)
            continue
        code, marker = line.split("# @", 1)
        name = marker.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if name in repl and repl[name] is not None:
            for r in textwrap.dedent(repl[name]).strip("\n").split("\n"):
                out.append(indent + r if r else "")
        elif code.strip():
            out.append(code.rstrip())
    return "\n".join(out)


def clf_script(doc: str, *, data: str, model: str, style: str, config: str = CONFIG_YAML,
               extra_defs: str = "", **repl: str | None) -> str:
    """A complete classifier train.py: header, config loader, data, model, log style, loop."""
    parts = [CLF_HEADER.format(doc=doc), config, data, model, STYLES[style], extra_defs,
             fill(CLF_MAIN, **repl)]
    text = "\n".join(textwrap.dedent(p).strip("\n") + "\n" for p in parts if p)
    return _tidy(text)


def _tidy(text: str) -> str:
    """At most two blank lines in a row, one newline at the end."""
    lines, blank = [], 0
    for line in text.rstrip().split("\n"):
        blank = blank + 1 if not line.strip() else 0
        if blank <= 2:
            lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def yaml_dump(cfg: dict) -> str:
    import yaml
    return yaml.safe_dump(cfg, sort_keys=False)


# ---------------------------------------------------------------------------
# Character language model (GRU or small Transformer) loop.
# ---------------------------------------------------------------------------

MODEL_GRU_LM = '''
class CharLM(nn.Module):
    def __init__(self, vocab, cfg):
        super().__init__()
        self.embed = nn.Embedding(vocab, cfg["emb"])
        self.rnn = nn.GRU(cfg["emb"], cfg["hidden"], batch_first=True)
        self.head = nn.Linear(cfg["hidden"], vocab)

    def forward(self, x):
        h, _ = self.rnn(self.embed(x))
        return self.head(h)
'''

MODEL_TRANSFORMER_LM = '''
class CharLM(nn.Module):
    def __init__(self, vocab, cfg):
        super().__init__()
        d = cfg["d_model"]
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, cfg["block"], d))
        layer = nn.TransformerEncoderLayer(d, cfg["n_heads"], 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, cfg["n_layers"], enable_nested_tensor=False)
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, x):
        t = x.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        h = self.blocks(self.tok(x) + self.pos[:, :t], mask=mask, is_causal=True)
        return self.head(self.ln(h))
'''

LM_MAIN = '''

@torch.no_grad()
def evaluate(model, loader, vocab):
    model.eval()
    tot, n = 0.0, 0
    for x, y in loader:
        tot += F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1)).item() * len(x)
        n += len(x)
    model.train()
    return tot / n


@torch.no_grad()
def sample(model, stoi, itos, prompt="the ", n=40):
    model.eval()
    g = torch.Generator().manual_seed(0)
    ids = torch.tensor([[stoi[c] for c in prompt]])
    for _ in range(n):
        probs = torch.softmax(model(ids[:, -32:])[:, -1], dim=-1)
        ids = torch.cat([ids, torch.multinomial(probs, 1, generator=g)], dim=1)
    model.train()
    return "".join(itos[i] for i in ids[0].tolist())


def main():
    cfg = load_config()
    CFG.update(cfg)
    torch.manual_seed(cfg["seed"])
    text, val_text = make_corpus(cfg["n_sentences"], seed=1), make_corpus(150, seed=2)  # @CORPUS
    chars = sorted(set(text + val_text))
    stoi = {c: i for i, c in enumerate(chars)}
    itos = {i: c for c, i in stoi.items()}
    train_ds, val_ds = CharData(text, stoi, cfg["block"]), CharData(val_text, stoi, cfg["block"])
    loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=64)
    V = len(chars)
    model = CharLM(V, cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.01)  # @OPTIMIZER
    scheduler = None  # @SCHEDULER
    RUN.update(total=cfg["epochs"] * len(loader), epochs=cfg["epochs"], per_epoch=len(loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    log_text(f"vocab {V}, {len(train_ds)} sequences of {cfg['block']}, {sum(p.numel() for p in model.parameters())} parameters")
    step = 0
    for epoch in range(cfg["epochs"]):
        for x, y in loader:
            step += 1
            # @LR_UPDATE
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))  # @LOSS
            optimizer.zero_grad()  # @ZERO_GRAD
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"]).item()  # @CLIP
            optimizer.step()
            # @BATCH_END
            if step % cfg["log_every"] == 0:
                metrics = {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm}  # @METRICS
                log_train(step, epoch, metrics)
        # @EPOCH_END
        log_val(step, epoch, {"val_loss": evaluate(model, val_loader, V)})
        log_text(f"sample: {sample(model, stoi, itos)!r}")  # @SAMPLE
    close()


CFG = {}

if __name__ == "__main__":
    main()
'''


def lm_script(doc: str, *, model: str, style: str, config: str = CONFIG_YAML, extra_defs: str = "",
              data: str | None = None, **repl: str | None) -> str:
    """A complete char-LM train.py."""
    parts = [CLF_HEADER.format(doc=doc), config, data or DATA_TEXT, model, STYLES[style], extra_defs,
             fill(LM_MAIN, **repl)]
    return _tidy("\n".join(textwrap.dedent(p).strip("\n") + "\n" for p in parts if p))


def script(doc: str, *parts: str) -> str:
    """A train.py from the standard header and the given blocks, in order."""
    return _tidy("\n".join(textwrap.dedent(p).strip("\n") + "\n"
                           for p in (CLF_HEADER.format(doc=doc), *parts) if p))
