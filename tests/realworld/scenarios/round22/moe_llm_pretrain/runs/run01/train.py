import json
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
