# ESC-10 environmental sound classification with a GRU over log-mel frames
# folds 1-4 train, fold 5 validation (official ESC split)
import os
import csv
import time
import wave
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(2024)
np.random.seed(2024)

cfg = dict(root='data/ESC-10', sr=16000, n_fft=1024, hop=320, n_mels=40, hidden=64, layers=1,
           batch_size=16, lr=5e-4, weight_decay=1e-4, epochs=40, val_fold=5, time_mask=12, freq_mask=6)


def wav_read(p):
    with wave.open(p) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768, w.getframerate()


def mel_fb(sr, n_fft, n_mels):
    m = np.linspace(0, 2595 * np.log10(1 + sr / 2 / 700), n_mels + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = np.linspace(0, sr / 2, n_fft // 2 + 1)
    return torch.tensor(np.stack([np.clip(np.minimum((f - hz[i]) / (hz[i + 1] - hz[i]), (hz[i + 2] - f) / (hz[i + 2] - hz[i + 1])), 0, None)
                                  for i in range(n_mels)]), dtype=torch.float32)


meta = list(csv.DictReader(open(os.path.join(cfg['root'], 'meta', 'esc10.csv'))))
cats = sorted({r['category'] for r in meta})
wavs, ys, folds = [], [], []
for r in meta:
    a, sr = wav_read(os.path.join(cfg['root'], 'audio', r['filename']))
    assert sr == cfg['sr']
    wavs.append(torch.from_numpy(a)); ys.append(cats.index(r['category'])); folds.append(int(r['fold']))
W = torch.stack(wavs)
S = torch.stft(W, cfg['n_fft'], cfg['hop'], window=torch.hann_window(cfg['n_fft']), return_complex=True).abs() ** 2
X = torch.log(mel_fb(cfg['sr'], cfg['n_fft'], cfg['n_mels']) @ S + 1e-6).transpose(1, 2)   # (N, T, n_mels)
y = torch.tensor(ys)
folds = torch.tensor(folds)
tr, va = folds != cfg['val_fold'], folds == cfg['val_fold']
mu, sd = X[tr].mean(dim=(0, 1)), X[tr].std(dim=(0, 1))
X = (X - mu) / sd
Xtr, ytr, Xva, yva = X[tr], y[tr], X[va], y[va]
print(f'ESC-10: {len(X)} clips, {len(cats)} classes; train {len(Xtr)} / val {len(Xva)}; features (T, n_mels) = {tuple(X.shape[1:])}')


class GRUClassifier(nn.Module):
    def __init__(self, n_mels, hidden, layers, n_classes):
        super().__init__()
        self.gru = nn.GRU(n_mels, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(4 * hidden, n_classes)

    def forward(self, x):
        h, _ = self.gru(x)
        return self.fc(torch.cat([h.mean(1), h.max(1).values], dim=1))


def spec_augment(x):
    x = x.clone()
    for b in range(len(x)):
        t = np.random.randint(0, x.shape[1] - cfg['time_mask'])
        f = np.random.randint(0, x.shape[2] - cfg['freq_mask'])
        x[b, t:t + np.random.randint(0, cfg['time_mask']), :] = 0
        x[b, :, f:f + np.random.randint(0, cfg['freq_mask'])] = 0
    return x


model = GRUClassifier(cfg['n_mels'], cfg['hidden'], cfg['layers'], len(cats))
opt = torch.optim.AdamW(model.parameters(), lr=cfg['lr'], weight_decay=cfg['weight_decay'])
tb = SummaryWriter('lightning_logs/version_0')
with open('lightning_logs/version_0/hparams.yaml', 'w') as f:
    for k, v in cfg.items():
        f.write(f'{k}: {v}\n')
print(f"  | Name  | Type | Params\n-------------------------------\n0 | gru   | GRU  | {sum(p.numel() for p in model.gru.parameters()) / 1e3:.1f} K\n"
      f"1 | fc    | Linear | {sum(p.numel() for p in model.fc.parameters())}\n-------------------------------")
step = 0
for epoch in range(cfg['epochs']):
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(Xtr))
    L, C = 0.0, 0
    for i in range(0, len(perm), cfg['batch_size']):
        idx = perm[i:i + cfg['batch_size']]
        out = model(spec_augment(Xtr[idx]))
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        step += 1
        L += loss.item() * len(idx); C += (out.argmax(1) == ytr[idx]).sum().item()
        tb.add_scalar('train_loss_step', loss.item(), step)
        tb.add_scalar('grad_norm', gn.item(), step)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        vacc = (out.argmax(1) == yva).float().mean().item()
    tl, ta = L / len(Xtr), C / len(Xtr)
    for k, v in dict(train_loss=tl, train_acc=ta, valid_loss=vl, valid_acc=vacc).items():
        tb.add_scalar(k, v, epoch)
    tb.add_scalar('epoch', epoch, step)
    print(f'Epoch {epoch}: train_loss={tl:.3f} train_acc={ta:.3f} valid_loss={vl:.3f} valid_acc={vacc:.3f} [{time.time() - t0:.1f}s]')
tb.close()

with torch.no_grad():
    pred = model(Xva).argmax(1)
print('\nvalidation per-class accuracy (fold 5):')
for c, name in enumerate(cats):
    m = yva == c
    print(f'  {name:15s} {(pred[m] == c).float().mean().item():.2f}')
