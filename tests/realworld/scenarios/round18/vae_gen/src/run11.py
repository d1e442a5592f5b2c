import argparse, time
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=40)
p.add_argument("--bs", type=int, default=100)
p.add_argument("--lr", type=float, default=5e-5)
p.add_argument("--momentum", type=float, default=0.9)
p.add_argument("--code", type=int, default=16)
p.add_argument("--seed", type=int, default=3)
args = p.parse_args()


def make_shapes(n, size=16, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, size, size), np.float32)
    yy, xx = np.mgrid[0:size, 0:size]
    for i in range(n):
        kind = rng.integers(3)
        cx, cy = rng.uniform(4, size - 4, 2)
        r = rng.uniform(2, 5)
        v = rng.uniform(0.6, 1.0)
        if kind == 0:
            m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
        elif kind == 1:
            m = (abs(xx - cx) <= r) & (abs(yy - cy) <= r * 0.6)
        else:
            m = ((abs(xx - cx) <= 1) & (abs(yy - cy) <= r)) | ((abs(yy - cy) <= 1) & (abs(xx - cx) <= r))
        X[i][m] = v
    return X


class ConvAE(nn.Module):
    def __init__(self, code):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, 3, 2, 1), nn.Tanh(), nn.Conv2d(8, 16, 3, 2, 1), nn.Tanh(),
            nn.Flatten(), nn.Linear(16 * 16, code))
        self.decoder = nn.Sequential(
            nn.Linear(code, 16 * 16), nn.Tanh(), nn.Unflatten(1, (16, 4, 4)),
            nn.ConvTranspose2d(16, 8, 4, 2, 1), nn.Tanh(), nn.ConvTranspose2d(8, 1, 4, 2, 1))

    def forward(self, x):
        return self.decoder(self.encoder(x))


torch.manual_seed(args.seed)
data = torch.from_numpy(make_shapes(3000, seed=args.seed)).unsqueeze(1)
train_x, test_x = data[:2500], data[2500:]
model = ConvAE(args.code)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
criterion = nn.MSELoss()
print(vars(args))

for epoch in range(args.epochs):
    model.train()
    t0 = time.time()
    idx = torch.randperm(len(train_x))
    total, gnorm, n = 0.0, 0.0, 0
    for b in range(0, len(train_x), args.bs):
        batch = train_x[idx[b:b + args.bs]]
        out = model(batch)
        loss = criterion(out, batch)
        loss.backward()
        gnorm += torch.norm(torch.stack([q.grad.norm() for q in model.parameters()])).item()
        optimizer.step()
        total += loss.item()
        n += 1
    model.eval()
    with torch.no_grad():
        test_loss = criterion(model(test_x), test_x).item()
    print(f"[epoch {epoch + 1}/{args.epochs}] train_mse={total / n:.5f} test_mse={test_loss:.5f} grad_norm={gnorm / n:.4f} ({time.time() - t0:.1f}s)")
    if (epoch + 1) % 10 == 0:
        print(f"saved outputs/recon_e{epoch + 1}.png")
