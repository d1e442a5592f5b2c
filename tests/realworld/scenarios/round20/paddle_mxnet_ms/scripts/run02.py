import argparse
import logging
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
logging.basicConfig(level=logging.INFO)

parser = argparse.ArgumentParser(description="train an MLP on the sensor feature set")
parser.add_argument("--num-epochs", type=int, default=10)
parser.add_argument("--batch-size", type=int, default=100)
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--wd", type=float, default=0.0001)
parser.add_argument("--disp-batches", type=int, default=10)
parser.add_argument("--model-prefix", type=str, default="model/mlp")
args = parser.parse_args()
logging.info("start with arguments %s", args)


def make_classification(n, n_features=20, n_informative=8, n_classes=5, seed=0):
    rng = np.random.RandomState(7)
    centers = rng.randn(n_classes, n_informative) * 1.6
    mix = rng.randn(n_informative, n_features - n_informative)
    rng = np.random.RandomState(seed)
    y = rng.randint(0, n_classes, n)
    inf = centers[y] + rng.randn(n, n_informative)
    red = inf @ mix * 0.3 + rng.randn(n, n_features - n_informative)
    X = np.hstack([inf, red]).astype(np.float32)
    return X, y


torch.manual_seed(0)
Xtr, ytr = make_classification(6000, seed=1)
Xva, yva = make_classification(1000, seed=2)
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
Xtr, Xva = torch.tensor(Xtr), torch.tensor(Xva)
ytr, yva = torch.tensor(ytr), torch.tensor(yva)

net = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 5))
opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.wd)

bs = args.batch_size
nb = len(Xtr) // bs
for epoch in range(args.num_epochs):
    tic = time.time()
    net.train()
    perm = torch.randperm(len(Xtr))
    win_acc, win_ce, win_n = 0.0, 0.0, 0
    ep_acc, ep_ce, ep_n = 0.0, 0.0, 0
    btic = time.time()
    for i in range(nb):
        idx = perm[i * bs:(i + 1) * bs]
        out = net(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            acc = (out.argmax(1) == ytr[idx]).float().sum().item()
            ce = F.cross_entropy(out, ytr[idx], reduction="sum").item()
        win_acc += acc; win_ce += ce; win_n += bs
        ep_acc += acc; ep_ce += ce; ep_n += bs
        if (i + 1) % args.disp_batches == 0:
            speed = args.disp_batches * bs / (time.time() - btic)
            logging.info("Epoch[%d] Batch [%d]\tSpeed: %.2f samples/sec\taccuracy=%f\tcross-entropy=%f",
                         epoch, i + 1, speed, win_acc / win_n, win_ce / win_n)
            win_acc, win_ce, win_n = 0.0, 0.0, 0
            btic = time.time()
    logging.info("Epoch[%d] Train-accuracy=%f", epoch, ep_acc / ep_n)
    logging.info("Epoch[%d] Train-cross-entropy=%f", epoch, ep_ce / ep_n)
    logging.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
    logging.info('Saved checkpoint to "%s-%04d.params"', args.model_prefix, epoch + 1)
    net.eval()
    with torch.no_grad():
        out = net(Xva)
        logging.info("Epoch[%d] Validation-accuracy=%f", epoch, (out.argmax(1) == yva).float().mean().item())
        logging.info("Epoch[%d] Validation-cross-entropy=%f", epoch, F.cross_entropy(out, yva).item())
