"""What a Claude session sends before the model asks for anything: the system prompt,
the tool definitions and the first message (redacted overview + capped excerpts).

    python benchmarks/claude_prompt_size.py [RUN_DIR ...] [--show]

Default: the demo run (app/demo/repo). Prints characters and a token estimate
(about 3.5 characters per token for logs full of numbers, 4 for prose). Sends nothing.
"""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from mltdbg.analyzers.analyze import analyze
from mltdbg.analyzers.model import Series, TextArtifact
from mltdbg.playbooks.claude import build_overview, submit_tool, system_prompt
from mltdbg.playbooks.claude.tools import ToolBox
from mltdbg.playbooks.diagnose import context_for
from mltdbg.playbooks.engine import OfflineEngine
from mltdbg.playbooks.userconfig import UserConfig

REPO = Path(__file__).resolve().parents[1]


def _stopgap_texts(ctx, root: Path) -> None:
    """When the text/log readers are not installed yet, read *.log/*.py/*.yaml as text and
    key=value numbers as series, so the measurement still reflects a real run folder."""
    run = ctx.run
    for p in sorted(root.rglob("*")):
        if p.suffix in (".log", ".txt", ".py", ".yaml", ".yml") and p.is_file() and ".git" not in p.parts:
            rel = str(p.relative_to(run.root))
            kind = {".py": "code", ".yaml": "config", ".yml": "config"}.get(p.suffix, "log")
            run.texts.append(TextArtifact(rel, p, kind, p.read_text("utf-8", "replace")))
    for t in run.texts:
        if t.kind != "log":
            continue
        ms = list(re.finditer(r"step[=: ]\s*(\d+)(.*)", t.text))
        if not ms:
            continue
        steps = np.array([int(m.group(1)) for m in ms])
        lines = t.lines_of(np.array([m.start() for m in ms]))
        for key in ("loss", "grad_norm", "lr"):
            vals = [re.search(rf"\b{key}[=: ]\s*([-\w.+]+)", m.group(2)) for m in ms]
            if all(vals):
                run.series.append(Series(key, key, steps, np.array([float(v.group(1)) for v in vals]), t.path, lines))
    ctx.signals = analyze(run)


def measure(path: Path, show: bool) -> None:
    t0 = time.perf_counter()
    ctx = context_for([str(path)], repo_root=path if (path / ".git").exists() or (path / "train.py").exists() else None)
    note = ""
    if not ctx.run.texts:
        _stopgap_texts(ctx, path)
        note = " (log reader not installed: stop-gap parse)"
    off = OfflineEngine().diagnose(ctx)
    sysp = system_prompt()
    tools = json.dumps(ToolBox.definitions() + [submit_tool()])
    ov, sent = build_overview(ctx, off, UserConfig())
    dt = time.perf_counter() - t0
    total = len(sysp) + len(tools) + len(ov)
    size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and ".git" not in p.parts)
    print(f"{path}{note}: {len(ctx.run.texts)} text artifacts, {len(ctx.run.series)} series, {size} bytes on disk")
    print(f"  system prompt   {len(sysp):7d} chars  (cached)")
    print(f"  tool schemas    {len(tools):7d} chars  (cached)")
    print(f"  first message   {len(ov):7d} chars  (cached after turn 1); excerpts: {sent}")
    print(f"  total           {total:7d} chars  ~{total // 4}-{int(total / 3.5)} tokens; built in {dt * 1000:.0f} ms")
    if show:
        print("-" * 80 + "\n" + ov)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    for p in args or [str(REPO / "app" / "demo" / "repo")]:
        measure(Path(p).resolve(), "--show" in sys.argv)
