import argparse
import math

import numpy as np
import torch
import torch.nn as nn
from google.cloud import storage


def load_split(uri):
    local = "/tmp/" + uri.rsplit("/", 1)[-1]
    bucket, _, blob = uri[len("gs://"):].partition("/")
    storage.Client().bucket(bucket).blob(blob).download_to_filename(local)
    d = np.load(local)
    return torch.from_numpy(d["x"]).float(), torch.from_numpy(d["y"]).long()


def total_grad_norm(model):
    return math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters() if p.grad is not None))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--val", required=True)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--log-every", type=int, default=5)
    args = ap.parse_args()
    torch.manual_seed(0)

    x_tr, y_tr = load_split(args.train)
    x_va, y_va = load_split(args.val)
    print(f"train={len(x_tr)} val={len(x_va)} features={x_tr.shape[1]} classes={int(y_tr.max()) + 1}", flush=True)

    model = nn.Sequential(
        nn.Linear(x_tr.shape[1], 128), nn.ReLU(),
        nn.Linear(128, 128), nn.ReLU(),
        nn.Linear(128, int(y_tr.max()) + 1),
    )
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    steps_per_epoch = math.ceil(len(x_tr) / args.batch_size)

    step = 0
    optimizer.zero_grad()
    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(x_tr), args.batch_size):
            idx = perm[i:i + args.batch_size]
            loss = criterion(model(x_tr[idx]), y_tr[idx])
            loss.backward()
            gnorm = total_grad_norm(model)
            optimizer.step()
            step += 1
            if step % args.log_every == 0:
                print(f"[epoch {epoch} | step {step}/{args.epochs * steps_per_epoch}] loss {loss.item():.4f} | "
                      f"grad_norm {gnorm:.3f} | lr {optimizer.param_groups[0]['lr']:.1e}", flush=True)
        model.eval()
        with torch.no_grad():
            out = model(x_va)
            val_loss = criterion(out, y_va).item()
            val_acc = (out.argmax(1) == y_va).float().mean().item()
        print(f"[epoch {epoch}] val_loss {val_loss:.4f} | val_acc {val_acc:.4f}", flush=True)
        torch.save(model.state_dict(), f"/gcs/acme-ads-models/intent-mlp/epoch{epoch}.pt")


if __name__ == "__main__":
    main()
