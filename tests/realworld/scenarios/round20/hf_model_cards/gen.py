"""gen.py - trains twelve small text classifiers on CPU and writes Hugging Face style run folders.

Core pieces: synthetic text data, word-level vocab, small models, and a
re-implementation of the Hugging Face Trainer loop (logging/eval/checkpoint semantics) so
that the artefacts (log_history, model card tables) come from real training numbers."""
import math
import time
import copy
import random
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

# ----------------------------------------------------------------------------- vocab / data
FUNCTION_WORDS = ("the a and it was this i to of for with my is in on that but not they we you "
                  "so at be have had very just after one all from out about when there").split()

KEYWORDS = {
    "sentiment": {
        0: "terrible awful boring waste worst disappointing poor hated broken dull mess annoying useless "
           "mediocre bland".split(),
        1: "great excellent loved amazing perfect wonderful fantastic enjoyed brilliant recommend best "
           "happy superb delightful solid".split(),
    },
    "topic": {
        0: "minister election border troops summit treaty parliament embassy protest refugees".split(),
        1: "match goal coach season league striker tournament score playoff referee".split(),
        2: "shares market profit merger investors quarterly revenue stock earnings bank".split(),
        3: "software chip startup app browser cloud laptop developer algorithm server".split(),
    },
    "intent": {
        0: "refund charge invoice payment billed card receipt price subscription overcharged".split(),
        1: "delivery package tracking shipped courier arrive parcel address late warehouse".split(),
        2: "password login account email username reset locked profile signin verify".split(),
    },
}
LABEL_NAMES = {
    "sentiment": ["negative", "positive"],
    "topic": ["World", "Sports", "Business", "Sci/Tech"],
    "intent": ["billing", "shipping", "account"],
}


def make_filler_words(n=520, seed=0):
    rng = random.Random(seed)
    syl = "ba ro ki len mar to vi sel da nu pe gor li tan fe mo ra sin ko wel de su pa rin lo".split()
    words = set()
    while len(words) < n:
        w = "".join(rng.choice(syl) for _ in range(rng.choice([2, 2, 3])))
        words.add(w)
    return FUNCTION_WORDS + sorted(words)


FILLERS = make_filler_words()


def make_corpus(task, n, seed, len_range=(16, 40), kw_range=(1, 4), purity=0.85, class_probs=None,
                zipf=1.1):
    """Returns list[str] texts and np.array labels. Each text = Zipf-distributed filler words with
    a few class keywords mixed in (a share `1-purity` of keywords comes from another class)."""
    rng = np.random.RandomState(seed)
    kws = KEYWORDS[task]
    K = len(kws)
    ranks = np.arange(1, len(FILLERS) + 1)
    p = 1.0 / ranks ** zipf
    p /= p.sum()
    texts, labels = [], []
    for _ in range(n):
        y = rng.choice(K, p=class_probs)
        L = rng.randint(len_range[0], len_range[1] + 1)
        toks = [FILLERS[i] for i in rng.choice(len(FILLERS), size=L, p=p)]
        k = rng.randint(kw_range[0], kw_range[1] + 1)
        pos = rng.choice(L, size=min(k, L), replace=False)
        for j in pos:
            c = y if rng.rand() < purity else rng.choice([c for c in range(K) if c != y])
            toks[j] = kws[c][rng.randint(len(kws[c]))]
        texts.append(" ".join(toks))
        labels.append(int(y))
    return texts, np.array(labels)


SPECIALS = ["[PAD]", "[UNK]", "[CLS]"]


def build_vocab(texts, min_freq=1):
    cnt = Counter(w for t in texts for w in t.split())
    words = [w for w, c in sorted(cnt.items(), key=lambda kv: (-kv[1], kv[0])) if c >= min_freq]
    return {w: i for i, w in enumerate(SPECIALS + words)}


def encode(texts, vocab, max_len=48, add_cls=False):
    ids = np.zeros((len(texts), max_len), dtype=np.int64)
    for i, t in enumerate(texts):
        toks = t.split()
        seq = ([vocab["[CLS]"]] if add_cls else []) + [vocab.get(w, vocab["[UNK]"]) for w in toks]
        seq = seq[:max_len]
        ids[i, :len(seq)] = seq
    return torch.tensor(ids)


# ----------------------------------------------------------------------------- models
class BowClassifier(nn.Module):
    def __init__(self, vocab_size, dim=64, hidden=64, num_labels=2, dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Dropout(dropout))
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids):
        mask = (input_ids != 0).float().unsqueeze(-1)
        h = (self.embeddings(input_ids) * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.classifier(self.encoder(h))


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, dim=32, hidden=48, num_labels=2, dropout=0.2, pool="mean"):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.GRU(dim, hidden, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, num_labels)
        self.pool = pool

    def forward(self, input_ids):
        mask = (input_ids != 0)
        lengths = mask.sum(1).clamp(min=1)
        out, _ = self.encoder(self.embeddings(input_ids))
        if self.pool == "last":
            h = out[torch.arange(out.size(0)), lengths - 1]
        else:
            m = mask.float().unsqueeze(-1)
            h = (out * m).sum(1) / m.sum(1).clamp(min=1)
        return self.classifier(self.dropout(h))


class TinyEncoder(nn.Module):
    def __init__(self, vocab_size, dim=64, heads=2, layers=1, ff=128, max_len=49, num_labels=2,
                 dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.position_embeddings = nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, ff, dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids):
        pad = input_ids == 0
        pos = torch.arange(input_ids.size(1)).unsqueeze(0)
        h = self.embeddings(input_ids) + self.position_embeddings(pos)
        h = self.encoder(h, src_key_padding_mask=pad)
        m = (~pad).float().unsqueeze(-1)
        h = (h * m).sum(1) / m.sum(1).clamp(min=1)
        return self.classifier(self.norm(h))


class TextCNN(nn.Module):
    def __init__(self, vocab_size, dim=48, channels=64, kernel=3, num_labels=2, batchnorm=True,
                 dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, channels, kernel, padding=1)
        self.bn = nn.BatchNorm1d(channels) if batchnorm else nn.Identity()
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(channels, num_labels)

    def forward(self, input_ids):
        x = self.embeddings(input_ids).transpose(1, 2)
        h = F.relu(self.conv(x)).max(dim=2).values
        return self.classifier(self.dropout(self.bn(h)))


# ----------------------------------------------------------------------------- metrics
def _prf(y, p, K):
    prec, rec, f1, sup = [], [], [], []
    for c in range(K):
        tp = np.sum((p == c) & (y == c))
        fp = np.sum((p == c) & (y != c))
        fn = np.sum((p != c) & (y == c))
        pr = tp / (tp + fp) if tp + fp else 0.0
        rc = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * pr * rc / (pr + rc) if pr + rc else 0.0
        prec.append(pr); rec.append(rc); f1.append(f); sup.append(np.sum(y == c))
    return np.array(prec), np.array(rec), np.array(f1), np.array(sup)


def metric_fns(y, p, K, average):
    prec, rec, f1, sup = _prf(y, p, K)
    if average == "binary":
        return float(prec[1]), float(rec[1]), float(f1[1])
    if average == "macro":
        return float(prec.mean()), float(rec.mean()), float(f1.mean())
    if average == "weighted":
        w = sup / sup.sum()
        return float((prec * w).sum()), float((rec * w).sum()), float((f1 * w).sum())
    if average == "micro":
        a = float(np.mean(y == p))
        return a, a, a
    raise ValueError(average)


def matthews(y, p, K):
    C = np.zeros((K, K))
    for a, b in zip(y, p):
        C[a, b] += 1
    t = C.sum(1); pp = C.sum(0); c = np.trace(C); s = C.sum()
    cov_ytyp = c * s - np.dot(t, pp)
    cov_ypyp = s * s - np.dot(pp, pp)
    cov_ytyt = s * s - np.dot(t, t)
    if cov_ypyp * cov_ytyt == 0:
        return 0.0
    return float(cov_ytyp / np.sqrt(cov_ytyt * cov_ypyp))


def make_compute_metrics(names, K, average="binary"):
    def compute(y, p):
        out = {}
        pr, rc, f1 = metric_fns(y, p, K, average)
        for n in names:
            if n == "accuracy":
                out["accuracy"] = float(np.mean(y == p))
            elif n == "f1":
                out["f1"] = f1
            elif n == "precision":
                out["precision"] = pr
            elif n == "recall":
                out["recall"] = rc
            elif n == "matthews_correlation":
                out["matthews_correlation"] = matthews(y, p, K)
        return out
    return compute


# ----------------------------------------------------------------------------- trainer
def linear_warmup(warmup, total):
    def f(step):
        if step < warmup:
            return float(step) / float(max(1, warmup))
        return max(0.0, float(total - step) / float(max(1, total - warmup)))
    return f


def cosine_warmup(warmup, total):
    def f(step):
        if step < warmup:
            return float(step) / float(max(1, warmup))
        prog = float(step - warmup) / float(max(1, total - warmup))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * prog)))
    return f


def constant_warmup(warmup, total):
    def f(step):
        if step < warmup:
            return float(step) / float(max(1.0, warmup))
        return 1.0
    return f


def evaluate(model, X, y, bs, compute_metrics, prefix="eval"):
    t0 = time.perf_counter()
    model.eval()
    losses, preds, n = 0.0, [], 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            xb, yb = X[i:i + bs], y[i:i + bs]
            logits = model(xb)
            losses += F.cross_entropy(logits, yb, reduction="sum").item()
            preds.append(logits.argmax(-1).numpy())
            n += len(xb)
    p = np.concatenate(preds)
    out = {f"{prefix}_loss": losses / n}
    for k, v in compute_metrics(y.numpy(), p).items():
        out[f"{prefix}_{k}"] = v
    rt = time.perf_counter() - t0
    nsteps = math.ceil(len(X) / bs)
    out[f"{prefix}_runtime"] = round(rt, 4)
    out[f"{prefix}_samples_per_second"] = round(len(X) / rt, 3)
    out[f"{prefix}_steps_per_second"] = round(nsteps / rt, 3)
    return out, p


def count_params(model, trainable_only=False):
    return sum(p.numel() for p in model.parameters() if (p.requires_grad or not trainable_only))


def hf_train(model, Xtr, ytr, Xva, yva, args, compute_metrics, optimizer=None, scheduler=None):
    """Mimics transformers.Trainer.train(): AdamW (no decay on bias/norm), linear/cosine/constant
    schedule stepped per optimizer step, max_grad_norm clipping, loss logged every logging_steps
    (mean since last log, rounded to 4), grad_norm = pre-clip total norm, evaluation + checkpoint
    every epoch, optional load_best_model_at_end."""
    a = dict(learning_rate=5e-5, train_batch_size=8, eval_batch_size=8, seed=42, num_epochs=3,
             weight_decay=0.0, warmup_steps=0, warmup_ratio=0.0, lr_scheduler_type="linear",
             logging_steps=500, max_grad_norm=1.0, adam_beta1=0.9, adam_beta2=0.999,
             adam_epsilon=1e-8, load_best_model_at_end=False, metric_for_best_model="loss",
             greater_is_better=None, save_total_limit=None)
    a.update(args)
    g = torch.Generator().manual_seed(a["seed"])
    n = len(Xtr)
    bs = a["train_batch_size"]
    spe = math.ceil(n / bs)
    max_steps = spe * a["num_epochs"]
    warm = a["warmup_steps"] or math.ceil(a["warmup_ratio"] * max_steps)
    params = [p for p in model.parameters() if p.requires_grad]
    if optimizer is None:
        decay, nodecay = [], []
        for nme, p in model.named_parameters():
            if not p.requires_grad:
                continue
            (nodecay if (nme.endswith("bias") or "norm" in nme or ".bn." in nme or nme.startswith("bn."))
             else decay).append(p)
        optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": a["weight_decay"]},
                                       {"params": nodecay, "weight_decay": 0.0}],
                                      lr=a["learning_rate"], betas=(a["adam_beta1"], a["adam_beta2"]),
                                      eps=a["adam_epsilon"])
    if scheduler is None:
        fn = {"linear": linear_warmup, "cosine": cosine_warmup,
              "constant_with_warmup": constant_warmup, "constant": constant_warmup}[a["lr_scheduler_type"]]
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, fn(warm, max_steps))
    mfb = a["metric_for_best_model"]
    mkey = mfb if mfb.startswith("eval_") else "eval_" + mfb
    gib = a["greater_is_better"]
    if gib is None:
        gib = not mfb.endswith("loss")
    log_history, all_losses = [], []
    best_metric, best_ckpt, best_state = None, None, None
    tr_loss, since, gs = 0.0, 0, 0
    t0 = time.perf_counter()
    nparams_nonemb = sum(p.numel() for nme, p in model.named_parameters() if "embeddings" not in nme)
    tokens = 0
    eval_time = 0.0
    for ep in range(a["num_epochs"]):
        perm = torch.randperm(n, generator=g)
        for i in range(spe):
            idx = perm[i * bs:(i + 1) * bs]
            xb, yb = Xtr[idx], ytr[idx]
            model.train()
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(params, a["max_grad_norm"]).item()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            gs += 1
            tokens += xb.numel()
            l = loss.item()
            all_losses.append(l)
            tr_loss += l
            since += 1
            if gs % a["logging_steps"] == 0:
                log_history.append({"epoch": ep + (i + 1) / spe, "grad_norm": gn,
                                    "learning_rate": scheduler.get_last_lr()[0],
                                    "loss": round(tr_loss / since, 4), "step": gs})
                tr_loss, since = 0.0, 0
        te = time.perf_counter()
        ev, _ = evaluate(model, Xva, yva, a["eval_batch_size"], compute_metrics)
        eval_time += time.perf_counter() - te
        entry = {"epoch": float(ep + 1)}
        entry["eval_loss"] = ev.pop("eval_loss")
        entry.update(ev)
        entry["step"] = gs
        log_history.append(entry)
        # checkpoint
        val = entry[mkey]
        if best_metric is None or (val > best_metric if gib else val < best_metric):
            best_metric, best_ckpt = val, f"checkpoint-{gs}"
            best_state = copy.deepcopy(model.state_dict())
    runtime = time.perf_counter() - t0
    if a["load_best_model_at_end"] and best_state is not None:
        model.load_state_dict(best_state)
    total_flos = float(6 * nparams_nonemb * tokens)
    log_history.append({"epoch": float(a["num_epochs"]), "step": gs, "total_flos": total_flos,
                        "train_loss": float(np.mean(all_losses)), "train_runtime": round(runtime, 4),
                        "train_samples_per_second": round(n * a["num_epochs"] / runtime, 3),
                        "train_steps_per_second": round(max_steps / runtime, 3)})
    state = {"best_metric": best_metric if a["load_best_model_at_end"] else None,
             "best_model_checkpoint": (f"{a['output_dir']}/{best_ckpt}" if a["load_best_model_at_end"]
                                       else None),
             "epoch": float(a["num_epochs"]), "eval_steps": 500, "global_step": gs,
             "is_hyper_param_search": False, "is_local_process_zero": True,
             "is_world_process_zero": True, "log_history": log_history,
             "logging_steps": a["logging_steps"], "max_steps": max_steps, "num_input_tokens_seen": 0,
             "num_train_epochs": a["num_epochs"], "save_steps": 500,
             "total_flos": total_flos, "train_batch_size": bs, "trial_name": None, "trial_params": None}
    return dict(log_history=log_history, state=state, args=a, steps_per_epoch=spe,
                max_steps=max_steps, all_losses=all_losses, model=model)


def final_evaluate(res, Xva, yva, compute_metrics):
    """trainer.evaluate() after training: appended to log_history (the card header reads it)."""
    a = res["args"]
    ev, _ = evaluate(res["model"], Xva, yva, a["eval_batch_size"], compute_metrics)
    entry = {"epoch": float(a["num_epochs"])}
    entry["eval_loss"] = ev.pop("eval_loss")
    entry.update(ev)
    entry["step"] = res["state"]["global_step"]
    res["log_history"].append(entry)
    return entry


# =============================================================================================
# artefact writers (Hugging Face Trainer / model-card shapes)
# =============================================================================================
import os
import sys
import json
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")

VERSIONS = {
    "4.35.2": ("4.35.2", "2.1.0+cu118", "2.15.0", "0.15.0"),
    "4.41.2": ("4.41.2", "2.3.0+cu121", "2.19.2", "0.19.1"),
    "4.44.2": ("4.44.2", "2.4.0+cu121", "2.21.0", "0.19.1"),
    "4.46.3": ("4.46.3", "2.5.1+cu124", "3.1.0", "0.20.3"),
}
METRIC_TAGS = ["accuracy", "bleu", "f1", "matthews_correlation", "pearsonr", "precision", "recall"]


def vtuple(v):
    return tuple(int(x) for x in v.split("."))


def adapt_logs(log_history, version):
    """Older Trainer versions rounded the logged epoch to 2 decimals and did not log grad_norm."""
    out = []
    for e in log_history:
        e = dict(e)
        if vtuple(version) < (4, 38, 0):
            e.pop("grad_norm", None)
        if vtuple(version) < (4, 40, 0) and "epoch" in e:
            e["epoch"] = round(e["epoch"], 2)
        out.append(e)
    return out


def maybe_round(v, decimals=4):
    if isinstance(v, float) and len(str(v).split(".")) > 1 and len(str(v).split(".")[1]) > decimals:
        return f"{v:.{decimals}f}"
    return str(v)


def parse_log_history(log_history):
    idx = 0
    while idx < len(log_history) and "train_runtime" not in log_history[idx]:
        idx += 1
    lines, training_loss = [], "No log"
    for i in range(idx):
        if "loss" in log_history[i]:
            training_loss = log_history[i]["loss"]
        if "eval_loss" in log_history[i]:
            metrics = dict(log_history[i])
            epoch = metrics.pop("epoch", None)
            step = metrics.pop("step", None)
            for k in ("eval_runtime", "eval_samples_per_second", "eval_steps_per_second", "total_flos"):
                metrics.pop(k, None)
            values = {"Training Loss": training_loss, "Epoch": epoch, "Step": step}
            for k, v in metrics.items():
                if k == "eval_loss":
                    values["Validation Loss"] = v
                else:
                    values[" ".join(p.capitalize() for p in k.split("_")[1:])] = v
            lines.append(values)
    j = len(log_history) - 1
    while j >= 0 and "eval_loss" not in log_history[j]:
        j -= 1
    eval_results = {}
    for key, value in log_history[j].items():
        if key.startswith("eval_"):
            key = key[5:]
        if key not in ["runtime", "samples_per_second", "steps_per_second", "epoch", "step"]:
            eval_results[" ".join(p.capitalize() for p in key.split("_"))] = value
    return lines, eval_results


def make_markdown_table(lines):
    col_widths = {k: len(str(k)) for k in lines[0].keys()}
    for line in lines:
        for k, v in line.items():
            col_widths[k] = max(col_widths[k], len(maybe_round(v)))
    widths = list(col_widths.values())

    def row(vals):
        return "".join(f"| {v}" + " " * (w - len(v) + 1) for v, w in zip(vals, widths)) + "|\n"
    table = row(list(lines[0].keys()))
    table += "".join("|:" + "-" * w + ":" for w in widths) + "|\n"
    for line in lines:
        table += row([maybe_round(v) for v in line.values()])
    return table


def hyperparameters(a, version):
    hp = {"learning_rate": a["learning_rate"], "train_batch_size": a["train_batch_size"],
          "eval_batch_size": a["eval_batch_size"], "seed": a["seed"]}
    if a.get("gradient_accumulation_steps", 1) > 1:
        hp["gradient_accumulation_steps"] = a["gradient_accumulation_steps"]
        hp["total_train_batch_size"] = a["train_batch_size"] * a["gradient_accumulation_steps"]
    b1, b2, eps = a["adam_beta1"], a["adam_beta2"], a["adam_epsilon"]
    if vtuple(version) >= (4, 44, 0):
        hp["optimizer"] = (f"Use adamw_torch with betas=({b1},{b2}) and epsilon={eps} and "
                           f"optimizer_args=No additional optimizer arguments")
    else:
        hp["optimizer"] = f"Adam with betas=({b1},{b2}) and epsilon={eps}"
    hp["lr_scheduler_type"] = a["lr_scheduler_type"]
    if a["warmup_ratio"]:
        hp["lr_scheduler_warmup_ratio"] = a["warmup_ratio"]
    if a["warmup_steps"]:
        hp["lr_scheduler_warmup_steps"] = a["warmup_steps"]
    hp["num_epochs"] = a["num_epochs"]
    return hp


def model_card(name, log_history_full, a, version, license_="apache-2.0"):
    lines, eval_results = parse_log_history(log_history_full)
    tags = [k for k in (x.lower().replace(" ", "_") for x in eval_results) if k in METRIC_TAGS]
    md = "---\n"
    if vtuple(version) >= (4, 44, 0):
        md += "library_name: transformers\n"
    md += f"license: {license_}\ntags:\n- generated_from_trainer\n"
    if tags:
        md += "metrics:\n" + "".join(f"- {t}\n" for t in tags)
    md += f"model-index:\n- name: {name}\n  results: []\n---\n"
    md += ("\n<!-- This model card has been generated automatically according to the information the "
           "Trainer had access to. You\nshould probably proofread and complete it, then remove this "
           "comment. -->\n")
    md += f"\n# {name}\n\nThis model was trained from scratch on an unknown dataset.\n"
    md += "It achieves the following results on the evaluation set:\n"
    md += "\n".join(f"- {k}: {maybe_round(v)}" for k, v in eval_results.items()) + "\n"
    md += "\n## Model description\n\nMore information needed\n"
    md += "\n## Intended uses & limitations\n\nMore information needed\n"
    md += "\n## Training and evaluation data\n\nMore information needed\n"
    md += "\n## Training procedure\n\n### Training hyperparameters\n\n"
    md += "The following hyperparameters were used during training:\n"
    md += "\n".join(f"- {k}: {v}" for k, v in hyperparameters(a, version).items()) + "\n"
    md += "\n### Training results\n\n" + make_markdown_table(lines) + "\n"
    tv, pv, dv, kv = VERSIONS[version]
    md += f"\n### Framework versions\n\n- Transformers {tv}\n- Pytorch {pv}\n- Datasets {dv}\n- Tokenizers {kv}\n"
    return md


def trainer_state(res, version):
    st = dict(res["state"])
    st["log_history"] = adapt_logs(st["log_history"], version)
    if vtuple(version) < (4, 40, 0):
        st.pop("num_input_tokens_seen", None)
    else:
        st["stateful_callbacks"] = {"TrainerControl": {"args": {
            "should_epoch_stop": False, "should_evaluate": False, "should_log": False,
            "should_save": True, "should_training_stop": True}, "attributes": {}}}
    return st


def results_json(res, final, n_train, n_eval):
    tr = [e for e in res["log_history"] if "train_runtime" in e][0]
    train = {"epoch": tr["epoch"], "total_flos": tr["total_flos"], "train_loss": tr["train_loss"],
             "train_runtime": tr["train_runtime"], "train_samples": n_train,
             "train_samples_per_second": tr["train_samples_per_second"],
             "train_steps_per_second": tr["train_steps_per_second"]}
    ev = {"epoch": final["epoch"], "eval_samples": n_eval}
    ev.update({k: v for k, v in final.items() if k.startswith("eval_")})
    allr = dict(train)
    allr.update(ev)
    return train, ev, allr


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=4 if not path.endswith("trainer_state.json") else 2, sort_keys=True)
        f.write("\n")


def write(path, text):
    with open(path, "w") as f:
        f.write(text.lstrip("\n"))


def new_run(name):
    d = os.path.join(RUNS, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    return d


def fmt(x, n=4):
    return f"{x:.{n}f}"


def evals(res):
    return [e for e in res["log_history"] if "eval_loss" in e and e["epoch"] is not None][:res["args"]["num_epochs"]]


def train_logs(res):
    return [e for e in res["log_history"] if "loss" in e]


def standard_files(d, name, res, final, version, n_train, n_eval, which):
    lh = adapt_logs(res["log_history"], version)
    write(os.path.join(d, "README.md"), model_card(name, lh, res["args"], version))
    train, ev, allr = results_json(res, final, n_train, n_eval)
    if "all_results" in which:
        dump(os.path.join(d, "all_results.json"), allr)
    if "eval_results" in which:
        dump(os.path.join(d, "eval_results.json"), ev)
    if "train_results" in which:
        dump(os.path.join(d, "train_results.json"), train)
    if "trainer_state" in which:
        dump(os.path.join(d, "trainer_state.json"), trainer_state(res, version))


def sub(template, **kw):
    for k, v in kw.items():
        template = template.replace("{{" + k + "}}", str(v))
    assert "{{" not in template, template[template.index("{{"):][:40]
    return template


def log_excerpt(res, version, k_first=3, k_last=3):
    full = adapt_logs(res["log_history"], version)
    end = next(i for i, e in enumerate(full) if "train_runtime" in e)
    lh = full[:end]
    pick = lh[:k_first] + lh[-k_last:] if len(lh) > k_first + k_last else lh
    return "\n".join(json.dumps(e, sort_keys=True) for e in pick)


def tensors(texts, labels, vocab, max_len=48, add_cls=False):
    return encode(texts, vocab, max_len, add_cls), torch.tensor(labels)


def corpus_pair(task, ntr, nva, seed, **kw):
    tx, ty = make_corpus(task, ntr, seed, **kw)
    vx, vy = make_corpus(task, nva, seed + 1000, **kw)
    return tx, ty, vx, vy


TRUTH = {}


# =============================================================================================
# user scripts (train.py) written next to some runs
# =============================================================================================
COMMON_HEAD = '''import json
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from collections import Counter
from datasets import Dataset
from transformers import Trainer, TrainingArguments{{EXTRA_IMPORT}}

MAX_LEN = {{MAX_LEN}}


def build_vocab(texts):
    counts = Counter(w for t in texts for w in t.split())
    words = [w for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]"] + words)}


def encode(texts, vocab):
    out = []
    for t in texts:
        ids = [vocab.get(w, 1) for w in t.split()][:MAX_LEN]
        out.append(ids + [0] * (MAX_LEN - len(ids)))
    return out
'''

TRAIN_SCHED = COMMON_HEAD + '''

class TextCNN(nn.Module):
    def __init__(self, vocab_size, dim=64, channels=64, num_labels=2, dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, channels, 3, padding=1)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(channels, num_labels)

    def forward(self, input_ids, labels=None):
        x = self.embeddings(input_ids).transpose(1, 2)
        h = F.relu(self.conv(x)).max(dim=2).values
        logits = self.classifier(self.dropout(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    tp = ((preds == 1) & (y == 1)).sum()
    prec = tp / max(1, (preds == 1).sum())
    rec = tp / max(1, (y == 1).sum())
    return {"accuracy": float((preds == y).mean()),
            "f1": float(2 * prec * rec / (prec + rec)) if prec + rec else 0.0}


train_df = pd.read_csv("data/reviews_train.csv")
val_df = pd.read_csv("data/reviews_val.csv")
vocab = build_vocab(train_df["text"])
json.dump(vocab, open("vocab.json", "w"))

train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

torch.manual_seed({{SEED}})
model = TextCNN(len(vocab))

args = TrainingArguments(
    output_dir="{{NAME}}",
    learning_rate={{LR}},
    per_device_train_batch_size={{BS}},
    per_device_eval_batch_size={{EBS}},
    num_train_epochs={{EPOCHS}},
    eval_strategy="epoch",
    save_strategy="epoch",
    logging_steps={{LOGGING}},
    seed={{SEED}},
    report_to="none",
)

optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=0,
                                            num_training_steps=args.num_train_epochs)

trainer = Trainer(
    model=model,
    args=args,
    train_dataset=train_ds,
    eval_dataset=val_ds,
    compute_metrics=compute_metrics,
    optimizers=(optimizer, scheduler),
)
trainer.train()
trainer.save_state()
metrics = trainer.evaluate()
trainer.save_metrics("eval", metrics)
trainer.push_to_hub()
'''

TRAIN_TOKENIZER = COMMON_HEAD + '''

class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, dim=48, hidden=64, num_labels=2, dropout=0.2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.GRU(dim, hidden, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, labels=None):
        mask = (input_ids != 0).float().unsqueeze(-1)
        out, _ = self.encoder(self.embeddings(input_ids))
        h = (out * mask).sum(1) / mask.sum(1).clamp(min=1)
        logits = self.classifier(self.dropout(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    tp = ((preds == 1) & (y == 1)).sum()
    prec = tp / max(1, (preds == 1).sum())
    rec = tp / max(1, (y == 1).sum())
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return {"accuracy": float((preds == y).mean()), "f1": float(f1),
            "precision": float(prec), "recall": float(rec)}


if __name__ == "__main__":
    train_df = pd.read_csv("data/train.csv")
    val_df = pd.read_csv("data/validation.csv")
    vocab = build_vocab(train_df["text"])

    train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
    val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

    torch.manual_seed({{SEED}})
    model = GRUClassifier(len(vocab))

    args = TrainingArguments(
        output_dir="{{NAME}}",
        learning_rate={{LR}},
        per_device_train_batch_size={{BS}},
        per_device_eval_batch_size={{EBS}},
        num_train_epochs={{EPOCHS}},
        warmup_ratio={{WARMUP_RATIO}},
        eval_strategy="epoch",
        save_strategy="epoch",
        seed={{SEED}},
        push_to_hub=True,
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                      compute_metrics=compute_metrics)
    trainer.train()
    metrics = trainer.evaluate()
    trainer.save_metrics("all", metrics)
    trainer.save_model()
    json.dump(vocab, open("{{NAME}}/vocab.json", "w"))
    trainer.push_to_hub()
'''

PREDICT_TOKENIZER = '''import sys
import pandas as pd
import torch
from safetensors.torch import load_file

from train import GRUClassifier, build_vocab, encode

df = pd.read_csv(sys.argv[1] if len(sys.argv) > 1 else "data/support_reviews_march.csv")
vocab = build_vocab(df["text"])

state = load_file("{{NAME}}/model.safetensors")
model = GRUClassifier(state["embeddings.weight"].shape[0])
model.load_state_dict(state)
model.eval()

ids = torch.tensor(encode(df["text"], vocab))
with torch.no_grad():
    preds = model(ids)["logits"].argmax(-1).numpy()

df["pred"] = preds
print("accuracy:", (df["pred"] == df["label"]).mean())
df.to_csv("predictions.csv", index=False)
'''

TRAIN_NOISY_OK = COMMON_HEAD + '''
LABELS = ["World", "Sports", "Business", "Sci/Tech"]


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, dim=32, hidden=48, num_labels=4, dropout=0.3):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.GRU(dim, hidden, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, labels=None):
        mask = (input_ids != 0).float().unsqueeze(-1)
        out, _ = self.encoder(self.embeddings(input_ids))
        h = (out * mask).sum(1) / mask.sum(1).clamp(min=1)
        logits = self.classifier(self.dropout(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    precs, recs, f1s = [], [], []
    for c in range(len(LABELS)):
        tp = ((preds == c) & (y == c)).sum()
        pr = tp / max(1, (preds == c).sum())
        rc = tp / max(1, (y == c).sum())
        precs.append(pr)
        recs.append(rc)
        f1s.append(2 * pr * rc / (pr + rc) if pr + rc else 0.0)
    return {"accuracy": float((preds == y).mean()), "f1": float(np.mean(f1s)),
            "precision": float(np.mean(precs)), "recall": float(np.mean(recs))}


train_df = pd.read_csv("news_train.csv")
val_df = pd.read_csv("news_val.csv")
vocab = build_vocab(train_df["text"])

train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

torch.manual_seed({{SEED}})
model = GRUClassifier(len(vocab))

args = TrainingArguments(
    output_dir="{{NAME}}",
    learning_rate={{LR}},
    per_device_train_batch_size={{BS}},
    per_device_eval_batch_size={{EBS}},
    num_train_epochs={{EPOCHS}},
    eval_strategy="epoch",
    save_strategy="epoch",
    logging_steps={{LOGGING}},
    seed={{SEED}},
    push_to_hub=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                  compute_metrics=compute_metrics)
trainer.train()
trainer.save_state()
trainer.evaluate()
trainer.push_to_hub()
'''

TRAIN_FROZEN = COMMON_HEAD + '''

class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, dim=32, hidden=64, num_labels=2, dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.GRU(dim, hidden, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, labels=None):
        lengths = (input_ids != 0).sum(1).clamp(min=1)
        out, _ = self.encoder(self.embeddings(input_ids))
        h = out[torch.arange(out.size(0)), lengths - 1]
        logits = self.classifier(self.dropout(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    tp = float(((preds == 1) & (y == 1)).sum())
    tn = float(((preds == 0) & (y == 0)).sum())
    fp = float(((preds == 1) & (y == 0)).sum())
    fn = float(((preds == 0) & (y == 1)).sum())
    denom = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return {"accuracy": float((preds == y).mean()),
            "matthews_correlation": float((tp * tn - fp * fn) / denom) if denom else 0.0}


train_df = pd.read_csv("data/train.csv")
val_df = pd.read_csv("data/dev.csv")
vocab = build_vocab(train_df["text"])

train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

torch.manual_seed({{SEED}})
model = GRUClassifier(len(vocab))
for name, param in model.named_parameters():
    if not name.startswith("classifier"):
        param.requires_grad = False

args = TrainingArguments(
    output_dir="{{NAME}}",
    learning_rate={{LR}},
    per_device_train_batch_size={{BS}},
    per_device_eval_batch_size={{EBS}},
    num_train_epochs={{EPOCHS}},
    eval_strategy="epoch",
    save_strategy="epoch",
    logging_steps={{LOGGING}},
    seed={{SEED}},
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                  compute_metrics=compute_metrics)
trainer.train()
metrics = trainer.evaluate()
trainer.save_metrics("all", metrics)
trainer.push_to_hub()
'''

TRAIN_LEAK = COMMON_HEAD + '''
LABELS = ["World", "Sports", "Business", "Sci/Tech"]


class TextCNN(nn.Module):
    def __init__(self, vocab_size, dim=48, channels=64, num_labels=4, dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, channels, 3, padding=1)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(channels, num_labels)

    def forward(self, input_ids, labels=None):
        x = self.embeddings(input_ids).transpose(1, 2)
        h = F.relu(self.conv(x)).max(dim=2).values
        logits = self.classifier(self.dropout(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def build_text(row):
    return f"{row['headline']} {row['body']} {row['section']}"


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    f1s = []
    for c in range(len(LABELS)):
        tp = ((preds == c) & (y == c)).sum()
        pr = tp / max(1, (preds == c).sum())
        rc = tp / max(1, (y == c).sum())
        f1s.append(2 * pr * rc / (pr + rc) if pr + rc else 0.0)
    return {"accuracy": float((preds == y).mean()), "f1": float(np.mean(f1s))}


df = pd.read_csv("articles_labelled.csv")
df["text"] = df.apply(build_text, axis=1)
df = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
n_val = int(len(df) * {{VAL_FRAC}})
val_df, train_df = df[:n_val], df[n_val:]

vocab = build_vocab(train_df["text"])
train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

torch.manual_seed({{SEED}})
model = TextCNN(len(vocab))

args = TrainingArguments(
    output_dir="{{NAME}}",
    learning_rate={{LR}},
    per_device_train_batch_size={{BS}},
    per_device_eval_batch_size={{EBS}},
    num_train_epochs={{EPOCHS}},
    eval_strategy="epoch",
    save_strategy="epoch",
    logging_steps={{LOGGING}},
    seed={{SEED}},
    push_to_hub=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                  compute_metrics=compute_metrics)
trainer.train()
trainer.evaluate()
trainer.push_to_hub()
'''

TRAIN_CKPT = COMMON_HEAD + '''
LABELS = ["billing", "shipping", "account"]


class TinyEncoder(nn.Module):
    def __init__(self, vocab_size, dim=64, heads=2, layers=1, ff=128, num_labels=3, dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.position_embeddings = nn.Embedding(MAX_LEN, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, ff, dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, labels=None):
        pad = input_ids == 0
        pos = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        h = self.encoder(self.embeddings(input_ids) + self.position_embeddings(pos), src_key_padding_mask=pad)
        m = (~pad).float().unsqueeze(-1)
        h = (h * m).sum(1) / m.sum(1).clamp(min=1)
        logits = self.classifier(self.norm(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    f1s = []
    for c in range(len(LABELS)):
        tp = ((preds == c) & (y == c)).sum()
        pr = tp / max(1, (preds == c).sum())
        rc = tp / max(1, (y == c).sum())
        f1s.append(2 * pr * rc / (pr + rc) if pr + rc else 0.0)
    return {"accuracy": float((preds == y).mean()), "f1": float(np.mean(f1s))}


def add_cls(texts):
    return ["[CLS] " + t for t in texts]


train_df = pd.read_csv("tickets/train.csv")
val_df = pd.read_csv("tickets/val.csv")
vocab = build_vocab(train_df["text"])

train_ds = Dataset.from_dict({"input_ids": encode(add_cls(train_df["text"]), vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(add_cls(val_df["text"]), vocab), "labels": val_df["label"].tolist()})

torch.manual_seed({{SEED}})
model = TinyEncoder(len(vocab))

args = TrainingArguments(
    output_dir="{{NAME}}",
    learning_rate={{LR}},
    weight_decay={{WD}},
    warmup_ratio={{WARMUP_RATIO}},
    per_device_train_batch_size={{BS}},
    per_device_eval_batch_size={{EBS}},
    num_train_epochs={{EPOCHS}},
    eval_strategy="epoch",
    save_strategy="epoch",
    save_total_limit=2,
    load_best_model_at_end=True,
    metric_for_best_model="loss",
    greater_is_better=True,
    logging_steps={{LOGGING}},
    seed={{SEED}},
    push_to_hub=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                  compute_metrics=compute_metrics)
trainer.train()
trainer.save_state()
metrics = trainer.evaluate()
trainer.save_metrics("eval", metrics)
trainer.push_to_hub()
'''


# =============================================================================================
# the twelve runs
# =============================================================================================
def run01():
    """label noise: 40 % of the training labels re-drawn at random (about 27 % end up wrong)."""
    name, version = "run01", "4.41.2"
    tx, ty_clean, vx, vy = corpus_pair("intent", 2400, 600, 6, purity=0.92, kw_range=(2, 4))
    rng = np.random.RandomState(0)
    ty = ty_clean.copy()
    redraw = rng.rand(len(ty)) < 0.4
    ty[redraw] = rng.randint(0, 3, redraw.sum())
    wrong = float(np.mean(ty != ty_clean))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc)
    Xva, yva = tensors(vx, vy, voc)
    torch.manual_seed(3)
    model = BowClassifier(len(voc), 64, 128, 3, 0.1)
    cm = make_compute_metrics(["accuracy", "f1"], 3, "macro")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=2e-3, train_batch_size=32, eval_batch_size=64, num_epochs=20, logging_steps=50,
        seed=3, output_dir="intent-router-bow"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    tr_ev, _ = evaluate(res["model"], Xtr, ytr, 64, make_compute_metrics(["accuracy"], 3), "train")
    d = new_run(name)
    standard_files(d, "intent-router-bow", res, final, version, len(tx), len(vx),
                   ["all_results", "trainer_state"])
    names = LABEL_NAMES["intent"]
    rows = ["text,label,label_name"] + [f'"{tx[i]}",{ty[i]},{names[ty[i]]}' for i in range(25)]
    write(os.path.join(d, "train_sample.csv"), "\n".join(rows) + "\n")
    ev = evals(res)
    tl = train_logs(res)
    write(os.path.join(d, "forum_post.md"), f"""
**Title: intent classifier stuck - training loss won't go below ~{tl[-1]['loss']:.1f}**

Hi all, I'm training a small bag-of-words intent classifier (3 classes: billing / shipping / account)
from scratch on ~2.4k support tickets, labels are the queue each ticket ended up in. Card is below and
trainer_state.json + a few rows of the training csv are attached.

Training loss drops fast in the first epochs and then just crawls: {tl[5]['loss']} at step {tl[5]['step']},
{tl[-1]['loss']} after 20 epochs. Validation accuracy peaked at {max(e['eval_accuracy'] for e in ev):.3f}
and then slowly drifted down to {ev[-1]['eval_accuracy']:.3f}. Out of curiosity I ran the final model on the
*training* set and it only gets {tr_ev['train_accuracy']:.3f} accuracy there, which seems weird for a model that
is supposed to be memorising. I tried a bigger hidden layer and a lower lr, same thing.

What am I missing? Should I just train for longer?
""")
    TRUTH[name] = {"truth": "label_noise",
                   "symptom": f"My intent classifier's training loss won't go below ~{tl[-1]['loss']:.1f} and even "
                              f"on the training set it only gets ~{tr_ev['train_accuracy']:.0%} accuracy; validation "
                              f"accuracy tops out around {max(e['eval_accuracy'] for e in ev):.2f} and then slides down.",
                   "how": f"40% of the training labels were re-drawn uniformly at random before training "
                          f"({wrong:.1%} actually wrong); validation labels clean. Visible only in the data "
                          f"(train_sample.csv), not in code."}
    return res


def run02():
    """healthy, converges well."""
    name, version = "run02", "4.46.3"
    tx, ty, vx, vy = corpus_pair("sentiment", 2400, 600, 1, purity=0.93, kw_range=(2, 5))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc, 49, True)
    Xva, yva = tensors(vx, vy, voc, 49, True)
    torch.manual_seed(42)
    model = TinyEncoder(len(voc), 64, 2, 1, 128, 49, 2)
    cm = make_compute_metrics(["accuracy", "f1"], 2, "binary")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=1e-3, train_batch_size=32, eval_batch_size=64, num_epochs=5, warmup_ratio=0.1,
        weight_decay=0.01, logging_steps=25, seed=42, output_dir="tiny-encoder-reviews"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    d = new_run(name)
    standard_files(d, "tiny-encoder-reviews", res, final, version, len(tx), len(vx),
                   ["all_results", "eval_results", "train_results"])
    write(os.path.join(d, "forum_post.md"), f"""
**Title: First model trained from scratch - do these numbers look sane?**

I trained a 1-layer transformer encoder (64 dim, 2 heads) from scratch on 2.4k product reviews
(positive/negative). It ends at accuracy {final['eval_accuracy']:.4f} / F1 {final['eval_f1']:.4f} on 600
held-out reviews. Validation loss went {evals(res)[0]['eval_loss']:.3f} -> {final['eval_loss']:.3f} and
flattened over the last two epochs. Is this run ok, or is there something I should worry about before I
use it? Model card and result files attached.
""")
    TRUTH[name] = {"truth": "healthy",
                   "symptom": "First from-scratch text classifier, accuracy ~0.93 on held-out reviews - is "
                              "this run ok?",
                   "how": "No fault: tiny transformer encoder, AdamW 1e-3 with 10% warmup + linear decay, 5 "
                          "epochs on clean synthetic review data."}
    return res


def run03():
    """lr_schedule_bug: linear schedule built with num_training_steps=num_train_epochs (8 steps)."""
    name, version = "run03", "4.44.2"
    tx, ty, vx, vy = corpus_pair("sentiment", 2000, 500, 9, purity=0.9, kw_range=(2, 5))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc)
    Xva, yva = tensors(vx, vy, voc)
    torch.manual_seed(5)
    model = TextCNN(len(voc), 64, 64, 3, 2, batchnorm=False)
    epochs = 8
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    sch = torch.optim.lr_scheduler.LambdaLR(opt, linear_warmup(0, epochs))
    cm = make_compute_metrics(["accuracy", "f1"], 2, "binary")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=1e-3, train_batch_size=32, eval_batch_size=64, num_epochs=epochs, logging_steps=10,
        seed=5, output_dir="textcnn-review-polarity"), cm, optimizer=opt, scheduler=sch)
    final = final_evaluate(res, Xva, yva, cm)
    d = new_run(name)
    standard_files(d, "textcnn-review-polarity", res, final, version, len(tx), len(vx),
                   ["trainer_state", "eval_results"])
    write(os.path.join(d, "train.py"), sub(TRAIN_SCHED, EXTRA_IMPORT=", get_linear_schedule_with_warmup",
                                           MAX_LEN=48, SEED=5, NAME="textcnn-review-polarity", LR="1e-3",
                                           BS=32, EBS=64, EPOCHS=epochs, LOGGING=10))
    ev = evals(res)
    write(os.path.join(d, "forum_post.md"), f"""
**Title: TextCNN not learning at all with Trainer, loss stuck around 0.69**

Binary sentiment, 2k training reviews, small TextCNN I wrote myself and plugged into `Trainer` with my own
AdamW + linear schedule (script attached). Loss sits at ~0.69 for all 8 epochs and validation is literally the
same every epoch: loss {ev[0]['eval_loss']:.4f}, accuracy {ev[0]['eval_accuracy']:.3f}. A logistic regression on
bag-of-words gets ~0.9 on the same split so the data is learnable. I already checked the labels line up with
the texts. Any idea?
""")
    TRUTH[name] = {"truth": "lr_schedule_bug",
                   "symptom": "My TextCNN doesn't learn at all: loss stays ~0.69 for 8 epochs and the "
                              "validation numbers are identical every epoch.",
                   "how": "get_linear_schedule_with_warmup(num_training_steps=args.num_train_epochs) = 8, "
                          "stepped per optimizer step by Trainer: lr decays to 0 after 8 of 504 steps "
                          "(logged learning_rate 0.0 from step 10 on)."}
    return res


def run04():
    """overfitting: 500 examples, wide BoW MLP without dropout, constant lr, 40 epochs."""
    name, version = "run04", "4.35.2"
    tx, ty, vx, vy = corpus_pair("sentiment", 500, 500, 5, purity=0.85, kw_range=(1, 3))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc)
    Xva, yva = tensors(vx, vy, voc)
    torch.manual_seed(1)
    model = BowClassifier(len(voc), 128, 256, 2, 0.0)
    cm = make_compute_metrics(["accuracy", "f1", "precision", "recall"], 2, "binary")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=1e-3, train_batch_size=16, eval_batch_size=64, num_epochs=40, logging_steps=32,
        seed=1, lr_scheduler_type="constant", output_dir="bow-mlp-feedback-sentiment"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    d = new_run(name)
    standard_files(d, "bow-mlp-feedback-sentiment", res, final, version, len(tx), len(vx),
                   ["all_results", "eval_results", "train_results"])
    ev = evals(res)
    best = min(ev, key=lambda e: e["eval_loss"])
    write(os.path.join(d, "forum_post.md"), f"""
**Title: validation loss going up for 30+ epochs, is my card/eval broken?**

Small MLP over averaged word embeddings, only 500 labelled customer-feedback snippets (that's all we have),
trained 40 epochs. Training loss goes to basically zero ({train_logs(res)[-1]['loss']}) but validation loss
is lowest around epoch {int(best['epoch'])} ({best['eval_loss']:.3f}) and then climbs the whole time to
{ev[-1]['eval_loss']:.3f}. Accuracy stays around {ev[-1]['eval_accuracy']:.2f} though. Which number do I
trust, and why would the loss go up while accuracy doesn't move?
""")
    TRUTH[name] = {"truth": "overfitting",
                   "symptom": "Training loss goes to ~0 but validation loss bottoms out around epoch 6 and "
                              "then climbs for the rest of the 40 epochs.",
                   "how": "Only 500 training examples, 128-d embeddings + 256 hidden units, dropout 0, "
                          "weight decay 0, constant lr 1e-3 for 40 epochs."}
    return res


def run05():
    """tokenizer_mismatch: predict.py rebuilds the vocabulary from the new csv instead of loading vocab.json."""
    name, version = "run05", "4.41.2"
    tx, ty, vx, vy = corpus_pair("sentiment", 2400, 600, 12, purity=0.9, kw_range=(2, 5))
    sx, sy = make_corpus("sentiment", 400, 5012, purity=0.9, kw_range=(2, 5))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc)
    Xva, yva = tensors(vx, vy, voc)
    torch.manual_seed(12)
    model = GRUClassifier(len(voc), 48, 64, 2, 0.2)
    cm = make_compute_metrics(["accuracy", "f1", "precision", "recall"], 2, "binary")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=2e-3, train_batch_size=64, eval_batch_size=64, num_epochs=6, warmup_ratio=0.06,
        logging_steps=500, seed=12, output_dir="gru-review-sentiment"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    voc_pred = build_vocab(sx)
    Xs_wrong = encode(sx, voc_pred)
    assert int(Xs_wrong.max()) < len(voc)
    m = res["model"]
    m.eval()
    with torch.no_grad():
        p_wrong = m(Xs_wrong).argmax(-1).numpy()
        p_right = m(encode(sx, voc)).argmax(-1).numpy()
    acc_wrong, acc_right = float(np.mean(p_wrong == sy)), float(np.mean(p_right == sy))
    d = new_run(name)
    standard_files(d, "gru-review-sentiment", res, final, version, len(tx), len(vx), ["all_results"])
    write(os.path.join(d, "train.py"), sub(TRAIN_TOKENIZER, EXTRA_IMPORT="", MAX_LEN=48, SEED=12,
                                           NAME="gru-review-sentiment", LR="2e-3", BS=64, EBS=64,
                                           EPOCHS=6, WARMUP_RATIO=0.06))
    write(os.path.join(d, "predict.py"), sub(PREDICT_TOKENIZER, NAME="gru-review-sentiment"))
    head = "\n".join(f"{sx[i][:60]}...  label={sy[i]} pred={p_wrong[i]}" for i in range(8))
    write(os.path.join(d, "predict_output.txt"), f"$ python predict.py data/support_reviews_march.csv\n"
                                                  f"accuracy: {acc_wrong}\n$ head predictions\n{head}\n")
    write(os.path.join(d, "forum_post.md"), f"""
**Title: model card says 0.91 accuracy, my own predictions are barely better than a coin flip**

I trained a GRU sentiment model with Trainer (train.py attached), and the card shows accuracy
{final['eval_accuracy']:.4f} on the validation split. Then I ran predict.py on 400 new reviews from March that
I labelled by hand and got accuracy {acc_wrong:.4f}. The new reviews look just like the training ones (same
shop, same kind of text). Also the training loss column of my card says "No log" everywhere, not sure if
that's related. Is the model just not generalising?
""")
    TRUTH[name] = {"truth": "tokenizer_mismatch",
                   "symptom": "The card says ~0.91 validation accuracy but when I run my predict script on new "
                              "reviews I get ~0.5.",
                   "how": f"predict.py calls build_vocab() on the new csv instead of loading the vocab.json "
                          f"saved at training time, so word ids differ from training (accuracy {acc_wrong:.3f} "
                          f"vs {acc_right:.3f} with the training vocab on the same 400 reviews)."}
    return res


def run06():
    """lr_too_high: Adam at lr 0.5 (60 warm-up steps) on a BoW MLP."""
    name, version = "run06", "4.44.2"
    tx, ty, vx, vy = corpus_pair("sentiment", 2000, 500, 3, purity=0.9, kw_range=(2, 5))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc)
    Xva, yva = tensors(vx, vy, voc)
    torch.manual_seed(0)
    model = BowClassifier(len(voc), 64, 128, 2, 0.1)
    cm = make_compute_metrics(["accuracy", "f1"], 2, "binary")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=0.5, train_batch_size=32, eval_batch_size=64, num_epochs=8, warmup_steps=60,
        logging_steps=20, seed=0, output_dir="bow-sentiment-fast"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    d = new_run(name)
    standard_files(d, "bow-sentiment-fast", res, final, version, len(tx), len(vx), ["trainer_state"])
    ev = evals(res)
    write(os.path.join(d, "forum_post.md"), f"""
**Title: accuracy gets worse every epoch after the first one?**

Small averaged-embedding + MLP sentiment model trained from scratch. After epoch 1 it's already at
{ev[0]['eval_accuracy']:.3f} accuracy, and then it gets worse: {ev[1]['eval_accuracy']:.3f},
{ev[2]['eval_accuracy']:.3f}, ... and ends at {ev[-1]['eval_accuracy']:.3f} with F1 {ev[-1]['eval_f1']:.3f}.
The training loss in trainer_state.json jumps around a lot (went up to {max(e['loss'] for e in train_logs(res)):.2f}
at one point). Card and trainer_state.json attached. Is the data bad or is it the model?
""")
    TRUTH[name] = {"truth": "lr_too_high",
                   "symptom": "Validation accuracy is best after epoch 1 and then gets worse every epoch while "
                              "the training loss jumps around.",
                   "how": "AdamW learning_rate=0.5 (60 warm-up steps, linear decay) for a BoW MLP; loss falls "
                          "during warm-up then blows up and collapses towards chance."}
    return res


def run07():
    """healthy but noisy/slow: small batch GRU with dropout on a harder 4-class topic task."""
    name, version = "run07", "4.46.3"
    tx, ty, vx, vy = corpus_pair("topic", 3000, 500, 2, purity=0.85, kw_range=(1, 4))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc)
    Xva, yva = tensors(vx, vy, voc)
    torch.manual_seed(7)
    model = GRUClassifier(len(voc), 32, 48, 4, 0.3)
    cm = make_compute_metrics(["accuracy", "f1", "precision", "recall"], 4, "macro")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=1e-3, train_batch_size=16, eval_batch_size=64, num_epochs=6, logging_steps=25,
        seed=7, output_dir="gru-news-topic"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    d = new_run(name)
    standard_files(d, "gru-news-topic", res, final, version, len(tx), len(vx), ["trainer_state"])
    write(os.path.join(d, "train.py"), sub(TRAIN_NOISY_OK, EXTRA_IMPORT="", MAX_LEN=48, SEED=7,
                                           NAME="gru-news-topic", LR="1e-3", BS=16, EBS=64, EPOCHS=6,
                                           LOGGING=25))
    tl = train_logs(res)
    write(os.path.join(d, "forum_post.md"), f"""
**Title: is this training curve normal? loss very jumpy, slow first epoch**

4-class news topic classifier (GRU, trained from scratch, 3k articles). The first epoch barely moves
(loss ~{tl[0]['loss']:.2f} -> {tl[5]['loss']:.2f}), and after that the logged training loss bounces up and down
by 0.1-0.15 between logging steps. Validation keeps improving though and ends at accuracy
{final['eval_accuracy']:.3f}. Is this run ok or should I be worried about how jumpy it is? trainer_state.json and
script attached.
""")
    TRUTH[name] = {"truth": "healthy",
                   "symptom": "Training loss is very jumpy and the first epoch barely moves - is this run ok?",
                   "how": "No fault: GRU with dropout 0.3, batch 16, lr 1e-3 linear decay, on a harder 4-class "
                          "task; noisy logged loss and a slow start but validation improves every epoch."}
    return res


def run08():
    """frozen_parameters: everything except the classifier head frozen on a randomly initialised GRU."""
    name, version = "run08", "4.44.2"
    tx, ty, vx, vy = corpus_pair("sentiment", 2400, 600, 10, purity=0.9, kw_range=(2, 5), len_range=(24, 48))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc)
    Xva, yva = tensors(vx, vy, voc)
    torch.manual_seed(11)
    model = GRUClassifier(len(voc), 32, 64, 2, 0.1, pool="last")
    for n_, p in model.named_parameters():
        if not n_.startswith("classifier"):
            p.requires_grad = False
    cm = make_compute_metrics(["accuracy", "matthews_correlation"], 2, "binary")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=1e-3, train_batch_size=32, eval_batch_size=64, num_epochs=10, logging_steps=25,
        seed=11, output_dir="gru-sentiment-v2"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    d = new_run(name)
    standard_files(d, "gru-sentiment-v2", res, final, version, len(tx), len(vx), ["all_results"])
    write(os.path.join(d, "train.py"), sub(TRAIN_FROZEN, EXTRA_IMPORT="", MAX_LEN=48, SEED=11,
                                           NAME="gru-sentiment-v2", LR="1e-3", BS=32, EBS=64, EPOCHS=10,
                                           LOGGING=25))
    tl = train_logs(res)
    write(os.path.join(d, "forum_post.md"), f"""
**Title: GRU sentiment model plateaus at ~{final['eval_accuracy']:.2f} accuracy no matter what**

I adapted a tutorial script to train a GRU classifier from scratch on 2.4k reviews (script attached).
Training loss goes from {tl[0]['loss']} to {tl[-1]['loss']} over 10 epochs and validation accuracy ends at
{final['eval_accuracy']:.3f} (MCC {final['eval_matthews_correlation']:.3f}). I tried lr 1e-3 and 3e-3 and
a bigger hidden size, barely any difference. Other people get 0.9+ on this kind of data. What's wrong?
""")
    TRUTH[name] = {"truth": "frozen_parameters",
                   "symptom": "My GRU sentiment model's loss barely moves (0.70 -> 0.68) and accuracy plateaus "
                              "around 0.56 whatever lr or size I try.",
                   "how": "train.py sets requires_grad=False on every parameter whose name does not start with "
                          "'classifier', so only the linear head on top of a randomly initialised "
                          "embedding+GRU is trained."}
    return res


def run09():
    """lr_too_low: HF default-ish lr 5e-5 for a from-scratch BoW model."""
    name, version = "run09", "4.35.2"
    tx, ty, vx, vy = corpus_pair("intent", 2400, 600, 4)
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc)
    Xva, yva = tensors(vx, vy, voc)
    torch.manual_seed(42)
    model = BowClassifier(len(voc), 64, 64, 3)
    cm = make_compute_metrics(["accuracy", "f1"], 3, "weighted")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=5e-5, train_batch_size=32, eval_batch_size=32, num_epochs=10, logging_steps=50,
        seed=42, output_dir="ticket-intent-mlp"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    d = new_run(name)
    standard_files(d, "ticket-intent-mlp", res, final, version, len(tx), len(vx), ["all_results"])
    ev = evals(res)
    write(os.path.join(d, "forum_post.md"), f"""
**Title: validation loss barely changes in 10 epochs (1.097 -> 1.088)**

Training a small embedding-bag + MLP intent model (3 classes) from scratch on 2.4k tickets with
`Trainer`. Validation loss went {ev[0]['eval_loss']:.4f} -> {ev[-1]['eval_loss']:.4f} in 10 epochs and accuracy
is {final['eval_accuracy']:.3f}. It is going down, just painfully slowly. Do I need a bigger model or just many more
epochs? Part of my log_history:

```
{log_excerpt(res, version)}
```
""")
    TRUTH[name] = {"truth": "lr_too_low",
                   "symptom": "After 10 epochs validation loss has only moved from 1.097 to 1.088 and accuracy "
                              "is ~0.42 - it's learning, just extremely slowly.",
                   "how": "learning_rate=5e-5 (a fine-tuning default) for a randomly initialised BoW MLP, with "
                          "linear decay; loss falls almost linearly and very little."}
    return res


def run10():
    """data_leakage: the 'section' column (a 1:1 function of the label) is concatenated into the text."""
    name, version = "run10", "4.46.3"
    tx, ty, vx, vy = corpus_pair("topic", 3000, 600, 8, purity=0.75, kw_range=(1, 3))
    sec = ["world", "sport", "business", "technology"]
    ltx = [t + " " + sec[y] for t, y in zip(tx, ty)]
    lvx = [t + " " + sec[y] for t, y in zip(vx, vy)]
    voc = build_vocab(ltx)
    Xtr, ytr = tensors(ltx, ty, voc, 56)
    Xva, yva = tensors(lvx, vy, voc, 56)
    torch.manual_seed(2)
    model = TextCNN(len(voc), 48, 64, 3, 4, batchnorm=False)
    cm = make_compute_metrics(["accuracy", "f1"], 4, "macro")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=3e-3, train_batch_size=32, eval_batch_size=64, num_epochs=5, logging_steps=20,
        seed=2, output_dir="textcnn-article-topics"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    fx, fy = make_corpus("topic", 400, 8500, purity=0.75, kw_range=(1, 3))
    live, _ = evaluate(res["model"], encode(fx, voc, 56), torch.tensor(fy), 64,
                       make_compute_metrics(["accuracy", "f1"], 4, "macro"), "live")
    d = new_run(name)
    standard_files(d, "textcnn-article-topics", res, final, version, len(tx), len(vx), ["all_results"])
    write(os.path.join(d, "train.py"), sub(TRAIN_LEAK, EXTRA_IMPORT="", MAX_LEN=56, SEED=2,
                                           NAME="textcnn-article-topics", LR="3e-3", BS=32, EBS=64,
                                           EPOCHS=5, LOGGING=20, VAL_FRAC=0.1667))
    rows = ["headline,body,section,label"]
    for i in range(15):
        w = tx[i].split()
        rows.append(f'"{" ".join(w[:7])}","{" ".join(w[7:])}",{sec[ty[i]]},{ty[i]}')
    write(os.path.join(d, "articles_labelled_head.csv"), "\n".join(rows) + "\n")
    tl = train_logs(res)
    write(os.path.join(d, "forum_post.md"), f"""
**Title: 100% validation accuracy after one epoch, but the deployed model is terrible**

TextCNN topic classifier (World / Sports / Business / Sci-Tech) trained from scratch on 3.6k labelled
articles from our CMS, random 1/6 held out for validation (script + a few rows of the csv attached).
The card shows accuracy 1.0 on validation from the very first epoch (val loss {evals(res)[0]['eval_loss']:.4f},
lower than the training loss at that point, {tl[min(3, len(tl) - 1)]['loss']}). But when we run the model on
the incoming feed (headline + body, 400 articles our editors labelled afterwards) accuracy is
{live['live_accuracy']:.3f}. How can the validation set be so far off from real traffic?
""")
    TRUTH[name] = {"truth": "data_leakage",
                   "symptom": "Validation accuracy is 1.0 from the first epoch but on real incoming articles "
                              "the model only gets ~0.3.",
                   "how": "build_text() appends the CMS 'section' column, which is a 1:1 function of the label, "
                          "to every input (train and validation); the live feed has no section, where accuracy "
                          f"is {live['live_accuracy']:.3f}."}
    return res


def run11():
    """wrong_checkpoint: load_best_model_at_end with metric_for_best_model='loss' and greater_is_better=True."""
    name, version = "run11", "4.41.2"
    tx, ty, vx, vy = corpus_pair("intent", 2400, 600, 13, purity=0.88, kw_range=(1, 4))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc, 49, True)
    Xva, yva = tensors(vx, vy, voc, 49, True)
    torch.manual_seed(13)
    model = TinyEncoder(len(voc), 64, 2, 1, 128, 49, 3)
    cm = make_compute_metrics(["accuracy", "f1"], 3, "macro")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=5e-4, train_batch_size=32, eval_batch_size=64, num_epochs=8, warmup_ratio=0.1,
        weight_decay=0.01, logging_steps=50, seed=13, load_best_model_at_end=True,
        metric_for_best_model="loss", greater_is_better=True, save_total_limit=2,
        output_dir="support-intent-encoder"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    d = new_run(name)
    standard_files(d, "support-intent-encoder", res, final, version, len(tx), len(vx),
                   ["trainer_state", "eval_results"])
    write(os.path.join(d, "train.py"), sub(TRAIN_CKPT, EXTRA_IMPORT="", MAX_LEN=49, SEED=13,
                                           NAME="support-intent-encoder", LR="5e-4", WD=0.01,
                                           WARMUP_RATIO=0.1, BS=32, EBS=64, EPOCHS=8, LOGGING=50))
    ev = evals(res)
    write(os.path.join(d, "forum_post.md"), f"""
**Title: card header shows much worse numbers than the training table?**

My auto-generated model card says at the top "Accuracy: {final['eval_accuracy']:.4f}", but the training
results table right below it ends with accuracy {ev[-1]['eval_accuracy']:.4f} at epoch 8. The model I pulled
from the Hub also behaves like the worse number when I test it. The training looked fine to me, loss kept
going down. Why would the final evaluation not match the last epoch? Script, trainer_state.json and
eval_results.json attached.
""")
    TRUTH[name] = {"truth": "wrong_checkpoint",
                   "symptom": "The card header says accuracy ~0.53 but the training table ends at ~0.83, and the "
                              "pushed model behaves like the worse number.",
                   "how": "load_best_model_at_end=True with metric_for_best_model='loss' and "
                          "greater_is_better=True: the checkpoint with the HIGHEST eval loss (epoch 1, "
                          f"{res['state']['best_model_checkpoint']}) is reloaded, evaluated and pushed."}
    return res


def run12():
    """batch_size_too_small: batch 2 with batch-norm on pooled features."""
    name, version = "run12", "4.44.2"
    tx, ty, vx, vy = corpus_pair("topic", 1000, 500, 14, purity=0.9, kw_range=(2, 4))
    voc = build_vocab(tx)
    Xtr, ytr = tensors(tx, ty, voc)
    Xva, yva = tensors(vx, vy, voc)
    torch.manual_seed(14)
    model = TextCNN(len(voc), 48, 64, 3, 4, batchnorm=True)
    cm = make_compute_metrics(["accuracy", "f1"], 4, "macro")
    res = hf_train(model, Xtr, ytr, Xva, yva, dict(
        learning_rate=1e-3, train_batch_size=2, eval_batch_size=64, num_epochs=5, logging_steps=50,
        seed=14, output_dir="cnn-topic-small"), cm)
    final = final_evaluate(res, Xva, yva, cm)
    d = new_run(name)
    standard_files(d, "cnn-topic-small", res, final, version, len(tx), len(vx), ["trainer_state"])
    cfg = {"architectures": ["TextCNNForSequenceClassification"], "model_type": "textcnn",
           "vocab_size": len(voc), "embedding_dim": 48, "num_filters": 64, "kernel_size": 3,
           "pooling": "max", "use_batch_norm": True, "classifier_dropout": 0.1,
           "id2label": {str(i): l for i, l in enumerate(LABEL_NAMES["topic"])},
           "label2id": {l: i for i, l in enumerate(LABEL_NAMES["topic"])},
           "max_position_embeddings": 48, "torch_dtype": "float32", "transformers_version": "4.44.2"}
    dump(os.path.join(d, "config.json"), cfg)
    tl = train_logs(res)
    write(os.path.join(d, "forum_post.md"), f"""
**Title: CNN topic model - loss all over the place, stuck at ~{final['eval_accuracy']:.2f} accuracy**

Small TextCNN (conv + max-pool + batch norm + linear) for 4 news topics, 1k training articles, trained with
Trainer for 5 epochs. I can only fit a tiny batch on my old laptop GPU so I used per_device_train_batch_size=2.
The logged loss never really settles ({min(e['loss'] for e in tl):.2f}-{max(e['loss'] for e in tl):.2f}), grad_norm
jumps into the hundreds sometimes and validation accuracy ends at {final['eval_accuracy']:.3f}. Config, card
and trainer_state.json attached. Is the architecture just too weak?
""")
    TRUTH[name] = {"truth": "batch_size_too_small",
                   "symptom": "My CNN's loss never settles, grad-norm spikes into the hundreds and validation "
                              "accuracy is stuck below 0.5.",
                   "how": "per_device_train_batch_size=2 with BatchNorm1d on the pooled features (batch "
                          "statistics over 2 samples) and lr 1e-3; the same model with batch 32 reaches ~0.77 "
                          "in 5 epochs."}
    return res


RUN_FUNCS = [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]


def main():
    only = sys.argv[1:]
    os.makedirs(RUNS, exist_ok=True)
    truth_path = os.path.join(HERE, "truth.json")
    if only and os.path.exists(truth_path):
        TRUTH.update(json.load(open(truth_path)))
    for fn in RUN_FUNCS:
        if only and fn.__name__ not in only:
            continue
        t0 = time.time()
        fn()
        print(f"{fn.__name__}: {time.time() - t0:.1f}s", flush=True)
    with open(truth_path, "w") as f:
        json.dump(dict(sorted(TRUTH.items())), f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
