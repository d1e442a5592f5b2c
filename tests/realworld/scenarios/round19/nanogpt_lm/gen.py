#!/usr/bin/env python
"""
Generator for 12 nanoGPT / minGPT / char-rnn style run folders, each really trained on CPU.
Each run has at most one planted fault; the ground truth goes to truth.json (never into runs/).

usage: python gen.py            (writes ./runs/run01..run12 and ./truth.json next to this file)
       python gen.py --keep     (also keeps the ./_build scratch workspaces)
       python gen.py run03 ...  (only (re)build the named runs)
"""
import json
import os
import random
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(ROOT, '_build')
RUNS = os.path.join(ROOT, 'runs')
PY = sys.executable
ENV = dict(os.environ, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1', PYTHONHASHSEED='0', PYTHONUNBUFFERED='1')


# =============================================================================
# the user's scripts (written verbatim into the workspaces / run folders)
# =============================================================================

MODEL_PY = r'''"""
Full definition of a GPT Language Model, all of it in this single file.
Adapted from nanoGPT for small character-level experiments.
"""

import math
import inspect
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F

class LayerNorm(nn.Module):
    """ LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False """

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

class CausalSelfAttention(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout

    def forward(self, x):
        B, T, C = x.size()
        q, k, v  = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = self.resid_dropout(self.c_proj(y))
        return y

class MLP(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.c_fc    = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu    = nn.GELU()
        self.c_proj  = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        x = self.c_fc(x)
        x = self.gelu(x)
        x = self.c_proj(x)
        x = self.dropout(x)
        return x

class Block(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x

@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True

class GPT(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.vocab_size is not None
        assert config.block_size is not None
        self.config = config

        self.transformer = nn.ModuleDict(dict(
            wte = nn.Embedding(config.vocab_size, config.n_embd),
            wpe = nn.Embedding(config.block_size, config.n_embd),
            drop = nn.Dropout(config.dropout),
            h = nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f = LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight # https://paperswithcode.com/method/weight-tying

        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02/math.sqrt(2 * config.n_layer))

        print("number of parameters: %.2fM" % (self.get_num_params()/1e6,))

    def get_num_params(self, non_embedding=True):
        n_params = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n_params -= self.transformer.wpe.weight.numel()
        return n_params

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=device)

        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)

        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :])
            loss = None

        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        param_dict = {pn: p for pn, p in self.named_parameters()}
        param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {'params': decay_params, 'weight_decay': weight_decay},
            {'params': nodecay_params, 'weight_decay': 0.0}
        ]
        num_decay_params = sum(p.numel() for p in decay_params)
        num_nodecay_params = sum(p.numel() for p in nodecay_params)
        print(f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters")
        print(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters")
        fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device_type == 'cuda'
        extra_args = dict(fused=True) if use_fused else dict()
        optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)
        print(f"using fused AdamW: {use_fused}")
        return optimizer

    def estimate_mfu(self, fwdbwd_per_iter, dt):
        """ estimate model flops utilization (MFU) in units of A100 bfloat16 peak FLOPS """
        N = self.get_num_params()
        cfg = self.config
        L, H, Q, T = cfg.n_layer, cfg.n_head, cfg.n_embd//cfg.n_head, cfg.block_size
        flops_per_token = 6*N + 12*L*H*Q*T
        flops_per_fwdbwd = flops_per_token * T
        flops_per_iter = flops_per_fwdbwd * fwdbwd_per_iter
        flops_achieved = flops_per_iter * (1.0/dt)
        flops_promised = 312e12
        mfu = flops_achieved / flops_promised
        return mfu

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float('Inf')
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)

        return idx
'''

CONFIGURATOR_PY = r'''"""
Poor Man's Configurator. Probably a terrible idea. Example usage:
$ python train.py config/override_file.py --batch_size=32
this will first run config/override_file.py, then override batch_size to 32
"""

import sys
from ast import literal_eval

for arg in sys.argv[1:]:
    if '=' not in arg:
        # assume it's the name of a config file
        assert not arg.startswith('--')
        config_file = arg
        print(f"Overriding config with {config_file}:")
        with open(config_file) as f:
            print(f.read())
        exec(open(config_file).read())
    else:
        # assume it's a --key=value argument
        assert arg.startswith('--')
        key, val = arg.split('=')
        key = key[2:]
        if key in globals():
            try:
                attempt = literal_eval(val)
            except (SyntaxError, ValueError):
                attempt = val
            assert type(attempt) == type(globals()[key])
            print(f"Overriding: {key} = {attempt}")
            globals()[key] = attempt
        else:
            raise ValueError(f"Unknown config key: {key}")
'''

TRAIN_PY = r'''"""
Training script for small character-level GPTs (single process, adapted from nanoGPT).

$ python train.py config/train_xxx.py --batch_size=32 --max_iters=2000
"""

import os
import time
import math
import pickle
from contextlib import nullcontext

import numpy as np
import torch

from model import GPTConfig, GPT

# -----------------------------------------------------------------------------
# default config values
# I/O
out_dir = 'out'
eval_interval = 2000
log_interval = 1
eval_iters = 200
eval_only = False
always_save_checkpoint = True
init_from = 'scratch' # 'scratch' or 'resume'
csv_log = False
# data
dataset = 'openwebtext'
gradient_accumulation_steps = 1
batch_size = 12
block_size = 1024
# model
n_layer = 12
n_head = 12
n_embd = 768
dropout = 0.0
bias = False
# adamw optimizer
learning_rate = 6e-4
max_iters = 600000
weight_decay = 1e-1
beta1 = 0.9
beta2 = 0.95
grad_clip = 1.0
# learning rate decay settings
decay_lr = True
warmup_iters = 2000
lr_decay_iters = 600000
min_lr = 6e-5
# system
device = 'cpu'
dtype = 'float32'
compile = False
seed = 1337
# -----------------------------------------------------------------------------
config_keys = [k for k,v in globals().items() if not k.startswith('_') and isinstance(v, (int, float, bool, str))]
exec(open('configurator.py').read())
config = {k: globals()[k] for k in config_keys}
# -----------------------------------------------------------------------------

torch.set_num_threads(1)
tokens_per_iter = gradient_accumulation_steps * batch_size * block_size
print(f"tokens per iteration will be: {tokens_per_iter:,}")

os.makedirs(out_dir, exist_ok=True)
torch.manual_seed(seed)
device_type = 'cuda' if 'cuda' in device else 'cpu'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
ctx = nullcontext() if dtype == 'float32' else torch.amp.autocast(device_type=device_type, dtype=ptdtype)

# poor man's data loader
data_dir = os.path.join('data', dataset)
def get_batch(split):
    if split == 'train':
        data = np.memmap(os.path.join(data_dir, 'train.bin'), dtype=np.uint16, mode='r')
    else:
        data = np.memmap(os.path.join(data_dir, 'val.bin'), dtype=np.uint16, mode='r')
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([torch.from_numpy((data[i:i+block_size]).astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy((data[i+1:i+1+block_size]).astype(np.int64)) for i in ix])
    x, y = x.to(device), y.to(device)
    return x, y

iter_num = 0
best_val_loss = 1e9

# attempt to derive vocab_size from the dataset
meta_path = os.path.join(data_dir, 'meta.pkl')
meta_vocab_size = None
if os.path.exists(meta_path):
    with open(meta_path, 'rb') as f:
        meta = pickle.load(f)
    meta_vocab_size = meta['vocab_size']
    print(f"found vocab_size = {meta_vocab_size} (inside {meta_path})")

# model init
model_args = dict(n_layer=n_layer, n_head=n_head, n_embd=n_embd, block_size=block_size,
                  bias=bias, vocab_size=None, dropout=dropout)
if init_from == 'scratch':
    print("Initializing a new model from scratch")
    if meta_vocab_size is None:
        print("defaulting to vocab_size of GPT-2 to 50304 (50257 rounded up for efficiency)")
    model_args['vocab_size'] = meta_vocab_size if meta_vocab_size is not None else 50304
    gptconf = GPTConfig(**model_args)
    model = GPT(gptconf)
elif init_from == 'resume':
    print(f"Resuming training from {out_dir}")
    ckpt_path = os.path.join(out_dir, 'ckpt.pt')
    checkpoint = torch.load(ckpt_path, map_location=device)
    checkpoint_model_args = checkpoint['model_args']
    for k in ['n_layer', 'n_head', 'n_embd', 'block_size', 'bias', 'vocab_size']:
        model_args[k] = checkpoint_model_args[k]
    gptconf = GPTConfig(**model_args)
    model = GPT(gptconf)
    state_dict = checkpoint['model']
    unwanted_prefix = '_orig_mod.'
    for k,v in list(state_dict.items()):
        if k.startswith(unwanted_prefix):
            state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
    model.load_state_dict(state_dict)
    iter_num = checkpoint['iter_num']
    best_val_loss = checkpoint['best_val_loss']
model.to(device)

# optimizer
optimizer = model.configure_optimizers(weight_decay, learning_rate, (beta1, beta2), device_type)
if init_from == 'resume':
    optimizer.load_state_dict(checkpoint['optimizer'])
checkpoint = None # free up memory

if compile:
    print("compiling the model... (takes a ~minute)")
    model = torch.compile(model)

# helps estimate an arbitrarily accurate loss over either split using many batches
@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ['train', 'val']:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            with ctx:
                logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out

# learning rate decay scheduler (cosine with warmup)
def get_lr(it):
    # 1) linear warmup for warmup_iters steps
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    # 2) if it > lr_decay_iters, return min learning rate
    if it > lr_decay_iters:
        return min_lr
    # 3) in between, use cosine decay down to min learning rate
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    assert 0 <= decay_ratio <= 1
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)

if csv_log:
    csv_path = os.path.join(out_dir, 'log.csv')
    if not (init_from == 'resume' and os.path.exists(csv_path)):
        with open(csv_path, 'w') as f:
            f.write("iter,train/loss,val/loss,lr,mfu\n")

# training loop
X, Y = get_batch('train')
t0 = time.time()
local_iter_num = 0
raw_model = model
running_mfu = -1.0
while True:

    # determine and set the learning rate for this iteration
    lr = get_lr(iter_num) if decay_lr else learning_rate
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr

    # evaluate the loss on train/val sets and write checkpoints
    if iter_num % eval_interval == 0:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if csv_log:
            with open(csv_path, 'a') as f:
                f.write(f"{iter_num},{losses['train']:.4f},{losses['val']:.4f},{lr:.6g},{running_mfu*100:.4f}\n")
        if losses['val'] < best_val_loss or always_save_checkpoint:
            best_val_loss = losses['val']
            if iter_num > 0:
                checkpoint = {
                    'model': raw_model.state_dict(),
                    'optimizer': optimizer.state_dict(),
                    'model_args': model_args,
                    'iter_num': iter_num,
                    'best_val_loss': best_val_loss,
                    'config': config,
                }
                print(f"saving checkpoint to {out_dir}")
                torch.save(checkpoint, os.path.join(out_dir, 'ckpt.pt'))
    if iter_num == 0 and eval_only:
        break

    # forward backward update, with optional gradient accumulation to simulate larger batch size
    for micro_step in range(gradient_accumulation_steps):
        with ctx:
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
        X, Y = get_batch('train')
        loss.backward()
    if grad_clip != 0.0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)

    # timing and logging
    t1 = time.time()
    dt = t1 - t0
    t0 = t1
    if iter_num % log_interval == 0:
        lossf = loss.item() * gradient_accumulation_steps
        if local_iter_num >= 5:
            mfu = raw_model.estimate_mfu(batch_size * gradient_accumulation_steps, dt)
            running_mfu = mfu if running_mfu == -1.0 else 0.9*running_mfu + 0.1*mfu
        print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")
    iter_num += 1
    local_iter_num += 1

    # termination conditions
    if iter_num > max_iters:
        break
'''

SAMPLE_PY = r'''"""
Sample from a trained model
"""
import os
import pickle
from contextlib import nullcontext
import torch
from model import GPTConfig, GPT

# -----------------------------------------------------------------------------
init_from = 'resume'
out_dir = 'out'
start = "\n" # or "<|endoftext|>" or etc. Can also specify a file, use as: "FILE:prompt.txt"
num_samples = 10
max_new_tokens = 500
temperature = 0.8
top_k = 200
seed = 1337
device = 'cpu'
dtype = 'float32'
compile = False
exec(open('configurator.py').read())
# -----------------------------------------------------------------------------

torch.manual_seed(seed)
torch.set_num_threads(1)
device_type = 'cuda' if 'cuda' in device else 'cpu'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
ctx = nullcontext() if dtype == 'float32' else torch.amp.autocast(device_type=device_type, dtype=ptdtype)

# model
ckpt_path = os.path.join(out_dir, 'ckpt.pt')
checkpoint = torch.load(ckpt_path, map_location=device)
gptconf = GPTConfig(**checkpoint['model_args'])
model = GPT(gptconf)
state_dict = checkpoint['model']
unwanted_prefix = '_orig_mod.'
for k,v in list(state_dict.items()):
    if k.startswith(unwanted_prefix):
        state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
model.load_state_dict(state_dict)

model.eval()
model.to(device)

# look for the meta pickle in case it is available in the dataset folder
load_meta = False
if init_from == 'resume' and 'config' in checkpoint and 'dataset' in checkpoint['config']:
    meta_path = os.path.join('data', checkpoint['config']['dataset'], 'meta.pkl')
    load_meta = os.path.exists(meta_path)
if load_meta:
    print(f"Loading meta from {meta_path}...")
    with open(meta_path, 'rb') as f:
        meta = pickle.load(f)
    stoi, itos = meta['stoi'], meta['itos']
    encode = lambda s: [stoi[c] for c in s]
    decode = lambda l: ''.join([itos[i] for i in l])

# encode the beginning of the prompt
if start.startswith('FILE:'):
    with open(start[5:], 'r', encoding='utf-8') as f:
        start = f.read()
start_ids = encode(start)
x = (torch.tensor(start_ids, dtype=torch.long, device=device)[None, ...])

# run generation
with torch.no_grad():
    with ctx:
        for k in range(num_samples):
            y = model.generate(x, max_new_tokens, temperature=temperature, top_k=top_k)
            print(decode(y[0].tolist()))
            print('---------------')
'''

PREPARE_PY = r'''"""
Prepare a character-level dataset for training.
Will save train.bin, val.bin containing the ids, and meta.pkl containing the
encoder and decoder and some other related info.
"""
import os
import pickle
import numpy as np

input_file_path = os.path.join(os.path.dirname(__file__), 'input.txt')
with open(input_file_path, 'r') as f:
    data = f.read()
print(f"length of dataset in characters: {len(data):,}")

# get all the unique characters that occur in this text
chars = sorted(list(set(data)))
vocab_size = len(chars)
print("all the unique characters:", ''.join(chars))
print(f"vocab size: {vocab_size:,}")

# create a mapping from characters to integers
stoi = { ch:i for i,ch in enumerate(chars) }
itos = { i:ch for i,ch in enumerate(chars) }
def encode(s):
    return [stoi[c] for c in s] # encoder: take a string, output a list of integers
def decode(l):
    return ''.join([itos[i] for i in l]) # decoder: take a list of integers, output a string

# create the train and test splits
n = len(data)
train_data = data[:int(n*0.9)]
val_data = data[int(n*0.9):]

# encode both to integers
train_ids = encode(train_data)
val_ids = encode(val_data)
print(f"train has {len(train_ids):,} tokens")
print(f"val has {len(val_ids):,} tokens")

# export to bin files
train_ids = np.array(train_ids, dtype=np.uint16)
val_ids = np.array(val_ids, dtype=np.uint16)
train_ids.tofile(os.path.join(os.path.dirname(__file__), 'train.bin'))
val_ids.tofile(os.path.join(os.path.dirname(__file__), 'val.bin'))

# save the meta information as well, to help us encode/decode later
meta = {
    'vocab_size': vocab_size,
    'itos': itos,
    'stoi': stoi,
}
with open(os.path.join(os.path.dirname(__file__), 'meta.pkl'), 'wb') as f:
    pickle.dump(meta, f)
'''

CHARGPT_PY = r'''"""
Trains a character-level language model.
Started from minGPT's projects/chargpt, squashed into a single file.
"""

import os
import sys
import json
import time
import math

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import Dataset, DataLoader, RandomSampler

# -----------------------------------------------------------------------------

class CfgNode:
    """ a lightweight configuration class inspired by yacs """

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def __str__(self):
        return self._str_helper(0)

    def _str_helper(self, indent):
        parts = []
        for k, v in self.__dict__.items():
            if isinstance(v, CfgNode):
                parts.append("%s:\n" % k)
                parts.append(v._str_helper(indent + 1))
            else:
                parts.append("%s: %s\n" % (k, v))
        parts = [' ' * (indent * 4) + p for p in parts]
        return "".join(parts)

    def to_dict(self):
        return { k: v.to_dict() if isinstance(v, CfgNode) else v for k, v in self.__dict__.items() }

    def merge_from_args(self, args):
        for arg in args:
            keyval = arg.split('=')
            assert len(keyval) == 2, "expecting each override arg to be of form --arg=value, got %s" % arg
            key, val = keyval
            try:
                val = eval(val)
            except (NameError, SyntaxError):
                pass
            assert key[:2] == '--'
            key = key[2:]
            keys = key.split('.')
            obj = self
            for k in keys[:-1]:
                obj = getattr(obj, k)
            leaf_key = keys[-1]
            assert hasattr(obj, leaf_key), f"{key} is not an attribute that exists in the config"
            print("command line overwriting config attribute %s with %s" % (key, val))
            setattr(obj, leaf_key, val)

# -----------------------------------------------------------------------------

class CausalSelfAttention(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.attn_dropout = nn.Dropout(config.attn_pdrop)
        self.resid_dropout = nn.Dropout(config.resid_pdrop)
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                     .view(1, 1, config.block_size, config.block_size))
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k ,v  = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = self.resid_dropout(self.c_proj(y))
        return y

class Block(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = nn.ModuleDict(dict(
            c_fc    = nn.Linear(config.n_embd, 4 * config.n_embd),
            c_proj  = nn.Linear(4 * config.n_embd, config.n_embd),
            act     = nn.GELU(),
            dropout = nn.Dropout(config.resid_pdrop),
        ))
        m = self.mlp
        self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x))))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlpf(self.ln_2(x))
        return x

class GPT(nn.Module):

    @staticmethod
    def get_default_config():
        C = CfgNode()
        C.model_type = 'gpt'
        C.n_layer = None
        C.n_head = None
        C.n_embd =  None
        C.vocab_size = None
        C.block_size = None
        C.embd_pdrop = 0.1
        C.resid_pdrop = 0.1
        C.attn_pdrop = 0.1
        return C

    def __init__(self, config):
        super().__init__()
        type_given = config.model_type is not None
        params_given = all([config.n_layer is not None, config.n_head is not None, config.n_embd is not None])
        assert type_given ^ params_given
        if type_given:
            config.__dict__.update({
                'gpt-mini':     dict(n_layer=6, n_head=6, n_embd=192),
                'gpt-micro':    dict(n_layer=4, n_head=4, n_embd=128),
                'gpt-nano':     dict(n_layer=3, n_head=3, n_embd=48),
                'gpt-pico':     dict(n_layer=2, n_head=4, n_embd=64),
            }[config.model_type])
        self.block_size = config.block_size
        self.transformer = nn.ModuleDict(dict(
            wte = nn.Embedding(config.vocab_size, config.n_embd),
            wpe = nn.Embedding(config.block_size, config.n_embd),
            drop = nn.Dropout(config.embd_pdrop),
            h = nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f = nn.LayerNorm(config.n_embd),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02/math.sqrt(2 * config.n_layer))
        n_params = sum(p.numel() for p in self.transformer.parameters())
        print("number of parameters: %.2fM" % (n_params/1e6,))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        elif isinstance(module, nn.LayerNorm):
            torch.nn.init.zeros_(module.bias)
            torch.nn.init.ones_(module.weight)

    def configure_optimizers(self, train_config):
        decay, no_decay = set(), set()
        for mn, m in self.named_modules():
            for pn, p in m.named_parameters(recurse=False):
                fpn = '%s.%s' % (mn, pn) if mn else pn
                if pn.endswith('bias') or isinstance(m, (nn.LayerNorm, nn.Embedding)):
                    no_decay.add(fpn)
                elif pn.endswith('weight') and isinstance(m, nn.Linear):
                    decay.add(fpn)
        param_dict = {pn: p for pn, p in self.named_parameters()}
        optim_groups = [
            {"params": [param_dict[pn] for pn in sorted(list(decay))], "weight_decay": train_config.weight_decay},
            {"params": [param_dict[pn] for pn in sorted(list(no_decay))], "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(optim_groups, lr=train_config.learning_rate, betas=train_config.betas)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, top_k)
                logits[logits < v[:, [-1]]] = -float('Inf')
            probs = F.softmax(logits, dim=-1)
            if do_sample:
                idx_next = torch.multinomial(probs, num_samples=1)
            else:
                _, idx_next = torch.topk(probs, k=1, dim=-1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx

# -----------------------------------------------------------------------------

def get_config():
    C = CfgNode()
    C.system = CfgNode()
    C.system.seed = 3407
    C.system.work_dir = './out/chargpt'
    C.data = CfgNode()
    C.data.input_file = 'input.txt'
    C.data.block_size = 128
    C.model = GPT.get_default_config()
    C.model.model_type = 'gpt-mini'
    C.trainer = CfgNode()
    C.trainer.device = 'cpu'
    C.trainer.max_iters = 2000
    C.trainer.batch_size = 64
    C.trainer.learning_rate = 5e-4
    C.trainer.betas = (0.9, 0.95)
    C.trainer.weight_decay = 0.1
    C.trainer.grad_norm_clip = 1.0
    C.trainer.log_every = 10
    C.trainer.eval_every = 500
    C.trainer.eval_batches = 10
    return C

# -----------------------------------------------------------------------------

class CharDataset(Dataset):
    """
    Emits batches of characters
    """

    def __init__(self, block_size, data, stoi):
        self.block_size = block_size
        self.stoi = stoi
        self.data = data

    def __len__(self):
        return len(self.data) - self.block_size

    def __getitem__(self, idx):
        # grab a chunk of (block_size + 1) characters from the data
        chunk = self.data[idx:idx + self.block_size + 1]
        dix = [self.stoi[s] for s in chunk]
        x = torch.tensor(dix[:-1], dtype=torch.long)
        y = torch.tensor(dix[1:], dtype=torch.long)
        return x, y

# -----------------------------------------------------------------------------

if __name__ == '__main__':

    config = get_config()
    config.merge_from_args(sys.argv[1:])
    print(config)
    os.makedirs(config.system.work_dir, exist_ok=True)
    with open(os.path.join(config.system.work_dir, 'config.json'), 'w') as f:
        f.write(json.dumps(config.to_dict(), indent=4))
    torch.manual_seed(config.system.seed)
    torch.set_num_threads(1)

    text = open(config.data.input_file, 'r').read()
    chars = sorted(list(set(text)))
    data_size, vocab_size = len(text), len(chars)
    print('data has %d characters, %d unique.' % (data_size, vocab_size))
    stoi = { ch:i for i,ch in enumerate(chars) }
    itos = { i:ch for i,ch in enumerate(chars) }
    n = int(0.9 * len(text))
    train_dataset = CharDataset(config.data.block_size, text[:n], stoi)
    test_dataset = CharDataset(config.data.block_size, text[n:], stoi)

    config.model.vocab_size = vocab_size
    config.model.block_size = config.data.block_size
    model = GPT(config.model)
    tc = config.trainer
    print("running on device", tc.device)
    optimizer = model.configure_optimizers(tc)

    train_loader = DataLoader(
        train_dataset,
        sampler=RandomSampler(train_dataset, replacement=True, num_samples=int(1e10)),
        shuffle=False,
        pin_memory=False,
        batch_size=tc.batch_size,
        num_workers=0,
    )

    @torch.no_grad()
    def evaluate(dataset):
        model.eval()
        loader = DataLoader(dataset, sampler=RandomSampler(dataset, replacement=True, num_samples=tc.eval_batches * tc.batch_size),
                            batch_size=tc.batch_size)
        losses = [model(x, y)[1].item() for x, y in loader]
        model.train()
        return sum(losses) / len(losses)

    model.train()
    iter_num = 0
    iter_time = time.time()
    data_iter = iter(train_loader)
    while True:
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(train_loader)
            batch = next(data_iter)
        x, y = batch
        logits, loss = model(x, y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), tc.grad_norm_clip)
        optimizer.step()

        tnow = time.time()
        iter_dt = tnow - iter_time
        iter_time = tnow

        if iter_num % tc.log_every == 0:
            print(f"iter_dt {iter_dt * 1000:.2f}ms; iter {iter_num}: train loss {loss.item():.5f}")

        if iter_num > 0 and (iter_num % tc.eval_every == 0 or iter_num == tc.max_iters):
            train_loss = evaluate(train_dataset)
            test_loss = evaluate(test_dataset)
            print(f"iter {iter_num}: eval train loss {train_loss:.4f}, test loss {test_loss:.4f}")
            model.eval()
            with torch.no_grad():
                context = "\n"
                x = torch.tensor([stoi[s] for s in context], dtype=torch.long)[None,...]
                y = model.generate(x, 200, temperature=1.0, do_sample=True, top_k=10)[0]
                completion = ''.join([itos[int(i)] for i in y])
                print(completion)
            print("saving model")
            ckpt_path = os.path.join(config.system.work_dir, "model.pt")
            torch.save(model.state_dict(), ckpt_path)
            model.train()

        iter_num += 1
        if iter_num > tc.max_iters:
            break
'''

CHAR_RNN_PY = r'''"""
char-rnn in pytorch: multi-layer GRU/LSTM character-level language model.

usage: python char_rnn.py --input data/tinyplays/input.txt --model gru --rnn_size 128 --num_layers 2
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument('--input', type=str, default='data/tinyshakespeare/input.txt')
parser.add_argument('--model', type=str, default='lstm', choices=['lstm', 'gru', 'rnn'])
parser.add_argument('--rnn_size', type=int, default=128)
parser.add_argument('--num_layers', type=int, default=2)
parser.add_argument('--dropout', type=float, default=0.0)
parser.add_argument('--seq_length', type=int, default=50)
parser.add_argument('--batch_size', type=int, default=50)
parser.add_argument('--max_iters', type=int, default=2000)
parser.add_argument('--learning_rate', type=float, default=2e-3)
parser.add_argument('--decay_rate', type=float, default=0.95)
parser.add_argument('--grad_clip', type=float, default=5.0)
parser.add_argument('--train_frac', type=float, default=0.95)
parser.add_argument('--print_every', type=int, default=10)
parser.add_argument('--eval_val_every', type=int, default=500)
parser.add_argument('--checkpoint_dir', type=str, default='cv')
parser.add_argument('--seed', type=int, default=123)
args = parser.parse_args()

torch.manual_seed(args.seed)
torch.set_num_threads(1)

text = open(args.input, 'r').read()
chars = sorted(list(set(text)))
vocab_size = len(chars)
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
n = int(args.train_frac * len(data))
train_data, val_data = data[:n], data[n:]
print(f'loading text file... {len(text)} characters, vocab size: {vocab_size}')
print(f'data split: train {len(train_data)}, val {len(val_data)}')

def get_batch(split, batch_size=None):
    d = train_data if split == 'train' else val_data
    ix = torch.randint(len(d) - args.seq_length - 1, (batch_size or args.batch_size,))
    x = torch.stack([d[i:i + args.seq_length] for i in ix])
    y = torch.stack([d[i + 1:i + 1 + args.seq_length] for i in ix])
    return x, y

class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, args.rnn_size)
        rnn_cls = {'lstm': nn.LSTM, 'gru': nn.GRU, 'rnn': nn.RNN}[args.model]
        self.rnn = rnn_cls(args.rnn_size, args.rnn_size, num_layers=args.num_layers,
                           dropout=args.dropout if args.num_layers > 1 else 0.0, batch_first=True)
        self.drop = nn.Dropout(args.dropout)
        self.decoder = nn.Linear(args.rnn_size, vocab_size)

    def forward(self, x, h=None):
        out, h = self.rnn(self.embed(x), h)
        return self.decoder(self.drop(out)), h

model = CharRNN()
print(f'number of parameters in the model: {sum(p.numel() for p in model.parameters())}')
optimizer = torch.optim.RMSprop(model.parameters(), lr=args.learning_rate, alpha=0.95)
os.makedirs(args.checkpoint_dir, exist_ok=True)

@torch.no_grad()
def eval_split(split, n_batches=20):
    model.eval()
    losses = []
    for _ in range(n_batches):
        x, y = get_batch(split, batch_size=32)
        logits, _ = model(x)
        losses.append(F.cross_entropy(logits.reshape(-1, vocab_size), y.reshape(-1)).item())
    model.train()
    return sum(losses) / len(losses)

@torch.no_grad()
def sample(n_chars=200, prime='\n', temperature=0.8):
    model.eval()
    x = torch.tensor([[stoi[c] for c in prime]])
    h = None
    out = prime
    logits, h = model(x, h)
    for _ in range(n_chars):
        probs = F.softmax(logits[0, -1] / temperature, dim=-1)
        ix = torch.multinomial(probs, 1).item()
        out += itos[ix]
        logits, h = model(torch.tensor([[ix]]), h)
    model.train()
    return out

iters_per_epoch = len(train_data) // (args.batch_size * args.seq_length)
lr = args.learning_rate
for it in range(1, args.max_iters + 1):
    t0 = time.time()
    x, y = get_batch('train')
    logits, _ = model(x)
    loss = F.cross_entropy(logits.reshape(-1, vocab_size), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip if args.grad_clip > 0 else float('inf'))
    optimizer.step()
    dt = time.time() - t0
    epoch = it / max(iters_per_epoch, 1)

    if it % max(iters_per_epoch, 1) == 0 and args.decay_rate < 1.0:
        lr = lr * args.decay_rate
        for g in optimizer.param_groups:
            g['lr'] = lr
        print(f'decayed learning rate by a factor {args.decay_rate} to {lr:.6f}')

    if it % args.print_every == 0 or it == 1:
        print(f'{it}/{args.max_iters} (epoch {epoch:.3f}), train_loss = {loss.item():.8f}, grad norm = {grad_norm.item():.4e}, time/batch = {dt:.4f}s')

    if it % args.eval_val_every == 0 or it == args.max_iters:
        val_loss = eval_split('val')
        print(f'evaluating loss over split index 2 ... val loss {val_loss:.4f}')
        fname = os.path.join(args.checkpoint_dir, f'lm_{args.model}_epoch{epoch:.2f}_{val_loss:.4f}.pt')
        print(f'saving checkpoint to {fname}')
        torch.save({'model': model.state_dict(), 'args': vars(args), 'stoi': stoi, 'itos': itos,
                    'iter': it, 'val_loss': val_loss}, fname)
        print('sample: ' + repr(sample()[:120]))
'''

# =============================================================================
# synthetic "public-domain-like" corpora (deterministic)
# =============================================================================
SPEAKERS = ["FIRST CITIZEN", "SECOND CITIZEN", "MENENIUS", "CORIOLANUS", "VOLUMNIA", "SICINIUS", "BRUTUS", "COMINIUS",
            "GLOUCESTER", "KING RICHARD", "QUEEN ELIZABETH", "BUCKINGHAM", "DUCHESS OF YORK", "ROMEO", "JULIET", "NURSE",
            "FRIAR LAURENCE", "MERCUTIO", "TYBALT", "CAPULET", "LADY CAPULET", "BENVOLIO", "ESCALUS", "PETRUCHIO", "KATHARINA"]
SUBJ = ["I", "thou", "he", "she", "we", "you", "they", "my lord", "the king", "your grace", "this gentleman", "the people",
        "my mother", "our city", "the duke", "good Sicinius", "the queen", "fair Juliet"]
VERB = ["speak", "hear", "know", "love", "fear", "serve", "think", "swear", "pray", "beseech", "bear", "leave", "follow",
        "call", "answer", "remember", "forgive", "kill", "bury", "crown"]
VERBS = ["speaks", "hears", "knows", "loves", "fears", "serves", "thinks", "swears", "prays", "bears", "leaves", "follows",
         "calls", "answers", "remembers", "forgives", "kills", "buries", "crowns"]
OBJ = ["me", "thee", "him", "her", "us", "them", "the senate", "the crown", "my heart", "his honour", "your patience",
       "the wars", "this city", "the tower", "the grave", "the morning", "my sword", "thy tongue", "the gods", "our quarrel"]
ADJ = ["noble", "gentle", "sweet", "cruel", "foul", "fair", "bloody", "honest", "proud", "poor", "dear", "mighty",
       "wretched", "worthy", "false", "true", "old", "young", "heavy", "merry"]
NOUN = ["lord", "lady", "heart", "soul", "blood", "night", "day", "death", "love", "grace", "tongue", "hand", "eyes",
        "name", "friend", "brother", "father", "son", "head", "world"]
ADV = ["now", "then", "here", "there", "soon", "well", "still", "yet", "indeed", "truly"]
OPEN = ["O", "Ay", "Nay", "Well", "Come", "Peace", "Alas", "Why", "Good", "Hark", "Fie", "Marry"]


def _clause(r):
    k = r.randrange(7)
    if k == 0: return f"{r.choice(SUBJ)} {r.choice(VERB)} {r.choice(OBJ)}"
    if k == 1: return f"the {r.choice(ADJ)} {r.choice(NOUN)} {r.choice(VERBS)} {r.choice(OBJ)}"
    if k == 2: return f"what {r.choice(NOUN)} is this"
    if k == 3: return f"let {r.choice(OBJ)} {r.choice(VERB)} {r.choice(ADV)}"
    if k == 4: return f"my {r.choice(ADJ)} {r.choice(NOUN)}"
    if k == 5: return f"{r.choice(SUBJ)} shall {r.choice(VERB)} {r.choice(OBJ)} {r.choice(ADV)}"
    return f"by my {r.choice(NOUN)}, {r.choice(SUBJ)} {r.choice(VERB)} not"


def _line(r):
    s = _clause(r)
    if r.random() < 0.35: s = f"{r.choice(OPEN)}, {s}"
    if r.random() < 0.4: s += r.choice([", and ", "; ", ", for ", ", but "]) + _clause(r)
    s = s[0].upper() + s[1:]
    return s + r.choice([".", ".", ".", "!", "?", ",", ":", ";"])


def play_text(n_chars, seed):
    r = random.Random(seed); out = []; total = 0
    while total < n_chars:
        sp = r.choice(SPEAKERS)
        blk = sp + ":\n" + "\n".join(_line(r) for _ in range(r.choice([1, 1, 2, 2, 3, 4, 5]))) + "\n\n"
        out.append(blk); total += len(blk)
    return "".join(out)[:n_chars]


NAMES = ["Tom", "Lily", "Ben", "Mia", "Sam", "Anna", "Max", "Sue", "Tim", "Lucy", "Jack", "Emma"]
ANIM = ["cat", "dog", "bird", "frog", "bunny", "duck", "bear", "fox", "fish", "mouse"]
PLACE = ["park", "garden", "forest", "house", "pond", "school", "beach", "farm", "hill", "river"]
THING = ["ball", "kite", "box", "hat", "cake", "toy", "book", "flower", "stone", "boat"]
FEEL = ["happy", "sad", "scared", "tired", "excited", "angry", "proud", "sleepy"]
ACT = ["play", "run", "jump", "swim", "dance", "sing", "read", "hide"]


def _story(r):
    n = r.choice(NAMES); a = r.choice(ANIM); p = r.choice(PLACE); t = r.choice(THING)
    s = [f"Once upon a time, there was a little {a} named {n}.", f"{n} liked to {r.choice(ACT)} in the {p}."]
    for _ in range(r.randint(1, 4)):
        k = r.randrange(5)
        if k == 0: s.append(f"One day, {n} found a {r.choice(['big', 'small', 'red', 'blue', 'shiny', 'old'])} {t}.")
        elif k == 1: s.append(f"{n} felt {r.choice(FEEL)} and wanted to {r.choice(ACT)}.")
        elif k == 2: s.append(f"\"Can I {r.choice(ACT)} with you?\" asked the {r.choice(ANIM)}.")
        elif k == 3: s.append(f"They went to the {r.choice(PLACE)} together.")
        else: s.append(f"The {t} was {r.choice(['very', 'so', 'too'])} {r.choice(['big', 'small', 'pretty', 'heavy', 'soft'])}.")
    s.append(f"In the end, {n} was {r.choice(FEEL)} and went home.")
    return " ".join(s) + "\n\n"


def stories_text(n_chars, seed):
    r = random.Random(seed); out = []; total = 0
    while total < n_chars:
        b = _story(r); out.append(b); total += len(b)
    return "".join(out)[:n_chars]


def names_text(n, seed, kind='fantasy'):
    r = random.Random(seed)
    if kind == 'fantasy':
        ons = ["b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kh", "l", "m", "n", "p", "r", "s", "sh",
               "st", "t", "th", "v", "w", "z", ""]
        nuc = ["a", "e", "i", "o", "u", "ae", "ai", "ei", "ou", "ia", "y"]
        cod = ["", "", "n", "r", "l", "s", "th", "nd", "rk", "m", "x"]
        out = []
        for _ in range(n):
            w = "".join(r.choice(ons) + r.choice(nuc) + r.choice(cod) for _ in range(r.choice([1, 2, 2, 3])))
            out.append(w.capitalize())
    else:  # made-up town names: one or two random syllables + an english-looking ending
        ons = ["b", "bl", "br", "c", "cr", "d", "dr", "f", "g", "gl", "h", "k", "l", "m", "n", "p", "pr", "qu", "r", "s",
               "sk", "sl", "st", "t", "tr", "v", "w", "wr", "y", "z"]
        nuc = ["a", "e", "i", "o", "u", "ea", "oo", "ay", "ow", "ie"]
        cod = ["", "", "", "n", "m", "l", "r", "s", "ck", "ng", "sh", "th", "x"]
        suf = ["ton", "ford", "by", "ham", "ley", "wick", "field", "worth", "stead", "mouth", "bridge", "minster",
               "thorpe", "well", "combe", "den", "hurst", " Green", " Cross", "-on-Sea", " Magna", " Parva"]
        seen = set(); out = []
        while len(out) < n:
            w = "".join(r.choice(ons) + r.choice(nuc) + r.choice(cod) for _ in range(r.choice([1, 1, 2]))) + r.choice(suf)
            w = w[0].upper() + w[1:]
            if w not in seen:
                seen.add(w); out.append(w)
    return "\n".join(out) + "\n"


def tables_text(n_chars, seed):
    r = random.Random(seed); out = []; total = 0
    while total < n_chars:
        a, b = r.randint(1, 12), r.randint(1, 12); op = r.choice(['x', '+'])
        s = f"{a} {op} {b} = {a * b if op == 'x' else a + b}\n"; out.append(s); total += len(s)
    return "".join(out)[:n_chars]


# =============================================================================
# helpers
# =============================================================================
import shlex


def variant(src, *pairs):
    """apply exact text edits to a template; every edit must match exactly once"""
    for a, b in pairs:
        assert src.count(a) == 1, 'edit does not match exactly once: ' + a[:80]
        src = src.replace(a, b)
    return src


def write(path, text):
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def new_ws(name):
    d = os.path.join(BUILD, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def sh(cwd, cmd):
    """run a user command line ('python train.py ...') in a workspace; returns combined stdout/stderr"""
    argv = shlex.split(cmd)
    assert argv[0] == 'python'
    argv[0] = PY
    print(f'  [{os.path.basename(cwd)}] $ {cmd}', flush=True)
    p = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(f'command failed ({p.returncode}) in {cwd}: {cmd}\n{p.stdout[-3000:]}')
    return p.stdout


def nanogpt_ws(name, train_py=None, sample_py=None):
    ws = new_ws(name)
    write(os.path.join(ws, 'model.py'), MODEL_PY)
    write(os.path.join(ws, 'configurator.py'), CONFIGURATOR_PY)
    write(os.path.join(ws, 'train.py'), train_py or TRAIN_PY)
    write(os.path.join(ws, 'sample.py'), sample_py or SAMPLE_PY)
    return ws


def add_dataset(ws, ds, text, prepare_py=None):
    write(os.path.join(ws, 'data', ds, 'input.txt'), text)
    write(os.path.join(ws, 'data', ds, 'prepare.py'), prepare_py or PREPARE_PY)
    return sh(ws, f'python data/{ds}/prepare.py')


def export(name, files):
    """files: {relative path in the run folder: text}"""
    out = os.path.join(RUNS, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for rel, text in files.items():
        write(os.path.join(out, rel), text)


def term(cmd, output):
    """what a user pastes from the terminal"""
    return f'$ {cmd}\n{output}'


# =============================================================================
# the runs
# =============================================================================

CHAR_CFG_HEAD = """# train a miniature character-level shakespeare model
# good for debugging and playing on macbooks and such

"""


def run01():
    """healthy: nanoGPT baby model on shakespeare-like char data, converges cleanly"""
    ws = nanogpt_ws('run01')
    prep = add_dataset(ws, 'shakespeare_char', play_text(300000, 1))
    cfg = CHAR_CFG_HEAD + """out_dir = 'out-shakespeare-char'
eval_interval = 100 # keep frequent because we'll overfit
eval_iters = 20
log_interval = 10 # don't print too too often

# we expect to overfit on this small dataset, so only save when val improves
always_save_checkpoint = False

dataset = 'shakespeare_char'
gradient_accumulation_steps = 1
batch_size = 16
block_size = 64 # context of up to 64 previous characters

# baby GPT model :)
n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0

learning_rate = 2e-3 # with baby networks can afford to go a bit higher
max_iters = 1500
lr_decay_iters = 1500 # make equal to max_iters usually
min_lr = 2e-4 # learning_rate / 10 usually
beta2 = 0.99 # make a bit bigger because number of tokens per iter is small

warmup_iters = 100 # not super necessary potentially
"""
    write(os.path.join(ws, 'config/train_shakespeare_char.py'), cfg)
    c1 = 'python train.py config/train_shakespeare_char.py --device=cpu --compile=False --dtype=float32'
    log = sh(ws, c1)
    c2 = 'python sample.py --out_dir=out-shakespeare-char --device=cpu --num_samples=2 --max_new_tokens=300'
    smp = sh(ws, c2)
    export('run01', {'config/train_shakespeare_char.py': cfg,
                     'prepare_output.txt': term('python data/shakespeare_char/prepare.py', prep),
                     'train_log.txt': term(c1, log),
                     'sample_output.txt': term(c2, smp)})
    return dict(truth='healthy',
                symptom="First nanoGPT run on my own char-level play data (CPU) - is this run ok, or should I be worried about anything?",
                how='none: stock nanoGPT loop, baby 2-layer GPT, lr 2e-3 with 100-iter warmup and cosine decay to 1500 iters')


def run02():
    """lr_schedule_bug: config written for a 250-iter smoke run (lr_decay_iters=250, min_lr=1e-5),
    then --max_iters=2000 on the command line; lr sits at 1e-5 for 1750 iterations"""
    ws = nanogpt_ws('run02')
    add_dataset(ws, 'stories_char', stories_text(200000, 2))
    cfg = """# tiny stories, char level
out_dir = 'out-stories-char'
eval_interval = 125
eval_iters = 20
log_interval = 25
always_save_checkpoint = False
csv_log = True

dataset = 'stories_char'
batch_size = 16
block_size = 64

n_layer = 2
n_head = 2
n_embd = 64
dropout = 0.0

learning_rate = 2e-3
max_iters = 250
lr_decay_iters = 250
min_lr = 1e-5
beta2 = 0.99
warmup_iters = 25
"""
    write(os.path.join(ws, 'config/train_stories_char.py'), cfg)
    c1 = 'python train.py config/train_stories_char.py --max_iters=2000 --device=cpu --compile=False'
    log = sh(ws, c1)
    export('run02', {'config/train_stories_char.py': cfg,
                     'train.py': TRAIN_PY,
                     'train_log.txt': term(c1, log),
                     'out-stories-char/log.csv': read(os.path.join(ws, 'out-stories-char/log.csv'))})
    return dict(truth='lr_schedule_bug',
                symptom="I went from max_iters=250 to 2000 to get a better model, but the loss basically stops improving after the first ~250 iterations; the extra 1750 iterations bought almost nothing.",
                how="config keeps lr_decay_iters=250 (and min_lr=1e-5) from a short smoke-test config while max_iters is raised to 2000 on the command line; get_lr returns min_lr=1e-5 for every iter > 250")


SAMPLE_FIXED_META = variant(SAMPLE_PY, (
    """seed = 1337
device = 'cpu'""",
    """seed = 1337
dataset = 'shakespeare_char'
device = 'cpu'"""), (
    """load_meta = False
if init_from == 'resume' and 'config' in checkpoint and 'dataset' in checkpoint['config']:
    meta_path = os.path.join('data', checkpoint['config']['dataset'], 'meta.pkl')
    load_meta = os.path.exists(meta_path)
""",
    """meta_path = os.path.join('data', dataset, 'meta.pkl')
load_meta = os.path.exists(meta_path)
"""))


def run03():
    """tokenizer_mismatch: healthy training on stories_char, sample.py decodes with data/shakespeare_char/meta.pkl"""
    ws = nanogpt_ws('run03', sample_py=SAMPLE_FIXED_META)
    add_dataset(ws, 'shakespeare_char', play_text(120000, 5))   # an older dataset still lying around
    add_dataset(ws, 'stories_char', stories_text(200000, 7))
    cfg = """out_dir = 'out-stories'
eval_interval = 100
eval_iters = 20
log_interval = 20
always_save_checkpoint = False

dataset = 'stories_char'
batch_size = 12
block_size = 64

n_layer = 2
n_head = 4
n_embd = 96
dropout = 0.1

learning_rate = 1e-3
max_iters = 1000
lr_decay_iters = 1000
min_lr = 1e-4
beta2 = 0.99
warmup_iters = 50
"""
    write(os.path.join(ws, 'config/train_stories.py'), cfg)
    c1 = 'python train.py config/train_stories.py --device=cpu --compile=False'
    log = sh(ws, c1)
    c2 = 'python sample.py --out_dir=out-stories --num_samples=3 --max_new_tokens=250'
    smp = sh(ws, c2)
    export('run03', {'config/train_stories.py': cfg,
                     'sample.py': SAMPLE_FIXED_META,
                     'logs/train.log': term(c1, log),
                     'logs/sample.log': term(c2, smp)})
    return dict(truth='tokenizer_mismatch',
                symptom="Training on my stories dataset looks great (val loss ~0.3), but every sample I get from sample.py is unreadable gibberish.",
                how="sample.py builds meta_path from its own default dataset='shakespeare_char' instead of the checkpoint's dataset, so ids from the stories_char vocab (41 chars) are decoded with the shakespeare_char itos (56 chars)")


def run04():
    """batch_size_too_small: char-rnn GRU with batch_size 1 x seq_length 16 at lr 4e-3"""
    ws = new_ws('run04')
    write(os.path.join(ws, 'char_rnn.py'), CHAR_RNN_PY)
    write(os.path.join(ws, 'data/tinyplays/input.txt'), play_text(200000, 71))
    c1 = ('python char_rnn.py --input data/tinyplays/input.txt --model gru --rnn_size 128 --num_layers 2 '
          '--seq_length 16 --batch_size 1 --learning_rate 4e-3 --max_iters 2000 --print_every 50 --eval_val_every 250')
    log = sh(ws, c1)
    export('run04', {'char_rnn.py': CHAR_RNN_PY, 'train_log.txt': term(c1, log)})
    return dict(truth='batch_size_too_small',
                symptom="My char-rnn loss jumps all over the place from one print to the next and val loss won't settle below ~1.1; other people's char-rnn runs on this kind of text look way smoother and lower.",
                how="--batch_size 1 with --seq_length 16 (16 tokens per update) at RMSprop lr 4e-3; each update is a very noisy gradient estimate")


def run05():
    """overfitting: minGPT chargpt on a 21k-char list of made-up names, no dropout, long run"""
    ws = new_ws('run05')
    write(os.path.join(ws, 'chargpt.py'), CHARGPT_PY)
    write(os.path.join(ws, 'data/names.txt'), names_text(1500, 11, 'fantasy'))
    c1 = ('python chargpt.py --data.input_file=data/names.txt --data.block_size=32 --model.model_type=None '
          '--model.n_layer=2 --model.n_head=4 --model.n_embd=96 --model.embd_pdrop=0.0 --model.resid_pdrop=0.0 '
          '--model.attn_pdrop=0.0 --trainer.batch_size=24 --trainer.learning_rate=3e-3 --trainer.weight_decay=0.0 '
          '--trainer.max_iters=1800 --trainer.log_every=50 --trainer.eval_every=100 --system.work_dir=out/names')
    log = sh(ws, c1)
    export('run05', {'train_log.txt': term(c1, log),
                     'out/names/config.json': read(os.path.join(ws, 'out/names/config.json'))})
    return dict(truth='overfitting',
                symptom="The first few hundred iterations look great, but after that test loss keeps going up while train loss keeps dropping.",
                how="2-layer/96-d GPT with all dropout 0 and weight_decay 0 trained 1800 iters (~90 passes over the data) on a 12k-character file of 1500 made-up names")


RESUME_TRAIN_PY = variant(TRAIN_PY, (
    """    iter_num = checkpoint['iter_num']
    best_val_loss = checkpoint['best_val_loss']
""",
    """    iter_num = checkpoint.get('iter_num', 0)
    best_val_loss = checkpoint.get('best_val_loss', 1e9)
"""), (
    """if init_from == 'resume':
    optimizer.load_state_dict(checkpoint['optimizer'])
""",
    """if init_from == 'resume' and 'optimizer' in checkpoint:
    optimizer.load_state_dict(checkpoint['optimizer'])
"""), (
    """                checkpoint = {
                    'model': raw_model.state_dict(),
                    'optimizer': optimizer.state_dict(),
                    'model_args': model_args,
                    'iter_num': iter_num,
                    'best_val_loss': best_val_loss,
                    'config': config,
                }
""",
    """                checkpoint = {
                    'model': raw_model.state_dict(),
                    'model_args': model_args,
                    'config': config,
                }
"""))


def run06():
    """resume_mismatch: checkpoints keep only the weights; resuming starts a fresh AdamW at iter 0"""
    ws = nanogpt_ws('run06', train_py=RESUME_TRAIN_PY)
    add_dataset(ws, 'plays_char', play_text(250000, 41))
    cfg = """out_dir = 'out-plays'
eval_interval = 50
eval_iters = 20
log_interval = 5
always_save_checkpoint = True
csv_log = True

dataset = 'plays_char'
batch_size = 16
block_size = 64

n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0

learning_rate = 2e-3
max_iters = 800
lr_decay_iters = 800
min_lr = 1e-4
beta2 = 0.99
warmup_iters = 0
"""
    write(os.path.join(ws, 'config/train_plays.py'), cfg)
    c1 = 'python train.py config/train_plays.py --device=cpu --compile=False'
    log1 = sh(ws, c1)
    c2 = 'python train.py config/train_plays.py --device=cpu --compile=False --init_from=resume --max_iters=1200'
    log2 = sh(ws, c2)
    export('run06', {'config/train_plays.py': cfg,
                     'train.py': RESUME_TRAIN_PY,
                     'logs/01_train.log': term(c1, log1),
                     'logs/02_resume.log': term(c2, log2),
                     'out-plays/log.csv': read(os.path.join(ws, 'out-plays/log.csv'))})
    return dict(truth='resume_mismatch',
                symptom="The first run ended at iter 800 with val loss ~1.00; I resumed with --init_from=resume --max_iters=1200 to train longer, but the loss spiked right after resuming and the first evals after the resume are worse than where I stopped.",
                how="the user's train.py saves checkpoints with only model weights/args/config (no optimizer, iter_num, best_val_loss); on resume AdamW starts with empty moments and iter_num falls back to 0, so the cosine schedule restarts at the peak lr 2e-3 (warmup_iters=0) instead of continuing at min_lr 1e-4")


UNSHUFFLED_CHARGPT_PY = variant(CHARGPT_PY, (
    """    def __len__(self):
        return len(self.data) - self.block_size

    def __getitem__(self, idx):
        # grab a chunk of (block_size + 1) characters from the data
        chunk = self.data[idx:idx + self.block_size + 1]
""",
    """    def __len__(self):
        return (len(self.data) - 1) // self.block_size

    def __getitem__(self, idx):
        # grab a chunk of (block_size + 1) characters from the data
        i = idx * self.block_size
        chunk = self.data[i:i + self.block_size + 1]
"""), (
    """    train_loader = DataLoader(
        train_dataset,
        sampler=RandomSampler(train_dataset, replacement=True, num_samples=int(1e10)),
        shuffle=False,
        pin_memory=False,
        batch_size=tc.batch_size,
        num_workers=0,
    )
""",
    """    train_loader = DataLoader(
        train_dataset,
        shuffle=False,
        pin_memory=False,
        batch_size=tc.batch_size,
        num_workers=0,
        drop_last=True,
    )
"""))


def run07():
    """data_not_shuffled: non-overlapping chunks read in file order from a file made of 4 different sources"""
    ws = new_ws('run07')
    write(os.path.join(ws, 'chargpt.py'), UNSHUFFLED_CHARGPT_PY)
    text = play_text(45000, 21) + stories_text(35000, 22) + names_text(2700, 23, 'fantasy') + tables_text(20000, 24)
    write(os.path.join(ws, 'data/mixed.txt'), text)
    c1 = ('python chargpt.py --data.input_file=data/mixed.txt --data.block_size=64 --model.model_type=gpt-pico '
          '--trainer.batch_size=16 --trainer.learning_rate=2e-3 --trainer.max_iters=600 --trainer.log_every=5 '
          '--trainer.eval_every=100 --system.work_dir=out/mixed')
    log = sh(ws, c1)
    export('run07', {'chargpt.py': UNSHUFFLED_CHARGPT_PY, 'train_log.txt': term(c1, log),
                     'out/mixed/config.json': read(os.path.join(ws, 'out/mixed/config.json'))})
    return dict(truth='data_not_shuffled',
                symptom="Train loss doesn't go down smoothly - it goes up and down in a repeating wave the whole run, and the test loss swings too.",
                how="CharDataset cut into non-overlapping block_size chunks and the DataLoader uses shuffle=False, so every batch is 16 consecutive chunks taken in file order from a file that concatenates plays, stories, a name list and arithmetic tables")


def run08():
    """healthy (noisy / slow but fine): char-rnn LSTM, batch 8, lr 1e-3, dropout"""
    ws = new_ws('run08')
    write(os.path.join(ws, 'char_rnn.py'), CHAR_RNN_PY)
    write(os.path.join(ws, 'data/plays/input.txt'), play_text(150000, 81))
    c1 = ('python char_rnn.py --input data/plays/input.txt --model lstm --rnn_size 128 --num_layers 1 --dropout 0.2 '
          '--seq_length 50 --batch_size 8 --learning_rate 1e-3 --max_iters 1500 --print_every 25 --eval_val_every 250')
    log = sh(ws, c1)
    export('run08', {'char_rnn.py': CHAR_RNN_PY, 'train_log.txt': term(c1, log)})
    return dict(truth='healthy',
                symptom="The loss bounces around quite a bit and it is slower than I hoped - is something wrong with this run?",
                how='none: 1-layer LSTM, batch 8 x 50 chars, RMSprop lr 1e-3, dropout 0.2, grad clip 5; noisy per-batch loss but val loss falls steadily')


def run09():
    """wrong_checkpoint: sample.py pointed at the 200-iter smoke-test out_dir instead of the long run's"""
    ws = nanogpt_ws('run09')
    add_dataset(ws, 'shakespeare_char', play_text(300000, 51))
    cfg = CHAR_CFG_HEAD + """out_dir = 'out-shakespeare-char'
eval_interval = 100
eval_iters = 20
log_interval = 10

always_save_checkpoint = False

dataset = 'shakespeare_char'
gradient_accumulation_steps = 1
batch_size = 16
block_size = 64

n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0

learning_rate = 2e-3
max_iters = 1500
lr_decay_iters = 1500
min_lr = 2e-4
beta2 = 0.99

warmup_iters = 100
"""
    write(os.path.join(ws, 'config/train_shakespeare_char.py'), cfg)
    c0 = 'python train.py config/train_shakespeare_char.py --device=cpu --compile=False --max_iters=200 --lr_decay_iters=200'
    sh(ws, c0)
    c1 = 'python train.py config/train_shakespeare_char.py --device=cpu --compile=False --out_dir=out-shakespeare-char-long'
    log = sh(ws, c1)
    c2 = 'python sample.py --out_dir=out-shakespeare-char --device=cpu --num_samples=3 --max_new_tokens=300'
    smp = sh(ws, c2)
    hist = '\n'.join(f'  {n}  {c}' for n, c in [
        (412, 'cd ~/src/nanoGPT'),
        (413, 'python data/shakespeare_char/prepare.py'),
        (414, c0),
        (415, 'ls out-shakespeare-char'),
        (416, 'git status'),
        (417, c1 + ' 2>&1 | tee train_long.log'),
        (418, c2 + ' 2>&1 | tee samples.txt'),
        (419, 'history | tail -8 > history.txt')]) + '\n'
    export('run09', {'config/train_shakespeare_char.py': cfg,
                     'history.txt': hist,
                     'train_long.log': log,
                     'samples.txt': smp})
    return dict(truth='wrong_checkpoint',
                symptom="Training got val loss down to ~0.65, but the samples look like a model that has barely learned anything - misspelled words, broken speaker names.",
                how="sample.py was run with --out_dir=out-shakespeare-char, which holds the 200-iteration smoke-test checkpoint; the 1500-iteration run saved to out-shakespeare-char-long")


NOZG_TRAIN_PY = variant(TRAIN_PY, (
    """running_mfu = -1.0
while True:
""",
    """running_mfu = -1.0
optimizer.zero_grad(set_to_none=True)
while True:
"""), (
    """    if grad_clip != 0.0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
""",
    """    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip if grad_clip != 0.0 else float('inf'))
    optimizer.step()
"""), (
    """print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")""",
    """print(f"iter {iter_num}: loss {lossf:.4f}, norm {norm.item():.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")"""))


def run10():
    """missing_zero_grad: zero_grad called once before the loop; with grad accumulation 4 and no clipping"""
    ws = nanogpt_ws('run10', train_py=NOZG_TRAIN_PY)
    add_dataset(ws, 'shakespeare_char', play_text(300000, 61))
    cfg = """out_dir = 'out-shakespeare-char-accum'
eval_interval = 100
eval_iters = 20
log_interval = 10
always_save_checkpoint = False

dataset = 'shakespeare_char'
gradient_accumulation_steps = 4
batch_size = 8
block_size = 64

n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0

learning_rate = 2e-3
max_iters = 500
lr_decay_iters = 500
min_lr = 2e-4
beta2 = 0.99
warmup_iters = 50
grad_clip = 0.0
"""
    write(os.path.join(ws, 'config/train_shakespeare_char_accum.py'), cfg)
    c1 = 'python train.py config/train_shakespeare_char_accum.py --device=cpu --compile=False'
    log = sh(ws, c1)
    export('run10', {'config/train_shakespeare_char_accum.py': cfg, 'train.py': NOZG_TRAIN_PY,
                     'train_log.txt': term(c1, log)})
    return dict(truth='missing_zero_grad',
                symptom="Since I switched to gradient accumulation (4 x 8) the loss drops for a few dozen iterations and then climbs back to where it started and never recovers; the grad norm I added to the log keeps growing.",
                how="optimizer.zero_grad() moved out of the training loop (called once before it), so .grad keeps summing over every micro-batch of every iteration; grad_clip=0.0 so nothing rescales it")


def run11():
    """lr_too_high: peak learning rate 0.2 for a baby GPT (AdamW)"""
    ws = nanogpt_ws('run11')
    add_dataset(ws, 'shakespeare_char', play_text(300000, 31))
    cfg = CHAR_CFG_HEAD + """out_dir = 'out-shakespeare-char'
eval_interval = 100 # keep frequent because we'll overfit
eval_iters = 20
log_interval = 10 # don't print too too often

# we expect to overfit on this small dataset, so only save when val improves
always_save_checkpoint = False

dataset = 'shakespeare_char'
gradient_accumulation_steps = 1
batch_size = 16
block_size = 64 # context of up to 64 previous characters

# baby GPT model :)
n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0

learning_rate = 2e-1 # with baby networks can afford to go a bit higher
max_iters = 800
lr_decay_iters = 800 # make equal to max_iters usually
min_lr = 2e-2 # learning_rate / 10 usually
beta2 = 0.99 # make a bit bigger because number of tokens per iter is small

warmup_iters = 100 # not super necessary potentially
"""
    write(os.path.join(ws, 'config/train_shakespeare_char.py'), cfg)
    c1 = 'python train.py config/train_shakespeare_char.py --device=cpu --compile=False'
    log = sh(ws, c1)
    c2 = 'python sample.py --out_dir=out-shakespeare-char --device=cpu --num_samples=2 --max_new_tokens=200'
    smp = sh(ws, c2)
    export('run11', {'config/train_shakespeare_char.py': cfg, 'train_log.txt': term(c1, log),
                     'sample_output.txt': term(c2, smp)})
    return dict(truth='lr_too_high',
                symptom="Loss drops nicely for the first ~100 iterations, then climbs back up and just bounces around at a bad value for the rest of the run.",
                how="learning_rate=2e-1 (about 100x the usual 1e-3..2e-3 for a baby GPT); warm-up to it over 100 iters, cosine decay only to 2e-2")


LEAKY_PREPARE_PY = variant(PREPARE_PY, (
    """train_data = data[:int(n*0.9)]
val_data = data[int(n*0.9):]""",
    """train_data = data
val_data = data[int(n*0.9):]"""))


def run12():
    """data_leakage: prepare.py trains on the whole file; val is its last 10%"""
    ws = nanogpt_ws('run12')
    prep = add_dataset(ws, 'towns_char', names_text(1400, 13, 'towns'), prepare_py=LEAKY_PREPARE_PY)
    cfg = """out_dir = 'out-towns'
eval_interval = 100
eval_iters = 20
log_interval = 20
always_save_checkpoint = False

dataset = 'towns_char'
batch_size = 24
block_size = 32

n_layer = 2
n_head = 4
n_embd = 96
dropout = 0.0
bias = True

learning_rate = 3e-3
max_iters = 1500
lr_decay_iters = 1500
min_lr = 3e-4
beta2 = 0.99
warmup_iters = 50
weight_decay = 0.0
"""
    write(os.path.join(ws, 'config/train_towns.py'), cfg)
    c1 = 'python train.py config/train_towns.py --device=cpu --compile=False'
    log = sh(ws, c1)
    c2 = 'python sample.py --out_dir=out-towns --device=cpu --num_samples=1 --max_new_tokens=400 --temperature=1.0'
    smp = sh(ws, c2)
    export('run12', {'config/train_towns.py': cfg,
                     'data/towns_char/prepare.py': LEAKY_PREPARE_PY,
                     'prepare_output.txt': term('python data/towns_char/prepare.py', prep),
                     'train_log.txt': term(c1, log),
                     'sample_output.txt': term(c2, smp)})
    return dict(truth='data_leakage',
                symptom="Val loss follows train loss all the way down to well under 1.0 on my town-names dataset - I've never seen val this good on names; can I trust it?",
                how="prepare.py sets train_data = data (the whole file) while val_data = data[int(n*0.9):], so every val character is also in train.bin; the model memorises the list and val 'improves' with it")


RUNS_ALL = dict(run01=run01, run02=run02, run03=run03, run04=run04, run05=run05, run06=run06,
                run07=run07, run08=run08, run09=run09, run10=run10, run11=run11, run12=run12)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    keep = '--keep' in sys.argv
    names = args or list(RUNS_ALL)
    os.makedirs(RUNS, exist_ok=True)
    truth_path = os.path.join(ROOT, 'truth.json')
    truth = json.load(open(truth_path)) if (args and os.path.exists(truth_path)) else {}
    for name in names:
        print(f'== {name}', flush=True)
        truth[name] = RUNS_ALL[name]()
    truth = {k: truth[k] for k in sorted(truth)}
    with open(truth_path, 'w') as f:
        json.dump(truth, f, indent=2)
        f.write('\n')
    if not keep:
        shutil.rmtree(BUILD, ignore_errors=True)
    print('wrote', truth_path)


if __name__ == '__main__':
    main()
