import argparse, os, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--learning_rate", type=float, default=5e-3)
p.add_argument("--per_device_train_batch_size", type=int, default=128)
p.add_argument("--num_train_epochs", type=int, default=40)
p.add_argument("--weight_decay", type=float, default=0.0)
p.add_argument("--max_grad_norm", type=float, default=5.0)
p.add_argument("--logging_steps", type=int, default=20)
p.add_argument("--output_dir", default="chk")
args = p.parse_args()
torch.set_num_threads(1)
torch.manual_seed(5)


def make_moons(n, noise, seed):
    r = np.random.default_rng(seed)
    m = n // 2
    t1, t2 = r.uniform(0, np.pi, m), r.uniform(0, np.pi, n - m)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    x = np.concatenate([a, b]) + r.normal(0, noise, (n, 2))
    y = np.concatenate([np.zeros(m), np.ones(n - m)])
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)


def bce(logits, target):
    p = torch.sigmoid(logits)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


xtr, ytr = make_moons(3000, 0.1, 0)
xva, yva = make_moons(1000, 0.1, 1)
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=args.per_device_train_batch_size, shuffle=True)
model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
spe = len(dl)
print(f"{len(xtr)} train / {len(xva)} eval, {spe} steps per epoch, {spe * args.num_train_epochs} steps total")
step, acc, k = 0, 0.0, 0
for ep in range(args.num_train_epochs):
    model.train()
    for x, y in dl:
        loss = bce(model(x).squeeze(-1), y)
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        opt.step()
        step += 1; acc += loss.item(); k += 1
        if step % args.logging_steps == 0:
            print({"loss": round(acc / k, 4), "grad_norm": gn.item(), "learning_rate": args.learning_rate, "epoch": round(step / spe, 2)})
            acc, k = 0.0, 0
    model.eval(); t0 = time.time()
    with torch.no_grad():
        z = model(xva).squeeze(-1)
        vl = bce(z, yva).item()
        va = ((z > 0).float() == yva).float().mean().item()
    dt = time.time() - t0
    print({"eval_loss": vl, "eval_accuracy": va, "eval_runtime": round(dt, 4), "eval_samples_per_second": round(len(yva) / dt, 3), "epoch": float(ep + 1)})
    if (ep + 1) % 10 == 0:
        print(f"Saving model checkpoint to {args.output_dir}/checkpoint-{step}")
        os.makedirs(f"{args.output_dir}/checkpoint-{step}", exist_ok=True)
        torch.save(model.state_dict(), f"{args.output_dir}/checkpoint-{step}/model.pt")
