"""Multi-rank cases: the cross-process picture (analyzers/crossrank.py).

Two are real torch.distributed jobs on CPU (gloo, 4 processes forked by torch.multiprocessing, one rank
doing something the others do not); which of the waiting ranks time out and which only lose their peer
depends on scheduling, so a regeneration can differ in those lines (ports and pids are fixed up). Two
are hand-written in the formats NCCL and the launchers print, for what a CPU cannot run: a SLURM job
with one file per task where one rank stalls (the NCCL watchdog's SeqNums show it), and two nodes'
torchrun --tee files where one rank runs out of GPU memory and the others' watchdog fires later.
"""
from __future__ import annotations

import re
import textwrap

from make_zoo import Ctx, case

_PORTS = re.compile(r"\[127\.0\.0\.1\]:\d+")
_PIDS = re.compile(r"(Terminating process|process) \d{2,7} (via signal)")


def _fix_ports(c: Ctx) -> None:
    for p in c.dir.rglob("*.log"):
        t = p.read_text(errors="replace")
        n = _PIDS.sub(r"\1 48213 \2", _PORTS.sub("[127.0.0.1]:29500", t))
        if n != t:
            p.write_text(n)


_LAUNCH = '''

def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


if __name__ == "__main__":
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", _free_port())
    mp.start_processes(worker, nprocs=WORLD, start_method="fork")
'''

EVAL_RANK0_TRAIN = '''"""Data-parallel training of a small MLP classifier on CPU (gloo): 4 processes via torch.multiprocessing."""
import datetime
import logging
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

WORLD = 4
EPOCHS = 3
STEPS_PER_EPOCH = 20


def setup_logging(rank):
    os.makedirs("logs", exist_ok=True)
    h = logging.FileHandler(f"logs/rank{rank}.log", mode="w")
    h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s rank%(rank)s %(message)s"))
    log = logging.getLogger("train")
    log.addHandler(h)
    log.setLevel(logging.INFO)
    return logging.LoggerAdapter(log, {"rank": rank})


@torch.no_grad()
def evaluate(model, xs, ys):
    correct = (model(xs).argmax(1) == ys).sum().float()
    dist.all_reduce(correct)                      # sum the correct counts over ranks
    return correct.item() / (len(ys) * dist.get_world_size())


def worker(rank):
    log = setup_logging(rank)
    timeout = datetime.timedelta(seconds=float(os.environ.get("COLLECTIVE_TIMEOUT_S", "10")))
    dist.init_process_group("gloo", rank=rank, world_size=WORLD, timeout=timeout)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(rank)
    xs, ys = torch.randn(512, 16, generator=g), torch.randint(0, 4, (512,), generator=g)
    vx, vy = torch.randn(128, 16, generator=g), torch.randint(0, 4, (128,), generator=g)
    log.info("world_size=%d lr=0.05 batch_size=32", WORLD)
    step = 0
    try:
        for epoch in range(EPOCHS):
            for i in range(STEPS_PER_EPOCH):
                b = slice((i * 32) % 512, (i * 32) % 512 + 32)
                loss = F.cross_entropy(model(xs[b]), ys[b])
                opt.zero_grad()
                loss.backward()
                for p in model.parameters():
                    dist.all_reduce(p.grad)
                    p.grad /= WORLD
                opt.step()
                step += 1
                if step % 5 == 0:
                    log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
            if rank == 0:
                log.info("epoch %d: evaluating on the validation split", epoch)
                acc = evaluate(model, vx, vy)
                log.info("epoch %d val_acc %.4f", epoch, acc)
    except Exception:
        log.exception("training failed at step %d", step)
        raise
''' + _LAUNCH


@case("ranks_eval_rank0_collective_gloo", split="tune", expected="distributed_hang",
      symptom="Training dies at the end of the first epoch; several ranks print gloo connection errors.",
      fmt="per-rank log files (logs/rankN.log) + mp.spawn launcher output, real gloo on CPU",
      notes="Real run, 4 ranks (gloo). evaluate() all-reduces the correct counts but is called only under "
            "`if rank == 0`: rank 0 enters an all_reduce of 1 element while ranks 1-3 are in the next epoch's "
            "gradient all_reduce; gloo aborts rank 0 ('Received data size doesn't match expected size. Is there "
            "a distributed collective mismatch in your code?', SIGABRT, printed by the launcher without a rank "
            "tag) and the others lose their peer.")
def _(c: Ctx):
    c.write("train.py", EVAL_RANK0_TRAIN)
    c.run("python train.py", stdout="launcher.log", stderr="launcher.log", timeout=240)
    _fix_ports(c)


LABEL_SHARD_TRAIN = '''"""Data-parallel training on per-rank shards (gloo, CPU): each rank reads data/shard_<rank>.pt."""
import datetime
import os
import socket
import sys
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

WORLD = 4
NUM_CLASSES = 4


def make_shards():
    os.makedirs("data", exist_ok=True)
    for r in range(WORLD):
        g = torch.Generator().manual_seed(100 + r)
        x = torch.randn(256, 16, generator=g)
        y = torch.randint(0, NUM_CLASSES, (256,), generator=g)
        if r == 2:
            y[100] = 7                            # re-labelled export: class id 7 slipped into shard 2
        torch.save({"x": x, "y": y}, f"data/shard_{r}.pt")


def worker(rank):
    os.makedirs("out", exist_ok=True)
    sys.stdout = sys.stderr = open(f"out/train.rank_{rank:02d}.log", "w", buffering=1)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=float(os.environ.get("COLLECTIVE_TIMEOUT_S", "10"))))
    shard = torch.load(f"data/shard_{rank}.pt")
    print(f"rank {rank}/{WORLD} shard data/shard_{rank}.pt rows {len(shard['y'])} num_classes {NUM_CLASSES}")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    try:
        for epoch in range(2):
            for it in range(8):
                b = slice(it * 32, it * 32 + 32)
                loss = F.cross_entropy(model(shard["x"][b]), shard["y"][b])
                opt.zero_grad()
                loss.backward()
                for p in model.parameters():
                    dist.all_reduce(p.grad)
                    p.grad /= WORLD
                opt.step()
                print(f"ep {epoch} it {it} loss {loss.item():.4f}")
    except Exception:
        traceback.print_exc()
        raise
''' + _LAUNCH.replace('''    mp.start_processes''', '''    make_shards()
    mp.start_processes''')


@case("ranks_bad_label_one_shard_gloo", split="holdout", expected="label_out_of_range",
      symptom="the job dies after a few iterations with gloo 'Connection closed by peer' on most ranks",
      fmt="per-rank files out/train.rank_0N.log (print, no timestamps) + launcher output, real gloo on CPU",
      misleading=True,
      notes="Real run, 4 ranks (gloo). Shard 2 holds a label 7 with 4 classes: rank 2 raises 'IndexError: Target "
            "7 is out of bounds.' at iteration 3 and dies; ranks 0, 1, 3 then lose their peer in the gradient "
            "all_reduce or time out, so most of the output is gloo errors that point at the network.")
def _(c: Ctx):
    c.write("train.py", LABEL_SHARD_TRAIN)
    c.run("python train.py", stdout="launcher.log", stderr="launcher.log", timeout=240)
    for p in (c.dir / "data").glob("*.pt"):
        p.unlink()
    _fix_ports(c)


# =============================================================================
# hand-written: NCCL (a CPU cannot run it)
# =============================================================================

def _stamp(t: float) -> str:
    return f"{int(t // 3600) % 24:02d}:{int(t // 60 % 60):02d}:{int(t % 60):02d}"


@case("ranks_slurm_tasks_nccl_lag", split="holdout", expected="distributed_hang", symptom=None, generated=False,
      fmt="SLURM per-task files slurm-<job>_<task>.out (8 tasks), fairseq-style lines, NCCL watchdog (torch 2.4)",
      notes="Hand-written in the formats srun (--output=slurm-%j_%t.out), fairseq-style logging and the torch 2.4 "
            "NCCL watchdog print. Rank 5's DataLoader blocks reading a shard from NFS after step 1200 (10:41:07); "
            "ranks 0-4 and 6-7 enter ALLREDUCE SeqNum 8813 and their watchdog fires at 10:51:07 after 600000 ms; "
            "rank 5's last enqueued/completed work is 8812.")
def _(c: Ctx):
    t0 = 10 * 3600 + 21 * 60 + 7                  # step 1180 at 10:21:07, a step a minute
    for r in range(8):
        last = 1200 if r == 5 else 1201
        lines = [f"2024-06-11 09:58:40 | INFO | fairseq.distributed.utils | distributed init (rank {r}): env://",
                 f"2024-06-11 09:58:41 | INFO | train | world_size 8 | rank {r} | shards /nfs/corpus/shard-*.arrow"]
        for step in range(1180, last + 1):
            t = t0 + (step - 1180) * 60 + (r % 3) * 0.2
            lines.append(f"2024-06-11 {_stamp(t)} | INFO | train_inner | epoch 003:   {step} / 5200 loss={2.31 - step * 1e-4:.3f}, "
                         f"nll_loss={2.2 - step * 1e-4:.3f}, ppl={4.6 - step * 1e-4:.2f}, wps=41236, lr=0.0003, gnorm=0.41, "
                         f"train_wall=58, gb_free=11.2")
        if r == 5:
            lines.append(f"2024-06-11 {_stamp(t0 + 20 * 60 + 1)} | INFO | data.shards | rank 5: opening /nfs/corpus/shard-00417.arrow")
            lines.append("[rank5]:[E611 10:51:09.817225113 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 5] Exception (either "
                         "an error or timeout) detected by watchdog at work: 8812, last enqueued NCCL work: 8812, last "
                         "completed NCCL work: 8812.")
        else:
            lines += [
                f"[rank{r}]:[E611 10:51:07.20{r}455621 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective operation "
                f"timeout: WorkNCCL(SeqNum=8813, OpType=ALLREDUCE, NumelIn=124439808, NumelOut=124439808, Timeout(ms)=600000) "
                f"ran for 600044 milliseconds before timing out.",
                f"[rank{r}]:[E611 10:51:07.21{r}410988 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] Exception (either an "
                f"error or timeout) detected by watchdog at work: 8813, last enqueued NCCL work: 8813, last completed NCCL "
                f"work: 8812.",
                f"[rank{r}]:[E611 10:51:07.21{r}462001 ProcessGroupNCCL.cpp:621] [Rank {r}] Some NCCL operations have failed or "
                f"timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
                f"corrupted/incomplete data.",
                f"[rank{r}]:[E611 10:51:07.21{r}470102 ProcessGroupNCCL.cpp:627] [Rank {r}] To avoid data inconsistency, we are "
                f"taking the entire process down.",
                f"[rank{r}]:terminate called after throwing an instance of 'c10::DistBackendError'"]
        c.write(f"slurm-734562_{r}.out", "\n".join(lines) + "\n")
    c.write("slurm-734562.out", textwrap.dedent("""\
        srun: error: gpu-node-03: tasks 0-4,6-7: Aborted (core dumped)
        srun: Job step aborted: Waiting up to 32 seconds for job step to finish.
        slurmstepd: error: *** STEP 734562.0 ON gpu-node-03 CANCELLED AT 2024-06-11T10:51:41 ***
        srun: error: gpu-node-03: task 5: Terminated
        """))
    c.write("train.py", textwrap.dedent('''\
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
        '''))
    c.write("job.sbatch", textwrap.dedent("""\
        #!/bin/bash
        #SBATCH --job-name=lm-pretrain
        #SBATCH --nodes=1
        #SBATCH --ntasks-per-node=8
        #SBATCH --gres=gpu:8
        #SBATCH --output=slurm-%j.out
        srun --output=slurm-%j_%t.out python train.py --config configs/lm.yaml
        """))


@case("ranks_node_files_cuda_oom_first", split="tune", expected="cuda_oom", generated=False,
      symptom="NCCL watchdog timeout after 10 minutes on 2 nodes x 4 GPUs; I think the network between the nodes is flaky.",
      misleading=True,
      fmt="torchrun --tee per-node files (node0.log, node1.log) with [defaultN]:[rankM]: prefixes, torch 2.4 OOM + watchdog",
      notes="Hand-written in torchrun 2.4's --tee format. Rank 6 (node 1, local rank 2) raises torch.OutOfMemoryError "
            "in forward at step 800 (14:02:11); the 7 other ranks wait in ALLREDUCE SeqNum 48213 until the NCCL "
            "watchdog fires at 14:12:13; node 1's torchrun table reports rank 6 exit code 1 as the root cause.")
def _(c: Ctx):
    t0 = 13 * 3600 + 55 * 60 + 11                 # step 730 at 13:55:11, 6 s a step
    nodes: dict[int, list[str]] = {0: [], 1: []}
    for r in range(8):
        node, local = divmod(r, 4)
        tag = f"[default{local}]:[rank{r}]:"
        out = nodes[node]
        last = 799 if r == 6 else 800
        for step in range(730, last + 1, 10) if r != 6 else range(730, 800, 10):
            t = t0 + (step - 730) * 6
            out.append(f"{tag}[2024-06-12 {_stamp(t)},{(r * 37) % 1000:03d}][INFO] step {step} loss {3.1 - step * 1e-3:.4f} "
                       f"mem_gb {61.2 + (step % 50) / 10:.1f}")
        if r == 6:
            out += [f"{tag}Traceback (most recent call last):",
                    f'{tag}  File "/home/lee/llm/train.py", line 212, in <module>',
                    f"{tag}    main()",
                    f'{tag}  File "/home/lee/llm/train.py", line 187, in main',
                    f"{tag}    logits = model(batch['input_ids'])",
                    f'{tag}  File "/home/lee/llm/model.py", line 96, in forward',
                    f"{tag}    att = (q @ k.transpose(-2, -1)) * self.scale",
                    f"{tag}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 2 has a total capacity of "
                    f"79.15 GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.93 GiB memory in "
                    f"use. Of the allocated memory 74.02 GiB is allocated by PyTorch, and 2.37 GiB is reserved by PyTorch but "
                    f"unallocated."]
        else:
            out.append(f"{tag}[E612 14:12:13.{r}01455621 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
                       f"operation timeout: WorkNCCL(SeqNum=48213, OpType=ALLREDUCE, NumelIn=67108864, NumelOut=67108864, "
                       f"Timeout(ms)=600000) ran for 600071 milliseconds before timing out.")
    nodes[1] += ["W0612 14:12:15.114000 881 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 902 closing signal SIGTERM",
                 "E0612 14:12:16.402000 881 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 2 "
                 "(pid: 904) of binary: /home/lee/.venv/bin/python"]
    for n, lines in nodes.items():
        c.write(f"node{n}.log", "\n".join(lines) + "\n")
    c.write("train.py", textwrap.dedent('''\
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
        '''))
    c.write("launch.sh", "torchrun --nnodes 2 --nproc_per_node 4 --node_rank $NODE_RANK --master_addr gpu-a01 "
                         "--tee 3 train.py --config cfg/llm.yaml 2>&1 | tee node$NODE_RANK.log\n")
