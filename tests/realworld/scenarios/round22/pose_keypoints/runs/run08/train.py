"""Heatmap net for 3 markers, 8 conv layers, sigmoid heatmaps (values in [0,1] like the targets).

python train.py   -> train.log, grad_norms.csv, metrics.csv
"""
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

SEED = 8
K = 3
EPOCHS = 25
DEPTH = 6


def make_model(c=12, depth=DEPTH):
    layers = [nn.Conv2d(1, c, 3, padding=1), nn.Sigmoid(),
              nn.Conv2d(c, c, 3, stride=2, padding=1), nn.Sigmoid()]
    for _ in range(depth - 1):
        layers += [nn.Conv2d(c, c, 3, padding=1), nn.Sigmoid()]
    layers += [nn.Conv2d(c, K, 1), nn.Sigmoid()]
    return nn.Sequential(*layers)


def main():
    torch.manual_seed(SEED)
    x, kp = make_blob_images(640, K, size=32, noise=0.35, distractors=4, amp_jitter=0.4, seed=81)
    xv, kpv = make_blob_images(160, K, size=32, noise=0.35, distractors=4, amp_jitter=0.4, seed=82)
    y = torch.from_numpy(gaussian_heatmaps(kp, 16, 2, 1.0))
    yv = torch.from_numpy(gaussian_heatmaps(kpv, 16, 2, 1.0))
    x = torch.from_numpy(x); xv = torch.from_numpy(xv)
    model = make_model()
    convs = [(n, m) for n, m in model.named_modules() if isinstance(m, nn.Conv2d)]
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    log = open("train.log", "w")
    gcsv = open("grad_norms.csv", "w")
    gcsv.write("step," + ",".join("conv%d(%s)" % (i, n) for i, (n, _) in enumerate(convs)) + "\n")
    mcsv = open("metrics.csv", "w")
    mcsv.write("epoch,train_loss,train_acc_pose,val_loss,val_AP,val_AP50,val_PCK@0.05\n")
    g = torch.Generator().manual_seed(SEED)
    step = 0
    for ep in range(1, EPOCHS + 1):
        model.train()
        perm = torch.randperm(len(x), generator=g)
        losses, accs = [], []
        for i in range(0, len(x), 32):
            idx = perm[i:i + 32]
            out = model(x[idx])
            loss = F.mse_loss(out, y[idx])
            opt.zero_grad()
            loss.backward()
            step += 1
            if step % 10 == 0:
                gcsv.write("%d," % step + ",".join("%.3e" % m.weight.grad.norm().item() for _, m in convs) + "\n")
            opt.step()
            losses.append(loss.item()); accs.append(pose_pck_accuracy(out.detach(), y[idx]))
        model.eval()
        with torch.no_grad():
            ov = model(xv)
        vloss = F.mse_loss(ov, yv).item()
        c, mv = decode_argmax(ov)
        pred = (c * 2).numpy()
        r = coco_style_ap(pred, kpv, mv.mean(-1).numpy(), 900.0, [0.035, 0.035, 0.026])
        pck = pck_px(pred, kpv, 1.6)
        msg = "Epoch %d/%d  loss %.6f  acc_pose %.3f | val loss %.6f  AP %.3f  AP50 %.3f  PCK@0.05 %.3f" % (
            ep, EPOCHS, np.mean(losses), np.mean(accs), vloss, r["AP"], r["AP .5"], pck)
        print(msg)
        log.write(msg + "\n"); log.flush()
        mcsv.write("%d,%.6f,%.4f,%.6f,%.4f,%.4f,%.4f\n" % (ep, np.mean(losses), np.mean(accs), vloss, r["AP"], r["AP .5"], pck))
        mcsv.flush(); gcsv.flush()


if __name__ == "__main__":
    main()
