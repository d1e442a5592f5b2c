# -*- coding: utf-8 -*-
# Müşteri segmenti tahmini (4 sınıf) - basit MLP
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(3)

veri = np.load("veri/musteri.npz")
X_egitim = torch.tensor(veri["X_egitim"])
y_egitim = torch.tensor(veri["y_egitim"])
X_dogrulama = torch.tensor(veri["X_dogrulama"])
y_dogrulama = torch.tensor(veri["y_dogrulama"])

# standartlaştırma (istatistikler sadece eğitim verisinden)
ort, std = X_egitim.mean(0), X_egitim.std(0)
X_egitim = (X_egitim - ort) / std
X_dogrulama = (X_dogrulama - ort) / std

yukleyici = DataLoader(TensorDataset(X_egitim, y_egitim), batch_size=32, shuffle=True)

model = nn.Sequential(
    nn.Linear(X_egitim.shape[1], 128), nn.ReLU(), nn.Dropout(0.1),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, 4),
)
kriter = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

adim = 0
for epoch in range(1, 13):
    model.train()
    basla = time.time()
    toplam = 0.0
    for xb, yb in yukleyici:
        optimizer.zero_grad()
        kayip = kriter(model(xb), yb)
        kayip.backward()
        optimizer.step()
        toplam += kayip.item()
        adim += 1
        if adim % 25 == 0:
            print(f"  adım {adim:5d} | kayıp: {kayip.item():.4f}")
    model.eval()
    with torch.no_grad():
        cikti = model(X_dogrulama)
        d_kayip = kriter(cikti, y_dogrulama).item()
        d_dogruluk = (cikti.argmax(1) == y_dogrulama).float().mean().item()
    print(f"Epoch {epoch}/12 - ort. kayıp: {toplam / len(yukleyici):.4f} - doğrulama kaybı: {d_kayip:.4f}"
          f" - doğrulama doğruluğu: {d_dogruluk:.4f} - süre: {time.time() - basla:.1f}s")

torch.save(model.state_dict(), "segment_model.pt")
