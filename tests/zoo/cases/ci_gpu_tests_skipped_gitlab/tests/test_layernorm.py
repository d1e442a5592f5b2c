import pytest
import torch

from conftest import requires_cuda
from fused.layernorm import fused_layer_norm


def test_cpu_matches_torch():
    x, w, b = torch.randn(4, 64), torch.ones(64), torch.zeros(64)
    ref = torch.nn.functional.layer_norm(x, (64,), w, b)
    assert torch.allclose(fused_layer_norm(x, w, b), ref, atol=1e-5)


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("n", [64, 1024, 4096])
def test_cuda_matches_torch(dtype, n):
    x = torch.randn(8, n, device="cuda", dtype=dtype)
    w, b = torch.ones(n, device="cuda", dtype=dtype), torch.zeros(n, device="cuda", dtype=dtype)
    ref = torch.nn.functional.layer_norm(x, (n,), w, b)
    assert torch.allclose(fused_layer_norm(x, w, b), ref, atol=1e-2)
