import logging
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(name)s: %(message)s")
log = logging.getLogger("trainer")
diag = logging.getLogger("trainer.grads")

SEED = 3
EPOCHS = 60
LR = 0.1
DEPTH = 10
WIDTH = 64

torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)


def make_moons(n, noise=0.15):
    n1 = n // 2
    n2 = n - n1
    t1 = rng.uniform(0, math.pi, n1)
    t2 = rng.uniform(0, math.pi, n2)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 1 - np.sin(t2) - 0.5], 1)
    X = np.concatenate([a, b]) + rng.normal(0, noise, (n, 2))
    y = np.concatenate([np.zeros(n1), np.ones(n2)])
    p = rng.permutation(n)
    return torch.tensor(X[p], dtype=torch.float32), torch.tensor(y[p], dtype=torch.long)


class DeepMLP(nn.Module):
    def __init__(self, depth, width):
        super().__init__()
        layers = [nn.Linear(2, width), nn.Sigmoid()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Sigmoid()]
        layers += [nn.Linear(width, 2)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


Xtr, ytr = make_moons(2000)
Xva, yva = make_moons(500)
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

model = DeepMLP(DEPTH, WIDTH)
linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
crit = nn.CrossEntropyLoss()
dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=100, shuffle=True)
log.info("model: %d Linear layers, %d params, activation=sigmoid", len(linears), sum(p.numel() for p in model.parameters()))
log.info("optimizer: SGD(lr=%s, momentum=0.9) batch_size=100 epochs=%d", LR, EPOCHS)

for epoch in range(1, EPOCHS + 1):
    model.train()
    tot, n = 0.0, 0
    layer_gn = torch.zeros(len(linears))
    for xb, yb in dl:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        layer_gn += torch.tensor([m.weight.grad.norm().item() for m in linears])
        opt.step()
        tot += loss.item() * len(xb)
        n += len(xb)
    layer_gn /= len(dl)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = crit(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    log.info("epoch %3d/%d  train_loss=%.4f  val_loss=%.4f  val_acc=%.4f", epoch, EPOCHS, tot / n, vl, va)
    if epoch == 1 or epoch % 5 == 0:
        diag.info("weight grad norms (input -> output): %s", " ".join(f"{g:.2e}" for g in layer_gn.tolist()))

log.info("finished. final val_acc=%.4f", va)
