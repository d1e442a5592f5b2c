import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from birdfeats import load_folder  # small wrapper: walks feats/<split>/<species>/*.npy

torch.manual_seed(0)
X_tr, y_tr, species = load_folder("feats/train")
X_va, y_va, _ = load_folder("feats/val")
print(f"train {len(X_tr)}  val {len(X_va)}  species {len(species)}")

train_dl = DataLoader(TensorDataset(X_tr, y_tr), batch_size=32)
val_dl = DataLoader(TensorDataset(X_va, y_va), batch_size=256)

model = nn.Sequential(
    nn.Linear(X_tr.shape[1], 128), nn.ReLU(),
    nn.Linear(128, 128), nn.ReLU(),
    nn.Linear(128, len(species)),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

step = 0
for epoch in range(1, 9):
    model.train()
    for xb, yb in train_dl:
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 10 == 0:
            print(f"ep {epoch} step {step:4d} loss {loss.item():.4f}")
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val_dl:
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"== epoch {epoch} val_acc {correct / len(X_va):.3f}")
