import os, sys, json, math, time, wave, random, argparse, glob
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def load_wav(path):
    with wave.open(path, "rb") as w:
        sr = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
    return x.astype(np.float32) / 32768.0, sr


def mel_filterbank(sr, n_fft, n_mels, fmin, fmax):
    def hz2mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def mel2hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    hz = mel2hz(np.linspace(hz2mel(fmin), hz2mel(fmax), n_mels + 2))
    bins = np.fft.rfftfreq(n_fft, 1.0 / sr)
    fb = np.zeros((n_mels, len(bins)), np.float32)
    for i in range(n_mels):
        l, c, r = hz[i], hz[i + 1], hz[i + 2]
        fb[i] = np.maximum(0, np.minimum((bins - l) / (c - l), (r - bins) / (r - c)))
    return torch.from_numpy(fb)


class MelSpectrogram:
    def __init__(self, sample_rate, n_fft, hop_length, n_mels, fmin, fmax):
        self.fb = mel_filterbank(sample_rate, n_fft, n_mels, fmin, fmax)
        self.n_fft, self.hop = n_fft, hop_length
        self.window = torch.hann_window(n_fft)

    def magnitude(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, center=True,
                          return_complex=True).abs()
        return torch.matmul(self.fb, spec)

    def __call__(self, wav):
        return torch.log(torch.clamp(self.magnitude(wav), min=1e-5))


def read_metadata(root):
    rows = []
    with open(os.path.join(root, "metadata.csv")) as f:
        for line in f:
            uid, text = line.rstrip("\n").split("|")
            rows.append((uid, text))
    return rows


def read_alignments(root):
    ali = {}
    with open(os.path.join(root, "alignments.txt")) as f:
        for line in f:
            uid, durs, f0 = line.rstrip("\n").split("|")
            ali[uid] = ([int(v) for v in durs.split()], [float(v) for v in f0.split()])
    return ali
