"""Static text (scripts, configs, posts) for the runs. Numbers are filled in by gen.py."""
import numpy as np


def lerobot_head(date, repo_id, out_dir, n_frames, n_eps, n_params, resume=False, extra=None):
    d = date
    L = [f"INFO {d} ts/train.py:98 {'resume=true ' if resume else ''}dataset.repo_id={repo_id} policy.type=mlp_bc "
         f"batch_size=64 num_workers=4 seed=1000" + (" " + " ".join(extra) if extra else ""),
         f"INFO {d} ts/train.py:104 Logs will be saved locally.",
         f"INFO {d} ts/train.py:108 Creating dataset",
         f"INFO {d} ts/train.py:113 Creating policy",
         f"INFO {d} ts/train.py:120 Creating optimizer and scheduler",
         f"INFO {d} ts/train.py:140 Output dir: {out_dir}",
         f"INFO {d} ts/train.py:141 cfg.steps=3K (3000)" if "push" in repo_id or "swingup" in repo_id else f"INFO {d} ts/train.py:141 cfg.steps=20K (20000)",
         f"INFO {d} ts/train.py:142 dataset.num_frames={n_frames} ({n_frames/1000:.0f}K)",
         f"INFO {d} ts/train.py:143 dataset.num_episodes={n_eps}",
         f"INFO {d} ts/train.py:144 num_learnable_params={n_params} ({n_params/1000:.0f}K)",
         f"INFO {d} ts/train.py:145 num_total_params={n_params} ({n_params/1000:.0f}K)",
         f"INFO {d} ts/train.py:170 Start offline training on a fixed dataset"]
    return L


# ------------------------------------------------------------------------------------- run01
run01_config = """# config.yaml  (push2d MLP behaviour cloning)
seed: 1000
dataset:
  repo_id: push2d_demo_v2
  root: /scratch/$USER/data/push2d_demo_v2
policy:
  type: mlp_bc
  hidden_dim: 256
  n_layers: 2
  normalization: mean_std
training:
  steps: 3000
  batch_size: 64
  lr: 1.0e-3
  weight_decay: 1.0e-4
  grad_clip_norm: 10.0
  scheduler: cosine
  log_freq: 50
  save_freq: 1500
  eval_freq: 1500
eval:
  n_episodes: 50
output_dir: outputs/train/2024-06-11/21-04-12_push2d_mlp
resume: true   # set by the requeue wrapper
"""

run01_train_py = '''import logging, os, time
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
'''

run01_post = """**Push2D MLP policy: worse after SLURM requeue?**

Training my push policy on our cluster (3K steps, cosine lr). The job got preempted around step 1.8K,
the requeue wrapper restarted it with `resume=true` and it picked up the 1.5K checkpoint and finished.
Final eval is {final:.1f}% success; the same config without any preemption last week ended at {base:.1f}%.
The loss looks fine to me after the restart, so I don't get where the difference comes from.
Both slurm logs, the config and train.py are attached. Could the requeued job have landed on a bad node / different
GPU? Any idea what to check?
"""


# ------------------------------------------------------------------------------------- run02
run02_post = """Quick sanity question on my first BC policy (2-D reach, 60 scripted demos, MLP 2x256, Adam 1e-3,
obs and actions normalised to zero-mean/unit-std):

```
{log}
```

Val MSE plateaus at ~{val:.3f} after ~15 epochs. Is that "good"? People here quote numbers like 1e-3, so I'm not sure
if I should keep tuning or if this is fine. Eval videos look ok to me, the dot goes straight to the target.
"""


# ------------------------------------------------------------------------------------- run03
def run03_head(n_eps, ntr, nva):
    return [f"$ python train.py --data data/reach2d_scripted.npz --epochs 30",
            f"loaded {n_eps} episodes -> {ntr + nva} transitions",
            f"train {ntr} / val {nva}",
            "model: MLP(4 -> 256 -> 256 -> 2), 67,586 params",
            "device: cuda"]


run03_train_py = '''import argparse
import time

import numpy as np
import torch
import torch.nn as nn

from sim.reach2d import Reach2DEnv, rollout


def load_episodes(path):
    data = np.load(path, allow_pickle=True)
    eps = data["episodes"]
    obs = np.concatenate([e["obs"] for e in eps]).astype(np.float32)       # (N, 4): ee_x, ee_y, goal_x, goal_y
    actions = np.concatenate([e["action"] for e in eps]).astype(np.float32)  # (N, 2): vx, vy
    return eps, obs, actions


def train_val_split(x, val_frac=0.1):
    perm = np.random.permutation(len(x))
    n_val = int(len(x) * val_frac)
    return x[perm[n_val:]], x[perm[:n_val]]


class Normalizer:
    def __init__(self, x):
        self.mean, self.std = x.mean(0), x.std(0) + 1e-6

    def __call__(self, x):
        return (x - self.mean) / self.std

    def inverse(self, x):
        return x * self.std + self.mean


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/reach2d_scripted.npz")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch_size", type=int, default=128)
    args = p.parse_args()

    np.random.seed(0)
    torch.manual_seed(0)
    eps, obs, actions = load_episodes(args.data)
    print(f"loaded {len(eps)} episodes -> {len(obs)} transitions")

    obs_train, obs_val = train_val_split(obs)
    act_train, act_val = train_val_split(actions)
    print(f"train {len(obs_train)} / val {len(obs_val)}")

    obs_norm, act_norm = Normalizer(obs_train), Normalizer(act_train)
    X, Y = torch.tensor(obs_norm(obs_train)), torch.tensor(act_norm(act_train))
    Xv, Yv = torch.tensor(obs_norm(obs_val)), torch.tensor(act_norm(act_val))

    model = nn.Sequential(nn.Linear(4, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 2))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)

    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        perm = torch.randperm(len(X))
        losses, gnorms = [], []
        for i in range(0, len(X), args.batch_size):
            idx = perm[i:i + args.batch_size]
            loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            gnorms.append(torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item())
            opt.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            val_loss = nn.functional.mse_loss(model(Xv), Yv).item()
        model.train()
        print(f"epoch {epoch:03d} | train_loss {np.mean(losses):.4f} | val_loss {val_loss:.4f} | "
              f"grad_norm {np.mean(gnorms):.3f} | lr {args.lr:.1e} | {time.time() - t0:.2f}s")

        if epoch % 10 == 0:
            model.eval()
            succ, ret = rollout(Reach2DEnv(), model, obs_norm, act_norm, n_episodes=50, seed=3100 + epoch)
            model.train()
            print(f"  rollout @ epoch {epoch}: success {int(succ.sum())}/50 ({100 * succ.mean():.0f}%)  mean_return {ret.mean():.2f}")

    torch.save({"model": model.state_dict(), "obs_norm": obs_norm.__dict__, "act_norm": act_norm.__dict__},
               "checkpoints/reach_bc_final.pt")


if __name__ == "__main__":
    main()
'''

run03_post = """Title: BC loss stuck at ~1.0 on a trivial 2-D reach task

I'm learning imitation learning with a toy task: a point has to move to a goal, the expert is a P-controller
(`a = clip(4*(goal - pos))`). 80 scripted demos. Normalised MSE starts at ~1.0 and just sits there for all 30 epochs,
train and val both, and rollouts basically never reach the goal. The grad norm isn't zero so it is training *something*.
Is a 2-layer MLP just too small for this and should I go to a transformer / diffusion policy? Script and output attached.
"""


# ------------------------------------------------------------------------------------- run04
run04_config = """# config.yaml  (hydra)  -- pendulum balance, BC from teleop demos
defaults:
  - _self_
task:
  name: pendulum_balance
  obs_keys: [cos_theta, sin_theta, theta_dot]
  action_dim: 1
dataset:
  path: data/pendulum_teleop_60eps.zarr
  n_episodes: 60
  normalize: mean_std
policy:
  _target_: bc.policies.MLPPolicy
  hidden_dims: [256, 256, 256]
  activation: relu
optimizer:
  _target_: torch.optim.Adam
  lr: 1.0e-1
  betas: [0.9, 0.999]
  weight_decay: 0.0
training:
  batch_size: 64
  num_epochs: 10
  log_every: 10
  eval_episodes: 50
logging:
  project: pendulum-bc
  mode: online
"""

run04_post = """Loss goes down, then goes crazy - bad demos?

Balancing a pendulum from 60 teleop episodes (recorded with a gamepad, some of them are definitely sloppy).
The action MSE goes crazy in the first few steps, comes down, and then keeps jumping around instead of settling, and
the grad norm is spiky the whole run. Final eval: {succ:.0f}% success over 50 episodes. wandb export + config attached.

I think some of my teleop demos are garbage (I remember overshooting a few times). Is there a good way to find the bad
episodes, e.g. per-episode loss?
"""


# ------------------------------------------------------------------------------------- run05
run05_train_yaml = """# configs/train.yaml
seed: 5
task: push2d
dataset:
  path: data/push2d_100eps.hdf5
  obs_keys: [agent_pos, block_pos, target_pos]
  stats_out: outputs/push_mlp_0614/dataset_stats.npz
normalization:
  obs: mean_std
  action: mean_std
policy:
  hidden_dim: 256
  n_layers: 2
train:
  epochs: 20
  batch_size: 64
  lr: 1.0e-3
  rollout_every: 20
  rollout_episodes: 50
"""

run05_eval_yaml = """# configs/eval.yaml   (new standalone eval script, 14 Jun)
seed: 5
task: push2d
checkpoint: outputs/push_mlp_0614/policy.pt
stats: outputs/push_mlp_0614/dataset_stats.npz
normalization:
  obs: min_max
  action: mean_std
policy:
  hidden_dim: 256
  n_layers: 2
eval:
  n_episodes: 100
  max_steps: 80
  record_video: true
  video_dir: outputs/push_mlp_0614/videos
"""


def run05_eval_out(s, tot):
    L = ["$ python eval.py --config-name eval",
         "[eval] loading checkpoint outputs/push_mlp_0614/policy.pt ... ok (all keys matched)",
         "[eval] loading stats outputs/push_mlp_0614/dataset_stats.npz ... ok",
         "[eval] running 100 episodes (max_steps=80)"]
    for i in range(0, 100, 20):
        L.append(f"[eval] episodes {i:3d}-{i + 19:3d}: success {int(s[i:i + 20].sum()):2d}/20  mean_return {tot[i:i + 20].mean():.2f}")
    L.append(f"[eval] DONE  success_rate={s.mean():.2f}  avg_return={tot.mean():.2f}  videos -> outputs/push_mlp_0614/videos")
    return "\n".join(L)


run05_post = """Same checkpoint, much worse success in my new eval script

I moved rollouts out of the training loop into a standalone `eval.py` (own hydra config) so I can record videos.
During training the rollouts at the end gave {a:.0f}% success; the new script with the *same* checkpoint gives {b:.0f}%.
In the videos the pusher wanders off to the side of the block and rarely gets behind it. Logs and both configs attached.
What did I break?
"""


# ------------------------------------------------------------------------------------- run06
def robomimic_head(n_eps, n_fr, n_veps, n_vfr):
    return ["", "============= Initialized Observation Utils with Obs Spec =============", "",
            "using obs modality: low_dim with keys: ['agent_pos', 'block_pos', 'target_pos']",
            "using obs modality: rgb with keys: []", "",
            "============= Loaded Environment Metadata =============",
            "obs key agent_pos with shape (2,)", "obs key block_pos with shape (2,)", "obs key target_pos with shape (2,)",
            "Created environment with name Push2D", "Action size is 2", "",
            "============= Model Summary =============",
            "BC (", "  ModuleDict(", "    (policy): ActorNetwork(", "        action_dim=2",
            "        encoder=ObservationGroupEncoder(low_dim: 6)", "        mlp=MLP(input_dim=6, output_dim=2, layer_dims=(256, 256, 256), layer_func=Linear, dropout=None, act=ReLU, output_act=None)",
            "    )", "  )", ")", "",
            "SequenceDataset: loading dataset into memory...",
            f"100%|##########| {n_eps}/{n_eps} [00:00<00:00, 912.33it/s]",
            "SequenceDataset (", "\tpath=datasets/push2d/ph/low_dim_20demos.hdf5", "\tobs_keys=('agent_pos', 'block_pos', 'target_pos')",
            "\tseq_length=1", "\tfilter_key=train", f"\tnum_demos={n_eps}", f"\tnum_sequences={n_fr}", ")", "",
            "SequenceDataset (", "\tpath=datasets/push2d/ph/low_dim_valid30.hdf5", "\tobs_keys=('agent_pos', 'block_pos', 'target_pos')",
            "\tseq_length=1", "\tfilter_key=valid", f"\tnum_demos={n_veps}", f"\tnum_sequences={n_vfr}", ")", ""]


def robomimic_epoch(ep, loss, gn, lr, te, vl):
    return [f"Train Epoch {ep}", "{", f'    "Loss": {loss},', f'    "Optimizer/policy0_lr": {lr},',
            f'    "Policy_Grad_Norms": {gn},', f'    "Time_Epoch": {te / 60}', "}", "",
            f"Validation Epoch {ep}", "{", f'    "Loss": {vl},', "}", ""]


def robomimic_rollout(ep, ret, succ, t):
    return [f"Epoch {ep} Rollouts took {t:.4f}s (avg) with results:", "Env: Push2D", "{",
            f'    "Horizon": 80.0,', f'    "Return": {ret},', f'    "Success_Rate": {succ},', f'    "Time_Episode": {t / 60}', "}",
            f"save checkpoint to trained_models/push2d_bc/20240618093411/models/model_epoch_{ep}_Push2D_success_{succ}.pth", ""]


run06_config = """{
    "algo_name": "bc",
    "experiment": {
        "name": "push2d_bc",
        "validate": true,
        "save": {"enabled": true, "every_n_epochs": 25, "on_best_rollout_success_rate": true},
        "epoch_every_n_steps": null,
        "rollout": {"enabled": true, "n": 50, "horizon": 80, "rate": 25, "terminate_on_success": true}
    },
    "train": {
        "data": "datasets/push2d/ph/low_dim_20demos.hdf5",
        "hdf5_filter_key": "train",
        "hdf5_validation_filter_key": "valid",
        "seq_length": 1,
        "batch_size": 64,
        "num_epochs": 150,
        "seed": 6
    },
    "algo": {
        "optim_params": {"policy": {"learning_rate": {"initial": 0.001, "decay_factor": 0.1, "epoch_schedule": []},
                                    "regularization": {"L2": 0.0}}},
        "loss": {"l2_weight": 1.0, "l1_weight": 0.0, "cos_weight": 0.0},
        "actor_layer_dims": [256, 256, 256],
        "gaussian": {"enabled": false},
        "gmm": {"enabled": false}
    },
    "observation": {"modalities": {"obs": {"low_dim": ["agent_pos", "block_pos", "target_pos"], "rgb": []}}}
}
"""

run06_post = """robomimic BC on my push env: validation loss goes UP while training loss goes down?

Collected 20 demos by hand for a simple 2-D push env and trained robomimic BC (config attached) with a separate
validation file of 30 demos. Training loss goes down the whole run, but the validation loss starts climbing after the
first few epochs and ends well above where it started. Rollout success over training: {sh}.
Is my validation file broken (different recording session?) or is something off in the logging? Full log attached.
"""


# ------------------------------------------------------------------------------------- run07
def run07_info(n_eps, n):
    import json
    return json.dumps({"codebase_version": "v2.0", "robot_type": "pendulum_rig", "total_episodes": n_eps, "total_frames": n,
                       "fps": 20, "splits": {"train": f"0:{n_eps}"},
                       "features": {"observation.state": {"dtype": "float32", "shape": [3], "names": ["cos_theta", "sin_theta", "theta_dot"]},
                                    "action": {"dtype": "float32", "shape": [1], "names": ["torque"]}}}, indent=4)


def run07_convert(eps, bad_ep, bad_fr):
    L = ["$ python scripts/rosbag_to_lerobot.py --bags /data/bags/pendulum_2024-06-2* --out data/pendulum_teleop_v1 --fps 20",
         "[INFO] [rosbag_to_lerobot]: found 200 bags", "[INFO] [rosbag_to_lerobot]: topics: /joint_states (sensor_msgs/JointState), /torque_cmd (std_msgs/Float64)"]
    for i, e in enumerate(eps):
        if i % 20 == 0 or i == bad_ep:
            L.append(f"[INFO] [rosbag_to_lerobot]: episode_{i:06d}: {len(e['obs'])} frames @ 20 Hz, resampled from /joint_states")
        if i == bad_ep:
            L.append(f"[WARN] [joint_state_sync]: episode_{i:06d} t={bad_fr / 20:.2f}s: JointState.velocity has 0 entries, expected 1")
    L += ["[INFO] [rosbag_to_lerobot]: computing stats (nan-aware) ...", "[INFO] [rosbag_to_lerobot]: wrote meta/info.json meta/stats.json",
          f"[INFO] [rosbag_to_lerobot]: done: 200 episodes, {sum(len(e['obs']) for e in eps)} frames"]
    return "\n".join(L)


def run07_traceback(step, ts):
    return ["Traceback (most recent call last):",
            '  File "/home/lab/pendulum_bc/lerobot/scripts/train.py", line 312, in <module>',
            "    train()",
            '  File "/home/lab/pendulum_bc/lerobot/scripts/train.py", line 229, in train',
            "    train_tracker, output_dict = update_policy(",
            '  File "/home/lab/pendulum_bc/lerobot/scripts/train.py", line 71, in update_policy',
            "    raise FloatingPointError(f\"Non-finite loss {loss.item()} at step {step}\")",
            f"FloatingPointError: Non-finite loss nan at step {step}"]


run07_post = """Non-finite loss crash, lowering lr doesn't help

My pendulum BC training (LeRobot-style script, converted my rosbags to a LeRobot dataset) crashes with
`FloatingPointError: Non-finite loss nan` at step {a}. I figured the lr was too high and dropped it from 1e-4 to 3e-5,
and it dies again (step {b}). Loss and grad norm look completely normal right up to the crash. Is AdamW unstable for
this kind of policy, should I switch to SGD or add more clipping? Logs, dataset meta and the conversion log attached.
"""


# ------------------------------------------------------------------------------------- run08
run08_config = """# config.yaml  (diffusion_policy-style workspace, MLP head)
name: train_bc_mlp_reach2d
task:
  name: reach2d
  dataset_path: data/reach2d/reach2d_100eps.zarr
  val_ratio: 0.1
policy:
  hidden_dim: 256
  n_layers: 2
dataloader:
  batch_size: 128
  shuffle: true
  drop_last: true
  num_workers: 4
optimizer:
  lr: 3.0e-3
  weight_decay: 1.0e-6
training:
  num_epochs: 50
  lr_scheduler: cosine
  rollout_every: 10
  val_every: 1
  log_every_n_steps: 5
logging:
  project: reach2d_bc
  output: logs.json.txt
"""

run08_train_py = '''import json

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
                                               "epoch": epoch, "lr": lr}) + "\\n")
                global_step += 1

            step_log = {"train_loss": round(sum(train_losses) / len(train_losses), 6),
                        "global_step": global_step - 1, "epoch": epoch, "lr": lr}
            policy.eval()
            with torch.no_grad():
                step_log["val_loss"] = round(sum(policy.compute_loss(b).item() for b in val_loader) / len(val_loader), 6)
                if (epoch + 1) % cfg.training.rollout_every == 0:
                    step_log.update(runner.run(policy))       # test/mean_score, test/success_rate
            policy.train()
            log_file.write(json.dumps(step_log) + "\\n")
            log_file.flush()


if __name__ == "__main__":
    main()
'''


# ------------------------------------------------------------------------------------- run09
run09_train_py = '''import numpy as np
import torch
import torch.nn as nn

from pendulum_bc.data import load_demos


class Policy(nn.Module):
    def __init__(self, d_in=3, d_out=1, hidden=256, p_drop=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(hidden, d_out),
        )

    def forward(self, x):
        return self.net(x)


def main():
    torch.manual_seed(9)
    (obs, act), (obs_v, act_v) = load_demos("data/pendulum_demos.npz", n_train=60, n_val=10)
    print(f"loaded 60 train episodes ({len(obs)} frames), 10 val episodes ({len(obs_v)} frames)")
    stats = {"obs_mean": obs.mean(0), "obs_std": obs.std(0) + 1e-6, "act_mean": act.mean(0), "act_std": act.std(0) + 1e-6}
    print(f"obs mean {np.round(stats['obs_mean'], 4).tolist()} std {np.round(stats['obs_std'], 4).tolist()}")
    print(f"act mean {np.round(stats['act_mean'], 4).tolist()} std {np.round(stats['act_std'], 4).tolist()}")
    X = torch.tensor((obs - stats["obs_mean"]) / stats["obs_std"], dtype=torch.float32)
    Y = torch.tensor((act - stats["act_mean"]) / stats["act_std"], dtype=torch.float32)
    Xv = torch.tensor((obs_v - stats["obs_mean"]) / stats["obs_std"], dtype=torch.float32)
    Yv = torch.tensor((act_v - stats["act_mean"]) / stats["act_std"], dtype=torch.float32)

    policy = Policy()
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    for epoch in range(1, 21):
        policy.train()
        perm = torch.randperm(len(X))
        losses = []
        for i in range(0, len(X) - 63, 64):
            idx = perm[i:i + 64]
            loss = nn.functional.mse_loss(policy(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        policy.eval()
        with torch.no_grad():
            val = nn.functional.mse_loss(policy(Xv), Yv).item()
        msg = f"Epoch {epoch:2d}/20 | train mse {np.mean(losses):.5f} | val mse {val:.5f}"
        if epoch % 5 == 0:
            torch.save({"model": policy.state_dict(), "stats": stats}, "ckpt/pendulum_bc.pt")
            msg += "  * best, saved ckpt/pendulum_bc.pt"
        print(msg)


if __name__ == "__main__":
    main()
'''

run09_eval_py = '''import numpy as np
import torch

from pendulum_bc.sim import PendulumVecEnv
from train import Policy


def main(n_envs=50, seed=9100):
    ckpt = torch.load("ckpt/pendulum_bc.pt")
    stats = ckpt["stats"]
    policy = Policy()
    policy.load_state_dict(ckpt["model"])

    env = PendulumVecEnv(n_envs=n_envs, seed=seed, record_video=True)
    obs = env.reset()
    returns = np.zeros(n_envs)
    with torch.no_grad():
        for t in range(env.horizon):
            x = torch.tensor((obs - stats["obs_mean"]) / stats["obs_std"], dtype=torch.float32)
            a = policy(x).numpy() * stats["act_std"] + stats["act_mean"]
            obs, rew, done, info = env.step(a)
            returns += rew
    success = info["is_success"]
    for i in range(n_envs):
        print(f"episode {i:02d}  return {returns[i]:8.3f}  success {bool(success[i])}")
    print(f"success rate: {success.mean():.2f}   mean return: {returns.mean():.3f}")
    env.save_videos("videos/")


if __name__ == "__main__":
    main()
'''


def run09_eval_out(s, tot):
    L = ["$ python eval.py"]
    for i in range(len(s)):
        L.append(f"episode {i:02d}  return {tot[i]:8.3f}  success {bool(s[i])}")
    L.append(f"success rate: {s.mean():.2f}   mean return: {tot.mean():.3f}")
    L.append("wrote 50 videos to videos/")
    return "\n".join(L)


run09_post = """Great val loss, but the pendulum falls over in sim

BC for pendulum balancing: val MSE is {vl:.4f} (normalised) after 20 epochs, so the network clearly learned the
demonstrations. But when I run it in the sim with eval.py, success is {succ:.0f}%. In the videos the pole starts out
fine for the first second, then the torque starts chattering back and forth and the pole swings around until it falls.
I recorded the demos on a slightly older version of our sim, so I suspect the dynamics (mass/damping) don't match.
How can I check that? train.py, eval.py and both outputs attached.
"""


# ------------------------------------------------------------------------------------- run10
run10_train_py = '''import json

import numpy as np
import torch
import torch.nn as nn

from push_rig.sim import PushEnvMM, rollout

MAX_SPEED_MM_S = 250.0


def load(path):
    d = np.load(path)
    # observation.state: agent_x, agent_y, block_x, block_y, target_x, target_y   [mm, table frame]
    obs = d["observation.state"].astype(np.float32)
    # action: commanded velocity in mm/s -> scale to [-1, 1]
    act = np.clip(d["action"] / MAX_SPEED_MM_S, -1, 1).astype(np.float32)
    return obs, act


def main():
    torch.manual_seed(10)
    obs, act = load("data/push_train.npz")
    obs_v, act_v = load("data/push_val.npz")
    print(f"train frames: {len(obs)}  val frames: {len(obs_v)}")
    print(f"obs[0]: {np.round(obs[0], 1).tolist()}")
    print(f"act[0]: {np.round(act[0], 3).tolist()}")
    X, Y = torch.tensor(obs), torch.tensor(act)
    Xv, Yv = torch.tensor(obs_v), torch.tensor(act_v)

    model = nn.Sequential(nn.Linear(6, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for ep in range(1, 21):
        perm = torch.randperm(len(X))
        losses, gnorms = [], []
        for i in range(0, len(X), 64):
            idx = perm[i:i + 64]
            loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            gnorms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item())
            opt.step()
            losses.append(loss.item())
        with torch.no_grad():
            val = nn.functional.mse_loss(model(Xv), Yv).item()
        print(f"ep {ep:2d}  loss {np.mean(losses):.4f}  val {val:.4f}  |grad| mean {np.mean(gnorms):.1f} max {np.max(gnorms):.1f}")

    succ, ret = rollout(PushEnvMM(), lambda o: model(torch.tensor(o, dtype=torch.float32)).numpy() * MAX_SPEED_MM_S,
                        n_episodes=50, seed=10100)
    print(f"rollouts: {int(succ.sum())}/50 success, mean return {ret.mean():.2f}")
    torch.save(model.state_dict(), "push_mlp.pt")


if __name__ == "__main__":
    main()
'''


def run10_info(n_eps, n):
    import json
    return json.dumps({"robot_type": "planar_pusher", "fps": 20, "total_episodes": n_eps, "total_frames": n,
                       "features": {"observation.state": {"dtype": "float32", "shape": [6],
                                                          "names": ["agent_x", "agent_y", "block_x", "block_y", "target_x", "target_y"],
                                                          "unit": "mm"},
                                    "action": {"dtype": "float32", "shape": [2], "names": ["vx", "vy"], "unit": "mm/s"}}}, indent=4)


# ------------------------------------------------------------------------------------- run11
run11_config = """# config.yaml
seed: 11
env: push2d
dataset:
  path: data/push2d_40eps.hdf5
  episodes: null          # null = use all episodes
val:
  episodes: [32, 33, 34, 35, 36, 37, 38, 39]
  every_n_epochs: 1
policy:
  hidden_dim: 256
  n_layers: 2
  dropout: 0.1
optim:
  name: adamw
  lr: 3.0e-4
  weight_decay: 1.0e-4
train:
  epochs: 60
  batch_size: 64
eval:
  every_n_epochs: 10
  n_episodes: 50
wandb:
  project: push-bc
  name: mlp_dropout0.1
"""

run11_post = """val loss < train loss the whole run?

Training an MLP BC policy on a 2-D push task (40 demos). My val loss is lower than the train loss from epoch 1 and
tracks it all the way down. I assumed that means the policy generalises and I just need more epochs, but rollouts on
new seeds only succeed {succ:.0f}% of the time at the end. Is the train loss wrong because of dropout, or am I computing something wrong?
wandb export + config attached.
"""


# ------------------------------------------------------------------------------------- run12
run12_train_py = '''import logging
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
'''

run12_post = """Noisy grad norm - should I worry?

Pendulum BC run finished, final eval {succ:.0f}% success, loss curve looks smooth. But the `grdn` column keeps jumping
around from log line to log line even at the very end when lr is almost zero. Is a noisy grad norm like that a sign
of a problem (bad demos, lr, clipping)? Log and train.py attached.
"""
