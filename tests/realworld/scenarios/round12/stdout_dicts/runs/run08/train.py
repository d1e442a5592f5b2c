import argparse, os, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

p = argparse.ArgumentParser()
p.add_argument("--learning_rate", type=float, default=0.01)
p.add_argument("--per_device_train_batch_size", type=int, default=16)
p.add_argument("--per_device_eval_batch_size", type=int, default=64)
p.add_argument("--num_train_epochs", type=int, default=10)
p.add_argument("--warmup_ratio", type=float, default=0.0)
p.add_argument("--weight_decay", type=float, default=0.0)
p.add_argument("--max_grad_norm", type=float, default=1.0)
p.add_argument("--logging_steps", type=int, default=20)
p.add_argument("--fp16", action="store_true")
p.add_argument("--output_dir", default="runs/digits_cnn")
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()
print(args)

torch.set_num_threads(1)
torch.manual_seed(args.seed)
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"device={device}")


class NoisyDigits(Dataset):
    """8x8 glyphs, random 1px shifts, heavy pixel noise."""
    def __init__(self, n, seed):
        g = np.random.default_rng(1000)
        self.templates = (g.random((10, 8, 8)) < 0.35).astype(np.float32)
        r = np.random.default_rng(seed)
        self.y = r.integers(0, 10, n)
        imgs = self.templates[self.y]
        dx = r.integers(-1, 2, n); dy = r.integers(-1, 2, n)
        imgs = np.stack([np.roll(np.roll(im, a, 0), b, 1) for im, a, b in zip(imgs, dx, dy)])
        imgs = imgs + r.normal(0, 0.9, imgs.shape)
        self.x = ((imgs - 0.35) / 1.0).astype(np.float32)[:, None]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        x = F.relu(self.c1(x))
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


train_ds, val_ds = NoisyDigits(2000, 1), NoisyDigits(800, 2)
train_dl = DataLoader(train_ds, batch_size=args.per_device_train_batch_size, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=args.per_device_eval_batch_size)
model = SmallCNN().to(device)
opt = torch.optim.SGD(model.parameters(), lr=args.learning_rate, momentum=0.9, weight_decay=args.weight_decay)
scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)
steps_per_epoch = len(train_dl)
total = steps_per_epoch * args.num_train_epochs
warm = int(args.warmup_ratio * total)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / max(1, warm) if s < warm else max(0.0, (total - s) / max(1, total - warm)))


@torch.no_grad()
def evaluate(epoch):
    model.eval()
    t0 = time.time(); loss_sum = 0.0; hit = 0; n = 0; k = 0
    for x, y in val_dl:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss_sum += F.cross_entropy(out, y, reduction="sum").item()
        hit += (out.argmax(1) == y).sum().item(); n += len(y); k += 1
    dt = time.time() - t0
    model.train()
    return {"eval_loss": loss_sum / n, "eval_accuracy": hit / n, "eval_runtime": round(dt, 4),
            "eval_samples_per_second": round(n / dt, 3), "eval_steps_per_second": round(k / dt, 3), "epoch": round(epoch, 2)}


print("***** Running training *****")
print(f"  Num examples = {len(train_ds):,}")
print(f"  Num Epochs = {args.num_train_epochs}")
print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size}")
print(f"  Total optimization steps = {total:,}")
print(f"  Number of trainable parameters = {sum(p.numel() for p in model.parameters()):,}")
step = 0; run_loss = 0.0; cnt = 0; tot_loss = 0.0; t0 = time.time()
for ep in range(args.num_train_epochs):
    for x, y in train_dl:
        x, y = x.to(device), y.to(device)
        with torch.autocast(device_type=device, dtype=torch.float16 if device == "cuda" else torch.bfloat16, enabled=args.fp16 and device == "cuda"):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        scaler.step(opt); scaler.update(); sched.step(); step += 1
        run_loss += loss.item(); cnt += 1; tot_loss += loss.item()
        if step % args.logging_steps == 0:
            print({"loss": round(run_loss / cnt, 4), "grad_norm": gn.item(), "learning_rate": sched.get_last_lr()[0], "epoch": round(step / steps_per_epoch, 2)})
            run_loss = 0.0; cnt = 0
    print(evaluate(step / steps_per_epoch))
    if (ep + 1) % 2 == 0:
        ck = os.path.join(args.output_dir, f"checkpoint-{step}")
        print(f"Saving model checkpoint to {ck}")
        os.makedirs(ck, exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "step": step}, os.path.join(ck, "state.pt"))
rt = time.time() - t0
print({"train_runtime": round(rt, 4), "train_samples_per_second": round(len(train_ds) * args.num_train_epochs / rt, 3),
       "train_steps_per_second": round(total / rt, 3), "train_loss": tot_loss / total, "epoch": float(args.num_train_epochs)})
