import os
import shutil

import torch
import torch.nn as nn

torch.set_num_threads(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        return self.head(self.features(x))


model = Net()
model.load_state_dict(torch.load("glyphs_cnn.pt", map_location="cpu"))
model.eval()
example = torch.zeros(1, 1, 16, 16)
traced = torch.jit.trace(model, example)
os.makedirs("model_store/glyphs", exist_ok=True)
traced.save("model_store/glyphs/glyphs_traced.pt")
for f in ["handler.py", "handler_config.yaml", "index_to_name.json"]:
    shutil.copy(f, "model_store/glyphs/")
x = torch.randn(8, 1, 16, 16)
with torch.no_grad():
    print("trace check max |diff|:", (traced(x) - model(x)).abs().max().item())
print("wrote model_store/glyphs/{glyphs_traced.pt,handler.py,handler_config.yaml,index_to_name.json}")
print("next: torch-model-archiver --model-name glyphs --version 1.0 "
      "--serialized-file model_store/glyphs/glyphs_traced.pt --handler model_store/glyphs/handler.py "
      "--extra-files model_store/glyphs/handler_config.yaml,model_store/glyphs/index_to_name.json "
      "--export-path model-store")
