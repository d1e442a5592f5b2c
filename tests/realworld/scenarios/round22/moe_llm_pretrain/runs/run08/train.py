import json
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
