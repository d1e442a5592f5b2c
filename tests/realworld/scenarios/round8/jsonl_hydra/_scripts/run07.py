import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
cfg = yaml.safe_load(open(".hydra/config.yaml"))
torch.manual_seed(cfg["seed"])
X, y = make_classification(n_samples=6000, n_features=40, n_informative=20, n_redundant=10, n_classes=6,
                           n_clusters_per_class=2, class_sep=1.0, random_state=cfg["seed"])
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=1000, random_state=cfg["seed"])
if cfg["data"]["normalize"]:
    m, s = Xtr.mean(0), Xtr.std(0)
    Xtr, Xva = (Xtr - m) / s, (Xva - m) / s
Xtr, Xva = torch.tensor(Xtr, dtype=torch.float32), torch.tensor(Xva, dtype=torch.float32)
ytr, yva = torch.tensor(ytr), torch.tensor(yva)

h = cfg["model"]["hidden"]
model = nn.Sequential(nn.Linear(40, h), nn.ReLU(), nn.Dropout(cfg["model"]["dropout"]),
                      nn.Linear(h, h), nn.ReLU(), nn.Dropout(cfg["model"]["dropout"]), nn.Linear(h, 6))
o = cfg["optim"]
opt = torch.optim.Adam(model.parameters(), lr=o["lr"], betas=tuple(o["betas"]), weight_decay=o["weight_decay"])
bs = cfg["data"]["batch_size"]
log = open("metrics.jsonl", "w")
step = 0
while step < cfg["trainer"]["max_steps"]:
    perm = torch.randperm(len(Xtr)) if cfg["data"]["shuffle"] else torch.arange(len(Xtr))
    for i in range(0, len(Xtr) - bs + 1, bs):
        idx = perm[i:i + bs]
        model.train()
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        if cfg["trainer"]["grad_clip"]:
            nn.utils.clip_grad_norm_(model.parameters(), cfg["trainer"]["grad_clip"])
        opt.step()
        step += 1
        if step % 10 == 0:
            log.write(json.dumps({"step": step, "train/loss": round(loss.item(), 4),
                                  "train/acc": round((out.argmax(1) == ytr[idx]).float().mean().item(), 4),
                                  "lr": o["lr"]}) + "\n")
        if step % 100 == 0:
            model.eval()
            with torch.no_grad():
                ov = model(Xva)
                vl, va = F.cross_entropy(ov, yva).item(), (ov.argmax(1) == yva).float().mean().item()
            log.write(json.dumps({"step": step, "val/loss": round(vl, 4), "val/acc": round(va, 4)}) + "\n")
            log.flush()
            print(f"step {step:5d} | train/loss {loss.item():.4f} | val/loss {vl:.4f} | val/acc {va:.4f}")
        if step >= cfg["trainer"]["max_steps"]:
            break
log.close()
