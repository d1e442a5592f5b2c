import json, math, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open(".hydra/config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

T, K = cfg["data"]["seq_len"], cfg["model"]["num_classes"]
motifs = rng.normal(0, 1, size=(K, 6)).astype(np.float32)
motifs /= np.linalg.norm(motifs, axis=1, keepdims=True) / 3.5

def make(n):
    x = rng.normal(0, 1.0, size=(n, T, 1)).astype(np.float32)
    y = rng.integers(0, K, size=n)
    pos = rng.integers(0, T - 6, size=n)
    for i in range(n):
        x[i, pos[i]:pos[i] + 6, 0] += motifs[y[i]]
    return torch.from_numpy(x), torch.from_numpy(y)

Xtr, ytr = make(cfg["data"]["n_train"])
Xva, yva = make(cfg["data"]["n_val"])
if cfg["data"]["normalize"]:
    mu, sd = Xtr.mean(), Xtr.std()
    Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

class GRUClassifier(nn.Module):
    def __init__(self, hidden, k):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, k)
    def forward(self, x):
        h, _ = self.gru(x)
        return self.head(h.max(dim=1).values)

model = GRUClassifier(cfg["model"]["hidden"], K)
o = cfg["optim"]
opt = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"],
                      weight_decay=o["weight_decay"], nesterov=True)
steps, warm = cfg["trainer"]["max_steps"], cfg["trainer"]["warmup_steps"]
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / (steps - warm))))

bs = cfg["data"]["batch_size"]
log = open("metrics.jsonl", "w")
print(f"[{time.strftime('%H:%M:%S')}] gru hidden={cfg['model']['hidden']} params={sum(p.numel() for p in model.parameters())}")
perm, ptr = torch.randperm(len(Xtr)), 0
for step in range(1, steps + 1):
    if ptr + bs > len(Xtr):
        perm, ptr = torch.randperm(len(Xtr)), 0
    idx = perm[ptr:ptr + bs]; ptr += bs
    model.train()
    loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["trainer"]["grad_clip"])
    opt.step(); sched.step()
    if step % cfg["trainer"]["log_every"] == 0:
        log.write(json.dumps({"step": step, "loss": round(loss.item(), 4),
                              "lr": round(sched.get_last_lr()[0], 6), "grad_norm": round(gn.item(), 4)}) + "\n")
    if step % cfg["trainer"]["eval_every"] == 0:
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            el, ea = F.cross_entropy(out, yva).item(), (out.argmax(1) == yva).float().mean().item()
        log.write(json.dumps({"step": step, "eval_loss": round(el, 4), "eval_acc": round(ea, 4)}) + "\n")
        log.flush()
        print(f"[{time.strftime('%H:%M:%S')}] step {step}/{steps} loss {loss.item():.3f} eval_loss {el:.3f} eval_acc {ea:.3f}")
log.close()
