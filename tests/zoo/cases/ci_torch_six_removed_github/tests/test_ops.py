import torch

from augment.ops import mixup


def test_mixup_shapes():
    x, y = torch.randn(8, 3), torch.arange(8)
    xm, ya, yb, lam = mixup(x, y)
    assert xm.shape == x.shape and 0 <= lam <= 1
