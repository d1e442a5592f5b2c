"""
keyword spotting - speech commands subset (10 words)
DS-CNN-ish model on 40-dim log-mel, 1 s clips @ 16 kHz
"""
import os, wave, time, json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(1234)

cfg = json.load(open('config.json'))
WORDS = cfg['words']


def read_wav(path):
    with wave.open(path, 'rb') as f:
        sr = f.getframerate()
        pcm = np.frombuffer(f.readframes(f.getnframes()), dtype=np.int16)
    return pcm.astype(np.float32) / 32768.0, sr


def melbank(sr, n_fft, n_mels):
    to_mel = lambda f: 2595 * np.log10(1 + f / 700)
    to_hz = lambda m: 700 * (10 ** (m / 2595) - 1)
    pts = to_hz(np.linspace(to_mel(20), to_mel(sr / 2), n_mels + 2))
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_mels, len(freqs)), np.float32)
    for m in range(n_mels):
        fb[m] = np.clip(np.minimum((freqs - pts[m]) / (pts[m + 1] - pts[m]), (pts[m + 2] - freqs) / (pts[m + 2] - pts[m + 1])), 0, None)
    return torch.from_numpy(fb)


FB = melbank(cfg['sample_rate'], cfg['n_fft'], cfg['n_mels'])
WIN = torch.hann_window(cfg['n_fft'])


def featurize(paths):
    feats = []
    for p in paths:
        x, sr = read_wav(os.path.join(cfg['data_dir'], p))
        if sr != cfg['sample_rate']:
            print(f'WARNING: {p} has sample rate {sr}, expected {cfg["sample_rate"]}')
        x = np.pad(x, (0, max(0, sr - len(x))))[:sr]
        S = torch.stft(torch.from_numpy(x), cfg['n_fft'], cfg['hop'], window=WIN, return_complex=True).abs() ** 2
        feats.append(torch.log(FB @ S + 1e-6))
    return torch.stack(feats).unsqueeze(1)


def label_of(p):
    return WORDS.index(p.split('/')[0])


val_files = open(os.path.join(cfg['data_dir'], 'validation_list.txt')).read().split()
test_files = open(os.path.join(cfg['data_dir'], 'testing_list.txt')).read().split()
held = set(val_files) | set(test_files)
train_files = [f'{w}/{n}' for w in WORDS for n in sorted(os.listdir(os.path.join(cfg['data_dir'], w))) if f'{w}/{n}' not in held]

t0 = time.time()
Xtr, Xva, Xte = featurize(train_files), featurize(val_files), featurize(test_files)
ytr = torch.tensor([label_of(p) for p in train_files])
yva = torch.tensor([label_of(p) for p in val_files])
yte = torch.tensor([label_of(p) for p in test_files])
mean, std = Xtr.mean(), Xtr.std()
Xtr, Xva, Xte = (Xtr - mean) / std, (Xva - mean) / std, (Xte - mean) / std
print(f'features done in {time.time() - t0:.1f}s: train {tuple(Xtr.shape)} val {tuple(Xva.shape)} test {tuple(Xte.shape)}')


def dw_block(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride=stride, padding=1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class DSCNN(nn.Module):
    def __init__(self, n_classes, width=48, p_drop=0.4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, width, (5, 3), stride=2, padding=(2, 1), bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.blocks = nn.Sequential(dw_block(width, width, 2), dw_block(width, width, 1), dw_block(width, width, 1))
        self.drop = nn.Dropout(p_drop)
        self.fc = nn.Linear(width, n_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(self.drop(x.mean(dim=(2, 3))))


model = DSCNN(len(WORDS), cfg['width'], cfg['dropout'])
print(f'DSCNN params: {sum(p.numel() for p in model.parameters()):,}')
opt = torch.optim.Adam(model.parameters(), lr=cfg['lr'])
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg['epochs'])


def evaluate(X, y, bs):
    preds, loss = [], 0.0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(X[i:i + bs])
            loss += F.cross_entropy(out, y[i:i + bs], reduction='sum').item()
            preds.append(out.argmax(1))
    preds = torch.cat(preds)
    return loss / len(X), (preds == y).float().mean().item(), preds


history = []
for epoch in range(1, cfg['epochs'] + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    tl, tc = 0.0, 0
    for i in range(0, len(Xtr), cfg['batch_size']):
        idx = perm[i:i + cfg['batch_size']]
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(idx)
        tc += (out.argmax(1) == ytr[idx]).sum().item()
    sched.step()
    vl, va, _ = evaluate(Xva, yva, cfg['eval_batch_size'])
    history.append(dict(epoch=epoch, train_loss=tl / len(Xtr), train_acc=tc / len(Xtr), val_loss=vl, val_acc=va))
    print(f"Epoch {epoch}: train_loss={tl / len(Xtr):.3f} train_acc={tc / len(Xtr):.3f} valid_loss={vl:.3f} valid_acc={va:.3f}")

json.dump(history, open('history.json', 'w'), indent=1)
tl, ta, pred = evaluate(Xte, yte, cfg['eval_batch_size'])
print(f'\ntest_loss={tl:.3f} test_acc={ta:.3f}')
print('per-class test accuracy:')
for c, w in enumerate(WORDS):
    m = yte == c
    print(f'  {w:>6s}: {(pred[m] == c).float().mean().item():.2f}')
cm = np.zeros((len(WORDS), len(WORDS)), int)
for t, p in zip(yte.tolist(), pred.tolist()):
    cm[t, p] += 1
print('confusion (rows=true):')
print('       ' + ''.join(f'{w:>6s}' for w in WORDS))
for c, w in enumerate(WORDS):
    print(f'{w:>6s} ' + ''.join(f'{v:6d}' for v in cm[c]))
torch.save(model.state_dict(), 'dscnn_kws.pt')
