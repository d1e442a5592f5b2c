# -*- coding: utf-8 -*-
# Huấn luyện MLP phân loại 5 loại hoạt động từ dữ liệu cảm biến gia tốc (đã trích đặc trưng)
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--epochs", type=int, default=8)
parser.add_argument("--batch_size", type=int, default=64)
args = parser.parse_args()

torch.manual_seed(0)

# ---- đọc dữ liệu ----
du_lieu = np.load("data/dac_trung.npz")
X_train = torch.from_numpy(du_lieu["X_train"])
y_train = torch.from_numpy(du_lieu["y_train"])
X_val = torch.from_numpy(du_lieu["X_val"])
y_val = torch.from_numpy(du_lieu["y_val"])
print(f"Số mẫu train: {len(X_train)}, số mẫu val: {len(X_val)}, số đặc trưng: {X_train.shape[1]}")

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=args.batch_size, shuffle=True)

# ---- mô hình ----
model = nn.Sequential(
    nn.Linear(X_train.shape[1], 128),
    nn.ReLU(),
    nn.Linear(128, 128),
    nn.ReLU(),
    nn.Linear(128, 5),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)


def tinh_grad_norm(model):
    tong = 0.0
    for p in model.parameters():
        if p.grad is not None:
            tong += p.grad.detach().norm(2).item() ** 2
    return tong ** 0.5


# ---- vòng lặp huấn luyện ----
for epoch in range(args.epochs):
    model.train()
    optimizer.zero_grad()
    tong_loss, so_buoc = 0.0, 0
    for buoc, (xb, yb) in enumerate(train_loader, 1):
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        gn = tinh_grad_norm(model)
        optimizer.step()

        tong_loss += loss.item()
        so_buoc += 1
        if buoc % 10 == 0:
            print(f"Epoch {epoch + 1}/{args.epochs} | bước {buoc}/{len(train_loader)} | "
                  f"mất mát: {loss.item():.4f} | grad_norm: {gn:.3f}")

    # ---- đánh giá trên tập val ----
    model.eval()
    with torch.no_grad():
        logits = model(X_val)
        val_loss = criterion(logits, y_val).item()
        do_chinh_xac = (logits.argmax(1) == y_val).float().mean().item()
    print(f"==> Epoch {epoch + 1}: mất mát TB = {tong_loss / so_buoc:.4f} | "
          f"val mất mát = {val_loss:.4f} | độ chính xác val = {do_chinh_xac:.4f}")

torch.save(model.state_dict(), "mlp_har.pt")
print("Đã lưu mô hình vào mlp_har.pt")
