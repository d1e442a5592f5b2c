"""Word-level language model training with fairseq-train style flags and logs."""
import argparse
import logging
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(format="%(asctime)s | %(levelname)s | %(name)s | %(message)s",
                    datefmt="%Y-%m-%d %H:%M:%S", level=logging.INFO, stream=sys.stdout)
logger = logging.getLogger("fairseq_cli.train")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--task", default="language_modeling")
    p.add_argument("--arch", default="transformer_lm")
    p.add_argument("--criterion", default="cross_entropy")
    p.add_argument("--label-smoothing", type=float, default=0.0)
    p.add_argument("--decoder-layers", type=int, default=2)
    p.add_argument("--decoder-embed-dim", type=int, default=128)
    p.add_argument("--decoder-ffn-embed-dim", type=int, default=512)
    p.add_argument("--decoder-attention-heads", type=int, default=4)
    p.add_argument("--decoder-hidden-size", type=int, default=256)
    p.add_argument("--rnn-nonlinearity", default="tanh")
    p.add_argument("--share-decoder-input-output-embed", action="store_true")
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--optimizer", default="adam")
    p.add_argument("--adam-betas", default="(0.9, 0.999)")
    p.add_argument("--adam-eps", type=float, default=1e-8)
    p.add_argument("--momentum", type=float, default=0.99)
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--clip-norm", type=float, default=0.0)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--lr-scheduler", default="fixed")
    p.add_argument("--warmup-updates", type=int, default=0)
    p.add_argument("--warmup-init-lr", type=float, default=-1)
    p.add_argument("--lr-shrink", type=float, default=0.1)
    p.add_argument("--lr-step-epochs", type=int, default=1)
    p.add_argument("--tokens-per-sample", type=int, default=64)
    p.add_argument("--sample-break-mode", default="none")
    p.add_argument("--max-tokens", type=int, default=2048)
    p.add_argument("--max-epoch", type=int, default=10)
    p.add_argument("--max-update", type=int, default=0)
    p.add_argument("--log-format", default="simple")
    p.add_argument("--log-interval", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--save-dir", default="checkpoints")
    p.add_argument("--no-epoch-checkpoints", action="store_true")
    return p.parse_args()


# ----------------------------------------------------------------------------- data

class Dictionary:
    def __init__(self, path):
        self.symbols = ["<s>", "<pad>", "</s>", "<unk>"]
        with open(path) as f:
            for line in f:
                self.symbols.append(line.split()[0])
        while len(self.symbols) % 8:
            self.symbols.append(f"madeupword{len(self.symbols) - 4:04d}")
        self.index = {s: i for i, s in enumerate(self.symbols)}
        self.eos, self.unk = 2, 3

    def __len__(self):
        return len(self.symbols)

    def encode_line(self, line):
        return [self.index.get(w, self.unk) for w in line.split()] + [self.eos]


def load_split(data, split, d):
    path = os.path.join(data, f"{split}.tokens")
    ids, n = [], 0
    with open(path) as f:
        for line in f:
            ids.extend(d.encode_line(line))
            n += 1
    logging.getLogger("fairseq.data.data_utils").info(f"loaded {n:,} examples from: {os.path.join(data, split)}")
    return torch.tensor(ids, dtype=torch.long)


def make_blocks(stream, tokens_per_sample):
    n = (len(stream) - 1) // tokens_per_sample
    src = stream[: n * tokens_per_sample].view(n, tokens_per_sample)
    tgt = stream[1: n * tokens_per_sample + 1].view(n, tokens_per_sample)
    return src, tgt


def batches(src, tgt, bsz, shuffle, seed):
    n = src.size(0)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed)) if shuffle else torch.arange(n)
    for i in range(0, n, bsz):
        idx = order[i:i + bsz]
        yield src[idx], tgt[idx]


# ----------------------------------------------------------------------------- models

class TransformerDecoderLayer(nn.Module):
    def __init__(self, args):
        super().__init__()
        d = args.decoder_embed_dim
        self.self_attn = nn.MultiheadAttention(d, args.decoder_attention_heads, dropout=args.dropout, batch_first=True)
        self.self_attn_layer_norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, args.decoder_ffn_embed_dim)
        self.fc2 = nn.Linear(args.decoder_ffn_embed_dim, d)
        self.final_layer_norm = nn.LayerNorm(d)
        self.dropout = nn.Dropout(args.dropout)

    def forward(self, x, mask):
        h = self.self_attn_layer_norm(x)
        h, _ = self.self_attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + self.dropout(h)
        h = self.fc2(self.dropout(F.relu(self.fc1(self.final_layer_norm(x)))))
        return x + self.dropout(h)


class TransformerDecoder(nn.Module):
    def __init__(self, args, vocab_size):
        super().__init__()
        d = args.decoder_embed_dim
        self.embed_scale = math.sqrt(d)
        self.embed_tokens = nn.Embedding(vocab_size, d, padding_idx=1)
        nn.init.normal_(self.embed_tokens.weight, 0, d ** -0.5)
        self.embed_positions = nn.Embedding(args.tokens_per_sample, d)
        nn.init.normal_(self.embed_positions.weight, 0, d ** -0.5)
        self.layers = nn.ModuleList(TransformerDecoderLayer(args) for _ in range(args.decoder_layers))
        self.layer_norm = nn.LayerNorm(d)
        self.dropout = nn.Dropout(args.dropout)
        self.output_projection = nn.Linear(d, vocab_size, bias=False)
        if args.share_decoder_input_output_embed:
            self.output_projection.weight = self.embed_tokens.weight
        else:
            nn.init.normal_(self.output_projection.weight, 0, d ** -0.5)

    def forward(self, tokens):
        T = tokens.size(1)
        mask = torch.triu(torch.full((T, T), float("-inf")), 1)
        x = self.embed_scale * self.embed_tokens(tokens) + self.embed_positions(torch.arange(T))
        x = self.dropout(x)
        for layer in self.layers:
            x = layer(x, mask)
        return self.output_projection(self.layer_norm(x))


class TransformerLanguageModel(nn.Module):
    def __init__(self, args, vocab_size):
        super().__init__()
        self.decoder = TransformerDecoder(args, vocab_size)

    def forward(self, tokens):
        return self.decoder(tokens)


class LSTMDecoder(nn.Module):
    def __init__(self, args, vocab_size):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, args.decoder_embed_dim, padding_idx=1)
        self.lstm = nn.LSTM(args.decoder_embed_dim, args.decoder_hidden_size, args.decoder_layers, batch_first=True,
                            dropout=args.dropout if args.decoder_layers > 1 else 0.0)
        self.dropout = nn.Dropout(args.dropout)
        self.output_projection = nn.Linear(args.decoder_hidden_size, vocab_size)
        for name, p in self.named_parameters():
            if "lstm" in name or "embed" in name:
                nn.init.uniform_(p, -0.1, 0.1)

    def forward(self, tokens):
        x = self.dropout(self.embed_tokens(tokens))
        x, _ = self.lstm(x)
        return self.output_projection(self.dropout(x))


class RNNDecoder(nn.Module):
    def __init__(self, args, vocab_size):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, args.decoder_embed_dim, padding_idx=1)
        self.rnn = nn.RNN(args.decoder_embed_dim, args.decoder_hidden_size, args.decoder_layers,
                          nonlinearity=args.rnn_nonlinearity, batch_first=True)
        self.dropout = nn.Dropout(args.dropout)
        self.output_projection = nn.Linear(args.decoder_hidden_size, vocab_size)
        for name, p in self.named_parameters():
            if "rnn" in name or "embed" in name:
                nn.init.uniform_(p, -0.1, 0.1)

    def forward(self, tokens):
        x = self.dropout(self.embed_tokens(tokens))
        x, _ = self.rnn(x)
        return self.output_projection(self.dropout(x))


class RNNLanguageModel(nn.Module):
    def __init__(self, args, vocab_size):
        super().__init__()
        self.decoder = RNNDecoder(args, vocab_size)

    def forward(self, tokens):
        return self.decoder(tokens)


class LSTMLanguageModel(nn.Module):
    def __init__(self, args, vocab_size):
        super().__init__()
        self.decoder = LSTMDecoder(args, vocab_size)

    def forward(self, tokens):
        return self.decoder(tokens)


def build_model(args, vocab_size):
    if args.arch.startswith("lstm"):
        return LSTMLanguageModel(args, vocab_size)
    if args.arch.startswith("rnn"):
        return RNNLanguageModel(args, vocab_size)
    return TransformerLanguageModel(args, vocab_size)


def build_optimizer(args, params):
    if args.optimizer == "adam":
        betas = tuple(float(b) for b in args.adam_betas.strip("()").split(","))
        return torch.optim.AdamW(params, lr=args.lr, betas=betas, eps=args.adam_eps, weight_decay=args.weight_decay)
    if args.optimizer == "nag":
        return torch.optim.SGD(params, lr=args.lr, momentum=args.momentum, nesterov=True,
                               weight_decay=args.weight_decay)
    return torch.optim.SGD(params, lr=args.lr, weight_decay=args.weight_decay)


class LRScheduler:
    """fixed / inverse_sqrt schedules, set from the update count."""

    def __init__(self, args, optimizer):
        self.args, self.optimizer = args, optimizer
        self.init = args.warmup_init_lr if args.warmup_init_lr >= 0 else (0.0 if args.warmup_updates > 0 else args.lr)
        self.step_update(0)

    def lr_at(self, n):
        a = self.args
        if a.warmup_updates > 0 and n < a.warmup_updates:
            return self.init + (a.lr - self.init) * n / a.warmup_updates
        if a.lr_scheduler == "inverse_sqrt":
            return a.lr * math.sqrt(max(1, a.warmup_updates)) / math.sqrt(max(n, 1))
        return a.lr

    def step_update(self, n):
        lr = self.lr_at(n)
        for g in self.optimizer.param_groups:
            g["lr"] = lr
        return lr


def lm_loss(logits, target, args):
    lprobs = F.log_softmax(logits.float(), dim=-1).view(-1, logits.size(-1))
    target = target.reshape(-1)
    nll = -lprobs.gather(1, target.unsqueeze(1)).squeeze(1).sum()
    if args.criterion == "label_smoothed_cross_entropy":
        eps = args.label_smoothing
        smooth = -lprobs.sum(-1).sum()
        loss = (1.0 - eps) * nll + eps / lprobs.size(-1) * smooth
    else:
        loss = nll
    return loss, nll


# ----------------------------------------------------------------------------- logging helpers

def fmt(v, nd):
    return "{:g}".format(round(v, nd)) if math.isfinite(v) else str(v)


def ppl(bits):
    try:
        return fmt(2 ** bits, 2)
    except OverflowError:
        return "inf"


def stats_str(stats, sep):
    if sep == "=":
        return ", ".join(f"{k}={v}" for k, v in stats)
    return " | ".join(f"{k} {v}" for k, v in stats)


class Meter:
    def __init__(self):
        self.loss = self.nll = self.ntok = self.nsent = self.gnorm = self.clip = 0.0
        self.updates = 0
        self.t0 = time.time()
        self.train_time = 0.0

    def add(self, loss, nll, ntok, nsent, gnorm, clipped, dt):
        self.loss += loss
        self.nll += nll
        self.ntok += ntok
        self.nsent += nsent
        self.gnorm += gnorm
        self.clip += clipped
        self.updates += 1
        self.train_time += dt

    def stats(self, args, num_updates, lr, train_wall, wall):
        ln2 = math.log(2)
        elapsed = max(1e-6, time.time() - self.t0)
        s = [("loss", fmt(self.loss / self.ntok / ln2, 3))]
        if args.criterion == "label_smoothed_cross_entropy":
            s.append(("nll_loss", fmt(self.nll / self.ntok / ln2, 3)))
            s.append(("ppl", ppl(self.nll / self.ntok / ln2)))
        else:
            s.append(("ppl", ppl(self.loss / self.ntok / ln2)))
        s += [("wps", fmt(self.ntok / elapsed, 1)), ("ups", fmt(self.updates / elapsed, 2)),
              ("wpb", fmt(self.ntok / self.updates, 1)), ("bsz", fmt(self.nsent / self.updates, 1)),
              ("num_updates", str(num_updates)), ("lr", fmt(lr, 10)), ("gnorm", fmt(self.gnorm / self.updates, 3))]
        if args.clip_norm > 0:
            s.append(("clip", fmt(100.0 * self.clip / self.updates, 1)))
        s += [("train_wall", fmt(train_wall, 0)), ("wall", fmt(wall, 0))]
        return s


def validate(model, src, tgt, args, epoch, num_updates, best):
    logger.info('begin validation on "valid" subset')
    model.eval()
    t0 = time.time()
    loss = nll = ntok = nsent = 0.0
    bsz = max(1, args.max_tokens // args.tokens_per_sample)
    with torch.no_grad():
        for x, y in batches(src, tgt, bsz, False, 0):
            l, n = lm_loss(model(x), y, args)
            loss += l.item()
            nll += n.item()
            ntok += y.numel()
            nsent += y.size(0)
    model.train()
    ln2 = math.log(2)
    vloss = loss / ntok / ln2
    best = vloss if best is None or vloss < best else best
    s = [("loss", fmt(vloss, 3))]
    if args.criterion == "label_smoothed_cross_entropy":
        s += [("nll_loss", fmt(nll / ntok / ln2, 3)), ("ppl", ppl(nll / ntok / ln2))]
    else:
        s.append(("ppl", ppl(vloss)))
    el = max(1e-6, time.time() - t0)
    s += [("wps", fmt(ntok / el, 1)), ("wpb", fmt(ntok / math.ceil(nsent / bsz), 1)),
          ("bsz", fmt(nsent / math.ceil(nsent / bsz), 1)), ("num_updates", str(num_updates)),
          ("best_loss", fmt(best, 3))]
    logging.getLogger("valid").info(f"epoch {epoch:03d} | valid on 'valid' subset | " + stats_str(s, " "))
    return vloss, best


def save_checkpoint(model, optimizer, args, epoch, num_updates, vloss, is_best):
    log = logging.getLogger("fairseq.checkpoint_utils")
    log.info(f"Preparing to save checkpoint for epoch {epoch} @ {num_updates} updates")
    t0 = time.time()
    os.makedirs(args.save_dir, exist_ok=True)
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch,
             "num_updates": num_updates}
    names = [] if args.no_epoch_checkpoints else [f"checkpoint{epoch}.pt"]
    names += (["checkpoint_best.pt"] if is_best else []) + ["checkpoint_last.pt"]
    first = os.path.join(args.save_dir, names[0])
    logging.getLogger("fairseq.trainer").info(f"Saving checkpoint to {first}")
    torch.save(state, first)
    logging.getLogger("fairseq.trainer").info(f"Finished saving checkpoint to {first}")
    for n in names[1:]:
        torch.save(state, os.path.join(args.save_dir, n))
    log.info(f"Saved checkpoint {first} (epoch {epoch} @ {num_updates} updates, score {fmt(vloss, 3)}) "
             f"(writing took {time.time() - t0:.{6}f} seconds)")


# ----------------------------------------------------------------------------- main

def main():
    args = get_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    wall0 = time.time()
    logger.info(vars(args))
    d = Dictionary(os.path.join(args.data, "dict.txt"))
    logging.getLogger("fairseq.tasks.language_modeling").info(f"dictionary: {len(d)} types")
    model = build_model(args, len(d))
    logger.info(model)
    logger.info(f"task: LanguageModelingTask")
    logger.info(f"model: {type(model).__name__}")
    crit = "LabelSmoothedCrossEntropyCriterion" if args.criterion == "label_smoothed_cross_entropy" else "CrossEntropyCriterion"
    logger.info(f"criterion: {crit}")
    nparams = sum(p.numel() for p in model.parameters())
    logger.info(f"num. shared model params: {nparams:,} (num. trained: {nparams:,})")
    valid_src, valid_tgt = make_blocks(load_split(args.data, "valid", d), args.tokens_per_sample)
    logger.info("training on 1 devices (GPUs/TPUs)")
    logger.info(f"max tokens per device = {args.max_tokens} and max sentences per device = None")
    tlog = logging.getLogger("fairseq.trainer")
    tlog.info(f"Preparing to load checkpoint {args.save_dir}/checkpoint_last.pt")
    tlog.info(f"No existing checkpoint found {args.save_dir}/checkpoint_last.pt")
    tlog.info("loading train data for epoch 1")
    train_src, train_tgt = make_blocks(load_split(args.data, "train", d), args.tokens_per_sample)

    optimizer = build_optimizer(args, model.parameters())
    lr_sched = LRScheduler(args, optimizer)
    epoch_sched = None
    if args.lr_scheduler == "step":
        epoch_sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.lr_step_epochs, gamma=args.lr_shrink)

    bsz = max(1, args.max_tokens // args.tokens_per_sample)
    n_batches = math.ceil(train_src.size(0) / bsz)
    num_updates, best, train_wall = 0, None, 0.0
    model.train()
    for epoch in range(1, args.max_epoch + 1):
        tlog.info(f"begin training epoch {epoch}")
        logger.info("Start iterating over samples")
        inner, total = Meter(), Meter()
        for i, (x, y) in enumerate(batches(train_src, train_tgt, bsz, True, args.seed + epoch)):
            t0 = time.time()
            optimizer.zero_grad()
            loss, nll = lm_loss(model(x), y, args)
            ntok = y.numel()
            (loss / ntok).backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_norm if args.clip_norm > 0 else float("inf")).item()
            if not math.isfinite(gnorm):
                raise FloatingPointError("gradients are Nan/Inf")
            optimizer.step()
            num_updates += 1
            if epoch_sched is None:
                lr_sched.step_update(num_updates)
            dt = time.time() - t0
            train_wall += dt
            clipped = float(args.clip_norm > 0 and gnorm > args.clip_norm)
            for m in (inner, total):
                m.add(loss.item(), nll.item(), ntok, y.size(0), gnorm, clipped, dt)
            lr = optimizer.param_groups[0]["lr"]
            if num_updates % args.log_interval == 0:
                s = inner.stats(args, num_updates, lr, train_wall, time.time() - wall0)
                logging.getLogger("train_inner").info(f"epoch {epoch:03d}:  {i + 1:5d} / {n_batches} " + stats_str(s, "="))
                inner = Meter()
            if args.max_update and num_updates >= args.max_update:
                break
        if epoch_sched is not None:
            epoch_sched.step()
        vloss, best = validate(model, valid_src, valid_tgt, args, epoch, num_updates, best)
        save_checkpoint(model, optimizer, args, epoch, num_updates, vloss, vloss <= best)
        logger.info(f"end of epoch {epoch} (average epoch stats below)")
        s = total.stats(args, num_updates, lr, train_wall, time.time() - wall0)
        logging.getLogger("train").info(f"epoch {epoch:03d} | " + stats_str(s, " "))
        if args.max_update and num_updates >= args.max_update:
            break
    logger.info(f"done training in {time.time() - wall0:.1f} seconds")


if __name__ == "__main__":
    main()
