import json
import math
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

CONFIG = {
    "seed": 12,
    "seq_len": 40,
    "n_train": 3000,
    "n_val": 600,
    "hidden": 48,
    "batch_size": 64,
    "epochs": 30,
    "optimizer": {"name": "adam", "lr": 1e-3, "betas": [0.9, 0.999], "eps": 1.0, "weight_decay": 0.0},
}

torch.manual_seed(CONFIG["seed"])
torch.set_num_threads(1)


def make_waves(n, T):
    """3 classes of noisy 2-channel signals: different frequencies / phase relations."""
    t = torch.arange(T).float()
    y = torch.randint(0, 3, (n,))
    freq = torch.tensor([0.15, 0.3, 0.3])[y] * (1 + 0.1 * torch.randn(n))
    lag = torch.tensor([0.0, 0.0, math.pi / 2])[y]
    ph = 2 * math.pi * torch.rand(n)
    a = torch.sin(freq[:, None] * t + ph[:, None])
    b = torch.sin(freq[:, None] * t + ph[:, None] + lag[:, None])
    amp = torch.tensor([1.0, 0.7, 1.3])[y]
    x = amp[:, None, None] * torch.stack([a, b], -1) + 0.6 * torch.randn(n, T, 2)
    return x, y


class GRUClassifier(nn.Module):
    def __init__(self, hidden, n_classes=3):
        super().__init__()
        self.gru = nn.GRU(2, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])


x_train, y_train = make_waves(CONFIG["n_train"], CONFIG["seq_len"])
x_val, y_val = make_waves(CONFIG["n_val"], CONFIG["seq_len"])

model = GRUClassifier(CONFIG["hidden"])
oc = CONFIG["optimizer"]
optimizer = torch.optim.Adam(model.parameters(), lr=oc["lr"], betas=tuple(oc["betas"]),
                             eps=oc["eps"], weight_decay=oc["weight_decay"])
criterion = nn.CrossEntropyLoss()

writer = SummaryWriter("tb")
writer.add_text("config", json.dumps(CONFIG, indent=2))

step = 0
for epoch in range(CONFIG["epochs"]):
    model.train()
    perm = torch.randperm(CONFIG["n_train"])
    losses = []
    for i in range(0, CONFIG["n_train"], CONFIG["batch_size"]):
        idx = perm[i:i + CONFIG["batch_size"]]
        loss = criterion(model(x_train[idx]), y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
        optimizer.step()
        losses.append(loss.item())
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("grad/global_norm", gn.item(), step)
        step += 1
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        val_loss = criterion(logits, y_val).item()
        val_acc = (logits.argmax(-1) == y_val).float().mean().item()
    writer.add_scalar("val/loss", val_loss, step)
    writer.add_scalar("val/acc", val_acc, step)
    writer.add_scalar("lr", optimizer.param_groups[0]["lr"], step)
    print(f"ep {epoch:02d} train_loss {sum(losses) / len(losses):.4f} val_loss {val_loss:.4f} val_acc {val_acc:.3f}")
writer.close()
