import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
EPOCHS, BS = 12, 128

tr, va = np.load("data/train.npz"), np.load("data/val.npz")
Xtr, ytr = torch.tensor(tr["x"]), torch.tensor(tr["y"])
Xva, yva = torch.tensor(va["x"]), torch.tensor(va["y"])
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

model = nn.Sequential(nn.Linear(Xtr.shape[1], 256), nn.ReLU(),
                      nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, 6))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)

for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(Xtr))
    total = 0.0
    for i in range(0, len(Xtr), BS):
        idx = perm[i:i + BS]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(idx)
    sched.step()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        acc = (out.argmax(1) == yva).float().mean().item()
    print(f"[{epoch+1:02d}/{EPOCHS}] loss={total/len(Xtr):.4f} val_loss={vl:.4f} "
          f"val_acc={acc:.4f} lr={sched.get_last_lr()[0]:.6f}")

torch.save(model.state_dict(), "final.pt")
