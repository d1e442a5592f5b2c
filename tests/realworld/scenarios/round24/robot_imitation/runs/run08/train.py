import json

import hydra
import torch
import torch.nn as nn
from omegaconf import OmegaConf

from bc.dataset import ReachDataset
from bc.env_runner import ReachRunner
from bc.model import MLPPolicy


@hydra.main(config_path=".", config_name="config", version_base=None)
def main(cfg):
    torch.manual_seed(8)
    dataset = ReachDataset(cfg.task.dataset_path, val_ratio=cfg.task.val_ratio)
    val_dataset = dataset.get_validation_dataset()
    train_loader = torch.utils.data.DataLoader(dataset, **cfg.dataloader)
    val_loader = torch.utils.data.DataLoader(val_dataset, batch_size=1024)

    policy = MLPPolicy(obs_dim=4, act_dim=2, hidden_dim=cfg.policy.hidden_dim, n_layers=cfg.policy.n_layers)
    policy.set_normalizer(dataset.get_normalizer())
    optimizer = torch.optim.AdamW(policy.parameters(), lr=cfg.optimizer.lr, weight_decay=cfg.optimizer.weight_decay)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.training.num_epochs)
    runner = ReachRunner(n_envs=50)

    global_step = 0
    with open(cfg.logging.output, "w") as log_file:
        for epoch in range(cfg.training.num_epochs):
            train_losses = []
            for batch in train_loader:
                loss = policy.compute_loss(batch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                lr = optimizer.param_groups[0]["lr"]
                lr_scheduler.step()
                train_losses.append(loss.item())
                if global_step % cfg.training.log_every_n_steps == 0:
                    log_file.write(json.dumps({"train_loss": round(loss.item(), 6), "global_step": global_step,
                                               "epoch": epoch, "lr": lr}) + "\n")
                global_step += 1

            step_log = {"train_loss": round(sum(train_losses) / len(train_losses), 6),
                        "global_step": global_step - 1, "epoch": epoch, "lr": lr}
            policy.eval()
            with torch.no_grad():
                step_log["val_loss"] = round(sum(policy.compute_loss(b).item() for b in val_loader) / len(val_loader), 6)
                if (epoch + 1) % cfg.training.rollout_every == 0:
                    step_log.update(runner.run(policy))       # test/mean_score, test/success_rate
            policy.train()
            log_file.write(json.dumps(step_log) + "\n")
            log_file.flush()


if __name__ == "__main__":
    main()
