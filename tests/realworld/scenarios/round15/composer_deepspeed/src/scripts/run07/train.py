import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import deepspeed

torch.set_num_threads(1)


class EventRNN(nn.Module):
    def __init__(self, d_in=2, hidden=64):
        super().__init__()
        self.rnn = nn.RNN(d_in, hidden, nonlinearity="relu", batch_first=True)
        self.out = nn.Linear(hidden, 1)
        with torch.no_grad():
            self.rnn.weight_hh_l0.copy_(torch.eye(hidden))
            self.rnn.bias_hh_l0.zero_()
            self.rnn.bias_ih_l0.zero_()
            self.rnn.weight_ih_l0.normal_(0, 1e-3)
            self.out.weight.normal_(0, 1e-3)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.out(h[-1]).squeeze(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--curriculum", default="10:150,40:150,80:150")
    parser.add_argument("--log_interval", type=int, default=10)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    torch.manual_seed(0)

    data = np.load("data/event_sums.npz")
    model = EventRNN()
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    g = torch.Generator().manual_seed(0)
    step = 0
    for stage in args.curriculum.split(","):
        seq_len, n_steps = map(int, stage.split(":"))
        X = torch.from_numpy(data[f"x_len{seq_len}"])
        y = torch.from_numpy(data[f"y_len{seq_len}"])
        print(f"curriculum: seq_len={seq_len} for {n_steps} steps ({len(X)} sequences)", flush=True)
        for _ in range(n_steps):
            idx = torch.randint(0, len(X), (64,), generator=g)
            pred = engine(X[idx])
            loss = F.mse_loss(pred, y[idx])
            engine.backward(loss)
            engine.step()
            if step % args.log_interval == 0:
                print(f"step {step:4d} | seq_len {seq_len:3d} | loss {loss.item():.4f} | "
                      f"grad_norm {engine.get_global_grad_norm():.4f} | lr {engine.get_lr()[0]:.2e}", flush=True)
            step += 1


if __name__ == "__main__":
    main()
