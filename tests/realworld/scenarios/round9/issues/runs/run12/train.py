import argparse
import os
import yaml
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
ap = argparse.ArgumentParser()
ap.add_argument("--config", default="config.yaml")
ap.add_argument("--resume", default=None)
args = ap.parse_args()
cfg = yaml.safe_load(open(args.config))
torch.manual_seed(cfg["seed"])

dc = cfg["data"]
X, y = make_classification(n_samples=dc["n_samples"], n_features=dc["n_features"], n_informative=20,
                           n_redundant=10, n_classes=dc["n_classes"], n_clusters_per_class=2,
                           class_sep=1.0, random_state=cfg["seed"])
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=dc["val_frac"], random_state=cfg["seed"])
sc = StandardScaler().fit(Xtr)
Xtr, Xva = [torch.tensor(sc.transform(a), dtype=torch.float32) for a in (Xtr, Xva)]
ytr, yva = torch.tensor(ytr), torch.tensor(yva)


class Block(nn.Module):
    def __init__(self, w, p):
        super().__init__()
        self.ln = nn.LayerNorm(w)
        self.fc1 = nn.Linear(w, w)
        self.fc2 = nn.Linear(w, w)
        self.drop = nn.Dropout(p)

    def forward(self, x):
        return x + self.fc2(self.drop(F.gelu(self.fc1(self.ln(x)))))


class Net(nn.Module):
    def __init__(self, d_in, n_cls, w, blocks, p):
        super().__init__()
        self.inp = nn.Linear(d_in, w)
        self.blocks = nn.Sequential(*[Block(w, p) for _ in range(blocks)])
        self.out = nn.Sequential(nn.LayerNorm(w), nn.Linear(w, n_cls))

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


mc, oc, tc = cfg["model"], cfg["optim"], cfg["train"]
model = Net(dc["n_features"], dc["n_classes"], mc["width"], mc["blocks"], mc["dropout"])
optimizer = torch.optim.AdamW(model.parameters(), lr=oc["lr"], weight_decay=oc["weight_decay"],
                              betas=tuple(oc["betas"]))
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=tc["epochs"],
                                                       eta_min=cfg["sched"]["min_lr"])
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    start_epoch = ckpt["epoch"] + 1
    print(f"=> resumed from {args.resume} (epoch {ckpt['epoch']}, val_acc {ckpt['val_acc']:.4f})")

os.makedirs(tc["ckpt_dir"], exist_ok=True)
for epoch in range(start_epoch, tc["epochs"]):
    model.train()
    perm = torch.randperm(len(Xtr))
    tot, n = 0.0, 0
    for b in range(0, len(perm), tc["batch_size"]):
        idx = perm[b:b + tc["batch_size"]]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
        n += len(idx)
    lr_now = optimizer.param_groups[0]["lr"]
    scheduler.step()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    torch.save({"model": model.state_dict(), "epoch": epoch, "val_acc": va},
               os.path.join(tc["ckpt_dir"], "last.pt"))
    print(f"epoch {epoch:3d}/{tc['epochs']}  lr {lr_now:.6f}  train_loss {tot / n:.4f}  "
          f"val_loss {vl:.4f}  val_acc {va:.4f}", flush=True)
