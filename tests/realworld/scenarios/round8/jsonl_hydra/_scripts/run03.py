import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open(".hydra/config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

n, d = cfg["data"]["n_samples"], cfg["data"]["n_features"]
X = rng.normal(size=(n, d)).astype(np.float32)
w = rng.normal(size=d) / np.sqrt(d)
z = X @ w + 0.35 * np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] * X[:, 2] + 0.15 * rng.normal(size=n)
z = (z - z.mean()) / z.std()
y = (41000.0 + 12500.0 * z).astype(np.float32)          # price-like target
ntr = int(0.85 * n)
Xtr, ytr = torch.from_numpy(X[:ntr]), torch.from_numpy(y[:ntr])
Xva, yva = torch.from_numpy(X[ntr:]), torch.from_numpy(y[ntr:])
y_mean, y_std = ytr.mean().item(), ytr.std().item()

class Regressor(nn.Module):
    def __init__(self, d, h, y_mean, y_std):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, h), nn.GELU(), nn.Linear(h, h), nn.GELU(), nn.Linear(h, 1))
        self.y_mean, self.y_std = y_mean, y_std
    def forward(self, x):
        return (self.net(x) * self.y_std + self.y_mean).squeeze(-1)

model = Regressor(d, cfg["model"]["hidden"], y_mean, y_std)
o = cfg["optim"]
opt = torch.optim.AdamW(model.parameters(), lr=o["lr"], betas=tuple(o["betas"]), weight_decay=o["weight_decay"])
use_amp = cfg["trainer"]["precision"] == 16
scaler = torch.amp.GradScaler("cpu", enabled=use_amp)
bs = cfg["data"]["batch_size"]
print(f"precision={cfg['trainer']['precision']} amp={use_amp} n_train={ntr} y_mean={y_mean:.1f} y_std={y_std:.1f}")
log = open("metrics.jsonl", "w")
it, skipped = 0, 0
while it < cfg["trainer"]["max_steps"]:
    perm = torch.randperm(ntr) if cfg["data"]["shuffle"] else torch.arange(ntr)
    for i in range(0, ntr - bs + 1, bs):
        idx = perm[i:i + bs]
        with torch.autocast("cpu", dtype=torch.float16, enabled=use_amp):
            pred = model(Xtr[idx])
            loss = F.mse_loss(pred.float(), ytr[idx])
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["trainer"]["grad_clip"])
        scale_before = scaler.get_scale()
        scaler.step(opt)
        scaler.update()
        it += 1
        if not torch.isfinite(gn):
            skipped += 1
        if it % cfg["trainer"]["log_every"] == 0:
            log.write(json.dumps({"it": it, "train/mse": float(loss.item()), "train/rmse": float(loss.item()) ** 0.5,
                                  "grad/total_norm": float(gn.item()), "amp/scale": scaler.get_scale(),
                                  "amp/skipped_total": skipped, "optim/lr": opt.param_groups[0]["lr"]}) + "\n")
        if it % cfg["trainer"]["eval_every"] == 0:
            with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16, enabled=use_amp):
                pv = model(Xva).float()
            mae = (pv - yva).abs().mean().item()
            rmse = ((pv - yva) ** 2).mean().sqrt().item()
            log.write(json.dumps({"it": it, "eval/mae": mae, "eval/rmse": rmse}) + "\n")
            log.flush()
            print(f"it {it:5d}  mse {loss.item():.4g}  val_mae {mae:.1f}  scale {scaler.get_scale():.3g}  skipped {skipped}")
        if it >= cfg["trainer"]["max_steps"]:
            break
log.close()
