import csv, json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open(".hydra/config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])
T = cfg["data"]["seq_len"]

def adding_batch(n):
    vals = rng.uniform(0, 1, size=(n, T)).astype(np.float32)
    marks = np.zeros((n, T), dtype=np.float32)
    a = rng.integers(0, T // 2, n)
    b = rng.integers(T // 2, T, n)
    marks[np.arange(n), a] = 1.0
    marks[np.arange(n), b] = 1.0
    x = np.stack([vals, marks], -1)
    y = (vals * marks).sum(1)
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.float32))

class GRUReg(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.rnn = nn.GRU(2, h, batch_first=True)
        self.head = nn.Linear(h, 1)
    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1]).squeeze(-1)

model = GRUReg(cfg["model"]["hidden"])
o = cfg["optim"]
opt = torch.optim.Adam(model.parameters(), lr=o["lr"], betas=tuple(o["betas"]), weight_decay=o["weight_decay"])
Xva, yva = adding_batch(1000)
names = [n for n, _ in model.named_parameters()]
gf = open("grad_norms.csv", "w", newline=""); gw = csv.writer(gf); gw.writerow(["it"] + names)
log = open("metrics.jsonl", "w")
bs = cfg["data"]["batch_size"]
print(f"adding problem T={T}; predicting the mean gives mse ~{yva.var().item():.4f}")
for it in range(1, cfg["trainer"]["max_steps"] + 1):
    xb, yb = adding_batch(bs)
    loss = F.mse_loss(model(xb), yb)
    opt.zero_grad()
    loss.backward()
    if cfg["trainer"]["grad_clip"]:
        gn = nn.utils.clip_grad_norm_(model.parameters(), cfg["trainer"]["grad_clip"]).item()
    else:
        gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
    if it % cfg["trainer"]["log_every"] == 0:
        log.write(json.dumps({"it": it, "train/mse": loss.item(), "grad/total_norm": gn, "optim/lr": o["lr"]}) + "\n")
        gw.writerow([it] + [f"{p.grad.norm().item():.4e}" for p in model.parameters()])
    opt.step()
    if it % cfg["trainer"]["eval_every"] == 0:
        with torch.no_grad():
            vl = F.mse_loss(model(Xva), yva).item()
        log.write(json.dumps({"it": it, "eval/mse": vl}) + "\n"); log.flush()
        print(f"it {it:4d} | train/mse {loss.item():.5f} | eval/mse {vl:.5f} | grad_norm {gn:.4g}")
log.close(); gf.close()
