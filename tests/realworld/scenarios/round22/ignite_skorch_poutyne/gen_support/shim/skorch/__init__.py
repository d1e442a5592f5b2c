"""Minimal local stand-in for skorch (NeuralNetClassifier + history + a few callbacks)."""
import json
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)

__version__ = "0.15.0"


class History(list):
    def record(self, key, value):
        self[-1][key] = value

    def __getitem__(self, idx):
        if isinstance(idx, tuple):
            rows, key = idx
            sub = list.__getitem__(self, rows) if not isinstance(rows, int) else [list.__getitem__(self, rows)]
            vals = [r[key] for r in sub]
            return vals if not isinstance(rows, int) else vals[0]
        return list.__getitem__(self, idx)

    def to_file(self, f):
        with open(f, "w") as fh:
            json.dump(list(self), fh)


def _tabulate_row(row, header):
    cols = []
    for k, v in row:
        if isinstance(v, str):
            s = v
        elif isinstance(v, (int, np.integer)):
            s = str(v)
        else:
            s = "%.4f" % v
        w = max(len(k) + 2, len(s))
        cols.append((k.rjust(w), "-" * w, s.rjust(w)))
    lines = []
    if header:
        lines.append("  ".join(c[0] for c in cols))
        lines.append("  ".join(c[1] for c in cols))
    lines.append("  ".join(c[2] for c in cols))
    return "\n".join(lines)


class NeuralNetClassifier:
    def __init__(self, module, criterion=nn.NLLLoss, optimizer=torch.optim.SGD, lr=0.01, max_epochs=10,
                 batch_size=128, train_split="default", callbacks=None, device="cpu", verbose=1, **kwargs):
        self.module = module
        self.criterion = criterion
        self.optimizer = optimizer
        self.lr = lr
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.train_split = ValidSplit(5) if train_split == "default" else train_split
        self.callbacks = callbacks or []
        self.verbose = verbose
        self.kwargs = kwargs
        self.history = History()

    def _params_for(self, prefix):
        p = prefix + "__"
        return {k[len(p):]: v for k, v in self.kwargs.items() if k.startswith(p)}

    def initialize(self):
        mod_kw = self._params_for("module")
        self.module_ = self.module(**mod_kw) if isinstance(self.module, type) else self.module
        crit = self.criterion
        self.criterion_ = crit(**self._params_for("criterion")) if isinstance(crit, type) else crit
        opt_kw = self._params_for("optimizer")
        self.optimizer_ = self.optimizer(self.module_.parameters(), lr=self.lr, **opt_kw)
        return self

    def get_loss(self, y_pred, y_true):
        if isinstance(self.criterion_, nn.NLLLoss):
            y_pred = torch.log(y_pred + 1e-12)
        return self.criterion_(y_pred, y_true)

    def _loader(self, ds, training):
        kw = self._params_for("iterator_train" if training else "iterator_valid")
        shuffle = kw.pop("shuffle", False)
        return DataLoader(ds, batch_size=self.batch_size, shuffle=shuffle, **kw)

    def fit(self, X, y):
        self.initialize()
        X = torch.as_tensor(np.asarray(X), dtype=torch.float32)
        y = torch.as_tensor(np.asarray(y), dtype=torch.long)
        ds = TensorDataset(X, y)
        if self.train_split is not None:
            ds_train, ds_valid = self.train_split(ds, y)
        else:
            ds_train, ds_valid = ds, None
        best = {}
        for epoch in range(1, self.max_epochs + 1):
            t0 = time.time()
            row = {"batches": [], "epoch": epoch}
            self.module_.train()
            tl, tn, nb = 0.0, 0, 0
            for xb, yb in self._loader(ds_train, True):
                self.optimizer_.zero_grad()
                out = self.module_(xb)
                loss = self.get_loss(out, yb)
                loss.backward()
                self.optimizer_.step()
                row["batches"].append({"train_loss": loss.item(), "train_batch_size": len(yb)})
                tl += loss.item() * len(yb)
                tn += len(yb)
                nb += 1
            row["train_batch_count"] = nb
            vl, vn, vb, correct = 0.0, 0, 0, 0
            if ds_valid is not None:
                self.module_.eval()
                with torch.no_grad():
                    for xb, yb in self._loader(ds_valid, False):
                        out = self.module_(xb)
                        loss = self.get_loss(out, yb)
                        row["batches"].append({"valid_loss": loss.item(), "valid_batch_size": len(yb)})
                        vl += loss.item() * len(yb)
                        vn += len(yb)
                        vb += 1
                        correct += (out.argmax(1) == yb).sum().item()
                row["valid_batch_count"] = vb
            row["dur"] = None
            row["train_loss"] = tl / tn
            row["train_loss_best"] = self._best(best, "train_loss", row["train_loss"], lower=True)
            if ds_valid is not None:
                row["valid_loss"] = vl / vn
                row["valid_loss_best"] = self._best(best, "valid_loss", row["valid_loss"], lower=True)
                row["valid_acc"] = correct / vn
                row["valid_acc_best"] = self._best(best, "valid_acc", row["valid_acc"], lower=False)
            self.history.append(row)
            for cb in self.callbacks:
                cb.on_epoch_end(self)
            row["dur"] = time.time() - t0
            # keep skorch's key order (dur right after the batch counts)
            ordered = {k: row[k] for k in ("batches", "epoch", "train_batch_count", "valid_batch_count", "dur") if k in row}
            ordered.update({k: v for k, v in row.items() if k not in ordered})
            self.history[-1] = ordered
            if self.verbose:
                self._print_row(ordered, header=(epoch == 1))
        return self

    @staticmethod
    def _best(best, key, val, lower):
        prev = best.get(key)
        is_best = prev is None or (val < prev if lower else val > prev)
        if is_best:
            best[key] = val
        return bool(is_best)

    def _print_row(self, row, header):
        keys = [k for k in row if k not in ("batches", "epoch", "dur") and not k.endswith("_best")
                and not k.endswith("_count")]
        plain = sorted(k for k in keys if not k.startswith("event_"))
        events = sorted(k for k in keys if k.startswith("event_"))
        items = [("epoch", row["epoch"])]
        items += [(k, row[k]) for k in plain]
        items += [(k[len("event_"):], "+" if row[k] else "") for k in events]
        items += [("dur", row["dur"])]
        print(_tabulate_row(items, header), flush=True)

    def predict_proba(self, X):
        self.module_.eval()
        with torch.no_grad():
            return self.module_(torch.as_tensor(np.asarray(X), dtype=torch.float32)).numpy()

    def predict(self, X):
        return self.predict_proba(X).argmax(1)

    def score(self, X, y):
        return float((self.predict(X) == np.asarray(y)).mean())


class ValidSplit:
    def __init__(self, cv=5, stratified=True, random_state=None):
        self.cv = cv
        self.random_state = random_state

    def __call__(self, ds, y):
        y = np.asarray(y)
        rng = np.random.RandomState(self.random_state)
        valid_idx = []
        for c in np.unique(y):
            idx = np.where(y == c)[0]
            if self.random_state is not None:
                idx = rng.permutation(idx)
            n_val = int(round(len(idx) / self.cv))
            valid_idx.extend(idx[:n_val])
        valid_idx = np.sort(np.array(valid_idx))
        mask = np.ones(len(y), bool)
        mask[valid_idx] = False
        train_idx = np.where(mask)[0]
        return torch.utils.data.Subset(ds, train_idx), torch.utils.data.Subset(ds, valid_idx)


def predefined_split(dataset):
    def split(ds, y):
        return ds, dataset
    return split
