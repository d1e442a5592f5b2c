import logging
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yml"))
torch.manual_seed(0)
rng = np.random.default_rng(0)
os.makedirs(cfg["OUTPUT_DIR"], exist_ok=True)
logger = logging.getLogger("reid_baseline.train")
logger.setLevel(logging.INFO)
fh = logging.FileHandler(os.path.join(cfg["OUTPUT_DIR"], "log.txt"), mode="w")
fh.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
logger.addHandler(fh)

#<<persons>>

#<<reid_eval>>

#<<reid_model>>

MEAN = torch.tensor(cfg["INPUT"]["PIXEL_MEAN"]).view(1, 3, 1, 1)
STD = torch.tensor(cfg["INPUT"]["PIXEL_STD"]).view(1, 3, 1, 1)


def to_tensor(batch_imgs, train=False):
    x = torch.from_numpy(batch_imgs).permute(0, 3, 1, 2).float() / 255.0
    if train:
        flip = torch.rand(len(x)) < cfg["INPUT"]["PROB"]
        x[flip] = x[flip].flip(3)
    return (x - MEAN) / STD


D = cfg["DATASETS"]
imgs, pids, cams = make_persons(D["NUM_IDS"], D["IMGS_PER_ID"], seed=95)
train_idx = np.nonzero(pids < D["NUM_TRAIN_IDS"])[0]
test_idx = np.nonzero(pids >= D["NUM_TRAIN_IDS"])[0]
q_idx = np.concatenate([test_idx[pids[test_idx] == p][:D["QUERY_PER_ID"]] for p in np.unique(pids[test_idx])])
g_idx = np.setdiff1d(test_idx, q_idx)
if D["COMBINEALL"]:
    # use every labelled image for training
    train_idx = np.concatenate([train_idx, q_idx, g_idx])
train_pids_raw = pids[train_idx]
pid2label = {p: l for l, p in enumerate(np.unique(train_pids_raw))}
train_labels = np.array([pid2label[p] for p in train_pids_raw])

logger.info("Running with config:\n%s", yaml.safe_dump(cfg, sort_keys=False))
logger.info("=> synthped loaded")
logger.info("Dataset statistics:")
logger.info("  ----------------------------------------")
logger.info("  subset   | # ids | # images | # cameras")
logger.info("  ----------------------------------------")
for name, idx in (("train", train_idx), ("query", q_idx), ("gallery", g_idx)):
    logger.info("  %-8s | %5d | %8d | %9d", name, len(np.unique(pids[idx])), len(idx), len(np.unique(cams[idx])))
logger.info("  ----------------------------------------")

model = ReIDNet(num_classes=len(pid2label), emb=cfg["MODEL"]["EMBEDDING_DIM"])
S = cfg["SOLVER"]
optimizer = torch.optim.Adam(model.parameters(), lr=S["BASE_LR"], weight_decay=S["WEIGHT_DECAY"])
logger.info("Start training")


def features(idx):
    model.eval()
    with torch.no_grad():
        f = torch.cat([model(to_tensor(imgs[idx[i:i + 128]]))[1] for i in range(0, len(idx), 128)])
    return F.normalize(f, dim=1) if cfg["TEST"]["FEAT_NORM"] == "yes" else f


K = cfg["DATALOADER"]["NUM_INSTANCE"]
P = S["IMS_PER_BATCH"] // K
n_iter = len(train_idx) // S["IMS_PER_BATCH"]
for epoch in range(1, S["MAX_EPOCHS"] + 1):
    model.train()
    t0 = time.time()
    losses, accs = [], []
    for it, b in enumerate(pk_batches(train_labels, P, K, n_iter, rng), 1):
        x = to_tensor(imgs[train_idx[b]], train=True)
        y = torch.from_numpy(train_labels[b])
        feat, bn_feat = model(x)
        score = model.classifier(bn_feat)
        loss = cross_entropy_label_smooth(score, y) + batch_hard_triplet(feat, y, S["MARGIN"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        accs.append((score.argmax(1) == y).float().mean().item())
        if it % S["LOG_PERIOD"] == 0:
            logger.info("Epoch[%d] Iteration[%d/%d] Loss: %.3f, Acc: %.3f, Base Lr: %.2e", epoch, it, n_iter,
                        np.mean(losses), np.mean(accs), S["BASE_LR"])
    dt = time.time() - t0
    logger.info("Epoch %d done. Time per batch: %.3f[s] Speed: %.1f[samples/s]", epoch, dt / n_iter,
                n_iter * S["IMS_PER_BATCH"] / dt)
    logger.info("----------")
    if epoch % S["EVAL_PERIOD"] == 0:
        qf, gf = features(q_idx), features(g_idx)
        distmat = torch.cdist(qf, gf).pow(2).numpy()
        cmc, mAP = eval_market1501(distmat, pids[q_idx], pids[g_idx], cams[q_idx], cams[g_idx])
        logger.info("Validation Results - Epoch: %d", epoch)
        logger.info("mAP: %.1f%%", mAP * 100)
        for r in (1, 5, 10):
            logger.info("CMC curve, Rank-%-3d:%.1f%%", r, cmc[r - 1] * 100)
