import argparse, json, os, math, torch, torch.nn as nn
torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=8)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--lr", type=float, default=0.3)
p.add_argument("--momentum", type=float, default=0.9)
p.add_argument("--model-dir", default=os.environ.get("SM_MODEL_DIR", "model"))
args = p.parse_args()
torch.manual_seed(1)

def make_signals(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 4, (n,), generator=g)
    t = torch.linspace(0, 1, 64)
    freq = (y.float() + 1.5).unsqueeze(1) * 1.2
    x = torch.sin(2 * math.pi * freq * t + torch.rand(n, 1, generator=g) * 6.28)
    x = x + 1.5 * torch.randn(n, 64, generator=g)
    return x.unsqueeze(1), y

xtr, ytr = make_signals(3000, 0)
xva, yva = make_signals(600, 1)
model = nn.Sequential(nn.Conv1d(1, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
                      nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
                      nn.Flatten(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
crit = nn.CrossEntropyLoss()
step = 0
for epoch in range(1, args.epochs + 1):
    model.train()
    perm = torch.randperm(len(xtr))
    for i in range(0, len(xtr), args.batch_size):
        idx = perm[i:i + args.batch_size]
        opt.zero_grad()
        loss = crit(model(xtr[idx]), ytr[idx])
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        opt.step()
        step += 1
        if step % 10 == 0:
            print(f"step={step} epoch={epoch} train_loss={loss.item():.4f} grad_norm={gn.item():.3f} lr={args.lr}")
    model.eval()
    with torch.no_grad():
        out = model(xva)
        vl = crit(out, yva).item()
        acc = (out.argmax(1) == yva).float().mean().item()
    print(f"#quality_metric: epoch={epoch}, validation_loss={vl:.4f}, validation_accuracy={acc:.4f}")
os.makedirs(args.model_dir, exist_ok=True)
torch.save(model.state_dict(), os.path.join(args.model_dir, "model.pth"))
print("saved model to", os.path.join(args.model_dir, "model.pth"))
