# -*- coding: utf-8 -*-
# تدريب شبكة لتصنيف إشارات الحساسات إلى 6 فئات
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)


class Classifier(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, 256),
            nn.BatchNorm1d(256),
            nn.ReLU(),
            nn.Dropout(0.5),
            nn.Linear(256, 256),
            nn.BatchNorm1d(256),
            nn.ReLU(),
            nn.Dropout(0.5),
            nn.Linear(256, n_out),
        )

    def forward(self, x):
        return self.net(x)


if __name__ == "__main__":
    # تحميل البيانات
    d = np.load("data/sensors.npz")
    X_train, y_train = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
    X_val, y_val = torch.tensor(d["X_val"]), torch.tensor(d["y_val"])
    loader = DataLoader(TensorDataset(X_train, y_train), batch_size=64, shuffle=True)

    model = Classifier(X_train.shape[1], 6)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()

    best = 0.0
    for epoch in range(1, 16):
        model.train()
        total = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)

        # التقييم على بيانات التحقق
        model.eval()
        with torch.no_grad():
            acc = (model(X_val).argmax(1) == y_val).float().mean().item()
        print(f"الحقبة {epoch:02d} | الخسارة: {total / len(X_train):.4f} | دقة التحقق: {acc:.4f}")

        if acc > best:
            best = acc
            torch.save(model.state_dict(), "best_model.pt")
            print(f"  -> تم حفظ أفضل نموذج (دقة {acc:.4f})")

    print("أفضل دقة تحقق:", round(best, 4))
