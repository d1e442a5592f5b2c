import json
import os
import shutil

import torch
import torch.nn as nn
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("train_config.yaml"))
F, h = cfg["features"], cfg["model"]["hidden"]
model = nn.Sequential(nn.Linear(len(F), h[0]), nn.ReLU(), nn.Linear(h[0], h[1]), nn.ReLU(), nn.Linear(h[1], 1))
model.load_state_dict(torch.load("eta_mlp.pt", map_location="cpu"))
model.eval()
example = torch.randn(4, len(F))
traced = torch.jit.trace(model, example)
os.makedirs("model_store/eta", exist_ok=True)
traced.save("model_store/eta/eta_traced.pt")
shutil.copy("scaler.json", "model_store/eta/scaler.json")
with torch.no_grad():
    print("traced vs eager max |diff|:", (traced(example) - model(example)).abs().max().item())
print(traced.graph)
print("torch-model-archiver --model-name eta --version 1.0 --serialized-file model_store/eta/eta_traced.pt "
      "--handler eta_handler.py --extra-files model_store/eta/scaler.json -f --export-path model-store")
