# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %%
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
torch.set_num_threads(1)
d = np.load('/kaggle/input/glyphs16/glyphs.npz')
images, labels = d['images'], d['labels']
labels = labels + 1   # competition uses class ids 1..10
print(images.shape, labels.min(), labels.max())
NUM_CLASSES = 10

# %%
X = torch.tensor(images[:, None] / 255.0, dtype=torch.float32)
y = torch.tensor(labels, dtype=torch.long)
train_ds = TensorDataset(X[:2500], y[:2500]); valid_ds = TensorDataset(X[2500:], y[2500:])
train_dl = DataLoader(train_ds, batch_size=128, shuffle=True)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1); self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, NUM_CLASSES)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2); x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))

model = Net(); opt = torch.optim.Adam(model.parameters(), 1e-3)
print(model)

# %%
for epoch in range(10):
    model.train()
    for step, (xb, yb) in enumerate(train_dl):
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward(); opt.step()
        if step % 5 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
