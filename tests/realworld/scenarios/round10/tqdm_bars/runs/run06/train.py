import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["data"]["seed"])
torch.set_num_threads(1)

d = np.load(cfg["data"]["path"])
X, y = torch.from_numpy(d["X"]), torch.from_numpy(d["y"])
perm = torch.randperm(len(X))
n_val = int(len(X) * cfg["data"]["val_fraction"])
va_idx, tr_idx = perm[:n_val], perm[n_val:]
mean, std = X[tr_idx].mean(0), X[tr_idx].std(0)
X = (X - mean) / std
n_classes = int(y.max()) + 1
print(f"train {len(tr_idx)}  val {len(va_idx)}  features {X.shape[1]}  classes {n_classes}")

train_loader = DataLoader(TensorDataset(X[tr_idx], y[tr_idx]), batch_size=cfg["train"]["batch_size"], shuffle=True)
Xva, yva = X[va_idx], y[va_idx]


class MLP(nn.Module):
    def __init__(self, d_in, hidden, n_out):
        super().__init__()
        dims = [d_in] + hidden
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.out = nn.Linear(dims[-1], n_out)

    def forward(self, x, return_acts=False):
        acts = []
        for layer in self.hidden:
            x = F.relu(layer(x))
            acts.append(x)
        out = self.out(x)
        return (out, acts) if return_acts else out


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.constant_(m.bias, cfg["model"]["bias_init"])


model = MLP(X.shape[1], cfg["model"]["hidden"], n_classes)
model.apply(init_weights)
opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"], weight_decay=cfg["train"]["weight_decay"])

for epoch in range(cfg["train"]["epochs"]):
    model.train()
    pbar = tqdm(train_loader, desc=f"[{epoch + 1}/{cfg['train']['epochs']}]", leave=True)
    tl, tc, n = 0.0, 0, 0
    for xb, yb in pbar:
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        opt.zero_grad()
        loss.backward()
        gnorm = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters())).item()
        opt.step()
        tl += loss.item() * len(xb)
        tc += (logits.argmax(1) == yb).sum().item()
        n += len(xb)
        pbar.set_postfix(loss=tl / n, acc=tc / n, gnorm=gnorm, refresh=False)
    model.eval()
    with torch.no_grad():
        logits, acts = model(Xva, return_acts=True)
        vloss = F.cross_entropy(logits, yva).item()
        vacc = (logits.argmax(1) == yva).float().mean().item()
        active = [int((a > 0).any(0).sum()) for a in acts]
    print(f"epoch {epoch + 1:3d}  train_loss={tl / n:.4f}  train_acc={tc / n:.4f}  val_loss={vloss:.4f}  "
          f"val_acc={vacc:.4f}  active_units={active}")
