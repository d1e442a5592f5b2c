import argparse
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
parser = argparse.ArgumentParser()
parser.add_argument("--n-train", type=int, default=240)
parser.add_argument("--n-val", type=int, default=1000)
parser.add_argument("--features", type=int, default=30)
parser.add_argument("--teacher-hidden", type=int, default=512)
parser.add_argument("--teacher-epochs", type=int, default=60)
parser.add_argument("--student-hidden", type=int, default=256)
parser.add_argument("--epochs", type=int, default=150)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--weight-decay", type=float, default=0.0)
parser.add_argument("--temperature", type=float, default=2.0)
parser.add_argument("--alpha", type=float, default=0.3)
parser.add_argument("--seed", type=int, default=7)
parser.add_argument("--out", default="metrics.csv")
args = parser.parse_args()
json.dump(vars(args), open("args.json", "w"), indent=2)
torch.manual_seed(args.seed)


def sample(n, seed):
    g = torch.Generator().manual_seed(1234)
    w1 = torch.randn(args.features, 16, generator=g) / math.sqrt(args.features)
    w2 = torch.randn(16, 3, generator=g)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, args.features, generator=g)
    logits = torch.tanh(x @ w1 * 2) @ w2 * 2.5
    y = torch.distributions.Categorical(logits=logits).sample()
    return x, y


torch.manual_seed(1)
x_tr, y_tr = sample(args.n_train, 1)
x_va, y_va = sample(args.n_val, 2)
torch.manual_seed(args.seed)


def mlp(h):
    return nn.Sequential(nn.Linear(args.features, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 3))


def evaluate(m):
    m.eval()
    with torch.no_grad():
        out = m(x_va)
    m.train()
    return F.cross_entropy(out, y_va).item(), (out.argmax(1) == y_va).float().mean().item()


def batches(x, y):
    perm = torch.randperm(len(x))
    for i in range(0, len(x), args.batch_size):
        idx = perm[i:i + args.batch_size]
        yield x[idx], y[idx]


teacher = mlp(args.teacher_hidden)
opt = torch.optim.Adam(teacher.parameters(), lr=args.lr)
for ep in range(args.teacher_epochs):
    for xb, yb in batches(x_tr, y_tr):
        loss = F.cross_entropy(teacher(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
t_val_loss, t_val_acc = evaluate(teacher)
teacher.eval()
print(f"teacher: val_loss {t_val_loss:.4f} val_acc {t_val_acc:.4f}")

student = mlp(args.student_hidden)
opt = torch.optim.Adam(student.parameters(), lr=args.lr, weight_decay=args.weight_decay)
T, a = args.temperature, args.alpha
with open(args.out, "w") as f:
    f.write("epoch,train_loss,kd_loss,ce_loss,train_acc,val_loss,val_acc,teacher_val_acc\n")
    for ep in range(1, args.epochs + 1):
        s = {"loss": 0.0, "kd": 0.0, "ce": 0.0, "correct": 0}
        for xb, yb in batches(x_tr, y_tr):
            with torch.no_grad():
                tl = teacher(xb)
            sl = student(xb)
            kd = F.kl_div(F.log_softmax(sl / T, 1), F.softmax(tl / T, 1), reduction="batchmean") * T * T
            ce = F.cross_entropy(sl, yb)
            loss = a * kd + (1 - a) * ce
            opt.zero_grad()
            loss.backward()
            opt.step()
            s["loss"] += loss.item() * len(yb)
            s["kd"] += kd.item() * len(yb)
            s["ce"] += ce.item() * len(yb)
            s["correct"] += (sl.argmax(1) == yb).sum().item()
        n = len(x_tr)
        vl, va = evaluate(student)
        f.write(f"{ep},{s['loss'] / n:.5f},{s['kd'] / n:.5f},{s['ce'] / n:.5f},{s['correct'] / n:.4f},{vl:.5f},{va:.4f},{t_val_acc:.4f}\n")
        if ep % 10 == 0 or ep == 1:
            print(f"epoch {ep:3d} train_loss {s['loss'] / n:.4f} kd {s['kd'] / n:.4f} ce {s['ce'] / n:.4f} "
                  f"train_acc {s['correct'] / n:.3f} | val_loss {vl:.4f} val_acc {va:.4f}")
torch.save(student.state_dict(), "student_last.pt")
