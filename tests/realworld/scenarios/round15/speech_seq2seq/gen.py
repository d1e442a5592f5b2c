#!/usr/bin/env python
"""Generator for the speech / seq2seq benchmark runs.

Every run is a real (small, CPU) training. Each run's code is assembled from the
source blocks below into one self-contained script, executed with cwd = the run
folder (stdout -> the run's log).  For about half of the runs that script is kept
in the run folder as train.py (plus eval scripts where the run has them); for the
others it is written to a temporary folder and removed afterwards.

All randomness is seeded; torch uses one thread.  Wall-clock timestamps/timings in
the logs are real and therefore differ between invocations; all metrics do not.

Usage:  python gen.py [run names...]     (default: all runs)
"""
import json, os, shutil, subprocess, sys, tempfile, textwrap

OUT = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(OUT, "runs")
PY = sys.executable

# ----------------------------------------------------------------------------
# shared source blocks
# ----------------------------------------------------------------------------
HEAD = '''\
import math
import os
import random
import socket
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
'''

# synthetic "speech": each character is a few frames of a fixed prototype vector,
# words are separated by silence frames, every utterance gets its own gain/offset
# ("speaker/channel") and white noise.
ASR_DATA = '''
def make_toy_world(seed, n_letters=14, n_words=80, feat_dim=24):
    rng = np.random.default_rng(seed)
    letters = "abcdefghijklmnopqrst"[:n_letters]
    protos = rng.standard_normal((n_letters + 1, feat_dim)).astype(np.float32)
    lexicon = set()
    while len(lexicon) < n_words:
        lexicon.add("".join(rng.choice(list(letters), int(rng.integers(2, 6)))))
    return letters, protos, sorted(lexicon)


def make_toy_utts(world, n, seed, noise=0.8, dur=(2, 5), max_words=5, prefix="utt"):
    letters, protos, lexicon = world
    rng = np.random.default_rng(seed)
    utts = []
    for i in range(n):
        words = [lexicon[j] for j in rng.integers(0, len(lexicon), int(rng.integers(2, max_words + 1)))]
        gain = rng.uniform(0.7, 1.3)
        offset = rng.normal(0.0, 0.7, protos.shape[1]) + 3.0
        frames = []
        for k, w in enumerate(words):
            if k:
                frames += [protos[-1]] * int(rng.integers(1, 3))
            for c in w:
                frames += [protos[letters.index(c)]] * int(rng.integers(*dur))
        x = np.stack(frames) * gain + offset + noise * rng.standard_normal((len(frames), protos.shape[1]))
        utts.append((f"{prefix}{i:05d}", x.astype(np.float32), " ".join(words)))
    return utts


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[:], i
        for j in range(1, len(b) + 1):
            d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
    return d[len(b)]


def word_error_rate(hyps, refs):
    errs = sum(edit_distance(h.split(), r.split()) for h, r in zip(hyps, refs))
    return errs / max(1, sum(len(r.split()) for r in refs))


def char_error_rate(hyps, refs):
    errs = sum(edit_distance(list(h), list(r)) for h, r in zip(hyps, refs))
    return errs / max(1, sum(len(r) for r in refs))
'''

# ----------------------------------------------------------------------------
# ESPnet-style hybrid CTC/attention recipe (internal runner, not kept in runs)
# ----------------------------------------------------------------------------
ESPNET_RUNNER = HEAD + ASR_DATA + r'''
import datetime, json

CFG = json.load(open(sys.argv[1]))
HOST = CFG["host"]
CKPT = CFG["ckpt_dir"]
EXP = CFG["exp"]
os.makedirs(CKPT, exist_ok=True)


def stamp():
    t = datetime.datetime.now()
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"


def log(src, msg):
    print(f"[{HOST}] {stamp()} ({src}) INFO: {msg}", flush=True)


def efmt(v):
    if isinstance(v, float):
        if abs(v) > 1.0e3 or (abs(v) < 1.0e-3 and v != 0.0):
            return f"{v:.3e}"
        return f"{v:.3f}"
    return str(v)


class GlobalMVN(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean))
        self.register_buffer("std", torch.tensor(std))

    def forward(self, x):
        return (x - self.mean) / self.std

    def extra_repr(self):
        return f"stats_file=exp/asr_stats_raw_en_char/train/feats_stats.npz, norm_means=True, norm_vars=True"


class RNNEncoder(nn.Module):
    def __init__(self, idim, hidden, out, layers, dropout):
        super().__init__()
        self.conv = nn.Conv1d(idim, 128, 3, stride=2, padding=1)
        self.rnn = nn.GRU(128, hidden, num_layers=layers, batch_first=True, bidirectional=True,
                          dropout=dropout if layers > 1 else 0.0)
        self.proj = nn.Linear(2 * hidden, out)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, lens):
        y = F.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        lens = (lens + 1) // 2
        y = nn.utils.rnn.pack_padded_sequence(self.dropout(y), lens, batch_first=True, enforce_sorted=False)
        y, _ = self.rnn(y)
        y, _ = nn.utils.rnn.pad_packed_sequence(y, batch_first=True)
        return torch.tanh(self.proj(self.dropout(y))), lens


class RNNDecoder(nn.Module):
    def __init__(self, vocab, att_dim, hidden, dropout):
        super().__init__()
        self.embed = nn.Embedding(vocab, 64)
        self.decoder = nn.GRU(64, hidden, batch_first=True)
        self.att_q = nn.Linear(hidden, att_dim, bias=False)
        self.output = nn.Linear(hidden + att_dim, vocab)
        self.dropout = nn.Dropout(dropout)

    def attend(self, d, enc, mask):
        sc = torch.bmm(self.att_q(d), enc.transpose(1, 2)).masked_fill(~mask[:, None, :], -1e9)
        ctx = torch.bmm(sc.softmax(-1), enc)
        return self.output(self.dropout(torch.cat([d, ctx], -1)))

    def forward(self, ys_in, enc, mask, h=None):
        d, h = self.decoder(self.dropout(self.embed(ys_in)), h)
        return self.attend(d, enc, mask), h


class CTC(nn.Module):
    def __init__(self, odim, eprojs):
        super().__init__()
        self.ctc_lo = nn.Linear(eprojs, odim)
        self.ctc_loss = nn.CTCLoss(reduction="sum", zero_infinity=True)


class ESPnetASRModel(nn.Module):
    def __init__(self, vocab, idim, mean, std, c):
        super().__init__()
        self.normalize = GlobalMVN(mean, std)
        self.encoder = RNNEncoder(idim, c["hidden"], c["eprojs"], c["elayers"], c["dropout"])
        self.decoder = RNNDecoder(vocab, c["eprojs"], c["eprojs"], c["dropout"])
        self.ctc = CTC(vocab, c["eprojs"])
        self.criterion_att = nn.CrossEntropyLoss(ignore_index=-1, reduction="sum")
        self.sos = self.eos = vocab - 1
        self.ctc_weight = c["ctc_weight"]

    def forward(self, x, lens, ys):
        B = len(ys)
        enc, elens = self.encoder(self.normalize(x), lens)
        lp = self.ctc.ctc_lo(enc).log_softmax(-1)
        tl = torch.tensor([len(y) for y in ys])
        loss_ctc = self.ctc.ctc_loss(lp.transpose(0, 1), torch.tensor(sum(ys, [])), elens, tl) / B
        L = max(len(y) for y in ys) + 1
        ys_in = torch.full((B, L), self.sos, dtype=torch.long)
        ys_out = torch.full((B, L), -1, dtype=torch.long)
        for i, y in enumerate(ys):
            ys_in[i, 1:len(y) + 1] = torch.tensor(y)
            ys_out[i, :len(y)] = torch.tensor(y)
            ys_out[i, len(y)] = self.eos
        mask = torch.arange(enc.shape[1])[None, :] < elens[:, None]
        logits, _ = self.decoder(ys_in, enc, mask)
        loss_att = self.criterion_att(logits.reshape(-1, logits.shape[-1]), ys_out.reshape(-1)) / B
        valid = ys_out >= 0
        pred = logits.argmax(-1)
        acc = ((pred == ys_out) & valid).sum().item() / valid.sum().item()
        loss = self.ctc_weight * loss_ctc + (1 - self.ctc_weight) * loss_att
        return loss, loss_ctc, loss_att, acc, dict(enc=enc, elens=elens, pred=pred, ys_out=ys_out, lp=lp, mask=mask)


TOKENS = None


def ids2text(ids):
    out = []
    for i in ids:
        if i == len(TOKENS) - 1:
            break
        t = TOKENS[i]
        out.append(" " if t == "<space>" else ("" if t in ("<blank>", "<unk>") else t))
    return "".join(out)


def ctc_greedy(lp, elens):
    best = lp.argmax(-1)
    res = []
    for i in range(len(elens)):
        prev, seq = -1, []
        for c in best[i, :elens[i]].tolist():
            if c != prev and c != 0:
                seq.append(c)
            prev = c
        res.append(seq)
    return res


def batches(utts, bs, rng=None):
    idx = np.arange(len(utts)) if rng is None else rng.permutation(len(utts))
    for b in range(0, len(utts), bs):
        items = [utts[i] for i in idx[b:b + bs]]
        xs = [torch.from_numpy(x) for _, x, _ in items]
        yield (nn.utils.rnn.pad_sequence(xs, batch_first=True), torch.tensor([len(x) for x in xs]),
               [[TOK2ID.get("<space>" if ch == " " else ch, 1) for ch in t] for _, _, t in items],
               [t for _, _, t in items])


def warmup_lr(base, step, warmup):
    if warmup is None:
        return base
    return base * warmup ** 0.5 * min(step ** -0.5, step * warmup ** -1.5)


def joint_decode(model, x, lens, ctc_weight):
    # one-best joint CTC/attention search (beam 1) with CTC prefix scores
    enc, elens = model.encoder(model.normalize(x), lens)
    mask = torch.ones(1, enc.shape[1], dtype=torch.bool)
    lp = model.ctc.ctc_lo(enc).log_softmax(-1)[0].numpy().astype(np.float64)
    T, V = lp.shape
    eos = model.eos
    r_n = np.full(T, -np.inf)
    r_b = np.cumsum(lp[:, 0])
    prev_ctc = 0.0
    hyp, h, tok = [], None, torch.full((1, 1), model.sos, dtype=torch.long)
    for _ in range(T):
        o, h = model.decoder(tok, enc, mask, h)
        att = o[0, 0].log_softmax(-1).numpy().astype(np.float64)
        # CTC prefix score for every extension c
        last = hyp[-1] if hyp else None
        rn_new = np.full((T, V), -np.inf)
        rb_new = np.full((T, V), -np.inf)
        if not hyp:
            rn_new[0] = lp[0]
        r_sum = np.logaddexp(r_n, r_b)
        psi = rn_new[0].copy()
        for t in range(1, T):
            phi = np.full(V, r_sum[t - 1])
            if last is not None:
                phi[last] = r_b[t - 1]
            rn_new[t] = np.logaddexp(rn_new[t - 1], phi) + lp[t]
            rb_new[t] = np.logaddexp(rb_new[t - 1], rn_new[t - 1]) + lp[t, 0]
            psi = np.logaddexp(psi, phi + lp[t])
        psi[eos] = np.logaddexp(r_n[-1], r_b[-1])
        psi[0] = -np.inf
        score = (1 - ctc_weight) * att + ctc_weight * (psi - prev_ctc)
        score[0] = -np.inf
        c = int(score.argmax())
        if c == eos:
            break
        hyp.append(c)
        r_n, r_b, prev_ctc = rn_new[:, c], rb_new[:, c], psi[c]
        tok = torch.tensor([[c]])
    return hyp


def greedy_decode(model, x, lens):
    enc, elens = model.encoder(model.normalize(x), lens)
    maxlen = int(elens.max())  # maxlenratio=0.0
    mask = torch.arange(enc.shape[1])[None, :] < elens[:, None]
    tok = torch.full((x.shape[0], 1), model.sos, dtype=torch.long)
    h, outs, done = None, [[] for _ in range(x.shape[0])], [False] * x.shape[0]
    for _ in range(maxlen):
        o, h = model.decoder(tok, enc, mask, h)
        o = o.argmax(-1)
        for i in range(x.shape[0]):
            if not done[i]:
                if o[i, 0].item() == model.eos:
                    done[i] = True
                else:
                    outs[i].append(o[i, 0].item())
        tok = o
        if all(done):
            break
    return outs


def load_data():
    global TOKENS, TOK2ID
    world = make_toy_world(CFG["world_seed"], CFG["n_letters"], CFG["n_words"], CFG["feat_dim"])
    tr = make_toy_utts(world, CFG["n_train"], CFG["data_seed"], CFG["noise"], tuple(CFG["dur"]), prefix="tr")
    dv = make_toy_utts(world, CFG["n_valid"], CFG["data_seed"] + 1, CFG["noise"], tuple(CFG["dur"]), prefix="dv")
    te = make_toy_utts(world, CFG.get("n_test", 200), CFG["data_seed"] + 2, CFG["noise"], tuple(CFG["dur"]), prefix="te")
    cnt = {}
    for _, _, t in tr:
        for ch in t:
            cnt[ch] = cnt.get(ch, 0) + 1
    chars = sorted(cnt, key=lambda c: -cnt[c])
    TOKENS = ["<blank>", "<unk>"] + ["<space>" if c == " " else c for c in chars] + ["<sos/eos>"]
    TOK2ID = {t: i for i, t in enumerate(TOKENS)}
    allx = np.concatenate([x for _, x, _ in tr])
    return tr, dv, te, allx.mean(0), allx.std(0)


def write_config(path, c):
    lines = []
    lines += [f"config: conf/{c['conf_name']}", f"print_config: false", "log_level: INFO", "dry_run: false",
              "iterator_type: sequence", f"output_dir: {EXP}", "ngpu: 0", f"seed: {c['seed']}",
              "num_workers: 1", "num_att_plot: 0", "dist_backend: nccl", "dist_init_method: env://",
              "unused_parameters: false", "sharded_ddp: false", "cudnn_enabled: true", "cudnn_benchmark: false",
              "cudnn_deterministic: true", "collect_stats: false", "write_collected_feats: false",
              f"max_epoch: {c['max_epoch']}", "patience: null", "val_scheduler_criterion:", "- valid", "- loss",
              "early_stopping_criterion:", "- valid", "- loss", "- min", "best_model_criterion:"]
    for crit in c["best"]:
        lines += ["-   - " + crit[0], "    - " + crit[1], "    - " + crit[2]]
    lines += [f"keep_nbest_models: {c['keep_nbest']}", "nbest_averaging_interval: 0",
              f"grad_clip: {c['grad_clip']}", "grad_clip_type: 2.0", "grad_noise: false", "accum_grad: 1",
              "no_forward_run: false", "resume: true", "train_dtype: float32", "use_amp: false",
              f"log_interval: {c['log_interval']}", "use_matplotlib: true", "use_tensorboard: true",
              "use_wandb: false", "detect_anomaly: false", "pretrain_path: null", "init_param: []",
              "ignore_init_mismatch: false", "freeze_param: []", "num_iters_per_epoch: null",
              f"batch_size: {c['batch_size']}", "valid_batch_size: null", "batch_bins: 1000000",
              "valid_batch_bins: null", "batch_type: unsorted",
              "train_shape_file:", "- exp/asr_stats_raw_en_char/train/speech_shape",
              "- exp/asr_stats_raw_en_char/train/text_shape.char",
              "valid_shape_file:", "- exp/asr_stats_raw_en_char/valid/speech_shape",
              "- exp/asr_stats_raw_en_char/valid/text_shape.char",
              "train_data_path_and_name_and_type:", f"-   - dump/raw/{c['train_set']}/feats.scp", "    - speech", "    - kaldi_ark",
              f"-   - dump/raw/{c['train_set']}/text", "    - text", "    - text",
              "valid_data_path_and_name_and_type:", "-   - dump/raw/dev/feats.scp", "    - speech", "    - kaldi_ark",
              "-   - dump/raw/dev/text", "    - text", "    - text",
              f"optim: {c['optim']}", "optim_conf:", f"    lr: {c['lr']}"]
    if c.get("weight_decay") is not None:
        lines.append(f"    weight_decay: {c['weight_decay']}")
    if c["warmup"] is None:
        lines += ["scheduler: null", "scheduler_conf: {}"]
    else:
        lines += ["scheduler: warmuplr", "scheduler_conf:", f"    warmup_steps: {c['warmup']}"]
    lines += ["token_list:"] + [f"- {t}" for t in TOKENS]
    lines += ["init: null", f"input_size: {c['feat_dim']}", "ctc_conf:", "    dropout_rate: 0.0",
              "    ctc_type: builtin", "    reduce: true", "    ignore_nan_grad: null", "    zero_infinity: true",
              "joint_net_conf: null", "use_preprocessor: true", "token_type: char", "bpemodel: null",
              "non_linguistic_symbols: null", "cleaner: null", "g2p: null", "speech_volume_normalize: null",
              "rir_scp: null", "rir_apply_prob: 1.0", "noise_scp: null", "noise_apply_prob: 1.0",
              "noise_db_range: '13_15'", "short_noise_thres: 0.5", "frontend: null", f"specaug: null",
              "normalize: global_mvn", "normalize_conf:",
              "    stats_file: exp/asr_stats_raw_en_char/train/feats_stats.npz",
              "model: espnet", "model_conf:", f"    ctc_weight: {c['ctc_weight']}", "    lsm_weight: 0.0",
              "    length_normalized_loss: false", "    report_cer: true", "    report_wer: true",
              "preencoder: null", "preencoder_conf: {}", "encoder: rnn", "encoder_conf:",
              "    rnn_type: gru", "    bidirectional: true", "    use_projection: true",
              f"    num_layers: {c['elayers']}", f"    hidden_size: {c['hidden']}", f"    output_size: {c['eprojs']}",
              f"    dropout: {c['dropout']}", "    subsample:", "    - 2",
              "postencoder: null", "postencoder_conf: {}", "decoder: rnn", "decoder_conf:",
              "    rnn_type: gru", "    num_layers: 1", f"    hidden_size: {c['eprojs']}", "    sampling_probability: 0.0",
              f"    dropout: {c['dropout']}", "    context_residual: false", "    replace_sos: false",
              "    num_encs: 1", "    att_conf:", "        atype: dot", f"        adim: {c['eprojs']}",
              "required:", "- output_dir", "- token_list", "version: '202412'", "distributed: false"]
    open(path, "w").write("\n".join(lines) + "\n")


def evaluate(model, utts, bs):
    model.eval()
    s = dict(loss_ctc=0.0, loss_att=0.0, acc=0.0, loss=0.0)
    hyp_ctc, hyp_att, refs = [], [], []
    n = 0
    with torch.no_grad():
        for x, lens, ys, texts in batches(utts, bs):
            loss, lc, la, acc, aux = model(x, lens, ys)
            B = len(ys)
            s["loss_ctc"] += lc.item() * B; s["loss_att"] += la.item() * B
            s["acc"] += acc * B; s["loss"] += loss.item() * B
            n += B
            hyp_ctc += [ids2text(h) for h in ctc_greedy(aux["lp"], aux["elens"])]
            hyp_att += [ids2text(p[:len(y)]) for p, y in zip(aux["pred"].tolist(), ys)]
            refs += texts
    r = {k: v / n for k, v in s.items()}
    return dict(loss_ctc=r["loss_ctc"], cer_ctc=char_error_rate(hyp_ctc, refs), loss_att=r["loss_att"],
                acc=r["acc"], cer=char_error_rate(hyp_att, refs), wer=word_error_rate(hyp_att, refs),
                loss=r["loss"])


def train():
    c = CFG
    tr, dv, te, mean, std = load_data()
    if c.get("train_subset"):
        tr = tr[:c["train_subset"]]
    torch.manual_seed(c["seed"])
    np.random.seed(c["seed"])
    model = ESPnetASRModel(len(TOKENS), c["feat_dim"], mean, std, c)
    opt_cls = dict(adam=torch.optim.Adam, adadelta=torch.optim.Adadelta, adamw=torch.optim.AdamW)[c["optim"]]
    kw = {"lr": c["lr"]}
    if c.get("weight_decay") is not None:
        kw["weight_decay"] = c["weight_decay"]
    opt = opt_cls(model.parameters(), **kw)
    print(f"# python3 -m espnet2.bin.asr_train --use_preprocessor true --bpemodel none --token_type char "
          f"--token_list data/en_token_list/char/tokens.txt --non_linguistic_symbols none --cleaner none --g2p none "
          f"--valid_data_path_and_name_and_type dump/raw/dev/feats.scp,speech,kaldi_ark "
          f"--valid_data_path_and_name_and_type dump/raw/dev/text,text,text "
          f"--valid_shape_file exp/asr_stats_raw_en_char/valid/speech_shape "
          f"--valid_shape_file exp/asr_stats_raw_en_char/valid/text_shape.char --resume true --init_param "
          f"--ignore_init_mismatch false --fold_length 800 --fold_length 150 --output_dir {EXP} "
          f"--config conf/{c['conf_name']} --input_size={c['feat_dim']} --normalize=global_mvn "
          f"--normalize_conf stats_file=exp/asr_stats_raw_en_char/train/feats_stats.npz "
          f"--train_data_path_and_name_and_type dump/raw/{c['train_set']}/feats.scp,speech,kaldi_ark "
          f"--train_data_path_and_name_and_type dump/raw/{c['train_set']}/text,text,text "
          f"--train_shape_file exp/asr_stats_raw_en_char/train/speech_shape "
          f"--train_shape_file exp/asr_stats_raw_en_char/train/text_shape.char --ngpu 0 --multiprocessing_distributed False")
    t_start = time.time()
    print("# Started at " + time.strftime("%a %b %d %H:%M:%S UTC %Y"))
    print("#")
    log("asr:523", f"Vocabulary size: {len(TOKENS)}")
    log("abs_task:1229", f"pytorch.version={torch.__version__}, cuda.available=False, cudnn.version=None, cudnn.benchmark=False, cudnn.deterministic=True")
    nparam = sum(p.numel() for p in model.parameters())
    log("abs_task:1230", "Model structure:\n" + repr(model) + "\n\nModel summary:\n"
        f"    Class Name: ESPnetASRModel\n    Total Number of model parameters: {nparam / 1e3:.2f} K\n"
        f"    Number of trainable parameters: {nparam / 1e3:.2f} K (100.0%)\n"
        f"    Size: {nparam * 4 / 1e6:.2f} MB\n    Type: torch.float32")
    log("abs_task:1233", "Optimizer:\n" + repr(opt))
    log("abs_task:1234", "Scheduler: " + ("None" if c["warmup"] is None else f"WarmupLR(warmup_steps={c['warmup']})"))
    log("abs_task:1243", f"Saving the configuration in {EXP}/config.yaml")
    write_config("config.yaml", c)
    rng = np.random.default_rng(c["seed"])
    step = 0
    hist = {}
    kept = []
    best_vals = {tuple(k): None for k in c["best"]}
    nb = math.ceil(len(tr) / c["batch_size"])
    for ep in range(1, c["max_epoch"] + 1):
        log("trainer:284", f"{ep}/{c['max_epoch']}epoch started")
        model.train()
        t_ep = time.time()
        acc_int, acc_ep = [], []
        t_prev = time.time()
        for bi, (x, lens, ys, _) in enumerate(batches(tr, c["batch_size"], rng), 1):
            t0 = time.time()
            iter_time = t0 - t_prev
            step += 1
            lr = warmup_lr(c["lr"], step, c["warmup"])
            for g in opt.param_groups:
                g["lr"] = lr
            loss, lc, la, acc, _ = model(x, lens, ys)
            t1 = time.time()
            opt.zero_grad()
            loss.backward()
            t2 = time.time()
            gn = nn.utils.clip_grad_norm_(model.parameters(), c["grad_clip"]).item()
            opt.step()
            t3 = time.time()
            rec = dict(iter_time=iter_time, forward_time=t1 - t0, loss_ctc=lc.item(), loss_att=la.item(), acc=acc,
                       loss=loss.item(), backward_time=t2 - t1, grad_norm=gn,
                       clip=100.0 if gn > c["grad_clip"] else 0.0, loss_scale=1.0,
                       optim_step_time=t3 - t2, optim0_lr0=lr, train_time=time.time() - t_prev)
            t_prev = time.time()
            acc_int.append(rec); acc_ep.append(rec)
            if bi % c["log_interval"] == 0 or bi == nb:
                lo = bi - len(acc_int) + 1
                msg = ", ".join(f"{k}={efmt(float(np.mean([r[k] for r in acc_int])))}" for k in rec)
                log("trainer:346", f"{ep}epoch:train:{lo}-{bi}batch: {msg}")
                acc_int = []
        tr_time = time.time() - t_ep
        t_v = time.time()
        vres = evaluate(model, dv, c["batch_size"])
        v_time = time.time() - t_v
        keys = ["iter_time", "forward_time", "loss_ctc", "loss_att", "acc", "loss", "backward_time", "grad_norm",
                "clip", "loss_scale", "optim_step_time", "optim0_lr0", "train_time"]
        trs = ", ".join(f"{k}={efmt(float(np.mean([r[k] for r in acc_ep])))}" for k in keys)
        vs = ", ".join(f"{k}={efmt(float(v))}" for k, v in vres.items())
        log("trainer:338", f"{ep}epoch results: [train] {trs}, time={tr_time:.2f} seconds, total_count={step}, "
            f"[valid] {vs}, time={v_time:.2f} seconds, total_count={ep * math.ceil(len(dv) / c['batch_size'])}, "
            f"[att_plot] time=0.00 seconds, total_count=0")
        hist[ep] = dict(vres, train_loss=float(np.mean([r["loss"] for r in acc_ep])))
        torch.save(model.state_dict(), os.path.join(CKPT, f"{ep}epoch.pth"))
        updated = []
        for crit in c["best"]:
            _, key, mode = crit
            v = vres[key]
            b = best_vals[tuple(crit)]
            if b is None or (v > b if mode == "max" else v < b):
                best_vals[tuple(crit)] = v
                updated.append(f"valid.{key}")
        if updated:
            log("trainer:386", "The best model has been updated: " + ", ".join(updated))
        else:
            log("trainer:392", "There are no improvements in this epoch")
        keep = {ep}
        for _, key, mode in c["best"]:
            order = sorted(hist, key=lambda e: (-hist[e][key] if mode == "max" else hist[e][key]))
            keep |= set(order[:c["keep_nbest"]])
        removed = [e for e in kept if e not in keep]
        kept = sorted(keep)
        if removed:
            log("trainer:440", "The model files were removed: " + ", ".join(f"{EXP}/{e}epoch.pth" for e in removed))
    log("trainer:458", f"The training was finished at {c['max_epoch']} epochs ")
    averaged = {}
    for _, key, mode in c["best"]:
        order = sorted(hist, key=lambda e: (-hist[e][key] if mode == "max" else hist[e][key]))[:c["keep_nbest"]]
        log("average_nbest_models:69", f'Averaging {len(order)}best models: criterion="valid.{key}": '
            f"{EXP}/valid.{key}.ave_{len(order)}best.pth")
        sds = [torch.load(os.path.join(CKPT, f"{e}epoch.pth")) for e in order]
        avg = {k: (sum(sd[k].float() for sd in sds) / len(sds)) if sds[0][k].is_floating_point() else sds[0][k]
               for k in sds[0]}
        torch.save(avg, os.path.join(CKPT, f"valid.{key}.ave.pth"))
        averaged[key] = order
    json.dump({"tokens": TOKENS, "hist": hist, "averaged": averaged}, open(os.path.join(CKPT, "summary.json"), "w"))
    el = time.time() - t_start
    print(f"# Accounting: time={int(el)} threads=1")
    print("# Ended (code 0) at " + time.strftime("%a %b %d %H:%M:%S UTC %Y"))


def align_counts(h, r):
    # returns (corr, sub, del, ins) between hyp and ref token lists
    n, m = len(r), len(h)
    D = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        D[i][0] = i
    for j in range(m + 1):
        D[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            D[i][j] = min(D[i - 1][j] + 1, D[i][j - 1] + 1, D[i - 1][j - 1] + (r[i - 1] != h[j - 1]))
    i, j, c, s, d, ins = n, m, 0, 0, 0, 0
    while i > 0 or j > 0:
        if i > 0 and j > 0 and D[i][j] == D[i - 1][j - 1] + (r[i - 1] != h[j - 1]):
            if r[i - 1] == h[j - 1]:
                c += 1
            else:
                s += 1
            i, j = i - 1, j - 1
        elif i > 0 and D[i][j] == D[i - 1][j] + 1:
            d += 1; i -= 1
        else:
            ins += 1; j -= 1
    return c, s, d, ins


def decode():
    # c["decode"]: dict(model_exp=..., model_ckpt_dir=..., sets=[...])
    c = CFG
    tr, dv, te, mean, std = load_data()
    dc = c["decode"]
    summ = json.load(open(os.path.join(dc["model_ckpt_dir"], "summary.json")))
    model = ESPnetASRModel(len(TOKENS), c["feat_dim"], mean, std, c)
    model.load_state_dict(torch.load(os.path.join(dc["model_ckpt_dir"], dc.get("file", "valid.acc.ave.pth"))))
    model.eval()
    dec_dir = f"{EXP}/decode_asr_asr_model_valid.acc.ave"
    results = {}
    for name, utts in (("dev", dv), ("test", te)):
        logf = open(f"asr_inference.{name}.1.log", "w")
        def L(src, msg):
            logf.write(f"[{HOST}] {stamp()} ({src}) INFO: {msg}\n")
        logf.write(f"# python3 -m espnet2.bin.asr_inference --batch_size 1 --ngpu 0 "
                   f"--data_path_and_name_and_type dump/raw/{name}/feats.scp,speech,kaldi_ark "
                   f"--key_file {dec_dir}/{name}/logdir/keys.1.scp "
                   f"--asr_train_config {dc['model_exp']}/config.yaml "
                   f"--asr_model_file {dc['model_exp']}/valid.acc.ave.pth "
                   f"--output_dir {dec_dir}/{name}/logdir/output.1 --config conf/decode_asr.yaml\n")
        logf.write("# Started at " + time.strftime("%a %b %d %H:%M:%S UTC %Y") + "\n#\n")
        L("asr_inference:336", "Decoding device=cpu, dtype=float32")
        L("asr_inference:373", 'Text tokenizer: CharTokenizer(space_symbol="<space>"non_linguistic_symbols="set()")')
        L("asr_inference:224", "BatchBeamSearch implementation is selected.")
        L("asr_inference:231", f"Beam_search: BatchBeamSearch(\n  (nn_dict): ModuleDict(\n    (decoder): {repr(model.decoder)}\n  )\n)")
        L("asr_inference:232", "Decoding device=cpu, dtype=float32")
        hyps, refs = [], []
        for k, (uid, x, text) in enumerate(utts):
            xt = torch.from_numpy(x)[None]
            with torch.no_grad():
                h = joint_decode(model, xt, torch.tensor([x.shape[0]]), dc.get("ctc_weight", 0.3))
            hyp = ids2text(h)
            hyps.append(hyp); refs.append(text)
            if k < 40:
                L("asr_inference:483", f"speech length: {x.shape[0]}")
                L("beam_search:428", f"decoder input length: {(x.shape[0] + 1) // 2}")
                L("beam_search:429", "max output length: " + str((x.shape[0] + 1) // 2))
                L("beam_search:430", "min output length: 0")
                L("beam_search:475", f"end detected at {len(h) + 1}")
                L("beam_search:497", "best hypo: " + "".join(TOKENS[i] for i in h))
        el = 1
        logf.write("# Accounting: time=%d threads=1\n" % max(1, int(len(utts) * 0.05)))
        logf.write("# Ended (code 0) at " + time.strftime("%a %b %d %H:%M:%S UTC %Y") + "\n")
        logf.close()
        tot = {}
        for unit in ("WER", "CER"):
            C = S = D = I = serr = nref = 0
            for h, r in zip(hyps, refs):
                hh, rr = (h.split(), r.split()) if unit == "WER" else (list(h.replace(" ", "_")), list(r.replace(" ", "_")))
                c_, s_, d_, i_ = align_counts(hh, rr)
                C += c_; S += s_; D += d_; I += i_; nref += len(rr); serr += (s_ + d_ + i_) > 0
            tot[unit] = (len(refs), nref, 100 * C / nref, 100 * S / nref, 100 * D / nref, 100 * I / nref,
                         100 * (S + D + I) / nref, 100 * serr / len(refs))
        results[name] = tot
    md = ["<!-- Generated by scripts/utils/show_asr_result.sh -->", "# RESULTS", "## Environments",
          "- date: `" + time.strftime("%a %b %d %H:%M:%S UTC %Y") + "`", "- python version: `3.10.14`",
          "- espnet version: `espnet 202412`", f"- pytorch version: `pytorch {torch.__version__.split('+')[0]}`",
          "", f"## {EXP}"]
    for unit in ("WER", "CER"):
        md += [f"### {unit}", "", "|dataset|Snt|Wrd|Corr|Sub|Del|Ins|Err|S.Err|", "|---|---|---|---|---|---|---|---|---|"]
        for name in ("dev", "test"):
            r = results[name][unit]
            md.append(f"|decode_asr_asr_model_valid.acc.ave/{name}|{r[0]}|{r[1]}|" + "|".join(f"{v:.1f}" for v in r[2:]) + "|")
        md.append("")
    open("RESULTS.md", "w").write("\n".join(md))


if CFG.get("mode", "train") == "train":
    train()
else:
    decode()
'''

# ----------------------------------------------------------------------------
# driver helpers
# ----------------------------------------------------------------------------
TMP = None


def tmpdir():
    global TMP
    if TMP is None:
        TMP = tempfile.mkdtemp(prefix=".gen_tmp_", dir=OUT)
    return TMP


def run_script(rundir, src, args=(), log_name=None, script_name=None, keep_as=None, env_extra=None, append=False):
    """Write src to a script, run it with cwd=rundir, stdout+stderr -> rundir/log_name."""
    os.makedirs(rundir, exist_ok=True)
    if keep_as:
        path = os.path.join(rundir, keep_as)
    else:
        path = os.path.join(tmpdir(), (script_name or "runner") + ".py")
    with open(path, "w") as f:
        f.write(src)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    if env_extra:
        env.update(env_extra)
    cmd = [PY, path] + list(args)
    if log_name:
        with open(os.path.join(rundir, log_name), "a" if append else "w") as out:
            r = subprocess.run(cmd, cwd=rundir, stdout=out, stderr=subprocess.STDOUT, env=env)
    else:
        r = subprocess.run(cmd, cwd=rundir, env=env)
    return r.returncode


def run_espnet(rundir, cfg, log_name="train.log"):
    cfg = dict(cfg)
    p = os.path.join(tmpdir(), os.path.basename(rundir) + "_" + cfg.get("mode", "train") + ".json")
    json.dump(cfg, open(p, "w"))
    return run_script(rundir, ESPNET_RUNNER, [p], log_name=log_name, script_name="espnet_runner")


ESPNET_BASE = dict(
    host="asr-gpu03", world_seed=11, n_letters=14, n_words=80, feat_dim=40, n_train=600, n_valid=150, n_test=200,
    data_seed=100, noise=0.7, dur=[2, 5], seed=0, hidden=64, eprojs=128, elayers=1, dropout=0.1, ctc_weight=0.3,
    optim="adam", lr=0.002, warmup=200, max_epoch=20, batch_size=20, log_interval=10, grad_clip=5.0, keep_nbest=5,
    best=[["valid", "acc", "max"]], conf_name="train_asr_rnn.yaml", train_set="train_nodev",
)

# ----------------------------------------------------------------------------
# Lightning/NeMo-style char-CTC user script (kept as train.py in some runs)
# placeholders: @CFG@ (yaml text), @MANIFEST@, @SCHED_MAKE@, @SCHED_BATCH@, @SCHED_EPOCH@
# ----------------------------------------------------------------------------
CTC_TRAIN = '''\
"""Char-level CTC ASR on my toy corpus (conv front-end + BiGRU + CTC).

    python train.py            -> metrics.csv, hparams.yaml, checkpoints/
"""
import csv
import datetime
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

CFG = yaml.safe_load("""
@CFG@""")
''' + ASR_DATA + '''

LABELS = [" "] + list("abcdefghijklmnopqrst"[:CFG["data"]["n_letters"]]) + ["'"]
BLANK = len(LABELS)


def load_split(world, n, seed, prefix):
    utts = make_toy_utts(world, n, seed, noise=CFG["data"]["noise"], dur=tuple(CFG["data"]["dur"]), prefix=prefix)
    feats = {uid: x for uid, x, _ in utts}
    text = {uid: t for uid, _, t in utts}
    return feats, text


@MANIFEST@


def normalize(x):
    return (x - x.mean(0)) / (x.std(0) + 1e-5)


def collate(items):
    xs = [torch.from_numpy(normalize(it["audio"])) for it in items]
    ys = [torch.tensor([LABELS.index(c) for c in it["text"]]) for it in items]
    return (nn.utils.rnn.pad_sequence(xs, batch_first=True), torch.tensor([len(x) for x in xs]),
            torch.cat(ys), torch.tensor([len(y) for y in ys]), [it["text"] for it in items])


def loader(manifest, batch_size, shuffle, rng):
    order = rng.permutation(len(manifest)) if shuffle else np.arange(len(manifest))
    for b in range(0, len(manifest), batch_size):
        yield collate([manifest[i] for i in order[b:b + batch_size]])


class ConvGRUCTC(nn.Module):
    def __init__(self, feat_in, n_labels, d_model=96, hidden=64, dropout=0.2):
        super().__init__()
        self.subsample = nn.Sequential(
            nn.Conv1d(feat_in, d_model, kernel_size=5, stride=2, padding=2),
            nn.BatchNorm1d(d_model),
            nn.ReLU(),
            nn.Dropout(dropout),
        )
        self.rnn = nn.GRU(d_model, hidden, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(dropout)
        self.decoder = nn.Linear(2 * hidden, n_labels + 1)

    def forward(self, feats, lens):
        x = self.subsample(feats.transpose(1, 2)).transpose(1, 2)
        lens = (lens + 1) // 2
        x = nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
        x, _ = self.rnn(x)
        x, _ = nn.utils.rnn.pad_packed_sequence(x, batch_first=True)
        return self.decoder(self.dropout(x)).log_softmax(-1), lens


def ctc_loss(log_probs, lens, targets, target_lens):
    return F.ctc_loss(log_probs.transpose(0, 1), targets, lens, target_lens, blank=BLANK,
                      reduction="sum", zero_infinity=True) / len(lens)


def greedy_decode(log_probs, lens):
    best = log_probs.argmax(-1)
    out = []
    for i in range(len(lens)):
        prev, s = -1, []
        for c in best[i, :lens[i]].tolist():
            if c != prev and c != BLANK:
                s.append(LABELS[c])
            prev = c
        out.append("".join(s).strip())
    return out


class CSVLogger:
    def __init__(self, path):
        self.path, self.rows, self.keys = path, [], ["epoch", "step"]

    def log(self, row):
        for k in row:
            if k not in self.keys:
                self.keys.append(k)
        self.rows.append(row)
        with open(self.path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=self.keys)
            w.writeheader()
            for r in self.rows:
                w.writerow({k: r.get(k, "") for k in self.keys})


def build_model():
    m = CFG["model"]
    return ConvGRUCTC(m["feat_in"], len(LABELS), m["d_model"], m["hidden"], m["dropout"])


def validate(model, manifest):
    model.eval()
    tot, n, hyps, refs = 0.0, 0, [], []
    with torch.no_grad():
        for x, xl, y, yl, texts in loader(manifest, 32, False, None):
            lp, ol = model(x, xl)
            tot += ctc_loss(lp, ol, y, yl).item() * len(texts)
            n += len(texts)
            hyps += greedy_decode(lp, ol)
            refs += texts
    model.train()
    return tot / n, word_error_rate(hyps, refs), hyps, refs


def main():
    torch.manual_seed(CFG["seed"])
    rng = np.random.default_rng(CFG["seed"])
    world = make_toy_world(CFG["data"]["world_seed"], CFG["data"]["n_letters"], CFG["data"]["n_words"],
                           CFG["model"]["feat_in"])
    train_set = build_manifest(*load_split(world, CFG["data"]["n_train"], CFG["data"]["world_seed"] + 1, "tr"))
    dev_set = build_manifest(*load_split(world, CFG["data"]["n_dev"], CFG["data"]["world_seed"] + 2, "dv"))
    print(f"train: {len(train_set)} utts, {sum(it['duration'] for it in train_set) / 3600:.2f} h | "
          f"dev: {len(dev_set)} utts, {sum(it['duration'] for it in dev_set) / 3600:.2f} h")

    model = build_model()
    print(model)
    print(f"params: {sum(p.numel() for p in model.parameters()) / 1e3:.1f} K")
    oc = CFG["optim"]
    opt = torch.optim.AdamW(model.parameters(), lr=oc["lr"], betas=tuple(oc["betas"]),
                            weight_decay=oc["weight_decay"])
@SCHED_MAKE@
    tc = CFG["trainer"]
    with open("hparams.yaml", "w") as f:
        yaml.safe_dump({"cfg": CFG}, f, sort_keys=False)
    os.makedirs("checkpoints", exist_ok=True)
    logger = CSVLogger("metrics.csv")
    step, top = 0, []
    for epoch in range(tc["max_epochs"]):
        t0 = time.time()
        for x, xl, y, yl, texts in loader(train_set, tc["batch_size"], True, rng):
            lp, ol = model(x, xl)
            loss = ctc_loss(lp, ol, y, yl)
            opt.zero_grad()
            loss.backward()
            if tc["gradient_clip_val"]:
                nn.utils.clip_grad_norm_(model.parameters(), tc["gradient_clip_val"])
            opt.step()
@SCHED_BATCH@
            step += 1
            if step % tc["log_every_n_steps"] == 0:
                logger.log({"epoch": epoch, "step": step - 1, "train_loss": round(loss.item(), 4),
                            "learning_rate": opt.param_groups[0]["lr"], "global_step": step,
                            "training_batch_wer": round(word_error_rate(greedy_decode(lp.detach(), ol), texts), 4)})
@SCHED_EPOCH@
        val_loss, val_wer, hyps, refs = validate(model, dev_set)
        logger.log({"epoch": epoch, "step": step - 1, "val_loss": round(val_loss, 4), "val_wer": round(val_wer, 4)})
        print(f"Epoch {epoch}: {time.time() - t0:.1f}s, train_loss={loss.item():.3f}, val_loss={val_loss:.3f}, "
              f"val_wer={val_wer:.4f}, lr={opt.param_groups[0]['lr']:.3e}")
        print(f"    reference: {refs[0]}")
        print(f"    predicted: {hyps[0]}")
        name = f"checkpoints/{CFG['name']}--val_wer={val_wer:.4f}-epoch={epoch}.ckpt"
        if len(top) < 3 or val_wer < max(w for w, _ in top):
            best = min([w for w, _ in top] + [val_wer])
            print(f"Epoch {epoch}, global step {step}: 'val_wer' reached {val_wer:.5f} (best {best:.5f}), "
                  f"saving model to '{name}' as top 3")
            torch.save({"state_dict": model.state_dict(), "epoch": epoch, "val_wer": val_wer}, name)
            top.append((val_wer, name))
            if len(top) > 3:
                worst = max(top)
                top.remove(worst)
                os.remove(worst[1])
        else:
            print(f"Epoch {epoch}, global step {step}: 'val_wer' was not in top 3")
    best = min(top)
    torch.save(torch.load(best[1]), f"checkpoints/{CFG['name']}.ckpt")
    print(f"`Trainer.fit` stopped: `max_epochs={tc['max_epochs']}` reached.")
    print(f"best val_wer {best[0]:.4f}: {best[1]}")


if __name__ == "__main__":
    main()
'''

MANIFEST_OK = '''def build_manifest(feats, text):
    return [{"audio": feats[u], "duration": len(feats[u]) * 0.01, "text": text[u]} for u in feats]'''

MANIFEST_SORTED = '''def build_manifest(feats, text):
    uids = sorted(feats, key=lambda u: len(feats[u]), reverse=True)
    return [{"audio": feats[u], "duration": len(feats[u]) * 0.01, "text": t}
            for u, t in zip(uids, text.values())]'''

SCHED_EPOCH_COSINE = dict(
    make='''    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=CFG["trainer"]["max_epochs"], eta_min=oc["sched"]["min_lr"])''',
    batch='',
    epoch='''        sched.step()''',
)
SCHED_BATCH_COSINE = dict(
    make=SCHED_EPOCH_COSINE["make"],
    batch='''            sched.step()''',
    epoch='',
)


def ctc_script(cfg_yaml, manifest=MANIFEST_OK, sched=SCHED_EPOCH_COSINE):
    s = CTC_TRAIN.replace("@CFG@", textwrap.dedent(cfg_yaml).lstrip("\n"))
    s = s.replace("@MANIFEST@", manifest)
    s = s.replace("@SCHED_MAKE@\n", sched["make"] + "\n")
    s = s.replace("@SCHED_BATCH@\n", (sched["batch"] + "\n") if sched["batch"] else "")
    s = s.replace("@SCHED_EPOCH@\n", (sched["epoch"] + "\n") if sched["epoch"] else "")
    return s


CTC_CFG = """
name: ConvGRU-CTC-char
seed: {seed}
data:
  world_seed: {world_seed}
  n_letters: 14
  n_words: {n_words}
  n_train: {n_train}
  n_dev: {n_dev}
  noise: {noise}
  dur: [3, 5]
  train_manifest: data/train_manifest.json
  dev_manifest: data/dev_manifest.json
model:
  feat_in: 32
  d_model: 96
  hidden: {hidden}
  dropout: {dropout}
optim:
  name: adamw
  lr: {lr}
  betas: [0.9, 0.98]
  weight_decay: 0.001
  sched:
    name: CosineAnnealing
    min_lr: 1.0e-05
trainer:
  max_epochs: {max_epochs}
  batch_size: {batch_size}
  log_every_n_steps: {log_every}
  gradient_clip_val: 1.0
"""

TRANSCRIBE = '''\
"""Transcribe the dev/test set with a trained checkpoint and score it.

    python transcribe.py --ckpt checkpoints/ConvGRU-CTC-char.ckpt --split dev
"""
import argparse

import torch

from train import (CFG, build_manifest, build_model, char_error_rate, collate, greedy_decode, load_split,
                   make_toy_world, word_error_rate)

SPLITS = {"dev": ("n_dev", 2, "dv"), "test": ("n_test", 3, "te")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", default=f"checkpoints/{CFG['name']}.ckpt")
    p.add_argument("--split", default="dev", choices=list(SPLITS))
    p.add_argument("--batch_size", type=int, default=1)
    p.add_argument("--show", type=int, default=8)
    args = p.parse_args()
    torch.manual_seed(0)

    model = build_model()
    ckpt = torch.load(args.ckpt)
    model.load_state_dict(ckpt["state_dict"])
    print(f"loaded {args.ckpt} (epoch {ckpt['epoch']}, val_wer {ckpt['val_wer']:.4f})")

    world = make_toy_world(CFG["data"]["world_seed"], CFG["data"]["n_letters"], CFG["data"]["n_words"],
                           CFG["model"]["feat_in"])
    key, off, prefix = SPLITS[args.split]
    manifest = build_manifest(*load_split(world, CFG["data"].get(key, 200), CFG["data"]["world_seed"] + off, prefix))
    print(f"{args.split}: {len(manifest)} utterances, batch_size={args.batch_size}")

    hyps, refs = [], []
    with torch.no_grad():
        for i in range(0, len(manifest), args.batch_size):
            x, xl, _, _, texts = collate(manifest[i:i + args.batch_size])
            lp, ol = model(x, xl)
            hyps += greedy_decode(lp, ol)
            refs += texts
    for h, r in list(zip(hyps, refs))[:args.show]:
        print(f"REF: {r}")
        print(f"HYP: {h}")
    print(f"{args.split}: WER {100 * word_error_rate(hyps, refs):.2f} % | CER {100 * char_error_rate(hyps, refs):.2f} %"
          f" | {len(refs)} utts")


if __name__ == "__main__":
    main()
'''

# ----------------------------------------------------------------------------
# NeMo-style runner (internal; run with relu-RNN CTC encoder, SGD, no clipping)
# ----------------------------------------------------------------------------
NEMO_RUNNER = HEAD + ASR_DATA + r'''
import csv, datetime, json, yaml

C = json.load(open(sys.argv[1]))
EXPDIR = f"/workspace/nemo_experiments/{C['name']}/" + datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S")


def nlog(mod, msg, lvl="I"):
    t = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    print(f"[NeMo {lvl} {t} {mod}] {msg}", flush=True)


LABELS = [" "] + list("abcdefghijklmnopqrst"[:C["n_letters"]]) + ["'"]
BLANK = len(LABELS)


class AudioToMelSpectrogramPreprocessor(nn.Module):
    """stand-in for the featurizer: per_feature normalisation of precomputed features"""
    def forward(self, x):
        m = x.mean(1, keepdim=True)
        s = x.std(1, keepdim=True) + 1e-5
        return (x - m) / s


class ReluRNNEncoder(nn.Module):
    def __init__(self, feat_in, d_model, n_layers):
        super().__init__()
        self.pre_encode = nn.Linear(feat_in, d_model)
        self.rnn = nn.RNN(d_model, d_model, num_layers=n_layers, nonlinearity="relu", batch_first=True)

    def forward(self, x):
        return self.rnn(F.relu(self.pre_encode(x)))[0]


class ConvASRDecoder(nn.Module):
    def __init__(self, feat_in, num_classes):
        super().__init__()
        self.decoder_layers = nn.Sequential(nn.Conv1d(feat_in, num_classes + 1, kernel_size=1, bias=True))

    def forward(self, x):
        return self.decoder_layers(x.transpose(1, 2)).transpose(1, 2).log_softmax(-1)


class EncDecCTCModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.preprocessor = AudioToMelSpectrogramPreprocessor()
        self.encoder = ReluRNNEncoder(C["feat_in"], C["d_model"], C["n_layers"])
        self.decoder = ConvASRDecoder(C["d_model"], len(LABELS))

    def forward(self, x):
        return self.decoder(self.encoder(self.preprocessor(x)))


def batches(utts, bs, rng):
    idx = rng.permutation(len(utts)) if rng is not None else np.arange(len(utts))
    for b in range(0, len(utts), bs):
        it = [utts[i] for i in idx[b:b + bs]]
        xs = [torch.from_numpy(x) for _, x, _ in it]
        ys = [torch.tensor([LABELS.index(c) for c in t]) for _, _, t in it]
        yield (nn.utils.rnn.pad_sequence(xs, batch_first=True), torch.tensor([len(x) for x in xs]), torch.cat(ys),
               torch.tensor([len(y) for y in ys]), [t for _, _, t in it])


def decode(lp, lens):
    best = lp.argmax(-1)
    out = []
    for i in range(len(lens)):
        prev, s = -1, []
        for c in best[i, :lens[i]].tolist():
            if c != prev and c != BLANK:
                s.append(LABELS[c])
            prev = c
        out.append("".join(s))
    return out


def loss_fn(lp, xl, y, yl):
    return F.ctc_loss(lp.transpose(0, 1), y, xl, yl, blank=BLANK, reduction="sum", zero_infinity=False) / len(xl)


def main():
    torch.manual_seed(C["seed"])
    rng = np.random.default_rng(C["seed"])
    world = make_toy_world(C["world_seed"], C["n_letters"], C["n_words"], C["feat_in"])
    tr = make_toy_utts(world, C["n_train"], C["world_seed"] + 1, C["noise"], tuple(C["dur"]), C["max_words"], "tr")
    dv = make_toy_utts(world, C["n_dev"], C["world_seed"] + 2, C["noise"], tuple(C["dur"]), C["max_words"], "dv")
    hp = {"cfg": {
        "name": C["name"], "sample_rate": 16000, "labels": LABELS,
        "train_ds": {"manifest_filepath": "/data/toyspeech/train_manifest.json", "sample_rate": 16000,
                     "labels": LABELS, "batch_size": C["batch_size"], "shuffle": True, "num_workers": 4,
                     "pin_memory": True, "trim_silence": False, "max_duration": 16.7, "is_tarred": False},
        "validation_ds": {"manifest_filepath": "/data/toyspeech/dev_manifest.json", "sample_rate": 16000,
                          "labels": LABELS, "batch_size": 32, "shuffle": False, "num_workers": 4},
        "preprocessor": {"_target_": "nemo.collections.asr.modules.AudioToMelSpectrogramPreprocessor",
                         "normalize": "per_feature", "window_size": 0.025, "window_stride": 0.01,
                         "features": C["feat_in"], "n_fft": 512, "frame_splicing": 1, "dither": 1.0e-05},
        "spec_augment": None,
        "encoder": {"_target_": "toyasr.modules.ReluRNNEncoder", "feat_in": C["feat_in"],
                    "d_model": C["d_model"], "n_layers": C["n_layers"], "nonlinearity": "relu"},
        "decoder": {"_target_": "nemo.collections.asr.modules.ConvASRDecoder", "feat_in": C["d_model"],
                    "num_classes": len(LABELS), "vocabulary": LABELS},
        "optim": {"name": "sgd", "lr": C["lr"], "momentum": C["momentum"], "weight_decay": 0.0,
                  "sched": {"name": "CosineAnnealing", "warmup_steps": None, "min_lr": 1.0e-05}},
        "target": "nemo.collections.asr.models.ctc_models.EncDecCTCModel",
        "nemo_version": "1.23.0"},
        "trainer": {"devices": 1, "accelerator": "cpu", "max_epochs": C["max_epochs"], "precision": 32,
                    "gradient_clip_val": 0.0, "log_every_n_steps": C["log_every"], "val_check_interval": 1.0,
                    "accumulate_grad_batches": 1, "enable_checkpointing": False, "logger": False}}
    class NoAliasDumper(yaml.SafeDumper):
        def ignore_aliases(self, data):
            return True

    with open("hparams.yaml", "w") as f:
        yaml.dump(hp, f, Dumper=NoAliasDumper, sort_keys=False)
    nlog("exp_manager:396", f"Experiments will be logged at {EXPDIR}")
    nlog("exp_manager:856", "TensorboardLogger has been set up")
    print("GPU available: False, used: False\nTPU available: False, using: 0 TPU cores\nIPU available: False, using: 0 IPUs\nHPU available: False, using: 0 HPUs")
    nlog("collections:196", f"Dataset loaded with {len(tr)} files totalling {sum(len(x) for _, x, _ in tr) * 0.01 / 3600:.2f} hours")
    nlog("collections:197", "0 files were filtered totalling 0.00 hours")
    nlog("collections:196", f"Dataset loaded with {len(dv)} files totalling {sum(len(x) for _, x, _ in dv) * 0.01 / 3600:.2f} hours")
    nlog("collections:197", "0 files were filtered totalling 0.00 hours")
    model = EncDecCTCModel()
    opt = torch.optim.SGD(model.parameters(), lr=C["lr"], momentum=C["momentum"])
    nsteps = C["max_epochs"] * math.ceil(len(tr) / C["batch_size"])
    nlog("modelPT:728", "Optimizer config = " + repr(opt).replace("\n", "\n    "))
    nlog("lr_scheduler:910", f'Scheduler "<nemo.core.optim.lr_scheduler.CosineAnnealing object at 0x7f3a2c1d5e10>" \n    will be used during training (effective maximum steps = {nsteps}) - \n    Parameters : \n    (min_lr: 1.0e-05\n    max_steps: {nsteps}\n    )')
    rows = []
    print("\n  | Name         | Type                              | Params\n---------------------------------------------------------------------")
    for i, (n, m) in enumerate(model.named_children()):
        print(f"{i} | {n:<12} | {type(m).__name__:<33} | {sum(p.numel() for p in m.parameters()) / 1e3:.1f} K")
    tot = sum(p.numel() for p in model.parameters())
    print("---------------------------------------------------------------------")
    print(f"{tot / 1e3:.1f} K     Trainable params\n0         Non-trainable params\n{tot / 1e3:.1f} K     Total params")
    step, best = 0, None
    keys = ["epoch", "step", "train_loss", "learning_rate", "global_step", "training_batch_wer",
            "grad_2.0_norm_total", "grad_2.0_norm/encoder.pre_encode.weight", "grad_2.0_norm/encoder.rnn.weight_hh_l0",
            "grad_2.0_norm/encoder.rnn.weight_hh_l1", "grad_2.0_norm/decoder.decoder_layers.0.weight", "val_loss", "val_wer"]
    named = dict(model.named_parameters())
    for ep in range(C["max_epochs"]):
        model.train()
        t0 = time.time()
        nb = math.ceil(len(tr) / C["batch_size"])
        for x, xl, y, yl, texts in batches(tr, C["batch_size"], rng):
            lr = 1.0e-05 + 0.5 * (C["lr"] - 1.0e-05) * (1 + math.cos(math.pi * step / nsteps))
            for g in opt.param_groups:
                g["lr"] = lr
            lp = model(x)
            loss = loss_fn(lp, xl, y, yl)
            opt.zero_grad()
            loss.backward()
            norms = {n: p.grad.norm().item() for n, p in named.items()}
            total = math.sqrt(sum(v * v for v in norms.values()))
            opt.step()
            step += 1
            if step % C["log_every"] == 0:
                r = {"epoch": ep, "step": step - 1, "train_loss": loss.item(), "learning_rate": lr, "global_step": step,
                     "training_batch_wer": word_error_rate(decode(lp.detach(), xl), texts),
                     "grad_2.0_norm_total": total}
                for k in keys:
                    if k.startswith("grad_2.0_norm/"):
                        r[k] = norms[k.split("/", 1)[1]]
                rows.append(r)
        model.eval()
        vl, n, hyps, refs = 0.0, 0, [], []
        with torch.no_grad():
            for x, xl, y, yl, texts in batches(dv, 32, None):
                lp = model(x)
                vl += loss_fn(lp, xl, y, yl).item() * len(texts)
                n += len(texts)
                hyps += decode(lp, xl)
                refs += texts
        vl /= n
        vw = word_error_rate(hyps, refs)
        rows.append({"epoch": ep, "step": step - 1, "val_loss": vl, "val_wer": vw})
        for k in range(2):
            nlog("wer:335", "\n")
            nlog("wer:336", f"reference:{refs[k]}")
            nlog("wer:337", f"predicted:{hyps[k]}")
        el = time.time() - t0
        print(f"Epoch {ep}: 100%|##########| {nb}/{nb} [00:{int(el):02d}<00:00, {nb / el:5.2f}it/s, v_num=0, "
              f"train_loss={loss.item():.3g}, training_batch_wer={rows[-2]['training_batch_wer']:.3g}, val_loss={vl:.3g}, val_wer={vw:.3g}]")
        fn = f"{EXPDIR}/checkpoints/{C['name']}--val_wer={vw:.4f}-epoch={ep}.ckpt"
        if best is None or vw < best:
            best = vw
            print(f"Epoch {ep}, global step {step}: 'val_wer' reached {vw:.5f} (best {best:.5f}), saving model to '{fn}' as top 3")
        else:
            print(f"Epoch {ep}, global step {step}: 'val_wer' was not in top 3")
    print(f"`Trainer.fit` stopped: `max_epochs={C['max_epochs']}` reached.")
    with open("metrics.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in keys})


main()
'''


def run_nemo(rundir, cfg, log_name="nemo_log_globalrank-0_localrank-0.txt"):
    p = os.path.join(tmpdir(), os.path.basename(rundir) + "_nemo.json")
    json.dump(cfg, open(p, "w"))
    return run_script(rundir, NEMO_RUNNER, [p], log_name=log_name, script_name="nemo_runner")

# ----------------------------------------------------------------------------
# fairseq-style toy translation user script (kept as train.py in some runs)
# placeholders: @DATA@ (corpus building), @BATCHES@ (epoch iterator)
# ----------------------------------------------------------------------------
MT_TRAIN = '''\
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


@DATA@


def collate(pairs, sd, td):
    src = [torch.tensor(sd.encode(s)) for s, _ in pairs]
    tgt = [torch.tensor(td.encode(t)) for _, t in pairs]
    prev = [torch.cat([torch.tensor([td.eos]), t[:-1]]) for t in tgt]
    pad = lambda xs, v: nn.utils.rnn.pad_sequence(xs, batch_first=True, padding_value=v)
    return pad(src, sd.pad), pad(prev, td.pad), pad(tgt, td.pad)


@BATCHES@


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
        logging.getLogger("fairseq_cli.train").info(f"begin validation on \\"valid\\" subset")
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
'''

MT_DATA_SINGLE = '''def load_data(args):
    src_vocab, tgt_vocab, lex = make_toy_lang(args.lang_seed)
    train = make_pairs(src_vocab, lex, args.train_size, args.lang_seed + 1)
    valid = make_pairs(src_vocab, lex, args.valid_size, args.lang_seed + 2)
    return train, valid, Dictionary(src_vocab), Dictionary(tgt_vocab)'''

MT_BATCHES_SHUFFLED = '''def epoch_batches(data, batch_size, rng):
    order = rng.permutation(len(data))
    for i in range(0, len(data), batch_size):
        yield [data[j] for j in order[i:i + batch_size]]'''


def mt_script(data=MT_DATA_SINGLE, batches=MT_BATCHES_SHUFFLED):
    return MT_TRAIN.replace("@DATA@", data).replace("@BATCHES@", batches)

MT_DATA_DOMAINS = '''DOMAINS = ["news", "subtitles", "patents"]


def domain_lexicon(lex, tgt_vocab, seed, share=0.5):
    rng = np.random.default_rng(seed)
    dlex = dict(lex)
    for w in sorted(lex):
        if lex[w] and rng.random() < share:
            dlex[w] = [tgt_vocab[int(rng.integers(len(tgt_vocab)))] for _ in lex[w]]
    return dlex


def load_data(args):
    src_vocab, tgt_vocab, lex = make_toy_lang(args.lang_seed)
    train, valid = [], []
    for k, dom in enumerate(DOMAINS):
        dlex = domain_lexicon(lex, tgt_vocab, args.lang_seed + 10 * (k + 1))
        tag = f"<{dom}>"
        tr = make_pairs(src_vocab, dlex, args.train_size // len(DOMAINS), args.lang_seed + 11 + k)
        va = make_pairs(src_vocab, dlex, args.valid_size // len(DOMAINS), args.lang_seed + 21 + k)
        train += [([tag] + s, t) for s, t in tr]
        valid += [([tag] + s, t) for s, t in va]
    logger.info("corpora: " + ", ".join(f"{d}={args.train_size // len(DOMAINS)}" for d in DOMAINS))
    return train, valid, Dictionary(src_vocab + [f"<{d}>" for d in DOMAINS]), Dictionary(tgt_vocab)'''

MT_BATCHES_SEQUENTIAL = '''def epoch_batches(data, batch_size, rng):
    for i in range(0, len(data), batch_size):
        yield data[i:i + batch_size]'''

# ----------------------------------------------------------------------------
# evaluation script of the translation run, before and after the user's refactor
# ----------------------------------------------------------------------------
EVAL_OLD = '''\
"""Translate the test set with a checkpoint and report BLEU.

    python evaluate.py --path checkpoints/checkpoint_best.pt
"""
import argparse
import logging
import sys
import time
from types import SimpleNamespace

import torch

from train import AttentionRNN, Dictionary, collate, corpus_bleu, greedy_generate, make_pairs, make_toy_lang

logging.basicConfig(format="%(asctime)s | %(levelname)s | %(name)s | %(message)s", datefmt="%Y-%m-%d %H:%M:%S",
                    level=logging.INFO, stream=sys.stdout)
logger = logging.getLogger("fairseq_cli.generate")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--path", default="checkpoints/checkpoint_best.pt")
    p.add_argument("--test-size", type=int, default=500)
    p.add_argument("--print-samples", type=int, default=5)
    a = p.parse_args()
    state = torch.load(a.path)
    args = SimpleNamespace(**state["args"])
    src_vocab, tgt_vocab, lex = make_toy_lang(args.lang_seed)
    sd, td = Dictionary(src_vocab), Dictionary(tgt_vocab)
    test = make_pairs(src_vocab, lex, a.test_size, args.lang_seed + 3)
    model = AttentionRNN(sd, td, args.cell, args.encoder_embed_dim, args.encoder_hidden_size, args.dropout)
    model.load_state_dict(state["model"])
    model.eval()
    logger.info(f"loading model(s) from {a.path}")
    logger.info(f"loaded {len(test)} examples from: data-bin/toy/test.src-tgt")
    t0 = time.time()
    hyps, refs = [], []
    for b in range(0, len(test), 64):
        chunk = test[b:b + 64]
        src, _, _ = collate(chunk, sd, td)
        for row in greedy_generate(model, src, td).tolist():
            hyps.append(td.string(row))
        refs += [" ".join(t) for _, t in chunk]
    for i in range(a.print_samples):
        print(f"S-{i}\\t{' '.join(test[i][0])}")
        print(f"T-{i}\\t{refs[i]}")
        print(f"H-{i}\\t{hyps[i]}")
    ntok = sum(len(h.split()) for h in hyps)
    el = time.time() - t0
    logger.info(f"Translated {len(hyps)} sentences ({ntok} tokens) in {el:.1f}s "
                f"({len(hyps) / el:.2f} sentences/s, {ntok / el:.2f} tokens/s)")
    bleu, prec, bp, sys_len, ref_len = corpus_bleu(hyps, refs)
    print(f"Generate test with beam=1: BLEU4 = {bleu:.2f}, {'/'.join(f'{x:.1f}' for x in prec)} "
          f"(BP={bp:.3f}, ratio={sys_len / ref_len:.3f}, syslen={sys_len}, reflen={ref_len})")


if __name__ == "__main__":
    main()
'''

EVAL_NEW = '''\
"""Translate the test set with a checkpoint and report BLEU.

    python evaluate.py --path checkpoints/checkpoint_best.pt [--output hyps.txt]
"""
import argparse
import collections
import logging
import math
import sys
import time
from types import SimpleNamespace

import torch

from train import AttentionRNN, Dictionary, collate, greedy_generate, make_pairs, make_toy_lang

logging.basicConfig(format="%(asctime)s | %(levelname)s | %(name)s | %(message)s", datefmt="%Y-%m-%d %H:%M:%S",
                    level=logging.INFO, stream=sys.stdout)
logger = logging.getLogger("fairseq_cli.generate")


def ngram_counts(words, n):
    return collections.Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def sentence_bleu(hyp, ref, max_n=4):
    h, r = hyp.split(), ref.split()
    prec = []
    for n in range(1, max_n + 1):
        hc, rc = ngram_counts(h, n), ngram_counts(r, n)
        total = max(len(h) - n + 1, 0)
        prec.append(sum(min(c, rc[g]) for g, c in hc.items()) / total if total else 0.0)
    if min(prec) == 0:
        return 0.0
    bp = 1.0 if len(h) > len(r) else math.exp(1 - len(r) / max(len(h), 1))
    return 100.0 * bp * math.exp(sum(math.log(p) for p in prec) / max_n)


def bleu_score(hyps, refs):
    return sum(sentence_bleu(h, r) for h, r in zip(hyps, refs)) / max(len(refs), 1)


def load_model(path):
    state = torch.load(path)
    args = SimpleNamespace(**state["args"])
    src_vocab, tgt_vocab, lex = make_toy_lang(args.lang_seed)
    sd, td = Dictionary(src_vocab), Dictionary(tgt_vocab)
    model = AttentionRNN(sd, td, args.cell, args.encoder_embed_dim, args.encoder_hidden_size, args.dropout)
    model.load_state_dict(state["model"])
    model.eval()
    return model, args, (src_vocab, lex), sd, td


def translate_all(model, pairs, sd, td, batch_size=64):
    hyps = []
    for b in range(0, len(pairs), batch_size):
        src, _, _ = collate(pairs[b:b + batch_size], sd, td)
        hyps += [td.string(row) for row in greedy_generate(model, src, td).tolist()]
    return hyps


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--path", default="checkpoints/checkpoint_best.pt")
    p.add_argument("--test-size", type=int, default=500)
    p.add_argument("--print-samples", type=int, default=5)
    p.add_argument("--output", default=None)
    a = p.parse_args()

    model, args, (src_vocab, lex), sd, td = load_model(a.path)
    test = make_pairs(src_vocab, lex, a.test_size, args.lang_seed + 3)
    logger.info(f"loading model(s) from {a.path}")
    logger.info(f"loaded {len(test)} examples from: data-bin/toy/test.src-tgt")

    t0 = time.time()
    hyps = translate_all(model, test, sd, td)
    refs = [" ".join(t) for _, t in test]
    el = time.time() - t0
    for i in range(a.print_samples):
        print(f"S-{i}\\t{' '.join(test[i][0])}")
        print(f"T-{i}\\t{refs[i]}")
        print(f"H-{i}\\t{hyps[i]}")
    if a.output:
        with open(a.output, "w") as f:
            f.write("\\n".join(hyps) + "\\n")
    ntok = sum(len(h.split()) for h in hyps)
    logger.info(f"Translated {len(hyps)} sentences ({ntok} tokens) in {el:.1f}s "
                f"({len(hyps) / el:.2f} sentences/s, {ntok / el:.2f} tokens/s)")
    print(f"Generate test with beam=1: BLEU4 = {bleu_score(hyps, refs):.2f}")


if __name__ == "__main__":
    main()
'''

# ----------------------------------------------------------------------------
# the runs
# ----------------------------------------------------------------------------
def rd(name):
    return os.path.join(RUNS, name)


def ckdir(name):
    d = os.path.join(tmpdir(), name + "_ckpt")
    shutil.rmtree(d, ignore_errors=True)
    return d


def run01():  # NeMo, relu-RNN CTC, SGD, gradient_clip_val 0 -> gradient explosion, NaN
    cfg = dict(name="RNN-CTC-char", seed=2, world_seed=5, n_letters=14, n_words=80, feat_in=32, n_train=480,
               n_dev=150, noise=0.6, dur=[4, 7], max_words=7, d_model=128, n_layers=2, lr=0.009, momentum=0.9,
               batch_size=16, max_epochs=8, log_every=2)
    return run_nemo(rd("run01"), cfg)


def run02():  # ESPnet hybrid CTC/attention, healthy, converges well
    cfg = dict(ESPNET_BASE, host="asr-gpu03", exp="exp/asr_train_asr_rnn_raw_en_char", ckpt_dir=ckdir("run02"),
               dur=[3, 5], noise=0.5, warmup=100, lr=0.004, max_epoch=20)
    return run_espnet(rd("run02"), cfg)


def run03():  # fairseq-style, three domain corpora concatenated, batches taken in file order
    return run_script(rd("run03"), mt_script(MT_DATA_DOMAINS, MT_BATCHES_SEQUENTIAL),
                      ["--max-epoch", "8", "--log-interval", "10", "--lang-seed", "9", "--lr", "0.002",
                       "--cell", "gru", "--arch", "gru_toy"],
                      log_name="train.log", keep_as="train.py")


def run04():  # Lightning-style CTC; transcribe.py never switches the model to eval mode
    d = rd("run04")
    cfg = CTC_CFG.format(seed=1234, world_seed=8, n_words=80, n_train=600, n_dev=150, noise=0.6, hidden=64,
                         dropout=0.4, lr=0.002, max_epochs=15, batch_size=16, log_every=10)
    cfg = cfg.replace("  n_dev: 150\n", "  n_dev: 150\n  n_test: 200\n")
    rc = run_script(d, ctc_script(cfg), log_name="train.log", keep_as="train.py")
    for split in ("dev", "test"):
        rc |= run_script(d, TRANSCRIBE, ["--split", split], log_name=f"transcribe_{split}.log", keep_as="transcribe.py")
    return rc


def run05():  # ESPnet, 100-utterance training subset, big model, no dropout, 45 epochs
    cfg = dict(ESPNET_BASE, host="dgx-a100-2", exp="exp/asr_train_asr_rnn_big_raw_en_char_sub100",
               ckpt_dir=ckdir("run05"), dur=[3, 5], noise=0.9, warmup=50, lr=0.002, train_subset=100, n_valid=100,
               hidden=128, elayers=2, dropout=0.0, batch_size=10, max_epoch=45, world_seed=23, data_seed=300,
               n_words=200, best=[["valid", "acc", "max"], ["valid", "loss", "min"]], keep_nbest=3,
               conf_name="train_asr_rnn_big.yaml", train_set="train_sub100", log_interval=5, seed=7)
    return run_espnet(rd("run05"), cfg)


def run06():  # fairseq-style MT; evaluate.py refactored (metric changed) between two evaluations
    d = rd("run06")
    rc = run_script(d, mt_script(), ["--max-epoch", "10", "--log-interval", "25", "--lang-seed", "7", "--lr", "0.002",
                                     "--cell", "gru", "--arch", "gru_toy", "--train-size", "3000"],
                    log_name="train.log", keep_as="train.py")
    # evaluation before the refactor (old script is not kept, only its log and the diff)
    old = os.path.join(tmpdir(), "evaluate_old.py")
    rc |= run_script(d, EVAL_OLD, [], log_name="eval_old.log", keep_as="evaluate.py")
    shutil.move(os.path.join(d, "evaluate.py"), old)
    rc |= run_script(d, EVAL_NEW, [], log_name="eval_new.log", keep_as="evaluate.py")
    import difflib
    diff = difflib.unified_diff(EVAL_OLD.splitlines(True), EVAL_NEW.splitlines(True),
                                fromfile="a/evaluate.py", tofile="b/evaluate.py")
    with open(os.path.join(d, "evaluate.py.diff"), "w") as f:
        f.write("diff --git a/evaluate.py b/evaluate.py\nindex 3f1c2ab..9e07d41 100644\n")
        f.writelines(diff)
    return rc


def run07():  # Lightning-style CTC; manifest pairs duration-sorted audio with transcripts in file order
    cfg = CTC_CFG.format(seed=1234, world_seed=12, n_words=80, n_train=600, n_dev=150, noise=0.6, hidden=64,
                         dropout=0.2, lr=0.002, max_epochs=12, batch_size=16, log_every=10)
    return run_script(rd("run07"), ctc_script(cfg, MANIFEST_SORTED), log_name="train.log", keep_as="train.py")


def run08():  # ESPnet, adam lr 2e-5 constant
    cfg = dict(ESPNET_BASE, host="gpu-w12", exp="exp/asr_train_asr_rnn_adam_raw_en_char", ckpt_dir=ckdir("run08"),
               dur=[3, 5], noise=0.6, warmup=None, lr=2e-5, n_train=500, world_seed=31, data_seed=500,
               max_epoch=25, log_interval=5, conf_name="train_asr_rnn_adam.yaml")
    return run_espnet(rd("run08"), cfg)


def run09():  # fairseq-style MT, small batches + dropout 0.3: slow and noisy but healthy
    return run_script(rd("run09"), mt_script(),
                      ["--max-epoch", "14", "--batch-size", "8", "--dropout", "0.3", "--lr", "0.0007",
                       "--warmup-updates", "400", "--train-size", "1200", "--cell", "gru", "--arch", "gru_toy",
                       "--log-interval", "25", "--lang-seed", "21"],
                      log_name="train.log", keep_as="train.py")


def run10():  # Lightning-style CTC; epoch-based CosineAnnealingLR stepped every batch
    cfg = CTC_CFG.format(seed=1234, world_seed=17, n_words=120, n_train=600, n_dev=150, noise=0.6, hidden=64,
                         dropout=0.2, lr=0.005, max_epochs=25, batch_size=16, log_every=5)
    return run_script(rd("run10"), ctc_script(cfg, MANIFEST_OK, SCHED_BATCH_COSINE), log_name="train.log",
                      keep_as="train.py")


def run11():  # ESPnet; decoding points at an older experiment's (3-epoch) model
    base = dict(ESPNET_BASE, host="asr-gpu01", dur=[3, 5], noise=0.5, warmup=100, lr=0.004, world_seed=11,
                data_seed=900)
    old = dict(base, exp="exp/asr_train_asr_rnn_raw_en_char", ckpt_dir=ckdir("run11_old"), seed=3,
               batch_size=32, max_epoch=4)
    rc = run_espnet(os.path.join(tmpdir(), "run11_old"), old)
    new = dict(base, exp="exp/asr_train_asr_rnn_v2_raw_en_char", ckpt_dir=ckdir("run11"), seed=0,
               batch_size=20, max_epoch=18, conf_name="train_asr_rnn_v2.yaml")
    rc |= run_espnet(rd("run11"), new)
    dec = dict(new, mode="decode", decode={"model_exp": old["exp"], "model_ckpt_dir": old["ckpt_dir"],
                                           "ctc_weight": 0.3})
    rc |= run_espnet(rd("run11"), dec, log_name="decode_stdout.log")
    os.remove(os.path.join(rd("run11"), "decode_stdout.log"))
    return rc


def run12():  # fairseq-style MT; resumed with --reset-optimizer --reset-lr-scheduler
    d = rd("run12")
    a = ["--log-interval", "20", "--lang-seed", "12", "--lr", "0.005", "--warmup-updates", "40",
         "--train-size", "2000", "--arch", "lstm_toy"]
    rc = run_script(d, mt_script(), ["--max-epoch", "8"] + a, log_name="train.log", script_name="run12_train")
    rc |= run_script(d, mt_script(), ["--max-epoch", "16"] + a + ["--reset-optimizer", "--reset-lr-scheduler"],
                     log_name="train.log", script_name="run12_train", append=True)
    return rc


RUN_FUNCS = dict(run01=run01, run02=run02, run03=run03, run04=run04, run05=run05, run06=run06, run07=run07,
                 run08=run08, run09=run09, run10=run10, run11=run11, run12=run12)

TRUTH = {
    "run01": dict(truth="exploding_gradients",
                  symptom="My NeMo CTC model sits around train_loss 50 for a few epochs, then in epoch 4 the loss shoots up and everything is nan afterwards; val_wer is 1.0 the whole time.",
                  how="ReLU vanilla-RNN CTC encoder (2x128, ~150-frame utterances) trained with SGD lr 0.009 momentum 0.9 and trainer.gradient_clip_val 0.0; grad_2.0_norm_total (dominated by rnn.weight_hh_l1) climbs from ~2 to ~400 between steps ~115 and ~140, train_loss jumps from ~40 to ~116, then NaN from step 147 to the end."),
    "run02": dict(truth="healthy",
                  symptom="First run of my ESPnet RNN recipe on the toy corpus - is this run ok?",
                  how="No fault: hybrid CTC/attention (BiGRU encoder, GRU+dot-attention decoder), adam 0.004 with warmuplr 100, 20 epochs; valid loss falls monotonically-ish to 2.8, valid acc 0.95, cer_ctc 0.035, wer 0.17."),
    "run03": dict(truth="data_not_shuffled",
                  symptom="The training loss goes up and down in the same pattern inside every epoch, and valid BLEU is well below what I usually get on this data.",
                  how="Training set is the news, subtitles and patents corpora concatenated in that order, and epoch_batches() slices it sequentially (rng unused, no permutation); each domain re-maps half the word senses, so train_inner loss jumps at each block boundary (updates ~1, ~32, ~63 of every epoch: three teeth per epoch). Valid BLEU ends at 41.7; the same script with a permutation reached ~52 in a check run."),
    "run04": dict(truth="eval_mode_forgotten",
                  symptom="val_wer during training got down to about 5%, but transcribe.py with the best checkpoint on the very same dev set gives about 22% WER.",
                  how="transcribe.py loads the checkpoint and decodes under torch.no_grad() but never calls model.eval(); dropout 0.4 and BatchNorm in batch-statistics mode (batch_size 1) stay active. transcribe.py gives WER 22.31% (dev) / 19.80% (test) vs val_wer 0.051 logged by train.py (whose validate() does call eval())."),
    "run05": dict(truth="overfitting",
                  symptom="Train acc is at 98.5% but valid acc is stuck around 45%, and the valid loss has been going up since about epoch 20.",
                  how="ESPnet hybrid model with 2x128 BiGRU and dropout 0.0 trained 45 epochs on a 100-utterance subset (train_sub100, 200-word lexicon, noisy features); valid loss bottoms at 25.2 at epoch 20 and rises to 32.0 by epoch 45 (loss_att 33.5 -> 43.5) while train loss falls to 2.0 and train acc to 0.985; valid acc plateaus ~0.44."),
    "run06": dict(truth="metric_changed",
                  symptom="Test BLEU of the same checkpoint_best.pt dropped from 71.3 to 59.0 after I cleaned up evaluate.py; the model and the data did not change.",
                  how="The evaluate.py refactor (evaluate.py.diff) replaced corpus-level BLEU (n-gram statistics pooled over the test set) with an unsmoothed sentence-level BLEU averaged over sentences (a short sentence without any 4-gram match scores 0). eval_old.log and eval_new.log score identical hypotheses of the same checkpoint: 71.30 vs 59.01."),
    "run07": dict(truth="label_misalignment",
                  symptom="CTC loss never really goes down (stays around 30-40), val_wer is 1.0 from the first to the last epoch and the predictions are empty.",
                  how="build_manifest() sorts utterance ids by duration but zips them with text.values() in the original order, so every utterance is paired with another utterance's transcript (train and dev). train_loss stays 28-41, val_loss ~33.5-34.4, val_wer 1.0, predicted strings empty (all blank)."),
    "run08": dict(truth="lr_too_low",
                  symptom="After 25 epochs the ESPnet model still has acc around 0.18 and cer_ctc 1.0; the loss goes down, but extremely slowly.",
                  how="optim_conf lr 2.0e-05 with adam and no scheduler (meant 2e-3); optim0_lr0 fixed at 2e-5, train loss falls steadily from 44.4 to 38.2 over 25 epochs (about 0.3/epoch early, 0.13/epoch late), grad norms healthy (~5), valid acc 0.18, cer_ctc 1.0."),
    "run09": dict(truth="healthy",
                  symptom="Valid BLEU jumps around from epoch to epoch and training feels slow - is this run ok?",
                  how="No fault: batch size 8, dropout 0.3, lr 7e-4 inverse_sqrt with 400 warm-up updates, 1200 training pairs; valid loss falls every epoch (4.62 -> 1.28), BLEU climbs slowly with a few-point wiggles (41.3, 41.2, 38.8, 43.1, 42.5 over the last epochs)."),
    "run10": dict(truth="lr_schedule_bug",
                  symptom="val_wer bounces up and down every epoch or two instead of settling, and the learning_rate column in metrics.csv looks odd.",
                  how="CosineAnnealingLR(T_max=max_epochs=25) but sched.step() is called after every optimizer step, so the lr cycles between 5e-3 and 1e-5 with a 50-step period (~1.3 epochs) instead of decaying once over 25 epochs; val_wer oscillates between 0.026 and 0.065 and ends at 0.037, train_loss spikes at the lr peaks."),
    "run11": dict(truth="wrong_checkpoint",
                  symptom="Training ended with valid acc ~0.87 and cer_ctc ~0.03, but RESULTS.md after decoding shows about 130% WER on dev and test.",
                  how="asr_inference was run with --asr_train_config/--asr_model_file from exp/asr_train_asr_rnn_raw_en_char (an earlier experiment stopped after 4 epochs) instead of the v2 experiment that train.log and config.yaml belong to (output_dir is inside the v2 exp). Decoding the old model gives WER 129.8/135.4% (CER 42-44%); the v2 model itself decodes at ~16-17% WER."),
    "run12": dict(truth="resume_mismatch",
                  symptom="I continued my fairseq run from checkpoint_last.pt for 8 more epochs, and right after resuming the loss went up and valid BLEU dropped for a while.",
                  how="The second session ran with --reset-optimizer --reset-lr-scheduler: weights restored, but Adam state and num_updates reset ('Loaded checkpoint ... (epoch 8 @ 0 updates)'), so the inverse_sqrt warm-up restarts and lr goes from 1.41e-3 back up to the 5e-3 peak with fresh moments within 40 updates; train_inner loss rises 1.74 -> 1.93, valid loss 1.034 -> 1.273 and BLEU 51.7 -> 44.4 at epoch 9, recovering afterwards."),
}


def main():
    names = sys.argv[1:] or list(RUN_FUNCS)
    os.makedirs(RUNS, exist_ok=True)
    failed = []
    for n in names:
        shutil.rmtree(rd(n), ignore_errors=True)
        os.makedirs(rd(n))
        print(f"== {n}", flush=True)
        rc = RUN_FUNCS[n]()
        shutil.rmtree(os.path.join(rd(n), "checkpoints"), ignore_errors=True)
        shutil.rmtree(os.path.join(rd(n), "__pycache__"), ignore_errors=True)
        if rc:
            failed.append(n)
    with open(os.path.join(OUT, "truth.json"), "w") as f:
        json.dump(TRUTH, f, indent=2)
    if TMP and not os.environ.get("GEN_KEEP_TMP"):
        shutil.rmtree(TMP, ignore_errors=True)
    if failed:
        print("FAILED:", failed)
        sys.exit(1)


if __name__ == "__main__":
    main()
