"""Helpers for gen.py: seeding, tiny models, running user scripts in-process, formatting."""
import contextlib
import datetime
import io
import os
import random
import runpy
import sys
import time
import traceback
import warnings

import numpy as np
import torch
import torch.nn as nn

SITE = os.path.dirname(os.path.dirname(torch.__file__))  # .../site-packages
STDLIB = os.path.dirname(os.__file__)


def seed_all(s):
    random.seed(s)
    np.random.seed(s)
    torch.manual_seed(s)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def mlp(d_in, width, n_out, depth=2, dropout=0.0):
    layers, d = [], d_in
    for _ in range(depth):
        layers += [nn.Linear(d, width), nn.ReLU()]
        if dropout:
            layers.append(nn.Dropout(dropout))
        d = width
    layers.append(nn.Linear(d, n_out))
    return nn.Sequential(*layers)


class Clock:
    """Wall-clock stamps: a start time plus the real elapsed time of the run."""

    def __init__(self, start=None):
        self.start = start or datetime.datetime.now().replace(microsecond=0)
        self.t0 = time.time()

    def now(self):
        return self.start + datetime.timedelta(seconds=time.time() - self.t0)

    def stamp(self, fmt="%Y-%m-%d %H:%M:%S"):
        return self.now().strftime(fmt)


def user_paths(text, workdir, home="/home/user/repro", env="/home/user/miniconda3/envs/repro/lib/python3.11"):
    """Rewrite this machine's paths into the paths a user's machine would show."""
    text = text.replace(SITE, env + "/site-packages")
    text = text.replace(STDLIB, env)
    text = text.replace(workdir.rstrip("/"), home)
    return text


def run_script(script, argv, cwd):
    """Run a user script as __main__ (like `python script ARGS` in cwd).
    Returns (stdout, stderr, traceback-text-or-None, exit-code)."""
    out, err = io.StringIO(), io.StringIO()
    old_argv, old_cwd = sys.argv, os.getcwd()
    sys.argv = [os.path.basename(script)] + list(argv)
    os.chdir(cwd)
    tb, code = None, 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.filterwarnings("ignore", category=FutureWarning)
            runpy.run_path(os.path.abspath(script), run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except Exception as e:  # format as `python script` would, without runpy frames
        te = traceback.TracebackException.from_exception(e)
        te.stack = traceback.StackSummary.from_list(
            [f for f in te.stack if "runpy" not in f.filename and "gen_support" not in f.filename])
        tb = "".join(te.format())
        code = 1
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    return out.getvalue(), err.getvalue(), tb, code


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def average_precision(scores, targets):
    """Mean over labels of AP (area under the precision-recall step curve)."""
    aps = []
    for j in range(targets.shape[1]):
        s, t = scores[:, j], targets[:, j]
        if t.sum() == 0:
            continue
        order = np.argsort(-s, kind="stable")
        t = t[order]
        tp = np.cumsum(t)
        prec = tp / np.arange(1, len(t) + 1)
        aps.append((prec * t).sum() / t.sum())
    return float(np.mean(aps))
