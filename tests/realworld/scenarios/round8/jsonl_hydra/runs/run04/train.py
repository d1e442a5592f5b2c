import csv
import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

X, y = make_classification(n_samples=cfg["data"]["n_samples"], n_features=20, n_informative=12,
                           n_redundant=4, n_classes=4, n_clusters_per_class=2, class_sep=1.2,
                           random_state=cfg["data"]["seed"])
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, random_state=0)
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
Xtr, Xva = torch.tensor(Xtr, dtype=torch.float32), torch.tensor(Xva, dtype=torch.float32)
ytr, yva = torch.tensor(ytr), torch.tensor(yva)

class MLP(nn.Module):
    def __init__(self, d_in, hidden, n_out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, n_out))
    def forward(self, x):
        return self.net(x)

model = MLP(20, cfg["model"]["hidden"], 4)
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"], momentum=cfg["optim"]["momentum"])

names = [n for n, _ in model.named_parameters() if n.endswith("weight")]
gcsv = csv.writer(open("grad_norms.csv", "w", newline=""))
gcsv.writerow(["it"] + names)
mlog = open("metrics.jsonl", "w")

bs = cfg["data"]["batch_size"]
g = torch.Generator().manual_seed(cfg["seed"])
perm, ptr = torch.randperm(len(Xtr), generator=g), 0
for it in range(1, cfg["train"]["max_steps"] + 1):
    if ptr + bs > len(Xtr):
        perm, ptr = torch.randperm(len(Xtr), generator=g), 0
    idx = perm[ptr:ptr + bs]
    ptr += bs
    model.train()
    logits = model(Xtr[idx])
    loss = F.cross_entropy(logits, ytr[idx])
    loss.backward()
    total = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
    optimizer.step()

    if it % cfg["train"]["log_every"] == 0:
        mlog.write(json.dumps({"it": it, "train/ce": loss.item(), "optim/lr": optimizer.param_groups[0]["lr"],
                               "grad/total_norm": total}) + "\n")
        gcsv.writerow([it] + [f"{dict(model.named_parameters())[n].grad.norm().item():.6g}" for n in names])
    if it % cfg["train"]["eval_every"] == 0:
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            ce = F.cross_entropy(out, yva).item()
            acc = (out.argmax(1) == yva).float().mean().item()
        mlog.write(json.dumps({"it": it, "eval/acc": acc, "eval/ce": ce}) + "\n")
        mlog.flush()
        print(f"it={it} train/ce={loss.item():.4f} eval/ce={ce:.4f} eval/acc={acc:.3f} |g|={total:.3g}")
mlog.close()
