"""Fine-tune the 1.3B LM on 2 nodes x 4 GPUs (torchrun); sequence length from cfg/llm.yaml."""
import torch
import torch.distributed as dist
import yaml

from data import build_loader
from model import build_model


def main():
    cfg = yaml.safe_load(open("cfg/llm.yaml"))
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank % 4)
    model = torch.nn.parallel.DistributedDataParallel(build_model(cfg).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    for step, batch in enumerate(build_loader(cfg, rank), start=1):
        logits = model(batch["input_ids"].cuda())
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), batch["labels"].cuda().flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f} mem_gb {torch.cuda.max_memory_allocated() / 2**30:.1f}")


if __name__ == "__main__":
    main()
