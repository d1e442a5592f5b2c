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

# %% [markdown]
# # Small tabular comp - wide MLP baseline

# %%
import numpy as np, pandas as pd, torch, torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(0)
df = pd.read_csv('/kaggle/input/small-tabular/train.csv')
print(df.shape)
feats = [c for c in df.columns if c.startswith('f_')]
X = df[feats].values.astype('float32'); y = df['target'].values
idx = np.random.RandomState(42).permutation(len(df))
tr, va = idx[:260], idx[260:]
mu, sd = X[tr].mean(0), X[tr].std(0)
X = (X - mu) / sd
Xtr, ytr = torch.tensor(X[tr]), torch.tensor(y[tr])
Xva, yva = torch.tensor(X[va]), torch.tensor(y[va])
print('train', len(tr), 'valid', len(va))

# %%
model = nn.Sequential(nn.Linear(len(feats), 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                      nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
EPOCHS = 120
for ep in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(Xtr)); tl, tc = 0.0, 0
    for i in range(0, len(Xtr), 32):
        b = perm[i:i + 32]
        opt.zero_grad(); out = model(Xtr[b]); loss = crit(out, ytr[b]); loss.backward(); opt.step()
        tl += loss.item() * len(b); tc += (out.argmax(1) == ytr[b]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(Xva); vl = crit(vo, yva).item(); vacc = (vo.argmax(1) == yva).float().mean().item()
    print(f"Epoch {ep}/{EPOCHS} - loss: {tl/len(Xtr):.4f} - accuracy: {tc/len(Xtr):.4f} - val_loss: {vl:.4f} - val_accuracy: {vacc:.4f}")

# %%
torch.save(model.state_dict(), 'model.pt')
print('saved')
