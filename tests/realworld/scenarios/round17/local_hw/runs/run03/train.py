import csv
import time

import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

FEATURES = ["air_temp_c", "rel_humidity", "co2_ppm", "par_umol", "soil_moisture", "vpd_kpa",
            "hour_sin", "hour_cos", "vent_open_pct"]
TARGET = "transpiration_g_h"
EPOCHS = 3
BATCH_SIZE = 256
LR = 1e-3

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"using {device}: {torch.cuda.get_device_name(0)}")

df = pd.read_csv("data/greenhouse_2024.csv")
print(f"loaded {len(df)} rows")
df[FEATURES] = (df[FEATURES] - df[FEATURES].mean()) / df[FEATURES].std()
y_mean, y_std = df[TARGET].mean(), df[TARGET].std()
df[TARGET] = (df[TARGET] - y_mean) / y_std

train_df = df.sample(frac=0.85, random_state=0)
val_df = df.drop(train_df.index)


def to_tensors(frame):
    return (torch.tensor(frame[FEATURES].values, dtype=torch.float32),
            torch.tensor(frame[TARGET].values, dtype=torch.float32).unsqueeze(1))


train_loader = DataLoader(TensorDataset(*to_tensors(train_df)), batch_size=BATCH_SIZE, shuffle=True)
X_val, y_val = (t.to(device) for t in to_tensors(val_df))

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(len(FEATURES), 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                      nn.Linear(64, 1)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=1e-4)
mse = nn.MSELoss()

logf = open("train_log.csv", "w", newline="")
log = csv.writer(logf)
log.writerow(["epoch", "step", "loss", "lr"])
step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    running = 0.0
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = mse(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        running += loss.item()
        log.writerow([epoch, step, f"{loss.item():.6f}", LR])
        if step % 10 == 0:
            print(f"  step {step:4d}  loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        val_loss = mse(model(X_val), y_val).item()
    print(f"epoch {epoch}: train {running / len(train_loader):.4f}  val {val_loss:.4f}  ({time.time() - t0:.1f}s)")
logf.close()
torch.save(model.state_dict(), "transpiration_mlp.pt")
