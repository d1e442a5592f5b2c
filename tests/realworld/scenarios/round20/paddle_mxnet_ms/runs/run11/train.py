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
cfg = yaml.safe_load(open("ShapeNet_tiny_finetune.yaml"))
G, O = cfg["Global"], cfg["Optimizer"]
for sec in ["Global", "Arch", "Optimizer"]:
    logger.info("{} : ".format(sec))
    for k, v in cfg[sec].items():
        logger.info("    {} : {}".format(k, v))
logger.info("------------------------------------------------------------")


def make_images(n, k=10, size=16, seed=1, noise=0.35, proto_seed=1234):
    prng = np.random.RandomState(proto_seed)
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


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        return self.features(x)


class ShapeNet(nn.Module):
    def __init__(self, class_num=10):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Linear(64, class_num)

    def forward(self, x):
        return self.head(self.backbone(x))


torch.manual_seed(G["seed"])
n_cls = cfg["Arch"]["class_num"]
xtr, ytr = make_images(2000, k=n_cls, seed=31, proto_seed=777)
xva, yva = make_images(500, k=n_cls, seed=32, proto_seed=777)
Xtr = (torch.tensor(xtr, dtype=torch.float32).unsqueeze(1) / 255 - 0.4) / 0.25
Xva = (torch.tensor(xva, dtype=torch.float32).unsqueeze(1) / 255 - 0.4) / 0.25
Ytr, Yva = torch.tensor(ytr), torch.tensor(yva)

model = ShapeNet()
model.load_state_dict(torch.load(G["pretrained_model"]))
logger.info("Finish load pretrained model from {}".format(G["pretrained_model"]))

for p in model.backbone.parameters():
    p.requires_grad = False
optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=O["lr"]["learning_rate"],
                            momentum=O["momentum"], weight_decay=O["regularizer"]["coeff"])

model.head = nn.Linear(64, n_cls)

bs = cfg["DataLoader"]["Train"]["batch_size"]
epochs = G["epochs"]
iters = len(Xtr) // bs
lr = O["lr"]["learning_rate"]
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
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        top1s.append((out.argmax(1) == Ytr[idx]).float().mean().item())
        losses.append(loss.item())
        costs.append(time.time() - tic)
        tic = time.time()
        if it % G["print_batch_step"] == 0:
            c = float(np.mean(costs))
            eta = datetime.timedelta(seconds=int(c * ((epochs - epoch + 1) * iters - it)))
            logger.info("[Train][Epoch {}/{}][Iter: {}/{}]lr(Constant): {:.8f}, top1: {:.5f}, CELoss: {:.5f}, "
                        "loss: {:.5f}, batch_cost: {:.5f}s, reader_cost: {:.5f}, ips: {:.5f} samples/s, eta: {}"
                        .format(epoch, epochs, it, iters, lr, np.mean(top1s), np.mean(losses), np.mean(losses),
                                c, 0.00009, bs / c, eta))
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
        logger.info("Already save model in ./output/ShapeNet_tiny/best_model")
    logger.info("[Eval][Epoch {}][best metric: {}]".format(epoch, best))
