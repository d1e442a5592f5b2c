"""A tiny real torch.distributed (gloo, CPU) training job for the cross-rank tests and the zoo.

One rank misbehaves at a known step; the others hit gloo's real timeout or lose their peer.

    python tests/ranks_job.py --fork 4 --out DIR --mode stall --bad-rank 2 --bad-step 5
        forks 4 ranks itself (fast: torch is imported once); each rank's stdout and stderr go to
        DIR/rank<r>.log, what the launcher sees goes to stdout (mp.spawn's own messages)
    torchrun --nproc_per_node 4 --log-dir DIR --tee 3 tests/ranks_job.py --mode crash ...
        the same job under torchrun (its --log-dir folders, its [defaultN]: tee prefixes, its table)

Modes: stall (sleeps past the timeout inside the step), crash (raises at the step), kill (SIGKILL to
itself, as the OOM killer would), worker_kill (its DataLoader worker is SIGKILLed while loading the
step's batch), ok (no fault). Lines: `2024-05-01 12:00:00,123 INFO step N loss X` (logging), or with
--no-time `step N loss X`. --clock-skew S adds S seconds to the timestamps of the upper half of ranks
(a second node whose clock runs ahead).
"""
from __future__ import annotations

import argparse
import datetime
import logging
import os
import signal
import socket
import sys
import time
import traceback


def _args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--fork", type=int, default=0, help="ranks to fork (no torchrun)")
    p.add_argument("--out", default=".", help="folder for rank<r>.log with --fork")
    p.add_argument("--mode", default="stall", choices=["stall", "crash", "kill", "worker_kill", "ok"])
    p.add_argument("--bad-rank", type=int, default=2)
    p.add_argument("--bad-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--timeout", type=float, default=3.0, help="gloo timeout of the training collectives, seconds")
    p.add_argument("--stall", type=float, default=8.0, help="seconds the stalled rank sleeps")
    p.add_argument("--no-time", action="store_true")
    p.add_argument("--clock-skew", type=float, default=0.0)
    return p.parse_args(argv)


class _Skewed(logging.Formatter):
    def __init__(self, fmt: str, skew: float):
        super().__init__(fmt)
        self.skew = skew

    def converter(self, t):  # noqa: D401 - logging's hook
        return time.localtime(t + self.skew)


class _Data:
    """A map-style dataset whose worker kills itself on one batch (worker_kill mode)."""

    def __init__(self, n: int, kill_at: int | None):
        self.n, self.kill_at = n, kill_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        import torch
        if self.kill_at is not None and i == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        g = torch.Generator().manual_seed(i)
        return torch.randn(8, generator=g)


def train(rank: int, world: int, a) -> None:
    import torch
    import torch.distributed as dist
    log = logging.getLogger("train")
    skew = a.clock_skew if rank >= (world + 1) // 2 else 0.0
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(_Skewed("%(message)s" if a.no_time else "%(asctime)s %(levelname)s %(message)s", skew))
    log.handlers[:] = [h]
    log.setLevel(logging.INFO)
    log.propagate = False
    # Setting up is slow on a loaded machine: the short timeout is only for the training collectives.
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=120))
    group = dist.new_group(timeout=datetime.timedelta(seconds=a.timeout))
    dist.barrier(group=group)
    log.info("rank %d of world_size %d started", rank, world)
    torch.manual_seed(0)
    w = torch.nn.Linear(8, 1)      # updated by hand: torch.optim's first step costs seconds of imports per process
    bad = rank == a.bad_rank
    loader = None
    if bad and a.mode == "worker_kill":
        loader = iter(torch.utils.data.DataLoader(_Data(a.steps * 4, (a.bad_step - 1) * 4), batch_size=4, num_workers=1))
    for step in range(1, a.steps + 1):
        if bad and step == a.bad_step:
            if a.mode == "stall":
                log.info("loading shard for step %d", step)
                time.sleep(a.stall)
            elif a.mode == "crash":
                raise ValueError(f"bad record in shard 3 at step {step}")
            elif a.mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
        x = next(loader) if loader is not None else torch.randn(4, 8)
        loss = w(x).pow(2).mean()
        w.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in w.parameters():
                dist.all_reduce(p.grad, group=group)
                p -= 0.1 * p.grad / world
        log.info("step %d loss %.4f", step, loss.item())
        time.sleep(0.02)
    dist.barrier(group=group)
    log.info("done")
    dist.destroy_process_group()


def _child(rank: int, world: int, a) -> None:
    fd = os.open(os.path.join(a.out, f"rank{rank}.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    sys.stdout = os.fdopen(1, "w", buffering=1)
    sys.stderr = os.fdopen(2, "w", buffering=1)
    try:
        train(rank, world, a)
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        raise


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv=None) -> int:
    a = _args(argv)
    if not a.fork:
        train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), a)
        return 0
    import torch.multiprocessing as mp
    os.makedirs(a.out, exist_ok=True)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()))
    ctx = mp.start_processes(_child, args=(a.fork, a), nprocs=a.fork, join=False, start_method="fork")
    try:
        while not ctx.join():
            pass
    except Exception as e:  # what mp.spawn reports: the first process to fail
        print(f"{type(e).__module__}.{type(e).__name__}: {e}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
