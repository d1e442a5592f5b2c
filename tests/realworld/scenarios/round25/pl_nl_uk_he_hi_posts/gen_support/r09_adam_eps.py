"""run09: Ukrainian blog/forum post; Adam eps=1.0 carried over from a TF reference config."""
import time
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run09"

CONFIG = dedent('''
experiment: tabular_risk_v2
seed: 2024
data:
  train: data/risk_train.parquet
  val: data/risk_val.parquet
  num_features: 32
  num_classes: 8
  scaler: standard
model:
  type: mlp
  hidden_sizes: [256, 128]
  activation: relu
  dropout: 0.1
optimizer:
  name: adam
  lr: 0.003
  betas: [0.9, 0.999]
  eps: 1.0          # same as the TF reference implementation
  weight_decay: 0.0
training:
  epochs: 25
  batch_size: 128
  log_every_n_epochs: 1
''')


def gen():
    rng = seed_all(909)
    d, k = 32, 8
    Xtr, ytr, cents = make_clf(rng, 6000, d, k, sep=0.6, sub=2)
    Xv, yv = sample_from(rng, cents, 1500)
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr, Xv = torch.from_numpy((Xtr - mu) / sd), torch.from_numpy((Xv - mu) / sd)
    ytr, yv = torch.from_numpy(ytr), torch.from_numpy(yv)
    torch.manual_seed(2024)
    model = mlp([d, 256, 128, k], dropout=0.1)
    opt = torch.optim.Adam(model.parameters(), lr=0.003, betas=(0.9, 0.999), eps=1.0, weight_decay=0.0)
    crit = nn.CrossEntropyLoss()
    clock = Clock("2024-06-18 10:02:11")
    out = [f"{clock.now()} INFO  config: configs/risk_v2.yaml",
           f"{clock.tick(1)} INFO  optimizer: Adam(lr=0.003, betas=(0.9, 0.999), eps=1.0, weight_decay=0.0)",
           f"{clock.tick(0)} INFO  model: MLP 32-256-128-8, params={sum(p.numel() for p in model.parameters())}",
           f"{clock.tick(0)} INFO  train={len(Xtr)} val={len(Xv)} batches/epoch={(len(Xtr) + 127) // 128}"]
    hist = []
    for ep in range(1, 26):
        t0 = time.perf_counter()
        model.train(); perm = torch.randperm(len(Xtr)); tot = 0.0; gsum = 0.0; nb = 0
        for i in range(0, len(perm), 128):
            b = perm[i:i + 128]
            loss = crit(model(Xtr[b]), ytr[b])
            opt.zero_grad(); loss.backward()
            gsum += grad_norm(model); nb += 1
            opt.step(); tot += loss.item() * len(b)
        vl, va = evaluate(model, Xv, yv)
        hist.append((tot / len(perm), vl, va))
        out.append(f"{clock.tick(time.perf_counter() - t0 + 0.3)} INFO  epoch {ep:02d}/25  train_loss={tot / len(perm):.4f}  "
                   f"val_loss={vl:.4f}  val_acc={va:.4f}  grad_norm(avg)={gsum / nb:.4f}  lr=3.00e-03")
    write(RUN, "config.yaml", CONFIG)
    write(RUN, "train.log", "\n".join(out))
    import math
    drops = [hist[i][0] - hist[i + 1][0] for i in range(len(hist) - 1)]
    assert hist[-1][0] > 0.5 * math.log(k), hist[-1]
    post = dedent(f'''
    # PyTorch-версія моделі вчиться в рази повільніше, ніж мала б. Що я роблю не так?

    *Блоги · Data Science / ML · **Iryna Bondar** · 19 червня 2024 · 4 хв читання · питання до спільноти*

    Всім привіт! Переношу на PyTorch наш старий класифікатор ризиків (табличні дані, 32 ознаки, 8 класів).
    Архітектура та гіперпараметри взяті один в один з конфігу референсної TF-реалізації (колега робив її
    пару років тому, там все сходилося помітно швидше).

    У мене ж за 25 епох train_loss опустився лише з {comma(hist[0][0], 3)} до {comma(hist[-1][0], 3)}, а val_acc дійшла тільки до
    {comma(hist[-1][2], 3)}. Лосс падає майже рівномірно, потроху з кожною епохою, ніби модель "не хоче" вчитися. Ознаки
    стандартизовані, класи збалансовані, lr 0.003 для Adam наче нормальний.

    Перевіряла, чи не заморожені ваги – градієнти є (grad_norm у лозі), ваги змінюються. Може, PyTorch-івський Adam
    чимось відрізняється від TF-івського? Чи просто треба ганяти більше епох? Конфіг і лог додаю.
    ''')
    write(RUN, "post.md", post)
    symptom = "PyTorch-версія моделі вчиться дуже повільно: лосс падає майже рівномірно і ледве рухається, хоча гіперпараметри ті самі, що в TF-референсі."
    how = ("Adam is built with eps=1.0 (copied from a TF config) instead of ~1e-8: with gradient magnitudes far below 1 the "
           "denominator is dominated by eps and the update shrinks to ~lr*m, so with a sane lr=3e-3 the loss falls slowly and almost "
           f"linearly ({hist[0][0]:.3f} -> {hist[-1][0]:.3f} in 25 epochs).")
    return dict(truth="optimizer_misconfigured", symptom=symptom, how=how)
