import copy
import csv
import warnings

import torch
import torch.ao.quantization as tq
import torch.nn as nn
import torch.nn.functional as F
import yaml

warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", category=UserWarning, module="torch")
torch.set_num_threads(1)
cfg = yaml.safe_load(open("qat_config.yaml"))
torch.manual_seed(cfg["seed"])


def make_blobs(n, seed, overlap):
    g = torch.Generator().manual_seed(99)
    centers = torch.randn(3, 12, generator=g) * 0.9
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 3, (n,), generator=g)
    x = centers[y] + overlap * torch.randn(n, 12, generator=g)
    return x, y


x_tr, y_tr = make_blobs(cfg["data"]["n_train"], 1, cfg["data"]["label_overlap"])
x_va, y_va = make_blobs(cfg["data"]["n_val"], 2, cfg["data"]["label_overlap"])


class TabNet(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.quant = tq.QuantStub()
        self.fc1 = nn.Linear(12, hidden[0])
        self.bn1 = nn.BatchNorm1d(hidden[0])
        self.act1 = nn.ReLU()
        self.fc2 = nn.Linear(hidden[0], hidden[1])
        self.bn2 = nn.BatchNorm1d(hidden[1])
        self.act2 = nn.ReLU()
        self.out = nn.Linear(hidden[1], 3)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.act1(self.bn1(self.fc1(x)))
        x = self.act2(self.bn2(self.fc2(x)))
        return self.dequant(self.out(x))


def evaluate(model):
    model.eval()
    with torch.no_grad():
        logits = model(x_va)
    return F.cross_entropy(logits, y_va).item(), (logits.argmax(1) == y_va).float().mean().item()


def run_epoch(model, opt, bs):
    model.train()
    perm = torch.randperm(len(x_tr))
    tot = 0.0
    for i in range(0, len(x_tr), bs):
        idx = perm[i:i + bs]
        loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
    return tot / len(x_tr)


model = TabNet(cfg["model"]["hidden"])
opt = torch.optim.SGD(model.parameters(), lr=cfg["fp32"]["lr"])
print("[fp32] pretraining")
for ep in range(cfg["fp32"]["epochs"]):
    tl = run_epoch(model, opt, cfg["fp32"]["batch_size"])
    vl, va = evaluate(model)
    print(f"[fp32] epoch {ep + 1:2d} train_loss {tl:.4f} val_loss {vl:.4f} val_acc {va:.4f}")
fp32_loss, fp32_acc = evaluate(model)

qc = cfg["qat"]
torch.backends.quantized.engine = qc["backend"]
qat_model = copy.deepcopy(model)
qat_model.train()
tq.fuse_modules_qat(qat_model, [["fc1", "bn1"], ["fc2", "bn2"]], inplace=True)
qat_model.qconfig = tq.get_default_qat_qconfig(qc["backend"])
tq.prepare_qat(qat_model, inplace=True)
print(f"[qat] prepared: {sum(1 for m in qat_model.modules() if isinstance(m, tq.FakeQuantize))} fake_quant modules")
opt = torch.optim.SGD(qat_model.parameters(), lr=qc["lr"], momentum=qc["momentum"])
with open("qat_metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "val_acc_fake_quant", "val_acc_int8"])
    for ep in range(qc["epochs"]):
        if ep == qc["freeze_bn_epoch"]:
            qat_model.apply(torch.ao.nn.intrinsic.qat.freeze_bn_stats)
            print(f"[qat] epoch {ep + 1}: freezing BN statistics")
        if ep == qc["disable_observer_epoch"]:
            qat_model.apply(tq.disable_observer)
            print(f"[qat] epoch {ep + 1}: freezing observers (fake_quant ranges fixed)")
        tl = run_epoch(qat_model, opt, qc["batch_size"])
        vl, va = evaluate(qat_model)
        int8 = tq.convert(copy.deepcopy(qat_model).eval(), inplace=False)
        _, ia = evaluate(int8)
        w.writerow([ep + 1, round(tl, 5), round(vl, 5), round(va, 4), round(ia, 4)])
        print(f"[qat] epoch {ep + 1:2d} train_loss {tl:.4f} val_loss {vl:.4f} val_acc(fake_quant) {va:.4f} int8_acc {ia:.4f}")

int8_model = tq.convert(copy.deepcopy(qat_model).eval(), inplace=False)
_, int8_acc = evaluate(int8_model)
print(f"fp32 acc {fp32_acc:.4f} | int8 acc {int8_acc:.4f}")
torch.save(int8_model.state_dict(), "model_int8.pt")
