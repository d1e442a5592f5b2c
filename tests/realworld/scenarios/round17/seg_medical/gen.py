#!/usr/bin/env python
"""Generate 12 small segmentation training runs (synthetic CT-like phantoms).

Every run is produced by really executing a training script (written into the run
folder, executed there with sys.executable, removed afterwards for runs that do not
ship their code).  Usage:  python gen.py [runXX ...]
"""
import json, os, re, shutil, subprocess, sys, glob
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
WORK = os.path.join(HERE, "_work")
VENV_SITE = os.path.dirname(os.path.dirname(__import__("numpy").__file__))  # site-packages of this python

# ----------------------------------------------------------------------------- phantoms
def phantom(rng, size=32, n_fg=1, lesion_r=(3, 7), contrast=(40, 90), noise=25.0,
            n_les=(1, 3), bone=True, fov=False):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    img = np.full((size, size), -1000.0, np.float32)
    cy, cx = size / 2 + rng.uniform(-2, 2), size / 2 + rng.uniform(-2, 2)
    ry, rx = size * rng.uniform(0.36, 0.46), size * rng.uniform(0.38, 0.48)
    body = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1
    base = rng.normal(40, 8)
    img[body] = base
    mask = np.zeros((size, size), np.uint8)
    for _ in range(rng.integers(*n_les)):
        r = rng.uniform(*lesion_r)
        for _t in range(30):
            ly, lx = rng.uniform(0, size, 2)
            if ((ly - cy) / (ry - r)) ** 2 + ((lx - cx) / (rx - r)) ** 2 <= 1:
                break
        c = ((yy - ly) ** 2 + (xx - lx) ** 2) <= r * r
        img[c] = base + rng.uniform(*contrast)
        mask[c] = 1
    if n_fg >= 2:
        s = int(rng.integers(4, 9))
        for _t in range(30):
            y0, x0 = rng.integers(0, size - s, 2)
            if body[y0:y0 + s, x0:x0 + s].all() and mask[y0:y0 + s, x0:x0 + s].sum() == 0:
                break
        img[y0:y0 + s, x0:x0 + s] = base - rng.uniform(60, 110)
        mask[y0:y0 + s, x0:x0 + s] = 2
    if bone:
        by, bx = cy + ry * 0.7, cx + rng.uniform(-1.5, 1.5)
        b = (((yy - by) ** 2 + (xx - bx) ** 2) <= (size * 0.07) ** 2) & (mask == 0) & body
        img[b] = rng.uniform(700, 1300) + rng.normal(0, 60, b.sum())
    n = rng.normal(0, noise, (size, size)).astype(np.float32)
    k = np.ones(3) / 3
    n = np.apply_along_axis(lambda m: np.convolve(m, k, "same"), 0, n)
    n = np.apply_along_axis(lambda m: np.convolve(m, k, "same"), 1, n) * 2.2
    img = img + n * body
    if fov:
        f = ((yy - size / 2 + 0.5) ** 2 + (xx - size / 2 + 0.5) ** 2) > (size * 0.5) ** 2
        img[f] = -3024.0
    return np.round(img).astype(np.int16), mask


def patient_volume(rng, size=32, S=20):
    """A small 3-D 'patient': adjacent slices share anatomy, lesion appearance is patient specific."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    cy, cx = size / 2 + rng.uniform(-2, 2), size / 2 + rng.uniform(-2, 2)
    ry, rx = size * rng.uniform(0.34, 0.46), size * rng.uniform(0.36, 0.48)
    base = rng.normal(40, 15)
    sign = rng.choice([-1, 1]); con = sign * rng.uniform(25, 90)
    tex = rng.uniform(10, 35)
    lz = rng.uniform(S * 0.3, S * 0.7); lr_ = rng.uniform(4, 8); lzr = rng.uniform(S * 0.3, S * 0.5)
    ly, lx = cy + rng.uniform(-ry * 0.5, ry * 0.5), cx + rng.uniform(-rx * 0.5, rx * 0.5)
    vess = [(cy + rng.uniform(-ry * 0.6, ry * 0.6), cx + rng.uniform(-rx * 0.6, rx * 0.6),
             rng.uniform(1.5, 3), -sign * rng.uniform(20, 70) + rng.uniform(-10, 10)) for _ in range(2)]
    X, Y = [], []
    for z in range(S):
        img = np.full((size, size), -1000.0, np.float32)
        body = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1
        img[body] = base
        for vy, vx, vr, vc in vess:
            c = ((yy - vy - 0.1 * z) ** 2 + (xx - vx) ** 2) <= vr * vr
            img[c & body] = base + vc
        m = np.zeros((size, size), np.uint8)
        rz = lr_ * np.sqrt(max(0.0, 1 - ((z - lz) / lzr) ** 2))
        if rz > 0.8:
            c = ((yy - ly - 0.15 * (z - lz)) ** 2 + (xx - lx) ** 2) <= rz * rz
            img[c] = base + con; m[c] = 1
        img = img + rng.normal(0, tex, (size, size)) * body
        X.append(np.round(img).astype(np.int16)); Y.append(m)
    return X, Y


def save_cases(root, X, Y, img_fmt, lab_fmt, img_dir="imagesTr", lab_dir="labelsTr"):
    os.makedirs(os.path.join(root, img_dir), exist_ok=True)
    os.makedirs(os.path.join(root, lab_dir), exist_ok=True)
    for i, (x, y) in enumerate(zip(X, Y)):
        np.save(os.path.join(root, img_dir, img_fmt.format(i)), x)
        np.save(os.path.join(root, lab_dir, lab_fmt.format(i)), y)


def make_data(run):
    root = os.path.join(WORK, run)
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(root)
    seed = int(run[3:]) * 1000 + 17
    rng = np.random.default_rng(seed)
    if run == "run01":   # few labelled cases, harder contrast
        P = [phantom(rng, 32, 2, contrast=(25, 60), noise=45) for _ in range(60)]
        save_cases(root, [p[0] for p in P], [p[1] for p in P], "case_{:03d}_0000.npy", "case_{:03d}.npy")
        ids = ["case_%03d" % i for i in range(60)]
        json.dump([{"train": ids[:12], "val": ids[12:]}], open(os.path.join(root, "splits_final.json"), "w"), indent=4)
    elif run == "run07":
        P = [phantom(rng, 32, 2) for _ in range(60)]
        save_cases(root, [p[0] for p in P], [p[1] for p in P], "case_{:03d}_0000.npy", "case_{:03d}.npy")
        ids = ["case_%03d" % i for i in range(60)]
        perm = rng.permutation(60)
        folds = []
        for k in range(5):
            va = sorted(ids[j] for j in perm[k * 12:(k + 1) * 12])
            folds.append({"train": sorted(set(ids) - set(va)), "val": va})
        json.dump(folds, open(os.path.join(root, "splits_final.json"), "w"), indent=4)
    elif run == "run12":
        ids, X, Y = [], [], []
        for p in range(10):
            xs, ys = patient_volume(rng)
            for z, (x, y) in enumerate(zip(xs, ys)):
                ids.append("pat%02d_z%02d" % (p, z)); X.append(x); Y.append(y)
        os.makedirs(os.path.join(root, "imagesTr")); os.makedirs(os.path.join(root, "labelsTr"))
        for i, x, y in zip(ids, X, Y):
            np.save(os.path.join(root, "imagesTr", i + "_0000.npy"), x)
            np.save(os.path.join(root, "labelsTr", i + ".npy"), y)
        tid, TX, TY = [], [], []
        for p in range(10, 16):
            xs, ys = patient_volume(rng)
            for z, (x, y) in enumerate(zip(xs, ys)):
                tid.append("pat%02d_z%02d" % (p, z)); TX.append(x); TY.append(y)
        os.makedirs(os.path.join(root, "imagesTs")); os.makedirs(os.path.join(root, "labelsTs"))
        for i, x, y in zip(tid, TX, TY):
            np.save(os.path.join(root, "imagesTs", i + "_0000.npy"), x)
            np.save(os.path.join(root, "labelsTs", i + ".npy"), y)
        perm = rng.permutation(len(ids))   # nnU-Net default: KFold over case identifiers
        folds = []
        for k in range(5):
            va = sorted(ids[j] for j in perm[k * 40:(k + 1) * 40])
            folds.append({"train": sorted(set(ids) - set(va)), "val": va})
        json.dump(folds, open(os.path.join(root, "splits_final.json"), "w"), indent=4)
    elif run == "run02":
        P = [phantom(rng, 32, 1) for _ in range(120)]
        save_cases(root, [p[0] for p in P], [p[1] for p in P], "lesion_{:03d}.npy", "lesion_{:03d}.npy")
    elif run == "run03":
        P = [phantom(rng, 48, 1, lesion_r=(4, 9)) for _ in range(150)]
        Y = [p[1].copy() for p in P]
        for i in rng.choice(np.arange(120, 150), 7, replace=False):   # re-exported 0/255 masks
            Y[i] = (Y[i] > 0).astype(np.uint8) * 255
        save_cases(root, [p[0] for p in P], Y, "ct_{:04d}.npy", "ct_{:04d}.npy")
    elif run == "run04":
        P = [phantom(rng, 32, 1, fov=True) for _ in range(260)]
        save_cases(root, [p[0] for p in P], [p[1] for p in P], "s{:04d}.npy", "s{:04d}.npy", "images", "masks")
    elif run in ("run05", "run09"):
        P = [phantom(rng, 32, 1) for _ in range(260)]
        save_cases(root, [p[0] for p in P], [p[1] for p in P], "{:04d}.npy", "{:04d}.npy", "train_img", "train_mask")
    elif run == "run06":
        P = [phantom(rng, 32, 1) for _ in range(400)]
        save_cases(root, [p[0] for p in P], [p[1] for p in P], "img_{}.npy", "mask_{:03d}.npy", "images", "masks")
    elif run == "run08":
        P = [phantom(rng, 32, 2) for _ in range(260)]
        save_cases(root, [p[0] for p in P], [p[1] for p in P], "{:04d}.npy", "{:04d}.npy", "img", "seg")
    elif run == "run10":
        P = [phantom(rng, 48, 1, lesion_r=(1.5, 3), contrast=(40, 80), noise=30) for _ in range(240)]
        save_cases(root, [p[0] for p in P], [p[1] for p in P], "{:04d}.npy", "{:04d}.npy", "images", "labels")
    elif run == "run11":
        P = [phantom(rng, 32, 1, contrast=(30, 60), fov=True) for _ in range(240)]
        save_cases(root, [p[0] for p in P], [p[1] for p in P], "vol{:03d}.npy", "vol{:03d}_seg.npy")
    return root

# ----------------------------------------------------------------------------- model source snippets
def unet_src(norm="bn", act="nn.ReLU(inplace=True)", feats=(16, 32, 64), head_softmax=False,
             name="UNet"):
    norm_line = {"bn": "nn.BatchNorm2d(cout), ", "in": "nn.InstanceNorm2d(cout, affine=True), ",
                 None: ""}[norm]
    fwd_ret = "        return torch.softmax(self.head(d1), dim=1)\n" if head_softmax else \
              "        return self.head(d1)\n"
    return f'''
def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), {norm_line}{act},
        nn.Conv2d(cout, cout, 3, padding=1), {norm_line}{act},
    )


class {name}(nn.Module):
    def __init__(self, in_channels=1, num_classes=2, features={tuple(feats)}):
        super().__init__()
        f1, f2, f3 = features
        self.enc1 = conv_block(in_channels, f1)
        self.enc2 = conv_block(f1, f2)
        self.bottleneck = conv_block(f2, f3)
        self.up2 = nn.ConvTranspose2d(f3, f2, 2, stride=2)
        self.dec2 = conv_block(2 * f2, f2)
        self.up1 = nn.ConvTranspose2d(f2, f1, 2, stride=2)
        self.dec1 = conv_block(2 * f1, f1)
        self.head = nn.Conv2d(f1, num_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        b = self.bottleneck(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
{fwd_ret}'''


# ----------------------------------------------------------------------------- nnU-Net-like trainer
NNUNET_SRC = r'''
import json, os, sys, time
from datetime import datetime, timedelta
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
P = json.load(open(sys.argv[1]))
DATA = os.environ["DATA_DIR"]
torch.manual_seed(P["seed"])
rng = np.random.default_rng(P["seed"])
NC = P["num_classes"]

T0 = datetime(*P["t0"])
_t = time.perf_counter()
def now():
    return T0 + timedelta(seconds=(time.perf_counter() - _t) * P["time_scale"])

out_dir = P["out_dir"]
os.makedirs(out_dir, exist_ok=True)
logname = "training_log_%d_%d_%d_%02.0d_%02.0d_%02.0d.txt" % (T0.year, T0.month, T0.day, T0.hour, T0.minute, T0.second)
logf = open(os.path.join(out_dir, logname), "w")
def log(*args, stamp=True):
    s = (f"{now()}: " if stamp else "") + "".join(str(a) + " " for a in args)
    logf.write(s + "\n"); logf.flush()

logf.write("\n#######################################################################\n"
           "Please cite the following paper when using nnU-Net:\n"
           "Isensee, F., Jaeger, P. F., Kohl, S. A., Petersen, J., & Maier-Hein, K. H. (2021). nnU-Net: a self-configuring method "
           "for deep learning-based biomedical image segmentation. Nature methods, 18(2), 203-211.\n"
           "#######################################################################\n \n")

splits = json.load(open(os.path.join(DATA, "splits_final.json")))
tr_ids, va_ids = splits[0]["train"], splits[0]["val"]
def load(ids, sub="Tr"):
    X = np.stack([np.load(os.path.join(DATA, "images" + sub, i + "_0000.npy")) for i in ids]).astype(np.float32)
    Y = np.stack([np.load(os.path.join(DATA, "labels" + sub, i + ".npy")) for i in ids]).astype(np.int64)
    return X, Y
Xtr, Ytr = load(tr_ids)
Xva, Yva = load(va_ids)

fg = Xtr[Ytr > 0]
props = {"max": float(fg.max()), "mean": float(fg.mean()), "median": float(np.median(fg)), "min": float(fg.min()),
         "percentile_00_5": float(np.percentile(fg, 0.5)), "percentile_99_5": float(np.percentile(fg, 99.5)),
         "std": float(fg.std())}
def ct_norm(x):
    x = np.clip(x, props["percentile_00_5"], props["percentile_99_5"])
    return (x - props["mean"]) / max(props["std"], 1e-8)

size = Xtr.shape[-1]
feats = P["features"]
config = {"data_identifier": "nnUNetPlans_2d", "preprocessor_name": "DefaultPreprocessor", "batch_size": P["batch_size"],
          "patch_size": [size, size], "median_image_size_in_voxels": [float(size), float(size)], "spacing": [0.78125, 0.78125],
          "normalization_schemes": ["CTNormalization"], "use_mask_for_norm": [False],
          "resampling_fn_data": "resample_data_or_seg_to_shape", "resampling_fn_seg": "resample_data_or_seg_to_shape",
          "resampling_fn_data_kwargs": {"is_seg": False, "order": 3, "order_z": 0, "force_separate_z": None},
          "resampling_fn_seg_kwargs": {"is_seg": True, "order": 1, "order_z": 0, "force_separate_z": None},
          "resampling_fn_probabilities": "resample_data_or_seg_to_shape",
          "resampling_fn_probabilities_kwargs": {"is_seg": False, "order": 1, "order_z": 0, "force_separate_z": None},
          "architecture": {"network_class_name": "dynamic_network_architectures.architectures.unet.PlainConvUNet",
                           "arch_kwargs": {"n_stages": 3, "features_per_stage": feats, "conv_op": "torch.nn.modules.conv.Conv2d",
                                           "kernel_sizes": [[3, 3]] * 3, "strides": [[1, 1], [2, 2], [2, 2]],
                                           "n_conv_per_stage": [2, 2, 2], "n_conv_per_stage_decoder": [2, 2], "conv_bias": True,
                                           "norm_op": "torch.nn.modules.instancenorm.InstanceNorm2d",
                                           "norm_op_kwargs": {"eps": 1e-05, "affine": True}, "dropout_op": None, "dropout_op_kwargs": None,
                                           "nonlin": "torch.nn.LeakyReLU", "nonlin_kwargs": {"inplace": True}},
                           "_kw_requires_import": ["conv_op", "norm_op", "dropout_op", "nonlin"]},
          "batch_dice": True}
plans = {"dataset_name": P["dataset_name"], "plans_name": "nnUNetPlans", "original_median_spacing_after_transp": [1.0, 0.78125, 0.78125],
         "original_median_shape_after_transp": [1, size, size], "image_reader_writer": "SimpleITKIO", "transpose_forward": [0, 1, 2],
         "transpose_backward": [0, 1, 2], "configurations": {"2d": config}, "experiment_planner_used": "ExperimentPlanner",
         "label_manager": "LabelManager", "foreground_intensity_properties_per_channel": {"0": props}}
json.dump(plans, open(os.path.join(P["plans_dir"], "plans.json"), "w"), indent=4)

log("do_dummy_2d_data_aug: False")
log("Using splits from existing split file:", P["split_path"])
log("The split file contains %d splits." % len(splits))
log("Desired fold for training: 0")
log("This split has %d training and %d validation cases." % (len(tr_ids), len(va_ids)))
logf.write("\nThis is the configuration used by this training:\nConfiguration name: 2d\n " + str(config) + " \n \n")
glob_plans = {k: v for k, v in plans.items() if k != "configurations"}
logf.write("These are the global plan.json settings:\n " + str(glob_plans) + " \n \n")
log("unpacking dataset...")
log("unpacking done...")
log("Unable to plot network architecture: nnUNet_compile is enabled!")

xtr = torch.tensor(ct_norm(Xtr)[:, None]); ytr = torch.tensor(Ytr)
xva = torch.tensor(ct_norm(Xva)[:, None]); yva = torch.tensor(Yva)

@@UNET@@

net = UNet(1, NC, tuple(feats))
for m in net.modules():
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.kaiming_normal_(m.weight, a=1e-2)
        nn.init.zeros_(m.bias)
opt = torch.optim.SGD(net.parameters(), P["initial_lr"], weight_decay=3e-5, momentum=0.99, nesterov=True)

def dc_ce(logits, y):
    ce = F.cross_entropy(logits, y)
    p = logits.softmax(1)[:, 1:]
    oh = F.one_hot(y, NC).permute(0, 3, 1, 2).float()[:, 1:]
    inter = (p * oh).sum((0, 2, 3)); den = p.sum((0, 2, 3)) + oh.sum((0, 2, 3))
    dc = (2 * inter + 1e-5) / (den + 1e-5)
    return ce - dc.mean()

def augment(x, y):
    if not P["augment"]:
        return x, y
    if rng.random() < 0.5: x, y = x.flip(-1), y.flip(-1)
    if rng.random() < 0.5: x, y = x.flip(-2), y.flip(-2)
    k = int(rng.integers(0, 4)); x, y = torch.rot90(x, k, (-2, -1)), torch.rot90(y, k, (-2, -1))
    x = x * float(rng.uniform(0.9, 1.1)) + float(rng.normal(0, 0.05))
    return x, y

def fmt_dice(d):
    if P.get("np_repr"):
        return "[" + ", ".join("np.float32(%s)" % str(np.float32(round(float(v), 4))) for v in d) + "]"
    return str([round(float(v), 4) for v in d])

E = P["num_epochs"]; ITERS = P["iters"]; BS = P["batch_size"]
ema = None; best_ema = -1
hist = {"train_loss": [], "val_loss": [], "pseudo_dice": [], "ema": [], "lr": []}
for epoch in range(E):
    log("")
    log("Epoch %d" % epoch)
    lr = P["initial_lr"] * (1 - epoch / E) ** 0.9
    for g in opt.param_groups:
        g["lr"] = lr
    log("Current learning rate: %s" % np.round(lr, decimals=5))
    t_ep = time.perf_counter()
    net.train(); losses = []
    for it in range(ITERS):
        idx = torch.tensor(rng.integers(0, len(xtr), BS))
        x, y = augment(xtr[idx], ytr[idx])
        l = dc_ce(net(x), y)
        opt.zero_grad(); l.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 12)
        opt.step(); losses.append(l.item())
    net.eval(); vl = []; tp = np.zeros(NC - 1); fp = np.zeros(NC - 1); fn = np.zeros(NC - 1)
    with torch.no_grad():
        for i in range(0, len(xva), BS):
            o = net(xva[i:i + BS]); yy = yva[i:i + BS]
            vl.append(dc_ce(o, yy).item())
            pr = o.argmax(1)
            for c in range(1, NC):
                tp[c - 1] += ((pr == c) & (yy == c)).sum().item()
                fp[c - 1] += ((pr == c) & (yy != c)).sum().item()
                fn[c - 1] += ((pr != c) & (yy == c)).sum().item()
    pd = [2 * a / (2 * a + b + c) if (2 * a + b + c) > 0 else 0.0 for a, b, c in zip(tp, fp, fn)]
    log("train_loss", np.round(np.mean(losses), decimals=4))
    log("val_loss", np.round(np.mean(vl), decimals=4))
    log("Pseudo dice", fmt_dice(pd))
    log("Epoch time: %s s" % np.round((time.perf_counter() - t_ep) * P["time_scale"], decimals=2))
    m = float(np.nanmean(pd))
    ema = m if ema is None else ema * 0.9 + 0.1 * m
    if ema > best_ema:
        best_ema = ema
        log("Yayy! New best EMA pseudo Dice: %s" % np.round(ema, decimals=4))
    hist["train_loss"].append(float(np.mean(losses))); hist["val_loss"].append(float(np.mean(vl)))
    hist["pseudo_dice"].append(pd); hist["ema"].append(ema); hist["lr"].append(lr)
log("Training done.")

def case_metrics(pred, ref):
    res = {}
    for c in range(1, NC):
        p = pred == c; r = ref == c
        TP = int((p & r).sum()); FP = int((p & ~r).sum()); FN = int((~p & r).sum()); TN = int((~p & ~r).sum())
        d = 2 * TP / (2 * TP + FP + FN) if (2 * TP + FP + FN) > 0 else float("nan")
        iou = TP / (TP + FP + FN) if (TP + FP + FN) > 0 else float("nan")
        res[str(c)] = {"Dice": d, "FN": FN, "FP": FP, "IoU": iou, "TN": TN, "TP": TP, "n_pred": TP + FP, "n_ref": TP + FN}
    return res

def summary(ids, X, Y, pred_dir, ref_dir):
    with torch.no_grad():
        pr = net(torch.tensor(ct_norm(X)[:, None])).argmax(1).numpy()
    per = [{"metrics": case_metrics(p, r), "prediction_file": os.path.join(pred_dir, i + ".nii.gz"),
            "reference_file": os.path.join(ref_dir, i + ".nii.gz")} for i, p, r in zip(ids, pr, Y)]
    mean = {}
    for c in range(1, NC):
        mean[str(c)] = {k: float(np.nanmean([q["metrics"][str(c)][k] for q in per])) for k in per[0]["metrics"]["1"]}
    fgm = {k: float(np.mean([mean[str(c)][k] for c in range(1, NC)])) for k in mean["1"]}
    return {"foreground_mean": fgm, "mean": mean, "metric_per_case": per}

log("Using splits from existing split file:", P["split_path"])
log("The split file contains %d splits." % len(splits))
log("Desired fold for training: 0")
log("This split has %d training and %d validation cases." % (len(tr_ids), len(va_ids)))
for i in va_ids:
    log("predicting %s" % i)
s = summary(va_ids, Xva, Yva, P["val_pred_dir"], P["gt_dir"])
os.makedirs(os.path.join(out_dir, "validation"), exist_ok=True)
json.dump(s, open(os.path.join(out_dir, "validation", "summary.json"), "w"), indent=4)
log("Validation complete")
log("Mean Validation Dice: ", s["foreground_mean"]["Dice"])
if P.get("test"):
    tids = sorted(f[:-9] for f in os.listdir(os.path.join(DATA, "imagesTs")))
    Xt, Yt = load(tids, "Ts")
    st = summary(tids, Xt, Yt, P["test"]["pred_dir"], P["test"]["ref_dir"])
    json.dump(st, open(P["test"]["out"], "w"), indent=4)
debug = {"batch_size": BS, "configuration_name": "2d", "current_epoch": E, "dataset_name": P["dataset_name"],
         "device": "cuda:0", "enable_deep_supervision": False, "fold": 0, "initial_lr": P["initial_lr"],
         "num_epochs": E, "num_iterations_per_epoch": ITERS, "num_val_iterations_per_epoch": P.get("val_iters", 50),
         "oversample_foreground_percent": 0.33, "save_every": 50, "weight_decay": 3e-05,
         "trainer_name": P["trainer_name"], "plans_identifier": "nnUNetPlans", "torch_version": "2.3.1+cu121",
         "cudnn_version": 8902, "gpu_name": P.get("gpu", "NVIDIA GeForce RTX 3090"), "hostname": P.get("host", "ws-gpu01"),
         "_best_ema": best_ema, "was_initialized": True}
json.dump(debug, open(os.path.join(out_dir, "debug.json"), "w"), indent=4)
'''

# ----------------------------------------------------------------------------- run02: MONAI-style, healthy but slow/noisy
RUN02_SRC = r'''import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)

data_dir = os.environ.get("DATA_DIR", "/data/Task_LesionCT")
train_images = sorted(glob.glob(os.path.join(data_dir, "imagesTr", "*.npy")))
train_labels = sorted(glob.glob(os.path.join(data_dir, "labelsTr", "*.npy")))
data_dicts = [{"image": i, "label": l} for i, l in zip(train_images, train_labels)]
train_files, val_files = data_dicts[:-30], data_dicts[-30:]

A_MIN, A_MAX = -175.0, 250.0


class CTSliceDataset(Dataset):
    def __init__(self, files, train=False):
        self.files = files
        self.train = train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        img = np.load(self.files[i]["image"]).astype(np.float32)
        lab = np.load(self.files[i]["label"]).astype(np.int64)
        img = (np.clip(img, A_MIN, A_MAX) - A_MIN) / (A_MAX - A_MIN)
        if self.train:
            if np.random.rand() < 0.5:
                img, lab = img[:, ::-1], lab[:, ::-1]
            if np.random.rand() < 0.5:
                img, lab = img[::-1, :], lab[::-1, :]
            img = img + np.random.normal(0, 0.03, img.shape).astype(np.float32)
        return torch.from_numpy(img.copy())[None], torch.from_numpy(lab.copy())

@@UNET@@

def dice_ce_loss(logits, target):
    ce = F.cross_entropy(logits, target)
    prob = logits.softmax(1)[:, 1]
    t = (target == 1).float()
    inter = (prob * t).sum((1, 2))
    dice = (2 * inter + 1e-5) / (prob.sum((1, 2)) + t.sum((1, 2)) + 1e-5)
    return ce + (1 - dice).mean()


def mean_dice(pred, target):
    p = pred == 1
    t = target == 1
    inter = (p & t).sum((1, 2)).float()
    den = (p.sum((1, 2)) + t.sum((1, 2))).float()
    d = torch.where(den > 0, 2 * inter / den.clamp(min=1), torch.full_like(den, float("nan")))
    return torch.nanmean(d).item()


train_ds = CTSliceDataset(train_files, train=True)
val_ds = CTSliceDataset(val_files)
train_loader = DataLoader(train_ds, batch_size=2, shuffle=True, num_workers=0)
val_loader = DataLoader(val_ds, batch_size=1, num_workers=0)

model = UNet(in_channels=1, num_classes=2, features=(8, 16, 32))
optimizer = torch.optim.Adam(model.parameters(), 1e-4)
writer = SummaryWriter(log_dir="runs")

max_epochs = 60
val_interval = 2
best_metric = -1
best_metric_epoch = -1
for epoch in range(max_epochs):
    print("-" * 10)
    print(f"epoch {epoch + 1}/{max_epochs}")
    model.train()
    epoch_loss = 0
    step = 0
    for inputs, labels in train_loader:
        step += 1
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = dice_ce_loss(outputs, labels)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        print(f"{step}/{len(train_ds) // train_loader.batch_size}, train_loss: {loss.item():.4f}")
    epoch_loss /= step
    writer.add_scalar("train_loss", epoch_loss, epoch + 1)
    print(f"epoch {epoch + 1} average loss: {epoch_loss:.4f}")

    if (epoch + 1) % val_interval == 0:
        model.eval()
        dices = []
        with torch.no_grad():
            for val_inputs, val_labels in val_loader:
                val_outputs = model(val_inputs).argmax(1)
                dices.append(mean_dice(val_outputs, val_labels))
        metric = float(np.nanmean(dices))
        if metric > best_metric:
            best_metric = metric
            best_metric_epoch = epoch + 1
            torch.save(model.state_dict(), "best_metric_model.pth")
            print("saved new best metric model")
        print(
            f"current epoch: {epoch + 1} current mean dice: {metric:.4f}"
            f"\nbest mean dice: {best_metric:.4f} "
            f"at epoch: {best_metric_epoch}"
        )
        writer.add_scalar("val_mean_dice", metric, epoch + 1)

print(f"train completed, best_metric: {best_metric:.4f} at epoch: {best_metric_epoch}")
writer.close()
'''

# ----------------------------------------------------------------------------- run03: MONAI-style, 48x48, DiceCE, val every 5
RUN03_SRC = r'''import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)

with open("config.yaml") as f:
    cfg = yaml.safe_load(f)

torch.manual_seed(cfg["seed"])
np.random.seed(cfg["seed"])

data_dir = os.environ.get("DATA_DIR", cfg["data_dir"])
images = sorted(glob.glob(os.path.join(data_dir, "imagesTr", "*.npy")))
labels = sorted(glob.glob(os.path.join(data_dir, "labelsTr", "*.npy")))
data_dicts = [{"image": i, "label": l} for i, l in zip(images, labels)]
n_val = cfg["num_val"]
train_files, val_files = data_dicts[:-n_val], data_dicts[-n_val:]


class SegDataset(Dataset):
    def __init__(self, files, train=False):
        self.files = files
        self.train = train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        img = np.load(self.files[i]["image"]).astype(np.float32)
        lab = np.load(self.files[i]["label"]).astype(np.int64)
        lo, hi = cfg["window"]
        img = (np.clip(img, lo, hi) - lo) / (hi - lo)
        if self.train and np.random.rand() < 0.5:
            img, lab = img[:, ::-1], lab[:, ::-1]
        return torch.from_numpy(img.copy())[None], torch.from_numpy(lab.copy())

@@UNET@@

class DiceCELoss(nn.Module):
    def __init__(self, num_classes, lambda_dice=1.0, lambda_ce=1.0):
        super().__init__()
        self.num_classes = num_classes
        self.lambda_dice = lambda_dice
        self.lambda_ce = lambda_ce

    def forward(self, logits, target):
        ce = F.cross_entropy(logits, target)
        prob = logits.softmax(1)
        onehot = F.one_hot(target, self.num_classes).permute(0, 3, 1, 2).float()
        inter = (prob * onehot)[:, 1:].sum((2, 3))
        den = (prob + onehot)[:, 1:].sum((2, 3))
        dice = 1 - ((2 * inter + 1e-5) / (den + 1e-5)).mean()
        return self.lambda_ce * ce + self.lambda_dice * dice


def dice_score(pred, target):
    p = pred == 1
    t = target == 1
    inter = (p & t).sum((1, 2)).float()
    den = (p.sum((1, 2)) + t.sum((1, 2))).float()
    return (2 * inter / den.clamp(min=1)).tolist()


train_ds = SegDataset(train_files, train=True)
val_ds = SegDataset(val_files)
train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=0)
val_loader = DataLoader(val_ds, batch_size=4, num_workers=0)

model = UNet(in_channels=1, num_classes=cfg["num_classes"], features=tuple(cfg["features"]))
loss_function = DiceCELoss(cfg["num_classes"])
optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])

max_epochs = cfg["max_epochs"]
val_interval = cfg["val_interval"]
best_metric, best_metric_epoch = -1, -1
for epoch in range(max_epochs):
    print("-" * 10)
    print(f"epoch {epoch + 1}/{max_epochs}")
    model.train()
    epoch_loss, step = 0, 0
    for inputs, targets in train_loader:
        step += 1
        optimizer.zero_grad()
        loss = loss_function(model(inputs), targets)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        print(f"{step}/{len(train_ds) // train_loader.batch_size}, train_loss: {loss.item():.4f}")
    epoch_loss /= step
    print(f"epoch {epoch + 1} average loss: {epoch_loss:.4f}")

    if (epoch + 1) % val_interval == 0:
        model.eval()
        val_loss, dices = 0.0, []
        with torch.no_grad():
            for val_inputs, val_targets in val_loader:
                val_outputs = model(val_inputs)
                val_loss += loss_function(val_outputs, val_targets).item()
                dices += dice_score(val_outputs.argmax(1), val_targets)
        val_loss /= len(val_loader)
        metric = float(np.mean(dices))
        if metric > best_metric:
            best_metric, best_metric_epoch = metric, epoch + 1
            torch.save(model.state_dict(), "best_metric_model.pth")
            print("saved new best metric model")
        print(f"current epoch: {epoch + 1} val loss: {val_loss:.4f} current mean dice: {metric:.4f}"
              f"\nbest mean dice: {best_metric:.4f} at epoch: {best_metric_epoch}")

print(f"train completed, best_metric: {best_metric:.4f} at epoch: {best_metric_epoch}")
'''

RUN03_CFG = """seed: 1234
data_dir: /data/liver_lesion_2d
num_val: 30
window: [-175, 250]
num_classes: 2
features: [16, 32, 64]
batch_size: 8
lr: 0.001
weight_decay: 0.0001
max_epochs: 50
val_interval: 5
loss: DiceCELoss
"""
# ----------------------------------------------------------------------------- run04: custom loop, per-epoch table + metrics.csv
RUN04_SRC = r'''import argparse
import glob
import os
import time

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="config.yaml")
args = parser.parse_args()
cfg = yaml.safe_load(open(args.config))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

root = os.environ.get("DATA_DIR", cfg["data"]["root"])
imgs = sorted(glob.glob(os.path.join(root, "images", "*.npy")))
msks = sorted(glob.glob(os.path.join(root, "masks", "*.npy")))
n_val = cfg["data"]["n_val"]


def train_transform(img, mask):
    lo, hi = cfg["data"]["hu_window"]
    img = (np.clip(img, lo, hi) - lo) / (hi - lo)
    if rng.random() < 0.5:
        img, mask = img[:, ::-1], mask[:, ::-1]
    if rng.random() < 0.5:
        img, mask = img[::-1], mask[::-1]
    return img, mask


def val_transform(img, mask):
    img = (img - img.mean()) / (img.std() + 1e-6)
    return img, mask


class NpySegDataset(Dataset):
    def __init__(self, img_paths, mask_paths, transform):
        self.img_paths, self.mask_paths, self.transform = img_paths, mask_paths, transform

    def __len__(self):
        return len(self.img_paths)

    def __getitem__(self, i):
        img = np.load(self.img_paths[i]).astype(np.float32)
        mask = np.load(self.mask_paths[i]).astype(np.float32)
        img, mask = self.transform(img, mask)
        return torch.from_numpy(np.ascontiguousarray(img))[None], torch.from_numpy(np.ascontiguousarray(mask))[None]

@@UNET@@

def bce_dice(logits, target):
    bce = F.binary_cross_entropy_with_logits(logits, target)
    p = torch.sigmoid(logits)
    dice = (2 * (p * target).sum() + 1) / (p.sum() + target.sum() + 1)
    return bce + 1 - dice


def scores(logits, target):
    pred = (logits > 0).float()
    tp = (pred * target).sum().item()
    fp = (pred * (1 - target)).sum().item()
    fn = ((1 - pred) * target).sum().item()
    return tp, fp, fn


train_ds = NpySegDataset(imgs[:-n_val], msks[:-n_val], train_transform)
val_ds = NpySegDataset(imgs[-n_val:], msks[-n_val:], val_transform)
train_dl = DataLoader(train_ds, batch_size=cfg["train"]["batch_size"], shuffle=True)
val_dl = DataLoader(val_ds, batch_size=cfg["train"]["batch_size"])

model = UNet(in_channels=1, num_classes=1, features=tuple(cfg["model"]["features"]))
opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["train"]["epochs"])

rows = []
print(f"train: {len(train_ds)} slices | val: {len(val_ds)} slices")
print(f"{'epoch':>5} | {'lr':>8} | {'train_loss':>10} | {'train_dice':>10} | {'val_loss':>8} | {'val_dice':>8} | {'val_iou':>7} | {'time':>5}")
print("-" * 86)
best = 0.0
for epoch in range(cfg["train"]["epochs"]):
    t0 = time.time()
    model.train()
    tl, ttp, tfp, tfn = 0.0, 0, 0, 0
    for x, y in train_dl:
        out = model(x)
        loss = bce_dice(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(x)
        a, b, c = scores(out.detach(), y)
        ttp, tfp, tfn = ttp + a, tfp + b, tfn + c
    model.eval()
    vl, vtp, vfp, vfn = 0.0, 0, 0, 0
    with torch.no_grad():
        for x, y in val_dl:
            out = model(x)
            vl += bce_dice(out, y).item() * len(x)
            a, b, c = scores(out, y)
            vtp, vfp, vfn = vtp + a, vfp + b, vfn + c
    lr = opt.param_groups[0]["lr"]
    sched.step()
    row = {"epoch": epoch, "lr": lr, "train_loss": tl / len(train_ds),
           "train_dice": 2 * ttp / max(2 * ttp + tfp + tfn, 1),
           "val_loss": vl / len(val_ds), "val_dice": 2 * vtp / max(2 * vtp + vfp + vfn, 1),
           "val_iou": vtp / max(vtp + vfp + vfn, 1)}
    rows.append(row)
    print(f"{epoch:>5} | {lr:>8.2e} | {row['train_loss']:>10.4f} | {row['train_dice']:>10.4f} | {row['val_loss']:>8.4f} | "
          f"{row['val_dice']:>8.4f} | {row['val_iou']:>7.4f} | {time.time() - t0:>4.1f}s")
    if row["val_dice"] > best:
        best = row["val_dice"]
        torch.save(model.state_dict(), "best.pt")
    pd.DataFrame(rows).to_csv("metrics.csv", index=False)
print(f"best val dice {best:.4f}")
'''

RUN04_CFG = """seed: 7
data:
  root: /mnt/datasets/kidney_ct_slices
  n_val: 60
  hu_window: [-175, 250]
model:
  name: unet_small
  features: [16, 32, 64]
train:
  batch_size: 16
  lr: 0.001
  epochs: 30
  loss: bce_dice
"""

# ----------------------------------------------------------------------------- run06: MONAI-style, images/ and masks/
RUN06_SRC = r'''import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(42)

root = os.environ.get("DATA_DIR", "/home/shared/phantom_seg")
image_files = sorted(glob.glob(os.path.join(root, "images", "*.npy")))
mask_files = sorted(glob.glob(os.path.join(root, "masks", "*.npy")))
print(f"found {len(image_files)} images and {len(mask_files)} masks")


def load_image(path):
    img = np.load(path).astype(np.float32)
    return (np.clip(img, -175, 250) + 175) / 425


images = torch.tensor(np.stack([load_image(p) for p in image_files]))[:, None]
masks = torch.tensor(np.stack([np.load(p) for p in mask_files])).long()
n_train = 320
train_ds = TensorDataset(images[:n_train], masks[:n_train])
val_ds = TensorDataset(images[n_train:], masks[n_train:])
train_loader = DataLoader(train_ds, batch_size=16, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=16)

@@UNET@@

def dice_ce(logits, target):
    ce = F.cross_entropy(logits, target)
    p = logits.softmax(1)[:, 1]
    t = (target == 1).float()
    dice = (2 * (p * t).sum() + 1e-5) / (p.sum() + t.sum() + 1e-5)
    return ce + 1 - dice


model = UNet(in_channels=1, num_classes=2, features=(16, 32, 64))
optimizer = torch.optim.Adam(model.parameters(), 1e-3)

max_epochs = 20
val_interval = 1
best_metric, best_metric_epoch = -1, -1
for epoch in range(max_epochs):
    print("-" * 10)
    print(f"epoch {epoch + 1}/{max_epochs}")
    model.train()
    epoch_loss, step = 0, 0
    for x, y in train_loader:
        step += 1
        if torch.rand(1).item() < 0.5:
            x, y = x.flip(-1), y.flip(-1)
        k = int(torch.randint(0, 4, (1,)))
        x, y = torch.rot90(x, k, (-2, -1)), torch.rot90(y, k, (-2, -1))
        optimizer.zero_grad()
        loss = dice_ce(model(x), y)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        print(f"{step}/{len(train_ds) // train_loader.batch_size}, train_loss: {loss.item():.4f}")
    epoch_loss /= step
    print(f"epoch {epoch + 1} average loss: {epoch_loss:.4f}")
    if (epoch + 1) % val_interval == 0:
        model.eval()
        inter, denom = 0.0, 0.0
        with torch.no_grad():
            for x, y in val_loader:
                pred = model(x).argmax(1)
                inter += ((pred == 1) & (y == 1)).sum().item()
                denom += (pred == 1).sum().item() + (y == 1).sum().item()
        metric = 2 * inter / max(denom, 1)
        if metric > best_metric:
            best_metric, best_metric_epoch = metric, epoch + 1
            torch.save(model.state_dict(), "best_metric_model.pth")
            print("saved new best metric model")
        print(f"current epoch: {epoch + 1} current mean dice: {metric:.4f}"
              f"\nbest mean dice: {best_metric:.4f} at epoch: {best_metric_epoch}")
print(f"train completed, best_metric: {best_metric:.4f} at epoch: {best_metric_epoch}")
'''
# ----------------------------------------------------------------------------- run08: custom loop, 3 classes, TB + table
RUN08_SRC = r'''import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
SEED = 3
EPOCHS = 40
BATCH = 16
LR = 1e-3
CLASSES = ["background", "lesion", "cyst"]
torch.manual_seed(SEED)
np.random.seed(SEED)

root = os.environ.get("DATA_DIR", "./data")
ids = sorted(f[:-4] for f in os.listdir(os.path.join(root, "img")))
val_ids, train_ids = ids[:60], ids[60:]


class Slices(Dataset):
    def __init__(self, ids, aug=False):
        self.ids, self.aug = ids, aug

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        x = np.load(os.path.join(root, "img", self.ids[i] + ".npy")).astype(np.float32)
        y = np.load(os.path.join(root, "seg", self.ids[i] + ".npy")).astype(np.int64)
        x = (np.clip(x, -200, 300) + 200) / 500
        if self.aug:
            k = np.random.randint(4)
            x, y = np.rot90(x, k), np.rot90(y, k)
        return torch.from_numpy(x.copy())[None], torch.from_numpy(y.copy())

@@UNET@@

def per_class(pred, y, n):
    dice, iou = [], []
    for c in range(1, n):
        p, t = pred == c, y == c
        inter = (p & t).sum().item()
        union = (p | t).sum().item()
        s = p.sum().item() + t.sum().item()
        dice.append(2 * inter / s if s else 0.0)
        iou.append(inter / union if union else 0.0)
    return dice, iou


train_dl = DataLoader(Slices(train_ids, aug=True), batch_size=BATCH, shuffle=True)
val_dl = DataLoader(Slices(val_ids), batch_size=BATCH)
model = SegNet(in_channels=1, num_classes=len(CLASSES), features=(16, 32, 64))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
writer = SummaryWriter("tb")

step = 0
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    model.train()
    losses = []
    for x, y in train_dl:
        out = model(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        writer.add_scalar("train/loss_step", loss.item(), step)
        step += 1
    model.eval()
    vloss, preds, gts = [], [], []
    with torch.no_grad():
        for x, y in val_dl:
            out = model(x)
            vloss.append(criterion(out, y).item())
            preds.append(out.argmax(1))
            gts.append(y)
    dice, iou = per_class(torch.cat(preds), torch.cat(gts), len(CLASSES))
    writer.add_scalar("train/loss", np.mean(losses), epoch)
    writer.add_scalar("val/loss", np.mean(vloss), epoch)
    for c, d, j in zip(CLASSES[1:], dice, iou):
        writer.add_scalar(f"val/dice_{c}", d, epoch)
        writer.add_scalar(f"val/iou_{c}", j, epoch)
    print(f"Epoch {epoch:3d}/{EPOCHS} ({time.time() - t0:.1f}s)  train_loss={np.mean(losses):.4f}  val_loss={np.mean(vloss):.4f}")
    print("    +------------+--------+--------+")
    print("    | class      |  Dice  |  IoU   |")
    print("    +------------+--------+--------+")
    for c, d, j in zip(CLASSES[1:], dice, iou):
        print(f"    | {c:<10} | {d:.4f} | {j:.4f} |")
    print(f"    | {'mean':<10} | {np.mean(dice):.4f} | {np.mean(iou):.4f} |")
    print("    +------------+--------+--------+")
writer.close()
torch.save(model.state_dict(), "segnet_last.pt")
'''

# ----------------------------------------------------------------------------- run11: MONAI-style, HU volumes, TB
RUN11_SRC = r'''import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
np.random.seed(cfg["seed"])

data_dir = os.environ.get("DATA_DIR", cfg["data_dir"])
images = sorted(glob.glob(os.path.join(data_dir, "imagesTr", "vol???.npy")))
labels = sorted(glob.glob(os.path.join(data_dir, "labelsTr", "vol???_seg.npy")))
files = [{"image": i, "label": l} for i, l in zip(images, labels)]
train_files, val_files = files[:-cfg["num_val"]], files[-cfg["num_val"]:]


class CTDataset(Dataset):
    def __init__(self, files, train=False):
        self.files, self.train = files, train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        img = np.load(self.files[i]["image"]).astype(np.float32)
        seg = np.load(self.files[i]["label"]).astype(np.int64)
        if self.train and np.random.rand() < cfg["flip_prob"]:
            img, seg = img[:, ::-1], seg[:, ::-1]
        return torch.from_numpy(img.copy())[None], torch.from_numpy(seg.copy())

@@UNET@@

def init_weights(m):
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.kaiming_normal_(m.weight, a=0.01)
        nn.init.zeros_(m.bias)


def dice_ce_loss(logits, target):
    ce = F.cross_entropy(logits, target)
    p = logits.softmax(1)[:, 1]
    t = (target == 1).float()
    dice = (2 * (p * t).sum() + 1) / (p.sum() + t.sum() + 1)
    return ce + 1 - dice


train_ds = CTDataset(train_files, train=True)
val_ds = CTDataset(val_files)
train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
val_loader = DataLoader(val_ds, batch_size=cfg["batch_size"])

model = UNet(in_channels=1, num_classes=2, features=tuple(cfg["features"]))
model.apply(init_weights)
optimizer = torch.optim.Adam(model.parameters(), cfg["lr"])
writer = SummaryWriter(log_dir="tb_logs")

max_epochs = cfg["max_epochs"]
best_metric, best_metric_epoch = -1, -1
global_step = 0
for epoch in range(max_epochs):
    print("-" * 10)
    print(f"epoch {epoch + 1}/{max_epochs}")
    model.train()
    epoch_loss, step = 0, 0
    for inputs, targets in train_loader:
        step += 1
        optimizer.zero_grad()
        loss = dice_ce_loss(model(inputs), targets)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        optimizer.step()
        epoch_loss += loss.item()
        writer.add_scalar("train/loss", loss.item(), global_step)
        writer.add_scalar("train/grad_norm", grad_norm.item(), global_step)
        global_step += 1
        print(f"{step}/{len(train_ds) // train_loader.batch_size}, train_loss: {loss.item():.4f}")
    epoch_loss /= step
    print(f"epoch {epoch + 1} average loss: {epoch_loss:.4f}")
    writer.add_scalar("train/epoch_loss", epoch_loss, epoch + 1)
    if (epoch + 1) % cfg["val_interval"] == 0:
        model.eval()
        d = []
        with torch.no_grad():
            for x, y in val_loader:
                pred = model(x).argmax(1)
                inter = ((pred == 1) & (y == 1)).sum((1, 2)).float()
                den = ((pred == 1).sum((1, 2)) + (y == 1).sum((1, 2))).float()
                d += (2 * inter / den.clamp(min=1)).tolist()
        metric = float(np.mean(d))
        writer.add_scalar("val/mean_dice", metric, epoch + 1)
        if metric > best_metric:
            best_metric, best_metric_epoch = metric, epoch + 1
            torch.save(model.state_dict(), "best_metric_model.pth")
            print("saved new best metric model")
        print(f"current epoch: {epoch + 1} current mean dice: {metric:.4f}"
              f"\nbest mean dice: {best_metric:.4f} at epoch: {best_metric_epoch}")
print(f"train completed, best_metric: {best_metric:.4f} at epoch: {best_metric_epoch}")
writer.close()
'''

RUN11_CFG = """seed: 0
data_dir: /data/abdomen_ct/2d_slices
num_val: 40
flip_prob: 0.5
features: [8, 16, 32]
batch_size: 10
lr: 0.001
max_epochs: 40
val_interval: 1
"""
# ----------------------------------------------------------------------------- smp.utils-style trainer (run05, run09)
SMP_SRC = r'''
import json, os, sys, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
P = json.load(open(sys.argv[1]))
torch.manual_seed(P["seed"])
rng = np.random.default_rng(P["seed"])
DATA = os.environ["DATA_DIR"]
names = sorted(os.listdir(os.path.join(DATA, "train_img")))
X = np.stack([np.load(os.path.join(DATA, "train_img", n)) for n in names]).astype(np.float32)
Y = np.stack([np.load(os.path.join(DATA, "train_mask", n)) for n in names]).astype(np.float32)
X = (np.clip(X, -175, 250) + 175) / 425
x = torch.tensor(X[:, None]); y = torch.tensor(Y[:, None])
ntr = len(x) - P["n_valid"]

@@UNET@@

model = UNet(1, 1, tuple(P["features"]))
if P.get("kaiming"):
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
            nn.init.kaiming_normal_(m.weight, a=0.01); nn.init.zeros_(m.bias)
if P["optimizer"] == "adam":
    opt = torch.optim.Adam(model.parameters(), lr=P["lr"])
else:
    opt = torch.optim.SGD(model.parameters(), lr=P["lr"], momentum=P["momentum"])
writer = SummaryWriter(P["tb_dir"])

relus = [(n, m) for n, m in model.named_modules() if isinstance(m, (nn.ReLU, nn.LeakyReLU))]
acts = {}
if P.get("act_stats"):
    for n, m in relus:
        m.register_forward_hook(lambda mod, inp, out, n=n: acts.__setitem__(n, out.detach()))

def loss_fn(logits, t):
    p = torch.sigmoid(logits)
    dice = 1 - (2 * (p * t).sum() + 1) / (p.sum() + t.sum() + 1)
    return dice + F.binary_cross_entropy_with_logits(logits, t)

def iou_score(logits, t):
    pr = (torch.sigmoid(logits) > 0.5).float()
    inter = (pr * t).sum(); union = pr.sum() + t.sum() - inter
    return ((inter + 1e-7) / (union + 1e-7)).item()

def fmt_time(s):
    return "%02d:%02d" % (int(s) // 60, int(s) % 60)

def bar(stage, n, el, logs):
    s = ", ".join("{} - {:.4}".format(k, v) for k, v in logs.items())
    rate = n / max(el, 1e-6)
    return f"{stage}: 100%|██████████| {n}/{n} [{fmt_time(el)}<00:00, {rate:6.2f}it/s, {s}]"

LN = "bce_dice_loss"
bs = P["batch_size"]; step = 0; max_score = 0
for epoch in range(P["epochs"]):
    print("\nEpoch: {}".format(epoch))
    model.train(); t0 = time.time(); L = []; I = []; G = []
    perm = torch.tensor(rng.permutation(ntr))
    nb = (ntr + bs - 1) // bs
    for b in range(nb):
        idx = perm[b * bs:(b + 1) * bs]
        if P.get("warmup_epochs"):
            frac = min(1.0, step / (P["warmup_epochs"] * nb))
            for g in opt.param_groups:
                g["lr"] = P["lr"] * (P.get("warmup_start", 0.04) + (1 - P.get("warmup_start", 0.04)) * frac)
        out = model(x[idx]); loss = loss_fn(out, y[idx])
        opt.zero_grad(); loss.backward()
        gn = torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in model.parameters() if p.grad is not None)).item()
        if P.get("act_stats"):
            for n, p in model.named_parameters():
                if n.endswith("weight") and p.grad is not None and step % 5 == 0:
                    writer.add_scalar("grad_norm_layer/" + n, p.grad.norm().item(), step)
        opt.step()
        L.append(loss.item()); I.append(iou_score(out.detach(), y[idx])); G.append(gn)
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("train/grad_norm", gn, step)
        writer.add_scalar("train/lr", opt.param_groups[0]["lr"], step)
        step += 1
    print(bar("train", nb, time.time() - t0, {LN: np.mean(L), "iou_score": np.nanmean(I)}))
    model.eval(); t0 = time.time(); VL = []; VI = []; zero = {n: [] for n, _ in relus}
    with torch.no_grad():
        for i in range(ntr, len(x)):
            out = model(x[i:i + 1]); VL.append(loss_fn(out, y[i:i + 1]).item()); VI.append(iou_score(out, y[i:i + 1]))
            if P.get("act_stats"):
                for n, _ in relus:
                    zero[n].append((acts[n] <= 0).float().mean().item())
    print(bar("valid", len(x) - ntr, time.time() - t0, {LN: np.mean(VL), "iou_score": np.nanmean(VI)}))
    writer.add_scalar("valid/loss", np.mean(VL), epoch)
    writer.add_scalar("valid/iou_score", np.nanmean(VI), epoch)
    writer.add_scalar("train/epoch_loss", np.mean(L), epoch)
    writer.add_scalar("train/iou_score", np.nanmean(I), epoch)
    if P.get("act_stats"):
        for n, _ in relus:
            writer.add_scalar("activations_zero_fraction/" + n, float(np.mean(zero[n])), epoch)
    if np.nanmean(VI) > max_score:
        max_score = np.nanmean(VI)
        torch.save(model.state_dict(), "best_model.pth")
        print("Model saved!")
writer.close()
'''

# ----------------------------------------------------------------------------- Lightning-style trainer (run10)
LIGHTNING_SRC = r'''
import json, os, sys, time
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
P = json.load(open(sys.argv[1]))
torch.manual_seed(P["seed"])
rng = np.random.default_rng(P["seed"])
DATA = os.environ["DATA_DIR"]
names = sorted(os.listdir(os.path.join(DATA, "images")))
X = np.stack([np.load(os.path.join(DATA, "images", n)) for n in names]).astype(np.float32)
Y = np.stack([np.load(os.path.join(DATA, "labels", n)) for n in names]).astype(np.int64)
X = (np.clip(X, -160, 240) + 160) / 400
x = torch.tensor(X[:, None]); y = torch.tensor(Y)
nv = P["n_val"]; ntr = len(x) - nv
counts = np.bincount(Y[:ntr].ravel(), minlength=2).astype(np.float64)
class_weights = counts / counts.sum()

@@UNET@@

model = UNet(1, 2, tuple(P["features"]))
w = torch.tensor(class_weights, dtype=torch.float32)
opt = torch.optim.Adam(model.parameters(), lr=P["lr"])
vdir = os.path.join("lightning_logs", "version_0")
os.makedirs(vdir, exist_ok=True)
with open(os.path.join(vdir, "hparams.yaml"), "w") as f:
    f.write("in_channels: 1\nnum_classes: 2\nfeatures:\n" + "".join(f"- {v}\n" for v in P["features"]) +
            f"lr: {P['lr']}\nbatch_size: {P['batch_size']}\nloss: weighted_ce\nclass_weights:\n" +
            "".join(f"- {v:.6f}\n" for v in class_weights) + "window:\n- -160\n- 240\n")
nparams = sum(p.numel() for p in model.parameters())
print("GPU available: True (cuda), used: True")
print("TPU available: False, using: 0 TPU cores")
print("HPU available: False, using: 0 HPUs")
print("LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]")
print("")
print("  | Name      | Type             | Params | Mode ")
print("-------------------------------------------------------")
print(f"0 | model     | UNet             | {nparams/1000:.1f} K | train")
print("1 | criterion | CrossEntropyLoss | 0      | train")
print("-------------------------------------------------------")
print(f"{nparams/1000:.1f} K     Trainable params")
print("0         Non-trainable params")
print(f"{nparams/1000:.1f} K     Total params")
print(f"{nparams*4/1e6:.3f}     Total estimated model params size (MB)")
print("")
print("Sanity Checking DataLoader 0: 100%|██████████| 2/2 [00:00<00:00, 11.52it/s]")

def run_val():
    model.eval(); L = []; tp = fp = fn = 0
    with torch.no_grad():
        for i in range(ntr, len(x), P["batch_size"]):
            o = model(x[i:i + P["batch_size"]]); t = y[i:i + P["batch_size"]]
            L.append(F.cross_entropy(o, t, weight=w).item())
            pr = o.argmax(1)
            tp += ((pr == 1) & (t == 1)).sum().item(); fp += ((pr == 1) & (t == 0)).sum().item(); fn += ((pr == 0) & (t == 1)).sum().item()
    d = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else 0.0
    iou = tp / (tp + fp + fn) if (tp + fp + fn) else 0.0
    return float(np.mean(L)), d, iou

rows = []; step = 0; bs = P["batch_size"]; nb = (ntr + bs - 1) // bs
nvb = (nv + bs - 1) // bs
for epoch in range(P["epochs"]):
    model.train(); t0 = time.time(); L = []
    perm = torch.tensor(rng.permutation(ntr))
    for b in range(nb):
        idx = perm[b * bs:(b + 1) * bs]
        loss = F.cross_entropy(model(x[idx]), y[idx], weight=w)
        opt.zero_grad(); loss.backward(); opt.step()
        L.append(loss.item()); step += 1
        if step % P["log_every_n_steps"] == 0:
            rows.append({"epoch": epoch, "step": step - 1, "train_loss_step": loss.item()})
    vl, vd, vi = run_val()
    rows.append({"epoch": epoch, "step": step - 1, "val_dice": vd, "val_iou": vi, "val_loss": vl})
    rows.append({"epoch": epoch, "step": step - 1, "train_loss_epoch": float(np.mean(L))})
    el = time.time() - t0
    print(f"Epoch {epoch}: 100%|██████████| {nb + nvb}/{nb + nvb} [00:{int(el):02d}<00:00, {(nb + nvb)/el:.2f}it/s, v_num=0, "
          f"train_loss_step={L[-1]:.3f}, val_loss={vl:.3f}, val_dice={vd:.3f}, val_iou={vi:.3f}, train_loss_epoch={np.mean(L):.3f}]")
print(f"`Trainer.fit` stopped: `max_epochs={P['epochs']}` reached.")
cols = ["epoch", "step", "train_loss_epoch", "train_loss_step", "val_dice", "val_iou", "val_loss"]
pd.DataFrame(rows).reindex(columns=cols).to_csv(os.path.join(vdir, "metrics.csv"), index=False)
vl, vd, vi = run_val()
bar = "━" * 27
print(f"┏{bar}┳{bar}┓")
print(f"┃{'Validate metric':^27}┃{'DataLoader 0':^27}┃")
print(f"┡{bar}╇{bar}┩")
for k, v in [("val_dice", vd), ("val_iou", vi), ("val_loss", vl)]:
    print(f"│{k:^27}│{v:^27.6f}│")
print(f"└{'─'*27}┴{'─'*27}┘")
'''
# ----------------------------------------------------------------------------- run specifications
LEAKY = "nn.LeakyReLU(0.01, inplace=True)"
RELU = "nn.ReLU(inplace=True)"
NNU_UNET = unet_src("in", LEAKY, (16, 32, 64))


def dataset_json(labels, n):
    return json.dumps({"channel_names": {"0": "CT"}, "labels": labels, "numTraining": n,
                       "file_ending": ".nii.gz", "overwrite_image_reader_writer": "SimpleITKIO"}, indent=4)


RUNS_SPEC = {
    "run01": dict(kind="nnunet", ship=False, unet=NNU_UNET, params=dict(
        seed=1, num_classes=3, t0=[2024, 3, 5, 10, 14, 11, 718543], time_scale=1.0, out_dir="fold_0", plans_dir=".",
        dataset_name="Dataset503_PhantomAbd", features=[16, 32, 64], batch_size=8, num_epochs=100, iters=5,
        initial_lr=0.01, augment=False, trainer_name="nnUNetTrainerNoDA",
        split_path="/home/mkeller/nnUNet_preprocessed/Dataset503_PhantomAbd/splits_final.json",
        val_pred_dir="/home/mkeller/nnUNet_results/Dataset503_PhantomAbd/nnUNetTrainerNoDA__nnUNetPlans__2d/fold_0/validation",
        gt_dir="/home/mkeller/nnUNet_preprocessed/Dataset503_PhantomAbd/gt_segmentations"),
        extra={"dataset.json": dataset_json({"background": 0, "lesion": 1, "cyst": 2}, 60)}, copy_split=True,
        truth="overfitting",
        symptom="val_loss has been climbing since roughly epoch 20 while train_loss keeps dropping, and the pseudo dice stopped improving - what is going on?",
        how="nnU-Net-style 2D run with only 12 training cases (48 held out), no data augmentation (NoDA trainer), 100 epochs: the net memorises the training slices."),
    "run02": dict(kind="script", ship=True, src=RUN02_SRC, unet=unet_src("bn", RELU, (8, 16, 32)), log="train.log",
        truth="healthy",
        symptom="the per-step train_loss jumps around a lot and the mean dice only creeps up slowly - is this run ok?",
        how="healthy: MONAI-style loop, batch size 2 and Adam lr 1e-4 give noisy per-step losses and slow but steady improvement."),
    "run03": dict(kind="script", ship=True, src=RUN03_SRC, unet=unet_src("bn", RELU, (16, 32, 64)), log="train_log.txt",
        extra={"config.yaml": RUN03_CFG},
        truth="label_out_of_range",
        symptom="training runs fine for 5 epochs and then crashes as soon as the first validation starts.",
        how="7 of the 30 validation masks were exported with foreground value 255 instead of 1; cross_entropy in the validation loss raises 'Target 255 is out of bounds' at the first validation (epoch 5)."),
    "run04": dict(kind="script", ship=True, src=RUN04_SRC, unet=unet_src("bn", RELU, (16, 32, 64)), log="train_output.txt",
        extra={"config.yaml": RUN04_CFG},
        truth="preprocessing_mismatch",
        symptom="train dice climbs to ~0.98 but validation dice is stuck around 0.4-0.45 from the very first epoch and val loss never really goes down.",
        how="training images are HU-windowed to [-175,250] and scaled to [0,1]; val_transform z-scores each raw slice (mean/std incl. air and -3024 padding), so BatchNorm nets see a different input distribution at validation."),
    "run05": dict(kind="smp", ship=False, unet=unet_src(None, LEAKY, (16, 32, 64)), log="train.log", params=dict(
        seed=5, n_valid=60, features=[16, 32, 64], optimizer="adam", lr=0.03, warmup_epochs=8, batch_size=16, epochs=25, tb_dir="logs"),
        extra={"config.yaml": "model:\n  arch: Unet\n  encoder: custom_3stage\n  features: [16, 32, 64]\n  activation: leaky_relu\n  norm: none\n"
                              "loss: bce_dice_loss\nmetrics: [iou_score]\noptimizer:\n  name: Adam\n  lr: 0.03\nscheduler:\n  name: linear_warmup\n  warmup_epochs: 8\n  start_factor: 0.04\n"
                              "train:\n  batch_size: 16\n  epochs: 25\n  valid_batch_size: 1\n  n_valid: 60\n"},
        truth="lr_too_high",
        symptom="loss went down nicely for the first 5 epochs and then blew up to enormous values, and IoU dropped to ~0 and never came back.",
        how="Adam on a norm-free U-Net (LeakyReLU) warmed up linearly from 1.2e-3 to a peak lr of 0.03 over 8 epochs: the loss falls and IoU reaches ~0.67 while the lr is small, then once the lr passes ~0.02 (epoch 5) loss and grad-norm explode by orders of magnitude and never recover."),
    "run06": dict(kind="script", ship=True, src=RUN06_SRC, unet=unet_src("bn", RELU, (16, 32, 64)), log="log.txt",
        truth="label_misalignment",
        symptom="the loss stalls around 0.9 after a few epochs and val dice has been flat at ~0.45 since epoch 2, no matter how long I train.",
        how="image files are img_{i}.npy (no zero padding), masks mask_{i:03d}.npy; both lists are sorted() lexicographically so img_10 gets paired with mask_002 etc. - almost every image is paired with another slice's mask. The net can only learn the marginal ('lesion somewhere in the body') map: loss plateaus high, val dice flat at the chance level of a body-wide blob (~0.45)."),
    "run07": dict(kind="nnunet", ship=False, unet=NNU_UNET, params=dict(
        seed=7, num_classes=3, t0=[2024, 6, 18, 16, 2, 47, 112093], time_scale=1.0, out_dir="fold_0", plans_dir=".",
        dataset_name="Dataset512_KidneyPhantom", features=[16, 32, 64], batch_size=8, num_epochs=50, iters=20,
        initial_lr=0.01, augment=True, trainer_name="nnUNetTrainer_50epochs", np_repr=True,
        split_path="/scratch/nnunet/nnUNet_preprocessed/Dataset512_KidneyPhantom/splits_final.json",
        val_pred_dir="/scratch/nnunet/nnUNet_results/Dataset512_KidneyPhantom/nnUNetTrainer_50epochs__nnUNetPlans__2d/fold_0/validation",
        gt_dir="/scratch/nnunet/nnUNet_preprocessed/Dataset512_KidneyPhantom/gt_segmentations", gpu="NVIDIA A100-SXM4-40GB", host="dgx-02"),
        extra={"dataset.json": dataset_json({"background": 0, "tumor": 1, "cyst": 2}, 60)}, copy_split=False,
        truth="healthy", symptom="is this run ok?",
        how="healthy: nnU-Net-style 2D run, 48/12 split, SGD poly lr, flips/rot90 augmentation, converges to pseudo dice ~0.9."),
    "run08": dict(kind="script", ship=True, src=RUN08_SRC, unet=unet_src("bn", RELU, (16, 32, 64), head_softmax=True, name="SegNet"),
        log="stdout.log",
        truth="double_softmax",
        symptom="dice looks fine in the end but the cross-entropy loss flattens out around 0.57 and never gets anywhere near 0 - is something off with my training?",
        how="SegNet.forward returns torch.softmax(logits) and the loss is nn.CrossEntropyLoss, which applies log_softmax again; with 3 classes the loss cannot go below ln(1+2/e)=0.551 and gradients are damped (train loss floors at ~0.566 while argmax dice still reaches ~0.97)."),
    "run09": dict(kind="smp", ship=False, unet=unet_src(None, RELU, (16, 32, 64)), log="training.log", params=dict(
        seed=9, n_valid=60, features=[16, 32, 64], optimizer="sgd", lr=0.5, momentum=0.9, batch_size=16, epochs=30,
        tb_dir="tensorboard", act_stats=True),
        extra={"config.yaml": "model:\n  arch: Unet\n  encoder: custom_3stage\n  features: [16, 32, 64]\n  activation: relu\n  norm: none\n"
                              "loss: bce_dice_loss\nmetrics: [iou_score]\noptimizer:\n  name: SGD\n  lr: 0.5\n  momentum: 0.9\n"
                              "train:\n  batch_size: 16\n  epochs: 30\n  valid_batch_size: 1\n  n_valid: 60\n"},
        truth="dead_relu",
        symptom="after the first epoch the loss stops changing and the model predicts nothing at all (IoU 0).",
        how="plain-ReLU U-Net without normalisation, SGD lr 0.5 / momentum 0.9: the first updates push the decoder's ReLU pre-activations negative; the last block's ReLUs become 100 % zero, gradients to all earlier layers are exactly 0 and the output is a constant."),
    "run10": dict(kind="lightning", ship=False, unet=unet_src("bn", RELU, (8, 16, 32)), log="train.log", params=dict(
        seed=10, n_val=40, features=[8, 16, 32], lr=1e-3, batch_size=16, epochs=25, log_every_n_steps=10),
        truth="mode_collapse",
        symptom="train and val loss go down nicely every epoch but val dice is exactly 0 the whole time.",
        how="class weights for the weighted cross-entropy were computed as class frequencies (counts/sum = [0.99, 0.01]) instead of inverse frequencies, on tiny (~1 % of pixels) lesions: the net predicts background everywhere while the loss keeps decreasing."),
    "run11": dict(kind="script", ship=True, src=RUN11_SRC, unet=unet_src(None, LEAKY, (8, 16, 32)), log="train.log",
        extra={"config.yaml": RUN11_CFG},
        truth="unnormalized_inputs",
        symptom="the first iterations have losses in the hundreds, training is erratic, and the final dice is well below what my colleague gets on the same slices.",
        how="raw HU values (-3024 padding, air -1000, bone ~+1000) are fed straight into a norm-free He-initialised U-Net with no windowing/scaling: initial loss ~100s with grad norms ~1e3-1e4, then slow, noisy training to a lower dice."),
    "run12": dict(kind="nnunet", ship=False, unet=NNU_UNET, params=dict(
        seed=12, num_classes=2, t0=[2024, 9, 2, 8, 41, 5, 403771], time_scale=1.0, out_dir="fold_0", plans_dir=".",
        dataset_name="Dataset520_LiverLesion2D", features=[16, 32, 64], batch_size=8, num_epochs=50, iters=20,
        initial_lr=0.01, augment=True, trainer_name="nnUNetTrainer_50epochs",
        split_path="/data/nnUNet_preprocessed/Dataset520_LiverLesion2D/splits_final.json",
        val_pred_dir="/data/nnUNet_results/Dataset520_LiverLesion2D/nnUNetTrainer_50epochs__nnUNetPlans__2d/fold_0/validation",
        gt_dir="/data/nnUNet_preprocessed/Dataset520_LiverLesion2D/gt_segmentations",
        test=dict(pred_dir="/data/predictions/Dataset520_imagesTs", ref_dir="/data/nnUNet_raw/Dataset520_LiverLesion2D/labelsTs",
                  out="test_summary.json")),
        extra={"dataset.json": dataset_json({"background": 0, "lesion": 1}, 200)}, copy_split=True,
        truth="data_leakage",
        symptom="pseudo dice is above 0.9 after a few epochs, but on our separate test patients the dice is much lower - why?",
        how="3-D volumes of 10 patients were converted to 200 single-slice 'cases' (patNN_zMM); nnU-Net's default random KFold over case ids puts neighbouring slices of the same patients in both train and val; the test set (6 new patients) shows the real, much lower dice."),
}

FAKE_HOME = {"run01": "/home/mkeller/phantom_abd", "run02": "/home/anna/projects/lesion_seg", "run03": "/home/dev/liver2d",
             "run04": "/home/rohit/kidney-seg", "run05": "/home/lw/seg_smp", "run06": "/home/shared/seg_baseline",
             "run07": "/scratch/nnunet/work", "run08": "/home/tomas/segnet", "run09": "/home/jz/smp_unet",
             "run10": "/home/pk/lesion_lightning", "run11": "/home/maria/ct_unet", "run12": "/data/work/liver2d"}
FAKE_DATA = {"run02": "/data/Task_LesionCT", "run03": "/data/liver_lesion_2d", "run04": "/mnt/datasets/kidney_ct_slices",
             "run06": "/home/shared/phantom_seg", "run08": "/home/tomas/segnet/data", "run11": "/data/abdomen_ct/2d_slices"}
FAKE_SITE = "/home/user/miniconda3/envs/seg/lib/python3.11/site-packages"


def scrub(rd, run, data_root):
    for dp, _, fs in os.walk(rd):
        for f in fs:
            p = os.path.join(dp, f)
            if "tfevents" in f:
                continue
            try:
                t = open(p, encoding="utf-8").read()
            except (UnicodeDecodeError, IsADirectoryError):
                continue
            t2 = t.replace(rd, FAKE_HOME[run]).replace(data_root, FAKE_DATA.get(run, "/data/" + run))
            t2 = t2.replace(VENV_SITE, FAKE_SITE).replace(sys.executable, "python")
            if t2 != t:
                open(p, "w", encoding="utf-8").write(t2)
    for p in glob.glob(os.path.join(rd, "**", "events.out.tfevents.*"), recursive=True):
        parts = os.path.basename(p).split(".")
        # events.out.tfevents.<ts>.<host...>.<pid>.<n>
        new = ".".join(parts[:4] + ["gpu-node07", parts[-2], parts[-1]])
        os.rename(p, os.path.join(os.path.dirname(p), new))


def run_one(run):
    spec = RUNS_SPEC[run]
    data_root = make_data(run)
    rd = os.path.join(RUNS, run)
    if os.path.isdir(rd):
        shutil.rmtree(rd)
    os.makedirs(rd)
    for k, v in spec.get("extra", {}).items():
        open(os.path.join(rd, k), "w").write(v)
    if spec.get("copy_split"):
        shutil.copy(os.path.join(data_root, "splits_final.json"), os.path.join(rd, "splits_final.json"))
    env = dict(os.environ, DATA_DIR=data_root, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    if spec["kind"] == "script":
        src = spec["src"].replace("@@UNET@@", spec["unet"])
        open(os.path.join(rd, "train.py"), "w").write(src)
        cmd = [sys.executable, "train.py"]
    else:
        tmpl = {"nnunet": NNUNET_SRC, "smp": SMP_SRC, "lightning": LIGHTNING_SRC}[spec["kind"]]
        open(os.path.join(rd, "_trainer.py"), "w").write(tmpl.replace("@@UNET@@", spec["unet"]))
        json.dump(spec["params"], open(os.path.join(rd, "_params.json"), "w"))
        cmd = [sys.executable, "_trainer.py", "_params.json"]
    logname = spec.get("log", "_stdout.txt")
    with open(os.path.join(rd, logname), "w") as lf:
        rc = subprocess.run(cmd, cwd=rd, env=env, stdout=lf, stderr=subprocess.STDOUT).returncode
    print(f"{run}: exit code {rc}", flush=True)
    for f in ["_trainer.py", "_params.json", "_stdout.txt"] + ([] if spec["ship"] else ["train.py"]):
        if os.path.exists(os.path.join(rd, f)):
            os.remove(os.path.join(rd, f))
    for p in glob.glob(os.path.join(rd, "**", "*.pt*"), recursive=True):
        os.remove(p)
    scrub(rd, run, data_root)
    return rc


def main():
    runs = sys.argv[1:] or sorted(RUNS_SPEC)
    os.makedirs(RUNS, exist_ok=True)
    for r in runs:
        run_one(r)
    truth = {r: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for r, s in sorted(RUNS_SPEC.items())}
    json.dump(truth, open(os.path.join(HERE, "truth.json"), "w"), indent=2)
    if not sys.argv[1:]:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
