"""Dataset, split and preprocessing shared by train.py and evaluate.py."""
import torch


def load_dataset(cfg):
    """Rows as exported from the warehouse: raw sensor units, grouped by label."""
    g = torch.Generator().manual_seed(0)
    centres = torch.randn(cfg["num_classes"], cfg["dim"], generator=g)
    offsets = torch.rand(cfg["dim"], generator=g) * 100
    scales = torch.rand(cfg["dim"], generator=g) * 20 + 1
    g = torch.Generator().manual_seed(cfg["data_seed"])
    y = torch.arange(cfg["n_samples"]) * cfg["num_classes"] // cfg["n_samples"]
    x = centres[y] + torch.randn(cfg["n_samples"], cfg["dim"], generator=g) * 1.3
    return x * scales + offsets, y


def split(x, y, cfg):
    """Random train/test split (seeded)."""
    g = torch.Generator().manual_seed(cfg["split_seed"])
    perm = torch.randperm(len(x), generator=g)
    n_test = int(len(x) * cfg["test_fraction"])
    test, train = perm[:n_test], perm[n_test:]
    return (x[train], y[train]), (x[test], y[test])


def fit_normalizer(x):
    return {"mean": x.mean(0), "std": x.std(0)}


def normalize(x, stats):
    return (x - stats["mean"]) / stats["std"]
