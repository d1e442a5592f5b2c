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


# ---------------------------------------------------------------- models
LRELU = 0.1


class ResBlock(nn.Module):
    def __init__(self, ch, k=3, dilations=(1, 3)):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(ch, ch, k, dilation=d, padding=d * (k - 1) // 2) for d in dilations])

    def forward(self, x):
        for c in self.convs:
            x = x + c(F.leaky_relu(x, LRELU))
        return x


class Generator(nn.Module):
    def __init__(self, n_mels, ch, upsample_rates):
        super().__init__()
        self.pre = nn.Conv1d(n_mels, ch, 7, padding=3)
        self.ups, self.res = nn.ModuleList(), nn.ModuleList()
        for r in upsample_rates:
            self.ups.append(nn.ConvTranspose1d(ch, ch // 2, 2 * r, stride=r, padding=r // 2 + r % 2, output_padding=r % 2))
            ch //= 2
            self.res.append(ResBlock(ch))
        self.post = nn.Conv1d(ch, 1, 7, padding=3)

    def forward(self, mel):
        x = self.pre(mel)
        for up, rb in zip(self.ups, self.res):
            x = rb(up(F.leaky_relu(x, LRELU)))
        return torch.tanh(self.post(F.leaky_relu(x)))


class ScaleDiscriminator(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.convs = nn.ModuleList([
            nn.Conv1d(1, ch, 15, padding=7),
            nn.Conv1d(ch, ch * 2, 15, stride=4, padding=7),
            nn.Conv1d(ch * 2, ch * 4, 15, stride=4, groups=2, padding=7),
            nn.Conv1d(ch * 4, ch * 4, 5, padding=2),
        ])
        self.post = nn.Conv1d(ch * 4, 1, 3, padding=1)

    def forward(self, x):
        fmap = []
        for c in self.convs:
            x = F.leaky_relu(c(x), LRELU)
            fmap.append(x)
        return self.post(x).flatten(1), fmap


class MultiScaleDiscriminator(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.discs = nn.ModuleList([ScaleDiscriminator(ch), ScaleDiscriminator(ch)])
        self.pool = nn.AvgPool1d(4, 2, padding=2)

    def forward(self, y):
        outs, fmaps = [], []
        for i, d in enumerate(self.discs):
            if i > 0:
                y = self.pool(y)
            o, f = d(y)
            outs.append(o)
            fmaps.append(f)
        return outs, fmaps


def discriminator_loss(real_outs, fake_outs):
    return sum(torch.mean((1 - dr) ** 2) + torch.mean(dg ** 2) for dr, dg in zip(real_outs, fake_outs))


def generator_adv_loss(fake_outs):
    return sum(torch.mean((1 - dg) ** 2) for dg in fake_outs)


def feature_loss(fmap_r, fmap_g):
    loss = 0
    for dr, dg in zip(fmap_r, fmap_g):
        for r, g in zip(dr, dg):
            loss = loss + torch.mean(torch.abs(r - g))
    return loss * 2



# ---------------------------------------------------------------- copy-synthesis / inference

MEL = dict(sampling_rate=8000, n_fft=256, hop_size=80, num_mels=24, fmin=0, fmax=2000)


def main():
    h = json.load(open("config.json"))
    ckpt = sorted(os.listdir("cp_hifigan"))[-1]
    generator = Generator(h["num_mels"], h["upsample_initial_channel"], h["upsample_rates"])
    generator.load_state_dict(torch.load(os.path.join("cp_hifigan", ckpt))["generator"])
    generator.eval()
    mel_fn = MelSpectrogram(MEL["sampling_rate"], MEL["n_fft"], MEL["hop_size"], MEL["num_mels"], MEL["fmin"], MEL["fmax"])
    ref_fn = MelSpectrogram(h["sampling_rate"], h["n_fft"], h["hop_size"], h["num_mels"], h["fmin"], h["fmax"])
    root = h["data_path"]
    ids = sorted(uid for uid, _ in read_metadata(root))[:h["num_val_files"]]
    print("checkpoint: %s" % ckpt)
    errs = []
    for uid in ids:
        wav, _ = load_wav(os.path.join(root, "wavs", uid + ".wav"))
        y = torch.from_numpy(wav[:len(wav) // 80 * 80])
        with torch.no_grad():
            y_hat = generator(mel_fn(y)[:, :-1].unsqueeze(0)).squeeze()
        err = F.l1_loss(ref_fn(y_hat)[:, :-1], ref_fn(y)[:, :-1]).item()
        errs.append(err)
        print("%s  dur %.2fs  mel_L1 %.3f  rms_gen %.4f  rms_ref %.4f" % (
            uid, len(y) / 8000, err, y_hat.pow(2).mean().sqrt(), y.pow(2).mean().sqrt()))
    print("mean mel_L1 over %d files: %.3f" % (len(errs), float(np.mean(errs))))


if __name__ == "__main__":
    main()
