"""run06: keyword-spotting retrain got several times slower after the v2 trainer refactor."""
import time
from torch.utils.data import Dataset, DataLoader
from common import *

RUN = "run06"
SR, NCLS, NCLIP = 16000, 8, 320
KEYWORDS = ["yes", "no", "up", "down", "left", "right", "stop", "go"]

TRAIN_PY = '''# kws/train.py  — v2 trainer (feature extraction moved into the Dataset so we can add SpecAugment later)
import argparse, time
import numpy as np
import soundfile as sf
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

from kws.meters import AverageMeter, ProgressMeter, accuracy

SR, N_FFT, HOP, WIN, N_MELS = 16000, 512, 160, 400, 40


def mel_filterbank(n_mels=N_MELS, n_fft=N_FFT, sr=SR):
    def hz2mel(f): return 2595 * np.log10(1 + f / 700)
    def mel2hz(m): return 700 * (10 ** (m / 2595) - 1)
    pts = mel2hz(np.linspace(hz2mel(20), hz2mel(sr / 2), n_mels + 2))
    bins = np.floor((n_fft + 1) * pts / sr).astype(int)
    fb = np.zeros((n_mels, n_fft // 2 + 1), np.float32)
    for m in range(1, n_mels + 1):
        l, c, r = bins[m - 1], bins[m], bins[m + 1]
        fb[m - 1, l:c] = (np.arange(l, c) - l) / max(1, c - l)
        fb[m - 1, c:r] = (r - np.arange(c, r)) / max(1, r - c)
    return fb


class KWSDataset(Dataset):
    def __init__(self, manifest):
        self.items = [l.split("\\t") for l in open(manifest).read().splitlines()]
        self.fb = mel_filterbank()
        self.window = np.hanning(WIN).astype(np.float32)

    def __len__(self):
        return len(self.items)

    def logmel(self, wav):
        frames = np.lib.stride_tricks.sliding_window_view(wav, WIN)[::HOP] * self.window
        spec = np.abs(np.fft.rfft(frames, n=N_FFT)) ** 2
        return np.log(spec @ self.fb.T + 1e-6).astype(np.float32)

    def __getitem__(self, i):
        path, label = self.items[i]
        wav, _ = sf.read(path, dtype="int16")
        wav = wav.astype(np.float32) / 32768.0
        feat = self.logmel(wav)
        feat = (feat - feat.mean()) / (feat.std() + 1e-5)
        return torch.from_numpy(feat).flatten(), int(label)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", default="data/train_manifest.tsv")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--print-freq", type=int, default=2)
    args = ap.parse_args()

    ds = KWSDataset(args.manifest)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
    model = nn.Sequential(nn.Linear(98 * 40, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 8))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        batch_time, data_time = AverageMeter("Time", ":6.3f"), AverageMeter("Data", ":6.3f")
        losses, top1 = AverageMeter("Loss", ":.4e"), AverageMeter("Acc@1", ":6.2f")
        progress = ProgressMeter(len(loader), [batch_time, data_time, losses, top1], prefix=f"Epoch: [{epoch}]")
        end = time.time()
        for i, (x, y) in enumerate(loader):
            data_time.update(time.time() - end)
            out = model(x)
            loss = loss_fn(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.update(loss.item(), x.size(0))
            top1.update(accuracy(out, y)[0].item(), x.size(0))
            batch_time.update(time.time() - end)
            end = time.time()
            if i % args.print_freq == 0:
                progress.display(i)
        torch.save(model.state_dict(), f"checkpoints/kws_v2_ep{epoch:02d}.pt")


if __name__ == "__main__":
    main()
'''

N_FFT, HOP, WIN, N_MELS = 512, 160, 400, 40


def mel_filterbank(n_mels=N_MELS, n_fft=N_FFT, sr=SR):
    def hz2mel(f): return 2595 * np.log10(1 + f / 700)
    def mel2hz(m): return 700 * (10 ** (m / 2595) - 1)
    pts = mel2hz(np.linspace(hz2mel(20), hz2mel(sr / 2), n_mels + 2))
    bins = np.floor((n_fft + 1) * pts / sr).astype(int)
    fb = np.zeros((n_mels, n_fft // 2 + 1), np.float32)
    for m in range(1, n_mels + 1):
        l, c, r = bins[m - 1], bins[m], bins[m + 1]
        fb[m - 1, l:c] = (np.arange(l, c) - l) / max(1, c - l)
        fb[m - 1, c:r] = (r - np.arange(c, r)) / max(1, r - c)
    return fb


def synth_clips(rng):
    """int16 'recordings': a class-specific pair of formant-like tones with a random onset, plus noise."""
    t = np.arange(SR) / SR
    base = rng.uniform(300, 3000, (NCLS, 2))
    wavs = np.zeros((NCLIP, SR), np.int16)
    labels = rng.integers(0, NCLS, NCLIP)
    for i, c in enumerate(labels):
        f = base[c] * rng.uniform(0.95, 1.05, 2)
        on = rng.integers(0, SR // 2)
        env = np.zeros(SR); env[on:on + SR // 3] = np.hanning(len(env[on:on + SR // 3]))
        s = env * (np.sin(2 * np.pi * f[0] * t) + 0.6 * np.sin(2 * np.pi * f[1] * t)) + rng.normal(0, 0.8, SR)
        wavs[i] = np.clip(s * 8000, -32768, 32767).astype(np.int16)
    return wavs, labels


class KWSDataset(Dataset):
    def __init__(self, wavs, labels):
        self.wavs, self.labels = wavs, labels
        self.fb = mel_filterbank()
        self.window = np.hanning(WIN).astype(np.float32)

    def __len__(self):
        return len(self.labels)

    def logmel(self, wav):
        frames = np.lib.stride_tricks.sliding_window_view(wav, WIN)[::HOP] * self.window
        spec = np.abs(np.fft.rfft(frames, n=N_FFT)) ** 2
        return np.log(spec @ self.fb.T + 1e-6).astype(np.float32)

    def __getitem__(self, i):
        wav = self.wavs[i].astype(np.float32) / 32768.0
        feat = self.logmel(wav)
        feat = (feat - feat.mean()) / (feat.std() + 1e-5)
        return torch.from_numpy(feat).flatten(), int(self.labels[i])


class CachedDataset(Dataset):
    def __init__(self, feats, labels):
        self.feats, self.labels = feats, labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.feats[i], int(self.labels[i])


class Meter:
    def __init__(self, name, fmt):
        self.name, self.fmt = name, fmt
        self.val = self.sum = self.count = 0
        self.avg = 0

    def update(self, v, n=1):
        self.val = v; self.sum += v * n; self.count += n; self.avg = self.sum / self.count

    def __str__(self):
        return ("{name} {val" + self.fmt + "} ({avg" + self.fmt + "})").format(**self.__dict__)


def train(ds, epochs, seed, lines, label):
    torch.manual_seed(seed)
    loader = DataLoader(ds, batch_size=32, shuffle=True, num_workers=0,
                        generator=torch.Generator().manual_seed(seed))
    model = nn.Sequential(nn.Linear(98 * 40, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 8))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)
    lf = nn.CrossEntropyLoss()
    summary = []
    nb = len(loader)
    w = len(str(nb))
    for ep in range(epochs):
        bt, dt, ls, a1 = Meter("Time", ":6.3f"), Meter("Data", ":6.3f"), Meter("Loss", ":.4e"), Meter("Acc@1", ":6.2f")
        t_ep = time.perf_counter()
        end = time.perf_counter()
        for i, (x, y) in enumerate(loader):
            dt.update(time.perf_counter() - end)
            out = model(x)
            loss = lf(out, y)
            opt.zero_grad(); loss.backward(); opt.step()
            ls.update(loss.item(), x.size(0))
            a1.update(float((out.argmax(1) == y).float().mean()) * 100, x.size(0))
            bt.update(time.perf_counter() - end)
            end = time.perf_counter()
            if i % 2 == 0:
                lines.append(f"Epoch: [{ep}][{i:>{w}d}/{nb}]\t{bt}\t{dt}\t{ls}\t{a1}")
        summary.append((ep, time.perf_counter() - t_ep, bt.avg, dt.avg, ls.avg, a1.avg))
    return summary


def build():
    rng = np.random.default_rng(606)
    wavs, labels = synth_clips(rng)
    ds2 = KWSDataset(wavs, labels)
    # v1: features were computed once by the offline job and stored as a tensor cache
    t0 = time.perf_counter()
    feats = torch.stack([ds2[i][0] for i in range(len(ds2))])
    cache_build = time.perf_counter() - t0
    ds1 = CachedDataset(feats, labels)

    l1, l2 = [], []
    s1 = train(ds1, 3, 0, l1, "v1")
    s2 = train(ds2, 3, 0, l2, "v2")
    hdr1 = ["$ python -m kws.train_v1 --feature-cache /mnt/cache/kws_logmel_dev.pt --epochs 3   # commit 5e2a0b1 (before refactor)",
            f"=> loaded feature cache: {len(feats)} x {feats.shape[1]} float32"]
    hdr2 = ["$ python -m kws.train --manifest data/dev_manifest.tsv --epochs 3   # commit 88f1d4c (v2 trainer)",
            f"=> {len(ds2)} clips, batch_size=32, workers=0"]
    write(RUN, "attachments/bench_dev_subset_v1.txt", "\n".join(hdr1 + l1))
    write(RUN, "attachments/bench_dev_subset_v2.txt", "\n".join(hdr2 + l2))
    write(RUN, "attachments/train.py", TRAIN_PY)

    tab = md_table(["trainer", "epoch", "epoch wall time (s)", "avg batch Time (s)", "avg Data (s)", "Acc@1 (train, running)"],
                   [("v1 (5e2a0b1)", e, f"{w:.2f}", f"{b:.3f}", f"{d:.3f}", f"{a:.2f}") for (e, w, b, d, l, a) in s1] +
                   [("v2 (88f1d4c)", e, f"{w:.2f}", f"{b:.3f}", f"{d:.3f}", f"{a:.2f}") for (e, w, b, d, l, a) in s2])
    ratio = np.mean([r[1] for r in s2]) / np.mean([r[1] for r in s1])
    share = np.mean([r[3] / r[2] for r in s2])
    doc = f"""# KWS retrain missed its nightly window after trainer v2 rollout

| | |
|---|---|
| **Incident** | INC-3092 |
| **Status** | Monitoring — mitigated by extending the window; root cause open |
| **Owner** | Voice Platform (on-call: S. Haddad) |
| **Root cause** | TBD — prime suspect: new `m7-batch` CPU pool (nodes migrated the same week) |

## Summary

Starting 2024-07-02 the nightly keyword-spotting retrain ({len(KEYWORDS)} keywords) no longer finishes inside its
nightly window and is killed by the scheduler. Two things changed that week: the job moved from the `c5-batch` to the
new `m7-batch` CPU pool, and the trainer was refactored to v2 (feature extraction moved from the offline cache job
into the training `Dataset`, to prepare SpecAugment). Model quality is unaffected when the job is allowed to finish.

## Impact

* 3 nightly retrains killed (07-02, 07-03, 07-04); serving stayed on the 07-01 model.
* Window extended as a stopgap, which delays the downstream eval jobs.

## Timeline

| When | What |
|---|---|
| 2024-07-01 | Nodes of the batch queue migrated to `m7-batch`. Trainer v2 (88f1d4c) merged. |
| 2024-07-02 04:00 | Nightly retrain killed at the window limit (first occurrence). |
| 2024-07-03 09:30 | On-call opens INC-3092; suspects the new pool (newer CPUs but lower clock). |
| 2024-07-04 04:00 | Killed again. |
| 2024-07-04 14:00 | Benchmark on the {len(ds2)}-clip dev subset on one `m7-batch` node, old vs new trainer, 3 epochs each (attached). |
| 2024-07-05 | Window extended; ticket with infra to compare `m7` vs `c5` single-core performance. |

## Graphs

Dev-subset benchmark, same node, same data, same model (from the attached logs; the offline cache job took
{cache_build:.2f} s to build the v1 feature cache for this subset, not included):

{tab}

v2 epochs take **{ratio:.1f}×** as long as v1 on the same node.

## What we tried

* Reran the v2 trainer on the same `m7-batch` node with `--epochs 3` (above): slow there too.
* Raised the CPU request of the pod from 4 to 8 cores: no visible change in epoch time.
* Checked model size: unchanged between v1 and v2 (same MLP on 98×40 log-mel).

## Suspected root cause

The `m7-batch` nodes have lower single-core clock than `c5`. Infra ticket INFRA-8812 open. We did not get a
`c5` node to rerun the v2 trainer yet (pool drained).

## Action items

- [ ] Rerun the benchmark on a `c5` node when one is available — @s.haddad
- [ ] Ask infra about CPU throttling / cgroup limits on `m7-batch` — @infra
- [ ] Keep extended window until resolved — @voice-platform

## Attachments

`attachments/bench_dev_subset_v1.txt`, `attachments/bench_dev_subset_v2.txt`, `attachments/train.py` (v2 trainer)
"""
    write(RUN, "INC-3092-kws-retrain-window.md", doc)
    return {"truth": "dataloader_bottleneck",
            "symptom": "Since last week our keyword-spotting retrain no longer finishes overnight — epochs are several times slower even though the model is the same. What happened?",
            "how": f"Trainer v2 computes the STFT/log-mel features per clip inside Dataset.__getitem__ with num_workers=0, so about {share*100:.0f} % of each v2 step is spent waiting for data (the Data column vs Time in the progress log, vs ~{np.mean([r[3] / r[2] for r in s1])*100:.0f} % in v1) and epochs take {ratio:.1f}× longer than with the v1 precomputed feature cache on the same node; extra cores do not help because loading runs in the main process."}
