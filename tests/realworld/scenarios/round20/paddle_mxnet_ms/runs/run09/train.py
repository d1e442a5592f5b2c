import argparse
import logging
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

parser = argparse.ArgumentParser(description="Train a deep MLP on the 64-d descriptor dataset.")
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--num-epochs", type=int, default=15)
parser.add_argument("--lr", type=float, default=0.001)
parser.add_argument("--num-layers", type=int, default=8)
parser.add_argument("--hidden", type=int, default=256)
parser.add_argument("--log-interval", type=int, default=10)
parser.add_argument("--save-frequency", type=int, default=5)
parser.add_argument("--logging-file", type=str, default="train_deep_mlp.log")
opt = parser.parse_args()

filehandler = logging.FileHandler(opt.logging_file, mode="w")
streamhandler = logging.StreamHandler()
logger = logging.getLogger("")
logger.setLevel(logging.INFO)
logger.addHandler(filehandler)
logger.addHandler(streamhandler)
logger.info(opt)


def load_descriptors(n, d=64, k=10, seed=0):
    rng = np.random.RandomState(2)
    centers = rng.randn(k, d) * 0.35
    rng = np.random.RandomState(seed)
    y = rng.randint(0, k, n)
    X = centers[y] + rng.randn(n, d)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


Xtr, ytr = load_descriptors(8000, seed=1)
Xva, yva = load_descriptors(2000, seed=2)


def get_model(num_layers, hidden, classes=10):
    layers, d = [], 64
    for _ in range(num_layers - 1):
        layers += [nn.Linear(d, hidden), nn.ReLU()]
        d = hidden
    layers.append(nn.Linear(d, classes))
    return nn.Sequential(*layers)


def initialize(net, sigma=1.0):
    for m in net.modules():
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=sigma)
            nn.init.zeros_(m.bias)


torch.manual_seed(10)
net = get_model(opt.num_layers, opt.hidden)
initialize(net)
trainer = torch.optim.Adam(net.parameters(), lr=opt.lr)


def test():
    net.eval()
    with torch.no_grad():
        out = net(Xva)
        err1 = 1 - (out.argmax(1) == yva).float().mean().item()
        err5 = 1 - (out.topk(5, 1).indices == yva[:, None]).any(1).float().mean().item()
    return err1, err5


n_batches = len(Xtr) // opt.batch_size
for epoch in range(opt.num_epochs):
    tic = time.time()
    btic = time.time()
    net.train()
    perm = torch.randperm(len(Xtr))
    train_loss, acc_sum, n = 0.0, 0.0, 0
    for i in range(n_batches):
        idx = perm[i * opt.batch_size:(i + 1) * opt.batch_size]
        out = net(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        trainer.zero_grad()
        loss.backward()
        trainer.step()
        train_loss += loss.item()
        acc_sum += (out.argmax(1) == ytr[idx]).float().sum().item()
        n += len(idx)
        if opt.log_interval and not (i + 1) % opt.log_interval:
            logger.info("Epoch[%d] Batch [%d]\tSpeed: %f samples/sec\taccuracy=%f\tloss=%f\tlr=%f" % (
                epoch, i, opt.batch_size * opt.log_interval / (time.time() - btic), acc_sum / n,
                train_loss / (i + 1), trainer.param_groups[0]["lr"]))
            btic = time.time()
    err_top1_val, err_top5_val = test()
    logger.info("[Epoch %d] training: accuracy=%f loss=%f" % (epoch, acc_sum / n, train_loss / n_batches))
    logger.info("[Epoch %d] time cost: %f" % (epoch, time.time() - tic))
    logger.info("[Epoch %d] validation: err-top1=%f err-top5=%f" % (epoch, err_top1_val, err_top5_val))
    if opt.save_frequency and (epoch + 1) % opt.save_frequency == 0:
        logger.info("saving params/deep_mlp-%04d.params" % epoch)
