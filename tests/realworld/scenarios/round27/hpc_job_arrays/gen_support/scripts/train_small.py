import numpy as np
import torch
import torch.nn as nn
torch.manual_seed(0)
d = np.load("data/teacher_noisy.npz")
Xtr, ytr = torch.tensor(d["x_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
model = nn.Sequential(nn.Linear(Xtr.shape[1], 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
for epoch in range(1, 21):
    model.train()
    perm = torch.randperm(len(Xtr))
    tl = 0.0
    for i in range(0, len(Xtr), 128):
        idx = perm[i:i + 128]
        loss = nn.functional.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = nn.functional.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    print(f"Epoch {epoch:02d} | train_loss {tl/len(Xtr):.4f} | val_loss {vl:.4f} | val_acc {va:.4f}", flush=True)
