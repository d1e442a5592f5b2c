import argparse
import numpy as np
import torch
import torch.nn as nn
import yaml

p = argparse.ArgumentParser()
p.add_argument("--config", default="configs/eval.yaml")
args = p.parse_args()
cfg = yaml.safe_load(open(args.config))
print(f"config: {cfg}", flush=True)

ckpt = torch.load(cfg["checkpoint"], weights_only=False)
print(f"loaded {cfg['checkpoint']} (epoch {ckpt['epoch']})", flush=True)
d = np.load(cfg["data"])
X = torch.tensor((d[cfg["split_x"]] - ckpt["mean"]) / ckpt["std"], dtype=torch.float32)
y = torch.tensor(d[cfg["split_y"]])
model = nn.Sequential(nn.Linear(X.shape[1], 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
model.load_state_dict(ckpt["model"])
model.eval()
with torch.no_grad():
    pred = model(X).argmax(1)
acc = (pred == y).float().mean().item()
print(f"n={len(y)}  accuracy={acc:.4f}", flush=True)
per_class = [(pred[y == c] == c).float().mean().item() for c in range(10)]
print("per-class acc: " + " ".join(f"{a:.3f}" for a in per_class), flush=True)
