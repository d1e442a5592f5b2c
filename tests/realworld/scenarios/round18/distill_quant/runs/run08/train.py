import json
import logging
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
logging.basicConfig(format="[%(asctime)s] %(levelname)s (%(name)s/%(threadName)s) %(message)s",
                    datefmt="%Y-%m-%d %H:%M:%S", level=logging.INFO)
log = logging.getLogger("kd_prune")
cfg = json.load(open("config.json"))
torch.manual_seed(0)


def gaussian_clusters(n, dim, k, noise, seed):
    g = torch.Generator().manual_seed(100)
    means = torch.randn(k, dim, generator=g) * 1.2
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, k, (n,), generator=g)
    x = means[y] + noise * torch.randn(n, dim, generator=g)
    x = torch.tanh(x) + 0.1 * x ** 2
    return x, y


dc = cfg["data"]
x_tr, y_tr = gaussian_clusters(dc["n_train"], dc["dim"], dc["classes"], dc["noise"], 1)
x_va, y_va = gaussian_clusters(dc["n_val"], dc["dim"], dc["classes"], dc["noise"], 2)


def make_mlp(d, h, k):
    return nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, k))


def build_optimizer(net, c):
    return torch.optim.SGD(net.parameters(), lr=c["lr"], momentum=c["momentum"], weight_decay=c["weight_decay"])


@torch.no_grad()
def evaluate(net):
    net.eval()
    out = net(x_va)
    net.train()
    return (out.argmax(1) == y_va).float().mean().item()


# ---- teacher
model = make_mlp(dc["dim"], cfg["teacher"]["hidden"], dc["classes"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["teacher"]["lr"])
for epoch in range(cfg["teacher"]["epochs"]):
    perm = torch.randperm(len(x_tr))
    for i in range(0, len(x_tr), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
teacher_acc = evaluate(model)
log.info("teacher trained: val acc %.4f", teacher_acc)
teacher = model
teacher.eval()
for p in teacher.parameters():
    p.requires_grad_(False)

# ---- student + pruner
student = make_mlp(dc["dim"], cfg["student"]["hidden"], dc["classes"])
kc, pc = cfg["kd"], cfg["pruner"]
optimizer = build_optimizer(model, kc)
targets = {name: m for name, m in student.named_modules() if isinstance(m, nn.Linear) and name != "4"}
masks = {name: torch.ones_like(m.weight) for name, m in targets.items()}
log.info("pruner: %s, target sparsity %.2f, ops %s", pc["type"], pc["target_sparsity"], list(targets))


def agp_sparsity(epoch):
    if epoch < pc["start_epoch"]:
        return 0.0
    t = min(epoch, pc["end_epoch"]) - pc["start_epoch"]
    span = pc["end_epoch"] - pc["start_epoch"]
    return pc["target_sparsity"] * (1 - (1 - t / span) ** 3)


def update_masks(sparsity):
    for name, m in targets.items():
        w = m.weight.detach().abs()
        k = int(sparsity * w.numel())
        if k == 0:
            masks[name] = torch.ones_like(w)
            continue
        thresh = w.flatten().kthvalue(k).values
        masks[name] = (w > thresh).float()


def apply_masks():
    with torch.no_grad():
        for name, m in targets.items():
            m.weight.mul_(masks[name])


def current_sparsity():
    tot = sum(m.weight.numel() for m in targets.values())
    zeros = sum((m.weight == 0).sum().item() for m in targets.values())
    return zeros / tot


T, alpha = kc["temperature"], kc["alpha"]
history = []
for epoch in range(kc["epochs"]):
    s = agp_sparsity(epoch)
    update_masks(s)
    apply_masks()
    log.info("epoch %d: scheduled sparsity %.4f, current sparsity %.4f", epoch, s, current_sparsity())
    perm = torch.randperm(len(x_tr))
    tot = {"loss": 0.0, "kd_loss": 0.0, "ce_loss": 0.0, "grad_norm": 0.0}
    steps = 0
    for i in range(0, len(x_tr), kc["batch_size"]):
        idx = perm[i:i + kc["batch_size"]]
        xb, yb = x_tr[idx], y_tr[idx]
        with torch.no_grad():
            t_out = teacher(xb)
        s_out = student(xb)
        kd_loss = F.kl_div(F.log_softmax(s_out / T, 1), F.softmax(t_out / T, 1), reduction="batchmean") * T * T
        ce_loss = F.cross_entropy(s_out, yb)
        loss = alpha * kd_loss + (1 - alpha) * ce_loss
        optimizer.zero_grad()
        loss.backward()
        params = [p for group in optimizer.param_groups for p in group["params"]]
        grad_norm = torch.nn.utils.clip_grad_norm_(params, kc["max_grad_norm"])
        optimizer.step()
        apply_masks()
        steps += 1
        for k, v in (("loss", loss), ("kd_loss", kd_loss), ("ce_loss", ce_loss), ("grad_norm", grad_norm)):
            tot[k] += v.item()
    rec = {k: round(v / steps, 5) for k, v in tot.items()}
    rec.update(epoch=epoch, sparsity=round(current_sparsity(), 4), student_acc=round(evaluate(student), 4),
               teacher_acc=round(teacher_acc, 4))
    history.append(rec)
    log.info("epoch %d: loss %.4f kd_loss %.4f ce_loss %.4f grad_norm %.4f | student_acc %.4f teacher_acc %.4f",
             epoch, rec["loss"], rec["kd_loss"], rec["ce_loss"], rec["grad_norm"], rec["student_acc"], teacher_acc)

json.dump(history, open("history.json", "w"), indent=1)
log.info("final sparsity %.4f, student acc %.4f (teacher %.4f)", current_sparsity(), history[-1]["student_acc"], teacher_acc)
