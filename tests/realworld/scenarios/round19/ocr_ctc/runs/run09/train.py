import csv
import time
import random

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
random.seed(0)
np.random.seed(0)
torch.manual_seed(0)

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

def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = d[j]
            d[j] = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev = cur
    return d[len(b)]

BATCH = 8
LR = 4e-4
EPOCHS = 5
EVAL_EVERY = 75
VOCAB = ["_", "|"] + sorted(set("".join(KEYWORDS)))


def text_to_ids(t):
    return [VOCAB.index("|" if c == " " else c) for c in t]


class TinyKWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.front = nn.Sequential(
            nn.Conv1d(FEAT_DIM, 48, 3, padding=1), nn.BatchNorm1d(48), nn.ReLU(), nn.Dropout(0.2),
            nn.Conv1d(48, 48, 3, padding=1), nn.BatchNorm1d(48), nn.ReLU())
        self.rnn = nn.GRU(48, 48, batch_first=True, bidirectional=True)
        self.head = nn.Linear(96, len(VOCAB))

    def forward(self, x):
        x = self.front(x.transpose(1, 2)).transpose(1, 2)
        return self.head(self.rnn(x)[0])


def pad(batch):
    L = max(len(f) for f, _ in batch)
    x = torch.zeros(len(batch), L, FEAT_DIM)
    for i, (f, _) in enumerate(batch):
        x[i, :len(f)] = torch.from_numpy(f)
    xl = torch.tensor([len(f) for f, _ in batch])
    y = torch.tensor([i for _, t in batch for i in text_to_ids(t)])
    yl = torch.tensor([len(t) for _, t in batch])
    return x, xl, y, yl


def greedy(lp, xl):
    hyps = []
    for seq, L in zip(lp.argmax(-1).tolist(), xl.tolist()):
        s, prev = [], 0
        for k in seq[:L]:
            if k != prev and k != 0:
                s.append(" " if VOCAB[k] == "|" else VOCAB[k])
            prev = k
        hyps.append(" ".join("".join(s).split()))
    return hyps


table = make_phone_table(42)
train = list(zip(*synth_corpus(3000, 11, table, max_words=3, noise=0.9)))
dev = list(zip(*synth_corpus(300, 12, table, max_words=3, noise=0.9)))
model = TinyKWS()
opt = torch.optim.Adam(model.parameters(), lr=LR)
ctc = nn.CTCLoss(zero_infinity=True)

out = open("metrics.csv", "w", newline="")
w = csv.writer(out)
w.writerow(["step", "epoch", "train_loss", "dev_loss", "dev_cer", "dev_wer", "keyword_acc"])
step = 0
running = []
t0 = time.time()
for epoch in range(EPOCHS):
    random.shuffle(train)
    for b in range(0, len(train) - BATCH + 1, BATCH):
        x, xl, y, yl = pad(train[b:b + BATCH])
        loss = ctc(model(x).log_softmax(-1).transpose(0, 1), y, xl, yl)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        running.append(loss.item())
        if step % EVAL_EVERY == 0:
            model.eval()
            with torch.no_grad():
                x, xl, y, yl = pad(dev)
                lp = model(x).log_softmax(-1)
                dev_loss = ctc(lp.transpose(0, 1), y, xl, yl).item()
                hyps = greedy(lp, xl)
            model.train()
            refs = [t for _, t in dev]
            cer = sum(edit_distance(h, r) for h, r in zip(hyps, refs)) / sum(len(r) for r in refs)
            wer = sum(edit_distance(h.split(), r.split()) for h, r in zip(hyps, refs)) / sum(len(r.split()) for r in refs)
            kw_acc = np.mean([h == r for h, r in zip(hyps, refs)])
            w.writerow([step, epoch, round(float(np.mean(running)), 4), round(dev_loss, 4), round(cer, 4), round(wer, 4), round(float(kw_acc), 4)])
            out.flush()
            print(f"step {step:5d} ep {epoch} train_loss {np.mean(running):.3f} (last {loss.item():.3f}) dev_loss {dev_loss:.3f} "
                  f"CER {cer:.3f} WER {wer:.3f} acc {kw_acc:.3f} [{time.time() - t0:.0f}s]", flush=True)
            running = []
print("final dev samples:")
for h, (_, r) in list(zip(hyps, dev))[:5]:
    print(f"  {r:22s} -> {h}")
