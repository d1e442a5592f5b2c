"""Run a user script for real, in a scratch folder, and capture its output."""
import contextlib
import io
import os
import runpy
import shutil
import sys
import tempfile
import time
import traceback

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


WORK = os.path.join(os.path.dirname(HERE), ".work")


def workdir():
    os.makedirs(WORK, exist_ok=True)
    d = tempfile.mkdtemp(prefix="mlq_", dir=WORK)
    os.makedirs(os.path.join(d, "data"))
    os.makedirs(os.path.join(d, "checkpoints"))
    return d


def save_npz(wd, name, **arrays):
    np.savez(os.path.join(wd, "data", name), **arrays)


def run_script(wd, script_src, as_name, argv=(), extra_files=None, seed=None):
    """Copy gen_support/scripts/<script_src> to wd/<as_name> and run it there.
    Returns (stdout_text, exception_text_or_None, seconds)."""
    shutil.copy(os.path.join(HERE, "scripts", script_src), os.path.join(wd, as_name))
    for src, dst in (extra_files or {}).items():
        shutil.copy(os.path.join(HERE, "scripts", src), os.path.join(wd, dst))
    old_cwd, old_argv, old_path = os.getcwd(), sys.argv, list(sys.path)
    buf = io.StringIO()
    err = None
    t0 = time.time()
    try:
        os.chdir(wd)
        sys.argv = [as_name] + list(argv)
        sys.path.insert(0, wd)
        if seed is not None:
            torch.manual_seed(seed)
        with contextlib.redirect_stdout(buf):
            runpy.run_path(as_name, run_name="__main__")
    except Exception:
        err = traceback.format_exc()
    finally:
        os.chdir(old_cwd)
        sys.argv = old_argv
        sys.path[:] = old_path
        for mod in ("model",):
            sys.modules.pop(mod, None)
    return buf.getvalue(), err, time.time() - t0


def script_text(script_src):
    with open(os.path.join(HERE, "scripts", script_src)) as f:
        return f.read()
