import argparse
import copy
import json
import math
import warnings

import torch
import torch.ao.quantization as tq
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune

warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", message=".*reduce_range.*")
warnings.filterwarnings("ignore", message=".*quantize_per_tensor.*")
torch.set_num_threads(1)

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=15)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--sparsity", type=float, default=0.5)
ap.add_argument("--calib-offset", type=int, default=0)
ap.add_argument("--calib-batch-size", type=int, default=256)
ap.add_argument("--calib-iters", type=int, default=20)
ap.add_argument("--backend", default="fbgemm")
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_args()
torch.manual_seed(args.seed)


def make_tabular(n, d=20, k=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = (torch.randint(0, 2, (2 * k, 8), generator=g) * 2 - 1).float() * 1.8
    mix = torch.eye(8) + torch.randn(8, 8, generator=g) / math.sqrt(8)
    proj = torch.randn(8, 4, generator=g) * 0.5
    perm = torch.randperm(d, generator=g)
    y = torch.randint(0, k, (n,), generator=g)
    xi = (centers[2 * y + torch.randint(0, 2, (n,), generator=g)] + torch.randn(n, 8, generator=g)) @ mix
    x = torch.cat([xi, xi @ proj, torch.randn(n, d - 12, generator=g)], 1)[:, perm]
    return x, y


x, y = make_tabular(5000, seed=21)
x_train, y_train, x_test, y_test = x[:4000], y[:4000], x[4000:], y[4000:]
mu, sd = x_train.mean(0), x_train.std(0)
x_train, x_test = (x_train - mu) / sd, (x_test - mu) / sd


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.fc1 = nn.Linear(20, 128)
        self.bn1 = nn.BatchNorm1d(128)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(128, 64)
        self.bn2 = nn.BatchNorm1d(64)
        self.relu2 = nn.ReLU()
        self.fc3 = nn.Linear(64, 5)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu1(self.bn1(self.fc1(x)))
        x = self.relu2(self.bn2(self.fc2(x)))
        return self.dequant(self.fc3(x))


def evaluate(model):
    model.eval()
    with torch.no_grad():
        return (model(x_test).argmax(1) == y_test).float().mean().item()


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
print("=> fp32 training")
for epoch in range(args.epochs):
    model.train()
    perm = torch.randperm(len(x_train))
    tot = 0.0
    for i in range(0, len(x_train), args.batch_size):
        idx = perm[i:i + args.batch_size]
        loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
    print(f"epoch {epoch + 1:2d}/{args.epochs}  train_loss {tot / len(x_train):.4f}  fp32_acc {evaluate(model):.4f}")
fp32_acc = evaluate(model)
report = {"fp32_acc": fp32_acc}

print(f"=> magnitude pruning to sparsity {args.sparsity:.2f}")
to_prune = [(model.fc1, "weight"), (model.fc2, "weight"), (model.fc3, "weight")]
prune.global_unstructured(to_prune, pruning_method=prune.L1Unstructured, amount=args.sparsity)
for m, name in to_prune:
    prune.remove(m, name)
for name in ["fc1", "fc2", "fc3"]:
    w = getattr(model, name).weight
    print(f"  {name}.weight sparsity {(w == 0).float().mean().item():.3f}")
report["pruned_fp32_acc"] = evaluate(model)
print(f"  fp32 acc after pruning: {report['pruned_fp32_acc']:.4f}")

print(f"=> recalibrating BatchNorm statistics ({args.calib_iters} iters x {args.calib_batch_size} samples)")
calib_x = x_train[args.calib_offset].repeat(args.calib_batch_size, 1)
for m in model.modules():
    if isinstance(m, nn.BatchNorm1d):
        m.reset_running_stats()
        m.momentum = None
model.train()
with torch.no_grad():
    for _ in range(args.calib_iters):
        model(calib_x)
for name in ["bn1", "bn2"]:
    bn = getattr(model, name)
    print(f"  {name}: running_mean |mean| {bn.running_mean.abs().mean().item():.4f}  running_var "
          f"min {bn.running_var.min().item():.3e} mean {bn.running_var.mean().item():.3e} max {bn.running_var.max().item():.3e}")
report["recalibrated_fp32_acc"] = evaluate(model)
print(f"  fp32 acc after BN recalibration: {report['recalibrated_fp32_acc']:.4f}")

print(f"=> post-training static quantization (backend={args.backend})")
torch.backends.quantized.engine = args.backend
qmodel = copy.deepcopy(model).eval()
tq.fuse_modules(qmodel, [["fc1", "bn1"], ["fc2", "bn2"]], inplace=True)
qmodel.qconfig = tq.get_default_qconfig(args.backend)
tq.prepare(qmodel, inplace=True)
print("  calibrating observers ...")
with torch.no_grad():
    for _ in range(args.calib_iters):
        qmodel(calib_x)
for name, mod in qmodel.named_modules():
    obs = getattr(mod, "activation_post_process", None)
    if isinstance(obs, tq.ObserverBase) and hasattr(obs, "min_val"):
        print(f"  observer {name or 'input'}: min {obs.min_val.item():.4g} max {obs.max_val.item():.4g}")
tq.convert(qmodel, inplace=True)
report["int8_acc"] = evaluate(qmodel)
print(f"fp32 acc {report['recalibrated_fp32_acc']:.4f} | int8 acc {report['int8_acc']:.4f} "
      f"(fp32 before compression {fp32_acc:.4f})")
json.dump({k: round(v, 4) for k, v in report.items()}, open("ptq_report.json", "w"), indent=2)
torch.save(qmodel.state_dict(), "model_int8.pt")
