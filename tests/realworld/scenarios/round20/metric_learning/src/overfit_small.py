import argparse
import csv
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--train-ids", type=int, default=40)
parser.add_argument("--imgs-per-id", type=int, default=6)
parser.add_argument("--val-ids", type=int, default=100)
parser.add_argument("--epochs", type=int, default=200)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--hidden", type=int, default=1024)
parser.add_argument("--embedding-size", type=int, default=128)
parser.add_argument("--pos-margin", type=float, default=0.0)
parser.add_argument("--neg-margin", type=float, default=0.8)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
json.dump(vars(args), open("args.json", "w"), indent=2)

#<<clusters>>

#<<retrieval>>


def contrastive_loss(emb, labels, pos_margin, neg_margin):
    emb = F.normalize(emb, dim=1)
    d = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    pos = d[same & ~eye]
    neg = d[~same]
    return F.relu(pos - pos_margin).mean() + F.relu(neg_margin - neg).mean()


x_tr, y_tr = make_identities(args.train_ids, args.imgs_per_id, seed=1)
x_va, y_va = make_identities(args.val_ids, 10, seed=2)
X_tr, Y_tr = torch.from_numpy(x_tr), torch.from_numpy(y_tr)
X_va, Y_va = torch.from_numpy(x_va), torch.from_numpy(y_va)

torch.manual_seed(args.seed)
model = nn.Sequential(
    nn.Linear(X_tr.shape[1], args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.embedding_size),
)
print(f"params: {sum(p.numel() for p in model.parameters()):,}")
print(f"train: {len(Y_tr)} samples / {args.train_ids} ids   val: {len(Y_va)} samples / {args.val_ids} ids")
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X_tr, Y_tr),
                                     batch_size=args.batch_size, shuffle=True)

fields = ["epoch", "train_loss", "val_loss", "train_R@1", "val_R@1", "val_R@5", "val_mAP@R"]
with open("metrics.csv", "w", newline="") as f:
    csv.writer(f).writerow(fields)

for epoch in range(1, args.epochs + 1):
    model.train()
    for xb, yb in loader:
        loss = contrastive_loss(model(xb), yb, args.pos_margin, args.neg_margin)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        e_tr, e_va = model(X_tr), model(X_va)
        tr_loss = contrastive_loss(e_tr, Y_tr, args.pos_margin, args.neg_margin).item()
        va_loss = contrastive_loss(e_va, Y_va, args.pos_margin, args.neg_margin).item()
        r_tr = recall_at_k(e_tr, Y_tr, ks=(1,))
        r_va = recall_at_k(e_va, Y_va, ks=(1, 5))
        mapr = map_at_r(e_va, Y_va)
    row = [epoch, tr_loss, va_loss, r_tr[1], r_va[1], r_va[5], mapr]
    with open("metrics.csv", "a", newline="") as f:
        csv.writer(f).writerow([row[0]] + [f"{v:.4f}" for v in row[1:]])
    if epoch % 10 == 0 or epoch == 1:
        print(f"ep {epoch:3d} | train loss {tr_loss:.4f} R@1 {r_tr[1]:.3f} | val loss {va_loss:.4f} "
              f"R@1 {r_va[1]:.3f} R@5 {r_va[5]:.3f} mAP@R {mapr:.4f}")
