import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
cfg = yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "config.yaml"))
torch.manual_seed(cfg["seed"])
T = cfg["seq_len"]

docs = [line for line in open(cfg["corpus"]).read().split("\n") if line.strip()]
val_docs = [line for line in open(cfg["val_corpus"]).read().split("\n") if line.strip()]
chars = sorted(set("\n".join(docs + val_docs)))
stoi = {c: i for i, c in enumerate(chars)}
V = len(chars)


class PackedDocs(Dataset):
    def __init__(self, documents):
        documents = sorted(documents, key=len)
        stream = torch.tensor([stoi[c] for c in "\n".join(documents) + "\n"])
        n = (len(stream) - 1) // T
        self.x = stream[: n * T].view(n, T)
        self.y = stream[1: n * T + 1].view(n, T)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


train_ds = PackedDocs(docs)
val_ds = PackedDocs(val_docs)
train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=False, drop_last=True)
val_dl = DataLoader(val_ds, batch_size=64)
print(f"{cfg['name']}: {len(docs)} docs -> {len(train_ds)} packed sequences of {T} chars, {len(train_dl)} steps/epoch; "
      f"val {len(val_ds)} sequences; vocab {V}", flush=True)


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.h = h

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.h, c // self.h).transpose(1, 2) for z in (q, k, v))
        x = x + self.c_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.ln_2(x))


class CharGPT(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.tok = nn.Embedding(V, m["n_embd"])
        self.pos = nn.Embedding(T, m["n_embd"])
        self.blocks = nn.ModuleList([Block(m["n_embd"], m["n_head"]) for _ in range(m["n_layer"])])
        self.ln_f = nn.LayerNorm(m["n_embd"])
        self.lm_head = nn.Linear(m["n_embd"], V, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x)
        return self.lm_head(self.ln_f(x))


model = CharGPT(cfg["model"])
oc = cfg["optimizer"]
opt = torch.optim.AdamW(model.parameters(), lr=oc["lr"], weight_decay=oc["weight_decay"], betas=tuple(oc["betas"]))
total_steps = cfg["epochs"] * len(train_dl)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / cfg["warmup_steps"]))


@torch.no_grad()
def val_loss():
    model.eval()
    tot, n = 0.0, 0
    for x, y in val_dl:
        tot += F.cross_entropy(model(x).view(-1, V), y.view(-1), reduction="sum").item()
        n += y.numel()
    model.train()
    return tot / n


step = 0
t0 = time.time()
for epoch in range(1, cfg["epochs"] + 1):
    for x, y in train_dl:
        loss = F.cross_entropy(model(x).view(-1, V), y.view(-1))
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), oc["max_norm"])
        opt.step()
        sched.step()
        step += 1
        if step % cfg["log_every"] == 0:
            print(f"epoch {epoch}/{cfg['epochs']} | step {step:4d}/{total_steps} | loss {loss.item():.4f} | "
                  f"grad_norm {gn.item():.3f} | lr {sched.get_last_lr()[0]:.2e} | {time.time() - t0:.1f}s", flush=True)
    vl = val_loss()
    print(f"=== end of epoch {epoch}: val_loss {vl:.4f} | val_ppl {math.exp(vl):.3f}", flush=True)
torch.save(model.state_dict(), "charlm.pt")
