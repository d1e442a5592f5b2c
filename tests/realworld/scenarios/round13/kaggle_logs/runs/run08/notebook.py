# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %%
import numpy as np, pandas as pd, torch, torch.nn as nn
torch.set_num_threads(1); torch.manual_seed(0)
df = pd.read_csv('/kaggle/input/churn-prediction/train.csv')
feats = [c for c in df.columns if c.startswith('f_')]
X = df[feats].values.astype('float32'); X = (X - X.mean(0)) / X.std(0); y = df['target'].values
Xtr, ytr = torch.tensor(X[:2400]), torch.tensor(y[:2400]); Xva, yva = torch.tensor(X[2400:]), torch.tensor(y[2400:])

# %%
layers = []; w = len(feats)
for _ in range(6):
    layers += [nn.Linear(w, 256), nn.ReLU()]; w = 256
layers += [nn.Linear(w, 2)]
model = nn.Sequential(*layers)

def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, mean=0.0, std=1.0)
        nn.init.normal_(m.bias, mean=0.0, std=1.0)
model.apply(init_weights)

opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()

# %%
step = 0
for epoch in range(8):
    model.train(); perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 64):
        b = perm[i:i+64]
        opt.zero_grad(); loss = crit(model(Xtr[b]), ytr[b]); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float('inf'))
        opt.step(); step += 1
        if step % 10 == 1:
            print(f"step {step} loss {loss.item():.4e} grad_norm {gn.item():.4e}")
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
    print(f"epoch {epoch+1} val_loss {crit(vo, yva).item():.4e} val_acc {(vo.argmax(1)==yva).float().mean():.4f}")
