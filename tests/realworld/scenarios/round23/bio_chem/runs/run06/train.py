"""NR-AhR (Tox21) activity from ECFP4-1024 with a deep fully connected net."""
import time

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score

DEPTH = 10       # hidden layers
WIDTH = 128
EPOCHS = 25
BATCH = 100
LR = 0.05


def make_model(d_in):
    layers, h = [], d_in
    for _ in range(DEPTH):
        layers += [nn.Linear(h, WIDTH), nn.Sigmoid()]
        h = WIDTH
    layers.append(nn.Linear(h, 1))
    return nn.Sequential(*layers)


def layer_grad_norms(model):
    return [m.weight.grad.norm().item() for m in model if isinstance(m, nn.Linear)]


def main():
    torch.manual_seed(0)
    d = np.load("data/tox21_NR-AhR_ecfp1024.npz")
    Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
    Xva, yva = torch.tensor(d["X_valid"]), d["y_valid"]
    print(f"train {tuple(Xtr.shape)} pos {ytr.mean():.3f} | valid {tuple(Xva.shape)} pos {yva.mean():.3f}")

    model = make_model(Xtr.shape[1])
    print(model)
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    lossf = nn.BCEWithLogitsLoss()
    for epoch in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(Xtr))
        tot, norms = 0.0, None
        for i in range(0, len(Xtr), BATCH):
            idx = perm[i:i + BATCH]
            opt.zero_grad()
            loss = lossf(model(Xtr[idx]).squeeze(1), ytr[idx])
            loss.backward()
            norms = layer_grad_norms(model) if norms is None else [a + b for a, b in zip(norms, layer_grad_norms(model))]
            opt.step()
            tot += loss.item() * len(idx)
        nb = (len(Xtr) + BATCH - 1) // BATCH
        model.eval()
        with torch.no_grad():
            pva = torch.sigmoid(model(Xva).squeeze(1)).numpy()
        print(f"epoch {epoch:3d} | loss {tot / len(Xtr):.4f} | val_auc {roc_auc_score(yva, pva):.4f} | "
              f"{time.time() - t0:.1f}s")
        print("    mean |grad| per Linear (input -> output): " + " ".join(f"{n / nb:.1e}" for n in norms))
    torch.save(model.state_dict(), "ahr_deep_mlp.pt")


if __name__ == "__main__":
    main()
