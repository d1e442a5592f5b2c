import json
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = json.load(open("config.json"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

#<<clusters>>

#<<retrieval>>


def contrastive_loss(emb, labels, pos_margin, neg_margin):
    d = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    pos_d = d[same & ~eye]
    neg_d = d[~same]
    pos_l = F.relu(pos_d - pos_margin)
    neg_l = F.relu(neg_margin - neg_d)
    pos_active = pos_l > 0
    neg_active = neg_l > 0
    # average over non-zero terms (AvgNonZeroReducer)
    lp = pos_l[pos_active].mean() if pos_active.any() else pos_l.sum() * 0
    ln = neg_l[neg_active].mean() if neg_active.any() else neg_l.sum() * 0
    stats = dict(pos_pairs=len(pos_d), neg_pairs=len(neg_d),
                 active_pos_pairs=int(pos_active.sum()), active_neg_pairs=int(neg_active.sum()))
    return lp + ln, stats


def m_per_class_batches(labels, m, batch_size):
    classes = np.unique(labels)
    by_class = {c: np.nonzero(labels == c)[0] for c in classes}
    n_batches = len(labels) // batch_size
    for _ in range(n_batches):
        chosen = rng.choice(classes, batch_size // m, replace=False)
        yield np.concatenate([rng.choice(by_class[c], m, replace=False) for c in chosen])


d = cfg["data"]
x_tr, y_tr = make_identities(d["train_classes"], d["samples_per_class"], seed=31)
x_te, y_te = make_identities(d["test_classes"], d["test_samples_per_class"], seed=32)
X_tr, Y_tr = torch.from_numpy(x_tr), torch.from_numpy(y_tr)
X_te, Y_te = torch.from_numpy(x_te), torch.from_numpy(y_te)

h = cfg["model"]["hidden"]
model = nn.Sequential(
    nn.Linear(x_tr.shape[1], h[0]), nn.BatchNorm1d(h[0]), nn.ReLU(),
    nn.Linear(h[0], h[1]), nn.BatchNorm1d(h[1]), nn.ReLU(),
    nn.Linear(h[1], cfg["model"]["embedding_size"]),
)
opt = torch.optim.Adam(model.parameters(), lr=cfg["optimizer"]["lr"], weight_decay=cfg["optimizer"]["weight_decay"])
lc = cfg["loss"]

log = open("metrics.jsonl", "w")
print(f"[{cfg['experiment']}] {len(y_tr)} train / {len(y_te)} test samples, "
      f"ContrastiveLoss(pos_margin={lc['pos_margin']}, neg_margin={lc['neg_margin']})")
best = None
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    t0 = time.time()
    agg = dict(loss=[], pos_pairs=[], neg_pairs=[], active_pos_pairs=[], active_neg_pairs=[], emb_norm=[])
    for idx in m_per_class_batches(y_tr, cfg["sampler"]["m"], cfg["batch_size"]):
        raw = model(X_tr[idx])
        emb = F.normalize(raw, dim=1)
        loss, st = contrastive_loss(emb, Y_tr[idx], lc["pos_margin"], lc["neg_margin"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        agg["loss"].append(loss.item())
        agg["emb_norm"].append(raw.norm(dim=1).mean().item())
        for k, v in st.items():
            agg[k].append(v)
    model.eval()
    with torch.no_grad():
        raw_te = model(X_te)
        emb_te = F.normalize(raw_te, dim=1)
    r = recall_at_k(raw_te, Y_te, ks=tuple(cfg["eval"]["k"]))
    score = nmi(kmeans(emb_te, d["test_classes"]).numpy(), y_te)
    rec = {"epoch": epoch, "loss": float(np.mean(agg["loss"])),
           "pos_pairs_per_batch": float(np.mean(agg["pos_pairs"])),
           "neg_pairs_per_batch": float(np.mean(agg["neg_pairs"])),
           "active_pos_pairs_per_batch": float(np.mean(agg["active_pos_pairs"])),
           "active_neg_pairs_per_batch": float(np.mean(agg["active_neg_pairs"])),
           "embedding_norm_before_l2": float(np.mean(agg["emb_norm"])),
           "test_embedding_std": float(emb_te.std(0).mean()),
           **{f"Recall@{k}": v for k, v in r.items()}, "NMI": score,
           "epoch_time_s": round(time.time() - t0, 2)}
    log.write(json.dumps(rec) + "\n")
    log.flush()
    print(f"epoch {epoch:2d} loss {rec['loss']:.5f} active_neg {rec['active_neg_pairs_per_batch']:.0f}/"
          f"{rec['neg_pairs_per_batch']:.0f} emb_std {rec['test_embedding_std']:.5f} "
          f"R@1 {r[1]:.4f} R@8 {r[8]:.4f} NMI {score:.4f}")
    if best is None or r[1] > best[1]:
        best = (epoch, r[1])

with open("test_results.md", "w") as f:
    f.write(f"# {cfg['experiment']} - retrieval on held-out classes (epoch {cfg['epochs']})\n\n")
    f.write("| metric | value |\n|---|---|\n")
    for k in cfg["eval"]["k"]:
        f.write(f"| Recall@{k} | {r[k] * 100:.2f} |\n")
    f.write(f"| NMI | {score * 100:.2f} |\n")
    f.write(f"| MAP@R | {map_at_r(raw_te, Y_te) * 100:.2f} |\n")
    f.write(f"\nbest Recall@1 during training: {best[1] * 100:.2f} (epoch {best[0]})\n")
