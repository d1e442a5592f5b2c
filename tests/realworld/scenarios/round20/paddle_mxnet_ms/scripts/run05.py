import logging
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
logging.basicConfig(level=logging.INFO)


def make_tabular(n, d=60, informative=6, k=3, seed=0):
    rng = np.random.RandomState(11)
    W = rng.randn(informative, k)
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d).astype(np.float32)
    logits = X[:, :informative] @ W + 0.8 * rng.randn(n, k)
    y = logits.argmax(1)
    return X, y


torch.manual_seed(3)
Xtr, ytr = make_tabular(300, seed=1)
Xva, yva = make_tabular(2000, seed=2)
Xtr, Xva, ytr, yva = map(torch.tensor, (Xtr, Xva, ytr, yva))

net = nn.Sequential(nn.Linear(60, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 3))
trainer = torch.optim.Adam(net.parameters(), lr=0.0002)
batch_size = 32
num_epochs = 120

for epoch in range(num_epochs):
    tic = time.time()
    net.train()
    perm = torch.randperm(len(Xtr))
    correct, total_loss = 0, 0.0
    for i in range(0, len(Xtr), batch_size):
        idx = perm[i:i + batch_size]
        out = net(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        trainer.zero_grad()
        loss.backward()
        trainer.step()
        correct += (out.argmax(1) == ytr[idx]).sum().item()
        total_loss += loss.item() * len(idx)
    logging.info("Epoch[%d] Train-accuracy=%f", epoch, correct / len(Xtr))
    logging.info("Epoch[%d] Train-cross-entropy=%f", epoch, total_loss / len(Xtr))
    logging.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
    net.eval()
    with torch.no_grad():
        out = net(Xva)
        logging.info("Epoch[%d] Validation-accuracy=%f", epoch, (out.argmax(1) == yva).float().mean().item())
        logging.info("Epoch[%d] Validation-cross-entropy=%f", epoch, F.cross_entropy(out, yva).item())
