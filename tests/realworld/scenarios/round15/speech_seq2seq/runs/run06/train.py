"""Toy translation task (pseudo-language A -> pseudo-language B) with a small attention RNN.
Logs in the fairseq format so I can compare against my fairseq baselines.

    python train.py --save-dir checkpoints [--restore-file checkpoint_last.pt]
"""
import argparse
import collections
import logging
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
logging.basicConfig(format="%(asctime)s | %(levelname)s | %(name)s | %(message)s", datefmt="%Y-%m-%d %H:%M:%S",
                    level=logging.INFO, stream=sys.stdout)
logger = logging.getLogger("fairseq_cli.train")

SYL_A = ["ka", "lu", "mi", "no", "re", "sa", "ti", "vo", "ze", "pu", "ga", "he", "jo", "ki", "le", "ma", "ni", "po"]
SYL_B = ["ba", "de", "fi", "go", "hu", "ja", "ke", "lo", "mu", "na", "pe", "ri", "so", "tu", "va", "we", "yo", "zu"]


def make_toy_lang(seed, n_src=40, n_tgt=48):
    rng = np.random.default_rng(seed)
    src, tgt = set(), set()
    while len(src) < n_src:
        src.add("".join(rng.choice(SYL_A, 2)))
    while len(tgt) < n_tgt:
        tgt.add("".join(rng.choice(SYL_B, 2)))
    src, tgt = sorted(src), sorted(tgt)
    lex = {}
    for i, w in enumerate(src):
        if i % 10 == 0:
            lex[w] = []
        elif i % 7 == 0:
            lex[w] = list(rng.choice(tgt, 2))
        else:
            lex[w] = [tgt[int(rng.integers(len(tgt)))]]
    return src, tgt, lex


def translate(words, lex):
    w = list(words)
    for i in range(0, len(w) - 1, 2):
        w[i], w[i + 1] = w[i + 1], w[i]
    return sum([lex[x] for x in w], [])


def make_pairs(src_vocab, lex, n, seed, min_len=3, max_len=10):
    rng = np.random.default_rng(seed)
    pairs = []
    while len(pairs) < n:
        s = list(rng.choice(src_vocab, int(rng.integers(min_len, max_len + 1))))
        t = translate(s, lex)
        if t:
            pairs.append((s, t))
    return pairs


class Dictionary:
    def __init__(self, words):
        self.symbols = ["<s>", "<pad>", "</s>", "<unk>"] + list(words)
        self.index = {w: i for i, w in enumerate(self.symbols)}
        self.bos, self.pad, self.eos, self.unk = 0, 1, 2, 3

    def __len__(self):
        return len(self.symbols)

    def encode(self, words):
        return [self.index.get(w, self.unk) for w in words] + [self.eos]

    def string(self, ids):
        out = []
        for i in ids:
            if i == self.eos:
                break
            if i not in (self.pad, self.bos):
                out.append(self.symbols[i])
        return " ".join(out)


def load_data(args):
    src_vocab, tgt_vocab, lex = make_toy_lang(args.lang_seed)
    train = make_pairs(src_vocab, lex, args.train_size, args.lang_seed + 1)
    valid = make_pairs(src_vocab, lex, args.valid_size, args.lang_seed + 2)
    return train, valid, Dictionary(src_vocab), Dictionary(tgt_vocab)


def collate(pairs, sd, td):
    src = [torch.tensor(sd.encode(s)) for s, _ in pairs]
    tgt = [torch.tensor(td.encode(t)) for _, t in pairs]
    prev = [torch.cat([torch.tensor([td.eos]), t[:-1]]) for t in tgt]
    pad = lambda xs, v: nn.utils.rnn.pad_sequence(xs, batch_first=True, padding_value=v)
    return pad(src, sd.pad), pad(prev, td.pad), pad(tgt, td.pad)


def epoch_batches(data, batch_size, rng):
    order = rng.permutation(len(data))
    for i in range(0, len(data), batch_size):
        yield [data[j] for j in order[i:i + batch_size]]


class AttentionRNN(nn.Module):
    def __init__(self, sd, td, cell="lstm", embed_dim=64, hidden=96, dropout=0.1):
        super().__init__()
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.cell = cell
        self.src_embed = nn.Embedding(len(sd), embed_dim, padding_idx=sd.pad)
        self.tgt_embed = nn.Embedding(len(td), embed_dim, padding_idx=td.pad)
        self.encoder = rnn(embed_dim, hidden, batch_first=True, bidirectional=True)
        self.decoder = rnn(embed_dim, 2 * hidden, batch_first=True)
        self.attn_proj = nn.Linear(2 * hidden, 2 * hidden, bias=False)
        self.out_proj = nn.Linear(4 * hidden, len(td))
        self.dropout = nn.Dropout(dropout)
        self.src_pad = sd.pad

    def encode(self, src):
        enc, _ = self.encoder(self.dropout(self.src_embed(src)))
        return self.dropout(enc), src != self.src_pad

    def decode(self, prev, enc, mask, state=None):
        dec, state = self.decoder(self.dropout(self.tgt_embed(prev)), state)
        scores = torch.bmm(self.attn_proj(dec), enc.transpose(1, 2)).masked_fill(~mask[:, None, :], -1e9)
        ctx = torch.bmm(scores.softmax(-1), enc)
        return self.out_proj(self.dropout(torch.cat([dec, ctx], -1))), state

    def forward(self, src, prev):
        enc, mask = self.encode(src)
        return self.decode(prev, enc, mask)[0]


def label_smoothed_nll_loss(logits, target, eps, pad):
    lprobs = logits.log_softmax(-1).view(-1, logits.size(-1))
    target = target.view(-1)
    keep = target != pad
    nll = -lprobs.gather(1, target[:, None]).squeeze(1)[keep]
    smooth = -lprobs.sum(-1)[keep]
    eps_i = eps / (lprobs.size(-1) - 1)
    loss = (1.0 - eps - eps_i) * nll + eps_i * smooth
    return loss.sum(), nll.sum(), int(keep.sum())


def inverse_sqrt_lr(args, num_updates):
    if num_updates < args.warmup_updates:
        return args.warmup_init_lr + num_updates * (args.lr - args.warmup_init_lr) / args.warmup_updates
    return args.lr * math.sqrt(args.warmup_updates) / math.sqrt(max(num_updates, 1))


def ngrams(words, n):
    return collections.Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def corpus_bleu(hyps, refs, max_n=4):
    match, total, hyp_len, ref_len = [0] * max_n, [0] * max_n, 0, 0
    for h, r in zip(hyps, refs):
        h, r = h.split(), r.split()
        hyp_len += len(h)
        ref_len += len(r)
        for n in range(1, max_n + 1):
            hc, rc = ngrams(h, n), ngrams(r, n)
            match[n - 1] += sum(min(c, rc[g]) for g, c in hc.items())
            total[n - 1] += max(len(h) - n + 1, 0)
    prec = [100.0 * m / t if t else 0.0 for m, t in zip(match, total)]
    if min(match) == 0:
        return 0.0, prec, 1.0, hyp_len, ref_len
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / max(hyp_len, 1))
    score = bp * math.exp(sum(math.log(p / 100.0) for p in prec) / max_n)
    return 100.0 * score, prec, bp, hyp_len, ref_len


@torch.no_grad()
def greedy_generate(model, src, td, max_len=40):
    enc, mask = model.encode(src)
    prev = torch.full((src.size(0), 1), td.eos, dtype=torch.long)
    state, out = None, []
    for _ in range(max_len):
        logits, state = model.decode(prev, enc, mask, state)
        prev = logits[:, -1].argmax(-1, keepdim=True)
        out.append(prev)
    return torch.cat(out, 1)


def validate(model, valid, sd, td, args):
    model.eval()
    t0 = time.time()
    tot_loss = tot_nll = ntok = 0.0
    hyps, refs = [], []
    with torch.no_grad():
        for b in range(0, len(valid), 64):
            chunk = valid[b:b + 64]
            src, prev, tgt = collate(chunk, sd, td)
            loss, nll, n = label_smoothed_nll_loss(model(src, prev), tgt, args.label_smoothing, td.pad)
            tot_loss += loss.item(); tot_nll += nll.item(); ntok += n
            for row in greedy_generate(model, src, td).tolist():
                hyps.append(td.string(row))
            refs += [" ".join(t) for _, t in chunk]
    model.train()
    bleu = corpus_bleu(hyps, refs)[0]
    return tot_loss / ntok / math.log(2), tot_nll / ntok / math.log(2), bleu, ntok, time.time() - t0


def fmt(x):
    return f"{x:.3g}" if abs(x) < 1e-2 and x != 0 else f"{x:.3f}".rstrip("0").rstrip(".")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--arch", default="lstm_toy")
    p.add_argument("--cell", default="lstm")
    p.add_argument("--lang-seed", type=int, default=7)
    p.add_argument("--train-size", type=int, default=3000)
    p.add_argument("--valid-size", type=int, default=300)
    p.add_argument("--max-epoch", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--optimizer", default="adam")
    p.add_argument("--adam-betas", default="(0.9, 0.98)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lr-scheduler", default="inverse_sqrt")
    p.add_argument("--warmup-updates", type=int, default=200)
    p.add_argument("--warmup-init-lr", type=float, default=1e-07)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--clip-norm", type=float, default=1.0)
    p.add_argument("--encoder-embed-dim", type=int, default=64)
    p.add_argument("--encoder-hidden-size", type=int, default=96)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--log-interval", type=int, default=50)
    p.add_argument("--save-dir", default="checkpoints")
    p.add_argument("--restore-file", default="checkpoint_last.pt")
    p.add_argument("--reset-optimizer", action="store_true")
    p.add_argument("--reset-lr-scheduler", action="store_true")
    p.add_argument("--best-checkpoint-metric", default="bleu")
    p.add_argument("--maximize-best-checkpoint-metric", action="store_true", default=True)
    args = p.parse_args()
    logger.info(args)

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    train, valid, sd, td = load_data(args)
    logger.info(f"[src] dictionary: {len(sd)} types")
    logger.info(f"[tgt] dictionary: {len(td)} types")
    logger.info(f"loaded {len(train)} examples from: data-bin/toy/train.src-tgt")
    logger.info(f"loaded {len(valid)} examples from: data-bin/toy/valid.src-tgt")

    model = AttentionRNN(sd, td, args.cell, args.encoder_embed_dim, args.encoder_hidden_size, args.dropout)
    logger.info(model)
    logger.info(f"task: TranslationTask")
    logger.info(f"model: {args.arch}")
    logger.info(f"criterion: LabelSmoothedCrossEntropyCriterion")
    logger.info(f"num. shared model params: {sum(p.numel() for p in model.parameters()):,} "
                f"(num. trained: {sum(p.numel() for p in model.parameters() if p.requires_grad):,})")
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=eval(args.adam_betas))
    logger.info(f"max tokens per device = None and max sentences per device = {args.batch_size}")

    os.makedirs(args.save_dir, exist_ok=True)
    last = os.path.join(args.save_dir, args.restore_file)
    epoch, num_updates, best = 1, 0, None
    logger.info(f"Preparing to load checkpoint {last}")
    if os.path.exists(last):
        state = torch.load(last)
        model.load_state_dict(state["model"])
        epoch = state["epoch"] + 1
        best = state["best"]
        if not args.reset_optimizer:
            opt.load_state_dict(state["optimizer"])
            num_updates = state["num_updates"]
        logging.getLogger("fairseq.trainer").info(
            f"Loaded checkpoint {last} (epoch {state['epoch']} @ {num_updates} updates)")
    else:
        logging.getLogger("fairseq.trainer").info(f"No existing checkpoint found {last}")
    logging.getLogger("fairseq.trainer").info("loading train data for epoch " + str(epoch))

    inner = logging.getLogger("train_inner")
    t_start = time.time()
    while epoch <= args.max_epoch:
        logging.getLogger("fairseq.trainer").info(f"begin training epoch {epoch}")
        batches = list(epoch_batches(train, args.batch_size, rng))
        stats = collections.defaultdict(float)
        ep_stats = collections.defaultdict(float)
        t_log = time.time()
        for i, chunk in enumerate(batches, 1):
            lr = inverse_sqrt_lr(args, num_updates + 1)
            for g in opt.param_groups:
                g["lr"] = lr
            src, prev, tgt = collate(chunk, sd, td)
            loss, nll, ntok = label_smoothed_nll_loss(model(src, prev), tgt, args.label_smoothing, td.pad)
            opt.zero_grad()
            (loss / ntok).backward()
            gnorm = nn.utils.clip_grad_norm_(model.parameters(),
                                             args.clip_norm if args.clip_norm > 0 else float("inf")).item()
            opt.step()
            num_updates += 1
            for d in (stats, ep_stats):
                d["loss"] += loss.item(); d["nll"] += nll.item(); d["ntok"] += ntok; d["nsent"] += len(chunk)
                d["gnorm"] += gnorm; d["clip"] += float(args.clip_norm > 0 and gnorm > args.clip_norm); d["n"] += 1
            if num_updates % args.log_interval == 0:
                el = time.time() - t_log
                nl = stats["nll"] / stats["ntok"] / math.log(2)
                inner.info(f"epoch {epoch:03d}: {i:6d} / {len(batches)} loss={fmt(stats['loss'] / stats['ntok'] / math.log(2))}, "
                           f"nll_loss={fmt(nl)}, ppl={fmt(2 ** nl)}, wps={int(stats['ntok'] / el)}, "
                           f"ups={fmt(stats['n'] / el)}, wpb={fmt(stats['ntok'] / stats['n'])}, "
                           f"bsz={fmt(stats['nsent'] / stats['n'])}, num_updates={num_updates}, lr={lr:.5g}, "
                           f"gnorm={fmt(stats['gnorm'] / stats['n'])}, clip={fmt(100 * stats['clip'] / stats['n'])}, "
                           f"train_wall={int(el)}, wall={int(time.time() - t_start)}")
                stats = collections.defaultdict(float)
                t_log = time.time()
        logging.getLogger("fairseq_cli.train").info(f"begin validation on \"valid\" subset")
        vloss, vnll, bleu, vtok, vtime = validate(model, valid, sd, td, args)
        improved = best is None or bleu > best
        best = bleu if improved else best
        logging.getLogger("valid").info(
            f"epoch {epoch:03d} | valid on 'valid' subset | loss {vloss:.3f} | nll_loss {vnll:.3f} | "
            f"ppl {2 ** vnll:.2f} | bleu {bleu:.2f} | wps {int(vtok / vtime)} | wpb {vtok / math.ceil(len(valid) / 64):.1f} | "
            f"bsz 64 | num_updates {num_updates} | best_bleu {best:.2f}")
        state = {"args": vars(args), "model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch,
                 "num_updates": num_updates, "best": best}
        torch.save(state, os.path.join(args.save_dir, "checkpoint_last.pt"))
        msg = f"Saved checkpoint {args.save_dir}/checkpoint{epoch}.pt (epoch {epoch} @ {num_updates} updates, score {bleu:.2f})"
        if improved:
            torch.save(state, os.path.join(args.save_dir, "checkpoint_best.pt"))
        logging.getLogger("fairseq.checkpoint_utils").info(msg + " (writing took 0.01 seconds)")
        el = time.time() - t_start
        nl = ep_stats["nll"] / ep_stats["ntok"] / math.log(2)
        logging.getLogger("train").info(
            f"epoch {epoch:03d} | loss {ep_stats['loss'] / ep_stats['ntok'] / math.log(2):.3f} | nll_loss {nl:.3f} | "
            f"ppl {2 ** nl:.2f} | wps {int(ep_stats['ntok'] / max(el, 1e-3))} | ups {ep_stats['n'] / max(el, 1e-3):.2f} | "
            f"wpb {ep_stats['ntok'] / ep_stats['n']:.1f} | bsz {ep_stats['nsent'] / ep_stats['n']:.1f} | "
            f"num_updates {num_updates} | lr {lr:.5g} | gnorm {ep_stats['gnorm'] / ep_stats['n']:.3f} | "
            f"clip {100 * ep_stats['clip'] / ep_stats['n']:.1f} | train_wall {int(el)} | wall {int(el)}")
        epoch += 1
    logger.info(f"done training in {time.time() - t_start:.1f} seconds")


if __name__ == "__main__":
    main()
