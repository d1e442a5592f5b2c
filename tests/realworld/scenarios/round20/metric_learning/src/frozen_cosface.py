import csv
import logging
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])
logging.basicConfig(filename="log.txt", filemode="w", level=logging.INFO,
                    format="%(asctime)s %(levelname)s %(message)s", datefmt="%H:%M:%S")
log = logging.getLogger(__name__)

#<<clusters>>

#<<retrieval>>


class CosFaceLoss(nn.Module):
    def __init__(self, num_classes, embedding_size, margin, scale):
        super().__init__()
        self.W = nn.Parameter(torch.empty(embedding_size, num_classes))
        nn.init.xavier_normal_(self.W)
        self.m, self.s = margin, scale

    def forward(self, emb, labels):
        cos = F.normalize(emb, dim=1) @ F.normalize(self.W, dim=0)
        onehot = F.one_hot(labels, cos.shape[1]).float()
        return F.cross_entropy(self.s * (cos - self.m * onehot), labels)


def make_trunk(d_in, hidden):
    return nn.Sequential(nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                         nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU())


def set_requires_grad(module, flag):
    for p in module.parameters():
        p.requires_grad = flag


def grad_norm(params):
    g = [p.grad.norm() for p in params if p.grad is not None]
    return torch.stack(g).norm().item() if g else 0.0


ds = cfg["dataset"]
x_tr, y_tr = make_identities(ds["train_classes"], ds["samples_per_class"], seed=61)
x_te, y_te = make_identities(ds["test_classes"], ds["test_samples_per_class"], seed=62)
X_tr, Y_tr = torch.from_numpy(x_tr), torch.from_numpy(y_tr)
X_te, Y_te = torch.from_numpy(x_te), torch.from_numpy(y_te)

trunk = make_trunk(x_tr.shape[1], cfg["trunk"]["hidden"])
embedder = nn.Linear(cfg["trunk"]["hidden"], cfg["embedder"]["embedding_size"])
model = nn.Sequential(trunk, embedder)
if cfg["trunk"]["freeze_bn"]:
    set_requires_grad(model, False)
loss_fn = CosFaceLoss(ds["train_classes"], cfg["embedder"]["embedding_size"], cfg["loss"]["margin"], cfg["loss"]["scale"])


def make_opt(params, c):
    return torch.optim.SGD(params, lr=c["lr"], momentum=c.get("momentum", 0), weight_decay=c.get("weight_decay", 0))


oc = cfg["optimizers"]
trunk_opt = make_opt(trunk.parameters(), oc["trunk"])
embedder_opt = make_opt(embedder.parameters(), oc["embedder"])
loss_opt = make_opt(loss_fn.parameters(), oc["loss"])

n_total = sum(p.numel() for p in list(model.parameters()) + list(loss_fn.parameters()))
n_train = sum(p.numel() for p in list(model.parameters()) + list(loss_fn.parameters()) if p.requires_grad)
log.info("run %s: %d train samples (%d classes), %d test samples (%d classes)", cfg["run_name"], len(Y_tr),
         ds["train_classes"], len(Y_te), ds["test_classes"])
log.info("CosFaceLoss(margin=%s, scale=%s), embedding_size=%d, MPerClassSampler(m=%d), batch_size=%d",
         cfg["loss"]["margin"], cfg["loss"]["scale"], cfg["embedder"]["embedding_size"], cfg["sampler"]["m"],
         cfg["batch_size"])
log.info("parameters: %d total, %d trainable", n_total, n_train)


def batches():
    classes = np.unique(y_tr)
    by_class = {c: np.nonzero(y_tr == c)[0] for c in classes}
    per = cfg["batch_size"] // cfg["sampler"]["m"]
    for _ in range(len(y_tr) // cfg["batch_size"]):
        cs = rng.choice(classes, per, replace=False)
        yield np.concatenate([rng.choice(by_class[c], cfg["sampler"]["m"], replace=False) for c in cs])


def test():
    model.eval()
    with torch.no_grad():
        emb = model(X_te)
    r = recall_at_k(emb, Y_te, ks=(1, 2, 4, 8))
    return r, map_at_r(emb, Y_te), nmi(kmeans(F.normalize(emb), ds["test_classes"]).numpy(), y_te)


out = open("accuracies.csv", "w", newline="")
w = csv.writer(out)
w.writerow(["epoch", "mean_loss", "trunk_grad_norm", "embedder_grad_norm", "loss_W_grad_norm",
            "Recall@1", "Recall@2", "Recall@4", "Recall@8", "MAP@R", "NMI"])
r, mapr, score = test()
w.writerow([0, "", "", "", "", *[f"{r[k]:.4f}" for k in (1, 2, 4, 8)], f"{mapr:.4f}", f"{score:.4f}"])
log.info("epoch 0 | Recall@1 %.4f Recall@8 %.4f MAP@R %.4f NMI %.4f", r[1], r[8], mapr, score)
it = 0
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    t0 = time.time()
    losses, gt, ge, gw = [], [], [], []
    for idx in batches():
        emb = model(X_tr[idx])
        loss = loss_fn(emb, Y_tr[idx])
        trunk_opt.zero_grad(); embedder_opt.zero_grad(); loss_opt.zero_grad()
        loss.backward()
        gt.append(grad_norm(trunk.parameters()))
        ge.append(grad_norm(embedder.parameters()))
        gw.append(grad_norm(loss_fn.parameters()))
        trunk_opt.step(); embedder_opt.step(); loss_opt.step()
        losses.append(loss.item())
        it += 1
        if it % cfg["log_every"] == 0:
            log.info("iter %d | loss %.4f | grad_norm trunk %.4f embedder %.4f cosface_W %.4f | emb_norm %.3f",
                     it, loss.item(), gt[-1], ge[-1], gw[-1], emb.norm(dim=1).mean().item())
    r, mapr, score = test()
    log.info("epoch %d (%.1fs) | mean loss %.4f | Recall@1 %.4f Recall@8 %.4f MAP@R %.4f NMI %.4f",
             epoch, time.time() - t0, np.mean(losses), r[1], r[8], mapr, score)
    w.writerow([epoch, f"{np.mean(losses):.4f}", f"{np.mean(gt):.4f}", f"{np.mean(ge):.4f}", f"{np.mean(gw):.4f}",
                *[f"{r[k]:.4f}" for k in (1, 2, 4, 8)], f"{mapr:.4f}", f"{score:.4f}"])
    out.flush()
