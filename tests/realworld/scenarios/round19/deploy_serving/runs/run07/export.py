import hashlib
import json
import os

import numpy as np
import torch

from model_def import GRUClassifier

torch.set_num_threads(1)
H = json.load(open("hparams.json"))
keys = ["input_size", "hidden_size", "num_layers", "num_classes"]
model = GRUClassifier(**{k: H[k] for k in keys})
model.load_state_dict(torch.load("gru_events.pt", map_location="cpu"))
model.eval()
os.makedirs("export", exist_ok=True)
torch.save({"hparams": {k: H[k] for k in keys}, "classes": H["classes"], "state_dict": model.state_dict()},
           "export/gru_events_v1.pt")
d = np.load("data/events_test.npz")
with torch.no_grad():
    acc = (model(torch.tensor(d["x"])).argmax(1).numpy() == d["y"]).mean()
print("wrote export/gru_events_v1.pt",
      "sha256", hashlib.sha256(open("export/gru_events_v1.pt", "rb").read()).hexdigest()[:12])
print("params", sum(p.numel() for p in model.parameters()), "| test accuracy (events_test.npz)", round(float(acc), 4))
