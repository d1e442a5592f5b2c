import yaml
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from datasets import load_tabular


def build_model(n_in, hidden, n_out, dropout):
    layers, d = [], n_in
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU()]
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
        d = h
    layers.append(nn.Linear(d, n_out))
    return nn.Sequential(*layers)


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    tcfg = cfg["train"]
    torch.manual_seed(tcfg["seed"])

    Xtr, ytr, Xva, yva = load_tabular(cfg["data"])
    tr = DataLoader(TensorDataset(torch.tensor(Xtr), torch.tensor(ytr)), batch_size=tcfg["batch_size"], shuffle=True)
    va = DataLoader(TensorDataset(torch.tensor(Xva), torch.tensor(yva)), batch_size=512)

    model = build_model(Xtr.shape[1], cfg["model"]["hidden"], int(ytr.max()) + 1, cfg["model"]["dropout"])
    opt = torch.optim.SGD(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])
    crit = nn.CrossEntropyLoss()

    for epoch in range(1, tcfg["epochs"] + 1):
        model.train()
        tot, n = 0.0, 0
        for xb, yb in tr:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            n += len(yb)
        model.eval()
        correct, m = 0, 0
        with torch.no_grad():
            for xb, yb in va:
                correct += (model(xb).argmax(1) == yb).sum().item()
                m += len(yb)
        print(f"[{epoch:3d}/{tcfg['epochs']}] loss={tot / n:.4f} val_acc={correct / m:.4f}")


if __name__ == "__main__":
    main()
