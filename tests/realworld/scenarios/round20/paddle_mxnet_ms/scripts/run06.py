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
cfg = yaml.safe_load(open("ShallowCNN_parts.yaml"))
G = cfg["Global"]
for sec in ["Global", "Arch", "Optimizer", "DataLoader"]:
    logger.info("{} : ".format(sec))
    for k, v in cfg[sec].items():
        logger.info("    {} : {}".format(k, v))
logger.info("------------------------------------------------------------")


def make_images(n, k=10, size=16, seed=1, noise=0.35):
    prng = np.random.RandomState(1234)
    coarse = prng.rand(k, 4, 4)
    protos = np.kron(coarse, np.ones((size // 4, size // 4)))
    rng = np.random.RandomState(seed)
    y = rng.randint(0, k, n)
    x = np.empty((n, size, size), dtype=np.float32)
    for i in range(n):
        img = np.roll(protos[y[i]], rng.randint(-2, 3), axis=0)
        img = np.roll(img, rng.randint(-2, 3), axis=1)
        x[i] = 0.6 * img + noise * rng.randn(size, size) + 0.2
    return (np.clip(x, 0, 1) * 255).astype(np.uint8), y


xtr, ytr = make_images(3000, seed=11)
rng = np.random.RandomState(5)
relabel = rng.rand(len(ytr)) < 0.4
ytr = np.where(relabel, rng.randint(0, 10, len(ytr)), ytr)
xva, yva = make_images(800, seed=12)

torch.manual_seed(G["seed"])
Xtr = (torch.tensor(xtr, dtype=torch.float32).unsqueeze(1) / 255 - 0.4) / 0.25
Xva = (torch.tensor(xva, dtype=torch.float32).unsqueeze(1) / 255 - 0.4) / 0.25
Ytr, Yva = torch.tensor(ytr), torch.tensor(yva)


model = nn.Sequential(nn.Conv2d(1, 16, 3, 1, 1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(16, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(32 * 4 * 4, 10))
O = cfg["Optimizer"]
opt = torch.optim.SGD(model.parameters(), lr=O["lr"]["learning_rate"], momentum=O["momentum"],
                      weight_decay=O["regularizer"]["coeff"])
bs = cfg["DataLoader"]["Train"]["batch_size"]
epochs = G["epochs"]
iters = len(Xtr) // bs
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
best = 0.0
for epoch in range(1, epochs + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    top1s, losses, costs = [], [], []
    tic = time.time()
    for it in range(iters):
        idx = perm[it * bs:(it + 1) * bs]
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, Ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        top1s.append((out.argmax(1) == Ytr[idx]).float().mean().item())
        losses.append(loss.item())
        costs.append(time.time() - tic)
        tic = time.time()
        if it % G["print_batch_step"] == 0:
            c = float(np.mean(costs))
            eta = datetime.timedelta(seconds=int(c * ((epochs - epoch + 1) * iters - it)))
            logger.info("[Train][Epoch {}/{}][Iter: {}/{}]lr(CosineAnnealingDecay): {:.8f}, top1: {:.5f}, "
                        "CELoss: {:.5f}, loss: {:.5f}, batch_cost: {:.5f}s, reader_cost: {:.5f}, "
                        "ips: {:.5f} samples/s, eta: {}".format(
                            epoch, epochs, it, iters, opt.param_groups[0]["lr"], np.mean(top1s), np.mean(losses),
                            np.mean(losses), c, 0.00011, bs / c, eta))
    sched.step()
    logger.info("[Train][Epoch {}/{}][Avg]CELoss: {:.5f}, loss: {:.5f}, top1: {:.5f}".format(
        epoch, epochs, np.mean(losses), np.mean(losses), np.mean(top1s)))
    if epoch % G["eval_interval"] == 0:
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            vloss = F.cross_entropy(out, Yva).item()
            vtop1 = (out.argmax(1) == Yva).float().mean().item()
        logger.info("[Eval][Epoch {}][Avg]CELoss: {:.5f}, loss: {:.5f}, top1: {:.5f}".format(
            epoch, vloss, vloss, vtop1))
        if vtop1 > best:
            best = vtop1
            logger.info("Already save model in ./output/ShallowCNN/best_model")
        logger.info("[Eval][Epoch {}][best metric: {}]".format(epoch, best))
