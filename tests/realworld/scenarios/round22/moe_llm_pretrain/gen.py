#!/usr/bin/env python
"""Build the benchmark run folders under ./runs by really training tiny LMs on CPU.

Usage:  python gen.py            (all runs)
        python gen.py run03 run07 (only these)
Every run is trained by its own standalone train.py (written from the templates
below) in a scratch folder, then the files a user would hand over are copied to
runs/<name>/.  Seeds are fixed; wall-clock columns (tps, iter time) are real.
"""
import os, sys, json, shutil, subprocess, random, textwrap
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
BUILD = os.path.join(HERE, "_build")

# --------------------------------------------------------------------------
# corpora
# --------------------------------------------------------------------------
NAMES = "anna ben carl dora eli fay gus hana ivan jade kai lena milo nora otto pia".split()
NOUNS = "cat dog bird fox boat tree house river hill road cake lamp book door ship garden".split()
ADJ = "small red old quiet happy dark green tall cold bright".split()
VERBS = "saw found liked painted carried followed built opened watched lost".split()
PLACES = "by the river|in the garden|on the hill|near the road|at the market|under the tree".split("|")


def _sent(r):
    k = r.random()
    if k < 0.4:
        return f"{r.choice(NAMES)} {r.choice(VERBS)} the {r.choice(ADJ)} {r.choice(NOUNS)}."
    if k < 0.7:
        return f"the {r.choice(NOUNS)} was {r.choice(ADJ)} {r.choice(PLACES)}."
    return f"{r.choice(NAMES)} and {r.choice(NAMES)} {r.choice(VERBS)} a {r.choice(NOUNS)} {r.choice(PLACES)}."


def _story(r, lo=2, hi=12):
    return " ".join(_sent(r) for _ in range(r.randint(lo, hi)))


def _listdoc(r):
    n = r.randint(3, 9)
    return "list: " + ", ".join(r.choice(NOUNS + ADJ) for _ in range(n)) + "."


def _qa(r, lo=1, hi=1):
    out = []
    for _ in range(r.randint(lo, hi)):
        n, p = r.choice(NOUNS), r.choice(PLACES)
        out.append(f"q: where is the {n}? a: the {n} is {p}.")
    return " ".join(out)


def char_docs(seed, n, mix=(0.5, 0.0, 0.5), qa_pairs=(1, 1), story_len=(2, 12)):
    """mix = share of (list, q/a, story) documents."""
    r = random.Random(seed)
    out = []
    for _ in range(n):
        u = r.random()
        if u < mix[0]:
            out.append(_listdoc(r))
        elif u < mix[0] + mix[1]:
            out.append(_qa(r, *qa_pairs))
        else:
            out.append(_story(r, *story_len))
    return out


def token_corpus(seed, n_tokens, V=512, n_topics=8):
    """Synthetic token stream: sparse bigram 'language' + per-document topic tokens; 0 = <eos>."""
    r = np.random.default_rng(seed)
    g = np.random.default_rng(1234)  # the same 'language' for every split
    cand = g.integers(1, V, size=(V, 8))
    pw = g.dirichlet(np.full(8, 0.4), size=V)
    topics = [g.choice(np.arange(1, V), 32, replace=False) for _ in range(n_topics)]
    out = np.empty(n_tokens, dtype=np.uint16)
    i = 0
    while i < n_tokens:
        L = int(r.geometric(1 / 200)) + 8
        tp = topics[r.integers(n_topics)]
        t = int(r.integers(1, V))
        for _ in range(L):
            if i >= n_tokens:
                break
            u = r.random()
            if u < 0.15:
                t = int(tp[r.integers(32)])
            elif u < 0.2:
                t = int(r.integers(1, V))
            else:
                t = int(cand[t][r.choice(8, p=pw[t])])
            out[i] = t
            i += 1
        if i < n_tokens:
            out[i] = 0
            i += 1
    return out


_TOK_CACHE = {}


def write_tokens(d, n_train=400_000, n_val=40_000):
    if "tok" not in _TOK_CACHE:
        _TOK_CACHE["tok"] = (token_corpus(1, n_train), token_corpus(2, n_val))
    tr, va = _TOK_CACHE["tok"]
    os.makedirs(os.path.join(d, "data"), exist_ok=True)
    tr.tofile(os.path.join(d, "data", "train.bin"))
    va.tofile(os.path.join(d, "data", "val.bin"))


def write_text(d, train_docs, val_docs, name_train="train.txt", name_val="val.txt"):
    os.makedirs(os.path.join(d, "data"), exist_ok=True)
    with open(os.path.join(d, "data", name_train), "w") as f:
        f.write("\n".join(train_docs) + "\n")
    with open(os.path.join(d, "data", name_val), "w") as f:
        f.write("\n".join(val_docs) + "\n")


# --------------------------------------------------------------------------
# the users' scripts and configs (one set per run)
# --------------------------------------------------------------------------
TEMPLATES = {}

TEMPLATES["t01"] = {}
TEMPLATES["t01"]["train.py"] = r'''import math
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
'''
TEMPLATES["t01"]["train_config.toml"] = r'''# tiny llama-style debug model on the synthetic 512-token corpus
[job]
dump_folder = "./outputs"
description = "tinyllama debug 2L-64d, synthetic tokens"

[model]
name = "tinyllama"
flavor = "debug_2L_64d"
vocab_size = 512
dim = 64
n_layers = 2
n_heads = 4
ffn_hidden = 176
norm_eps = 1e-5

[optimizer]
name = "AdamW"
lr = 2e-3
betas = [0.9, 0.95]
eps = 1e-8
weight_decay = 0.1

[lr_scheduler]
warmup_steps = 30
decay_type = "cosine"
lr_min = 0.1

[training]
dataset_path = "data"
batch_size = 16
seq_len = 128
max_norm = 1.0
steps = 300
mixed_precision_param = "float32"
seed = 42

[metrics]
log_freq = 10

[validation]
enabled = true
freq = 50
steps = 10
'''

TEMPLATES["t02"] = {}
TEMPLATES["t02"]["train.py"] = r'''import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

# defaults, overridden by the config file
out_dir = 'out'
eval_interval = 100
eval_iters = 10
log_interval = 10
dataset = 'stories_char'
batch_size = 16
block_size = 64
n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0
bias = True
learning_rate = 1e-3
max_iters = 1000
weight_decay = 1e-1
beta1 = 0.9
beta2 = 0.99
grad_clip = 1.0
warmup_iters = 100
lr_decay_iters = 1000
min_lr = 1e-4
seed = 1337
if len(sys.argv) > 1:
    print(f"Overriding config with {sys.argv[1]}:")
    with open(sys.argv[1]) as f:
        src = f.read()
    print(src)
    exec(src)

torch.manual_seed(seed)
os.makedirs(out_dir, exist_ok=True)

with open(os.path.join('data', 'input.txt')) as f:
    text = f.read()
chars = sorted(set(text))
vocab_size = len(chars)
stoi = {ch: i for i, ch in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
n = int(0.9 * len(data))
train_data, val_data = data[:n], data[n:]
print(f"found vocab_size = {vocab_size}")
print(f"train has {len(train_data):,} tokens, val has {len(val_data):,} tokens")


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=bias)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(n_embd, dim=2)
        k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
        q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
        v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=dropout if self.training else 0)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=bias)
        self.c_proj = nn.Linear(4 * n_embd, n_embd, bias=bias)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList([Block() for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        t = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(t))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


def get_batch(split):
    d = train_data if split == 'train' else val_data
    ix = torch.randint(len(d) - block_size, (batch_size,))
    x = torch.stack([d[i:i + block_size] for i in ix])
    y = torch.stack([d[i + 1:i + 1 + block_size] for i in ix])
    return x, y


@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ['train', 'val']:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            _, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * it / warmup_iters
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


model = GPT()
print(f"number of parameters: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M")
decay_params = [p for p in model.parameters() if p.dim() >= 2]
nodecay_params = [p for p in model.parameters() if p.dim() < 2]
optimizer = torch.optim.AdamW([
    {'params': decay_params, 'weight_decay': weight_decay},
    {'params': nodecay_params, 'weight_decay': 0.0},
], lr=learning_rate, betas=(beta1, beta2))

X, Y = get_batch('train')
t0 = time.time()
iter_num = 0
best_val_loss = 1e9
optimizer.zero_grad(set_to_none=True)
while True:
    lr = get_lr(iter_num)
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr

    if iter_num % eval_interval == 0:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if losses['val'] < best_val_loss:
            best_val_loss = losses['val']
            if iter_num > 0:
                print(f"saving checkpoint to {out_dir}")
                torch.save({'model': model.state_dict(), 'iter_num': iter_num, 'best_val_loss': best_val_loss},
                           os.path.join(out_dir, 'ckpt.pt'))

    logits, loss = model(X, Y)
    X, Y = get_batch('train')
    loss.backward()
    if grad_clip != 0.0:
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    else:
        gnorm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None]))
    optimizer.step()

    t1 = time.time()
    dt = t1 - t0
    t0 = t1
    if iter_num % log_interval == 0:
        print(f"iter {iter_num}: loss {loss.item():.4f}, gnorm {gnorm.item():.3f}, lr {lr:.2e}, time {dt * 1000:.2f}ms")
    iter_num += 1
    if iter_num > max_iters:
        break
'''
TEMPLATES["t02"]["config/train_char.py"] = r'''# tiny char-level model on the story corpus
out_dir = 'out-stories-char'
eval_interval = 50
eval_iters = 10
log_interval = 10

dataset = 'stories_char'
batch_size = 16
block_size = 64

n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0
bias = True

learning_rate = 1e-3
max_iters = 400
weight_decay = 1e-1
beta1 = 0.9
beta2 = 0.99
grad_clip = 0.0
warmup_iters = 20
lr_decay_iters = 400
min_lr = 1e-4
seed = 1337
'''

TEMPLATES["t03"] = {}
TEMPLATES["t03"]["hyperparameters.yaml"] = r'''model_config:
  name: tiny-char-2l
  block_size: 64
  n_layer: 2
  n_head: 4
  n_embd: 64
  bias: true
  norm_class_name: LayerNorm
  mlp_class_name: GptNeoxMLP
  intermediate_size: 256
out_dir: out/pretrain/tiny-char-2l
precision: 32-true
data:
  class_path: TextFiles
  init_args:
    train_data_path: data/train.txt
    val_data_path: data/val.txt
train:
  save_interval: 1000
  log_interval: 5
  global_batch_size: 16
  micro_batch_size: 16
  lr_warmup_steps: 40
  max_tokens: 245760
  max_seq_length: 64
  max_norm: 1.0
  min_lr: 0.06
eval:
  interval: 20
  max_iters: 8
  initial_validation: true
optimizer:
  class_path: torch.optim.AdamW
  init_args:
    lr: 0.6
    weight_decay: 0.1
    betas:
    - 0.9
    - 0.95
seed: 42
'''
TEMPLATES["t03"]["train.py"] = r'''import csv
import math
import os
import sys
import time
from datetime import timedelta

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

with open(sys.argv[1] if len(sys.argv) > 1 else "hyperparameters.yaml") as f:
    hp = yaml.safe_load(f)
mc, tc, ec, oc = hp["model_config"], hp["train"], hp["eval"], hp["optimizer"]["init_args"]
torch.manual_seed(hp["seed"])
print(f"Seed set to {hp['seed']}")
print({k: v for k, v in hp.items()})

with open(hp["data"]["init_args"]["train_data_path"]) as f:
    train_text = f.read()
with open(hp["data"]["init_args"]["val_data_path"]) as f:
    val_text = f.read()
chars = sorted(set(train_text) | set(val_text))
stoi = {c: i for i, c in enumerate(chars)}
train_data = torch.tensor([stoi[c] for c in train_text])
val_data = torch.tensor([stoi[c] for c in val_text])
vocab_size = len(chars)
T = tc["max_seq_length"]
B = tc["micro_batch_size"]


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.Linear(mc["n_embd"], 3 * mc["n_embd"], bias=mc["bias"])
        self.proj = nn.Linear(mc["n_embd"], mc["n_embd"], bias=mc["bias"])

    def forward(self, x):
        Bx, Tx, C = x.shape
        q, k, v = self.attn(x).split(C, dim=2)
        nh = mc["n_head"]
        q, k, v = (t.view(Bx, Tx, nh, C // nh).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(Bx, Tx, C))


class GptNeoxMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(mc["n_embd"], mc["intermediate_size"], bias=mc["bias"])
        self.proj = nn.Linear(mc["intermediate_size"], mc["n_embd"], bias=mc["bias"])

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm_1 = nn.LayerNorm(mc["n_embd"])
        self.attn = CausalSelfAttention()
        self.norm_2 = nn.LayerNorm(mc["n_embd"])
        self.mlp = GptNeoxMLP()

    def forward(self, x):
        x = x + self.attn(self.norm_1(x))
        return x + self.mlp(self.norm_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, mc["n_embd"])
        self.wpe = nn.Embedding(mc["block_size"], mc["n_embd"])
        self.h = nn.ModuleList([Block() for _ in range(mc["n_layer"])])
        self.ln_f = nn.LayerNorm(mc["n_embd"])
        self.lm_head = nn.Linear(mc["n_embd"], vocab_size, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def get_batch(data, gen=None):
    ix = torch.randint(len(data) - T - 1, (B,), generator=gen)
    return torch.stack([data[i:i + T] for i in ix]), torch.stack([data[i + 1:i + T + 1] for i in ix])


@torch.no_grad()
def validate(model):
    model.eval()
    g = torch.Generator().manual_seed(0)
    losses = torch.zeros(ec["max_iters"])
    for k in range(ec["max_iters"]):
        x, y = get_batch(val_data, g)
        logits = model(x)
        losses[k] = F.cross_entropy(logits.view(-1, vocab_size), y.view(-1))
    model.train()
    return losses.mean()


model = GPT()
print(f"Number of trainable parameters: {sum(p.numel() for p in model.parameters() if p.requires_grad):,}")
optimizer = torch.optim.AdamW(model.parameters(), lr=oc["lr"], weight_decay=oc["weight_decay"], betas=tuple(oc["betas"]))
max_iters = tc["max_tokens"] // (B * T)
warmup = tc["lr_warmup_steps"]


def get_lr(it):
    if it < warmup:
        return oc["lr"] * it / warmup
    ratio = (it - warmup) / max(1, max_iters - warmup)
    return tc["min_lr"] + 0.5 * (1 + math.cos(math.pi * ratio)) * (oc["lr"] - tc["min_lr"])


out_dir = hp["out_dir"]
os.makedirs(os.path.join(out_dir, "logs", "csv", "version_0"), exist_ok=True)
csv_path = os.path.join(out_dir, "logs", "csv", "version_0", "metrics.csv")
fields = ["epoch", "iter", "iter_time", "learning_rate", "loss", "remaining_time", "samples", "step", "tokens", "total_tokens", "val_loss", "val_ppl"]
csv_f = open(csv_path, "w", newline="")
writer = csv.DictWriter(csv_f, fieldnames=fields)
writer.writeheader()

if ec["initial_validation"]:
    val_loss = validate(model)
    print(f"iter 0: val loss {val_loss:.4f}, val time: 0.00 ms")
    writer.writerow({"step": 0, "val_loss": f"{val_loss.item():.6f}", "val_ppl": f"{math.exp(val_loss.item()):.4f}"})
val_str = "n/a"
train_t0 = time.perf_counter()
tokens_per_epoch = len(train_data)
for iter_num in range(1, max_iters + 1):
    iter_t0 = time.perf_counter()
    lr = get_lr(iter_num)
    for g in optimizer.param_groups:
        g["lr"] = lr
    x, y = get_batch(train_data)
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, vocab_size), y.view(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), tc["max_norm"])
    optimizer.step()
    optimizer.zero_grad()
    t1 = time.perf_counter()
    if iter_num % tc["log_interval"] == 0:
        elapsed = t1 - train_t0
        remaining = elapsed / iter_num * (max_iters - iter_num)
        tokens = iter_num * B * T
        print(f"Epoch {tokens // tokens_per_epoch + 1} | iter {iter_num} step {iter_num} | loss train: {loss.item():.3f}, val: {val_str} | "
              f"iter time: {(t1 - iter_t0) * 1000:.2f} ms (step) remaining time: {timedelta(seconds=int(remaining))!s}")
        writer.writerow({"epoch": tokens // tokens_per_epoch, "iter": iter_num, "iter_time": f"{t1 - iter_t0:.6f}",
                         "learning_rate": f"{lr:.6g}", "loss": f"{loss.item():.6f}", "remaining_time": f"{remaining:.2f}",
                         "samples": iter_num * B, "step": iter_num, "tokens": tokens, "total_tokens": tokens})
    if iter_num % ec["interval"] == 0:
        tv = time.perf_counter()
        val_loss = validate(model)
        val_str = f"{val_loss.item():.3f}"
        print(f"iter {iter_num}: val loss {val_loss.item():.4f}, val time: {(time.perf_counter() - tv) * 1000:.2f} ms")
        writer.writerow({"step": iter_num, "val_loss": f"{val_loss.item():.6f}", "val_ppl": f"{math.exp(val_loss.item()):.4f}"})
csv_f.flush()
print(f"Training time: {time.perf_counter() - train_t0:.2f}s")
torch.save(model.state_dict(), os.path.join(out_dir, "lit_model.pth"))
print(f"Saving checkpoint to {os.path.join(out_dir, 'lit_model.pth')!r}")
'''

TEMPLATES["t04"] = {}
TEMPLATES["t04"]["config.yaml"] = r'''experiment: charlm-small-corpus
data:
  train_file: data/train.txt
  val_file: data/val.txt
  seq_len: 64
  val_sequences: 128
model:
  layers: 2
  d_model: 96
  heads: 4
  ffn_mult: 4
  dropout: 0.0
  tie_weights: false
training:
  epochs: 80
  batch_size: 16
  optimizer: adamw
  lr: 1.0e-3
  weight_decay: 0.0
  grad_clip: 1.0
  warmup_steps: 20
  schedule: constant
  seed: 7
logging:
  tensorboard_dir: tb
  print_every_epochs: 5
'''
TEMPLATES["t04"]["train.py"] = r'''import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
cfg = yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "config.yaml"))
dc, mc, tc = cfg["data"], cfg["model"], cfg["training"]
torch.manual_seed(tc["seed"])

train_text = open(dc["train_file"]).read()
val_text = open(dc["val_file"]).read()
chars = sorted(set(train_text + val_text))
stoi = {c: i for i, c in enumerate(chars)}
V, T = len(chars), dc["seq_len"]


def chunks(text):
    ids = torch.tensor([stoi[c] for c in text])
    n = (len(ids) - 1) // T
    x = ids[: n * T].view(n, T)
    y = ids[1: n * T + 1].view(n, T)
    return x, y


train_x, train_y = chunks(train_text)
val_x, val_y = chunks(val_text)
val_x, val_y = val_x[:cfg["data"]["val_sequences"]], val_y[:cfg["data"]["val_sequences"]]
print(f"train: {len(train_text):,} chars -> {len(train_x)} sequences | val: {len(val_x)} sequences | vocab {V}")


class Block(nn.Module):
    def __init__(self, d, h, p):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, h, dropout=p, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, mc["ffn_mult"] * d), nn.GELU(), nn.Linear(mc["ffn_mult"] * d, d), nn.Dropout(p))
        self.register_buffer("causal", torch.triu(torch.full((T, T), float("-inf")), 1))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.causal, need_weights=False)[0]
        return x + self.ff(self.ln2(x))


class CharLM(nn.Module):
    def __init__(self):
        super().__init__()
        d = mc["d_model"]
        self.emb = nn.Embedding(V, d)
        self.pos = nn.Embedding(T, d)
        self.blocks = nn.Sequential(*[Block(d, mc["heads"], mc["dropout"]) for _ in range(mc["layers"])])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, V)

    def forward(self, idx):
        return self.head(self.ln(self.blocks(self.emb(idx) + self.pos(torch.arange(idx.shape[1])))))


model = CharLM()
print(f"parameters: {sum(p.numel() for p in model.parameters()):,}")
opt = torch.optim.AdamW(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / tc["warmup_steps"]))
writer = SummaryWriter(cfg["logging"]["tensorboard_dir"])


@torch.no_grad()
def evaluate():
    model.eval()
    tot, n = 0.0, 0
    for i in range(0, len(val_x), 64):
        logits = model(val_x[i:i + 64])
        tot += F.cross_entropy(logits.reshape(-1, V), val_y[i:i + 64].reshape(-1), reduction="sum").item()
        n += val_y[i:i + 64].numel()
    model.train()
    return tot / n


step = 0
bs = tc["batch_size"]
t0 = time.time()
for epoch in range(1, tc["epochs"] + 1):
    perm = torch.randperm(len(train_x))
    ep_loss, nb = 0.0, 0
    for i in range(0, len(perm), bs):
        idx = perm[i:i + bs]
        logits = model(train_x[idx])
        loss = F.cross_entropy(logits.reshape(-1, V), train_y[idx].reshape(-1))
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), tc["grad_clip"])
        opt.step()
        sched.step()
        step += 1
        ep_loss += loss.item()
        nb += 1
        writer.add_scalar("train/loss_step", loss.item(), step)
        writer.add_scalar("train/grad_norm", gn.item(), step)
    val_loss = evaluate()
    writer.add_scalar("train/loss", ep_loss / nb, epoch)
    writer.add_scalar("val/loss", val_loss, epoch)
    writer.add_scalar("val/ppl", math.exp(val_loss), epoch)
    writer.add_scalar("lr", opt.param_groups[0]["lr"], epoch)
    if epoch % cfg["logging"]["print_every_epochs"] == 0 or epoch == 1:
        print(f"epoch {epoch:3d} | step {step:5d} | train_loss {ep_loss / nb:.4f} | val_loss {val_loss:.4f} | "
              f"val_ppl {math.exp(val_loss):.2f} | {time.time() - t0:.1f}s", flush=True)
writer.close()
torch.save(model.state_dict(), "charlm_final.pt")
'''

TEMPLATES["t05"] = {}
TEMPLATES["t05"]["config.toml"] = r'''# MoE smoke run on my laptop before the cluster job
[model]
vocab_size = 512
dim = 64
n_layers = 2
n_heads = 4
seq_len = 64
num_experts = 4
top_k = 1
expert_hidden = 128
capacity_factor = 0.0    # no token dropping

[optim]
lr = 2e-3
warmup_steps = 40
betas = [0.9, 0.98]
weight_decay = 0.01
max_norm = 1.0

[training]
batch_size = 4
steps = 600
dtype = "float16"
init_loss_scale = 65536
loss_scale_growth_interval = 50
aux_loss_coeff = 0.01
z_loss_coeff = 0.001
seed = 2024

[logging]
log_every = 10
val_every = 100
val_batches = 20
'''
TEMPLATES["t05"]["train.py"] = r'''import math, sys, time, tomllib
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = tomllib.load(open(sys.argv[1] if len(sys.argv) > 1 else "config.toml", "rb"))
mcfg, ocfg, tcfg, lcfg = cfg["model"], cfg["optim"], cfg["training"], cfg["logging"]
torch.manual_seed(tcfg["seed"])
amp_dtype = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}[tcfg["dtype"]]
train_ids = torch.from_numpy(np.fromfile("data/train.bin", dtype=np.uint16).astype(np.int64))
val_ids = torch.from_numpy(np.fromfile("data/val.bin", dtype=np.uint16).astype(np.int64))
V, T, B, E, d = mcfg["vocab_size"], mcfg["seq_len"], tcfg["batch_size"], mcfg["num_experts"], mcfg["dim"]


class SwitchFFN(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(d, E, bias=False)
        self.fc1 = nn.ModuleList([nn.Linear(d, mcfg["expert_hidden"]) for _ in range(E)])
        self.fc2 = nn.ModuleList([nn.Linear(mcfg["expert_hidden"], d) for _ in range(E)])

    def forward(self, x):
        flat = x.reshape(-1, d)
        logits = self.gate(flat).float()
        probs = F.softmax(logits, dim=-1)
        p, e = probs.max(-1)
        out = torch.zeros_like(flat)
        for i in range(E):
            m = e == i
            if m.any():
                out[m] = (self.fc2[i](F.gelu(self.fc1[i](flat[m]))) * p[m, None]).to(out.dtype)
        counts = torch.bincount(e, minlength=E)
        aux = E * torch.sum(counts.float() / flat.shape[0] * probs.mean(0))
        z = torch.logsumexp(logits, -1).pow(2).mean()
        return out.view_as(x), aux, z, counts


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.o = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.ffn = SwitchFFN()

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).chunk(3, -1)
        q, k, v = (z.view(b, t, mcfg["n_heads"], -1).transpose(1, 2) for z in (q, k, v))
        x = x + self.o(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d))
        f, aux, z, c = self.ffn(self.n2(x))
        return x + f, aux, z, c


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, d)
        self.pos = nn.Embedding(T, d)
        self.blocks = nn.ModuleList(Block() for _ in range(mcfg["n_layers"]))
        self.nf = nn.LayerNorm(d)
        self.out = nn.Linear(d, V, bias=False)

    def forward(self, idx):
        x = self.emb(idx) + self.pos(torch.arange(idx.shape[1]))
        aux = z = 0.0
        counts = []
        for blk in self.blocks:
            x, a, zz, c = blk(x)
            aux, z = aux + a, z + zz
            counts.append(c)
        return self.out(self.nf(x)), aux / len(self.blocks), z / len(self.blocks), counts


def get_batch(src, gen=None):
    ix = torch.randint(len(src) - T - 1, (B,), generator=gen)
    return torch.stack([src[i:i + T] for i in ix]), torch.stack([src[i + 1:i + 1 + T] for i in ix])


model = LM()
print(f"params {sum(p.numel() for p in model.parameters()):,} | dtype {tcfg['dtype']} | experts {E} top{mcfg['top_k']} | "
      f"batch {B}x{T} | steps {tcfg['steps']}", flush=True)
opt = torch.optim.AdamW(model.parameters(), lr=ocfg["lr"], betas=tuple(ocfg["betas"]), weight_decay=ocfg["weight_decay"])
scaler = torch.amp.GradScaler("cpu", init_scale=tcfg["init_loss_scale"], growth_interval=tcfg["loss_scale_growth_interval"],
                              enabled=tcfg["dtype"] == "float16")


def lr_lambda(s):
    if s < ocfg["warmup_steps"]:
        return (s + 1) / ocfg["warmup_steps"]
    prog = (s - ocfg["warmup_steps"]) / (tcfg["steps"] - ocfg["warmup_steps"])
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * prog))


sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)


@torch.no_grad()
def val_loss():
    model.eval()
    g = torch.Generator().manual_seed(5)
    tot = 0.0
    for _ in range(lcfg["val_batches"]):
        x, y = get_batch(val_ids, g)
        with torch.autocast("cpu", dtype=amp_dtype, enabled=tcfg["dtype"] != "float32"):
            logits = model(x)[0]
        tot += F.cross_entropy(logits.float().view(-1, V), y.view(-1)).item()
    model.train()
    return tot / lcfg["val_batches"]


skipped = 0
t0 = time.time()
for step in range(1, tcfg["steps"] + 1):
    x, y = get_batch(train_ids)
    with torch.autocast("cpu", dtype=amp_dtype, enabled=tcfg["dtype"] != "float32"):
        logits, aux, z, counts = model(x)
        ce = F.cross_entropy(logits.float().view(-1, V), y.view(-1))
        loss = ce + tcfg["aux_loss_coeff"] * aux + tcfg["z_loss_coeff"] * z
    opt.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), ocfg["max_norm"])
    scale_before = scaler.get_scale()
    scaler.step(opt)
    scaler.update()
    if scaler.get_scale() < scale_before:
        skipped += 1
    sched.step()
    if step % lcfg["log_every"] == 0 or step == 1:
        dt = time.time() - t0
        t0 = time.time()
        n = lcfg["log_every"] if step > 1 else 1
        cnt = " ".join("[" + " ".join(f"{int(v):3d}" for v in c) + "]" for c in counts)
        print(f"step {step:3d}/{tcfg['steps']} loss={ce.item():.4f} aux={aux.item():.4f} z={z.item():.3f} "
              f"loss_scale={scale_before:.0f} skipped={skipped} grad_norm={gn.item():.3f} lr={sched.get_last_lr()[0]:.2e} "
              f"tok/s={n * B * T / dt:,.0f} expert_tokens={cnt}", flush=True)
    if step % lcfg["val_every"] == 0:
        vl = val_loss()
        print(f"  val step {step}: loss={vl:.4f} ppl={math.exp(vl):.2f}", flush=True)
'''

TEMPLATES["t06"] = {}
TEMPLATES["t06"]["config.yaml"] = r'''run_name: moe-char-4e-top1
data:
  train: data/train.txt
  val: data/val.txt
model:
  n_layer: 2
  d_model: 64
  n_head: 4
  seq_len: 64
  num_experts: 4
  top_k: 1
  expert_hidden: 256
train:
  batch_size: 16
  max_steps: 300
  lr: 3.0e-3
  warmup_steps: 10
  weight_decay: 0.0
  betas: [0.9, 0.95]
  max_norm: 1.0
  aux_loss_coeff: 0.01
  z_loss_coeff: 0.0
  dtype: float32
  seed: 0
log:
  every: 10
  eval_every: 50
  eval_batches: 8
'''
TEMPLATES["t06"]["train.py"] = r'''import json
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "config.yaml"))
mc, tc = cfg["model"], cfg["train"]
torch.manual_seed(tc["seed"])

train_text = open(cfg["data"]["train"]).read()
val_text = open(cfg["data"]["val"]).read()
vocab = sorted(set(train_text + val_text))
stoi = {c: i for i, c in enumerate(vocab)}
train_ids = torch.tensor([stoi[c] for c in train_text])
val_ids = torch.tensor([stoi[c] for c in val_text])
V, T, B = len(vocab), mc["seq_len"], tc["batch_size"]
print(f"run {cfg['run_name']}: vocab={V} train_tokens={len(train_ids):,} val_tokens={len(val_ids):,}")


class Expert(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.up = nn.Linear(d, h)
        self.down = nn.Linear(h, d)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class SparseMoE(nn.Module):
    def __init__(self, d, h, n_exp):
        super().__init__()
        self.n_exp = n_exp
        self.norm = nn.LayerNorm(d)
        self.w_gate = nn.Parameter(torch.randn(d, n_exp))
        self.experts = nn.ModuleList([Expert(d, h) for _ in range(n_exp)])

    def forward(self, x):
        Bx, Tx, C = x.shape
        x_flat = x.reshape(-1, C)
        logits = x_flat @ self.w_gate
        scores = torch.exp(logits)
        probs = scores / scores.sum(dim=-1, keepdim=True)
        gate, idx = probs.max(dim=-1)
        h = self.norm(x_flat)
        out = torch.zeros_like(h)
        for e in range(self.n_exp):
            sel = idx == e
            if sel.any():
                out[sel] = self.experts[e](h[sel]) * gate[sel].unsqueeze(-1)
        counts = torch.bincount(idx, minlength=self.n_exp)
        frac = counts.float() / idx.numel()
        aux = self.n_exp * (frac * probs.mean(dim=0)).sum()
        z = torch.logsumexp(logits, dim=-1).pow(2).mean()
        return out.view(Bx, Tx, C), aux, z, counts


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        d = mc["d_model"]
        self.ln = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.moe = SparseMoE(d, mc["expert_hidden"], mc["num_experts"])

    def forward(self, x):
        Bx, Tx, C = x.shape
        q, k, v = self.qkv(self.ln(x)).split(C, dim=2)
        q, k, v = (t.view(Bx, Tx, mc["n_head"], -1).transpose(1, 2) for t in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(Bx, Tx, C))
        m, aux, z, counts = self.moe(x)
        return x + m, aux, z, counts


class MoELM(nn.Module):
    def __init__(self):
        super().__init__()
        d = mc["d_model"]
        self.tok = nn.Embedding(V, d)
        self.pos = nn.Embedding(T, d)
        self.blocks = nn.ModuleList([Block() for _ in range(mc["n_layer"])])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, V, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        auxes, zs, loads = [], [], []
        for blk in self.blocks:
            x, aux, z, counts = blk(x)
            auxes.append(aux)
            zs.append(z)
            loads.append(counts)
        return self.head(self.ln_f(x)), sum(auxes), sum(zs), loads


def batch(ids, g=None):
    ix = torch.randint(len(ids) - T - 1, (B,), generator=g)
    return torch.stack([ids[i:i + T] for i in ix]), torch.stack([ids[i + 1:i + T + 1] for i in ix])


model = MoELM()
n_total = sum(p.numel() for p in model.parameters())
n_active = n_total - sum(p.numel() for blk in model.blocks for e in blk.moe.experts[1:] for p in e.parameters())
print(f"params: total {n_total:,} | active/token {n_active:,} | experts={mc['num_experts']} top_k={mc['top_k']}")
opt = torch.optim.AdamW(model.parameters(), lr=tc["lr"], betas=tuple(tc["betas"]), weight_decay=tc["weight_decay"])


def lr_at(step):
    if step < tc["warmup_steps"]:
        return tc["lr"] * (step + 1) / tc["warmup_steps"]
    return tc["lr"]


@torch.no_grad()
def evaluate():
    model.eval()
    g = torch.Generator().manual_seed(7)
    tot = 0.0
    for _ in range(cfg["log"]["eval_batches"]):
        x, y = batch(val_ids, g)
        logits, _, _, _ = model(x)
        tot += F.cross_entropy(logits.view(-1, V), y.view(-1)).item()
    model.train()
    return tot / cfg["log"]["eval_batches"]


metrics = open("metrics.jsonl", "w")
t0 = time.time()
for step in range(1, tc["max_steps"] + 1):
    for g in opt.param_groups:
        g["lr"] = lr_at(step - 1)
    x, y = batch(train_ids)
    logits, aux, z, loads = model(x)
    lm_loss = F.cross_entropy(logits.view(-1, V), y.view(-1))
    loss = lm_loss + tc["aux_loss_coeff"] * aux + tc["z_loss_coeff"] * z
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), tc["max_norm"])
    opt.step()
    if step % cfg["log"]["every"] == 0 or step == 1:
        dt = time.time() - t0
        t0 = time.time()
        tps = (cfg["log"]["every"] if step > 1 else 1) * B * T / dt
        load_str = " ".join(f"L{i}[" + ",".join(str(int(c)) for c in l) + "]" for i, l in enumerate(loads))
        print(f"step {step:4d}/{tc['max_steps']} | loss {loss.item():.4f} | lm {lm_loss.item():.4f} | aux {aux.item():.4f} | "
              f"z {z.item():.1f} | gnorm {gnorm.item():.3f} | lr {lr_at(step - 1):.2e} | {tps / 1e3:.1f}k tok/s | tokens/expert {load_str}", flush=True)
        rec = {"step": step, "loss": loss.item(), "lm_loss": lm_loss.item(), "aux_loss": aux.item(), "z_loss": z.item(),
               "grad_norm": gnorm.item(), "lr": lr_at(step - 1), "tokens_per_expert": [l.tolist() for l in loads]}
        metrics.write(json.dumps(rec) + "\n")
    if step % cfg["log"]["eval_every"] == 0:
        vl = evaluate()
        print(f"eval step {step}: val_loss {vl:.4f} val_ppl {math.exp(vl) if vl < 50 else float('inf'):.2f}", flush=True)
        metrics.write(json.dumps({"step": step, "val_loss": vl, "val_ppl": math.exp(vl) if vl < 50 else None}) + "\n")
metrics.close()
'''

TEMPLATES["t07"] = {}
TEMPLATES["t07"]["moe_tiny.toml"] = r'''[run]
name = "moe-tiny-4x64-top1"
seed = 3
out = "ckpt"

[data]
train_bin = "data/train.bin"
val_bin = "data/val.bin"
vocab_size = 512

[model]
n_layers = 2
d_model = 64
n_heads = 4
seq_len = 64
num_experts = 4
top_k = 1
ffn_mult = 4
tie_embeddings = true

[optim]
lr = 2e-3
min_lr = 2e-4
warmup_steps = 20
weight_decay = 0.05
betas = [0.9, 0.95]
max_norm = 1.0

[train]
batch_size = 16
steps = 300
dtype = "float32"
lb_loss_coeff = 0.05
z_loss_coeff = 1e-3
log_every = 5
eval_every = 50
eval_batches = 8
'''
TEMPLATES["t07"]["train.py"] = r'''import json
import math
import sys
import time
import tomllib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
with open(sys.argv[1] if len(sys.argv) > 1 else "moe_tiny.toml", "rb") as f:
    cfg = tomllib.load(f)
R, D, M, O, TR = cfg["run"], cfg["data"], cfg["model"], cfg["optim"], cfg["train"]
torch.manual_seed(R["seed"])

train = torch.from_numpy(np.memmap(D["train_bin"], dtype=np.uint16, mode="r").astype(np.int64))
val = torch.from_numpy(np.memmap(D["val_bin"], dtype=np.uint16, mode="r").astype(np.int64))
V, T, B, E = D["vocab_size"], M["seq_len"], TR["batch_size"], M["num_experts"]


class Router(nn.Module):
    def __init__(self, d, n_exp):
        super().__init__()
        self.proj = nn.Linear(d, n_exp, bias=False)
        nn.init.normal_(self.proj.weight, std=0.02)

    def forward(self, x):
        logits = self.proj(x)
        probs = logits.softmax(dim=-1)
        weight, expert = probs.max(dim=-1)
        mean_prob = probs.mean(dim=0)
        lb_loss = -(mean_prob * torch.log(mean_prob + 1e-9)).sum()
        z_loss = torch.logsumexp(logits, dim=-1).pow(2).mean()
        return weight, expert, lb_loss, z_loss


class MoEFFN(nn.Module):
    def __init__(self, d, hidden, n_exp):
        super().__init__()
        self.router = Router(d, n_exp)
        self.w_in = nn.Parameter(torch.randn(n_exp, d, hidden) * 0.02)
        self.w_out = nn.Parameter(torch.randn(n_exp, hidden, d) * 0.02)

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        weight, expert, lb_loss, z_loss = self.router(x)
        y = torch.zeros_like(x)
        for e in range(self.w_in.shape[0]):
            rows = (expert == e).nonzero(as_tuple=True)[0]
            if rows.numel():
                y[rows] = (F.gelu(x[rows] @ self.w_in[e]) @ self.w_out[e]) * weight[rows, None]
        load = torch.bincount(expert, minlength=self.w_in.shape[0])
        return y.view(shape), lb_loss, z_loss, load


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        d = M["d_model"]
        self.norm1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, M["n_heads"], batch_first=True, bias=False)
        self.norm2 = nn.LayerNorm(d)
        self.ffn = MoEFFN(d, M["ffn_mult"] * d, E)
        self.register_buffer("mask", torch.triu(torch.ones(T, T, dtype=torch.bool), 1), persistent=False)

    def forward(self, x):
        h = self.norm1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.mask[: x.shape[1], : x.shape[1]], need_weights=False)
        x = x + a
        f, lb, z, load = self.ffn(self.norm2(x))
        return x + f, lb, z, load


class TinyMoE(nn.Module):
    def __init__(self):
        super().__init__()
        d = M["d_model"]
        self.embed = nn.Embedding(V, d)
        self.pos = nn.Parameter(torch.zeros(T, d))
        self.layers = nn.ModuleList([Layer() for _ in range(M["n_layers"])])
        self.norm = nn.LayerNorm(d)
        nn.init.normal_(self.embed.weight, std=0.02)

    def forward(self, idx):
        x = self.embed(idx) + self.pos[: idx.shape[1]]
        lbs, zs, loads = [], [], []
        for layer in self.layers:
            x, lb, z, load = layer(x)
            lbs.append(lb)
            zs.append(z)
            loads.append(load)
        logits = self.norm(x) @ self.embed.weight.T
        return logits, torch.stack(lbs).mean(), torch.stack(zs).mean(), loads


def sample_batch(src, g=None):
    ix = torch.randint(len(src) - T - 1, (B,), generator=g)
    return torch.stack([src[i:i + T] for i in ix]), torch.stack([src[i + 1:i + T + 1] for i in ix])


model = TinyMoE()
print(f"[{R['name']}] params={sum(p.numel() for p in model.parameters()):,} experts={E} top_k={M['top_k']} "
      f"train_tokens={len(train):,} val_tokens={len(val):,}", flush=True)
opt = torch.optim.AdamW(model.parameters(), lr=O["lr"], betas=tuple(O["betas"]), weight_decay=O["weight_decay"])


def lr_at(step):
    if step < O["warmup_steps"]:
        return O["lr"] * (step + 1) / O["warmup_steps"]
    p = (step - O["warmup_steps"]) / (TR["steps"] - O["warmup_steps"])
    return O["min_lr"] + 0.5 * (O["lr"] - O["min_lr"]) * (1 + math.cos(math.pi * p))


@torch.no_grad()
def run_eval():
    model.eval()
    g = torch.Generator().manual_seed(11)
    losses = []
    for _ in range(TR["eval_batches"]):
        x, y = sample_batch(val, g)
        logits, _, _, _ = model(x)
        losses.append(F.cross_entropy(logits.reshape(-1, V), y.reshape(-1)).item())
    model.train()
    return sum(losses) / len(losses)


log = open("metrics.jsonl", "w")
tic = time.time()
for step in range(TR["steps"]):
    lr = lr_at(step)
    for g in opt.param_groups:
        g["lr"] = lr
    x, y = sample_batch(train)
    logits, lb_loss, z_loss, loads = model(x)
    lm_loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
    loss = lm_loss + TR["lb_loss_coeff"] * lb_loss + TR["z_loss_coeff"] * z_loss
    opt.zero_grad(set_to_none=True)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), O["max_norm"])
    opt.step()
    if step % TR["log_every"] == 0 or step == TR["steps"] - 1:
        elapsed = time.time() - tic
        tic = time.time()
        frac = [(l.float() / l.sum()).tolist() for l in loads]
        rec = {"step": step, "train/lm_loss": round(lm_loss.item(), 5), "train/lb_loss": round(lb_loss.item(), 5),
               "train/z_loss": round(z_loss.item(), 5), "train/loss": round(loss.item(), 5),
               "optim/grad_norm": round(grad_norm.item(), 5), "optim/lr": lr,
               "moe/tokens_per_expert": [l.tolist() for l in loads],
               "perf/step_time_s": round(elapsed / (TR["log_every"] if step else 1), 4)}
        log.write(json.dumps(rec) + "\n")
        load_txt = " ".join("[" + " ".join(f"{v:.2f}" for v in fr) + "]" for fr in frac)
        print(f"[step {step:3d}] lm_loss={lm_loss.item():.4f} lb_loss={lb_loss.item():.4f} z_loss={z_loss.item():.4f} "
              f"grad_norm={grad_norm.item():.3f} lr={lr:.2e} expert_load={load_txt}", flush=True)
    if step % TR["eval_every"] == 0 or step == TR["steps"] - 1:
        vl = run_eval()
        log.write(json.dumps({"step": step, "eval/lm_loss": round(vl, 5), "eval/ppl": round(math.exp(vl), 3)}) + "\n")
        print(f"[eval  {step:3d}] val_lm_loss={vl:.4f} val_ppl={math.exp(vl):.2f}", flush=True)
log.close()
'''

TEMPLATES["t08"] = {}
TEMPLATES["t08"]["tiny-synth.yaml"] = r'''run_name: olmo-tiny-synth-512
seed: 6198
dry_run: false

model:
  d_model: 64
  n_heads: 4
  n_layers: 2
  mlp_ratio: 4
  max_sequence_length: 128
  vocab_size: 512
  embedding_size: 512
  weight_tying: false
  include_bias: false
  layer_norm_type: default
  activation_type: swiglu
  init_fn: normal
  init_std: 0.02

optimizer:
  name: adamw
  learning_rate: 3.0e-3
  weight_decay: 0.1
  betas:
  - 0.9
  - 0.95
  metrics_log_interval: 10

scheduler:
  name: cosine_with_warmup
  t_warmup: 5000
  alpha_f: 0.1

data:
  paths:
  - data/train.bin
  eval_path: data/val.bin

max_duration: 300
global_train_batch_size: 16
device_train_microbatch_size: 16
max_grad_norm: 1.0
precision: fp32
console_log_interval: 10
eval_interval: 50
eval_subset_num_batches: 10
save_folder: runs/olmo-tiny-synth-512
'''
TEMPLATES["t08"]["train.py"] = r'''import csv
import math
import socket
import sys
import time
from datetime import datetime

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open(sys.argv[1]))
mc, oc, sc = cfg["model"], cfg["optimizer"], cfg["scheduler"]
torch.manual_seed(cfg["seed"])
host = "node0"


def info(where, msg):
    ts = datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    print(f"{ts}\t{host}:0\t{where}\tINFO\t{msg}", flush=True)


train_ids = torch.from_numpy(np.fromfile(cfg["data"]["paths"][0], dtype=np.uint16).astype(np.int64))
eval_ids = torch.from_numpy(np.fromfile(cfg["data"]["eval_path"], dtype=np.uint16).astype(np.int64))
T, B, d = mc["max_sequence_length"], cfg["global_train_batch_size"], mc["d_model"]


class OLMoBlock(nn.Module):
    def __init__(self):
        super().__init__()
        hidden = mc["mlp_ratio"] * d
        self.attn_norm = nn.LayerNorm(d, elementwise_affine=False)
        self.att_proj = nn.Linear(d, 3 * d, bias=mc["include_bias"])
        self.attn_out = nn.Linear(d, d, bias=mc["include_bias"])
        self.ff_norm = nn.LayerNorm(d, elementwise_affine=False)
        self.ff_proj = nn.Linear(d, hidden, bias=mc["include_bias"])
        self.ff_out = nn.Linear(hidden // 2, d, bias=mc["include_bias"])

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.att_proj(self.attn_norm(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, mc["n_heads"], -1).transpose(1, 2) for z in (q, k, v))
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d))
        a, g = self.ff_proj(self.ff_norm(x)).chunk(2, dim=-1)
        return x + self.ff_out(F.silu(g) * a)


class OLMo(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(mc["embedding_size"], d)
        self.wpe = nn.Embedding(T, d)
        self.blocks = nn.ModuleList([OLMoBlock() for _ in range(mc["n_layers"])])
        self.ln_f = nn.LayerNorm(d, elementwise_affine=False)
        self.ff_out = nn.Linear(d, mc["embedding_size"], bias=False)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=mc["init_std"])

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for blk in self.blocks:
            x = blk(x)
        return self.ff_out(self.ln_f(x))


def get_lr(step):
    max_lr, warm, total = oc["learning_rate"], sc["t_warmup"], cfg["max_duration"]
    if step < warm:
        return max_lr * step / warm
    if step >= total:
        return max_lr * sc["alpha_f"]
    eta_min = max_lr * sc["alpha_f"]
    return eta_min + (max_lr - eta_min) * (1 + math.cos(math.pi * (step - warm) / (total - warm))) / 2


def batch(src, gen=None):
    ix = torch.randint(len(src) - T - 1, (B,), generator=gen)
    return torch.stack([src[i:i + T] for i in ix]), torch.stack([src[i + 1:i + T + 1] for i in ix])


model = OLMo()
info("olmo.train:1188", f"Total number of parameters: {sum(p.numel() for p in model.parameters()):,d}")
info("olmo.train:1189", f"Number of non-embedding parameters: {sum(p.numel() for n, p in model.named_parameters() if 'wte' not in n and 'wpe' not in n):,d}")
opt = torch.optim.AdamW(model.parameters(), lr=0.0, betas=tuple(oc["betas"]), weight_decay=oc["weight_decay"])
info("olmo.train:1201", "Starting training...")

wandb_rows = []
tokens = 0
t_window = time.time()
for step in range(1, cfg["max_duration"] + 1):
    lr = get_lr(step)
    for g in opt.param_groups:
        g["lr"] = lr
    x, y = batch(train_ids)
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])
    opt.step()
    tokens += B * T
    row = {"_step": step, "train/CrossEntropyLoss": loss.item(), "train/Perplexity": math.exp(loss.item()),
           "optim/total_grad_norm": gnorm.item(), "optim/learning_rate_group0": lr, "throughput/total_tokens": tokens}
    if step % cfg["console_log_interval"] == 0 or step == 1:
        dt = time.time() - t_window
        t_window = time.time()
        n = cfg["console_log_interval"] if step > 1 else 1
        row["throughput/device/tokens_per_second"] = n * B * T / dt
        lines = [f"[step={step}/{cfg['max_duration']}]",
                 f"    train/CrossEntropyLoss={loss.item():.4f}",
                 f"    train/Perplexity={math.exp(loss.item()):.2f}",
                 f"    optim/total_grad_norm={gnorm.item():.4f}",
                 f"    optim/learning_rate_group0={lr:.4e}",
                 f"    throughput/total_tokens={tokens:,d}",
                 f"    throughput/device/tokens_per_second={row['throughput/device/tokens_per_second']:,.0f}"]
        info("olmo.train:967", "\n".join(lines))
    if step % cfg["eval_interval"] == 0:
        model.eval()
        g = torch.Generator().manual_seed(0)
        with torch.no_grad():
            el = sum(F.cross_entropy(model(xx).view(-1, mc["embedding_size"]), yy.view(-1)).item()
                     for xx, yy in (batch(eval_ids, g) for _ in range(cfg["eval_subset_num_batches"]))) / cfg["eval_subset_num_batches"]
        model.train()
        row["eval/synth-val/CrossEntropyLoss"] = el
        row["eval/synth-val/Perplexity"] = math.exp(el)
        info("olmo.train:1010", f"[eval_step={step}]\n    eval/synth-val/CrossEntropyLoss={el:.4f}\n    eval/synth-val/Perplexity={math.exp(el):.2f}")
    wandb_rows.append(row)

info("olmo.train:1290", "Training loop complete")
keys = ["_step", "train/CrossEntropyLoss", "train/Perplexity", "optim/total_grad_norm", "optim/learning_rate_group0",
        "throughput/total_tokens", "throughput/device/tokens_per_second", "eval/synth-val/CrossEntropyLoss", "eval/synth-val/Perplexity"]
with open("wandb_export.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=keys)
    w.writeheader()
    for r in wandb_rows:
        w.writerow({k: r.get(k, "") for k in keys})
'''

TEMPLATES["t09"] = {}
TEMPLATES["t09"]["config.yaml"] = r'''name: charlm-mixed-docs
corpus: data/corpus.txt
val_corpus: data/val.txt
seq_len: 64
batch_size: 16
epochs: 5
model:
  n_layer: 2
  n_head: 4
  n_embd: 64
optimizer:
  lr: 1.0e-3
  weight_decay: 0.01
  betas: [0.9, 0.99]
  max_norm: 1.0
warmup_steps: 20
log_every: 2
seed: 99
'''
TEMPLATES["t09"]["train.py"] = r'''import math
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
'''

TEMPLATES["t10"] = {}
TEMPLATES["t10"]["tiny_synth.yml"] = r'''# GPT-NeoX style config, 2L/64d on the synthetic 512-token corpus
{
  "pipe_parallel_size": 0,
  "model_parallel_size": 1,

  "num_layers": 2,
  "hidden_size": 64,
  "num_attention_heads": 4,
  "seq_length": 64,
  "max_position_embeddings": 64,
  "pos_emb": "learned",
  "norm": "layernorm",
  "no_weight_tying": true,
  "padded_vocab_size": 512,

  "optimizer": {
    "type": "Adam",
    "params": {
      "lr": 0.00003,
      "betas": [0.9, 0.95],
      "eps": 1.0e-8
    }
  },
  "min_lr": 0.000003,
  "lr_decay_style": "cosine",
  "lr_decay_iters": 400,
  "warmup": 0.01,
  "weight_decay": 0.1,
  "gradient_clipping": 1.0,

  "train_micro_batch_size_per_gpu": 16,
  "gradient_accumulation_steps": 1,
  "train_iters": 400,

  "fp16": {
    "enabled": true,
    "loss_scale": 0,
    "loss_scale_window": 100,
    "initial_scale_power": 16,
    "hysteresis": 2,
    "min_loss_scale": 1
  },

  "init_method": "small_init",
  "output_layer_init_method": "wang_init",
  "seed": 1234,

  "data_path": "data/train.bin",
  "valid_data_path": "data/val.bin",
  "log_interval": 10,
  "eval_interval": 100,
  "eval_iters": 10,
  "save": "checkpoints",
  "save_interval": 1000
}
'''
TEMPLATES["t10"]["train.py"] = r'''import json
import math
import re
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
raw = open(sys.argv[1]).read()
cfg = json.loads(re.sub(r"^\s*#.*$", "", raw, flags=re.M))
torch.manual_seed(cfg["seed"])
d, L, H, T = cfg["hidden_size"], cfg["num_layers"], cfg["num_attention_heads"], cfg["seq_length"]
V, B = cfg["padded_vocab_size"], cfg["train_micro_batch_size_per_gpu"]
ocfg = cfg["optimizer"]["params"]
print("NeoXArgs.configure_distributed_args() using world size: 1 and model-parallel size: 1", flush=True)
print(f"> building GPT2BPETokenizer-compatible vocab ... padded vocab (size: {V})", flush=True)
train_ids = torch.from_numpy(np.fromfile(cfg["data_path"], dtype=np.uint16).astype(np.int64))
valid_ids = torch.from_numpy(np.fromfile(cfg["valid_data_path"], dtype=np.uint16).astype(np.int64))
print(f"    train:      {len(train_ids):,} tokens\n    validation: {len(valid_ids):,} tokens", flush=True)


class ParallelSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.query_key_value = nn.Linear(d, 3 * d)
        self.dense = nn.Linear(d, d)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.query_key_value(x).view(b, t, H, 3 * d // H).transpose(1, 2).chunk(3, dim=-1)
        return self.dense(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d))


class ParallelTransformerLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(d)
        self.attention = ParallelSelfAttention()
        self.post_attention_layernorm = nn.LayerNorm(d)
        self.dense_h_to_4h = nn.Linear(d, 4 * d)
        self.dense_4h_to_h = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attention(self.input_layernorm(x))
        return x + self.dense_4h_to_h(F.gelu(self.dense_h_to_4h(self.post_attention_layernorm(x))))


class GPTNeoX(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(V, d)
        self.position_embeddings = nn.Embedding(cfg["max_position_embeddings"], d)
        self.layers = nn.ModuleList([ParallelTransformerLayer() for _ in range(L)])
        self.final_layernorm = nn.LayerNorm(d)
        self.final_linear = nn.Linear(d, V, bias=False)
        small = math.sqrt(2 / (5 * d))
        wang = 2 / L / math.sqrt(d)
        for n, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=wang if n.endswith(("dense.weight", "dense_4h_to_h.weight")) else small)
            elif n.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, idx):
        x = self.word_embeddings(idx) + self.position_embeddings(torch.arange(idx.shape[1]))
        for layer in self.layers:
            x = layer(x)
        return self.final_linear(self.final_layernorm(x))


def get_batch(src, gen=None):
    ix = torch.randint(len(src) - T - 1, (B,), generator=gen)
    return torch.stack([src[i:i + T] for i in ix]), torch.stack([src[i + 1:i + T + 1] for i in ix])


model = GPTNeoX()
n_params = sum(p.numel() for p in model.parameters())
print(f" > number of parameters on model parallel rank 0: {n_params}", flush=True)
opt = torch.optim.Adam(model.parameters(), lr=ocfg["lr"], betas=tuple(ocfg["betas"]), eps=ocfg["eps"], weight_decay=0.0)
fp16 = cfg["fp16"]["enabled"]
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** cfg["fp16"]["initial_scale_power"],
                              growth_interval=cfg["fp16"]["loss_scale_window"], enabled=fp16)
warmup_iters = int(cfg["warmup"] * cfg["train_iters"])


def lr_at(it):
    if it <= warmup_iters:
        return ocfg["lr"] * it / max(1, warmup_iters)
    ratio = (it - warmup_iters) / (cfg["lr_decay_iters"] - warmup_iters)
    return cfg["min_lr"] + (ocfg["lr"] - cfg["min_lr"]) * 0.5 * (math.cos(math.pi * ratio) + 1)


def evaluate(it):
    model.eval()
    g = torch.Generator().manual_seed(17)
    tot = 0.0
    with torch.no_grad():
        for _ in range(cfg["eval_iters"]):
            x, y = get_batch(valid_ids, g)
            with torch.autocast("cpu", dtype=torch.float16, enabled=fp16):
                logits = model(x)
            tot += F.cross_entropy(logits.float().view(-1, V), y.view(-1)).item()
    model.train()
    vl = tot / cfg["eval_iters"]
    bar = "-" * 113
    print(f"{bar}\n validation results at iteration {it} | lm_loss value: {vl:.6E} | lm_loss_ppl value: {math.exp(vl):.6E} | \n{bar}", flush=True)


skipped = nan_iters = 0
t0 = time.time()
loss_acc = 0.0
for it in range(1, cfg["train_iters"] + 1):
    lr = lr_at(it)
    for g in opt.param_groups:
        g["lr"] = lr
    x, y = get_batch(train_ids)
    with torch.autocast("cpu", dtype=torch.float16, enabled=fp16):
        logits = model(x)
    loss = F.cross_entropy(logits.float().view(-1, V), y.view(-1))
    for p in model.parameters():
        if p.dim() == 2:
            p.data.mul_(1 - lr * cfg["weight_decay"])
    opt.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["gradient_clipping"])
    scale = scaler.get_scale()
    scaler.step(opt)
    scaler.update()
    if scaler.get_scale() < scale:
        skipped += 1
    if not math.isfinite(loss.item()):
        nan_iters += 1
    loss_acc += loss.item()
    if it % cfg["log_interval"] == 0:
        el = (time.time() - t0) * 1000 / cfg["log_interval"]
        t0 = time.time()
        tflops = 6 * n_params * B * T / (el / 1000) / 1e12
        print(f" iteration {it:8d}/{cfg['train_iters']:8d} | consumed samples: {it * B:12d} | elapsed time per iteration (ms): {el:.1f} | "
              f"learning rate: {lr:.3E} | approx flops per GPU: {tflops:.3f}TFLOPS | lm_loss: {loss_acc / cfg['log_interval']:.6E} | "
              f"loss scale: {scale:.1f} | grad norm: {gnorm.item():.3f} | number of skipped iterations: {skipped:3d} | "
              f"number of nan iterations: {nan_iters:3d} |", flush=True)
        loss_acc = 0.0
    if it % cfg["eval_interval"] == 0:
        evaluate(it)
print(f"[after training is done] datetime: {time.strftime('%Y-%m-%d %H:%M:%S')}", flush=True)
'''

TEMPLATES["t11"] = {}
TEMPLATES["t11"]["config.yaml"] = r'''train_path: data/train.txt
val_path: data/heldout_stories.txt
out_dir: out
block_size: 64
batch_size: 16
n_layer: 2
n_head: 4
n_embd: 64
lr: 2.0e-3
min_lr: 2.0e-4
warmup_iters: 20
max_iters: 300
weight_decay: 0.1
grad_clip: 1.0
eval_interval: 25
eval_iters: 10
seed: 31
'''
TEMPLATES["t11"]["train.py"] = r'''import json
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
'''

TEMPLATES["t12"] = {}
TEMPLATES["t12"]["train.py"] = r'''import math
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

    def forward(self, tokens):
        T = tokens.shape[1]
        h = self.tok_embeddings(tokens) + self.pos_embeddings(torch.arange(T))
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))


seq_len, bs = tcfg["seq_len"], tcfg["batch_size"]
with open(os.path.join(tcfg["dataset_path"], "train.txt")) as f:
    train_text = f.read()
with open(os.path.join(tcfg["dataset_path"], "val.txt")) as f:
    val_text = f.read()
chars = sorted(set(train_text + val_text))
stoi = {c: i for i, c in enumerate(chars)}
mcfg["vocab_size"] = len(chars)
train_tokens = torch.tensor([stoi[c] for c in train_text], dtype=torch.long)
val_tokens = torch.tensor([stoi[c] for c in val_text], dtype=torch.long)
log(f"Preparing char dataset from {tcfg['dataset_path']}: {len(train_tokens):,} train chars, {len(val_tokens):,} val chars, vocab {len(chars)}")


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
groups = [{"params": decay, "weight_decay": ocfg["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}]
if ocfg["name"] == "SGD":
    optimizer = torch.optim.SGD(groups, lr=ocfg["lr"], momentum=ocfg["momentum"], nesterov=ocfg.get("nesterov", False))
else:
    optimizer = torch.optim.AdamW(groups, lr=ocfg["lr"], betas=tuple(ocfg["betas"]), eps=ocfg["eps"])

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
    loss.backward()
    optimizer.step()
    scheduler.step()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), tcfg["max_norm"])
    optimizer.zero_grad(set_to_none=True)
    ntok += bs * seq_len
    if step % cfg["metrics"]["log_freq"] == 0:
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
'''
TEMPLATES["t12"]["train_config.toml"] = r'''# char-level tinyllama, SGD baseline for the optimizer comparison
[job]
dump_folder = "./outputs"
description = "char tinyllama 2L-64d, SGD+momentum"

[model]
name = "tinyllama"
flavor = "char_2L_64d"
vocab_size = 0  # set from the data
dim = 64
n_layers = 2
n_heads = 4
ffn_hidden = 176
norm_eps = 1e-5

[optimizer]
name = "SGD"
lr = 2.0
momentum = 0.9
nesterov = false
weight_decay = 0.0

[lr_scheduler]
warmup_steps = 10
decay_type = "cosine"
lr_min = 0.1

[training]
dataset_path = "data"
batch_size = 16
seq_len = 64
max_norm = 1.0
steps = 200
mixed_precision_param = "float32"
seed = 42

[metrics]
log_freq = 1

[validation]
enabled = true
freq = 50
steps = 10
'''


# --------------------------------------------------------------------------
# run specifications
# --------------------------------------------------------------------------
CHAR_MAIN = lambda: (char_docs(0, 4000), char_docs(1, 400))


def data_tokens(d):
    write_tokens(d)


def data_char_main(d, names=("train.txt", "val.txt")):
    tr, va = CHAR_MAIN()
    write_text(d, tr, va, *names)


def data_nanogpt(d):
    tr, va = CHAR_MAIN()
    os.makedirs(os.path.join(d, "data"), exist_ok=True)
    with open(os.path.join(d, "data", "input.txt"), "w") as f:
        f.write("\n".join(tr) + "\n" + "\n".join(va) + "\n")


def data_small(d):
    write_text(d, char_docs(10, 40), char_docs(11, 300))


def data_bylength(d):
    kw = dict(mix=(0.35, 0.3, 0.35), qa_pairs=(2, 4), story_len=(5, 12))
    write_text(d, char_docs(20, 500, **kw), char_docs(21, 120, **kw), "corpus.txt", "val.txt")


def data_heldout(d):
    write_text(d, char_docs(30, 3000, (0.35, 0.2, 0.45)), char_docs(31, 200, (0.0, 0.0, 1.0)),
               "train.txt", "heldout_stories.txt")


SPECS = [
    dict(name="run01", tpl="t06", truth="numerical_instability", data=data_char_main, args=["config.yaml"],
         ship=["config.yaml", "train.py", "train.log", "metrics.jsonl"],
         symptom="My little MoE run trains fine for about 110 steps and then every number in the log is suddenly NaN, "
                 "with no grad-norm spike or loss bump before it.",
         how="Router softmax written by hand as exp(logits)/sum(exp(logits)) with no max-subtraction; the router "
             "(randn-initialised, applied to the un-normalised residual stream, z-loss coeff 0) sees its logits grow "
             "past ~88 between steps 110 and 120 (z-loss logged at ~1400-1570 just before), exp overflows to inf, inf/inf = NaN, and NaN then propagates into all "
             "weights. With logits.softmax(-1) the same run stays finite and reaches val loss 0.93 at step 300."),
    dict(name="run02", tpl="t08", truth="lr_schedule_bug", data=data_tokens, args=["tiny-synth.yaml"],
         ship=["tiny-synth.yaml", "train.log", "wandb_export.csv", "post.md"],
         symptom="Loss only creeps down from 6.26 to about 5.5 in 300 steps with learning_rate 3e-3, way slower "
                 "than my other tiny configs.",
         how="scheduler.t_warmup=5000 copied from a big-model config while max_duration=300, so the linear warm-up "
             "never ends: the lr ramps from 6e-7 to only 1.8e-4 (6% of the configured 3e-3) over the whole run."),
    dict(name="run03", tpl="t02", truth="missing_zero_grad", data=data_nanogpt, args=["config/train_char.py"],
         ship=["config/train_char.py", "train.py", "train.log"],
         symptom="Loss falls for the first ~30 iterations, then climbs back and sits around 3.2 while the gnorm I print "
                 "keeps creeping up every iteration (2.6 -> 120).",
         how="optimizer.zero_grad() is called once before the while-loop and never inside it, so .grad accumulates "
             "over every iteration (grad_clip=0, so nothing rescales it)."),
    dict(name="run04", tpl="t11", truth="tokenizer_mismatch", data=data_heldout, args=["config.yaml"],
         ship=["config.yaml", "train.py", "train.log", "out/tokenizer.json", "out/history.json"],
         symptom="Training loss goes down normally but validation loss goes up from the very first evaluation "
                 "and ends at perplexity ~240.",
         how="load_split() builds a fresh CharTokenizer from each split's own text; the held-out stories file has no "
             "',', ':' or '?', so its vocabulary (28 chars) shifts every id relative to the 31-char training vocabulary "
             "and validation is scored on mis-mapped ids."),
    dict(name="run05", tpl="t04", truth="overfitting", data=data_small, args=["config.yaml"],
         ship=["config.yaml", "train.log", "tb", "post.md"],
         symptom="Train loss goes down to ~0.04 but validation perplexity bottoms out early and then keeps "
                 "rising for the rest of training.",
         how="A 236k-parameter model trained for 80 epochs (400 steps) on a 5k-character corpus (40 documents) "
             "with no dropout or weight decay: it memorises the corpus (train loss 0.04), val loss is lowest at epoch 17 (2.05) and "
             "rises to 4.63 by epoch 80."),
    dict(name="run06", tpl="t10", truth="lr_too_low", data=data_tokens, args=["tiny_synth.yml"],
         ship=["tiny_synth.yml", "train.log", "post.md"],
         symptom="lm_loss has barely moved in 400 iterations (about 6.45 to 6.25) and validation perplexity is still "
                 "~520 with a 512-token vocabulary.",
         how="Adam peak lr 3e-5 (cosine to 3e-6) for a 2-layer, 64-dim model from scratch: about 100x too small, "
             "so the loss falls slowly and almost linearly and stays near ln(512)."),
    dict(name="run07", tpl="t01", truth="healthy", data=data_tokens, args=["train_config.toml"],
         ship=["train_config.toml", "train.py", "train.log"],
         symptom="First run of my tiny llama on the synthetic corpus: is this run ok?",
         how="No fault: AdamW 2e-3, 30 warm-up steps, cosine to 10%, clipping at 1.0; train loss 6.25 -> ~3.0, val 4.60 (step 50) -> 3.04 (step 300), smooth."),
    dict(name="run08", tpl="t07", truth="mode_collapse", data=data_tokens, args=["moe_tiny.toml"],
         ship=["moe_tiny.toml", "train.py", "train.log", "metrics.jsonl"],
         symptom="After ~15 steps every token in each layer goes to one expert and the other three get nothing, even "
                 "though lb_loss drops towards zero.",
         how="The 'load-balancing' loss is the entropy of the mean routing distribution, added with a + sign "
             "(lb_loss_coeff 0.05), so minimising it drives the router to send all tokens to one expert per layer."),
    dict(name="run09", tpl="t12", truth="exploding_gradients", data=data_char_main, args=["train_config.toml"],
         ship=["train_config.toml", "train.log", "post.md"],
         symptom="Loss goes NaN at step 19 even though max_norm = 1.0 is set; grad_norm goes from ~1 to 1e17 "
                 "in a few steps.",
         how="clip_grad_norm_ is called after optimizer.step() (and just before zero_grad), so max_norm never "
             "limits the update; with SGD+momentum at lr 2.0 the gradient norm blows up by orders of magnitude at "
             "steps 8-18 (grad_norm 4 -> 1e3 -> 8e3 -> 2e6 -> 3e17) and loss/grad_norm are NaN from step 19 to the end. With clipping before step() the same config trains."),
    dict(name="run10", tpl="t03", truth="lr_too_high", data=data_char_main, args=["hyperparameters.yaml"],
         ship=["hyperparameters.yaml", "train.log", "out/pretrain/tiny-char-2l/logs/csv/version_0/metrics.csv", "post.md"],
         symptom="Loss goes down for the first 20 iterations, then climbs back above 3 and never really recovers; "
                 "val loss is worse at iter 80 than at iter 20.",
         how="AdamW peak lr 0.6 (warm-up 40 iterations, cosine to 0.06) for a 108k-parameter char model: the loss falls "
             "while the lr is small, rises once the lr passes about 0.3, and stays on a plateau near 2.7-2.8."),
    dict(name="run11", tpl="t09", truth="data_not_shuffled", data=data_bylength, args=["config.yaml"],
         ship=["config.yaml", "train.py", "train.log"],
         symptom="The training loss repeats the same pattern every epoch: a jump at the start, a dip, then a flat "
                 "stretch, and it never looks like a normal curve.",
         how="PackedDocs sorts the documents by length before packing and the DataLoader has shuffle=False, so every "
             "epoch goes short 'list' docs -> medium Q/A docs -> long stories in the same order; the loss jumps at "
             "each epoch start and follows the genre blocks."),
    dict(name="run12", tpl="t05", truth="healthy", data=data_tokens, args=["config.toml"],
         ship=["config.toml", "train.log", "post.md"],
         symptom="Noisy loss and a loss scale that keeps jumping around on my MoE smoke test: is this run ok?",
         how="No fault: batch 4x64 makes every step's loss noisy and progress slow, but val loss falls steadily 5.39 -> 3.59; "
             "GradScaler grows the scale and skips a few steps (normal fp16 behaviour); the experts stay in use."),
]


# --------------------------------------------------------------------------
# posts (written after the run, from the numbers the run logged)
# --------------------------------------------------------------------------
def _floats(pattern, text):
    import re
    return [tuple(float(g) if g not in ("nan", "inf") else float(g) for g in m) if isinstance(m, tuple) else float(m)
            for m in re.findall(pattern, text)]


def post_t03(d, log):
    vals = dict((int(a), b) for a, b in _floats(r"iter (\d+): val loss ([\d.]+)", log))
    trains = dict((int(a), b) for a, b in _floats(r"iter (\d+) step \d+ \| loss train: ([\d.]+)", log))
    best_it = min((k for k in vals if k > 0), key=lambda k: vals[k])
    worst_it = max((k for k in vals if k > best_it), key=lambda k: vals[k])
    tail = [trains[k] for k in trains if k > max(trains) - 100]
    return f"""**litgpt pretrain on a tiny char corpus: loss goes back up after ~{best_it} iters**

I'm pretraining a very small GPT (2 layers, n_embd 64, ~108k params) with a litgpt-style pretrain script on a
char-level story corpus I generated (~540k chars). The loss drops nicely at first (val {vals[best_it]:.3f} at iter
{best_it}, down from {vals[0]:.3f}), but then it climbs back up: val is {vals[worst_it]:.3f} at iter {worst_it},
worse than where it started. For the last 100 iterations train loss just sits between {min(tail):.2f} and
{max(tail):.2f}. I expected this model to get well under 1.0 on this data.

hyperparameters.yaml, the console log and the CSV logger output are attached. Any idea what's going on? The data
loader is the same one I use for other runs.
"""


def post_t04(d, log):
    rows = _floats(r"epoch +(\d+) \| step +\d+ \| train_loss ([\d.]+) \| val_loss ([\d.]+) \| val_ppl ([\d.]+)", log)
    best = min(rows, key=lambda r: r[2])
    last = rows[-1]
    return f"""**Char LM: val perplexity goes up while train loss goes to ~0**

Training a small transformer LM (2 layers, d_model 96) on a small set of my own short stories and lists. Training
loss looks great, down to {last[1]:.4f} at epoch {int(last[0])}, but validation perplexity was best around epoch
{int(best[0])} ({best[3]:.2f}) and has gone up ever since; it's {last[3]:.2f} at the end. The validation
file is held-out text from the same generator, so it shouldn't be a different distribution.

Config, console log and the TensorBoard event file (tb/) are attached. Is something wrong with how I evaluate?
"""


def post_t05(d, log):
    v = _floats(r"val step (\d+): loss=([\d.]+)", log)
    skipped = int(_floats(r"skipped=(\d+)", log)[-1])
    scales = [s for s in _floats(r"loss_scale=(\d+)", log)]
    return f"""**MoE smoke test on CPU before the cluster job: is this OK?**

Tiny 2-layer MoE (4 experts, top-1, Switch-style aux loss + z-loss), fp16 autocast with GradScaler. This is
only a smoke test so the batch is 4 x 64 tokens. Step-to-step loss jumps around a lot, val went {v[0][1]:.2f} ->
{v[-1][1]:.2f} over {int(v[-1][0])} steps, and the loss scale went from {scales[0]:.0f} up to {max(scales):.0f}
with {skipped} skipped steps by the end. Expert token counts are a bit uneven in the second layer.

Is this run healthy enough to launch the real thing with the same settings (bigger batch), or is something off?
"""


def post_t08(d, log):
    l = _floats(r"train/CrossEntropyLoss=([\d.]+)", log)
    e = _floats(r"eval/synth-val/Perplexity=([\d.]+)", log)
    return f"""**OLMo-style config: loss barely moves on a tiny model**

I ported my tiny synthetic-token experiment (2 layers, d_model 64, vocab 512) to an OLMo-style YAML config.
Loss only goes from {l[0]:.2f} to {l[-1]:.2f} in 300 steps and eval perplexity is still {e[-1]:.0f}. My earlier
hand-written loop got to ~3.0 in the same number of steps with the same peak lr (3e-3) and batch size. No NaNs,
grad norm looks fine.

Config, console log and the W&B CSV export are attached. What did I break in the port?
"""


def post_t10(d, log):
    l = _floats(r"lm_loss: ([\d.E+-]+) \|", log)
    v = _floats(r"lm_loss_ppl value: ([\d.E+-]+)", log)
    return f"""**GPT-NeoX toy config: lm_loss stuck near 6.3**

2-layer / 64-hidden GPT-NeoX-style model on a synthetic corpus with 512 token types. After 400 iterations lm_loss
is {l[-1]:.3f} (it was {l[0]:.3f} at iteration 10) and validation ppl is {v[-1]:.0f}. With a 512-token vocab that's
hardly better than guessing. No nan iterations, grad norm is ~0.5-0.7, and the loss scale behaves normally.

Config and log attached. Is the model just too small?
"""


def post_t12(d, log, script):
    import re
    steps = _floats(r"step: +(\d+) +loss: +(\S+) +grad_norm: +(\S+)", log)
    first_nan = next(int(s) for s, lo, g in steps if not math.isfinite(lo))
    big = max(g for s, lo, g in steps if math.isfinite(g))
    start = script.index("for step in range(1, steps + 1):")
    end = script.index("    ntok += bs * seq_len")
    loop = script[start:end].rstrip()
    return f"""**Loss NaN at step ~{first_nan} even with max_norm = 1.0**

Char-level tinyllama (2 layers, dim 64), trying SGD + momentum as a baseline against AdamW. The loss falls for a few
steps, then grad_norm goes from ~1 to {big:.2e} within a handful of steps and from step {first_nan} on everything is NaN.
I have `max_norm = 1.0` in the config, so I thought clipping would prevent exactly this.

My training step:

```python
{loop}
```

Config and log attached. Is SGD just unusable here, or am I missing something?
"""


import math  # noqa: E402  (used by the post helpers)

POSTS = {"t03": post_t03, "t04": post_t04, "t05": post_t05, "t08": post_t08, "t10": post_t10}


# --------------------------------------------------------------------------
# build
# --------------------------------------------------------------------------
def build(spec):
    name, tpl = spec["name"], spec["tpl"]
    work = os.path.join(BUILD, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for rel, text in TEMPLATES[tpl].items():
        p = os.path.join(work, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    spec["data"](work)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    with open(os.path.join(work, "train.log"), "w") as logf:
        rc = subprocess.call([sys.executable, "train.py"] + spec["args"], cwd=work, stdout=logf,
                             stderr=subprocess.STDOUT, env=env)
    if rc != 0:
        raise SystemExit(f"{name}: train.py exited with {rc}; see {work}/train.log")
    log = open(os.path.join(work, "train.log")).read()
    if tpl in POSTS:
        open(os.path.join(work, "post.md"), "w").write(POSTS[tpl](work, log))
    elif tpl == "t12":
        open(os.path.join(work, "post.md"), "w").write(post_t12(work, log, TEMPLATES[tpl]["train.py"]))
    dest = os.path.join(RUNS, name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for rel in spec["ship"]:
        src = os.path.join(work, rel)
        dst = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copy2(src, dst)


def main():
    only = set(sys.argv[1:])
    os.makedirs(RUNS, exist_ok=True)
    truth_path = os.path.join(HERE, "truth.json")
    truth = json.load(open(truth_path)) if os.path.exists(truth_path) else {}
    for spec in SPECS:
        if only and spec["name"] not in only:
            continue
        print(f"[gen] {spec['name']} ...", flush=True)
        build(spec)
        truth[spec["name"]] = {"truth": spec["truth"], "symptom": spec["symptom"], "how": spec["how"]}
    json.dump(dict(sorted(truth.items())), open(truth_path, "w"), indent=2)
    shutil.rmtree(BUILD, ignore_errors=True)
    print("[gen] done", flush=True)


if __name__ == "__main__":
    main()
