"""The TUI driven by Pilot over a real demo repo: real training runs on CPU, real git, real checks."""
from __future__ import annotations

import os
import subprocess

import git as gitpython
import numpy as np
import pytest
from textual.app import App

from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.capture import CaptureScreen
from mltdbg.app.screens.check import CheckScreen
from mltdbg.app.screens.fix import FixScreen
from mltdbg.app.screens.hypotheses import HypothesesScreen
from mltdbg.app.screens.lesson import LessonScreen
from mltdbg.app.screens.replay import ReplayScreen
from mltdbg.app.screens.viewer import ViewerScreen
from mltdbg.app.dialogs.confirm_apply import ConfirmApply
from mltdbg.app.widgets.plot import MetricPlot
from mltdbg.app.widgets.viewer import LineIndex
from mltdbg.sessions import Session

from tui_helpers import CHECK_CMD, DEMO_TEST, demo_app, until, use_this_python

def run(coro):
    import asyncio
    return asyncio.run(coro)


async def _to_hypotheses(app, pilot):
    await pilot.pause()
    await pilot.press("ctrl+n")
    await until(pilot, lambda: isinstance(app.screen, HypothesesScreen) and app.session.state.diagnoses, what="diagnosis")
    await pilot.pause()


def test_walk_the_demo_through_all_five_steps(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)

    async def walk():
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            # 1 Capture: the command is prefilled; run it after approval to capture the failure.
            assert isinstance(app.screen, CaptureScreen)
            app.screen.query_one("#expected").focus()
            await pilot.press(*"final loss below 0.8")
            await pilot.press("ctrl+r")
            await pilot.pause()
            await pilot.press("y")
            await until(pilot, lambda: "final loss is not below 0.8" in app.session.state.capture["happened"], what="capture")
            # 2 Hypotheses: the missing zero_grad on top; its evidence opens in the viewer.
            await _to_hypotheses(app, pilot)
            st = app.session.state
            assert st.capture["expected"] == "final loss below 0.8"
            assert st.hypotheses[0].id == "missing_zero_grad"
            assert set(st.diagnosis.plots) >= {"loss", "grad_norm"}
            await pilot.press("o")
            await pilot.pause()
            assert isinstance(app.screen, ViewerScreen)
            await pilot.press("escape")
            # 3 Check: instrumentation in a scratch copy, the edited command runs, the verdict is recorded.
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, CheckScreen) and app.screen._wt is not None, what="scratch")
            app.screen.query_one("#cmd").value = CHECK_CMD
            await pilot.press("a")
            await pilot.pause()
            await pilot.press("y")
            await until(pilot, lambda: any(c.status == "done" for c in app.session.state.checks.values()
                                           if c.hypothesis_id == "missing_zero_grad"), what="check")
            await pilot.pause()
            assert subprocess.run(["git", "status", "--porcelain", "--", "train.py"], cwd=repo, capture_output=True,
                                  text=True).stdout == ""          # the instrumentation never touched the tree
            await pilot.press("1")
            await until(pilot, lambda: len(app.session.state.diagnoses) == 2, what="re-diagnosis")
            await pilot.pause()
            # 4 Fix: the diff, a test, the typed confirmation, verification.
            await pilot.press("f")
            await pilot.pause()
            assert isinstance(app.screen, FixScreen)
            app.screen.query_one("#test").text = DEMO_TEST
            await pilot.press("a")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmApply)
            await pilot.press(*"apply", "enter")
            await pilot.pause()
            assert "optimizer.zero_grad()" in (repo / "train.py").read_text()
            assert (repo / "tests" / "test_missing_zero_grad.py").read_text() == DEMO_TEST
            await pilot.press("v")
            await pilot.pause()
            await pilot.press("y")      # the approval dialog: the command runs only after it
            await until(pilot, lambda: len(app.session.state.verifications) >= 2, what="verification")
            assert [v["passed"] for v in app.session.state.verifications] == [True, True]
            # 5 Lesson: one CLAUDE.md line and one commit.
            await pilot.press("n")
            await pilot.pause()
            assert isinstance(app.screen, LessonScreen)
            await pilot.press("ctrl+s")
            await until(pilot, lambda: app.session.state.commits, what="commit")
            return app.session.state

    st = run(walk())
    r = gitpython.Repo(repo)
    commit = r.commit(st.commits[-1]["sha"])
    assert len(list(r.iter_commits())) == 2
    assert sorted(commit.stats.files) == ["CLAUDE.md", "tests/test_missing_zero_grad.py", "train.py"]
    assert "zero_grad" in commit.message and "test_grad_norm_does_not_climb" in commit.message
    claude = (repo / "CLAUDE.md").read_text()
    assert claude.startswith("# demo-classifier\n")
    tail = claude.split("## Things that have bitten us\n\n", 1)[1]
    assert tail.count("\n") == 1 and tail.startswith("- (") and "zero_grad() was missing" in tail
    assert "Added test_grad_norm_does_not_climb." in tail and "Lesson: " in tail
    assert st.lesson["text"] == tail.strip()
    assert [e for e in ("capture", "diagnose", "check", "fix", "lesson")
            if e not in [ev.payload.get("step") for ev in Session.open(st.session_id, repo, readonly=True).events
                         if ev.type == "step_changed"]] == ["capture"]   # the walk started there; every other step recorded
    # Unrelated changes (the rerun's log) stay out of the commit and unstaged.
    assert "runs/latest/train.log" not in commit.stats.files


def test_a_fix_is_not_applied_without_the_typed_confirmation(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)
    original = (repo / "train.py").read_bytes()

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await _to_hypotheses(app, pilot)
            await pilot.press("f")
            await pilot.pause()
            assert app.session.state.fix.status == "proposed"
            await pilot.press("a", *"yes", "enter")          # the wrong word
            await pilot.pause()
            await pilot.press("a", "escape")                 # cancelled
            await pilot.pause()
            await pilot.press("a", "enter")                  # nothing typed
            await pilot.pause()
            assert isinstance(app.screen, FixScreen)
            await pilot.press(*"apply")                      # the word typed outside the dialog: keys, not a confirmation
            await pilot.pause()
            return app.session.state

    st = run(go())
    assert (repo / "train.py").read_bytes() == original
    assert st.fix.status == "proposed" and not any(h["status"] in ("confirmed", "applied") for h in st.fix.history)
    assert not (repo / "tests").exists()


def test_ending_the_tui_mid_check_then_resuming_finds_the_same_state(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)
    slow = "python -c \"import time; print('check started', flush=True); time.sleep(120)\""
    seen = {}

    async def first():
        async with app.run_test(size=(100, 30)) as pilot:
            await _to_hypotheses(app, pilot)
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, CheckScreen) and app.screen._wt is not None, what="scratch")
            app.screen.query_one("#cmd").value = slow
            await pilot.press("a")
            await pilot.pause()
            await pilot.press("y")
            await until(pilot, lambda: any("check started" in c.output for c in app.session.state.checks.values()), what="running")
            run_ = app.screen._run
            seen["pid"] = run_.proc.pid
            seen["id"] = app.session.id
            seen["events"] = len(app.session.events)
            app.exit()

    run(first())
    with pytest.raises(ProcessLookupError):     # the check's whole process group was ended
        os.killpg(seen["pid"], 0)
    again = MltdbgApp(Options(cwd=str(repo), resume=seen["id"], engine="offline"))

    async def second():
        async with again.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert isinstance(again.screen, CheckScreen)
            assert again.screen.hid == "missing_zero_grad"
            assert again.screen.query_one("#cmd").value == slow
            st = again.session.state
            (check,) = [c for c in st.checks.values() if c.hypothesis_id == "missing_zero_grad"]
            assert check.status == "interrupted" and "check started" in check.output
            assert st.step == "check" and st.plans["missing_zero_grad"].command == slow
            lines = "\n".join(str(x) for x in again.screen.query_one("#out").lines)
            assert "check started" in lines and "interrupted" in lines

    run(second())


def test_a_second_tui_on_the_same_session_is_read_only(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            other = MltdbgApp(Options(cwd=str(repo), resume=app.session.id, engine="offline"))
            async with other.run_test(size=(100, 30)) as p2:
                await p2.pause()
                assert other.session.readonly and "read-only" in other.sub_title
                n = len(other.session.events)
                other.screen.query_one("#command").value = "rm -rf /"      # disabled: nothing is recorded
                await p2.press("ctrl+r")
                await p2.pause(0.6)
                assert len(other.session.events) == n

    run(go())


def test_replay_shows_a_session_and_never_runs_or_writes_anything(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)

    async def record():
        async with app.run_test(size=(100, 30)) as pilot:
            await _to_hypotheses(app, pilot)
            await pilot.press("f")
            await pilot.pause()
            return app.session.id
    sid = run(record())

    def tree():
        return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in repo.rglob("*")}
    before = tree()

    def refuse(*a, **k):
        raise AssertionError("replay started a process")
    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "fork", refuse)
    replay = MltdbgApp(Options(cwd=str(repo), replay=sid))

    async def watch():
        async with replay.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert isinstance(replay.screen, ReplayScreen)
            for _ in range(8):
                await pilot.press("n")
            assert replay.replay.index == 8
            await pilot.press("p")
            assert replay.replay.index == 7
            await pilot.press("plus", "plus", "plus", "space")
            await until(pilot, lambda: replay.replay.at_end, what="autoplay to the end")
            assert replay.replay.state.fix is not None and replay.replay.state.step == "fix"
    run(watch())
    assert tree() == before


def test_bad_input_is_a_message_not_a_traceback(tmp_path, monkeypatch):
    plain = tmp_path / "notgit"
    plain.mkdir()
    (plain / "train.log").write_text("step=1 loss=2.0\nstep=2 loss=nan\n")
    (plain / "weights.bin").write_bytes(bytes(range(256)) * 64)
    (plain / "loop").symlink_to(plain / "loop2")      # a symlink loop named on the command line
    (plain / "loop2").symlink_to(plain / "loop")
    app = MltdbgApp(Options(cwd=str(plain), paths=[str(plain / "missing.log"), str(plain), str(plain / "loop")],
                            engine="offline"))

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            text = " ".join(str(w.render()) for w in app.screen.query(".problem"))
            assert "missing.log: no such file or directory" in text and "not a git repo" in text
            await pilot.press("ctrl+n")
            await until(pilot, lambda: app.session.state.diagnoses or "cannot diagnose" in
                        str(app.screen.query_one("#status").render()), what="diagnosis or a message")
            await pilot.pause()
            assert isinstance(app.screen, HypothesesScreen)
    run(go())


class _PlotApp(App):
    """One MetricPlot on its own, for the plot tests."""

    def compose(self):
        yield MetricPlot(id="plot")


def test_the_plot_hands_plotext_about_two_points_per_column_for_a_million_points():
    steps = np.arange(1_000_000)
    loss = np.exp(-steps / 3e5) + np.random.default_rng(0).normal(0, 0.01, steps.size)
    loss[700_000] = 50.0
    loss[900_000:] = np.nan

    async def go():
        a = _PlotApp()
        async with a.run_test(size=(100, 24)) as pilot:
            p = a.query_one(MetricPlot)
            p.set_data({"loss": (steps, loss)}, None, [{"step": 700_000, "label": "spike"}])
            await pilot.pause()
            assert 0 < p.last_points <= 2 * 100 + 8
            text = str(p.render())
            assert "spike@700000" in text and "non-finite@9" in text
            p.zoom(4)
            p.log_scale = True
            p.smooth = True
            await pilot.pause()
            assert 0 < p.last_points <= 2 * 100 + 8
    run(go())


def test_a_long_series_is_reduced_once_and_a_deep_zoom_draws_original_points():
    """A 400,000-point loss: redraws use a one-time min-max reduction (the spike stays), a deep
    zoom cuts from the original points, and smoothing is one EMA of the whole series (a zoomed,
    smoothed window shows that EMA's values, not a fresh one restarted at the window's edge)."""
    from mltdbg.app.widgets.plot import REDUCED_BUCKETS, ema  # noqa: PLC0415 - this test only
    n = 400_000
    steps = np.arange(n) * 2
    loss = 1 + np.random.default_rng(1).normal(0, 0.05, n)
    loss[123_457] = 40.0
    assert n > 4 * REDUCED_BUCKETS

    async def go():
        a = _PlotApp()
        async with a.run_test(size=(100, 24)) as pilot:
            p = a.query_one(MetricPlot)
            p.set_data({"loss": (steps, loss)})
            await pilot.pause()
            reduced = p._cache[("run:reduced", "loss", False)]
            assert len(reduced[0]) < n // 4
            s, v = p._visible("run", "loss", steps, loss, 0, steps[-1], 100)
            assert 40.0 in v and s[v == 40.0][0] == 123_457 * 2
            lo, hi = 123_457 * 2 - 200, 123_457 * 2 + 200          # 201 original points in view
            s, v = p._visible("run", "loss", steps, loss, lo, hi, 100)
            assert np.isin(s, steps[(steps >= lo) & (steps <= hi)]).all() and 40.0 in v
            p.smooth = True
            await pilot.pause()
            s, v = p._visible("run", "loss", steps, loss, lo, hi, 100)
            full = ema(loss)
            assert np.allclose(v, full[s // 2])
    run(go())


def test_viewer_index_reads_only_what_is_asked(tmp_path):
    f = tmp_path / "big.log"
    lines = [f"step={i} loss={1.0 / (i + 1):.5f}" for i in range(200_000)]
    lines[123_456] = "RuntimeError: CUDA error: device-side assert triggered"
    f.write_text("\n".join(lines) + "\n")
    idx = LineIndex(f)
    assert len(idx) == 200_000 and idx.line(0) == "step=0 loss=1.00000"
    assert idx.search("cuda ERROR") == [123_456]
    b = tmp_path / "blob.bin"
    b.write_bytes(bytes(range(256)) * 100)
    assert LineIndex(b).binary


def test_claude_consent_is_asked_once_and_declining_stays_offline(tmp_path, monkeypatch):
    from mltdbg.app.dialogs.consent import ClaudeConsent
    from mltdbg.playbooks.userconfig import load_config
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")   # nothing listens: never reached
    repo = tmp_path / "demo-classifier"
    from mltdbg.sessions.demo import make_demo_repo
    make_demo_repo(repo)
    app = MltdbgApp(Options(cwd=str(repo), name="demo", command="python train.py", engine="auto"))

    async def walk():
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("ctrl+n")
            await until(pilot, lambda: isinstance(app.screen, ClaudeConsent), what="the consent question")
            await pilot.press("n")
            await until(pilot, lambda: app.session.state.diagnoses, what="an offline diagnosis")
            assert app.session.state.diagnoses[-1].engine == "offline"
    import asyncio
    asyncio.run(walk())
    assert load_config().consent is False


def test_verifying_again_after_a_failed_round_turns_green(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await _to_hypotheses(app, pilot)
            await pilot.press("f")
            await pilot.pause()
            app.screen.query_one("#test").text = ""              # no test: only the reproduction reruns
            await pilot.press("a")
            await pilot.pause()
            await pilot.press(*"apply", "enter")
            await pilot.pause()
            assert app.session.state.fix.status == "applied"
            status = app.screen.query_one("#status")
            for repro, n in (("python -c 'raise SystemExit(3)'", 1), ("python -c 'pass'", 2)):
                app.screen.query_one("#repro").value = repro
                app.screen.query_one("#body").focus()
                await pilot.press("v")
                await pilot.pause()
                await pilot.press("y")      # the approval dialog: the command runs only after it
                await until(pilot, lambda: len(app.session.state.verifications) >= n and not app.screen._verifying,
                            what=f"verification {n}")
                await pilot.pause()
                shown = str(status.render())
                assert ("Verified." in shown) == (n == 2) and ("Verification failed." in shown) == (n == 1)
            return app.session.id

    sid = run(go())
    assert Session.open(sid, repo, readonly=True).state.verified is True    # and so after --resume


def test_the_lesson_screen_warns_after_a_failed_verification(tmp_path, monkeypatch):
    use_this_python(monkeypatch)
    app, repo = demo_app(tmp_path)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await _to_hypotheses(app, pilot)
            await pilot.press("f")
            await pilot.pause()
            app.screen.query_one("#test").text = ""
            await pilot.press("a")
            await pilot.pause()
            await pilot.press(*"apply", "enter")
            await pilot.pause()
            app.screen.query_one("#repro").value = "python -c 'raise SystemExit(3)'"
            app.screen.query_one("#body").focus()
            await pilot.press("v")
            await pilot.pause()
            await pilot.press("y")      # the approval dialog: the command runs only after it
            await until(pilot, lambda: app.session.state.verifications and not app.screen._verifying, what="verify")
            await pilot.press("n")
            await pilot.pause()
            assert isinstance(app.screen, LessonScreen)
            assert "The latest verification failed" in str(app.screen.query_one("#status").render())
            assert "Not verified: the latest verification failed." in app.screen.query_one("#message").text

    run(go())
