"""The artifact viewer on a 1 GB log (targets: the cited line painted within 200 ms, the UI never waits
for the index, bounded memory).

Run: .venv/bin/python benchmarks/bench_viewer.py [SIZE_MB]
Writes a SIZE_MB (default 1024) training log with unique line numbers to /tmp (deleted at the end), then,
in a fresh interpreter with the app running (`App.run_test()`), opens it in the viewer at a cited line near
the end and reports: time from push_screen to the first frame showing text at the cited place (before the
index is ready: lines found from an estimated offset, numbers marked ~), time until the index is complete
and the cited line is exact, the line count, peak RSS of the process before and after, and the offsets' size.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLE = r'''
import asyncio, resource, sys, time
from pathlib import Path
from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.viewer import ViewerScreen
from mltdbg.app.widgets.viewer import ArtifactView

path, cited, cwd = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

async def go():
    app = MltdbgApp(Options(cwd=cwd, engine="offline"))
    async with app.run_test(size=(120, 40)) as pilot:
        while len(app.screen_stack) < 2:
            await pilot.pause(0.01)
        await pilot.pause(0.2)
        before = rss_mb()
        t0 = time.perf_counter()
        await app.push_screen(ViewerScreen(path, path.name, [cited]))
        view = app.screen.query_one(ArtifactView)
        while True:
            await pilot.pause(0)
            rows = ["".join(s.text for s in view.render_line(y)) for y in range(view.size.height)]
            if view.scroll_offset.y > 0 and sum("step=" in r for r in rows) >= view.size.height - 1:
                break
        t_paint = time.perf_counter() - t0
        ready_at_paint = view.index.ready
        while not view.index.ready:
            await pilot.pause(0.01)
        t_index = time.perf_counter() - t0
        await pilot.pause(0.1)
        rows = ["".join(s.text for s in view.render_line(y)) for y in range(view.size.height)]
        exact = any(r.startswith(">") and f"step={cited - 1} " in r for r in rows)
        print({"paint_s": t_paint, "index_ready_at_paint": ready_at_paint, "index_s": t_index, "exact_line_shown": exact,
               "lines": len(view.index), "offsets_mb": sum(c.nbytes for c in view.index._view[0]) / 2**20,
               "rss_before_mb": before, "rss_peak_mb": rss_mb()})

asyncio.run(go())
'''


def write_log(path: Path, size_mb: int) -> int:
    target, i, block = size_mb << 20, 0, 50_000
    with path.open("w") as f:
        while f.tell() < target:
            f.write("".join(f"step={k} loss={1.0 / (k + 1):.8f} lr=3.0e-04 grad_norm={1 + k % 97 / 10:.3f} tokens/s=123456.7\n"
                            for k in range(i, i + block)))
            i += block
    return i


def main() -> None:
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    path = Path(tempfile.gettempdir()) / f"mltdbg-bench-viewer-{os.getpid()}.log"
    try:
        t = time.perf_counter()
        n = write_log(path, size_mb)
        print(f"wrote {path.stat().st_size / 2**20:.0f} MB, {n} lines in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        with tempfile.TemporaryDirectory() as repo:
            subprocess.run(["git", "init", "-q", repo], check=True)
            cited = n - 1234
            r = subprocess.run([sys.executable, "-c", SAMPLE, str(path), str(cited), repo],
                               capture_output=True, text=True, check=True)
        res = eval(r.stdout.strip().splitlines()[-1])  # noqa: S307 - our own subprocess's dict literal
        print(json.dumps({"file_mb": size_mb, "cited_line": cited,
                          **{k: round(v, 3) if isinstance(v, float) else v for k, v in res.items()}}, indent=1))
    finally:
        path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
