# 3-point face landmark regressor (eyes + nose), direct coordinate regression
# usage: python train.py
import csv
import math, json, os, random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

SHAPES = ("disk", "ring", "cross", "square", "spot")


def _stamp(shape, dx, dy):
    d = np.sqrt(dx * dx + dy * dy)
    if shape == "disk":
        return (d <= 2.2).astype(np.float32)
    if shape == "ring":
        return ((d >= 2.0) & (d <= 3.3)).astype(np.float32) * 0.9
    if shape == "cross":
        return (((np.abs(dx) <= 0.8) & (np.abs(dy) <= 3.5)) |
                ((np.abs(dy) <= 0.8) & (np.abs(dx) <= 3.5))).astype(np.float32) * 0.9
    if shape == "square":
        return ((np.abs(dx) <= 2.0) & (np.abs(dy) <= 2.0)).astype(np.float32) * 0.7
    return np.exp(-d * d / (2 * 2.5 ** 2)).astype(np.float32) * 1.2


def make_blob_images(n, num_kpts, size=32, noise=0.35, distractors=4, amp_jitter=0.4,
                     min_dist=7, margin=4, seed=0):
    """Synthetic keypoint images: one marker per keypoint (marker shape = keypoint id),
    gaussian noise, a random illumination ramp and a few distractor dots."""
    rng = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    imgs = np.zeros((n, 1, size, size), np.float32)
    kpts = np.zeros((n, num_kpts, 2), np.float32)
    for i in range(n):
        pts = []
        while len(pts) < num_kpts:
            p = rng.uniform(margin, size - 1 - margin, size=2)
            if all(np.hypot(*(p - q)) >= min_dist for q in pts):
                pts.append(p)
        im = rng.randn(size, size).astype(np.float32) * noise
        gx, gy = rng.uniform(-0.3, 0.3, 2)
        im += gx * (xx / size - 0.5) + gy * (yy / size - 0.5)
        if distractors:
            for _ in range(rng.randint(0, distractors + 1)):
                cx, cy = rng.uniform(2, size - 3, 2)
                im += (np.hypot(xx - cx, yy - cy) <= 1.3).astype(np.float32) * rng.uniform(0.5, 1.0)
        for k, (x, y) in enumerate(pts):
            im += (1.0 + rng.uniform(-amp_jitter, amp_jitter)) * _stamp(SHAPES[k], xx - x, yy - y)
        imgs[i, 0] = im
        kpts[i] = np.array(pts, np.float32)
    return imgs, kpts


def gaussian_heatmaps(kpts, heatmap_size, stride, sigma=1.0):
    yy, xx = np.mgrid[0:heatmap_size, 0:heatmap_size].astype(np.float32)
    c = kpts / stride
    hm = np.exp(-((xx[None, None] - c[:, :, 0, None, None]) ** 2 +
                  (yy[None, None] - c[:, :, 1, None, None]) ** 2) / (2 * sigma ** 2))
    return hm.astype(np.float32)


def decode_argmax(heatmaps):
    n, k, h, w = heatmaps.shape
    flat = heatmaps.reshape(n, k, -1)
    maxval, idx = flat.max(-1)
    coords = torch.stack([idx % w, idx // w], -1).float()
    return coords, maxval


def pose_pck_accuracy(output, target, thr=0.05):
    """mmpose-style acc_pose on heatmaps: argmax distance < thr * heatmap size."""
    pred, _ = decode_argmax(output)
    gt, _ = decode_argmax(target)
    h = output.shape[-1]
    return ((pred - gt).norm(dim=-1) / h < thr).float().mean().item()


def coco_style_ap(pred, gt, scores, area, sigmas):
    """COCO keypoint AP/AR for single-instance images (one gt and one detection per image)."""
    pred = np.asarray(pred, np.float64); gt = np.asarray(gt, np.float64)
    vars_ = (np.asarray(sigmas) * 2) ** 2
    d2 = ((pred - gt) ** 2).sum(-1)
    oks = np.exp(-d2 / vars_[None] / (area + np.spacing(1)) / 2).mean(-1)
    order = np.argsort(-np.asarray(scores), kind="mergesort")
    oks = oks[order]
    n = len(oks)
    res = {}
    aps, ars = [], []
    for t in np.linspace(0.5, 0.95, 10):
        tp = (oks >= t).astype(np.float64)
        ctp = np.cumsum(tp)
        rec = ctp / n
        prec = ctp / np.arange(1, n + 1)
        for i in range(n - 2, -1, -1):
            prec[i] = max(prec[i], prec[i + 1])
        rs = np.linspace(0, 1, 101)
        inds = np.searchsorted(rec, rs, side="left")
        q = np.array([prec[j] if j < n else 0.0 for j in inds])
        ap = q.mean()
        ar = rec[-1] if n else 0.0
        aps.append(ap); ars.append(ar)
        if abs(t - 0.5) < 1e-6:
            res["AP .5"], res["AR .5"] = float(ap), float(ar)
        if abs(t - 0.75) < 1e-6:
            res["AP .75"], res["AR .75"] = float(ap), float(ar)
    res["AP"] = float(np.mean(aps)); res["AR"] = float(np.mean(ars))
    return res


def pck_px(pred, gt, thr_px):
    return float((np.linalg.norm(np.asarray(pred) - np.asarray(gt), axis=-1) < thr_px).mean())


def pck_normalized(pred, gt, i0, i1, thr=0.2):
    pred = np.asarray(pred); gt = np.asarray(gt)
    norm = np.linalg.norm(gt[:, i0] - gt[:, i1], axis=-1)[:, None]
    return float((np.linalg.norm(pred - gt, axis=-1) / norm < thr).mean())


def nme(pred, gt, i0, i1):
    pred = np.asarray(pred); gt = np.asarray(gt)
    norm = np.linalg.norm(gt[:, i0] - gt[:, i1], axis=-1)
    per_img = np.linalg.norm(pred - gt, axis=-1).mean(-1) / norm
    return float(per_img.mean()), per_img

SEED = 17
IMG = 32
NPTS = 3
EPOCHS = 12


def normalize_pts(pts, size):
    # pixel -> [-1, 1] with the image centre at 0
    return (pts - size / 2.0) / (size / 2.0)


def denormalize_pts(pts, size):
    return pts * (size / 2.0) + size / 2.0


class FaceLandmarks(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        self.imgs, self.pts = make_blob_images(n, NPTS, size=IMG, noise=0.15, distractors=0, amp_jitter=0.2, seed=seed)

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        target = normalize_pts(self.pts[i], IMG).reshape(-1)
        return torch.from_numpy(self.imgs[i]), torch.from_numpy(target.astype(np.float32))

    def to_pixels(self, pred):
        return denormalize_pts(pred.reshape(len(pred), NPTS, 2), IMG)


class FaceLandmarksVal(torch.utils.data.Dataset):
    """held-out faces from the second annotation batch"""

    def __init__(self, n, seed):
        self.imgs, self.pts = make_blob_images(n, NPTS, size=IMG, noise=0.15, distractors=0, amp_jitter=0.2, seed=seed)

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        target = (self.pts[i] / IMG).reshape(-1)
        return torch.from_numpy(self.imgs[i]), torch.from_numpy(target.astype(np.float32))

    def to_pixels(self, pred):
        return pred.reshape(len(pred), NPTS, 2) * IMG


class CoordRegressor(nn.Module):
    def __init__(self, npts, c=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(2 * c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(2 * c * (IMG // 8) ** 2, 128), nn.ReLU(), nn.Linear(128, 2 * npts))
        g = torch.linspace(-1, 1, IMG)
        gy, gx = torch.meshgrid(g, g, indexing="ij")
        self.register_buffer("coords", torch.stack([gx, gy])[None])

    def forward(self, x):
        x = torch.cat([x, self.coords.expand(len(x), -1, -1, -1)], 1)   # CoordConv
        return self.fc(self.body(x))


def evaluate(model, loader, ds):
    model.eval()
    preds, losses = [], []
    with torch.no_grad():
        for img, tgt in loader:
            p = model(img)
            losses.append(F.mse_loss(p, tgt).item() * len(img))
            preds.append(p)
    pred_px = ds.to_pixels(torch.cat(preds).numpy())
    err, _ = nme(pred_px, ds.pts, 0, 1)
    return sum(losses) / len(ds), 100 * err, pck_normalized(pred_px, ds.pts, 0, 1, 0.2)


def main():
    torch.manual_seed(SEED)
    train_ds = FaceLandmarks(2000, seed=51)
    val_ds = FaceLandmarksVal(300, seed=52)
    train_dl = torch.utils.data.DataLoader(train_ds, batch_size=32, shuffle=True,
                                           generator=torch.Generator().manual_seed(SEED))
    val_dl = torch.utils.data.DataLoader(val_ds, batch_size=100)
    model = CoordRegressor(NPTS)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=8, gamma=0.3)
    hist = open("history.csv", "w", newline="")
    w = csv.writer(hist)
    w.writerow(["epoch", "lr", "train_loss", "train_nme_pct", "val_loss", "val_nme_pct", "val_pck@0.2"])
    log = open("log.txt", "w")
    for ep in range(1, EPOCHS + 1):
        model.train()
        run, seen = 0.0, 0
        for it, (img, tgt) in enumerate(train_dl):
            pred = model(img)
            loss = F.mse_loss(pred, tgt)
            opt.zero_grad()
            loss.backward()
            opt.step()
            run += loss.item() * len(img); seen += len(img)
            if it % 20 == 0:
                msg = "ep %2d [%3d/%d] mse %.5f" % (ep, it, len(train_dl), loss.item())
                print(msg); log.write(msg + "\n")
        lr = opt.param_groups[0]["lr"]
        sched.step()
        _, tr_nme, _ = evaluate(model, torch.utils.data.DataLoader(torch.utils.data.Subset(train_ds, range(300)), batch_size=100),
                                 _SubsetView(train_ds, 300))
        vl, v_nme, v_pck = evaluate(model, val_dl, val_ds)
        msg = "epoch %d | lr %.1e | train mse %.5f  NME %.2f%% | val mse %.5f  NME %.2f%%  PCK@0.2 %.3f" % (
            ep, lr, run / seen, tr_nme, vl, v_nme, v_pck)
        print(msg); log.write(msg + "\n"); log.flush()
        w.writerow([ep, "%.1e" % lr, "%.6f" % (run / seen), "%.2f" % tr_nme, "%.6f" % vl, "%.2f" % v_nme, "%.4f" % v_pck])
        hist.flush()
    torch.save(model.state_dict(), "landmarks_last.pth")


class _SubsetView:
    """first n items of a dataset, with the dataset's pts/to_pixels"""

    def __init__(self, ds, n):
        self.ds, self.n, self.pts = ds, n, ds.pts[:n]

    def __len__(self):
        return self.n

    def to_pixels(self, pred):
        return self.ds.to_pixels(pred)


if __name__ == "__main__":
    main()
