import time
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

CONFIG = {
    "seed": 7,
    "n_train": 2400,
    "n_dev": 240,
    "max_words": 3,
    "subsample": 4,
    "hidden": 64,
    "batch_size": 32,
    "lr": 1e-3,
    "epochs": 5,
    "log_interval": 10,
}

KEYWORDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "zero", "one"]
FEAT_DIM = 20


def make_phone_table(seed):
    rs = np.random.RandomState(seed)
    letters = sorted(set("".join(KEYWORDS)))
    return {c: rs.randn(FEAT_DIM).astype(np.float32) for c in letters}


def synth_utterance(rs, table, max_words=3, noise=0.6, min_dur=2, max_dur=6):
    words = [KEYWORDS[i] for i in rs.randint(0, len(KEYWORDS), rs.randint(1, max_words + 1))]
    text = " ".join(words)
    frames = [np.zeros((rs.randint(3, 10), FEAT_DIM), np.float32)]
    for ch in text:
        if ch == " ":
            frames.append(np.zeros((rs.randint(3, 8), FEAT_DIM), np.float32))
        else:
            frames.append(np.tile(table[ch], (rs.randint(min_dur, max_dur), 1)))
    frames.append(np.zeros((rs.randint(3, 10), FEAT_DIM), np.float32))
    feats = np.concatenate(frames)
    feats = feats + rs.randn(*feats.shape).astype(np.float32) * noise
    return feats, text


def synth_corpus(n, seed, table, **kw):
    rs = np.random.RandomState(seed)
    out = [synth_utterance(rs, table, **kw) for _ in range(n)]
    return [o[0] for o in out], [o[1] for o in out]


class StackFrames(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x, lengths):
        B, T, D = x.shape
        T2 = T // self.k
        x = x[:, :T2 * self.k].reshape(B, T2, D * self.k)
        return x, lengths // self.k


class KWSModel(nn.Module):
    def __init__(self, n_tokens, k, hidden):
        super().__init__()
        self.stack = StackFrames(k)
        self.proj = nn.Sequential(nn.Linear(FEAT_DIM * k, 96), nn.LayerNorm(96), nn.ReLU())
        self.gru = nn.GRU(96, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, n_tokens)

    def forward(self, x, lengths):
        x, lengths = self.stack(x, lengths)
        h, _ = self.gru(self.proj(x))
        return self.out(h), lengths


TOKENS = ["<blank>", " "] + sorted(set("".join(KEYWORDS)))
tok2id = {t: i for i, t in enumerate(TOKENS)}


def collate(feats, texts):
    lens = torch.tensor([len(f) for f in feats])
    x = torch.zeros(len(feats), int(lens.max()), FEAT_DIM)
    for i, f in enumerate(feats):
        x[i, :len(f)] = torch.from_numpy(f)
    y = torch.tensor([tok2id[c] for t in texts for c in t])
    ylen = torch.tensor([len(t) for t in texts])
    return x, lens, y, ylen


def greedy(logits, lengths):
    res = []
    for seq, L in zip(logits.argmax(-1).tolist(), lengths.tolist()):
        s, prev = [], 0
        for k in seq[:L]:
            if k != prev and k != 0:
                s.append(TOKENS[k])
            prev = k
        res.append("".join(s).strip())
    return res


def wer(hyps, refs):
    import difflib
    errs = n = 0
    for h, r in zip(hyps, refs):
        hw, rw = h.split(), r.split()
        sm = difflib.SequenceMatcher(a=rw, b=hw)
        errs += max(len(rw), len(hw)) - sum(b.size for b in sm.get_matching_blocks())
        n += len(rw)
    return errs / max(n, 1)


torch.manual_seed(CONFIG["seed"])
table = make_phone_table(CONFIG["seed"])
tr_feats, tr_text = synth_corpus(CONFIG["n_train"], 1, table, max_words=CONFIG["max_words"])
dev_feats, dev_text = synth_corpus(CONFIG["n_dev"], 2, table, max_words=CONFIG["max_words"])
print(f"train utts {len(tr_text)}  dev utts {len(dev_text)}  frames/utt {np.mean([len(f) for f in tr_feats]):.1f}  "
      f"chars/utt {np.mean([len(t) for t in tr_text]):.1f}")

model = KWSModel(len(TOKENS), CONFIG["subsample"], CONFIG["hidden"])
optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
ctc_loss = nn.CTCLoss(blank=0)

step = 0
for epoch in range(1, CONFIG["epochs"] + 1):
    order = np.random.RandomState(epoch).permutation(len(tr_text))
    t0 = time.time()
    ep_loss = []
    for b in range(0, len(order), CONFIG["batch_size"]):
        ids = order[b:b + CONFIG["batch_size"]]
        x, xl, y, yl = collate([tr_feats[i] for i in ids], [tr_text[i] for i in ids])
        logits, out_len = model(x, xl)
        loss = ctc_loss(logits.log_softmax(-1).transpose(0, 1), y, out_len, yl)
        optimizer.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        optimizer.step()
        step += 1
        ep_loss.append(loss.item())
        if step % CONFIG["log_interval"] == 0 or step <= 5:
            print(f"epoch {epoch} step {step:4d}  loss {loss.item():.4f}  grad_norm {gnorm.item():.3f}  lr {CONFIG['lr']:.1e}", flush=True)
    model.eval()
    with torch.no_grad():
        x, xl, y, yl = collate(dev_feats, dev_text)
        logits, out_len = model(x, xl)
        dev_loss = ctc_loss(logits.log_softmax(-1).transpose(0, 1), y, out_len, yl).item()
        hyps = greedy(logits, out_len)
    model.train()
    print(f"=== epoch {epoch}  train_loss {np.mean(ep_loss):.4f}  dev_loss {dev_loss:.4f}  dev_WER {wer(hyps, dev_text):.3f}  "
          f"({time.time() - t0:.1f}s)", flush=True)
    for h, r in list(zip(hyps, dev_text))[:3]:
        print(f"    REF: {r!r:24s} HYP: {h!r}")
