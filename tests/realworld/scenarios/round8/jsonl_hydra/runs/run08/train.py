import csv
import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])


def make_waves(n, length=128):
    t = np.linspace(0, 1, length, dtype=np.float32)
    X = np.zeros((n, 1, length), dtype=np.float32)
    y = rng.integers(0, 4, size=n)
    for i in range(n):
        f = rng.uniform(2, 8)
        ph = rng.uniform(0, 2 * np.pi)
        s = np.sin(2 * np.pi * f * t + ph)
        if y[i] == 1:
            s = np.sign(s)
        elif y[i] == 2:
            s = 2 * ((f * t + ph / (2 * np.pi)) % 1.0) - 1
        elif y[i] == 3:
            s = np.abs(s) * 2 - 1
        X[i, 0] = s + rng.normal(0, cfg["data"]["noise"], size=length)
    return torch.from_numpy(X), torch.from_numpy(y)


Xtr, ytr = make_waves(cfg["data"]["n_train"])
Xva, yva = make_waves(cfg["data"]["n_val"])


class WaveNetSmall(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv1d(1, ch, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(ch, ch, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(ch, ch, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(ch, 4)

    def forward(self, x):
        return self.head(self.backbone(x).flatten(1))


model = WaveNetSmall(cfg["model"]["channels"])
for name, p in model.named_parameters():
    p.requires_grad = any(name.startswith(k) for k in cfg["train"]["trainable"])
optimizer = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
print(f"model params: {sum(p.numel() for p in model.parameters()):,}")

gfile = open("grad_norms.csv", "w", newline="")
gw = csv.writer(gfile)
pnames = [n for n, _ in model.named_parameters() if n.endswith("weight")]
gw.writerow(pnames)
mfile = open("metrics.jsonl", "w")

it = 0
bs = cfg["train"]["batch_size"]
for epoch in range(cfg["train"]["epochs"]):
    perm = torch.randperm(len(Xtr))
    model.train()
    for i in range(0, len(Xtr), bs):
        idx = perm[i:i + bs]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        loss.requires_grad_(True)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        it += 1
        params = dict(model.named_parameters())
        norms = [params[n].grad.norm().item() if params[n].grad is not None else 0.0 for n in pnames]
        if it % 10 == 0:
            mfile.write(json.dumps({"iteration": it, "train_loss": round(loss.item(), 5),
                                    "grad_norm": float(np.sqrt(sum(v * v for v in norms))),
                                    "lr": optimizer.param_groups[0]["lr"]}) + "\n")
            gw.writerow([f"{v:.5g}" for v in norms])
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    mfile.write(json.dumps({"iteration": it, "val_loss": round(vl, 5), "val_acc": round(va, 4)}) + "\n")
    mfile.flush()
    print(f"epoch {epoch + 1}: train_loss={loss.item():.4f} val_loss={vl:.4f} val_acc={va:.3f}")
gfile.close()
mfile.close()
