from torch._six import inf          # removed in torch 2.0


def clip_grad_norm(parameters, max_norm, norm_type=2.0):
    parameters = [p for p in parameters if p.grad is not None]
    if norm_type == inf:
        return max(p.grad.abs().max() for p in parameters)
    return sum(p.grad.norm(norm_type) ** norm_type for p in parameters) ** (1.0 / norm_type)
