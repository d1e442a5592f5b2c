# -*- coding: utf-8 -*-
# El yazısı rakam özelliklerinden (64 boyutlu) 10 sınıflı sınıflandırma
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)

veri = np.load("veri/rakamlar.npz")
X_egitim, y_egitim = torch.tensor(veri["X_egitim"]), torch.tensor(veri["y_egitim"])
X_test, y_test = torch.tensor(veri["X_test"]), torch.tensor(veri["y_test"])
egitim_yukleyici = DataLoader(TensorDataset(X_egitim, y_egitim), batch_size=64, shuffle=True)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.katmanlar = nn.Sequential(
            nn.Linear(64, 256),
            nn.ReLU(),
            nn.Linear(256, 128),
            nn.ReLU(),
            nn.Linear(128, 10),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.katmanlar(x)


model = Model()
kayip_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)

EPOCH = 20
for epoch in range(EPOCH):
    model.train()
    toplam_kayip, dogru = 0.0, 0
    for xb, yb in egitim_yukleyici:
        cikti = model(xb)
        kayip = kayip_fn(cikti, yb)
        optimizer.zero_grad()
        kayip.backward()
        optimizer.step()
        toplam_kayip += kayip.item() * len(xb)
        dogru += (cikti.argmax(1) == yb).sum().item()

    model.eval()
    with torch.no_grad():
        test_cikti = model(X_test)
        test_kayip = kayip_fn(test_cikti, y_test).item()
        test_dogruluk = (test_cikti.argmax(1) == y_test).float().mean().item()
    print(f"Epoch {epoch + 1}/{EPOCH} kayıp: {toplam_kayip / len(X_egitim):.4f} "
          f"doğruluk: {dogru / len(X_egitim):.4f} test_kayıp: {test_kayip:.4f} "
          f"test_doğruluk: {test_dogruluk:.4f}")
