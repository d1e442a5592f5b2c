"""DDP fine-tuning, launched with torchrun --nproc_per_node 4 train.py."""
import torch
import torch.distributed as dist


@torch.no_grad()
def evaluate(model, loader):
    correct = torch.zeros(1, device="cuda")
    total = torch.zeros(1, device="cuda")
    for x, y in loader:
        correct += (model(x.cuda()).argmax(-1) == y.cuda()).sum()
        total += len(y)
    dist.all_reduce(correct)                # sum over ranks
    dist.all_reduce(total)
    return (correct / total).item()


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    model, opt, train_loader, val_loader = setup(rank)
    step = 0
    for epoch in range(10):
        for x, y in train_loader:
            loss = train_step(model, opt, x, y)
            step += 1
            if rank == 0 and step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss:.3f} lr 2.0e-04", flush=True)
        if rank == 0:
            print(f"epoch {epoch} val_acc {evaluate(model, val_loader):.4f}", flush=True)
            torch.save(model.module.state_dict(), f"ckpt_{epoch}.pt")
