"""Train the delivery-delay classifier (on_time / late / very_late)."""
import argparse
import numpy as np
import pandas as pd
import torch
import torch.nn as nn

FEATURES = ["distance_km", "n_items", "hour", "weekday", "courier_load", "rain_mm",
            "restaurant_prep_min", "traffic_index", "order_value_eur", "courier_tenure_days"]


def load(path):
    df = pd.read_parquet(path)
    X = torch.tensor(df[FEATURES].values, dtype=torch.float32)
    y = torch.tensor(df["delay_class"].values, dtype=torch.long)
    return X, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/delay_train.parquet")
    ap.add_argument("--val", default="data/delay_val.parquet")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--bs", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()
    torch.manual_seed(0)

    X, y = load(args.train)
    Xv, yv = load(args.val)
    model = nn.Sequential(nn.Linear(len(FEATURES), 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()

    for epoch in range(1, args.epochs + 1):
        perm = torch.randperm(len(X))
        losses = []
        for step, i in enumerate(range(0, len(X), args.bs), 1):
            idx = perm[i:i + args.bs]
            xb, yb = X[idx], y[idx]
            xb = (xb - xb.mean(0)) / xb.std(0)
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if step % 8 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        with torch.no_grad():
            xv = (Xv - Xv.mean(0)) / Xv.std(0)
            out = model(xv)
            vl = loss_fn(out, yv).item()
            va = (out.argmax(1) == yv).float().mean().item()
        print(f"== epoch {epoch} train_loss {np.mean(losses):.4f} val_loss {vl:.4f} val_acc {va:.4f}", flush=True)

    torch.save(model.state_dict(), "delay_clf.pt")


if __name__ == "__main__":
    main()
