import argparse
import logging
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from accelerate import Accelerator
from accelerate.logging import get_logger
from accelerate.utils import set_seed

torch.set_num_threads(1)
logger = get_logger(__name__)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--gradient_accumulation_steps", type=int, default=2)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--log_every", type=int, default=20)
    return p.parse_args()


class SpiralNet(nn.Module):
    def __init__(self, hidden=128, n_classes=3):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def main():
    args = parse_args()
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                        datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO)
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)
    logger.info(accelerator.state, main_process_only=False)
    set_seed(args.seed)

    d = np.load("data/spirals.npz")
    train_ds = TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    val_ds = TensorDataset(torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"]))
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    val_dl = DataLoader(val_ds, batch_size=256)

    model = SpiralNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    updates_per_epoch = math.ceil(len(train_dl) / args.gradient_accumulation_steps)
    max_steps = args.epochs * updates_per_epoch
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / max_steps))
    model, optimizer, train_dl, val_dl, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dl, val_dl, lr_scheduler)

    logger.info("***** Running training *****")
    logger.info(f"  Num examples = {len(train_ds)}")
    logger.info(f"  Num Epochs = {args.epochs}")
    logger.info(f"  Instantaneous batch size per device = {args.batch_size}")
    logger.info(f"  Total train batch size (w. parallel, distributed & accumulation) = "
                f"{args.batch_size * args.gradient_accumulation_steps}")
    logger.info(f"  Gradient Accumulation steps = {args.gradient_accumulation_steps}")
    logger.info(f"  Total optimization steps = {max_steps}")

    completed_steps = 0
    for epoch in range(args.epochs):
        model.train()
        running = []
        for step, (x, y) in enumerate(train_dl):
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            accelerator.backward(loss / args.gradient_accumulation_steps)
            running.append(loss.item())
            if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(train_dl):
                grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
                optimizer.step()
                lr_scheduler.step()
                completed_steps += 1
                if completed_steps % args.log_every == 0:
                    accelerator.print({"epoch": epoch, "step": completed_steps,
                                       "loss": round(float(np.mean(running)), 4),
                                       "grad_norm": round(grad_norm, 4),
                                       "lr": lr_scheduler.get_last_lr()[0]})
                    running = []

        model.eval()
        correct, total, vloss = 0, 0, 0.0
        with torch.no_grad():
            for x, y in val_dl:
                logits = model(x)
                vloss += F.cross_entropy(logits, y, reduction="sum").item()
                correct += (logits.argmax(-1) == y).sum().item()
                total += len(y)
        accelerator.print({"epoch": epoch, "eval_loss": round(vloss / total, 4),
                           "eval_accuracy": round(correct / total, 4)})

    accelerator.end_training()


if __name__ == "__main__":
    main()
