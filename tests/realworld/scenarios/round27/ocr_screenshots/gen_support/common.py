import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SHIMS = os.path.join(HERE, "shims")
SCRIPTS = os.path.join(HERE, "scripts")


def teacher_data(n, d, k, seed, teacher_seed, hidden=32, flip=0.0, scale=2.0):
    """Inputs ~ N(0,1); labels from a fixed random 2-layer teacher (optionally with flipped labels)."""
    gt = torch.Generator().manual_seed(teacher_seed)
    W1 = torch.randn(d, hidden, generator=gt) / d ** 0.5
    b1 = torch.randn(hidden, generator=gt) * 0.5
    W2 = torch.randn(hidden, k, generator=gt)
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g)
    logits = torch.tanh(X @ W1 * scale + b1) @ W2
    y = logits.argmax(1)
    if flip > 0:
        m = torch.rand(n, generator=g) < flip
        y = torch.where(m, torch.randint(0, k, (n,), generator=g), y)
    return X.float(), y.long()


def run_script(script_name, workdir, args, log_name, env_extra=None, kill_when=None, sigint_after_lines=None):
    """Run a user training script for real; return merged stdout+stderr as the terminal showed it."""
    os.makedirs(workdir, exist_ok=True)
    shutil.copy(os.path.join(SCRIPTS, script_name), os.path.join(workdir, "train.py"))
    env = dict(os.environ)
    env["PYTHONPATH"] = SHIMS
    env["OMP_NUM_THREADS"] = "1"
    env["MKL_NUM_THREADS"] = "1"
    env["PYTHONWARNINGS"] = "default"
    if env_extra:
        env.update(env_extra)
    cmd = [sys.executable, "-u", "train.py"] + args
    p = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = []
    killed = None
    for line in p.stdout:
        out.append(line)
        if kill_when and kill_when(line):
            p.kill()
            killed = "kill"
            break
        if sigint_after_lines and sum(1 for l in out if l.startswith("Train:")) >= sigint_after_lines:
            import signal
            p.send_signal(signal.SIGINT)
            killed = "int"
            sigint_after_lines = None
    rest = p.stdout.read() if killed != "kill" else ""
    try:
        rest += p.stdout.read() or ""
    except Exception:
        pass
    out.append(rest)
    p.wait()
    text = "".join(out)
    return text, p.returncode


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
