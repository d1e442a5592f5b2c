"""Vertex AI custom job, textPayload (print to stdout). optimizer.zero_grad() is called once before the
epoch loop, so .grad accumulates over all steps: grad-norm climbs steadily, loss falls then blows up."""
import datetime as dt

import numpy as np
import torch
import torch.nn as nn

from .common import Clock, GcpSink, grad_norm, seed_all, write
from .r01_overfit import make_data

ARGS = dict(lr=5e-4, momentum=0.9, batch_size=64, epochs=5, log_every=5)

TRAIN_PY = '''import argparse
import math

import numpy as np
import torch
import torch.nn as nn
from google.cloud import storage


def load_split(uri):
    local = "/tmp/" + uri.rsplit("/", 1)[-1]
    bucket, _, blob = uri[len("gs://"):].partition("/")
    storage.Client().bucket(bucket).blob(blob).download_to_filename(local)
    d = np.load(local)
    return torch.from_numpy(d["x"]).float(), torch.from_numpy(d["y"]).long()


def total_grad_norm(model):
    return math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters() if p.grad is not None))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--val", required=True)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--log-every", type=int, default=5)
    args = ap.parse_args()
    torch.manual_seed(0)

    x_tr, y_tr = load_split(args.train)
    x_va, y_va = load_split(args.val)
    print(f"train={len(x_tr)} val={len(x_va)} features={x_tr.shape[1]} classes={int(y_tr.max()) + 1}", flush=True)

    model = nn.Sequential(
        nn.Linear(x_tr.shape[1], 128), nn.ReLU(),
        nn.Linear(128, 128), nn.ReLU(),
        nn.Linear(128, int(y_tr.max()) + 1),
    )
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    steps_per_epoch = math.ceil(len(x_tr) / args.batch_size)

    step = 0
    optimizer.zero_grad()
    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(x_tr), args.batch_size):
            idx = perm[i:i + args.batch_size]
            loss = criterion(model(x_tr[idx]), y_tr[idx])
            loss.backward()
            gnorm = total_grad_norm(model)
            optimizer.step()
            step += 1
            if step % args.log_every == 0:
                print(f"[epoch {epoch} | step {step}/{args.epochs * steps_per_epoch}] loss {loss.item():.4f} | "
                      f"grad_norm {gnorm:.3f} | lr {optimizer.param_groups[0]['lr']:.1e}", flush=True)
        model.eval()
        with torch.no_grad():
            out = model(x_va)
            val_loss = criterion(out, y_va).item()
            val_acc = (out.argmax(1) == y_va).float().mean().item()
        print(f"[epoch {epoch}] val_loss {val_loss:.4f} | val_acc {val_acc:.4f}", flush=True)
        torch.save(model.state_dict(), f"/gcs/acme-ads-models/intent-mlp/epoch{epoch}.pt")


if __name__ == "__main__":
    main()
'''


def first_blowup(x_tr, y_tr, lr, thresh=3.0):
    """Step at which the loss first exceeds `thresh` with the same (accumulating) loop."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=ARGS["momentum"])
    opt.zero_grad()
    step = 0
    for epoch in range(ARGS["epochs"]):
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(x_tr), ARGS["batch_size"]):
            idx = perm[i:i + ARGS["batch_size"]]
            loss = nn.functional.cross_entropy(model(x_tr[idx]), y_tr[idx])
            loss.backward()
            opt.step()
            step += 1
            if not loss.item() < thresh:
                return step
    return None


def make(out):
    seed_all(0)
    X, y = make_data(0, 6000, 32, 10)
    Xt, yt = torch.tensor(X), torch.tensor(y)
    x_tr, y_tr, x_va, y_va = Xt[:5000], yt[:5000], Xt[5000:], yt[5000:]
    clk = Clock(dt.datetime(2024, 3, 27, 20, 14, 51, 5000))
    sink = GcpSink("acme-ads-ml", 6137729940128563200, seed=8)
    sink.platform(clk.now(), "Waiting for job to be provisioned.")
    clk.skip(66.0)
    sink.platform(clk.now(), "Waiting for training program to start.")
    clk.skip(52.3)
    sink.platform(clk.now(), "Job is running.")
    clk.skip(9.4)

    def p(text):
        sink.add(clk.now(), "INFO", text=text)

    p(f"train={len(x_tr)} val={len(x_va)} features={x_tr.shape[1]} classes=10")
    model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=ARGS["lr"], momentum=ARGS["momentum"])
    spe = (len(x_tr) + ARGS["batch_size"] - 1) // ARGS["batch_size"]
    step = 0
    hist = []
    opt.zero_grad()
    for epoch in range(1, ARGS["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(x_tr), ARGS["batch_size"]):
            idx = perm[i:i + ARGS["batch_size"]]
            loss = crit(model(x_tr[idx]), y_tr[idx])
            loss.backward()
            gn = grad_norm(model)
            opt.step()
            step += 1
            if step % ARGS["log_every"] == 0:
                p(f"[epoch {epoch} | step {step}/{ARGS['epochs'] * spe}] loss {loss.item():.4f} | grad_norm {gn:.3f} | lr {ARGS['lr']:.1e}")
                hist.append((step, loss.item(), gn))
        model.eval()
        with torch.no_grad():
            o = model(x_va)
            vl = crit(o, y_va).item()
            va = (o.argmax(1) == y_va).float().mean().item()
        p(f"[epoch {epoch}] val_loss {vl:.4f} | val_acc {va:.4f}")
    clk.skip(4.2)
    sink.platform(clk.now(), "Job completed successfully.")
    sink.write(f"{out}/downloaded_logs_intent-mlp-0327.json")
    # the user's earlier run at the default lr (not shipped, only to back the user's words)
    first_run = first_blowup(x_tr, y_tr, 5e-3)
    this_run = next(h[0] for h in hist if not h[1] < 3.0)
    assert first_run is not None and first_run < this_run, (first_run, this_run)
    write(f"{out}/train.py", TRAIN_PY)
    write(f"{out}/question.md", f"""Training of our intent MLP diverges every time. First run was with the default lr 5e-3 and the loss
went crazy within the first epoch, so I re-ran with `--lr 5e-4` (10x lower). It now gets a bit further but still
blows up in the second/third epoch. Do I need to go even lower, or add a warm-up? Logs from the second run + train.py attached.
""")
    low = min(hist, key=lambda h: h[1])
    high = max(hist, key=lambda h: h[1])
    return {
        "truth": "missing_zero_grad",
        "symptom": "Training keeps diverging. I already lowered the lr 10x (5e-3 to 5e-4) and it still blows up after a couple of epochs. "
                   "Do I need an even lower lr, or a warm-up?",
        "how": f"optimizer.zero_grad() is called once before the epoch loop, so gradients accumulate across steps: the logged grad_norm climbs "
               f"steadily from {hist[0][2]:.2f} to {hist[-1][2]:.1f}; loss falls to {low[1]:.3f} (step {low[0]}) then jumps to {high[1]:.2f} "
               f"(step {high[0]}) and ends near chance; at the user's earlier lr 5e-3 the same loop blew up at step {first_run}.",
        "_hist": hist[::6],
    }
