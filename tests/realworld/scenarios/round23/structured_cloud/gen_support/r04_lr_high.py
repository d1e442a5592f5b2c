"""Vertex AI custom job, jsonPayload entries (trainer prints JSON to stdout); GELU MLP with plain SGD,
momentum 0.9, lr 0.3, no warm-up: loss falls, then rises and bounces; grad-norm spikes."""
import datetime as dt

import numpy as np
import torch
import torch.nn as nn

from .common import Clock, GcpSink, grad_norm, r, seed_all, write
from .r01_overfit import make_data

ARGS = dict(optimizer="sgd", lr=0.3, momentum=0.9, warmup_steps=0, batch_size=64, epochs=10, log_every=4)


def make(out):
    seed_all(404)
    X, y = make_data(0, 6000, 32, 10)
    Xt, yt = torch.tensor(X), torch.tensor(y)
    tr_x, tr_y, va_x, va_y = Xt[:5000], yt[:5000], Xt[5000:], yt[5000:]
    clk = Clock(dt.datetime(2024, 6, 18, 9, 2, 44, 871000))
    sink = GcpSink("acme-vision-research", 8801274409150791680, seed=4)
    sink.platform(clk.now(), "Waiting for job to be provisioned.")
    clk.skip(94.5)
    sink.platform(clk.now(), "Waiting for training program to start.")
    clk.skip(41.0)
    sink.platform(clk.now(), "Job is running.")
    clk.skip(7.9)

    def log(message, severity="INFO", **kw):
        p = {"message": message}
        p.update(kw)
        sink.add(clk.now(), severity, payload=p)

    log("config", **{k: v for k, v in ARGS.items()}, data="gs://acme-vision-data/embeddings/shards-v4/train-*.tfrecord")
    model = nn.Sequential(nn.Linear(32, 256), nn.GELU(), nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=ARGS["lr"], momentum=ARGS["momentum"])
    log("model", n_params=sum(p.numel() for p in model.parameters()), head="linear-10")
    step = 0
    hist = []
    ep_hist = []
    for ep in range(1, ARGS["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(tr_x))
        win_l, win_g = [], []
        for i in range(0, len(tr_x), ARGS["batch_size"]):
            idx = perm[i:i + ARGS["batch_size"]]
            loss = nn.functional.cross_entropy(model(tr_x[idx]), tr_y[idx])
            opt.zero_grad()
            loss.backward()
            gn = grad_norm(model)
            opt.step()
            step += 1
            win_l.append(loss.item())
            win_g.append(gn)
            if step % ARGS["log_every"] == 0:
                log("train_step", epoch=ep, step=step, loss=r(np.mean(win_l)), grad_norm=r(gn, 3),
                    max_grad_norm_window=r(max(win_g), 3), lr=ARGS["lr"])
                hist.append((step, float(np.mean(win_l)), gn, max(win_g)))
                win_l, win_g = [], []
        model.eval()
        with torch.no_grad():
            o = model(va_x)
            vl = nn.functional.cross_entropy(o, va_y).item()
            va = (o.argmax(1) == va_y).float().mean().item()
        log("eval", epoch=ep, step=step, val_loss=r(vl), val_acc=r(va))
        ep_hist.append((ep, float(np.mean([h[1] for h in hist if h[0] > step - len(tr_x) // ARGS["batch_size"]])), vl, va))
    log("saved checkpoint", path="gs://acme-vision-models/emb-head/run-0618a/final.pt", step=step)
    clk.skip(3.1)
    sink.platform(clk.now(), "Job completed successfully.")
    sink.write(f"{out}/cloud_logging_export_S0.json")
    write(f"{out}/custom_job.yaml", f"""displayName: emb-head-run-0618a
jobSpec:
  workerPoolSpecs:
    - machineSpec:
        machineType: n1-standard-8
      replicaCount: "1"
      containerSpec:
        imageUri: us-docker.pkg.dev/acme-vision-research/train/emb-head:0.9.3
        args:
          - --data=gs://acme-vision-data/embeddings/shards-v4/train-*.tfrecord
          - --optimizer={ARGS['optimizer']}
          - --lr={ARGS['lr']}
          - --momentum={ARGS['momentum']}
          - --warmup-steps={ARGS['warmup_steps']}
          - --batch-size={ARGS['batch_size']}
          - --epochs={ARGS['epochs']}
  baseOutputDirectory:
    outputUriPrefix: gs://acme-vision-models/emb-head/run-0618a
""")
    best = min(ep_hist, key=lambda e: e[2])
    worst = max(ep_hist[best[0]:], key=lambda e: e[2])
    med_gn = float(np.median([h[2] for h in hist]))
    return {
        "truth": "lr_too_high",
        "symptom": "Loss goes down nicely at the start, then climbs back up and bounces around for the rest of the job. "
                   "What is going on?",
        "how": f"Plain SGD lr {ARGS['lr']} momentum {ARGS['momentum']}, no warm-up on a GELU MLP: mean train loss per epoch "
               f"{ep_hist[0][1]:.2f} -> {best[1]:.2f} (epoch {best[0]}) -> {ep_hist[-1][1]:.2f} (epoch {ep_hist[-1][0]}), val loss "
               f"{best[2]:.2f} at epoch {best[0]} rising to {worst[2]:.2f}, val acc {best[3]:.3f} -> {ep_hist[-1][3]:.3f}; grad-norm spikes up to "
               f"{max(h[3] for h in hist):.1f} (median {med_gn:.2f}).",
        "_hist": hist,
    }
