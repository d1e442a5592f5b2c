import os
import time
import yaml

import numpy as np
import torch
import torch.nn as nn
from PIL import Image

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])


def load_crop(path, h, w):
    img = Image.open(path).convert("L").resize((w, h), Image.BILINEAR)
    arr = np.asarray(img, dtype=np.float32) / 255.0
    arr = 1.0 - arr
    return (arr - 0.5) / 0.5


def load_split(folder):
    items = [l.rstrip("\n").split("\t") for l in open(os.path.join(folder, "gt.txt"), encoding="utf-8")]
    x = np.stack([load_crop(os.path.join(folder, f), cfg["img_h"], cfg["img_w"]) for f, _ in items])
    return torch.from_numpy(x).unsqueeze(1), [t for _, t in items]


class CRNN(nn.Module):
    def __init__(self, num_class, hidden=64, dropout=0.0):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 16, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(16, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(True), nn.MaxPool2d((2, 1)),
            nn.Conv2d(32, 48, 3, 1, 1), nn.BatchNorm2d(48), nn.ReLU(True), nn.MaxPool2d((4, 1)))
        self.rnn = nn.GRU(48, hidden, bidirectional=True, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(2 * hidden, num_class)

    def forward(self, x):
        f = self.cnn(x).squeeze(2).permute(0, 2, 1)
        o, _ = self.rnn(self.drop(f))
        return self.fc(self.drop(o))

def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = d[j]
            d[j] = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev = cur
    return d[len(b)]

charset = open(cfg["charset"], encoding="utf-8").read().strip()
c2i = {c: i + 1 for i, c in enumerate(charset)}


def decode(logits):
    prob, idx = logits.softmax(-1).max(-1)
    res = []
    for seq, p in zip(idx.tolist(), prob):
        s, prev = [], 0
        for k in seq:
            if k and k != prev:
                s.append(charset[k - 1])
            prev = k
        res.append(("".join(s), p.prod().item()))
    return res


x_tr, y_tr = load_split(cfg["train_dir"])
x_va, y_va = load_split(cfg["val_dir"])
model = CRNN(len(charset) + 1, cfg["hidden"], cfg["dropout"])
opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg["lr"], total_steps=cfg["epochs"] * (len(x_tr) // cfg["batch_size"]))
ctc = nn.CTCLoss(zero_infinity=True)
log = open("train_log.txt", "w")
best_cer = 1e9
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    t0 = time.time()
    perm = torch.randperm(len(x_tr))
    tot = 0.0
    nb = len(x_tr) // cfg["batch_size"]
    for b in range(nb):
        idx = perm[b * cfg["batch_size"]:(b + 1) * cfg["batch_size"]]
        ys = [y_tr[i] for i in idx]
        tg = torch.tensor([c2i[c] for t in ys for c in t])
        tl = torch.tensor([len(t) for t in ys])
        lp = model(x_tr[idx]).log_softmax(-1).permute(1, 0, 2)
        loss = ctc(lp, tg, torch.full((len(idx),), lp.size(0), dtype=torch.long), tl)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        sched.step()
        tot += loss.item()
    model.eval()
    with torch.no_grad():
        pv = decode(model(x_va))
    cer = sum(edit_distance(p, y) for (p, _), y in zip(pv, y_va)) / sum(len(y) for y in y_va)
    wer = float(np.mean([p != y for (p, _), y in zip(pv, y_va)]))
    line = f"epoch {epoch:02d}  loss {tot / nb:.4f}  val_CER {cer:.4f}  val_WER {wer:.4f}  lr {sched.get_last_lr()[0]:.2e}  {time.time() - t0:.1f}s"
    if cer < best_cer:
        best_cer = cer
        torch.save(model.state_dict(), cfg["checkpoint"])
        line += "  *saved*"
    print(line, flush=True)
    log.write(line + "\n")
log.close()
