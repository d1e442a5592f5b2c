"""Kubeflow PyTorchJob, python-json-logger lines from `kubectl logs`; small tabular set, wide MLP,
no regularisation, 40 epochs."""
import datetime as dt
import numpy as np
import torch
import torch.nn as nn

from .common import Clock, seed_all, pylog_time, r, jdump, write

ARGS = dict(epochs=40, lr=1e-3, batch_size=32, hidden=512, dropout=0.0, weight_decay=0.0, scheduler="cosine")


def make_data(seed, n, d, k):
    g = np.random.RandomState(seed)
    W = g.randn(d, 64)
    V = g.randn(64, k)
    X = g.randn(n, d).astype(np.float32)
    logits = np.tanh(X @ W / np.sqrt(d)) @ V
    y = (logits + 0.5 * g.randn(n, k)).argmax(1)
    return X, y


def make(out):
    seed_all(101)
    X, y = make_data(1, 1400, 32, 6)
    Xt, yt = torch.tensor(X), torch.tensor(y)
    tr_x, tr_y, va_x, va_y = Xt[:600], yt[:600], Xt[600:], yt[600:]
    clk = Clock(dt.datetime(2024, 4, 12, 9, 13, 57, 402000))
    lines = []

    def log(level, msg, **kw):
        rec = {"asctime": pylog_time(clk.now()), "name": "trainer", "levelname": level, "message": msg}
        rec.update(kw)
        lines.append(jdump(rec))

    lines.append("/usr/local/lib/python3.11/site-packages/torch/utils/data/dataloader.py:617: UserWarning: "
                 "This DataLoader will create 8 worker processes in total. Our suggested max number of worker in "
                 "current system is 4, which is smaller than what this DataLoader is going to create. Please be "
                 "aware that excessive worker creation might get DataLoader running slow or even freeze, lower "
                 "the worker number to avoid potential slowness/freeze if necessary.")
    lines.append("  warnings.warn(")
    log("INFO", "starting", job="tabular-clf-0412", rank=0, world_size=1, **ARGS)
    log("INFO", "dataset loaded", source="gs://acme-ml-data/tabular/segments_v7/", n_train=len(tr_x),
        n_val=len(va_x), n_features=X.shape[1], n_classes=6)
    model = nn.Sequential(nn.Linear(32, ARGS["hidden"]), nn.ReLU(), nn.Linear(ARGS["hidden"], ARGS["hidden"]),
                          nn.ReLU(), nn.Linear(ARGS["hidden"], 6))
    log("INFO", "model built", arch="mlp", layers=[32, ARGS["hidden"], ARGS["hidden"], 6],
        params=sum(p.numel() for p in model.parameters()))
    opt = torch.optim.Adam(model.parameters(), lr=ARGS["lr"], weight_decay=ARGS["weight_decay"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=ARGS["epochs"])
    step = 0
    best = -1
    hist = []
    g = torch.Generator().manual_seed(7)
    for ep in range(1, ARGS["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(tr_x), generator=g)
        tl, tc, tn = 0.0, 0, 0
        for i in range(0, len(tr_x), ARGS["batch_size"]):
            idx = perm[i:i + ARGS["batch_size"]]
            out_ = model(tr_x[idx])
            loss = nn.functional.cross_entropy(out_, tr_y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            tl += loss.item() * len(idx)
            tc += (out_.argmax(1) == tr_y[idx]).sum().item()
            tn += len(idx)
            if step % 5 == 0:
                log("INFO", "train step", epoch=ep, step=step, loss=r(loss.item()), lr=float(f"{opt.param_groups[0]['lr']:.6g}"))
        model.eval()
        with torch.no_grad():
            o = model(va_x)
            vl = nn.functional.cross_entropy(o, va_y).item()
            va = (o.argmax(1) == va_y).float().mean().item()
        hist.append((ep, tl / tn, vl, va))
        log("INFO", "epoch end", epoch=ep, step=step, train_loss=r(tl / tn), train_acc=r(tc / tn),
            val_loss=r(vl), val_acc=r(va), lr=float(f"{opt.param_groups[0]['lr']:.6g}"))
        if va > best:
            best = va
            log("INFO", "checkpoint saved", path=f"gs://acme-ml-models/tabular-clf-0412/best.pt", epoch=ep, val_acc=r(va))
        sched.step()
    log("INFO", "training finished", best_val_acc=r(best), final_val_acc=r(hist[-1][3]), epochs=ARGS["epochs"],
        wall_time_s=round(clk.elapsed(), 1))
    write(f"{out}/logs_tabular-clf-0412-master-0.txt", "\n".join(lines) + "\n")

    yaml = f"""apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: tabular-clf-0412
  namespace: ml-research
  labels:
    team: segments
spec:
  runPolicy:
    cleanPodPolicy: None
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: europe-docker.pkg.dev/acme-ml/trainers/tabular-clf:1.8.0
              command: ["python", "-m", "trainer.main"]
              args:
                - --data=gs://acme-ml-data/tabular/segments_v7/
                - --epochs={ARGS['epochs']}
                - --lr={ARGS['lr']}
                - --batch-size={ARGS['batch_size']}
                - --hidden={ARGS['hidden']}
                - --dropout={ARGS['dropout']}
                - --weight-decay={ARGS['weight_decay']}
                - --scheduler={ARGS['scheduler']}
                - --num-workers=8
              resources:
                limits:
                  cpu: "4"
                  memory: 8Gi
"""
    write(f"{out}/pytorchjob.yaml", yaml)
    best_ep = max(hist, key=lambda h: h[3])[0]
    min_vl_ep = min(hist, key=lambda h: h[2])[0]
    return {
        "truth": "overfitting",
        "symptom": f"Val accuracy tops out around epoch {best_ep} and then slowly gets worse while the training loss keeps going to ~0. "
                   "What's going on, and which checkpoint should I ship?",
        "how": f"600 training rows, 2x{ARGS['hidden']} MLP, no dropout/weight decay, 40 epochs: train loss falls to "
               f"{hist[-1][1]:.4f} while val loss bottoms at {min(h[2] for h in hist):.3f} (epoch {min_vl_ep}) and climbs to "
               f"{hist[-1][2]:.3f}; the lr in the log follows a correct cosine decay.",
        "_hist": hist,
    }
