import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(42)

root = os.environ.get("DATA_DIR", "/home/shared/phantom_seg")
image_files = sorted(glob.glob(os.path.join(root, "images", "*.npy")))
mask_files = sorted(glob.glob(os.path.join(root, "masks", "*.npy")))
print(f"found {len(image_files)} images and {len(mask_files)} masks")


def load_image(path):
    img = np.load(path).astype(np.float32)
    return (np.clip(img, -175, 250) + 175) / 425


images = torch.tensor(np.stack([load_image(p) for p in image_files]))[:, None]
masks = torch.tensor(np.stack([np.load(p) for p in mask_files])).long()
n_train = 320
train_ds = TensorDataset(images[:n_train], masks[:n_train])
val_ds = TensorDataset(images[n_train:], masks[n_train:])
train_loader = DataLoader(train_ds, batch_size=16, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=16)


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


def dice_ce(logits, target):
    ce = F.cross_entropy(logits, target)
    p = logits.softmax(1)[:, 1]
    t = (target == 1).float()
    dice = (2 * (p * t).sum() + 1e-5) / (p.sum() + t.sum() + 1e-5)
    return ce + 1 - dice


model = UNet(in_channels=1, num_classes=2, features=(16, 32, 64))
optimizer = torch.optim.Adam(model.parameters(), 1e-3)

max_epochs = 20
val_interval = 1
best_metric, best_metric_epoch = -1, -1
for epoch in range(max_epochs):
    print("-" * 10)
    print(f"epoch {epoch + 1}/{max_epochs}")
    model.train()
    epoch_loss, step = 0, 0
    for x, y in train_loader:
        step += 1
        if torch.rand(1).item() < 0.5:
            x, y = x.flip(-1), y.flip(-1)
        k = int(torch.randint(0, 4, (1,)))
        x, y = torch.rot90(x, k, (-2, -1)), torch.rot90(y, k, (-2, -1))
        optimizer.zero_grad()
        loss = dice_ce(model(x), y)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        print(f"{step}/{len(train_ds) // train_loader.batch_size}, train_loss: {loss.item():.4f}")
    epoch_loss /= step
    print(f"epoch {epoch + 1} average loss: {epoch_loss:.4f}")
    if (epoch + 1) % val_interval == 0:
        model.eval()
        inter, denom = 0.0, 0.0
        with torch.no_grad():
            for x, y in val_loader:
                pred = model(x).argmax(1)
                inter += ((pred == 1) & (y == 1)).sum().item()
                denom += (pred == 1).sum().item() + (y == 1).sum().item()
        metric = 2 * inter / max(denom, 1)
        if metric > best_metric:
            best_metric, best_metric_epoch = metric, epoch + 1
            torch.save(model.state_dict(), "best_metric_model.pth")
            print("saved new best metric model")
        print(f"current epoch: {epoch + 1} current mean dice: {metric:.4f}"
              f"\nbest mean dice: {best_metric:.4f} at epoch: {best_metric_epoch}")
print(f"train completed, best_metric: {best_metric:.4f} at epoch: {best_metric_epoch}")
