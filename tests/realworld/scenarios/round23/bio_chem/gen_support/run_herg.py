"""run12: hERG blocker classifier (DeepChem MultitaskClassifier-style) on a table merged from ChEMBL and a vendor
panel whose binary calls disagree with ChEMBL for a large share of compounds: train accuracy caps far below 100 %."""
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import seed_all, write, make_molecule, hashed_fp, auroc, SCAFFOLDS, SUBST

NOISE_B = 0.40
HIDDEN = 128
EPOCHS = 40
NMOL = 8000
SLOPE = 20.0
DROP = 0.5
WD = 3e-4


def run(outdir):
    seed_all(12)
    rng = np.random.default_rng(1212)
    N = NMOL
    basic_sub = {"N(C)C", "CCN(C)C", "CN", "NC"}
    basic_sc = {"C1CCNCC1", "C1CNCCN1", "C1COCCN1"}
    smiles, logit, seen = [], [], set()
    while len(smiles) < N:
        s, sid, subs = make_molecule(rng)
        if s in seen:
            continue
        seen.add(s)
        smiles.append(s)
        # hERG pharmacophore: basic amine + aromatic/lipophilic part, acids are rarely blockers
        basic = SCAFFOLDS[sid] in basic_sc or any(SUBST[k] in basic_sub for k in subs)
        arom = "c" in s
        halo = any(SUBST[k] in ("Cl", "Br", "F", "C(F)(F)F") for k in subs)
        acid = any(SUBST[k] == "C(=O)O" for k in subs)
        logit.append(3.0 * basic + 1.5 * arom + 0.8 * halo - 4.0 * acid - 2.4)
    logit = np.array(logit)
    y_true = (rng.random(N) < 1 / (1 + np.exp(-SLOPE * logit))).astype(np.float32)
    source_b = rng.random(N) < 0.55
    flip = source_b & (rng.random(N) < NOISE_B)
    y = np.where(flip, 1 - y_true, y_true).astype(np.float32)
    X = np.stack([hashed_fp(s, 1024) for s in smiles]).astype(np.float32)
    perm = np.random.default_rng(0).permutation(N)  # dc.splits.RandomSplitter 0.8/0.1/0.1
    tr, va, te = perm[:int(0.8 * N)], perm[int(0.8 * N):int(0.9 * N)], perm[int(0.9 * N):]

    torch.manual_seed(123)
    # dc.models.MultitaskClassifier(n_tasks=1, n_features=1024, layer_sizes=[128], dropouts=0.5,
    #                               weight_decay_penalty=3e-4, weight_decay_penalty_type='l2')
    model = nn.Sequential(nn.Linear(1024, HIDDEN), nn.ReLU(), nn.Dropout(DROP), nn.Linear(HIDDEN, 2))
    nn.init.trunc_normal_(model[0].weight, std=0.02)
    nn.init.trunc_normal_(model[3].weight, std=0.02)
    nn.init.constant_(model[0].bias, 1.0)
    nn.init.zeros_(model[3].bias)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    Xt, yt = torch.tensor(X), torch.tensor(y).long()

    def evaluate(idx):
        model.eval()
        with torch.no_grad():
            p = F.softmax(model(Xt[idx]), -1)[:, 1].numpy()
        return {"accuracy_score": float(np.mean((p > 0.5) == (y[idx] == 1))), "roc_auc_score": auroc(y[idx], p)}

    t0 = time.perf_counter()
    lines = []
    hist = []
    for ep in range(1, EPOCHS + 1):
        model.train()
        order = rng.permutation(tr)
        tot, nb = 0.0, 0
        for i in range(0, len(order), 100):
            bi = torch.tensor(order[i:i + 100])
            opt.zero_grad()
            loss = F.cross_entropy(model(Xt[bi]), yt[bi])
            loss = loss + WD * (model[0].weight.pow(2).sum() + model[3].weight.pow(2).sum())
            loss.backward()
            opt.step()
            tot += loss.item()
            nb += 1
        if ep % 5 == 0:
            trs, vas = evaluate(tr), evaluate(va)
            lines.append(f"epoch {ep:2d}  loss {tot / nb:.4f}  train {trs}  valid {vas}")
            hist.append((ep, tot / nb, trs, vas))
    tes = evaluate(te)
    el = time.perf_counter() - t0
    n_b = int(source_b.sum())
    pos_a = y[~source_b].mean()
    pos_b = y[source_b].mean()
    log = "\n".join(lines)
    post = f"""**DeepChem MultitaskClassifier stuck at ~{hist[1][2]['accuracy_score'] * 100:.0f}% train accuracy on hERG data -- switch to GraphConv?**

Tags: deepchem, cheminformatics, machine learning, herg

I'm building a hERG blocker classifier. Data: {N} compounds, ChEMBL hERG records (IC50 < 10 uM = blocker) merged
with {n_b} compounds from a vendor safety panel (their blocker/non-blocker calls). Blocker rate is {pos_a * 100:.0f}% in the
ChEMBL part and {pos_b * 100:.0f}% in the vendor part. ECFP4 1024 bits, RandomSplitter 80/10/10.

```python
model = dc.models.MultitaskClassifier(n_tasks=1, n_features=1024, layer_sizes=[{HIDDEN}],
                                      dropouts={DROP}, weight_decay_penalty={WD},
                                      weight_decay_penalty_type="l2", learning_rate=0.001, batch_size=100)
metrics = [dc.metrics.Metric(dc.metrics.accuracy_score), dc.metrics.Metric(dc.metrics.roc_auc_score)]
for epoch in range(1, {EPOCHS + 1}):
    loss = model.fit(train, nb_epoch=1)
    if epoch % 5 == 0:
        print(f"epoch {{epoch:2d}}  loss {{loss:.4f}}  train {{model.evaluate(train, metrics)}}  valid {{model.evaluate(valid, metrics)}}")
```
```
{log}
```
Test: {tes}

Even the *training* accuracy stays low for a long time, so I think the fingerprint MLP just can't represent the
problem. Would a GraphConvModel / AttentiveFP do better, or should I make the dense layer much wider?
"""
    d = f"{outdir}/runs/run12"
    write(f"{d}/post.md", post)
    return {
        "truth": "label_noise",
        "symptom": (f"Even the training accuracy of my DeepChem hERG classifier stays around "
                    f"{hist[1][2]['accuracy_score'] * 100:.0f}% for many epochs; is the fingerprint MLP too weak, should I "
                    "switch to a graph model?"),
        "how": (f"The merged table's vendor-panel part ({n_b} of {N} compounds) has {NOISE_B * 100:.0f}% of its calls flipped "
                f"against the underlying activity ({flip.mean() * 100:.0f}% of all labels wrong): train accuracy/loss sit at "
                f"~{hist[1][2]['accuracy_score']:.2f}/{hist[1][1]:.2f} for the first ~15 epochs and only creep up later as the "
                f"net memorises, while valid accuracy stays capped at ~{max(h[3]['accuracy_score'] for h in hist):.2f}; the "
                "blocker rate differs between the two sources."),
        "_stats": {"time": el, "hist": [(h[0], round(h[1], 3), round(h[2]['accuracy_score'], 3),
                                          round(h[3]['accuracy_score'], 3), round(h[3]['roc_auc_score'], 3))
                                         for h in hist], "flip": float(flip.mean())},
    }
