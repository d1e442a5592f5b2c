# %% [markdown]
# # Project 2 – Regularisation (Dropout + BatchNorm)
# Autograder calls `train(X, y)` once, then `predict(model, X_test)`.

# %%
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(1)


# %%
class RegNet(nn.Module):
    def __init__(self, p_drop=0.5):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(64, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(p_drop),
        )
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.body(x))


# %%
def to_tensor(X):
    return torch.as_tensor(np.asarray(X) / 16.0, dtype=torch.float32)


def evaluate(model, X, y):
    model.eval()
    with torch.no_grad():
        acc = (model(to_tensor(X)).argmax(1).numpy() == np.asarray(y)).mean()
    model.train()
    return acc


def train(X, y, X_val=None, y_val=None, epochs=20, lr=1e-3, bs=128):
    model = RegNet()
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    Xt, yt = to_tensor(X), torch.as_tensor(y, dtype=torch.long)
    for ep in range(epochs):
        perm = torch.randperm(len(Xt))
        for i in range(0, len(Xt), bs):
            idx = perm[i:i + bs]
            loss = nn.functional.cross_entropy(model(Xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if X_val is not None and (ep + 1) % 5 == 0:
            print(f"epoch {ep + 1}: loss {loss.item():.4f}, val acc {evaluate(model, X_val, y_val):.4f}")
    return model


# %%
def predict(model, X):
    with torch.no_grad():
        logits = model(to_tensor(X))
    return logits.argmax(1).numpy()


# %%
if __name__ == "__main__":
    d = np.load("p2_train.npz")
    X, y = d["X"], d["y"]
    X_tr, y_tr, X_va, y_va = X[:2500], y[:2500], X[2500:], y[2500:]
    model = train(X_tr, y_tr, X_va, y_va)
    print("final val acc:", evaluate(model, X_va, y_va))
