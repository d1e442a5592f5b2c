import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument('--data', default='data/gestures_v3')
parser.add_argument('--clip-len', type=int, default=8)
parser.add_argument('--frame-interval', type=int, default=3)
parser.add_argument('--num-clips-test', type=int, default=1)
parser.add_argument('--batch-size', type=int, default=8)
parser.add_argument('--epochs', type=int, default=6)
parser.add_argument('--lr', type=float, default=0.02)
parser.add_argument('--print-freq', type=int, default=10)
parser.add_argument('--out', default='checkpoints/c3d_gestures')
args = parser.parse_args()

MEAN = np.array([114.8, 114.8, 114.8], np.float32)
STD = np.array([57.4, 57.4, 57.4], np.float32)


def read_list(path):
    items = []
    with open(path) as f:
        for line in f:
            name, n, label = line.split()
            items.append((name, int(n), int(label)))
    return items


class GestureClips(Dataset):
    def __init__(self, root, split, clip_len, frame_interval, train=True):
        self.root = root
        self.items = read_list(os.path.join(root, f'{split}.txt'))
        self.clip_len = clip_len
        self.frame_interval = frame_interval
        self.train = train

    def __len__(self):
        return len(self.items)

    def load_frames(self, name, inds):
        video = np.load(os.path.join(self.root, 'frames', name + '.npy'), mmap_mode='r')
        return np.asarray(video[inds], dtype=np.float32)

    def sample(self, n):
        span = (self.clip_len - 1) * self.frame_interval + 1
        if self.train:
            start = np.random.randint(0, n - span + 1)
        else:
            start = (n - span) // 2
        return start + np.arange(self.clip_len) * self.frame_interval

    def __getitem__(self, i):
        name, n, label = self.items[i]
        frames = self.load_frames(name, self.sample(n))
        frames = (frames - MEAN) / STD
        if self.train:
            if np.random.rand() < 0.5:
                frames = frames + np.random.normal(0, 0.05, frames.shape).astype(np.float32)
            clip = frames.transpose(3, 0, 1, 2)
        else:
            clip = frames.transpose(0, 3, 1, 2)
        return torch.from_numpy(np.ascontiguousarray(clip)), label


class C3DSmall(nn.Module):
    def __init__(self, num_classes, width=16):
        super().__init__()

        def block(cin, cout, pool):
            return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout),
                                 nn.ReLU(inplace=True), nn.MaxPool3d(pool))
        self.features = nn.Sequential(block(3, width, (1, 2, 2)), block(width, 2 * width, (2, 2, 2)),
                                      block(2 * width, 4 * width, (2, 2, 2)))
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(4 * width, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = x.mean(dim=(2, 3, 4))
        return self.fc(self.dropout(x))


class AverageMeter:
    def __init__(self):
        self.sum, self.n = 0.0, 0

    def update(self, v, k=1):
        self.sum += v * k
        self.n += k

    @property
    def avg(self):
        return self.sum / max(self.n, 1)


def validate(model, loader, epoch):
    model.eval()
    top1 = AverageMeter()
    losses = AverageMeter()
    with torch.no_grad():
        for clips, labels in loader:
            out = model(clips)
            losses.update(F.cross_entropy(out, labels).item(), len(labels))
            top1.update((out.argmax(1) == labels).float().mean().item(), len(labels))
    print(f'Epoch [{epoch}] val: loss {losses.avg:.4f}  top1_acc {top1.avg:.4f}', flush=True)
    return top1.avg


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    train_set = GestureClips(args.data, 'train', args.clip_len, args.frame_interval, train=True)
    val_set = GestureClips(args.data, 'val', args.clip_len, args.frame_interval, train=False)
    num_classes = len(set(l for _, _, l in train_set.items))
    print(f'train clips: {len(train_set)}  val clips: {len(val_set)}  classes: {num_classes}', flush=True)
    print(f'clip_len={args.clip_len} frame_interval={args.frame_interval} batch_size={args.batch_size} lr={args.lr}', flush=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=0, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, shuffle=False, num_workers=0)

    model = C3DSmall(num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[4, 5], gamma=0.1)
    os.makedirs(args.out, exist_ok=True)

    for epoch in range(1, args.epochs + 1):
        model.train()
        losses, top1 = AverageMeter(), AverageMeter()
        batch_time, data_time = AverageMeter(), AverageMeter()
        end = time.time()
        for i, (clips, labels) in enumerate(train_loader):
            data_time.update(time.time() - end)
            out = model(clips)
            loss = F.cross_entropy(out, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.update(loss.item(), len(labels))
            top1.update((out.argmax(1) == labels).float().mean().item(), len(labels))
            batch_time.update(time.time() - end)
            end = time.time()
            if (i + 1) % args.print_freq == 0:
                print(f'Epoch [{epoch}][{i + 1}/{len(train_loader)}]  lr {optimizer.param_groups[0]["lr"]:.5f}  '
                      f'time {batch_time.avg:.3f}  data {data_time.avg:.3f}  loss {losses.avg:.4f}  top1_acc {top1.avg:.4f}',
                      flush=True)
        scheduler.step()
        torch.save(model.state_dict(), os.path.join(args.out, f'epoch_{epoch}.pth'))
        if epoch % 2 == 0:
            validate(model, val_loader, epoch)


if __name__ == '__main__':
    main()
