"""GPT pretraining on a small corpus. Flags and log format follow Megatron-LM's pretrain_gpt.py."""
import argparse
import datetime
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--num-layers", type=int, default=2)
    p.add_argument("--hidden-size", type=int, default=64)
    p.add_argument("--ffn-hidden-size", type=int, default=None)
    p.add_argument("--num-attention-heads", type=int, default=4)
    p.add_argument("--seq-length", type=int, default=64)
    p.add_argument("--max-position-embeddings", type=int, default=64)
    p.add_argument("--attention-dropout", type=float, default=0.1)
    p.add_argument("--hidden-dropout", type=float, default=0.1)
    p.add_argument("--init-method-std", type=float, default=0.02)
    p.add_argument("--micro-batch-size", type=int, default=4)
    p.add_argument("--global-batch-size", type=int, default=16)
    p.add_argument("--train-iters", type=int, default=500)
    p.add_argument("--optimizer", default="adam")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--min-lr", type=float, default=0.0)
    p.add_argument("--lr-decay-style", default="cosine")
    p.add_argument("--lr-decay-iters", type=int, default=None)
    p.add_argument("--lr-warmup-iters", type=int, default=0)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--adam-beta1", type=float, default=0.9)
    p.add_argument("--adam-beta2", type=float, default=0.999)
    p.add_argument("--adam-eps", type=float, default=1e-8)
    p.add_argument("--sgd-momentum", type=float, default=0.9)
    p.add_argument("--clip-grad", type=float, default=1.0)
    p.add_argument("--fp16", action="store_true")
    p.add_argument("--loss-scale", type=float, default=None)
    p.add_argument("--initial-loss-scale", type=float, default=2.0 ** 32)
    p.add_argument("--min-loss-scale", type=float, default=1.0)
    p.add_argument("--loss-scale-window", type=int, default=1000)
    p.add_argument("--hysteresis", type=int, default=2)
    p.add_argument("--data-path", required=True)
    p.add_argument("--split", default="949,50,1")
    p.add_argument("--tokenizer-type", default="SentencePieceTokenizer")
    p.add_argument("--tokenizer-model", required=True)
    p.add_argument("--log-interval", type=int, default=100)
    p.add_argument("--eval-interval", type=int, default=1000)
    p.add_argument("--eval-iters", type=int, default=10)
    p.add_argument("--save", default=None)
    p.add_argument("--load", default=None)
    p.add_argument("--save-interval", type=int, default=None)
    p.add_argument("--exit-interval", type=int, default=None)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--distributed-backend", default="nccl")
    return p.parse_args()


def now():
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")


def log(msg):
    print(msg, flush=True)


# ----------------------------------------------------------------------------- data

def load_tokenizer(path):
    with open(path) as f:
        pieces = [line.rstrip("\n") for line in f]
    return {c: i for i, c in enumerate(pieces)}


def build_datasets(args, vocab):
    with open(args.data_path) as f:
        docs = [line.rstrip("\n") for line in f if line.strip()]
    weights = [float(x) for x in args.split.split(",")]
    n = len(docs)
    n_train = int(round(n * weights[0] / sum(weights)))
    n_valid = int(round(n * weights[1] / sum(weights)))
    splits = docs[:n_train], docs[n_train:n_train + n_valid], docs[n_train + n_valid:]
    eod = vocab["<eod>"]
    out = []
    for part in splits:
        ids = []
        for d in part:
            ids.extend(vocab[c] for c in d)
            ids.append(eod)
        t = torch.tensor(ids, dtype=torch.long)
        nsamp = (len(t) - 1) // args.seq_length
        out.append((t, nsamp))
    return out


class SampleIterator:
    """Fixed-length samples cut from the token stream, shuffled once per pass."""

    def __init__(self, tokens, nsamp, seq_length, seed):
        self.tokens, self.nsamp, self.L, self.seed = tokens, nsamp, seq_length, seed

    def get(self, index):
        epoch, i = divmod(index, self.nsamp)
        g = torch.Generator().manual_seed(self.seed + epoch)
        perm = torch.randperm(self.nsamp, generator=g)
        s = int(perm[i]) * self.L
        return self.tokens[s:s + self.L + 1]

    def batch(self, start, size):
        x = torch.stack([self.get(start + j) for j in range(size)])
        return x[:, :-1], x[:, 1:]


# ----------------------------------------------------------------------------- model

class SelfAttention(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.h = args.num_attention_heads
        self.qkv = nn.Linear(args.hidden_size, 3 * args.hidden_size)
        self.proj = nn.Linear(args.hidden_size, args.hidden_size)
        self.drop = nn.Dropout(args.attention_dropout)

    def forward(self, x, mask):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(C // self.h)
        scores = scores.masked_fill(mask[:T, :T], float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        y = self.drop(probs) @ v
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, args):
        super().__init__()
        ffn = args.ffn_hidden_size or 4 * args.hidden_size
        self.ln1 = nn.LayerNorm(args.hidden_size)
        self.attn = SelfAttention(args)
        self.ln2 = nn.LayerNorm(args.hidden_size)
        self.fc1 = nn.Linear(args.hidden_size, ffn)
        self.fc2 = nn.Linear(ffn, args.hidden_size)
        self.drop = nn.Dropout(args.hidden_dropout)

    def forward(self, x, mask):
        x = x + self.drop(self.attn(self.ln1(x), mask))
        x = x + self.drop(self.fc2(F.gelu(self.fc1(self.ln2(x)))))
        return x


class GPTModel(nn.Module):
    def __init__(self, args, vocab_size):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, args.hidden_size)
        self.wpe = nn.Embedding(args.max_position_embeddings, args.hidden_size)
        self.drop = nn.Dropout(args.hidden_dropout)
        self.layers = nn.ModuleList(Block(args) for _ in range(args.num_layers))
        self.ln_f = nn.LayerNorm(args.hidden_size)
        L = args.max_position_embeddings
        self.register_buffer("mask", torch.triu(torch.ones(L, L, dtype=torch.bool), 1), persistent=False)
        std = args.init_method_std
        out_std = std / math.sqrt(2.0 * args.num_layers)
        for name, p in self.named_parameters():
            if p.dim() == 1:
                nn.init.zeros_(p) if name.endswith("bias") else nn.init.ones_(p)
            elif name.endswith("proj.weight") or name.endswith("fc2.weight"):
                nn.init.normal_(p, 0.0, out_std)
            else:
                nn.init.normal_(p, 0.0, std)

    def forward(self, idx):
        T = idx.shape[1]
        x = self.drop(self.wte(idx) + self.wpe(torch.arange(T)))
        for layer in self.layers:
            x = layer(x, self.mask)
        return self.ln_f(x) @ self.wte.weight.t()


# ----------------------------------------------------------------------------- optimizer / scheduler

class OptimizerParamScheduler:
    def __init__(self, optimizer, args):
        self.optimizer = optimizer
        self.max_lr, self.min_lr = args.lr, args.min_lr
        self.warmup = args.lr_warmup_iters
        self.decay = args.lr_decay_iters or args.train_iters
        self.style = args.lr_decay_style
        self.num_steps = 0
        self.step(0)

    def get_lr(self):
        n = self.num_steps
        if self.warmup > 0 and n <= self.warmup:
            return self.max_lr * n / self.warmup
        if self.style == "constant":
            return self.max_lr
        if n > self.decay:
            return self.min_lr
        ratio = (n - self.warmup) / max(1, self.decay - self.warmup)
        if self.style == "linear":
            coeff = 1.0 - ratio
        else:
            coeff = 0.5 * (math.cos(math.pi * ratio) + 1.0)
        return self.min_lr + coeff * (self.max_lr - self.min_lr)

    def step(self, increment=1):
        self.num_steps += increment
        lr = self.get_lr()
        for g in self.optimizer.param_groups:
            g["lr"] = lr
        return lr

    def state_dict(self):
        return {"num_steps": self.num_steps}

    def load_state_dict(self, sd):
        self.num_steps = sd["num_steps"]
        self.step(0)


class DynamicGradScaler:
    def __init__(self, args):
        self.scale = args.initial_loss_scale
        self.min_scale = args.min_loss_scale
        self.window = args.loss_scale_window
        self.hysteresis = args.hysteresis
        self._growth = 0
        self._hyst = args.hysteresis

    def update(self, found_inf):
        if found_inf:
            self._growth = 0
            self._hyst -= 1
            if self._hyst <= 0:
                self.scale = max(self.scale * 0.5, self.min_scale)
        else:
            self._growth += 1
            if self._growth == self.window:
                self._growth = 0
                self._hyst = self.hysteresis
                self.scale *= 2.0


class ConstantGradScaler:
    def __init__(self, scale):
        self.scale = scale

    def update(self, found_inf):
        pass


def build_optimizer(args, params):
    decay = [p for p in params if p.dim() > 1]
    no_decay = [p for p in params if p.dim() <= 1]
    groups = [{"params": decay, "weight_decay": args.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    if args.optimizer == "sgd":
        return torch.optim.SGD(groups, lr=args.lr, momentum=args.sgd_momentum)
    return torch.optim.AdamW(groups, lr=args.lr, betas=(args.adam_beta1, args.adam_beta2), eps=args.adam_eps)


# ----------------------------------------------------------------------------- checkpointing

def save_checkpoint(iteration, model, optimizer, scheduler, args):
    log(f"saving checkpoint at iteration {iteration:7d} to {args.save}")
    os.makedirs(args.save, exist_ok=True)
    torch.save({"iteration": iteration, "model": model.state_dict(),
                "optimizer": optimizer.state_dict(), "opt_param_scheduler": scheduler.state_dict()},
               os.path.join(args.save, "model_optim_rng.pt"))
    with open(os.path.join(args.save, "latest_checkpointed_iteration.txt"), "w") as f:
        f.write(str(iteration))
    log(f"  successfully saved checkpoint at iteration {iteration:7d} to {args.save}")


def load_checkpoint(model, optimizer, scheduler, args):
    path = os.path.join(args.load, "model_optim_rng.pt")
    if not os.path.exists(path):
        log(f"WARNING: could not find the metadata file {os.path.join(args.load, 'latest_checkpointed_iteration.txt')} ")
        log("    will not load any checkpoints and will start from random")
        return 0
    sd = torch.load(path)
    log(f" loading checkpoint from {args.load} at iteration {sd['iteration']}")
    model.load_state_dict(sd["model"])
    optimizer.load_state_dict(sd["optimizer"])
    scheduler.load_state_dict(sd["opt_param_scheduler"])
    log(f"  successfully loaded checkpoint from {args.load} at iteration {sd['iteration']}")
    return sd["iteration"]


# ----------------------------------------------------------------------------- train / eval

def evaluate(model, valid, args, fp16):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for i in range(args.eval_iters):
            x, y = valid.batch(i * args.global_batch_size, args.global_batch_size)
            logits = model(x).float()
            total += F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1)).item()
            n += 1
    model.train()
    return total / n


def print_eval(tag, loss):
    ppl = math.exp(min(20, loss)) if loss == loss else float("nan")
    s = f" validation loss at {tag} | lm loss value: {loss:.6E} | lm loss PPL: {ppl:.6E} | "
    log("-" * (len(s) + 1))
    log(s)
    log("-" * (len(s) + 1))


def main():
    args = get_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    log(f"using world size: 1, data-parallel size: 1, context-parallel size: 1, tensor-model-parallel size: 1, "
        f"pipeline-model-parallel size: 1 ")
    log(f"using torch.{'float16' if args.fp16 else 'float32'} for parameters ...")
    log("------------------------ arguments ------------------------")
    for k, v in sorted(vars(args).items()):
        log(f"  {k} {'.' * (48 - len(k))} {v}")
    log("-------------------- end of arguments ---------------------")
    num_micro = args.global_batch_size // args.micro_batch_size
    log(f"setting number of micro-batches to constant {num_micro}")
    log(f"> building {args.tokenizer_type} tokenizer ...")
    vocab = load_tokenizer(args.tokenizer_model)
    padded = ((len(vocab) + 127) // 128) * 128
    log(f" > padded vocab (size: {len(vocab)}) with {padded - len(vocab)} dummy tokens (new size: {padded})")
    log("> initializing torch distributed ...")
    log(f"> setting random seeds to {args.seed} ...")
    log("building GPT model ...")
    model = GPTModel(args, padded)
    nparams = sum(p.numel() for p in model.parameters())
    log(f" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): {nparams}")

    fp16 = args.fp16
    if fp16:
        main_params = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
        model.half()
        scaler = ConstantGradScaler(args.loss_scale) if args.loss_scale else DynamicGradScaler(args)
    else:
        main_params = list(model.parameters())
        scaler = ConstantGradScaler(1.0)
    optimizer = build_optimizer(args, main_params)
    scheduler = OptimizerParamScheduler(optimizer, args)
    log(f"> learning rate decay style: {args.lr_decay_style}")

    iteration = 0
    if args.load:
        iteration = load_checkpoint(model, optimizer, scheduler, args)
        if fp16:
            for mp, p in zip(main_params, model.parameters()):
                mp.data.copy_(p.data.float())
    log(f"[after model, optimizer, and learning rate scheduler are built] datetime: {now()} ")

    log("> building train, validation, and test datasets ...")
    (tr, ntr), (va, nva), (te, nte) = build_datasets(args, vocab)
    log(" > datasets target sizes (minimum size):")
    log(f"    train:      {args.train_iters * args.global_batch_size}")
    log(f"    validation: {args.eval_iters * args.global_batch_size}")
    log(f"    test:       {args.eval_iters * args.global_batch_size}")
    log(f" > loaded {ntr} train samples, {nva} validation samples, {nte} test samples of {args.seq_length} tokens")
    train = SampleIterator(tr, ntr, args.seq_length, args.seed)
    valid = SampleIterator(va, nva, args.seq_length, args.seed + 1)
    log(f"[after dataloaders are built] datetime: {now()} ")
    log("done with setup ...")
    log("training ...")
    log(f"[before the start of training step] datetime: {now()} ")

    model.train()
    params = list(model.parameters())
    acc = {"loss": 0.0, "advanced": 0, "skipped": 0, "nan": 0}
    t_last = time.time()
    grad_norm = None
    while iteration < args.train_iters:
        consumed = iteration * args.global_batch_size
        optimizer.zero_grad(set_to_none=True)
        if fp16:
            model.zero_grad(set_to_none=True)
        losses = []
        for m in range(num_micro):
            x, y = train.batch(consumed + m * args.micro_batch_size, args.micro_batch_size)
            logits = model(x).float()
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            (loss * scaler.scale / num_micro).backward()
            losses.append(loss.detach())
        iter_loss = torch.stack(losses).mean().item()

        if fp16:
            found_inf = False
            for mp, p in zip(main_params, params):
                g = p.grad.float() / scaler.scale
                if not torch.isfinite(g).all():
                    found_inf = True
                mp.grad = g
            scaler.update(found_inf)
        else:
            found_inf = False
        if found_inf:
            skipped, grad_norm = True, None
        else:
            grad_norm = torch.nn.utils.clip_grad_norm_(main_params, args.clip_grad if args.clip_grad > 0 else float("inf")).item()
            optimizer.step()
            skipped = False
            if fp16:
                with torch.no_grad():
                    for mp, p in zip(main_params, params):
                        p.copy_(mp.half())
        if not skipped:
            scheduler.step(1)
        iteration += 1

        if skipped:
            acc["skipped"] += 1
            acc["nan"] += int(not math.isfinite(iter_loss))
        else:
            acc["loss"] += iter_loss
            acc["advanced"] += 1

        if iteration % args.log_interval == 0:
            elapsed = (time.time() - t_last) * 1000.0 / args.log_interval
            t_last = time.time()
            s = f" [{now()}] iteration {iteration:8d}/{args.train_iters:8d} |"
            s += f" consumed samples: {iteration * args.global_batch_size:12d} |"
            s += f" elapsed time per iteration (ms): {elapsed:.1f} |"
            s += f" learning rate: {optimizer.param_groups[0]['lr']:.6E} |"
            s += f" global batch size: {args.global_batch_size:5d} |"
            avg = acc["loss"] / max(1, acc["advanced"])
            if avg > 0.0:
                s += f" lm loss: {avg:.6E} |"
            s += f" loss scale: {scaler.scale:.1f} |"
            if grad_norm is not None:
                s += f" grad norm: {grad_norm:.3f} |"
            s += f" number of skipped iterations: {acc['skipped']:3d} |"
            s += f" number of nan iterations: {acc['nan']:3d} |"
            log(s)
            acc = {"loss": 0.0, "advanced": 0, "skipped": 0, "nan": 0}

        if args.eval_interval and iteration % args.eval_interval == 0:
            print_eval(f"iteration {iteration}", evaluate(model, valid, args, fp16))

        if args.save and args.save_interval and iteration % args.save_interval == 0:
            save_checkpoint(iteration, model, optimizer, scheduler, args)

        if args.exit_interval and iteration % args.exit_interval == 0 and iteration < args.train_iters:
            log(f" exiting program at iteration {iteration}")
            sys.exit(0)

    log(f"[after training is done] datetime: {now()} ")
    if args.save and (not args.save_interval or iteration % args.save_interval != 0):
        save_checkpoint(iteration, model, optimizer, scheduler, args)
    print_eval(f"the end of training for val data", evaluate(model, valid, args, fp16))


if __name__ == "__main__":
    main()
