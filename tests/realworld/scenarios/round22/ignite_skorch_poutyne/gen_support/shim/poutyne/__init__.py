"""Minimal local stand-in for Poutyne (Model.fit / fit_generator + a few callbacks)."""
import csv
import math
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)

__version__ = "1.17"


class Callback:
    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs):
        pass

    def on_epoch_end(self, epoch_number, logs):
        pass

    def on_train_end(self, logs):
        pass


class ModelCheckpoint(Callback):
    def __init__(self, filename, monitor="val_loss", mode="min", save_best_only=False, verbose=False,
                 restore_best=False):
        self.filename = filename
        self.monitor = monitor
        self.mode = mode
        self.save_best_only = save_best_only
        self.verbose = verbose
        self.restore_best = restore_best
        self.current_best = math.inf if mode == "min" else -math.inf
        self.best_state = None

    def on_epoch_end(self, epoch_number, logs):
        v = logs[self.monitor]
        better = v < self.current_best if self.mode == "min" else v > self.current_best
        if self.save_best_only and not better:
            return
        fname = self.filename.format(**dict(logs, epoch=epoch_number))
        if better and self.verbose:
            print("Epoch %d: %s improved from %0.5f to %0.5f, saving file to %s"
                  % (epoch_number, self.monitor, self.current_best, v, fname), flush=True)
        if better:
            self.current_best = v
            self.best_state = {k: t.clone() for k, t in self.model.network.state_dict().items()}
        torch.save(self.model.network.state_dict(), fname)

    def on_train_end(self, logs):
        if self.restore_best and self.best_state is not None:
            if self.verbose:
                print("Restoring data from %s" % self.filename, flush=True)
            self.model.network.load_state_dict(self.best_state)


class EarlyStopping(Callback):
    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=False, mode="min"):
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.mode = mode
        self.min_delta = min_delta
        self.best = math.inf if mode == "min" else -math.inf
        self.wait = 0

    def on_epoch_end(self, epoch_number, logs):
        v = logs[self.monitor]
        better = v < self.best - self.min_delta if self.mode == "min" else v > self.best + self.min_delta
        if better:
            self.best = v
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.model.stop_training = True
                if self.verbose:
                    print("Epoch %d: early stopping" % epoch_number, flush=True)


class CSVLogger(Callback):
    def __init__(self, filename, separator=","):
        self.filename = filename
        self.sep = separator

    def on_train_begin(self, logs):
        self._fh = open(self.filename, "w", newline="")
        self._writer = None

    def on_epoch_end(self, epoch_number, logs):
        row = dict(logs)
        row["lr"] = self.model.optimizer.param_groups[0]["lr"]
        keys = ["epoch", "time", "lr"] + [k for k in logs if k not in ("epoch", "time")]
        if self._writer is None:
            self._writer = csv.DictWriter(self._fh, fieldnames=keys, delimiter=self.sep)
            self._writer.writeheader()
        self._writer.writerow({k: row[k] for k in keys})
        self._fh.flush()

    def on_train_end(self, logs):
        self._fh.close()


def _acc(y_pred, y):
    return (y_pred.argmax(1) == y).float().mean().item() * 100.0


class Model:
    def __init__(self, network, optimizer, loss_function, batch_metrics=None, device=None):
        self.network = network
        if isinstance(optimizer, str):
            optimizer = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[optimizer.lower()](
                network.parameters(), lr=1e-3 if optimizer.lower() == "adam" else 1e-2)
        self.optimizer = optimizer
        self.loss_function = loss_function
        self.batch_metrics = batch_metrics or []
        self.stop_training = False

    def _metric_names(self):
        return ["acc" if m in ("accuracy", "acc") else m for m in self.batch_metrics]

    def _run_epoch(self, loader, train):
        self.network.train(train)
        tot, n = 0.0, 0
        msum = {k: 0.0 for k in self._metric_names()}
        steps = 0
        for xb, yb in loader:
            with torch.set_grad_enabled(train):
                out = self.network(xb)
                loss = self.loss_function(out, yb)
                if train:
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
            bs = len(yb)
            tot += loss.item() * bs
            n += bs
            for k in msum:
                msum[k] += _acc(out.detach(), yb) * bs
            steps += 1
        return steps, tot / n, {k: v / n for k, v in msum.items()}

    def fit(self, x, y, validation_data=None, batch_size=32, epochs=1000, callbacks=None, verbose=True,
            initial_epoch=1):
        ds = TensorDataset(torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(y, dtype=torch.long))
        train_loader = DataLoader(ds, batch_size=batch_size, shuffle=True)
        valid_loader = None
        if validation_data is not None:
            xv, yv = validation_data
            vds = TensorDataset(torch.as_tensor(xv, dtype=torch.float32), torch.as_tensor(yv, dtype=torch.long))
            valid_loader = DataLoader(vds, batch_size=batch_size)
        return self.fit_generator(train_loader, valid_loader, epochs=epochs, callbacks=callbacks,
                                  verbose=verbose, initial_epoch=initial_epoch)

    def fit_generator(self, train_generator, valid_generator=None, epochs=1000, callbacks=None, verbose=True,
                      initial_epoch=1):
        callbacks = callbacks or []
        for cb in callbacks:
            cb.set_model(self)
            cb.on_train_begin({})
        history = []
        self.stop_training = False
        width = len(str(epochs))
        for epoch in range(initial_epoch, epochs + 1):
            t0 = time.time()
            steps, loss, mets = self._run_epoch(train_generator, True)
            logs = {"epoch": epoch, "loss": loss}
            logs.update(mets)
            vsteps = None
            if valid_generator is not None:
                vsteps, vloss, vmets = self._run_epoch(valid_generator, False)
                logs["val_loss"] = vloss
                logs.update({"val_" + k: v for k, v in vmets.items()})
            dt = time.time() - t0
            logs["time"] = dt
            if verbose:
                parts = ["Epoch: %s/%d" % (str(epoch).rjust(width), epochs), "Train steps: %d" % steps]
                if vsteps is not None:
                    parts.append("Val steps: %d" % vsteps)
                parts.append("%.2fs" % dt)
                for k, v in logs.items():
                    if k in ("epoch", "time"):
                        continue
                    parts.append("%s: %f" % (k, v))
                print(" ".join(parts), flush=True)
            for cb in callbacks:
                cb.on_epoch_end(epoch, logs)
            history.append(logs)
            if self.stop_training:
                break
        for cb in callbacks:
            cb.on_train_end({})
        return history

    def evaluate(self, x, y, batch_size=32, verbose=True):
        ds = TensorDataset(torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(y, dtype=torch.long))
        return self.evaluate_generator(DataLoader(ds, batch_size=batch_size), verbose=verbose)

    def evaluate_generator(self, generator, verbose=True):
        t0 = time.time()
        steps, loss, mets = self._run_epoch(generator, False)
        if verbose:
            parts = ["Test steps: %d" % steps, "%.2fs" % (time.time() - t0), "test_loss: %f" % loss]
            parts += ["test_%s: %f" % (k, v) for k, v in mets.items()]
            print(" ".join(parts), flush=True)
        return [loss] + list(mets.values())
