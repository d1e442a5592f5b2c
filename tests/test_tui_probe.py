"""The probe view in the TUI at 80x24: a real `gradients` probe on a small torch model (CPU), run as a check
from the check screen, or run by the user (`mltdbg probe ... --out`) and captured as an artifact; `p` opens
the findings, the per-layer table and the gradient bar chart."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from mltdbg.app.screens.check import CheckScreen
from mltdbg.app.screens.hypotheses import HypothesesScreen
from mltdbg.app.screens.probe import ProbeScreen, session_probe_results
from mltdbg.app.widgets.probe import ProbeView
from rich.console import Console

from tui_helpers import diagnose_from_capture, demo_app, footer_keys, until, use_this_python

# The user's model: 12 sigmoid layers, the textbook vanishing case (tests/probe_helpers.py has the same).
PROBE_MODELS = '''
import torch.nn as nn


def deep_sigmoid():
    layers = []
    for _ in range(12):
        layers += [nn.Linear(32, 32), nn.Sigmoid()]
    return nn.Sequential(*layers, nn.Linear(32, 4))
'''
PROBE_CMD = "mltdbg probe gradients probe_models.py:deep_sigmoid"


def _add_models(repo: Path) -> None:
    """The model file, committed (the check's scratch copy is made from the repo's commits)."""
    (repo / "probe_models.py").write_text(PROBE_MODELS)
    for args in (["add", "probe_models.py"], ["commit", "-q", "-m", "model for the probe"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _shown(app) -> str:
    """The probe view's content as plain text, at its width on screen."""
    view = app.screen.query_one(ProbeView)
    c = Console(width=view.size.width, record=True, color_system=None)
    c.print(view.render())
    return c.export_text()


def _visible(app) -> dict[str, int]:
    return {desc: right for _key, desc, right in footer_keys(app)}


def _assert_the_gradients_view(app) -> None:
    assert isinstance(app.screen, ProbeScreen)
    view = app.screen.query_one(ProbeView)
    assert view.size.width >= 70          # the view takes the screen's width at 80 columns
    text = _shown(app).splitlines()
    assert text[0].startswith("probe gradients  probe_models.py:deep_sigmoid  ok")
    # the finding lines come first, before the table and the chart
    i_find = next(i for i, ln in enumerate(text) if ln.startswith("! grad_vanish "))
    i_table = next(i for i, ln in enumerate(text) if "grad norm" in ln and "layer" in ln)
    i_chart = next(i for i, ln in enumerate(text) if "per-layer gradient norm (log scale)" in ln)
    assert i_find < i_table < i_chart
    assert i_find == 1, "\n".join(text)
    rows = [ln.split("│")[:2] for ln in text[i_table + 2:i_chart]]
    assert [(n.strip(), k.strip()) for n, k in rows if k.strip() == "Linear"] == [(str(i), "Linear") for i in range(0, 25, 2)]
    chart = "\n".join(text[i_chart:])
    assert "█" in chart and "1e-" in chart
    assert "Back" in _visible(app) and _visible(app)["Back"] <= 80


def test_a_probe_check_run_from_the_check_screen_opens_in_the_probe_view(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)
    _add_models(repo)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await diagnose_from_capture(app, pilot)
            assert "Probe" not in _visible(app)         # nothing to show yet: the key is hidden
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, CheckScreen) and app.screen._wt is not None, what="scratch")
            screen = app.screen
            assert "Probe" not in _visible(app)
            screen.query_one("#cmd").value = PROBE_CMD
            await pilot.press("a")
            await pilot.pause()
            await pilot.press("y")
            await until(pilot, lambda: screen._run is not None, timeout=30, what="approved")
            await until(pilot, lambda: screen._run is None, timeout=180, what="probe check finished")
            await pilot.pause()
            check = list(app.session.state.checks.values())[-1]
            assert check.status == "done" and check.exit_code == 0, check.output
            assert "result: " in check.output
            # the key is there (last, after Back, which stays on screen at 80 columns)
            await until(pilot, lambda: "Probe" in _visible(app), timeout=30, what="the Probe key")
            vis = _visible(app)
            assert "Probe" in vis and vis["Back"] <= 80, footer_keys(app)
            assert "/.mltdbg/probes/gradients-" in check.output
            await pilot.press("p")
            await until(pilot, lambda: isinstance(app.screen, ProbeScreen), what="probe view")
            await pilot.pause()
            _assert_the_gradients_view(app)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen
            app.exit()

    asyncio.run(go())


def test_a_probe_result_the_user_captured_opens_from_the_hypotheses_screen(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)
    _add_models(repo)
    (repo / "runs" / "probe").mkdir(parents=True)
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}
    r = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", *PROBE_CMD.split()[1:], "--out", "runs/probe/grad.json"],
                       cwd=repo, capture_output=True, text=True, timeout=180, env=env)
    assert r.returncode == 0, r.stderr
    (repo / "runs" / "probe" / "notes.json").write_text('{"not": "a probe result"}\n')

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await diagnose_from_capture(app, pilot)
            # the session captured the user's files, the probe result among them
            assert {"runs/probe/grad.json", "runs/probe/notes.json"} <= set(app.session.state.artifacts)
            await until(pilot, lambda: "Probe" in _visible(app), timeout=30, what="the Probe key")
            vis = _visible(app)
            assert "Probe" in vis and vis["Probe"] <= 80 and vis.get("Back", 99) <= 80, footer_keys(app)
            held = session_probe_results(app.session.state, repo)
            assert [p.probe for p in held.results] == ["gradients"] and held.notes == []   # notes.json: not ours
            await pilot.press("p")
            await until(pilot, lambda: isinstance(app.screen, ProbeScreen), what="probe view")
            await pilot.pause()
            _assert_the_gradients_view(app)
            assert "1/1" in str(app.screen.query_one("#probe_title").render())
            await pilot.press("p")          # p again closes it
            await pilot.pause()
            assert isinstance(app.screen, HypothesesScreen)
            app.exit()

    asyncio.run(go())
