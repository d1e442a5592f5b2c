import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(1)

cache = np.load("cache/features_v2.npz")
X, y = torch.from_numpy(cache["X"]), torch.from_numpy(cache["y"])
n_val = len(X) // 5
Xtr, ytr, Xva, yva = X[n_val:], y[n_val:], X[:n_val], y[:n_val]
print(f"loaded cache/features_v2.npz X={tuple(X.shape)} y={tuple(y.shape)}")

model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
hist = []
for epoch in range(1, 31):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 256):
        idx = perm[i:i + 256]
        loss = F.binary_cross_entropy_with_logits(model(Xtr[idx]).squeeze(1), ytr[idx].float())
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        logit = model(Xva).squeeze(1)
        vl = F.binary_cross_entropy_with_logits(logit, yva.float()).item()
        auc_proxy = ((logit > 0).long() == yva).float().mean().item()
    hist.append({"epoch": epoch, "train_loss": loss.item(), "val_loss": vl, "val_acc": auc_proxy})
    print(f"epoch {epoch:02d}  train_loss={loss.item():.4f}  val_loss={vl:.4f}  val_acc={auc_proxy:.4f}")
pd.DataFrame(hist).to_csv("history.csv", index=False)
