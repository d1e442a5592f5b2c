import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("mlp_config.yaml"))
torch.manual_seed(cfg["seed"])

CLASSES = ["normal", "inner_race", "outer_race", "ball"]


def read_class_file(c, n, seed):
    rng = np.random.RandomState(seed * 10 + c)
    centers = np.random.RandomState(4).randn(len(CLASSES), 32) * 0.45
    X = centers[c] + rng.randn(n, 32)
    return X.astype(np.float32), np.full(n, c)


def build_dataset(n_per_class, seed):
    parts = [read_class_file(c, n_per_class, seed) for c in range(len(CLASSES))]
    X = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    return torch.tensor(X), torch.tensor(y)


Xtr, ytr = build_dataset(600, seed=1)
Xte, yte = build_dataset(250, seed=2)
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xte = (Xtr - mu) / sd, (Xte - mu) / sd

net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, len(CLASSES)))
opt = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
bs = cfg["batch_size"]
steps = len(Xtr) // bs

for epoch in range(1, cfg["epoch_size"] + 1):
    t0 = time.time()
    order = torch.randperm(len(Xtr)) if cfg["shuffle"] else torch.arange(len(Xtr))
    for step in range(1, steps + 1):
        idx = order[(step - 1) * bs:step * bs]
        loss = F.cross_entropy(net(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % cfg["per_print_times"] == 0:
            print("epoch: {} step: {}, loss is {}".format(epoch, step, loss.item()), flush=True)
    dt = (time.time() - t0) * 1000
    print("epoch time: {:.3f} ms, per step time: {:.3f} ms".format(dt, dt / steps), flush=True)
    with torch.no_grad():
        acc = (net(Xte).argmax(1) == yte).float().mean().item()
    print("epoch: {} eval result: {}".format(epoch, {"Accuracy": acc}), flush=True)
