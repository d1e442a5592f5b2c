import glob
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def load_split(root):
    xs, ys = [], []
    for path in sorted(glob.glob(f"{root}/*.npz")):
        d = np.load(path)
        xs.append(d["x"])
        ys.append(d["y"])
    x = torch.from_numpy(np.concatenate(xs)).float()
    y = torch.from_numpy(np.concatenate(ys)).long()
    return x, y


X_train, y_train = load_split("data/export_0611/train")
X_val, y_val = load_split("data/export_0611/val")
print(f"train {tuple(X_train.shape)}  val {tuple(X_val.shape)}")

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=50, num_workers=2)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=500)

model = nn.Sequential(
    nn.Linear(16, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 5),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

EPOCHS = 8
for epoch in range(1, EPOCHS + 1):
    model.train()
    for step, (xb, yb) in enumerate(train_loader, 1):
        loss = criterion(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 4 == 0:
            print(f"epoch {epoch} | step {step:3d}/{len(train_loader)} | loss {loss.item():.4f}")

    model.eval()
    correct = total = 0
    vloss = 0.0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            vloss += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            total += len(yb)
    print(f"== epoch {epoch} done | val_loss {vloss / total:.4f} | val_acc {correct / total:.4f}")

torch.save(model.state_dict(), "ckpt/category_mlp.pt")
