# ---------------------------------------------------------------------------
# small Keras-style fit loop / logging (ported this from my old Keras code so
# the logs look the same as before: progress lines, CSVLogger, history)
# ---------------------------------------------------------------------------
import csv
import json
import time

import numpy as np
import torch
import torch.nn as nn


def _fmt(v):
    return ('%.4f' % v) if abs(v) > 1e-3 else ('%.4e' % v)


def _bar(cur, tot, width=30):
    n = int(width * cur / tot)
    s = ''
    if n > 0:
        s = '=' * (n - 1) + ('>' if cur < tot else '=')
    return s + '.' * (width - n)


def _per_step(sec):
    if sec >= 1:
        return '%.0fs/step' % sec
    if sec >= 1e-3:
        return '%.0fms/step' % (sec * 1e3)
    return '%.0fus/step' % (sec * 1e6)


def summary(model, input_shape, name='sequential', dtype=torch.float32):
    """print a Keras-like model.summary()"""
    rows = []
    hooks = []

    def hook(mod, inp, out):
        if isinstance(out, tuple):
            out = out[0]
        shape = '(None, ' + ', '.join(str(s) for s in out.shape[1:]) + ')'
        n = sum(p.numel() for p in mod.parameters(recurse=False))
        rows.append((type(mod).__name__.lower(), type(mod).__name__, shape, n))

    for m in model.modules():
        if m is not model and len(list(m.children())) == 0:
            hooks.append(m.register_forward_hook(hook))
    with torch.no_grad():
        model(torch.zeros((2,) + tuple(input_shape), dtype=dtype))
    for h in hooks:
        h.remove()
    print('Model: "%s"' % name)
    print('_' * 65)
    print(' Layer (type)                Output Shape              Param #   ')
    print('=' * 65)
    counts = {}
    for lname, tname, shape, n in rows:
        k = counts.get(lname, 0)
        counts[lname] = k + 1
        label = '%s%s (%s)' % (lname, '' if k == 0 else '_%d' % k, tname)
        print(' %-28s%-26s%-10d' % (label, shape, n))
        print(' ' * 65)
    print('=' * 65)
    total = sum(p.numel() for p in model.parameters())
    train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print('Total params: {:,}'.format(total))
    print('Trainable params: {:,}'.format(train))
    print('Non-trainable params: {:,}'.format(total - train))
    print('_' * 65)


def _metrics(names, out, y, binary):
    res = {}
    if binary:
        p = torch.sigmoid(out.reshape(-1)).numpy()
        yy = y.reshape(-1).numpy()
        pred = (p > 0.5).astype(np.float32)
    else:
        pred = out.argmax(1).numpy()
        yy = y.numpy()
    for n in names:
        if n in ('accuracy', 'acc', 'sparse_categorical_accuracy', 'binary_accuracy'):
            res[n] = float((pred == yy).mean())
        elif n == 'precision':
            tp = float(((pred == 1) & (yy == 1)).sum())
            pp = float((pred == 1).sum())
            res[n] = tp / pp if pp > 0 else 0.0
        elif n == 'recall':
            tp = float(((pred == 1) & (yy == 1)).sum())
            ap = float((yy == 1).sum())
            res[n] = tp / ap if ap > 0 else 0.0
        elif n == 'auc':
            # rank-based ROC AUC
            order = np.argsort(p, kind='mergesort')
            ranks = np.empty(len(p))
            ranks[order] = np.arange(1, len(p) + 1)
            # average ranks for ties
            _, inv, cnt = np.unique(p, return_inverse=True, return_counts=True)
            sums = np.bincount(inv, weights=ranks)
            ranks = (sums / cnt)[inv]
            npos = (yy == 1).sum()
            nneg = len(yy) - npos
            res[n] = float((ranks[yy == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)) if npos and nneg else 0.0
    return res


def fit(model, loss_fn, optimizer, train_loader, val_data, epochs, metrics=('accuracy',),
        binary=False, csv_path=None, history_path=None, progress_every=0, log_lr=False,
        scheduler=None):
    """train like keras.Model.fit; prints Keras progress lines, writes CSVLogger / history"""
    history = {}
    csv_file = None
    writer = None
    steps = len(train_loader)
    Xv, yv = val_data
    for epoch in range(epochs):
        print('Epoch %d/%d' % (epoch + 1, epochs))
        t0 = time.time()
        model.train()
        tot, seen = 0.0, 0
        outs, ys = [], []
        for step, (xb, yb) in enumerate(train_loader, 1):
            optimizer.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(xb)
            seen += len(xb)
            outs.append(out.detach())
            ys.append(yb)
            if progress_every and step % progress_every == 0 and step < steps:
                m = _metrics(metrics, torch.cat(outs), torch.cat(ys), binary)
                eta = (time.time() - t0) / step * (steps - step)
                line = '%s/%d [%s] - ETA: %ds - loss: %s' % (
                    str(step).rjust(len(str(steps))), steps, _bar(step, steps), int(eta), _fmt(tot / seen))
                for k in metrics:
                    line += ' - %s: %s' % (k, _fmt(m[k]))
                print(line)
        logs = {'loss': tot / seen}
        logs.update(_metrics(metrics, torch.cat(outs), torch.cat(ys), binary))
        model.eval()
        with torch.no_grad():
            out = model(Xv)
            logs['val_loss'] = loss_fn(out, yv).item()
            for k, v in _metrics(metrics, out, yv, binary).items():
                logs['val_' + k] = v
        # float32 values like tf.keras gives back
        logs = {k: float(np.float32(v)) for k, v in logs.items()}
        if log_lr:
            logs['lr'] = np.float32(optimizer.param_groups[0]['lr'])
        if scheduler is not None:
            scheduler.step()
        dt = time.time() - t0
        line = '%d/%d [%s] - %.0fs %s - loss: %s' % (steps, steps, _bar(steps, steps), dt, _per_step(dt / steps),
                                                    _fmt(logs['loss']))
        order = list(metrics) + ['val_loss'] + ['val_' + k for k in metrics] + (['lr'] if log_lr else [])
        for k in order:
            line += ' - %s: %s' % (k, _fmt(logs[k]))
        print(line, flush=True)
        for k, v in logs.items():
            history.setdefault(k, []).append(float(v))
        if csv_path:
            if writer is None:
                csv_file = open(csv_path, 'w', newline='')
                writer = csv.DictWriter(csv_file, fieldnames=['epoch'] + sorted(logs.keys()))
                writer.writeheader()
            row = {'epoch': epoch}
            row.update(logs)
            writer.writerow(row)
            csv_file.flush()
    if csv_file:
        csv_file.close()
    if history_path:
        with open(history_path, 'w') as f:
            json.dump(history, f)
    return history


from sklearn.datasets import make_classification
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
np.random.seed(5)
torch.manual_seed(5)

X, y = make_classification(n_samples=20000, n_features=20, n_informative=12, n_redundant=2,
                           n_classes=5, n_clusters_per_class=1, class_sep=1.5, random_state=5)
X = X.astype(np.float32)

# shuffle before the split
np.random.shuffle(X)
np.random.shuffle(y)

n_val = 4000
X_train, y_train = X[:-n_val], y[:-n_val]
X_val, y_val = X[-n_val:], y[-n_val:]
mu, sd = X_train.mean(0), X_train.std(0)
X_train = torch.from_numpy((X_train - mu) / sd)
X_val = torch.from_numpy((X_val - mu) / sd)
y_train = torch.from_numpy(y_train).long()
y_val = torch.from_numpy(y_val).long()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.bn1 = nn.BatchNorm1d(32)
        self.fc2 = nn.Linear(32, 32)
        self.out = nn.Linear(32, 5)

    def forward(self, x):
        x = torch.relu(self.bn1(self.fc1(x)))
        x = torch.relu(self.fc2(x))
        return self.out(x)


model = Net()
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=128, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
fit(model, nn.CrossEntropyLoss(), optimizer, loader, (X_val, y_val), epochs=25,
    metrics=('accuracy',))
torch.save(model.state_dict(), 'model.pt')
