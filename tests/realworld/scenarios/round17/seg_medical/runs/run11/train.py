import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
np.random.seed(cfg["seed"])

data_dir = os.environ.get("DATA_DIR", cfg["data_dir"])
images = sorted(glob.glob(os.path.join(data_dir, "imagesTr", "vol???.npy")))
labels = sorted(glob.glob(os.path.join(data_dir, "labelsTr", "vol???_seg.npy")))
files = [{"image": i, "label": l} for i, l in zip(images, labels)]
train_files, val_files = files[:-cfg["num_val"]], files[-cfg["num_val"]:]


class CTDataset(Dataset):
    def __init__(self, files, train=False):
        self.files, self.train = files, train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        img = np.load(self.files[i]["image"]).astype(np.float32)
        seg = np.load(self.files[i]["label"]).astype(np.int64)
        if self.train and np.random.rand() < cfg["flip_prob"]:
            img, seg = img[:, ::-1], seg[:, ::-1]
        return torch.from_numpy(img.copy())[None], torch.from_numpy(seg.copy())


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.LeakyReLU(0.01, inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.LeakyReLU(0.01, inplace=True),
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


def init_weights(m):
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.kaiming_normal_(m.weight, a=0.01)
        nn.init.zeros_(m.bias)


def dice_ce_loss(logits, target):
    ce = F.cross_entropy(logits, target)
    p = logits.softmax(1)[:, 1]
    t = (target == 1).float()
    dice = (2 * (p * t).sum() + 1) / (p.sum() + t.sum() + 1)
    return ce + 1 - dice


train_ds = CTDataset(train_files, train=True)
val_ds = CTDataset(val_files)
train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
val_loader = DataLoader(val_ds, batch_size=cfg["batch_size"])

model = UNet(in_channels=1, num_classes=2, features=tuple(cfg["features"]))
model.apply(init_weights)
optimizer = torch.optim.Adam(model.parameters(), cfg["lr"])
writer = SummaryWriter(log_dir="tb_logs")

max_epochs = cfg["max_epochs"]
best_metric, best_metric_epoch = -1, -1
global_step = 0
for epoch in range(max_epochs):
    print("-" * 10)
    print(f"epoch {epoch + 1}/{max_epochs}")
    model.train()
    epoch_loss, step = 0, 0
    for inputs, targets in train_loader:
        step += 1
        optimizer.zero_grad()
        loss = dice_ce_loss(model(inputs), targets)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        optimizer.step()
        epoch_loss += loss.item()
        writer.add_scalar("train/loss", loss.item(), global_step)
        writer.add_scalar("train/grad_norm", grad_norm.item(), global_step)
        global_step += 1
        print(f"{step}/{len(train_ds) // train_loader.batch_size}, train_loss: {loss.item():.4f}")
    epoch_loss /= step
    print(f"epoch {epoch + 1} average loss: {epoch_loss:.4f}")
    writer.add_scalar("train/epoch_loss", epoch_loss, epoch + 1)
    if (epoch + 1) % cfg["val_interval"] == 0:
        model.eval()
        d = []
        with torch.no_grad():
            for x, y in val_loader:
                pred = model(x).argmax(1)
                inter = ((pred == 1) & (y == 1)).sum((1, 2)).float()
                den = ((pred == 1).sum((1, 2)) + (y == 1).sum((1, 2))).float()
                d += (2 * inter / den.clamp(min=1)).tolist()
        metric = float(np.mean(d))
        writer.add_scalar("val/mean_dice", metric, epoch + 1)
        if metric > best_metric:
            best_metric, best_metric_epoch = metric, epoch + 1
            torch.save(model.state_dict(), "best_metric_model.pth")
            print("saved new best metric model")
        print(f"current epoch: {epoch + 1} current mean dice: {metric:.4f}"
              f"\nbest mean dice: {best_metric:.4f} at epoch: {best_metric_epoch}")
print(f"train completed, best_metric: {best_metric:.4f} at epoch: {best_metric_epoch}")
writer.close()
