# KWS baseline: mel spectrogram -> small CNN
import os
import wave
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(3)

ROOT = 'data/speech_commands'
CLASSES = ['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']
SAMPLE_RATE = 16000
N_FFT, HOP, N_MELS = 512, 256, 40
LR = 0.01
EPOCHS = 30
BATCH_SIZE = 32


def melspectrogram(wav):
    spec = torch.stft(wav, N_FFT, HOP, window=torch.hann_window(N_FFT), return_complex=True).abs() ** 2
    return MEL_FB @ spec


def build_mel_fb():
    mel = np.linspace(0, 2595 * np.log10(1 + (SAMPLE_RATE / 2) / 700), N_MELS + 2)
    hz = 700 * (10 ** (mel / 2595) - 1)
    bins = np.floor((N_FFT + 1) * hz / SAMPLE_RATE).astype(int)
    fb = np.zeros((N_MELS, N_FFT // 2 + 1), dtype=np.float32)
    for m in range(1, N_MELS + 1):
        l, c, r = bins[m - 1], bins[m], bins[m + 1]
        for k in range(l, c):
            fb[m - 1, k] = (k - l) / max(c - l, 1)
        for k in range(c, r):
            fb[m - 1, k] = (r - k) / max(r - c, 1)
    return torch.from_numpy(fb)


MEL_FB = build_mel_fb()


def load_split(name_list):
    X, y = [], []
    for rel in name_list:
        with wave.open(os.path.join(ROOT, rel)) as w:
            a = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768
        a = np.pad(a, (0, max(0, SAMPLE_RATE - len(a))))[:SAMPLE_RATE]
        X.append(melspectrogram(torch.from_numpy(a)))
        y.append(CLASSES.index(rel.split('/')[0]))
    return torch.stack(X).unsqueeze(1), torch.tensor(y)


valid_names = open(f'{ROOT}/validation_list.txt').read().split()
test_names = open(f'{ROOT}/testing_list.txt').read().split()
skip = set(valid_names + test_names)
train_names = [f'{c}/{f}' for c in CLASSES for f in sorted(os.listdir(f'{ROOT}/{c}')) if f'{c}/{f}' not in skip]

X_train, y_train = load_split(train_names)
X_valid, y_valid = load_split(valid_names)
print('X_train', tuple(X_train.shape), 'X_valid', tuple(X_valid.shape))
print(f'feature stats: min={X_train.min().item():.3g} max={X_train.max().item():.3g} mean={X_train.mean().item():.3g} std={X_train.std().item():.3g}')


class SimpleCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.conv3 = nn.Conv2d(32, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32, n_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = F.relu(self.conv3(x))
        return self.fc(x.mean(dim=(2, 3)))


model = SimpleCNN(len(CLASSES))
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
print(model)

for epoch in range(EPOCHS):
    model.train()
    t0 = time.time()
    order = torch.randperm(len(X_train))
    losses, correct, gnorms, g1 = [], 0, [], []
    for i in range(0, len(order), BATCH_SIZE):
        idx = order[i:i + BATCH_SIZE]
        logits = model(X_train[idx])
        loss = F.cross_entropy(logits, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        gnorms.append(torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item())
        g1.append(model.conv1.weight.grad.norm().item())
        optimizer.step()
        losses.append(loss.item())
        correct += (logits.argmax(1) == y_train[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vlogits = model(X_valid)
        vloss = F.cross_entropy(vlogits, y_valid).item()
        vacc = (vlogits.argmax(1) == y_valid).float().mean().item()
    print(f'epoch {epoch:02d}  loss {np.mean(losses):.4f}  acc {correct / len(X_train):.3f}  '
          f'val_loss {vloss:.4f}  val_acc {vacc:.3f}  grad_norm mean {np.mean(gnorms):.3g} max {np.max(gnorms):.3g}  '
          f'conv1 grad {np.mean(g1):.3g}  ({time.time() - t0:.1f}s)')
