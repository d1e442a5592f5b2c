# tools/train.py (torch port of our PaddleClas recipe) -c ./ppcls/configs/shapes/ResNet_tiny.yaml
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

with open("ResNet_tiny.yaml") as f:
    config = yaml.safe_load(f)


def print_dict(d, delimiter=0):
    for k, v in d.items():
        if isinstance(v, dict):
            logger.info("{}{} : ".format(delimiter * " ", k))
            print_dict(v, delimiter + 4)
        elif isinstance(v, list) and len(v) >= 1 and isinstance(v[0], dict):
            logger.info("{}{} : ".format(delimiter * " ", k))
            for value in v:
                print_dict(value, delimiter + 4)
        else:
            logger.info("{}{} : {}".format(delimiter * " ", k, v))


logger.info("\n===========================================================\n"
            "==        PaddleClas is powered by PaddlePaddle !        ==\n"
            "===========================================================\n"
            "==                                                       ==\n"
            "==   For more info please go to the following website.   ==\n"
            "==                                                       ==\n"
            "==       https://github.com/PaddlePaddle/PaddleClas      ==\n"
            "===========================================================\n")
print_dict(config)


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


G = config["Global"]
torch.manual_seed(G["seed"])
xtr, ytr = make_images(4000, seed=1)
xva, yva = make_images(1000, seed=2)
mean, std = config["DataLoader"]["mean"], config["DataLoader"]["std"]
Xtr = (torch.tensor(xtr, dtype=torch.float32).unsqueeze(1) / 255 - mean) / std
Xva = (torch.tensor(xva, dtype=torch.float32).unsqueeze(1) / 255 - mean) / std
Ytr, Yva = torch.tensor(ytr), torch.tensor(yva)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.short is None else self.short(x)))


class ResNetTiny(nn.Module):
    def __init__(self, class_num):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = BasicBlock(16, 16, 1)
        self.layer2 = BasicBlock(16, 32, 2)
        self.fc = nn.Linear(32, class_num)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(x.mean((2, 3)))


model = ResNetTiny(config["Arch"]["class_num"])
O = config["Optimizer"]
opt = torch.optim.SGD(model.parameters(), lr=O["lr"]["learning_rate"], momentum=O["momentum"],
                      weight_decay=O["regularizer"]["coeff"])
bs = config["DataLoader"]["Train"]["batch_size"]
epochs = G["epochs"]
iters = (len(Xtr) + bs - 1) // bs
warm = O["lr"]["warmup_epoch"] * iters
total = epochs * iters
base_lr = O["lr"]["learning_rate"]


def lr_at(step):
    if step < warm:
        return base_lr * (step + 1) / warm
    return 0.5 * base_lr * (1 + np.cos(np.pi * (step - warm) / (total - warm)))


def accuracy(out, y, k):
    return (out.topk(k, 1).indices == y[:, None]).any(1).float().mean().item()


best = 0.0
step = 0
t_start = time.time()
for epoch in range(1, epochs + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    meters = {"top1": [], "top5": [], "CELoss": []}
    tic = time.time()
    bc = []
    for it in range(iters):
        rtic = time.time()
        idx = perm[it * bs:(it + 1) * bs]
        x, y = Xtr[idx], Ytr[idx]
        reader_cost = time.time() - rtic
        lr = lr_at(step)
        for g in opt.param_groups:
            g["lr"] = lr
        out = model(x)
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        meters["top1"].append(accuracy(out, y, 1))
        meters["top5"].append(accuracy(out, y, 5))
        meters["CELoss"].append(loss.item())
        bc.append(time.time() - tic)
        tic = time.time()
        if it % G["print_batch_step"] == 0:
            bcost = float(np.mean(bc))
            eta = int(bcost * (total - step))
            logger.info("[Train][Epoch {}/{}][Iter: {}/{}]lr(LinearWarmup): {:.8f}, top1: {:.5f}, top5: {:.5f}, "
                        "CELoss: {:.5f}, loss: {:.5f}, batch_cost: {:.5f}s, reader_cost: {:.5f}, "
                        "ips: {:.5f} samples/s, eta: {}".format(
                            epoch, epochs, it, iters, lr, np.mean(meters["top1"]), np.mean(meters["top5"]),
                            np.mean(meters["CELoss"]), np.mean(meters["CELoss"]), bcost, reader_cost,
                            bs / bcost, datetime.timedelta(seconds=eta)))
    logger.info("[Train][Epoch {}/{}][Avg]CELoss: {:.5f}, loss: {:.5f}, top1: {:.5f}, top5: {:.5f}".format(
        epoch, epochs, np.mean(meters["CELoss"]), np.mean(meters["CELoss"]), np.mean(meters["top1"]),
        np.mean(meters["top5"])))
    model.eval()
    ebs = config["DataLoader"]["Eval"]["batch_size"]
    ev = {"CELoss": [], "top1": [], "top5": []}
    n_eval = (len(Xva) + ebs - 1) // ebs
    with torch.no_grad():
        for it in range(n_eval):
            tic = time.time()
            x, y = Xva[it * ebs:(it + 1) * ebs], Yva[it * ebs:(it + 1) * ebs]
            out = model(x)
            ev["CELoss"].append(F.cross_entropy(out, y).item())
            ev["top1"].append(accuracy(out, y, 1))
            ev["top5"].append(accuracy(out, y, 5))
            if it % G["print_batch_step"] == 0:
                c = time.time() - tic
                logger.info("[Eval][Epoch {}][Iter: {}/{}]CELoss: {:.5f}, loss: {:.5f}, top1: {:.5f}, top5: {:.5f}, "
                            "batch_cost: {:.5f}s, reader_cost: {:.5f}, ips: {:.5f} images/sec".format(
                                epoch, it, n_eval, ev["CELoss"][-1], ev["CELoss"][-1], ev["top1"][-1],
                                ev["top5"][-1], c, 0.0, ebs / max(c, 1e-6)))
    top1 = float(np.mean(ev["top1"]))
    logger.info("[Eval][Epoch {}][Avg]CELoss: {:.5f}, loss: {:.5f}, top1: {:.5f}, top5: {:.5f}".format(
        epoch, np.mean(ev["CELoss"]), np.mean(ev["CELoss"]), top1, np.mean(ev["top5"])))
    if top1 > best:
        best = top1
        logger.info("Already save model in ./output/ResNet_tiny/best_model")
    logger.info("[Eval][Epoch {}][best metric: {}]".format(epoch, best))
    logger.info("Already save model in ./output/ResNet_tiny/epoch_{}".format(epoch))
    logger.info("Already save model in ./output/ResNet_tiny/latest")
