import numpy as np
import torch
import torch.nn as nn
import yaml

from har_model import HARNet

torch.set_num_threads(1)
cfg = yaml.safe_load(open("train_config.yaml"))
torch.manual_seed(cfg["seed"])
d = np.load(cfg["data"])
x = torch.tensor(d["x"]).unsqueeze(1)
y = torch.tensor(d["y"])
n_tr = cfg["split"]["train"]
xtr, ytr, xva, yva = x[:n_tr], y[:n_tr], x[n_tr:], y[n_tr:]
m = cfg["model"]
model = HARNet(cfg["window"], m["channels"], m["kernel"], m["fc"], len(cfg["classes"]))
opt = torch.optim.SGD(model.parameters(), lr=cfg["sgd"]["lr"], momentum=cfg["sgd"]["momentum"])
ce = nn.CrossEntropyLoss()
step = 0
for epoch in range(cfg["epochs"]):
    model.train()
    perm = torch.randperm(n_tr)
    for i in range(0, n_tr, cfg["batch_size"]):
        b = perm[i:i + cfg["batch_size"]]
        opt.zero_grad()
        loss = ce(model(xtr[b]), ytr[b])
        loss.backward()
        opt.step()
        step += 1
        if step % 8 == 0:
            print(f"step {step:4d}  train/loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        out = model(xva)
    print(f"epoch {epoch + 1}  val/loss {ce(out, yva).item():.4f}  val/top1 {(out.argmax(1) == yva).float().mean().item():.4f}")
torch.save(model.state_dict(), "harnet.pt")
