"""Train a UNet for road segmentation."""
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import RoadDataset
from unet import UNet


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch_size", type=int, default=48)
    p.add_argument("--image_size", type=int, default=1024)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--epochs", type=int, default=40)
    args = p.parse_args()
    device = torch.device("cuda")
    ds = RoadDataset("data/train", size=args.image_size)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=8, pin_memory=True)
    model = UNet(in_ch=3, n_classes=2, base=64).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    step = 0
    for epoch in range(args.epochs):
        for img, mask in loader:
            img, mask = img.to(device), mask.to(device)
            logits = model(img)
            loss = F.cross_entropy(logits, mask)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                print(f"epoch={epoch} step={step} loss={loss.item():.4f} lr={args.lr} "
                      f"mem_alloc_gb={torch.cuda.memory_allocated() / 2**30:.2f}", flush=True)


if __name__ == "__main__":
    main()
