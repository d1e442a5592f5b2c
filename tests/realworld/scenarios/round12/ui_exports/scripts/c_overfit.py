import numpy as np
import torch
import torch.nn as nn
import wandb

torch.set_num_threads(1)
torch.manual_seed(11)
rng = np.random.default_rng(11)
N, D = 600, 60
X = rng.normal(0, 1, (N, D))
logit = X[:, :5] @ np.array([1.2, -1.0, 0.8, 0.6, -0.7]) + 0.6 * X[:, 5] * X[:, 6]
y = (logit + rng.normal(0, 1.0, N) > 0).astype(np.int64)
X = torch.tensor(X, dtype=torch.float32); y = torch.tensor(y)
Xtr, ytr, Xva, yva = X[:240], y[:240], X[240:], y[240:]

wandb.init(project="credit-risk", name="mlp-wide-adam", config=dict(lr=2e-4, epochs=150, hidden=512, bs=32))
model = nn.Sequential(nn.Linear(D, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 2))
opt = torch.optim.Adam(model.parameters(), lr=2e-4)
crit = nn.CrossEntropyLoss()
for epoch in range(150):
    model.train(); tl = tc = 0
    perm = torch.randperm(240)
    for i in range(0, 240, 32):
        idx = perm[i:i + 32]
        out = model(Xtr[idx]); loss = crit(out, ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx); tc += (out.argmax(1) == ytr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        out = model(Xva); vl = crit(out, yva).item(); va = (out.argmax(1) == yva).float().mean().item()
    wandb.log({"train_loss": tl / 240, "train_acc": tc / 240, "val_loss": vl, "val_acc": va}, step=epoch)
wandb.finish()
