import csv
import os
import sys
import time

import numpy as np
import torch


class AccuracyCallback:
    def __init__(self, input_key="logits", target_key="targets", topk=(1,), num_classes=None):
        self.input_key = input_key
        self.target_key = target_key
        self.topk = topk

    def batch_metrics(self, out, y):
        res = {}
        k_max = max(self.topk)
        top = out.topk(min(k_max, out.shape[1]), dim=1).indices
        for k in self.topk:
            res["accuracy%02d" % k] = (top[:, :k] == y[:, None]).any(1).float().mean().item()
        return res


class CSVLogger:
    def __init__(self, logdir):
        self.logdir = logdir


class ConsoleLogger:
    pass


def _fmt(d):
    return " | ".join("%s: %s" % (k, format(float(d[k]), ".4")) for k in sorted(d))


def _hms(sec):
    return "%02d:%02d" % (int(sec // 60), int(sec % 60))


class SupervisedRunner:
    def __init__(self, input_key="features", output_key="logits", target_key="targets", loss_key="loss"):
        self.input_key = input_key
        self.output_key = output_key
        self.target_key = target_key
        self.loss_key = loss_key

    def train(self, model, criterion, optimizer, loaders, num_epochs=1, scheduler=None, callbacks=None,
              logdir=None, valid_loader="valid", valid_metric="loss", minimize_valid_metric=True,
              verbose=False, load_best_on_end=False, timeit=False, **kwargs):
        callbacks = callbacks or []
        acc_cbs = [c for c in callbacks if isinstance(c, AccuracyCallback)]
        self.model = model
        writers = {}
        if logdir:
            os.makedirs(os.path.join(logdir, "checkpoints"), exist_ok=True)
        best_val, best_epoch, best_state = None, None, None
        ranking = []
        for epoch in range(1, num_epochs + 1):
            for lk, loader in loaders.items():
                is_train = lk.startswith("train")
                model.train(is_train)
                losses, accs, sizes = [], {}, []
                t0 = time.time()
                for xb, yb in loader:
                    with torch.set_grad_enabled(is_train):
                        out = model(xb)
                        loss = criterion(out, yb)
                        if is_train:
                            loss.backward()
                            optimizer.step()
                            optimizer.zero_grad()
                    losses.append(loss.item())
                    sizes.append(len(yb))
                    for cb in acc_cbs:
                        for k, v in cb.batch_metrics(out.detach(), yb).items():
                            accs.setdefault(k, []).append(v)
                dt = time.time() - t0
                w = np.array(sizes, float)
                m = {}
                for k, vals in accs.items():
                    vals = np.array(vals)
                    m[k] = float((vals * w).sum() / w.sum())
                    m[k + "/std"] = float(vals.std())
                la = np.array(losses)
                m["loss"] = float((la * w).sum() / w.sum())
                m["loss/mean"] = m["loss"]
                m["loss/std"] = float(la.std())
                pg = optimizer.param_groups[0]
                if is_train:
                    m["lr"] = pg["lr"]
                    m["momentum"] = pg.get("momentum", pg.get("betas", (0.9,))[0])
                if verbose:
                    n = len(loader)
                    post = ", ".join("%s=%.3f" % (k, v) for k, v in
                                     [(k, accs[k][-1]) for k in sorted(accs)] + [("loss", losses[-1])]
                                     + ([("lr", m["lr"]), ("momentum", m["momentum"])] if is_train else []))
                    sys.stdout.write("%d/%d * Epoch (%s): 100%%|%s| %d/%d [%s<00:00, %.2fit/s, %s]\n"
                                     % (epoch, num_epochs, lk, "\u2588" * 10, n, n, _hms(dt), n / max(dt, 1e-6), post))
                print("%s (%d/%d) %s" % (lk, epoch, num_epochs, _fmt(m)), flush=True)
                if logdir:
                    if lk not in writers:
                        fh = open(os.path.join(logdir, "%s.csv" % lk), "w", newline="")
                        keys = ["step"] + sorted(m)
                        wr = csv.DictWriter(fh, fieldnames=keys)
                        wr.writeheader()
                        writers[lk] = (fh, wr)
                    fh, wr = writers[lk]
                    row = {"step": epoch}
                    row.update(m)
                    wr.writerow(row)
                    fh.flush()
                if lk == valid_loader:
                    v = m[valid_metric]
                    better = best_val is None or (v < best_val if minimize_valid_metric else v > best_val)
                    ranking.append((v, epoch))
                    if better:
                        best_val, best_epoch = v, epoch
                        best_state = {k: t.clone() for k, t in model.state_dict().items()}
                        if logdir:
                            torch.save(model.state_dict(), os.path.join(logdir, "checkpoints", "best.pth"))
            if scheduler is not None:
                scheduler.step()
            print("* Epoch (%d/%d) " % (epoch, num_epochs), flush=True)
        for fh, _ in writers.values():
            fh.close()
        if logdir and ranking:
            ranking.sort(key=lambda t: t[0], reverse=not minimize_valid_metric)
            print("Top best models:")
            for v, e in ranking[:3]:
                print("%s\t%.4f" % (os.path.join(logdir, "checkpoints", "train.%d.pth" % e), v))
        if load_best_on_end and best_state is not None:
            path = os.path.join(logdir or ".", "checkpoints", "best_full.pth")
            print("=> Loading checkpoint %s" % path)
            model.load_state_dict(best_state)
            print("loaded state checkpoint %s (global epoch %d, epoch %d, stage train)" % (path, best_epoch, best_epoch))
        return self

    def predict_loader(self, loader):
        self.model.eval()
        with torch.no_grad():
            for xb, *_ in loader:
                yield {self.output_key: self.model(xb)}
