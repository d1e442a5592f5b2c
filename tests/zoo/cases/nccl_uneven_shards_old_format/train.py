"""Multi-GPU training; each rank streams its own shard (data/shard_{rank}.jsonl)."""
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("nccl", timeout=__import__("datetime").timedelta(minutes=30))
    rank, world = dist.get_rank(), dist.get_world_size()
    rows = open(f"data/shard_{rank}.jsonl").readlines()      # shards were split by file size
    model, opt = build(rank)
    for epoch in range(20):
        for batch in batches(rows, 32):
            step(model, opt, batch)                          # DDP all-reduces the grads
        best = torch.tensor([score(model)], device="cuda")
        dist.broadcast(best, src=0)                          # share rank 0's checkpoint decision
