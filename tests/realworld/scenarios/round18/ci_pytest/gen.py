#!/usr/bin/env python
"""Build CI/pytest-style run folders by really training small torch models.

Every run is a tiny Python package with a pytest suite.  The suite is really
executed (``python -m pytest`` on CPU, in a subprocess), its output is wrapped
in a GitHub Actions / GitLab CI / tox / nox job log with step headers and
timestamps, and the artifacts the tests wrote (training logs) are copied next
to it.  The packages are built under ``build/`` (next to this file); only the
material a user would hand over ends up in ``runs/<name>/``.

Usage:  python gen.py            # all runs
        python gen.py run04 run07 # a subset
"""
from __future__ import annotations

import difflib
import hashlib
import importlib.metadata as md
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"
BUILD = HERE / "build"
PY = sys.executable
SITE = sysconfig.get_paths()["purelib"]
STDLIB = sysconfig.get_paths()["stdlib"]

TRUTH: dict = {}
CHECKS: dict = {}


def D(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


def ver(name: str) -> str:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "0.0.0"


def hexid(seed: str, n: int = 40) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


# ---------------------------------------------------------------------------
# project files
# ---------------------------------------------------------------------------

def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def pyproject(name: str, version: str, deps: list[str], extra: str = "") -> str:
    dep_s = ", ".join(f'"{d}"' for d in deps)
    return D(f"""
        [build-system]
        requires = ["setuptools>=68", "wheel"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{name}"
        version = "{version}"
        requires-python = ">=3.10"
        dependencies = [{dep_s}]

        [tool.setuptools.packages.find]
        where = ["src"]

        [tool.pytest.ini_options]
        pythonpath = ["src"]
        testpaths = ["tests"]
        """) + extra


CONFTEST = D('''
    from pathlib import Path

    import pytest
    import torch

    torch.set_num_threads(1)

    ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


    @pytest.fixture(scope="session")
    def artifact_dir():
        ARTIFACTS.mkdir(exist_ok=True)
        return ARTIFACTS
    ''')


# ---------------------------------------------------------------------------
# running pytest for real
# ---------------------------------------------------------------------------

def run_cmd(root: Path, args: list[str], extra_env: dict | None = None,
            rlimit_as: int | None = None, timeout: int = 900):
    """Run ``python <args>`` in root, return ([(t_offset, line)], rc, wall)."""
    tmp = root.parent / "_tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST", "COLUMNS", "LINES", "VIRTUAL_ENV"))}
    env.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
               PYTEST_ADDOPTS="-p no:cacheprovider",
               PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
               TMPDIR=str(tmp), TERM="dumb", CI="true")
    if extra_env:
        env.update(extra_env)

    def limit():
        if rlimit_as:
            resource.setrlimit(resource.RLIMIT_AS, (rlimit_as, rlimit_as))

    t0 = time.monotonic()
    p = subprocess.Popen([PY, *args], cwd=root, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=env,
                         preexec_fn=limit)
    lines = []
    assert p.stdout is not None
    for line in p.stdout:
        lines.append((time.monotonic() - t0, line.rstrip("\n")))
        if time.monotonic() - t0 > timeout:
            p.kill()
            break
    rc = p.wait()
    return lines, rc, time.monotonic() - t0


def run_pytest(root: Path, pytest_args: list[str], **kw):
    return run_cmd(root, ["-m", "pytest", *pytest_args], **kw)


def run_python(root: Path, code: str, **kw):
    lines, rc, wall = run_cmd(root, ["-c", code], **kw)
    if rc != 0:
        raise RuntimeError("helper script failed:\n" + "\n".join(l for _, l in lines))
    return "\n".join(l for _, l in lines)


class Env:
    """Where things live on the CI machine (used to rewrite local paths)."""

    def __init__(self, kind: str, repo: str, group: str = "ml", venv: str | None = None):
        self.kind = kind
        if kind == "gh":
            self.root = f"/home/runner/work/{repo}/{repo}"
            base = "/opt/hostedtoolcache/Python/3.11.7/x64"
            self.py = f"{base}/bin/python"
            self.site = f"{base}/lib/python3.11/site-packages"
            self.stdlib = f"{base}/lib/python3.11"
            self.tmp = "/home/runner/work/_temp"
        else:
            self.root = f"/builds/{group}/{repo}"
            self.py = "/usr/local/bin/python"
            self.site = "/usr/local/lib/python3.11/site-packages"
            self.stdlib = "/usr/local/lib/python3.11"
            self.tmp = f"/builds/{group}/{repo}.tmp"
        if venv:  # tox / nox virtualenv inside the checkout
            self.py = f"{self.root}/{venv}/bin/python"
            self.site = f"{self.root}/{venv}/lib/python3.11/site-packages"

    def clean(self, text: str, root: Path) -> str:
        reps = [
            (PY, self.py),
            (str(Path(PY).parent), str(Path(self.py).parent)),
            (SITE, self.site),
            (STDLIB, self.stdlib),
            (str(root.parent / "_tmp"), self.tmp),
            (str(root), self.root),
            (str(HERE), self.root),
            (sys.prefix, str(Path(self.py).parent.parent)),
        ]
        for a, b in reps:
            text = text.replace(a, b)
        if self.kind == "gh":
            text = text.replace("pytest-of-root", "pytest-of-runner")
        return text


# ---------------------------------------------------------------------------
# CI log writers
# ---------------------------------------------------------------------------

class Log:
    def __init__(self, style: str, start: datetime):
        self.style = style
        self.t = start
        self.out: list[str] = []

    def _fmt(self, t: datetime, line: str) -> str:
        if self.style == "gh":
            return f"{t:%Y-%m-%dT%H:%M:%S}.{t.microsecond:06d}{t.microsecond % 7}Z {line}"
        return f"{t:%Y-%m-%dT%H:%M:%S}.{t.microsecond:06d}Z 00O {line}"

    def add(self, text: str = "", dt: float = 0.0, spread: bool = False):
        parts = text.split("\n")
        if spread and len(parts) > 1:
            step = dt / len(parts)
            for line in parts:
                self.t += timedelta(seconds=step)
                self.out.append(self._fmt(self.t, line))
            return
        self.t += timedelta(seconds=dt)
        for line in parts:
            self.out.append(self._fmt(self.t, line))

    def stream(self, lines, wall: float, env: Env, root: Path):
        base = self.t
        for off, line in lines:
            self.out.append(self._fmt(base + timedelta(seconds=off), env.clean(line, root)))
        self.t = base + timedelta(seconds=wall)

    def text(self) -> str:
        return "\n".join(self.out) + "\n"


WHEELS = {
    "torch": ("torch-{v}-cp311-cp311-manylinux_2_28_x86_64.whl", 184.3),
    "numpy": ("numpy-{v}-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl", 16.4),
    "pandas": ("pandas-{v}-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl", 11.8),
    "pyyaml": ("PyYAML-{v}-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", 0.76),
    "pytest": ("pytest-{v}-py3-none-any.whl", 0.37),
    "filelock": ("filelock-{v}-py3-none-any.whl", 0.02),
    "typing-extensions": ("typing_extensions-{v}-py3-none-any.whl", 0.05),
    "sympy": ("sympy-{v}-py3-none-any.whl", 6.3),
    "networkx": ("networkx-{v}-py3-none-any.whl", 2.0),
    "jinja2": ("jinja2-{v}-py3-none-any.whl", 0.13),
    "fsspec": ("fsspec-{v}-py3-none-any.whl", 0.2),
    "mpmath": ("mpmath-{v}-py3-none-any.whl", 0.54),
    "markupsafe": ("MarkupSafe-{v}-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", 0.02),
    "pluggy": ("pluggy-{v}-py3-none-any.whl", 0.02),
    "iniconfig": ("iniconfig-{v}-py3-none-any.whl", 0.01),
    "packaging": ("packaging-{v}-py3-none-any.whl", 0.07),
    "pygments": ("pygments-{v}-py3-none-any.whl", 1.2),
    "python-dateutil": ("python_dateutil-{v}-py2.py3-none-any.whl", 0.23),
    "tzdata": ("tzdata-{v}-py2.py3-none-any.whl", 0.35),
    "six": ("six-1.17.0-py2.py3-none-any.whl", 0.01),
}
DEPS = {
    "torch": ["filelock", "typing-extensions", "sympy", "networkx", "jinja2", "fsspec"],
    "sympy": ["mpmath"], "jinja2": ["markupsafe"],
    "pytest": ["iniconfig", "packaging", "pluggy", "pygments"],
    "pandas": ["numpy", "python-dateutil", "tzdata"], "python-dateutil": ["six"],
}
REAL = {"torch": ver("torch"), "numpy": ver("numpy"), "pandas": ver("pandas"),
        "pyyaml": ver("PyYAML"), "pytest": ver("pytest"), "filelock": ver("filelock"),
        "typing-extensions": ver("typing_extensions"), "sympy": ver("sympy"),
        "networkx": ver("networkx"), "jinja2": ver("Jinja2"), "fsspec": ver("fsspec"),
        "mpmath": ver("mpmath"), "markupsafe": ver("MarkupSafe"), "pluggy": ver("pluggy"),
        "iniconfig": ver("iniconfig"), "packaging": ver("packaging"),
        "pygments": ver("Pygments"), "python-dateutil": ver("python-dateutil"),
        "tzdata": ver("tzdata"), "six": "1.17.0"}


def pip_lines(direct: list[tuple[str, str]], versions: dict | None = None,
              src: str = "-r requirements.txt", cached: bool = False, rng=None) -> tuple[str, float]:
    """Fake-free pip transcript for the versions actually used (resolved list)."""
    versions = {**REAL, **(versions or {})}
    rng = rng or random.Random(0)
    out, order, seen = [], [], set()

    def visit(name, req, parent):
        if name in seen:
            return
        seen.add(name)
        order.append(name)
        v = versions[name]
        how = f"(from {src} (line {parent}))" if isinstance(parent, int) else f"(from {parent})"
        out.append(f"Collecting {req} {how}")
        fname, size = WHEELS[name]
        fname = fname.format(v=v.replace("+", "%2B"))
        if cached:
            out.append(f"  Using cached {fname} ({size:.1f} MB)" if size >= 1 else
                       f"  Using cached {fname} ({int(size * 1000)} kB)")
        else:
            if name == "torch":
                url = "https://download.pytorch.org/whl/cpu/" + fname
            else:
                url = f"https://files.pythonhosted.org/packages/{hexid(name + v, 2)}/{hexid(v + name, 2)}/{hexid(name, 60)}/{fname}"
            sz = f"{size:.1f} MB" if size >= 1 else f"{int(size * 1000)} kB"
            out.append(f"  Downloading {url} ({sz})")
            speed = rng.uniform(40, 140) if size >= 1 else rng.uniform(2, 30)
            bar = "\u2501" * 40
            unit = "MB" if size >= 1 else "kB"
            amount = f"{size:.1f}/{size:.1f}" if size >= 1 else f"{int(size * 1000)}/{int(size * 1000)}"
            out.append(f"     {bar} {amount} {unit} {speed:.1f} MB/s eta 0:00:00")
        for dep in DEPS.get(name, []):
            visit(dep, f"{dep}>=0" if dep not in versions else dep, f"{name}=={v}")

    for i, (name, req) in enumerate(direct, 1):
        visit(name, req, i)
    out.append("Installing collected packages: " + ", ".join(reversed(order)))
    out.append("Successfully installed " + " ".join(f"{n}-{versions[n]}" for n in sorted(order)))
    dur = sum(WHEELS[n][1] for n in order) / (300 if cached else 60) + 6 + rng.uniform(0, 4)
    return "\n".join(out), dur


# --- GitHub Actions ----------------------------------------------------------

def gh_begin(log: Log, job: str, rng) -> None:
    log.add(D(f"""
        Current runner version: '2.329.0'
        Runner name: 'GitHub Actions {rng.randint(10, 99)}'
        Runner group name: 'GitHub Actions'
        Operating System
          Ubuntu
          24.04.1
          LTS
        Runner Image
          Image: ubuntu-24.04
          Version: 20261019.1.0
        GITHUB_TOKEN Permissions
          Contents: read
          Metadata: read
        Secret source: Actions
        Prepare workflow directory
        Prepare all required actions
        Getting action download info
        Download action repository 'actions/checkout@v4' (SHA:11bd71901bbe5b1630ceea73d27597364c9af683)
        Download action repository 'actions/setup-python@v5' (SHA:42375524e23c412d93fb67b49958b491fce71c38)
        Download action repository 'actions/upload-artifact@v4' (SHA:65c4c4a1ddee5b72f698fdd19549f0f0fb45cf08)
        Complete job name: {job}""").rstrip())


def gh_checkout(log: Log, repo: str, sha: str, ref: str, rng) -> None:
    log.add(f"##[group]Run actions/checkout@v4", rng.uniform(0.5, 1.5))
    log.add("with:\n  repository: acme-ml/" + repo + "\n  fetch-depth: 1")
    log.add("##[endgroup]")
    log.add(f"Syncing repository: acme-ml/{repo}", 0.1)
    log.add(f"[command]/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin +{sha}:{ref}", 0.3)
    log.add(f"[command]/usr/bin/git checkout --progress --force -B {ref.split('/')[-1]} {ref}", rng.uniform(0.5, 1.2))
    log.add(f"[command]/usr/bin/git log -1 --format=%H\n{sha}", 0.05)


def gh_setup_python(log: Log, rng) -> None:
    log.add("##[group]Run actions/setup-python@v5", rng.uniform(0.2, 0.6))
    log.add("with:\n  python-version: 3.11\n  cache: pip\n  check-latest: false\n  update-environment: true")
    log.add("##[endgroup]")
    log.add("##[group]Installed versions", 0.2)
    log.add("Successfully set up CPython (3.11.7)", 0.8)
    log.add("##[endgroup]")


def gh_step(log: Log, cmd: str, env: Env, dt: float = 0.3) -> None:
    first = cmd.split("\n")[0]
    log.add(f"##[group]Run {first}", dt)
    log.add(cmd)
    log.add("shell: /usr/bin/bash -e {0}\nenv:\n  pythonLocation: /opt/hostedtoolcache/Python/3.11.7/x64\n"
            "  LD_LIBRARY_PATH: /opt/hostedtoolcache/Python/3.11.7/x64/lib")
    log.add("##[endgroup]")


def gh_end(log: Log, rc: int, artifact: str | None, rng) -> None:
    if rc != 0:
        log.add(f"##[error]Process completed with exit code {rc}.", 0.05)
    if artifact:
        log.add(f"##[group]Run actions/upload-artifact@v4", 0.2)
        log.add(f"with:\n  name: {artifact}\n  path: artifacts/\n  if-no-files-found: warn")
        log.add("##[endgroup]")
        log.add("With the provided path, there will be 2 files uploaded", 0.4)
        log.add(f"Artifact {artifact}.zip successfully finalized. Artifact ID {rng.randint(2_000_000_000, 2_600_000_000)}", 1.1)
    log.add("Post job cleanup.", 0.6)
    log.add("Cleaning up orphan processes", 0.4)


# --- GitLab CI ---------------------------------------------------------------

def gl_begin(log: Log, repo: str, group: str, sha: str, ref: str, rng, image="python:3.11-slim") -> None:
    runner = hexid(repo + "runner", 8)
    log.add(D(f"""
        Running with gitlab-runner 18.4.0 (4d7093e1)
          on docker-runner-{rng.randint(1, 6):02d} {runner}, system ID: s_{hexid(repo, 12)}
        Preparing the "docker" executor"""))
    log.add(f"Using Docker executor with image {image} ...", 0.3)
    log.add(f"Pulling docker image {image} ...", 0.1)
    log.add(f"Using docker image sha256:{hexid(image, 64)} for {image} with digest python@sha256:{hexid(image + 'd', 64)} ...",
            rng.uniform(1.5, 4))
    log.add("Preparing environment", 0.2)
    log.add(f"Running on runner-{runner}-project-{rng.randint(1000, 9999)}-concurrent-0 via docker-runner...", 0.9)
    log.add("Getting source from Git repository", 0.4)
    log.add("Fetching changes with git depth set to 20...", 0.1)
    log.add(f"Initialized empty Git repository in /builds/{group}/{repo}/.git/", 0.1)
    log.add("Created fresh repository.")
    log.add(f"Checking out {sha[:8]} as detached HEAD (ref is {ref})...", rng.uniform(0.8, 1.6))
    log.add("Skipping Git submodules setup", 0.1)
    log.add("Restoring cache", 0.1)
    log.add(f"Checking cache for pip-{hexid(repo, 6)}-protected...", 0.1)
    log.add("No URL provided, cache will not be downloaded from shared cache server. Instead a local version of cache will be extracted.")
    log.add("Successfully extracted cache", 0.7)
    log.add('Executing "step_script" stage of the job script', 0.2)
    log.add(f"Using docker image sha256:{hexid(image, 64)} for {image} with digest python@sha256:{hexid(image + 'd', 64)} ...", 0.3)


def gl_end(log: Log, rc: int, rng, artifacts: bool = True) -> None:
    log.add('Running after_script', 0.3)
    if artifacts:
        log.add("Uploading artifacts for " + ("failed" if rc else "successful") + " job", 0.4)
        log.add("Uploading artifacts...", 0.1)
        log.add("artifacts/: found 3 matching artifact files and directories", 0.1)
        log.add(f"Uploading artifacts as \"archive\" to coordinator... 201 Created  id={rng.randint(8_000_000_000, 9_000_000_000)} responseStatus=201 Created token=glcbt-64", 0.8)
    log.add("Cleaning up project directory and file based variables", 0.4)
    if rc:
        log.add(f"ERROR: Job failed: exit code {rc}", 0.2)
    else:
        log.add("Job succeeded", 0.2)


def save_run(name: str, files: dict[str, str], copies: dict[str, Path] | None = None) -> None:
    d = RUNS / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    for rel, text in files.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for rel, src in (copies or {}).items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, p)


def fresh(name: str, sub: str = "repo") -> Path:
    root = BUILD / name / sub
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    return root


def git_diff(path: str, old: str, new: str) -> str:
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    body = "".join(difflib.unified_diff(a, b, f"a/{path}", f"b/{path}", n=3))
    h1, h2 = hexid(path + old, 7), hexid(path + new, 7)
    return f"diff --git a/{path} b/{path}\nindex {h1}..{h2} 100644\n" + body


def read_csv_rows(path: Path) -> list[dict]:
    import csv
    with open(path) as f:
        return list(csv.DictReader(f))


def tail_summary(lines) -> str:
    for _, l in reversed(lines):
        if re.search(r"\d+ (passed|failed|error)", l) and " in " in l:
            return l.strip("= ")
    return "?"


# ===========================================================================
# run02: two-moons MLP, gradients never cleared between steps
# ===========================================================================

R02_TRAIN = D('''
    import csv
    import math

    import numpy as np
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset


    def make_moons(n_samples=1000, noise=0.15, seed=0):
        rng = np.random.default_rng(seed)
        n_out = n_samples // 2
        n_in = n_samples - n_out
        t_out = rng.uniform(0, math.pi, n_out)
        t_in = rng.uniform(0, math.pi, n_in)
        outer = np.stack([np.cos(t_out), np.sin(t_out)], axis=1)
        inner = np.stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5], axis=1)
        X = np.concatenate([outer, inner]).astype(np.float32)
        y = np.concatenate([np.zeros(n_out), np.ones(n_in)]).astype(np.int64)
        X += rng.normal(0.0, noise, X.shape).astype(np.float32)
        perm = rng.permutation(n_samples)
        return torch.from_numpy(X[perm]), torch.from_numpy(y[perm])


    class MLP(nn.Module):
        def __init__(self, hidden=64, n_classes=2):
            super().__init__()
            self.net = nn.Sequential(
                nn.Linear(2, hidden), nn.ReLU(),
                nn.Linear(hidden, hidden), nn.ReLU(),
                nn.Linear(hidden, n_classes),
            )

        def forward(self, x):
            return self.net(x)


    def grad_norm(model):
        total = 0.0
        for p in model.parameters():
            if p.grad is not None:
                total += p.grad.detach().pow(2).sum().item()
        return math.sqrt(total)


    def _write_log(rows, path):
        if path is None:
            return
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


    @torch.no_grad()
    def accuracy(model, X, y):
        model.eval()
        acc = (model(X).argmax(dim=1) == y).float().mean().item()
        model.train()
        return acc


    def overfit_batch(model, xb, yb, steps=150, lr=1e-2, log_path=None):
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        loss_fn = nn.CrossEntropyLoss()
        rows = []
        for step in range(1, steps + 1):
            loss = loss_fn(model(xb), yb)
            loss.backward()
            gn = grad_norm(model)
            opt.step()
            rows.append({"step": step, "loss": round(loss.item(), 5), "grad_norm": round(gn, 4)})
        _write_log(rows, log_path)
        return rows


    def fit(model, X, y, X_val, y_val, epochs=15, lr=1e-2, batch_size=64, seed=0, log_path=None):
        torch.manual_seed(seed)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        loss_fn = nn.CrossEntropyLoss()
        loader = DataLoader(TensorDataset(X, y), batch_size=batch_size, shuffle=True)
        rows = []
        for epoch in range(1, epochs + 1):
            losses, norms = [], []
            for xb, yb in loader:
                loss = loss_fn(model(xb), yb)
                loss.backward()
                norms.append(grad_norm(model))
                opt.step()
                losses.append(loss.item())
            rows.append({
                "epoch": epoch,
                "train_loss": round(sum(losses) / len(losses), 5),
                "grad_norm": round(sum(norms) / len(norms), 4),
                "val_acc": round(accuracy(model, X_val, y_val), 4),
            })
            print(f"epoch {epoch:02d} train_loss={rows[-1]['train_loss']:.4f} "
                  f"grad_norm={rows[-1]['grad_norm']:.3f} val_acc={rows[-1]['val_acc']:.3f}")
        _write_log(rows, log_path)
        return rows
    ''')

R02_TESTS = {
    "tests/conftest.py": CONFTEST,
    "tests/test_data.py": D('''
        import pytest
        import torch

        from moonsnet.train import make_moons


        @pytest.mark.parametrize("n", [10, 101, 1000])
        def test_shapes(n):
            X, y = make_moons(n)
            assert X.shape == (n, 2)
            assert y.shape == (n,)


        @pytest.mark.parametrize("seed", [0, 1, 7])
        def test_deterministic(seed):
            a, _ = make_moons(200, seed=seed)
            b, _ = make_moons(200, seed=seed)
            assert torch.equal(a, b)


        def test_classes_balanced():
            _, y = make_moons(1000)
            assert abs(y.float().mean().item() - 0.5) < 0.01


        def test_dtypes():
            X, y = make_moons(50)
            assert X.dtype == torch.float32 and y.dtype == torch.int64
        '''),
    "tests/test_model.py": D('''
        import pytest
        import torch

        from moonsnet.train import MLP, accuracy, grad_norm


        @pytest.mark.parametrize("batch", [1, 7, 64])
        def test_forward_shape(batch):
            assert MLP()(torch.randn(batch, 2)).shape == (batch, 2)


        def test_param_count():
            assert sum(p.numel() for p in MLP(hidden=64).parameters()) == 4482


        def test_grad_norm_none_before_backward():
            assert grad_norm(MLP()) == 0.0


        def test_accuracy_in_range():
            torch.manual_seed(0)
            acc = accuracy(MLP(), torch.randn(32, 2), torch.randint(0, 2, (32,)))
            assert 0.0 <= acc <= 1.0
        '''),
    "tests/test_train.py": D('''
        import torch

        from moonsnet.train import MLP, fit, make_moons, overfit_batch


        def test_overfits_one_batch(artifact_dir):
            torch.manual_seed(0)
            X, y = make_moons(64, seed=3)
            rows = overfit_batch(MLP(), X, y, steps=150, log_path=artifact_dir / "overfit_one_batch.csv")
            final = rows[-1]["loss"]
            assert final < 0.1, f"loss {final:.2f} did not drop below 0.1"


        def test_fit_reaches_val_accuracy(artifact_dir):
            torch.manual_seed(0)
            X, y = make_moons(1000, seed=0)
            Xv, yv = make_moons(400, seed=1)
            rows = fit(MLP(), X, y, Xv, yv, epochs=15, log_path=artifact_dir / "fit_moons.csv")
            assert rows[-1]["val_acc"] >= 0.95


        def test_fit_logs_every_epoch():
            torch.manual_seed(0)
            X, y = make_moons(128, seed=0)
            rows = fit(MLP(), X, y, X, y, epochs=3)
            assert [r["epoch"] for r in rows] == [1, 2, 3]
        '''),
}


def run02():
    name, repo = "run02", "moons-classifier"
    rng = random.Random(2)
    root = fresh(name)
    files = {"src/moonsnet/__init__.py": '__version__ = "0.4.0"\n',
             "src/moonsnet/train.py": R02_TRAIN,
             "pyproject.toml": pyproject("moonsnet", "0.4.0", ["torch>=2.1", "numpy>=1.24"]),
             "requirements.txt": f"torch=={REAL['torch']}\nnumpy=={REAL['numpy']}\npytest=={REAL['pytest']}\n"}
    files.update(R02_TESTS)
    write_tree(root, files)
    env = Env("gh", repo)
    lines, rc, wall = run_pytest(root, ["-ra", "--durations=5"])
    log = Log("gh", datetime(2026, 10, 6, 14, 21, 7, 118000))
    sha = hexid("run02sha")
    gh_begin(log, "test", rng)
    gh_checkout(log, repo, sha, "refs/remotes/pull/57/merge", rng)
    gh_setup_python(log, rng)
    gh_step(log, "python -m pip install --upgrade pip\npip install -r requirements.txt\npip install -e . --no-deps", env)
    pl, dur = pip_lines([("torch", f"torch=={REAL['torch']}"), ("numpy", f"numpy=={REAL['numpy']}"),
                         ("pytest", f"pytest=={REAL['pytest']}")], cached=True, rng=rng)
    log.add(f"Requirement already satisfied: pip in /opt/hostedtoolcache/Python/3.11.7/x64/lib/python3.11/site-packages (24.0)", 1.2)
    log.add("Collecting pip\n  Downloading pip-25.0.1-py3-none-any.whl.metadata (3.7 kB)\nDownloading pip-25.0.1-py3-none-any.whl (1.8 MB)", 0.8)
    log.add("Successfully installed pip-25.0.1", 2.1)
    log.add(pl, dur, spread=True)
    log.add("Obtaining file://" + env.root + "\n  Installing build dependencies: started", 0.4)
    log.add("  Installing build dependencies: finished with status 'done'\nBuilding wheels for collected packages: moonsnet", 3.3)
    log.add("Successfully built moonsnet\nInstalling collected packages: moonsnet\nSuccessfully installed moonsnet-0.4.0", 1.0)
    gh_step(log, "pytest -ra --durations=5", env)
    log.stream(lines, wall, env, root)
    gh_end(log, rc, "training-logs", rng)
    out = {"ci_job_test.log": log.text(), "requirements.txt": files["requirements.txt"],
           "train.py": R02_TRAIN}
    art = root / "artifacts"
    save_run(name, out, {f"artifacts/{p.name}": p for p in sorted(art.glob("*.csv"))})
    ob = read_csv_rows(art / "overfit_one_batch.csv")
    fm = read_csv_rows(art / "fit_moons.csv")
    CHECKS[name] = {"pytest": tail_summary(lines), "rc": rc,
                    "overfit_loss_first_last_max": [ob[0]["loss"], ob[-1]["loss"], max(float(r["loss"]) for r in ob)],
                    "overfit_gradnorm_first_mid_last": [ob[0]["grad_norm"], ob[len(ob) // 2]["grad_norm"], ob[-1]["grad_norm"]],
                    "fit_val_acc": [r["val_acc"] for r in fm], "fit_grad_norm": [r["grad_norm"] for r in fm]}
    TRUTH[name] = {"truth": "missing_zero_grad",
                   "symptom": "Our 'overfit one batch' sanity test started failing on my PR: the loss won't go below 0.1 even on 64 samples and the two-moons val accuracy test fails too. What broke?",
                   "how": "optimizer.zero_grad() is never called in overfit_batch() or fit() (Adam, lr 1e-2), so .grad accumulates across steps; the logged grad_norm is the norm of the accumulated gradient."}


# ===========================================================================
# run03: small CNN on synthetic glyph images (healthy, converges)
# ===========================================================================

R03_PKG = {
    "src/glyphnet/__init__.py": '__version__ = "1.2.0"\n',
    "src/glyphnet/data.py": D('''
        import numpy as np
        import torch


        def make_templates(n_classes=10, size=12, seed=1234):
            rng = np.random.default_rng(seed)
            t = (rng.random((n_classes, size, size)) < 0.35).astype(np.float32)
            t[:, :2, :] = 0
            t[:, -2:, :] = 0
            t[:, :, :2] = 0
            t[:, :, -2:] = 0
            return t


        def make_glyphs(n, n_classes=10, size=12, noise=0.35, seed=0):
            """Noisy, randomly shifted copies of fixed per-class templates."""
            rng = np.random.default_rng(seed)
            templates = make_templates(n_classes, size)
            y = rng.integers(0, n_classes, n)
            X = np.empty((n, 1, size, size), dtype=np.float32)
            for i, c in enumerate(y):
                dx, dy = rng.integers(-1, 2, 2)
                img = np.roll(np.roll(templates[c], dx, axis=0), dy, axis=1)
                img = img * rng.uniform(0.7, 1.3) + rng.normal(0, noise, img.shape)
                X[i, 0] = img
            return torch.from_numpy(X), torch.from_numpy(y.astype(np.int64))
        '''),
    "src/glyphnet/model.py": D('''
        from torch import nn


        class GlyphCNN(nn.Module):
            def __init__(self, n_classes=10, width=16):
                super().__init__()
                self.features = nn.Sequential(
                    nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                )
                self.head = nn.Sequential(nn.Flatten(), nn.Linear(2 * width * 9, 64), nn.ReLU(), nn.Linear(64, n_classes))

            def forward(self, x):
                return self.head(self.features(x))
        '''),
    "src/glyphnet/engine.py": D('''
        import csv

        import torch
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset


        @torch.no_grad()
        def evaluate(model, X, y, batch_size=256):
            model.eval()
            loss_fn = nn.CrossEntropyLoss(reduction="sum")
            total, correct = 0.0, 0
            for i in range(0, len(X), batch_size):
                out = model(X[i:i + batch_size])
                total += loss_fn(out, y[i:i + batch_size]).item()
                correct += (out.argmax(1) == y[i:i + batch_size]).sum().item()
            model.train()
            return total / len(X), correct / len(X)


        def train(model, train_data, val_data, epochs=12, lr=3e-3, batch_size=64, seed=0, log_path=None):
            torch.manual_seed(seed)
            loader = DataLoader(TensorDataset(*train_data), batch_size=batch_size, shuffle=True)
            opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
            loss_fn = nn.CrossEntropyLoss()
            history = []
            for epoch in range(1, epochs + 1):
                model.train()
                running, n = 0.0, 0
                for xb, yb in loader:
                    opt.zero_grad()
                    loss = loss_fn(model(xb), yb)
                    loss.backward()
                    opt.step()
                    running += loss.item() * len(xb)
                    n += len(xb)
                val_loss, val_acc = evaluate(model, *val_data)
                history.append({"epoch": epoch, "train_loss": round(running / n, 5),
                                "val_loss": round(val_loss, 5), "val_acc": round(val_acc, 4)})
            if log_path is not None:
                with open(log_path, "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=list(history[0]))
                    w.writeheader()
                    w.writerows(history)
            return history
        '''),
    "tests/conftest.py": CONFTEST,
    "tests/test_data.py": D('''
        import pytest
        import torch

        from glyphnet.data import make_glyphs, make_templates


        def test_templates_fixed():
            assert (make_templates() == make_templates()).all()


        def test_templates_distinct():
            t = make_templates()
            flat = t.reshape(len(t), -1)
            assert len({tuple(r) for r in flat}) == len(t)


        @pytest.mark.parametrize("n", [1, 16, 300])
        def test_glyph_shapes(n):
            X, y = make_glyphs(n)
            assert X.shape == (n, 1, 12, 12) and y.shape == (n,)


        def test_glyph_labels_in_range():
            _, y = make_glyphs(500)
            assert y.min() >= 0 and y.max() <= 9


        def test_glyph_seed():
            a, _ = make_glyphs(20, seed=5)
            b, _ = make_glyphs(20, seed=5)
            assert torch.equal(a, b)
        '''),
    "tests/test_model.py": D('''
        import pytest
        import torch

        from glyphnet.model import GlyphCNN


        @pytest.mark.parametrize("batch", [1, 2, 64])
        def test_logits_shape(batch):
            model = GlyphCNN().eval()
            assert model(torch.randn(batch, 1, 12, 12)).shape == (batch, 10)


        @pytest.mark.parametrize("width", [8, 16, 32])
        def test_width_param(width):
            model = GlyphCNN(width=width)
            assert model.features[0].out_channels == width


        def test_backward_populates_grads():
            model = GlyphCNN()
            model(torch.randn(4, 1, 12, 12)).sum().backward()
            assert all(p.grad is not None for p in model.parameters())
        '''),
    "tests/test_train.py": D('''
        import torch

        from glyphnet.data import make_glyphs
        from glyphnet.engine import evaluate, train
        from glyphnet.model import GlyphCNN


        def test_untrained_is_near_chance():
            torch.manual_seed(0)
            _, acc = evaluate(GlyphCNN(), *make_glyphs(500, seed=2))
            assert acc < 0.3


        def test_train_converges(artifact_dir):
            torch.manual_seed(0)
            hist = train(GlyphCNN(), make_glyphs(3000, seed=0), make_glyphs(600, seed=1),
                         epochs=12, log_path=artifact_dir / "train_log.csv")
            assert hist[-1]["train_loss"] < 0.2
            assert hist[-1]["val_acc"] > 0.9


        def test_history_keys():
            torch.manual_seed(0)
            hist = train(GlyphCNN(), make_glyphs(64, seed=0), make_glyphs(32, seed=1), epochs=1)
            assert set(hist[0]) == {"epoch", "train_loss", "val_loss", "val_acc"}
        '''),
}


def run03():
    name, repo = "run03", "glyph-cnn"
    rng = random.Random(3)
    root = fresh(name)
    files = dict(R03_PKG)
    files["pyproject.toml"] = pyproject("glyphnet", "1.2.0", ["torch>=2.1", "numpy>=1.24"],
                                        extra='\n[project.optional-dependencies]\ntest = ["pytest>=8"]\n')
    write_tree(root, files)
    env = Env("gh", repo)
    lines, rc, wall = run_pytest(root, ["-v"])
    log = Log("gh", datetime(2026, 10, 12, 9, 3, 51, 402000))
    gh_begin(log, "tests (ubuntu-latest, 3.11)", rng)
    gh_checkout(log, repo, hexid("run03sha"), "refs/remotes/origin/main", rng)
    gh_setup_python(log, rng)
    gh_step(log, 'pip install -e ".[test]"', env)
    log.add("Obtaining file://" + env.root, 1.0)
    log.add("  Installing build dependencies: started\n  Installing build dependencies: finished with status 'done'\n"
            "  Checking if build backend supports build_editable: started\n  Checking if build backend supports build_editable: finished with status 'done'", 3.1, spread=True)
    pl, dur = pip_lines([("torch", "torch>=2.1"), ("numpy", "numpy>=1.24"), ("pytest", "pytest>=8")],
                        src="glyphnet==1.2.0", rng=rng)
    pl = pl.replace("(from glyphnet==1.2.0 (line 1))", "(from glyphnet==1.2.0)").replace(
        "(from glyphnet==1.2.0 (line 2))", "(from glyphnet==1.2.0)").replace(
        "(from glyphnet==1.2.0 (line 3))", "(from glyphnet==1.2.0)")
    log.add(pl.replace("Successfully installed ", "Successfully installed glyphnet-1.2.0 "), dur, spread=True)
    gh_step(log, "pytest -v", env)
    log.stream(lines, wall, env, root)
    gh_end(log, rc, "train-log", rng)
    art = root / "artifacts"
    save_run(name, {"ci_tests_ubuntu-latest_3.11.log": log.text(), "pyproject.toml": files["pyproject.toml"]},
             {"artifacts/train_log.csv": art / "train_log.csv"})
    h = read_csv_rows(art / "train_log.csv")
    CHECKS[name] = {"pytest": tail_summary(lines), "rc": rc,
                    "train_loss": [r["train_loss"] for r in h], "val_loss": [r["val_loss"] for r in h],
                    "val_acc": [r["val_acc"] for r in h]}
    TRUTH[name] = {"truth": "healthy",
                   "symptom": "CI is green on main; can you look over the training log from the test job and tell me whether this run is ok?",
                   "how": "No fault: 2-conv CNN on 12x12 synthetic glyphs, AdamW 3e-3, shuffled loader, zero_grad each step, eval() in evaluate(); 12 epochs."}


# ===========================================================================
# run04: GRU tagger; PR refactors the token-accuracy metric
# ===========================================================================

R04_DATA = D('''
    import numpy as np
    import torch

    PAD = 0
    IGNORE_INDEX = -100


    def make_sequences(n, vocab=30, n_tags=5, min_len=4, max_len=20, annotator_error=0.08, seed=0):
        """Token sequences whose tags depend on the token and, for tokens 1-5, on the previous tag."""
        rng = np.random.default_rng(seed)
        token_tag = np.arange(vocab) % n_tags
        seqs, tags = [], []
        for _ in range(n):
            length = int(rng.integers(min_len, max_len + 1))
            toks = rng.integers(1, vocab, length)
            t = token_tag[toks].copy()
            for i in range(1, length):
                if toks[i] <= 5:
                    t[i] = t[i - 1]
            flip = rng.random(length) < annotator_error
            t[flip] = rng.integers(0, n_tags, flip.sum())
            seqs.append(torch.from_numpy(toks.astype(np.int64)))
            tags.append(torch.from_numpy(t.astype(np.int64)))
        return list(zip(seqs, tags))


    def collate(batch):
        seqs, tags = zip(*batch)
        length = max(len(s) for s in seqs)
        x = torch.full((len(seqs), length), PAD, dtype=torch.long)
        y = torch.full((len(seqs), length), IGNORE_INDEX, dtype=torch.long)
        for i, (s, t) in enumerate(zip(seqs, tags)):
            x[i, :len(s)] = s
            y[i, :len(t)] = t
        return x, y
    ''')

R04_MODEL = D('''
    from torch import nn


    class GRUTagger(nn.Module):
        def __init__(self, vocab=30, n_tags=5, emb=32, hidden=64):
            super().__init__()
            self.emb = nn.Embedding(vocab, emb, padding_idx=0)
            self.rnn = nn.GRU(emb, hidden, batch_first=True)
            self.out = nn.Linear(hidden, n_tags)

        def forward(self, x):
            h, _ = self.rnn(self.emb(x))
            return self.out(h)
    ''')

R04_ENGINE = D('''
    import csv

    import torch
    from torch import nn
    from torch.utils.data import DataLoader

    from .data import IGNORE_INDEX, collate
    from .metrics import sequence_accuracy, token_accuracy


    @torch.no_grad()
    def evaluate(model, data, batch_size=64):
        model.eval()
        loss_fn = nn.CrossEntropyLoss(ignore_index=IGNORE_INDEX, reduction="sum")
        total_loss, n_tokens, tok_acc, seq_acc, n_batches = 0.0, 0, 0.0, 0.0, 0
        for x, y in DataLoader(data, batch_size=batch_size, collate_fn=collate):
            logits = model(x)
            total_loss += loss_fn(logits.reshape(-1, logits.size(-1)), y.reshape(-1)).item()
            n_tokens += (y != IGNORE_INDEX).sum().item()
            tok_acc += token_accuracy(logits, y)
            seq_acc += sequence_accuracy(logits, y)
            n_batches += 1
        model.train()
        return {"val_loss": total_loss / n_tokens, "val_token_acc": tok_acc / n_batches,
                "val_seq_acc": seq_acc / n_batches}


    def train(model, train_data, val_data, epochs=8, lr=5e-3, batch_size=32, seed=0, log_path=None):
        torch.manual_seed(seed)
        loader = DataLoader(train_data, batch_size=batch_size, shuffle=True, collate_fn=collate)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        loss_fn = nn.CrossEntropyLoss(ignore_index=IGNORE_INDEX)
        rows = []
        for epoch in range(1, epochs + 1):
            losses = []
            for x, y in loader:
                opt.zero_grad()
                logits = model(x)
                loss = loss_fn(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
                loss.backward()
                opt.step()
                losses.append(loss.item())
            m = evaluate(model, val_data)
            rows.append({"epoch": epoch, "train_loss": round(sum(losses) / len(losses), 5),
                         **{k: round(v, 5) for k, v in m.items()}})
        if log_path is not None:
            with open(log_path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
        return rows
    ''')

R04_METRICS_MAIN = D('''
    from .data import IGNORE_INDEX


    def token_accuracy(logits, tags, ignore_index=IGNORE_INDEX):
        preds = logits.argmax(dim=-1)
        mask = tags != ignore_index
        correct = (preds == tags) & mask
        return correct.sum().item() / max(mask.sum().item(), 1)


    def sequence_accuracy(logits, tags, ignore_index=IGNORE_INDEX):
        preds = logits.argmax(dim=-1)
        ok = (preds == tags) | (tags == ignore_index)
        return ok.all(dim=1).float().mean().item()
    ''')

R04_METRICS_PR = D('''
    """Tagging metrics.

    All functions take logits of shape (batch, seq, n_tags) and integer tags of
    shape (batch, seq) and return python floats.
    """
    import torch

    from .data import IGNORE_INDEX


    def _predictions(logits: torch.Tensor) -> torch.Tensor:
        return logits.argmax(dim=-1)


    def token_accuracy(logits: torch.Tensor, tags: torch.Tensor) -> float:
        """Fraction of tokens whose predicted tag is correct."""
        return (_predictions(logits) == tags).float().mean().item()


    def sequence_accuracy(logits: torch.Tensor, tags: torch.Tensor, ignore_index: int = IGNORE_INDEX) -> float:
        """Fraction of sequences in which every (non-padding) token is correct."""
        ok = (_predictions(logits) == tags) | (tags == ignore_index)
        return ok.all(dim=1).float().mean().item()


    def per_tag_accuracy(logits: torch.Tensor, tags: torch.Tensor, n_tags: int) -> list[float]:
        """Accuracy restricted to the tokens whose gold tag is t, for every t."""
        preds = _predictions(logits)
        out = []
        for t in range(n_tags):
            sel = tags == t
            out.append(((preds == tags) & sel).sum().item() / max(sel.sum().item(), 1))
        return out
    ''')

R04_TEST_METRICS_MAIN = D('''
    import torch

    from tagger.metrics import sequence_accuracy, token_accuracy


    def _onehot_logits(preds, n_tags=5):
        return torch.nn.functional.one_hot(preds, n_tags).float()


    def test_token_accuracy_perfect():
        tags = torch.tensor([[0, 1, 2], [3, 4, 0]])
        assert token_accuracy(_onehot_logits(tags), tags) == 1.0


    def test_token_accuracy_half():
        tags = torch.tensor([[0, 1, 2, 3]])
        preds = torch.tensor([[0, 1, 0, 0]])
        assert token_accuracy(_onehot_logits(preds), tags) == 0.5


    def test_sequence_accuracy_ignores_padding():
        tags = torch.tensor([[0, 1, -100], [2, 2, 2]])
        preds = torch.tensor([[0, 1, 4], [2, 2, 1]])
        assert sequence_accuracy(_onehot_logits(preds), tags) == 0.5
    ''')

R04_TEST_METRICS_PR = R04_TEST_METRICS_MAIN.replace(
    "from tagger.metrics import sequence_accuracy, token_accuracy",
    "from tagger.metrics import per_tag_accuracy, sequence_accuracy, token_accuracy") + D('''


    def test_per_tag_accuracy():
        tags = torch.tensor([[0, 0, 1, 1]])
        preds = torch.tensor([[0, 1, 1, 1]])
        assert per_tag_accuracy(_onehot_logits(preds), tags, n_tags=2) == [0.5, 1.0]
    ''')

R04_TESTS = {
    "tests/conftest.py": CONFTEST,
    "tests/test_data.py": D('''
        import pytest
        import torch

        from tagger.data import IGNORE_INDEX, PAD, collate, make_sequences


        @pytest.mark.parametrize("n", [1, 10, 100])
        def test_number_of_sequences(n):
            assert len(make_sequences(n)) == n


        def test_tags_match_lengths():
            for s, t in make_sequences(50):
                assert s.shape == t.shape


        def test_lengths_in_range():
            lengths = [len(s) for s, _ in make_sequences(300)]
            assert min(lengths) >= 4 and max(lengths) <= 20


        def test_collate_pads():
            x, y = collate(make_sequences(8, seed=3))
            lengths = (x != PAD).sum(1)
            assert x.shape == y.shape
            assert ((y != IGNORE_INDEX).sum(1) == lengths).all()


        def test_no_pad_token_in_data():
            assert all((s != PAD).all() for s, _ in make_sequences(100))
        '''),
    "tests/test_model.py": D('''
        import pytest
        import torch

        from tagger.model import GRUTagger


        @pytest.mark.parametrize("shape", [(1, 4), (8, 20), (3, 1)])
        def test_output_shape(shape):
            out = GRUTagger()(torch.randint(1, 30, shape))
            assert out.shape == (*shape, 5)


        def test_padding_embedding_is_zero():
            assert GRUTagger().emb.weight[0].abs().sum().item() == 0.0
        '''),
    "tests/test_regression.py": D('''
        import json
        from pathlib import Path

        import pytest
        import torch

        from tagger.data import make_sequences
        from tagger.engine import train
        from tagger.model import GRUTagger

        BASELINE = json.loads((Path(__file__).parent / "baseline_metrics.json").read_text())


        @pytest.fixture(scope="module")
        def final_metrics(artifact_dir):
            torch.manual_seed(0)
            rows = train(GRUTagger(), make_sequences(1000, seed=0), make_sequences(300, seed=1),
                         epochs=6, log_path=artifact_dir / "train_log.csv")
            (artifact_dir / "metrics.json").write_text(json.dumps(rows[-1], indent=2))
            return rows[-1]


        def test_val_loss_matches_baseline(final_metrics):
            assert final_metrics["val_loss"] <= BASELINE["val_loss"] * 1.10


        def test_val_token_accuracy_matches_baseline(final_metrics):
            assert final_metrics["val_token_acc"] >= BASELINE["val_token_acc"] - 0.02


        def test_val_sequence_accuracy_matches_baseline(final_metrics):
            assert final_metrics["val_seq_acc"] >= BASELINE["val_seq_acc"] - 0.05
        '''),
}


def _r04_build(root: Path, metrics: str, test_metrics: str, baseline: dict | None):
    files = dict(R04_TESTS)
    files.update({
        "src/tagger/__init__.py": '__version__ = "0.9.0"\n',
        "src/tagger/data.py": R04_DATA, "src/tagger/model.py": R04_MODEL,
        "src/tagger/engine.py": R04_ENGINE, "src/tagger/metrics.py": metrics,
        "tests/test_metrics.py": test_metrics,
        "requirements.txt": f"torch=={REAL['torch']}\nnumpy=={REAL['numpy']}\npytest=={REAL['pytest']}\n",
        "pyproject.toml": pyproject("tagger", "0.9.0", ["torch>=2.1", "numpy>=1.24"]),
    })
    if baseline is not None:
        files["tests/baseline_metrics.json"] = json.dumps(baseline, indent=2) + "\n"
    write_tree(root, files)
    return files


def _r04_job(root, env, rng, start, sha, ref, job, event_line):
    lines, rc, wall = run_pytest(root, ["-q", "-ra"])
    log = Log("gh", start)
    gh_begin(log, job, rng)
    log.add(event_line)
    gh_checkout(log, env.root.split("/")[-1], sha, ref, rng)
    gh_setup_python(log, rng)
    gh_step(log, "pip install -r requirements.txt && pip install -e . --no-deps", env)
    pl, dur = pip_lines([("torch", f"torch=={REAL['torch']}"), ("numpy", f"numpy=={REAL['numpy']}"),
                         ("pytest", f"pytest=={REAL['pytest']}")], cached=True, rng=rng)
    log.add(pl, dur, spread=True)
    log.add("Obtaining file://" + env.root, 0.5)
    log.add("Successfully built tagger\nInstalling collected packages: tagger\nSuccessfully installed tagger-0.9.0", 3.8)
    gh_step(log, "pytest -q -ra", env)
    log.stream(lines, wall, env, root)
    gh_end(log, rc, "eval-artifacts", rng)
    return log.text(), lines, rc


def run04():
    name, repo = "run04", "seq-tagger"
    rng = random.Random(4)
    env = Env("gh", repo)
    main_root = fresh(name, "main")
    pr_root = fresh(name, "pr")
    _r04_build(main_root, R04_METRICS_MAIN, R04_TEST_METRICS_MAIN, None)
    # the baseline file was committed from an earlier main run: recompute it the same way
    out = run_python(main_root, D('''
        import json, sys, torch
        sys.path.insert(0, "src")
        torch.set_num_threads(1)
        from tagger.data import make_sequences
        from tagger.engine import train
        from tagger.model import GRUTagger
        torch.manual_seed(0)
        rows = train(GRUTagger(), make_sequences(1000, seed=0), make_sequences(300, seed=1), epochs=6)
        print(json.dumps(rows[-1]))
        '''))
    last = json.loads(out.strip().splitlines()[-1])
    baseline = {"val_loss": round(last["val_loss"] + 0.0005, 3),
                "val_token_acc": round(last["val_token_acc"] - 0.0005, 3),
                "val_seq_acc": round(last["val_seq_acc"] - 0.0005, 3),
                "recorded_at": "2026-09-28", "commit": hexid("r04base", 7)}
    _r04_build(main_root, R04_METRICS_MAIN, R04_TEST_METRICS_MAIN, baseline)
    _r04_build(pr_root, R04_METRICS_PR, R04_TEST_METRICS_PR, baseline)
    main_log, main_lines, main_rc = _r04_job(
        main_root, env, rng, datetime(2026, 10, 29, 16, 2, 44, 90000), hexid("r04main"),
        "refs/remotes/origin/main", "test", "Triggered by push to main")
    shutil.copytree(main_root / "artifacts", BUILD / name / "artifacts_main", dirs_exist_ok=True)
    pr_log, pr_lines, pr_rc = _r04_job(
        pr_root, env, rng, datetime(2026, 10, 30, 10, 37, 12, 551000), hexid("r04pr"),
        "refs/remotes/pull/88/merge", "test", "Triggered by pull_request #88 (refactor: typed metrics module + per-tag accuracy)")
    diff = git_diff("src/tagger/metrics.py", R04_METRICS_MAIN, R04_METRICS_PR) + \
        git_diff("tests/test_metrics.py", R04_TEST_METRICS_MAIN, R04_TEST_METRICS_PR)
    save_run(name, {"ci_main_push.log": main_log, "ci_pr88.log": pr_log, "pr88.diff": diff},
             {"artifacts/main/train_log.csv": main_root / "artifacts/train_log.csv",
              "artifacts/main/metrics.json": main_root / "artifacts/metrics.json",
              "artifacts/pr88/train_log.csv": pr_root / "artifacts/train_log.csv",
              "artifacts/pr88/metrics.json": pr_root / "artifacts/metrics.json"})
    m = read_csv_rows(main_root / "artifacts/train_log.csv")
    p = read_csv_rows(pr_root / "artifacts/train_log.csv")
    CHECKS[name] = {"pytest_main": tail_summary(main_lines), "pytest_pr": tail_summary(pr_lines),
                    "baseline": baseline,
                    "main_val_loss": [r["val_loss"] for r in m], "pr_val_loss": [r["val_loss"] for r in p],
                    "main_val_token_acc": [r["val_token_acc"] for r in m],
                    "pr_val_token_acc": [r["val_token_acc"] for r in p]}
    TRUTH[name] = {"truth": "metric_changed",
                   "symptom": "After merging the metrics refactor PR, our accuracy regression test fails: token accuracy dropped from 0.93 to 0.56, but the model and training code didn't change. Did the refactor make the model worse?",
                   "how": "PR #88 rewrote token_accuracy() without the padding mask (mean over all positions, padding tags are -100 so never match); training and val_loss are bit-identical between main and PR."}


# ===========================================================================
# run05: shapes CNN; the CI smoke config builds a huge in-memory dataset
# ===========================================================================

R05_CI_OLD = D('''
    # config used by the test-suite smoke run
    seed: 0
    n_train: 600
    n_val: 200
    image_size: 32
    batch_size: 32
    epochs: 1
    lr: 0.002
    ''')
R05_CI_NEW = D('''
    # config used by the test-suite smoke run
    # (same data size as configs/default.yaml so the smoke test exercises the real pipeline)
    seed: 0
    n_train: 120000
    n_val: 20000
    image_size: 96
    batch_size: 128
    epochs: 1
    lr: 0.002
    ''')

R05_PKG = {
    "configs/default.yaml": D('''
        seed: 0
        n_train: 120000
        n_val: 20000
        image_size: 96
        batch_size: 128
        epochs: 30
        lr: 0.002
        '''),
    "src/shapes/__init__.py": '__version__ = "0.2.0"\n',
    "src/shapes/config.py": D('''
        from dataclasses import dataclass

        import yaml


        @dataclass
        class Config:
            seed: int = 0
            n_train: int = 600
            n_val: int = 200
            image_size: int = 32
            batch_size: int = 32
            epochs: int = 1
            lr: float = 2e-3


        def load_config(path):
            with open(path) as f:
                return Config(**yaml.safe_load(f))
        '''),
    "src/shapes/data.py": D('''
        import torch
        from torch.utils.data import Dataset

        CLASSES = ("circle", "square", "triangle")


        def rss_mb():
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
            return float("nan")


        def render(label, size, g):
            img = torch.rand(3, size, size, generator=g) * 0.25
            yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
            cx, cy = torch.randint(size // 4, 3 * size // 4, (2,), generator=g).tolist()
            r = max(size // 6, 2)
            if label == 0:
                mask = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
            elif label == 1:
                mask = ((xx - cx).abs() <= r) & ((yy - cy).abs() <= r)
            else:
                mask = ((yy - cy).abs() <= r) & ((xx - cx).abs() <= (yy - cy + r) // 2)
            color = 0.5 + 0.5 * torch.rand(3, 1, generator=g)
            img[:, mask] = img[:, mask] + color
            return img.clamp_(0, 1)


        class SyntheticShapes(Dataset):
            """Pre-rendered coloured shapes on a noisy background."""

            def __init__(self, n, image_size=32, seed=0, log_every=1000):
                g = torch.Generator().manual_seed(seed)
                self.images, labels = [], []
                for i in range(n):
                    label = i % len(CLASSES)
                    self.images.append(render(label, image_size, g))
                    labels.append(label)
                    if log_every and (i + 1) % log_every == 0:
                        print(f"[data] rendered {i + 1}/{n} images ({image_size}x{image_size}) rss={rss_mb():.0f} MB", flush=True)
                self.labels = torch.tensor(labels)

            def __len__(self):
                return len(self.labels)

            def __getitem__(self, idx):
                return self.images[idx], self.labels[idx]
        '''),
    "src/shapes/model.py": D('''
        from torch import nn


        def make_model(n_classes=3, width=16):
            return nn.Sequential(
                nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(),
                nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * width, n_classes),
            )
        '''),
    "src/shapes/train.py": D('''
        import math

        import torch
        from torch import nn
        from torch.utils.data import DataLoader

        from .data import SyntheticShapes
        from .model import make_model


        def run(cfg, log=print):
            torch.manual_seed(cfg.seed)
            train_ds = SyntheticShapes(cfg.n_train, cfg.image_size, seed=cfg.seed)
            val_ds = SyntheticShapes(cfg.n_val, cfg.image_size, seed=cfg.seed + 1)
            model = make_model()
            opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
            loss_fn = nn.CrossEntropyLoss()
            history = []
            for epoch in range(cfg.epochs):
                model.train()
                total, n = 0.0, 0
                for x, y in DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True):
                    opt.zero_grad()
                    loss = loss_fn(model(x), y)
                    loss.backward()
                    opt.step()
                    total += loss.item() * len(x)
                    n += len(x)
                model.eval()
                with torch.no_grad():
                    correct = sum((model(x).argmax(1) == y).sum().item()
                                  for x, y in DataLoader(val_ds, batch_size=256))
                history.append({"epoch": epoch + 1, "loss": total / n, "val_acc": correct / len(val_ds)})
                log(f"epoch {epoch + 1}: loss={total / n:.4f} val_acc={correct / len(val_ds):.3f}")
            assert math.isfinite(history[-1]["loss"])
            return model, history
        '''),
    "tests/conftest.py": CONFTEST,
    "tests/test_config.py": D('''
        from pathlib import Path

        import pytest

        from shapes.config import Config, load_config

        CONFIGS = Path(__file__).resolve().parents[1] / "configs"


        @pytest.mark.parametrize("name", ["default.yaml", "ci.yaml"])
        def test_config_parses(name):
            cfg = load_config(CONFIGS / name)
            assert isinstance(cfg, Config)
            assert cfg.batch_size > 0 and cfg.lr > 0


        def test_defaults():
            assert Config().image_size == 32
        '''),
    "tests/test_data.py": D('''
        import pytest
        import torch

        from shapes.data import CLASSES, SyntheticShapes, render


        @pytest.mark.parametrize("size", [16, 32, 64])
        def test_render_shape(size):
            img = render(0, size, torch.Generator().manual_seed(0))
            assert img.shape == (3, size, size)
            assert 0.0 <= img.min() and img.max() <= 1.0


        @pytest.mark.parametrize("label", [0, 1, 2])
        def test_shape_is_drawn(label):
            img = render(label, 32, torch.Generator().manual_seed(1))
            assert (img > 0.5).any()


        def test_dataset_balanced():
            ds = SyntheticShapes(90, 16, log_every=0)
            assert torch.bincount(ds.labels).tolist() == [30, 30, 30]
            assert len(CLASSES) == 3


        def test_dataset_item():
            x, y = SyntheticShapes(6, 16, log_every=0)[4]
            assert x.shape == (3, 16, 16) and int(y) == 1
        '''),
    "tests/test_model.py": D('''
        import pytest
        import torch

        from shapes.model import make_model


        @pytest.mark.parametrize("size", [16, 32, 96])
        def test_any_image_size(size):
            assert make_model()(torch.randn(2, 3, size, size)).shape == (2, 3)
        '''),
    "tests/test_smoke.py": D('''
        import math
        from pathlib import Path

        from shapes.config import load_config
        from shapes.train import run

        CI_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "ci.yaml"


        def test_smoke_train_one_epoch(artifact_dir):
            cfg = load_config(CI_CONFIG)
            lines = []
            _, history = run(cfg, log=lines.append)
            (artifact_dir / "smoke.log").write_text("\\n".join(lines) + "\\n")
            assert math.isfinite(history[-1]["loss"])
            assert history[-1]["loss"] < math.log(3) + 0.1
        '''),
}


def _r05_files(ci_yaml):
    files = dict(R05_PKG)
    files["configs/ci.yaml"] = ci_yaml
    files["requirements.txt"] = (f"torch=={REAL['torch']}\nnumpy=={REAL['numpy']}\nPyYAML=={REAL['pyyaml']}\n"
                                 f"pytest=={REAL['pytest']}\n")
    files["pyproject.toml"] = pyproject("shapes", "0.2.0", ["torch>=2.1", "PyYAML>=6"])
    return files


def _r05_job(root, env, rng, start, sha, ref, rlimit):
    lines, rc, wall = run_pytest(root, ["-ra", "--junitxml=report.xml"], rlimit_as=rlimit)
    log = Log("gl", start)
    gl_begin(log, env.root.split("/")[-1], "vision", sha, ref, rng)
    log.add("$ python -m pip install -q --upgrade pip", 0.2)
    log.add("$ pip install -r requirements.txt", 4.1)
    pl, dur = pip_lines([("torch", f"torch=={REAL['torch']}"), ("numpy", f"numpy=={REAL['numpy']}"),
                         ("pyyaml", f"PyYAML=={REAL['pyyaml']}"), ("pytest", f"pytest=={REAL['pytest']}")],
                        cached=True, rng=rng)
    log.add(pl, dur, spread=True)
    log.add("$ pip install --no-deps -e .", 0.3)
    log.add("Obtaining file://" + env.root, 0.6)
    log.add("Successfully built shapes\nInstalling collected packages: shapes\nSuccessfully installed shapes-0.2.0", 3.5)
    log.add("$ pytest -ra --junitxml=report.xml", 0.2)
    log.stream(lines, wall, env, root)
    return log, lines, rc


def run05():
    name, repo = "run05", "shapes-classifier"
    rng = random.Random(5)
    env = Env("gl", repo, group="vision")
    limit = 1536 * 1024 * 1024  # the runner container's memory cap
    main_root = fresh(name, "main")
    write_tree(main_root, _r05_files(R05_CI_OLD))
    log_m, lines_m, rc_m = _r05_job(main_root, env, rng, datetime(2026, 10, 15, 8, 12, 30, 5000),
                                    hexid("r05main"), "main", limit)
    gl_end(log_m, rc_m, rng)
    mr_root = fresh(name, "mr")
    write_tree(mr_root, _r05_files(R05_CI_NEW))
    log_r, lines_r, rc_r = _r05_job(mr_root, env, rng, datetime(2026, 10, 17, 13, 48, 2, 771000),
                                    hexid("r05mr"), "refs/merge-requests/41/head", limit)
    gl_end(log_r, rc_r, rng)
    diff = git_diff("configs/ci.yaml", R05_CI_OLD, R05_CI_NEW)
    copies = {"artifacts/main/smoke.log": main_root / "artifacts/smoke.log"}
    save_run(name, {"job_pytest_main.log": log_m.text(), "job_pytest_mr41.log": log_r.text(), "mr41.diff": diff,
                    "requirements.txt": _r05_files(R05_CI_NEW)["requirements.txt"]}, copies)
    rss = [l for _, l in lines_r if l.startswith("[data] rendered")]
    err = [l for _, l in lines_r if "allocate" in l or "MemoryError" in l]
    CHECKS[name] = {"pytest_main": tail_summary(lines_m), "pytest_mr": tail_summary(lines_r),
                    "rlimit_as_bytes": limit, "rss_lines": rss[:2] + rss[-2:], "error_lines": err[:4],
                    "main_smoke": (main_root / "artifacts/smoke.log").read_text().strip()}
    TRUTH[name] = {"truth": "host_oom",
                   "symptom": "Since MR !41 the pytest job on our GitLab runner dies in test_smoke_train_one_epoch while all the other tests still pass; it worked on main. Is the runner broken?",
                   "how": "MR !41 changed configs/ci.yaml to the production dataset size (120000 images at 96x96, eagerly pre-rendered into a list of float32 tensors, ~13 GB). The pytest job ran in a subprocess under RLIMIT_AS = 1.5 GiB (the runner's cap); memory grows with the cached images until the CPU allocator fails."}


# ===========================================================================
# run06: BN + dropout MLP on gesture features; inference helper left in train mode
# ===========================================================================

R06_TRAIN = D('''
    import csv

    import numpy as np
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    GESTURES = ("swipe_left", "swipe_right", "tap", "pinch", "rotate")
    N_FEATURES = 24


    def load_split(split, n_per_gesture=600, seed=0):
        """Feature vectors for each gesture; recordings are stored gesture by gesture."""
        centers = np.random.default_rng(42).normal(0.0, 1.0, (len(GESTURES), N_FEATURES))
        rng = np.random.default_rng({"train": 0, "val": 1, "test": 2}[split] + 10 * seed)
        X, y = [], []
        for g in range(len(GESTURES)):
            X.append(centers[g] + rng.normal(0.0, 1.0, (n_per_gesture, N_FEATURES)))
            y.append(np.full(n_per_gesture, g))
        X = torch.tensor(np.concatenate(X), dtype=torch.float32)
        y = torch.tensor(np.concatenate(y), dtype=torch.long)
        return X, y


    class GestureNet(nn.Module):
        def __init__(self, n_features=N_FEATURES, n_classes=len(GESTURES), hidden=128, p_drop=0.3):
            super().__init__()
            self.body = nn.Sequential(
                nn.Linear(n_features, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
                nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
            )
            self.head = nn.Linear(hidden, n_classes)

        def forward(self, x):
            return self.head(self.body(x))


    def predict(model, X, batch_size=64):
        preds = []
        with torch.no_grad():
            for i in range(0, len(X), batch_size):
                preds.append(model(X[i:i + batch_size]).argmax(dim=1))
        return torch.cat(preds)


    def evaluate(model, X, y):
        return (predict(model, X) == y).float().mean().item()


    def fit(model, train, val, epochs=25, lr=1e-3, batch_size=64, seed=0, log_path=None):
        torch.manual_seed(seed)
        loader = DataLoader(TensorDataset(*train), batch_size=batch_size, shuffle=True, drop_last=True)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        loss_fn = nn.CrossEntropyLoss()
        history = []
        for epoch in range(1, epochs + 1):
            model.train()
            total, correct, n = 0.0, 0, 0
            for xb, yb in loader:
                opt.zero_grad()
                out = model(xb)
                loss = loss_fn(out, yb)
                loss.backward()
                opt.step()
                total += loss.item() * len(xb)
                correct += (out.argmax(1) == yb).sum().item()
                n += len(xb)
            history.append({"epoch": epoch, "train_loss": round(total / n, 5),
                            "train_acc": round(correct / n, 4), "val_acc": round(evaluate(model, *val), 4)})
            print("epoch {epoch:02d}  train_loss {train_loss:.4f}  train_acc {train_acc:.3f}  val_acc {val_acc:.3f}".format(**history[-1]))
        if log_path is not None:
            with open(log_path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(history[0]))
                w.writeheader()
                w.writerows(history)
        return history
    ''')

R06_NOX = D('''
    import nox

    nox.options.sessions = ["tests"]


    @nox.session(python="3.11")
    def tests(session):
        session.install("-r", "requirements.txt")
        session.install("-e", ".", "--no-deps")
        session.run("python", "-m", "pip", "freeze", "--exclude-editable")
        session.run("pytest", "-ra", "--durations=8", *session.posargs)
    ''')

R06_TESTS = {
    "tests/conftest.py": CONFTEST,
    "tests/test_data.py": D('''
        import pytest
        import torch

        from gesture.train import GESTURES, N_FEATURES, load_split


        @pytest.mark.parametrize("split", ["train", "val", "test"])
        def test_split_shapes(split):
            X, y = load_split(split, n_per_gesture=20)
            assert X.shape == (20 * len(GESTURES), N_FEATURES)
            assert y.shape == (20 * len(GESTURES),)


        def test_splits_differ():
            assert not torch.equal(load_split("train", 10)[0], load_split("val", 10)[0])


        def test_every_gesture_present():
            _, y = load_split("val", 10)
            assert torch.bincount(y).tolist() == [10] * len(GESTURES)
        '''),
    "tests/test_model.py": D('''
        import pytest
        import torch

        from gesture.train import GestureNet, predict


        @pytest.mark.parametrize("batch", [2, 16, 128])
        def test_logit_shape(batch):
            assert GestureNet()(torch.randn(batch, 24)).shape == (batch, 5)


        def test_parameter_count():
            assert sum(p.numel() for p in GestureNet().parameters()) == 20869


        def test_predict_returns_labels():
            torch.manual_seed(0)
            preds = predict(GestureNet(), torch.randn(100, 24))
            assert preds.shape == (100,) and preds.dtype == torch.long
        '''),
    "tests/test_inference.py": D('''
        import pytest
        import torch

        from gesture.train import GestureNet, evaluate, fit, load_split, predict


        @pytest.fixture(scope="module")
        def trained(artifact_dir):
            torch.manual_seed(0)
            model = GestureNet()
            history = fit(model, load_split("train"), load_split("val", n_per_gesture=200),
                          log_path=artifact_dir / "train_history.csv")
            return model, history


        def test_training_loss_decreases(trained):
            _, history = trained
            assert history[-1]["train_loss"] < 0.5 * history[0]["train_loss"]


        def test_test_accuracy(trained):
            model, _ = trained
            acc = evaluate(model, *load_split("test", n_per_gesture=200))
            assert acc >= 0.90, f"test accuracy {acc:.3f} < 0.90"


        def test_predict_is_deterministic(trained):
            model, _ = trained
            X, _ = load_split("test", n_per_gesture=50)
            assert torch.equal(predict(model, X), predict(model, X))


        def test_predict_single_sample(trained):
            model, _ = trained
            X, y = load_split("test", n_per_gesture=1)
            assert predict(model, X[:1]).shape == (1,)
        '''),
}


def run06():
    name, repo = "run06", "gesture-recognizer"
    rng = random.Random(6)
    root = fresh(name)
    files = dict(R06_TESTS)
    files.update({"src/gesture/__init__.py": '__version__ = "0.6.2"\n', "src/gesture/train.py": R06_TRAIN,
                  "noxfile.py": R06_NOX,
                  "requirements.txt": f"torch=={REAL['torch']}\nnumpy=={REAL['numpy']}\npytest=={REAL['pytest']}\n",
                  "pyproject.toml": pyproject("gesture", "0.6.2", ["torch>=2.1", "numpy>=1.24"])})
    write_tree(root, files)
    env = Env("gh", repo, venv=".nox/tests-3-11")
    lines, rc, wall = run_pytest(root, ["-ra", "--durations=8"])
    log = Log("gh", datetime(2026, 11, 5, 11, 40, 9, 820000))
    gh_begin(log, "nox (3.11)", rng)
    gh_checkout(log, repo, hexid("r06sha"), "refs/remotes/pull/23/merge", rng)
    gh_setup_python(log, rng)
    gh_step(log, "pip install nox==2024.10.9", env)
    log.add("Collecting nox==2024.10.9\n  Downloading nox-2024.10.9-py3-none-any.whl.metadata (4.7 kB)\n"
            "Collecting argcomplete<4,>=1.9.4 (from nox==2024.10.9)\nCollecting colorlog<7,>=2.6.1 (from nox==2024.10.9)\n"
            "Collecting virtualenv>=20.14.1 (from nox==2024.10.9)\n"
            "Installing collected packages: distlib, platformdirs, filelock, colorlog, argcomplete, virtualenv, nox\n"
            "Successfully installed argcomplete-3.5.3 colorlog-6.9.0 distlib-0.3.9 filelock-3.17.0 nox-2024.10.9 platformdirs-4.3.6 virtualenv-20.29.1",
            4.2, spread=True)
    gh_step(log, "nox -s tests", env)
    log.add("nox > Running session tests-3.11", 0.6)
    log.add("nox > Creating virtual environment (virtualenv) using python3.11 in .nox/tests-3-11", 0.1)
    log.add("nox > python -m pip install -r requirements.txt", 1.3)
    log.add("nox > python -m pip install -e . --no-deps", 38.4)
    log.add("nox > python -m pip freeze --exclude-editable", 4.9)
    freeze = sorted(["filelock", "fsspec", "iniconfig", "jinja2", "markupsafe", "mpmath", "networkx", "numpy",
                     "packaging", "pluggy", "pygments", "pytest", "sympy", "torch", "typing-extensions"])
    canon = {"jinja2": "Jinja2", "markupsafe": "MarkupSafe", "pygments": "Pygments", "typing-extensions": "typing_extensions"}
    log.add("\n".join(f"{canon.get(n, n)}=={REAL[n]}" for n in freeze), 1.1, spread=True)
    log.add("nox > pytest -ra --durations=8", 0.2)
    log.stream(lines, wall, env, root)
    if rc:
        log.add(f"nox > Command pytest -ra --durations=8 failed with exit code {rc}", 0.1)
        log.add("nox > Session tests-3.11 failed.")
    else:
        log.add("nox > Session tests-3.11 was successful in 1 minute.", 0.1)
    gh_end(log, 1 if rc else 0, "train-history", rng)
    art = root / "artifacts"
    save_run(name, {"ci_nox_3.11.log": log.text(), "noxfile.py": R06_NOX, "train.py": R06_TRAIN,
                    "requirements.txt": files["requirements.txt"]},
             {"artifacts/train_history.csv": art / "train_history.csv"})
    # check: the same trained model in eval() mode
    out = run_python(root, D('''
        import sys, torch
        sys.path.insert(0, "src")
        torch.set_num_threads(1)
        from gesture.train import GestureNet, fit, load_split, evaluate
        torch.manual_seed(0)
        m = GestureNet()
        import contextlib, io
        with contextlib.redirect_stdout(io.StringIO()):
            fit(m, load_split("train"), load_split("val", n_per_gesture=200))
        X, y = load_split("test", n_per_gesture=200)
        print("train_mode", evaluate(m, X, y))
        m.eval()
        print("eval_mode", evaluate(m, X, y))
        '''))
    h = read_csv_rows(art / "train_history.csv")
    CHECKS[name] = {"pytest": tail_summary(lines), "rc": rc, "train_loss": [h[0]["train_loss"], h[-1]["train_loss"]],
                    "train_acc": [h[0]["train_acc"], h[-1]["train_acc"]], "val_acc": [r["val_acc"] for r in h],
                    "test_acc_same_model": out.strip().splitlines()}
    TRUTH[name] = {"truth": "eval_mode_forgotten",
                   "symptom": "Training accuracy on my PR goes to ~98% but the test-accuracy check fails near chance level (0.28 with 5 gestures), predictions change from call to call, and predicting a single sample crashes. What's going on?",
                   "how": "predict() (used by evaluate()) runs the BatchNorm+Dropout network without model.eval(): batch-norm uses each inference batch's own statistics (val/test sets are stored gesture by gesture, so batches are single-class) and dropout stays active; a batch of 1 raises the BatchNorm 'Expected more than 1 value per channel' error."}


# ===========================================================================
# run07: credit-risk MLP; pinned vs latest dependency jobs (torch.load default)
# ===========================================================================

R07_PKG = {
    "src/creditrisk/__init__.py": '__version__ = "2.1.0"\n',
    "src/creditrisk/data.py": D('''
        import numpy as np
        import torch


        def make_applicants(n, n_features=12, seed=0):
            """Synthetic loan applications with a noisy linear-plus-interaction default risk."""
            rng = np.random.default_rng(seed)
            w = np.random.default_rng(99).normal(0, 1, n_features)
            X = rng.normal(0, 1, (n, n_features)) * np.linspace(0.5, 3.0, n_features)
            logit = X @ w / np.linspace(0.5, 3.0, n_features).mean() + 0.8 * X[:, 0] * X[:, 1]
            y = (logit + rng.logistic(0, 1, n) > 0).astype(np.int64)
            return X.astype(np.float32), y


        def fit_scaler(X):
            return X.mean(axis=0), X.std(axis=0) + 1e-6


        def to_tensors(X, y, mean, std):
            return torch.from_numpy((X - mean) / std).float(), torch.from_numpy(y)
        '''),
    "src/creditrisk/model.py": D('''
        from dataclasses import dataclass

        from torch import nn


        @dataclass
        class TrainConfig:
            hidden: int = 64
            lr: float = 3e-3
            epochs: int = 20
            batch_size: int = 128
            seed: int = 0


        def make_model(n_features=12, hidden=64):
            return nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))
        '''),
    "src/creditrisk/checkpoint.py": D('''
        import torch

        from .model import make_model


        def save_checkpoint(path, model, cfg, mean, std, metrics):
            torch.save({
                "model": model.state_dict(),
                "config": cfg,
                "feature_mean": mean,
                "feature_std": std,
                "metrics": metrics,
            }, path)


        def load_checkpoint(path):
            ckpt = torch.load(path, map_location="cpu")
            model = make_model(hidden=ckpt["config"].hidden)
            model.load_state_dict(ckpt["model"])
            model.eval()
            return model, ckpt
        '''),
    "src/creditrisk/train.py": D('''
        import csv

        import numpy as np
        import torch
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        from .data import fit_scaler, make_applicants, to_tensors
        from .model import TrainConfig, make_model


        @torch.no_grad()
        def accuracy(model, X, y):
            model.eval()
            return np.float64((model(X).argmax(1) == y).float().mean().item())


        def train(cfg=TrainConfig(), n_train=4000, n_val=1000, log_path=None):
            torch.manual_seed(cfg.seed)
            Xtr, ytr = make_applicants(n_train, seed=cfg.seed)
            Xva, yva = make_applicants(n_val, seed=cfg.seed + 1)
            mean, std = fit_scaler(Xtr)
            train_t, val_t = to_tensors(Xtr, ytr, mean, std), to_tensors(Xva, yva, mean, std)
            model = make_model(hidden=cfg.hidden)
            opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
            loss_fn = nn.CrossEntropyLoss()
            rows = []
            for epoch in range(1, cfg.epochs + 1):
                model.train()
                losses = []
                for xb, yb in DataLoader(TensorDataset(*train_t), batch_size=cfg.batch_size, shuffle=True):
                    opt.zero_grad()
                    loss = loss_fn(model(xb), yb)
                    loss.backward()
                    opt.step()
                    losses.append(loss.item())
                rows.append({"epoch": epoch, "loss": round(float(np.mean(losses)), 5),
                             "val_acc": round(float(accuracy(model, *val_t)), 4)})
            if log_path is not None:
                with open(log_path, "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=list(rows[0]))
                    w.writeheader()
                    w.writerows(rows)
            return model, mean, std, {"val_acc": accuracy(model, *val_t), "final_loss": rows[-1]["loss"]}
        '''),
    "tests/conftest.py": CONFTEST,
    "tests/test_data.py": D('''
        import numpy as np
        import pytest

        from creditrisk.data import fit_scaler, make_applicants, to_tensors


        @pytest.mark.parametrize("n", [5, 100, 2000])
        def test_shapes(n):
            X, y = make_applicants(n)
            assert X.shape == (n, 12) and y.shape == (n,)


        def test_default_rate_reasonable():
            _, y = make_applicants(5000)
            assert 0.3 < y.mean() < 0.7


        def test_scaler_standardises():
            X, y = make_applicants(3000)
            mean, std = fit_scaler(X)
            Xt, _ = to_tensors(X, y, mean, std)
            assert np.allclose(Xt.mean(0).numpy(), 0, atol=1e-4)
            assert np.allclose(Xt.std(0).numpy(), 1, atol=1e-2)
        '''),
    "tests/test_model.py": D('''
        import pytest
        import torch

        from creditrisk.model import TrainConfig, make_model


        @pytest.mark.parametrize("hidden", [16, 64])
        def test_forward(hidden):
            assert make_model(hidden=hidden)(torch.randn(8, 12)).shape == (8, 2)


        def test_config_defaults():
            cfg = TrainConfig()
            assert cfg.hidden == 64 and cfg.epochs == 20
        '''),
    "tests/test_train.py": D('''
        import torch

        from creditrisk.model import TrainConfig
        from creditrisk.train import train


        def test_training_beats_majority(artifact_dir):
            model, mean, std, metrics = train(TrainConfig(), log_path=artifact_dir / "train_log.csv")
            assert metrics["val_acc"] > 0.8
            assert metrics["final_loss"] < 0.45


        def test_short_training_runs():
            _, _, _, metrics = train(TrainConfig(epochs=1), n_train=256, n_val=64)
            assert 0.0 <= metrics["val_acc"] <= 1.0
        '''),
    "tests/test_checkpoint.py": D('''
        from pathlib import Path

        import numpy as np
        import torch

        from creditrisk.checkpoint import load_checkpoint, save_checkpoint
        from creditrisk.data import make_applicants, to_tensors
        from creditrisk.model import TrainConfig
        from creditrisk.train import accuracy, train

        FIXTURE = Path(__file__).parent / "fixtures" / "model_v1.pt"


        def test_checkpoint_roundtrip(tmp_path):
            cfg = TrainConfig(epochs=2)
            model, mean, std, metrics = train(cfg, n_train=512, n_val=128)
            save_checkpoint(tmp_path / "ckpt.pt", model, cfg, mean, std, metrics)
            loaded, ckpt = load_checkpoint(tmp_path / "ckpt.pt")
            x = torch.randn(4, 12)
            assert torch.allclose(loaded(x), model.eval()(x))
            assert ckpt["config"] == cfg


        def test_pretrained_fixture_scores():
            model, ckpt = load_checkpoint(FIXTURE)
            X, y = make_applicants(1000, seed=123)
            acc = accuracy(model, *to_tensors(X, y, ckpt["feature_mean"], ckpt["feature_std"]))
            assert acc > 0.8


        def test_fixture_has_scaler():
            assert FIXTURE.stat().st_size > 10_000
        '''),
}

R07_WORKFLOW = D('''
    name: tests
    on:
      push:
        branches: [main]
      pull_request:
      schedule:
        - cron: "0 3 * * *"
    jobs:
      test:
        runs-on: ubuntu-24.04
        strategy:
          fail-fast: false
          matrix:
            deps: [pinned, latest]
        steps:
          - uses: actions/checkout@v4
          - uses: actions/setup-python@v5
            with:
              python-version: "3.11"
              cache: pip
          - name: Install dependencies
            run: |
              if [ "${{ matrix.deps }}" = "pinned" ]; then
                pip install -r requirements-lock.txt
              else
                pip install --upgrade -r requirements.txt
              fi
              pip install -e . --no-deps
          - name: Test
            run: pytest -ra --tb=short
          - uses: actions/upload-artifact@v4
            if: always()
            with:
              name: train-log-${{ matrix.deps }}
              path: artifacts/
    ''')

R07_LOCK_VERSIONS = {"torch": "2.5.1+cpu", "numpy": "2.1.3", "sympy": "1.13.1", "networkx": "3.4.2",
                     "fsspec": "2024.12.0", "filelock": "3.16.1", "jinja2": "3.1.5",
                     "typing-extensions": "4.12.2", "markupsafe": "3.0.2", "mpmath": "1.3.0"}

R07_SITECUSTOMIZE = D('''
    import functools

    import torch

    _load = torch.load


    @functools.wraps(_load)
    def load(*args, **kwargs):
        kwargs.setdefault("weights_only", False)
        return _load(*args, **kwargs)


    torch.load = load
    ''')


def run07():
    name, repo = "run07", "credit-risk-model"
    rng = random.Random(7)
    root = fresh(name)
    files = dict(R07_PKG)
    lock = "".join(f"{n}=={v}\n" for n, v in [
        ("torch", R07_LOCK_VERSIONS["torch"]), ("numpy", R07_LOCK_VERSIONS["numpy"]),
        ("pytest", REAL["pytest"]), ("filelock", R07_LOCK_VERSIONS["filelock"]),
        ("fsspec", R07_LOCK_VERSIONS["fsspec"]), ("jinja2", R07_LOCK_VERSIONS["jinja2"]),
        ("networkx", R07_LOCK_VERSIONS["networkx"]), ("sympy", R07_LOCK_VERSIONS["sympy"]),
        ("typing-extensions", R07_LOCK_VERSIONS["typing-extensions"])])
    files.update({
        "requirements.txt": "--extra-index-url https://download.pytorch.org/whl/cpu\ntorch>=2.1\nnumpy>=1.24\npytest>=8\n",
        "requirements-lock.txt": "# generated by pip-compile on 2025-01-14\n--extra-index-url https://download.pytorch.org/whl/cpu\n" + lock,
        "pyproject.toml": pyproject("creditrisk", "2.1.0", ["torch>=2.1", "numpy>=1.24"]),
        ".github/workflows/tests.yml": R07_WORKFLOW})
    write_tree(root, files)
    # torch < 2.6 behaviour of torch.load (weights_only defaulted to False) for the pinned job
    emul = BUILD / name / "pinned_site"
    emul.mkdir(parents=True, exist_ok=True)
    (emul / "sitecustomize.py").write_text(R07_SITECUSTOMIZE)
    pinned_env = {"PYTHONPATH": str(emul)}
    # the committed fixture checkpoint (trained and saved long ago, before the lock was bumped)
    (root / "tests/fixtures").mkdir(parents=True, exist_ok=True)
    run_python(root, D('''
        import sys, torch
        sys.path.insert(0, "src")
        torch.set_num_threads(1)
        from creditrisk.checkpoint import save_checkpoint
        from creditrisk.model import TrainConfig
        from creditrisk.train import train
        cfg = TrainConfig(seed=7)
        model, mean, std, metrics = train(cfg)
        save_checkpoint("tests/fixtures/model_v1.pt", model, cfg, mean, std, metrics)
        print(metrics)
        '''), extra_env=pinned_env)
    env = Env("gh", repo)
    jobs = {}
    for deps, start in (("pinned", datetime(2026, 11, 3, 3, 14, 2, 310000)),
                        ("latest", datetime(2026, 11, 3, 3, 14, 5, 902000))):
        if (root / "artifacts").exists():
            shutil.rmtree(root / "artifacts")
        lines, rc, wall = run_pytest(root, ["-ra", "--tb=short"], extra_env=pinned_env if deps == "pinned" else None)
        log = Log("gh", start)
        gh_begin(log, f"test ({deps})", rng)
        log.add("Triggered by schedule (cron: 0 3 * * *)")
        gh_checkout(log, repo, hexid("r07sha"), "refs/remotes/origin/main", rng)
        gh_setup_python(log, rng)
        if deps == "pinned":
            gh_step(log, 'if [ "pinned" = "pinned" ]; then\n  pip install -r requirements-lock.txt\nelse\n  pip install --upgrade -r requirements.txt\nfi\npip install -e . --no-deps', env)
            log.add("Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cpu", 0.9)
            pl, dur = pip_lines([("torch", f"torch=={R07_LOCK_VERSIONS['torch']}"),
                                 ("numpy", f"numpy=={R07_LOCK_VERSIONS['numpy']}"),
                                 ("pytest", f"pytest=={REAL['pytest']}")],
                                versions=R07_LOCK_VERSIONS, src="-r requirements-lock.txt", cached=True, rng=rng)
        else:
            gh_step(log, 'if [ "latest" = "pinned" ]; then\n  pip install -r requirements-lock.txt\nelse\n  pip install --upgrade -r requirements.txt\nfi\npip install -e . --no-deps', env)
            log.add("Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cpu", 0.9)
            pl, dur = pip_lines([("torch", "torch>=2.1"), ("numpy", "numpy>=1.24"), ("pytest", "pytest>=8")],
                                rng=rng)
        log.add(pl, dur, spread=True)
        log.add("Obtaining file://" + env.root, 0.6)
        log.add("Successfully built creditrisk\nInstalling collected packages: creditrisk\nSuccessfully installed creditrisk-2.1.0", 3.4)
        gh_step(log, "pytest -ra --tb=short", env)
        log.stream(lines, wall, env, root)
        gh_end(log, rc, f"train-log-{deps}", rng)
        shutil.copytree(root / "artifacts", BUILD / name / f"artifacts_{deps}", dirs_exist_ok=True)
        jobs[deps] = (log.text(), lines, rc)
    save_run(name, {"ci_test_pinned.log": jobs["pinned"][0], "ci_test_latest.log": jobs["latest"][0],
                    "requirements.txt": files["requirements.txt"],
                    "requirements-lock.txt": files["requirements-lock.txt"],
                    ".github/workflows/tests.yml": R07_WORKFLOW},
             {"artifacts/pinned/train_log.csv": BUILD / name / "artifacts_pinned/train_log.csv",
              "artifacts/latest/train_log.csv": BUILD / name / "artifacts_latest/train_log.csv"})
    a = read_csv_rows(BUILD / name / "artifacts_pinned/train_log.csv")
    b = read_csv_rows(BUILD / name / "artifacts_latest/train_log.csv")
    err = [l for _, l in jobs["latest"][1] if l.startswith("FAILED")]
    CHECKS[name] = {"pytest_pinned": tail_summary(jobs["pinned"][1]), "pytest_latest": tail_summary(jobs["latest"][1]),
                    "latest_failed": err, "pinned_loss": [a[0]["loss"], a[-1]["loss"]],
                    "latest_loss": [b[0]["loss"], b[-1]["loss"]], "val_acc_both": [a[-1]["val_acc"], b[-1]["val_acc"]]}
    TRUTH[name] = {"truth": "ci_environment_drift",
                   "symptom": "Our nightly 'latest' CI job suddenly fails the checkpoint tests while the pinned job on the same commit is green. We didn't touch the checkpoint code - is our saved model corrupted?",
                   "how": "requirements.txt leaves torch unpinned (torch>=2.1); the 'latest' job resolves torch 2.13, where torch.load defaults to weights_only=True, so load_checkpoint() rejects the dataclass/numpy objects stored in the checkpoint (UnpicklingError). The 'pinned' job (lockfile torch 2.5.1) was run on the same torch build with torch.load's pre-2.6 default (weights_only=False) restored through a sitecustomize on PYTHONPATH; training numbers are identical in both jobs."}


# ===========================================================================
# run08: spectra classifier; loader iterates the class-ordered data as stored
# ===========================================================================

R08_TRAIN = D('''
    import csv

    import numpy as np
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    MATERIALS = ("polymer", "glass", "ceramic", "metal")
    N_BINS = 32


    def load_spectra(n_per_class=400, seed=0, noise=0.4):
        """One block of spectra per material, read one material file after another."""
        rng = np.random.default_rng(seed)
        grid = np.linspace(0, 1, N_BINS)
        peaks = {0: (0.2, 0.55), 1: (0.3, 0.6), 2: (0.45, 0.7), 3: (0.25, 0.8)}
        X, y = [], []
        for label, (p1, p2) in peaks.items():
            shift = rng.normal(0, 0.03, (n_per_class, 1))
            amp = rng.uniform(0.6, 1.4, (n_per_class, 2))
            spec = (amp[:, :1] * np.exp(-((grid - p1 - shift) ** 2) / 0.004)
                    + amp[:, 1:] * np.exp(-((grid - p2 - shift) ** 2) / 0.004))
            X.append(spec + rng.normal(0, noise, spec.shape))
            y.append(np.full(n_per_class, label))
        X = torch.tensor(np.concatenate(X), dtype=torch.float32)
        y = torch.tensor(np.concatenate(y), dtype=torch.long)
        return X, y


    def make_model(hidden=64):
        return nn.Sequential(nn.Linear(N_BINS, hidden), nn.ReLU(), nn.Linear(hidden, len(MATERIALS)))


    @torch.no_grad()
    def evaluate(model, X, y):
        model.eval()
        acc = (model(X).argmax(1) == y).float().mean().item()
        model.train()
        return acc


    def train(model, X, y, X_val, y_val, epochs=6, lr=0.05, batch_size=32, step_log=None):
        loader = DataLoader(TensorDataset(X, y), batch_size=batch_size)
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        steps, epochs_out, step = [], [], 0
        for epoch in range(1, epochs + 1):
            total = 0.0
            for xb, yb in loader:
                opt.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                opt.step()
                step += 1
                total += loss.item()
                steps.append({"step": step, "epoch": epoch, "loss": round(loss.item(), 5)})
            val_acc = evaluate(model, X_val, y_val)
            epochs_out.append({"epoch": epoch, "train_loss": total / len(loader), "val_acc": val_acc})
            print(f"epoch {epoch} | train_loss {total / len(loader):.4f} | val_acc {val_acc:.3f}")
        if step_log is not None:
            with open(step_log, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=["step", "epoch", "loss"])
                w.writeheader()
                w.writerows(steps)
        return epochs_out
    ''')

R08_TESTS = {
    "tests/conftest.py": CONFTEST,
    "tests/test_spectra.py": D('''
        import pytest
        import torch

        from spectra.train import MATERIALS, N_BINS, load_spectra, make_model


        @pytest.mark.parametrize("n", [1, 50, 400])
        def test_load_shapes(n):
            X, y = load_spectra(n_per_class=n)
            assert X.shape == (n * len(MATERIALS), N_BINS)
            assert y.shape == (n * len(MATERIALS),)


        def test_all_materials_present():
            _, y = load_spectra(n_per_class=10)
            assert set(y.tolist()) == set(range(len(MATERIALS)))


        def test_seeds_differ():
            assert not torch.equal(load_spectra(5, seed=0)[0], load_spectra(5, seed=1)[0])


        @pytest.mark.parametrize("hidden", [16, 64, 128])
        def test_model_output(hidden):
            assert make_model(hidden)(torch.randn(3, N_BINS)).shape == (3, len(MATERIALS))
        '''),
    "tests/test_training.py": D('''
        import torch

        from spectra.train import evaluate, load_spectra, make_model, train


        def test_untrained_model_is_near_chance():
            torch.manual_seed(0)
            X, y = load_spectra(100, seed=1)
            assert evaluate(make_model(), X, y) < 0.5


        def test_train_reaches_val_accuracy(artifact_dir):
            torch.manual_seed(0)
            X, y = load_spectra(400, seed=0)
            Xv, yv = load_spectra(100, seed=1)
            hist = train(make_model(), X, y, Xv, yv, epochs=6, step_log=artifact_dir / "train_steps.csv")
            assert hist[-1]["val_acc"] >= 0.9, f"val_acc {hist[-1]['val_acc']:.3f} after {len(hist)} epochs"


        def test_train_returns_history():
            torch.manual_seed(0)
            X, y = load_spectra(8, seed=0)
            assert len(train(make_model(), X, y, X, y, epochs=2)) == 2
        '''),
}

R08_GITLAB = D('''
    stages: [test]

    pytest:
      stage: test
      image: python:3.11-slim
      cache:
        key: pip-$CI_COMMIT_REF_SLUG
        paths: [.cache/pip]
      variables:
        PIP_CACHE_DIR: "$CI_PROJECT_DIR/.cache/pip"
      script:
        - pip install -r requirements.txt
        - pip install --no-deps -e .
        - pytest -v --durations=3
      artifacts:
        when: always
        paths: [artifacts/]
    ''')


def run08():
    name, repo = "run08", "spectra-clf"
    rng = random.Random(8)
    root = fresh(name)
    files = dict(R08_TESTS)
    files.update({"src/spectra/__init__.py": '__version__ = "0.1.3"\n', "src/spectra/train.py": R08_TRAIN,
                  ".gitlab-ci.yml": R08_GITLAB,
                  "requirements.txt": f"torch=={REAL['torch']}\nnumpy=={REAL['numpy']}\npytest=={REAL['pytest']}\n",
                  "pyproject.toml": pyproject("spectra", "0.1.3", ["torch>=2.1", "numpy>=1.24"])})
    write_tree(root, files)
    env = Env("gl", repo, group="materials-lab")
    lines, rc, wall = run_pytest(root, ["-v", "--durations=3"])
    log = Log("gl", datetime(2026, 10, 14, 15, 2, 47, 61000))
    gl_begin(log, repo, "materials-lab", hexid("r08sha"), "feature/spectra-mlp", rng)
    log.add("$ pip install -r requirements.txt", 0.2)
    pl, dur = pip_lines([("torch", f"torch=={REAL['torch']}"), ("numpy", f"numpy=={REAL['numpy']}"),
                         ("pytest", f"pytest=={REAL['pytest']}")], cached=True, rng=rng)
    log.add(pl, dur, spread=True)
    log.add("WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager. It is recommended to use a virtual environment instead: https://pip.pypa.io/warnings/venv", 0.2)
    log.add("$ pip install --no-deps -e .", 0.3)
    log.add("Obtaining file://" + env.root, 0.5)
    log.add("Successfully built spectra\nInstalling collected packages: spectra\nSuccessfully installed spectra-0.1.3", 3.2)
    log.add("$ pytest -v --durations=3", 0.2)
    log.stream(lines, wall, env, root)
    gl_end(log, rc, rng)
    art = root / "artifacts"
    save_run(name, {"job_pytest.log": log.text(), "train.py": R08_TRAIN, ".gitlab-ci.yml": R08_GITLAB},
             {"artifacts/train_steps.csv": art / "train_steps.csv"})
    st = read_csv_rows(art / "train_steps.csv")
    per_epoch = len(st) // 6
    ep1 = [float(r["loss"]) for r in st[:per_epoch]]
    ep6 = [float(r["loss"]) for r in st[-per_epoch:]]
    epoch_lines = [l.strip() for _, l in lines if l.startswith("epoch ")]
    shuffled = run_python(root, D('''
        import sys, torch
        sys.path.insert(0, "src")
        torch.set_num_threads(1)
        from spectra.train import load_spectra, make_model, train
        torch.manual_seed(0)
        X, y = load_spectra(400, seed=0)
        Xv, yv = load_spectra(100, seed=1)
        p = torch.randperm(len(X))
        hist = train(make_model(), X[p], y[p], Xv, yv, epochs=6)
        '''))
    CHECKS[name] = {"control_same_data_shuffled": shuffled.strip().splitlines(),"pytest": tail_summary(lines), "rc": rc, "steps": len(st), "steps_per_epoch": per_epoch,
                    "epoch1_loss_every_4th": [round(v, 3) for v in ep1[::4]],
                    "epoch6_loss_every_4th": [round(v, 3) for v in ep6[::4]], "epochs": epoch_lines}
    TRUTH[name] = {"truth": "data_not_shuffled",
                   "symptom": "My spectra MLP fails the val-accuracy test in CI (0.78 after 6 epochs, we need 0.9) even though the per-step loss in the artifact keeps dropping close to zero. Why won't it learn properly?",
                   "how": "The training DataLoader is built without shuffle=True while load_spectra() returns the samples grouped material by material, so every epoch walks through 4 single-class blocks (SGD+momentum): per-step loss drops inside a block and jumps at each class boundary, and the model ends each epoch biased to the last class."}


# ===========================================================================
# run09: GRU trend classifier, small batches + plain SGD (healthy, noisy)
# ===========================================================================

R09_TRAIN = D('''
    import csv

    import numpy as np
    import torch
    from torch import nn


    def make_sequences(n, length=30, n_features=3, seed=0):
        """Sensor windows; label 1 if channel 0 trends upward over the window."""
        rng = np.random.default_rng(seed)
        slope = rng.normal(0, 1, n)
        t = np.linspace(-1, 1, length)
        X = rng.normal(0, 1.0, (n, length, n_features))
        X[:, :, 0] += slope[:, None] * t[None, :] * 0.8
        X[:, :, 1] += 0.5 * np.sin(6 * t)[None, :]
        y = (slope > 0).astype(np.int64)
        return torch.tensor(X, dtype=torch.float32), torch.from_numpy(y)


    class TrendGRU(nn.Module):
        def __init__(self, n_features=3, hidden=32):
            super().__init__()
            self.gru = nn.GRU(n_features, hidden, batch_first=True)
            self.head = nn.Linear(hidden, 2)

        def forward(self, x):
            _, h = self.gru(x)
            return self.head(h[-1])


    @torch.no_grad()
    def evaluate(model, X, y):
        model.eval()
        out = model(X)
        loss = nn.functional.cross_entropy(out, y).item()
        acc = (out.argmax(1) == y).float().mean().item()
        model.train()
        return loss, acc


    def train(model, X, y, X_val, y_val, steps=200, lr=0.005, batch_size=16, eval_every=20, seed=0, log_path=None):
        g = torch.Generator().manual_seed(seed)
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        rows = []
        for step in range(1, steps + 1):
            idx = torch.randint(0, len(X), (batch_size,), generator=g)
            opt.zero_grad()
            loss = loss_fn(model(X[idx]), y[idx])
            loss.backward()
            gn = nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0).item()
            opt.step()
            row = {"step": step, "loss": round(loss.item(), 5), "grad_norm": round(gn, 4), "val_loss": "", "val_acc": ""}
            if step % eval_every == 0:
                vl, va = evaluate(model, X_val, y_val)
                row.update(val_loss=round(vl, 5), val_acc=round(va, 4))
            rows.append(row)
        if log_path is not None:
            with open(log_path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
        return rows
    ''')

R09_TESTS = {
    "tests/conftest.py": CONFTEST,
    "tests/test_data.py": D('''
        import pytest
        import torch

        from sensorseq.train import make_sequences


        @pytest.mark.parametrize("length", [10, 30, 60])
        def test_window_length(length):
            X, y = make_sequences(8, length=length)
            assert X.shape == (8, length, 3)


        def test_labels_binary_and_balanced():
            _, y = make_sequences(4000)
            assert set(y.tolist()) == {0, 1}
            assert abs(y.float().mean().item() - 0.5) < 0.05


        def test_deterministic():
            assert torch.equal(make_sequences(4, seed=9)[0], make_sequences(4, seed=9)[0])
        '''),
    "tests/test_model.py": D('''
        import pytest
        import torch

        from sensorseq.train import TrendGRU


        @pytest.mark.parametrize("batch,length", [(1, 5), (16, 30), (4, 100)])
        def test_output_shape(batch, length):
            assert TrendGRU()(torch.randn(batch, length, 3)).shape == (batch, 2)


        def test_batch_independent():
            torch.manual_seed(0)
            model = TrendGRU().eval()
            x = torch.randn(4, 30, 3)
            assert torch.allclose(model(x)[1:2], model(x[1:2]), atol=1e-6)
        '''),
    "tests/test_train.py": D('''
        import torch

        from sensorseq.train import TrendGRU, make_sequences, train


        def test_training_learns_trend(artifact_dir):
            torch.manual_seed(0)
            X, y = make_sequences(2000, seed=0)
            Xv, yv = make_sequences(500, seed=1)
            rows = train(TrendGRU(), X, y, Xv, yv, steps=200, log_path=artifact_dir / "train_steps.csv")
            first = sum(r["loss"] for r in rows[:20]) / 20
            last = sum(r["loss"] for r in rows[-20:]) / 20
            assert last < first
            assert rows[-1]["val_acc"] >= 0.75


        def test_grad_norm_is_clipped():
            torch.manual_seed(0)
            X, y = make_sequences(64, seed=0)
            rows = train(TrendGRU(), X, y, X, y, steps=5, eval_every=5)
            assert all(r["grad_norm"] >= 0 for r in rows)
        '''),
}

R09_TOX = D('''
    [tox]
    env_list = py311
    minversion = 4.11

    [testenv]
    deps = -r requirements.txt
    commands = pytest -ra --durations=4 {posargs}
    setenv =
        OMP_NUM_THREADS = 1
    ''')


def run09():
    name, repo = "run09", "sensor-seq"
    rng = random.Random(9)
    root = fresh(name)
    files = dict(R09_TESTS)
    files.update({"src/sensorseq/__init__.py": '__version__ = "0.3.0"\n', "src/sensorseq/train.py": R09_TRAIN,
                  "tox.ini": R09_TOX,
                  "requirements.txt": f"torch=={REAL['torch']}\nnumpy=={REAL['numpy']}\npytest=={REAL['pytest']}\n",
                  "pyproject.toml": pyproject("sensorseq", "0.3.0", ["torch>=2.1", "numpy>=1.24"])})
    write_tree(root, files)
    env = Env("gl", repo, group="iot", venv=".tox/py311")
    lines, rc, wall = run_pytest(root, ["-ra", "--durations=4"])
    log = Log("gl", datetime(2026, 10, 27, 9, 31, 18, 240000))
    gl_begin(log, repo, "iot", hexid("r09sha"), "main", rng)
    log.add("$ pip install -q tox==4.23.2", 0.2)
    log.add("$ tox -e py311", 6.8)
    log.add(".pkg: install_requires> python -I -m pip install 'setuptools>=68' wheel", 0.9)
    log.add(".pkg: _optional_hooks> python " + env.stdlib + "/site-packages/pyproject_api/_backend.py True setuptools.build_meta", 4.6)
    log.add(".pkg: get_requires_for_build_editable> python " + env.stdlib + "/site-packages/pyproject_api/_backend.py True setuptools.build_meta", 0.4)
    log.add("py311: install_deps> python -I -m pip install -r requirements.txt", 0.2)
    pl, dur = pip_lines([("torch", f"torch=={REAL['torch']}"), ("numpy", f"numpy=={REAL['numpy']}"),
                         ("pytest", f"pytest=={REAL['pytest']}")], cached=True, rng=rng)
    log.add(pl, dur * 1.5, spread=True)
    log.add(".pkg: build_editable> python " + env.stdlib + "/site-packages/pyproject_api/_backend.py True setuptools.build_meta", 0.4)
    log.add("py311: install_package> python -I -m pip install --force-reinstall --no-deps " + env.root + "/.tox/.tmp/package/1/sensorseq-0.3.0-0.editable-py3-none-any.whl", 2.1)
    log.add("py311: commands[0]> pytest -ra --durations=4", 1.4)
    t_cmd0 = log.t
    log.stream(lines, wall, env, root)
    cmd = (log.t - t_cmd0).total_seconds()
    setup = 31.2 + rng.uniform(0, 3)
    if rc:
        log.add(f"py311: exit {rc} ({cmd:.2f} seconds) {env.root}> pytest -ra --durations=4 pid={rng.randint(200, 900)}", 0.01)
        log.add(f"  py311: FAIL code {rc} ({setup + cmd:.2f}=setup[{setup:.2f}]+cmd[{cmd:.2f}] seconds)")
        log.add(f"  evaluation failed :( ({setup + cmd + 0.1:.2f} seconds)")
    else:
        log.add(f"  py311: OK ({setup + cmd:.2f}=setup[{setup:.2f}]+cmd[{cmd:.2f}] seconds)", 0.01)
        log.add(f"  congratulations :) ({setup + cmd + 0.1:.2f} seconds)")
    gl_end(log, rc, rng)
    art = root / "artifacts"
    save_run(name, {"job_tox_py311.log": log.text(), "train.py": R09_TRAIN, "tox.ini": R09_TOX,
                    "requirements.txt": files["requirements.txt"]},
             {"artifacts/train_steps.csv": art / "train_steps.csv"})
    st = read_csv_rows(art / "train_steps.csv")
    losses = [float(r["loss"]) for r in st]
    CHECKS[name] = {"pytest": tail_summary(lines), "rc": rc,
                    "loss_mean_per_40_steps": [round(sum(losses[i:i + 40]) / 40, 3) for i in range(0, 200, 40)],
                    "loss_min_max_last_50": [min(losses[-50:]), max(losses[-50:])],
                    "val_acc": [r["val_acc"] for r in st if r["val_acc"]],
                    "val_loss": [r["val_loss"] for r in st if r["val_loss"]]}
    TRUTH[name] = {"truth": "healthy",
                   "symptom": "Tests pass, but the per-step loss in the CI artifact jumps all over the place and only creeps down. Is this training run ok or is something wrong?",
                   "how": "No fault: GRU on synthetic trend windows, SGD(momentum 0.9) lr 0.005, batch 16 sampled with replacement, grad clipping at 5; per-step loss is noisy because of the small batch but val loss/acc improve steadily."}


# ===========================================================================
# run10: building-energy regression MLP fed from a pandas CSV loader
# ===========================================================================

R10_TRAIN = D('''
    import csv

    import pandas as pd
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    FEATURES = ["floor_area", "n_floors", "year_built", "outdoor_temp", "humidity", "occupancy", "hour_sin", "hour_cos"]
    TARGET = "kwh"


    def load_table(path):
        df = pd.read_csv(path)
        X = torch.tensor(df[FEATURES].values)
        y = torch.tensor(df[TARGET].values).unsqueeze(1)
        return X, y


    def fit_scaler(X):
        return X.mean(dim=0), X.std(dim=0) + 1e-6


    def scale(X, stats):
        mean, std = stats
        return (X - mean) / std


    class EnergyMLP(nn.Module):
        def __init__(self, n_features=len(FEATURES), hidden=64):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(),
                                     nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

        def forward(self, x):
            return self.net(x)


    def fit(model, X, y, epochs=40, lr=3e-3, batch_size=64, seed=0, log_path=None):
        torch.manual_seed(seed)
        stats = fit_scaler(X)
        y_mean, y_std = y.mean(), y.std()
        loader = DataLoader(TensorDataset(scale(X, stats), (y - y_mean) / y_std), batch_size=batch_size, shuffle=True)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        loss_fn = nn.MSELoss()
        print(f"training on {len(X)} rows, {X.shape[1]} features, {epochs} epochs")
        rows = []
        for epoch in range(1, epochs + 1):
            total, n = 0.0, 0
            for xb, yb in loader:
                opt.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                opt.step()
                total += loss.item() * len(xb)
                n += len(xb)
            rows.append({"epoch": epoch, "mse_scaled": round(total / n, 5)})
            if epoch % 10 == 0:
                print(f"epoch {epoch}: mse_scaled={total / n:.4f}")
        if log_path is not None:
            with open(log_path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=["epoch", "mse_scaled"])
                w.writeheader()
                w.writerows(rows)
        return {"stats": stats, "y_mean": y_mean, "y_std": y_std, "history": rows}


    @torch.no_grad()
    def predict(model, X, state):
        model.eval()
        out = model(scale(X, state["stats"])) * state["y_std"] + state["y_mean"]
        model.train()
        return out
    ''')


def _r10_fixture(n=800, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    area = rng.uniform(80, 4000, n).round(1)
    floors = rng.integers(1, 12, n)
    year = rng.integers(1950, 2024, n)
    temp = rng.normal(12, 8, n).round(2)
    hum = rng.uniform(20, 95, n).round(1)
    occ = rng.uniform(0, 1, n).round(3)
    hour = rng.integers(0, 24, n)
    hs, hc = np.sin(2 * np.pi * hour / 24).round(4), np.cos(2 * np.pi * hour / 24).round(4)
    kwh = (0.02 * area * (1 + 0.4 * occ) + 3.0 * np.abs(temp - 18) + 0.05 * (2024 - year)
           + 8 * hs + rng.normal(0, 4, n)).round(2)
    lines = ["building_id,floor_area,n_floors,year_built,outdoor_temp,humidity,occupancy,hour_sin,hour_cos,kwh"]
    for i in range(n):
        lines.append(f"B{i:04d},{area[i]},{floors[i]},{year[i]},{temp[i]},{hum[i]},{occ[i]},{hs[i]},{hc[i]},{kwh[i]}")
    return "\n".join(lines) + "\n"


R10_TESTS = {
    "tests/conftest.py": CONFTEST,
    "tests/test_data.py": D('''
        from pathlib import Path

        import pytest
        import torch

        from energy.train import FEATURES, fit_scaler, load_table, scale

        CSV = Path(__file__).parent / "fixtures" / "buildings.csv"


        def test_load_table_shapes():
            X, y = load_table(CSV)
            assert X.shape == (800, len(FEATURES))
            assert y.shape == (800, 1)


        def test_no_missing_values():
            X, y = load_table(CSV)
            assert not torch.isnan(X).any() and not torch.isnan(y).any()


        def test_scaler_zero_mean_unit_std():
            X, _ = load_table(CSV)
            Z = scale(X, fit_scaler(X))
            assert torch.allclose(Z.mean(0), torch.zeros(len(FEATURES), dtype=Z.dtype), atol=1e-5)
            assert torch.allclose(Z.std(0), torch.ones(len(FEATURES), dtype=Z.dtype), atol=1e-3)


        @pytest.mark.parametrize("col", ["floor_area", "outdoor_temp", "hour_sin"])
        def test_expected_columns(col):
            assert col in FEATURES
        '''),
    "tests/test_model.py": D('''
        import pytest
        import torch

        from energy.train import EnergyMLP


        @pytest.mark.parametrize("batch", [1, 32, 256])
        def test_forward(batch):
            assert EnergyMLP()(torch.randn(batch, 8)).shape == (batch, 1)


        def test_n_parameters():
            assert sum(p.numel() for p in EnergyMLP().parameters()) == 4801
        '''),
    "tests/test_train.py": D('''
        from pathlib import Path

        import torch

        from energy.train import EnergyMLP, fit, load_table, predict

        CSV = Path(__file__).parent / "fixtures" / "buildings.csv"


        def test_fit_on_random_tensors():
            torch.manual_seed(0)
            X = torch.randn(256, 8)
            y = X[:, :1] * 2 + 0.1 * torch.randn(256, 1)
            state = fit(EnergyMLP(), X, y, epochs=5)
            assert state["history"][-1]["mse_scaled"] < state["history"][0]["mse_scaled"]


        def test_fit_on_buildings(artifact_dir):
            torch.manual_seed(0)
            X, y = load_table(CSV)
            state = fit(EnergyMLP(), X[:600], y[:600], log_path=artifact_dir / "train_log.csv")
            assert state["history"][-1]["mse_scaled"] < 0.2


        def test_predict_mae(artifact_dir):
            torch.manual_seed(0)
            X, y = load_table(CSV)
            model = EnergyMLP()
            state = fit(model, X[:600], y[:600], epochs=20)
            mae = (predict(model, X[600:], state) - y[600:]).abs().mean().item()
            assert mae < 10.0
        '''),
}


def run10():
    name, repo = "run10", "building-energy"
    rng = random.Random(10)
    root = fresh(name)
    files = dict(R10_TESTS)
    files.update({"src/energy/__init__.py": '__version__ = "0.5.0"\n', "src/energy/train.py": R10_TRAIN,
                  "tests/fixtures/buildings.csv": _r10_fixture(),
                  "requirements.txt": f"torch=={REAL['torch']}\npandas=={REAL['pandas']}\npytest=={REAL['pytest']}\n",
                  "pyproject.toml": pyproject("energy", "0.5.0", ["torch>=2.1", "pandas>=2.0"])})
    write_tree(root, files)
    env = Env("gh", repo)
    lines, rc, wall = run_pytest(root, ["-ra", "--tb=short"])
    log = Log("gh", datetime(2026, 11, 9, 17, 55, 40, 377000))
    gh_begin(log, "pytest", rng)
    gh_checkout(log, repo, hexid("r10sha"), "refs/remotes/pull/14/merge", rng)
    gh_setup_python(log, rng)
    gh_step(log, "pip install -r requirements.txt\npip install -e . --no-deps", env)
    pl, dur = pip_lines([("torch", f"torch=={REAL['torch']}"), ("pandas", f"pandas=={REAL['pandas']}"),
                         ("pytest", f"pytest=={REAL['pytest']}")], rng=rng)
    log.add(pl, dur, spread=True)
    log.add("Obtaining file://" + env.root, 0.6)
    log.add("Successfully built energy\nInstalling collected packages: energy\nSuccessfully installed energy-0.5.0", 3.0)
    gh_step(log, "pytest -ra --tb=short", env)
    log.stream(lines, wall, env, root)
    gh_end(log, rc, None, rng)
    save_run(name, {"ci_pytest.log": log.text(), "train.py": R10_TRAIN, "requirements.txt": files["requirements.txt"]})
    fails = [l for _, l in lines if l.startswith("FAILED")]
    ok = run_python(root, D('''
        import sys, torch
        sys.path.insert(0, "src")
        torch.set_num_threads(1)
        from energy.train import EnergyMLP, fit, load_table, predict
        torch.manual_seed(0)
        X, y = load_table("tests/fixtures/buildings.csv")
        print("dtypes", X.dtype, y.dtype)
        X, y = X.float(), y.float()
        m = EnergyMLP()
        s = fit(m, X[:600], y[:600])
        print("control_float32_final_mse_scaled", s["history"][-1]["mse_scaled"])
        print("control_float32_test_mae", (predict(m, X[600:], s) - y[600:]).abs().mean().item())
        '''))
    CHECKS[name] = {"pytest": tail_summary(lines), "rc": rc, "failed": fails,
                    "control": [l for l in ok.splitlines() if l.startswith(("dtypes", "control"))]}
    TRUTH[name] = {"truth": "dtype_mismatch",
                   "symptom": "After switching our data loading to read the buildings CSV, the training tests crash right at the first batch in CI, although the model tests and training on random tensors still pass.",
                   "how": "load_table() builds tensors with torch.tensor(df[...].values), which keeps pandas' float64; the model's Linear weights are float32, so the first forward raises 'mat1 and mat2 must have the same dtype, but got Double and Float'."}


# ===========================================================================
# run11: activity recognition; MR rewrites the train/val split
# ===========================================================================

R11_DATA_HEAD = D('''
    import numpy as np
    import torch

    ACTIVITIES = ("walk", "run", "sit", "stairs")
    N_FEATURES = 16


    def load_recordings(n_subjects=6, windows_per_subject=400, seed=0):
        """Feature windows from wrist sensors; recordings are concatenated subject by subject."""
        centers = np.random.default_rng(5).normal(0, 1.0, (len(ACTIVITIES), N_FEATURES))
        rng = np.random.default_rng(seed)
        X, y = [], []
        for _ in range(n_subjects):
            offset = rng.normal(0, 1.5, N_FEATURES)
            placement = np.eye(N_FEATURES) + 1.0 * rng.normal(0, 1, (N_FEATURES, N_FEATURES)) / np.sqrt(N_FEATURES)
            gain = rng.uniform(0.7, 1.4)
            labels = rng.integers(0, len(ACTIVITIES), windows_per_subject)
            feats = (centers[labels] * gain + rng.normal(0, 1.0, (windows_per_subject, N_FEATURES))) @ placement + offset
            X.append(feats)
            y.append(labels)
        return np.concatenate(X).astype(np.float32), np.concatenate(y).astype(np.int64)


    ''')

R11_SPLIT_MAIN = D('''
    def split_train_val(X, y, val_frac=0.2, seed=13):
        idx = np.random.default_rng(seed).permutation(len(X))
        n_val = int(len(X) * val_frac)
        val, train = idx[:n_val], idx[n_val:]
        return (X[train], y[train]), (X[val], y[val])


    def to_tensors(X, y, mean, std):
        return torch.from_numpy((X - mean) / std), torch.from_numpy(y)
    ''')

R11_SPLIT_MR = D('''
    def split_train_val(X, y, val_frac=0.2):
        """Deterministic split: the last `val_frac` of the windows are held out.

        No RNG involved, so train/val are identical across numpy versions and machines.
        """
        n_val = int(len(X) * val_frac)
        return (X[:-n_val], y[:-n_val]), (X[-n_val:], y[-n_val:])


    def to_tensors(X, y, mean, std):
        return torch.from_numpy((X - mean) / std), torch.from_numpy(y)
    ''')

R11_TRAIN_MAIN = D('''
    import csv
    from dataclasses import dataclass

    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    from .data import ACTIVITIES, N_FEATURES, load_recordings, split_train_val, to_tensors


    @dataclass
    class Config:
        val_frac: float = 0.2
        split_seed: int = 13
        hidden: int = 64
        lr: float = 3e-3
        epochs: int = 30
        batch_size: int = 64
        seed: int = 0


    def make_model(hidden=64):
        return nn.Sequential(nn.Linear(N_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, len(ACTIVITIES)))


    @torch.no_grad()
    def evaluate(model, X, y):
        model.eval()
        out = model(X)
        model.train()
        return nn.functional.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


    def run(cfg=Config(), log_path=None):
        torch.manual_seed(cfg.seed)
        X, y = load_recordings()
        (Xtr, ytr), (Xva, yva) = split_train_val(X, y, cfg.val_frac, seed=cfg.split_seed)
        mean, std = Xtr.mean(0), Xtr.std(0)
        train_t, val_t = to_tensors(Xtr, ytr, mean, std), to_tensors(Xva, yva, mean, std)
        model = make_model(cfg.hidden)
        opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        loss_fn = nn.CrossEntropyLoss()
        rows = []
        for epoch in range(1, cfg.epochs + 1):
            for xb, yb in DataLoader(TensorDataset(*train_t), batch_size=cfg.batch_size, shuffle=True):
                opt.zero_grad()
                loss_fn(model(xb), yb).backward()
                opt.step()
            tl, ta = evaluate(model, *train_t)
            vl, va = evaluate(model, *val_t)
            rows.append({"epoch": epoch, "train_loss": round(tl, 5), "train_acc": round(ta, 4),
                         "val_loss": round(vl, 5), "val_acc": round(va, 4)})
        if log_path is not None:
            with open(log_path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
        return model, rows
    ''')

R11_TRAIN_MR = R11_TRAIN_MAIN.replace("        split_seed: int = 13\n", "").replace(
    "split_train_val(X, y, cfg.val_frac, seed=cfg.split_seed)", "split_train_val(X, y, cfg.val_frac)")

R11_TEST_DATA_MAIN = D('''
    import numpy as np

    from har.data import ACTIVITIES, N_FEATURES, load_recordings, split_train_val


    def test_recordings_shape():
        X, y = load_recordings()
        assert X.shape == (2400, N_FEATURES) and y.shape == (2400,)


    def test_all_activities_present():
        _, y = load_recordings()
        assert set(np.unique(y)) == set(range(len(ACTIVITIES)))


    def test_split_sizes():
        X, y = load_recordings()
        (Xtr, _), (Xva, _) = split_train_val(X, y, 0.2)
        assert len(Xva) == 480 and len(Xtr) == 1920


    def test_split_disjoint():
        X, y = load_recordings()
        (Xtr, _), (Xva, _) = split_train_val(X, y, 0.2)
        tr = {r.tobytes() for r in Xtr}
        assert not any(r.tobytes() in tr for r in Xva)


    def test_split_is_reproducible():
        X, y = load_recordings()
        a = split_train_val(X, y, 0.2)[1][0]
        b = split_train_val(X, y, 0.2)[1][0]
        assert np.array_equal(a, b)
    ''')

R11_TESTS = {
    "tests/conftest.py": CONFTEST,
    "tests/test_model.py": D('''
        import pytest
        import torch

        from har.train import make_model


        @pytest.mark.parametrize("hidden", [16, 64])
        def test_output(hidden):
            assert make_model(hidden)(torch.randn(5, 16)).shape == (5, 4)
        '''),
    "tests/test_accuracy.py": D('''
        import json

        import pytest

        from har.train import run

        BASELINE_VAL_ACC = 0.91


        @pytest.fixture(scope="module")
        def history(artifact_dir):
            _, rows = run(log_path=artifact_dir / "train_log.csv")
            (artifact_dir / "final_metrics.json").write_text(json.dumps(rows[-1], indent=2))
            return rows


        def test_train_accuracy(history):
            assert history[-1]["train_acc"] > 0.9


        def test_val_accuracy_regression(history):
            val_acc = history[-1]["val_acc"]
            assert val_acc >= BASELINE_VAL_ACC - 0.03, f"val_acc {val_acc:.3f} regressed (baseline {BASELINE_VAL_ACC})"
        '''),
}


def _r11_build(root, split, train):
    files = dict(R11_TESTS)
    files.update({"src/har/__init__.py": '__version__ = "1.4.0"\n', "src/har/data.py": R11_DATA_HEAD + split,
                  "src/har/train.py": train, "tests/test_data.py": R11_TEST_DATA_MAIN,
                  "requirements.txt": f"torch=={REAL['torch']}\nnumpy=={REAL['numpy']}\npytest=={REAL['pytest']}\n",
                  "pyproject.toml": pyproject("har", "1.4.0", ["torch>=2.1", "numpy>=1.24"])})
    write_tree(root, files)
    return files


def _r11_job(root, env, rng, start, sha, ref):
    lines, rc, wall = run_pytest(root, ["-ra"])
    log = Log("gl", start)
    gl_begin(log, env.root.split("/")[-1], "wearables", sha, ref, rng)
    log.add("$ pip install -r requirements.txt -e .", 0.2)
    pl, dur = pip_lines([("torch", f"torch=={REAL['torch']}"), ("numpy", f"numpy=={REAL['numpy']}"),
                         ("pytest", f"pytest=={REAL['pytest']}")], cached=True, rng=rng)
    log.add("Obtaining file://" + env.root, 0.4)
    log.add(pl.replace("Successfully installed ", "Successfully installed har-1.4.0 "), dur, spread=True)
    log.add("$ pytest -ra", 0.3)
    log.stream(lines, wall, env, root)
    gl_end(log, rc, rng)
    return log.text(), lines, rc


def run11():
    name, repo = "run11", "activity-recognition"
    rng = random.Random(11)
    env = Env("gl", repo, group="wearables")
    main_root, mr_root = fresh(name, "main"), fresh(name, "mr")
    _r11_build(main_root, R11_SPLIT_MAIN, R11_TRAIN_MAIN)
    _r11_build(mr_root, R11_SPLIT_MR, R11_TRAIN_MR)
    main_log, main_lines, main_rc = _r11_job(main_root, env, rng, datetime(2026, 10, 19, 7, 58, 12, 903000),
                                             hexid("r11main"), "main")
    mr_log, mr_lines, mr_rc = _r11_job(mr_root, env, rng, datetime(2026, 10, 21, 14, 6, 55, 118000),
                                       hexid("r11mr"), "refs/merge-requests/73/head")
    diff = git_diff("src/har/data.py", R11_DATA_HEAD + R11_SPLIT_MAIN, R11_DATA_HEAD + R11_SPLIT_MR) + \
        git_diff("src/har/train.py", R11_TRAIN_MAIN, R11_TRAIN_MR)
    save_run(name, {"pipeline_main_pytest.log": main_log, "pipeline_mr73_pytest.log": mr_log, "mr73.diff": diff},
             {"artifacts/main/train_log.csv": main_root / "artifacts/train_log.csv",
              "artifacts/mr73/train_log.csv": mr_root / "artifacts/train_log.csv"})
    a = read_csv_rows(main_root / "artifacts/train_log.csv")
    b = read_csv_rows(mr_root / "artifacts/train_log.csv")
    CHECKS[name] = {"pytest_main": tail_summary(main_lines), "pytest_mr": tail_summary(mr_lines),
                    "main_final": a[-1], "mr_final": b[-1],
                    "main_val_acc_every5": [r["val_acc"] for r in a[4::5]],
                    "mr_val_acc_every5": [r["val_acc"] for r in b[4::5]],
                    "mr_val_loss_every5": [r["val_loss"] for r in b[4::5]]}
    TRUTH[name] = {"truth": "seed_or_split_changed",
                   "symptom": "MR !73 was supposed to be a pure refactor of the data module, but the val accuracy regression test now fails (about 0.68 instead of ~0.92) while train accuracy is unchanged. Is the model worse now?",
                   "how": "MR !73 replaced the seeded random permutation split with 'last 20% of the windows'; the recordings are stored subject by subject, so validation is now one and a bit unseen subjects (different sensor placement/offset) instead of a random sample of all subjects. Model, optimiser and training code are unchanged."}


# ===========================================================================
# run12: texture CNN with checkpoint/resume support (tox on GitHub Actions)
# ===========================================================================

R12_TRAIN = D('''
    import csv
    import math

    import torch
    from torch import nn

    CLASSES = ("horizontal", "vertical", "diagonal", "checker")


    def make_textures(n, size=16, noise=1.8, seed=0):
        g = torch.Generator().manual_seed(seed)
        y = torch.randint(0, len(CLASSES), (n,), generator=g)
        freq = 0.6 + 0.8 * torch.rand(n, 1, 1, generator=g)
        phase = 2 * math.pi * torch.rand(n, 1, 1, generator=g)
        r = torch.arange(size).float().view(1, size, 1)
        c = torch.arange(size).float().view(1, 1, size)
        waves = torch.stack([
            torch.sin(freq * r + phase).expand(n, size, size),
            torch.sin(freq * c + phase).expand(n, size, size),
            torch.sin(freq * (r + c) / 1.4 + phase),
            torch.sin(freq * r + phase) * torch.sin(freq * c + phase),
        ], dim=1)
        X = waves[torch.arange(n), y] + noise * torch.randn(n, size, size, generator=g)
        return X.unsqueeze(1), y


    def make_model(width=12):
        return nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(width * 16, len(CLASSES)),
        )


    class Trainer:
        def __init__(self, model, lr=3e-3, epochs=12, batch_size=64, seed=0):
            self.model = model
            self.epochs = epochs
            self.batch_size = batch_size
            self.seed = seed
            self.opt = torch.optim.Adam(model.parameters(), lr=lr)
            self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)
            self.loss_fn = nn.CrossEntropyLoss()
            self.start_epoch = 1
            self.rows = []

        def save(self, path, epoch):
            torch.save({"model": self.model.state_dict(), "epoch": epoch}, path)

        def resume(self, path):
            ckpt = torch.load(path)
            self.model.load_state_dict(ckpt["model"])
            self.start_epoch = ckpt["epoch"] + 1
            print(f"resumed from {path.name} at epoch {self.start_epoch}")

        def fit(self, X, y, stop_after=None, ckpt_path=None, log_path=None):
            steps_per_epoch = math.ceil(len(X) / self.batch_size)
            for epoch in range(self.start_epoch, self.epochs + 1):
                order = torch.randperm(len(X), generator=torch.Generator().manual_seed(self.seed + epoch))
                for i in range(steps_per_epoch):
                    idx = order[i * self.batch_size:(i + 1) * self.batch_size]
                    self.opt.zero_grad()
                    loss = self.loss_fn(self.model(X[idx]), y[idx])
                    loss.backward()
                    self.opt.step()
                    self.rows.append({"step": (epoch - 1) * steps_per_epoch + i + 1, "epoch": epoch,
                                      "loss": round(loss.item(), 5), "lr": round(self.opt.param_groups[0]["lr"], 7)})
                self.sched.step()
                if ckpt_path is not None:
                    self.save(ckpt_path, epoch)
                if stop_after is not None and epoch == stop_after:
                    break
            if log_path is not None:
                with open(log_path, "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=["step", "epoch", "loss", "lr"])
                    w.writeheader()
                    w.writerows(self.rows)
            return self.rows

        def epoch_loss(self, epoch):
            losses = [r["loss"] for r in self.rows if r["epoch"] == epoch]
            return sum(losses) / len(losses)
    ''')

R12_TESTS = {
    "tests/conftest.py": CONFTEST,
    "tests/test_data.py": D('''
        import pytest
        import torch

        from texturenet.train import CLASSES, make_textures


        @pytest.mark.parametrize("n,size", [(4, 16), (64, 16), (8, 32)])
        def test_shapes(n, size):
            X, y = make_textures(n, size=size)
            assert X.shape == (n, 1, size, size) and y.shape == (n,)


        def test_labels_cover_classes():
            _, y = make_textures(400)
            assert torch.bincount(y, minlength=len(CLASSES)).min() > 50
        '''),
    "tests/test_model.py": D('''
        import torch

        from texturenet.train import make_model


        def test_forward():
            assert make_model()(torch.randn(3, 1, 16, 16)).shape == (3, 4)


        def test_param_count():
            assert sum(p.numel() for p in make_model().parameters()) == 2200
        '''),
    "tests/test_checkpoint.py": D('''
        import torch

        from texturenet.train import Trainer, make_model, make_textures


        def test_checkpoint_restores_weights(tmp_path):
            torch.manual_seed(0)
            X, y = make_textures(256)
            t = Trainer(make_model(), epochs=2)
            t.fit(X, y, ckpt_path=tmp_path / "last.pt")
            t2 = Trainer(make_model(), epochs=2)
            t2.resume(tmp_path / "last.pt")
            for a, b in zip(t.model.state_dict().values(), t2.model.state_dict().values()):
                assert torch.equal(a, b)
            assert t2.start_epoch == 3


        def test_resume_matches_uninterrupted(tmp_path, artifact_dir):
            X, y = make_textures(1280, seed=0)
            torch.manual_seed(0)
            full = Trainer(make_model(), epochs=12)
            full.fit(X, y, log_path=artifact_dir / "uninterrupted.csv")

            torch.manual_seed(0)
            first = Trainer(make_model(), epochs=12)
            first.fit(X, y, stop_after=6, ckpt_path=tmp_path / "last.pt")
            second = Trainer(make_model(), epochs=12)
            second.resume(tmp_path / "last.pt")
            second.rows = list(first.rows)
            second.fit(X, y, log_path=artifact_dir / "interrupted.csv")

            lr_full = [r["lr"] for r in full.rows if r["epoch"] == 7][0]
            lr_resumed = [r["lr"] for r in second.rows if r["epoch"] == 7][0]
            assert lr_resumed == lr_full, f"lr after resume {lr_resumed} != {lr_full}"
            assert abs(second.epoch_loss(12) - full.epoch_loss(12)) < 1e-3
        '''),
    "tests/test_train.py": D('''
        import torch

        from texturenet.train import Trainer, make_model, make_textures


        def test_loss_decreases():
            torch.manual_seed(0)
            X, y = make_textures(512, seed=1)
            t = Trainer(make_model(), epochs=4)
            t.fit(X, y)
            assert t.epoch_loss(4) < t.epoch_loss(1)


        def test_lr_follows_cosine():
            t = Trainer(make_model(), lr=1e-3, epochs=4)
            t.fit(*make_textures(64, seed=2))
            lrs = [r["lr"] for r in t.rows]
            assert lrs[0] == 1e-3 and lrs[-1] < lrs[0]
        '''),
}

R12_TOX = D('''
    [tox]
    env_list = py311

    [testenv]
    deps =
        -r requirements.txt
    commands =
        pytest -ra {posargs:tests}
    ''')


def run12():
    name, repo = "run12", "texture-cnn"
    rng = random.Random(12)
    root = fresh(name)
    files = dict(R12_TESTS)
    files.update({"src/texturenet/__init__.py": '__version__ = "0.8.1"\n', "src/texturenet/train.py": R12_TRAIN,
                  "tox.ini": R12_TOX,
                  "requirements.txt": f"torch=={REAL['torch']}\npytest=={REAL['pytest']}\n",
                  "pyproject.toml": pyproject("texturenet", "0.8.1", ["torch>=2.1"])})
    write_tree(root, files)
    env = Env("gh", repo, venv=".tox/py311")
    lines, rc, wall = run_pytest(root, ["-ra", "tests"])
    log = Log("gh", datetime(2026, 11, 12, 20, 11, 33, 655000))
    gh_begin(log, "tox", rng)
    gh_checkout(log, repo, hexid("r12sha"), "refs/remotes/pull/31/merge", rng)
    gh_setup_python(log, rng)
    gh_step(log, "python -m pip install tox", env)
    log.add("Collecting tox\n  Downloading tox-4.23.2-py3-none-any.whl.metadata (3.7 kB)\n"
            "Installing collected packages: distlib, pyproject-api, pluggy, platformdirs, packaging, filelock, colorama, chardet, cachetools, virtualenv, tox\n"
            "Successfully installed cachetools-5.5.1 chardet-5.2.0 colorama-0.4.6 distlib-0.3.9 filelock-3.17.0 packaging-24.2 platformdirs-4.3.6 pluggy-1.5.0 pyproject-api-1.9.0 tox-4.23.2 virtualenv-20.29.1",
            3.6, spread=True)
    gh_step(log, "tox -e py311", env)
    log.add("py311: install_deps> python -I -m pip install -r requirements.txt", 1.8)
    pl, dur = pip_lines([("torch", f"torch=={REAL['torch']}"), ("pytest", f"pytest=={REAL['pytest']}")], rng=rng)
    log.add(pl, dur, spread=True)
    log.add(".pkg: install_requires> python -I -m pip install 'setuptools>=68' wheel", 0.3)
    log.add(".pkg: _optional_hooks> python /opt/hostedtoolcache/Python/3.11.7/x64/lib/python3.11/site-packages/pyproject_api/_backend.py True setuptools.build_meta", 3.9)
    log.add(".pkg: build_sdist> python /opt/hostedtoolcache/Python/3.11.7/x64/lib/python3.11/site-packages/pyproject_api/_backend.py True setuptools.build_meta", 0.6)
    log.add(f"py311: install_package> python -I -m pip install --force-reinstall --no-deps {env.root}/.tox/.tmp/package/1/texturenet-0.8.1.tar.gz", 0.9)
    log.add("py311: commands[0]> pytest -ra tests", 2.7)
    t0 = log.t
    log.stream(lines, wall, env, root)
    cmd = (log.t - t0).total_seconds()
    setup = 47.9 + rng.uniform(0, 3)
    if rc:
        log.add(f"py311: exit {rc} ({cmd:.2f} seconds) {env.root}> pytest -ra tests pid={rng.randint(2000, 3000)}", 0.01)
        log.add(f"  py311: FAIL code {rc} ({setup + cmd:.2f}=setup[{setup:.2f}]+cmd[{cmd:.2f}] seconds)")
        log.add(f"  evaluation failed :( ({setup + cmd + 0.07:.2f} seconds)")
    else:
        log.add(f"  py311: OK ({setup + cmd:.2f}=setup[{setup:.2f}]+cmd[{cmd:.2f}] seconds)", 0.01)
        log.add(f"  congratulations :) ({setup + cmd + 0.07:.2f} seconds)")
    gh_end(log, 1 if rc else 0, "resume-logs", rng)
    art = root / "artifacts"
    save_run(name, {"ci_tox_py311.log": log.text(), "train.py": R12_TRAIN, "tox.ini": R12_TOX},
             {"artifacts/uninterrupted.csv": art / "uninterrupted.csv", "artifacts/interrupted.csv": art / "interrupted.csv"})
    a = read_csv_rows(art / "uninterrupted.csv")
    b = read_csv_rows(art / "interrupted.csv")

    def ep(rows, e, key):
        v = [float(r[key]) for r in rows if int(r["epoch"]) == e]
        return round(sum(v) / len(v), 5)
    CHECKS[name] = {"pytest": tail_summary(lines), "rc": rc,
                    "epoch_loss_full": [ep(a, e, "loss") for e in range(1, 13)],
                    "epoch_loss_resumed": [ep(b, e, "loss") for e in range(1, 13)],
                    "epoch_lr_full": [ep(a, e, "lr") for e in range(1, 13)],
                    "epoch_lr_resumed": [ep(b, e, "lr") for e in range(1, 13)],
                    "steps_around_resume_full": [(r["step"], r["loss"], r["lr"]) for r in a[115:125]],
                    "steps_around_resume_resumed": [(r["step"], r["loss"], r["lr"]) for r in b[115:125]]}
    TRUTH[name] = {"truth": "resume_mismatch",
                   "symptom": "Our resume test fails on CI: a run that is stopped at epoch 6 and resumed from the checkpoint doesn't end where the uninterrupted run does, even though the weights-restore test passes. Is the checkpoint broken?",
                   "how": "Trainer.save() stores only the model weights and the epoch; resume() restores them but keeps the freshly built Adam optimizer and CosineAnnealingLR scheduler, so after resuming at epoch 7 the Adam moments are reset and the lr restarts from 3e-3 instead of continuing the cosine (~1.5e-3): loss and lr jump at the resume step."}


# ===========================================================================
# run01: churn MLP fed by a CSV-backed Dataset (GitLab CI)
# ===========================================================================

R01_PKG = {
    "src/churn/__init__.py": '__version__ = "0.7.0"\n',
    "src/churn/data.py": D('''
        import pandas as pd
        import torch
        from torch.utils.data import Dataset


        class CustomerCSV(Dataset):
            """Rows of a customer table as (features, churned) pairs."""

            def __init__(self, path, label_col="churned"):
                self.path = path
                self.label_col = label_col
                header = pd.read_csv(path, nrows=0).columns
                self.feature_cols = [c for c in header if c.startswith("f_")]
                with open(path) as f:
                    self.n_rows = sum(1 for _ in f) - 1

            def __len__(self):
                return self.n_rows

            def __getitem__(self, idx):
                df = pd.read_csv(self.path)
                row = df.iloc[idx]
                x = torch.tensor(row[self.feature_cols].to_numpy(dtype="float32"))
                y = torch.tensor(int(row[self.label_col]))
                return x, y
        '''),
    "src/churn/model.py": D('''
        from torch import nn


        def make_model(n_features=30, hidden=64):
            return nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))
        '''),
    "src/churn/train.py": D('''
        import csv
        import time

        import torch
        from torch import nn
        from torch.utils.data import DataLoader


        def train_epoch(model, dataset, batch_size=64, lr=1e-3, num_workers=0, log_path=None, log_every=5):
            loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers)
            opt = torch.optim.Adam(model.parameters(), lr=lr)
            loss_fn = nn.CrossEntropyLoss()
            model.train()
            rows = []
            t_epoch = time.perf_counter()
            t_fetch = time.perf_counter()
            for step, (xb, yb) in enumerate(loader, 1):
                data_time = time.perf_counter() - t_fetch
                t0 = time.perf_counter()
                opt.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                opt.step()
                compute_time = time.perf_counter() - t0
                rows.append({"step": step, "loss": round(loss.item(), 5), "data_time_s": round(data_time, 4),
                             "compute_time_s": round(compute_time, 5), "batch": len(xb)})
                if step % log_every == 0 or step == len(loader):
                    print(f"step {step:3d}/{len(loader)} loss {loss.item():.4f} data {data_time:.3f}s compute {compute_time:.4f}s")
                t_fetch = time.perf_counter()
            elapsed = time.perf_counter() - t_epoch
            if log_path is not None:
                with open(log_path, "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=list(rows[0]))
                    w.writeheader()
                    w.writerows(rows)
            samples = sum(r["batch"] for r in rows)
            return {"samples_per_s": samples / elapsed, "elapsed_s": elapsed,
                    "data_frac": sum(r["data_time_s"] for r in rows) / elapsed, "rows": rows}
        '''),
    "tests/conftest.py": CONFTEST,
    "tests/test_data.py": D('''
        from pathlib import Path

        import torch

        from churn.data import CustomerCSV

        CSV = Path(__file__).parent / "fixtures" / "customers.csv"


        def test_len():
            assert len(CustomerCSV(CSV)) == 1200


        def test_item_types():
            x, y = CustomerCSV(CSV)[3]
            assert x.shape == (30,) and x.dtype == torch.float32
            assert y.dtype == torch.int64


        def test_feature_columns():
            ds = CustomerCSV(CSV)
            assert ds.feature_cols[0] == "f_00" and len(ds.feature_cols) == 30


        def test_labels_binary():
            ds = CustomerCSV(CSV)
            assert {int(ds[i][1]) for i in range(0, 1200, 97)} <= {0, 1}
        '''),
    "tests/test_model.py": D('''
        import pytest
        import torch

        from churn.model import make_model


        @pytest.mark.parametrize("batch", [1, 64, 512])
        def test_forward(batch):
            assert make_model()(torch.randn(batch, 30)).shape == (batch, 2)


        def test_learns_in_memory():
            torch.manual_seed(0)
            X = torch.randn(512, 30)
            y = (X[:, 0] + X[:, 1] > 0).long()
            model = make_model()
            opt = torch.optim.Adam(model.parameters(), lr=1e-2)
            for _ in range(100):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(X), y)
                loss.backward()
                opt.step()
            assert loss.item() < 0.2
        '''),
    "tests/test_train.py": D('''
        from pathlib import Path

        import torch

        from churn.data import CustomerCSV
        from churn.model import make_model
        from churn.train import train_epoch

        CSV = Path(__file__).parent / "fixtures" / "customers.csv"
        MIN_SAMPLES_PER_S = 1000


        def test_epoch_throughput(artifact_dir):
            torch.manual_seed(0)
            stats = train_epoch(make_model(), CustomerCSV(CSV), log_path=artifact_dir / "epoch_timing.csv")
            print(f"epoch: {stats['elapsed_s']:.1f}s, {stats['samples_per_s']:.0f} samples/s, "
                  f"{100 * stats['data_frac']:.0f}% of the time waiting for data")
            assert stats["samples_per_s"] >= MIN_SAMPLES_PER_S, (
                f"throughput {stats['samples_per_s']:.0f} samples/s below {MIN_SAMPLES_PER_S}")
        '''),
}


def _r01_fixture(n=1200, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    X = rng.normal(0, 1, (n, 30)).round(5)
    y = ((X[:, 0] - 0.7 * X[:, 3] + 0.5 * X[:, 7] + rng.logistic(0, 0.6, n)) > 0.4).astype(int)
    head = ",".join(["customer_id"] + [f"f_{i:02d}" for i in range(30)] + ["churned"])
    body = [",".join([f"C{100000 + i}"] + [str(v) for v in X[i]] + [str(y[i])]) for i in range(n)]
    return head + "\n" + "\n".join(body) + "\n"


def run01():
    name, repo = "run01", "churn-model"
    rng = random.Random(1)
    root = fresh(name)
    files = dict(R01_PKG)
    files.update({"tests/fixtures/customers.csv": _r01_fixture(),
                  "requirements.txt": f"torch=={REAL['torch']}\npandas=={REAL['pandas']}\npytest=={REAL['pytest']}\n",
                  "pyproject.toml": pyproject("churn", "0.7.0", ["torch>=2.1", "pandas>=2.0"])})
    write_tree(root, files)
    env = Env("gl", repo, group="analytics")
    lines, rc, wall = run_pytest(root, ["-ra", "--durations=5"])
    log = Log("gl", datetime(2026, 10, 8, 10, 44, 19, 502000))
    gl_begin(log, repo, "analytics", hexid("r01sha"), "refs/merge-requests/12/head", rng)
    log.add("$ pip install -r requirements.txt", 0.3)
    pl, dur = pip_lines([("torch", f"torch=={REAL['torch']}"), ("pandas", f"pandas=={REAL['pandas']}"),
                         ("pytest", f"pytest=={REAL['pytest']}")], cached=True, rng=rng)
    log.add(pl, dur, spread=True)
    log.add("$ pip install --no-deps -e .", 0.4)
    log.add("Obtaining file://" + env.root, 0.5)
    log.add("Successfully built churn\nInstalling collected packages: churn\nSuccessfully installed churn-0.7.0", 3.1)
    log.add("$ pytest -ra --durations=5", 0.2)
    log.stream(lines, wall, env, root)
    gl_end(log, rc, rng)
    art = root / "artifacts"
    save_run(name, {"job_test.log": log.text(), "requirements.txt": files["requirements.txt"]},
             {"artifacts/epoch_timing.csv": art / "epoch_timing.csv"})
    t = read_csv_rows(art / "epoch_timing.csv")
    dt = [float(r["data_time_s"]) for r in t]
    ct = [float(r["compute_time_s"]) for r in t]
    ctrl = run_python(root, D('''
        import sys, time, torch
        sys.path.insert(0, "src")
        torch.set_num_threads(1)
        from churn.data import CustomerCSV
        from churn.model import make_model
        from churn.train import train_epoch
        from torch.utils.data import TensorDataset
        ds = CustomerCSV("tests/fixtures/customers.csv")
        import pandas as pd
        df = pd.read_csv(ds.path)
        mem = TensorDataset(torch.tensor(df[ds.feature_cols].to_numpy("float32")), torch.tensor(df["churned"].to_numpy()))
        torch.manual_seed(0)
        s = train_epoch(make_model(), mem, log_every=10**9)
        print("control_in_memory_samples_per_s", round(s["samples_per_s"]))
        '''))
    CHECKS[name] = {"pytest": tail_summary(lines), "rc": rc, "steps": len(t),
                    "data_time_mean_s": round(sum(dt) / len(dt), 4), "compute_time_mean_s": round(sum(ct) / len(ct), 5),
                    "summary": [l.strip() for _, l in lines if l.startswith("epoch:")],
                    "control": [l for l in ctrl.splitlines() if l.startswith("control")]}
    TRUTH[name] = {"truth": "dataloader_bottleneck",
                   "symptom": "The throughput test in our MR pipeline fails: one epoch over a 1200-row table takes close to ten seconds for a tiny MLP. Is the GitLab runner just too slow?",
                   "how": "CustomerCSV.__getitem__ re-reads and parses the whole CSV with pandas for every single sample (num_workers=0), so each 64-sample batch spends ~0.5 s in data loading versus a few ms of compute (~99% of the epoch is data wait)."}


# ===========================================================================
# main
# ===========================================================================

ALL = [n for n in sorted(globals()) if re.fullmatch(r"run\d\d", n)]


def main(argv):
    import torch  # noqa: F401  (fail early if the interpreter has no torch)
    wanted = argv or ALL
    RUNS.mkdir(parents=True, exist_ok=True)
    tpath, cpath = HERE / "truth.json", HERE / "checks.json"
    truth = json.loads(tpath.read_text()) if tpath.exists() else {}
    checks = json.loads(cpath.read_text()) if cpath.exists() else {}
    for n in wanted:
        t0 = time.time()
        globals()[n]()
        print(f"{n}: {time.time() - t0:.1f}s  {CHECKS.get(n, {}).get('pytest')}", flush=True)
        truth[n] = TRUTH[n]
        checks[n] = CHECKS[n]
        tpath.write_text(json.dumps(dict(sorted(truth.items())), indent=2) + "\n")
        cpath.write_text(json.dumps(dict(sorted(checks.items())), indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
