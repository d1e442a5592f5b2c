import logging
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
np.random.seed(cfg["seed"])

os.makedirs("logs", exist_ok=True)
os.makedirs("record_keeper", exist_ok=True)
logging.basicConfig(
    level=logging.INFO,
    format="%(levelname)s:%(name)s:%(message)s",
    handlers=[logging.FileHandler("logs/train.log", mode="w")],
)
log = logging.getLogger("root")

#<<clusters>>

#<<retrieval>>


class MPerClassSampler(torch.utils.data.Sampler):
    def __init__(self, labels, m, batch_size, length, seed=0):
        self.labels = np.asarray(labels)
        self.m = m
        self.batch_size = batch_size
        self.length = length
        self.classes = np.unique(self.labels)
        self.by_class = {c: np.nonzero(self.labels == c)[0] for c in self.classes}
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return self.length

    def __iter__(self):
        out = []
        per_batch = self.batch_size // self.m
        while len(out) < self.length:
            for c in self.rng.permutation(self.classes)[:per_batch]:
                out.extend(self.rng.choice(self.by_class[c], self.m, replace=len(self.by_class[c]) < self.m))
        return iter(out[: self.length])


class Trunk(nn.Module):
    def __init__(self, d_in, d_hidden):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU(),
            nn.Linear(d_hidden, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU(),
        )

    def forward(self, x):
        return self.net(x)


def semihard_triplets(emb, labels, margin):
    d = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    a, p = torch.nonzero(same & ~eye, as_tuple=True)
    d_ap = d[a, p]
    d_an = d[a]
    neg = ~same[a]
    semi = neg & (d_an > d_ap[:, None]) & (d_an < d_ap[:, None] + margin)
    ai, ni = torch.nonzero(semi, as_tuple=True)
    return a[ai], p[ai], ni


def triplet_margin_loss(emb, a, p, n, margin):
    if len(a) == 0:
        return emb.sum() * 0, 0.0
    d_ap = (emb[a] - emb[p]).norm(dim=1)
    d_an = (emb[a] - emb[n]).norm(dim=1)
    losses = F.relu(d_ap - d_an + margin)
    active = losses > 0
    frac = active.float().mean().item()
    return (losses[active].mean() if active.any() else losses.sum()), frac


x_tr, y_tr = make_identities(cfg["data"]["train_classes"], cfg["data"]["per_class"], seed=cfg["data"]["seed"])
x_te, y_te = make_identities(cfg["data"]["test_classes"], cfg["data"]["per_class_test"], seed=cfg["data"]["seed"] + 1)
train_ds = torch.utils.data.TensorDataset(torch.from_numpy(x_tr), torch.from_numpy(y_tr))
sampler = MPerClassSampler(y_tr, cfg["sampler"]["m"], cfg["batch_size"], length=len(y_tr), seed=cfg["seed"])
loader = torch.utils.data.DataLoader(train_ds, batch_size=cfg["batch_size"], sampler=sampler, drop_last=True)
X_te, Y_te = torch.from_numpy(x_te), torch.from_numpy(y_te)

trunk = Trunk(x_tr.shape[1], cfg["trunk_dim"])
embedder = nn.Linear(cfg["trunk_dim"], cfg["embedding_size"])
trunk_opt = torch.optim.Adam(trunk.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
embedder_opt = torch.optim.Adam(embedder.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
schedulers = [torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=cfg["epochs"]) for o in (trunk_opt, embedder_opt)]

log.info("Dataset: train %d samples / %d classes, test %d samples / %d classes",
         len(y_tr), len(np.unique(y_tr)), len(y_te), len(np.unique(y_te)))
log.info("Loss: TripletMarginLoss(margin=%s)  Miner: TripletMarginMiner(margin=%s, type_of_triplets=%s)",
         cfg["loss"]["margin"], cfg["miner"]["margin"], cfg["miner"]["type_of_triplets"])


def test(epoch):
    trunk.eval(); embedder.eval()
    with torch.no_grad():
        emb = embedder(trunk(X_te))
    r = recall_at_k(emb, Y_te, ks=(1, 2, 4, 8))
    mapr = map_at_r(emb, Y_te)
    clusters = kmeans(F.normalize(emb, dim=1), len(torch.unique(Y_te)), seed=0)
    score = nmi(clusters.numpy(), Y_te.numpy())
    log.info("VALIDATION epoch %d: precision_at_1=%.4f recall_at_2=%.4f recall_at_4=%.4f recall_at_8=%.4f "
             "mean_average_precision_at_r=%.4f NMI=%.4f", epoch, r[1], r[2], r[4], r[8], mapr, score)
    return dict(epoch=epoch, precision_at_1=r[1], recall_at_2=r[2], recall_at_4=r[4], recall_at_8=r[8],
                mean_average_precision_at_r=mapr, NMI=score)


rows = [test(0)]
it = 0
for epoch in range(1, cfg["epochs"] + 1):
    log.info("TRAINING EPOCH %d", epoch)
    trunk.train(); embedder.train()
    t0 = time.time()
    for xb, yb in loader:
        raw = embedder(trunk(xb))
        emb = F.normalize(raw, dim=1)
        a, p, n = semihard_triplets(emb.detach(), yb, cfg["miner"]["margin"])
        loss, frac_active = triplet_margin_loss(emb, a, p, n, cfg["loss"]["margin"])
        trunk_opt.zero_grad(); embedder_opt.zero_grad()
        loss.backward()
        trunk_opt.step(); embedder_opt.step()
        it += 1
        if it % 10 == 0:
            log.info("Iteration %d: loss=%.5f num_triplets=%d frac_active_triplets=%.3f embedding_norm_mean=%.3f",
                     it, loss.item(), len(a), frac_active, raw.norm(dim=1).mean().item())
    for s in schedulers:
        s.step()
    log.info("epoch %d took %.1fs, lr now %.2e", epoch, time.time() - t0, trunk_opt.param_groups[0]["lr"])
    rows.append(test(epoch))

import csv
with open("record_keeper/accuracies_test.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    for r in rows:
        w.writerow({k: (round(v, 6) if isinstance(v, float) else v) for k, v in r.items()})
log.info("done")
