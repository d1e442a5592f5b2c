import csv
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)


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


def mlp(sizes, dropout=0.0):
    layers = []
    for a, b in zip(sizes[:-2], sizes[1:-1]):
        layers += [nn.Linear(a, b), nn.ReLU()]
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
    layers.append(nn.Linear(sizes[-2], sizes[-1]))
    return nn.Sequential(*layers)


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    return (model(x).argmax(1) == y).float().mean().item()


def kd_loss_fn(s_logits, t_logits, T):
    return F.kl_div(F.log_softmax(s_logits / T, dim=1), F.softmax(t_logits / T, dim=1),
                    reduction="batchmean") * T * T


def main(cfg_path="config.yaml"):
    cfg = yaml.safe_load(open(cfg_path))
    torch.manual_seed(cfg["seed"])
    protos = glyph_prototypes()
    x_tr, y_tr = make_glyphs(cfg["data"]["n_train"], 1, protos)
    x_va, y_va = make_glyphs(cfg["data"]["n_val"], 2, protos)
    x_tr, x_va = x_tr / cfg["data"]["pixel_max"], x_va / cfg["data"]["pixel_max"]
    print(f"data: train {tuple(x_tr.shape)} val {tuple(x_va.shape)}")

    tc = cfg["teacher"]
    teacher = mlp([64] + tc["hidden"] + [10], tc["dropout"])
    opt = torch.optim.Adam(teacher.parameters(), lr=tc["lr"])
    print(f"teacher params: {sum(p.numel() for p in teacher.parameters())}")
    for ep in range(1, tc["epochs"] + 1):
        teacher.train()
        perm = torch.randperm(len(x_tr))
        tot = 0.0
        for i in range(0, len(x_tr), tc["batch_size"]):
            idx = perm[i:i + tc["batch_size"]]
            loss = F.cross_entropy(teacher(x_tr[idx]), y_tr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
        if ep % 5 == 0 or ep == 1:
            print(f"[teacher] epoch {ep:3d}/{tc['epochs']} loss {tot / len(x_tr):.4f} val_acc {accuracy(teacher, x_va, y_va):.4f}")
    teacher.eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    teacher_acc = accuracy(teacher, x_va, y_va)
    print(f"teacher_acc {teacher_acc:.4f}")

    dc = cfg["distill"]
    T, alpha = dc["temperature"], dc["alpha"]
    student = mlp([64] + cfg["student"]["hidden"] + [10])
    print(f"student params: {sum(p.numel() for p in student.parameters())}")
    opt = torch.optim.Adam(student.parameters(), lr=dc["lr"], weight_decay=dc["weight_decay"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=dc["epochs"])
    print(f"distilling: T={T} alpha={alpha} epochs={dc['epochs']}")
    fields = ["epoch", "lr", "loss", "kd_loss", "ce_loss", "train_student_acc", "student_acc", "teacher_acc"]
    with open(cfg["output"]["metrics"], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for ep in range(1, dc["epochs"] + 1):
            student.train()
            perm = torch.randperm(len(x_tr))
            s_kd = s_ce = s_loss = 0.0
            correct = 0
            t0 = time.time()
            for i in range(0, len(x_tr), dc["batch_size"]):
                idx = perm[i:i + dc["batch_size"]]
                xb, yb = x_tr[idx], y_tr[idx]
                with torch.no_grad():
                    t_logits = teacher(xb)
                s_logits = student(xb)
                kd = kd_loss_fn(s_logits, t_logits, T)
                ce = F.cross_entropy(s_logits, yb)
                loss = alpha * kd + (1 - alpha) * ce
                opt.zero_grad()
                loss.backward()
                opt.step()
                n = len(idx)
                s_kd += kd.item() * n
                s_ce += ce.item() * n
                s_loss += loss.item() * n
                correct += (s_logits.argmax(1) == yb).sum().item()
            lr = opt.param_groups[0]["lr"]
            sched.step()
            row = dict(epoch=ep, lr=round(lr, 6), loss=round(s_loss / len(x_tr), 5),
                       kd_loss=round(s_kd / len(x_tr), 5), ce_loss=round(s_ce / len(x_tr), 5),
                       train_student_acc=round(correct / len(x_tr), 4),
                       student_acc=round(accuracy(student, x_va, y_va), 4), teacher_acc=round(teacher_acc, 4))
            w.writerow(row)
            print(f"[kd] epoch {ep:3d}/{dc['epochs']} lr {lr:.5f} loss {row['loss']:.4f} kd_loss {row['kd_loss']:.4f} "
                  f"ce_loss {row['ce_loss']:.4f} student_acc {row['student_acc']:.4f} teacher_acc {teacher_acc:.4f} "
                  f"({time.time() - t0:.1f}s)")
    torch.save(student.state_dict(), cfg["output"]["student_ckpt"])
    print(f"final: student_acc {accuracy(student, x_va, y_va):.4f} teacher_acc {teacher_acc:.4f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
