import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from composer import Trainer
from composer.callbacks import LRMonitor
from composer.models import ComposerClassifier
from composer.optim import CosineAnnealingWithWarmupScheduler, DecoupledAdamW

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
    d = np.load("data/glyphs12.npz")
    mean, std = d["x_train"].mean(), d["x_train"].std()
    tr = TensorDataset(torch.from_numpy((d["x_train"] - mean) / std), torch.from_numpy(d["y_train"]))
    va = TensorDataset(torch.from_numpy((d["x_val"] - mean) / std), torch.from_numpy(d["y_val"]))
    return (DataLoader(tr, batch_size=batch_size, shuffle=True, drop_last=True),
            DataLoader(va, batch_size=256))


def main():
    torch.manual_seed(17)
    train_dl, eval_dl = loaders()
    model = ComposerClassifier(GlyphCNN(num_classes=10), num_classes=10)
    optimizer = DecoupledAdamW(model.parameters(), lr=2e-3, betas=(0.9, 0.95), weight_decay=1e-5)
    scheduler = CosineAnnealingWithWarmupScheduler(t_warmup="1ep", alpha_f=0.05)
    trainer = Trainer(
        model=model,
        train_dataloader=train_dl,
        eval_dataloader=eval_dl,
        max_duration="12ep",
        optimizers=optimizer,
        schedulers=scheduler,
        callbacks=[LRMonitor()],
        eval_interval="1ep",
        console_log_interval="1ep",
        device="gpu",
        seed=17,
        run_name="glyphcnn-baseline",
    )
    trainer.fit()


if __name__ == "__main__":
    main()
