"""Pretrain a small LM on the tokenised corpus (one process per GPU via srun)."""
import os

import numpy as np
import torch


def main():
    rank = int(os.environ["SLURM_PROCID"])
    tokens = np.load("/scratch/corpus/tokens_uint16.npy")       # 7.8 GB, loaded by every rank
    data = torch.from_numpy(tokens.astype(np.int64))            # int64 copy: 31 GB per rank
    train(data, rank)
