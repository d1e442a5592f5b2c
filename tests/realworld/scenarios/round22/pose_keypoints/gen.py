"""Generate the pose/keypoint benchmark runs (round 22).

Every run is really trained on CPU (torch.set_num_threads(1)); seeds are fixed.
Runs that ship a train.py are produced by executing that script (sys.executable) inside the run folder;
the others are trained in-process by the functions below, which write the logs in the style of the tool.
Usage:  python gen.py            (writes ./runs/* and ./truth.json next to this file)
        python gen.py run03 run07 (only those runs)
"""
import os, sys, json, math, shutil, subprocess, textwrap, time as _time
from datetime import datetime, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")

# --------------------------------------------------------------------------------------------------
# Code shared by the generator and (as text) by the shipped train.py scripts
# --------------------------------------------------------------------------------------------------
COMMON = r'''
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
'''

exec(COMMON, globals())   # noqa: defines the helpers above in this module as well

# --------------------------------------------------------------------------------------------------
# small helpers for the in-process runs
# --------------------------------------------------------------------------------------------------


class FakeClock:
    """Deterministic wall clock for log timestamps (the real CPU timings are not what a GPU user sees)."""

    def __init__(self, start, seed):
        self.t = start
        self.rng = np.random.RandomState(seed)

    def tick(self, base, jitter=0.15):
        dt = base * (1 + self.rng.uniform(-jitter, jitter))
        self.t += timedelta(seconds=dt)
        return dt

    def fmt(self, style):
        if style == "mmengine":
            return self.t.strftime("%Y/%m/%d %H:%M:%S")
        return self.t.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (self.t.microsecond // 1000)


def eta_str(sec):
    sec = int(max(sec, 0))
    d, rem = divmod(sec, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    core = "%d:%02d:%02d" % (h, m, s)
    return ("%d day%s, " % (d, "s" if d > 1 else "") + core) if d else core


def grad_total_norm(model):
    g = [p.grad.detach().norm() for p in model.parameters() if p.grad is not None]
    return torch.norm(torch.stack(g)).item() if g else 0.0


class TinyHeatmapNet(nn.Module):
    """small stride-2 heatmap net (the 'TinyConv backbone + HeatmapHead' of the configs)."""

    def __init__(self, num_kpts, c=16, bn=True, head_std=0.001, act=nn.ReLU):
        super().__init__()
        B = (lambda ch: nn.BatchNorm2d(ch)) if bn else (lambda ch: nn.Identity())
        self.backbone = nn.Sequential(
            nn.Conv2d(1, c, 3, padding=1), B(c), act(),
            nn.Conv2d(c, c, 3, stride=2, padding=1), B(c), act(),
            nn.Conv2d(c, 2 * c, 3, padding=1), B(2 * c), act(),
            nn.Conv2d(2 * c, 2 * c, 3, padding=2, dilation=2), B(2 * c), act())
        self.head = nn.Conv2d(2 * c, num_kpts, 1)
        if head_std is not None:
            nn.init.normal_(self.head.weight, std=head_std)
            nn.init.zeros_(self.head.bias)

    def forward(self, x):
        return self.head(self.backbone(x))


def heatmap_eval(model, Xv, Pv, stride, sigmas, area, bs=64, i0=0, i1=1, pck_thr_px=1.6):
    was = model.training
    model.eval()
    outs = []
    with torch.no_grad():
        for i in range(0, len(Xv), bs):
            outs.append(model(Xv[i:i + bs]))
    model.train(was)
    o = torch.cat(outs)
    c, mv = decode_argmax(o)
    pred = (c * stride).numpy()
    sc = mv.mean(-1).numpy()
    r = coco_style_ap(pred, Pv, sc, area, sigmas)
    r["PCK"] = pck_px(pred, Pv, pck_thr_px)
    r["PCKh"] = pck_normalized(pred, Pv, i0, i1, 0.2)
    r["_out"] = o
    return r


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


SIGMAS5 = [0.035, 0.035, 0.026, 0.05, 0.05]
PYVER_ENV_MMENGINE = """------------------------------------------------------------
System environment:
    sys.platform: linux
    Python: 3.8.16 (default, Mar  2 2023, 03:21:46) [GCC 11.2.0]
    CUDA available: True
    numpy_random_seed: {seed}
    GPU 0: NVIDIA GeForce RTX 3090
    CUDA_HOME: /usr/local/cuda
    NVCC: Cuda compilation tools, release 11.7, V11.7.99
    GCC: gcc (Ubuntu 9.4.0-1ubuntu1~20.04.1) 9.4.0
    PyTorch: 1.13.1+cu117
    TorchVision: 0.14.1+cu117
    OpenCV: 4.7.0
    MMEngine: 0.7.3

Runtime environment:
    cudnn_benchmark: False
    mp_cfg: {{'mp_start_method': 'fork', 'opencv_num_threads': 0}}
    dist_cfg: {{'backend': 'nccl'}}
    seed: {seed}
    Distributed launcher: none
    Distributed training: False
    GPU number: 1
------------------------------------------------------------
"""


# --------------------------------------------------------------------------------------------------
# mmpose 1.x (mmengine) style run
# --------------------------------------------------------------------------------------------------

def mmengine_run(outdir, cfg_name, cfg_text, ts, start, seed, data, model, opt, epochs, bs, shuffle,
                 lr_at, log_interval, val_interval, kpt_names, sigmas, area, stride, log_grad_norm=False,
                 time_per_iter=0.071, order_fn=None):
    X, Y, Xv, Pv = data
    wd = os.path.join(outdir, ts)
    os.makedirs(os.path.join(wd, "vis_data"), exist_ok=True)
    clk = FakeClock(start, seed + 7)
    L = []

    def log(msg):
        L.append("%s - mmengine - INFO - %s" % (clk.fmt("mmengine"), msg))

    log("\n" + PYVER_ENV_MMENGINE.format(seed=seed))
    clk.tick(1.2)
    log("Config:\n" + cfg_text)
    clk.tick(2.5)
    log("Distributed training is not used, all SyncBatchNorm (SyncBN) layers in the model will be automatically reverted to BatchNormXd layers if they are used.")
    log("Hooks will be executed in the following order:\nbefore_run:\n(VERY_HIGH   ) RuntimeInfoHook\n(BELOW_NORMAL) LoggerHook\n --------------------\nafter_train_iter:\n(VERY_HIGH   ) RuntimeInfoHook\n(NORMAL      ) IterTimerHook\n(BELOW_NORMAL) LoggerHook\n(LOW         ) ParamSchedulerHook\n(VERY_LOW    ) CheckpointHook\n --------------------")
    clk.tick(3.0)
    log("Checkpoints will be saved to work_dirs/%s." % cfg_name)
    scal = []
    n = len(X)
    n_iter = math.ceil(n / bs)
    total = epochs * n_iter
    g = torch.Generator().manual_seed(seed)
    it = 0
    best = (-1, 0)
    win = {"loss": [], "acc": [], "gn": [], "t": [], "dt": []}
    for ep in range(1, epochs + 1):
        model.train()
        perm = torch.randperm(n, generator=g) if shuffle else torch.arange(n)
        for bi in range(n_iter):
            idx = perm[bi * bs:(bi + 1) * bs]
            lr = lr_at(it, ep)
            for pg in opt.param_groups:
                pg["lr"] = lr
            out = model(X[idx])
            loss = F.mse_loss(out, Y[idx])
            opt.zero_grad()
            loss.backward()
            gn = grad_total_norm(model)
            opt.step()
            it += 1
            dt = clk.tick(time_per_iter)
            win["loss"].append(loss.item()); win["acc"].append(pose_pck_accuracy(out.detach(), Y[idx]))
            win["gn"].append(gn); win["t"].append(dt); win["dt"].append(dt * 0.17)
            if (bi + 1) % log_interval == 0 or bi + 1 == n_iter:
                m = {k: float(np.mean(v)) for k, v in win.items()}
                eta = m["t"] * (total - it)
                w = len(str(n_iter))
                s = "Epoch(train) [%d][%*d/%d]  base_lr: %.6e lr: %.6e  eta: %s  time: %.4f  data_time: %.4f  memory: %d  " % (
                    ep, w, bi + 1, n_iter, lr, lr, eta_str(eta), m["t"], m["dt"], 288 + (it % 3) * 2)
                if log_grad_norm:
                    s += "grad_norm: %.4f  " % m["gn"]
                s += "loss: %.6f  loss_kpt: %.6f  acc_pose: %.6f" % (m["loss"], m["loss"], m["acc"])
                log(s)
                d = {"base_lr": lr, "lr": lr, "data_time": round(m["dt"], 5), }
                if log_grad_norm:
                    d["grad_norm"] = round(m["gn"], 6)
                d.update({"loss": round(m["loss"], 7), "loss_kpt": round(m["loss"], 7), "acc_pose": round(m["acc"], 6),
                          "time": round(m["t"], 5), "epoch": ep, "iter": it, "memory": 288 + (it % 3) * 2, "step": it})
                scal.append(d)
                win = {k: [] for k in win}
        log("Exp name: %s_%s" % (cfg_name, ts))
        if ep % val_interval == 0 or ep == epochs:
            clk.tick(0.9)
            log("Saving checkpoint at %d epochs" % ep)
            clk.tick(1.8)
            r = heatmap_eval(model, Xv, Pv, stride, sigmas, area)
            nvb = math.ceil(len(Xv) / 32)
            log("Evaluating CocoMetric...\nLoading and preparing results...\nDONE (t=0.01s)\ncreating index...\nindex created!\nRunning per image evaluation...\nEvaluate annotation type *keypoints*\nDONE (t=0.%02ds).\nAccumulating evaluation results...\nDONE (t=0.00s)." % (5 + ep % 7))
            AP = r["AP"]
            vals = [("coco/AP", r["AP"]), ("coco/AP .5", r["AP .5"]), ("coco/AP .75", r["AP .75"]),
                    ("coco/AP (M)", r["AP"]), ("coco/AP (L)", -1.0), ("coco/AR", r["AR"]), ("coco/AR .5", r["AR .5"]),
                    ("coco/AR .75", r["AR .75"]), ("coco/AR (M)", r["AR"]), ("coco/AR (L)", -1.0), ("PCK", r["PCK"])]
            log("Epoch(val) [%d][%d/%d]    " % (ep, nvb, nvb) + "  ".join("%s: %.6f" % kv for kv in vals) +
                "  data_time: %.4f  time: %.4f" % (0.0121 + 0.001 * (ep % 3), 0.0398 + 0.001 * (ep % 4)))
            d = {k: round(v, 6) for k, v in vals}
            d.update({"data_time": 0.0121, "time": 0.0398, "step": ep})
            scal.append(d)
            if AP > best[0]:
                if best[1]:
                    log("The previous best checkpoint work_dirs/%s/best_coco_AP_epoch_%d.pth is removed" % (cfg_name, best[1]))
                best = (AP, ep)
                log("The best checkpoint with %.4f coco/AP at %d epoch is saved to best_coco_AP_epoch_%d.pth." % (AP, ep, ep))
    write(os.path.join(wd, ts + ".log"), "\n".join(L) + "\n")
    write(os.path.join(wd, "vis_data", "scalars.json"), "".join(json.dumps(d) + "\n" for d in scal))
    write(os.path.join(wd, "vis_data", ts + ".json"), "".join(json.dumps(d) + "\n" for d in scal))
    write(os.path.join(wd, "vis_data", "config.py"), cfg_text)


# --------------------------------------------------------------------------------------------------
# mmpose 0.x (mmcv runner) style run
# --------------------------------------------------------------------------------------------------

MMCV_ENV = """Environment info:
------------------------------------------------------------
sys.platform: linux
Python: 3.7.13 (default, Mar 29 2022, 02:18:16) [GCC 7.5.0]
CUDA available: True
GPU 0: Tesla V100-SXM2-16GB
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 11.1, V11.1.105
GCC: gcc (GCC) 7.3.0
PyTorch: 1.9.0+cu111
TorchVision: 0.10.0+cu111
OpenCV: 4.6.0
MMCV: 1.6.1
MMCV Compiler: GCC 7.3
MMCV CUDA Compiler: 11.1
MMPose: 0.28.1+
------------------------------------------------------------
"""


def mmcv_run(outdir, ts, start, seed, cfg_text, data, model, opt, epochs, bs, lr_at, log_interval, eval_interval,
             sigmas, area, stride, loss_name="heatmap_loss", log_grad_norm=False, time_per_iter=0.093,
             clip=None, wd_name="work_dirs/x"):
    X, Y, Xv, Pv = data
    clk = FakeClock(start, seed + 11)
    L = []
    J = [json.dumps({"env_info": MMCV_ENV.replace("\n", "\n"), "config": cfg_text, "seed": seed,
                     "exp_name": os.path.basename(wd_name) + ".py", "hook_msgs": {}})]

    def log(msg):
        L.append("%s - mmpose - INFO - %s" % (clk.fmt("mmcv"), msg))

    log(MMCV_ENV)
    clk.tick(0.4)
    log("Distributed training: False")
    clk.tick(0.3)
    log("Config:\n" + cfg_text)
    clk.tick(2.1)
    log("Set random seed to %d, deterministic: False" % seed)
    clk.tick(1.6)
    log("Start running, host: ubuntu@gpu07, work_dir: %s" % wd_name)
    log("Hooks will be executed in the following order:\nbefore_run:\n(VERY_HIGH   ) StepLrUpdaterHook\n(NORMAL      ) CheckpointHook\n(LOW         ) EvalHook\n(VERY_LOW    ) TextLoggerHook\n -------------------- ")
    log("workflow: [('train', 1)], max: %d epochs" % epochs)
    log("Checkpoints will be saved to %s by HardDiskBackend." % wd_name)
    n = len(X)
    n_iter = math.ceil(n / bs)
    total = epochs * n_iter
    g = torch.Generator().manual_seed(seed)
    it = 0
    win = {"loss": [], "acc": [], "gn": [], "t": [], "dt": []}
    best = None
    for ep in range(1, epochs + 1):
        model.train()
        perm = torch.randperm(n, generator=g)
        for bi in range(n_iter):
            idx = perm[bi * bs:(bi + 1) * bs]
            lr = lr_at(it, ep)
            for pg in opt.param_groups:
                pg["lr"] = lr
            out = model(X[idx])
            loss = 0.5 * F.mse_loss(out, Y[idx])  # JointsMSELoss
            opt.zero_grad()
            loss.backward()
            if clip:
                gn = torch.nn.utils.clip_grad_norm_(model.parameters(), clip).item()
            else:
                gn = grad_total_norm(model)
            opt.step()
            it += 1
            dt = clk.tick(time_per_iter)
            lv = loss.item()
            win["loss"].append(lv); win["acc"].append(pose_pck_accuracy(out.detach(), Y[idx]))
            win["gn"].append(gn); win["t"].append(dt); win["dt"].append(dt * 0.22)
            if (bi + 1) % log_interval == 0:
                m = {k: float(np.mean(v)) for k, v in win.items()}
                eta = m["t"] * (total - it)
                s = "Epoch [%d][%d/%d]\tlr: %.3e, eta: %s, time: %.3f, data_time: %.3f, memory: %d, %s: %.5f, acc_pose: %.4f, loss: %.5f" % (
                    ep, bi + 1, n_iter, lr, eta_str(eta), m["t"], m["dt"], 402, loss_name, m["loss"], m["acc"], m["loss"])
                if log_grad_norm:
                    s += ", grad_norm: %.4f" % m["gn"]
                log(s)
                d = {"mode": "train", "epoch": ep, "iter": bi + 1, "lr": float("%.5e" % lr), "memory": 402,
                     "data_time": round(m["dt"], 5), loss_name: round(m["loss"], 6) if math.isfinite(m["loss"]) else m["loss"],
                     "acc_pose": round(m["acc"], 5), "loss": round(m["loss"], 6) if math.isfinite(m["loss"]) else m["loss"]}
                if log_grad_norm:
                    d["grad_norm"] = round(m["gn"], 5) if math.isfinite(m["gn"]) else m["gn"]
                d["time"] = round(m["t"], 5)
                J.append(json.dumps(d))
                win = {k: [] for k in win}
        clk.tick(0.7)
        log("Saving checkpoint at %d epochs" % ep)
        if ep % eval_interval == 0:
            nvb = len(Xv)
            prog = "[>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>] %d/%d, %.1f task/s, elapsed: %ds, ETA:     0s" % (nvb, nvb, 1500 + 13 * (ep % 9), 0)
            clk.tick(1.3)
            r = heatmap_eval(model, Xv, Pv, stride, sigmas, area)
            L.append(prog)
            L.append("Loading and preparing results...\nDONE (t=0.01s)\ncreating index...\nindex created!\nRunning per image evaluation...\nEvaluate annotation type *keypoints*\nDONE (t=0.05s).\nAccumulating evaluation results...\nDONE (t=0.00s).")
            L.append(" Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets= 20 ] = %.3f" % r["AP"])
            L.append(" Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets= 20 ] = %.3f" % r["AP .5"])
            L.append(" Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets= 20 ] = %.3f" % r["AP .75"])
            L.append(" Average Precision  (AP) @[ IoU=0.50:0.95 | area=medium | maxDets= 20 ] = %.3f" % r["AP"])
            L.append(" Average Precision  (AP) @[ IoU=0.50:0.95 | area= large | maxDets= 20 ] = -1.000")
            L.append(" Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets= 20 ] = %.3f" % r["AR"])
            L.append(" Average Recall     (AR) @[ IoU=0.50      | area=   all | maxDets= 20 ] = %.3f" % r["AR .5"])
            L.append(" Average Recall     (AR) @[ IoU=0.75      | area=   all | maxDets= 20 ] = %.3f" % r["AR .75"])
            L.append(" Average Recall     (AR) @[ IoU=0.50:0.95 | area=medium | maxDets= 20 ] = %.3f" % r["AR"])
            L.append(" Average Recall     (AR) @[ IoU=0.50:0.95 | area= large | maxDets= 20 ] = -1.000")
            if best is None or r["AP"] > best[0]:
                best = (r["AP"], ep)
                log("Now best checkpoint is saved as best_AP_epoch_%d.pth." % ep)
                log("Best AP is %.4f at %d epoch." % best)
            vals = [("AP", r["AP"]), ("AP .5", r["AP .5"]), ("AP .75", r["AP .75"]), ("AP (M)", r["AP"]),
                    ("AP (L)", -1.0), ("AR", r["AR"]), ("AR .5", r["AR .5"]), ("AR .75", r["AR .75"]),
                    ("AR (M)", r["AR"]), ("AR (L)", -1.0), ("PCK", r["PCK"])]
            log("Epoch(val) [%d][%d]\t" % (ep, math.ceil(nvb / 32)) + ", ".join("%s: %.4f" % kv for kv in vals))
            d = {"mode": "val", "epoch": ep, "iter": math.ceil(nvb / 32), "lr": float("%.5e" % lr)}
            d.update({k: round(v, 4) for k, v in vals})
            J.append(json.dumps(d))
    write(os.path.join(outdir, ts + ".log"), "\n".join(L) + "\n")
    write(os.path.join(outdir, ts + ".log.json"), "\n".join(J) + "\n")


def load_data(n_train, n_val, K, seed, size=32, stride=2, sigma=1.0, **kw):
    Xn, P = make_blob_images(n_train, K, size=size, seed=seed, **kw)
    Xvn, Pv = make_blob_images(n_val, K, size=size, seed=seed + 1000, **kw)
    Y = gaussian_heatmaps(P, size // stride, stride, sigma)
    return torch.tensor(Xn), torch.tensor(Y), torch.tensor(Xvn), Pv


# ==================================================================================================
# in-process runs (no train.py shipped)
# ==================================================================================================

def run_mm1_healthy(out):
    """healthy, converges well: mmpose 1.x, Adam 1e-3 + warm-up + step decay."""
    seed = 42
    torch.manual_seed(seed)
    K, E, BS = 3, 20, 32
    data = load_data(1000, 240, K, seed=101, noise=0.35, distractors=4, amp_jitter=0.4)
    model = TinyHeatmapNet(K, c=16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    n_iter = math.ceil(1000 / BS)

    def lr_at(it, ep):
        base = 1e-3 * (0.1 if ep > 14 else 1.0) * (0.1 if ep > 18 else 1.0)
        if it < 100:
            return base * (0.001 + 0.999 * it / 100)
        return base
    cfg_name = "td-hm_tinyconv_8xb32-20e_markers3-32x32"
    cfg = CFG_MM1_HEALTHY
    write(os.path.join(out, cfg_name + ".py"), cfg)
    mmengine_run(out, cfg_name, cfg, "20240311_142207", datetime(2024, 3, 11, 14, 22, 7), seed, data, model, opt,
                 E, BS, True, lr_at, 10, 2, None, [0.035, 0.035, 0.026], 900.0, 2, time_per_iter=0.071)


CFG_MM1_HEALTHY = """_base_ = ['../_base_/default_runtime.py']

# runtime
train_cfg = dict(max_epochs=20, val_interval=2)

# optimizer
optim_wrapper = dict(optimizer=dict(
    type='Adam',
    lr=1e-3,
))

# learning policy
param_scheduler = [
    dict(
        type='LinearLR', begin=0, end=100, start_factor=0.001,
        by_epoch=False),  # warm-up
    dict(
        type='MultiStepLR',
        begin=0,
        end=20,
        milestones=[14, 18],
        gamma=0.1,
        by_epoch=True)
]

# automatically scaling LR based on the actual training batch size
auto_scale_lr = dict(base_batch_size=32)

# hooks
default_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(save_best='coco/AP', rule='greater'))

# codec settings
codec = dict(
    type='MSRAHeatmap', input_size=(32, 32), heatmap_size=(16, 16), sigma=1)

# model settings
model = dict(
    type='TopdownPoseEstimator',
    data_preprocessor=dict(
        type='PoseDataPreprocessor',
        mean=[0.],
        std=[1.],
        bgr_to_rgb=False),
    backbone=dict(
        type='TinyConv',
        in_channels=1,
        base_channels=16,
        strides=(1, 2, 1, 1),
        dilations=(1, 1, 1, 2),
        norm_cfg=dict(type='BN')),
    head=dict(
        type='HeatmapHead',
        in_channels=32,
        out_channels=3,
        deconv_out_channels=None,
        loss=dict(type='KeypointMSELoss', use_target_weight=True),
        decoder=codec),
    test_cfg=dict(
        flip_test=False,
        shift_heatmap=False,
    ))

# base dataset settings
dataset_type = 'MarkerKeypointDataset'
data_mode = 'topdown'
data_root = 'data/markers3/'

# pipelines
train_pipeline = [
    dict(type='LoadImage', color_type='grayscale'),
    dict(type='GetBBoxCenterScale'),
    dict(type='TopdownAffine', input_size=codec['input_size']),
    dict(type='GenerateTarget', encoder=codec),
    dict(type='PackPoseInputs')
]
val_pipeline = [
    dict(type='LoadImage', color_type='grayscale'),
    dict(type='GetBBoxCenterScale'),
    dict(type='TopdownAffine', input_size=codec['input_size']),
    dict(type='PackPoseInputs')
]

# data loaders
train_dataloader = dict(
    batch_size=32,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_mode=data_mode,
        ann_file='annotations/train.json',
        data_prefix=dict(img='train/'),
        pipeline=train_pipeline,
    ))
val_dataloader = dict(
    batch_size=32,
    num_workers=2,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False, round_up=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_mode=data_mode,
        ann_file='annotations/val.json',
        data_prefix=dict(img='val/'),
        test_mode=True,
        pipeline=val_pipeline,
    ))
test_dataloader = val_dataloader

# evaluators
val_evaluator = [
    dict(type='CocoMetric', ann_file=data_root + 'annotations/val.json'),
    dict(type='PCKAccuracy', thr=0.05),
]
test_evaluator = val_evaluator
"""


def run_mm1_unshuffled(out):
    """data_not_shuffled: 4 capture sessions concatenated in order, DefaultSampler(shuffle=False)."""
    seed = 0
    torch.manual_seed(seed)
    K = 4
    sessions = [dict(noise=0.15, distractors=0, amp_jitter=0.2, invert=False),
                dict(noise=0.45, distractors=6, amp_jitter=0.4, invert=False),
                dict(noise=0.25, distractors=2, amp_jitter=0.3, invert=True),
                dict(noise=0.6, distractors=3, amp_jitter=0.5, invert=False)]
    Xs, Ps, Xvs, Pvs = [], [], [], []
    for j, s in enumerate(sessions):
        kw = {k: v for k, v in s.items() if k != "invert"}
        x, p = make_blob_images(280, K, seed=300 + j, **kw)
        xv, pv = make_blob_images(60, K, seed=400 + j, **kw)
        if s["invert"]:
            x, xv = -x, -xv
        Xs.append(x); Ps.append(p); Xvs.append(xv); Pvs.append(pv)
    X = np.concatenate(Xs); P = np.concatenate(Ps)
    Xv = np.concatenate(Xvs); Pv = np.concatenate(Pvs)
    Y = gaussian_heatmaps(P, 16, 2, 1.0)
    data = (torch.tensor(X), torch.tensor(Y), torch.tensor(Xv), Pv)
    model = TinyHeatmapNet(K, c=16)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)

    def lr_at(it, ep):
        return 2e-3 * 0.5 * (1 + math.cos(math.pi * (ep - 1) / 12))
    cfg_name = "td-hm_tinyconv_1xb32-12e_rig4cam-32x32"
    write(os.path.join(out, cfg_name + ".py"), CFG_MM1_UNSHUF)
    mmengine_run(out, cfg_name, CFG_MM1_UNSHUF, "20240522_091544", datetime(2024, 5, 22, 9, 15, 44), seed, data, model,
                 opt, 12, 32, False, lr_at, 5, 1, None, [0.035, 0.035, 0.026, 0.05], 900.0, 2, time_per_iter=0.064)


CFG_MM1_UNSHUF = """_base_ = ['mmpose::_base_/default_runtime.py']

# runtime
train_cfg = dict(max_epochs=12, val_interval=1)

# optimizer
optim_wrapper = dict(optimizer=dict(type='AdamW', lr=2e-3, weight_decay=1e-4))

# learning policy
param_scheduler = [
    dict(type='CosineAnnealingLR', T_max=12, eta_min=0., begin=0, end=12, by_epoch=True, convert_to_iter_based=False)
]

auto_scale_lr = dict(base_batch_size=32)

default_hooks = dict(
    logger=dict(type='LoggerHook', interval=5),
    checkpoint=dict(save_best='coco/AP', rule='greater', max_keep_ckpts=2))

codec = dict(type='MSRAHeatmap', input_size=(32, 32), heatmap_size=(16, 16), sigma=1)

model = dict(
    type='TopdownPoseEstimator',
    data_preprocessor=dict(type='PoseDataPreprocessor', mean=[0.], std=[1.], bgr_to_rgb=False),
    backbone=dict(type='TinyConv', in_channels=1, base_channels=16, strides=(1, 2, 1, 1), dilations=(1, 1, 1, 2)),
    head=dict(
        type='HeatmapHead',
        in_channels=32,
        out_channels=4,
        deconv_out_channels=None,
        loss=dict(type='KeypointMSELoss', use_target_weight=True),
        decoder=codec),
    test_cfg=dict(flip_test=False))

dataset_type = 'CocoDataset'
data_mode = 'topdown'
data_root = 'data/rig4cam/'

# the four capture sessions (cam0..cam3) are exported into one annotation file, session by session
metainfo = dict(from_file='configs/_base_/datasets/rig4cam.py')

train_pipeline = [
    dict(type='LoadImage', color_type='grayscale'),
    dict(type='GetBBoxCenterScale'),
    dict(type='TopdownAffine', input_size=codec['input_size']),
    dict(type='GenerateTarget', encoder=codec),
    dict(type='PackPoseInputs')
]
val_pipeline = [
    dict(type='LoadImage', color_type='grayscale'),
    dict(type='GetBBoxCenterScale'),
    dict(type='TopdownAffine', input_size=codec['input_size']),
    dict(type='PackPoseInputs')
]

train_dataloader = dict(
    batch_size=32,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_mode=data_mode,
        metainfo=metainfo,
        ann_file='annotations/rig4cam_train.json',
        data_prefix=dict(img='images/'),
        pipeline=train_pipeline,
    ))
val_dataloader = dict(
    batch_size=32,
    num_workers=4,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False, round_up=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_mode=data_mode,
        metainfo=metainfo,
        ann_file='annotations/rig4cam_val.json',
        data_prefix=dict(img='images/'),
        test_mode=True,
        pipeline=val_pipeline,
    ))
test_dataloader = val_dataloader

val_evaluator = [
    dict(type='CocoMetric', ann_file=data_root + 'annotations/rig4cam_val.json'),
    dict(type='PCKAccuracy', thr=0.05),
]
test_evaluator = val_evaluator
"""


def run_mm0_lr_high(out):
    """lr_too_high: mmpose 0.x, Adam lr=1.0 (linear warm-up 300 iters)."""
    seed = 7
    torch.manual_seed(seed)
    K, E, BS = 3, 22, 32
    data = load_data(1000, 240, K, seed=202, noise=0.35, distractors=4, amp_jitter=0.4)
    model = TinyHeatmapNet(K, c=16)
    opt = torch.optim.Adam(model.parameters(), lr=LR_HIGH)

    def lr_at(it, ep):
        base = LR_HIGH * (0.1 if ep > 17 else 1.0) * (0.1 if ep > 20 else 1.0)
        if it < 300:
            return base * (0.001 + 0.999 * it / 300)
        return base
    cfg = CFG_MM0_LRHIGH
    name = "res_tiny_markers3_32x32_adam"
    write(os.path.join(out, name + ".py"), cfg)
    mmcv_run(out, "20220803_101112", datetime(2022, 8, 3, 10, 11, 12), seed, cfg, data, model, opt, E, BS, lr_at,
             10, 2, [0.035, 0.035, 0.026], 900.0, 2, loss_name="heatmap_loss", log_grad_norm=True,
             clip=1000.0, wd_name="work_dirs/" + name)


LR_HIGH = 1.0
CFG_MM0_LRHIGH = """_base_ = [
    '../../../../_base_/default_runtime.py',
    '../../../../_base_/datasets/markers3.py'
]
evaluation = dict(interval=2, metric='mAP', save_best='AP')

optimizer = dict(
    type='Adam',
    lr=1.0,
)
optimizer_config = dict(grad_clip=dict(max_norm=1000., norm_type=2))
# learning policy
lr_config = dict(
    policy='step',
    warmup='linear',
    warmup_iters=300,
    warmup_ratio=0.001,
    step=[17, 20])
total_epochs = 22
log_config = dict(
    interval=10,
    hooks=[
        dict(type='TextLoggerHook'),
        # dict(type='TensorboardLoggerHook')
    ])

channel_cfg = dict(
    num_output_channels=3,
    dataset_joints=3,
    dataset_channel=[
        [0, 1, 2],
    ],
    inference_channel=[0, 1, 2])

# model settings
model = dict(
    type='TopDown',
    pretrained=None,
    backbone=dict(type='TinyConv', in_channels=1, base_channels=16, strides=(1, 2, 1, 1), dilations=(1, 1, 1, 2)),
    keypoint_head=dict(
        type='TopdownHeatmapSimpleHead',
        in_channels=32,
        out_channels=channel_cfg['num_output_channels'],
        num_deconv_layers=0,
        extra=dict(final_conv_kernel=1, ),
        loss_keypoint=dict(type='JointsMSELoss', use_target_weight=True)),
    train_cfg=dict(),
    test_cfg=dict(
        flip_test=False,
        post_process='default',
        shift_heatmap=False,
        modulate_kernel=11))

data_cfg = dict(
    image_size=[32, 32],
    heatmap_size=[16, 16],
    num_output_channels=channel_cfg['num_output_channels'],
    num_joints=channel_cfg['dataset_joints'],
    dataset_channel=channel_cfg['dataset_channel'],
    inference_channel=channel_cfg['inference_channel'],
    soft_nms=False,
    nms_thr=1.0,
    oks_thr=0.9,
    vis_thr=0.2,
    use_gt_bbox=True,
    det_bbox_thr=0.0,
    bbox_file='',
)

train_pipeline = [
    dict(type='LoadImageFromFile', color_type='grayscale'),
    dict(type='TopDownGetBboxCenterScale', padding=1.0),
    dict(type='TopDownAffine'),
    dict(type='ToTensor'),
    dict(type='TopDownGenerateTarget', sigma=1),
    dict(
        type='Collect',
        keys=['img', 'target', 'target_weight'],
        meta_keys=[
            'image_file', 'joints_3d', 'joints_3d_visible', 'center', 'scale',
            'rotation', 'bbox_score', 'flip_pairs'
        ]),
]

val_pipeline = [
    dict(type='LoadImageFromFile', color_type='grayscale'),
    dict(type='TopDownGetBboxCenterScale', padding=1.0),
    dict(type='TopDownAffine'),
    dict(type='ToTensor'),
    dict(
        type='Collect',
        keys=['img'],
        meta_keys=[
            'image_file', 'center', 'scale', 'rotation', 'bbox_score',
            'flip_pairs'
        ]),
]

test_pipeline = val_pipeline

data_root = 'data/markers3'
data = dict(
    samples_per_gpu=32,
    workers_per_gpu=2,
    val_dataloader=dict(samples_per_gpu=32),
    test_dataloader=dict(samples_per_gpu=32),
    train=dict(
        type='TopDownCocoDataset',
        ann_file=f'{data_root}/annotations/markers_train.json',
        img_prefix=f'{data_root}/train/',
        data_cfg=data_cfg,
        pipeline=train_pipeline,
        dataset_info={{_base_.dataset_info}}),
    val=dict(
        type='TopDownCocoDataset',
        ann_file=f'{data_root}/annotations/markers_val.json',
        img_prefix=f'{data_root}/val/',
        data_cfg=data_cfg,
        pipeline=val_pipeline,
        dataset_info={{_base_.dataset_info}}),
    test=dict(
        type='TopDownCocoDataset',
        ann_file=f'{data_root}/annotations/markers_val.json',
        img_prefix=f'{data_root}/val/',
        data_cfg=data_cfg,
        pipeline=test_pipeline,
        dataset_info={{_base_.dataset_info}}),
)
"""


def run_mm0_overfit(out):
    """overfitting: 32 annotated frames, wide net without BN, 200 epochs, no augmentation."""
    seed = 3
    torch.manual_seed(seed)
    K, E, BS = 3, 200, 16
    data = load_data(32, 200, K, seed=505, noise=0.45, distractors=6, amp_jitter=0.4)
    model = TinyHeatmapNet(K, c=32, bn=False)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)

    def lr_at(it, ep):
        return 2e-3
    cfg = CFG_MM0_OVERFIT
    name = "tinyconv_w32_lab32_32x32"
    write(os.path.join(out, name + ".py"), cfg)
    mmcv_run(out, "20221117_163045", datetime(2022, 11, 17, 16, 30, 45), seed, cfg, data, model, opt, E, BS, lr_at,
             2, 5, [0.035, 0.035, 0.026], 900.0, 2, loss_name="heatmap_loss", log_grad_norm=False,
             time_per_iter=0.118, wd_name="work_dirs/" + name)


CFG_MM0_OVERFIT = """_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/datasets/lab_markers.py'
]
evaluation = dict(interval=5, metric=['mAP', 'PCK'], save_best='AP')
checkpoint_config = dict(interval=50)

optimizer = dict(
    type='Adam',
    lr=2e-3,
)
optimizer_config = dict(grad_clip=None)
# learning policy
lr_config = dict(policy='fixed')
total_epochs = 200
log_config = dict(
    interval=2,
    hooks=[
        dict(type='TextLoggerHook'),
    ])

channel_cfg = dict(
    num_output_channels=3,
    dataset_joints=3,
    dataset_channel=[[0, 1, 2]],
    inference_channel=[0, 1, 2])

# model settings
model = dict(
    type='TopDown',
    pretrained=None,
    backbone=dict(type='TinyConv', in_channels=1, base_channels=32, strides=(1, 2, 1, 1), dilations=(1, 1, 1, 2),
                  norm_cfg=None),
    keypoint_head=dict(
        type='TopdownHeatmapSimpleHead',
        in_channels=64,
        out_channels=channel_cfg['num_output_channels'],
        num_deconv_layers=0,
        extra=dict(final_conv_kernel=1, ),
        loss_keypoint=dict(type='JointsMSELoss', use_target_weight=True)),
    train_cfg=dict(),
    test_cfg=dict(
        flip_test=False,
        post_process='default',
        shift_heatmap=False,
        modulate_kernel=11))

data_cfg = dict(
    image_size=[32, 32],
    heatmap_size=[16, 16],
    num_output_channels=channel_cfg['num_output_channels'],
    num_joints=channel_cfg['dataset_joints'],
    dataset_channel=channel_cfg['dataset_channel'],
    inference_channel=channel_cfg['inference_channel'],
    use_gt_bbox=True,
    bbox_file='',
)

train_pipeline = [
    dict(type='LoadImageFromFile', color_type='grayscale'),
    dict(type='TopDownGetBboxCenterScale', padding=1.0),
    dict(type='TopDownAffine'),
    dict(type='ToTensor'),
    dict(type='TopDownGenerateTarget', sigma=1),
    dict(
        type='Collect',
        keys=['img', 'target', 'target_weight'],
        meta_keys=['image_file', 'joints_3d', 'joints_3d_visible', 'center', 'scale', 'rotation', 'flip_pairs']),
]

val_pipeline = [
    dict(type='LoadImageFromFile', color_type='grayscale'),
    dict(type='TopDownGetBboxCenterScale', padding=1.0),
    dict(type='TopDownAffine'),
    dict(type='ToTensor'),
    dict(
        type='Collect',
        keys=['img'],
        meta_keys=['image_file', 'center', 'scale', 'rotation', 'bbox_score', 'flip_pairs']),
]

test_pipeline = val_pipeline

data_root = 'data/lab_markers'
data = dict(
    samples_per_gpu=16,
    workers_per_gpu=2,
    val_dataloader=dict(samples_per_gpu=32),
    test_dataloader=dict(samples_per_gpu=32),
    train=dict(
        type='TopDownCocoDataset',
        ann_file=f'{data_root}/annotations/lab_train_32.json',
        img_prefix=f'{data_root}/images/',
        data_cfg=data_cfg,
        pipeline=train_pipeline,
        dataset_info={{_base_.dataset_info}}),
    val=dict(
        type='TopDownCocoDataset',
        ann_file=f'{data_root}/annotations/lab_val.json',
        img_prefix=f'{data_root}/images/',
        data_cfg=data_cfg,
        pipeline=val_pipeline,
        dataset_info={{_base_.dataset_info}}),
    test=dict(
        type='TopDownCocoDataset',
        ann_file=f'{data_root}/annotations/lab_val.json',
        img_prefix=f'{data_root}/images/',
        data_cfg=data_cfg,
        pipeline=test_pipeline,
        dataset_info={{_base_.dataset_info}}),
)
"""


def run_hrnet_lr_low(out):
    """lr_too_low: HRNet-style repo, Adam with LR 5e-6 (config), default-initialised head."""
    seed = 11
    torch.manual_seed(seed)
    K, E, BS = 3, 25, 32
    X, Y, Xv, Pv = load_data(800, 192, K, seed=606, noise=0.35, distractors=4, amp_jitter=0.4)
    model = TinyHeatmapNet(K, c=16, head_std=None)
    opt = torch.optim.Adam(model.parameters(), lr=5e-6, weight_decay=1e-4)
    Yv = torch.tensor(gaussian_heatmaps(Pv, 16, 2, 1.0))
    clk = FakeClock(datetime(2021, 5, 3, 11, 22, 33), seed)
    L = []

    def log(m):
        L.append("%s %s" % (clk.fmt("mmcv"), m))
    log("Namespace(cfg='experiments/markers/tiny/t16_32x32_adam_lr5e-6.yaml', dataDir='', logDir='', modelDir='', opts=[], prevModelDir='')")
    log(CFG_HRNET_DUMP)
    clk.tick(1.0)
    log("=> init weights from normal distribution")
    log("Total Parameters: 16,851 | Total Multiply Adds: 6.94M")
    log("=> load 800 samples")
    log("=> load 192 samples")
    n = len(X); n_iter = math.ceil(n / BS)
    g = torch.Generator().manual_seed(seed)
    best = 0.0
    for ep in range(E):
        model.train()
        perm = torch.randperm(n, generator=g)
        sums = {"loss": 0.0, "acc": 0.0, "t": 0.0, "d": 0.0, "n": 0}
        for bi in range(n_iter):
            idx = perm[bi * BS:(bi + 1) * BS]
            out_ = model(X[idx])
            loss = 0.5 * F.mse_loss(out_, Y[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            dt = clk.tick(0.105 if bi else 0.52)
            dd = dt * 0.31
            acc = pose_pck_accuracy(out_.detach(), Y[idx])
            sums["loss"] += loss.item(); sums["acc"] += acc; sums["t"] += dt; sums["d"] += dd; sums["n"] += 1
            k = sums["n"]
            if bi % 10 == 0:
                log("Epoch: [%d][%d/%d]\tTime %.3fs (%.3fs)\tSpeed %.1f samples/s\tData %.3fs (%.3fs)\tLoss %.5f (%.5f)\tAccuracy %.3f (%.3f)" % (
                    ep, bi, n_iter, dt, sums["t"] / k, len(idx) / dt, dd, sums["d"] / k, loss.item(), sums["loss"] / k, acc, sums["acc"] / k))
        # validate
        model.eval()
        vs = {"loss": 0.0, "acc": 0.0, "t": 0.0, "n": 0}
        outs = []
        with torch.no_grad():
            nvb = math.ceil(len(Xv) / BS)
            for bi in range(nvb):
                o = model(Xv[bi * BS:(bi + 1) * BS])
                outs.append(o)
                l = 0.5 * F.mse_loss(o, Yv[bi * BS:(bi + 1) * BS]).item()
                a = pose_pck_accuracy(o, Yv[bi * BS:(bi + 1) * BS])
                dt = clk.tick(0.061)
                vs["loss"] += l; vs["acc"] += a; vs["t"] += dt; vs["n"] += 1
                if bi % 10 == 0:
                    k = vs["n"]
                    log("Test: [%d/%d]\tTime %.3f (%.3f)\tLoss %.4f (%.4f)\tAccuracy %.3f (%.3f)" % (
                        bi, nvb, dt, vs["t"] / k, l, vs["loss"] / k, a, vs["acc"] / k))
        o = torch.cat(outs)
        c, mv = decode_argmax(o)
        r = coco_style_ap((c * 2).numpy(), Pv, mv.mean(-1).numpy(), 900.0, [0.035, 0.035, 0.026])
        L.append("Loading and preparing results...\nDONE (t=0.00s)\ncreating index...\nindex created!\nRunning per image evaluation...\nEvaluate annotation type *keypoints*\nDONE (t=0.04s).\nAccumulating evaluation results...\nDONE (t=0.00s).")
        names = ["AP", "Ap .5", "AP .75", "AP (M)", "AP (L)", "AR", "AR .5", "AR .75", "AR (M)", "AR (L)"]
        vals = [r["AP"], r["AP .5"], r["AP .75"], r["AP"], -1.0, r["AR"], r["AR .5"], r["AR .75"], r["AR"], -1.0]
        log("| Arch | " + " | ".join(names) + " |")
        log("|---" * (len(names) + 1) + "|")
        log("| pose_tiny | " + " | ".join("%.3f" % v for v in vals) + " |")
        log("=> saving checkpoint to output/markers/pose_tiny/t16_32x32_adam_lr5e-6")
        if r["AP"] > best:
            best = r["AP"]
    log("=> saving final model state to output/markers/pose_tiny/t16_32x32_adam_lr5e-6/final_state.pth")
    write(os.path.join(out, "t16_32x32_adam_lr5e-6.yaml"), CFG_HRNET_YAML)
    write(os.path.join(out, "log", "t16_32x32_adam_lr5e-6_2021-05-03-11-22_train.log"), "\n".join(L) + "\n")


CFG_HRNET_YAML = """AUTO_RESUME: true
CUDNN:
  BENCHMARK: true
  DETERMINISTIC: false
  ENABLED: true
DATA_DIR: ''
GPUS: (0,)
OUTPUT_DIR: 'output'
LOG_DIR: 'log'
WORKERS: 4
PRINT_FREQ: 10

DATASET:
  COLOR_RGB: false
  DATASET: 'markers'
  DATA_FORMAT: png
  FLIP: false
  NUM_JOINTS_HALF_BODY: 0
  PROB_HALF_BODY: 0.0
  ROOT: 'data/markers/'
  ROT_FACTOR: 0
  SCALE_FACTOR: 0.0
  TEST_SET: 'val'
  TRAIN_SET: 'train'
MODEL:
  INIT_WEIGHTS: true
  NAME: pose_tiny
  NUM_JOINTS: 3
  PRETRAINED: ''
  TARGET_TYPE: gaussian
  IMAGE_SIZE:
  - 32
  - 32
  HEATMAP_SIZE:
  - 16
  - 16
  SIGMA: 1
  EXTRA:
    BASE_CHANNELS: 16
    STRIDES: [1, 2, 1, 1]
    DILATIONS: [1, 1, 1, 2]
    FINAL_CONV_KERNEL: 1
LOSS:
  USE_TARGET_WEIGHT: true
TRAIN:
  BATCH_SIZE_PER_GPU: 32
  SHUFFLE: true
  BEGIN_EPOCH: 0
  END_EPOCH: 25
  OPTIMIZER: adam
  LR: 0.000005
  LR_FACTOR: 0.1
  LR_STEP:
  - 30
  - 40
  WD: 0.0001
  GAMMA1: 0.99
  GAMMA2: 0.0
  MOMENTUM: 0.9
  NESTEROV: false
TEST:
  BATCH_SIZE_PER_GPU: 32
  COCO_BBOX_FILE: ''
  BBOX_THRE: 1.0
  IMAGE_THRE: 0.0
  IN_VIS_THRE: 0.2
  MODEL_FILE: ''
  NMS_THRE: 1.0
  OKS_THRE: 0.9
  USE_GT_BBOX: true
  FLIP_TEST: false
  POST_PROCESS: true
  SHIFT_HEATMAP: true
DEBUG:
  DEBUG: false
  SAVE_BATCH_IMAGES_GT: false
  SAVE_BATCH_IMAGES_PRED: false
  SAVE_HEATMAPS_GT: false
  SAVE_HEATMAPS_PRED: false
"""
CFG_HRNET_DUMP = """{'AUTO_RESUME': True,
 'CUDNN': {'BENCHMARK': True, 'DETERMINISTIC': False, 'ENABLED': True},
 'DATASET': {'COLOR_RGB': False, 'DATASET': 'markers', 'DATA_FORMAT': 'png', 'FLIP': False, 'ROOT': 'data/markers/',
             'ROT_FACTOR': 0, 'SCALE_FACTOR': 0.0, 'TEST_SET': 'val', 'TRAIN_SET': 'train'},
 'GPUS': (0,),
 'LOSS': {'USE_TARGET_WEIGHT': True},
 'MODEL': {'EXTRA': {'BASE_CHANNELS': 16, 'DILATIONS': [1, 1, 1, 2], 'FINAL_CONV_KERNEL': 1, 'STRIDES': [1, 2, 1, 1]},
           'HEATMAP_SIZE': array([16, 16]), 'IMAGE_SIZE': array([32, 32]), 'INIT_WEIGHTS': True, 'NAME': 'pose_tiny',
           'NUM_JOINTS': 3, 'PRETRAINED': '', 'SIGMA': 1, 'TARGET_TYPE': 'gaussian'},
 'OUTPUT_DIR': 'output',
 'PRINT_FREQ': 10,
 'TEST': {'BATCH_SIZE_PER_GPU': 32, 'FLIP_TEST': False, 'POST_PROCESS': True, 'SHIFT_HEATMAP': True, 'USE_GT_BBOX': True},
 'TRAIN': {'BATCH_SIZE_PER_GPU': 32, 'BEGIN_EPOCH': 0, 'END_EPOCH': 25, 'GAMMA1': 0.99, 'GAMMA2': 0.0, 'LR': 5e-06,
           'LR_FACTOR': 0.1, 'LR_STEP': [30, 40], 'MOMENTUM': 0.9, 'NESTEROV': False, 'OPTIMIZER': 'adam',
           'SHUFFLE': True, 'WD': 0.0001},
 'WORKERS': 4}"""


def run_yaml_dead(out):
    """dead_relu: custom trainer, conv biases initialised to -0.2 in the whole backbone (no BN)."""
    from torch.utils.tensorboard import SummaryWriter
    seed = 5
    torch.manual_seed(seed)
    K, E, BS = 3, 15, 32
    X, Y, Xv, Pv = load_data(640, 160, K, seed=707, noise=0.35, distractors=4, amp_jitter=0.4)
    model = TinyHeatmapNet(K, c=16, bn=False)
    for m in model.backbone.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            nn.init.constant_(m.bias, -0.2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    relus = [m for m in model.backbone if isinstance(m, nn.ReLU)]
    conv_names = ["backbone.0", "backbone.3", "backbone.6", "backbone.9", "head"]
    zero_frac = {}

    def mk(i):
        def h(mod, inp, o):
            zero_frac[i] = (o <= 0).float().mean().item()
        return h
    for i, r in enumerate(relus):
        r.register_forward_hook(mk(i))
    tbdir = os.path.join(out, "tb")
    os.makedirs(tbdir, exist_ok=True)
    w = SummaryWriter(tbdir, flush_secs=3600)
    clk = FakeClock(datetime(2023, 9, 14, 20, 3, 51), seed)
    wall0 = 1694714631.0
    L = []

    def log(m):
        L.append("[%s] %s" % (clk.t.strftime("%H:%M:%S"), m))
    log("config: heatmap_tiny.yaml | device: cuda:0 | train 640 / val 160 images | 3 keypoints")
    log("model: LightHeatmapNet(c=16, norm=none) | params 16,851")
    n = len(X); n_iter = math.ceil(n / BS)
    g = torch.Generator().manual_seed(seed)
    step = 0
    for ep in range(1, E + 1):
        model.train()
        perm = torch.randperm(n, generator=g)
        el, ea = [], []
        for bi in range(n_iter):
            idx = perm[bi * BS:(bi + 1) * BS]
            o = model(X[idx])
            loss = F.mse_loss(o, Y[idx])
            opt.zero_grad(); loss.backward()
            per_layer = {}
            for nm, mod in zip(conv_names, [model.backbone[0], model.backbone[3], model.backbone[6], model.backbone[9], model.head]):
                per_layer[nm] = mod.weight.grad.norm().item()
            gn = grad_total_norm(model)
            opt.step(); step += 1
            clk.tick(0.052)
            acc = pose_pck_accuracy(o.detach(), Y[idx])
            el.append(loss.item()); ea.append(acc)
            wt = wall0 + (clk.t - datetime(2023, 9, 14, 20, 3, 51)).total_seconds()
            w.add_scalar("train/loss", loss.item(), step, walltime=wt)
            w.add_scalar("train/acc_pose", acc, step, walltime=wt)
            w.add_scalar("train/lr", 1e-3, step, walltime=wt)
            w.add_scalar("train/grad_norm", gn, step, walltime=wt)
            if step % 5 == 0:
                for nm, v in per_layer.items():
                    w.add_scalar("grad_norm/%s.weight" % nm, v, step, walltime=wt)
                for i in range(len(relus)):
                    w.add_scalar("act_zero_frac/backbone.relu%d" % (i + 1), zero_frac[i], step, walltime=wt)
            if bi % 10 == 0:
                log("ep %02d it %03d/%d  loss %.6f  acc_pose %.3f  grad_norm %.2e" % (ep, bi, n_iter, loss.item(), acc, gn))
        r = heatmap_eval(model, Xv, Pv, 2, [0.035, 0.035, 0.026], 900.0)
        vl = F.mse_loss(r["_out"], torch.tensor(gaussian_heatmaps(Pv, 16, 2, 1.0))).item()
        wt = wall0 + (clk.t - datetime(2023, 9, 14, 20, 3, 51)).total_seconds()
        for k2, v2 in [("val/loss", vl), ("val/AP", r["AP"]), ("val/AP50", r["AP .5"]), ("val/AR", r["AR"]), ("val/PCK@0.05", r["PCK"])]:
            w.add_scalar(k2, v2, step, walltime=wt)
        log("== epoch %d  train_loss %.6f  train_acc %.3f | val_loss %.6f  AP %.3f  AP50 %.3f  AR %.3f  PCK@0.05 %.3f" % (
            ep, np.mean(el), np.mean(ea), vl, r["AP"], r["AP .5"], r["AR"], r["PCK"]))
        clk.tick(2.0)
    w.close()
    for f in os.listdir(tbdir):
        os.rename(os.path.join(tbdir, f), os.path.join(tbdir, "events.out.tfevents.1694714631.dgx-a100-2.19381.0"))
    write(os.path.join(out, "heatmap_tiny.yaml"), CFG_DEAD_YAML)
    write(os.path.join(out, "train_log.txt"), "\n".join(L) + "\n")


CFG_DEAD_YAML = """experiment: heatmap_tiny_markers
seed: 5
data:
  root: data/markers_v2
  num_keypoints: 3
  input_size: [32, 32]
  heatmap_size: [16, 16]
  sigma: 1.0
  train_split: train   # 640 images
  val_split: val       # 160 images
model:
  name: LightHeatmapNet
  base_channels: 16
  norm: none
  activation: relu
  init:
    weight: kaiming_normal   # fan_out, relu
    bias: -0.2
  head:
    init_std: 0.001
loss:
  type: mse
optim:
  name: adam
  lr: 1.0e-3
  weight_decay: 0.0
train:
  epochs: 15
  batch_size: 32
  shuffle: true
log:
  tensorboard: tb/
  every: 10
  debug_stats: true   # grad norms / activation stats every 5 steps
"""


# ==================================================================================================
# shipped train.py scripts (run inside the run folder with sys.executable)
# ==================================================================================================

SCRIPT_NOZG = r'''"""Heatmap training for the 3-marker tracking set.

python train.py            -> writes train.log and metrics.csv in the current folder
"""
#@COMMON@

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
'''


SCRIPT_PREPROC = r'''# 3-point face landmark regressor (eyes + nose), direct coordinate regression
# usage: python train.py
import csv
#@COMMON@

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
'''


SCRIPT_EVALMODE = r'''"""keypoint heatmaps, 4 markers. logs json lines to train_log.jsonl (openpifpaf-ish), final eval -> final_eval.txt"""
import sys
#@COMMON@

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
'''


SCRIPT_SIGMOID = r'''"""Heatmap net for 3 markers, 8 conv layers, sigmoid heatmaps (values in [0,1] like the targets).

python train.py   -> train.log, grad_norms.csv, metrics.csv
"""
#@COMMON@

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
'''


SCRIPT_FLIP = r'''# 5-point facial landmarks (eyes, nose, mouth corners), heatmap regression
# trains with flip augmentation; writes train_log.txt
import random
#@COMMON@

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
'''


SCRIPT_NOISY = r'''"""hard marker set (low contrast, many distractors): SGD, small batches, noise augmentation.

run: python train.py    (writes metrics.csv + train_stdout.txt)
"""
#@COMMON@

SEED = 77
K = 3
EPOCHS = 40
BATCH = 8
LR = 0.5
MOMENTUM = 0.9
WD = 1e-4


class Hourglassish(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(c, 2 * c, 3, stride=2, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU())
        self.mid = nn.Sequential(nn.Conv2d(2 * c, 2 * c, 3, padding=2, dilation=2), nn.BatchNorm2d(2 * c), nn.ReLU(),
                                 nn.Conv2d(2 * c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU())
        self.head = nn.Conv2d(2 * c, K, 1)
        nn.init.normal_(self.head.weight, std=0.001)
        nn.init.zeros_(self.head.bias)

    def forward(self, x):
        return self.head(self.mid(self.down(self.stem(x))))


def main():
    torch.manual_seed(SEED)
    rng = np.random.RandomState(SEED)
    x, kp = make_blob_images(600, K, size=32, noise=0.5, distractors=6, amp_jitter=0.5, seed=71)
    xv, kpv = make_blob_images(200, K, size=32, noise=0.5, distractors=6, amp_jitter=0.5, seed=72)
    y = torch.from_numpy(gaussian_heatmaps(kp, 16, 2, 1.0))
    yv = torch.from_numpy(gaussian_heatmaps(kpv, 16, 2, 1.0))
    x = torch.from_numpy(x); xv = torch.from_numpy(xv)
    model = Hourglassish()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WD)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS, eta_min=LR * 0.05)
    g = torch.Generator().manual_seed(SEED)
    out = open("train_stdout.txt", "w")
    with open("metrics.csv", "w") as f:
        f.write("epoch,lr,loss,loss_std,acc_pose,val_loss,val_AP,val_AP50,val_AR,val_PCK@0.05\n")
    for ep in range(1, EPOCHS + 1):
        model.train()
        perm = torch.randperm(len(x), generator=g)
        L, A = [], []
        for i in range(0, len(x), BATCH):
            idx = perm[i:i + BATCH]
            xb = x[idx] + torch.from_numpy(rng.randn(len(idx), 1, 32, 32).astype(np.float32)) * 0.15
            o = model(xb)
            loss = F.mse_loss(o, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            L.append(loss.item()); A.append(pose_pck_accuracy(o.detach(), y[idx]))
            if (i // BATCH) % 15 == 0:
                out.write("ep %d it %d loss %.6f acc %.3f\n" % (ep, i // BATCH, loss.item(), A[-1]))
        lr = opt.param_groups[0]["lr"]
        sched.step()
        model.eval()
        with torch.no_grad():
            ov = model(xv)
        vloss = F.mse_loss(ov, yv).item()
        c, mv = decode_argmax(ov)
        pred = (c * 2).numpy()
        r = coco_style_ap(pred, kpv, mv.mean(-1).numpy(), 900.0, [0.035, 0.035, 0.026])
        pck = pck_px(pred, kpv, 1.6)
        line = "epoch %d lr %.4f loss %.6f (+-%.6f) acc_pose %.3f | val_loss %.6f AP %.3f AP50 %.3f AR %.3f PCK %.3f" % (
            ep, lr, np.mean(L), np.std(L), np.mean(A), vloss, r["AP"], r["AP .5"], r["AR"], pck)
        print(line)
        out.write(line + "\n"); out.flush()
        with open("metrics.csv", "a") as f:
            f.write("%d,%.5f,%.6f,%.6f,%.4f,%.6f,%.4f,%.4f,%.4f,%.4f\n" % (ep, lr, np.mean(L), np.std(L), np.mean(A), vloss,
                                                                        r["AP"], r["AP .5"], r["AR"], pck))


if __name__ == "__main__":
    main()
'''


# ==================================================================================================
# posts (what the user wrote when handing the run over)
# ==================================================================================================

POST_FLIP = """**[Question] face landmark model stuck at ~28% NME, loss won't go down**

Hi, I'm training a small FAN-style (one hourglass) heatmap model on our own 5-point face landmark set
(eyes, nose, mouth corners; 32x32 crops, 800 train / 250 val). Training runs without errors but the loss
hardly goes down at all, train acc never gets past ~0.38, and val NME is stuck around 28% with a failure
rate at 10% of ~76%. I already tried lowering the lr and training longer, no change.

Log is in `train_log.txt`, script is `train.py`. RMSprop 2.5e-4, batch 32, 20 epochs, MSE on 16x16 heatmaps.
Any idea what I'm doing wrong? The heatmaps for the eyes and the mouth corners look kind of smeared when I
plot them.
"""

POST_NOISY = """Hi all, sanity check please: this is my first run on the "hard" marker set (low contrast, lots of
distractor dots). SGD lr 0.5 momentum 0.9, batch 8, 40 epochs, cosine schedule, gaussian noise augmentation.
The per-iteration loss in `train_stdout.txt` jumps around a lot and the val numbers wobble from epoch to epoch,
so I'm not sure if this is training properly or if something is broken. `metrics.csv` has the per-epoch
values. Is this run ok, or should I change something?
"""

POST_LRHIGH = """mmpose 0.28, custom TinyConv backbone on my 3-marker dataset. The first 4 epochs look great
(loss going down, acc_pose ~0.7, val AP 0.55 at epoch 4), then everything falls apart: the loss goes back up,
acc_pose drops to 0 and val AP is exactly zero for the rest of the run. Config and log attached. What is
happening here?
"""

POST_UNSHUF = """Training on our 4-camera rig data with mmpose 1.x. The loss curve looks weird: within every
epoch it starts low and then climbs back up, every single epoch, like a saw. Val AP only gets to ~0.18 after
12 epochs. Config + log + vis_data attached. Is something wrong with my data?
"""

# ==================================================================================================
# run table
# ==================================================================================================

SPEC = {
    "run01": dict(truth="data_not_shuffled", fn=run_mm1_unshuffled, post=POST_UNSHUF,
                  symptom="Every epoch the training loss starts low and then climbs back up like a saw-tooth, and val AP stays low (~0.18); is my rig data broken?",
                  how="mmpose-1.x-style run; the 4 capture sessions (clean, noisy+distractors, inverted contrast, very noisy) are concatenated session by session and the train sampler has shuffle=False, so every epoch walks the sessions in the same order."),
    "run02": dict(truth="missing_zero_grad", script="SCRIPT_NOZG",
                  symptom="My heatmap model gets better for about one epoch and then the loss goes back up and the grad norm I print keeps growing every epoch.",
                  how="train.py calls optimizer.zero_grad() once before the loop and never inside train_one_epoch, so gradients accumulate across iterations (Adam 1e-3)."),
    "run03": dict(truth="healthy", fn=run_mm1_healthy,
                  symptom="First run of my TinyConv config on the 3-marker set, is this run ok?",
                  how="no fault: mmpose-1.x-style, Adam 1e-3 with linear warm-up and step decay at 14/18, shuffled, BN net."),
    "run04": dict(truth="preprocessing_mismatch", script="SCRIPT_PREPROC",
                  symptom="Training MSE and train NME go down nicely but validation NME is stuck at over 100% from the very first epoch.",
                  how="train dataset normalises landmark coordinates to [-1,1] around the image centre; the validation dataset class normalises them to [0,1] (x/w) and decodes predictions with *w, so val targets and decoding disagree with what the model learns."),
    "run05": dict(truth="lr_too_low", fn=run_hrnet_lr_low,
                  symptom="After 25 epochs the loss has barely moved and accuracy and AP are still near zero; is the model too small?",
                  how="HRNet-style config with Adam LR 0.000005 (5e-6) and a default-initialised final conv, so the heatmap loss creeps down almost linearly from its initial value."),
    "run06": dict(truth="eval_mode_forgotten", script="SCRIPT_EVALMODE",
                  symptom="Evaluating the same best checkpoint three times gives three different APs (0.22-0.25) and different keypoints for the same val image; which number is right?",
                  how="validate() runs under torch.no_grad() but never calls model.eval(), so Dropout2d(p=0.5) and batch-norm in train mode (val batch 8) are active during validation and the final re-evaluation."),
    "run07": dict(truth="overfitting", fn=run_mm0_overfit,
                  symptom="Training loss keeps going down to almost nothing but val AP/PCK peaked early and has been getting worse since.",
                  how="mmpose-0.x-style run on only 32 annotated frames, wide TinyConv (32 ch) without BN, no augmentation, fixed Adam 2e-3 for 200 epochs."),
    "run08": dict(truth="vanishing_gradients", script="SCRIPT_SIGMOID",
                  symptom="Loss drops in the first epochs and then flattens out around 0.012; the model never finds the markers (AP and PCK exactly 0) even after 25 epochs.",
                  how="8-conv network with Sigmoid after every conv and sigmoid heatmap outputs, no normalisation or skip connections; grad_norms.csv shows per-layer gradients shrinking by orders of magnitude toward the input."),
    "run09": dict(truth="lr_too_high", fn=run_mm0_lr_high, post=POST_LRHIGH,
                  symptom="Training looked great for the first 4 epochs (val AP 0.55), then the loss went back up and acc_pose and AP dropped to zero for the rest of the run.",
                  how="mmpose-0.x-style config with Adam lr=1.0 (linear warm-up over 300 iters); once the warm-up reaches the high lr the loss climbs to and above the all-zero level, with grad-norm spikes."),
    "run10": dict(truth="label_misalignment", script="SCRIPT_FLIP", post=POST_FLIP,
                  symptom="My face landmark model barely gets below its starting loss, train accuracy is stuck under 40% and val NME stays around 28% no matter what lr I use.",
                  how="the training dataset applies a random horizontal flip (p=0.5) to the image only; heatmaps/landmarks are not mirrored (nor left/right swapped), so half of the training pairs have targets at the wrong side."),
    "run11": dict(truth="dead_relu", fn=run_yaml_dead,
                  symptom="The loss is completely flat from the first step and AP stays at zero; nothing seems to train.",
                  how="custom trainer with a BN-free ReLU backbone whose conv biases are all initialised to -0.2 (config init.bias); almost all ReLUs output zero from step 0 (act_zero_frac 0.9-1.0 in tensorboard), backbone gradients are exactly zero."),
    "run12": dict(truth="healthy", script="SCRIPT_NOISY", post=POST_NOISY,
                  symptom="The loss jumps around a lot and val numbers wobble epoch to epoch; is this run ok?",
                  how="no fault: hard data (low contrast, many distractors), SGD lr 0.5 momentum 0.9, batch 8, noise augmentation, cosine schedule; noisy but steadily improving."),
}


def build(name):
    spec = SPEC[name]
    d = os.path.join(RUNS, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    t0 = _time.time()
    if "fn" in spec:
        torch.manual_seed(0)
        spec["fn"](d)
    else:
        code = globals()[spec["script"]].replace("#@COMMON@", COMMON.strip("\n"))
        write(os.path.join(d, "train.py"), code)
        env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        p = subprocess.run([sys.executable, "train.py"], cwd=d, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("%s failed:\n%s" % (name, p.stderr[-3000:]))
        for f in os.listdir(d):
            if f.endswith((".pth", ".pkl")):
                os.remove(os.path.join(d, f))
    if spec.get("post"):
        write(os.path.join(d, "post.md"), spec["post"])
    print("%s done in %.1fs" % (name, _time.time() - t0), flush=True)


def main(argv):
    torch.set_num_threads(1)
    names = argv or sorted(SPEC)
    os.makedirs(RUNS, exist_ok=True)
    for n in names:
        build(n)
    truth = {n: {"truth": SPEC[n]["truth"], "symptom": SPEC[n]["symptom"], "how": SPEC[n]["how"]} for n in sorted(SPEC)}
    write(os.path.join(HERE, "truth.json"), json.dumps(truth, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
