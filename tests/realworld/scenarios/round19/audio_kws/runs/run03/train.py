"""Voice-command classifier (8 commands) for the smart-speaker prototype.
Clips: data/commands_flat/clips/*.wav (16 kHz mono, 1 s), labels: data/commands_flat/labels.csv
"""
import glob
import os
import csv
import wave
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)

CLIP_DIR = 'data/commands_flat/clips'
LABEL_CSV = 'data/commands_flat/labels.csv'
HP = {'sample_rate': 16000, 'n_fft': 400, 'hop_length': 160, 'n_mels': 40,
      'batch_size': 64, 'lr': 0.001, 'max_epochs': 8, 'val_fraction': 0.2, 'seed': 0}

files = sorted(glob.glob(os.path.join(CLIP_DIR, '*.wav')))
labels_df = pd.read_csv(LABEL_CSV)
commands = sorted(labels_df['label'].unique())
labels = labels_df['label'].map({c: i for i, c in enumerate(commands)}).values
print(f'{len(files)} wav files, {len(labels)} labels, classes: {commands}')
print(labels_df['label'].value_counts().to_string())


def read(path):
    with wave.open(path) as w:
        assert w.getframerate() == HP['sample_rate'], path
        a = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    return np.pad(a, (0, max(0, HP['sample_rate'] - len(a))))[:HP['sample_rate']]


def mel_matrix(sr, n_fft, n_mels):
    mel_pts = np.linspace(0, 2595 * np.log10(1 + sr / 2 / 700), n_mels + 2)
    hz = 700 * (10 ** (mel_pts / 2595) - 1)
    f = np.linspace(0, sr / 2, n_fft // 2 + 1)
    M = np.zeros((n_mels, len(f)), np.float32)
    for i in range(n_mels):
        M[i] = np.clip(np.minimum((f - hz[i]) / (hz[i + 1] - hz[i]), (hz[i + 2] - f) / (hz[i + 2] - hz[i + 1])), 0, None)
    return torch.from_numpy(M)


wav = torch.from_numpy(np.stack([read(f) for f in files]))
spec = torch.stft(wav, HP['n_fft'], HP['hop_length'], window=torch.hann_window(HP['n_fft']), return_complex=True).abs() ** 2
X = torch.log(mel_matrix(HP['sample_rate'], HP['n_fft'], HP['n_mels']) @ spec + 1e-6)
X = ((X - X.mean()) / X.std()).unsqueeze(1)
y = torch.tensor(labels)
print('features:', tuple(X.shape), ' targets:', tuple(y.shape))

perm = torch.randperm(len(X))
n_val = int(HP['val_fraction'] * len(X))
va_idx, tr_idx = perm[:n_val], perm[n_val:]
Xtr, ytr, Xva, yva = X[tr_idx], y[tr_idx], X[va_idx], y[va_idx]


class CmdNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU())
        self.fc = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.fc(self.conv(x).mean(dim=(2, 3)))


model = CmdNet(len(commands))
opt = torch.optim.Adam(model.parameters(), lr=HP['lr'])
os.makedirs('logs/version_0', exist_ok=True)
with open('logs/version_0/hparams.yaml', 'w') as f:
    for k, v in HP.items():
        f.write(f'{k}: {v}\n')
    f.write(f'num_classes: {len(commands)}\n')
mf = open('logs/version_0/metrics.csv', 'w', newline='')
mw = csv.writer(mf)
mw.writerow(['epoch', 'step', 'train_loss', 'train_acc', 'valid_loss', 'valid_acc'])
step = 0
for epoch in range(HP['max_epochs']):
    model.train()
    order = torch.randperm(len(Xtr))
    tl, tc = 0.0, 0
    for i in range(0, len(order), HP['batch_size']):
        b = order[i:i + HP['batch_size']]
        out = model(Xtr[b])
        loss = F.cross_entropy(out, ytr[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        tl += loss.item() * len(b)
        tc += (out.argmax(1) == ytr[b]).sum().item()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    tl, ta = tl / len(Xtr), tc / len(Xtr)
    print(f'Epoch {epoch}: train_loss={tl:.3f} train_acc={ta:.3f} valid_loss={vl:.3f} valid_acc={va:.3f}')
    mw.writerow([epoch, step, round(tl, 4), round(ta, 4), round(vl, 4), round(va, 4)])
    mf.flush()
torch.save(model.state_dict(), 'logs/version_0/cmdnet.pt')
