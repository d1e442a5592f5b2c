import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from model import TabNet

split = sys.argv[1] if len(sys.argv) > 1 else "test"
d = np.load(f"data/{split}.npz")
loader = DataLoader(TensorDataset(torch.from_numpy(d["x"]), torch.from_numpy(d["y"])), batch_size=64)

model = TabNet(d["x"].shape[1], 8)
state = torch.load("checkpoints/best.pt")
missing, unexpected = model.load_state_dict(state)
print("loaded checkpoints/best.pt  missing:", missing, " unexpected:", unexpected)


def predict():
    preds = []
    with torch.no_grad():
        for xb, _ in loader:
            preds.append(model(xb).argmax(1))
    return torch.cat(preds)


for trial in range(3):
    p = predict()
    acc = (p == torch.from_numpy(d["y"])).float().mean().item()
    print(f"[{split}] pass {trial}: accuracy = {acc:.4f}   first 12 preds: {p[:12].tolist()}")
