import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from catalyst import dl

torch.manual_seed(10)

d = np.load("data/shapes10.npz")
loaders = {
    "train": DataLoader(TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"])),
                        batch_size=64, shuffle=True),
    "valid": DataLoader(TensorDataset(torch.tensor(d["x_valid"]), torch.tensor(d["y_valid"])), batch_size=128),
}

model = nn.Sequential(
    nn.Conv2d(1, 24, 3, padding=1), nn.BatchNorm2d(24), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(24, 48, 3, padding=1), nn.BatchNorm2d(48), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(48 * 4 * 4, 128), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(128, 10),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)

runner = dl.SupervisedRunner()
runner.train(
    model=model,
    criterion=criterion,
    optimizer=optimizer,
    scheduler=scheduler,
    loaders=loaders,
    num_epochs=10,
    callbacks=[dl.AccuracyCallback(input_key="logits", target_key="targets", topk=(1, 3))],
    logdir="./logs",
    valid_loader="valid",
    valid_metric="accuracy01",
    minimize_valid_metric=False,
    load_best_on_end=True,
    verbose=True,
)
