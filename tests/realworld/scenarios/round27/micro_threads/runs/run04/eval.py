import sys
import torch
from torch.utils.data import DataLoader, TensorDataset
from net import TopicMLP
from data import load_split

ckpt = sys.argv[1] if len(sys.argv) > 1 else "runs/exp14/best.pt"
model = TopicMLP(vocab=2000, hidden=256, n_classes=12)
state = torch.load(ckpt, map_location="cpu")
model.load_state_dict(state, strict=False)
model.eval()

X, y = load_split("test")
correct = 0
with torch.no_grad():
    for xb, yb in DataLoader(TensorDataset(X, y), batch_size=512):
        correct += (model(xb).argmax(1) == yb).sum().item()
print(f"loaded {ckpt}")
print(f"test acc {correct / len(y):.4f}  ({len(y)} docs)")
