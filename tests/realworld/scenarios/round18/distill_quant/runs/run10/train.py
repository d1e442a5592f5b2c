import csv
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
logging.basicConfig(level=logging.INFO, format="%(asctime)s | %(levelname)s | %(message)s")
logger = logging.getLogger(__name__)

cfg = yaml.safe_load(open("kd_config.yaml"))
torch.manual_seed(cfg["seed"])


def glyph_prototypes(seed=7):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(10, 8, 8, generator=g) < 0.35).float()


def make_glyphs(n, seed, protos, flip=0.08, noise=0.2):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 10, (n,), generator=g)
    x = protos[y].clone()
    shift = torch.randint(-1, 2, (n, 2), generator=g) * (torch.rand(n, 1, generator=g) < 0.3).long()
    for i in range(n):
        x[i] = torch.roll(x[i], shifts=(int(shift[i, 0]), int(shift[i, 1])), dims=(0, 1))
    flips = torch.rand(x.shape, generator=g) < flip
    x = torch.where(flips, 1 - x, x)
    x = (x * 16 + torch.randn(x.shape, generator=g) * noise * 16).clamp(0, 16).round()
    return x.view(n, 64), y


protos = glyph_prototypes()
x_train, y_train = make_glyphs(cfg["dataset"]["train_size"], 1, protos)
x_val, y_val = make_glyphs(cfg["dataset"]["val_size"], 2, protos)
x_train, x_val = x_train / 16.0, x_val / 16.0


def build_mlp(hidden, d_in=64, n_out=10):
    dims = [d_in] + hidden
    layers = []
    for a, b in zip(dims[:-1], dims[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(dims[-1], n_out))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(-1) == y).float().mean().item()
    model.train()
    return acc


def temperature_at(epoch, tcfg, n_epochs):
    frac = epoch / max(1, n_epochs - 1)
    return tcfg["start"] + (tcfg["end"] - tcfg["start"]) * frac


def distillation_loss(student_logits, teacher_logits, labels, T, alpha):
    p_s = F.softmax(student_logits / T, dim=-1)
    p_t = F.softmax(teacher_logits / T, dim=-1)
    kd = (p_t * (torch.log(p_t) - torch.log(p_s))).sum(-1).mean() * T * T
    ce = F.nll_loss(torch.log(F.softmax(student_logits, dim=-1)), labels)
    return alpha * kd + (1 - alpha) * ce, kd, ce


# teacher
tcfg = cfg["teacher"]
teacher = build_mlp(tcfg["hidden"])
opt = torch.optim.Adam(teacher.parameters(), lr=tcfg["optimizer"]["lr"])
logger.info("training teacher: %s", tcfg)
for epoch in range(tcfg["epochs"]):
    perm = torch.randperm(len(x_train))
    for i in range(0, len(x_train), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(teacher(x_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    if (epoch + 1) % 5 == 0:
        logger.info("teacher epoch %d loss %.5f val_acc %.4f", epoch + 1, loss.item(), accuracy(teacher, x_val, y_val))
teacher.eval()
teacher_acc = accuracy(teacher, x_val, y_val)
teacher.eval()

# student
dcfg = cfg["distillation"]
student = build_mlp(cfg["student"]["hidden"])
opt = torch.optim.Adam(student.parameters(), lr=dcfg["optimizer"]["lr"])
bs, alpha = dcfg["batch_size"], dcfg["alpha"]
logger.info("distillation: student params %d, teacher params %d, alpha %.2f, temperature %s",
            sum(p.numel() for p in student.parameters()), sum(p.numel() for p in teacher.parameters()),
            alpha, dcfg["temperature"])
with open(cfg["logging"]["csv"], "w", newline="") as fh:
    writer = csv.writer(fh)
    writer.writerow(["epoch", "temperature", "loss", "kd_loss", "ce_loss", "student_acc", "teacher_acc"])
    for epoch in range(dcfg["epochs"]):
        T = temperature_at(epoch, dcfg["temperature"], dcfg["epochs"])
        perm = torch.randperm(len(x_train))
        sums = [0.0, 0.0, 0.0]
        nb = 0
        for i in range(0, len(x_train), bs):
            idx = perm[i:i + bs]
            with torch.no_grad():
                t_logits = teacher(x_train[idx])
            s_logits = student(x_train[idx])
            loss, kd, ce = distillation_loss(s_logits, t_logits, y_train[idx], T, alpha)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sums[0] += loss.item()
            sums[1] += kd.item()
            sums[2] += ce.item()
            nb += 1
        loss_m, kd_m, ce_m = (s / nb for s in sums)
        s_acc = accuracy(student, x_val, y_val)
        writer.writerow([epoch + 1, round(T, 4), f"{loss_m:.5f}", f"{kd_m:.5f}", f"{ce_m:.5f}", round(s_acc, 4),
                         round(teacher_acc, 4)])
        logger.info("epoch %02d T=%.3f loss=%.5f kd_loss=%.5f ce_loss=%.5f student_acc=%.4f teacher_acc=%.4f",
                    epoch + 1, T, loss_m, kd_m, ce_m, s_acc, teacher_acc)
torch.save(student.state_dict(), "student_final.pt")
logger.info("saved student_final.pt")
