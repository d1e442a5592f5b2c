import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import deepspeed

torch.set_num_threads(1)


class TicketClassifier(nn.Module):
    def __init__(self, d_in=24, hidden=128, n_classes=6):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, hidden), nn.GELU(), nn.Dropout(0.2),
            nn.Linear(hidden, hidden), nn.GELU(), nn.Dropout(0.2),
        )
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def evaluate(engine, xv, yv):
    engine.eval()
    with torch.no_grad():
        logits = engine(xv.half()).float()
        loss = F.cross_entropy(logits, yv).item()
        acc = (logits.argmax(1) == yv).float().mean().item()
    engine.train()
    return loss, acc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--log_interval", type=int, default=25)
    parser.add_argument("--eval_interval", type=int, default=250)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.manual_seed(1)
    d = np.load("data/tickets.npz")
    train_ds = torch.utils.data.TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    xv, yv = torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"])

    model = TicketClassifier()
    engine, _, train_loader, _ = deepspeed.initialize(args=args, model=model,
                                                      model_parameters=model.parameters(),
                                                      training_data=train_ds)
    for epoch in range(args.epochs):
        for x, y in train_loader:
            logits = engine(x.to(engine.device).half())
            loss = F.cross_entropy(logits, y.to(engine.device))
            engine.backward(loss)
            engine.step()
            step = engine.global_steps
            if step % args.log_interval == 0:
                print(f"[train] epoch={epoch} step={step} loss={loss.item():.4f} lr={engine.get_lr()[0]:.3e}",
                      flush=True)
            if step % args.eval_interval == 0:
                vl, va = evaluate(engine, xv, yv)
                print(f"[eval] step={step} val_loss={vl:.4f} val_acc={va:.4f}", flush=True)
    vl, va = evaluate(engine, xv, yv)
    print(f"[eval] final step={engine.global_steps} val_loss={vl:.4f} val_acc={va:.4f}", flush=True)


if __name__ == "__main__":
    main()
