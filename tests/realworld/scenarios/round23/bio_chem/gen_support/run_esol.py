"""run10: aqueous-solubility MLP on raw RDKit-style descriptors (MolWt ~ 1e2, BertzCT ~ 1e3, Ipc up to ~1e6,
FractionCSP3 in [0, 1]) fed without any scaling."""
import os
import shutil

import numpy as np

from common import (seed_all, write, make_molecule, descriptors, DESC_NAMES, run_user_script)

TRAIN_PY = r'''"""Solubility (logS) regression from RDKit 2D descriptors."""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

rows = list(csv.DictReader(open("data/solubility_rdkit_desc.csv")))
feat_cols = [c for c in rows[0] if c not in ("smiles", "logS")]
X = np.array([[float(r[c]) for c in feat_cols] for r in rows], dtype=np.float32)
y = np.array([float(r["logS"]) for r in rows], dtype=np.float32)
print(f"{len(rows)} molecules, {len(feat_cols)} descriptors: {feat_cols}")

idx = np.random.permutation(len(y))
n_val = len(y) // 5
val_idx, tr_idx = idx[:n_val], idx[n_val:]
Xtr, ytr = torch.from_numpy(X[tr_idx]), torch.from_numpy(y[tr_idx])
Xva, yva = torch.from_numpy(X[val_idx]), torch.from_numpy(y[val_idx])

model = nn.Sequential(
    nn.Linear(len(feat_cols), 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 1),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
mse = nn.MSELoss()

for epoch in range(1, 151):
    model.train()
    perm = torch.randperm(len(ytr))
    tot = 0.0
    for i in range(0, len(ytr), 32):
        b = perm[i:i + 32]
        opt.zero_grad()
        loss = mse(model(Xtr[b]).squeeze(-1), ytr[b])
        loss.backward()
        opt.step()
        tot += loss.item() * len(b)
    if epoch % 5 == 0 or epoch <= 3:
        model.eval()
        with torch.no_grad():
            pred = model(Xva).squeeze(-1)
        rmse = torch.sqrt(mse(pred, yva)).item()
        r2 = 1 - ((pred - yva) ** 2).sum().item() / ((yva - yva.mean()) ** 2).sum().item()
        print(f"epoch {epoch:3d}  train_mse {tot / len(ytr):.4g}  val_rmse {rmse:.3f}  val_r2 {r2:.3f}")

torch.save(model.state_dict(), "logS_mlp.pt")
print(f"baseline (predict train mean): val_rmse {torch.sqrt(mse(torch.full_like(yva, ytr.mean()), yva)).item():.3f}")
'''


def run(outdir):
    seed_all(10)
    rng = np.random.default_rng(1010)
    N = 1150
    smiles, D, seen = [], [], set()
    while len(smiles) < N:
        s, sid, subs = make_molecule(rng, n_sub=int(rng.integers(1, 5)))
        if s in seen:
            continue
        seen.add(s)
        smiles.append(s)
        D.append(descriptors(s))
    D = np.array(D)
    mw, logp, tpsa, hbd, rot, rings, fsp3, bertz, ipc, labute, heavy, arom = D.T
    ap = arom / np.maximum(heavy, 1)
    # ESOL-like ground truth (Delaney 2004 form) plus a mild non-linearity and assay noise
    logS = (0.16 - 0.63 * logp - 0.0062 * mw + 0.066 * rot - 0.74 * ap + 0.004 * tpsa
            - 0.08 * np.maximum(logp - 3, 0) ** 2 + rng.normal(0, 0.45, N))
    work = os.path.join(outdir, ".work", "run10")
    os.makedirs(os.path.join(work, "data"), exist_ok=True)
    cols = ["smiles"] + DESC_NAMES + ["logS"]
    lines = [",".join(cols)]
    for i in range(N):
        vals = [smiles[i]] + [f"{v:.6g}" if not float(v).is_integer() else f"{int(v)}" for v in D[i]] + [f"{logS[i]:.3f}"]
        lines.append(",".join(vals))
    with open(os.path.join(work, "data", "solubility_rdkit_desc.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    out, rc, el = run_user_script(TRAIN_PY, work, [], "/home/jmorales/solubility", "rdkit")
    shutil.rmtree(work, ignore_errors=True)
    d = f"{outdir}/runs/run10"
    write(f"{d}/train.py", TRAIN_PY)
    write(f"{d}/train_output.txt", "$ python train.py\n" + out)
    write(f"{d}/data_head.txt", "$ head -6 data/solubility_rdkit_desc.csv | column -s, -t\n" +
          _column(lines[:6]))
    ep = [l for l in out.splitlines() if l.startswith("epoch")]
    last = ep[-1]
    base = out.strip().splitlines()[-1]
    mses = [float(l.split("train_mse ")[1].split()[0]) for l in ep]
    rm = [float(l.split("val_rmse ")[1].split()[0]) for l in ep]
    return {
        "truth": "unnormalized_inputs",
        "symptom": ("The training MSE of my solubility MLP jumps around by orders of magnitude and the final val RMSE "
                    f"({float(last.split('val_rmse ')[1].split()[0]):.1f}) is worse than just predicting the mean "
                    f"({float(base.split('val_rmse ')[1]):.2f}). What am I doing wrong?"),
        "how": ("train.py feeds raw RDKit descriptors (Ipc up to ~1e6, BertzCT ~1e3, MolWt ~1e2 next to FractionCSP3 "
                f"in [0,1]) to the MLP with no scaling (Adam, lr 1e-3): train MSE starts at {mses[0]:.1e}, swings between "
                f"{min(mses):.1f} and {max(mses):.1e} over the run and the final val RMSE is {rm[-1]:.1f} vs "
                f"{float(base.split('val_rmse ')[1]):.2f} for predicting the mean."),
        "_stats": {"time": el, "rc": rc, "ep": ep, "base": base},
    }


def _column(lines):
    cells = [l.split(",") for l in lines]
    w = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in cells) + "\n"
