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
name: ConvGRU-CTC-char
seed: 1234
data:
  world_seed: 12
  n_letters: 14
  n_words: 80
  n_train: 600
  n_dev: 150
  noise: 0.6
  dur: [3, 5]
  train_manifest: data/train_manifest.json
  dev_manifest: data/dev_manifest.json
model:
  feat_in: 32
  d_model: 96
  hidden: 64
  dropout: 0.2
optim:
  name: adamw
  lr: 0.002
  betas: [0.9, 0.98]
  weight_decay: 0.001
  sched:
    name: CosineAnnealing
    min_lr: 1.0e-05
trainer:
  max_epochs: 12
  batch_size: 16
  log_every_n_steps: 10
  gradient_clip_val: 1.0
""")

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


LABELS = [" "] + list("abcdefghijklmnopqrst"[:CFG["data"]["n_letters"]]) + ["'"]
BLANK = len(LABELS)


def load_split(world, n, seed, prefix):
    utts = make_toy_utts(world, n, seed, noise=CFG["data"]["noise"], dur=tuple(CFG["data"]["dur"]), prefix=prefix)
    feats = {uid: x for uid, x, _ in utts}
    text = {uid: t for uid, _, t in utts}
    return feats, text


def build_manifest(feats, text):
    uids = sorted(feats, key=lambda u: len(feats[u]), reverse=True)
    return [{"audio": feats[u], "duration": len(feats[u]) * 0.01, "text": t}
            for u, t in zip(uids, text.values())]


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
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=CFG["trainer"]["max_epochs"], eta_min=oc["sched"]["min_lr"])
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
            step += 1
            if step % tc["log_every_n_steps"] == 0:
                logger.log({"epoch": epoch, "step": step - 1, "train_loss": round(loss.item(), 4),
                            "learning_rate": opt.param_groups[0]["lr"], "global_step": step,
                            "training_batch_wer": round(word_error_rate(greedy_decode(lp.detach(), ol), texts), 4)})
        sched.step()
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
