import os

import torch
import yaml

from resmlp import ResMLP

torch.set_num_threads(1)
torch.manual_seed(0)
cfg = yaml.safe_load(open("config.yaml"))
model = ResMLP(**cfg["model"])
state = torch.load(os.path.join(cfg["ckpt_dir"], "best.pt"), map_location="cpu")
print(model.load_state_dict(state, strict=False))
model.eval()

scripted = torch.jit.script(model)
os.makedirs("model_repository/sensor_fault/1", exist_ok=True)
scripted.save("model_repository/sensor_fault/1/model.pt")
with torch.no_grad():
    y = scripted(torch.zeros(4, cfg["model"]["in_dim"]))
print("exported model_repository/sensor_fault/1/model.pt, output", tuple(y.shape))
