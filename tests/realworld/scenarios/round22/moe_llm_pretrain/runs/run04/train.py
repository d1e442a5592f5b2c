import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "config.yaml"))
torch.manual_seed(cfg["seed"])
os.makedirs(cfg["out_dir"], exist_ok=True)


class CharTokenizer:
    def __init__(self, chars):
        self.itos = list(chars)
        self.stoi = {c: i for i, c in enumerate(self.itos)}

    @classmethod
    def from_text(cls, text):
        return cls(sorted(set(text)))

    def encode(self, s):
        return [self.stoi[c] for c in s]

    def decode(self, ids):
        return "".join(self.itos[i] for i in ids)

    def save(self, path):
        json.dump({"itos": self.itos}, open(path, "w"))


def load_split(path):
    text = open(path).read()
    tok = CharTokenizer.from_text(text)
    return tok, torch.tensor(tok.encode(text), dtype=torch.long)


tok, train_data = load_split(cfg["train_path"])
_, val_data = load_split(cfg["val_path"])
tok.save(os.path.join(cfg["out_dir"], "tokenizer.json"))
V = len(tok.itos)
T, B = cfg["block_size"], cfg["batch_size"]
print(f"train: {len(train_data):,} tokens from {cfg['train_path']}")
print(f"val:   {len(val_data):,} tokens from {cfg['val_path']}")
print(f"vocab size: {V}")


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        d = cfg["n_embd"]
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, cfg["n_head"], c // cfg["n_head"]).permute(2, 0, 3, 1, 4)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, c))
        return x + self.ff(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        d = cfg["n_embd"]
        self.tok_emb = nn.Embedding(V, d)
        self.pos_emb = nn.Embedding(T, d)
        self.blocks = nn.ModuleList([Head() for _ in range(cfg["n_layer"])])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, V, bias=False)

    def forward(self, idx):
        x = self.tok_emb(idx) + self.pos_emb(torch.arange(idx.shape[1]))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))

    @torch.no_grad()
    def generate(self, idx, n):
        for _ in range(n):
            logits = self(idx[:, -T:])[:, -1]
            idx = torch.cat([idx, torch.multinomial(logits.softmax(-1), 1)], dim=1)
        return idx


def get_batch(data, g=None):
    ix = torch.randint(len(data) - T - 1, (B,), generator=g)
    return torch.stack([data[i:i + T] for i in ix]), torch.stack([data[i + 1:i + T + 1] for i in ix])


@torch.no_grad()
def estimate(data, seed):
    model.eval()
    g = torch.Generator().manual_seed(seed)
    out = sum(F.cross_entropy(model(x).view(-1, V), y.view(-1)).item()
              for x, y in (get_batch(data, g) for _ in range(cfg["eval_iters"]))) / cfg["eval_iters"]
    model.train()
    return out


def lr_for(it):
    if it < cfg["warmup_iters"]:
        return cfg["lr"] * (it + 1) / cfg["warmup_iters"]
    r = (it - cfg["warmup_iters"]) / (cfg["max_iters"] - cfg["warmup_iters"])
    return cfg["min_lr"] + 0.5 * (1 + math.cos(math.pi * r)) * (cfg["lr"] - cfg["min_lr"])


model = TinyGPT()
print(f"{sum(p.numel() for p in model.parameters()) / 1e3:.1f}K parameters")
opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"], betas=(0.9, 0.95))
history = []
t0 = time.time()
for it in range(cfg["max_iters"] + 1):
    if it % cfg["eval_interval"] == 0:
        tr, va = estimate(train_data, 1), estimate(val_data, 2)
        history.append({"iter": it, "train_loss": tr, "val_loss": va, "val_ppl": math.exp(va)})
        print(f"step {it:4d} | train_loss {tr:.4f} | val_loss {va:.4f} | val_ppl {math.exp(va):9.2f} | {time.time() - t0:.1f}s", flush=True)
    if it == cfg["max_iters"]:
        break
    for g in opt.param_groups:
        g["lr"] = lr_for(it)
    x, y = get_batch(train_data)
    loss = F.cross_entropy(model(x).view(-1, V), y.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"])
    opt.step()

torch.manual_seed(0)
prompt = torch.tensor([tok.encode("the ")])
print("sample:", repr(tok.decode(model.generate(prompt, 120)[0].tolist())))
json.dump(history, open(os.path.join(cfg["out_dir"], "history.json"), "w"), indent=1)
torch.save(model.state_dict(), os.path.join(cfg["out_dir"], "model.pt"))
