import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
SEED = 3
EPOCHS = 40
BATCH = 16
LR = 1e-3
CLASSES = ["background", "lesion", "cyst"]
torch.manual_seed(SEED)
np.random.seed(SEED)

root = os.environ.get("DATA_DIR", "./data")
ids = sorted(f[:-4] for f in os.listdir(os.path.join(root, "img")))
val_ids, train_ids = ids[:60], ids[60:]


class Slices(Dataset):
    def __init__(self, ids, aug=False):
        self.ids, self.aug = ids, aug

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        x = np.load(os.path.join(root, "img", self.ids[i] + ".npy")).astype(np.float32)
        y = np.load(os.path.join(root, "seg", self.ids[i] + ".npy")).astype(np.int64)
        x = (np.clip(x, -200, 300) + 200) / 500
        if self.aug:
            k = np.random.randint(4)
            x, y = np.rot90(x, k), np.rot90(y, k)
        return torch.from_numpy(x.copy())[None], torch.from_numpy(y.copy())


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class SegNet(nn.Module):
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
        return torch.softmax(self.head(d1), dim=1)


def per_class(pred, y, n):
    dice, iou = [], []
    for c in range(1, n):
        p, t = pred == c, y == c
        inter = (p & t).sum().item()
        union = (p | t).sum().item()
        s = p.sum().item() + t.sum().item()
        dice.append(2 * inter / s if s else 0.0)
        iou.append(inter / union if union else 0.0)
    return dice, iou


train_dl = DataLoader(Slices(train_ids, aug=True), batch_size=BATCH, shuffle=True)
val_dl = DataLoader(Slices(val_ids), batch_size=BATCH)
model = SegNet(in_channels=1, num_classes=len(CLASSES), features=(16, 32, 64))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
writer = SummaryWriter("tb")

step = 0
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    model.train()
    losses = []
    for x, y in train_dl:
        out = model(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        writer.add_scalar("train/loss_step", loss.item(), step)
        step += 1
    model.eval()
    vloss, preds, gts = [], [], []
    with torch.no_grad():
        for x, y in val_dl:
            out = model(x)
            vloss.append(criterion(out, y).item())
            preds.append(out.argmax(1))
            gts.append(y)
    dice, iou = per_class(torch.cat(preds), torch.cat(gts), len(CLASSES))
    writer.add_scalar("train/loss", np.mean(losses), epoch)
    writer.add_scalar("val/loss", np.mean(vloss), epoch)
    for c, d, j in zip(CLASSES[1:], dice, iou):
        writer.add_scalar(f"val/dice_{c}", d, epoch)
        writer.add_scalar(f"val/iou_{c}", j, epoch)
    print(f"Epoch {epoch:3d}/{EPOCHS} ({time.time() - t0:.1f}s)  train_loss={np.mean(losses):.4f}  val_loss={np.mean(vloss):.4f}")
    print("    +------------+--------+--------+")
    print("    | class      |  Dice  |  IoU   |")
    print("    +------------+--------+--------+")
    for c, d, j in zip(CLASSES[1:], dice, iou):
        print(f"    | {c:<10} | {d:.4f} | {j:.4f} |")
    print(f"    | {'mean':<10} | {np.mean(dice):.4f} | {np.mean(iou):.4f} |")
    print("    +------------+--------+--------+")
writer.close()
torch.save(model.state_dict(), "segnet_last.pt")
