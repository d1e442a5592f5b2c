import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(4)

df = pd.read_csv("gestures.csv")
feature_cols = [c for c in df.columns if c.startswith("f")]
X = torch.tensor(df[feature_cols].values, dtype=torch.float32)
y = torch.tensor(df["gesture"].values, dtype=torch.long)
num_classes = df["gesture"].nunique()
print(f"loaded {len(df)} samples, {len(feature_cols)} features, {num_classes} classes")

X = (X - X.mean(0)) / X.std(0)
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)

model = nn.Sequential(
    nn.Linear(len(feature_cols), 128),
    nn.ReLU(),
    nn.Dropout(0.2),
    nn.Linear(128, num_classes),
)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)
criterion = nn.CrossEntropyLoss()

print("starting training")
for epoch in range(30):
    model.train()
    running = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch + 1}: loss {running / len(loader):.4f}")
