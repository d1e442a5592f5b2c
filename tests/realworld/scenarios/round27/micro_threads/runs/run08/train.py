import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from dataset import get_splits

torch.manual_seed(1234)
EPOCHS = 24

(Xtr, ytr), (Xva, yva) = get_splits()
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=128, shuffle=True)


class Net(nn.Module):
    def __init__(self, d_in, n_cls, h=192, p=0.1):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, h), nn.GELU(), nn.Dropout(p),
            nn.Linear(h, h), nn.GELU(), nn.Dropout(p),
        )
        self.head = nn.Linear(h, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


model = Net(Xtr.shape[1], int(ytr.max()) + 1)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
total = EPOCHS * len(train_dl)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / total)))
crit = nn.CrossEntropyLoss()

for epoch in range(1, EPOCHS + 1):
    model.train()
    tl, tc, n = 0.0, 0, 0
    for xb, yb in train_dl:
        out = model(xb)
        loss = crit(out, yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        tl += loss.item() * len(yb)
        tc += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = crit(out, yva).item()
        vacc = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:02d} | train_loss {tl / n:.4f} train_acc {tc / n:.4f} | "
          f"val_loss {vl:.4f} val_acc {vacc:.4f} | lr {sched.get_last_lr()[0]:.2e}")
