import torch
import torch.nn as nn
import torch.nn.functional as F
from common import build_model, make_signals

torch.set_num_threads(1)
torch.manual_seed(0)
Xtr, ytr = make_signals(6000, 0)
Xva, yva = make_signals(1500, 1)
model = nn.DataParallel(build_model())
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
best = 0.0
for epoch in range(1, 16):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl, va = F.cross_entropy(out, yva).item(), (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:2d} train_loss {loss.item():.4f} val_loss {vl:.4f} val_acc {va:.4f}", flush=True)
    if va > best:
        best = va
        torch.save({"model": model.state_dict(), "epoch": epoch, "val_acc": va}, "checkpoints/best.pt")
        print(f"  -> saved checkpoints/best.pt (val_acc {va:.4f})", flush=True)
