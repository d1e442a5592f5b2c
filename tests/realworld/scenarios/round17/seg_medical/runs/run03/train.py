import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)

with open("config.yaml") as f:
    cfg = yaml.safe_load(f)

torch.manual_seed(cfg["seed"])
np.random.seed(cfg["seed"])

data_dir = os.environ.get("DATA_DIR", cfg["data_dir"])
images = sorted(glob.glob(os.path.join(data_dir, "imagesTr", "*.npy")))
labels = sorted(glob.glob(os.path.join(data_dir, "labelsTr", "*.npy")))
data_dicts = [{"image": i, "label": l} for i, l in zip(images, labels)]
n_val = cfg["num_val"]
train_files, val_files = data_dicts[:-n_val], data_dicts[-n_val:]


class SegDataset(Dataset):
    def __init__(self, files, train=False):
        self.files = files
        self.train = train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        img = np.load(self.files[i]["image"]).astype(np.float32)
        lab = np.load(self.files[i]["label"]).astype(np.int64)
        lo, hi = cfg["window"]
        img = (np.clip(img, lo, hi) - lo) / (hi - lo)
        if self.train and np.random.rand() < 0.5:
            img, lab = img[:, ::-1], lab[:, ::-1]
        return torch.from_numpy(img.copy())[None], torch.from_numpy(lab.copy())


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class UNet(nn.Module):
    def __init__(self, in_channels=1, num_classes=2, features=(16, 32, 64)):
        super().__init__()
        f1, f2, f3 = features
        self.enc1 = conv_block(in_channels, f1)
        self.enc2 = conv_block(f1, f2)
        self.bottleneck = conv_block(f2, f3)
        self.up2 = nn.ConvTranspose2d(f3, f2, 2, stride=2)
        self.dec2 = conv_block(2 * f2, f2)
        self.up1 = nn.ConvTranspose2d(f2, f1, 2, stride=2)
        self.dec1 = conv_block(2 * f1, f1)
        self.head = nn.Conv2d(f1, num_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        b = self.bottleneck(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.head(d1)


class DiceCELoss(nn.Module):
    def __init__(self, num_classes, lambda_dice=1.0, lambda_ce=1.0):
        super().__init__()
        self.num_classes = num_classes
        self.lambda_dice = lambda_dice
        self.lambda_ce = lambda_ce

    def forward(self, logits, target):
        ce = F.cross_entropy(logits, target)
        prob = logits.softmax(1)
        onehot = F.one_hot(target, self.num_classes).permute(0, 3, 1, 2).float()
        inter = (prob * onehot)[:, 1:].sum((2, 3))
        den = (prob + onehot)[:, 1:].sum((2, 3))
        dice = 1 - ((2 * inter + 1e-5) / (den + 1e-5)).mean()
        return self.lambda_ce * ce + self.lambda_dice * dice


def dice_score(pred, target):
    p = pred == 1
    t = target == 1
    inter = (p & t).sum((1, 2)).float()
    den = (p.sum((1, 2)) + t.sum((1, 2))).float()
    return (2 * inter / den.clamp(min=1)).tolist()


train_ds = SegDataset(train_files, train=True)
val_ds = SegDataset(val_files)
train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=0)
val_loader = DataLoader(val_ds, batch_size=4, num_workers=0)

model = UNet(in_channels=1, num_classes=cfg["num_classes"], features=tuple(cfg["features"]))
loss_function = DiceCELoss(cfg["num_classes"])
optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])

max_epochs = cfg["max_epochs"]
val_interval = cfg["val_interval"]
best_metric, best_metric_epoch = -1, -1
for epoch in range(max_epochs):
    print("-" * 10)
    print(f"epoch {epoch + 1}/{max_epochs}")
    model.train()
    epoch_loss, step = 0, 0
    for inputs, targets in train_loader:
        step += 1
        optimizer.zero_grad()
        loss = loss_function(model(inputs), targets)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        print(f"{step}/{len(train_ds) // train_loader.batch_size}, train_loss: {loss.item():.4f}")
    epoch_loss /= step
    print(f"epoch {epoch + 1} average loss: {epoch_loss:.4f}")

    if (epoch + 1) % val_interval == 0:
        model.eval()
        val_loss, dices = 0.0, []
        with torch.no_grad():
            for val_inputs, val_targets in val_loader:
                val_outputs = model(val_inputs)
                val_loss += loss_function(val_outputs, val_targets).item()
                dices += dice_score(val_outputs.argmax(1), val_targets)
        val_loss /= len(val_loader)
        metric = float(np.mean(dices))
        if metric > best_metric:
            best_metric, best_metric_epoch = metric, epoch + 1
            torch.save(model.state_dict(), "best_metric_model.pth")
            print("saved new best metric model")
        print(f"current epoch: {epoch + 1} val loss: {val_loss:.4f} current mean dice: {metric:.4f}"
              f"\nbest mean dice: {best_metric:.4f} at epoch: {best_metric_epoch}")

print(f"train completed, best_metric: {best_metric:.4f} at epoch: {best_metric_epoch}")
