import os

import torch


class Checkpoint:
    def __init__(self, monitor="valid_loss_best", dirname="", f_params="params.pt", f_history="history.json",
                 event_name="event_cp"):
        self.monitor = monitor
        self.dirname = dirname
        self.f_params = f_params
        self.f_history = f_history
        self.event_name = event_name

    def on_epoch_end(self, net):
        do = bool(net.history[-1].get(self.monitor, False))
        net.history[-1][self.event_name] = do
        if do:
            if self.dirname:
                os.makedirs(self.dirname, exist_ok=True)
            torch.save(net.module_.state_dict(), os.path.join(self.dirname, self.f_params))


class EarlyStopping:
    def __init__(self, monitor="valid_loss", patience=5, lower_is_better=True):
        self.monitor = monitor
        self.patience = patience
        self.lower = lower_is_better
        self.best = None
        self.misses = 0

    def on_epoch_end(self, net):
        v = net.history[-1][self.monitor]
        if self.best is None or (v < self.best if self.lower else v > self.best):
            self.best = v
            self.misses = 0
        else:
            self.misses += 1
        if self.misses >= self.patience:
            print("Stopping since %s has not improved in the last %d epochs." % (self.monitor, self.patience))
            raise KeyboardInterrupt
