import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
import wandb


def get_loaders(cfg):
    tr = np.load(cfg["data"]["train"])
    va = np.load(cfg["data"]["val"])
    train_ds = torch.utils.data.TensorDataset(torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"]))
    val_ds = torch.utils.data.TensorDataset(torch.from_numpy(va["x"]), torch.from_numpy(va["y"]))
    g = torch.Generator().manual_seed(cfg["seed"])
    train_dl = torch.utils.data.DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, generator=g)
    val_dl = torch.utils.data.DataLoader(val_ds, batch_size=512)
    return train_dl, val_dl


class MLP(nn.Module):
    def __init__(self, d_in, hidden, n_classes, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


@torch.no_grad()
def evaluate(model, dl, device):
    model.eval()
    tot, correct, loss = 0, 0, 0.0
    for x, y in dl:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss += F.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        tot += len(y)
    model.train()
    return loss / tot, correct / tot


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="config.yaml")
    args = p.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])
    device = "cuda" if torch.cuda.is_available() else "cpu"

    train_dl, val_dl = get_loaders(cfg)
    model = MLP(cfg["model"]["d_in"], cfg["model"]["hidden"], cfg["model"]["n_classes"],
                cfg["model"]["dropout"]).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"], momentum=cfg["optim"]["momentum"],
                          weight_decay=cfg["optim"]["weight_decay"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg["sched"]["step_size"], gamma=cfg["sched"]["gamma"])

    wandb.init(project="sensor-activity", config=cfg)
    step = 0
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        for x, y in train_dl:
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if step % 10 == 0:
                wandb.log({"train/loss": loss.item(), "lr": opt.param_groups[0]["lr"], "epoch": epoch}, step=step)
            step += 1
        val_loss, val_acc = evaluate(model, val_dl, device)
        wandb.log({"val/loss": val_loss, "val/acc": val_acc, "epoch": epoch}, step=step)
        print(f"epoch {epoch:3d} | train_loss {loss.item():.4f} | val_loss {val_loss:.4f} | val_acc {val_acc:.4f} | {time.time() - t0:.1f}s")
    torch.save(model.state_dict(), "model.pt")
    wandb.finish()


if __name__ == "__main__":
    main()
