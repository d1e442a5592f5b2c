"""Start-up of the TUI (target: first screen in < 1 s) and of `mltdbg --help` (target: < 0.2 s).

Run: .venv/bin/python benchmarks/bench_startup.py [REPEATS]
First paint: a fresh interpreter per sample (so imports count, as for a user typing `mltdbg-tui`),
importing the TUI entry module and the app, then `App.run_test()` in a new git repo until the first
step screen is mounted (a new session is created on the way). Median of REPEATS (default 5).
The environment record (pip freeze, nvidia-smi, git) runs in a worker after the first paint; the
sample also reports when its event lands in the log, which is not part of the first paint.
`mltdbg --help`: wall time of the installed console script, median of REPEATS.
"""
from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLE = r'''
import time, sys
t0 = time.perf_counter()
import asyncio
from mltdbg.app.tui import build_parser
from mltdbg.app.mltdbg_app import MltdbgApp, Options
t_import = time.perf_counter() - t0

async def go():
    app = MltdbgApp(Options(cwd=sys.argv[1], engine="offline"))
    async with app.run_test(size=(100, 30)) as pilot:
        while len(app.screen_stack) < 2:
            await pilot.pause(0.005)
        t_paint = time.perf_counter() - t0
        end = time.monotonic() + 30
        while not app.session.state.environment and time.monotonic() < end:
            await pilot.pause(0.02)
        t_env = time.perf_counter() - t0
    heavy = [m for m in ("torch", "pandas", "plotext", "anthropic", "git", "pyarrow") if m in sys.modules]
    print({"import": t_import, "paint": t_paint, "env": t_env, "heavy_after_paint": heavy})

asyncio.run(go())
'''


def first_paint(n: int) -> list[dict]:
    out = []
    for _ in range(n):
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / "repo"
            repo.mkdir()
            subprocess.run(["git", "init", "-q", str(repo)], check=True)
            r = subprocess.run([sys.executable, "-c", SAMPLE, str(repo)], capture_output=True, text=True, check=True)
            out.append(eval(r.stdout.strip().splitlines()[-1]))  # noqa: S307 - our own subprocess's dict literal
    return out


def help_time(n: int) -> list[float]:
    exe = shutil.which("mltdbg", path=str(Path(sys.executable).parent)) or "mltdbg"
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([exe, "--help"], capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    return times


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    samples = first_paint(n)
    med = {k: statistics.median(s[k] for s in samples) for k in ("import", "paint", "env")}
    h = help_time(n)
    print(json.dumps({
        "first_paint_s_median": round(med["paint"], 3), "imports_s_median": round(med["import"], 3),
        "environment_event_s_median": round(med["env"], 3),
        "first_paint_s_all": [round(s["paint"], 3) for s in samples],
        "heavy_modules_loaded": samples[-1]["heavy_after_paint"],
        "help_s_median": round(statistics.median(h), 3), "help_s_all": [round(x, 3) for x in h],
    }, indent=1))


if __name__ == "__main__":
    main()
