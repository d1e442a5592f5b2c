import argparse
import logging
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
msglogger = logging.getLogger()
logging.basicConfig(level=logging.INFO, format="%(message)s")

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--teacher-epochs", type=int, default=8)
parser.add_argument("-b", "--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--wd", type=float, default=1e-4)
parser.add_argument("--kd-temp", type=float, default=4.0)
parser.add_argument("--kd-distill-wt", type=float, default=0.5)
parser.add_argument("--kd-student-wt", type=float, default=0.5)
parser.add_argument("--print-freq", type=int, default=15)
parser.add_argument("--seed", type=int, default=1)
args = parser.parse_args()
torch.manual_seed(args.seed)

CLASSES = ["hbar", "vbar", "diag", "antidiag", "plus", "square"]


def render_shapes(n, size=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.zeros(n, 1, size, size)
    y = torch.randint(0, len(CLASSES), (n,), generator=g)
    for i in range(n):
        r, c = torch.randint(4, size - 4, (2,), generator=g).tolist()
        h = int(torch.randint(2, 5, (1,), generator=g))
        k = int(y[i])
        img = x[i, 0]
        if k == 0 or k == 4:
            img[r, c - h:c + h + 1] = 1
        if k == 1 or k == 4:
            img[r - h:r + h + 1, c] = 1
        if k == 2:
            for d in range(-h, h + 1):
                img[r + d, c + d] = 1
        if k == 3:
            for d in range(-h, h + 1):
                img[r + d, c - d] = 1
        if k == 5:
            img[r - h, c - h:c + h + 1] = 1
            img[r + h, c - h:c + h + 1] = 1
            img[r - h:r + h + 1, c - h] = 1
            img[r - h:r + h + 1, c + h] = 1
    x = x + 0.35 * torch.randn(x.shape, generator=g)
    return x, y


class TeacherCNN(nn.Module):
    def __init__(self, k=6):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(64 * 16, 128), nn.ReLU(), nn.Linear(128, k))

    def forward(self, x):
        return self.classifier(self.features(x))


class StudentCNN(nn.Module):
    def __init__(self, k=6):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(16 * 16, k), nn.Softmax(dim=1))

    def forward(self, x):
        return self.classifier(self.features(x))


def validate(model, x, y, epoch, tag):
    model.eval()
    with torch.no_grad():
        out = model(x)
        loss = F.cross_entropy(out, y).item()
        top1 = (out.argmax(1) == y).float().mean().item() * 100
        top5 = (out.topk(5, 1).indices == y[:, None]).any(1).float().mean().item() * 100
    msglogger.info("--- validate (epoch=%d) %s -----------", epoch, tag)
    msglogger.info("==> Top1: %.3f    Top5: %.3f    Loss: %.3f\n", top1, top5, loss)
    return top1, loss


x_train, y_train = render_shapes(3000, seed=11)
x_val, y_val = render_shapes(1000, seed=12)
msglogger.info("Dataset sizes:\n\ttraining=%d\n\tvalidation=%d", len(x_train), len(x_val))

teacher = TeacherCNN()
opt = torch.optim.SGD(teacher.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.wd)
msglogger.info("Training teacher for %d epochs", args.teacher_epochs)
for epoch in range(args.teacher_epochs):
    teacher.train()
    perm = torch.randperm(len(x_train))
    for i in range(0, len(x_train), args.batch_size):
        idx = perm[i:i + args.batch_size]
        loss = F.cross_entropy(teacher(x_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
teacher_top1, _ = validate(teacher, x_val, y_val, args.teacher_epochs - 1, "teacher")
teacher.eval()

student = StudentCNN()
n_params = sum(p.numel() for p in student.parameters())
msglogger.info("Student: %d params (teacher %d)", n_params, sum(p.numel() for p in teacher.parameters()))
msglogger.info("Knowledge distillation: temperature=%.1f distill_wt=%.2f student_wt=%.2f",
               args.kd_temp, args.kd_distill_wt, args.kd_student_wt)
optimizer = torch.optim.SGD(student.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.wd)
T = args.kd_temp
steps_per_epoch = (len(x_train) + args.batch_size - 1) // args.batch_size
best = 0.0
for epoch in range(args.epochs):
    student.train()
    perm = torch.randperm(len(x_train))
    t0 = time.time()
    for step, i in enumerate(range(0, len(x_train), args.batch_size), start=1):
        idx = perm[i:i + args.batch_size]
        inputs, target = x_train[idx], y_train[idx]
        with torch.no_grad():
            teacher_logits = teacher(inputs)
        output = student(inputs)
        student_loss = F.cross_entropy(output, target)
        distill_loss = F.kl_div(F.log_softmax(output / T, dim=1), F.softmax(teacher_logits / T, dim=1),
                                reduction="batchmean") * T * T
        loss = args.kd_student_wt * student_loss + args.kd_distill_wt * distill_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % args.print_freq == 0 or step == steps_per_epoch:
            msglogger.info("Epoch: [%d][%4d/%4d]    Overall Loss %.6f    Objective Loss %.6f    "
                           "Student Loss %.6f    Distillation Loss %.6f    LR %.6f    Time %.3f",
                           epoch, step, steps_per_epoch, loss.item(), loss.item(), student_loss.item(),
                           distill_loss.item(), optimizer.param_groups[0]["lr"], (time.time() - t0) / step)
    top1, vloss = validate(student, x_val, y_val, epoch, "student")
    best = max(best, top1)
    msglogger.info("==> Best [Top1: %.3f   Sparsity:0.00   Params: %d on epoch: %d]   Teacher Top1: %.3f",
                   best, n_params, epoch, teacher_top1)
torch.save({"state_dict": student.state_dict(), "best_top1": best}, "student_checkpoint.pth.tar")
