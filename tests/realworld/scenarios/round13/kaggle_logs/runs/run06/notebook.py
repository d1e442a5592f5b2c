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
import numpy as np, torch, torch.nn as nn
torch.set_num_threads(1); torch.manual_seed(1)
d = np.load('/kaggle/input/seq-regimes/seqs.npz')
X, y = torch.tensor(d['X']), torch.tensor(d['y'])
Xtr, ytr, Xva, yva = X[:2000], y[:2000], X[2000:], y[2000:]

class GRUClf(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 48, batch_first=True); self.head = nn.Linear(48, 3)
    def forward(self, x):
        _, h = self.rnn(x); return self.head(h[-1])

model = GRUClf()
EPOCHS, BS = 30, 50
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)   # halve lr every 10 epochs
crit = nn.CrossEntropyLoss()

# %%
for ep in range(EPOCHS):
    model.train(); perm = torch.randperm(len(Xtr)); tot = 0
    for i in range(0, len(Xtr), BS):
        b = perm[i:i+BS]
        opt.zero_grad(); loss = crit(model(Xtr[b]), ytr[b]); loss.backward(); opt.step()
        sched.step()
        tot += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
    print(f"epoch={ep+1} lr={opt.param_groups[0]['lr']:.3e} train_loss={tot/len(Xtr):.4f} val_loss={crit(vo,yva).item():.4f} val_acc={(vo.argmax(1)==yva).float().mean():.4f}")
