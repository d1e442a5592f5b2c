import torch
import torch.nn as nn

torch.set_num_threads(1)
model = nn.Sequential(nn.Linear(14, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
model.load_state_dict(torch.load("churn_mlp.pt"))
model.eval()
scripted = torch.jit.script(model)
scripted.save("churn_mlp.ts")
print(scripted.code)
print("saved churn_mlp.ts")
