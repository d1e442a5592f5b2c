"""run06: Tox21-style NR-AhR classifier, 10 stacked Linear+Sigmoid layers trained with SGD: gradients reaching the
first layers are ~1e-8 of those at the head, loss sits at the base-rate entropy."""
import os
import shutil

import numpy as np

from common import seed_all, write, make_molecule, hashed_fp, run_user_script, SCAFFOLDS, SUBST

TRAIN_PY = r'''"""NR-AhR (Tox21) activity from ECFP4-1024 with a deep fully connected net."""
import time

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score

DEPTH = 10       # hidden layers
WIDTH = 128
EPOCHS = 25
BATCH = 100
LR = 0.05


def make_model(d_in):
    layers, h = [], d_in
    for _ in range(DEPTH):
        layers += [nn.Linear(h, WIDTH), nn.Sigmoid()]
        h = WIDTH
    layers.append(nn.Linear(h, 1))
    return nn.Sequential(*layers)


def layer_grad_norms(model):
    return [m.weight.grad.norm().item() for m in model if isinstance(m, nn.Linear)]


def main():
    torch.manual_seed(0)
    d = np.load("data/tox21_NR-AhR_ecfp1024.npz")
    Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
    Xva, yva = torch.tensor(d["X_valid"]), d["y_valid"]
    print(f"train {tuple(Xtr.shape)} pos {ytr.mean():.3f} | valid {tuple(Xva.shape)} pos {yva.mean():.3f}")

    model = make_model(Xtr.shape[1])
    print(model)
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    lossf = nn.BCEWithLogitsLoss()
    for epoch in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(Xtr))
        tot, norms = 0.0, None
        for i in range(0, len(Xtr), BATCH):
            idx = perm[i:i + BATCH]
            opt.zero_grad()
            loss = lossf(model(Xtr[idx]).squeeze(1), ytr[idx])
            loss.backward()
            norms = layer_grad_norms(model) if norms is None else [a + b for a, b in zip(norms, layer_grad_norms(model))]
            opt.step()
            tot += loss.item() * len(idx)
        nb = (len(Xtr) + BATCH - 1) // BATCH
        model.eval()
        with torch.no_grad():
            pva = torch.sigmoid(model(Xva).squeeze(1)).numpy()
        print(f"epoch {epoch:3d} | loss {tot / len(Xtr):.4f} | val_auc {roc_auc_score(yva, pva):.4f} | "
              f"{time.time() - t0:.1f}s")
        print("    mean |grad| per Linear (input -> output): " + " ".join(f"{n / nb:.1e}" for n in norms))
    torch.save(model.state_dict(), "ahr_deep_mlp.pt")


if __name__ == "__main__":
    main()
'''


def run(outdir):
    seed_all(6)
    rng = np.random.default_rng(606)
    N = 3500
    # AhR actives: planar polyaromatics / halogenated aromatics
    sc_w = np.array([1.6 if ("c2" in s or "-c" in s) else (0.6 if "c1" in s else -1.0) for s in SCAFFOLDS])
    sub_w = np.array([0.9 if s in ("Cl", "Br", "F", "C(F)(F)F", "[N+](=O)[O-]") else
                      (0.7 if s == "c1ccccc1" else rng.normal(-0.2, 0.3)) for s in SUBST])
    smiles, logits, seen = [], [], set()
    while len(smiles) < N:
        s, sid, subs = make_molecule(rng)
        if s in seen:
            continue
        seen.add(s)
        smiles.append(s)
        logits.append(sc_w[sid] + sum(sub_w[k] for k in subs) - 3.4 + rng.normal(0, 0.7))
    p = 1 / (1 + np.exp(-np.array(logits)))
    y = (rng.random(N) < p).astype(np.float32)
    X = np.stack([hashed_fp(s, 1024) for s in smiles]).astype(np.float32)
    work = os.path.join(outdir, ".work", "run06")
    os.makedirs(os.path.join(work, "data"), exist_ok=True)
    np.savez(os.path.join(work, "data", "tox21_NR-AhR_ecfp1024.npz"), X_train=X[:3000], y_train=y[:3000],
             X_valid=X[3000:], y_valid=y[3000:])
    out, rc, el = run_user_script(TRAIN_PY, work, [], "/home/lwei/tox21", "tox")
    shutil.rmtree(work, ignore_errors=True)
    d = f"{outdir}/runs/run06"
    write(f"{d}/train.py", TRAIN_PY)
    write(f"{d}/output.txt", "$ python train.py\n" + out)
    ep = [l for l in out.splitlines() if l.startswith("epoch")]
    gn = [l for l in out.splitlines() if "mean |grad|" in l]
    loss_last = float(ep[-1].split("loss ")[1].split()[0])
    auc_last = float(ep[-1].split("val_auc ")[1].split()[0])
    return {
        "truth": "vanishing_gradients",
        "symptom": (f"My Tox21 AhR model's loss drops in the first epoch and then sits at ~{loss_last:.2f} for the whole "
                    f"run, with validation AUC around {auc_last:.2f}. Do I just need to train for more epochs?"),
        "how": ("train.py stacks 10 Linear+Sigmoid layers (default init) trained with plain SGD; the logged per-layer "
                f"gradient norms fall from ~{gn[-1].split(': ')[1].split()[-1]} at the head to "
                f"~{gn[-1].split(': ')[1].split()[0]} at the first layer, so only the output bias learns: loss stays "
                "at the base-rate entropy and val AUC near 0.5."),
        "_stats": {"time": el, "rc": rc, "ep": ep[:2] + ep[-1:], "gn": gn[-1]},
    }
