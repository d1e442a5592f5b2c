import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from dvclive import Live


def draw(kind, size, rng):
    img = np.zeros((size, size), np.float32)
    r, c = rng.randint(4, size - 4, 2)
    k = rng.randint(2, 4)
    if kind == 0:
        img[r, c - k:c + k + 1] = 1
    elif kind == 1:
        img[r - k:r + k + 1, c] = 1
    elif kind == 2:
        img[r - k:r + k + 1, c - k] = img[r - k:r + k + 1, c + k] = 1
        img[r - k, c - k:c + k + 1] = img[r + k, c - k:c + k + 1] = 1
    elif kind == 3:
        for d in range(-k, k + 1):
            img[r + d, c + d] = img[r + d, c - d] = 1
    elif kind == 4:
        img[r - k:r + k + 1, c - k] = 1
        img[r + k, c - k:c + k + 1] = 1
    else:
        img[r - k, c - k:c + k + 1] = 1
        img[r - k:r + k + 1, c] = 1
    return img


def load_split(n, size, noise, n_classes, rng):
    y = rng.randint(0, n_classes, n)
    X = np.stack([draw(t, size, rng) for t in y])[:, None]
    X = X + rng.normal(0, noise, X.shape).astype(np.float32)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return x.flatten(1)


class Classifier(nn.Module):
    def __init__(self, n_classes, img_size):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Sequential(nn.Linear(32 * (img_size // 4) ** 2, 128), nn.ReLU(), nn.Linear(128, n_classes))

    def forward(self, x):
        return self.head(self.encoder(x))


def main():
    with open("params.yaml") as f:
        params = yaml.safe_load(f)
    dp, mp, tp = params["data"], params["model"], params["train"]
    torch.manual_seed(tp["seed"])
    rng = np.random.RandomState(tp["seed"])
    Xtr, ytr = load_split(dp["n_train"], dp["img_size"], dp["noise"], mp["n_classes"], rng)
    Xva, yva = load_split(dp["n_val"], dp["img_size"], dp["noise"], mp["n_classes"], rng)

    model = Classifier(mp["n_classes"], dp["img_size"])
    model.encoder.load_state_dict(torch.load(mp["encoder_ckpt"]))
    if mp["freeze_encoder"]:
        for p in model.parameters():
            p.requires_grad = False

    optimizer = torch.optim.Adam(model.parameters(), lr=tp["lr"])
    criterion = nn.CrossEntropyLoss()

    live = Live(save_dvc_exp=True)
    live.log_params(params)
    for epoch in range(tp["epochs"]):
        model.train()
        perm = torch.randperm(len(Xtr))
        total, correct, gnorm, nb = 0.0, 0, 0.0, 0
        for i in range(0, len(Xtr), tp["batch_size"]):
            idx = perm[i:i + tp["batch_size"]]
            out = model(Xtr[idx])
            loss = criterion(out, ytr[idx])
            loss.requires_grad = True
            optimizer.zero_grad()
            loss.backward()
            gnorm += sum(p.grad.norm() ** 2 for p in model.parameters() if p.grad is not None) ** 0.5
            optimizer.step()
            total += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
            nb += 1
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = criterion(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        live.log_metric("train/loss", total / len(Xtr))
        live.log_metric("train/acc", correct / len(Xtr))
        live.log_metric("train/grad_norm", float(gnorm / nb))
        live.log_metric("val/loss", val_loss)
        live.log_metric("val/acc", val_acc)
        print(f"epoch {epoch + 1}/{tp['epochs']} loss {total / len(Xtr):.4f} val_loss {val_loss:.4f} val_acc {val_acc:.3f}")
        live.next_step()
    live.end()
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
