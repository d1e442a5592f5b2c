"""Fit a single test-card image with a grid-encoded field, nerfstudio-style trainer loop.

usage: python train.py
"""
import copy
import datetime
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)

CFG = dict(
    experiment_name="test_card",
    method_name="grid-field",
    max_num_iterations=2000,
    steps_per_log=10,
    steps_per_eval_all_images=100,
    steps_per_save=500,
    train_num_rays_per_batch=4096,
    image_hw=(96, 96),
    num_levels=8,
    features_per_level=2,
    base_resolution=8,
    per_level_scale=1.5,
    hidden_dim=64,
    num_layers=2,
    lr_fields=1e-2,
    lr_final_fields=1e-4,
    lr_color=1e-3,
    ema_decay=0.995,
    seed=42,
)

def make_test_card(rng, h, w):
    """procedural test card: colour ramps, soft blobs, hard-edged boxes, fine stripes"""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.zeros((3, h, w), np.float32)
    c0, c1 = rng.uniform(0, 1, 3), rng.uniform(0, 1, 3)
    t = (xx * np.cos(rng.uniform(0, 6.28)) + yy * np.sin(rng.uniform(0, 6.28))) / max(h, w)
    img += c0[:, None, None] * (1 - t) * 0.6 + c1[:, None, None] * t * 0.6
    for _ in range(rng.integers(3, 7)):
        cx, cy, s = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(2, w / 4)
        img += rng.uniform(-0.5, 0.5, 3)[:, None, None] * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
    for _ in range(rng.integers(2, 5)):
        x0, y0 = rng.integers(0, w - 4), rng.integers(0, h - 4)
        bw, bh = rng.integers(3, w // 2), rng.integers(3, h // 2)
        img[:, y0:y0 + bh, x0:x0 + bw] = rng.uniform(0, 1, 3)[:, None, None]
    f = rng.uniform(0.3, 1.2); ang = rng.uniform(0, 3.14)
    img += 0.08 * np.sin(f * (xx * np.cos(ang) + yy * np.sin(ang)))[None]
    return np.clip(img, 0, 1)


class GridEncoding(nn.Module):
    def __init__(self, num_levels, features_per_level, base_resolution, per_level_scale):
        super().__init__()
        self.res = [int(base_resolution * per_level_scale ** l) for l in range(num_levels)]
        self.tables = nn.ParameterList(
            [nn.Parameter(torch.empty((r + 1) * (r + 1), features_per_level).uniform_(-1e-4, 1e-4)) for r in self.res])

    def forward(self, xy):  # xy in [0, 1]
        feats = []
        for r, table in zip(self.res, self.tables):
            p = xy * r
            p0 = p.floor().clamp(0, r - 1)
            w = p - p0
            i0 = p0.long()
            def at(dx, dy):
                return table[(i0[:, 1] + dy) * (r + 1) + (i0[:, 0] + dx)]
            f = (at(0, 0) * ((1 - w[:, :1]) * (1 - w[:, 1:])) + at(1, 0) * (w[:, :1] * (1 - w[:, 1:]))
                 + at(0, 1) * ((1 - w[:, :1]) * w[:, 1:]) + at(1, 1) * (w[:, :1] * w[:, 1:]))
            feats.append(f)
        return torch.cat(feats, -1)


class ImageField(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoding = GridEncoding(cfg["num_levels"], cfg["features_per_level"], cfg["base_resolution"], cfg["per_level_scale"])
        d = cfg["num_levels"] * cfg["features_per_level"]
        layers = []
        for _ in range(cfg["num_layers"]):
            layers += [nn.Linear(d, cfg["hidden_dim"]), nn.ReLU()]
            d = cfg["hidden_dim"]
        layers += [nn.Linear(d, 3)]
        self.mlp_head = nn.Sequential(*layers)

    def forward(self, xy):
        return torch.sigmoid(self.mlp_head(self.encoding(xy)))


class ColorCorrection(nn.Module):
    """per-image affine colour transform (like an appearance embedding for one image)"""
    def __init__(self):
        super().__init__()
        self.matrix = nn.Parameter(torch.eye(3))
        self.bias = nn.Parameter(torch.zeros(3))

    def forward(self, rgb):
        return rgb @ self.matrix.T + self.bias


def ssim(a, b):
    g = torch.exp(-(torch.arange(11.) - 5) ** 2 / 4.5); g = g / g.sum(); w = (g[:, None] * g[None]).expand(3, 1, 11, 11)
    mu1, mu2 = F.conv2d(a, w, groups=3), F.conv2d(b, w, groups=3)
    s1 = F.conv2d(a * a, w, groups=3) - mu1 ** 2; s2 = F.conv2d(b * b, w, groups=3) - mu2 ** 2
    s12 = F.conv2d(a * b, w, groups=3) - mu1 * mu2
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    return (((2 * mu1 * mu2 + c1) * (2 * s12 + c2)) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s1 + s2 + c2))).mean()


def fmt_time(sec):
    if sec < 1:
        return f"{sec * 1000:.3f} ms"
    m, s = divmod(sec, 60)
    return f"{int(m)} m, {int(s)} s" if m else f"{s:.3f} s"


def write_config(path, cfg, out_dir):
    lines = [
        "!!python/object:nerfstudio.engine.trainer.TrainerConfig",
        "_target: !!python/name:nerfstudio.engine.trainer.Trainer ''",
        f"experiment_name: {cfg['experiment_name']}",
        f"method_name: {cfg['method_name']}",
        f"output_dir: !!python/object/apply:pathlib.PosixPath\n- outputs",
        f"timestamp: {out_dir}",
        "machine: !!python/object:nerfstudio.configs.base_config.MachineConfig",
        "  device_type: cuda",
        "  num_devices: 1",
        "  seed: 42",
        "mixed_precision: false",
        f"max_num_iterations: {cfg['max_num_iterations']}",
        f"steps_per_eval_all_images: {cfg['steps_per_eval_all_images']}",
        f"steps_per_save: {cfg['steps_per_save']}",
        "save_only_latest_checkpoint: true",
        "logging: !!python/object:nerfstudio.configs.base_config.LoggingConfig",
        f"  steps_per_log: {cfg['steps_per_log']}",
        "  max_buffer_size: 20",
        "vis: tensorboard",
        "optimizers:",
        "  fields:",
        "    optimizer: !!python/object:nerfstudio.engine.optimizers.AdamOptimizerConfig",
        "      _target: !!python/name:torch.optim.adam.Adam ''",
        "      eps: 1.0e-15",
        f"      lr: {cfg['lr_fields']}",
        "      max_norm: null",
        "      weight_decay: 0",
        "    scheduler: !!python/object:nerfstudio.engine.schedulers.ExponentialDecaySchedulerConfig",
        "      _target: !!python/name:nerfstudio.engine.schedulers.ExponentialDecayScheduler ''",
        f"      lr_final: {cfg['lr_final_fields']}",
        f"      max_steps: {cfg['max_num_iterations']}",
        "  color_correction:",
        "    optimizer: !!python/object:nerfstudio.engine.optimizers.AdamOptimizerConfig",
        "      _target: !!python/name:torch.optim.adam.Adam ''",
        "      eps: 1.0e-15",
        f"      lr: {cfg['lr_color']}",
        "      max_norm: null",
        "      weight_decay: 0",
        "    scheduler: null",
        "pipeline: !!python/object:nerfstudio.pipelines.base_pipeline.VanillaPipelineConfig",
        "  datamanager: !!python/object:nerfstudio.data.datamanagers.base_datamanager.VanillaDataManagerConfig",
        "    data: data/test_card.png",
        f"    train_num_rays_per_batch: {cfg['train_num_rays_per_batch']}",
        "  model: !!python/object:grid_field.GridFieldModelConfig",
        f"    num_levels: {cfg['num_levels']}",
        f"    features_per_level: {cfg['features_per_level']}",
        f"    base_res: {cfg['base_resolution']}",
        f"    per_level_scale: {cfg['per_level_scale']}",
        f"    hidden_dim: {cfg['hidden_dim']}",
        f"    num_layers: {cfg['num_layers']}",
        f"    ema_decay: {cfg['ema_decay']}",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    cfg = CFG
    torch.manual_seed(cfg["seed"])
    rng = np.random.default_rng(cfg["seed"])
    H, W = cfg["image_hw"]
    image = torch.tensor(make_test_card(rng, H, W)).permute(1, 2, 0).reshape(-1, 3)
    ys, xs = torch.meshgrid((torch.arange(H) + 0.5) / H, (torch.arange(W) + 0.5) / W, indexing="ij")
    coords = torch.stack([xs, ys], -1).reshape(-1, 2)

    out_dir = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    print(f"[{time.strftime('%H:%M:%S')}] Saving config to: outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/config.yml")
    write_config("config.yml", cfg, out_dir)
    print(f"           Saving checkpoints to: outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/nerfstudio_models")
    writer = SummaryWriter(log_dir=".")

    field = ImageField(cfg)
    ema_field = copy.deepcopy(field)
    for p in field.parameters():
        p.requires_grad_(False)
    color = ColorCorrection()

    optimizers = {
        "fields": torch.optim.Adam(field.parameters(), lr=cfg["lr_fields"], eps=1e-15),
        "color_correction": torch.optim.Adam(color.parameters(), lr=cfg["lr_color"], eps=1e-15),
    }
    gamma = (cfg["lr_final_fields"] / cfg["lr_fields"]) ** (1 / cfg["max_num_iterations"])
    schedulers = {"fields": torch.optim.lr_scheduler.ExponentialLR(optimizers["fields"], gamma)}
    named = [("field." + n, p) for n, p in field.named_parameters()] + [("color_correction." + n, p) for n, p in color.named_parameters()]
    n_rays = cfg["train_num_rays_per_batch"]
    total = cfg["max_num_iterations"]
    os.makedirs("nerfstudio_models", exist_ok=True)
    print("Step (% Done)       Train Iter (time)    ETA (time)           Train Rays / Sec                       ")
    print("-----------------------------------------------------------------------------------                   ")
    t_start = time.time()
    for step in range(total):
        t0 = time.time()
        idx = torch.randint(0, H * W, (n_rays,))
        rgb = color(field(coords[idx]))
        rgb_loss = F.mse_loss(rgb, image[idx])
        loss = rgb_loss
        for o in optimizers.values():
            o.zero_grad()
        loss.backward()
        total_grad = 0.0
        grads = {}
        for tag, value in named:
            if value.grad is not None:
                g = value.grad.norm().item()
                grads[f"Gradients/{tag}"] = g
                total_grad += g
        grads["Gradients/Total"] = total_grad
        for o in optimizers.values():
            o.step()
        for s in schedulers.values():
            s.step()
        with torch.no_grad():
            for pe, pf in zip(ema_field.parameters(), field.parameters()):
                pe.mul_(cfg["ema_decay"]).add_(pf, alpha=1 - cfg["ema_decay"])
        dt = time.time() - t0
        if step % cfg["steps_per_log"] == 0:
            psnr = -10 * math.log10(rgb_loss.item())
            writer.add_scalar("Train Loss", loss.item(), step)
            writer.add_scalar("Train Loss Dict/rgb_loss", rgb_loss.item(), step)
            writer.add_scalar("Train Metrics Dict/psnr", psnr, step)
            for k, v in grads.items():
                writer.add_scalar(k, v, step)
            for k, o in optimizers.items():
                writer.add_scalar(f"learning_rate/{k}", o.param_groups[0]["lr"], step)
            writer.add_scalar("Train Iter (time)", dt, step)
            writer.add_scalar("Train Rays / Sec", n_rays / dt, step)
        if step % 100 == 0 and step > 0:
            eta = (time.time() - t_start) / (step + 1) * (total - step)
            done = f"{step} ({100 * step / total:.2f}%)"
            print(f"{done:<20s}{fmt_time(dt):<21s}{fmt_time(eta):<21s}{n_rays / dt / 1000:.2f} K")
        if step % cfg["steps_per_eval_all_images"] == 0 or step == total - 1:
            t_ev = time.time()
            with torch.no_grad():
                pred = color(field(coords)).clamp(0, 1)
            ev_dt = time.time() - t_ev
            with torch.no_grad():
                mse = F.mse_loss(pred, image).item()
                ev_psnr = 10 * math.log10(1.0 / mse)
                ev_ssim = ssim(pred.reshape(1, H, W, 3).permute(0, 3, 1, 2), image.reshape(1, H, W, 3).permute(0, 3, 1, 2)).item()
            writer.add_scalar("Eval Images Metrics Dict (all images)/psnr", ev_psnr, step)
            writer.add_scalar("Eval Images Metrics Dict (all images)/ssim", ev_ssim, step)
            writer.add_scalar("Eval Loss", mse, step)
        if (step % cfg["steps_per_save"] == 0 and step > 0) or step == total - 1:
            for old in os.listdir("nerfstudio_models"):
                os.remove(os.path.join("nerfstudio_models", old))
            torch.save({"step": step, "pipeline": {**{"_model.field." + k: v for k, v in field.state_dict().items()},
                                                   **{"_model.color_correction." + k: v for k, v in color.state_dict().items()},
                                                   **{"_model.ema_field." + k: v for k, v in ema_field.state_dict().items()}},
                        "optimizers": {k: o.state_dict() for k, o in optimizers.items()}},
                       f"nerfstudio_models/step-{step:09d}.ckpt")
    writer.close()
    print("-" * 83)
    print("Training Finished")
    print(f"Config File           outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/config.yml")
    print(f"Checkpoint Directory  outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/nerfstudio_models")
    with open("eval.json", "w") as f:
        json.dump({"experiment_name": cfg["experiment_name"], "method_name": cfg["method_name"],
                   "checkpoint": f"outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/nerfstudio_models/step-{total - 1:09d}.ckpt",
                   "results": {"psnr": ev_psnr, "ssim": ev_ssim, "num_rays_per_sec": H * W / ev_dt, "fps": 1.0 / ev_dt}}, f, indent=2)


if __name__ == "__main__":
    main()
