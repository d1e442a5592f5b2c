"""Batch inference on new data: prints predictions and their agreement with the labels."""
import json

import torch
import yaml

from data import load_dataset, normalize, split
from model import Classifier


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    _, (xte, yte) = split(*load_dataset(cfg), cfg)
    ckpt = torch.load(cfg["checkpoint"])
    model = Classifier(cfg)
    model.load_state_dict(ckpt["model"])
    x = normalize(xte, ckpt["normalizer"])
    for run in (1, 2):
        with torch.no_grad():
            probs = model(x).softmax(-1)
        acc = (probs.argmax(-1) == yte).float().mean().item()
        print(f"inference run {run}: accuracy {acc:.4f} on {len(yte)} rows")
        print(f"  sample 0 probs: {[round(p, 3) for p in probs[0].tolist()]}")
        print(f"  sample 1 probs: {[round(p, 3) for p in probs[1].tolist()]}")


if __name__ == "__main__":
    main()
