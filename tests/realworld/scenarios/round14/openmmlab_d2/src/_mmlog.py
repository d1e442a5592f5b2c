import datetime
import json
import os
import runpy
import shutil
import sys
import time

import numpy as np
import torch


def load_config(path):
    ns = runpy.run_path(path)
    return {k: v for k, v in ns.items() if not k.startswith('_')}


class MMStyleLog:
    """Writes <work_dir>/<stamp>/<stamp>.log and vis_data/scalars.json in the mmengine layout."""

    def __init__(self, work_dir, cfg_path):
        self.stamp = datetime.datetime.now().strftime('%Y%m%d_%H%M%S')
        self.dir = os.path.join(work_dir, self.stamp)
        os.makedirs(os.path.join(self.dir, 'vis_data'), exist_ok=True)
        self._log = open(os.path.join(self.dir, self.stamp + '.log'), 'w')
        self._scalars = open(os.path.join(self.dir, 'vis_data', 'scalars.json'), 'w')
        shutil.copy(cfg_path, os.path.join(self.dir, 'vis_data', 'config.py'))
        self.exp_name = os.path.splitext(os.path.basename(cfg_path))[0] + '_' + self.stamp
        with open(cfg_path) as f:
            self.cfg_text = f.read()

    def info(self, msg, level='INFO'):
        line = f"{datetime.datetime.now():%Y/%m/%d %H:%M:%S} - mmengine - {level} - {msg}"
        print(line, flush=True)
        self._log.write(line + '\n')
        self._log.flush()

    def header(self, seed):
        env = ('\n' + '-' * 60 + '\nSystem environment:\n'
               f'    sys.platform: {sys.platform}\n'
               f'    Python: {sys.version.split()[0]}\n'
               '    CUDA available: False\n'
               f'    numpy_random_seed: {seed}\n'
               f'    PyTorch: {torch.__version__}\n'
               f'    NumPy: {np.__version__}\n'
               '\nRuntime environment:\n'
               '    cudnn_benchmark: False\n'
               f'    seed: {seed}\n'
               '    Distributed launcher: none\n'
               '    Distributed training: False\n'
               '    GPU number: 0\n' + '-' * 60 + '\n')
        self.info(env)
        self.info('Config:\n' + self.cfg_text)

    def scalars(self, d):
        self._scalars.write(json.dumps(d) + '\n')
        self._scalars.flush()

    @staticmethod
    def _fmt(v):
        if isinstance(v, int):
            return str(v)
        return f'{v:.4f}'

    def train(self, epoch, max_epochs, it, n_iter, step, base_lr, lr, eta_s, t, dt, vals):
        head = f"Epoch(train) [{epoch:>{len(str(max_epochs))}}][{it:>{len(str(n_iter))}}/{n_iter}]  "
        s = (head + f"base_lr: {base_lr:.4e} lr: {lr:.4e}  eta: {datetime.timedelta(seconds=int(eta_s))}  "
             f"time: {t:.4f}  data_time: {dt:.4f}  ")
        s += '  '.join(f'{k}: {self._fmt(v)}' for k, v in vals.items())
        self.info(s)
        d = {'base_lr': base_lr, 'lr': lr, 'data_time': round(dt, 4)}
        d.update({k: (round(v, 6) if isinstance(v, float) else v) for k, v in vals.items()})
        d.update({'time': round(t, 4), 'epoch': epoch, 'iter': step, 'step': step})
        self.scalars(d)

    def val_progress(self, epoch, max_epochs, it, n_iter, eta_s, t, dt):
        self.info(f"Epoch(val) [{epoch:>{len(str(max_epochs))}}][{it:>{len(str(n_iter))}}/{n_iter}]    "
                  f"eta: {datetime.timedelta(seconds=int(eta_s))}  time: {t:.4f}  data_time: {dt:.4f}")

    def val(self, epoch, max_epochs, n_iter, metrics, t, dt):
        s = f"Epoch(val) [{epoch:>{len(str(max_epochs))}}][{n_iter}/{n_iter}]    "
        s += '  '.join(f'{k}: {v:.4f}' for k, v in metrics.items())
        s += f"  data_time: {dt:.4f}  time: {t:.4f}"
        self.info(s)
        d = {k: round(float(v), 6) for k, v in metrics.items()}
        d.update({'data_time': round(dt, 4), 'time': round(t, 4), 'step': epoch})
        self.scalars(d)


def eta_str(seconds):
    return str(datetime.timedelta(seconds=int(seconds)))
