import argparse
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)

CLASSES = ["circle", "square", "triangle", "cross"]
MEAN, STD = 0.25, 0.22


class SmallCNN(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_cls)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def preprocess(imgs):
    x = imgs.astype(np.float32) / 255.0
    x = (x - MEAN) / STD
    return torch.from_numpy(x).unsqueeze(1)


def train():
    d = np.load("data/shapes_train.npz")
    x, y = preprocess(d["images"]), torch.from_numpy(d["labels"])
    n_val = 500
    xtr, ytr, xva, yva = x[n_val:], y[n_val:], x[:n_val], y[:n_val]
    loader = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)
    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(1, 9):
        model.train()
        losses = []
        for xb, yb in loader:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            acc = (model(xva).argmax(1) == yva).float().mean().item()
        print(f"epoch {epoch} train_loss={np.mean(losses):.4f} val_acc={acc:.4f}")
    torch.save(model.state_dict(), "shape_cnn.pth")


def load_images(path):
    imgs = np.load(path)["images"].astype(np.float32)
    imgs = (imgs - imgs.mean()) / 255.0
    return torch.from_numpy(imgs).unsqueeze(1)


def predict(path):
    model = SmallCNN()
    model.load_state_dict(torch.load("shape_cnn.pth"))
    model.eval()
    x = load_images(path)
    labels = np.load(path)["labels"]
    with torch.no_grad():
        pred = model(x).argmax(1).numpy()
    print(f"{len(pred)} images, acc={(pred == labels).mean():.4f}")
    print("pred distribution:", {c: int((pred == i).sum()) for i, c in enumerate(CLASSES)})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["train", "predict"])
    ap.add_argument("--data", default="data/shapes_test.npz")
    args = ap.parse_args()
    if args.mode == "train":
        train()
    else:
        predict(args.data)
