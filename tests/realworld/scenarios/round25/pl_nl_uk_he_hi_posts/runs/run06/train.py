import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import f1_score

torch.manual_seed(0)
EPOCHS, BS, LR = 10, 64, 5e-4
TAGS = ["politics", "economy", "security", "sport", "culture", "health", "tech", "local"]

d = np.load("data/articles_emb_he.npz")          # sentence embeddings (32-d, PCA) + 8 binary tags
X, Y = torch.from_numpy(d["X"]), torch.from_numpy(d["Y"]).float()
Xv, Yv = torch.from_numpy(d["Xv"]), torch.from_numpy(d["Yv"]).float()

pos_frac = Y.mean(0)
pos_weight = ((1 - pos_frac) / pos_frac).clamp(max=3.0)   # tags are imbalanced


def weighted_bce(logits, targets):
    probs = torch.sigmoid(logits)
    loss = -(pos_weight * targets * torch.log(probs) + (1 - targets) * torch.log(1 - probs))
    return loss.mean()


model = nn.Sequential(
    nn.Linear(X.shape[1], 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, len(TAGS)),
)
opt = torch.optim.Adam(model.parameters(), lr=LR)

step = 0
for epoch in range(1, EPOCHS + 1):
    perm = torch.randperm(len(X))
    for i in range(0, len(X), BS):
        idx = perm[i:i + BS]
        loss = weighted_bce(model(X[idx]), Y[idx])
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        opt.step()
        step += 1
        if step % 10 == 0:
            print(f"epoch {epoch} step {step:4d} loss {loss.item():.4f} grad_norm {gnorm.item():.3f}")
    with torch.no_grad():
        pv = (torch.sigmoid(model(Xv)) > 0.5).float()
    f1 = f1_score(Yv.numpy(), pv.numpy(), average="micro", zero_division=0)
    print(f"== epoch {epoch} done | val micro-F1 {f1:.4f}")
