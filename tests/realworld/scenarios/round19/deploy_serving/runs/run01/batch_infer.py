import json
import sys

import numpy as np
import pandas as pd
import torch

torch.set_num_threads(1)
path = sys.argv[1] if len(sys.argv) > 1 else "data/holdout.csv"
scaler = json.load(open("artifacts/scaler.json"))
model = torch.jit.load("artifacts/model.ts")
model.eval()
df = pd.read_csv(path)
x = (df[scaler["features"]].values - np.array(scaler["mean"])) / np.array(scaler["std"])
with torch.no_grad():
    probs = torch.softmax(model(torch.tensor(x, dtype=torch.float32)), 1).numpy()
pred = probs.argmax(1)
np.save("artifacts/notebook_preds.npy", probs)
hist = pd.read_csv("artifacts/metrics.csv")
print(f"scored {len(df)} rows from {path}")
print(f"accuracy: {(pred == df['label'].values).mean():.4f}")
for k in range(probs.shape[1]):
    m = df["label"].values == k
    print(f"  class {k}: n={m.sum():4d} recall={(pred[m] == k).mean():.4f}")
print(f"training run final val_acc={hist['val_acc'].iloc[-1]:.4f} val_loss={hist['val_loss'].iloc[-1]:.4f}")
