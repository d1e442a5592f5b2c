import argparse, os, math, torch, torch.nn as nn
torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--max-steps", type=int, default=600)
p.add_argument("--lr", type=float, default=3e-3)
p.add_argument("--warmup-steps", type=int, default=60)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--checkpoint-dir", default="/opt/ml/checkpoints")
p.add_argument("--stop-at", type=int, default=-1)
args = p.parse_args()
torch.manual_seed(0)
g = torch.Generator().manual_seed(11)
n = 6000
x = torch.randn(n, 20, 10, generator=g)
w = torch.randn(10, generator=g)
y = ((x @ w).cumsum(1)[:, -1] > 0).long() + ((x[:, -5:, 0].sum(1)) > 1).long()
xtr, ytr, xva, yva = x[:5000], y[:5000], x[5000:], y[5000:]

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(10, 48, batch_first=True); self.fc = nn.Linear(48, 3)
    def forward(self, x):
        return self.fc(self.rnn(x)[0][:, -1])

model = Net()
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / args.warmup_steps) * 0.5 * (1 + math.cos(math.pi * min(s, args.max_steps) / args.max_steps)))
start = 0
ck = os.path.join(args.checkpoint_dir, "last.pt")
if os.path.exists(ck):
    state = torch.load(ck)
    model.load_state_dict(state["model"])
    start = state["step"]
    print(f"Resuming from checkpoint {ck} at step {start}")
os.makedirs(args.checkpoint_dir, exist_ok=True)
gen = torch.Generator().manual_seed(start)
for step in range(start + 1, args.max_steps + 1):
    idx = torch.randint(0, 5000, (args.batch_size,), generator=gen)
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(xtr[idx]), ytr[idx])
    loss.backward(); opt.step(); sched.step()
    if step % 20 == 0:
        print(f"step {step}: loss {loss.item():.4f}, lr {sched.get_last_lr()[0]:.6f}")
    if step % 100 == 0:
        with torch.no_grad():
            out = model(xva); acc = (out.argmax(1) == yva).float().mean().item()
        print(f"step {step}: val_loss {nn.functional.cross_entropy(out, yva).item():.4f}, val_acc {acc:.4f}")
        torch.save({"model": model.state_dict(), "step": step}, ck)
        print(f"saved checkpoint to {ck}")
    if step == args.stop_at:
        raise SystemExit(0)
