import torch

from augment.clip import clip_grad_norm


def test_clip_matches_torch():
    w = torch.nn.Parameter(torch.randn(4))
    w.grad = torch.randn(4)
    assert torch.allclose(clip_grad_norm([w], 1.0), w.grad.norm())
