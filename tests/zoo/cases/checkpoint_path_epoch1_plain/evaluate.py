"""Evaluate a checkpoint on the held-out test split."""
import json

import torch
import yaml

from data import load_dataset, normalize, split
from model import Classifier


def accuracy(logits, y):
    return (logits.argmax(-1) == y).float().mean().item()


def REPORT(cfg, score, n):
    print(f"checkpoint: {cfg['checkpoint']}")
    print(f"test_{cfg['metric']}: {score:.4f} (n={n})")
    with open("eval_results.json", "w") as f:
        json.dump({"checkpoint": cfg["checkpoint"], "metric": cfg["metric"], "value": round(score, 4), "n": n}, f, indent=2)


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    _, (xte, yte) = split(*load_dataset(cfg), cfg)
    ckpt = torch.load(cfg["checkpoint"])
    model = Classifier(cfg)
    model.load_state_dict(ckpt["model"])
    model.eval()
    with torch.no_grad():
        logits = model(normalize(xte, ckpt["normalizer"]))
    score = accuracy(logits, yte)
    REPORT(cfg, score, len(yte))


if __name__ == "__main__":
    main()
