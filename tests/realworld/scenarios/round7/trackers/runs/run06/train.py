import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import mlflow

torch.set_num_threads(1)
torch.manual_seed(8)

EPOCHS = 20
BATCH_SIZE = 64
LR = 1e-3


class SmallCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


d = np.load("data/digits8x8.npz")
X_tr = torch.tensor(d["X_train"]).unsqueeze(1) / 16.0
y_tr = torch.tensor(d["y_train"])
X_va = torch.tensor(d["X_val"]).unsqueeze(1) / 16.0
y_va = torch.tensor(d["y_val"])
train_loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)

model = SmallCNN()
state = torch.load("features_pretrained.pt")
model.features.load_state_dict(state)
for name, p in model.named_parameters():
    if not name.startswith("head"):
        p.requires_grad = False

optimizer = torch.optim.Adam(model.parameters(), lr=LR)

mlflow.set_tracking_uri("file:./mlruns")
with mlflow.start_run(run_name="digits-cnn-finetune"):
    mlflow.log_params({"epochs": EPOCHS, "batch_size": BATCH_SIZE, "lr": LR, "init": "features_pretrained.pt"})
    for epoch in range(EPOCHS):
        model.train()
        tot, n, gsum = 0.0, 0, 0.0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.requires_grad = True
            loss.backward()
            optimizer.step()
            gsum += sum(p.grad.norm().item() ** 2 for p in model.parameters() if p.grad is not None) ** 0.5
            tot += loss.item() * len(yb)
            n += len(yb)
        model.eval()
        with torch.no_grad():
            out = model(X_va)
            vl = F.cross_entropy(out, y_va).item()
            va = (out.argmax(1) == y_va).float().mean().item()
        mlflow.log_metrics({"train_loss": tot / n, "grad_norm": gsum / len(train_loader),
                            "val_loss": vl, "val_accuracy": va}, step=epoch)
        print(f"epoch {epoch+1}/{EPOCHS} train_loss={tot / n:.4f} val_loss={vl:.4f} val_accuracy={va:.4f}")
