import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from composer import Trainer
from composer.callbacks import LRMonitor
from composer.models import ComposerClassifier
from composer.optim import DecoupledAdamW

torch.set_num_threads(1)


class GlyphCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def loaders(batch_size=64):
    d = np.load("data/glyphs12_full.npz")
    mean, std = float(d["norm_mean"]), float(d["norm_std"])
    tr = TensorDataset(torch.from_numpy((d["x_train"] - mean) / std), torch.from_numpy(d["y_train"]))
    va = TensorDataset(torch.from_numpy((d["x_val"] - mean) / std), torch.from_numpy(d["y_val"]))
    return (DataLoader(tr, batch_size=batch_size, shuffle=True, drop_last=True),
            DataLoader(va, batch_size=200))


def main():
    torch.manual_seed(5)
    train_dl, eval_dl = loaders()

    net = GlyphCNN(num_classes=5)
    net.load_state_dict(torch.load("checkpoints/glyphcnn_5cls_ep20.pt"))
    for p in net.features.parameters():
        p.requires_grad = False

    optimizer = DecoupledAdamW([p for p in net.parameters() if p.requires_grad], lr=3e-3, weight_decay=0.0)
    net.classifier = nn.Linear(64, 10)

    model = ComposerClassifier(net, num_classes=10)
    trainer = Trainer(
        model=model,
        train_dataloader=train_dl,
        eval_dataloader=eval_dl,
        max_duration="10ep",
        optimizers=optimizer,
        callbacks=[LRMonitor()],
        console_log_interval="1ep",
        eval_interval="1ep",
        seed=5,
        run_name="glyphcnn-finetune-10cls",
    )
    trainer.fit()


if __name__ == "__main__":
    main()
