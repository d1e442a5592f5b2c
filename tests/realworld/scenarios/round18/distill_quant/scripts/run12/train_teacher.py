import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

from data import CLASSES, FEATURES, build_preprocessing, load_sensor_data

torch.set_num_threads(1)
cfg = yaml.safe_load(open("teacher.yaml"))
torch.manual_seed(cfg["train"]["seed"])
x_tr, y_tr = load_sensor_data("train", cfg["data"]["n_train"])
x_va, y_va = load_sensor_data("val", cfg["data"]["n_val"])
prep = build_preprocessing(cfg["data"]["preprocessing"], x_tr)
x_tr, x_va = prep(x_tr), prep(x_va)


def mlp(hidden, p):
    dims = [FEATURES] + hidden
    layers = []
    for a, b in zip(dims[:-1], dims[1:]):
        layers += [nn.Linear(a, b), nn.ReLU(), nn.Dropout(p)]
    return nn.Sequential(*layers, nn.Linear(dims[-1], CLASSES))


model = mlp(cfg["model"]["hidden"], cfg["model"]["dropout"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
for epoch in range(cfg["train"]["epochs"]):
    model.train()
    perm = torch.randperm(len(x_tr))
    for i in range(0, len(x_tr), cfg["train"]["batch_size"]):
        idx = perm[i:i + cfg["train"]["batch_size"]]
        loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        out = model(x_va)
        print(f"epoch {epoch + 1:02d}  loss {loss.item():.4f}  val_loss {F.cross_entropy(out, y_va).item():.4f}  "
              f"val_acc {(out.argmax(1) == y_va).float().mean().item():.4f}")
os.makedirs("artifacts", exist_ok=True)
torch.save(model.state_dict(), cfg["save"]["weights"])
prep.save(cfg["save"]["scaler"])
print(f"saved {cfg['save']['weights']} and {cfg['save']['scaler']}")
