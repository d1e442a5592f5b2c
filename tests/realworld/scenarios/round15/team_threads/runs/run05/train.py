import json
import numpy as np
import torch
from torch import nn


class LandCoverNet(nn.Module):
    def __init__(self, n_in, n_classes, width=128, p_drop=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, width),
            nn.ReLU(),
            nn.Dropout(p_drop),
            nn.Linear(width, width),
            nn.ReLU(),
            nn.Dropout(p_drop),
            nn.Linear(width, n_classes),
            nn.Softmax(dim=-1),
        )

    def forward(self, x):
        return self.net(x)


def accuracy(probs, y):
    return (probs.argmax(-1) == y).float().mean().item()


def main():
    torch.set_num_threads(1)
    torch.manual_seed(1234)
    data = np.load("data/landcover_feats.npz")
    Xtr, ytr = data["train_x"], data["train_y"]
    Xte, yte = data["test_x"], data["test_y"]
    mean, std = Xtr.mean(0), Xtr.std(0) + 1e-6
    Xtr = torch.from_numpy((Xtr - mean) / std).float()
    Xte = torch.from_numpy((Xte - mean) / std).float()
    ytr, yte = torch.from_numpy(ytr), torch.from_numpy(yte)

    n_classes = 7
    model = LandCoverNet(Xtr.shape[1], n_classes)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=1e-2)
    loss_fn = nn.CrossEntropyLoss()

    history = []
    for epoch in range(60):
        model.train()
        perm = torch.randperm(len(Xtr))
        running = []
        for i in range(0, len(Xtr), 128):
            idx = perm[i:i + 128]
            out = model(Xtr[idx])
            loss = loss_fn(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            running.append(loss.item())
        model.eval()
        with torch.no_grad():
            out_tr = model(Xtr)
            out_te = model(Xte)
            rec = {
                "epoch": epoch + 1,
                "loss": round(float(np.mean(running)), 4),
                "train_acc": round(accuracy(out_tr, ytr), 4),
                "test_loss": round(loss_fn(out_te, yte).item(), 4),
                "test_acc": round(accuracy(out_te, yte), 4),
            }
        history.append(rec)
        print(json.dumps(rec), flush=True)

    torch.save(model.state_dict(), "landcover.pt")
    with open("history.json", "w") as f:
        json.dump(history, f)


if __name__ == "__main__":
    main()
