import argparse
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)

parser = argparse.ArgumentParser(description="distill a wide MLP into a small one (tabular)")
parser.add_argument("--n-samples", type=int, default=4000)
parser.add_argument("--n-features", type=int, default=20)
parser.add_argument("--n-informative", type=int, default=8)
parser.add_argument("--n-classes", type=int, default=5)
parser.add_argument("--teacher-width", type=int, default=64)
parser.add_argument("--teacher-dropout", type=float, default=0.5)
parser.add_argument("--teacher-epochs", type=int, default=30)
parser.add_argument("--student-width", type=int, default=48)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=3e-3)
parser.add_argument("--temperature", type=float, default=3.0)
parser.add_argument("--alpha", type=float, default=0.9)
parser.add_argument("--seed", type=int, default=42)
parser.add_argument("--log-json", default="kd_log.jsonl")
args = parser.parse_args()
torch.manual_seed(args.seed)


def make_classification(n, n_features, n_informative, n_classes, class_sep=1.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = (torch.randint(0, 2, (n_classes * 2, n_informative), generator=g) * 2 - 1).float() * class_sep
    y = torch.randint(0, n_classes, (n,), generator=g)
    cluster = y * 2 + torch.randint(0, 2, (n,), generator=g)
    xi = centers[cluster] + torch.randn(n, n_informative, generator=g)
    mix = torch.randn(n_informative, n_informative, generator=g) / math.sqrt(n_informative)
    xi = xi @ (torch.eye(n_informative) + mix)
    red = xi @ torch.randn(n_informative, 4, generator=g) * 0.5
    noise = torch.randn(n, n_features - n_informative - 4, generator=g)
    x = torch.cat([xi, red, noise], 1)
    x = x[:, torch.randperm(n_features, generator=g)]
    return x, y


x, y = make_classification(args.n_samples, args.n_features, args.n_informative, args.n_classes, class_sep=2.0, seed=3)
n_tr = int(0.75 * len(x))
mu, sd = x[:n_tr].mean(0), x[:n_tr].std(0)
x = (x - mu) / sd
train_dl = DataLoader(TensorDataset(x[:n_tr], y[:n_tr]), batch_size=args.batch_size, shuffle=True)
x_val, y_val = x[n_tr:], y[n_tr:]


class Teacher(nn.Module):
    def __init__(self, d, w, k, p):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d, w), nn.BatchNorm1d(w), nn.ReLU(), nn.Dropout(p),
            nn.Linear(w, w), nn.BatchNorm1d(w), nn.ReLU(), nn.Dropout(p),
            nn.Linear(w, k))

    def forward(self, x):
        return self.net(x)


class Student(nn.Module):
    def __init__(self, d, w, k):
        super().__init__()
        self.fc1 = nn.Linear(d, w)
        self.fc2 = nn.Linear(w, k)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train()
    return (logits.argmax(1) == y).float().mean().item(), F.cross_entropy(logits, y).item()


teacher = Teacher(args.n_features, args.teacher_width, args.n_classes, args.teacher_dropout)
opt = torch.optim.AdamW(teacher.parameters(), lr=1e-3, weight_decay=1e-2)
print(f"== teacher pretraining ({sum(p.numel() for p in teacher.parameters())} params)")
for epoch in range(args.teacher_epochs):
    for xb, yb in train_dl:
        loss = F.cross_entropy(teacher(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if (epoch + 1) % 5 == 0:
        acc, vl = evaluate(teacher, x_val, y_val)
        print(f"teacher epoch {epoch + 1:3d} train_loss {loss.item():.4f} val_loss {vl:.4f} val_acc {acc:.4f}")
teacher_val_acc, _ = evaluate(teacher, x_val, y_val)
print(f"teacher val_acc {teacher_val_acc:.4f}")

for p in teacher.parameters():
    p.requires_grad = False

student = Student(args.n_features, args.student_width, args.n_classes)
opt = torch.optim.Adam(student.parameters(), lr=args.lr)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=15, gamma=0.3)
T, alpha = args.temperature, args.alpha
print(f"== distillation: student {sum(p.numel() for p in student.parameters())} params, T={T}, alpha={alpha}")
with open(args.log_json, "w") as jf:
    for epoch in range(1, args.epochs + 1):
        student.train()
        n = kd_sum = ce_sum = t_correct = s_correct = 0
        for xb, yb in train_dl:
            with torch.no_grad():
                t_logits = teacher(xb)
            s_logits = student(xb)
            kd_loss = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1),
                               reduction="batchmean") * T ** 2
            ce_loss = F.cross_entropy(s_logits, yb)
            loss = alpha * kd_loss + (1 - alpha) * ce_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            b = len(yb)
            n += b
            kd_sum += kd_loss.item() * b
            ce_sum += ce_loss.item() * b
            t_correct += (t_logits.argmax(1) == yb).sum().item()
            s_correct += (s_logits.argmax(1) == yb).sum().item()
        sched.step()
        student_acc, student_val_loss = evaluate(student, x_val, y_val)
        rec = {"epoch": epoch, "lr": opt.param_groups[0]["lr"], "kd_loss": round(kd_sum / n, 5),
               "ce_loss": round(ce_sum / n, 5), "teacher_acc": round(t_correct / n, 4),
               "student_train_acc": round(s_correct / n, 4), "student_acc": round(student_acc, 4),
               "student_val_loss": round(student_val_loss, 5)}
        jf.write(json.dumps(rec) + "\n")
        print(" | ".join(f"{k} {v}" for k, v in rec.items()))

print(f"done. teacher val_acc {teacher_val_acc:.4f}  student val_acc {student_acc:.4f}")
