"""(Re)generate the fault zoo: one folder per case under tests/zoo/cases/.

Usage:
    python tests/zoo/make_zoo.py                 # every case, into tests/zoo/cases/
    python tests/zoo/make_zoo.py --only a,b      # just these cases
    python tests/zoo/make_zoo.py --out DIR       # somewhere else (tests use a temp dir)
    python tests/zoo/make_zoo.py --list          # names, labels, splits

Each generated case runs a small real PyTorch training on CPU (`train.py` in the
case folder, bug included) as a subprocess and keeps what it wrote: logs,
captured stdout/stderr, CSV/JSONL/TensorBoard/MLflow files. Hand-written
cases (GPU/cluster failures a CPU box cannot produce) are written from text in
`cases_handwritten.py`. Every case gets a `case.yaml` with its ground truth.

Determinism: trainings run with seeds fixed, one thread, TZ=UTC, and the
`shim/sitecustomize.py` virtual clock; absolute paths are rewritten to a
plausible user's paths; TensorBoard file names get a fixed host and pid.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "cases"
MAX_CASE_BYTES = 300 * 1024
TAXONOMY = Path("/work/shared/taxonomy.yaml")


@dataclass
class CaseSpec:
    name: str
    build: Callable[["Ctx"], None]
    split: str                          # tune | holdout
    expected: str | None                # taxonomy id, None when healthy
    symptom: str | None
    notes: str
    fmt: str                            # artifact format, for the README table
    misleading: bool = False
    also_acceptable: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    repo_bundle: str | None = None
    generated: bool = True              # False: hand-written text, no training run

    @property
    def symptom_kind(self) -> str:
        if self.symptom is None:
            return "none"
        return "misleading" if self.misleading else "honest"


CASES: dict[str, CaseSpec] = {}


def case(name: str, *, split: str, expected: str | None, symptom: str | None, notes: str, fmt: str,
         misleading: bool = False, also_acceptable: list[str] | None = None, args: list[str] | None = None,
         repo_bundle: str | None = None, generated: bool = True):
    """Register a case builder: `@case("lr_high_mlp_kv", split="tune", expected="lr_too_high", ...)`."""
    def deco(fn: Callable[["Ctx"], None]):
        if name in CASES:
            raise ValueError(f"duplicate case {name}")
        CASES[name] = CaseSpec(name, fn, split, expected, symptom, notes, fmt, misleading,
                               list(also_acceptable or []), list(args or []), repo_bundle, generated)
        return fn
    return deco


# Plausible homes for the rewritten absolute paths (deterministic per case).
_USERS = ["alice", "bob", "chen", "dana", "emeka", "farah", "greta", "hiro", "ines", "jonas"]
_ENV = sysconfig.get_paths()


class Ctx:
    """What a case builder gets: its folder, file writing, real subprocess runs, git bundles."""

    def __init__(self, spec: CaseSpec, root: Path):
        self.spec = spec
        self.dir = root / spec.name
        user = _USERS[sum(map(ord, spec.name)) % len(_USERS)]
        self.fake_home = f"/home/{user}/{spec.name.replace('_', '-')}"
        self.fake_py = f"/home/{user}/miniconda3/envs/train/lib/python3.11"

    def write(self, rel: str, text: str | bytes) -> Path:
        p = self.dir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)
        return p

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ZOO_", "MLFLOW_"))}
        env.update(PYTHONPATH=str(HERE / "shim"), ZOO_FAKE_CLOCK="1", TZ="UTC", OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1", PYTHONHASHSEED="0", PYTHONUNBUFFERED="1", MLFLOW_ALLOW_FILE_STORE="true",
                   MLFLOW_ENABLE_ASYNC_LOGGING="false", GIT_PYTHON_REFRESH="quiet", TF_CPP_MIN_LOG_LEVEL="3",
                   HOME=str(self.dir), MPLCONFIGDIR=str(self.dir / ".mpl"))
        env.update(extra)
        return env

    def run(self, cmd: list[str] | str, *, stdout: str | None = None, stderr: str | None = None,
            cwd: str | None = None, append: bool = False, env: dict[str, str] | None = None,
            timeout: float = 120) -> int:
        """Run `cmd` (a leading "python" is this interpreter) in the case folder (or cwd under it).

        stdout/stderr name files (relative to the case folder) that capture the
        streams; the same name for both merges them as `2>&1` would. Returns the exit code.
        """
        if isinstance(cmd, str):
            cmd = cmd.split()
        if cmd and cmd[0] == "python":
            cmd = [sys.executable, *cmd[1:]]
        wd = self.dir / cwd if cwd else self.dir
        mode = "ab" if append else "wb"
        out_f = open(self.dir / stdout, mode) if stdout else None
        if stderr and stderr == stdout:
            err_f = subprocess.STDOUT
        else:
            err_f = open(self.dir / stderr, mode) if stderr else None
        try:
            proc = subprocess.run(cmd, cwd=wd, env={**self.env(), **(env or {})}, timeout=timeout,
                                  stdout=out_f or subprocess.DEVNULL,
                                  stderr=err_f if err_f is not None else subprocess.DEVNULL)
        finally:
            for f in (out_f, err_f):
                if f not in (None, subprocess.STDOUT):
                    f.close()
        return proc.returncode

    def bundle(self, commits: list[tuple[str, dict[str, str]]], rel: str = "repo.bundle") -> None:
        """A git bundle of a tiny repo with one commit per (message, files) in order."""
        with tempfile.TemporaryDirectory() as td:
            repo = Path(td)
            genv = {**os.environ, "GIT_AUTHOR_NAME": "Sam Rivera", "GIT_AUTHOR_EMAIL": "sam@example.com",
                    "GIT_COMMITTER_NAME": "Sam Rivera", "GIT_COMMITTER_EMAIL": "sam@example.com",
                    "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}

            def git(*a: str, day: int = 1) -> None:
                e = {**genv, "GIT_AUTHOR_DATE": f"2024-05-0{day}T10:00:00+00:00",
                     "GIT_COMMITTER_DATE": f"2024-05-0{day}T10:00:00+00:00"}
                subprocess.run(["git", *a], cwd=repo, env=e, check=True, capture_output=True)

            git("init", "-q", "-b", "main")
            for day, (msg, files) in enumerate(commits, start=1):
                for path, text in files.items():
                    p = repo / path
                    p.parent.mkdir(parents=True, exist_ok=True)
                    if text is None:
                        p.unlink(missing_ok=True)
                    else:
                        p.write_text(text)
                git("add", "-A", day=day)
                git("commit", "-q", "-m", msg, day=day)
            git("bundle", "create", "-q", str(self.dir / rel), "--all")

    # -- after the case is built ------------------------------------------------
    def finish(self) -> None:
        for p in sorted(self.dir.rglob("*")):
            if p.is_dir():
                if p.name in ("__pycache__", ".mpl", ".cache", ".config") or p.name == ".trash":
                    shutil.rmtree(p, ignore_errors=True)
                continue
            if not p.exists():
                continue
            if p.name.startswith("events.out.tfevents."):
                parts = p.name.split(".")
                # events.out.tfevents.<time>.<host...>.<pid>.<n>: fix host and pid
                p.rename(p.with_name(".".join(parts[:4] + ["gpu-node-07", "31337", parts[-1]])))
                continue
            if "tags" in p.parts and p.name.startswith("mlflow.source.git"):
                p.unlink()
                continue
            data = p.read_bytes()
            if b"\0" in data[:8192]:
                continue
            text = data.decode("utf-8", errors="surrogateescape")
            new = self._scrub(text)
            if new != text:
                p.write_bytes(new.encode("utf-8", errors="surrogateescape"))
        size = sum(p.stat().st_size for p in self.dir.rglob("*") if p.is_file())
        if size > MAX_CASE_BYTES:
            print(f"WARNING {self.spec.name}: {size / 1024:.0f} KB > {MAX_CASE_BYTES // 1024} KB", file=sys.stderr)
        self.write("case.yaml", case_yaml(self.spec))

    def _scrub(self, text: str) -> str:
        subs = [(str(self.dir.resolve()), self.fake_home), (str(self.dir), self.fake_home),
                (_ENV["purelib"], self.fake_py + "/site-packages"), (_ENV["stdlib"], self.fake_py),
                (sys.executable, "python"), (str(HERE.parent.parent), "/home/build/mltdbg")]
        for a, b in subs:
            text = text.replace(a, b)
        # glog/absl process ids and Python object addresses vary run to run.
        text = re.sub(r"(?m)^([IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}) \d+ ", r"\1 48213 ", text)
        text = re.sub(r" at 0x[0-9a-f]{6,16}>", " at 0x7f3a2c1d9e50>", text)
        return text


def case_yaml(spec: CaseSpec) -> str:
    d: dict = {}
    if spec.expected is None:
        d["healthy"] = True
    else:
        d["expected"] = spec.expected
    if spec.also_acceptable:
        d["also_acceptable"] = spec.also_acceptable
    d["symptom"] = spec.symptom
    d["symptom_kind"] = spec.symptom_kind
    d["split"] = spec.split
    d["args"] = spec.args
    if spec.repo_bundle:
        d["repo_bundle"] = spec.repo_bundle
    d["format"] = spec.fmt
    d["source"] = "generated" if spec.generated else "hand-written"
    d["notes"] = spec.notes
    return yaml.safe_dump(d, sort_keys=False, width=100, allow_unicode=True)


def build_one(spec: CaseSpec, root: Path) -> tuple[str, float, str | None]:
    """Build one case in a scratch folder outside any git repo (libraries such as MLflow behave
    differently inside one), then move it to root/<name>."""
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="zoo_build_") as scratch:
        ctx = Ctx(spec, Path(scratch))
        ctx.dir.mkdir(parents=True)
        try:
            spec.build(ctx)
            ctx.finish()
        except Exception as e:  # report and keep building the others
            return spec.name, time.perf_counter() - t0, f"{type(e).__name__}: {e}"
        dest = root / spec.name
        if dest.exists():
            shutil.rmtree(dest)
        shutil.move(str(ctx.dir), str(dest))
    return spec.name, time.perf_counter() - t0, None


def load_cases() -> dict[str, CaseSpec]:
    sys.path.insert(0, str(HERE))
    # Run as a script this module is __main__; the case modules import it as make_zoo.
    sys.modules.setdefault("make_zoo", sys.modules[__name__])
    import cases_generated  # noqa: F401  (registers via @case)
    import cases_regression  # noqa: F401
    import cases_handwritten  # noqa: F401
    import cases_ranks  # noqa: F401
    import cases_lessons  # noqa: F401  (after the cases whose runs it reuses)
    return CASES


def readme_table(cases: dict[str, CaseSpec]) -> str:
    rows = ["| case | expected | split | format | symptom |", "|---|---|---|---|---|"]
    for s in sorted(cases.values(), key=lambda s: (s.expected or "~healthy", s.split, s.name)):
        rows.append(f"| `{s.name}` | {s.expected or 'healthy'} | {s.split} | {s.fmt} | {s.symptom_kind} |")
    return "\n".join(rows) + "\n"


def update_readme(cases: dict[str, CaseSpec]) -> None:
    readme = HERE / "README.md"
    if not readme.exists():
        return
    text = readme.read_text()
    a, b = "<!-- table:start -->", "<!-- table:end -->"
    if a in text and b in text:
        head, rest = text.split(a, 1)
        _, tail = rest.split(b, 1)
        readme.write_text(head + a + "\n" + readme_table(cases) + b + tail)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", default=[], help="case name(s), comma-separated; repeatable")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default tests/zoo/cases)")
    ap.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    cases = load_cases()
    if a.list:
        for s in cases.values():
            print(f"{s.name:40s} {s.expected or 'healthy':26s} {s.split:8s} {s.fmt}")
        return 0
    names = [n for o in a.only for n in o.split(",") if n]
    unknown = [n for n in names if n not in cases]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    todo = [cases[n] for n in names] if names else list(cases.values())
    out = a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if not names:  # a full run also drops folders of cases that no longer exist
        for d in out.iterdir():
            if d.is_dir() and d.name not in cases:
                shutil.rmtree(d)
    t0 = time.perf_counter()
    failed = 0
    with ThreadPoolExecutor(a.jobs) as pool:
        for name, secs, err in pool.map(lambda s: build_one(s, out), todo):
            print(f"{name:40s} {secs:6.1f}s {'FAILED ' + err if err else 'ok'}", flush=True)
            failed += err is not None
    print(f"{len(todo)} cases in {time.perf_counter() - t0:.1f}s, {failed} failed")
    if not names and out == DEFAULT_OUT.resolve():
        update_readme(cases)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
