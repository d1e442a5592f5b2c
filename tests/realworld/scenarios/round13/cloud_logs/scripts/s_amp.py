import argparse, os, torch, torch.nn as nn
torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=6)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--precision", default="fp16")
args = p.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
g = torch.Generator().manual_seed(0)
n, L, d = 2400, 24, 64
y = torch.randint(0, 3, (n,), generator=g)
x = torch.randn(n, L, d, generator=g) * 90.0
x[:, :4, :8] += (y.float()[:, None, None] - 1) * 60.0

class TinyAttn(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(d, d); self.k = nn.Linear(d, d); self.v = nn.Linear(d, d)
        self.head = nn.Linear(d, 3)
    def forward(self, x):
        s = self.q(x) @ self.k(x).transpose(1, 2)
        a = torch.softmax(s, dim=-1)
        return self.head((a @ self.v(x)).mean(1))

model = TinyAttn().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
use_amp = args.precision == "fp16"
scaler = torch.amp.GradScaler(device, enabled=use_amp)
xtr, ytr, xva, yva = x[:2000], y[:2000], x[2000:], y[2000:]
step = 0
for epoch in range(args.epochs):
    perm = torch.randperm(2000)
    for i in range(0, 2000, args.batch_size):
        idx = perm[i:i + args.batch_size]
        opt.zero_grad()
        with torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
            loss = nn.functional.cross_entropy(model(xtr[idx]), ytr[idx])
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        step += 1
        if step % 8 == 0:
            print(f"[step {step}] loss={loss.item():.4f} loss_scale={scaler.get_scale() if use_amp else 1.0:.6g}")
    with torch.no_grad(), torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
        out = model(xva).float()
        acc = (out.argmax(1) == yva).float().mean().item()
        vl = nn.functional.cross_entropy(out, yva).item()
    print(f"[epoch {epoch+1}] val_loss={vl:.4f} val_acc={acc:.4f}")
