"""Shared helpers for gen.py: synthetic data, subprocess runner, path sanitising."""
import os, subprocess, sys, math, time
import numpy as np
import torch
import torch.nn as nn

OUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
SITE = os.path.dirname(os.path.dirname(torch.__file__))  # .../site-packages


def teacher_data(seed, n, d, k, hidden=24, scale=1.0, noise=0.0, w1s=2.0):
    """Inputs ~ N(0,1); labels from a fixed random tanh teacher (learnable, nonlinear)."""
    rng = np.random.default_rng(seed)
    W1 = rng.normal(size=(d, hidden)) / math.sqrt(d) * w1s
    W2 = rng.normal(size=(hidden, k))
    def sample(m, r):
        X = r.normal(size=(m, d)).astype(np.float32) * scale
        logits = np.tanh(X / scale @ W1) @ W2
        if noise > 0:
            logits = logits + r.normal(size=logits.shape) * noise
        return X, logits.argmax(1).astype(np.int64)
    return sample, rng


def blobs(seed, n, d, k, sep):
    rng = np.random.default_rng(seed)
    C = rng.normal(size=(k, d)) * sep
    def sample(m, r):
        y = r.integers(0, k, size=m)
        X = (C[y] + r.normal(size=(m, d))).astype(np.float32)
        return X, y.astype(np.int64)
    return sample, rng


def run_script(workdir, script, args=(), seed=None, env_extra=None, stream_until=None):
    """Run a user script for real. With seed: via a launcher that seeds torch (script must not crash).
    Returns combined stdout+stderr text."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1",
               PYTHONHASHSEED="0")
    if env_extra:
        env.update(env_extra)
    if seed is not None:
        code = ("import sys,runpy,torch;torch.set_num_threads(1);torch.manual_seed(%d);"
                "sys.argv=%r;runpy.run_path(%r,run_name='__main__')" % (seed, [script] + list(args), script))
        cmd = [PY, "-c", code]
    else:
        cmd = [PY, "-u", script] + list(args)
    if stream_until is None:
        p = subprocess.run(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        return p.stdout, p.returncode
    # stream and kill the process right after a line matching stream_until (simulated preemption)
    p = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in p.stdout:
        lines.append(line)
        if stream_until(line):
            p.kill()
            break
    p.wait()
    return "".join(lines), -9


def sanitize(text, workdir, home_proj, site_user):
    text = text.replace(SITE, site_user)
    text = text.replace(os.path.abspath(workdir), home_proj)
    return text


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
