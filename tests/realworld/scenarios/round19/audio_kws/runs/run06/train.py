"""UrbanSound8K sound classification: log-mel CNN.
folds 1-9 -> train/val (80/20), fold 10 -> held-out test
"""
import os
import csv
import wave
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader, random_split

torch.set_num_threads(1)
torch.manual_seed(42)

ROOT = 'data/UrbanSound8K'
SR = 16000
CLIP = 2.0
N_FFT, HOP, N_MELS = 1024, 512, 40
EPOCHS = 25
BATCH = 32
LR = 3e-3

hparams = dict(sample_rate=SR, clip_seconds=CLIP, n_fft=N_FFT, hop_length=HOP, n_mels=N_MELS,
               epochs=EPOCHS, batch_size=BATCH, lr=LR, optimizer='adam', val_fraction=0.2, test_fold=10, seed=42)
with open('hparams.yaml', 'w') as f:
    for k, v in hparams.items():
        f.write(f'{k}: {v}\n')


def load_audio(path):
    with wave.open(path) as w:
        sr = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    if sr != SR:
        t_old = np.arange(len(x)) / sr
        t_new = np.arange(int(len(x) * SR / sr)) / SR
        x = np.interp(t_new, t_old, x).astype(np.float32)
    n = int(SR * CLIP)
    x = np.pad(x, (0, max(0, n - len(x))))[:n]
    return torch.from_numpy(x), sr


def mel_fb():
    m = np.linspace(0, 2595 * np.log10(1 + SR / 2 / 700), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = np.linspace(0, SR / 2, N_FFT // 2 + 1)
    return torch.tensor(np.stack([np.clip(np.minimum((f - hz[i]) / (hz[i + 1] - hz[i]), (hz[i + 2] - f) / (hz[i + 2] - hz[i + 1])), 0, None)
                                  for i in range(N_MELS)]), dtype=torch.float32)


FB = mel_fb()
WIN = torch.hann_window(N_FFT)


def logmel(x):
    S = torch.stft(x, N_FFT, HOP, window=WIN, return_complex=True).abs() ** 2
    return torch.log(FB @ S + 1e-6)


meta = list(csv.DictReader(open(os.path.join(ROOT, 'metadata', 'UrbanSound8K.csv'))))
classes = sorted({(int(r['classID']), r['class']) for r in meta})
class_names = [c for _, c in classes]

X, y, folds = [], [], []
resampled = {}
t0 = time.time()
for r in meta:
    wav, sr = load_audio(os.path.join(ROOT, 'audio', f"fold{r['fold']}", r['slice_file_name']))
    if sr != SR:
        resampled[sr] = resampled.get(sr, 0) + 1
    X.append(logmel(wav))
    y.append(int(r['classID']))
    folds.append(int(r['fold']))
for sr, n in resampled.items():
    print(f'UserWarning: {n} files have sample rate {sr} Hz, resampled to {SR} Hz')
X = torch.stack(X).unsqueeze(1)
y = torch.tensor(y)
folds = torch.tensor(folds)
print(f'loaded {len(X)} clips in {time.time() - t0:.1f}s, features {tuple(X.shape[1:])}')

dev = folds != 10
mu, sd = X[dev].mean(), X[dev].std()
X = (X - mu) / sd
dev_ds = TensorDataset(X[dev], y[dev])
test_ds = TensorDataset(X[~dev], y[~dev])
n_val = int(0.2 * len(dev_ds))
train_ds, val_ds = random_split(dev_ds, [len(dev_ds) - n_val, n_val], generator=torch.Generator().manual_seed(42))
print(f'train {len(train_ds)} | val {len(val_ds)} | test (fold 10) {len(test_ds)}')

train_dl = DataLoader(train_ds, batch_size=BATCH, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=128)
test_dl = DataLoader(test_ds, batch_size=128)


class AudioCNN(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))
        self.body = nn.Sequential(nn.Conv2d(1, 16, 5, stride=2, padding=2), nn.BatchNorm2d(16), nn.ReLU(),
                                  block(16, 32), block(32, 48))
        self.head = nn.Sequential(nn.Dropout(0.3), nn.Linear(48, n_classes))

    def forward(self, x):
        return self.head(self.body(x).mean(dim=(2, 3)))


model = AudioCNN(len(class_names))
opt = torch.optim.Adam(model.parameters(), lr=LR)


def run_eval(dl):
    model.eval()
    L, C, N, P, T = 0.0, 0, 0, [], []
    with torch.no_grad():
        for xb, yb in dl:
            out = model(xb)
            L += F.cross_entropy(out, yb, reduction='sum').item()
            C += (out.argmax(1) == yb).sum().item()
            N += len(yb)
            P.append(out.argmax(1)); T.append(yb)
    return L / N, C / N, torch.cat(P), torch.cat(T)


with open('metrics.csv', 'w', newline='') as f:
    csv.writer(f).writerow(['epoch', 'train_loss', 'train_acc', 'val_loss', 'val_acc'])
for epoch in range(EPOCHS):
    model.train()
    L, C, N = 0.0, 0, 0
    for xb, yb in train_dl:
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        L += loss.item() * len(yb); C += (out.argmax(1) == yb).sum().item(); N += len(yb)
    vl, va, _, _ = run_eval(val_dl)
    print(f'Epoch {epoch}: train_loss={L / N:.3f} train_acc={C / N:.3f} valid_loss={vl:.3f} valid_acc={va:.3f}')
    with open('metrics.csv', 'a', newline='') as f:
        csv.writer(f).writerow([epoch, round(L / N, 4), round(C / N, 4), round(vl, 4), round(va, 4)])

tl, ta, P, T = run_eval(test_dl)
print(f'\nTest (fold 10): test_loss={tl:.3f} test_acc={ta:.3f}')
print('per-class accuracy (fold 10):')
for c, name in enumerate(class_names):
    m = T == c
    if m.any():
        print(f'  {name:18s} {(P[m] == c).float().mean().item():.2f}  ({m.sum().item()} clips)')
torch.save(model.state_dict(), 'us8k_cnn.pt')
