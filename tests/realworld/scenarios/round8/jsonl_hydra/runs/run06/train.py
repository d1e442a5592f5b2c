import csv
import json
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

X, y = make_classification(n_samples=3600, n_features=32, n_informative=16, n_redundant=8,
                           n_classes=5, n_clusters_per_class=1, class_sep=1.5, random_state=cfg["seed"])
sc = StandardScaler().fit(X[:3000])
X = torch.tensor(sc.transform(X), dtype=torch.float32)
y = torch.tensor(y)
Xtr, ytr, Xva, yva = X[:3000], y[:3000], X[3000:], y[3000:]


class DeepMLP(nn.Module):
    def __init__(self, d_in, width, depth, n_cls):
        super().__init__()
        dims = [d_in] + [width] * depth
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.out = nn.Linear(width, n_cls)
        self.apply(self.init_weights)

    @staticmethod
    def init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=1.0)
            nn.init.zeros_(m.bias)

    def forward(self, x):
        for layer in self.hidden:
            x = F.relu(layer(x))
        return self.out(x)


model = DeepMLP(32, cfg["model"]["width"], cfg["model"]["depth"], 5)
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])

layer_names = [f"hidden.{i}" for i in range(len(model.hidden))] + ["out"]
layers = list(model.hidden) + [model.out]
gf = open("grad_norms.csv", "w", newline="")
gw = csv.writer(gf)
gw.writerow(["global_step"] + layer_names)
mf = open("metrics.jsonl", "w")

step = 0
for epoch in range(cfg["epochs"]):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), cfg["batch_size"]):
        idx = perm[i:i + cfg["batch_size"]]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
        if step % 5 == 0:
            gw.writerow([step] + [f"{l.weight.grad.norm().item():.4g}" for l in layers])
        opt.step()
        if step % 5 == 0:
            mf.write(json.dumps({"global_step": step, "loss": loss.item(), "grad_norm": gnorm,
                                 "lr": opt.param_groups[0]["lr"]}) + "\n")
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    mf.write(json.dumps({"global_step": step, "epoch": epoch, "val_loss": vl, "val_accuracy": va}) + "\n")
    mf.flush()
    print(f"[epoch {epoch:02d}] step {step} loss {loss.item():.4g} grad_norm {gnorm:.4g} val_loss {vl:.4g} val_acc {va:.3f}")
gf.close()
mf.close()
