import json
import os

import torch
import torch.nn as nn

torch.set_num_threads(1)
C = json.load(open("train_config.json"))
model = nn.Sequential(nn.Linear(len(C["features"]), C["hidden"]), nn.Tanh(), nn.Linear(C["hidden"], 3))
model.load_state_dict(torch.load("soil_mlp.pt", map_location="cpu"))
model.eval()
scripted = torch.jit.script(model)
os.makedirs("model_store/soil", exist_ok=True)
scripted.save("model_store/soil/soil_mlp.ts")
json.dump({"features": C["features"], "classes": C["classes"]}, open("model_store/soil/meta.json", "w"))
x = torch.randn(16, len(C["features"]))
with torch.no_grad():
    print("scripted vs eager max |diff|:", (scripted(x) - model(x)).abs().max().item())
print("wrote model_store/soil/soil_mlp.ts + meta.json")
