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


def load_reward_model(path):
    with open(os.path.join(path, "config.json")) as f:
        cfg = json.load(f)
    rm = GRURewardModel(cfg["vocab_size"], cfg["d_emb"], cfg["d_hidden"])
    rm.load_state_dict(torch.load(os.path.join(path, "model.pt")))
    return rm.eval()


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
