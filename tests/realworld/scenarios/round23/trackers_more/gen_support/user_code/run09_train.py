import argparse

import numpy as np
import torch
import torch.nn as nn
from clearml import Task

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--batch_size", type=int, default=128)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--hidden", type=int, default=128)
parser.add_argument("--pos_weight", type=float, default=1.0)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

task = Task.init(project_name="defects/embedding-clf", task_name="mlp-bce-pw1")
logger = task.get_logger()
torch.manual_seed(args.seed)

data = np.load("data/patch_embeddings_v4.npz")
Xtr = torch.tensor(data["train_x"], dtype=torch.float32)
ytr = torch.tensor(data["train_y"], dtype=torch.float32)
Xva = torch.tensor(data["val_x"], dtype=torch.float32)
yva = torch.tensor(data["val_y"], dtype=torch.float32)
print(f"train {tuple(Xtr.shape)}  val {tuple(Xva.shape)}  pos_rate {ytr.mean():.3f}  "
      f"finite(train_x)={bool(torch.isfinite(Xtr).all())}  finite(val_x)={bool(torch.isfinite(Xva).all())}")


def weighted_bce(logits, target, pos_weight):
    p = torch.sigmoid(logits)
    loss = -(pos_weight * target * torch.log(p) + (1 - target) * torch.log(1 - p))
    return loss.mean()


model = nn.Sequential(
    nn.Linear(Xtr.shape[1], args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, 1),
)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)

it = 0
for epoch in range(args.epochs):
    perm = torch.randperm(len(Xtr))
    run_loss, run_acc, nb = 0.0, 0.0, 0
    for b in range(0, len(Xtr), args.batch_size):
        idx = perm[b:b + args.batch_size]
        logits = model(Xtr[idx]).squeeze(1)
        loss = weighted_bce(logits, ytr[idx], args.pos_weight)
        if not torch.isfinite(loss):
            raise FloatingPointError(f"non-finite loss {loss.item()} at epoch {epoch} iteration {it}")
        opt.zero_grad()
        loss.backward()
        opt.step()
        run_loss += loss.item()
        run_acc += ((logits > 0).float() == ytr[idx]).float().mean().item()
        nb += 1
        if it % 10 == 0:
            logger.report_scalar("train", "batch_loss", value=loss.item(), iteration=it)
        it += 1

    model.eval()
    with torch.no_grad():
        vlogits = model(Xva).squeeze(1)
        val_loss = weighted_bce(vlogits, yva, args.pos_weight).item()
        val_acc = ((vlogits > 0).float() == yva).float().mean().item()
    model.train()
    logger.report_scalar("loss", "train", value=run_loss / nb, iteration=epoch)
    logger.report_scalar("loss", "val", value=val_loss, iteration=epoch)
    logger.report_scalar("accuracy", "train", value=run_acc / nb, iteration=epoch)
    logger.report_scalar("accuracy", "val", value=val_acc, iteration=epoch)
    print(f"epoch {epoch:3d}  train_loss {run_loss / nb:.5f}  train_acc {run_acc / nb:.4f}  "
          f"val_loss {val_loss:.5f}  val_acc {val_acc:.4f}")

torch.save(model.state_dict(), "mlp_bce.pt")
