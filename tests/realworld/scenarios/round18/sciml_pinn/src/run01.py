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
    layer_size: 32
    nr_layers: 3
    activation_fn: tanh
    weight_norm: false

optimizer:
  lr: 1.0e-3
  betas: [0.999, 0.9]

scheduler:
  decay_rate: 0.95
  decay_steps: 2000

training:
  rec_results_freq: 250
  max_steps: 3000
  print_stats_freq: 50

custom:
  diffusivity: 0.1

batch_size:
  interior: 512
  initial_condition: 128
  boundary: 128
"""

RESOLVED = """\
training:
  max_steps: 3000
  grad_agg_freq: 1
  rec_results_freq: 250
  rec_validation_freq: 250
  rec_inference_freq: 250
  rec_monitor_freq: 250
  rec_constraint_freq: 250
  save_network_freq: 1000
  print_stats_freq: 50
  summary_freq: 50
  amp: false
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
  - 0.999
  - 0.9
  eps: 1.0e-08
  weight_decay: 0.0
  amsgrad: false
scheduler:
  _target_: custom
  _name_: tf.ExponentialLR
  decay_rate: 0.95
  decay_steps: 2000
batch_size:
  interior: 512
  initial_condition: 128
  boundary: 128
custom:
  diffusivity: 0.1
arch:
  fully_connected:
    arch_type: fully_connected
    input_keys: ???
    output_keys: ???
    detach_keys: ???
    scaling: null
    layer_size: 32
    nr_layers: 3
    skip_connections: false
    activation_fn: tanh
    adaptive_activations: false
    weight_norm: false
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
out_dir = "outputs/heat_rod"
os.makedirs(out_dir + "/.hydra", exist_ok=True)
os.makedirs(out_dir + "/monitors", exist_ok=True)
open(out_dir + "/.hydra/config.yaml", "w").write(RESOLVED)
open(out_dir + "/.hydra/overrides.yaml", "w").write("[]\n")

logging.basicConfig(format="[%(asctime)s] - %(message)s", datefmt="%H:%M:%S", level=logging.INFO)
log = logging.getLogger("modulus")

torch.manual_seed(3)
alpha = 0.1
MAX_STEPS, PRINT_FREQ, REC_FREQ = 3000, 50, 250

net = torch.nn.Sequential(
    torch.nn.Linear(2, 32), torch.nn.Tanh(),
    torch.nn.Linear(32, 32), torch.nn.Tanh(),
    torch.nn.Linear(32, 32), torch.nn.Tanh(),
    torch.nn.Linear(32, 1),
)
for m in net:
    if isinstance(m, torch.nn.Linear):
        torch.nn.init.xavier_uniform_(m.weight)
        torch.nn.init.zeros_(m.bias)

log.info("attempting to restore from: " + out_dir)
log.info("optimizer checkpoint not found")
log.info("model heat_network.0.pth not found")

opt = torch.optim.Adam(net.parameters(), lr=1e-3, betas=(0.999, 0.9), eps=1e-8, weight_decay=0.0)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.95 ** (s / 2000))
writer = SummaryWriter(out_dir)

g = np.linspace(0, 1, 41)
GX, GT = np.meshgrid(g, g)
val_np = np.stack([GX.ravel(), GT.ravel()], 1)
u_val = np.sin(np.pi * val_np[:, 0]) * np.exp(-alpha * np.pi ** 2 * val_np[:, 1])
val_in = torch.tensor(val_np, dtype=torch.float32)
mon = open(out_dir + "/monitors/l2_error.csv", "w")
mon.write("step,l2_relative_error_u\n")

t_last = time.time()
for step in range(MAX_STEPS + 1):
    xi = torch.rand(512, 2, requires_grad=True)
    x0 = torch.rand(128, 1)
    ic = torch.cat([x0, torch.zeros_like(x0)], 1)
    tb = torch.rand(128, 1)
    bc = torch.cat([(torch.rand(128, 1) < 0.5).float(), tb], 1)

    u = net(xi)
    du = torch.autograd.grad(u.sum(), xi, create_graph=True)[0]
    u_xx = torch.autograd.grad(du[:, :1].sum(), xi, create_graph=True)[0][:, :1]
    loss_diff = ((du[:, 1:] - alpha * u_xx) ** 2).mean()
    loss_ic = ((net(ic) - torch.sin(math.pi * x0)) ** 2).mean()
    loss_bc = (net(bc) ** 2).mean()
    loss = loss_diff + loss_ic + loss_bc
    if not torch.isfinite(loss):
        log.error(f"[step: {step:>10d}] loss went to Nans")
        break
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()

    if step % REC_FREQ == 0:
        with torch.no_grad():
            pred = net(val_in).numpy().ravel()
        err = np.linalg.norm(pred - u_val) / np.linalg.norm(u_val)
        writer.add_scalar("Validators/heat_validator/l2_relative_error_u", err, step)
        mon.write(f"{step},{err:.6e}\n")
        mon.flush()
        log.info(f"[step: {step:>10d}] record validators time:  {1.1e-01:.3e}s")
        if step % 1000 == 0:
            log.info(f"[step: {step:>10d}] saved checkpoint to {out_dir}")
    if step % PRINT_FREQ == 0:
        writer.add_scalar("Train/loss_aggregated", loss.item(), step)
        writer.add_scalar("Train/loss_diffusion_u", loss_diff.item(), step)
        writer.add_scalar("Train/loss_u", (loss_ic + loss_bc).item(), step)
        writer.add_scalar("Train/learning_rate", sched.get_last_lr()[0], step)
        now = time.time()
        if step == 0:
            log.info(f"[step: {step:>10d}] loss:  {loss.item():.3e}")
        else:
            log.info(f"[step: {step:>10d}] loss:  {loss.item():.3e}, time/iteration:  "
                     f"{(now - t_last) / PRINT_FREQ * 1000:.3e} ms")
        t_last = now
else:
    log.info(f"[step: {MAX_STEPS:>10d}] reached maximum training steps, finished training!")
mon.close()
writer.close()
