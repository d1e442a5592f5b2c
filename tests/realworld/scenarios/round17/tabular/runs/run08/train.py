import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from sklearn.preprocessing import LabelEncoder, StandardScaler
from sklearn.model_selection import train_test_split
from sklearn.metrics import classification_report

pd.set_option("display.max_columns", None)
pd.set_option("display.width", 120)
torch.manual_seed(0)

df = pd.read_csv("data/customer_segmentation.csv")
print(df.head())
print(df.dtypes)
print(df["Segmentation"].value_counts())

le = LabelEncoder()
target = le.fit_transform(df["Segmentation"])

features = df.drop(columns=["ID", "Segmentation"])
features = pd.get_dummies(features, columns=["Gender", "Ever_Married", "Graduated", "Profession",
                                             "Spending_Score", "Var_1"], dtype=float)
features = features.sort_values(["Age", "Work_Experience"]).reset_index(drop=True)
print(features.head())
print(features.shape)

X = features.values.astype(np.float32)
X_train, X_val, y_train, y_val = train_test_split(X, target, test_size=0.2, random_state=0)
scaler = StandardScaler()
X_train = scaler.fit_transform(X_train)
X_val = scaler.transform(X_val)

X_train, X_val = torch.tensor(X_train, dtype=torch.float32), torch.tensor(X_val, dtype=torch.float32)
y_train, y_val = torch.tensor(y_train), torch.tensor(y_val)

model = nn.Sequential(
    nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Dropout(0.3),
    nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.3),
    nn.Linear(32, 4),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X_train, y_train), batch_size=64, shuffle=True)

for epoch in range(30):
    model.train()
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = criterion(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    print(f"Epoch {epoch + 1}/30, Loss: {total / len(X_train):.4f}, Val Loss: {val_loss:.4f}, Val Acc: {val_acc:.4f}")

pred = model(X_val).argmax(1).numpy()
print(classification_report(y_val.numpy(), pred, target_names=le.classes_))
