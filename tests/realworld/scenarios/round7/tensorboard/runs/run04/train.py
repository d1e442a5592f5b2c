import math
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(4)
torch.set_num_threads(1)


def make_moons(n, noise=0.15):
    n1 = n // 2
    n2 = n - n1
    t1 = torch.rand(n1) * math.pi
    t2 = torch.rand(n2) * math.pi
    upper = torch.stack([torch.cos(t1), torch.sin(t1)], 1)
    lower = torch.stack([1 - torch.cos(t2), 0.5 - torch.sin(t2)], 1)
    X = torch.cat([upper, lower]) + noise * torch.randn(n, 2)
    y = torch.cat([torch.zeros(n1), torch.ones(n2)])
    p = torch.randperm(n)
    return X[p], y[p]


X_train, y_train = make_moons(2000)
X_val, y_val = make_moons(500)

model = nn.Sequential(
    nn.Linear(2, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 1),
)


def bce(logits, target):
    p = torch.sigmoid(logits).squeeze(1)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


opt = torch.optim.Adam(model.parameters(), lr=1e-2)
tb = SummaryWriter("tb")

step = 0
for epoch in range(30):
    model.train()
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), 50):
        idx = perm[i:i + 50]
        loss = bce(model(X_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        gn = sum(p.grad.pow(2).sum() for p in model.parameters()).sqrt()
        opt.step()
        if step % 10 == 0:
            tb.add_scalar("train/loss", loss.item(), step)
            tb.add_scalar("train/grad_norm", gn.item(), step)
        step += 1
    model.eval()
    with torch.no_grad():
        logits = model(X_val)
        vloss = bce(logits, y_val).item()
        vacc = ((logits.squeeze(1) > 0).float() == y_val).float().mean().item()
    tb.add_scalar("val/loss", vloss, epoch)
    tb.add_scalar("val/acc", vacc, epoch)
    print(f"epoch {epoch:2d}  loss {loss.item():.5f}  val_loss {vloss:.5f}  val_acc {vacc:.3f}")
tb.close()
