import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from prep import load_shapes

HIDDEN = 128
EPOCHS = 15
torch.manual_seed(42)

Xtr, ytr, Xva, yva = load_shapes()
dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)

model = nn.Sequential(nn.Linear(Xtr.shape[1], HIDDEN), nn.ReLU(),
                      nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                      nn.Linear(HIDDEN, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)  # halve every 5 epochs
crit = nn.CrossEntropyLoss()

for epoch in range(EPOCHS):
    model.train()
    tot, n = 0.0, 0
    for xb, yb in dl:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        sched.step()
        tot += loss.item() * len(xb)
        n += len(xb)
    model.eval()
    with torch.no_grad():
        acc = (model(Xva).argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:2d}  train_loss {tot / n:.4f}  val_acc {acc:.4f}  lr {sched.get_last_lr()[0]:.2e}")
