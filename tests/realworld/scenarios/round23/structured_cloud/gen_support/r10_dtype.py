"""Kubeflow pod log (structlog JSON + the raw traceback). The trainer converts the train arrays with .float()
but the validation arrays straight from float64 .npy via torch.from_numpy; the first validation batch
crashes in nn.Linear. The app really runs (from a temp dir) so the traceback is the real one."""
import contextlib
import datetime as dt
import io
import json
import os
import runpy
import sys
import tempfile
import time
import traceback
import types

import numpy as np
import torch

from .common import write

APP = '''import argparse

import numpy as np
import structlog
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

log = structlog.get_logger()


def build_model(n_in, n_out):
    return nn.Sequential(nn.Linear(n_in, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, n_out))


def evaluate(model, loader):
    model.eval()
    loss_sum, correct, total = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            logits = model(xb)
            loss_sum += nn.functional.cross_entropy(logits, yb, reduction="sum").item()
            correct += (logits.argmax(1) == yb).sum().item()
            total += len(yb)
    return loss_sum / total, correct / total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="/data/kws-features-v2")
    ap.add_argument("--ckpt-dir", default="/ckpt")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=128)
    args = ap.parse_args()
    torch.manual_seed(0)

    x_train = torch.from_numpy(np.load(f"{args.data_dir}/train_x.npy")).float()
    y_train = torch.from_numpy(np.load(f"{args.data_dir}/train_y.npy")).long()
    x_val = torch.from_numpy(np.load(f"{args.data_dir}/val_x.npy"))
    y_val = torch.from_numpy(np.load(f"{args.data_dir}/val_y.npy")).long()
    log.info("data", n_train=len(x_train), n_val=len(x_val), n_features=x_train.shape[1])

    train_dl = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size, shuffle=True)
    val_dl = DataLoader(TensorDataset(x_val, y_val), batch_size=256)
    model = build_model(x_train.shape[1], int(y_train.max()) + 1)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)

    step = 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        for xb, yb in train_dl:
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 5 == 0:
                log.info("train_step", epoch=epoch, step=step, loss=round(loss.item(), 4))
        path = f"{args.ckpt_dir}/epoch_{epoch:03d}.pt"
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, path)
        log.info("checkpoint saved", path=path, epoch=epoch)
        val_loss, val_acc = evaluate(model, val_dl)
        log.info("epoch_end", epoch=epoch, val_loss=round(val_loss, 4), val_acc=round(val_acc, 4))


if __name__ == "__main__":
    try:
        main()
    except Exception:
        log.exception("training failed")
        raise
'''


def make(out):
    start = dt.datetime(2024, 12, 3, 10, 48, 22, 640000)
    t0 = time.perf_counter()
    buf = io.StringIO()

    class Logger:
        def _emit(self, level, event, **kw):
            t = start + dt.timedelta(seconds=time.perf_counter() - t0)
            rec = dict(kw)
            rec["event"] = event
            rec["level"] = level
            rec["timestamp"] = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}Z"
            if level == "error":
                rec["exception"] = fix_paths(traceback.format_exc().rstrip("\n"))
            print(json.dumps(rec), flush=True)

        def info(self, event, **kw):
            self._emit("info", event, **kw)

        def exception(self, event, **kw):
            self._emit("error", event, **kw)

    fake = types.ModuleType("structlog")
    fake.get_logger = lambda: Logger()
    tmp = tempfile.mkdtemp(prefix="r10_")
    app_dir = os.path.join(tmp, "app")
    data_dir = os.path.join(tmp, "data")
    os.makedirs(app_dir)
    os.makedirs(data_dir)
    site = os.path.dirname(os.path.dirname(torch.__file__))

    def fix_paths(s):
        return s.replace(app_dir, "/app").replace(site, "/usr/local/lib/python3.11/site-packages")

    g = np.random.RandomState(1010)
    n, d, k = 4000, 40, 12   # 40 log-mel means, 12 keywords
    centers = g.randn(k, d) * 1.2
    yv = g.randint(0, k, n)
    xv = centers[yv] + g.randn(n, d)   # float64, as np.save writes it
    np.save(f"{data_dir}/train_x.npy", xv[:3400])
    np.save(f"{data_dir}/train_y.npy", yv[:3400])
    np.save(f"{data_dir}/val_x.npy", xv[3400:])
    np.save(f"{data_dir}/val_y.npy", yv[3400:])
    with open(f"{app_dir}/train.py", "w") as f:
        f.write(APP)
    old_argv, old_mod = sys.argv, sys.modules.get("structlog")
    sys.modules["structlog"] = fake
    sys.argv = ["train.py", f"--data-dir={data_dir}", f"--ckpt-dir={tmp}", "--epochs=10"]
    err = None
    try:
        with contextlib.redirect_stdout(buf):
            runpy.run_path(f"{app_dir}/train.py", run_name="__main__")
    except Exception as e:  # the real crash
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != f"{app_dir}/train.py":
            tb = tb.tb_next
        err = "".join(traceback.format_exception(type(e), e, tb))
    finally:
        sys.argv = old_argv
        if old_mod is None:
            sys.modules.pop("structlog", None)
        else:
            sys.modules["structlog"] = old_mod
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
    assert err is not None and "dtype" in err, err
    logs = buf.getvalue().replace(data_dir, "/data/kws-features-v2").replace(tmp, "/ckpt")
    logs = logs.replace("/ckpt/epoch", "/ckpt/epoch")
    text = logs + fix_paths(err)
    write(f"{out}/kubectl_logs_kws-train-master-0.txt", text)
    write(f"{out}/question.md", """Keyword-spotting trainer (PyTorchJob, 1 master) crashes at the end of the first epoch, every time.
Training itself is fine, loss goes down, and it dies right after the "checkpoint saved" line. I think
torch.save of the optimizer state is leaving the model in a bad state (it started when we added the
optimizer to the checkpoint). `kubectl logs kws-train-master-0` attached.
""")
    last = err.strip().splitlines()[-1]
    return {
        "truth": "dtype_mismatch",
        "symptom": "The trainer crashes at the end of the first epoch, every time, right after the 'checkpoint saved' line. "
                   "I think saving the optimizer state in the checkpoint leaves the model in a bad state.",
        "how": f"Train features are converted with .float() but the validation arrays come straight from float64 .npy via "
               f"torch.from_numpy, so the first validation forward fails: '{last}' (real traceback in evaluate -> nn.Linear).",
        "_hist": [last],
    }
