import argparse
import os
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    parser = argparse.ArgumentParser(description="tabular classifier")
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--per_device_train_batch_size", type=int, default=32)
    parser.add_argument("--num_train_epochs", type=int, default=10)
    parser.add_argument("--lr_decay_every", type=int, default=2, help="halve the lr every N epochs")
    parser.add_argument("--weight_decay", type=float, default=0.0)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    parser.add_argument("--logging_steps", type=int, default=25)
    parser.add_argument("--output_dir", type=str, default="outputs/tab")
    return parser.parse_args()


def load_data(seed=5):
    rng = np.random.default_rng(seed)
    n, d, k = 4000, 20, 6
    centers = rng.normal(0, 1, (k, d)) * 0.6
    y = rng.integers(0, k, n)
    x = centers[y] + rng.normal(0, 1, (n, d))
    x = x + 0.5 * np.sin(2 * x[:, ::-1])
    x = (x - x.mean(0)) / x.std(0)
    x = torch.tensor(x, dtype=torch.float32)
    y = torch.tensor(y)
    return (x[:3200], y[:3200]), (x[3200:], y[3200:])


def macro_f1(pred, y, k):
    f1s = []
    for c in range(k):
        tp = ((pred == c) & (y == c)).sum().item()
        fp = ((pred == c) & (y != c)).sum().item()
        fn = ((pred != c) & (y == c)).sum().item()
        f1s.append(2 * tp / max(1, 2 * tp + fp + fn))
    return sum(f1s) / k


def main():
    args = get_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    (xtr, ytr), (xva, yva) = load_data()
    train_loader = DataLoader(TensorDataset(xtr, ytr), batch_size=args.per_device_train_batch_size, shuffle=True)
    model = nn.Sequential(
        nn.Linear(20, 256), nn.ReLU(),
        nn.Linear(256, 256), nn.ReLU(),
        nn.Linear(256, 6),
    )
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.lr_decay_every, gamma=0.5)

    steps_per_epoch = len(train_loader)
    print(f"train={len(xtr)} val={len(xva)} steps/epoch={steps_per_epoch} total_steps={steps_per_epoch * args.num_train_epochs}")
    step, running, n_running = 0, 0.0, 0
    start = time.time()
    for epoch in range(args.num_train_epochs):
        model.train()
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            scheduler.step()
            step += 1
            running += loss.item()
            n_running += 1
            if step % args.logging_steps == 0:
                print({"loss": round(running / n_running, 4), "grad_norm": grad_norm.item(),
                       "learning_rate": optimizer.param_groups[0]["lr"], "epoch": round(step / steps_per_epoch, 2)})
                running, n_running = 0.0, 0

        model.eval()
        t0 = time.time()
        with torch.no_grad():
            logits = model(xva)
            val_loss = loss_fn(logits, yva).item()
            pred = logits.argmax(-1)
        rt = time.time() - t0
        print({"eval_loss": val_loss, "eval_accuracy": (pred == yva).float().mean().item(),
               "eval_macro_f1": macro_f1(pred, yva, 6), "eval_runtime": round(rt, 4),
               "eval_samples_per_second": round(len(yva) / rt, 3), "epoch": float(epoch + 1)})
        if (epoch + 1) % 5 == 0:
            path = os.path.join(args.output_dir, f"checkpoint-{step}")
            print(f"Saving model checkpoint to {path}")
            os.makedirs(path, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(path, "model.pt"))
    print({"train_runtime": round(time.time() - start, 4), "epoch": float(args.num_train_epochs)})


if __name__ == "__main__":
    main()
