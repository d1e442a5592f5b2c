#!/usr/bin/env python
"""Generator for the rlhf_dpo run folders (round 17).

Trains tiny word-level policies / reward models on a synthetic preference task
("answer on the prompt's topic, briefly") in plain torch on CPU, then runs one
user-style training script per run.  Every run folder only holds what a user
would hand over (logs, configs and, for about half the runs, train.py).

    python gen.py            # writes runs/ and truth.json next to this file
    python gen.py --keep     # keep the _work/ scratch folder (checkpoints, data)

Deterministic: all seeds are fixed; only wall-clock fields (runtime, samples/s)
differ between invocations.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "_work")
SHARED = os.path.join(WORK, "shared")
RUNS = os.path.join(HERE, "runs")
PY = sys.executable

# ----------------------------------------------------------------------------
# synthetic preference task
# ----------------------------------------------------------------------------
TOPICS = {
    "animals": ["cat", "dog", "fox", "owl", "bear"],
    "food": ["bread", "apple", "rice", "soup", "cake"],
    "weather": ["rain", "snow", "wind", "sun", "fog"],
    "tools": ["hammer", "saw", "drill", "nail", "glue"],
}
FILLER = ["um", "well", "so", "like", "just"]
W2T = {w: t for t, ws in TOPICS.items() for w in ws}
SPECIALS = ["<pad>", "<bos>", "<eos>", "<sep>"]
VOCAB_V2 = SPECIALS + [w for ws in TOPICS.values() for w in ws] + FILLER
VOCAB_V1 = SPECIALS + sorted([w for ws in TOPICS.values() for w in ws] + FILLER)


def gold(prompt, resp):
    """hidden ground-truth quality: on-topic, no filler, not rambling."""
    p, r = prompt.split(), resp.split()
    if not r:
        return -1.0
    t = Counter(W2T[w] for w in p).most_common(1)[0][0]
    on = sum(W2T.get(w) == t for w in r)
    fill = sum(w in FILLER for w in r)
    other = len(r) - on - fill
    return (on - 0.5 * other - 0.3 * fill) / len(r) - 0.15 * max(0, len(r) - 8)


def sample_prompt(rng):
    t = rng.choice(list(TOPICS))
    return t, " ".join(rng.choice(TOPICS[t]) for _ in range(3))


def sample_response(rng, t):
    kind = rng.choices(["on", "off", "mixed", "ramble"], [0.3, 0.3, 0.25, 0.15])[0]
    others = [o for o in TOPICS if o != t]
    if kind == "on":
        r = [rng.choice(TOPICS[t]) for _ in range(rng.randint(3, 6))]
        if rng.random() < 0.3:
            r.insert(rng.randrange(len(r) + 1), rng.choice(FILLER))
    elif kind == "off":
        o = rng.choice(others)
        r = [rng.choice(TOPICS[o]) for _ in range(rng.randint(3, 6))]
    elif kind == "mixed":
        o = rng.choice(others)
        r = [rng.choice(TOPICS[t] if rng.random() < 0.5 else TOPICS[o]) for _ in range(rng.randint(3, 7))]
    else:
        r = [rng.choice(FILLER) if rng.random() < 0.5 else rng.choice(TOPICS[rng.choice(list(TOPICS))])
             for _ in range(rng.randint(9, 16))]
    return " ".join(r)


def make_pairs(rng, n, noise):
    out = []
    while len(out) < n:
        t, p = sample_prompt(rng)
        a, b = sample_response(rng, t), sample_response(rng, t)
        ga, gb = gold(p, a), gold(p, b)
        if abs(ga - gb) < 0.05:
            continue
        c, r = (a, b) if ga > gb else (b, a)
        if rng.random() < noise:
            c, r = r, c
        out.append({"prompt": p, "chosen": c, "rejected": r})
    return out


def write_jsonl(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def tokenizer_json(vocab, version):
    return {"version": version, "type": "WordLevel", "vocab": {w: i for i, w in enumerate(vocab)},
            "pad_token": "<pad>", "bos_token": "<bos>", "eos_token": "<eos>", "sep_token": "<sep>"}


# ----------------------------------------------------------------------------
# code snippets shared by the user scripts (pasted verbatim into each train.py)
# ----------------------------------------------------------------------------
S_IMPORTS = r'''import argparse
import copy
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
'''

S_TOKENIZER = r'''

class WordTokenizer:
    """whitespace word-level tokenizer, vocab stored in tokenizer.json"""

    def __init__(self, path):
        with open(path) as f:
            cfg = json.load(f)
        self.vocab = cfg["vocab"]
        self.id_to_token = {i: t for t, i in self.vocab.items()}
        self.pad_token_id = self.vocab[cfg["pad_token"]]
        self.bos_token_id = self.vocab[cfg["bos_token"]]
        self.eos_token_id = self.vocab[cfg["eos_token"]]
        self.sep_token_id = self.vocab[cfg["sep_token"]]
        self.special_ids = {self.pad_token_id, self.bos_token_id, self.eos_token_id, self.sep_token_id}

    def __len__(self):
        return len(self.vocab)

    def encode(self, text):
        return [self.vocab[w] for w in text.split()]

    def decode(self, ids, skip_special_tokens=True):
        return " ".join(self.id_to_token[int(i)] for i in ids
                        if not (skip_special_tokens and int(i) in self.special_ids))
'''

S_GRU = r'''

class GRULM(nn.Module):
    def __init__(self, vocab_size, d_emb=32, d_hidden=96):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_emb)
        self.rnn = nn.GRU(d_emb, d_hidden, batch_first=True)
        self.lm_head = nn.Linear(d_hidden, vocab_size)

    def forward(self, input_ids, state=None):
        out, state = self.rnn(self.embed(input_ids), state)
        return self.lm_head(out), state
'''

S_GPT = r'''

class TinyGPT(nn.Module):
    def __init__(self, vocab_size, d_model=48, n_layer=2, n_head=2, max_len=40):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_head, 4 * d_model, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size)

    def forward(self, input_ids, state=None):
        T = input_ids.size(1)
        x = self.tok_emb(input_ids) + self.pos_emb(torch.arange(T))
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        x = self.blocks(x, mask=mask, is_causal=True)
        return self.lm_head(self.ln_f(x)), None
'''

S_LOAD_LM = r'''

def load_lm(path):
    with open(os.path.join(path, "config.json")) as f:
        cfg = json.load(f)
    if cfg["arch"] == "gru":
        model = GRULM(cfg["vocab_size"], cfg["d_emb"], cfg["d_hidden"])
    else:
        model = TinyGPT(cfg["vocab_size"], cfg["d_model"], cfg["n_layer"], cfg["n_head"], cfg["max_len"])
    model.load_state_dict(torch.load(os.path.join(path, "model.pt")))
    return model
'''

S_LOAD_GRU = r'''

def load_lm(path):
    with open(os.path.join(path, "config.json")) as f:
        cfg = json.load(f)
    model = GRULM(cfg["vocab_size"], cfg["d_emb"], cfg["d_hidden"])
    model.load_state_dict(torch.load(os.path.join(path, "model.pt")))
    return model
'''

S_RM = r'''

class GRURewardModel(nn.Module):
    """scores (prompt, response); value head on the last non-pad token"""

    def __init__(self, vocab_size, d_emb=32, d_hidden=96):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_emb)
        self.rnn = nn.GRU(d_emb, d_hidden, batch_first=True)
        self.score = nn.Linear(d_hidden, 1)

    def forward(self, input_ids, pad_token_id=0):
        out, _ = self.rnn(self.embed(input_ids))
        last = (input_ids != pad_token_id).sum(1) - 1
        return self.score(out[torch.arange(input_ids.size(0)), last]).squeeze(-1)


def encode_for_rm(tok, prompts, responses, max_length=32):
    seqs = []
    for p, r in zip(prompts, responses):
        s = [tok.bos_token_id] + tok.encode(p) + [tok.sep_token_id] + tok.encode(r)
        seqs.append(s[: max_length - 1] + [tok.eos_token_id])
    ids = torch.full((len(seqs), max(map(len, seqs))), tok.pad_token_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
    return ids
'''

S_LOAD_RM = r'''

def load_reward_model(path):
    with open(os.path.join(path, "config.json")) as f:
        cfg = json.load(f)
    rm = GRURewardModel(cfg["vocab_size"], cfg["d_emb"], cfg["d_hidden"])
    rm.load_state_dict(torch.load(os.path.join(path, "model.pt")))
    return rm.eval()
'''

S_PAIRS = r'''

def encode_side(tok, prompts, responses, max_length):
    """bos prompt sep response eos -> (inputs, targets, loss mask on response tokens)"""
    seqs, starts = [], []
    for p, r in zip(prompts, responses):
        ctx = [tok.bos_token_id] + tok.encode(p) + [tok.sep_token_id]
        seq = (ctx + tok.encode(r))[: max_length - 1] + [tok.eos_token_id]
        seqs.append(seq)
        starts.append(len(ctx))
    T = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), T), tok.pad_token_id, dtype=torch.long)
    mask = torch.zeros(len(seqs), T - 1)
    for i, (s, st) in enumerate(zip(seqs, starts)):
        ids[i, : len(s)] = torch.tensor(s)
        mask[i, st - 1 : len(s) - 1] = 1.0
    return ids[:, :-1], ids[:, 1:], mask
'''

S_LOGPS = r'''

def sequence_logps(model, inputs, targets, mask):
    logits, _ = model(inputs)
    logp = torch.log_softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return (logp * mask).sum(-1), logits
'''

S_LOGPS_PROD = r'''

def sequence_logps(model, inputs, targets, mask):
    logits, _ = model(inputs)
    probs = torch.softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    probs = torch.where(mask.bool(), probs, torch.ones_like(probs))
    return torch.log(probs.prod(dim=-1)), logits
'''

S_SCHED = r'''

def linear_warmup_decay(optimizer, num_warmup_steps, num_training_steps, kind="linear"):
    def f(step):
        if step < num_warmup_steps:
            return step / max(1, num_warmup_steps)
        progress = (step - num_warmup_steps) / max(1, num_training_steps - num_warmup_steps)
        if kind == "cosine":
            return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))
        if kind == "constant_with_warmup":
            return 1.0
        return max(0.0, 1.0 - progress)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)
'''

S_GENERATE = r'''

@torch.no_grad()
def generate(model, context, max_new_tokens, eos_token_id, pad_token_id, temperature=1.0):
    """sample continuations for a batch of equal-length contexts"""
    logits, state = model(context)
    last = logits[:, -1]
    B = context.size(0)
    out = torch.full((B, max_new_tokens), pad_token_id, dtype=torch.long)
    done = torch.zeros(B, dtype=torch.bool)
    for t in range(max_new_tokens):
        nxt = torch.multinomial(torch.softmax(last / temperature, -1), 1).squeeze(-1)
        nxt = torch.where(done, torch.full_like(nxt, pad_token_id), nxt)
        out[:, t] = nxt
        done |= nxt == eos_token_id
        if done.all():
            break
        logits, state = model(nxt.unsqueeze(1), state)
        last = logits[:, -1]
    return out


def response_mask(responses, eos_token_id):
    """1 up to and including the first eos (or the whole row if it never stops)"""
    mask = torch.zeros(responses.shape)
    lengths = []
    for i, row in enumerate(responses.tolist()):
        n = row.index(eos_token_id) + 1 if eos_token_id in row else len(row)
        mask[i, :n] = 1.0
        lengths.append(n)
    return mask, torch.tensor(lengths, dtype=torch.float)


def token_logps(model, inputs, targets):
    logits, _ = model(inputs)
    logp_all = torch.log_softmax(logits, -1)
    return logp_all.gather(-1, targets.unsqueeze(-1)).squeeze(-1), logp_all
'''

S_CRITIC = r'''

class GRUCritic(nn.Module):
    """per-token value head, initialised from the reward model weights"""

    def __init__(self, vocab_size, d_emb=32, d_hidden=96):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_emb)
        self.rnn = nn.GRU(d_emb, d_hidden, batch_first=True)
        self.score = nn.Linear(d_hidden, 1)

    def forward(self, input_ids):
        out, _ = self.rnn(self.embed(input_ids))
        return self.score(out).squeeze(-1)


def masked_mean(x, mask):
    return (x * mask).sum() / mask.sum().clamp(min=1.0)


def masked_whiten(x, mask, eps=1e-8):
    mean = masked_mean(x, mask)
    var = masked_mean((x - mean) ** 2, mask)
    return (x - mean) * torch.rsqrt(var + eps)


def compute_gae(rewards, values, mask, gamma=1.0, lam=0.95):
    T = rewards.size(1)
    adv = torch.zeros_like(rewards)
    last = torch.zeros(rewards.size(0))
    for t in reversed(range(T)):
        next_v = values[:, t + 1] * mask[:, t + 1] if t + 1 < T else torch.zeros(rewards.size(0))
        next_m = mask[:, t + 1] if t + 1 < T else torch.zeros(rewards.size(0))
        delta = rewards[:, t] + gamma * next_v - values[:, t]
        last = delta + gamma * lam * next_m * last
        adv[:, t] = last
    return adv * mask, (adv + values) * mask
'''


def script(*parts):
    return "".join(parts)


# ----------------------------------------------------------------------------
# DPO script (TRL-like trainer written by hand)
# ----------------------------------------------------------------------------
DPO_LOADER = r'''

def load_pairs(path, max_samples=None):
    with open(path) as f:
        rows = [json.loads(line) for line in f]
    return rows[:max_samples] if max_samples else rows
'''

DPO_LOADER_SPLIT = r'''

def load_pairs(prefix, max_samples=None):
    # annotation export: prompts and the labelled responses come as two files
    with open(prefix + "_prompts.jsonl") as f:
        prompts = [json.loads(line) for line in f]
    with open(prefix + "_responses.jsonl") as f:
        responses = [json.loads(line) for line in f]
    responses = sorted(responses, key=lambda r: r["pair_id"])
    rows = [{"prompt": p["prompt"], "chosen": r["chosen"], "rejected": r["rejected"]}
            for p, r in zip(prompts, responses)]
    return rows[:max_samples] if max_samples else rows
'''

DPO_MAIN = r'''

def fmt(k, v):
    if k == "learning_rate" or not isinstance(v, float) or not math.isfinite(v):
        return v
    return round(v, 4)


class DPOTrainerLite:
    def __init__(self, cfg, policy, ref_model, tok, train_rows, eval_rows):
        self.cfg, self.policy, self.ref, self.tok = cfg, policy, ref_model, tok
        self.train_rows, self.eval_rows = train_rows, eval_rows
        self.beta = cfg["beta"]
        self.optimizer = torch.optim.AdamW(self.policy.parameters(), lr=cfg["learning_rate"],
                                           betas=(cfg["adam_beta1"], cfg["adam_beta2"]),
                                           weight_decay=cfg["weight_decay"])
        bs = cfg["per_device_train_batch_size"] * cfg["gradient_accumulation_steps"]
        self.steps_per_epoch = math.ceil(len(train_rows) / bs)
        self.max_steps = self.steps_per_epoch * cfg["num_train_epochs"]
        warmup = int(cfg["warmup_ratio"] * self.max_steps)
        self.scheduler = linear_warmup_decay(self.optimizer, warmup, self.max_steps, cfg["lr_scheduler_type"])
        self.log_history = []

    def batch_metrics(self, rows):
        prompts = [r["prompt"] for r in rows]
        L = self.cfg["max_length"]
        ci, ct, cm = encode_side(self.tok, prompts, [r["chosen"] for r in rows], L)
        ri, rt, rm = encode_side(self.tok, prompts, [r["rejected"] for r in rows], L)
        pc, lc = sequence_logps(self.policy, ci, ct, cm)
        pr, lr_ = sequence_logps(self.policy, ri, rt, rm)
        with torch.no_grad():
            rc, _ = sequence_logps(self.ref, ci, ct, cm)
            rr, _ = sequence_logps(self.ref, ri, rt, rm)
        chosen_rewards = self.beta * (pc - rc)
        rejected_rewards = self.beta * (pr - rr)
        loss = -F.logsigmoid(chosen_rewards - rejected_rewards).mean()
        m = {
            "rewards/chosen": chosen_rewards.mean().item(),
            "rewards/rejected": rejected_rewards.mean().item(),
            "rewards/accuracies": (chosen_rewards > rejected_rewards).float().mean().item(),
            "rewards/margins": (chosen_rewards - rejected_rewards).mean().item(),
            "logps/chosen": pc.mean().item(),
            "logps/rejected": pr.mean().item(),
            "logits/chosen": (lc.mean(-1) * cm).sum().item() / cm.sum().item(),
            "logits/rejected": (lr_.mean(-1) * rm).sum().item() / rm.sum().item(),
        }
        return loss, m

    def log(self, logs, step):
        logs = {k: fmt(k, v) for k, v in logs.items()}
        print(logs, flush=True)
        self.log_history.append(dict(logs, step=step))

    @torch.no_grad()
    def evaluate(self, epoch, step):
        t0 = time.time()
        bs = self.cfg["per_device_eval_batch_size"]
        acc, losses = {}, []
        for i in range(0, len(self.eval_rows), bs):
            loss, m = self.batch_metrics(self.eval_rows[i : i + bs])
            losses.append(loss.item())
            for k, v in m.items():
                acc.setdefault(k, []).append(v)
        rt = time.time() - t0
        logs = {"eval_loss": sum(losses) / len(losses)}
        logs.update({"eval_" + k: sum(v) / len(v) for k, v in acc.items()})
        logs.update({"eval_runtime": rt, "eval_samples_per_second": len(self.eval_rows) / rt,
                     "eval_steps_per_second": len(losses) / rt, "epoch": epoch})
        self.log(logs, step)

    def train(self):
        cfg = self.cfg
        bs = cfg["per_device_train_batch_size"]
        n_params = sum(p.numel() for p in self.policy.parameters() if p.requires_grad)
        print("***** Running training *****")
        print(f"  Num examples = {len(self.train_rows)}")
        print(f"  Num Epochs = {cfg['num_train_epochs']}")
        print(f"  Instantaneous batch size per device = {bs}")
        print(f"  Gradient Accumulation steps = {cfg['gradient_accumulation_steps']}")
        print(f"  Total optimization steps = {self.max_steps}")
        print(f"  Number of trainable parameters = {n_params:,}", flush=True)
        rng = random.Random(cfg["seed"])
        step, window, t_start, tr_loss = 0, [], time.time(), []
        for epoch in range(cfg["num_train_epochs"]):
            order = list(range(len(self.train_rows)))
            rng.shuffle(order)
            for i in range(0, len(order), bs):
                rows = [self.train_rows[j] for j in order[i : i + bs]]
                self.policy.train()
                loss, m = self.batch_metrics(rows)
                loss.backward()
                grad_norm = torch.nn.utils.clip_grad_norm_(self.policy.parameters(), cfg["max_grad_norm"]).item()
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad()
                step += 1
                m["loss"] = loss.item()
                window.append(m)
                tr_loss.append(loss.item())
                if step % cfg["logging_steps"] == 0 or (step == 1 and cfg.get("logging_first_step")):
                    logs = {"loss": sum(w["loss"] for w in window) / len(window), "grad_norm": grad_norm,
                            "learning_rate": self.scheduler.get_last_lr()[0]}
                    for k in window[0]:
                        if k != "loss":
                            logs[k] = sum(w[k] for w in window) / len(window)
                    logs["epoch"] = step / self.steps_per_epoch
                    self.log(logs, step)
                    window = []
            if cfg["eval_strategy"] == "epoch":
                self.evaluate(float(epoch + 1), step)
        rt = time.time() - t_start
        self.log({"train_runtime": rt, "train_samples_per_second": len(self.train_rows) * cfg["num_train_epochs"] / rt,
                  "train_steps_per_second": step / rt, "train_loss": sum(tr_loss) / len(tr_loss),
                  "epoch": float(cfg["num_train_epochs"])}, step)
        state = {"best_metric": None, "best_model_checkpoint": None, "epoch": float(cfg["num_train_epochs"]),
                 "eval_steps": None, "global_step": step, "is_hyper_param_search": False,
                 "is_local_process_zero": True, "is_world_process_zero": True,
                 "log_history": self.log_history, "logging_steps": cfg["logging_steps"],
                 "max_steps": self.max_steps, "num_input_tokens_seen": 0,
                 "num_train_epochs": cfg["num_train_epochs"], "save_steps": 500,
                 "train_batch_size": bs, "trial_name": None, "trial_params": None}
        os.makedirs(cfg["output_dir"], exist_ok=True)
        with open(os.path.join(cfg["output_dir"], "trainer_state.json"), "w") as f:
            json.dump(state, f, indent=2)


def main():
    import yaml
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="dpo_config.yaml")
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    torch.manual_seed(cfg["seed"])
    random.seed(cfg["seed"])
    torch.set_num_threads(1)
    tok = WordTokenizer(os.path.join(cfg["model_name_or_path"], "tokenizer.json"))
    policy = load_lm(cfg["model_name_or_path"])
    ref_model = load_lm(cfg["ref_model_name_or_path"] or cfg["model_name_or_path"]).eval()
    for p in ref_model.parameters():
        p.requires_grad_(False)
    train_rows = load_pairs(cfg["train_file"], cfg.get("max_train_samples"))
    eval_rows = load_pairs(cfg["eval_file"], cfg.get("max_eval_samples"))
    print(f"loaded {len(train_rows)} train pairs, {len(eval_rows)} eval pairs", flush=True)
    trainer = DPOTrainerLite(cfg, policy, ref_model, tok, train_rows, eval_rows)
    trainer.train()
    torch.save(policy.state_dict(), os.path.join(cfg["output_dir"], "model.pt"))


if __name__ == "__main__":
    main()
'''


def dpo_config(**over):
    cfg = {
        "model_name_or_path": "checkpoints/sft-gru-v2",
        "ref_model_name_or_path": None,
        "train_file": "data/dpo_train.jsonl",
        "eval_file": "data/dpo_eval.jsonl",
        "output_dir": "outputs/dpo-gru",
        "beta": 0.1,
        "loss_type": "sigmoid",
        "learning_rate": 1.0e-3,
        "lr_scheduler_type": "cosine",
        "warmup_ratio": 0.1,
        "weight_decay": 0.0,
        "adam_beta1": 0.9,
        "adam_beta2": 0.999,
        "max_grad_norm": 1.0,
        "num_train_epochs": 3,
        "per_device_train_batch_size": 32,
        "per_device_eval_batch_size": 100,
        "gradient_accumulation_steps": 1,
        "max_length": 24,
        "max_prompt_length": 8,
        "logging_steps": 10,
        "logging_first_step": True,
        "eval_strategy": "epoch",
        "seed": 42,
        "bf16": False,
        "report_to": "none",
    }
    cfg.update(over)
    return cfg


# ----------------------------------------------------------------------------
# DPO custom loop (run09): metrics.jsonl every step, no trainer
# ----------------------------------------------------------------------------
DPO_CUSTOM = r'''

BETA = 0.1
LR = 1e-3
EPOCHS = 3
BATCH = 32
MAX_LEN = 24
SFT_DIR = "checkpoints/sft-gru-v2"


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def dpo_step(policy, ref, tok, rows):
    prompts = [r["prompt"] for r in rows]
    ci, ct, cm = encode_side(tok, prompts, [r["chosen"] for r in rows], MAX_LEN)
    ri, rt, rm = encode_side(tok, prompts, [r["rejected"] for r in rows], MAX_LEN)
    pc, _ = sequence_logps(policy, ci, ct, cm)
    pr, _ = sequence_logps(policy, ri, rt, rm)
    with torch.no_grad():
        rc, _ = sequence_logps(ref, ci, ct, cm)
        rr, _ = sequence_logps(ref, ri, rt, rm)
    cr, rj = BETA * (pc - rc), BETA * (pr - rr)
    loss = -F.logsigmoid(cr - rj).mean()
    stats = {"rewards/chosen": cr.mean().item(), "rewards/rejected": rj.mean().item(),
             "rewards/accuracies": (cr > rj).float().mean().item(), "rewards/margins": (cr - rj).mean().item(),
             "logps/chosen": pc.mean().item(), "logps/rejected": pr.mean().item()}
    return loss, stats


def main():
    torch.manual_seed(0)
    random.seed(0)
    torch.set_num_threads(1)
    tok = WordTokenizer(os.path.join(SFT_DIR, "tokenizer.json"))
    policy = load_lm(SFT_DIR)
    ref = copy.deepcopy(policy).eval()
    train = load_jsonl("data/dpo_train.jsonl")
    val = load_jsonl("data/dpo_eval.jsonl")
    opt = torch.optim.Adam(policy.parameters(), lr=LR)
    total = EPOCHS * math.ceil(len(train) / BATCH)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
    print(f"train={len(train)} val={len(val)} steps={total} beta={BETA} lr={LR}")
    step = 0
    log = open("metrics.jsonl", "w")
    for epoch in range(EPOCHS):
        random.shuffle(train)
        for i in range(0, len(train), BATCH):
            loss, stats = dpo_step(policy, ref, tok, train[i : i + BATCH])
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(policy.parameters(), 10.0).item()
            opt.step()
            sched.step()
            step += 1
            rec = {"step": step, "epoch": round(epoch + (i + BATCH) / len(train), 3), "loss": loss.item(),
                   "grad_norm": gn, "learning_rate": sched.get_last_lr()[0], **stats}
            log.write(json.dumps(rec) + "\n")
            log.flush()
            if step % 10 == 0:
                print(f"step {step:4d} | loss {loss.item():.4f} | acc {stats['rewards/accuracies']:.3f} | "
                      f"margin {stats['rewards/margins']:.3f} | logp_c {stats['logps/chosen']:.2f} | "
                      f"logp_r {stats['logps/rejected']:.2f} | gnorm {gn:.3f}", flush=True)
        with torch.no_grad():
            vals = [dpo_step(policy, ref, tok, val[j : j + 100]) for j in range(0, len(val), 100)]
        vl = sum(v[0].item() for v in vals) / len(vals)
        va = sum(v[1]["rewards/accuracies"] for v in vals) / len(vals)
        vm = sum(v[1]["rewards/margins"] for v in vals) / len(vals)
        print(f"== epoch {epoch} val_loss {vl:.4f} val_acc {va:.3f} val_margin {vm:.3f}", flush=True)
        log.write(json.dumps({"step": step, "epoch": epoch + 1, "val_loss": vl, "val_rewards/accuracies": va,
                              "val_rewards/margins": vm}) + "\n")
    log.close()
    torch.save(policy.state_dict(), "policy_dpo.pt")


if __name__ == "__main__":
    main()
'''

# ----------------------------------------------------------------------------
# reward model training: OpenRLHF-like (run04) and custom csv (run10)
# ----------------------------------------------------------------------------
RM_OPENRLHF = r'''

def load_jsonl(path, max_samples=None):
    with open(path) as f:
        rows = [json.loads(line) for line in f]
    return rows[-max_samples:] if max_samples else rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pretrain", default="checkpoints/sft-gru-v2")
    ap.add_argument("--dataset", default="data/prefs_rm.jsonl")
    ap.add_argument("--eval_dataset", default="data/prefs_rm.jsonl")
    ap.add_argument("--max_eval_samples", type=int, default=400)
    ap.add_argument("--save_path", default="./ckpt/rm_gru")
    ap.add_argument("--micro_train_batch_size", type=int, default=32)
    ap.add_argument("--train_batch_size", type=int, default=32)
    ap.add_argument("--max_epochs", type=int, default=18)
    ap.add_argument("--learning_rate", type=float, default=3e-3)
    ap.add_argument("--lr_warmup_ratio", type=float, default=0.03)
    ap.add_argument("--lr_scheduler", default="constant_with_warmup")
    ap.add_argument("--l2", type=float, default=0.0)
    ap.add_argument("--max_len", type=int, default=32)
    ap.add_argument("--d_hidden", type=int, default=128)
    ap.add_argument("--logging_steps", type=int, default=10)
    ap.add_argument("--eval_steps", type=int, default=-1)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--loss", default="sigmoid")
    args = ap.parse_args()
    print(args)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    torch.set_num_threads(1)
    tok = WordTokenizer(os.path.join(args.pretrain, "tokenizer.json"))
    model = GRURewardModel(len(tok), 32, args.d_hidden)
    train = load_jsonl(args.dataset)
    evals = load_jsonl(args.eval_dataset, args.max_eval_samples)
    print(f"[rank0] train dataset: {len(train)} pairs, eval dataset: {len(evals)} pairs")
    opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=args.l2, betas=(0.9, 0.95))
    steps_per_epoch = math.ceil(len(train) / args.train_batch_size)
    total = steps_per_epoch * args.max_epochs
    sched = linear_warmup_decay(opt, int(args.lr_warmup_ratio * total), total, args.lr_scheduler)
    eval_steps = args.eval_steps if args.eval_steps > 0 else steps_per_epoch

    def pair_scores(rows):
        P = [r["prompt"] for r in rows]
        c = model(encode_for_rm(tok, P, [r["chosen"] for r in rows], args.max_len))
        r = model(encode_for_rm(tok, P, [r["rejected"] for r in rows], args.max_len))
        return c, r

    def evaluate(gstep):
        model.eval()
        with torch.no_grad():
            losses, accs, rewards = [], [], []
            for i in range(0, len(evals), 100):
                c, r = pair_scores(evals[i : i + 100])
                losses.append(-F.logsigmoid(c - r).mean().item())
                accs.append((c > r).float().mean().item())
                rewards += c.tolist() + r.tolist()
        rw = torch.tensor(rewards)
        logs = {"eval_loss": sum(losses) / len(losses), "acc_mean": sum(accs) / len(accs),
                "reward_mean": rw.mean().item(), "reward_std": rw.std().item()}
        print(f"Eval stage of global_step {gstep}: " + str({k: round(v, 4) for k, v in logs.items()}), flush=True)
        model.train()

    gstep, loss_mean, acc_mean = 0, 0.0, 0.0
    for epoch in range(args.max_epochs):
        rng.shuffle(train)
        print(f"Train epoch [{epoch + 1}/{args.max_epochs}]", flush=True)
        for i in range(0, len(train), args.train_batch_size):
            c, r = pair_scores(train[i : i + args.train_batch_size])
            loss = -F.logsigmoid(c - r).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            gstep += 1
            acc = (c > r).float().mean().item()
            loss_mean = loss_mean * 0.9 + 0.1 * loss.item()
            acc_mean = acc_mean * 0.9 + 0.1 * acc
            if gstep % args.logging_steps == 0:
                logs = {"loss": loss.item(), "acc": acc, "chosen_reward": c.mean().item(),
                        "reject_reward": r.mean().item(), "loss_mean": loss_mean, "acc_mean": acc_mean,
                        "lr": sched.get_last_lr()[0]}
                print(f"global_step {gstep}: " + str({k: (round(v, 4) if k != "lr" else v) for k, v in logs.items()}),
                      flush=True)
            if gstep % eval_steps == 0:
                evaluate(gstep)
    os.makedirs(args.save_path, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(args.save_path, "model.pt"))
    print(f"Saving model checkpoint: {args.save_path}")


if __name__ == "__main__":
    main()
'''

RM_CUSTOM = r'''

def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def main():
    with open("rm_config.json") as f:
        cfg = json.load(f)
    torch.manual_seed(cfg["seed"])
    rng = random.Random(cfg["seed"])
    torch.set_num_threads(1)
    tok = WordTokenizer(cfg["tokenizer"])
    model = GRURewardModel(len(tok), cfg["d_emb"], cfg["d_hidden"])
    train = load_jsonl(cfg["train_file"])
    val = load_jsonl(cfg["val_file"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    steps_per_epoch = math.ceil(len(train) / cfg["batch_size"])
    total_steps = steps_per_epoch * cfg["epochs"]
    sched = linear_warmup_decay(opt, int(cfg["warmup_ratio"] * total_steps), total_steps, "cosine")
    out = open("metrics.csv", "w")
    out.write("epoch,step,lr,train_loss,train_acc,val_loss,val_acc,val_margin\n")
    step = 0
    for epoch in range(cfg["epochs"]):
        rng.shuffle(train)
        run_loss, run_acc, n = 0.0, 0.0, 0
        for i in range(0, len(train), cfg["batch_size"]):
            rows = train[i : i + cfg["batch_size"]]
            P = [r["prompt"] for r in rows]
            c = model(encode_for_rm(tok, P, [r["chosen"] for r in rows]))
            r = model(encode_for_rm(tok, P, [r["rejected"] for r in rows]))
            loss = -F.logsigmoid(c - r).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            run_loss += loss.item()
            run_acc += (c > r).float().mean().item()
            n += 1
            if step % cfg["log_every"] == 0:
                out.write(f"{epoch},{step},{sched.get_last_lr()[0]:.3e},{run_loss / n:.4f},{run_acc / n:.4f},,,\n")
                out.flush()
                print(f"ep {epoch} step {step} lr {sched.get_last_lr()[0]:.2e} loss {run_loss / n:.4f} "
                      f"acc {run_acc / n:.3f}", flush=True)
                run_loss, run_acc, n = 0.0, 0.0, 0
        sched.step()
        with torch.no_grad():
            P = [r["prompt"] for r in val]
            c = model(encode_for_rm(tok, P, [r["chosen"] for r in val]))
            r = model(encode_for_rm(tok, P, [r["rejected"] for r in val]))
            vl = -F.logsigmoid(c - r).mean().item()
            va = (c > r).float().mean().item()
            vm = (c - r).mean().item()
        out.write(f"{epoch},{step},{sched.get_last_lr()[0]:.3e},,,{vl:.4f},{va:.4f},{vm:.4f}\n")
        print(f"== epoch {epoch} done: val_loss {vl:.4f} val_acc {va:.3f} margin {vm:.3f}", flush=True)
    out.close()
    torch.save(model.state_dict(), "rm_final.pt")


if __name__ == "__main__":
    main()
'''

# ----------------------------------------------------------------------------
# PPO: rollout / update core shared by the three PPO scripts
# ----------------------------------------------------------------------------
S_PPO_CORE = r'''

def make_experience(actor, ref, critic, tok, prompts, cfg, score_fn):
    ctx = torch.tensor([[tok.bos_token_id] + tok.encode(p) + [tok.sep_token_id] for p in prompts])
    resp = generate(actor, ctx, cfg["max_new_tokens"], tok.eos_token_id, tok.pad_token_id, cfg["temperature"])
    rmask, lengths = response_mask(resp, tok.eos_token_id)
    seq = torch.cat([ctx, resp], 1)
    inputs, targets = seq[:, :-1], seq[:, 1:]
    B, Tc = ctx.shape
    mask = torch.cat([torch.zeros(B, Tc - 1), rmask], 1)
    with torch.no_grad():
        old_logp, _ = token_logps(actor, inputs, targets)
        ref_logp, _ = token_logps(ref, inputs, targets)
        values = critic(inputs) * mask
        scores = score_fn(seq, prompts, resp)
    kl = (old_logp - ref_logp) * mask
    rewards = -cfg["kl_coef"] * kl
    last = (Tc - 2 + lengths).long()
    rewards[torch.arange(B), last] += scores
    adv, returns = compute_gae(rewards, values, mask, cfg["gamma"], cfg["lam"])
    adv = masked_whiten(adv, mask) * mask
    return {"inputs": inputs, "targets": targets, "mask": mask, "old_logp": old_logp * mask, "values": values,
            "returns": returns, "adv": adv, "scores": scores, "kl": kl, "lengths": lengths, "resp": resp,
            "non_score": (-cfg["kl_coef"] * kl).sum(1), "prompts": prompts}


def ppo_update(actor, critic, exp, cfg, step_fn):
    B = exp["inputs"].size(0)
    stats = {k: [] for k in ["pg_loss", "vf_loss", "entropy", "clipfrac", "approxkl", "vf_clipfrac", "ratio"]}
    for _ in range(cfg["ppo_epochs"]):
        perm = torch.randperm(B)
        for j in range(0, B, cfg["mini_batch_size"]):
            idx = perm[j : j + cfg["mini_batch_size"]]
            m = exp["mask"][idx]
            logp, logp_all = token_logps(actor, exp["inputs"][idx], exp["targets"][idx])
            ratio = torch.exp((logp - exp["old_logp"][idx]) * m)
            adv = exp["adv"][idx]
            pg1 = -adv * ratio
            pg2 = -adv * ratio.clamp(1 - cfg["cliprange"], 1 + cfg["cliprange"])
            pg_loss = masked_mean(torch.max(pg1, pg2), m)
            v = critic(exp["inputs"][idx])
            v_old = exp["values"][idx]
            v_clip = v_old + (v - v_old).clamp(-cfg["cliprange_value"], cfg["cliprange_value"])
            vf1 = (v - exp["returns"][idx]) ** 2
            vf2 = (v_clip - exp["returns"][idx]) ** 2
            vf_loss = 0.5 * masked_mean(torch.max(vf1, vf2), m)
            step_fn(pg_loss, vf_loss)
            with torch.no_grad():
                stats["pg_loss"].append(pg_loss.item())
                stats["vf_loss"].append(vf_loss.item())
                stats["entropy"].append(masked_mean(-(logp_all.exp() * logp_all).sum(-1), m).item())
                stats["clipfrac"].append(masked_mean((pg2 > pg1).float(), m).item())
                stats["approxkl"].append(0.5 * masked_mean((logp - exp["old_logp"][idx]) ** 2, m).item())
                stats["vf_clipfrac"].append(masked_mean((vf2 > vf1).float(), m).item())
                stats["ratio"].append(masked_mean(ratio, m).item())
    return {k: sum(v) / len(v) for k, v in stats.items()}
'''

PPO_DSCHAT = r'''

def load_prompts(path):
    with open(path) as f:
        return [json.loads(line)["prompt"] for line in f]


def keyword_match(prompt, response, topics):
    # quick sanity metric: share of response words from the prompt's topic
    words = response.split()
    if not words:
        return 0.0
    word_topic = {w: t for t, ws in topics.items() for w in ws}
    counts = {}
    for w in prompt.split():
        counts[word_topic[w]] = counts.get(word_topic[w], 0) + 1
    topic = max(counts, key=counts.get)
    return sum(word_topic.get(w) == topic for w in words) / len(words)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--actor_model_name_or_path", required=True)
    ap.add_argument("--critic_model_name_or_path", required=True)
    ap.add_argument("--data_path", default="data/prompts_train.jsonl")
    ap.add_argument("--eval_data_path", default="data/prompts_eval.jsonl")
    ap.add_argument("--per_device_generation_batch_size", type=int, default=32)
    ap.add_argument("--per_device_training_batch_size", type=int, default=16)
    ap.add_argument("--generation_batches", type=int, default=1)
    ap.add_argument("--ppo_epochs", type=int, default=1)
    ap.add_argument("--max_answer_seq_len", type=int, default=20)
    ap.add_argument("--actor_learning_rate", type=float, default=1e-3)
    ap.add_argument("--critic_learning_rate", type=float, default=5e-4)
    ap.add_argument("--kl_ctl", type=float, default=0.1)
    ap.add_argument("--clip_reward_value", type=float, default=5.0)
    ap.add_argument("--num_train_steps", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--output_dir", default="./output_step3")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(1)
    print(f"[deepspeed-chat step3] args: {vars(args)}", flush=True)

    tokenizer = WordTokenizer(os.path.join(args.actor_model_name_or_path, "tokenizer.json"))
    actor = load_lm(args.actor_model_name_or_path)
    ref = copy.deepcopy(actor).eval()
    reward_model = load_reward_model(args.critic_model_name_or_path)
    critic = GRUCritic(len(tokenizer), 32, 96)
    critic.load_state_dict(reward_model.state_dict())
    actor_opt = torch.optim.AdamW(actor.parameters(), lr=args.actor_learning_rate, weight_decay=0.0)
    critic_opt = torch.optim.AdamW(critic.parameters(), lr=args.critic_learning_rate, weight_decay=0.0)
    with open("data/topics.json") as f:
        topics = json.load(f)
    prompts = load_prompts(args.data_path)
    eval_prompts = load_prompts(args.eval_data_path)[:200]
    cfg = {"max_new_tokens": args.max_answer_seq_len, "temperature": 1.0, "kl_coef": args.kl_ctl, "gamma": 1.0,
           "lam": 0.95, "ppo_epochs": args.ppo_epochs, "mini_batch_size": args.per_device_training_batch_size,
           "cliprange": 0.2, "cliprange_value": 0.2}

    def reward_fn(seq, batch_prompts, resp):
        with torch.no_grad():
            s = reward_model(seq, tokenizer.pad_token_id)
        return s.clamp(-args.clip_reward_value, args.clip_reward_value)

    def train_step(pg_loss, vf_loss):
        actor_opt.zero_grad()
        pg_loss.backward()
        torch.nn.utils.clip_grad_norm_(actor.parameters(), 1.0)
        actor_opt.step()
        critic_opt.zero_grad()
        vf_loss.backward()
        torch.nn.utils.clip_grad_norm_(critic.parameters(), 1.0)
        critic_opt.step()

    def run_eval(tag):
        texts, rw = [], []
        for i in range(0, len(eval_prompts), 50):
            batch = eval_prompts[i : i + 50]
            e = make_experience(actor, ref, critic, tokenizer, batch, cfg, reward_fn)
            texts += [tokenizer.decode(r) for r in e["resp"].tolist()]
            rw += e["scores"].tolist()
        km = sum(keyword_match(p, t, topics) for p, t in zip(eval_prompts, texts)) / len(texts)
        ln = sum(len(t.split()) for t in texts) / len(texts)
        print(f"[eval {tag}] prompts={len(eval_prompts)} avg_reward={sum(rw) / len(rw):.4f} "
              f"keyword_match={km:.3f} avg_words={ln:.2f}", flush=True)

    print("***** Running training *****", flush=True)
    run_eval("step 0")
    bs = args.per_device_generation_batch_size
    print(f"Beginning of Epoch 1/1, Total Generation Batches {args.num_train_steps}", flush=True)
    for step in range(args.num_train_steps):
        batch = [prompts[(step * bs + k) % len(prompts)] for k in range(bs)]
        exp = make_experience(actor, ref, critic, tokenizer, batch, cfg, reward_fn)
        st = ppo_update(actor, critic, exp, cfg, train_step)
        print(f"epoch: 0|step: {step}|ppo_ep: 1|act_loss: {st['pg_loss']}|cri_loss: {st['vf_loss']}|unsuper_loss: 0.0",
              flush=True)
        print(f"average reward score: {exp['scores'].mean().item()}", flush=True)
        print(f"kl: {exp['kl'].sum(1).mean().item():.4f} | entropy: {st['entropy']:.4f} | clipfrac: "
              f"{st['clipfrac']:.4f} | avg_resp_len: {exp['lengths'].mean().item():.2f}", flush=True)
        if step % 10 == 0:
            print(f"  sample: [{batch[0]}] -> [{tokenizer.decode(exp['resp'][0].tolist())}] "
                  f"reward={exp['scores'][0].item():.3f}", flush=True)
        print("-" * 85, flush=True)
        if (step + 1) % 20 == 0:
            run_eval(f"step {step + 1}")
    os.makedirs(args.output_dir, exist_ok=True)
    torch.save(actor.state_dict(), os.path.join(args.output_dir, "actor.pt"))
    print(f"saving model to {args.output_dir}", flush=True)


if __name__ == "__main__":
    main()
'''

PPO_TRL = r'''

def main():
    import yaml
    with open("ppo_config.yaml") as f:
        cfg = yaml.safe_load(f)
    torch.manual_seed(cfg["seed"])
    random.seed(cfg["seed"])
    torch.set_num_threads(1)
    tok = WordTokenizer(os.path.join(cfg["sft_model_path"], "tokenizer.json"))
    policy = load_lm(cfg["sft_model_path"])
    ref_policy = load_lm(cfg["sft_model_path"]).eval()
    reward_model = load_reward_model(cfg["reward_model_path"])
    value_model = GRUCritic(len(tok), 32, 96)
    value_model.load_state_dict(reward_model.state_dict())
    optimizer = torch.optim.AdamW(list(ref_policy.parameters()) + list(value_model.parameters()),
                                  lr=cfg["learning_rate"], eps=1e-5)
    with open(cfg["dataset"]) as f:
        prompts = [json.loads(line)["prompt"] for line in f]
    ecfg = {"max_new_tokens": cfg["response_length"], "temperature": cfg["temperature"], "kl_coef": cfg["kl_coef"],
            "gamma": cfg["gamma"], "lam": cfg["lam"], "ppo_epochs": cfg["num_ppo_epochs"],
            "mini_batch_size": cfg["local_mini_batch_size"], "cliprange": cfg["cliprange"],
            "cliprange_value": cfg["cliprange_value"]}

    def score_fn(seq, batch_prompts, resp):
        return reward_model(seq, tok.pad_token_id)

    def step_fn(pg_loss, vf_loss):
        loss = pg_loss + cfg["vf_coef"] * vf_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    bs = cfg["local_rollout_forward_batch_size"]
    n_updates = cfg["total_episodes"] // bs
    print(f"===training policy===  num_updates={n_updates} batch_size={bs}", flush=True)
    for update in range(1, n_updates + 1):
        batch = [prompts[((update - 1) * bs + k) % len(prompts)] for k in range(bs)]
        exp = make_experience(policy, ref_policy, value_model, tok, batch, ecfg, score_fn)
        st = ppo_update(policy, value_model, exp, ecfg, step_fn)
        if update % cfg["logging_steps"] == 0:
            neg_logp = -(exp["old_logp"] * exp["mask"]).sum(1)
            logs = {"eps": int(update * bs / (time.time() - T0)),
                    "objective/kl": exp["kl"].sum(1).mean().item(),
                    "objective/entropy": neg_logp.mean().item(),
                    "objective/non_score_reward": exp["non_score"].mean().item(),
                    "objective/rlhf_reward": (exp["scores"] + exp["non_score"]).mean().item(),
                    "objective/scores": exp["scores"].mean().item(),
                    "policy/approxkl_avg": st["approxkl"], "policy/clipfrac_avg": st["clipfrac"],
                    "loss/policy_avg": st["pg_loss"], "loss/value_avg": st["vf_loss"],
                    "val/clipfrac_avg": st["vf_clipfrac"], "policy/entropy_avg": st["entropy"],
                    "val/ratio": st["ratio"], "val/ratio_var": 0.0,
                    "val/num_eos_tokens": int((exp["resp"] == tok.eos_token_id).sum().item()),
                    "lr": cfg["learning_rate"], "episode": update * bs, "epoch": round(update * bs / len(prompts), 4)}
            print({k: (round(v, 6) if isinstance(v, float) else v) for k, v in logs.items()}, flush=True)
        if update % cfg["sample_every"] == 0:
            print("query | model response | score", flush=True)
            for k in range(3):
                print(f"{batch[k]} | {tok.decode(exp['resp'][k].tolist())} | {exp['scores'][k].item():.4f}", flush=True)


T0 = time.time()
if __name__ == "__main__":
    main()
'''

PPO_OPENRLHF = r'''

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pretrain", default="checkpoints/sft-gru-v2")
    ap.add_argument("--reward_pretrain", default="checkpoints/rm-gru-v2")
    ap.add_argument("--prompt_data", default="data/prompts_train.jsonl")
    ap.add_argument("--rollout_batch_size", type=int, default=32)
    ap.add_argument("--micro_train_batch_size", type=int, default=16)
    ap.add_argument("--max_epochs", type=int, default=2)
    ap.add_argument("--generate_max_len", type=int, default=24)
    ap.add_argument("--actor_learning_rate", type=float, default=1e-3)
    ap.add_argument("--critic_learning_rate", type=float, default=5e-4)
    ap.add_argument("--init_kl_coef", type=float, default=0.01)
    ap.add_argument("--length_bonus", type=float, default=0.5)
    ap.add_argument("--num_episodes", type=int, default=150)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    print(args, flush=True)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(1)
    tok = WordTokenizer(os.path.join(args.pretrain, "tokenizer.json"))
    actor = load_lm(args.pretrain)
    initial_model = copy.deepcopy(actor).eval()
    reward_model = load_reward_model(args.reward_pretrain)
    critic = GRUCritic(len(tok), 32, 96)
    critic.load_state_dict(reward_model.state_dict())
    actor_optim = torch.optim.Adam(actor.parameters(), lr=args.actor_learning_rate)
    critic_optim = torch.optim.Adam(critic.parameters(), lr=args.critic_learning_rate)
    with open(args.prompt_data) as f:
        prompts = [json.loads(line)["prompt"] for line in f]
    with open("data/topics.json") as f:
        filler = set(json.load(f)["_filler"])
    cfg = {"max_new_tokens": args.generate_max_len, "temperature": 1.0, "kl_coef": args.init_kl_coef, "gamma": 1.0,
           "lam": 0.95, "ppo_epochs": args.max_epochs, "mini_batch_size": args.micro_train_batch_size,
           "cliprange": 0.2, "cliprange_value": 0.2}

    def reward_fn(seq, batch_prompts, resp):
        # RM score + bonus for informative (non-filler) words so answers are not too terse
        with torch.no_grad():
            score = reward_model(seq, tok.pad_token_id)
        bonus = torch.tensor([sum(w not in filler for w in tok.decode(r).split()) for r in resp.tolist()],
                             dtype=torch.float)
        return score + args.length_bonus * bonus

    def train_step(pg_loss, vf_loss):
        actor_optim.zero_grad()
        pg_loss.backward()
        torch.nn.utils.clip_grad_norm_(actor.parameters(), 1.0)
        actor_optim.step()
        critic_optim.zero_grad()
        vf_loss.backward()
        torch.nn.utils.clip_grad_norm_(critic.parameters(), 1.0)
        critic_optim.step()

    samples = open("samples.jsonl", "w")
    bs = args.rollout_batch_size
    for ep in range(1, args.num_episodes + 1):
        batch = [prompts[((ep - 1) * bs + k) % len(prompts)] for k in range(bs)]
        exp = make_experience(actor, initial_model, critic, tok, batch, cfg, reward_fn)
        st = ppo_update(actor, critic, exp, cfg, train_step)
        ret = (exp["returns"] * exp["mask"]).sum(1) / exp["mask"].sum(1)
        vals = (exp["values"] * exp["mask"]).sum(1) / exp["mask"].sum(1)
        logs = {"policy_loss": st["pg_loss"], "kl": exp["kl"].sum(1).mean().item(), "reward": exp["scores"].mean().item(),
                "return": ret.mean().item(), "response_length": exp["lengths"].mean().item(),
                "total_length": exp["lengths"].mean().item() + 5, "entropy": st["entropy"], "clip_ratio": st["clipfrac"],
                "critic_loss": st["vf_loss"], "values": vals.mean().item(),
                "actor_lr": args.actor_learning_rate, "critic_lr": args.critic_learning_rate}
        print(f"Episode [{ep}/{args.num_episodes}] " + ", ".join(
            f"{k}={v:.4g}" for k, v in logs.items()), flush=True)
        if ep % 10 == 0 or ep == 1:
            for k in range(4):
                samples.write(json.dumps({"episode": ep, "prompt": batch[k],
                                          "response": tok.decode(exp["resp"][k].tolist()),
                                          "reward": round(exp["scores"][k].item(), 4)}) + "\n")
            samples.flush()
    samples.close()
    os.makedirs("ckpt/ppo_gru", exist_ok=True)
    torch.save(actor.state_dict(), "ckpt/ppo_gru/model.pt")


if __name__ == "__main__":
    main()
'''

# ----------------------------------------------------------------------------
# GRPO (run06), TRL GRPOTrainer-like logging
# ----------------------------------------------------------------------------
GRPO_MAIN = r'''

MODEL_DIR = "checkpoints/sft-gru-v2"
LEARNING_RATE = 2e-4
NUM_GENERATIONS = 6
PROMPTS_PER_STEP = 4
MAX_COMPLETION_LENGTH = 20
BETA = 0.04
MAX_STEPS = 200
LOGGING_STEPS = 2

with open("data/topics.json") as f:
    TOPICS = json.load(f)
FILLER = set(TOPICS.pop("_filler"))
WORD_TOPIC = {w: t for t, ws in TOPICS.items() for w in ws}


def topic_reward(prompt, completion, finished):
    words = completion.split()
    if not words:
        return -1.0
    counts = {}
    for w in prompt.split():
        counts[WORD_TOPIC[w]] = counts.get(WORD_TOPIC[w], 0) + 1
    topic = max(counts, key=counts.get)
    on = sum(WORD_TOPIC.get(w) == topic for w in words)
    fill = sum(w in FILLER for w in words)
    off = len(words) - on - fill
    return (on - 0.5 * off - 0.3 * fill) / len(words) - 0.15 * max(0, len(words) - 8)


def format_reward(prompt, completion, finished):
    return 0.0 if finished else -0.5


REWARD_FUNCS = [topic_reward, format_reward]


def main():
    torch.manual_seed(3407)
    random.seed(3407)
    torch.set_num_threads(1)
    tok = WordTokenizer(os.path.join(MODEL_DIR, "tokenizer.json"))
    model = load_lm(MODEL_DIR)
    ref_model = copy.deepcopy(model).eval()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.0)
    sched = linear_warmup_decay(optimizer, 0, MAX_STEPS, "linear")
    with open("data/prompts_train.jsonl") as f:
        prompts = [json.loads(line)["prompt"] for line in f]
    num_tokens, window, all_losses = 0, [], []
    for step in range(1, MAX_STEPS + 1):
        batch = random.sample(prompts, PROMPTS_PER_STEP)
        P = [p for p in batch for _ in range(NUM_GENERATIONS)]
        ctx = torch.tensor([[tok.bos_token_id] + tok.encode(p) + [tok.sep_token_id] for p in P])
        comp = generate(model, ctx, MAX_COMPLETION_LENGTH, tok.eos_token_id, tok.pad_token_id)
        cmask, lengths = response_mask(comp, tok.eos_token_id)
        finished = [tok.eos_token_id in row for row in comp.tolist()]
        texts = [tok.decode(row) for row in comp.tolist()]
        per_func = torch.tensor([[f(p, t, fin) for f in REWARD_FUNCS] for p, t, fin in zip(P, texts, finished)])
        rewards = per_func.sum(1)
        grouped = rewards.view(-1, NUM_GENERATIONS)
        std = grouped.std(1)
        adv = ((grouped - grouped.mean(1, keepdim=True)) / (std.unsqueeze(1) + 1e-4)).view(-1)
        seq = torch.cat([ctx, comp], 1)
        inputs, targets = seq[:, :-1], seq[:, 1:]
        mask = torch.cat([torch.zeros(len(P), ctx.size(1) - 1), cmask], 1)
        logp, logp_all = token_logps(model, inputs, targets)
        with torch.no_grad():
            ref_logp, _ = token_logps(ref_model, inputs, targets)
        per_token_kl = torch.exp(ref_logp - logp) - (ref_logp - logp) - 1
        per_token_loss = -(torch.exp(logp - logp.detach()) * adv.unsqueeze(1) - BETA * per_token_kl)
        loss = ((per_token_loss * mask).sum(1) / mask.sum(1)).mean()
        optimizer.zero_grad()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
        optimizer.step()
        sched.step()
        num_tokens += int(mask.sum().item() + len(P) * (ctx.size(1) - 1))
        with torch.no_grad():
            ent = ((-(logp_all.exp() * logp_all).sum(-1) * mask).sum() / mask.sum()).item()
            kl = ((per_token_kl * mask).sum() / mask.sum()).item()
        m = {"loss": loss.item(), "grad_norm": grad_norm,
             "completions/mean_length": lengths.mean().item(), "completions/min_length": lengths.min().item(),
             "completions/max_length": lengths.max().item(),
             "completions/clipped_ratio": 1.0 - sum(finished) / len(finished)}
        for k, f in enumerate(REWARD_FUNCS):
            m[f"rewards/{f.__name__}/mean"] = per_func[:, k].mean().item()
            m[f"rewards/{f.__name__}/std"] = per_func[:, k].std().item()
        m.update({"reward": rewards.mean().item(), "reward_std": std.mean().item(),
                  "frac_reward_zero_std": (std < 1e-6).float().mean().item(), "kl": kl, "entropy": ent,
                  "clip_ratio/region_mean": 0.0})
        window.append(m)
        all_losses.append(m["loss"])
        if step % LOGGING_STEPS == 0:
            logs = {k: sum(w[k] for w in window) / len(window) for k in window[0]}
            logs["grad_norm"] = grad_norm
            out = {"loss": logs.pop("loss"), "grad_norm": logs.pop("grad_norm"),
                   "learning_rate": sched.get_last_lr()[0], "num_tokens": float(num_tokens)}
            out.update(logs)
            out["epoch"] = round(step * PROMPTS_PER_STEP / len(prompts), 4)
            print({k: (round(v, 4) if isinstance(v, float) and k != "learning_rate" else v)
                   for k, v in out.items()}, flush=True)
            window = []
    torch.save(model.state_dict(), "grpo_final.pt")
    print({"train_runtime": round(time.time() - T0, 2), "train_loss": round(sum(all_losses) / len(all_losses), 6),
           "epoch": out["epoch"]})


T0 = time.time()
if __name__ == "__main__":
    main()
'''

# ----------------------------------------------------------------------------
# shared assets: data files and the checkpoints the runs start from
# ----------------------------------------------------------------------------
LIB = S_IMPORTS + S_TOKENIZER + S_GRU + S_GPT + S_LOAD_LM + S_RM + S_PAIRS + S_LOGPS


def build_shared():
    ns = {}
    exec(compile(LIB, "lib", "exec"), ns)
    torch, F = ns["torch"], ns["F"]
    torch.set_num_threads(1)
    data, ck = os.path.join(SHARED, "data"), os.path.join(SHARED, "checkpoints")
    os.makedirs(data, exist_ok=True)
    rng = random.Random(20240517)

    # ---- data ----
    with open(os.path.join(data, "topics.json"), "w") as f:
        json.dump(dict(TOPICS, _filler=FILLER), f, indent=1)
    dpo_train, dpo_eval = make_pairs(rng, 2000, 0.10), make_pairs(rng, 300, 0.10)
    write_jsonl(os.path.join(data, "dpo_train.jsonl"), dpo_train)
    write_jsonl(os.path.join(data, "dpo_eval.jsonl"), dpo_eval)
    for split, rows in [("train", dpo_train), ("eval", dpo_eval)]:
        write_jsonl(os.path.join(data, "annot_v3", f"{split}_prompts.jsonl"),
                    [{"pair_id": f"pair_{i}", "prompt": r["prompt"]} for i, r in enumerate(rows)])
        resp = [{"pair_id": f"pair_{i}", "chosen": r["chosen"], "rejected": r["rejected"],
                 "annotator": f"a{rng.randint(1, 9):02d}"} for i, r in enumerate(rows)]
        rng.shuffle(resp)
        write_jsonl(os.path.join(data, "annot_v3", f"{split}_responses.jsonl"), resp)
    write_jsonl(os.path.join(data, "prefs_rm.jsonl"), make_pairs(rng, 1600, 0.15))
    write_jsonl(os.path.join(data, "rm_train.jsonl"), make_pairs(rng, 3000, 0.05))
    write_jsonl(os.path.join(data, "rm_val.jsonl"), make_pairs(rng, 400, 0.05))
    write_jsonl(os.path.join(data, "prompts_train.jsonl"), [{"prompt": sample_prompt(rng)[1]} for _ in range(2000)])
    write_jsonl(os.path.join(data, "prompts_eval.jsonl"), [{"prompt": sample_prompt(rng)[1]} for _ in range(300)])
    sft_rows = []
    for _ in range(6000):
        t, p = sample_prompt(rng)
        sft_rows.append((p, sample_response(rng, t)))

    tok_v2, tok_v1 = tokenizer_json(VOCAB_V2, "v2"), tokenizer_json(VOCAB_V1, "v1")
    for name, tj in [("tok_v2.json", tok_v2), ("tok_v1.json", tok_v1)]:
        with open(os.path.join(WORK, name), "w") as f:
            json.dump(tj, f, indent=1)
    T2 = ns["WordTokenizer"](os.path.join(WORK, "tok_v2.json"))
    T1 = ns["WordTokenizer"](os.path.join(WORK, "tok_v1.json"))

    def save(model, path, cfg, tj):
        os.makedirs(path, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(path, "model.pt"))
        with open(os.path.join(path, "config.json"), "w") as f:
            json.dump(cfg, f, indent=1)
        with open(os.path.join(path, "tokenizer.json"), "w") as f:
            json.dump(tj, f, indent=1)

    # ---- SFT policies (GRU and tiny transformer) ----
    def sft(model, cfg, path, lr, early=None):
        torch.manual_seed(0)
        r = random.Random(0)
        rows = list(sft_rows)
        opt = torch.optim.AdamW(model.parameters(), lr, weight_decay=0.0)
        step = 0
        for ep in range(3):
            r.shuffle(rows)
            for i in range(0, len(rows), 64):
                b = rows[i : i + 64]
                inp, tgt, mask = ns["encode_side"](T2, [x[0] for x in b], [x[1] for x in b], 24)
                lp, _ = ns["sequence_logps"](model, inp, tgt, mask)
                loss = -(lp.sum() / mask.sum())
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if early and step == early:
                    save(model, os.path.join(path, f"checkpoint-{early}"), dict(cfg, step=early), tok_v2)
        print(f"  sft {os.path.basename(path)}: final token nll {loss.item():.3f}")
        save(model, path, dict(cfg, step=step), tok_v2)

    torch.manual_seed(0)
    gcfg = {"arch": "gru", "vocab_size": len(VOCAB_V2), "d_emb": 32, "d_hidden": 96, "tokenizer_version": "v2"}
    sft(ns["GRULM"](len(VOCAB_V2), 32, 96), gcfg, os.path.join(ck, "sft-gru-v2"), 3e-3, early=10)
    torch.manual_seed(1)
    tcfg = {"arch": "gpt", "vocab_size": len(VOCAB_V2), "d_model": 48, "n_layer": 2, "n_head": 2, "max_len": 40,
            "tokenizer_version": "v2"}
    sft(ns["TinyGPT"](len(VOCAB_V2), 48, 2, 2, 40), tcfg, os.path.join(ck, "sft-gpt-v2"), 2e-3)

    # ---- reward models (one per tokenizer version) ----
    rm_pairs = make_pairs(random.Random(77), 5000, 0.05)
    rm_test = make_pairs(random.Random(78), 500, 0.0)

    def train_rm(T, tj, path, version):
        torch.manual_seed(5)
        r = random.Random(5)
        m = ns["GRURewardModel"](len(T), 32, 96)
        opt = torch.optim.AdamW(m.parameters(), 3e-3)
        rows = list(rm_pairs)
        enc = ns["encode_for_rm"]
        for ep in range(6):
            r.shuffle(rows)
            for i in range(0, len(rows), 64):
                b = rows[i : i + 64]
                P = [x["prompt"] for x in b]
                c = m(enc(T, P, [x["chosen"] for x in b]))
                rj = m(enc(T, P, [x["rejected"] for x in b]))
                loss = -F.logsigmoid(c - rj).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        with torch.no_grad():
            P = [x["prompt"] for x in rm_test]
            acc = (m(enc(T, P, [x["chosen"] for x in rm_test])) > m(enc(T, P, [x["rejected"] for x in rm_test]))
                   ).float().mean().item()
        print(f"  rm {os.path.basename(path)}: clean test pair acc {acc:.3f}")
        save(m, path, {"arch": "gru_rm", "vocab_size": len(T), "d_emb": 32, "d_hidden": 96,
                       "tokenizer_version": version, "eval_pair_acc": round(acc, 4)}, tj)

    train_rm(T2, tok_v2, os.path.join(ck, "rm-gru-v2"), "v2")
    train_rm(T1, tok_v1, os.path.join(ck, "rm-gru-v1"), "v1")


# ----------------------------------------------------------------------------
# runs
# ----------------------------------------------------------------------------
DPO_SCRIPT = (S_IMPORTS + S_TOKENIZER + S_GRU + S_GPT + S_LOAD_LM + S_PAIRS + S_LOGPS + S_SCHED + DPO_LOADER
              + DPO_MAIN)
PPO_LIB = S_IMPORTS + S_TOKENIZER + S_GRU + S_LOAD_GRU + S_RM + S_LOAD_RM + S_GENERATE + S_CRITIC + S_PPO_CORE


def yaml_dump(cfg):
    import yaml
    return yaml.safe_dump(cfg, sort_keys=False)


RUN_SPECS = [
    dict(name="run01", truth="healthy", ship=True,
         script=DPO_SCRIPT,
         files={"dpo_config.yaml": yaml_dump(dpo_config(output_dir="outputs/dpo-gru-v2"))},
         cmd=["train.py", "--config", "dpo_config.yaml"],
         collect={"dpo_config.yaml": "dpo_config.yaml", "outputs/dpo-gru-v2/trainer_state.json": "trainer_state.json"},
         symptom="First DPO run on our GRU SFT model - is this run ok? Just want a sanity check before scaling up.",
         how="No fault: beta 0.1, lr 1e-3 AdamW with 10% warm-up + cosine, batch 32, 3 epochs on 2000 pairs with "
             "10% annotator noise."),
    dict(name="run02", truth="tokenizer_mismatch", ship=True,
         script=PPO_LIB + PPO_DSCHAT,
         files={"run_step3.sh": "#!/bin/bash\n# step 3 (RLHF) on top of our SFT actor and reward model\n"
                "python train.py \\\n  --actor_model_name_or_path checkpoints/sft-gru-v2 \\\n"
                "  --critic_model_name_or_path checkpoints/rm-gru-v1 \\\n  --data_path data/prompts_train.jsonl \\\n"
                "  --per_device_generation_batch_size 32 --per_device_training_batch_size 16 \\\n"
                "  --actor_learning_rate 1e-3 --critic_learning_rate 5e-4 --kl_ctl 0.1 \\\n"
                "  --max_answer_seq_len 20 --num_train_steps 140 --seed 1234 \\\n  --output_dir ./output_step3 2>&1 | tee train.log\n"},
         cmd=["train.py", "--actor_model_name_or_path", "checkpoints/sft-gru-v2", "--critic_model_name_or_path",
              "checkpoints/rm-gru-v1", "--data_path", "data/prompts_train.jsonl",
              "--per_device_generation_batch_size", "32", "--per_device_training_batch_size", "16",
              "--actor_learning_rate", "1e-3", "--critic_learning_rate", "5e-4", "--kl_ctl", "0.1",
              "--max_answer_seq_len", "20", "--num_train_steps", "140", "--seed", "1234", "--output_dir",
              "./output_step3"],
         collect={"run_step3.sh": "run_step3.sh", "@ckpt:sft-gru-v2/config.json": "configs/actor_config.json",
                  "@ckpt:sft-gru-v2/tokenizer.json": "configs/actor_tokenizer.json",
                  "@ckpt:rm-gru-v1/config.json": "configs/reward_model_config.json",
                  "@ckpt:rm-gru-v1/tokenizer.json": "configs/reward_model_tokenizer.json"},
         symptom="PPO step 3: the average reward score climbs steadily, but our keyword check on held-out prompts "
                 "barely improves and drops back by the end, and some high-reward samples are plainly off-topic. "
                 "Why isn't the reward translating into better answers?",
         how="The reward model (and the critic initialised from it) was trained with tokenizer v1 (alphabetical "
             "word ids); the PPO script tokenises with the actor's v2 tokenizer and feeds those ids straight to the "
             "RM, so the RM scores a permuted text. Reward rises while the true topic-match falls."),
    dict(name="run03", truth="frozen_parameters", ship=False,
         script=PPO_LIB + PPO_TRL,
         files={"ppo_config.yaml": yaml_dump({
             "exp_name": "ppo_tldr_gru", "sft_model_path": "checkpoints/sft-gru-v2",
             "reward_model_path": "checkpoints/rm-gru-v2", "dataset": "data/prompts_train.jsonl",
             "learning_rate": 5e-4, "total_episodes": 2560, "local_rollout_forward_batch_size": 32,
             "local_mini_batch_size": 16, "num_ppo_epochs": 2, "response_length": 20, "temperature": 1.0,
             "kl_coef": 0.05, "gamma": 1.0, "lam": 0.95, "cliprange": 0.2, "cliprange_value": 0.2, "vf_coef": 0.1,
             "logging_steps": 1, "sample_every": 20, "seed": 7})},
         cmd=["train.py"],
         collect={"ppo_config.yaml": "ppo_config.yaml"},
         symptom="PPO with the TRL-style loop: objective/scores just wanders around the same value for 80 updates "
                 "and kl is 0.0 the whole time, even though value loss goes down. What am I missing?",
         how="The AdamW optimizer is built over ref_policy.parameters() + value_model.parameters() instead of the "
             "policy's, so the policy never changes: kl, approxkl and clipfrac stay exactly 0, ratio exactly 1, "
             "scores flat; only the value head learns."),
    dict(name="run04", truth="data_leakage", ship=False,
         script=S_IMPORTS + S_TOKENIZER + S_RM + S_SCHED + RM_OPENRLHF,
         files={"train_rm.sh": "#!/bin/bash\npython train.py \\\n  --pretrain checkpoints/sft-gru-v2 \\\n"
                "  --dataset data/prefs_rm.jsonl \\\n  --eval_dataset data/prefs_rm.jsonl --max_eval_samples 400 \\\n"
                "  --save_path ./ckpt/rm_gru --train_batch_size 32 --micro_train_batch_size 32 \\\n"
                "  --max_epochs 18 --learning_rate 3e-3 --d_hidden 128 --logging_steps 10 2>&1 | tee train.log\n"},
         cmd=["train.py", "--pretrain", "checkpoints/sft-gru-v2", "--dataset", "data/prefs_rm.jsonl",
              "--eval_dataset", "data/prefs_rm.jsonl", "--max_eval_samples", "400", "--save_path", "./ckpt/rm_gru",
              "--train_batch_size", "32", "--micro_train_batch_size", "32", "--max_epochs", "18",
              "--learning_rate", "3e-3", "--d_hidden", "128", "--logging_steps", "10"],
         collect={"train_rm.sh": "train_rm.sh"},
         symptom="Reward model eval accuracy goes to ~1.0 and stays right with (even above) train accuracy, but on "
                 "a fresh batch of labelled pairs it only gets about 70%. Which number should I trust?",
         how="--eval_dataset points at the training file; the 400 eval pairs are the last 400 of the 1600 training "
             "pairs (15% label noise), so eval accuracy tracks memorisation of the training set up to 1.0 while a "
             "fresh held-out set scores ~0.7."),
    dict(name="run05", truth="lr_too_high", ship=False,
         script=DPO_SCRIPT,
         files={"dpo_config.yaml": yaml_dump(dpo_config(
             model_name_or_path="checkpoints/sft-gpt-v2", output_dir="outputs/dpo-tinygpt", learning_rate=1.0e-1,
             lr_scheduler_type="constant_with_warmup", warmup_ratio=0.05, logging_steps=5, num_train_epochs=2, seed=3))},
         cmd=["train.py", "--config", "dpo_config.yaml"],
         collect={"dpo_config.yaml": "dpo_config.yaml", "outputs/dpo-tinygpt/trainer_state.json": "trainer_state.json"},
         symptom="DPO on the tiny transformer: loss goes down for the first few logs and then climbs above 0.69 and "
                 "jumps around, and the log-probs of both chosen and rejected keep collapsing.",
         how="learning_rate 1e-1 (constant after a 5% warm-up) for AdamW on the tiny transformer policy; the healthy "
             "runs use 1e-3 / 5e-4."),
    dict(name="run06", truth="healthy", ship=True,
         script=S_IMPORTS + S_TOKENIZER + S_GRU + S_LOAD_GRU + S_SCHED + S_GENERATE + GRPO_MAIN,
         files={}, cmd=["train.py"], collect={},
         symptom="GRPO with a rule-based reward: reward is really noisy step to step and climbs slowly. Is this ok "
                 "or is something broken?",
         how="No fault: GRPO, 4 prompts x 6 generations per step, lr 2e-4 linear decay, beta 0.04, 200 steps; "
             "small groups make the reward noisy, but it trends up and kl grows slowly."),
    dict(name="run07", truth="wrong_checkpoint", ship=False,
         script=DPO_SCRIPT,
         files={"dpo_config.yaml": yaml_dump(dpo_config(
             ref_model_name_or_path="checkpoints/sft-gru-v2/checkpoint-10", output_dir="outputs/dpo-gru-v2-b",
             beta=0.5, learning_rate=5.0e-4, seed=11))},
         cmd=["train.py", "--config", "dpo_config.yaml"],
         collect={"dpo_config.yaml": "dpo_config.yaml", "outputs/dpo-gru-v2-b/trainer_state.json": "trainer_state.json"},
         symptom="rewards/chosen and rewards/rejected are already large and positive at the very first logged step, "
                 "before the policy has moved. Is my DPO setup right?",
         how="ref_model_name_or_path points at an early SFT checkpoint (checkpoint-10, 10 steps into SFT) instead "
             "of the final SFT weights the policy starts from, so policy/ref log-ratios are large from step 1."),
    dict(name="run08", truth="mode_collapse", ship=True,
         script=PPO_LIB + PPO_OPENRLHF,
         files={"train_ppo.sh": "#!/bin/bash\npython train.py \\\n  --pretrain checkpoints/sft-gru-v2 \\\n"
                "  --reward_pretrain checkpoints/rm-gru-v2 \\\n  --prompt_data data/prompts_train.jsonl \\\n"
                "  --rollout_batch_size 32 --micro_train_batch_size 16 --max_epochs 2 \\\n"
                "  --generate_max_len 24 --actor_learning_rate 1e-3 --critic_learning_rate 5e-4 \\\n"
                "  --init_kl_coef 0.01 --length_bonus 0.5 --num_episodes 150 2>&1 | tee train.log\n"},
         cmd=["train.py"],
         collect={"train_ppo.sh": "train_ppo.sh", "samples.jsonl": "samples.jsonl"},
         symptom="PPO reward keeps going up, but response_length shoots to the max and the samples are the same "
                 "word over and over. What happened?",
         how="Reward hacking: the reward is RM score + 0.5 per non-filler word, unnormalised by length, so the "
             "policy maximises length by repeating one on-topic word (entropy 2.5 -> ~0.6, kl ~80, length pinned at the 24-token max, reward 1.9 -> 14)."),
    dict(name="run09", truth="numerical_instability", ship=True,
         script=S_IMPORTS + S_TOKENIZER + S_GRU + S_LOAD_GRU + S_PAIRS + S_LOGPS_PROD + DPO_CUSTOM,
         files={}, cmd=["train.py"], collect={"metrics.jsonl": "metrics.jsonl"},
         symptom="My DPO loop trains fine for a while and then everything turns into nan. Same data works with our "
                 "other DPO script.",
         how="sequence_logps computes log(prod of token probabilities) instead of summing log_softmax: once a "
             "sequence's probability product underflows float32 (denormal/zero, log-prob below ~-87), the backward "
             "of log(prod) overflows; at step 70 the loss is still finite but grad_norm is NaN, and every later step "
             "and both later evals are NaN."),
    dict(name="run10", truth="lr_schedule_bug", ship=False,
         script=S_IMPORTS + S_TOKENIZER + S_RM + S_SCHED + RM_CUSTOM,
         files={"rm_config.json": json.dumps({
             "tokenizer": "checkpoints/sft-gru-v2/tokenizer.json", "train_file": "data/rm_train.jsonl",
             "val_file": "data/rm_val.jsonl", "d_emb": 32, "d_hidden": 96, "lr": 3e-3, "weight_decay": 0.01,
             "scheduler": "cosine", "warmup_ratio": 0.05, "epochs": 6, "batch_size": 32, "log_every": 10,
             "seed": 17}, indent=2) + "\n"},
         cmd=["train.py"],
         collect={"rm_config.json": "rm_config.json", "metrics.csv": "metrics.csv"},
         symptom="Reward model barely learns: the loss sits at 0.693 for the whole first epoch and val accuracy is "
                 "still poor after 6 epochs, although the same architecture trained fine last week.",
         how="scheduler.step() is called once per epoch while the warm-up/cosine schedule is defined in optimizer "
             "steps (warm-up = 28 steps), so lr is 0 in epoch 0 and only k/28 of the peak in epoch k."),
    dict(name="run11", truth="optimizer_misconfigured", ship=False,
         script=DPO_SCRIPT,
         files={"dpo_config.yaml": yaml_dump(dpo_config(beta=0.001, output_dir="outputs/dpo-gru-v2-c", seed=5,
                                                        num_train_epochs=4, logging_steps=8))},
         cmd=["train.py", "--config", "dpo_config.yaml"],
         collect={"dpo_config.yaml": "dpo_config.yaml", "outputs/dpo-gru-v2-c/trainer_state.json": "trainer_state.json"},
         symptom="DPO loss hardly moves from 0.69 and the rewards are tiny, yet logps/chosen and logps/rejected both "
                 "fall off a cliff and generations got worse. Is the model even learning?",
         how="beta = 0.001 (100x smaller than intended 0.1): the implicit KL anchor is gone, the loss is nearly "
             "linear in the log-ratio and AdamW pushes the policy far from the reference; logps dive, loss stays "
             "near ln 2."),
    dict(name="run12", truth="label_misalignment", ship=True,
         script=(S_IMPORTS + S_TOKENIZER + S_GRU + S_GPT + S_LOAD_LM + S_PAIRS + S_LOGPS + S_SCHED + DPO_LOADER_SPLIT
                 + DPO_MAIN),
         files={"dpo_config.yaml": yaml_dump(dpo_config(
             model_name_or_path="checkpoints/sft-gpt-v2", train_file="data/annot_v3/train",
             eval_file="data/annot_v3/eval", output_dir="outputs/dpo-tinygpt-annot-v3", learning_rate=5.0e-4,
             seed=21))},
         cmd=["train.py", "--config", "dpo_config.yaml"],
         collect={"dpo_config.yaml": "dpo_config.yaml",
                  "outputs/dpo-tinygpt-annot-v3/trainer_state.json": "trainer_state.json"},
         symptom="DPO on the new annotation batch (v3): eval reward accuracy is stuck around 0.55 and eval loss "
                 "does not improve over 3 epochs, while train accuracy creeps up. With our older data the same "
                 "setup reached ~0.8+ eval accuracy.",
         how="The loader sorts the responses file by the string pair_id ('pair_10' < 'pair_2') and zips it with the "
             "prompts in numeric order, so chosen/rejected are attached to the wrong prompts (train and eval)."),
]


def run_one(spec):
    wd = os.path.join(WORK, spec["name"])
    if os.path.exists(wd):
        shutil.rmtree(wd)
    os.makedirs(wd)
    for sub in ("data", "checkpoints"):
        os.symlink(os.path.join(SHARED, sub), os.path.join(wd, sub))
    with open(os.path.join(wd, "train.py"), "w") as f:
        f.write(spec["script"].lstrip())
    for fn, content in spec["files"].items():
        with open(os.path.join(wd, fn), "w") as f:
            f.write(content)
    t0 = time.time()
    with open(os.path.join(wd, "train.log"), "w") as log:
        rc = subprocess.call([PY] + spec["cmd"], cwd=wd, stdout=log, stderr=subprocess.STDOUT,
                             env=dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1"))
    print(f"  {spec['name']}: rc={rc} {time.time() - t0:.1f}s")
    out = os.path.join(RUNS, spec["name"])
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    shutil.copy(os.path.join(wd, "train.log"), os.path.join(out, "train.log"))
    if spec["ship"]:
        shutil.copy(os.path.join(wd, "train.py"), os.path.join(out, "train.py"))
    for src, dst in spec["collect"].items():
        src = os.path.join(SHARED, "checkpoints", src[6:]) if src.startswith("@ckpt:") else os.path.join(wd, src)
        os.makedirs(os.path.dirname(os.path.join(out, dst)), exist_ok=True)
        shutil.copy(src, os.path.join(out, dst))
    return rc


def main():
    keep = "--keep" in sys.argv
    only = [a for a in sys.argv[1:] if a.startswith("run")]
    os.makedirs(WORK, exist_ok=True)
    if not os.path.exists(os.path.join(SHARED, "checkpoints", "rm-gru-v1", "model.pt")) or not only:
        print("building shared data + checkpoints")
        if os.path.exists(SHARED):
            shutil.rmtree(SHARED)
        build_shared()
    os.makedirs(RUNS, exist_ok=True)
    for spec in RUN_SPECS:
        if only and spec["name"] not in only:
            continue
        run_one(spec)
    truth = {s["name"]: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for s in RUN_SPECS}
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
    if not keep and not only:
        shutil.rmtree(WORK)


if __name__ == "__main__":
    main()
