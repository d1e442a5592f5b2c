import csv, json, time
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

cfg = {"img_size": 16, "hidden": [128, 128, 128, 128, 128, 128], "latent_dim": 10, "act": "sigmoid",
       "optimizer": "sgd", "lr": 0.5, "momentum": 0.9, "batch_size": 128, "epochs": 40, "seed": 5}


def make_shapes(n, size=16, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, size, size), np.float32)
    yy, xx = np.mgrid[0:size, 0:size]
    for i in range(n):
        kind = rng.integers(3)
        cx, cy = rng.uniform(4, size - 4, 2)
        r = rng.uniform(2, 5)
        v = rng.uniform(0.6, 1.0)
        if kind == 0:
            m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
        elif kind == 1:
            m = (abs(xx - cx) <= r) & (abs(yy - cy) <= r * 0.6)
        else:
            m = ((abs(xx - cx) <= 1) & (abs(yy - cy) <= r)) | ((abs(yy - cy) <= 1) & (abs(xx - cx) <= r))
        X[i][m] = v
    return X.reshape(n, -1)


def mlp(sizes, last_act=True):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2 or last_act:
            layers.append(nn.Sigmoid())
    return nn.Sequential(*layers)


class DeepAE(nn.Module):
    def __init__(self, d, hidden, z):
        super().__init__()
        self.encoder = mlp([d] + hidden + [z], last_act=False)
        self.decoder = mlp([z] + hidden[::-1] + [d], last_act=True)

    def forward(self, x):
        return self.decoder(self.encoder(x))


def main():
    torch.manual_seed(cfg["seed"])
    X = torch.from_numpy(make_shapes(3500, cfg["img_size"], seed=cfg["seed"]))
    Xtr, Xva = X[:3000], X[3000:]
    model = DeepAE(X.shape[1], cfg["hidden"], cfg["latent_dim"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
    lin = [(n, m) for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    watch = [lin[0], lin[2], lin[4], lin[6], lin[8], lin[10], lin[12], lin[-1]]
    cols = ["epoch", "train_recon_mse", "val_recon_mse", "grad_norm_total"] + [f"grad_norm/{n}.weight" for n, _ in watch] + ["epoch_time_s"]
    f = open("metrics.csv", "w", newline="")
    w = csv.writer(f)
    w.writerow(cols)
    print(f"DeepAE {cfg}")
    with open("config.json", "w") as fh:
        json.dump(cfg, fh, indent=2)
    for epoch in range(1, cfg["epochs"] + 1):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(Xtr))
        tl, gsum, lsum, nb = 0.0, 0.0, np.zeros(len(watch)), 0
        for i in range(0, len(Xtr), cfg["batch_size"]):
            x = Xtr[perm[i:i + cfg["batch_size"]]]
            loss = ((model(x) - x) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            gsum += torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
            lsum += np.array([m.weight.grad.norm().item() for _, m in watch])
            opt.step()
            tl += loss.item(); nb += 1
        model.eval()
        with torch.no_grad():
            vl = ((model(Xva) - Xva) ** 2).mean().item()
        row = [epoch, f"{tl / nb:.6f}", f"{vl:.6f}", f"{gsum / nb:.4e}"] + [f"{v / nb:.4e}" for v in lsum] + [f"{time.time() - t0:.2f}"]
        w.writerow(row)
        f.flush()
        print(f"epoch {epoch:3d}  train_recon_mse {tl / nb:.5f}  val_recon_mse {vl:.5f}  grad_norm {gsum / nb:.3e}")
        if epoch % 10 == 0:
            print(f"  wrote recon grid figs/recon_{epoch:03d}.png")
    f.close()


if __name__ == "__main__":
    main()
