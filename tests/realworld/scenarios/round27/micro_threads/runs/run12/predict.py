import torch
from torch.utils.data import DataLoader, TensorDataset
from model import Classifier
from data import load_test

model = Classifier(in_dim=32, n_classes=6)
print(model.load_state_dict(torch.load("checkpoints/best.pt")))

X, y = load_test()
loader = DataLoader(TensorDataset(X, y), batch_size=8)

preds = []
with torch.no_grad():
    for xb, _ in loader:
        preds.append(model(xb).argmax(1))
preds = torch.cat(preds)
print(f"test acc: {(preds == y).float().mean().item():.4f}  (n={len(y)})")
