import json
import os

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import yaml

from model import MLP

torch.set_num_threads(1)
cfg = yaml.safe_load(open("train_config.yaml"))
torch.manual_seed(cfg["seed"])
os.makedirs(cfg["out_dir"], exist_ok=True)

train = pd.read_csv(cfg["data"]["train"])
val = pd.read_csv(cfg["data"]["val"])
feats = [c for c in train.columns if c != "label"]
mean = train[feats].mean().values
std = train[feats].std().values
with open(os.path.join(cfg["out_dir"], "scaler.json"), "w") as f:
    json.dump({"features": feats, "mean": mean.tolist(), "std": std.tolist()}, f, indent=1)


def tensors(df):
    x = (df[feats].values - mean) / std
    return torch.tensor(x, dtype=torch.float32), torch.tensor(df["label"].values)


xtr, ytr = tensors(train)
xva, yva = tensors(val)
model = MLP(len(feats), cfg["model"]["hidden"], cfg["model"]["n_classes"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
loss_fn = nn.CrossEntropyLoss()
bs = cfg["optim"]["batch_size"]
history = []
for epoch in range(1, cfg["optim"]["epochs"] + 1):
    model.train()
    perm = torch.randperm(len(xtr))
    tot = 0.0
    for i in range(0, len(xtr), bs):
        idx = perm[i:i + bs]
        opt.zero_grad()
        loss = loss_fn(model(xtr[idx]), ytr[idx])
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        logits = model(xva)
        val_loss = loss_fn(logits, yva).item()
        val_acc = (logits.argmax(1) == yva).float().mean().item()
    history.append({"epoch": epoch, "train_loss": tot / len(xtr), "val_loss": val_loss, "val_acc": val_acc})
    print(f"epoch {epoch:02d} | train_loss {tot / len(xtr):.4f} | val_loss {val_loss:.4f} | val_acc {val_acc:.4f}")

pd.DataFrame(history).to_csv(os.path.join(cfg["out_dir"], "metrics.csv"), index=False, float_format="%.5f")
torch.save(model.state_dict(), os.path.join(cfg["out_dir"], "model_state.pt"))
print(f"final: val_loss={val_loss:.4f} val_acc={val_acc:.4f}")
