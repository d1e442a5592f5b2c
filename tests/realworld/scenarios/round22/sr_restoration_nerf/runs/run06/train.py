# image-fitting with a multires grid encoding + tiny MLP, torch port of instant-ngp's "image" sample
import json, math, sys, time, datetime
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(1337)

def load_test_card(rng, h, w):
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


cfg = json.load(open("base.json"))
enc, net, optc, tr = cfg["encoding"], cfg["network"], cfg["optimizer"], cfg["training"]


class MultiresGrid(nn.Module):
    # hash table is big enough for every level at this image size -> dense grids
    def __init__(self, n_levels, n_feat, base_res, scale):
        super().__init__()
        self.res = [int(math.floor(base_res * scale ** l)) for l in range(n_levels)]
        self.tables = nn.ParameterList([nn.Parameter(torch.empty((r + 1) ** 2, n_feat).uniform_(-1e-4, 1e-4)) for r in self.res])
        self.out_dim = n_levels * n_feat

    def forward(self, x):
        out = []
        for r, t in zip(self.res, self.tables):
            p = x * r
            p0 = p.floor().clamp(0, r - 1)
            w = p - p0
            i = p0.long()
            base = i[:, 1] * (r + 1) + i[:, 0]
            wx, wy = w[:, :1], w[:, 1:]
            out.append(t[base] * (1 - wx) * (1 - wy) + t[base + 1] * wx * (1 - wy)
                       + t[base + r + 1] * (1 - wx) * wy + t[base + r + 2] * wx * wy)
        return torch.cat(out, -1)


class NGPImage(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoding = MultiresGrid(enc["n_levels"], enc["n_features_per_level"], enc["base_resolution"], enc["per_level_scale"])
        layers, d = [], self.encoding.out_dim
        for _ in range(net["n_hidden_layers"]):
            layers += [nn.Linear(d, net["n_neurons"], bias=False), nn.ReLU()]
            d = net["n_neurons"]
        layers += [nn.Linear(d, 3, bias=False)]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(self.encoding(x))


rng = np.random.default_rng(7)
img = load_test_card(rng, 256, 256)
# fine grain / texture detail so the card is not trivially smooth
for cell, amp in ((2, 0.10), (4, 0.08), (8, 0.06)):
    g = rng.uniform(-1, 1, (3, 256 // cell + 1, 256 // cell + 1)).astype(np.float32)
    img = img + amp * np.kron(g, np.ones((1, cell, cell), np.float32))[:, :256, :256]
img = torch.tensor(np.clip(img, 0, 1))
H, W = img.shape[1:]
target = img.permute(1, 2, 0).reshape(-1, 3)
ys, xs = torch.meshgrid((torch.arange(H) + 0.5) / H, (torch.arange(W) + 0.5) / W, indexing="ij")
xy = torch.stack([xs, ys], -1).reshape(-1, 2)

model = NGPImage()
nested = optc["nested"]
opt = torch.optim.Adam([
    {"params": model.encoding.parameters(), "weight_decay": 0.0},
    {"params": model.network.parameters(), "weight_decay": nested["l2_reg"]},
], lr=nested["learning_rate"], betas=(nested["beta1"], nested["beta2"]), eps=nested["epsilon"])


def lr_at(step):
    if step < optc["decay_start"]:
        return nested["learning_rate"]
    k = (step - optc["decay_start"]) // optc["decay_interval"] + 1
    return nested["learning_rate"] * optc["decay_base"] ** k


n_steps, bs = tr["n_steps"], tr["batch_size"]
log = open("train_log.txt", "w")
csv = open("metrics.csv", "w")
csv.write("step,loss,loss_ema,psnr,lr,elapsed_s\n")


def say(msg):
    print(msg); log.write(msg + "\n"); log.flush()


say(f"{datetime.datetime.now():%H:%M:%S} INFO     Loading image from '{tr['image']}' ({W}x{H})")
say(f"{datetime.datetime.now():%H:%M:%S} INFO     Model:         2--[{enc['otype']}]-->{model.encoding.out_dim}--[{net['otype']}(neurons={net['n_neurons']},layers={net['n_hidden_layers'] + 2})]-->3")
say(f"{datetime.datetime.now():%H:%M:%S} INFO       total_encoding_params={sum(p.numel() for p in model.encoding.parameters())} total_network_params={sum(p.numel() for p in model.network.parameters())}")
t0 = time.time()
ema = None
for step in range(1, n_steps + 1):
    for g in opt.param_groups:
        g["lr"] = lr_at(step)
    idx = torch.randint(0, H * W, (bs,))
    pred = model(xy[idx])
    loss = F.mse_loss(pred, target[idx])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    ema = loss.item() if ema is None else 0.95 * ema + 0.05 * loss.item()
    if step % tr["eval_every"] == 0:
        with torch.no_grad():
            full = model(xy).clamp(0, 1)
            psnr = -10 * math.log10(F.mse_loss(full, target).item())
        el = time.time() - t0
        rate = step / el
        bar = "#" * int(20 * step / n_steps)
        say(f"Training: {100 * step // n_steps:3d}%|{bar:<20s}| {step}/{n_steps} [{int(el // 60):02d}:{int(el % 60):02d}<"
            f"{int((n_steps - step) / rate // 60):02d}:{int((n_steps - step) / rate % 60):02d}, {rate:.1f}step/s, loss={loss.item():.5f}]")
        say(f"    step={step:5d}  loss(ema)={ema:.5f}  psnr(full image)={psnr:.2f} dB  lr={opt.param_groups[0]['lr']:.2e}")
        csv.write(f"{step},{loss.item():.6f},{ema:.6f},{psnr:.4f},{opt.param_groups[0]['lr']:.3e},{el:.2f}\n"); csv.flush()
say(f"{datetime.datetime.now():%H:%M:%S} SUCCESS  Training finished after {n_steps} steps, final psnr={psnr:.2f} dB")
torch.save(model.state_dict(), "snapshot.pt")
say(f"{datetime.datetime.now():%H:%M:%S} INFO     Saved snapshot 'snapshot.pt'")
