import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.tensorboard import SummaryWriter

from data import CLASSES, FEATURES, build_preprocessing, load_sensor_data

torch.set_num_threads(1)
cfg = yaml.safe_load(open("distill.yaml"))
dc = cfg["distill"]
torch.manual_seed(dc["seed"])


def mlp(hidden, p=0.0):
    dims = [FEATURES] + hidden
    layers = []
    for a, b in zip(dims[:-1], dims[1:]):
        layers += [nn.Linear(a, b), nn.ReLU(), nn.Dropout(p)]
    return nn.Sequential(*layers, nn.Linear(dims[-1], CLASSES))


x_tr, y_tr = load_sensor_data("train", cfg["data"]["n_train"])
x_va, y_va = load_sensor_data("val", cfg["data"]["n_val"])
prep = build_preprocessing(cfg["data"]["preprocessing"], x_tr)
x_tr, x_va = prep(x_tr), prep(x_va)

teacher = mlp(cfg["teacher"]["hidden"], cfg["teacher"]["dropout"])
teacher.load_state_dict(torch.load(cfg["teacher"]["weights"]))
teacher.eval()
student = mlp(cfg["student"]["hidden"])
opt = torch.optim.Adam(student.parameters(), lr=dc["lr"])
writer = SummaryWriter(cfg["logging"]["tensorboard_dir"])
T, alpha = dc["temperature"], dc["alpha"]
print(f"teacher loaded from {cfg['teacher']['weights']}; student params {sum(p.numel() for p in student.parameters())}")


def acc(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


step = 0
for epoch in range(dc["epochs"]):
    student.train()
    perm = torch.randperm(len(x_tr))
    for i in range(0, len(x_tr), dc["batch_size"]):
        idx = perm[i:i + dc["batch_size"]]
        with torch.no_grad():
            t_logits = teacher(x_tr[idx])
        s_logits = student(x_tr[idx])
        kd_loss = F.kl_div(F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1), reduction="batchmean") * T * T
        ce_loss = F.cross_entropy(s_logits, y_tr[idx])
        loss = alpha * kd_loss + (1 - alpha) * ce_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % cfg["logging"]["log_every"] == 0:
            writer.add_scalar("train/loss", loss.item(), step)
            writer.add_scalar("train/kd_loss", kd_loss.item(), step)
            writer.add_scalar("train/ce_loss", ce_loss.item(), step)
    student.eval()
    s_acc, t_acc = acc(student, x_va, y_va), acc(teacher, x_va, y_va)
    writer.add_scalar("eval/student_acc", s_acc, step)
    writer.add_scalar("eval/teacher_acc", t_acc, step)
    print(f"[epoch {epoch + 1}/{dc['epochs']}] step {step} kd_loss {kd_loss.item():.4f} ce_loss {ce_loss.item():.4f} "
          f"student_acc {s_acc:.4f} teacher_acc {t_acc:.4f}")
writer.close()
torch.save(student.state_dict(), "artifacts/student.pt")
