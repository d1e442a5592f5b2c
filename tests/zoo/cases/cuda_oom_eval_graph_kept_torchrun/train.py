"""DDP training of a ViT on our image corpus (torchrun --nproc_per_node 4 train.py)."""
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from data import build_loaders
from vit import vit_base


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    train_loader, val_loader = build_loaders(batch_size=128, rank=rank, world=dist.get_world_size())
    model = DDP(vit_base(num_classes=1000).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    val_losses = []
    for epoch in range(90):
        model.train()
        for it, (x, y) in enumerate(train_loader):
            loss = F.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if it % 50 == 0 and rank == 0:
                print(f"ep {epoch} it {it} train_loss {loss.item():.3f} "
                      f"gpu_mem {torch.cuda.max_memory_allocated() / 2**30:.1f}G", flush=True)
        model.eval()
        for x, y in val_loader:
            out = model(x.cuda())
            val_losses.append(F.cross_entropy(out, y.cuda()))      # running average for the progress bar
        if rank == 0:
            print(f"ep {epoch} val_loss {torch.stack(val_losses).mean().item():.3f}", flush=True)


if __name__ == "__main__":
    main()
