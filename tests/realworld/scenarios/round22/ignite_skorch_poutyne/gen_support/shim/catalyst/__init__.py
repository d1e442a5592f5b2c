"""Minimal local stand-in for Catalyst (SupervisedRunner.train with console + CSV logging)."""
import torch

torch.set_num_threads(1)

__version__ = "22.04"
