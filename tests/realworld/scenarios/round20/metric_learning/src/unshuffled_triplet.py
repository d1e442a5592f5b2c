import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(1)

EMBEDDING_SIZE = 64
MARGIN = 0.2
BATCH_SIZE = 64
EPOCHS = 8
LR = 1e-3

#<<clusters>>

#<<retrieval>>


class EmbeddingNet(nn.Module):
    def __init__(self, d_in, emb):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU())
        self.head = nn.Linear(256, emb)

    def forward(self, x):
        return F.normalize(self.head(self.body(x)), dim=1)


def all_triplets(labels):
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    valid = (same & ~eye)[:, :, None] & (~same)[:, None, :]
    return torch.nonzero(valid, as_tuple=True)


def triplet_loss(emb, labels, margin):
    a, p, n = all_triplets(labels)
    if len(a) == 0:
        return torch.zeros((), requires_grad=True), 0, 0.0
    d = torch.cdist(emb, emb)
    losses = F.relu(d[a, p] - d[a, n] + margin)
    nz = losses > 0
    loss = losses[nz].mean() if nz.any() else losses.sum()
    return loss, len(a), nz.float().mean().item()


x_train, y_train = make_identities(150, 96, seed=41)
x_test, y_test = make_identities(100, 20, seed=42)
train_set = TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=False)
X_test, Y_test = torch.from_numpy(x_test), torch.from_numpy(y_test)

model = EmbeddingNet(x_train.shape[1], EMBEDDING_SIZE)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)

log = open("train_log.txt", "w")
evals = open("retrieval_eval.txt", "w")


def evaluate(tag):
    model.eval()
    with torch.no_grad():
        emb = model(X_test)
    r = recall_at_k(emb, Y_test, ks=(1, 5, 10))
    m = map_at_r(emb, Y_test)
    line = f"{tag}: R@1 {r[1]:.4f}  R@5 {r[5]:.4f}  R@10 {r[10]:.4f}  MAP@R {m:.4f}"
    evals.write(line + "\n")
    evals.flush()
    print(line)


evaluate("init")
step = 0
for epoch in range(EPOCHS):
    model.train()
    t0 = time.time()
    for x, y in train_loader:
        emb = model(x)
        loss, n_trip, frac = triplet_loss(emb, y, MARGIN)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        log.write(f"epoch {epoch} step {step} loss {loss.item():.4f} triplets {n_trip} "
                  f"active {frac:.3f} classes_in_batch {len(torch.unique(y))}\n")
    log.flush()
    print(f"epoch {epoch} done in {time.time() - t0:.1f}s")
    evaluate(f"epoch {epoch}")
