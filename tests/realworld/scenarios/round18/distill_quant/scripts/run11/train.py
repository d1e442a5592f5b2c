import copy
import logging
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(name)s: %(message)s")
log = logging.getLogger("wave_kd")
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

WAVES = ["sine", "square", "sawtooth", "triangle"]


def synth_waves(n, length, noise, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, len(WAVES), (n,), generator=g)
    t = torch.linspace(0, 1, length)
    freq = 2 + 6 * torch.rand(n, 1, generator=g)
    phase = torch.rand(n, 1, generator=g)
    ph = (freq * t + phase) % 1.0
    sine = torch.sin(2 * math.pi * ph)
    square = torch.sign(sine)
    saw = 2 * ph - 1
    tri = 2 * (2 * ph - 1).abs() - 1
    x = torch.stack([sine, square, saw, tri], 1)[torch.arange(n), y]
    x = x + noise * torch.randn(n, length, generator=g)
    return x.unsqueeze(1), y


class ConvNet(nn.Module):
    def __init__(self, channels, k=4):
        super().__init__()
        c1, c2 = channels
        self.body = nn.Sequential(
            nn.Conv1d(1, c1, 7, padding=3), nn.BatchNorm1d(c1), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(c1, c2, 5, padding=2), nn.BatchNorm1d(c2), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.head = nn.Linear(c2, k)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))


def evaluate(model, loader):
    model.eval()
    correct = n = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
            n += len(yb)
    return correct / n


dc = cfg["data"]
train_ds = TensorDataset(*synth_waves(dc["n_train"], dc["length"], dc["noise"], 1))
val_ds = TensorDataset(*synth_waves(dc["n_val"], dc["length"], dc["noise"], 2))
train_loader = DataLoader(train_ds, batch_size=cfg["distill"]["batch_size"], shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)

teacher = ConvNet(cfg["teacher"]["channels"])
opt = torch.optim.Adam(teacher.parameters(), lr=cfg["teacher"]["lr"])
for epoch in range(cfg["teacher"]["epochs"]):
    teacher.train()
    for xb, yb in train_loader:
        loss = F.cross_entropy(teacher(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    log.info("teacher epoch %d loss %.4f val_acc %.4f", epoch + 1, loss.item(), evaluate(teacher, val_loader))
teacher.eval()
teacher_acc = evaluate(teacher, val_loader)

kc = cfg["distill"]
student = ConvNet(cfg["student"]["channels"])
opt = torch.optim.Adam(student.parameters(), lr=kc["lr"])
T, alpha = kc["temperature"], kc["alpha"]
log.info("student params %d / teacher params %d", sum(p.numel() for p in student.parameters()),
         sum(p.numel() for p in teacher.parameters()))
for epoch in range(kc["epochs"]):
    student.train()
    tot_kd = tot_ce = 0.0
    for xb, yb in train_loader:
        with torch.no_grad():
            t_logits = teacher(xb)
        s_logits = student(xb)
        kd_loss = F.kl_div(F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1), reduction="batchmean") * T * T
        ce_loss = F.cross_entropy(s_logits, yb)
        loss = alpha * kd_loss + (1 - alpha) * ce_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot_kd += kd_loss.item() * len(yb)
        tot_ce += ce_loss.item() * len(yb)
    n = len(train_ds)
    log.info("kd epoch %02d kd_loss %.4f ce_loss %.4f student_acc %.4f teacher_acc %.4f",
             epoch + 1, tot_kd / n, tot_ce / n, evaluate(student, val_loader), teacher_acc)

fp32_acc = evaluate(student, val_loader)
log.info("fp32 student acc %.4f", fp32_acc)
ec = cfg["export"]
log.info("exporting student as %s -> %s", ec["dtype"], ec["path"])
export_model = copy.deepcopy(student).to(getattr(torch, ec["dtype"]))
os.makedirs(os.path.dirname(ec["path"]), exist_ok=True)
torch.save(export_model.state_dict(), ec["path"])
size_kb = os.path.getsize(ec["path"]) / 1024
log.info("saved %.1f KB; verifying exported model accuracy", size_kb)
export_acc = evaluate(export_model, val_loader)
log.info("fp32 acc %.4f | %s acc %.4f", fp32_acc, ec["dtype"], export_acc)
