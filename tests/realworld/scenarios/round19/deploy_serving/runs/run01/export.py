import json

import numpy as np
import pandas as pd
import torch

from model import MLP

torch.set_num_threads(1)
scaler = json.load(open("artifacts/scaler.json"))
model = MLP(len(scaler["features"]), 64, 3)
model.load_state_dict(torch.load("artifacts/model_state.pt", map_location="cpu"))
model.eval()

scripted = torch.jit.script(model)
scripted.save("artifacts/model.ts")
print("saved artifacts/model.ts")

val = pd.read_csv("data/val.csv")
x = (val[scaler["features"]].values - np.array(scaler["mean"])) / np.array(scaler["std"])
x = torch.tensor(x, dtype=torch.float32)
reloaded = torch.jit.load("artifacts/model.ts")
with torch.no_grad():
    a, b = model(x), reloaded(x)
print("eager vs torchscript max |diff|:", f"{(a - b).abs().max().item():.2e}")
print("argmax agreement:", (a.argmax(1) == b.argmax(1)).float().mean().item())
print("params:", sum(p.numel() for p in model.parameters()))
