import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(8)
torch.set_num_threads(1)
rng = np.random.default_rng(8)

# 10-class problem, 32 features
N_FEAT, N_CLASS = 32, 10
W_true = rng.normal(size=(N_FEAT, N_CLASS))
def gen(n):
    x = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    logits = x @ W_true + 0.5 * np.sin(3 * x[:, :N_CLASS])
    return torch.from_numpy(x), torch.from_numpy(logits.argmax(1))

x_tr, y_tr = gen(6000)
x_va, y_va = gen(1000)


class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.reset_parameters()

    def reset_parameters(self):
        for lin in self.linears:
            nn.init.normal_(lin.weight, mean=0.0, std=1.0)
            nn.init.zeros_(lin.bias)

    def forward(self, x):
        for lin in self.linears[:-1]:
            x = F.relu(lin(x))
        return self.linears[-1](x)


model = MLP([N_FEAT, 256, 256, 256, 256, 256, 256, 256, N_CLASS])
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
writer = SummaryWriter("tb")

step = 0
for epoch in range(10):
    perm = torch.randperm(len(x_tr))
    for i in range(0, len(x_tr), 128):
        b = perm[i:i + 128]
        loss = F.cross_entropy(model(x_tr[b]), y_tr[b])
        opt.zero_grad()
        loss.backward()
        sq = 0.0
        for name, p in model.named_parameters():
            if p.grad is None:
                continue
            n = p.grad.norm().item()
            sq += n * n
            if name.endswith("weight") and step % 5 == 0:
                writer.add_scalar(f"grad_norm/{name}", n, step)
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("grad/global_norm", sq ** 0.5, step)
        opt.step()
        step += 1
    with torch.no_grad():
        out = model(x_va)
        vl = F.cross_entropy(out, y_va).item()
        va = (out.argmax(1) == y_va).float().mean().item()
    writer.add_scalar("val/loss", vl, step)
    writer.add_scalar("val/acc", va, step)
    print(f"epoch {epoch}: train loss {loss.item():.4g}  val loss {vl:.4g}  val acc {va:.3f}")
writer.close()
