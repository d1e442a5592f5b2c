import argparse, os, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ap = argparse.ArgumentParser()
ap.add_argument("--learning_rate", type=float, default=3e-3)
ap.add_argument("--per_device_train_batch_size", type=int, default=64)
ap.add_argument("--num_train_epochs", type=int, default=8)
ap.add_argument("--warmup_ratio", type=float, default=0.05)
ap.add_argument("--weight_decay", type=float, default=0.01)
ap.add_argument("--max_grad_norm", type=float, default=1.0)
ap.add_argument("--logging_steps", type=int, default=10)
ap.add_argument("--save_steps", type=int, default=200)
ap.add_argument("--output_dir", default="out/gru-seqcls")
ap.add_argument("--resume_from_checkpoint", default=None)
args = ap.parse_args()
torch.set_num_threads(1)
torch.manual_seed(21)
print(f"args: {vars(args)}")


def make_data(n, seed):
    r = np.random.default_rng(seed)
    x = r.normal(size=(n, 20, 4)).astype(np.float32)
    a = x[:, :, 0].sum(1) + 0.5 * x[:, :, 2].sum(1)
    b = x[:, :, 1].sum(1) - 0.5 * x[:, -5:, 3].sum(1)
    y = (a > 0).astype(np.int64) * 2 + (b > 0).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 64, batch_first=True)
        self.out = nn.Linear(64, 4)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.out(h[-1])


xtr, ytr = make_data(5000, 0)
xva, yva = make_data(1000, 1)
g = torch.Generator().manual_seed(0)
train_dl = DataLoader(TensorDataset(xtr, ytr), batch_size=args.per_device_train_batch_size, shuffle=True, generator=g)
model = GRUClassifier()
opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
spe = len(train_dl); max_steps = spe * args.num_train_epochs; warm = int(args.warmup_ratio * max_steps)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / max(1, warm) if s < warm else max(0.0, (max_steps - s) / max(1, max_steps - warm)))

global_step = 0
if args.resume_from_checkpoint:
    print(f"Loading model from {args.resume_from_checkpoint}.")
    state = torch.load(os.path.join(args.resume_from_checkpoint, "pytorch_model.bin"))
    model.load_state_dict(state)
    global_step = int(args.resume_from_checkpoint.rstrip("/").split("-")[-1])

start_epoch, skip = divmod(global_step, spe)
print("***** Running training *****")
print(f"  Num examples = {len(xtr):,}")
print(f"  Num Epochs = {args.num_train_epochs:,}")
print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size:,}")
print(f"  Total optimization steps = {max_steps:,}")
if global_step:
    print("  Continuing training from checkpoint, will skip to saved global_step")
    print(f"  Continuing training from epoch {start_epoch}")
    print(f"  Continuing training from global step {global_step}")
    print(f"  Will skip the first {start_epoch} epochs then the first {skip} batches in the first epoch.")


@torch.no_grad()
def evaluate(ep):
    model.eval(); t = time.time(); out = model(xva); dt = time.time() - t
    model.train()
    return {"eval_loss": F.cross_entropy(out, yva).item(), "eval_accuracy": (out.argmax(1) == yva).float().mean().item(),
            "eval_runtime": round(dt, 4), "eval_samples_per_second": round(len(yva) / dt, 3), "epoch": round(ep, 2)}


run, k, t0 = 0.0, 0, time.time()
model.train()
for epoch in range(args.num_train_epochs):
    for i, (x, y) in enumerate(train_dl):
        if epoch < start_epoch or (epoch == start_epoch and i < skip):
            continue
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        opt.step(); sched.step(); global_step += 1
        run += loss.item(); k += 1
        if global_step % args.logging_steps == 0:
            print({"loss": round(run / k, 4), "grad_norm": gn.item(), "learning_rate": sched.get_last_lr()[0], "epoch": round(global_step / spe, 2)})
            run, k = 0.0, 0
        if global_step % args.save_steps == 0:
            ck = os.path.join(args.output_dir, f"checkpoint-{global_step}")
            print(f"Saving model checkpoint to {ck}")
            os.makedirs(ck, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(ck, "pytorch_model.bin"))
    if epoch >= start_epoch:
        print(evaluate(global_step / spe))
rt = time.time() - t0
print({"train_runtime": round(rt, 4), "train_steps_per_second": round(max_steps / rt, 3), "epoch": float(args.num_train_epochs)})
