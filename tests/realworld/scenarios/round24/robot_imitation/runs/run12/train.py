import logging
import math
import time

import torch
import torch.nn as nn

from pendulum_bc.data import PendulumDataset
from pendulum_bc.sim import evaluate
from pendulum_bc.utils import format_big_number as fbn

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(asctime)s ts/%(filename)s:%(lineno)d %(message)s",
                    datefmt="%Y-%m-%d %H:%M:%S")
log = logging.getLogger(__name__)

STEPS, WARMUP, BS, LR = 3000, 200, 64, 1e-4


def main():
    torch.manual_seed(1000)
    ds = PendulumDataset("data/pendulum_swingup_bc")           # mean/std normalised obs + actions
    policy = nn.Sequential(nn.Linear(3, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1)).cuda()
    opt = torch.optim.AdamW(policy.parameters(), lr=LR, weight_decay=1e-6)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / WARMUP) * 0.5 * (1 + math.cos(math.pi * min(s, STEPS) / STEPS)))
    gen = torch.Generator().manual_seed(12)

    log.info("Start offline training on a fixed dataset")
    loss_acc, gn_acc = [], []
    for step in range(1, STEPS + 1):
        t0 = time.perf_counter()
        idx = torch.randint(0, len(ds), (BS,), generator=gen)
        obs, act = ds.obs[idx].cuda(), ds.act[idx].cuda()
        loss = nn.functional.mse_loss(policy(obs), act)
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(policy.parameters(), 10.0).item()
        lr = opt.param_groups[0]["lr"]
        opt.step()
        sched.step()
        loss_acc.append(loss.item()); gn_acc.append(gn)
        if step % 25 == 0:
            log.info(f"step:{fbn(step)} smpl:{fbn(step * BS)} ep:{step * BS // 100} epch:{step * BS / len(ds):.2f} "
                     f"loss:{sum(loss_acc) / len(loss_acc):.4f} grdn:{sum(gn_acc) / len(gn_acc):.3f} lr:{lr:.1e} "
                     f"updt_s:{time.perf_counter() - t0:.3f} data_s:0.000")
            loss_acc, gn_acc = [], []
        if step % 1000 == 0:
            log.info(f"Eval policy at step {step}")
            policy.eval()
            with torch.no_grad():
                info = evaluate(policy, ds.stats, n_episodes=50, seed=12100 + step)
            policy.train()
            log.info(f"step:{fbn(step)} ∑rwrd:{info['avg_sum_reward']:.3f} success:{info['pc_success']:.1f}%")
            log.info(f"Checkpoint policy after step {step}")
            torch.save(policy.state_dict(), f"outputs/ckpt_{step:06d}.pt")
    log.info("End of training")


if __name__ == "__main__":
    main()
