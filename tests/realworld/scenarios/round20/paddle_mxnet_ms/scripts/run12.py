import datetime
import logging
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                    format="[%(asctime)s %(name)s]: %(message)s", datefmt="%m/%d %H:%M:%S")
log_events = logging.getLogger("lb.utils.events")
log_eval = logging.getLogger("lb.evaluation.testing")
log_train = logging.getLogger("lb.engine.trainer")

TRAIN_ITER = 6000
BATCH = 8
LR = 0.02
LOG_PERIOD = 50
EVAL_PERIOD = 500


def spirals(n, noise=0.9, seed=0):
    rng = np.random.RandomState(seed)
    t = np.sqrt(rng.rand(n)) * 3 * np.pi
    y = rng.randint(0, 2, n)
    r = t + 0.5
    x = np.stack([r * np.cos(t + np.pi * y), r * np.sin(t + np.pi * y)], 1) + noise * rng.randn(n, 2)
    return torch.tensor(x / 5, dtype=torch.float32), torch.tensor(y)


Xtr, ytr = spirals(4000, seed=1)
Xte, yte = spirals(1000, seed=2)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
log_train.info("Starting training from iteration 0")
start = time.time()
g = torch.Generator().manual_seed(1)
for it in range(TRAIN_ITER):
    t0 = time.time()
    idx = torch.randint(0, len(Xtr), (BATCH,), generator=g)
    x, y = Xtr[idx], ytr[idx]
    dt = time.time() - t0
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if (it + 1) % LOG_PERIOD == 0:
        per = (time.time() - start) / (it + 1)
        eta = datetime.timedelta(seconds=int(per * (TRAIN_ITER - it - 1)))
        log_events.info(" eta: {}  iteration: {}/{}  consumed_samples: {}  total_loss: {:.4f}  time: {:.4f} s/iter  "
                        "data_time: {:.4f} s/iter total_throughput: {:.2f} samples/s lr: {:.2e}".format(
                            eta, it, TRAIN_ITER, (it + 1) * BATCH, loss.item(), per, dt, BATCH / per, LR))
    if (it + 1) % EVAL_PERIOD == 0:
        with torch.no_grad():
            acc = (model(Xte).argmax(1) == yte).float().mean().item() * 100
        log_eval.info("Evaluation results for spiral_val in csv format:")
        log_eval.info("copypaste: Acc@1={:.4f}".format(acc))
log_train.info("Total training time: {}".format(datetime.timedelta(seconds=int(time.time() - start))))
