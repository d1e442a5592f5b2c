"""run05: pIC50 MLP on fingerprint + descriptor features; one unparseable SMILES becomes an all-NaN feature row
that survives StandardScaler and poisons the weights at the batch that contains it."""
import time

import numpy as np
import torch
import torch.nn as nn

from common import (seed_all, write, make_molecule, hashed_fp, descriptors, smiles_valid, rmse, SCAFFOLDS,
                    SUBST, Clock)

FEATURIZE_PY = '''import numpy as np
from rdkit import Chem
from rdkit.Chem import AllChem, Descriptors
from sklearn.preprocessing import StandardScaler

N_BITS = 1024
DESC = [Descriptors.MolWt, Descriptors.MolLogP, Descriptors.TPSA, Descriptors.NumHDonors,
        Descriptors.NumRotatableBonds, Descriptors.RingCount, Descriptors.FractionCSP3,
        Descriptors.BertzCT, Descriptors.LabuteASA, Descriptors.HeavyAtomCount,
        Descriptors.NumAromaticRings]


def featurize(smi):
    mol = Chem.MolFromSmiles(smi)
    if mol is None:
        # keep row order aligned with the activity table
        return np.full(N_BITS + len(DESC), np.nan, dtype=np.float32)
    fp = np.zeros(N_BITS, dtype=np.float32)
    for b in AllChem.GetMorganFingerprintAsBitVect(mol, 2, nBits=N_BITS).GetOnBits():
        fp[b] = 1.0
    desc = np.array([f(mol) for f in DESC], dtype=np.float32)
    return np.concatenate([fp, desc])


def build_features(df, train_idx, val_idx):
    X = np.stack([featurize(s) for s in df["smiles"]])
    y = df["pIC50"].to_numpy(dtype=np.float32)
    scaler = StandardScaler().fit(X[train_idx])
    X = scaler.transform(X).astype(np.float32)
    return X[train_idx], y[train_idx], X[val_idx], y[val_idx]
'''

CONFIG = """# configs/jak2_mlp.yaml
data:
  csv: data/jak2_chembl_pic50.csv
  smiles_col: smiles
  target_col: pIC50
  val_fraction: 0.2
  split_seed: 0
features:
  morgan_radius: 2
  morgan_bits: 1024
  rdkit_descriptors: true
  scale: standard
model:
  hidden: [256, 64]
  dropout: 0.1
train:
  epochs: 12
  batch_size: 64
  lr: {lr}
  weight_decay: 1.0e-5
  seed: 0
  log_every: 5
"""


def _breaking_typo(s, rng):
    # a copy-paste slip from the ELN export: one extra ')' in the middle of the string
    cands = [i for i in range(3, len(s) - 2) if s[i] in "Cc" and s[i - 1] != "["]
    p = cands[int(rng.integers(len(cands)))]
    return s[:p + 1] + ")" + s[p + 1:]


def _train(X, y, tr, va, lr, clock, log, epochs):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(X.shape[1], 256), nn.ReLU(), nn.Dropout(0.1), nn.Linear(256, 64), nn.ReLU(),
                          nn.Dropout(0.1), nn.Linear(64, 1))
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-5)
    Xt, yt = torch.tensor(X), torch.tensor(y)
    BS = 64
    nb = int(np.ceil(len(tr) / BS))
    g = torch.Generator().manual_seed(0)
    first_nan = None
    for ep in range(1, epochs + 1):
        model.train()
        perm = torch.tensor(tr)[torch.randperm(len(tr), generator=g)]
        win = []
        for b in range(nb):
            bi = perm[b * BS:(b + 1) * BS]
            opt.zero_grad()
            loss = ((model(Xt[bi]).squeeze(1) - yt[bi]) ** 2).mean()
            loss.backward()
            opt.step()
            win.append(loss.item())
            if first_nan is None and not np.isfinite(loss.item()):
                first_nan = (ep, b + 1)
            if (b + 1) % 5 == 0 or b + 1 == nb:
                log(f"{clock.now():%Y-%m-%d %H:%M:%S} | INFO | epoch {ep:2d} step {b + 1:2d}/{nb} "
                    f"train_mse {np.mean(win):.4f} lr {lr:.1e}")
                win = []
        model.eval()
        with torch.no_grad():
            pv = model(Xt[torch.tensor(va)]).squeeze(1).numpy()
        log(f"{clock.now():%Y-%m-%d %H:%M:%S} | INFO | epoch {ep:2d} done | val_rmse {rmse(y[va], pv):.4f} "
            f"val_r2 {1 - np.sum((y[va] - pv) ** 2) / np.sum((y[va] - y[va].mean()) ** 2):.4f}")
    return first_nan


def run(outdir):
    seed_all(5)
    rng = np.random.default_rng(505)
    N = 2400
    sc_off = rng.normal(0, 0.7, len(SCAFFOLDS))
    sub_c = rng.normal(0, 0.45, len(SUBST))
    smiles, y, seen = [], [], set()
    while len(smiles) < N:
        s, sid, subs = make_molecule(rng)
        if s in seen:
            continue
        seen.add(s)
        smiles.append(s)
        y.append(6.4 + sc_off[sid] + sum(sub_c[k] for k in subs) + rng.normal(0, 0.45))
    y = np.array(y, dtype=np.float32)
    perm = np.random.default_rng(0).permutation(N)
    nva = int(0.2 * N)
    va, tr = perm[:nva], perm[nva:]
    # the malformed entry sits in the 19th mini-batch of the first epoch's (seeded) shuffle
    first_perm = torch.randperm(len(tr), generator=torch.Generator().manual_seed(0)).numpy()
    bad_row = int(tr[first_perm[64 * 18 + int(rng.integers(64))]])
    smiles[bad_row] = _breaking_typo(smiles[bad_row], rng)

    clock = Clock("2024-03-14 10:02:07")
    lines = []
    log = lines.append
    t0 = time.perf_counter()
    feats, errs = [], []
    for s in smiles:
        ok, why = smiles_valid(s)
        if not ok:
            ts = f"{clock.now():%H:%M:%S}"
            errs.append(f"[{ts}] SMILES Parse Error: {why} while parsing: {s}")
            errs.append(f"[{ts}] SMILES Parse Error: Failed parsing SMILES '{s}' for input: '{s}'")
            feats.append(np.full(1024 + 11, np.nan, dtype=np.float32))
            continue
        d = descriptors(s)
        d = np.delete(d, [8])  # no Ipc in this descriptor list
        d[-1] = round(d[-1] / 5.5)  # aromatic atoms -> approx. number of aromatic rings
        feats.append(np.concatenate([hashed_fp(s, 1024), d.astype(np.float32)]))
    X = np.stack(feats)
    mean = np.nanmean(X[tr], 0)
    var = np.nanvar(X[tr], 0)
    scale = np.where(var == 0, 1.0, np.sqrt(var))
    X = ((X - mean) / scale).astype(np.float32)
    assert len(errs) == 2

    out1 = []
    head = ["(chem) rpatel@ws-07:~/jak2_qsar$ python run_qsar.py --config configs/jak2_mlp.yaml"]
    head.append(f"{clock.now():%Y-%m-%d %H:%M:%S} | INFO | loaded {N} molecules from data/jak2_chembl_pic50.csv")
    head += errs[:]
    head.append(f"{clock.now():%Y-%m-%d %H:%M:%S} | INFO | features: (2400, {X.shape[1]}) | train {len(tr)} | val {len(va)}")
    head.append(f"{clock.now():%Y-%m-%d %H:%M:%S} | INFO | model: MLP {X.shape[1]}-256-64-1, params "
                f"{X.shape[1] * 256 + 256 + 256 * 64 + 64 + 65:,}")
    lines.extend(head)
    fn1 = _train(X, y, tr, va, 1e-3, clock, log, 12)
    run1 = "\n".join(lines) + "\n"

    clock.add(1800)
    lines.clear()
    lines.append("(chem) rpatel@ws-07:~/jak2_qsar$ sed -i 's/lr: 1.0e-3/lr: 1.0e-4/' configs/jak2_mlp.yaml")
    lines.append("(chem) rpatel@ws-07:~/jak2_qsar$ python run_qsar.py --config configs/jak2_mlp.yaml")
    lines.append(f"{clock.now():%Y-%m-%d %H:%M:%S} | INFO | loaded {N} molecules from data/jak2_chembl_pic50.csv")
    lines.extend(e.replace(errs[0][1:9], f"{clock.t:%H:%M:%S}") for e in errs)
    lines.append(f"{clock.now():%Y-%m-%d %H:%M:%S} | INFO | features: (2400, {X.shape[1]}) | train {len(tr)} | val {len(va)}")
    lines.append(f"{clock.now():%Y-%m-%d %H:%M:%S} | INFO | model: MLP {X.shape[1]}-256-64-1, params "
                 f"{X.shape[1] * 256 + 256 + 256 * 64 + 64 + 65:,}")
    fn2 = _train(X, y, tr, va, 1e-4, clock, log, 2)
    lines.append("^C")
    lines.append("KeyboardInterrupt")
    run2 = "\n".join(lines) + "\n"
    el = time.perf_counter() - t0

    d = f"{outdir}/runs/run05"
    write(f"{d}/run_lr1e-3.log", run1)
    write(f"{d}/run_lr1e-4.log", run2)
    write(f"{d}/configs/jak2_mlp.yaml", CONFIG.format(lr="1.0e-3"))
    write(f"{d}/featurize.py", FEATURIZE_PY)
    post = f"""**NaN loss in the first epoch of a simple QSAR MLP (JAK2 pIC50) -- learning rate?**

Hi, I'm training an MLP on Morgan fingerprints + a few RDKit descriptors (standard-scaled) to predict pIC50
for ~2400 JAK2 compounds exported from our ELN/ChEMBL. The train MSE starts fine and goes down for the first
few logging steps, then becomes `nan` partway through epoch 1 and everything after is nan (val_rmse nan too).

Exploding gradients from a too-high learning rate is my best guess, but dropping lr from 1e-3 to 1e-4 didn't
fix it. Should I add gradient clipping or go even lower? Logs of both runs, the config and my featurization
code are attached.
"""
    write(f"{d}/post.md", post)
    return {
        "truth": "nan_in_data",
        "symptom": ("Train loss becomes NaN partway through the first epoch; I think the learning rate is too high, but "
                    "lowering it from 1e-3 to 1e-4 didn't help. Should I add gradient clipping?"),
        "how": (f"One SMILES in the training table has a typo (extra ')'); featurize() returns an all-NaN row for it, "
                f"StandardScaler ignores NaN in fit and keeps it in transform, so the first batch containing that row "
                f"(epoch {fn1[0]} step {fn1[1]}) yields loss NaN after finite, falling losses - at the same step for both lrs."),
        "_stats": {"time": el, "first_nan": (fn1, fn2)},
    }
