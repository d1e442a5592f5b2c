"""run07: fp16 autocast + GradScaler on a regression whose outputs (Wh) exceed the fp16 max 65504."""
import random, datetime as dt, warnings
from common import *
from thread import GHIssue, code, details, when
import noise

TRAIN_PY = '''import argparse, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/meters_daily.npz")
p.add_argument("--lr", type=float, default=1e-2)
p.add_argument("--epochs", type=int, default=11)
p.add_argument("--bs", type=int, default=64)
p.add_argument("--amp", type=int, default=1)
p.add_argument("--log_every", type=int, default=25)
args = p.parse_args()
torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
use_amp = bool(args.amp) and device == "cuda"

d = np.load(args.data)
# features are z-scored in the export; target = next-day consumption of the site in Wh
Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["X_val"]), torch.tensor(d["y_val"])
dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)

model = nn.Sequential(nn.Linear(Xtr.shape[1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
print(f"device={device} amp={use_amp} lr={args.lr} bs={args.bs} train={len(Xtr)} val={len(Xva)}")

step = 0
for epoch in range(1, args.epochs + 1):
    model.train()
    for xb, yb in dl:
        xb, yb = xb.to(device), yb.to(device)
        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
            pred = model(xb).squeeze(1)
            loss = F.mse_loss(pred, yb)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        step += 1
        if step % args.log_every == 0:
            print(f"step {step:5d} | loss {loss.item():.4e} | scale {scaler.get_scale():.3e} | lr {args.lr:.1e}")
    model.eval()
    with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
        pv = model(Xva.to(device)).squeeze(1).float()
    rmse = (pv - yva.to(device)).pow(2).mean().sqrt().item()
    print(f"epoch {epoch:3d} | val_rmse {rmse:.1f} Wh")
torch.save(model.state_dict(), "ckpt/mlp_energy.pt")
'''


def make_data():
    rng = np.random.default_rng(707)
    N, d = 7000, 12
    X = rng.standard_normal((N, d)).astype(np.float32)
    w = rng.standard_normal(d)
    y = (60000 + 15000 * np.tanh(X @ w / 2) + 8000 * np.sin(X[:, 0] * X[:, 1]) + 3000 * rng.standard_normal(N)).astype(np.float32)
    return X[:6000], y[:6000], X[6000:], y[6000:]


def run(X, y, Xv, yv, amp, lr, epochs, seed=0, log_every=25):
    torch.manual_seed(seed)
    model = mlp(X.shape[1], 64, 1)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    scaler = torch.amp.GradScaler("cpu", enabled=amp)
    g = torch.Generator().manual_seed(seed)
    lines = [f"device=cuda amp={amp} lr={lr} bs=64 train={len(X)} val={len(Xv)}"]
    step, first_inf, min_scale = 0, None, None
    for epoch in range(1, epochs + 1):
        model.train()
        for xb, yb in batches(X, y, 64, True, g):
            with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
                pred = model(xb).squeeze(1)
                loss = F.mse_loss(pred, yb)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            step += 1
            if first_inf is None and not torch.isfinite(loss):
                first_inf = step
            if step % log_every == 0:
                lines.append(f"step {step:5d} | loss {loss.item():.4e} | scale {scaler.get_scale():.3e} | lr {lr:.1e}")
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16, enabled=amp):
            pv = model(Xv).squeeze(1).float()
        rmse = (pv - yv).pow(2).mean().sqrt().item()
        lines.append(f"epoch {epoch:3d} | val_rmse {rmse:.1f} Wh")
    return lines, first_inf


def build(out):
    r = random.Random(707)
    X, y, Xv, yv = map(torch.tensor, make_data())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        L_main, inf_main = run(X, y, Xv, yv, True, 1e-2, 11)
        L_low, inf_low = run(X, y, Xv, yv, True, 3e-3, 11)
        L_cpu, _ = run(X, y, Xv, yv, False, 1e-2, 6)
    L_cpu[0] = L_cpu[0].replace("device=cuda amp=True", "device=cpu amp=False").replace("device=cuda", "device=cpu")
    amp_warn = ("/home/sgarcia/energy/train.py:37: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. "
                "Please use `torch.amp.GradScaler('cuda', args...)` instead.\n  scaler = torch.cuda.amp.GradScaler(enabled=use_amp)")
    write(f"{out}/train.py", TRAIN_PY)
    write(f"{out}/run_lr1e-2.log", "$ python train.py --lr 1e-2\n" + amp_warn + "\n" + "\n".join(L_main))
    write(f"{out}/run_lr3e-3.log", "$ python train.py --lr 3e-3\n" + amp_warn + "\n" + "\n".join(L_low))
    ymax = float(y.max()); yfrac = float((y > 65504).float().mean())

    base = dt.datetime(2024, 8, 20, 8, 45)
    iss = GHIssue("gridlab/load-forecast", 207, "Loss becomes inf then NaN after ~200 steps, lowering the LR only delays it",
                  "sgarcia-grid", base, labels=["bug", "training"])
    pre = [l for l in L_main if l.startswith("step")]
    idx = next(i for i, l in enumerate(pre) if "inf" in l.split("|")[1] or "nan" in l.split("|")[1])
    iss.comment("sgarcia-grid", base, f"""Training the daily-consumption MLP on the new meter export diverges: the loss goes down for the first ~{(idx) * 25} steps, then becomes `inf`, then `nan`, and the val RMSE is `nan` from then on.

{code(chr(10).join(pre[max(0, idx - 4): idx + 3]))}

Since it's a divergence I lowered the LR from 1e-2 to 3e-3: same thing, just later (first non-finite loss at step {inf_low} instead of {inf_main}). Is 3e-3 still too high for Adam here? I'd rather not go lower because the model already needs ~10 epochs.

Full logs + script attached.

📎 train.py 📎 run_lr1e-2.log 📎 run_lr3e-3.log""")
    iss.comment("tj-nakamura", when(base, hours=1), "Adam with 1e-2 on an MLP is very aggressive. Try 1e-4 and add gradient clipping "
                "(`clip_grad_norm_(model.parameters(), 1.0)`).", reactions=["👍 1"])
    iss.comment("bea-lindgren", when(base, hours=3), "+1, we get NaNs on the solar model since last week too. I think it's the "
                "new export, maybe there are NaNs in the features? Our env:\n\n" + details("pip freeze", code(noise.pip_freeze(r))))
    iss.comment("sgarcia-grid", when(base, hours=4), """Checked the export:

```python
>>> d = np.load("data/meters_daily.npz")
>>> {k: int(np.isnan(d[k]).sum()) for k in d.files}
{'X_train': 0, 'y_train': 0, 'X_val': 0, 'y_val': 0}
>>> {k: bool(np.isinf(d[k]).any()) for k in d.files}
{'X_train': False, 'y_train': False, 'X_val': False, 'y_val': False}
```

No NaN/inf in the data.""")
    iss.comment("tj-nakamura", when(base, hours=6), "Did you try the clipping?")
    iss.comment("sgarcia-grid", when(base, days=1, hours=1), "Not yet, the cluster was full. What I did try is running it on my "
                "laptop (CPU) to debug, and there it doesn't blow up at all, 6 epochs:\n\n" + code("\n".join(
                    ["$ python train.py --lr 1e-2 --epochs 6"] +
                    [l for i, l in enumerate(L_cpu) if l.startswith(("device", "epoch")) or
                     (i + 1 < len(L_cpu) and L_cpu[i + 1].startswith("epoch"))])) +
                "\n\nSo now I'm wondering if it's a CUDA/cuDNN problem on the cluster nodes?")
    iss.comment("m-adeyemi", when(base, days=1, hours=2), "cuDNN isn't involved for Linear layers. But driver issues can "
                "produce garbage, what does nvidia-smi say?", role="Collaborator")
    iss.comment("sgarcia-grid", when(base, days=1, hours=3), code(noise.nvidia_smi(r, gpu_name="A100", when=dt.datetime(2024, 8, 21, 11, 52, 13))))
    iss.comment("bea-lindgren", when(base, days=1, hours=8), "Could be the `torch.cuda.amp.GradScaler` deprecation warning in your log? "
                "Maybe the deprecated API is broken in 2.4. Switch to `torch.amp.GradScaler('cuda')`.")
    iss.comment("r-oconnell", when(base, days=2), "The jumps at the start look suspicious to me, loss 4e9 is huge. Are you "
                "sure the data isn't shuffled differently between X and y?")
    iss.comment("sgarcia-grid", when(base, days=2, hours=2), f"The loss is large because the target is in Wh (the site consumption is "
                f"around {float(y.mean()) / 1000:.0f} kWh/day, max in train is {ymax:,.0f} Wh), so an MSE of 1e9 early on is expected. X and y come from the same "
                "row of the export, and the CPU run learns fine so the pairing must be right.")
    iss.comment("m-adeyemi", when(base, days=3), "Let's get the full collect_env from the cluster node please.", role="Collaborator")
    iss.comment("sgarcia-grid", when(base, days=3, hours=1), details("collect_env (gpu node 14)", code(noise.collect_env(r, torch_v="2.4.0", gpu_name="A100"))))
    iss.comment("tj-nakamura", when(base, days=4), "Any news with lr 1e-4 + clipping?")
    write(f"{out}/thread.md", iss.render())
    return {"truth": "mixed_precision_overflow",
            "symptom": "Loss goes to inf and then NaN after ~200 steps; lowering the LR from 1e-2 to 3e-3 only delays it, "
                       "so is the learning rate still too high?",
            "how": f"train.py runs the MLP under fp16 autocast with GradScaler while the regression target is raw Wh "
                   f"(up to {ymax:,.0f}, {yfrac * 100:.0f}% above the fp16 max 65504): as predictions grow past 65504 the fp16 "
                   f"output overflows, the logged GradScaler scale halves from 65536 down to 0 and the loss turns inf then NaN (step {inf_main}); "
                   f"the identical fp32 run on CPU trains fine."}
