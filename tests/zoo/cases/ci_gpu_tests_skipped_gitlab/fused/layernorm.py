import torch


def fused_layer_norm(x, weight, bias, eps=1e-5):
    """Reference path on CPU; on CUDA the Triton kernel is used."""
    if x.is_cuda:
        from fused._triton_ln import layer_norm_fwd
        return layer_norm_fwd(x, weight, bias, eps)
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias
