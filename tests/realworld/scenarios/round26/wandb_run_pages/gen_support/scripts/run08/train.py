import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import wandb
import yaml


class Model(nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
            nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])
    tr = np.load(cfg["train_path"])
    x, y = torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"]).float()
    print(f"Loaded {len(x)} training rows with {x.shape[1]} features from {cfg['train_path']}")
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)
    model = Model(x.shape[1], cfg["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    crit = nn.BCEWithLogitsLoss()
    wandb.init(project="fraud-scoring", config=cfg)
    step = 0
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        for xb, yb in dl:
            loss = crit(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                wandb.log({"train/loss": loss.item(), "epoch": epoch}, step=step)
            if step % 20 == 0:
                print(f"epoch {epoch} | step {step:5d} | loss {loss.item():.4f}")
        print(f"epoch {epoch} finished in {time.time() - t0:.1f}s")
    wandb.finish()


if __name__ == "__main__":
    main()
