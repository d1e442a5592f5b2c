import logging
import math
import os
import time

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)

USER_CONF = """\
defaults:
  - modulus_default
  - arch:
      - fully_connected
  - scheduler: tf_exponential_lr
  - optimizer: adam
  - loss: sum
  - _self_

arch:
  fully_connected:
    layer_size: 24
    nr_layers: 3

scheduler:
  decay_rate: 0.95
  decay_steps: 1000

training:
  rec_results_freq: 500
  rec_constraint_freq: 500
  max_steps: 2500
  print_stats_freq: 50

custom:
  nu: 0.015915494   # 0.05 / pi

batch_size:
  interior: 800
  initial_condition: 100
  boundary: 100
"""

RESOLVED = """\
training:
  max_steps: 2500
  grad_agg_freq: 1
  rec_results_freq: 500
  rec_validation_freq: 500
  rec_inference_freq: 500
  rec_monitor_freq: 500
  rec_constraint_freq: 500
  save_network_freq: 1000
  print_stats_freq: 50
  summary_freq: 50
  amp: false
  ntk:
    use_ntk: false
loss:
  _target_: modulus.sym.loss.aggregator.Sum
  weights: null
optimizer:
  _params_:
    compute_gradients: adam_compute_gradients
    apply_gradients: adam_apply_gradients
  _target_: torch.optim.Adam
  lr: 0.001
  betas:
  - 0.9
  - 0.999
  eps: 1.0e-08
  weight_decay: 0.0
  amsgrad: false
scheduler:
  _target_: custom
  _name_: tf.ExponentialLR
  decay_rate: 0.95
  decay_steps: 1000
batch_size:
  interior: 800
  initial_condition: 100
  boundary: 100
custom:
  nu: 0.015915494
arch:
  fully_connected:
    arch_type: fully_connected
    input_keys: ???
    output_keys: ???
    detach_keys: ???
    scaling: null
    layer_size: 24
    nr_layers: 3
    skip_connections: false
    activation_fn: silu
    adaptive_activations: false
    weight_norm: true
run_mode: train
cuda_graphs: false
jit: false
network_dir: .
initialization_network_dir: ''
save_filetypes: vtk
debug: false
"""

os.makedirs("conf", exist_ok=True)
open("conf/config.yaml", "w").write(USER_CONF)
out_dir = "outputs/burgers"
os.makedirs(out_dir + "/.hydra", exist_ok=True)
os.makedirs(out_dir + "/validators", exist_ok=True)
open(out_dir + "/.hydra/config.yaml", "w").write(RESOLVED)
open(out_dir + "/.hydra/overrides.yaml", "w").write("[]\n")

logging.basicConfig(format="[%(asctime)s] - %(message)s", datefmt="%H:%M:%S", level=logging.INFO)
log = logging.getLogger("modulus")

torch.manual_seed(0)
np.random.seed(0)
nu = 0.015915494
MAX_STEPS, PRINT_FREQ, REC_FREQ = 2500, 50, 500


def burgers_reference(x, t, n=80):
    z, w = np.polynomial.hermite.hermgauss(n)
    x = x[:, None]
    t = t[:, None]
    y = x - np.sqrt(4 * nu * t) * z[None, :]
    f = np.exp(-np.cos(np.pi * y) / (2 * np.pi * nu))
    return -(w * np.sin(np.pi * y) * f).sum(1) / (w * f).sum(1)


class WNLinear(torch.nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.v = torch.nn.Parameter(torch.empty(n_out, n_in))
        torch.nn.init.xavier_uniform_(self.v)
        self.g = torch.nn.Parameter(torch.ones(n_out, 1))
        self.b = torch.nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        w = self.g * self.v / self.v.norm(dim=1, keepdim=True)
        return torch.nn.functional.linear(x, w, self.b)


class FullyConnectedArch(torch.nn.Module):
    def __init__(self, n_in=2, n_out=1, layer_size=24, nr_layers=3):
        super().__init__()
        dims = [n_in] + [layer_size] * nr_layers
        self.layers = torch.nn.ModuleList([WNLinear(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.final = torch.nn.Linear(layer_size, n_out)

    def forward(self, x):
        for l in self.layers:
            x = torch.nn.functional.silu(l(x))
        return self.final(x)


flow_net = FullyConnectedArch()
log.info("attempting to restore from: " + out_dir)
log.info("optimizer checkpoint not found")
log.info("model flow_network.0.pth not found")

opt = torch.optim.Adam(flow_net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.95 ** (s / 1000))
writer = SummaryWriter(out_dir)

xs = np.linspace(-1, 1, 101)
ts = np.linspace(0.0, 1.0, 26)
XX, TT = np.meshgrid(xs, ts)
val_np = np.stack([XX.ravel(), TT.ravel()], 1)
u_val = np.where(val_np[:, 1] == 0, -np.sin(np.pi * val_np[:, 0]),
                 burgers_reference(val_np[:, 0], np.maximum(val_np[:, 1], 1e-8)))
val_in = torch.tensor(val_np, dtype=torch.float32)


def sample():
    xi = torch.rand(800, 2)
    xi[:, 0] = xi[:, 0] * 2 - 1
    x0 = torch.rand(100, 1) * 2 - 1
    ic = torch.cat([x0, torch.zeros_like(x0)], 1)
    tb = torch.rand(100, 1)
    xb = torch.where(torch.rand(100, 1) < 0.5, -torch.ones(100, 1), torch.ones(100, 1))
    bc = torch.cat([xb, tb], 1)
    return xi, ic, -torch.sin(math.pi * x0), bc


def validate(step):
    with torch.no_grad():
        pred = flow_net(val_in).numpy().ravel()
    err = np.linalg.norm(pred - u_val) / np.linalg.norm(u_val)
    writer.add_scalar("Validators/burgers_validator/l2_relative_error_u", err, step)
    np.savetxt(out_dir + "/validators/burgers_validator.csv",
               np.stack([val_np[:, 0], val_np[:, 1], u_val, pred], 1), delimiter=",",
               header="x,t,true_u,pred_u", comments="")
    return err


t_last = time.time()
for step in range(MAX_STEPS + 1):
    xi, ic, u0, bc = sample()
    xi.requires_grad_(True)
    u = flow_net(xi)
    du = torch.autograd.grad(u.sum(), xi, create_graph=True)[0]
    u_x, u_t = du[:, :1], du[:, 1:]
    u_xx = torch.autograd.grad(u_x.sum(), xi, create_graph=True)[0][:, :1]
    loss_pde = ((u_t + u * u_x - nu * u_xx) ** 2).mean()
    loss_ic = ((flow_net(ic) - u0) ** 2).mean()
    loss_bc = (flow_net(bc) ** 2).mean()
    loss = loss_pde + loss_ic + loss_bc
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()

    if step % REC_FREQ == 0:
        if step == 0:
            log.info(f"[step: {step:>10d}] record constraint batch time:  {4.1e-02:.3e}s")
        err = validate(step)
        log.info(f"[step: {step:>10d}] record validators time:  {2.0e-01:.3e}s")
        log.info(f"[step: {step:>10d}] saved checkpoint to {out_dir}")
    if step % PRINT_FREQ == 0:
        writer.add_scalar("Train/loss_aggregated", loss.item(), step)
        writer.add_scalar("Train/loss_burgers_u", loss_pde.item(), step)
        writer.add_scalar("Train/loss_u", (loss_ic + loss_bc).item(), step)
        writer.add_scalar("Train/learning_rate", sched.get_last_lr()[0], step)
        now = time.time()
        if step == 0:
            log.info(f"[step: {step:>10d}] loss:  {loss.item():.3e}")
        else:
            log.info(f"[step: {step:>10d}] loss:  {loss.item():.3e}, time/iteration:  "
                     f"{(now - t_last) / PRINT_FREQ * 1000:.3e} ms")
        t_last = now
writer.close()
log.info(f"[step: {MAX_STEPS:>10d}] reached maximum training steps, finished training!")
