import datetime
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(10)
rng = np.random.default_rng(10)

MAX_EPOCH = 12
EVAL_FREQ = 3
P, K = 16, 4
LR = 3.5e-4
TEST_BATCH = 16
NORM_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
NORM_STD = np.array([0.229, 0.224, 0.225], np.float32)

#<<persons>>

#<<reid_eval>>

#<<reid_model>>


class ImageSet(torch.utils.data.Dataset):
    def __init__(self, imgs, pids, camids, train=False):
        self.imgs, self.pids, self.camids, self.train = imgs, pids, camids, train

    def __len__(self):
        return len(self.pids)

    def __getitem__(self, i):
        x = (self.imgs[i].astype(np.float32) / 255.0 - NORM_MEAN) / NORM_STD
        x = torch.from_numpy(x).permute(2, 0, 1)
        if self.train and torch.rand(1).item() < 0.5:
            x = x.flip(2)
        return x, int(self.pids[i]), int(self.camids[i])


imgs, pids, cams = make_persons(200, 10, seed=93)
train_m = pids < 150
q_m = np.zeros(len(pids), bool)
for p in range(150, 200):
    q_m[np.nonzero(pids == p)[0][:2]] = True
g_m = ~train_m & ~q_m
train_set = ImageSet(imgs[train_m], pids[train_m], cams[train_m], train=True)
query_loader = torch.utils.data.DataLoader(ImageSet(imgs[q_m], pids[q_m], cams[q_m]), batch_size=TEST_BATCH)
gallery_loader = torch.utils.data.DataLoader(ImageSet(imgs[g_m], pids[g_m], cams[g_m]), batch_size=TEST_BATCH)

print("=> Loaded SynthPed")
print("  ----------------------------------------")
print("  subset   | # ids | # images | # cameras")
print("  ----------------------------------------")
for name, m in (("train", train_m), ("query", q_m), ("gallery", g_m)):
    print(f"  {name:8s} | {len(np.unique(pids[m])):5d} | {m.sum():8d} | {len(np.unique(cams[m])):9d}")
print("  ----------------------------------------")

model = ReIDNet(num_classes=150)
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=5e-4)
print(f"Model complexity: params={sum(p.numel() for p in model.parameters()):,}")


def extract_features(loader):
    feats, ps, cs = [], [], []
    with torch.no_grad():
        for x, p, c in loader:
            _, f = model(x)
            feats.append(f)
            ps.append(p)
            cs.append(c)
    return torch.cat(feats), torch.cat(ps).numpy(), torch.cat(cs).numpy()


def test():
    print("##### Evaluating SynthPed (source) #####")
    print("Extracting features from query set ...")
    t0 = time.time()
    qf, q_pids, q_camids = extract_features(query_loader)
    print(f"Done, obtained {qf.shape[0]}-by-{qf.shape[1]} matrix")
    print("Extracting features from gallery set ...")
    gf, g_pids, g_camids = extract_features(gallery_loader)
    print(f"Done, obtained {gf.shape[0]}-by-{gf.shape[1]} matrix")
    print(f"Speed: {(time.time() - t0) / (len(query_loader) + len(gallery_loader)):.4f} sec/batch")
    print("Computing distance matrix with metric=euclidean ...")
    distmat = torch.cdist(qf, gf).pow(2).numpy()
    print("Computing CMC and mAP ...")
    cmc, mAP = eval_market1501(distmat, q_pids, g_pids, q_camids, g_camids)
    print("** Results **")
    print(f"mAP: {mAP:.1%}")
    print("CMC curve")
    for r in (1, 5, 10, 20):
        print(f"Rank-{r:<3d}: {cmc[r - 1]:.1%}")
    return cmc[0]


n_batches = len(train_set) // (P * K)
start = time.time()
for epoch in range(MAX_EPOCH):
    model.train()
    avg = {"loss_t": [], "loss_x": [], "acc": []}
    for b, idx in enumerate(pk_batches(train_set.pids, P, K, n_batches, rng)):
        t0 = time.time()
        batch = [train_set[i] for i in idx]
        x = torch.stack([s[0] for s in batch])
        y = torch.tensor([s[1] for s in batch])
        feat, bn_feat = model(x)
        logits = model.classifier(bn_feat)
        loss_t = batch_hard_triplet(feat, y)
        loss_x = cross_entropy_label_smooth(logits, y)
        loss = loss_t + loss_x
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        avg["loss_t"].append(loss_t.item())
        avg["loss_x"].append(loss_x.item())
        avg["acc"].append((logits.argmax(1) == y).float().mean().item() * 100)
        if (b + 1) % 5 == 0:
            eta = datetime.timedelta(seconds=int((time.time() - start) / (epoch * n_batches + b + 1)
                                                 * ((MAX_EPOCH - epoch) * n_batches - b - 1)))
            print(f"epoch: [{epoch + 1}/{MAX_EPOCH}][{b + 1}/{n_batches}]\ttime {time.time() - t0:.3f}\t"
                  f"eta {eta}\tloss_t {avg['loss_t'][-1]:.4f} ({np.mean(avg['loss_t']):.4f})\t"
                  f"loss_x {avg['loss_x'][-1]:.4f} ({np.mean(avg['loss_x']):.4f})\t"
                  f"acc {avg['acc'][-1]:.2f} ({np.mean(avg['acc']):.2f})\tlr {LR:.6f}")
    if (epoch + 1) % EVAL_FREQ == 0:
        test()
print(f"Elapsed {datetime.timedelta(seconds=int(time.time() - start))}")
