import json

import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset

from model import CLASSES, FEATURES, WineNet

device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")

norm = json.load(open("checkpoints/norm.json"))
df = pd.read_csv("data/test.csv")
X = ((df[FEATURES].values - np.array(norm["mean"])) / np.array(norm["std"])).astype(np.float32)
y = df["quality_class"].values

model = WineNet(len(FEATURES)).to(device)
model.load_state_dict(torch.load("checkpoints/best.pt", map_location=device))

preds = []
with torch.no_grad():
    for (xb,) in DataLoader(TensorDataset(torch.from_numpy(X)), batch_size=16):
        preds.append(model(xb.to(device)).argmax(dim=1).cpu())
preds = torch.cat(preds).numpy()

print(f"test samples: {len(y)}")
print(f"test accuracy: {(preds == y).mean():.4f}")
cm = pd.crosstab(pd.Series(y, name="true").map(dict(enumerate(CLASSES))),
                 pd.Series(preds, name="pred").map(dict(enumerate(CLASSES))))
print(cm)
pd.DataFrame({"id": df["id"], "pred": [CLASSES[p] for p in preds]}).to_csv("predictions.csv", index=False)
