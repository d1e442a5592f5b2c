import datetime
import json
import os
import time

import numpy as np


class D2Events:
    """detectron2-like event storage: metrics.json (one object per line) and a text log."""

    def __init__(self, out_dir, log_name='log.txt', console_style=False, window=20):
        os.makedirs(out_dir, exist_ok=True)
        self.out_dir = out_dir
        self._txt = open(os.path.join(out_dir, log_name), 'w')
        self._json = open(os.path.join(out_dir, 'metrics.json'), 'w')
        self.console_style = console_style
        self.window = window
        self.hist = {}

    def info(self, name, msg, level='INFO'):
        now = datetime.datetime.now()
        if self.console_style:
            short = 'd2.' + name[len('detectron2.'):] if name.startswith('detectron2.') else name
            prefix = f"[{now:%m/%d %H:%M:%S} {short}]: " + ('' if level == 'INFO' else level + ' ')
        else:
            prefix = f"[{now:%m/%d %H:%M:%S}] {name} {level}: "
        line = prefix + msg
        print(line, flush=True)
        self._txt.write(line + '\n')
        self._txt.flush()

    def put(self, **kw):
        for k, v in kw.items():
            self.hist.setdefault(k, []).append(float(v))

    def median(self, k):
        return float(np.median(self.hist[k][-self.window:]))

    def avg(self, k):
        return float(np.mean(self.hist[k][-self.window:]))

    def write(self, it, max_iter, loss_keys, lr, extra=None):
        t = self.avg('time')
        dt = self.avg('data_time')
        eta = (max_iter - it - 1) * t
        losses = {k: self.median(k) for k in loss_keys}
        total = self.median('total_loss')
        parts = [f" eta: {datetime.timedelta(seconds=int(eta))}", f"iter: {it}",
                 f"total_loss: {total:.4g}"]
        parts += [f"{k}: {v:.4g}" for k, v in losses.items()]
        if extra:
            parts += [f"{k}: {v:.4g}" for k, v in extra.items()]
        parts += [f"time: {t:.4f}", f"last_time: {self.hist['time'][-1]:.4f}",
                  f"data_time: {dt:.4f}", f"last_data_time: {self.hist['data_time'][-1]:.4f}",
                  f"lr: {lr:.5g}"]
        self.info('detectron2.utils.events', '  '.join(parts))
        rec = {'data_time': dt, 'eta_seconds': eta, 'iteration': it, 'lr': lr,
               'rank_data_time': dt, 'time': t, 'total_loss': total}
        rec.update(losses)
        if extra:
            rec.update(extra)
        self._json.write(json.dumps(rec, sort_keys=True) + '\n')
        self._json.flush()

    def write_eval(self, it, results):
        rec = dict(results)
        rec['iteration'] = it
        self._json.write(json.dumps(rec, sort_keys=True) + '\n')
        self._json.flush()
