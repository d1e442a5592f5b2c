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

def make_persons(n_ids, per_id, seed, H=32, W=16):
    """Tiny synthetic 'pedestrian crops': an identity is a pair of clothing colours,
    a stripe pattern and a bag position; each view adds camera colour cast, shift,
    scale of brightness, partial occlusion and sensor noise. Returns uint8 HxWx3 images."""
    rng = np.random.default_rng(seed)
    upper = rng.uniform(0.1, 0.9, size=(n_ids, 3))
    lower = rng.uniform(0.1, 0.9, size=(n_ids, 3))
    stripes = rng.integers(0, 4, size=n_ids)
    bag = rng.integers(0, 3, size=n_ids)
    imgs = np.zeros((n_ids * per_id, H, W, 3), np.float32)
    labels = np.repeat(np.arange(n_ids), per_id)
    cams = rng.integers(0, 4, size=n_ids * per_id)
    cast = rng.uniform(0.75, 1.25, size=(4, 3))
    yy, xx = np.mgrid[0:H, 0:W]
    for n, pid in enumerate(labels):
        img = np.full((H, W, 3), 0.5, np.float32) + 0.15 * rng.normal(size=(1, 1, 3))
        dx, dy = rng.integers(-2, 3), rng.integers(-2, 3)
        body = (np.abs(xx - W / 2 - dx) < 5) & (yy > 2 + dy) & (yy < H - 2 + dy)
        top = body & (yy < H // 2 + dy)
        bot = body & ~top
        col_u = upper[pid].copy()
        if stripes[pid]:
            band = ((yy // (2 + stripes[pid])) % 2 == 0) & top
            img[band] = col_u * 0.5
            img[top & ~band] = col_u
        else:
            img[top] = col_u
        img[bot] = lower[pid]
        if bag[pid]:
            side = W / 2 - dx + (5 if bag[pid] == 1 else -6)
            bm = (np.abs(xx - side) < 2) & (np.abs(yy - H / 2 - dy) < 4)
            img[bm] = 0.15
        if rng.random() < 0.3:
            oy = rng.integers(0, H - 8)
            img[oy:oy + 8] = rng.uniform(0, 1, size=3)
        img = img * cast[cams[n]] * rng.uniform(0.7, 1.3)
        img = img + 0.12 * rng.normal(size=img.shape)
        imgs[n] = img
    imgs = (np.clip(imgs, 0, 1) * 255).astype(np.uint8)
    return imgs, labels.astype(np.int64), cams.astype(np.int64)


def eval_market1501(distmat, q_pids, g_pids, q_camids, g_camids, max_rank=20):
    """Market-1501 protocol: gallery images of the same identity taken by the
    same camera as the query are discarded."""
    num_q, num_g = distmat.shape
    max_rank = min(max_rank, num_g)
    indices = np.argsort(distmat, axis=1)
    matches = (g_pids[indices] == q_pids[:, np.newaxis]).astype(np.int32)
    all_cmc, all_AP = [], []
    for q_idx in range(num_q):
        order = indices[q_idx]
        remove = (g_pids[order] == q_pids[q_idx]) & (g_camids[order] == q_camids[q_idx])
        raw_cmc = matches[q_idx][~remove]
        if not np.any(raw_cmc):
            continue
        cmc = raw_cmc.cumsum()
        cmc[cmc > 1] = 1
        all_cmc.append(cmc[:max_rank])
        num_rel = raw_cmc.sum()
        tmp_cmc = raw_cmc.cumsum() / (np.arange(len(raw_cmc)) + 1.0)
        all_AP.append((tmp_cmc * raw_cmc).sum() / num_rel)
    all_cmc = np.asarray(all_cmc).astype(np.float32).mean(0)
    return all_cmc, float(np.mean(all_AP))


class ConvBackbone(nn.Module):
    def __init__(self, chans=(32, 64, 128)):
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


class ReIDNet(nn.Module):
    """backbone -> fc -> BNNeck -> classifier (training) / BN feature (test)"""

    def __init__(self, num_classes, emb=128):
        super().__init__()
        self.backbone = ConvBackbone()
        self.fc = nn.Linear(self.backbone.out_dim, emb)
        self.bnneck = nn.BatchNorm1d(emb)
        self.classifier = nn.Linear(emb, num_classes, bias=False)

    def forward(self, x):
        f = self.fc(self.backbone(x))
        return f, self.bnneck(f)


def cross_entropy_label_smooth(logits, target, eps=0.1):
    logp = F.log_softmax(logits, 1)
    q = (1 - eps) * F.one_hot(target, logits.shape[1]) + eps / logits.shape[1]
    return -(q * logp).sum(1).mean()


def batch_hard_triplet(feat, target, margin=0.3):
    d = torch.cdist(feat, feat)
    same = target[:, None] == target[None, :]
    d_ap = (d * same).max(1).values
    d_an = (d + same * 1e6).min(1).values
    return F.relu(d_ap - d_an + margin).mean()


def pk_batches(pids, P, K, n_batches, rng):
    by_id = {p: np.nonzero(pids == p)[0] for p in np.unique(pids)}
    ids = list(by_id)
    for _ in range(n_batches):
        chosen = rng.choice(ids, P, replace=False)
        yield np.concatenate([rng.choice(by_id[p], K, replace=len(by_id[p]) < K) for p in chosen])



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
