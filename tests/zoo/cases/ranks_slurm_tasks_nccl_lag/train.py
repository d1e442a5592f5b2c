"""Pretrain a small LM: one process per GPU under srun; every rank streams its own shards from NFS."""
import os

import torch
import torch.distributed as dist

from data import ShardStream
from model import build_lm


def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ["SLURM_LOCALID"]))
    stream = ShardStream("/nfs/corpus", rank=rank, world=world, num_workers=2)   # reads shards on demand
    model = torch.nn.parallel.DistributedDataParallel(build_lm().cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step, batch in enumerate(stream, start=1):
        loss = model(batch.cuda()).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
