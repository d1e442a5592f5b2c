"""Load-integral regressor on the vibration windows (guild op: rnn:train)."""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

from windows import WindowStream

p = argparse.ArgumentParser()
p.add_argument("--hidden", type=int, default=32)
p.add_argument("--seq_len", type=int, default=100)
p.add_argument("--horizon", type=int, default=15)
p.add_argument("--batch_size", type=int, default=32)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--momentum", type=float, default=0.9)
p.add_argument("--steps", type=int, default=1000)
p.add_argument("--eval_every", type=int, default=100)
p.add_argument("--seed", type=int, default=3)
args = p.parse_args()


class Regressor(nn.Module):
    def __init__(self, n_in, hidden):
        super().__init__()
        self.rnn = nn.RNN(n_in, hidden, nonlinearity="relu", batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


torch.manual_seed(args.seed)
model = Regressor(2, args.hidden)
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
stream = WindowStream("data/windows", seq_len=args.seq_len, horizon=args.horizon,
                      batch_size=args.batch_size)
x_val, y_val = stream.validation_batch(256)
writer = SummaryWriter(".")

for step in range(args.steps):
    x, y = stream.next_batch()
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    grad_norm = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.rnn.parameters())).item()
    opt.step()

    writer.add_scalar("loss", loss.item(), step)
    writer.add_scalar("grad_norm", grad_norm, step)
    if step % 5 == 0:
        print(f"step: {step}")
        print(f"loss: {loss.item():.4f}")
        print(f"grad_norm: {grad_norm:.4f}")
    if step % args.eval_every == 0:
        with torch.no_grad():
            val_loss = F.mse_loss(model(x_val), y_val).item()
        writer.add_scalar("val_loss", val_loss, step)
        print(f"val_loss: {val_loss:.4f}")
    if not math.isfinite(loss.item()):
        raise FloatingPointError(f"loss is {loss.item()} at step {step}")

torch.save(model.state_dict(), "model.pt")
