"""Helpers: run a student's file for real, capture its output, format grader outputs."""
import contextlib
import importlib.util
import io
import json
import os
import random
import sys
import time
import traceback
import runpy

import numpy as np
import torch

TORCH_DIR = os.path.dirname(torch.__file__)


def seed_all(s):
    random.seed(s)
    np.random.seed(s)
    torch.manual_seed(s)


class Tee(io.StringIO):
    pass


def run_script(path, workdir, argv=None):
    """Run a student's script as __main__ inside workdir. Returns (stdout, exc, wall, globals)."""
    buf = io.StringIO()
    old_cwd = os.getcwd()
    old_argv = sys.argv
    exc = None
    g = {}
    t0 = time.time()
    os.chdir(workdir)
    sys.argv = [os.path.basename(path)] + list(argv or [])
    try:
        with contextlib.redirect_stdout(buf):
            g = runpy.run_path(path, run_name="__main__")
    except BaseException as e:  # noqa
        exc = e
    finally:
        os.chdir(old_cwd)
        sys.argv = old_argv
    return buf.getvalue(), exc, time.time() - t0, g


def import_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def format_tb(exc, path_map, keep=lambda fn: True):
    """Format a real traceback; drop harness frames, rewrite paths as on the user's machine."""
    te = traceback.TracebackException.from_exception(exc)
    frames = [f for f in te.stack
              if "runpy" not in f.filename and "gen_support" not in f.filename
              and not f.filename.endswith("gen.py") and keep(f.filename)]
    te.stack = traceback.StackSummary.from_list(frames)
    txt = "".join(te.format())
    for a, b in path_map:
        txt = txt.replace(a, b)
    return txt


def gradescope_json(tests, exec_time, output="", extra=None):
    score = round(sum(t["score"] for t in tests), 2)
    d = {"score": score, "execution_time": round(exec_time, 2), "output": output,
         "visibility": "visible", "stdout_visibility": "visible", "tests": tests}
    if extra:
        d.update(extra)
    return json.dumps(d, indent=2)


def gs_test(name, number, max_score, passed, output, score=None):
    return {"name": name, "number": number,
            "score": float(max_score if passed else 0) if score is None else float(score),
            "max_score": float(max_score),
            "status": "passed" if passed else "failed", "output": output}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
