"""Heatmap training for the 3-marker tracking set.

python train.py            -> writes train.log and metrics.csv in the current folder
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

SEED = 2024
NUM_KPTS = 3
INPUT_SIZE = 32
HM_SIZE = 16
EPOCHS = 8
BATCH_SIZE = 32
LR = 1e-3


class MarkerSet(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        self.imgs, self.kpts = make_blob_images(n, NUM_KPTS, size=INPUT_SIZE, noise=0.35, distractors=4,
                                                amp_jitter=0.4, seed=seed)
        self.targets = gaussian_heatmaps(self.kpts, HM_SIZE, INPUT_SIZE // HM_SIZE, sigma=1.0)

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        return torch.from_numpy(self.imgs[i]), torch.from_numpy(self.targets[i]), torch.from_numpy(self.kpts[i])


class PoseNet(nn.Module):
    def __init__(self, num_kpts, width=16):
        super().__init__()
        def block(cin, cout, stride=1, dilation=1):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=dilation, dilation=dilation, bias=False),
                                 nn.BatchNorm2d(cout), nn.ReLU(inplace=True))
        self.features = nn.Sequential(block(1, width), block(width, width, stride=2),
                                      block(width, 2 * width), block(2 * width, 2 * width, dilation=2))
        self.final_layer = nn.Conv2d(2 * width, num_kpts, 1)
        nn.init.normal_(self.final_layer.weight, std=0.001)
        nn.init.constant_(self.final_layer.bias, 0)

    def forward(self, x):
        return self.final_layer(self.features(x))


def grad_norm(model):
    return torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])).item()


def train_one_epoch(model, loader, criterion, optimizer, epoch, log):
    model.train()
    n = len(loader)
    for i, (img, target, _) in enumerate(loader):
        output = model(img)
        loss = 0.5 * criterion(output, target)

        loss.backward()
        gnorm = grad_norm(model)
        optimizer.step()

        acc = pose_pck_accuracy(output.detach(), target)
        if i % 5 == 0 or i == n - 1:
            log("Epoch: [%d][%d/%d]\tLoss %.5f\tAccuracy %.3f\tgrad_norm %.4f\tlr %.1e"
                % (epoch, i, n, loss.item(), acc, gnorm, optimizer.param_groups[0]["lr"]))
        yield loss.item(), acc, gnorm


@torch.no_grad()
def validate(model, loader, criterion):
    model.eval()
    outs, kpts, losses = [], [], []
    for img, target, kp in loader:
        out = model(img)
        losses.append(0.5 * criterion(out, target).item())
        outs.append(out); kpts.append(kp)
    out = torch.cat(outs); kpts = torch.cat(kpts).numpy()
    coords, maxvals = decode_argmax(out)
    pred = coords.numpy() * (INPUT_SIZE // HM_SIZE)
    res = coco_style_ap(pred, kpts, maxvals.mean(-1).numpy(), area=900.0, sigmas=[0.035, 0.035, 0.026])
    res["PCK@0.05"] = pck_px(pred, kpts, 0.05 * INPUT_SIZE)
    res["loss"] = float(np.mean(losses))
    return res


def main():
    torch.manual_seed(SEED)
    np.random.seed(SEED)
    train_set = MarkerSet(800, seed=31)
    val_set = MarkerSet(200, seed=32)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True,
                                               generator=torch.Generator().manual_seed(SEED))
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=64, shuffle=False)

    model = PoseNet(NUM_KPTS)
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    optimizer.zero_grad()

    logf = open("train.log", "w")

    def log(msg):
        print(msg)
        logf.write(msg + "\n")
        logf.flush()

    log("=> %d train / %d val samples, %d keypoints, input %dx%d, heatmap %dx%d"
        % (len(train_set), len(val_set), NUM_KPTS, INPUT_SIZE, INPUT_SIZE, HM_SIZE, HM_SIZE))
    log("=> optimizer Adam lr %.1e, batch %d, %d epochs" % (LR, BATCH_SIZE, EPOCHS))
    with open("metrics.csv", "w") as f:
        f.write("epoch,train_loss,train_acc,mean_grad_norm,max_grad_norm,val_loss,val_AP,val_AP50,val_AR,val_PCK@0.05\n")
    best = -1
    for epoch in range(EPOCHS):
        stats = list(train_one_epoch(model, train_loader, criterion, optimizer, epoch, log))
        tl, ta, gn = (np.array(x) for x in zip(*stats))
        r = validate(model, val_loader, criterion)
        log("Test epoch %d: Loss %.5f  AP %.3f  AP50 %.3f  AR %.3f  PCK@0.05 %.3f"
            % (epoch, r["loss"], r["AP"], r["AP .5"], r["AR"], r["PCK@0.05"]))
        with open("metrics.csv", "a") as f:
            f.write("%d,%.6f,%.4f,%.5f,%.5f,%.6f,%.4f,%.4f,%.4f,%.4f\n" % (epoch, tl.mean(), ta.mean(), gn.mean(), gn.max(),
                    r["loss"], r["AP"], r["AP .5"], r["AR"], r["PCK@0.05"]))
        if r["AP"] > best:
            best = r["AP"]
            torch.save(model.state_dict(), "model_best.pth")
            log("=> saving best model (AP %.3f)" % best)
    log("=> done. best AP %.3f" % best)


if __name__ == "__main__":
    main()
