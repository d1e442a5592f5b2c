import sys, types, json, runpy
rec = {"wandb": [], "tb": []}
w = types.ModuleType("wandb")
w._step = 0
class _Run:
    name = "x"; config = {}
    def log(self, *a, **k): return w.log(*a, **k)
    def finish(self): pass
def init(project=None, name=None, config=None, **kw):
    r = _Run(); r.config = dict(config or {}); w.config = r.config; return r
def log(d, step=None, commit=None):
    if step is None: step = w._step; w._step += 1
    else: w._step = step + 1
    rec["wandb"].append([step, {k: float(v) for k, v in d.items()}])
w.init = init; w.log = log; w.finish = lambda: None; w.watch = lambda *a, **k: None
sys.modules["wandb"] = w
tbm = types.ModuleType("torch.utils.tensorboard")
class SummaryWriter:
    def __init__(self, log_dir=None, **kw): rec["logdir"] = log_dir
    def add_scalar(self, tag, value, global_step=None, walltime=None):
        rec["tb"].append([tag, int(global_step), float(value)])
    def add_scalars(self, main, d, global_step=None):
        for k, v in d.items(): self.add_scalar(main + "/" + k, v, global_step)
    def flush(self): pass
    def close(self): pass
tbm.SummaryWriter = SummaryWriter
import torch.utils
sys.modules["torch.utils.tensorboard"] = tbm
torch.utils.tensorboard = tbm
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
finally:
    json.dump(rec, open(sys.argv[2], "w"))
