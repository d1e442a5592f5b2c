import datetime
import logging
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                    format="[%(asctime)s] %(name)s %(levelname)s: %(message)s",
                    datefmt="%Y/%m/%d %H:%M:%S")
logger = logging.getLogger("ppcls")

cfg = yaml.safe_load(open(sys.argv[sys.argv.index("-c") + 1]))
G, O = cfg["Global"], cfg["Optimizer"]
for sec in ["Global", "Arch", "Optimizer"]:
    logger.info("{} : ".format(sec))
    for k, v in cfg[sec].items():
        logger.info("    {} : {}".format(k, v))
logger.info("------------------------------------------------------------")


def load_color_shapes(n, k=8, size=16, seed=0):
    prng = np.random.RandomState(99)
    coarse = prng.rand(k, 3, 4, 4)
    protos = np.kron(coarse, np.ones((1, 1, size // 4, size // 4)))
    rng = np.random.RandomState(seed)
    y = rng.randint(0, k, n)
    x = np.empty((n, 3, size, size), dtype=np.float32)
    for i in range(n):
        img = np.roll(protos[y[i]], (rng.randint(-3, 4), rng.randint(-3, 4)), axis=(1, 2))
        x[i] = 0.5 * img + 0.4 * rng.randn(3, size, size) + 0.25
    return (np.clip(x, 0, 1) * 255).astype(np.uint8), y


torch.manual_seed(G["seed"])
xtr, ytr = load_color_shapes(3200, seed=1)
xva, yva = load_color_shapes(800, seed=2)
Xtr = (torch.tensor(xtr, dtype=torch.float32) / 255 - 0.5) / 0.5
Xva = (torch.tensor(xva, dtype=torch.float32) / 255 - 0.5) / 0.5
Ytr, Yva = torch.tensor(ytr), torch.tensor(yva)


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


model = nn.Sequential(conv_bn(3, 16), conv_bn(16, 16), nn.MaxPool2d(2),
                      conv_bn(16, 32), conv_bn(32, 32), nn.MaxPool2d(2),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, cfg["Arch"]["class_num"]))

optimizer = torch.optim.SGD(model.parameters(), lr=O["lr"]["values"][0], momentum=O["momentum"],
                            weight_decay=O["regularizer"]["coeff"])
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=O["lr"]["decay_epochs"], gamma=0.1)

bs = cfg["DataLoader"]["Train"]["batch_size"]
epochs = G["epochs"]
iters = len(Xtr) // bs
best = 0.0
for epoch in range(1, epochs + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    top1s, losses, costs = [], [], []
    tic = time.time()
    for it in range(iters):
        idx = perm[it * bs:(it + 1) * bs]
        x, y = Xtr[idx], Ytr[idx]
        reader_cost = time.time() - tic
        lr = optimizer.param_groups[0]["lr"]
        out = model(x)
        loss = F.cross_entropy(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        top1s.append((out.argmax(1) == y).float().mean().item())
        losses.append(loss.item())
        costs.append(time.time() - tic)
        tic = time.time()
        if it % G["print_batch_step"] == 0:
            c = float(np.mean(costs))
            eta = datetime.timedelta(seconds=int(c * ((epochs - epoch + 1) * iters - it)))
            logger.info("[Train][Epoch {}/{}][Iter: {}/{}]lr(PiecewiseDecay): {:.8f}, top1: {:.5f}, CELoss: {:.5f}, "
                        "loss: {:.5f}, batch_cost: {:.5f}s, reader_cost: {:.5f}, ips: {:.5f} samples/s, eta: {}"
                        .format(epoch, epochs, it, iters, lr, np.mean(top1s), np.mean(losses), np.mean(losses),
                                c, reader_cost, bs / c, eta))
    logger.info("[Train][Epoch {}/{}][Avg]CELoss: {:.5f}, loss: {:.5f}, top1: {:.5f}".format(
        epoch, epochs, np.mean(losses), np.mean(losses), np.mean(top1s)))
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vloss = F.cross_entropy(out, Yva).item()
        vtop1 = (out.argmax(1) == Yva).float().mean().item()
    logger.info("[Eval][Epoch {}][Avg]CELoss: {:.5f}, loss: {:.5f}, top1: {:.5f}".format(epoch, vloss, vloss, vtop1))
    if vtop1 > best:
        best = vtop1
        logger.info("Already save model in ./output/VGG_tiny/best_model")
    logger.info("[Eval][Epoch {}][best metric: {}]".format(epoch, best))
