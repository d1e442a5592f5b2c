import glob
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
from PIL import Image, ImageEnhance, ImageFilter
from torch.utils.data import DataLoader, Dataset

DATA_DIR = os.path.join("data", "leaves")
IMG_SIZE = 64
BATCH_SIZE = 32
NUM_WORKERS = 0
EPOCHS = 30
LR = 1e-3
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


class LeafDataset(Dataset):
    def __init__(self, root, split="train"):
        self.classes = sorted(os.listdir(root))
        self.samples = []
        for ci, c in enumerate(self.classes):
            files = sorted(glob.glob(os.path.join(root, c, "*.jpg")))
            for k, f in enumerate(files):
                if (k % 5 == 0) == (split == "val"):
                    self.samples.append((f, ci))
        self.train = split == "train"

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        path, label = self.samples[i]
        img = Image.open(path).convert("RGB")
        if self.train:
            w, h = img.size
            s = random.randint(int(0.6 * w), w)
            x0, y0 = random.randint(0, w - s), random.randint(0, h - s)
            img = img.crop((x0, y0, x0 + s, y0 + s))
            img = img.rotate(random.uniform(-25, 25), resample=Image.BILINEAR)
            if random.random() < 0.5:
                img = img.transpose(Image.FLIP_LEFT_RIGHT)
            img = ImageEnhance.Color(img).enhance(random.uniform(0.7, 1.3))
            img = ImageEnhance.Brightness(img).enhance(random.uniform(0.8, 1.2))
            img = img.filter(ImageFilter.GaussianBlur(radius=random.uniform(0.0, 1.5)))
        img = img.resize((IMG_SIZE, IMG_SIZE), Image.BICUBIC)
        x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0).permute(2, 0, 1)
        return (x - MEAN) / STD, label


class AverageMeter:
    def __init__(self, fmt=":f"):
        self.fmt = fmt
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        return ("{val" + self.fmt + "} ({avg" + self.fmt + "})").format(val=self.val, avg=self.avg)


def make_model(n_classes):
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                             nn.MaxPool2d(2))
    return nn.Sequential(block(3, 16), block(16, 32), block(32, 64), block(64, 64),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.3), nn.Linear(64, n_classes))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using {device}: {torch.cuda.get_device_name(0)}")
train_set = LeafDataset(DATA_DIR, "train")
val_set = LeafDataset(DATA_DIR, "val")
train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True, num_workers=NUM_WORKERS)
val_loader = DataLoader(val_set, batch_size=64, num_workers=NUM_WORKERS)
print(f"{len(train_set)} train / {len(val_set)} val images, {len(train_set.classes)} classes")

model = make_model(len(train_set.classes)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()

for epoch in range(EPOCHS):
    model.train()
    batch_time, data_time = AverageMeter(":6.3f"), AverageMeter(":6.3f")
    losses, top1 = AverageMeter(":.4e"), AverageMeter(":6.2f")
    end = time.time()
    for i, (images, target) in enumerate(train_loader):
        data_time.update(time.time() - end)
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        acc = (output.argmax(1) == target).float().mean().item() * 100
        losses.update(loss.item(), images.size(0))
        top1.update(acc, images.size(0))
        torch.cuda.synchronize()
        batch_time.update(time.time() - end)
        end = time.time()
        if i % 5 == 0:
            print(f"Epoch: [{epoch}][{i:3d}/{len(train_loader)}]\tTime {batch_time}\tData {data_time}\t"
                  f"Loss {losses}\tAcc@1 {top1}")
    model.eval()
    correct = 0
    t0 = time.time()
    with torch.no_grad():
        for images, target in val_loader:
            correct += (model(images.to(device)).argmax(1) == target.to(device)).sum().item()
    print(f" * Epoch {epoch} val Acc@1 {100 * correct / len(val_set):.2f}  (val took {time.time() - t0:.1f}s)")
    torch.save(model.state_dict(), "leafnet.pth")
