import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)

data_dir = os.environ.get("DATA_DIR", "/data/Task_LesionCT")
train_images = sorted(glob.glob(os.path.join(data_dir, "imagesTr", "*.npy")))
train_labels = sorted(glob.glob(os.path.join(data_dir, "labelsTr", "*.npy")))
data_dicts = [{"image": i, "label": l} for i, l in zip(train_images, train_labels)]
train_files, val_files = data_dicts[:-30], data_dicts[-30:]

A_MIN, A_MAX = -175.0, 250.0


class CTSliceDataset(Dataset):
    def __init__(self, files, train=False):
        self.files = files
        self.train = train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        img = np.load(self.files[i]["image"]).astype(np.float32)
        lab = np.load(self.files[i]["label"]).astype(np.int64)
        img = (np.clip(img, A_MIN, A_MAX) - A_MIN) / (A_MAX - A_MIN)
        if self.train:
            if np.random.rand() < 0.5:
                img, lab = img[:, ::-1], lab[:, ::-1]
            if np.random.rand() < 0.5:
                img, lab = img[::-1, :], lab[::-1, :]
            img = img + np.random.normal(0, 0.03, img.shape).astype(np.float32)
        return torch.from_numpy(img.copy())[None], torch.from_numpy(lab.copy())


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class UNet(nn.Module):
    def __init__(self, in_channels=1, num_classes=2, features=(8, 16, 32)):
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


def dice_ce_loss(logits, target):
    ce = F.cross_entropy(logits, target)
    prob = logits.softmax(1)[:, 1]
    t = (target == 1).float()
    inter = (prob * t).sum((1, 2))
    dice = (2 * inter + 1e-5) / (prob.sum((1, 2)) + t.sum((1, 2)) + 1e-5)
    return ce + (1 - dice).mean()


def mean_dice(pred, target):
    p = pred == 1
    t = target == 1
    inter = (p & t).sum((1, 2)).float()
    den = (p.sum((1, 2)) + t.sum((1, 2))).float()
    d = torch.where(den > 0, 2 * inter / den.clamp(min=1), torch.full_like(den, float("nan")))
    return torch.nanmean(d).item()


train_ds = CTSliceDataset(train_files, train=True)
val_ds = CTSliceDataset(val_files)
train_loader = DataLoader(train_ds, batch_size=2, shuffle=True, num_workers=0)
val_loader = DataLoader(val_ds, batch_size=1, num_workers=0)

model = UNet(in_channels=1, num_classes=2, features=(8, 16, 32))
optimizer = torch.optim.Adam(model.parameters(), 1e-4)
writer = SummaryWriter(log_dir="runs")

max_epochs = 60
val_interval = 2
best_metric = -1
best_metric_epoch = -1
for epoch in range(max_epochs):
    print("-" * 10)
    print(f"epoch {epoch + 1}/{max_epochs}")
    model.train()
    epoch_loss = 0
    step = 0
    for inputs, labels in train_loader:
        step += 1
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = dice_ce_loss(outputs, labels)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        print(f"{step}/{len(train_ds) // train_loader.batch_size}, train_loss: {loss.item():.4f}")
    epoch_loss /= step
    writer.add_scalar("train_loss", epoch_loss, epoch + 1)
    print(f"epoch {epoch + 1} average loss: {epoch_loss:.4f}")

    if (epoch + 1) % val_interval == 0:
        model.eval()
        dices = []
        with torch.no_grad():
            for val_inputs, val_labels in val_loader:
                val_outputs = model(val_inputs).argmax(1)
                dices.append(mean_dice(val_outputs, val_labels))
        metric = float(np.nanmean(dices))
        if metric > best_metric:
            best_metric = metric
            best_metric_epoch = epoch + 1
            torch.save(model.state_dict(), "best_metric_model.pth")
            print("saved new best metric model")
        print(
            f"current epoch: {epoch + 1} current mean dice: {metric:.4f}"
            f"\nbest mean dice: {best_metric:.4f} "
            f"at epoch: {best_metric_epoch}"
        )
        writer.add_scalar("val_mean_dice", metric, epoch + 1)

print(f"train completed, best_metric: {best_metric:.4f} at epoch: {best_metric_epoch}")
writer.close()
