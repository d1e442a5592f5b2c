# 5-point facial landmarks (eyes, nose, mouth corners), heatmap regression
# trains with flip augmentation; writes train_log.txt
import random
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

LANDMARKS = ["left_eye", "right_eye", "nose", "mouth_left", "mouth_right"]
N_LM = len(LANDMARKS)
SIZE, HM = 32, 16
SEED = 1234
EPOCHS = 20


class FaceDataset(torch.utils.data.Dataset):
    def __init__(self, n, seed, train=True):
        self.train = train
        self.images, self.landmarks = make_blob_images(n, N_LM, size=SIZE, noise=0.25, distractors=2,
                                                       amp_jitter=0.3, min_dist=6, seed=seed)
        self.heatmaps = gaussian_heatmaps(self.landmarks, HM, SIZE // HM, sigma=1.0)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = self.images[idx]
        hm = self.heatmaps[idx]
        if self.train and random.random() < 0.5:
            img = img[:, :, ::-1].copy()
        return torch.from_numpy(img), torch.from_numpy(hm), torch.from_numpy(self.landmarks[idx])


class FAN_tiny(nn.Module):
    """one small hourglass: 16x16 -> 8x8 -> 4x4 -> back up, with skips"""

    def __init__(self, c=16):
        super().__init__()
        def cbr(cin, cout, s=1):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=s, padding=1), nn.BatchNorm2d(cout), nn.ReLU(True))
        self.stem = nn.Sequential(cbr(1, c), cbr(c, 2 * c, 2))
        self.down1 = cbr(2 * c, 2 * c, 2)
        self.down2 = cbr(2 * c, 2 * c, 2)
        self.bottom = cbr(2 * c, 2 * c)
        self.up2 = cbr(2 * c, 2 * c)
        self.up1 = cbr(2 * c, 2 * c)
        self.out = nn.Conv2d(2 * c, N_LM, 1)
        nn.init.normal_(self.out.weight, std=0.001)
        nn.init.zeros_(self.out.bias)

    def forward(self, x):
        s16 = self.stem(x)
        s8 = self.down1(s16)
        s4 = self.bottom(self.down2(s8))
        u8 = self.up2(F.interpolate(s4, scale_factor=2) + s8)
        u16 = self.up1(F.interpolate(u8, scale_factor=2) + s16)
        return self.out(u16)


def evaluate(model, loader):
    model.eval()
    P, G = [], []
    with torch.no_grad():
        for img, _, lm in loader:
            c, _ = decode_argmax(model(img))
            P.append(c * (SIZE // HM)); G.append(lm)
    P = torch.cat(P).numpy(); G = torch.cat(G).numpy()
    mean_nme, per_img = nme(P, G, 0, 1)
    fr = float((per_img > 0.10).mean())
    auc = float(np.mean([(per_img <= t).mean() for t in np.linspace(0, 0.10, 101)]))
    return 100 * mean_nme, 100 * fr, auc, pck_normalized(P, G, 0, 1, 0.2)


def main():
    random.seed(SEED)
    torch.manual_seed(SEED)
    train_set = FaceDataset(800, seed=91, train=True)
    val_set = FaceDataset(250, seed=92, train=False)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=32, shuffle=True,
                                               generator=torch.Generator().manual_seed(SEED))
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=50)
    net = FAN_tiny()
    optimizer = torch.optim.RMSprop(net.parameters(), lr=2.5e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[14, 18], gamma=0.2)
    out = open("train_log.txt", "w")
    out.write("landmarks: %s | train %d | val %d\n" % (", ".join(LANDMARKS), len(train_set), len(val_set)))
    for epoch in range(EPOCHS):
        net.train()
        tot, acc_sum = 0.0, 0.0
        for i, (img, hm, _) in enumerate(train_loader):
            pred = net(img)
            loss = F.mse_loss(pred, hm)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            tot += loss.item()
            acc_sum += pose_pck_accuracy(pred.detach(), hm)
        scheduler.step()
        v_nme, v_fr, v_auc, v_pck = evaluate(net, val_loader)
        line = "[epoch %2d/%d] lr %.2e | train loss %.6f acc %.3f | val NME %.2f%%  FR@10%% %.1f%%  AUC@10%% %.3f  PCK@0.2 %.3f" % (
            epoch + 1, EPOCHS, optimizer.param_groups[0]["lr"], tot / len(train_loader), acc_sum / len(train_loader),
            v_nme, v_fr, v_auc, v_pck)
        print(line)
        out.write(line + "\n"); out.flush()
    torch.save(net.state_dict(), "fan_tiny_final.pth")


if __name__ == "__main__":
    main()
