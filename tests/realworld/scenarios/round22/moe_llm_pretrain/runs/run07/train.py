import math
import os
import resource
import sys
import time
import tomllib
from datetime import datetime

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def log(msg):
    ts = datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
    print(f"[rank0]:[titan] {ts} - root - INFO - {msg}", flush=True)


cfg_path = sys.argv[1] if len(sys.argv) > 1 else "train_config.toml"
with open(cfg_path, "rb") as f:
    cfg = tomllib.load(f)
mcfg, ocfg, scfg, tcfg = cfg["model"], cfg["optimizer"], cfg["lr_scheduler"], cfg["training"]
torch.manual_seed(tcfg["seed"])
np.random.seed(tcfg["seed"])
log(f"Starting job: {cfg['job']['description']}")
log(f"Loading config from {cfg_path}")


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        B, T, C = x.shape
        h = self.n_heads
        q = self.wq(x).view(B, T, h, C // h).transpose(1, 2)
        k = self.wk(x).view(B, T, h, C // h).transpose(1, 2)
        v = self.wv(x).view(B, T, h, C // h).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(B, T, C))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.attention_norm = RMSNorm(m["dim"], m["norm_eps"])
        self.attention = Attention(m["dim"], m["n_heads"])
        self.ffn_norm = RMSNorm(m["dim"], m["norm_eps"])
        self.feed_forward = FeedForward(m["dim"], m["ffn_hidden"])

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


class Transformer(nn.Module):
    def __init__(self, m, max_seq_len):
        super().__init__()
        self.tok_embeddings = nn.Embedding(m["vocab_size"], m["dim"])
        self.pos_embeddings = nn.Embedding(max_seq_len, m["dim"])
        self.layers = nn.ModuleList([TransformerBlock(m) for _ in range(m["n_layers"])])
        self.norm = RMSNorm(m["dim"], m["norm_eps"])
        self.output = nn.Linear(m["dim"], m["vocab_size"], bias=False)
        self.apply(self._init)

    def _init(self, mod):
        if isinstance(mod, (nn.Linear, nn.Embedding)):
            nn.init.normal_(mod.weight, std=0.02)

    def forward(self, tokens):
        T = tokens.shape[1]
        h = self.tok_embeddings(tokens) + self.pos_embeddings(torch.arange(T))
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))


seq_len, bs = tcfg["seq_len"], tcfg["batch_size"]
train_tokens = torch.from_numpy(np.fromfile(os.path.join(tcfg["dataset_path"], "train.bin"), dtype=np.uint16).astype(np.int64))
val_tokens = torch.from_numpy(np.fromfile(os.path.join(tcfg["dataset_path"], "val.bin"), dtype=np.uint16).astype(np.int64))
log(f"Preparing dataset from {tcfg['dataset_path']}: {len(train_tokens):,} train tokens, {len(val_tokens):,} val tokens")


def get_batch(data, gen=None):
    ix = torch.randint(len(data) - seq_len - 1, (bs,), generator=gen)
    x = torch.stack([data[i:i + seq_len] for i in ix])
    y = torch.stack([data[i + 1:i + seq_len + 1] for i in ix])
    return x, y


model = Transformer(mcfg, seq_len)
n_params = sum(p.numel() for p in model.parameters())
log(f"Building {mcfg['name']} {mcfg['flavor']} with {mcfg}")
log(f"Model {mcfg['name']} {mcfg['flavor']} size: {n_params:,} total parameters")
flops_per_token = 6 * n_params + 12 * mcfg["n_layers"] * mcfg["dim"] * seq_len
peak_flops = 2.0e11

decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
optimizer = torch.optim.AdamW(
    [{"params": decay, "weight_decay": ocfg["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}],
    lr=ocfg["lr"], betas=tuple(ocfg["betas"]), eps=ocfg["eps"])

steps, warmup = tcfg["steps"], scfg["warmup_steps"]


def lr_lambda(step):
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return scfg["lr_min"] + (1 - scfg["lr_min"]) * 0.5 * (1 + math.cos(math.pi * progress))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
log(f"Training starts at step 1, with local batch size {bs}, global batch size {bs}, sequence length {seq_len}, total steps {steps} (warmup {warmup})")


def mem_str():
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024 ** 3
    return f"{rss:5.2f}GiB({100 * rss / total:.2f}%)"


@torch.no_grad()
def validate(step):
    model.eval()
    g = torch.Generator().manual_seed(1234)
    losses = []
    for _ in range(cfg["validation"]["steps"]):
        x, y = get_batch(val_tokens, g)
        logits = model(x)
        losses.append(F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1)).item())
    model.train()
    vl = sum(losses) / len(losses)
    log(f"validate step: {step:2}  loss: {vl:7.4f}  ppl: {math.exp(vl):8.3f}  memory: {mem_str()}")


t_last = time.perf_counter()
ntok = 0
for step in range(1, steps + 1):
    x, y = get_batch(train_tokens)
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), tcfg["max_norm"])
    optimizer.step()
    scheduler.step()
    ntok += bs * seq_len
    if step == 1 or step % cfg["metrics"]["log_freq"] == 0:
        dt = time.perf_counter() - t_last
        tps = ntok / dt
        tflops = flops_per_token * tps / 1e12
        mfu = 100 * flops_per_token * tps / peak_flops
        log(f"step: {step:2}  loss: {loss.item():7.4f}  grad_norm: {grad_norm.item():7.4f}  memory: {mem_str()}  "
            f"tps: {round(tps):,}  tflops: {tflops:,.2f}  mfu: {mfu:.2f}%")
        t_last = time.perf_counter()
        ntok = 0
    if cfg["validation"]["enabled"] and step % cfg["validation"]["freq"] == 0:
        validate(step)

os.makedirs(cfg["job"]["dump_folder"], exist_ok=True)
torch.save(model.state_dict(), os.path.join(cfg["job"]["dump_folder"], f"step-{steps}.pt"))
log(f"Saving the checkpoint at step {steps} to {cfg['job']['dump_folder']}/step-{steps}.pt")
log("Training completed")
