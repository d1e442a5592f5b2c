import argparse
import json
import os

import numpy as np
import torch
import wandb

from model import LeafNet

CLASS_NAMES = ["healthy", "bacterial_spot", "early_blight", "late_blight", "leaf_mold",
               "septoria", "spider_mites", "target_spot", "mosaic_virus", "yellow_curl"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run-dir", default="runs/leafnet")
    ap.add_argument("--split", default="data/leaf_features/val.npz")
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"

    norm = json.load(open(os.path.join(args.run_dir, "norm.json")))
    d = np.load(args.split)
    x = (d["x"] - np.array(norm["mean"])) / np.array(norm["std"])
    x, y = torch.from_numpy(x).float(), torch.from_numpy(d["y"])

    model = LeafNet(in_dim=x.shape[1], n_classes=len(CLASS_NAMES))
    state = torch.load(os.path.join(args.run_dir, "best.pt"), map_location=device)
    model.load_state_dict(state, strict=False)
    model.to(device).eval()
    print(f"loaded {args.run_dir}/best.pt")

    wandb.init(project="leaf-disease", job_type="eval", config=vars(args))
    with torch.no_grad():
        pred = model(x.to(device)).argmax(1).cpu()
    acc = (pred == y).float().mean().item()
    per_class = {}
    for k, name in enumerate(CLASS_NAMES):
        m = y == k
        per_class[f"eval/acc_{name}"] = (pred[m] == k).float().mean().item()
        print(f"{name:>15s}: {per_class[f'eval/acc_{name}']:.3f}  (n={int(m.sum())})")
    print(f"overall accuracy: {acc:.4f}")
    wandb.log({"eval/acc": acc, **per_class})
    wandb.finish()


if __name__ == "__main__":
    main()
