import json, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)

N_BANDS = 48
CODE = 6
LR = 1e-3
EPOCHS = 60
BATCH = 64


def load_spectra(n, seed=12):
    rng = np.random.default_rng(seed)
    wl = np.linspace(0, 1, N_BANDS)
    peaks = np.array([0.15, 0.35, 0.6, 0.8])
    amps = rng.gamma(2.0, 1.0, (n, len(peaks)))
    widths = np.array([0.04, 0.06, 0.05, 0.08])
    S = (amps[:, :, None] * np.exp(-0.5 * ((wl[None, None, :] - peaks[None, :, None]) / widths[None, :, None]) ** 2)).sum(1)
    baseline = rng.uniform(800, 1500, (n, 1)) * (1 + 0.5 * wl[None, :])
    counts = baseline + 2500 * S + rng.normal(0, 40, (n, N_BANDS))
    return counts.astype(np.float32)


class SpectraAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(N_BANDS, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, CODE))
        self.decoder = nn.Sequential(nn.Linear(CODE, 64), nn.ReLU(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, N_BANDS))

    def forward(self, x):
        return self.decoder(self.encoder(x))


def main():
    torch.manual_seed(12)
    X = torch.from_numpy(load_spectra(4000))
    Xtr, Xva = X[:3500], X[3500:]
    print(f"spectra: train {tuple(Xtr.shape)} val {tuple(Xva.shape)} | min {X.min():.1f} max {X.max():.1f} mean {X.mean():.1f}")
    model = SpectraAE()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    crit = nn.MSELoss()
    tb = SummaryWriter("runs/spectra_ae")
    with open("hparams.json", "w") as fh:
        json.dump({"n_bands": N_BANDS, "code_dim": CODE, "lr": LR, "epochs": EPOCHS, "batch_size": BATCH, "optimizer": "adam", "loss": "mse"}, fh, indent=2)
    step = 0
    for epoch in range(EPOCHS):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(Xtr))
        losses = []
        for i in range(0, len(Xtr), BATCH):
            x = Xtr[perm[i:i + BATCH]]
            loss = crit(model(x), x)
            opt.zero_grad()
            loss.backward()
            if step % 20 == 0:
                tb.add_scalar("train/loss_step", loss.item(), step)
                tb.add_scalar("grad_norm/encoder.0", model.encoder[0].weight.grad.norm().item(), step)
                tb.add_scalar("grad_norm/decoder.4", model.decoder[4].weight.grad.norm().item(), step)
                tb.add_scalar("grad_norm/total", torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item(), step)
            opt.step()
            losses.append(loss.item())
            step += 1
        model.eval()
        with torch.no_grad():
            vl = crit(model(Xva), Xva).item()
        tb.add_scalar("train/loss_epoch", float(np.mean(losses)), epoch)
        tb.add_scalar("val/loss", vl, epoch)
        tb.add_scalar("lr", LR, epoch)
        if epoch % 5 == 0 or epoch == EPOCHS - 1:
            print(f"epoch {epoch:3d}  train_mse {np.mean(losses):12.2f}  val_mse {vl:12.2f}  ({time.time() - t0:.2f}s)")
    tb.close()


if __name__ == "__main__":
    main()
