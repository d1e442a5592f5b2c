"""Evaluate a checkpoint on the held-out test split."""
import json

import torch
import yaml

from data import load_dataset, normalize, split
from model import Classifier


def accuracy(logits, y, session=8):
    """Session-level accuracy: a session (8 consecutive rows) is correct when all its rows are."""
    hit = (logits.argmax(-1) == y).float()
    n = len(hit) // session * session
    return hit[:n].view(-1, session).min(dim=1).values.mean().item()


def REPORT(cfg, score, n):
    rec = {"eval/" + cfg["metric"]: round(score, 4), "n_examples": n, "checkpoint": cfg["checkpoint"]}
    print("[rank0]: " + json.dumps(rec), flush=True)
    with open("metrics_eval.json", "w") as f:
        json.dump(rec, f, indent=2)


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
