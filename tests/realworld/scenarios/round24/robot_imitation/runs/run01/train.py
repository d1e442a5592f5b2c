import logging, os, time
from pathlib import Path

import hydra
import torch
import torch.nn as nn
from omegaconf import DictConfig

from push_bc.data import PushDataset, InfiniteSampler
from push_bc.policy import MLPPolicy
from push_bc.sim import evaluate_policy
from push_bc.utils import format_big_number, log_eval, log_train

log = logging.getLogger(__name__)


def save_checkpoint(path, policy, optimizer, lr_scheduler, step):
    path.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "model": policy.state_dict(),
            "optimizer": optimizer.state_dict(),
            "lr_scheduler": lr_scheduler.state_dict(),
            "step": step,
        },
        path / "last.pt",
    )


@hydra.main(config_path=".", config_name="config", version_base=None)
def main(cfg: DictConfig):
    torch.manual_seed(cfg.seed)
    device = torch.device("cuda")
    out_dir = Path(cfg.output_dir)

    dataset = PushDataset(cfg.dataset.root)          # returns normalised obs/action
    policy = MLPPolicy(dataset.obs_dim, dataset.act_dim, cfg.policy.hidden_dim, cfg.policy.n_layers).to(device)

    step = 0
    if cfg.resume:
        ckpts = sorted((out_dir / "checkpoints").glob("*/last.pt"))
        if ckpts:
            ckpt = torch.load(ckpts[-1], map_location=device)
            policy.load_state_dict(ckpt["model"])
            step = ckpt["step"]
            log.info(f"Resuming training from checkpoint {ckpts[-1]} (step {step})")

    optimizer = torch.optim.AdamW(policy.parameters(), lr=cfg.training.lr, weight_decay=cfg.training.weight_decay)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.training.steps)

    loader = torch.utils.data.DataLoader(
        dataset, batch_size=cfg.training.batch_size, sampler=InfiniteSampler(len(dataset), seed=cfg.seed),
        num_workers=4, pin_memory=True,
    )
    dl_iter = iter(loader)
    log.info("Start offline training on a fixed dataset")
    policy.train()
    while step < cfg.training.steps:
        t0 = time.perf_counter()
        batch = next(dl_iter)
        obs, act = batch["observation.state"].to(device), batch["action"].to(device)
        loss = nn.functional.mse_loss(policy(obs), act)
        optimizer.zero_grad()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.training.grad_clip_norm)
        optimizer.step()
        lr_scheduler.step()
        step += 1

        if step % cfg.training.log_freq == 0:
            log_train(log, step, cfg, dataset, loss, grad_norm, optimizer, time.perf_counter() - t0)
        if step % cfg.training.save_freq == 0:
            log.info(f"Checkpoint policy after step {step}")
            save_checkpoint(out_dir / "checkpoints" / f"{step:06d}", policy, optimizer, lr_scheduler, step)
        if step % cfg.training.eval_freq == 0:
            log.info(f"Eval policy at step {step}")
            policy.eval()
            with torch.no_grad():
                info = evaluate_policy(policy, dataset.stats, n_episodes=cfg.eval.n_episodes, seed=cfg.seed + step)
            policy.train()
            log_eval(log, step, cfg, dataset, info)
    log.info("End of training")


if __name__ == "__main__":
    main()
