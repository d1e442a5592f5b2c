import torch
assert torch.__version__.startswith("1.7")
