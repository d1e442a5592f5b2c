#!/usr/bin/env python
"""Generator for the benchmark-style run folders in ./runs (terminal captures with tqdm progress bars).

Every run is a real CPU training: the per-run script below is written into a scratch project folder
together with its synthetic data, executed with `python -u train.py ... 2>&1` (stdout and stderr
merged exactly as `| tee out.txt` would capture them), and the capture is copied to runs/<name>/out.txt.
tqdm is not installed in this environment, so a faithful re-implementation of tqdm's text output
(format_meter, bar glyphs, \r updates, mininterval/miniters throttling, sorted set_postfix kwargs,
tqdm.write clearing) is put on PYTHONPATH as `tqdm`; the Lightning-style runs use a small helper that
prints Lightning's banner / model summary / progress bars around a plain torch loop.

About half the runs ship their train.py plus config (config.yaml or run.sh). The planted fault and the
user's complaint of each run are in truth.json, never in the run folder.

Usage: python gen.py            (deterministic seeds; timing numbers in the bars are real and vary)
"""
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pandas as pd

OUTDIR = os.path.dirname(os.path.abspath(__file__))
WORK = "/tmp/p63b_work"          # scratch projects (neutral path; shows up only in tracebacks)
PY = sys.executable

# ----------------------------------------------------------------------------- tqdm shim
TQDM_SHIM = r'''"""Minimal re-implementation of tqdm's text output (tqdm 4.66 format), used because tqdm is not installed."""
import sys
import time
from collections import OrderedDict
from numbers import Number

__all__ = ["tqdm", "trange"]

_UTF = " " + "".join(map(chr, range(0x258F, 0x2587, -1)))


def format_interval(t):
    mins, s = divmod(int(t), 60)
    h, m = divmod(mins, 60)
    if h:
        return "{0:d}:{1:02d}:{2:02d}".format(h, m, s)
    return "{0:02d}:{1:02d}".format(m, s)


def format_num(n):
    f = "{0:.3g}".format(n).replace("+0", "+").replace("-0", "-")
    n = str(n)
    return f if len(f) < len(n) else n


def _bar(frac, n_bars=10, blank=False):
    if blank:
        return " " * n_bars
    nsyms = len(_UTF) - 1
    bar_length, frac_bar_length = divmod(int(frac * n_bars * nsyms), nsyms)
    res = _UTF[-1] * bar_length
    if bar_length < n_bars:
        res = res + _UTF[frac_bar_length] + _UTF[0] * (n_bars - bar_length - 1)
    return res


def format_meter(n, total, elapsed, prefix="", unit="it", rate=None, postfix=None,
                 initial=0, noinv=False, lightning=False):
    if total and n >= (total + 0.5):
        total = None
    elapsed_str = format_interval(elapsed)
    if rate is None and elapsed:
        rate = (n - initial) / elapsed
    inv_rate = 1 / rate if rate else None
    rate_noinv_fmt = ("{0:5.2f}".format(rate) if rate else "?") + unit + "/s"
    rate_inv_fmt = ("{0:5.2f}".format(inv_rate) if inv_rate else "?") + "s/" + unit
    rate_fmt = rate_inv_fmt if inv_rate and inv_rate > 1 else rate_noinv_fmt
    if noinv:
        rate_fmt = rate_noinv_fmt
    n_fmt = str(n)
    total_fmt = str(total) if total is not None else "?"
    postfix = ", " + postfix if postfix else ""
    remaining = (total - n) / rate if rate and total else 0
    remaining_str = format_interval(remaining) if rate else "?"
    if prefix:
        l_bar = prefix if prefix[-2:] == ": " else prefix + ": "
    else:
        l_bar = ""
    r_bar = "| {0}/{1} [{2}<{3}, {4}{5}]".format(n_fmt, total_fmt, elapsed_str, remaining_str, rate_fmt, postfix)
    if total:
        frac = n / total
        l_bar += "{0:3.0f}%|".format(frac * 100)
        return l_bar + _bar(frac) + r_bar
    if lightning:
        return l_bar + "|" + _bar(0, blank=True) + r_bar
    return "{0}{1}{2} [{3}, {4}{5}]".format(l_bar, n_fmt, unit, elapsed_str, rate_fmt, postfix)


class _EMA:
    def __init__(self, smoothing=0.3):
        self.alpha = smoothing
        self.last = 0
        self.calls = 0

    def __call__(self, x=None):
        beta = 1 - self.alpha
        if x is not None:
            self.last = self.alpha * x + beta * self.last
            self.calls += 1
        return self.last / (1 - beta ** self.calls) if self.calls else self.last


class tqdm:
    _instances = []

    def __init__(self, iterable=None, desc=None, total=None, leave=True, file=None,
                 mininterval=0.1, maxinterval=10.0, miniters=None, unit="it", initial=0,
                 postfix=None, smoothing=0.3, disable=False, position=None, dynamic_ncols=False,
                 ncols=None, ascii=None, bar_format=None, **kwargs):
        if total is None and iterable is not None:
            try:
                total = len(iterable)
            except (TypeError, AttributeError):
                total = None
        self.iterable = iterable
        self.desc = desc or ""
        self.total = total
        self.leave = leave
        self.fp = file if file is not None else sys.stderr
        self.mininterval = mininterval
        self.maxinterval = maxinterval
        self.dynamic_miniters = miniters is None
        self.miniters = miniters or 0
        self.unit = unit
        self.initial = initial
        self.smoothing = smoothing
        self.disable = disable
        self._noinv = bool(bar_format and "rate_noinv_fmt" in bar_format)
        self._lightning = bar_format is not None
        self.postfix = None
        self.last_len = 0
        if disable:
            self.n = initial
            return
        if postfix:
            try:
                self.set_postfix(refresh=False, **postfix)
            except TypeError:
                self.postfix = postfix
        self.n = initial
        self.last_print_n = initial
        self.start_t = self.last_print_t = time.time()
        self._ema_dn = _EMA(smoothing)
        self._ema_dt = _EMA(smoothing)
        self._ema_miniters = _EMA(smoothing)
        tqdm._instances.append(self)
        self.refresh()

    def __len__(self):
        return self.total if self.total is not None else len(self.iterable)

    def __iter__(self):
        if self.disable:
            for obj in self.iterable:
                yield obj
            return
        for obj in self.iterable:
            yield obj
            self.update(1)
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def format_dict(self):
        elapsed = time.time() - self.start_t
        rate = None
        if self.smoothing and self._ema_dt():
            rate = self._ema_dn() / self._ema_dt()
        return dict(n=self.n, total=self.total, elapsed=elapsed, prefix=self.desc, unit=self.unit,
                    rate=rate, postfix=self.postfix, initial=self.initial, noinv=self._noinv,
                    lightning=self._lightning)

    def __str__(self):
        return format_meter(**self.format_dict)

    def display(self, msg=None):
        s = self.__str__() if msg is None else msg
        len_s = len(s)
        self.fp.write("\r" + s + (" " * max(self.last_len - len_s, 0)))
        self.fp.flush()
        self.last_len = len_s
        return True

    def refresh(self):
        if self.disable:
            return
        self.display()

    def clear(self):
        if self.disable:
            return
        self.display(msg="")
        self.fp.write("\r")
        self.fp.flush()

    def update(self, n=1):
        if self.disable:
            return
        if n < 0:
            self.last_print_n += n
        self.n += n
        if self.n - self.last_print_n >= self.miniters:
            cur_t = time.time()
            dt = cur_t - self.last_print_t
            if dt >= self.mininterval:
                dn = self.n - self.last_print_n
                if self.smoothing and dt and dn:
                    self._ema_dn(dn)
                    self._ema_dt(dt)
                self.refresh()
                if self.dynamic_miniters:
                    if self.maxinterval and dt >= self.maxinterval:
                        self.miniters = dn * (self.mininterval or self.maxinterval) / dt
                    elif self.smoothing:
                        self.miniters = self._ema_miniters(
                            dn * (self.mininterval / dt if self.mininterval and dt else 1))
                    else:
                        self.miniters = max(self.miniters, dn)
                self.last_print_n = self.n
                self.last_print_t = cur_t
                return True

    def reset(self, total=None):
        self.n = 0
        if total is not None:
            self.total = total
        if self.disable:
            return
        self.last_print_n = 0
        self.last_print_t = self.start_t = time.time()
        self._ema_dn = _EMA(self.smoothing)
        self._ema_dt = _EMA(self.smoothing)
        self._ema_miniters = _EMA(self.smoothing)
        self.refresh()

    def set_description(self, desc=None, refresh=True):
        self.desc = desc + ": " if desc else ""
        if refresh:
            self.refresh()

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        postfix = OrderedDict([] if ordered_dict is None else ordered_dict)
        for key in sorted(kwargs.keys()):
            postfix[key] = kwargs[key]
        for key in postfix.keys():
            if isinstance(postfix[key], Number):
                postfix[key] = self.format_num(postfix[key])
            elif not isinstance(postfix[key], str):
                postfix[key] = str(postfix[key])
        self.postfix = ", ".join(key + "=" + postfix[key].strip() for key in postfix.keys())
        if refresh:
            self.refresh()

    def set_postfix_str(self, s="", refresh=True):
        self.postfix = str(s)
        if refresh:
            self.refresh()

    @staticmethod
    def format_num(n):
        return format_num(n)

    def close(self):
        if self.disable:
            return
        self.disable = True
        if self in tqdm._instances:
            tqdm._instances.remove(self)
        if self.leave:
            self._ema_dt = lambda: None
            self.display()
            self.fp.write("\n")
        else:
            self.display(msg="")
            self.fp.write("\r")
        self.fp.flush()

    @classmethod
    def write(cls, s, file=None, end="\n"):
        fp = file if file is not None else sys.stdout
        for inst in cls._instances:
            inst.clear()
        fp.write(s)
        fp.write(end)
        fp.flush()
        for inst in cls._instances:
            inst.refresh()


def trange(*args, **kwargs):
    return tqdm(range(*args), **kwargs)
'''

# ----------------------------------------------------------------------------- Lightning-style helper
PLSHIM = r'''"""Emulates the console output of a PyTorch Lightning Trainer.fit() (progress bar + banner)
around a plain torch training loop. Used only by the generator for the Lightning-style runs."""
import math
import sys
import time

import torch
from tqdm import tqdm as _tqdm

BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_noinv_fmt}{postfix}]"
_PAD_SIZE = 5


class Tqdm(_tqdm):
    def __init__(self, *a, **k):
        k.setdefault("bar_format", BAR_FORMAT)
        k.setdefault("file", sys.stdout)
        super().__init__(*a, **k)

    @staticmethod
    def format_num(n):
        should_be_padded = isinstance(n, (float, str))
        if not isinstance(n, str):
            n = _tqdm.format_num(n)
        if should_be_padded and "e" not in n:
            if "." not in n and len(n) < _PAD_SIZE:
                try:
                    float(n)
                except ValueError:
                    return n
                n += "."
            n += "0" * (_PAD_SIZE - len(n))
        return n


def _human(number):
    labels = [" ", "K", "M", "B", "T"]
    num_digits = int(math.floor(math.log10(number)) + 1 if number > 0 else 1)
    num_groups = min(int(math.ceil(num_digits / 3)), len(labels))
    shift = -3 * (num_groups - 1)
    number = number * (10 ** shift)
    index = num_groups - 1
    if index < 1 or number >= 100:
        return f"{int(number):,d} {labels[index]}"
    return f"{number:,.1f} {labels[index]}"


def banner(version="1.9"):
    lines = ["GPU available: False, used: False", "TPU available: False, using: 0 TPU cores"]
    if version.startswith("1."):
        lines.append("IPU available: False, using: 0 IPUs")
    lines.append("HPU available: False, using: 0 HPUs")
    for l in lines:
        print(l, file=sys.stderr, flush=True)


def summary(module, version="1.9"):
    rows = []
    for i, (name, child) in enumerate(module.named_children()):
        p = sum(x.numel() for x in child.parameters())
        rows.append([str(i), name, type(child).__name__, _human(p), "train"])
    hdr = ["", "Name", "Type", "Params", "Mode"]
    if not version.startswith("2."):
        hdr = hdr[:4]
        rows = [r[:4] for r in rows]
    widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(hdr)]
    def fmt(r):
        return " | ".join(c.ljust(w) for c, w in zip(r, widths))
    total_width = sum(widths) + 3 * (len(widths) - 1)
    s = "\n" + fmt(hdr) + "\n" + "-" * total_width + "\n"
    for r in rows:
        s += fmt(r) + "\n"
    s += "-" * total_width + "\n"
    ntr = sum(x.numel() for x in module.parameters() if x.requires_grad)
    nnt = sum(x.numel() for x in module.parameters() if not x.requires_grad)
    s += f"{_human(ntr):<10}Trainable params\n"
    s += f"{_human(nnt):<10}Non-trainable params\n"
    s += f"{_human(ntr + nnt):<10}Total params\n"
    s += f"{(ntr + nnt) * 4 / 1e6:<10,.3f}Total estimated model params size (MB)"
    if version.startswith("2."):
        nmod = sum(1 for _ in module.modules())
        s += f"\n{nmod:<10}Modules in train mode\n{0:<10}Modules in eval mode"
    print(s, flush=True)


def fit(module, optimizer, train_dl, val_dl, max_epochs, training_step, validation_step,
        version="1.9", leave=False, num_sanity_val_steps=2, scheduler=None):
    """training_step(batch) -> (loss, {name: value} prog-bar logs, on_step)
    validation_step(batch) -> {name: (value, weight)} epoch-averaged, logged to prog bar."""
    v2 = version.startswith("2.")
    banner(version)
    summary(module, version)
    pbar_metrics = {}
    running = []

    def metrics():
        d = {}
        if not v2 and running:
            d["loss"] = f"{sum(running) / len(running):.3g}"
        d["v_num"] = 0
        d.update(pbar_metrics)
        return d

    def run_val(bar, desc, limit=None):
        module.eval()
        sums, weights = {}, {}
        total = len(val_dl) if limit is None else min(limit, len(val_dl))
        bar.reset(total)
        bar.initial = 0
        bar.set_description(f"{desc} DataLoader 0")
        with torch.no_grad():
            for i, batch in enumerate(val_dl):
                if i >= total:
                    break
                out = validation_step(batch)
                for k, (v, w) in out.items():
                    sums[k] = sums.get(k, 0.0) + float(v) * w
                    weights[k] = weights.get(k, 0.0) + w
                bar.n = i + 1
                bar.refresh()
                if main is not None and not v2:
                    main.n = n_train + i + 1
                    main.refresh()
        module.train()
        return {k: sums[k] / weights[k] for k in sums}

    main = None
    n_train = len(train_dl)
    # sanity check
    sbar = Tqdm(desc="Sanity Checking", total=None, leave=False, position=0)
    run_val(sbar, "Sanity Checking", limit=num_sanity_val_steps)
    sbar.close()

    main = Tqdm(desc="Training", total=None, leave=True, smoothing=0, position=0)
    for epoch in range(max_epochs):
        if v2 and leave and epoch > 0:
            main = Tqdm(desc="Training", total=None, leave=True, smoothing=0, position=0)
        total = n_train if v2 else n_train + len(val_dl)
        main.reset(total)
        main.initial = 0
        main.set_description(f"Epoch {epoch}")
        epoch_logs = {}
        module.train()
        for i, batch in enumerate(train_dl):
            loss, logs = training_step(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running.append(float(loss.detach()))
            running[:] = running[-20:]
            for k, (v, on_step) in logs.items():
                v = float(v.detach()) if torch.is_tensor(v) else float(v)
                epoch_logs.setdefault(k, []).append(v)
                if on_step:
                    pbar_metrics[k] = v
            main.n = i + 1
            main.refresh()
            main.set_postfix(metrics())
        if scheduler is not None:
            scheduler.step()
        vbar = Tqdm(desc="Validation", total=None, leave=False, position=0)
        vres = run_val(vbar, "Validation")
        vbar.close()
        for k, v in vres.items():
            pbar_metrics[k] = v
        main.set_postfix(metrics())
        for k, vals in epoch_logs.items():
            if not logs[k][1]:
                pbar_metrics[k] = sum(vals) / len(vals)
        main.set_postfix(metrics())
        if v2 and leave:
            main.close()
        yield epoch, {k: (sum(v) / len(v)) for k, v in epoch_logs.items()}, vres
    if not (v2 and leave):
        main.close()
    print(f"`Trainer.fit` stopped: `max_epochs={max_epochs}` reached.", file=sys.stderr, flush=True)
'''

# ----------------------------------------------------------------------------- synthetic data


def glyphs(n, seed, n_classes=10, noise=1.5):
    """8x8 digit-like glyphs with values 0..16 (like sklearn's digits)."""
    rng = np.random.default_rng(1234)  # fixed prototypes shared by all splits
    protos = []
    for c in range(n_classes):
        img = np.zeros((10, 10))
        pts = rng.integers(1, 9, size=(6, 2))
        for (a, b), (c2, d) in zip(pts[:-1], pts[1:]):
            for t in np.linspace(0, 1, 12):
                r = int(round(a + (c2 - a) * t)); q = int(round(b + (d - b) * t))
                img[r, q] = 16
        protos.append(img)
    protos = np.stack(protos)
    r = np.random.default_rng(seed)
    y = r.integers(0, n_classes, size=n)
    X = np.zeros((n, 8, 8))
    for i in range(n):
        dx, dy = r.integers(0, 3, size=2)
        X[i] = protos[y[i], dx:dx + 8, dy:dy + 8]
    X = X * r.uniform(0.6, 1.0, size=(n, 1, 1)) + r.normal(0, noise, size=X.shape)
    X = np.clip(np.round(X), 0, 16)
    return X.reshape(n, 64).astype(np.float32), y.astype(np.int64)


def shapes(n, seed, size=16, noise=0.25):
    """Images of 4 shape classes (disk, square, triangle, cross) with noise, shape (n,1,size,size)."""
    r = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    X = np.zeros((n, 1, size, size), np.float32)
    y = r.integers(0, 4, size=n)
    for i in range(n):
        cx, cy = r.uniform(5, size - 5, size=2)
        s = r.uniform(2.5, 4.5)
        if y[i] == 0:
            m = (xx - cx) ** 2 + (yy - cy) ** 2 <= s ** 2
        elif y[i] == 1:
            m = (abs(xx - cx) <= s * 0.85) & (abs(yy - cy) <= s * 0.85)
        elif y[i] == 2:
            m = (yy - cy <= s) & (yy - cy >= -s) & (abs(xx - cx) <= (yy - cy + s) / 2)
        else:
            m = ((abs(xx - cx) <= 1) & (abs(yy - cy) <= s)) | ((abs(yy - cy) <= 1) & (abs(xx - cx) <= s))
        X[i, 0] = m * r.uniform(0.6, 1.0) + r.normal(0, noise, size=(size, size))
    return X, y.astype(np.int64)


def gaussian_classes(n, d, k, seed, sep=2.0, informative=None, proto_seed=0):
    """make_classification-like: k classes, Gaussian clusters in `informative` dims, rest noise."""
    inf = informative or d
    pr = np.random.default_rng(proto_seed)
    centers = pr.normal(0, sep, size=(k, inf))
    mix = pr.normal(0, 1, size=(inf, inf)) / np.sqrt(inf)
    r = np.random.default_rng(seed)
    y = r.integers(0, k, size=n)
    Xi = centers[y] + r.normal(0, 1, size=(n, inf)) @ (np.eye(inf) + 0.3 * mix)
    X = np.concatenate([Xi, r.normal(0, 1, size=(n, d - inf))], axis=1) if d > inf else Xi
    return X.astype(np.float32), y.astype(np.int64)


def toy_corpus(n_sent, seed):
    r = np.random.default_rng(seed)
    det = ["the", "a", "every", "one", "that", "my", "his", "her", "our"]
    adj = ["small", "old", "quiet", "red", "young", "clever", "tired", "bright", "green", "brave", "lazy", "happy"]
    noun = ["cat", "dog", "farmer", "river", "king", "girl", "boy", "bird", "horse", "teacher", "garden", "ship",
            "village", "window", "baker", "child", "wolf", "mountain", "letter", "sailor"]
    verb = ["saw", "found", "liked", "followed", "painted", "heard", "carried", "visited", "watched", "called",
            "helped", "remembered", "chased", "built", "sold"]
    prep = ["near", "under", "behind", "beside", "over", "inside", "across"]
    sents = []
    for _ in range(n_sent):
        np_ = lambda: " ".join([r.choice(det)] + ([r.choice(adj)] if r.random() < 0.5 else []) + [r.choice(noun)])
        s = f"{np_()} {r.choice(verb)} {np_()}"
        if r.random() < 0.4:
            s += f" {r.choice(prep)} {np_()}"
        sents.append(s + ".")
    return " ".join(sents)


def loans(n, seed):
    r = np.random.default_rng(seed)
    income = np.round(np.exp(r.normal(11.0, 0.5, n)), -2)
    loan_amount = np.round(np.clip(income * r.uniform(0.05, 0.6, n), 1000, None), -2)
    age = r.integers(21, 70, n)
    credit_score = np.clip(r.normal(680, 70, n), 300, 850).round()
    months_employed = np.clip(r.gamma(2.0, 30.0, n), 0, 480).round()
    num_credit_lines = r.poisson(5, n)
    debt_to_income = np.clip(r.beta(2, 5, n), 0, 1).round(3)
    interest_rate = np.clip(22 - (credit_score - 300) / 40 + r.normal(0, 1.5, n), 2.5, 30).round(2)
    z = (-(credit_score - 680) / 70 * 1.2 + (debt_to_income - 0.29) / 0.16 * 1.0 + (loan_amount / income - 0.32) / 0.16 * 0.9
         - (months_employed - 60) / 42 * 0.6 - (np.log(income) - 11) / 0.5 * 0.5 + (interest_rate - 13) / 3 * 0.4 - 0.3)
    p = 1 / (1 + np.exp(-1.6 * z))
    default = (r.random(n) < p).astype(int)
    return pd.DataFrame(dict(income=income, loan_amount=loan_amount, age=age, credit_score=credit_score,
                             months_employed=months_employed, num_credit_lines=num_credit_lines,
                             debt_to_income=debt_to_income, interest_rate=interest_rate, default=default))


def churn(n, seed, n_regions=9000):
    r = np.random.default_rng(seed)
    tenure = r.integers(1, 72, n)
    monthly = np.round(r.uniform(18, 120, n), 2)
    calls = r.poisson(1.5, n)
    contract = r.choice(["month-to-month", "one-year", "two-year"], n, p=[0.55, 0.25, 0.2])
    paperless = r.integers(0, 2, n)
    age = r.integers(18, 80, n)
    z = (-0.04 * (tenure - 30) + 0.015 * (monthly - 65) + 0.35 * (calls - 1.5)
         + np.select([contract == "month-to-month", contract == "one-year"], [0.8, -0.4], -1.2) + 0.2 * paperless - 0.2)
    p = 1 / (1 + np.exp(-z))
    churned = (r.random(n) < p).astype(int)
    region = r.integers(0, n_regions, n)
    return pd.DataFrame(dict(customer_id=np.arange(100000, 100000 + n), postcode=[f"{x:05d}" for x in region + 10000],
                             age=age, tenure_months=tenure, monthly_charges=monthly, support_calls=calls,
                             contract=contract, paperless_billing=paperless, churned=churned))



def build_data(name, d):
    """Write the data files each project's script reads (d = project's data/ folder)."""
    if name == "run01":
        churn(3500, 1).to_csv(f"{d}/customers.csv", index=False)
    elif name == "run02":
        X, y = shapes(5000, 2, noise=0.15)
        np.savez(f"{d}/shapes16.npz", X_train=X[:4000], y_train=y[:4000], X_val=X[4000:], y_val=y[4000:])
    elif name == "run03":
        X, y = gaussian_classes(12000, 30, 10, seed=3, sep=0.7, informative=20, proto_seed=33)
        np.savez(f"{d}/blobs10.npz", X_train=X[:10000], y_train=y[:10000], X_val=X[10000:], y_val=y[10000:])
    elif name == "run04":
        X, y = gaussian_classes(8000, 40, 5, seed=4, sep=0.5, informative=24, proto_seed=44)
        Xtr, ytr, Xva, yva = X[:6400], y[:6400], X[6400:], y[6400:]
        o = np.argsort(ytr, kind="stable")          # file was assembled class by class
        np.savez(f"{d}/feats.npz", X_train=Xtr[o], y_train=ytr[o], X_val=Xva, y_val=yva)
    elif name == "run05":
        X, y = gaussian_classes(900, 64, 3, seed=5, sep=0.8, informative=8, proto_seed=55)
        np.savez(f"{d}/train_val.npz", X_train=X[:300], y_train=y[:300], X_val=X[300:], y_val=y[300:])
    elif name == "run06":
        X, y = gaussian_classes(6000, 32, 6, seed=6, sep=0.9, informative=16, proto_seed=66)
        X = X * np.random.default_rng(1).uniform(0.5, 3, size=32) + np.random.default_rng(2).normal(0, 2, size=32)
        np.savez(f"{d}/har_features.npz", X=X.astype(np.float32), y=y)
    elif name == "run07":
        open(f"{d}/corpus.txt", "w").write(toy_corpus(6000, 7))
    elif name == "run08":
        loans(8000, 8).to_csv(f"{d}/loans.csv", index=False)
    elif name == "run09":
        r = np.random.default_rng(9)
        X = r.integers(0, 10, size=(7000, 24))
        s = X.sum(1) + r.normal(0, 3, 7000)
        np.savez(f"{d}/sequences.npz", X=X, y=(s > np.median(s)).astype(np.int64))
    elif name == "run10":
        X, y = gaussian_classes(3000, 20, 5, seed=10, sep=1.1, informative=12, proto_seed=100)
        ytr = y[:2000].copy()
        r = np.random.default_rng(99)
        m = r.random(2000) < 0.45                    # 45% of train labels re-drawn uniformly (~34% wrong)
        ytr[m] = r.integers(0, 5, m.sum())
        np.savez(f"{d}/sensors.npz", X_train=X[:2000], y_train=ytr, X_val=X[2000:], y_val=y[2000:])
    elif name == "run11":
        r = np.random.default_rng(11)
        n = 4000
        y = r.integers(0, 5, n)
        base = r.integers(40, 200, size=(5, 3)).astype(float)
        X = np.clip(base[y][:, None, None, :] * 0.3 + 100 + r.normal(0, 60, size=(n, 32, 32, 3)), 0, 255).astype(np.uint8)
        for c in range(5):
            X[y == c, :, c * 6:c * 6 + 4, :] = np.clip(X[y == c, :, c * 6:c * 6 + 4, :].astype(int) + 40, 0, 255)
        np.save(f"{d}/images.npy", X)
        np.save(f"{d}/labels.npy", y)
    elif name == "run12":
        X, y = glyphs(1800, 11)
        np.savez(f"{d}/digits.npz", X_train=X[:1400], y_train=y[:1400], X_val=X[1400:], y_val=y[1400:])

# ----------------------------------------------------------------------------- per-run scripts
FILES = {
    'run01': {
        'config.yaml': r'''data:
  csv: data/customers.csv
  target: churned
  categorical: [contract]
  numeric: [age, tenure_months, monthly_charges, support_calls, paperless_billing]
  val_size: 0.2
  seed: 7
model:
  hidden: 64
  dropout: 0.3
training:
  epochs: 15
  batch_size: 64
  lr: 0.001
''',
        'train.py': r'''import yaml
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

cfg = yaml.safe_load(open("config.yaml"))
dc, mc, tc = cfg["data"], cfg["model"], cfg["training"]
torch.manual_seed(dc["seed"])
torch.set_num_threads(1)

df = pd.read_csv(dc["csv"])
print(f"{len(df)} customers, churn rate {df[dc['target']].mean():.3f}")

df["postcode_churn_rate"] = df.groupby("postcode")[dc["target"]].transform("mean")
df = pd.get_dummies(df, columns=dc["categorical"], dtype=float)
feature_cols = dc["numeric"] + ["postcode_churn_rate"] + [c for c in df.columns if c.startswith("contract_")]

rng = np.random.default_rng(dc["seed"])
idx = rng.permutation(len(df))
n_val = int(len(df) * dc["val_size"])
val_df, train_df = df.iloc[idx[:n_val]], df.iloc[idx[n_val:]]

mu = train_df[feature_cols].mean()
sd = train_df[feature_cols].std()


def to_tensors(part):
    X = ((part[feature_cols] - mu) / sd).values.astype(np.float32)
    y = part[dc["target"]].values.astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y)


Xtr, ytr = to_tensors(train_df)
Xva, yva = to_tensors(val_df)
print(f"features ({len(feature_cols)}): {feature_cols}")
print(f"train={len(Xtr)} val={len(Xva)}")

model = nn.Sequential(nn.Linear(len(feature_cols), mc["hidden"]), nn.ReLU(), nn.Dropout(mc["dropout"]),
                      nn.Linear(mc["hidden"], mc["hidden"]), nn.ReLU(), nn.Dropout(mc["dropout"]),
                      nn.Linear(mc["hidden"], 1))
opt = torch.optim.Adam(model.parameters(), lr=tc["lr"])
bce = nn.BCEWithLogitsLoss()
loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=tc["batch_size"], shuffle=True)

for epoch in range(1, tc["epochs"] + 1):
    model.train()
    tl, tcorr, n = 0.0, 0, 0
    with tqdm(loader, desc=f"epoch {epoch}", unit="batch") as t:
        for xb, yb in t:
            logit = model(xb).squeeze(-1)
            loss = bce(logit, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tcorr += ((logit > 0).float() == yb).sum().item()
            n += len(yb)
            t.set_postfix(loss=f"{tl / n:.4f}", acc=f"{tcorr / n:.4f}")
    model.eval()
    with torch.no_grad():
        vlogit = model(Xva).squeeze(-1)
        vloss = bce(vlogit, yva).item()
        vacc = ((vlogit > 0).float() == yva).float().mean().item()
    print(f"epoch {epoch}: train_loss {tl / n:.4f} train_acc {tcorr / n:.4f} | val_loss {vloss:.4f} val_acc {vacc:.4f}")

torch.save(model.state_dict(), "churn_mlp.pt")
''',
    },
    'run02': {
        'train.py': r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import plshim

torch.manual_seed(42)
torch.set_num_threads(1)


class ShapeClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 4))
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, x):
        return self.head(self.features(x))


d = np.load("data/shapes16.npz")
train_dl = DataLoader(TensorDataset(torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])),
                      batch_size=64, shuffle=True)
val_dl = DataLoader(TensorDataset(torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])), batch_size=128)
model = ShapeClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def training_step(batch):
    x, y = batch
    out = model(x)
    loss = model.criterion(out, y)
    return loss, {"train_acc": ((out.argmax(1) == y).float().mean(), False)}


def validation_step(batch):
    x, y = batch
    out = model(x)
    return {"val_loss": (F.cross_entropy(out, y), len(y)), "val_acc": ((out.argmax(1) == y).float().mean(), len(y))}


for epoch, tr, va in plshim.fit(model, opt, train_dl, val_dl, 12, training_step, validation_step, version="1.9"):
    pass
''',
    },
    'run03': {
        'train.py': r'''import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

cfg = dict(lr=0.45, momentum=0.9, batch_size=128, steps=1500,
           hidden=[256, 256], eval_every=100, seed=7)
print("config:", json.dumps(cfg))
torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)

d = np.load("data/blobs10.npz")
Xtr, ytr = torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])
Xva, yva = torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])

layers, dim = [], Xtr.shape[1]
for h in cfg["hidden"]:
    layers += [nn.Linear(dim, h), nn.ReLU()]
    dim = h
model = nn.Sequential(*layers, nn.Linear(dim, 10))
opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])

g = torch.Generator().manual_seed(cfg["seed"])
pbar = tqdm(range(1, cfg["steps"] + 1), desc="train", unit="step")
hist = []
for step in pbar:
    idx = torch.randint(0, len(Xtr), (cfg["batch_size"],), generator=g)
    logits = model(Xtr[idx])
    loss = F.cross_entropy(logits, ytr[idx])
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
    opt.step()
    acc = (logits.argmax(1) == ytr[idx]).float().mean().item()
    hist.append(loss.item())
    pbar.set_postfix(loss=loss.item(), acc=acc, gnorm=gn.item(), refresh=False)
    if step % cfg["eval_every"] == 0:
        with torch.no_grad():
            vl = model(Xva)
            tqdm.write(f"step {step:4d} | train_loss {np.mean(hist[-cfg['eval_every']:]):.4f} | val_loss {F.cross_entropy(vl, yva).item():.4f} | "
                       f"val_acc {(vl.argmax(1) == yva).float().mean().item():.4f}")
''',
    },
    'run04': {
        'train.py': r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

torch.manual_seed(0)
torch.set_num_threads(1)
EPOCHS, BS, LR = 6, 64, 2e-3

d = np.load("data/feats.npz")
Xtr, ytr = torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])
Xva, yva = torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
print(f"loaded {len(Xtr)} train / {len(Xva)} val clips, {Xtr.shape[1]} features, {int(ytr.max()) + 1} commands")

train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=BS)
val_dl = DataLoader(TensorDataset(Xva, yva), batch_size=512)

model = nn.Sequential(nn.Linear(40, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 5))
opt = torch.optim.Adam(model.parameters(), lr=LR)
crit = nn.CrossEntropyLoss()

for ep in range(EPOCHS):
    model.train()
    bar = tqdm(train_dl, desc=f"train ep{ep}")
    tot = 0.0
    for xb, yb in bar:
        out = model(xb)
        loss = crit(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item()
        bar.set_postfix(loss=f"{loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(xb) for xb, _ in val_dl])
        vl = crit(logits, yva).item()
        va = (logits.argmax(1) == yva).float().mean().item()
    print(f"[ep {ep}] train_loss={tot / len(train_dl):.4f} val_loss={vl:.4f} val_acc={va:.4f}")
''',
    },
    'run05': {
        'train.py': r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import plshim

torch.manual_seed(1)
torch.set_num_threads(1)


class LitMLP(nn.Module):
    def __init__(self, d_in=64, hidden=512, n_cls=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_cls))

    def forward(self, x):
        return self.net(x)


d = np.load("data/train_val.npz")
train_dl = DataLoader(TensorDataset(torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])),
                      batch_size=32, shuffle=True)
val_dl = DataLoader(TensorDataset(torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])), batch_size=128)
model = LitMLP()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)


def training_step(batch):
    x, y = batch
    loss = F.cross_entropy(model(x), y)
    return loss, {"train_loss": (loss, True)}


def validation_step(batch):
    x, y = batch
    out = model(x)
    return {"val_loss": (F.cross_entropy(out, y), len(y)), "val_acc": ((out.argmax(1) == y).float().mean(), len(y))}


for epoch, tr, va in plshim.fit(model, opt, train_dl, val_dl, 150, training_step, validation_step,
                                 version="2.4", leave=True):
    pass
''',
    },
    'run06': {
        'config.yaml': r'''data:
  path: data/har_features.npz
  val_fraction: 0.15
  seed: 13
model:
  hidden: [128, 128, 128]
  bias_init: -0.5
train:
  epochs: 25
  batch_size: 64
  lr: 0.001
  weight_decay: 0.0
''',
        'train.py': r'''import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["data"]["seed"])
torch.set_num_threads(1)

d = np.load(cfg["data"]["path"])
X, y = torch.from_numpy(d["X"]), torch.from_numpy(d["y"])
perm = torch.randperm(len(X))
n_val = int(len(X) * cfg["data"]["val_fraction"])
va_idx, tr_idx = perm[:n_val], perm[n_val:]
mean, std = X[tr_idx].mean(0), X[tr_idx].std(0)
X = (X - mean) / std
n_classes = int(y.max()) + 1
print(f"train {len(tr_idx)}  val {len(va_idx)}  features {X.shape[1]}  classes {n_classes}")

train_loader = DataLoader(TensorDataset(X[tr_idx], y[tr_idx]), batch_size=cfg["train"]["batch_size"], shuffle=True)
Xva, yva = X[va_idx], y[va_idx]


class MLP(nn.Module):
    def __init__(self, d_in, hidden, n_out):
        super().__init__()
        dims = [d_in] + hidden
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.out = nn.Linear(dims[-1], n_out)

    def forward(self, x, return_acts=False):
        acts = []
        for layer in self.hidden:
            x = F.relu(layer(x))
            acts.append(x)
        out = self.out(x)
        return (out, acts) if return_acts else out


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.constant_(m.bias, cfg["model"]["bias_init"])


model = MLP(X.shape[1], cfg["model"]["hidden"], n_classes)
model.apply(init_weights)
opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"], weight_decay=cfg["train"]["weight_decay"])

for epoch in range(cfg["train"]["epochs"]):
    model.train()
    pbar = tqdm(train_loader, desc=f"[{epoch + 1}/{cfg['train']['epochs']}]", leave=True)
    tl, tc, n = 0.0, 0, 0
    for xb, yb in pbar:
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        opt.zero_grad()
        loss.backward()
        gnorm = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters())).item()
        opt.step()
        tl += loss.item() * len(xb)
        tc += (logits.argmax(1) == yb).sum().item()
        n += len(xb)
        pbar.set_postfix(loss=tl / n, acc=tc / n, gnorm=gnorm, refresh=False)
    model.eval()
    with torch.no_grad():
        logits, acts = model(Xva, return_acts=True)
        vloss = F.cross_entropy(logits, yva).item()
        vacc = (logits.argmax(1) == yva).float().mean().item()
        active = [int((a > 0).any(0).sum()) for a in acts]
    print(f"epoch {epoch + 1:3d}  train_loss={tl / n:.4f}  train_acc={tc / n:.4f}  val_loss={vloss:.4f}  "
          f"val_acc={vacc:.4f}  active_units={active}")
''',
    },
    'run07': {
        'train.py': r'''import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

torch.manual_seed(0)
torch.set_num_threads(1)

SEQ_LEN, BATCH, EPOCHS, STEPS = 64, 32, 10, 80
EMB, HIDDEN, LR = 32, 128, 3e-3

text = open("data/corpus.txt").read()
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
n_val = len(data) // 10
train_data, val_data = data[:-n_val], data[-n_val:]
print(f"corpus: {len(text):,} chars, vocab {len(chars)}: {''.join(chars)!r}")


class CharRNN(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.emb = nn.Embedding(vocab, EMB)
        self.rnn = nn.GRU(EMB, HIDDEN, num_layers=1, dropout=0.2)
        self.out = nn.Linear(HIDDEN, vocab)

    def forward(self, x, h=None):
        y, h = self.rnn(self.emb(x), h)
        return self.out(y), h


def get_batch(src, g):
    ix = torch.randint(0, len(src) - SEQ_LEN - 1, (BATCH,), generator=g)
    x = torch.stack([src[i:i + SEQ_LEN] for i in ix])
    y = torch.stack([src[i + 1:i + SEQ_LEN + 1] for i in ix])
    return x, y


@torch.no_grad()
def sample(model, prompt, n=70):
    model.eval()
    idx = torch.tensor([[stoi[c] for c in prompt]])
    for _ in range(n):
        logits, _ = model(idx[:, -SEQ_LEN:])
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        idx = torch.cat([idx, nxt], dim=1)
    model.train()
    return "".join(itos[i] for i in idx[0].tolist())


model = CharRNN(len(chars))
print(model)
print(f"params: {sum(p.numel() for p in model.parameters()):,}")
opt = torch.optim.Adam(model.parameters(), lr=LR)
g = torch.Generator().manual_seed(0)

for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    losses = []
    with tqdm(range(STEPS), desc=f"epoch {epoch:2d}", leave=True) as bar:
        for it in bar:
            x, y = get_batch(train_data, g)
            logits, _ = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
            if it % 10 == 0:
                bar.set_postfix(loss=f"{loss.item():.3f}", ppl=f"{math.exp(loss.item()):.2f}")
    with torch.no_grad():
        model.eval()
        vx, vy = get_batch(val_data, torch.Generator().manual_seed(123))
        vl = F.cross_entropy(model(vx)[0].reshape(-1, len(chars)), vy.reshape(-1)).item()
        model.train()
    print(f"epoch {epoch:2d} train_loss {sum(losses) / len(losses):.4f} val_loss {vl:.4f} "
          f"val_ppl {math.exp(vl):.2f} ({time.time() - t0:.1f}s)")
    for prompt in ("the ", "a clever "):
        print(f"  sample: {sample(model, prompt)!r}")

torch.save(model.state_dict(), "charrnn.pt")
''',
    },
    'run08': {
        'run.sh': r'''#!/usr/bin/env bash
set -e
python -u train.py --csv data/loans.csv --epochs 20 --bs 64 --lr 1e-3 --hidden 64 2>&1 | tee out.txt
''',
        'train.py': r'''import argparse
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

parser = argparse.ArgumentParser()
parser.add_argument("--csv", default="data/loans.csv")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--bs", type=int, default=64)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--hidden", type=int, default=64)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
torch.manual_seed(args.seed)
torch.set_num_threads(1)

df = pd.read_csv(args.csv)
pd.set_option("display.width", 140)
print(df.describe().T[["mean", "std", "min", "max"]])

features = [c for c in df.columns if c != "default"]
X = df[features].values.astype(np.float32)
y = df["default"].values.astype(np.float32)

rng = np.random.default_rng(args.seed)
idx = rng.permutation(len(df))
split = int(0.8 * len(df))
tr, va = idx[:split], idx[split:]
train_dl = DataLoader(TensorDataset(torch.from_numpy(X[tr]), torch.from_numpy(y[tr])), batch_size=args.bs, shuffle=True)
Xva, yva = torch.from_numpy(X[va]), torch.from_numpy(y[va])

model = nn.Sequential(
    nn.Linear(len(features), args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
loss_fn = nn.BCEWithLogitsLoss()

for epoch in range(1, args.epochs + 1):
    model.train()
    losses = []
    loop = tqdm(train_dl, desc=f"Epoch {epoch}")
    for xb, yb in loop:
        logits = model(xb).squeeze(1)
        loss = loss_fn(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        loop.set_postfix(loss=np.mean(losses[-20:]), refresh=False)
    model.eval()
    with torch.no_grad():
        vlog = model(Xva).squeeze(1)
        vloss = loss_fn(vlog, yva).item()
        vacc = ((vlog > 0).float() == yva).float().mean().item()
    print(f"Epoch {epoch}: train_loss={np.mean(losses):.4f} val_loss={vloss:.4f} val_acc={vacc:.4f}")
''',
    },
    'run09': {
        'run.sh': r'''#!/bin/bash
# GRU baseline on the sequence task
python -u train.py --epochs 25 --batch-size 32 --lr 0.008 --momentum 0.9 --hidden 32 --clip 1.0 2>&1 | tee out.txt
''',
        'train.py': r'''import argparse
import math
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split
from tqdm import tqdm


def parse():
    ap = argparse.ArgumentParser(description="GRU sequence classifier")
    ap.add_argument("--data", default="data/sequences.npz")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.008)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=9)
    return ap.parse_args()


class SeqClassifier(nn.Module):
    def __init__(self, vocab=10, emb=16, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.gru = nn.GRU(emb, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 2)

    def forward(self, x):
        _, h = self.gru(self.emb(x))
        return self.fc(h[-1])


def evaluate(model, loader, crit):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            tot += crit(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    model.train()
    return tot / n, correct / n


def main():
    args = parse()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    d = np.load(args.data)
    ds = TensorDataset(torch.from_numpy(d["X"]), torch.from_numpy(d["y"]))
    train_ds, val_ds = random_split(ds, [5000, 2000], generator=torch.Generator().manual_seed(args.seed))
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    val_dl = DataLoader(val_ds, batch_size=200)

    model = SeqClassifier(hidden=args.hidden)
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)

    best = 0.0
    for epoch in range(args.epochs):
        bar = tqdm(train_dl, desc=f"epoch {epoch + 1:02d}/{args.epochs}", leave=True)
        for i, (x, y) in enumerate(bar):
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            opt.step()
            if i % 5 == 0:
                bar.set_postfix(loss=round(loss.item(), 4), lr=sched.get_last_lr()[0], refresh=False)
        sched.step()
        vl, va = evaluate(model, val_dl, crit)
        tl, ta = evaluate(model, train_dl, crit)
        flag = ""
        if va > best:
            best = va
            torch.save(model.state_dict(), "best.pt")
            flag = "  *saved*"
        print(f"  train loss {tl:.4f} acc {ta:.3f} | val loss {vl:.4f} acc {va:.3f}{flag}")
    print(f"best val acc {best:.3f}")


if __name__ == "__main__":
    main()
''',
    },
    'run10': {
        'train.py': r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import plshim

torch.manual_seed(3)
torch.set_num_threads(1)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 5)

    def forward(self, x):
        return self.head(self.backbone(x))


d = np.load("data/sensors.npz")
train_dl = DataLoader(TensorDataset(torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])),
                      batch_size=64, shuffle=True)
val_dl = DataLoader(TensorDataset(torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])), batch_size=128)
model = Classifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def training_step(batch):
    x, y = batch
    out = model(x)
    loss = F.cross_entropy(out, y)
    return loss, {"train_acc": ((out.argmax(1) == y).float().mean(), False)}


def validation_step(batch):
    x, y = batch
    out = model(x)
    return {"val_loss": (F.cross_entropy(out, y), len(y)), "val_acc": ((out.argmax(1) == y).float().mean(), len(y))}


for epoch, tr, va in plshim.fit(model, opt, train_dl, val_dl, 50, training_step, validation_step, version="1.9"):
    pass
''',
    },
    'run11': {
        'config.yaml': r'''experiment: cnn_baseline_v2
data:
  images: data/images.npy
  labels: data/labels.npy
  train_split: 0.8
  num_workers: 0
model:
  channels: [16, 32]
  num_classes: 5
optim:
  name: adam
  lr: 0.001
  batch_size: 64
  epochs: 3
seed: 2024
''',
        'train.py': r'''import time
import yaml
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader, Subset
from tqdm import tqdm

with open("config.yaml") as f:
    cfg = yaml.safe_load(f)
torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)

MEAN = torch.tensor([0.5, 0.5, 0.5]).view(3, 1, 1)
STD = torch.tensor([0.25, 0.25, 0.25]).view(3, 1, 1)


class NpyImageDataset(Dataset):
    def __init__(self, image_path, label_path):
        self.image_path = image_path
        self.labels = np.load(label_path)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        images = np.load(self.image_path)
        img = torch.from_numpy(images[i]).permute(2, 0, 1).float() / 255.0
        img = (img - MEAN) / STD
        return img, int(self.labels[i])


def make_model(ch, n_cls):
    return nn.Sequential(
        nn.Conv2d(3, ch[0], 3, stride=2, padding=1), nn.BatchNorm2d(ch[0]), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(ch[0], ch[1], 3, padding=1), nn.BatchNorm2d(ch[1]), nn.ReLU(), nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(ch[1], n_cls))


ds = NpyImageDataset(cfg["data"]["images"], cfg["data"]["labels"])
perm = torch.randperm(len(ds)).tolist()
n_train = int(cfg["data"]["train_split"] * len(ds))
train_ds, val_ds = Subset(ds, perm[:n_train]), Subset(ds, perm[n_train:])
bs, nw = cfg["optim"]["batch_size"], cfg["data"]["num_workers"]
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True, num_workers=nw)
val_dl = DataLoader(val_ds, batch_size=bs, num_workers=nw)
print(f"{cfg['experiment']}: {len(train_ds)} train / {len(val_ds)} val images, batch {bs}, workers {nw}")

model = make_model(cfg["model"]["channels"], cfg["model"]["num_classes"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
crit = nn.CrossEntropyLoss()

for epoch in range(cfg["optim"]["epochs"]):
    model.train()
    data_t, comp_t, seen, correct, tot_loss = 0.0, 0.0, 0, 0, 0.0
    pbar = tqdm(train_dl, desc=f"Epoch {epoch}")
    end = time.perf_counter()
    for x, y in pbar:
        t_data = time.perf_counter() - end
        t0 = time.perf_counter()
        out = model(x)
        loss = crit(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        t_comp = time.perf_counter() - t0
        data_t += t_data
        comp_t += t_comp
        seen += len(y)
        correct += (out.argmax(1) == y).sum().item()
        tot_loss += loss.item() * len(y)
        pbar.set_postfix({"loss": f"{tot_loss / seen:.3f}", "acc": f"{correct / seen:.3f}",
                          "data": f"{t_data:.3f}s", "fwd/bwd": f"{t_comp:.3f}s"}, refresh=False)
        end = time.perf_counter()
    model.eval()
    vc, vn = 0, 0
    with torch.no_grad():
        for x, y in val_dl:
            vc += (model(x).argmax(1) == y).sum().item()
            vn += len(y)
    nb = len(train_dl)
    print(f"epoch {epoch}: loss {tot_loss / seen:.4f} acc {correct / seen:.3f} val_acc {vc / vn:.3f} | "
          f"avg data {data_t / nb:.3f}s/it  avg fwd/bwd {comp_t / nb:.3f}s/it")
''',
    },
    'run12': {
        'run.sh': r'''#!/bin/bash
python -u train.py --epochs 40 --batch-size 16 --lr 0.05 --momentum 0.9 --step-size 20 --gamma 0.5 2>&1 | tee out.txt
''',
        'train.py': r'''import argparse
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/digits.npz")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--step-size", type=int, default=20, help="StepLR step size (epochs)")
    p.add_argument("--gamma", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.fc(self.conv(x))


def main():
    args = get_args()
    print(args)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    d = np.load(args.data)
    Xtr = torch.tensor(d["X_train"] / 16.0, dtype=torch.float32).view(-1, 1, 8, 8)
    Xva = torch.tensor(d["X_val"] / 16.0, dtype=torch.float32).view(-1, 1, 8, 8)
    ytr, yva = torch.tensor(d["y_train"]), torch.tensor(d["y_val"])
    print(f"train: {len(Xtr)}  val: {len(Xva)}")

    train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(Xva, yva), batch_size=256)

    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.step_size, gamma=args.gamma)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(1, args.epochs + 1):
        model.train()
        t0 = time.time()
        running, seen = 0.0, 0
        pbar = tqdm(train_loader, desc=f"Epoch {epoch}/{args.epochs}")
        for x, y in pbar:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += loss.item() * len(x)
            seen += len(x)
            pbar.set_postfix(loss=running / seen, lr=optimizer.param_groups[0]["lr"], refresh=False)

        model.eval()
        correct, vloss = 0, 0.0
        with torch.no_grad():
            for x, y in val_loader:
                out = model(x)
                vloss += criterion(out, y).item() * len(x)
                correct += (out.argmax(1) == y).sum().item()
        print(f"epoch {epoch:02d} | train_loss {running / seen:.4f} | val_loss {vloss / len(Xva):.4f} "
              f"| val_acc {correct / len(Xva):.4f} | {time.time() - t0:.1f}s")

    torch.save(model.state_dict(), "digits_cnn.pt")


if __name__ == "__main__":
    main()
''',
    },
}

# ----------------------------------------------------------------------------- run table
# project: scratch folder name; args: command line (same as run.sh where one ships);
# ship: files handed to the debugger besides out.txt.
RUNS = {
    "run01": dict(project="churn", args=[], ship=["train.py", "config.yaml"], truth="data_leakage",
                  symptom="My churn model hits ~95% validation accuracy by epoch 2 and val loss is below train loss "
                          "the whole run. That seems too good for this data. Can I trust it?",
                  how="Target leak: train.py adds postcode_churn_rate = mean of the target per postcode, computed "
                      "with groupby/transform on the full dataframe before the train/val split. Most postcodes hold a "
                      "single customer, so the feature equals that customer's label. The same MLP without the feature "
                      "gets ~0.71 val acc."),
    "run02": dict(project="shapes-cls", args=[], ship=[], truth="healthy",
                  symptom="Is this training run OK? Anything to worry about before I use the checkpoint?",
                  how="Healthy: small BN-CNN, Adam 1e-3, batch 64, 12 epochs on 16x16 synthetic shapes "
                      "(Lightning 1.9-style progress bar)."),
    "run03": dict(project="mlp-bench", args=[], ship=[], truth="lr_too_high",
                  symptom="Loss went down nicely for the first few hundred steps, then crept back up until the model "
                          "was at chance (2.30) by the end.",
                  how="SGD momentum 0.9 with lr=0.45 on a 2x256 MLP (lr 0.05 trains to 0.98 val acc). Loss falls to "
                      "~0.54 by step 400, then rises to 2.31 with grad-norm spikes."),
    "run04": dict(project="speech-cmds", args=[], ship=[], truth="data_not_shuffled",
                  symptom="The loss in the progress bar keeps dropping close to zero and then jumping way up several "
                          "times each epoch, and val accuracy is much worse than the training loss would suggest.",
                  how="Training arrays are stored sorted by class and the DataLoader has no shuffle=True. Each epoch "
                      "runs through 5 class blocks, so the per-step loss is a saw-tooth that spikes at every block "
                      "boundary. Val acc reaches 0.70 after 6 epochs; shuffled, it reaches ~0.85 after 1."),
    "run05": dict(project="tabular-mlp", args=[], ship=[], truth="overfitting",
                  symptom="Train loss goes to basically zero, but val_loss bottoms out around epoch 10 and then climbs "
                          "for the rest of the run. Val accuracy never gets past ~83%.",
                  how="560K-param 3x512 MLP, Adam lr 1e-4, no regularisation, 300 training rows (8 informative of 64 "
                      "features), 150 epochs. Lightning 2.x-style bars with one line per epoch."),
    "run06": dict(project="har-mlp", args=[], ship=["train.py", "config.yaml"], truth="dead_relu",
                  symptom="Loss is stuck at 1.79 from the first epoch and accuracy is ~16%. It just doesn't learn "
                          "anything.",
                  how="Custom init: xavier_uniform weights and every bias set to -0.5 (config bias_init). The "
                      "third ReLU layer outputs 0 for every input (active_units [128, 117, 0]), so nothing below "
                      "the output bias gets a gradient. Loss stays at ln 6."),
    "run07": dict(project="charlm", args=[], ship=[], truth="mode_collapse",
                  symptom="Loss went from 3.3 down to ~1.9, but every sample is just 'her her her her ...' whatever "
                          "prompt I give it.",
                  how="Char-level GRU built without batch_first=True and fed (batch, seq, emb) tensors, so it "
                      "recurs over the batch axis and cannot use the sequence context. It learns only a bigram model "
                      "(loss plateaus at ~1.92 vs ~0.60 when fixed), and greedy samples collapse into one repeated "
                      "word for every prompt. The GRU dropout-with-1-layer UserWarning is real."),
    "run08": dict(project="loan-default", args=["--csv", "data/loans.csv", "--epochs", "20", "--bs", "64",
                                                "--lr", "1e-3", "--hidden", "64"],
                  ship=["train.py", "run.sh"], truth="unnormalized_inputs",
                  symptom="Training loss is huge (5 to 80) and jumps around every epoch, and val accuracy bounces "
                          "between ~45% and ~65% on what should be a fairly easy default-prediction table.",
                  how="Raw tabular features go into the MLP unscaled (income ~6.7e4, loan_amount ~2.2e4, "
                      "debt_to_income ~0.3); describe() is printed at the start. Standardising the columns gives "
                      "~0.86 val acc and a loss of 0.32."),
    "run09": dict(project="seq-sum", args=["--epochs", "25", "--batch-size", "32", "--lr", "0.008", "--momentum",
                                           "0.9", "--hidden", "32", "--clip", "1.0"],
                  ship=["train.py", "run.sh"], truth="healthy",
                  symptom="Training is slow to get going and the loss in the bar is really noisy. Is something "
                          "wrong or is this fine?",
                  how="Healthy but slow and noisy: GRU classifier, SGD lr 0.008 with cosine decay, batch 32. Val acc "
                      "goes 0.62, 0.74, 0.92 and then creeps up to 0.93 with small bumps; train and val track each "
                      "other."),
    "run10": dict(project="sensor-blobs", args=[], ship=[], truth="label_noise",
                  symptom="Training accuracy is stuck around 64% for most of the run, while val accuracy is ~97% "
                          "early and then slowly drops. What's going on?",
                  how="45% of the training labels were re-drawn uniformly at random (34% wrong); val labels are "
                      "clean. Lightning 1.9-style bar."),
    "run11": dict(project="img-cls", args=[], ship=["train.py", "config.yaml"], truth="dataloader_bottleneck",
                  symptom="A tiny CNN on 3k 32x32 images only runs at ~13 it/s on my machine. That's way slower "
                          "than I expected.",
                  how="Dataset.__getitem__ calls np.load() on the whole 12 MB image array for every single sample "
                      "(num_workers=0). Data time is ~0.067 s per batch against ~0.008 s of forward/backward."),
    "run12": dict(project="digits", args=["--epochs", "40", "--batch-size", "16", "--lr", "0.05", "--momentum", "0.9",
                                          "--step-size", "20", "--gamma", "0.5"],
                  ship=["train.py", "run.sh"], truth="lr_schedule_bug",
                  symptom="From about epoch 4 the loss freezes at exactly the same value, to 4 decimals, and val "
                          "acc sits at ~0.80 for the rest of the 40 epochs.",
                  how="StepLR(step_size=20, gamma=0.5) is meant per epoch but scheduler.step() is called after "
                      "every batch (88 per epoch). The lr halves every 20 steps: ~1e-3 by the end of epoch 1 and "
                      "~5e-55 by epoch 40. Stepped per epoch, the same script reaches 1.00 val acc."),
}


def run_one(name, meta):
    proj = os.path.join(WORK, meta["project"])
    shutil.rmtree(proj, ignore_errors=True)
    os.makedirs(os.path.join(proj, "data"))
    build_data(name, os.path.join(proj, "data"))
    for fn, content in FILES[name].items():
        with open(os.path.join(proj, fn), "w") as f:
            f.write(content)
    env = dict(os.environ, PYTHONPATH=os.path.join(WORK, ".pysite"), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONHASHSEED="0")
    env.pop("COLUMNS", None)
    t0 = time.time()
    with open(os.path.join(proj, "out.txt"), "wb") as fo:
        rc = subprocess.call([PY, "-u", "train.py"] + meta["args"], cwd=proj, env=env, stdout=fo,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    dst = os.path.join(OUTDIR, "runs", name)
    os.makedirs(dst, exist_ok=True)
    shutil.copy(os.path.join(proj, "out.txt"), os.path.join(dst, "out.txt"))
    for fn in meta["ship"]:
        shutil.copy(os.path.join(proj, fn), os.path.join(dst, fn))
    print(f"{name}: rc={rc} {time.time() - t0:.1f}s  ->  {dst}", flush=True)
    return rc


def main():
    only = sys.argv[1:]
    os.makedirs(os.path.join(WORK, ".pysite", "tqdm"), exist_ok=True)
    with open(os.path.join(WORK, ".pysite", "tqdm", "__init__.py"), "w") as f:
        f.write(TQDM_SHIM)
    with open(os.path.join(WORK, ".pysite", "plshim.py"), "w") as f:
        f.write(PLSHIM)
    if not only:
        shutil.rmtree(os.path.join(OUTDIR, "runs"), ignore_errors=True)
    for name, meta in RUNS.items():
        if only and name not in only:
            continue
        shutil.rmtree(os.path.join(OUTDIR, "runs", name), ignore_errors=True)
        run_one(name, meta)
    truth = {n: dict(truth=m["truth"], symptom=m["symptom"], how=m["how"]) for n, m in RUNS.items()}
    with open(os.path.join(OUTDIR, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


if __name__ == "__main__":
    main()
