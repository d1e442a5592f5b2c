import argparse, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/teacher_k10.npz")
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--epochs", type=int, default=8)
p.add_argument("--batch-size", type=int, default=128)
p.add_argument("--hidden", type=int, default=128)
p.add_argument("--decay-epochs", type=int, default=3)
p.add_argument("--gamma", type=float, default=0.5)
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()
print(vars(args), flush=True)

torch.manual_seed(args.seed)
d = np.load(args.data)
Xtr, ytr = torch.tensor(d["x_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.batch_size, shuffle=True)

model = nn.Sequential(
    nn.Linear(Xtr.shape[1], args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, int(ytr.max()) + 1),
)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=args.decay_epochs, gamma=args.gamma)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(1, args.epochs + 1):
    t0 = time.time()
    model.train()
    tot, n = 0.0, 0
    for step, (xb, yb) in enumerate(train_loader):
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        scheduler.step()
        tot += loss.item() * len(xb); n += len(xb)
        if step % 20 == 0:
            print(f"epoch {epoch} step {step:3d}/{len(train_loader)} loss {loss.item():.4f}", flush=True)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = loss_fn(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    print(f"[epoch {epoch}] lr={opt.param_groups[0]['lr']:.3e} train_loss={tot/n:.4f} "
          f"val_loss={vl:.4f} val_acc={va:.4f} ({time.time()-t0:.1f}s)", flush=True)
torch.save(model.state_dict(), f"mlp_lr{args.lr:g}.pt")
print("done", flush=True)
