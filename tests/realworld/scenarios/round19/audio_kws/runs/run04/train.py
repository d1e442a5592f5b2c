import os
import wave
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
SEED = 12
torch.manual_seed(SEED)

DATA = 'data/speech_commands'
WORDS = ['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']
SR = 16000
N_FFT = 480
HOP = 160
N_MELS = 40
BATCH = 32
EPOCHS = 6
LR = 1e-3


def mel_filters(sr, n_fft, n_mels):
    def hz_to_mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def mel_to_hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    edges = mel_to_hz(np.linspace(hz_to_mel(0), hz_to_mel(sr / 2), n_mels + 2))
    bins = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_mels, n_fft // 2 + 1), dtype=np.float32)
    for i in range(n_mels):
        up = (bins - edges[i]) / (edges[i + 1] - edges[i])
        down = (edges[i + 2] - bins) / (edges[i + 2] - edges[i + 1])
        fb[i] = np.maximum(0, np.minimum(up, down))
    return torch.from_numpy(fb)


class SpeechCommands(Dataset):
    def __init__(self, root, split):
        val = set(open(os.path.join(root, 'validation_list.txt')).read().split())
        test = set(open(os.path.join(root, 'testing_list.txt')).read().split())
        self.items = []
        for label, word in enumerate(WORDS):
            for name in sorted(os.listdir(os.path.join(root, word))):
                rel = word + '/' + name
                s = 'val' if rel in val else 'test' if rel in test else 'train'
                if s == split:
                    self.items.append((os.path.join(root, rel), label))
        self.window = torch.hann_window(N_FFT)
        self.mel = mel_filters(SR, N_FFT, N_MELS)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        with wave.open(path) as w:
            assert w.getframerate() == SR
            audio = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
        x = torch.from_numpy(audio.astype(np.float32) / 32768.0)
        if len(x) < SR:
            x = F.pad(x, (0, SR - len(x)))
        spec = torch.stft(x[:SR], N_FFT, HOP, window=self.window, return_complex=True).abs() ** 2
        logmel = torch.log(self.mel @ spec)
        return logmel.unsqueeze(0), label


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5, stride=2, padding=2)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.conv3 = nn.Conv2d(32, 48, 3, padding=1)
        self.bn3 = nn.BatchNorm2d(48)
        self.fc = nn.Linear(48, len(WORDS))

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.relu(self.bn3(self.conv3(x)))
        return self.fc(x.mean(dim=(2, 3)))


def main():
    train_ds = SpeechCommands(DATA, 'train')
    val_ds = SpeechCommands(DATA, 'val')
    print(f'train: {len(train_ds)} clips, val: {len(val_ds)} clips, {len(WORDS)} classes')
    g = torch.Generator().manual_seed(SEED)
    train_dl = DataLoader(train_ds, batch_size=BATCH, shuffle=True, generator=g)
    val_dl = DataLoader(val_ds, batch_size=100)
    xb, yb = next(iter(val_dl))
    print(f'input batch: {tuple(xb.shape)} dtype={xb.dtype} min={xb.min():.2f} max={xb.max():.2f} mean={xb.mean():.2f}')
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    step = 0
    for epoch in range(1, EPOCHS + 1):
        model.train()
        t0 = time.time()
        run_loss, run_n = 0.0, 0
        for x, y in train_dl:
            out = model(x)
            loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
            opt.step()
            step += 1
            run_loss += loss.item() * len(y)
            run_n += len(y)
            if step % 10 == 0:
                print(f'[epoch {epoch} step {step:4d}] loss={loss.item():.4f} grad_norm={gnorm.item():.3f}')
        model.eval()
        correct, vloss = 0, 0.0
        with torch.no_grad():
            for x, y in val_dl:
                out = model(x)
                vloss += F.cross_entropy(out, y, reduction='sum').item()
                correct += (out.argmax(1) == y).sum().item()
        print(f'==> epoch {epoch}: train_loss={run_loss / run_n:.4f} val_loss={vloss / len(val_ds):.4f} '
              f'val_acc={correct / len(val_ds):.4f} ({time.time() - t0:.0f}s)')
        torch.save(model.state_dict(), f'ckpt_epoch{epoch}.pt')


if __name__ == '__main__':
    main()
