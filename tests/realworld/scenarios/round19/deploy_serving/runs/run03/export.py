import hashlib
import json
import os

import torch

from net import LeadNet

P = json.load(open("params.json"))
os.makedirs("export", exist_ok=True)
state = torch.load("leadnet.pt", map_location="cpu")
model = LeadNet(len(P["features"]), P["hidden"], P["dropout"])
print(model.load_state_dict(state))
torch.save(model.state_dict(), "export/leadnet_v3.pt")
cfg = {"n_in": len(P["features"]), "hidden": P["hidden"], "dropout": P["dropout"], "features": P["features"]}
json.dump(cfg, open("export/model_config.json", "w"), indent=2)
digest = hashlib.sha256(open("export/leadnet_v3.pt", "rb").read()).hexdigest()[:16]
print(f"exported export/leadnet_v3.pt sha256:{digest} params={sum(p.numel() for p in model.parameters())}")
