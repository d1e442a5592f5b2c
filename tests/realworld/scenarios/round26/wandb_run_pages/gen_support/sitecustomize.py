# loaded automatically by the training subprocesses gen.py launches (PYTHONPATH=gen_support):
# single-threaded torch and a fixed default seed so that scripts without an explicit seed are reproducible.
try:
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
except Exception:
    pass
