import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
torch.manual_seed(7)

X, y = make_classification(n_samples=4000, n_features=20, n_informative=12, n_classes=3,
                           n_clusters_per_class=2, random_state=7)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=7)
scaler = StandardScaler().fit(X_train)
X_train = torch.tensor(scaler.transform(X_train), dtype=torch.float32)
X_test = torch.tensor(scaler.transform(X_test), dtype=torch.float32)
y_train = torch.tensor(y_train)
y_test = torch.tensor(y_test)

model = nn.Sequential(
    nn.Linear(20, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 3),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)

EPOCHS = 10
step = 0
model.train()
optimizer.zero_grad()
for epoch in range(EPOCHS):
    for xb, yb in train_loader:
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=float("inf"))
        optimizer.step()
        step += 1
        if step % 25 == 0:
            print(f"[epoch {epoch}] step {step} loss={loss.item():.4f} gnorm={gnorm.item():.2f}")
    with torch.no_grad():
        test_acc = (model(X_test).argmax(1) == y_test).float().mean().item()
    print(f"[epoch {epoch}] test_acc={test_acc:.3f}")
