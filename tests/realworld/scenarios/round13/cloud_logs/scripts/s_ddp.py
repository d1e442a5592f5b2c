import os, datetime, argparse, torch, torch.nn as nn, torch.distributed as dist
torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=5)
p.add_argument("--lr", type=float, default=0.05)
p.add_argument("--dist-timeout", type=int, default=10)
args = p.parse_args()
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.dist_timeout))
rank, world = dist.get_rank(), dist.get_world_size()
print(f"rank {rank}/{world} initialised")
torch.manual_seed(0)
g = torch.Generator().manual_seed(5)
X = torch.randn(4000, 32, generator=g); w = torch.randn(32, 4, generator=g)
Y = (X @ w + 0.5 * torch.randn(4000, 4, generator=g)).argmax(1)
Xs, Ys = X[rank:3200:world], Y[rank:3200:world]
Xv, Yv = X[3200:], Y[3200:]
model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)))
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

def full_validation():
    vals = []
    for _ in range(4000):
        with torch.no_grad():
            xa = Xv.repeat(16, 1)
            out = model.module(xa + 0.05 * torch.randn_like(xa))
            vals.append((out.argmax(1) == Yv.repeat(16)).float().mean())
    return torch.stack(vals).mean().item()

for epoch in range(args.epochs):
    for i in range(0, len(Xs), 32):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(Xs[i:i + 32]), Ys[i:i + 32])
        loss.backward(); opt.step()
    t = torch.tensor([loss.item()]); dist.all_reduce(t)
    if rank == 0:
        print(f"epoch {epoch} avg_loss {t.item() / world:.4f}")
        if epoch % 2 == 1:
            print(f"epoch {epoch} val_acc(TTA) {full_validation():.4f}")
            torch.save(model.module.state_dict(), "/tmp/ckpt_rank0.pt")
    dist.barrier()
dist.destroy_process_group()
