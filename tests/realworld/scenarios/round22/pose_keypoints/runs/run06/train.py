"""keypoint heatmaps, 4 markers. logs json lines to train_log.jsonl (openpifpaf-ish), final eval -> final_eval.txt"""
import sys
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

SEED = 99
K = 4
EPOCHS = 20


class Markers(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        self.x, self.kp = make_blob_images(n, K, size=32, noise=0.35, distractors=4, amp_jitter=0.4, seed=seed)
        self.y = gaussian_heatmaps(self.kp, 16, 2, sigma=1.0)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i], self.kp[i]


def conv_bn(cin, cout, s=1, d=1):
    return [nn.Conv2d(cin, cout, 3, stride=s, padding=d, dilation=d), nn.BatchNorm2d(cout), nn.ReLU()]


class Net(nn.Module):
    def __init__(self, c=16, p=0.5):
        super().__init__()
        self.base = nn.Sequential(*conv_bn(1, c), *conv_bn(c, c, s=2), *conv_bn(c, 2 * c), nn.Dropout2d(p),
                                  *conv_bn(2 * c, 2 * c, d=2), nn.Dropout2d(p))
        self.cif = nn.Conv2d(2 * c, K, 1)
        nn.init.normal_(self.cif.weight, std=0.001)
        nn.init.zeros_(self.cif.bias)

    def forward(self, x):
        return self.cif(self.base(x))


def log_json(f, **kw):
    f.write(json.dumps(kw) + "\n")
    f.flush()


def validate(model, loader, return_preds=False):
    preds, gts, scores, losses = [], [], [], []
    with torch.no_grad():
        for x, y, kp in loader:
            out = model(x)
            losses.append(F.mse_loss(out, y).item())
            c, mv = decode_argmax(out)
            preds.append(c * 2); scores.append(mv.mean(-1)); gts.append(kp)
    pred = torch.cat(preds).numpy(); gt = torch.cat(gts).numpy(); sc = torch.cat(scores).numpy()
    r = coco_style_ap(pred, gt, sc, 900.0, [0.035, 0.035, 0.026, 0.05])
    res = {"loss": float(np.mean(losses)), "AP": r["AP"], "AP50": r["AP .5"], "AR": r["AR"],
           "PCK@0.05": pck_px(pred, gt, 1.6)}
    if return_preds:
        return res, pred, gt
    return res


def main():
    torch.manual_seed(SEED)
    train = Markers(900, 61)
    val = Markers(200, 62)
    tl = torch.utils.data.DataLoader(train, batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(SEED))
    vl = torch.utils.data.DataLoader(val, batch_size=8, shuffle=False)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[15], gamma=0.1)
    f = open("train_log.jsonl", "w")
    log_json(f, type="process", version="0.1", argv=sys.argv, n_train=len(train), n_val=len(val), epochs=EPOCHS)
    best = -1
    for epoch in range(EPOCHS):
        model.train()
        el = []
        for b, (x, y, _) in enumerate(tl):
            out = model(x)
            loss = F.mse_loss(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            el.append(loss.item())
            if b % 10 == 0:
                log_json(f, type="train", epoch=epoch, batch=b, n_batches=len(tl), lr=opt.param_groups[0]["lr"],
                         loss=round(loss.item(), 6), acc_pose=round(pose_pck_accuracy(out.detach(), y), 4))
        sched.step()
        r = validate(model, vl)
        log_json(f, type="train-epoch", epoch=epoch + 1, loss=round(float(np.mean(el)), 6))
        log_json(f, type="val-epoch", epoch=epoch + 1, **{k: round(v, 5) for k, v in r.items()})
        print("epoch %d train %.5f val %.5f AP %.3f PCK %.3f" % (epoch + 1, np.mean(el), r["loss"], r["AP"], r["PCK@0.05"]))
        if r["AP"] > best:
            best = r["AP"]
            torch.save(model.state_dict(), "best.pkl")
    f.close()

    # evaluate the best checkpoint again (3 times, to have a number for the report)
    model.load_state_dict(torch.load("best.pkl"))
    with open("final_eval.txt", "w") as g:
        g.write("checkpoint: best.pkl (best val AP during training %.4f)\n" % best)
        for rep in range(3):
            r, pred, gt = validate(model, vl, return_preds=True)
            g.write("eval run %d: " % (rep + 1) + "  ".join("%s %.4f" % kv for kv in r.items()) + "\n")
            g.write("    val image 0 keypoints (x, y): " + "  ".join("(%.0f, %.0f)" % tuple(p) for p in pred[0]) + "\n")
        g.write("ground truth val image 0:        " + "  ".join("(%.1f, %.1f)" % tuple(p) for p in gt[0]) + "\n")


if __name__ == "__main__":
    main()
