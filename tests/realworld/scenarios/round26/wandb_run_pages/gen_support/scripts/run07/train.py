import argparse

import numpy as np
import torch
import torch.nn as nn
import wandb
import yaml


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])
    d = np.load(cfg["data"])
    x, y = torch.from_numpy(d["x"]), torch.from_numpy(d["y"])
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)
    model = nn.Sequential(nn.Linear(x.shape[1], 256), nn.ReLU(), nn.Linear(256, cfg["num_classes"]))
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    crit = nn.CrossEntropyLoss()
    wandb.init(project="catalog-categorizer", config=cfg)
    step = 0
    for epoch in range(cfg["epochs"]):
        for xb, yb in dl:
            loss = crit(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                wandb.log({"train/loss": loss.item(), "epoch": epoch}, step=step)
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
    wandb.finish()


if __name__ == "__main__":
    main()
