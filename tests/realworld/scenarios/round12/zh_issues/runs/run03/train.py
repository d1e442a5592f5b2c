import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(42)
np.random.seed(42)
torch.set_num_threads(1)

SEQ_LEN = 40
BATCH = 8
STEPS = 1000


def make_batch(n):
    """3 类: 上升趋势 / 下降趋势 / 无趋势, 加较大噪声"""
    y = np.random.randint(0, 3, n)
    t = np.linspace(0, 1, SEQ_LEN)
    slope = np.where(y == 0, 1.0, np.where(y == 1, -1.0, 0.0)) * np.random.uniform(0.3, 0.9, n)
    x = slope[:, None] * t[None, :] + np.random.randn(n, SEQ_LEN) * 0.6
    x = x + np.random.uniform(-1, 1, (n, 1))
    return torch.tensor(x, dtype=torch.float32).unsqueeze(-1), torch.tensor(y)


class GRUClassifier(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 3)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


model = GRUClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
x_val, y_val = make_batch(1000)

for step in range(1, STEPS + 1):
    model.train()
    x, y = make_batch(BATCH)
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
    if step % 100 == 0:
        model.eval()
        with torch.no_grad():
            out = model(x_val)
            print(f"[eval] step {step} val_loss {criterion(out, y_val).item():.4f} "
                  f"val_acc {(out.argmax(1) == y_val).float().mean().item():.4f}")
