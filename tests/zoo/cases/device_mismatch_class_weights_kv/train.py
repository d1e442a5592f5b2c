"""Imbalanced defect classifier (ResNet-18) with class-weighted loss."""
import torch
import torch.nn as nn
import torchvision
import yaml

from data import make_loaders


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    device = torch.device("cuda:0")
    train_loader, _ = make_loaders(cfg)
    model = torchvision.models.resnet18(num_classes=cfg["num_classes"]).to(device)
    counts = train_loader.dataset.class_counts()
    weights = torch.tensor([sum(counts) / c for c in counts], dtype=torch.float32)
    criterion = nn.CrossEntropyLoss(weight=weights)
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    print(f"device={device} num_classes={cfg['num_classes']} class_counts={counts}")
    for epoch in range(cfg["epochs"]):
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device), y.to(device)
            loss = criterion(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 20 == 0:
                print(f"epoch={epoch} step={step} loss={loss.item():.4f}")


if __name__ == "__main__":
    main()
