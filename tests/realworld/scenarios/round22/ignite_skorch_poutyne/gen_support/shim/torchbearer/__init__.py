"""Minimal local stand-in for torchbearer (Trial + CSVLogger)."""
import csv
import sys
import time
from collections import deque

import numpy as np
import torch

torch.set_num_threads(1)

__version__ = "0.5.3"


def _hms(sec):
    return "%02d:%02d" % (int(sec // 60), int(sec % 60))


def _fmt(v):
    return ("%.4f" % v).rstrip("0").rstrip(".") if abs(v) >= 1e-4 else "%.4g" % v


class Trial:
    def __init__(self, model, optimizer=None, criterion=None, metrics=None, callbacks=None, verbose=2):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.metrics = metrics or ["loss"]
        self.callbacks = callbacks or []
        self.verbose = verbose
        self.train_gen = None
        self.val_gen = None

    def to(self, device):
        return self

    def with_generators(self, train_generator=None, val_generator=None, test_generator=None):
        self.train_gen = train_generator
        self.val_gen = val_generator
        return self

    def run(self, epochs=1, verbose=-1):
        history = []
        for cb in self.callbacks:
            cb.on_start(self)
        want_acc = "acc" in self.metrics or "accuracy" in self.metrics
        for epoch in range(epochs):
            self.model.train()
            t0 = time.time()
            run_loss, run_acc = deque(maxlen=50), deque(maxlen=50)
            tot_l, tot_c, n = 0.0, 0, 0
            for xb, yb in self.train_gen:
                self.optimizer.zero_grad()
                out = self.model(xb)
                loss = self.criterion(out, yb)
                loss.backward()
                self.optimizer.step()
                c = (out.argmax(1) == yb).sum().item()
                run_loss.append(loss.item())
                run_acc.append(c / len(yb))
                tot_l += loss.item() * len(yb)
                tot_c += c
                n += len(yb)
            dt = time.time() - t0
            logs = {}
            if want_acc:
                logs["acc"] = tot_c / n
            logs["loss"] = tot_l / n
            if want_acc:
                logs["running_acc"] = float(np.mean(run_acc))
            logs["running_loss"] = float(np.mean(run_loss))
            nb = len(self.train_gen)
            sys.stdout.write("%d/%d(t): 100%%|%s| %d/%d [%s<00:00, %.2fit/s, %s]\n"
                             % (epoch, epochs, "\u2588" * 10, nb, nb, _hms(dt), nb / max(dt, 1e-6),
                                ", ".join("%s=%s" % (k, _fmt(v)) for k, v in logs.items())))
            if self.val_gen is not None:
                self.model.eval()
                t0 = time.time()
                vl, vc, vn = 0.0, 0, 0
                with torch.no_grad():
                    for xb, yb in self.val_gen:
                        out = self.model(xb)
                        vl += self.criterion(out, yb).item() * len(yb)
                        vc += (out.argmax(1) == yb).sum().item()
                        vn += len(yb)
                dt = time.time() - t0
                vlogs = {}
                if want_acc:
                    vlogs["val_acc"] = vc / vn
                vlogs["val_loss"] = vl / vn
                nb = len(self.val_gen)
                sys.stdout.write("%d/%d(v): 100%%|%s| %d/%d [%s<00:00, %.2fit/s, %s]\n"
                                 % (epoch, epochs, "\u2588" * 10, nb, nb, _hms(dt), nb / max(dt, 1e-6),
                                    ", ".join("%s=%s" % (k, _fmt(v)) for k, v in vlogs.items())))
                logs.update(vlogs)
            sys.stdout.flush()
            logs["epoch"] = epoch
            for cb in self.callbacks:
                cb.on_end_epoch(self, logs)
            history.append(logs)
        for cb in self.callbacks:
            cb.on_end(self)
        return history
