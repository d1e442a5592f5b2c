import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import deepspeed

torch.set_num_threads(1)


class IntentMLP(nn.Module):
    def __init__(self, d_in=48, hidden=256, n_classes=12):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def evaluate(engine, xv, yv):
    engine.eval()
    with torch.no_grad():
        out = engine(xv)
        loss, acc = F.cross_entropy(out, yv).item(), (out.argmax(1) == yv).float().mean().item()
    engine.train()
    return loss, acc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--total_steps", type=int, default=1400)
    parser.add_argument("--max_steps_this_job", type=int, default=None)
    parser.add_argument("--ckpt_dir", default="checkpoints")
    parser.add_argument("--resume", action="store_true")
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    torch.manual_seed(0)

    d = np.load("data/intents.npz")
    train_ds = torch.utils.data.TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    xv, yv = torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"])

    model = IntentMLP()
    engine, _, train_loader, _ = deepspeed.initialize(args=args, model=model,
                                                      model_parameters=model.parameters(),
                                                      training_data=train_ds)
    epoch = 0
    if args.resume:
        path, client_state = engine.load_checkpoint(args.ckpt_dir, load_optimizer_states=False,
                                                    load_lr_scheduler_states=False)
        epoch = client_state.get("epoch", 0)
        print(f"resumed from {path} at global step {engine.global_steps} (epoch {epoch})", flush=True)

    steps_this_job = 0
    running = []
    while engine.global_steps < args.total_steps:
        for x, y in train_loader:
            loss = F.cross_entropy(engine(x), y)
            engine.backward(loss)
            engine.step()
            running.append(loss.item())
            steps_this_job += 1
            step = engine.global_steps
            if step % 20 == 0:
                print(f"step={step} epoch={epoch} train_loss={np.mean(running):.4f} lr={engine.get_lr()[0]:.6f}",
                      flush=True)
                running = []
            if step % 100 == 0:
                vl, va = evaluate(engine, xv, yv)
                print(f"step={step} eval_loss={vl:.4f} eval_acc={va:.4f}", flush=True)
            if args.max_steps_this_job and steps_this_job >= args.max_steps_this_job:
                engine.save_checkpoint(args.ckpt_dir, client_state={"epoch": epoch})
                print(f"reached max_steps_this_job={args.max_steps_this_job}, exiting", flush=True)
                return
            if step >= args.total_steps:
                break
        epoch += 1
    vl, va = evaluate(engine, xv, yv)
    print(f"done: step={engine.global_steps} eval_loss={vl:.4f} eval_acc={va:.4f}", flush=True)


if __name__ == "__main__":
    main()
