"""Shared helpers for gen.py: synthetic data, running user scripts for real,
git-style diffs, a stand-in for the wandb client, timestamp re-basing."""
import contextlib
import datetime as _dt
import difflib
import hashlib
import io
import logging
import os
import re
import runpy
import shutil
import subprocess
import sys
import traceback
import types

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUTDIR = os.path.dirname(HERE)
WORK = os.path.join(OUTDIR, ".work")


# ----------------------------------------------------------------------------- data
def make_task(seed, n, d=20, k=5, latent=8, sep=1.5, noise=1.0, class_probs=None):
    """Gaussian clusters (two per class) in a latent space, pushed through a random
    nonlinear map to d features.  An MLP reaches ~90 % on it."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(k * 2, latent)) * sep
    if class_probs is None:
        y = rng.integers(0, k, n)
    else:
        y = rng.choice(k, size=n, p=np.asarray(class_probs) / np.sum(class_probs))
    sub = rng.integers(0, 2, n)
    z = centers[y * 2 + sub] + rng.normal(size=(n, latent)) * noise
    W1 = rng.normal(size=(latent, d)) / np.sqrt(latent)
    h = z @ W1
    x = np.tanh(h) * 2 + 0.3 * h + 0.1 * rng.normal(size=(n, d))
    return x.astype(np.float32), y.astype(np.int64)


# ----------------------------------------------------------------------------- project dirs
def write_project(name, files):
    """Write {relpath: text} into a fresh working dir and return it."""
    wd = os.path.join(WORK, name)
    if os.path.exists(wd):
        shutil.rmtree(wd)
    os.makedirs(wd)
    for rel, text in files.items():
        p = os.path.join(wd, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    return wd


def apply_edits(files, edits):
    """edits: list of (relpath, old, new); every old must occur exactly once."""
    out = dict(files)
    for rel, old, new in edits:
        src = out[rel]
        assert src.count(old) == 1, (rel, old[:60], src.count(old))
        out[rel] = src.replace(old, new)
    return out


# ----------------------------------------------------------------------------- fake wandb
class _Run:
    def __init__(self, project, name, config):
        self.project, self.name, self.config = project, name, dict(config or {})
        self.history = []
        self.summary = {}
        self._step = 0
        self.id = hashlib.sha1(f"{project}/{name}".encode()).hexdigest()[:8]

    def log(self, d, step=None):
        if step is None:
            step = self._step
            self._step += 1
        else:
            self._step = step + 1
        row = {"_step": step}
        row.update({k: float(v) for k, v in d.items()})
        self.history.append(row)
        self.summary.update(row)

    def finish(self):
        pass


def install_fake_wandb():
    mod = types.ModuleType("wandb")
    mod.runs = []
    mod.run = None

    def init(project=None, name=None, config=None, **kw):
        r = _Run(project, name, config)
        mod.runs.append(r)
        mod.run = r
        mod.config = r.config
        return r

    def log(d, step=None, **kw):
        mod.run.log(d, step=step)

    def finish(**kw):
        mod.run.finish()

    mod.init, mod.log, mod.finish = init, log, finish
    sys.modules["wandb"] = mod
    return mod


# ----------------------------------------------------------------------------- running scripts
def run_script(wd, script, argv=(), torch_seed=None):
    """Execute a user's script in-process (cwd=wd) and capture stdout+stderr.
    Returns (output_text, exception_or_None)."""
    old_cwd, old_path, old_argv = os.getcwd(), list(sys.path), list(sys.argv)
    local_mods = [f[:-3] for f in os.listdir(wd) if f.endswith(".py")]
    for m in local_mods:
        sys.modules.pop(m, None)
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    buf = io.StringIO()
    exc = None
    os.chdir(wd)
    sys.path.insert(0, wd)
    sys.argv = [script] + list(argv)
    if torch_seed is not None:
        torch.manual_seed(torch_seed)
        np.random.seed(torch_seed)
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                runpy.run_path(script, run_name="__main__")
            except SystemExit:
                pass
            except Exception as e:  # noqa
                exc = e
            for h in list(root.handlers):
                h.flush()
                root.removeHandler(h)
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path
        sys.argv = old_argv
        for m in local_mods:
            sys.modules.pop(m, None)
    return buf.getvalue(), exc


def run_subprocess(wd, argv, env_extra=None, timeout=120):
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"})
    env.update(env_extra or {})
    p = subprocess.run([sys.executable] + list(argv), cwd=wd, env=env, capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


# ----------------------------------------------------------------------------- text utils
def git_blob_hash(text):
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


_FUNC = re.compile(r"^[A-Za-z_$]")
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@$")


def _add_funcname(body, old_lines):
    """git's default hunk-header context: the last line before the hunk that starts with a letter, _ or $."""
    res = []
    for ln in body.splitlines(True):
        m = _HUNK.match(ln.rstrip("\n"))
        if m:
            start = int(m.group(1)) - 1
            for j in range(start - 1, -1, -1):
                if _FUNC.match(old_lines[j]):
                    ln = ln.rstrip("\n") + " " + old_lines[j].rstrip()[:80] + "\n"
                    break
        res.append(ln)
    return "".join(res)


def git_diff(before, after, paths=None, context=3):
    """A `git diff` of {path: text} dicts (same keys or new files)."""
    out = []
    keys = paths or sorted(set(before) | set(after))
    for p in keys:
        a, b = before.get(p), after.get(p)
        if a == b:
            continue
        if a is None:
            out.append(f"diff --git a/{p} b/{p}\nnew file mode 100644\n"
                       f"index 0000000..{git_blob_hash(b)[:7]}\n")
            fromfile = "/dev/null"
        else:
            out.append(f"diff --git a/{p} b/{p}\n"
                       f"index {git_blob_hash(a)[:7]}..{git_blob_hash(b)[:7]} 100644\n")
            fromfile = f"a/{p}"
        lines = difflib.unified_diff((a or "").splitlines(True), b.splitlines(True),
                                     fromfile, f"b/{p}", n=context)
        out.append(_add_funcname("".join(lines), (a or "").splitlines()))
    return "".join(out)


def retime(text, start, scale=1.0, fmt_ms=True):
    """Rebase 'YYYY-MM-DD HH:MM:SS(,mmm)' stamps to `start` (a datetime), stretching the
    elapsed time by `scale` (a CPU toy run stands in for a longer real one)."""
    pat = re.compile(r"(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})([,.]\d{3})?")
    t0 = None

    def sub(m):
        nonlocal t0
        t = _dt.datetime.strptime(m.group(1).replace("T", " "), "%Y-%m-%d %H:%M:%S")
        if m.group(2):
            t += _dt.timedelta(milliseconds=int(m.group(2)[1:]))
        if t0 is None:
            t0 = t
        nt = start + (t - t0) * scale
        s = nt.strftime("%Y-%m-%d %H:%M:%S")
        if m.group(2):
            s += m.group(2)[0] + f"{nt.microsecond // 1000:03d}"
        if "T" in m.group(1):
            s = s.replace(" ", "T", 1)
        return s

    return pat.sub(sub, text)


def scrub_paths(text, wd, user_root):
    venv = os.path.dirname(os.path.dirname(torch.__file__))  # .../site-packages
    text = text.replace(wd, user_root)
    text = text.replace(venv, "/home/dev/miniconda3/envs/ml/lib/python3.11/site-packages")
    return text


def save(outdir, files):
    for rel, text in files.items():
        p = os.path.join(outdir, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)


def wandb_csv(runs, keys, step_key="Step", every=1):
    """W&B 'Export panel data as CSV' style: one row per step, columns
    '<run> - <key>', '<run> - <key>__MIN', '<run> - <key>__MAX'."""
    steps = sorted({r["_step"] for run in runs for r in run.history if any(k in r for k in keys)})
    cols = [step_key]
    for run in runs:
        for k in keys:
            cols += [f"{run.name} - {k}", f"{run.name} - {k}__MIN", f"{run.name} - {k}__MAX"]
    idx = {run.name: {r["_step"]: r for r in run.history} for run in runs}
    lines = [",".join(f'"{c}"' for c in cols)]
    for s in steps[::every]:
        row = [str(s)]
        for run in runs:
            r = idx[run.name].get(s, {})
            for k in keys:
                v = r.get(k)
                cell = "" if v is None else repr(float(v))
                row += [cell, cell, cell]
        lines.append(",".join(row))
    return "\n".join(lines) + "\n"


def diffstat(before, after):
    rows, ins_t, del_t = [], 0, 0
    for p in sorted(set(before) | set(after)):
        a, b = before.get(p, ""), after.get(p, "")
        if a == b:
            continue
        ins = dels = 0
        for ln in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0):
            if ln.startswith("+") and not ln.startswith("+++"):
                ins += 1
            elif ln.startswith("-") and not ln.startswith("---"):
                dels += 1
        rows.append((p, ins, dels))
        ins_t += ins
        del_t += dels
    w = max(len(p) for p, _, _ in rows)
    out = "".join(f" {p.ljust(w)} | {i + d} {'+' * i}{'-' * d}\n" for p, i, d in rows)
    out += (f" {len(rows)} file{'s' if len(rows) > 1 else ''} changed, {ins_t} insertion{'s' if ins_t != 1 else ''}(+), "
            f"{del_t} deletion{'s' if del_t != 1 else ''}(-)\n")
    return out
