import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

# قراءة ملف البيانات
rows = list(csv.reader(open("data/plants.csv", encoding="utf-8")))
header, rows = rows[0], rows[1:]
X = np.array([[float(v) for v in r[:-1]] for r in rows], dtype=np.float32)
y = np.array([int(r[-1]) for r in rows])
print("عدد العينات:", len(X), "| عدد الميزات:", X.shape[1])

num_classes = 5
X = (X - X.mean(0)) / X.std(0)
loader = DataLoader(TensorDataset(torch.tensor(X), torch.tensor(y)), batch_size=32, shuffle=True)

model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, num_classes))
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
criterion = nn.CrossEntropyLoss()

print("بدء التدريب...")
for epoch in range(20):
    for xb, yb in loader:
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch + 1} - loss: {loss.item():.4f}")
