import numpy as np
import torch
import yaml

from har_model import HARNet

torch.set_num_threads(1)
cfg = yaml.safe_load(open("train_config.yaml"))
m = cfg["model"]
model = HARNet(cfg["window"], m["channels"], m["kernel"], m["fc"], len(cfg["classes"]))
model.load_state_dict(torch.load("harnet.pt", map_location="cpu"))
model.eval()
traced = torch.jit.trace(model, torch.zeros(1, 1, cfg["window"]))
traced.save("harnet_traced.pt")
d = np.load(cfg["data"])
xv = torch.tensor(d["x"][cfg["split"]["train"]:]).unsqueeze(1)
with torch.no_grad():
    top1 = (traced(xv).argmax(1).numpy() == d["y"][cfg["split"]["train"]:]).mean()
print(f"traced model saved to harnet_traced.pt; input (N, 1, {cfg['window']}); val top1 {top1:.4f}")
