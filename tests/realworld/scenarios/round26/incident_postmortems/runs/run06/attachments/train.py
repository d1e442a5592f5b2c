# kws/train.py  — v2 trainer (feature extraction moved into the Dataset so we can add SpecAugment later)
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
        self.items = [l.split("\t") for l in open(manifest).read().splitlines()]
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
