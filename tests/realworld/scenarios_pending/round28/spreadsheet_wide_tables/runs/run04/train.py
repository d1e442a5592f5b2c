# train.py -- ticket routing model (predict resolving team from ticket metadata)
import argparse

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUMERIC_FS1 = ["n_msgs", "n_attachments", "first_resp_min", "body_len", "subject_len",
               "cust_tenure_d", "n_prev_tickets", "hour_opened", "weekday_opened", "sla_tier"]
NUMERIC_FS2 = NUMERIC_FS1 + ["kb_hits", "n_reassign_reqs"]
CATEG_FS3 = ["last_queue"]                      # new metadata columns from the ticket export

FEATURE_SETS = {
    "fs1": (NUMERIC_FS1, []),
    "fs2": (NUMERIC_FS2, []),
    "fs3": (NUMERIC_FS2, CATEG_FS3),
}


def featurize(df, num_cols, cat_cols, stats=None):
    X = df[num_cols].astype("float32")
    if stats is None:
        stats = (X.mean(), X.std())
    X = (X - stats[0]) / stats[1]
    if cat_cols:
        X = pd.concat([X, pd.get_dummies(df[cat_cols].astype(str), dtype="float32")], axis=1)
    return torch.tensor(X.values, dtype=torch.float32), stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fs", default="fs3")
    ap.add_argument("--lr", type=float, default=0.002)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--dropout", type=float, default=0.3)
    args = ap.parse_args()
    torch.manual_seed(0)

    train_df = pd.read_parquet("data/tickets_train.parquet")   # closed tickets, Jan-Sep
    val_df = pd.read_parquet("data/tickets_val.parquet")       # closed tickets, Oct
    teams = sorted(train_df["resolved_by_team"].unique())
    to_idx = {t: i for i, t in enumerate(teams)}

    num_cols, cat_cols = FEATURE_SETS[args.fs]
    Xtr, stats = featurize(train_df, num_cols, cat_cols)
    Xva, _ = featurize(val_df, num_cols, cat_cols, stats)
    ytr = torch.tensor(train_df["resolved_by_team"].map(to_idx).values)
    yva = torch.tensor(val_df["resolved_by_team"].map(to_idx).values)

    model = nn.Sequential(nn.Linear(Xtr.shape[1], 64), nn.ReLU(), nn.Dropout(args.dropout),
                          nn.Linear(64, 64), nn.ReLU(), nn.Dropout(args.dropout),
                          nn.Linear(64, len(teams)))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    crit = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)

    for ep in range(1, args.epochs + 1):
        model.train()
        tl = tc = n = 0
        for xb, yb in loader:
            opt.zero_grad()
            out = model(xb)
            loss = crit(out, yb)
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb); tc += (out.argmax(1) == yb).sum().item(); n += len(yb)
        model.eval()
        with torch.no_grad():
            vo = model(Xva)
            vl = crit(vo, yva).item(); va = (vo.argmax(1) == yva).float().mean().item()
        print(f"[{args.fs}] ep{ep} train_loss {tl/n:.4f} train_acc {tc/n:.4f} val_loss {vl:.4f} val_acc {va:.4f}")


if __name__ == "__main__":
    main()
