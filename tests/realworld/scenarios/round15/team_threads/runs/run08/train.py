import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 42
EPOCHS = 12
BATCH = 64
torch.set_num_threads(1)
torch.manual_seed(SEED)

raw = np.load("data/event_sequences.npz")
X, y = raw["tokens"], raw["labels"]

rng = np.random.default_rng(SEED)
rng.shuffle(X)
rng.shuffle(y)

n_val = 600
X_val, y_val = torch.tensor(X[:n_val]), torch.tensor(y[:n_val])
X_tr, y_tr = torch.tensor(X[n_val:]), torch.tensor(y[n_val:])
VOCAB = int(X.max()) + 1
N_CLASSES = int(y.max()) + 1


class SeqClassifier(nn.Module):
    def __init__(self, vocab, emb=16, hidden=24, n_classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h[:, -1])


model = SeqClassifier(VOCAB, n_classes=N_CLASSES)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
print(f"train {len(X_tr)}  val {len(X_val)}  vocab {VOCAB}  classes {N_CLASSES}")

for ep in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(X_tr))
    tl, tc, gn = 0.0, 0, []
    for i in range(0, len(X_tr), BATCH):
        idx = perm[i:i + BATCH]
        logits = model(X_tr[idx])
        loss = F.cross_entropy(logits, y_tr[idx])
        opt.zero_grad()
        loss.backward()
        gn.append(nn.utils.clip_grad_norm_(model.parameters(), 5.0).item())
        opt.step()
        tl += loss.item() * len(idx)
        tc += (logits.argmax(1) == y_tr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vlog = model(X_val)
        vl = F.cross_entropy(vlog, y_val).item()
        vacc = (vlog.argmax(1) == y_val).float().mean().item()
    print(f"[ep {ep + 1:2d}/{EPOCHS}] loss {tl / len(X_tr):.4f} acc {tc / len(X_tr):.3f} | "
          f"val_loss {vl:.4f} val_acc {vacc:.3f} | grad_norm {np.mean(gn):.3f}", flush=True)

torch.save(model.state_dict(), "gru_events.pt")
