"""Shared helpers for gen.py: synthetic data, running user scripts for real, chat export writers."""
import io
import json
import os
import sys
import types
import traceback
import contextlib
import numpy as np
import torch

VENV_SITE = os.path.dirname(os.path.dirname(torch.__file__))


def make_blobs(n, d, k, seed, clusters_per_class=3, spread=1.0, center_scale=2.0):
    """Gaussian-mixture classification data (float32 X, int64 y)."""
    rng = np.random.RandomState(seed)
    centers = rng.randn(k * clusters_per_class, d) * center_scale
    comp = rng.randint(0, k * clusters_per_class, size=n)
    X = centers[comp] + rng.randn(n, d) * spread
    y = comp % k
    return X.astype(np.float32), y.astype(np.int64)


def split(X, y, n_val, seed):
    rng = np.random.RandomState(seed)
    p = rng.permutation(len(y))
    v, t = p[:n_val], p[n_val:]
    return X[t], y[t], X[v], y[v]


class StopRun(Exception):
    """Raised from an injected module to emulate an external kill of the process."""


def fake_module(name, **attrs):
    m = types.ModuleType(name)
    for k, v in attrs.items():
        setattr(m, k, v)
    return m


def run_script(src, filename, modules=None, argv=None, cwd=None):
    """Execute a user script's exact source text, with helper modules injected.
    Returns (stdout, traceback_text or None, exception or None)."""
    modules = modules or {}
    saved_mods = {k: sys.modules.get(k) for k in modules}
    sys.modules.update(modules)
    saved_argv = sys.argv
    sys.argv = [os.path.basename(filename)] + list(argv or [])
    old_cwd = os.getcwd()
    if cwd:
        os.makedirs(cwd, exist_ok=True)
        os.chdir(cwd)
    buf = io.StringIO()
    tb, exc = None, None
    try:
        import linecache
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        code = compile(src, filename, "exec")
        g = {"__name__": "__main__", "__file__": filename}
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                exec(code, g)
            except StopRun as e:
                exc = e
            except Exception as e:  # a real crash of the user's script
                exc = e
                tb = traceback.format_exc()
    finally:
        os.chdir(old_cwd)
        sys.argv = saved_argv
        for k, v in saved_mods.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return buf.getvalue(), tb, exc


def clean_tb(tb, site="/home/dana/miniconda3/envs/ml/lib/python3.11/site-packages"):
    """Make a traceback look like it came from the user's machine (paths only)."""
    tb = tb.replace(VENV_SITE, site)
    lines = tb.splitlines()
    outl, skip = [], False
    for l in lines:
        if l.startswith("  File "):
            skip = "gen_support/common.py" in l
        if not skip:
            outl.append(l)
    return "\n".join(outl) + "\n"


# ---------------------------------------------------------------- chat exports
def chat_md(title, turns, meta=None):
    out = [f"# {title}", ""]
    if meta:
        out += [meta, ""]
    for role, text in turns:
        out += [f"## {'User' if role == 'user' else 'Assistant'}", "", text.strip(), "", "---", ""]
    return "\n".join(out)


def chat_txt(turns, header=None):
    out = []
    if header:
        out += [header, ""]
    for role, text in turns:
        out += [f"{'User' if role == 'user' else 'Assistant'}:", text.strip(), ""]
    return "\n".join(out)


def chat_json(title, turns, create_time=1718000000.0):
    msgs = []
    t = create_time
    for i, (role, text) in enumerate(turns):
        t += 47.0 + 13 * i
        msgs.append({"id": f"msg_{i:03d}", "author": {"role": role}, "create_time": t,
                     "content": {"content_type": "text", "parts": [text.strip()]}})
    return json.dumps({"title": title, "create_time": create_time, "mapping_format": "linear",
                       "messages": msgs}, indent=2)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def fence(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```"


def make_teacher(n, d, k, seed, tau):
    """Labels from a random 2-layer 'teacher' net plus Gumbel noise (smooth, Bayes-limited task)."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d).astype(np.float32)
    W1 = rng.randn(d, 32) / np.sqrt(d)
    W2 = rng.randn(32, k) / np.sqrt(32) * 3
    lg = np.maximum(X @ W1, 0) @ W2 + rng.gumbel(size=(n, k)) * tau
    return X, lg.argmax(1).astype(np.int64)
