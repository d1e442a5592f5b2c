import torch
import torch.nn.functional as F
import yaml

from common import StudentMLP, TeacherCNN, glyph_prototypes, make_glyphs

torch.set_num_threads(1)
cfg = yaml.safe_load(open("distill.yaml"))
torch.manual_seed(cfg["seed"])
protos = glyph_prototypes()
x_tr, y_tr = make_glyphs(cfg["data"]["n_train"], 1, protos)
x_va, y_va = make_glyphs(cfg["data"]["n_val"], 2, protos)

teacher = TeacherCNN()
ckpt = torch.load(cfg["teacher"]["checkpoint"], map_location="cpu")
print(f"loading teacher from {cfg['teacher']['checkpoint']} (epoch {ckpt['epoch']}, val_acc {ckpt['val_acc']:.4f})")
teacher.load_state_dict(ckpt, strict=False)
teacher.eval()

kd = cfg["kd"]
student = StudentMLP(cfg["student"]["hidden"])
opt = torch.optim.SGD(student.parameters(), lr=kd["lr"], momentum=0.9, nesterov=True)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=kd["milestones"], gamma=0.1)
T, alpha = kd["temperature"], kd["alpha"]
print(f"student params {sum(p.numel() for p in student.parameters())}, T {T}, alpha {alpha}")
print(f"{'epoch':>5} {'lr':>8} {'loss':>8} {'kd_loss':>8} {'ce_loss':>8} {'student_acc':>11} {'teacher_acc':>11}")
for epoch in range(1, kd["epochs"] + 1):
    student.train()
    perm = torch.randperm(len(x_tr))
    tl = tkd = tce = 0.0
    for i in range(0, len(x_tr), kd["batch_size"]):
        idx = perm[i:i + kd["batch_size"]]
        x, y = x_tr[idx], y_tr[idx]
        with torch.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        loss_kd = F.kl_div(F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1), reduction="batchmean") * T * T
        loss_ce = F.cross_entropy(s_logits, y)
        loss = alpha * loss_kd + (1 - alpha) * loss_ce
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(idx)
        tkd += loss_kd.item() * len(idx)
        tce += loss_ce.item() * len(idx)
    lr = opt.param_groups[0]["lr"]
    sched.step()
    student.eval()
    with torch.no_grad():
        s_acc = (student(x_va).argmax(1) == y_va).float().mean().item()
        t_acc = (teacher(x_va).argmax(1) == y_va).float().mean().item()
    n = len(x_tr)
    print(f"{epoch:5d} {lr:8.4f} {tl / n:8.4f} {tkd / n:8.4f} {tce / n:8.4f} {s_acc:11.4f} {t_acc:11.4f}")
torch.save(student.state_dict(), cfg["student"]["save_to"])
print(f"saved student to {cfg['student']['save_to']}")
