"""run11: Dutch GitHub issue; per-item feature extraction in __getitem__ with num_workers=0."""
import time
import numpy as np, torch, torch.nn as nn
from torch.utils.data import Dataset, DataLoader
from .common import *

RUN = "run11"
SR, N_FFT, HOP, SRC_SR = 16000, 400, 160, 44100

CONFIG = dedent('''
# conf/train_kws.yaml
data:
  root: /data/spraakcommando/wav16k
  orig_sample_rate: 44100
  sample_rate: 16000
  n_fft: 400
  hop_length: 160
  feature: logspec_stats      # per-bin mean + std of the log power spectrogram
dataloader:
  batch_size: 32
  shuffle: true
  num_workers: 0
  pin_memory: false
model:
  hidden: 512
  n_classes: 10
optim:
  lr: 0.001
trainer:
  epochs: 1
  log_every: 10
''')


class KwsDataset(Dataset):
    """Decodes a 1 s clip (44.1 kHz), resamples to 16 kHz and computes log-spectrogram statistics for every item."""
    def __init__(self, n, seed):
        r = np.random.default_rng(seed)
        self.labels = r.integers(0, 10, n)
        self.seeds = r.integers(0, 2**31, n)
        self.f0 = np.linspace(180, 1400, 10)
        self.win = np.hanning(N_FFT)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        r = np.random.default_rng(self.seeds[i])
        t = np.arange(SRC_SR) / SRC_SR          # clips are stored at 44.1 kHz
        y = self.labels[i]
        raw = (np.sin(2 * np.pi * self.f0[y] * t * (1 + 0.05 * r.standard_normal()))
               * np.exp(-((t - r.uniform(0.3, 0.7)) ** 2) / 0.02) + 0.3 * r.standard_normal(SRC_SR))
        wav = np.interp(np.arange(SR) / SR, t, raw)   # resample to 16 kHz
        frames = np.lib.stride_tricks.sliding_window_view(wav, N_FFT)[::HOP] * self.win
        spec = np.log(np.abs(np.fft.rfft(frames, axis=1)) ** 2 + 1e-6)
        feat = np.concatenate([spec.mean(0), spec.std(0)]).astype(np.float32)
        return torch.from_numpy(feat), int(y)


def train(hidden, n_steps, ds, seed=0):
    torch.manual_seed(seed)
    loader = DataLoader(ds, batch_size=32, shuffle=True, num_workers=0)
    model = nn.Sequential(nn.Linear(2 * (N_FFT // 2 + 1), hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    nparams = sum(p.numel() for p in model.parameters())
    lines = []
    td = tc = 0.0
    tstart = t_prev = time.perf_counter()
    acc_d = acc_c = 0.0
    it = iter(loader)
    for step in range(1, n_steps + 1):
        t0 = time.perf_counter()
        xb, yb = next(it)
        t1 = time.perf_counter()
        loss = crit(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
        t2 = time.perf_counter()
        acc_d += t1 - t0; acc_c += t2 - t1; td += t1 - t0; tc += t2 - t1
        if step % 10 == 0:
            now = time.perf_counter()
            lines.append(f"[train] step {step:3d}/{len(loader)} | {10 / (now - t_prev):5.1f} it/s | "
                         f"data {acc_d / 10:.4f}s | fwd+bwd {acc_c / 10:.4f}s | loss {loss.item():.4f}")
            t_prev = now; acc_d = acc_c = 0.0
    total = time.perf_counter() - tstart
    return nparams, lines, td / n_steps, tc / n_steps, n_steps / total, len(loader)


def gen():
    seed_all(1111)
    ds = KwsDataset(3200, 1111)
    p1, l1, d1, c1, ips1, nb = train(512, 40, ds)
    p2, l2, d2, c2, ips2, _ = train(128, 40, ds)
    assert d1 > 4 * c1 and abs(ips1 - ips2) / ips1 < 0.35, (d1, c1, ips1, ips2)

    def block(hidden, nparams, lines, d, c, ips):
        return "\n".join([f"$ python train.py model.hidden={hidden}",
                          f"[setup] dataset: 3200 clips | batch_size 32 | num_workers 0 | {nb} steps/epoch",
                          f"[setup] model: MLP hidden={hidden} params={nparams:,}",
                          *lines,
                          "^C",
                          f"[interrupted] after 40 steps: avg data {d:.4f}s/step, avg fwd+bwd {c:.4f}s/step, {ips:.1f} it/s"])
    log = block(512, p1, l1, d1, c1, ips1) + "\n\n" + block(128, p2, l2, d2, c2, ips2)
    write(RUN, "train_runs.log", log)
    write(RUN, "train_kws.yaml", CONFIG)
    issue = dedent(f'''
    ## Training van het keyword-spotting model is extreem traag  #87

    **t-jansen** opened this issue · label: `question`

    **Wat ik zie**

    Ik train het KWS-model uit deze repo op onze eigen opnames (10 commando's, 1 s clips, opgenomen op 44,1 kHz) op mijn
    werkstation (CPU-only). Ik haal maar {comma(ips1, 1)} it/s, en met onze volledige dataset wordt dat uren per epoch
    voor een piepklein model.

    Om te kijken of het aan het model ligt heb ik het MLP verkleind van hidden=512 naar hidden=128 ({p2:,} i.p.v. {p1:,}
    parameters). Dat scheelt bijna niks: {comma(ips2, 1)} it/s. Beide runs heb ik na 40 steps afgebroken, log hieronder.

    **Vraag**

    Waarom is dit zo traag, en wat kan ik eraan doen? Helpt torch.compile of half precision hier? Mijn `__getitem__` laadt de wav, resamplet naar 16 kHz en maakt de log-spectrogram-features zoals in
    `data/features.py`, daar heb ik niets aan veranderd.

    **Omgeving**: torch 2.13.0, Python 3.11, Ubuntu 24.04. Config: `train_kws.yaml` (bijgevoegd).
    ''')
    write(RUN, "issue.md", issue)
    symptom = f"Training is extreem traag (rond de {comma(ips1, 1)} it/s) en het model verkleinen van hidden 512 naar 128 helpt bijna niks; waarom is dit zo traag?"
    how = (f"Every __getitem__ decodes a 1 s 44.1 kHz clip, resamples it and computes an STFT with num_workers=0, so data loading takes {d1 * 1000:.0f} ms/step "
           f"against {c1 * 1000:.1f} ms for forward+backward; shrinking the model leaves throughput unchanged ({ips1:.1f} vs {ips2:.1f} it/s).")
    return dict(truth="dataloader_bottleneck", symptom=symptom, how=how)
