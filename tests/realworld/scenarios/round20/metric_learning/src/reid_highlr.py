import datetime
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yml"))
S = cfg["SOLVER"]
torch.manual_seed(cfg["SEED"])
rng = np.random.default_rng(cfg["SEED"])
out_dir = cfg["OUTPUT_DIR"]
os.makedirs(out_dir, exist_ok=True)
logf = open(os.path.join(out_dir, "log.txt"), "w")


def log(msg, name="fastreid.engine.defaults"):
    line = f"[{datetime.datetime.now():%m/%d %H:%M:%S} {name}]: {msg}"
    logf.write(line + "\n")
    logf.flush()


#<<persons>>

#<<reid_eval>>

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


def to_input(imgs, flip=False):
    x = torch.from_numpy(imgs).permute(0, 3, 1, 2).float() / 255.0
    if flip:
        m = torch.rand(len(x)) < 0.5
        x[m] = x[m].flip(3)
    return (x - MEAN) / STD


class Backbone(nn.Module):
    def __init__(self, chans):
        super().__init__()
        layers, c_in = [], 3
        for c in chans:
            layers += [nn.Conv2d(c_in, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                       nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                       nn.MaxPool2d(2)]
            c_in = c
        self.body = nn.Sequential(*layers)
        self.out_dim = c_in

    def forward(self, x):
        return self.body(x).mean((2, 3))


class Baseline(nn.Module):
    def __init__(self, num_classes, chans, emb):
        super().__init__()
        self.backbone = Backbone(chans)
        self.reduce = nn.Linear(self.backbone.out_dim, emb)
        self.bnneck = nn.BatchNorm1d(emb)
        self.bnneck.bias.requires_grad_(False)
        self.classifier = nn.Linear(emb, num_classes, bias=False)

    def forward(self, x):
        global_feat = self.reduce(self.backbone(x))
        bn_feat = self.bnneck(global_feat)
        if not self.training:
            return bn_feat
        return global_feat, self.classifier(bn_feat)


def cross_entropy_ls(logits, target, eps):
    logp = F.log_softmax(logits, 1)
    return -(((1 - eps) * F.one_hot(target, logits.shape[1]) + eps / logits.shape[1]) * logp).sum(1).mean()


def triplet_hard(feat, target, margin):
    d = torch.cdist(feat, feat)
    same = target[:, None] == target[None, :]
    d_ap = (d * same).max(1).values
    d_an = (d + same * 1e6).min(1).values
    return F.relu(d_ap - d_an + margin).mean()


D = cfg["DATASETS"]
n_ids = D["TRAIN_IDS"] + D["TEST_IDS"]
imgs, pids, cams = make_persons(n_ids, D["IMGS_PER_ID"], seed=91)
train_m = pids < D["TRAIN_IDS"]
tr_imgs, tr_pids = imgs[train_m], pids[train_m]
te_idx = np.nonzero(~train_m)[0]
q_sel = np.zeros(len(te_idx), bool)
for p in np.unique(pids[te_idx]):
    q_sel[np.nonzero(pids[te_idx] == p)[0][:2]] = True
q_idx, g_idx = te_idx[q_sel], te_idx[~q_sel]
log("Loaded SynthPed: train ids %d imgs %d | query ids %d imgs %d | gallery ids %d imgs %d" % (
    len(np.unique(tr_pids)), len(tr_pids), len(np.unique(pids[q_idx])), len(q_idx),
    len(np.unique(pids[g_idx])), len(g_idx)), "fastreid.data.build")

L = cfg["MODEL"]
model = Baseline(D["TRAIN_IDS"], L["BACKBONE"]["CHANNELS"], L["HEADS"]["EMBEDDING_DIM"])
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=S["BASE_LR"], momentum=S["MOMENTUM"],
                      weight_decay=S["WEIGHT_DECAY"])
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=S["STEPS"], gamma=S["GAMMA"])
tb = SummaryWriter(out_dir)
log("Full config saved to %s" % os.path.join(out_dir, "config.yaml"))
yaml.safe_dump(cfg, open(os.path.join(out_dir, "config.yaml"), "w"))


def identity_batches():
    K = cfg["DATALOADER"]["NUM_INSTANCE"]
    P = S["IMS_PER_BATCH"] // K
    by_id = {p: np.nonzero(tr_pids == p)[0] for p in np.unique(tr_pids)}
    for _ in range(len(tr_pids) // S["IMS_PER_BATCH"]):
        ids = rng.choice(list(by_id), P, replace=False)
        yield np.concatenate([rng.choice(by_id[p], K, replace=False) for p in ids])


def extract(idx):
    model.eval()
    with torch.no_grad():
        return torch.cat([model(to_input(imgs[idx[i:i + 128]])) for i in range(0, len(idx), 128)])


def test(epoch, it):
    qf, gf = F.normalize(extract(q_idx)), F.normalize(extract(g_idx))
    dist = (1 - qf @ gf.t()).numpy()
    cmc, mAP = eval_market1501(dist, pids[q_idx], pids[g_idx], cams[q_idx], cams[g_idx])
    log("Evaluation results in csv format: \n| Dataset   | Rank-1   | Rank-5   | Rank-10   | mAP   |\n"
        "|:----------|:---------|:---------|:----------|:------|\n"
        f"| SynthPed  | {cmc[0] * 100:.2f}    | {cmc[4] * 100:.2f}    | {cmc[9] * 100:.2f}     | {mAP * 100:.2f} |",
        "fastreid.evaluation.testing")
    tb.add_scalar("Rank-1", cmc[0] * 100, it)
    tb.add_scalar("Rank-5", cmc[4] * 100, it)
    tb.add_scalar("mAP", mAP * 100, it)


it = 0
t_start = time.time()
for epoch in range(S["MAX_EPOCH"]):
    model.train()
    for idx in identity_batches():
        t0 = time.time()
        x = to_input(imgs_b := tr_imgs[idx], flip=True)
        y = torch.from_numpy(tr_pids[idx])
        feat, logits = model(x)
        loss_cls = cross_entropy_ls(logits, y, L["LOSSES"]["CE"]["EPSILON"])
        loss_tri = triplet_hard(feat, y, L["LOSSES"]["TRI"]["MARGIN"])
        loss = loss_cls + loss_tri
        opt.zero_grad()
        loss.backward()
        total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
        opt.step()
        acc = (logits.argmax(1) == y).float().mean().item()
        it += 1
        for k, v in (("loss_cls", loss_cls.item()), ("loss_triplet", loss_tri.item()), ("total_loss", loss.item()),
                     ("cls_accuracy", acc), ("grad_norm", total_norm), ("lr", opt.param_groups[0]["lr"])):
            tb.add_scalar(k, v, it)
        if it % 5 == 0:
            log(f"eta: --  epoch/iter: {epoch}/{it - 1}  total_loss: {loss.item():.3f}  loss_cls: {loss_cls.item():.3f}  "
                f"loss_triplet: {loss_tri.item():.3f}  cls_accuracy: {acc:.3f}  time: {time.time() - t0:.4f}  "
                f"lr: {opt.param_groups[0]['lr']:.2e}", "fastreid.utils.events")
    sched.step()
    if (epoch + 1) % cfg["TEST"]["EVAL_PERIOD"] == 0:
        test(epoch, it)
log("Overall training speed: %d iterations in %s" % (it, datetime.timedelta(seconds=int(time.time() - t_start))),
    "fastreid.engine.hooks")
tb.close()
