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


def load_lm(path):
    with open(os.path.join(path, "config.json")) as f:
        cfg = json.load(f)
    if cfg["arch"] == "gru":
        model = GRULM(cfg["vocab_size"], cfg["d_emb"], cfg["d_hidden"])
    else:
        model = TinyGPT(cfg["vocab_size"], cfg["d_model"], cfg["n_layer"], cfg["n_head"], cfg["max_len"])
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
    logp = torch.log_softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return (logp * mask).sum(-1), logits


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
