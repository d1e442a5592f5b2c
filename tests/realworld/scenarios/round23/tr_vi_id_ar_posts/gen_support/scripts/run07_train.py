# Phân loại 4 loại bệnh lá cây từ đặc trưng màu sắc + kết cấu (đã trích sẵn)
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(2023)

# 1. đọc dữ liệu
data = np.load("features/la_cay.npz")
X, y = data["X"], data["y"]
print("X:", X.shape, "y:", y.shape, "số lớp:", len(np.unique(y)))

# 2. xáo trộn rồi chia train/val
rng = np.random.default_rng(2023)
X = X[rng.permutation(len(X))]
y = y[rng.permutation(len(y))]
n_val = int(0.15 * len(X))
X_val, y_val = torch.tensor(X[:n_val]), torch.tensor(y[:n_val])
X_tr, y_tr = torch.tensor(X[n_val:]), torch.tensor(y[n_val:])

# 3. mô hình
model = nn.Sequential(
    nn.Linear(X.shape[1], 32), nn.ReLU(),
    nn.Linear(32, 4),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

# 4. train
for epoch in range(1, 16):
    model.train()
    idx = torch.randperm(len(X_tr))
    tong, dung, grad_norms = 0.0, 0, []
    for i in range(0, len(X_tr), 64):
        b = idx[i:i + 64]
        out = model(X_tr[b])
        loss = loss_fn(out, y_tr[b])
        opt.zero_grad()
        loss.backward()
        grad_norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9).item())
        opt.step()
        tong += loss.item() * len(b)
        dung += (out.argmax(1) == y_tr[b]).sum().item()
    model.eval()
    with torch.no_grad():
        o = model(X_val)
        vl = loss_fn(o, y_val).item()
        va = (o.argmax(1) == y_val).float().mean().item()
    print(f"Epoch {epoch:2d} | loss {tong / len(X_tr):.4f} | acc {dung / len(X_tr):.4f} | "
          f"val_loss {vl:.4f} | val_acc {va:.4f} | grad_norm TB {np.mean(grad_norms):.3f}")
