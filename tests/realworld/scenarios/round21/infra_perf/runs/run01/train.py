import os
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)

EPOCHS = 60
BATCH = 128


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(123).normal(size=(16, 32)).astype(np.float32) * 0.6
    c = rng.integers(0, 16, n)
    X = (centers[c] + rng.normal(size=(n, 32))).astype(np.float32)
    y = c % 8
    return torch.tensor(X), torch.tensor(y)


Xtr, ytr = make_data(20000, 1)
Xva, yva = make_data(3000, 2)

model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 8))
opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=15, gamma=0.2)

os.makedirs("ckpt", exist_ok=True)
start_epoch = 1
if os.path.exists("ckpt/last.pt"):
    ck = torch.load("ckpt/last.pt")
    model.load_state_dict(ck["model"])
    start_epoch = ck["epoch"] + 1
    print(f"resumed from ckpt/last.pt (epoch {ck['epoch']})", flush=True)

new_file = not os.path.exists("metrics.csv")
log = open("metrics.csv", "a")
if new_file:
    log.write("epoch,step,train_loss,val_loss,val_acc,lr\n")

step = (start_epoch - 1) * ((len(Xtr) + BATCH - 1) // BATCH)
for epoch in range(start_epoch, EPOCHS + 1):
    t0 = time.time()
    model.train()
    g = torch.Generator().manual_seed(epoch)
    perm = torch.randperm(len(Xtr), generator=g)
    tot, n = 0.0, 0
    for i in range(0, len(Xtr), BATCH):
        idx = perm[i:i + BATCH]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        tot += loss.item() * len(idx)
        n += len(idx)
    lr = opt.param_groups[0]["lr"]
    sched.step()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    log.write(f"{epoch},{step},{tot / n:.5f},{vl:.5f},{va:.4f},{lr:.3e}\n")
    log.flush()
    print(f"epoch {epoch:3d} | step {step:5d} | train_loss {tot / n:.4f} | val_loss {vl:.4f} | val_acc {va:.4f} | lr {lr:.2e} | {time.time() - t0:.1f}s", flush=True)
    if epoch % 5 == 0:
        torch.save({"model": model.state_dict(), "epoch": epoch}, "ckpt/last.pt")
        print(f"saved ckpt/last.pt (epoch {epoch})", flush=True)
