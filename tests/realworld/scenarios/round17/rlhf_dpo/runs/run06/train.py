import argparse
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


class GRULM(nn.Module):
    def __init__(self, vocab_size, d_emb=32, d_hidden=96):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_emb)
        self.rnn = nn.GRU(d_emb, d_hidden, batch_first=True)
        self.lm_head = nn.Linear(d_hidden, vocab_size)

    def forward(self, input_ids, state=None):
        out, state = self.rnn(self.embed(input_ids), state)
        return self.lm_head(out), state


def load_lm(path):
    with open(os.path.join(path, "config.json")) as f:
        cfg = json.load(f)
    model = GRULM(cfg["vocab_size"], cfg["d_emb"], cfg["d_hidden"])
    model.load_state_dict(torch.load(os.path.join(path, "model.pt")))
    return model


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
