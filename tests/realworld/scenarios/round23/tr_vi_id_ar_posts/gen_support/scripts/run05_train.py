# -*- coding: utf-8 -*-
# طبقه‌بندی کیفیت محصول (۳ کلاس) از روی ۱۰ ویژگی اندازه‌گیری شده
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(7)
np.random.seed(7)

# ---------- خواندن داده ----------
dade = np.load("data/dade_kargah.npz")
X, y = dade["X"], dade["y"]
print("تعداد نمونه‌های اصلی:", len(X))

# ---------- افزایش داده (چون داده کم است) ----------
# از هر نمونه ۵ نسخه با نویز کوچک می‌سازیم
X_aug, y_aug = [X], [y]
for _ in range(5):
    X_aug.append(X + np.random.normal(0, 0.05, size=X.shape).astype(np.float32))
    y_aug.append(y)
X = np.concatenate(X_aug)
y = np.concatenate(y_aug)
print("تعداد نمونه‌ها بعد از افزایش داده:", len(X))

# ---------- تقسیم آموزش / ولیدیشن ----------
idx = np.random.permutation(len(X))
n_train = int(0.8 * len(X))
tr, va = idx[:n_train], idx[n_train:]
X_train, y_train = torch.tensor(X[tr]), torch.tensor(y[tr])
X_val, y_val = torch.tensor(X[va]), torch.tensor(y[va])

# ---------- مدل ----------
model = nn.Sequential(
    nn.Linear(10, 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, 3),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

EPOCHS = 25
BATCH = 64
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(X_train))
    jam_loss, dorost = 0.0, 0
    for i in range(0, len(X_train), BATCH):
        b = perm[i:i + BATCH]
        out = model(X_train[b])
        loss = loss_fn(out, y_train[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        jam_loss += loss.item() * len(b)
        dorost += (out.argmax(1) == y_train[b]).sum().item()

    model.eval()
    with torch.no_grad():
        out_val = model(X_val)
        val_loss = loss_fn(out_val, y_val).item()
        val_acc = (out_val.argmax(1) == y_val).float().mean().item()
    print(f"ایپاک {epoch}/{EPOCHS} - loss: {jam_loss / len(X_train):.4f} - دقت: {dorost / len(X_train):.4f}"
          f" - val_loss: {val_loss:.4f} - دقت ولیدیشن: {val_acc:.4f}")

torch.save(model.state_dict(), "model_keyfiat.pt")

# ---------- ارزیابی روی داده‌ی جدیدی که مشتری فرستاده ----------
jadid = np.load("data/dade_jadid_moshtari.npz")
with torch.no_grad():
    pred = model(torch.tensor(jadid["X"])).argmax(1).numpy()
print("دقت روی داده‌ی جدید مشتری:", round(float((pred == jadid["y"]).mean()), 4))
