import argparse, os, torch, torch.nn as nn
torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=40)
p.add_argument("--lr", type=float, default=0.003)
p.add_argument("--batch_size", type=int, default=128)
args = p.parse_args()
torch.manual_seed(0)
g = torch.Generator().manual_seed(3)
n = 4000
centers = torch.randn(5, 12, generator=g) * 4
y = torch.randint(0, 5, (n,), generator=g)
x = (centers[y] + torch.randn(n, 12, generator=g)) * 25
flip = torch.rand(n, generator=g) < 0.01
y[flip] = torch.randint(0, 5, (int(flip.sum()),), generator=g)
xtr, ytr, xte, yte = x[:3200], y[:3200], x[3200:], y[3200:]
model = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 5))
opt = torch.optim.Adam(model.parameters(), lr=args.lr)

def loss_fn(logits, target):
    probs = torch.softmax(logits, dim=1)
    return -torch.log(probs[torch.arange(len(target)), target]).mean()

for epoch in range(args.epochs):
    perm = torch.randperm(len(xtr)); tot = 0.0; nb = 0
    for i in range(0, len(xtr), args.batch_size):
        idx = perm[i:i + args.batch_size]
        opt.zero_grad(); loss = loss_fn(model(xtr[idx]), ytr[idx]); loss.backward(); opt.step()
        tot += loss.item(); nb += 1
    with torch.no_grad():
        out = model(xte); tl = loss_fn(out, yte).item(); acc = (out.argmax(1) == yte).float().mean().item()
    print(f"Epoch {epoch+1}/{args.epochs} - train_loss: {tot/nb:.4f} - test_loss: {tl:.4f} - test_acc: {acc:.4f}")
