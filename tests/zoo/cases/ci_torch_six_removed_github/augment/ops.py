import torch


def mixup(x, y, alpha=0.2):
    lam = torch.distributions.Beta(alpha, alpha).sample()
    idx = torch.randperm(len(x))
    return lam * x + (1 - lam) * x[idx], y, y[idx], lam
