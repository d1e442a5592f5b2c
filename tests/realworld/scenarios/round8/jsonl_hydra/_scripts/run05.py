import csv, json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
X, y = load_digits(return_X_y=True)
X = X.astype(np.float32) / 16.0
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.25, random_state=1)
Xtr, Xva = torch.from_numpy(Xtr), torch.from_numpy(Xva)
ytr, yva = torch.from_numpy(ytr), torch.from_numpy(yva)

act = {"sigmoid": nn.Sigmoid, "tanh": nn.Tanh, "relu": nn.ReLU}[cfg["model"]["activation"]]
layers, d = [], 64
for _ in range(cfg["model"]["depth"]):
    layers += [nn.Linear(d, cfg["model"]["width"]), act()]
    d = cfg["model"]["width"]
layers.append(nn.Linear(d, 10))
model = nn.Sequential(*layers)
linears = [m for m in model if isinstance(m, nn.Linear)]
opt = torch.optim.SGD(model.parameters(), lr=cfg["optimizer"]["lr"], momentum=cfg["optimizer"]["momentum"])

f = open("grad_norms.csv", "w", newline="")
w = csv.writer(f)
w.writerow([f"fc{i}" for i in range(len(linears))])
log = open("metrics.jsonl", "w")
bs, it = cfg["batch_size"], 0
for ep in range(cfg["epochs"]):
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), bs):
        idx = perm[i:i + bs]
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        it += 1
        if it % cfg["log_interval"] == 0:
            acc = (out.argmax(1) == ytr[idx]).float().mean().item()
            log.write(json.dumps({"iter": it, "loss": round(loss.item(), 5), "acc": round(acc, 4),
                                  "lr": opt.param_groups[0]["lr"]}) + "\n")
            w.writerow([f"{l.weight.grad.norm().item():.3e}" for l in linears])
    with torch.no_grad():
        o = model(Xva)
        vl, va = F.cross_entropy(o, yva).item(), (o.argmax(1) == yva).float().mean().item()
    log.write(json.dumps({"iter": it, "val_loss": round(vl, 5), "val_acc": round(va, 4)}) + "\n")
    print(f"Epoch {ep + 1}/{cfg['epochs']}  loss={loss.item():.4f}  val_loss={vl:.4f}  val_acc={va:.4f}")
log.close(); f.close()
