import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from catalyst import dl

SEED = 2024
np.random.seed(SEED)
torch.manual_seed(SEED)

raw = np.load("data/vibration_windows.npz")
X, y = raw["X"], raw["y"]

np.random.shuffle(X)
np.random.shuffle(y)

n_valid = 600
X_train, y_train = X[n_valid:], y[n_valid:]
X_valid, y_valid = X[:n_valid], y[:n_valid]
print(f"train windows: {len(X_train)}, valid windows: {len(X_valid)}, classes: {len(np.unique(y))}")

loaders = {
    "train": DataLoader(TensorDataset(torch.tensor(X_train), torch.tensor(y_train)), batch_size=64, shuffle=True),
    "valid": DataLoader(TensorDataset(torch.tensor(X_valid), torch.tensor(y_valid)), batch_size=128),
}


class ConvNet1D(nn.Module):
    def __init__(self, n_classes=6):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 16, 7, padding=3), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(16, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(32, 32, 3, padding=1), nn.BatchNorm1d(32), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


model = ConvNet1D()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=8, gamma=0.5)

runner = dl.SupervisedRunner(input_key="features", output_key="logits", target_key="targets", loss_key="loss")
runner.train(
    model=model,
    criterion=criterion,
    optimizer=optimizer,
    scheduler=scheduler,
    loaders=loaders,
    num_epochs=12,
    callbacks=[dl.AccuracyCallback(input_key="logits", target_key="targets", topk=(1, 3))],
    logdir="./logs",
    valid_loader="valid",
    valid_metric="loss",
    minimize_valid_metric=True,
    verbose=True,
)
