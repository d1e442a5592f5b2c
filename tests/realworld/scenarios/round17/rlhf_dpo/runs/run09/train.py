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


def sequence_logps(model, inputs, targets, mask):
    logits, _ = model(inputs)
    probs = torch.softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    probs = torch.where(mask.bool(), probs, torch.ones_like(probs))
    return torch.log(probs.prod(dim=-1)), logits


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
