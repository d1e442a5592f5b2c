import argparse, logging, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", level=logging.INFO)
log = logging.getLogger("train")

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/sensors_v3.npz")
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--bs", type=int, default=128)
p.add_argument("--lr", type=float, default=0.1)
p.add_argument("--hidden", type=int, default=64)
p.add_argument("--opt", default="sgd")
p.add_argument("--step_size", type=int, default=10)   # halve the lr every 10 epochs
p.add_argument("--gamma", type=float, default=0.5)
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()
torch.manual_seed(args.seed)

d = np.load(args.data)
Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["X_val"]), torch.tensor(d["y_val"])
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)

model = nn.Sequential(
    nn.Linear(Xtr.shape[1], args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, int(ytr.max()) + 1),
)
if args.opt == "sgd":
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
else:
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=args.step_size, gamma=args.gamma)
log.info("args: %s", vars(args))
log.info("train=%d val=%d classes=%d params=%d", len(Xtr), len(Xva), int(ytr.max()) + 1,
         sum(p.numel() for p in model.parameters()))

for epoch in range(args.epochs):
    model.train()
    tot, n = 0.0, 0
    for step, (xb, yb) in enumerate(train_dl, 1):
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        sched.step()
        tot += loss.item(); n += 1
        if step % 10 == 0:
            log.info("epoch %d step %d/%d loss %.4f", epoch + 1, step, len(train_dl), loss.item())
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    log.info("== epoch %d/%d train_loss %.4f val_loss %.4f val_acc %.4f lr %.3e",
             epoch + 1, args.epochs, tot / n, vl, va, sched.get_last_lr()[0])
torch.save(model.state_dict(), "mlp_last.pt")
