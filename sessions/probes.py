"""Launching a probe: the runner script in the user's interpreter, in its own process group, with a
timeout; its result file in a fresh temp dir, then moved to `.mltdbg/probes/` (or --out); a
`probe_ran` event in a session when one is given. Never writes to the user's files: an --out that
exists and is not a probe result is refused.

    r = run_probe("gradients", ["models.py:Net", "--batch", "auto"], timeout_s=120)
    r.status          # ok | partial | error | timed_out
    r.result          # analyzers.probes.results.ProbeResult (None when nothing was written)
    r.error           # one line for the user, or None
    write_analyses(run, dest_dir)   # Markdown analysis of each probe result in a diagnosed run

In: probe name and its arguments (as `mltdbg probe` takes them), the interpreter (default: this one).
Out: ProbeRun; the JSON file; the event.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from mltdbg.analyzers.common.gitrepo import find_repo_root, main_repo_root
from mltdbg.analyzers.probes import report as probe_report
from mltdbg.analyzers.probes.results import (
    ANALYSIS_NAMES,
    MARKER,
    ProbeResult,
    parse,
    results_in,
)
from mltdbg.sessions.store import TOOL_DIR, data_dir, ensure_excluded

# A probe runs one or a few steps; ten minutes is generous for a large model on CPU. A model that
# hangs (a deadlock, a DataLoader waiting forever) is ended then, and its partial result kept.
DEFAULT_TIMEOUT_S = 600.0
KILL_GRACE_S = 3.0               # SIGTERM -> SIGKILL
OUTPUT_TAIL_BYTES = 32 * 1024    # the model's own prints kept (the tail) for the user
PROBES_DIR = "probes"
ANALYSIS_DIR = "analysis"
STATUSES = ("ok", "partial", "error", "timed_out")
_RUNNER_PKG = "mltdbg.analyzers.probes"


@dataclass
class ProbeRun:
    """One probe launch and what came of it."""

    probe: str
    argv: list[str]
    python: str
    cwd: str
    out: Path | None = None              # the result file, where it is now
    exit_code: int | None = None         # negative: ended by that signal
    duration_s: float = 0.0
    timed_out: bool = False
    output_tail: str = ""
    result: ProbeResult | None = None
    error: str | None = None             # one line: why it failed (None when it ran)

    @property
    def status(self) -> str:
        if self.timed_out:
            return "timed_out"
        if self.result is None:
            return "error"
        return self.result.status if self.result.status in STATUSES else "error"

    def event(self, rel: Callable[[Path], str] | None = None) -> dict[str, Any]:
        """The `probe_ran` payload."""
        r = self.result
        return {"probe": self.probe, "status": self.status, "target": r.target if r else None,
                "result_file": (rel(self.out) if rel else str(self.out)) if self.out else None,
                "exit_code": self.exit_code, "duration_s": round(self.duration_s, 3), "argv": list(self.argv),
                "findings": [{"kind": f.kind, "severity": f.severity, "summary": f.summary} for f in (r.findings if r else [])],
                "error": self.error, "python": self.python}


def runner_path() -> Path:
    """The runner script shipped as package data (a real file in both editable and wheel installs)."""
    return Path(str(resources.files(_RUNNER_PKG).joinpath("runner", "mltdbg_probe.py")))


def state_dir(start: Path | None = None) -> Path:
    """`<repo>/.mltdbg/probes` (excluded from git) when in a repo, else the user data dir's `probes`."""
    repo = find_repo_root(start or Path.cwd())
    if repo is not None:
        repo = main_repo_root(repo)    # a check in the scratch worktree keeps its result in the user's repo
        ensure_excluded(repo)
        return repo / TOOL_DIR / PROBES_DIR
    return data_dir() / PROBES_DIR


def default_out(probe: str, start: Path | None = None) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return state_dir(start) / f"{probe}-{stamp}-{secrets.token_hex(2)}.json"


class ProbeLaunchError(Exception):
    """The probe could not be started (the message is one line for the user)."""


def _check_out(out: Path) -> None:
    if out.exists():
        try:
            with open(out, "rb") as f:
                head = f.read(200)
        except OSError as e:
            raise ProbeLaunchError(f"--out {out}: cannot read ({e.strerror or e})") from None
        if MARKER not in head:
            raise ProbeLaunchError(f"--out {out}: exists and is not a probe result; not overwritten")
    if not out.parent.is_dir():
        raise ProbeLaunchError(f"--out {out}: folder {out.parent} does not exist")


def run_probe(probe: str, args: list[str], *, python: str | None = None, out: str | Path | None = None,
              cwd: str | Path | None = None, timeout_s: float | None = DEFAULT_TIMEOUT_S,
              max_memory_gb: float | None = None, session=None, on_output: Callable[[str], None] | None = None) -> ProbeRun:
    """Run one probe to completion (blocking). Raises ProbeLaunchError only for a bad --out; every
    other failure (no interpreter, import error, timeout, crash) is in the returned ProbeRun."""
    cwd = Path(cwd or os.getcwd()).resolve()
    dest = Path(out).resolve() if out else default_out(probe, cwd)
    if out:
        _check_out(dest)
    python = python or sys.executable
    run = ProbeRun(probe=probe, argv=[probe, *args], python=python, cwd=str(cwd))
    with tempfile.TemporaryDirectory(prefix="mltdbg-probe-") as tmp:
        tmp_out = Path(tmp) / "result.json"
        cmd = [python, str(runner_path()), probe, *args, "--out", str(tmp_out)]
        if max_memory_gb:
            cmd += ["--max-memory-gb", str(max_memory_gb)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        t0 = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        except FileNotFoundError:
            run.error = f"--python {python}: no such interpreter"
            _record(run, session)
            return run
        except PermissionError:
            run.error = f"--python {python}: not executable"
            _record(run, session)
            return run
        tail = bytearray()
        reader = threading.Thread(target=_pump, args=(proc.stdout, tail, on_output), daemon=True)
        reader.start()
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            run.timed_out = True
            _end(proc)
        reader.join(timeout=5)
        run.duration_s = time.monotonic() - t0
        run.exit_code = proc.returncode
        run.output_tail = tail[-OUTPUT_TAIL_BYTES:].decode("utf-8", errors="replace")
        _collect(run, tmp_out, dest, timeout_s, max_memory_gb)
    _record(run, session)
    return run


def _pump(stream, tail: bytearray, on_output) -> None:
    for chunk in iter(lambda: stream.read1(65536), b""):
        tail += chunk
        if len(tail) > 2 * OUTPUT_TAIL_BYTES:
            del tail[:-OUTPUT_TAIL_BYTES]
        if on_output is not None:
            on_output(chunk.decode("utf-8", errors="replace"))
    stream.close()


def _end(proc: subprocess.Popen) -> None:
    """SIGTERM the probe's process group, SIGKILL it after a grace period."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=KILL_GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "(no output)"


def _collect(run: ProbeRun, tmp_out: Path, dest: Path, timeout_s, max_memory_gb) -> None:
    """Read the runner's last write, record a timeout or a kill in it, move it to `dest`, parse it."""
    try:
        doc = json.loads(tmp_out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = None
    rc = run.exit_code
    if doc is None:
        if run.timed_out:
            run.error = f"the {run.probe} probe timed out after {timeout_s:g} s before writing any result"
        elif rc is not None and rc < 0:
            run.error = f"the {run.probe} probe was killed by {_signame(-rc)} before writing any result" + _kill_hint(rc, max_memory_gb)
        else:
            run.error = (f"the probe did not start in {run.python} (exit {rc}): {_last_line(run.output_tail)}")
        return
    if run.timed_out or (doc.get("status") == "running"):
        stage = doc.get("stage")
        why = (f"timed out after {timeout_s:g} s" if run.timed_out else
               f"killed by {_signame(-rc)}{_kill_hint(rc, max_memory_gb)}" if rc is not None and rc < 0 else f"exited with {rc}")
        doc["status"] = "partial" if doc.get("result") else "error"
        doc["error"] = {"kind": "timeout" if run.timed_out else "killed", "stage": stage,
                        "message": f"the probe {why} during stage '{stage}'; what it had measured is kept"}
    dest.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, dest)
    run.out = dest
    try:
        run.result = parse(text, str(dest))
    except ValueError as e:
        run.error = str(e)
        return
    if run.result.error_message and run.result.status != "ok":
        run.error = run.result.error_message


def _signame(n: int) -> str:
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def _kill_hint(rc: int | None, max_memory_gb) -> str:
    if rc == -signal.SIGKILL:
        return (" (on Linux usually the kernel's OOM killer: `mltdbg probe box` shows its lines)"
                if not max_memory_gb else "")
    return ""


def _record(run: ProbeRun, session) -> None:
    if session is None:
        return
    session.append("probe_ran", run.event(session.rel))


# ----------------------------------------------------------------------------- analyses

def write_analyses(run, dest_dir: Path) -> dict[str, str]:
    """A Markdown analysis of every probe result in a diagnosed `Run`, written into dest_dir (a folder
    of mltdbg's own state, never the user's files). Returns {name: path} for `analysis_artifacts`."""
    out: dict[str, str] = {}
    results: list[ProbeResult] = results_in(run)
    if not results:
        return out
    dest_dir.mkdir(parents=True, exist_ok=True)
    for pr in results:
        base = ANALYSIS_NAMES[pr.probe]
        name, i = base, 2
        while name in out:
            name, i = f"{base}_{i}", i + 1
        stem = Path(pr.source).stem
        path = dest_dir / f"{stem}.md"
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(probe_report.render(pr), encoding="utf-8")
        os.replace(tmp, path)
        out[name] = str(path)
    return out


def analysis_dir(start: Path | None = None) -> Path:
    return state_dir(start) / ANALYSIS_DIR
