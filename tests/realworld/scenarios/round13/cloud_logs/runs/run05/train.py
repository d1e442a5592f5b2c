import argparse, json, os, torch, torch.nn as nn
torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=20)
p.add_argument("--lr", type=float, default=0.01)
p.add_argument("--momentum", type=float, default=0.9)
p.add_argument("--weight_decay", type=float, default=0.0)
p.add_argument("--hidden", type=int, default=128)
p.add_argument("--dropout", type=float, default=0.0)
p.add_argument("--batch_size", type=int, default=64)
p.add_argument("--n_train", type=int, default=3000)
p.add_argument("--noise", type=float, default=0.15)
p.add_argument("--optimizer", default="sgd")
p.add_argument("--val_split", default="random")
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()
torch.manual_seed(args.seed)

def spirals(n, k=3, noise=0.15, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, k, (n,), generator=g)
    r = torch.rand(n, generator=g)
    t = r * 4.0 + y.float() * (2 * 3.14159 / k) + torch.randn(n, generator=g) * noise
    x = torch.stack([r * torch.cos(t), r * torch.sin(t)], 1)
    extra = torch.randn(n, 6, generator=g) * 0.5
    return torch.cat([x, extra], 1), y, r

x, y, r = spirals(args.n_train + 1000, noise=args.noise, seed=7)
if args.val_split == "random":
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(42))
    tr, va = perm[:args.n_train], perm[args.n_train:]
else:
    order = torch.argsort(r)
    tr, va = order[:args.n_train], order[args.n_train:]
xtr, ytr, xva, yva = x[tr], y[tr], x[va], y[va]
print(f"train size: {len(xtr)}  validation size: {len(xva)}")
model = nn.Sequential(nn.Linear(8, args.hidden), nn.ReLU(), nn.Dropout(args.dropout),
                      nn.Linear(args.hidden, args.hidden), nn.ReLU(), nn.Dropout(args.dropout),
                      nn.Linear(args.hidden, 3))
if args.optimizer == "sgd":
    opt = torch.optim.SGD(model.parameters(), args.lr, args.weight_decay, args.momentum)
else:
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
crit = nn.CrossEntropyLoss()
for epoch in range(1, args.epochs + 1):
    model.train(); perm = torch.randperm(len(xtr)); tl = 0.0; corr = 0
    for i in range(0, len(xtr), args.batch_size):
        idx = perm[i:i + args.batch_size]
        opt.zero_grad(); out = model(xtr[idx]); loss = crit(out, ytr[idx]); loss.backward(); opt.step()
        tl += loss.item() * len(idx); corr += (out.argmax(1) == ytr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        out = model(xva); vl = crit(out, yva).item(); va_acc = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch}: train_loss={tl/len(xtr):.4f}; train_acc={corr/len(xtr):.4f}; val_loss={vl:.4f}; val_acc={va_acc:.4f};")
