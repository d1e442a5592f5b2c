"""The check screen between approval and the check's first output: a real demo repo, real subprocesses."""
from __future__ import annotations

import asyncio
import os
import time

from mltdbg.app.screens.check import CheckScreen
from mltdbg.sessions.checks import CheckRun

from tui_helpers import diagnose_from_capture, demo_app, until, use_this_python

SLOW = "python -c \"import time; print('check started', flush=True); time.sleep(120)\""


def _group_gone(run: CheckRun, within_s: float = 10.0) -> bool:
    """Whether the run's process group is gone (waiting up to within_s for its thread to finish)."""
    end = time.monotonic() + within_s
    while run.result is None and time.monotonic() < end:
        time.sleep(0.05)
    if run.proc is None:
        return True                    # never started: nothing to end
    try:
        os.killpg(run.proc.pid, 0)
    except ProcessLookupError:
        return True
    return False


async def _approve(app, pilot, command: str) -> CheckScreen:
    screen = app.screen
    screen.query_one("#cmd").value = command
    await pilot.press("a")
    await pilot.pause()
    await pilot.press("y")
    await until(pilot, lambda: screen._run is not None, timeout=30, what="approved")
    return screen


def test_cancel_or_leaving_right_after_approval_ends_the_check(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, _repo = demo_app(tmp_path)
    seen: dict[str, CheckRun] = {}

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await diagnose_from_capture(app, pilot)
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, CheckScreen) and app.screen._wt is not None, what="scratch")
            # x straight after approving: the run exists from the moment it is approved, so the cancel is not lost
            screen = await _approve(app, pilot, SLOW)
            first = screen._run
            assert isinstance(first, CheckRun)
            await pilot.press("x")
            await until(pilot, lambda: screen._run is None, timeout=30, what="cancelled")
            assert first.result is not None and first.result.cancelled and first.result.duration_s < 30
            # leaving straight after approving: on_unmount cancels a real run (it used to hold a placeholder True)
            seen["second"] = (await _approve(app, pilot, SLOW))._run
            app.exit()

    asyncio.run(go())
    second = seen["second"]
    assert isinstance(second, CheckRun)
    assert _group_gone(second), "the check's process group outlived the screen"
    assert second.result is None or second.result.cancelled


def test_a_check_without_a_command_says_how_to_go_on(tmp_path):
    """A thin post (four log lines, no failing command) gives hypotheses with no check command:
    the check screen says so and names the keys that still work, instead of 'press a to run'."""
    import subprocess  # noqa: PLC0415 - only this test makes its own repo

    from mltdbg.app.mltdbg_app import MltdbgApp, Options  # noqa: PLC0415 - as in demo_app
    repo = tmp_path / "r"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "train.log").write_text("epoch 1 loss=2.31\nepoch 2 loss=1.90\nepoch 3 loss=nan\nepoch 4 loss=nan\n")
    app = MltdbgApp(Options(cwd=str(repo), paths=[str(repo / "train.log")], engine="offline", name="t"))
    seen: dict[str, str] = {}

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await diagnose_from_capture(app, pilot)
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, CheckScreen), what="check screen")
            await pilot.pause()
            seen["cmd"] = app.screen.query_one("#cmd").value
            seen["out"] = "\n".join(str(line.text) for line in app.screen.query_one("#out").lines)
            app.exit()

    asyncio.run(go())
    assert seen["cmd"] == ""
    assert "No command for this check yet: press e to write one" in seen["out"]
    assert "Press a to approve" not in seen["out"]
