import json

import numpy as np
import torch
import torch.nn as nn
import yaml

from data import load_frame, make_split

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
df, features = load_frame(cfg)
_, va_idx = make_split(len(df), cfg["data"]["val_frac"], cfg["train"]["seed"])
H = cfg["train"]["hidden"]
model = nn.Sequential(nn.Linear(len(features), H), nn.ReLU(), nn.Linear(H, H), nn.ReLU(), nn.Linear(H, 2))
model.load_state_dict(torch.load(cfg["artifacts"] + "model.pt"))
model.eval()
x = torch.tensor(df.iloc[va_idx][features].values, dtype=torch.float32)
yv = df.iloc[va_idx][cfg["data"]["target"]].values
with torch.no_grad():
    p = torch.softmax(model(x), 1)[:, 1].numpy()
pred = (p >= 0.5).astype(int)
tp = int(((pred == 1) & (yv == 1)).sum())
report = {"n_val": len(va_idx), "accuracy": round(float((pred == yv).mean()), 4),
          "precision": round(tp / max(pred.sum(), 1), 4), "recall": round(tp / max(yv.sum(), 1), 4)}
print(json.dumps(report, indent=2))
json.dump(report, open(cfg["artifacts"] + "offline_report.json", "w"), indent=2)
