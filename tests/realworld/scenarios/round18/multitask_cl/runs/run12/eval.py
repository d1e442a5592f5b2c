"""Score the saved multi-task CNN on the held-out test set."""
import argparse
import json

import torch
from torch.utils.data import DataLoader, TensorDataset

from train import CFG, MultiTaskCNN, load_split

torch.set_num_threads(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--weights", default="mtl_cnn.pt")
    p.add_argument("--n-test", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(args.seed)

    X, T = load_split(args.n_test, seed=CFG["seed"] + 500)
    names = list(CFG["tasks"])
    ds = TensorDataset(X, *[T[k] for k in names])
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True)

    model = MultiTaskCNN(CFG)
    model.load_state_dict(torch.load(args.weights))

    correct = {k: 0 for k in names}
    with torch.no_grad():
        for xb, *targets in loader:
            out = model(xb)
            for k, t in zip(names, targets):
                correct[k] += (out[k].argmax(1) == t).sum().item()
    res = {f"test/{k}_acc": round(correct[k] / len(ds), 4) for k in names}
    print(f"[eval] weights={args.weights} n_test={len(ds)} seed={args.seed}")
    for k, v in res.items():
        print(f"  {k}: {v:.4f}")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
