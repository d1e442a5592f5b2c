import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split
from poutyne import Model, CSVLogger

torch.manual_seed(11)


class ShapeNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
        )
        self.head = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.head(self.encoder(x))


def loaders(path, batch_size=64):
    d = np.load(path)
    ds = TensorDataset(torch.tensor(d["x"]), torch.tensor(d["y"]))
    n_val = len(ds) // 5
    train_ds, val_ds = random_split(ds, [len(ds) - n_val, n_val], generator=torch.Generator().manual_seed(0))
    return DataLoader(train_ds, batch_size=batch_size, shuffle=True), DataLoader(val_ds, batch_size=256)


# ---------------- stage 1: pretrain on the 10 source shapes ----------------
print("== stage 1: pretraining encoder on source shapes (10 classes)")
train_loader, val_loader = loaders("data/source_shapes.npz")
net = ShapeNet(n_classes=10)
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
model = Model(net, optimizer, nn.CrossEntropyLoss(), batch_metrics=["accuracy"])
model.fit_generator(train_loader, val_loader, epochs=6)
torch.save(net.encoder.state_dict(), "encoder_pretrained.pt")

# ---------------- stage 2: fine-tune a new head on the 5 target shapes ----------------
print("== stage 2: fine-tuning on target shapes (5 classes), encoder frozen")
train_loader, val_loader = loaders("data/target_shapes.npz", batch_size=32)
for p in net.encoder.parameters():
    p.requires_grad = False
ft_optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
net.head = nn.Linear(64, 5)

ft_model = Model(net, ft_optimizer, nn.CrossEntropyLoss(), batch_metrics=["accuracy"])
ft_model.fit_generator(train_loader, val_loader, epochs=20, callbacks=[CSVLogger("finetune_log.csv")])
