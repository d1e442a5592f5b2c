"""Shared pieces of the TUI tests: a fixed clock, the demo app, waiting for the app to get somewhere."""
from __future__ import annotations

import asyncio
import datetime as dt
import os
import sys
from pathlib import Path

from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.hypotheses import HypothesesScreen
from mltdbg.sessions.demo import make_demo_repo

# The test a user writes for the demo: with zero_grad, grad_norm stays flat over 50 steps.
DEMO_TEST = '''\
import io
import re

import train


def test_grad_norm_does_not_climb():
    log = io.StringIO()
    train.train({"seed": 0, "lr": 0.02, "batch_size": 64}, 50, log)
    norms = [float(x) for x in re.findall(r"grad_norm=([0-9.]+)", log.getvalue())]
    assert len(norms) == 10
    assert max(norms) <= 2 * norms[0]
'''
CHECK_CMD = "python train.py --steps 3 --log runs/check/train.log"


def use_this_python(monkeypatch) -> None:
    """`python` in checks is the interpreter running the tests (it has torch)."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))


def demo_app(tmp_path: Path, **kw) -> tuple[MltdbgApp, Path]:
    repo = make_demo_repo(tmp_path / "demo-classifier")
    opts = Options(cwd=str(repo), name="demo", command="python train.py", engine="offline")
    return MltdbgApp(opts, **kw), repo


async def until(pilot, cond, timeout: float = 120.0, what: str = "") -> None:
    """Let the app run until cond() holds (a deadline only so a broken build fails instead of hanging)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"the app never got to: {what or cond}")
        await pilot.pause(0.05)


async def diagnose_from_capture(app, pilot) -> None:
    """From the capture screen: ctrl+n, then wait for the hypotheses screen with its first diagnosis."""
    await pilot.pause()
    await pilot.press("ctrl+n")
    await until(pilot, lambda: isinstance(app.screen, HypothesesScreen) and app.session.state.diagnoses,
                what="diagnosis")
    await pilot.pause()


def fixed_clock(start_iso: str = "2026-05-04T10:00:00+00:00", elapsed_s: float = 754):
    start = dt.datetime.fromisoformat(start_iso)
    return lambda: start + dt.timedelta(seconds=elapsed_s)


def footer_keys(app) -> list[tuple[str, str, int]]:
    """The current screen's footer as shown: (key, description, right edge column) of each key."""
    from textual.widgets import Footer  # noqa: PLC0415 - only the footer tests need it
    return [(k.key_display, k.description, k.region.right) for k in app.screen.query_one(Footer).query("FooterKey")]
