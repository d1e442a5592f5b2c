"""run02: Dutch GitHub issue; healthy run, StepLR decay causes a sudden drop."""
import math
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run02"

CONFIG = dedent('''
# configs/churn_mlp.yaml
seed: 7
data:
  path: data/processed/klanten_2023.parquet
  val_fraction: 0.2
  standardize: true
model:
  hidden: [64, 32]
  dropout: 0.1
optim:
  name: sgd
  lr: 0.1
  momentum: 0.9
  weight_decay: 0.0005
scheduler:
  name: step
  step_size: 15
  gamma: 0.1
trainer:
  epochs: 25
  batch_size: 128
  log_csv: outputs/metrics.csv
''')


def gen():
    rng = seed_all(202)
    d, k = 30, 6
    Xtr, ytr, cents = make_clf(rng, 6000, d, k, sep=0.55, sub=3, noise=1.0)
    Xva, yva = sample_from(rng, cents, 800)
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr = torch.from_numpy((Xtr - mu) / sd); Xva = torch.from_numpy((Xva - mu) / sd)
    ytr = torch.from_numpy(ytr); yva = torch.from_numpy(yva)
    torch.manual_seed(7)
    model = mlp([d, 64, 32, k], dropout=0.1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=15, gamma=0.1)
    crit = nn.CrossEntropyLoss()
    BS = 128
    rows = ["epoch,lr,train_loss,train_acc,val_loss,val_acc"]
    hist = []
    for ep in range(1, 26):
        perm = torch.randperm(len(Xtr))
        tl, tc, n = 0.0, 0, 0
        lr = opt.param_groups[0]["lr"]
        for i in range(0, len(Xtr), BS):
            b = perm[i:i + BS]
            out = model(Xtr[b]); loss = crit(out, ytr[b])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(b); tc += (out.argmax(1) == ytr[b]).sum().item(); n += len(b)
        sched.step()
        vl, va = evaluate(model, Xva, yva)
        hist.append((ep, lr, tl / n, tc / n, vl, va))
        rows.append(f"{ep},{lr:.6g},{tl / n:.5f},{tc / n:.5f},{vl:.5f},{va:.5f}")
    write(RUN, "metrics.csv", "\n".join(rows))
    write(RUN, "config.yaml", CONFIG)
    h15, h16, h25 = hist[14], hist[15], hist[24]
    assert h16[2] < h15[2] - 0.03 and h16[4] < h15[4], (h15, h16)
    issue = dedent(f'''
    **Loss zakt plotseling bij epoch 16 — bug in de CSV-logger?**  #318

    Open · **jdevries-nl** opened this issue · 0 comments

    ### Beschrijving

    Ik train het MLP-voorbeeld (`examples/churn_mlp.py`) op onze eigen klantdata (6 klassen, ~6000
    trainrijen) met de bijgevoegde `configs/churn_mlp.yaml`. Vanaf epoch ~10 zakt de train-loss nog maar
    heel langzaam (epoch 15: {comma(h15[2], 3)}), maar bij epoch 16 valt hij ineens naar {comma(h16[2], 3)} en de
    val-accuracy springt van {comma(h15[5], 3)} naar {comma(h16[5], 3)}. Daarna is het weer vlak (eind: val_acc {comma(h25[5], 3)}).

    Zo'n knik ziet er voor mij niet uit als "echt leren". Kan het zijn dat de `CsvLogger` de running mean
    niet reset na een bepaald aantal epochs, of dat er iets misgaat met de metrics? Of is dit gewoon normaal
    en ben ik paranoïde? 🙂

    ### Reproductie

    ```
    python examples/churn_mlp.py --config configs/churn_mlp.yaml
    ```

    `metrics.csv` en de config hangen eraan.

    ### Omgeving

    - tabkit 0.9.2 (pip)
    - torch 2.13.0, CPU
    - Python 3.11, Ubuntu 22.04
    ''')
    write(RUN, "issue.md", issue)
    symptom = ("Bij epoch 16 zakt de train-loss ineens en springt de val-accuracy omhoog; is dat een bug in de CSV-logger "
               "of is dit gewoon normaal?")
    how = ("Nothing planted: SGD with StepLR(step_size=15, gamma=0.1) as configured; the lr drops 0.1 -> 0.01 at epoch 16, "
           "which gives the expected one-time step down in train and val loss, with val tracking train throughout.")
    return dict(truth="healthy", symptom=symptom, how=how)
