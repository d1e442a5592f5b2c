import argparse
import logging
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

from accelerate import Accelerator
from accelerate.logging import get_logger
from accelerate.utils import set_seed

torch.set_num_threads(1)
logger = get_logger(__name__)


def build_mlp(d_in, n_classes, hidden_sizes, dropout):
    layers, d = [], d_in
    for h in hidden_sizes:
        layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(dropout)]
        d = h
    layers.append(nn.Linear(d, n_classes))
    return nn.Sequential(*layers)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="hparams.yaml")
    args = p.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                        datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO)
    accelerator = Accelerator()
    logger.info(accelerator.state, main_process_only=False)
    set_seed(cfg["train"]["seed"])
    accelerator.print(cfg)

    d = np.load(cfg["data"])
    tr = TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    va = TensorDataset(torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"]))
    train_dl = DataLoader(tr, batch_size=cfg["train"]["per_device_train_batch_size"], shuffle=True)
    val_dl = DataLoader(va, batch_size=cfg["train"]["per_device_eval_batch_size"])
    n_classes = int(d["y_train"].max()) + 1

    model = build_mlp(d["x_train"].shape[1], n_classes, cfg["model"]["hidden_sizes"], cfg["model"]["dropout"])
    o = cfg["optim"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=o["learning_rate"],
                                  betas=(o["adam_beta1"], o["adam_beta2"]),
                                  eps=o["adam_epsilon"], weight_decay=o["weight_decay"])
    total = cfg["train"]["epochs"] * len(train_dl)
    warm = int(cfg["schedule"]["warmup_ratio"] * total)

    def lr_lambda(s):
        if s < warm:
            return s / max(1, warm)
        return 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, total - warm)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    model, optimizer, train_dl, val_dl, scheduler = accelerator.prepare(model, optimizer, train_dl, val_dl,
                                                                        scheduler)
    accelerator.print(optimizer)
    logger.info("***** Running training *****")
    logger.info(f"  Num examples = {len(tr)}")
    logger.info(f"  Num Epochs = {cfg['train']['epochs']}")
    logger.info(f"  Total optimization steps = {total}")

    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        losses = []
        for x, y in train_dl:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            accelerator.backward(loss)
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
        model.eval()
        vl, correct, n = 0.0, 0, 0
        with torch.no_grad():
            for x, y in val_dl:
                out = model(x)
                vl += F.cross_entropy(out, y, reduction="sum").item()
                correct += (out.argmax(1) == y).sum().item()
                n += len(y)
        accelerator.print({"epoch": epoch, "train_loss": round(float(np.mean(losses)), 4),
                           "eval_loss": round(vl / n, 4), "eval_accuracy": round(correct / n, 4),
                           "learning_rate": scheduler.get_last_lr()[0]})


if __name__ == "__main__":
    main()
