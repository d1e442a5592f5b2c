# evaluate.py -- standalone evaluation of a saved checkpoint
import argparse
import json

import torch
from torch.utils.data import DataLoader, TensorDataset

from model import build_model
from data import load_split


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", default="runs/cls-bn-03/best.pt")
    ap.add_argument("--split", default="val")
    ap.add_argument("--bs", type=int, default=32)
    args = ap.parse_args()

    ckpt = torch.load(args.ckpt, map_location="cpu")
    model = build_model(**ckpt["model_args"])
    model.load_state_dict(ckpt["state_dict"])
    print(f"loaded {args.ckpt} (epoch {ckpt['epoch']}, val_acc at save {ckpt['val_acc']:.4f})")

    X, y = load_split(args.split)
    loader = DataLoader(TensorDataset(X, y), batch_size=args.bs, shuffle=False)

    correct, n = 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb).argmax(dim=1)
            correct += (pred == yb).sum().item()
            n += len(yb)
    acc = correct / n
    print(json.dumps({"ckpt": args.ckpt, "split": args.split, "n": n, "accuracy": round(acc, 4)}))


if __name__ == "__main__":
    main()
