import json, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])
S = 16
yy, xx = np.mgrid[0:S, 0:S]

def shape_img(c):
    cx, cy, r = rng.uniform(5, 11), rng.uniform(5, 11), rng.uniform(2.5, 4.5)
    if c == 0:
        m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r ** 2
    elif c == 1:
        m = (np.abs(xx - cx) <= r) & (np.abs(yy - cy) <= r)
    elif c == 2:
        m = ((np.abs(xx - cx) <= 0.8) & (np.abs(yy - cy) <= r)) | ((np.abs(yy - cy) <= 0.8) & (np.abs(xx - cx) <= r))
    else:
        m = (np.abs(xx - cx) + np.abs(yy - cy) <= r) & (yy >= cy)
    return m.astype(np.float32) + rng.normal(0, cfg["data"]["noise"], (S, S)).astype(np.float32)

def make(n):
    y = rng.integers(0, 4, n)
    return torch.from_numpy(np.stack([shape_img(c) for c in y])[:, None]), torch.from_numpy(y)

Xtr, ytr = make(cfg["data"]["n_train"])
Xva, yva = make(cfg["data"]["n_val"])

def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))

model = nn.Sequential(block(1, 16), block(16, 32), block(32, 32), nn.Flatten(), nn.Linear(32 * 2 * 2, 4))
opt = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"], momentum=cfg["optim"]["momentum"],
                      weight_decay=cfg["optim"]["weight_decay"])
bs = cfg["data"]["batch_size"]
print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} start: n_train={len(Xtr)} batch_size={bs} epochs={cfg['epochs']}")
log = open("metrics.jsonl", "w")
step = 0
for epoch in range(cfg["epochs"]):
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr) - bs + 1, bs):
        idx = perm[i:i + bs]
        model.train()
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % cfg["log_every"] == 0:
            log.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 4),
                                  "lr": cfg["optim"]["lr"]}) + "\n")
        if step % cfg["eval_every"] == 0:
            model.eval()
            with torch.no_grad():
                o = model(Xva)
                vl, va = F.cross_entropy(o, yva).item(), (o.argmax(1) == yva).float().mean().item()
            log.write(json.dumps({"step": step, "val_loss": round(vl, 4), "val_acc": round(va, 4)}) + "\n")
            log.flush()
            print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} step {step} epoch {epoch} loss {loss.item():.4f} val_loss {vl:.4f} val_acc {va:.4f}")
log.close()
