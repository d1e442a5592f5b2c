"""Untrusted text stays text in the TUI: toasts, dialogs, screens, the replay and the evidence viewer
get artifact and session text holding terminal escape sequences and Textual/Rich markup, and show it
as characters (`^[` for ESC, the literal brackets), never obey it. Real app under Pilot, real files."""
from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from textual.widgets import DataTable, SelectionList, Static
from textual.widgets._toast import Toast

from mltdbg.app.dialogs.approve import ApproveCommand
from mltdbg.app.dialogs.confirm_apply import ConfirmApply
from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.capture import CaptureScreen
from mltdbg.app.screens.replay import ReplayScreen
from mltdbg.app.screens.viewer import ViewerScreen
from mltdbg.app.widgets.viewer import ArtifactView
from mltdbg.sessions import Session
from mltdbg.sessions.events import CaptureEdited

from repo_helpers import make_repo
from tui_helpers import demo_app, until

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"          # set the clipboard to "rm -rf ~"
OSC0 = "\x1b]0;pwned\x07"                      # set the window title
CLEAR = "\x1b[2J"
MARKUP = ["[@click=app.quit]x[/]", "[$accent]", "[b]bold?[/b]"]
HOSTILE = f"{OSC52}{OSC0}{CLEAR}" + " ".join(MARKUP)
HYDRA = """python train.py 'optim.groups=["lr=0.1"]'"""


def run(coro):
    return asyncio.run(coro)


def plain(widget) -> str:
    """What a widget shows, as characters (markup, if any had been parsed, would be gone from this)."""
    r = widget.render()
    return getattr(r, "plain", None) or str(r)


def assert_shown_not_obeyed(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text
    assert "^[]52;c;cm0gLXJmIH4K^G" in text and "^[]0;pwned^G" in text and "^[[2J" in text
    for m in MARKUP:
        assert m in text, (m, text)


def test_toasts_from_app_and_screens_show_escapes_and_markup_as_text(tmp_path):
    app, repo = demo_app(tmp_path)

    async def go():
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause()
            app.notify(f"recorded root {HOSTILE}", title=f"t{OSC0}")
            app.screen.notify(HOSTILE, severity="error")          # a screen's toast lands in the same place
            await until(pilot, lambda: len(app.screen.query(Toast)) >= 2, timeout=10, what="two toasts")
            texts = [plain(t) for t in app.screen.query(Toast)]
            for t in texts[-2:]:
                assert_shown_not_obeyed(t)
            assert any("t^[]0;pwned^G" in t for t in texts)
            await pilot.pause()
            assert app.is_running
    run(go())
    assert not (repo / "x").exists()


def test_capture_lists_a_hydra_named_log_and_still_quits(tmp_path):
    app, repo = demo_app(tmp_path)
    (repo / "runs").mkdir(exist_ok=True)
    odd = repo / "runs" / 'run["lr=0.1"].log'
    odd.write_text("step 1 loss 0.5\n")
    evil = repo / "runs" / f"x{CLEAR}[$accent].log"
    evil.write_text("step 1 loss 0.5\n")
    missing = str(repo / f"gone{OSC52}[@click=app.quit]x[/].log")
    app.options.paths = [str(odd), str(evil), missing]
    app.options.command = HYDRA

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, CaptureScreen), what="capture")
            sl = app.screen.query_one("#artifacts", SelectionList)
            await until(pilot, lambda: sl.option_count >= 2, what="artifacts listed")
            prompts = [str(getattr(sl.get_option_at_index(i).prompt, "plain", sl.get_option_at_index(i).prompt))
                       for i in range(sl.option_count)]
            assert any('run["lr=0.1"].log' in p for p in prompts), prompts
            assert any("x^[[2J[$accent].log" in p for p in prompts), prompts
            problem = plain(app.screen.query_one(".problem", Static))
            assert "gone^[]52;c;cm0gLXJmIH4K^G[@click=app.quit]x[/].log" in problem
            await pilot.press("ctrl+q")
            await pilot.pause()
        return app.return_code
    assert run(go()) == 0


def test_dialogs_show_the_whole_command_and_file_names_as_text(tmp_path):
    app, repo = demo_app(tmp_path)
    cmd = f"{HYDRA}\nrm -rf ~ {HOSTILE}"

    async def go():
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            await app.push_screen(ApproveCommand(cmd, repo, f"Run this? {MARKUP[0]}"))
            await pilot.pause()
            shown = "\n".join(plain(s) for s in app.screen.query(Static))
            assert_shown_not_obeyed(shown)
            assert HYDRA + "⏎rm -rf ~" in shown          # every line of the command, on one line
            assert f"Run this? {MARKUP[0]}" in shown
            await pilot.press("n")
            await pilot.pause()
            await app.push_screen(ConfirmApply([f"a{OSC0}.py", 'run["lr=0.1"].py', MARKUP[0]]))
            await pilot.pause()
            shown = "\n".join(plain(s) for s in app.screen.query(Static))
            assert "a^[]0;pwned^G.py" in shown and 'run["lr=0.1"].py' in shown and MARKUP[0] in shown
            assert "\x1b" not in shown
            await pilot.press("escape")
            await pilot.pause()
            assert app.is_running
    run(go())


def test_viewer_never_sends_an_artifacts_escape_sequences_to_the_terminal(tmp_path):
    app, repo = demo_app(tmp_path)
    log = repo / "evil.log"
    log.write_text(f"ok line\n{HOSTILE}\nloss=\x1b[31mnan\x1b[0m\n")

    async def go():
        async with app.run_test(size=(140, 30)) as pilot:
            await pilot.pause()
            await app.push_screen(ViewerScreen(log, f"evil{OSC0}.log", [2]))
            await pilot.pause()
            view = app.screen.query_one(ArtifactView)
            rows = ["".join(seg.text for seg in view.render_line(y)) for y in range(3)]
            assert_shown_not_obeyed(rows[1])
            assert "loss=^[[31mnan^[[0m" in rows[2]
            assert "evil^[]0;pwned^G.log" in plain(app.screen.query_one("#where", Static))
            assert app.is_running
    run(go())


def _write_raw(session_dir: Path, events: list[tuple[str, dict]]) -> None:
    """Append events as a shared or hand-edited session file would hold them (no validation on the way in)."""
    path = session_dir / "events.jsonl"
    seq = sum(1 for _ in path.open())
    with path.open("a") as f:
        for i, (kind, payload) in enumerate(events, seq + 1):
            f.write(json.dumps({"v": 1, "seq": i, "t": "2026-05-04T10:00:00.000Z", "type": kind,
                                "payload": payload}) + "\n")


def test_replay_shows_recorded_commands_fix_source_and_sha_as_text(tmp_path, monkeypatch):
    app, repo = demo_app(tmp_path)
    s = Session.create(repo, name="shared")
    s.append(CaptureEdited(field="command", value=HYDRA))
    sid, sdir = s.id, s.dir
    s.close()
    _write_raw(sdir, [
        ("fix_proposed", {"source": f"playbook{HOSTILE}", "diff": f"--- a/x.py\n+{OSC52}\n", "files": [MARKUP[0]]}),
        ("commit_made", {"sha": f"{CLEAR}[@click=app.quit]", "message": HOSTILE, "files": ["x.py"]}),
    ])
    replay = MltdbgApp(Options(cwd=str(repo), replay=sid))

    async def go():
        async with replay.run_test(size=(160, 40)) as pilot:
            await pilot.pause()
            assert isinstance(replay.screen, ReplayScreen)
            await pilot.press("end")
            await pilot.pause()
            state = plain(replay.screen.query_one("#state", Static))
            assert HYDRA in state
            assert "playbook^[]52;c;cm0gLXJmIH4K^G" in state and MARKUP[0] in state
            assert "commit ^[[2J[@click" in state
            assert "\x1b" not in state
            assert "\x1b" not in plain(replay.screen.query_one("#event", Static))
            for _ in range(3):
                await pilot.press("p")
                await pilot.pause()
            assert replay.is_running
    run(go())


def test_the_session_picker_shows_names_and_titles_as_text(tmp_path):
    app, repo = demo_app(tmp_path)
    s = Session.create(repo, name="picked")
    s.append(CaptureEdited(field="command", value=f"{OSC0}[@click=app.quit]x[/]"))
    s.close()
    picker = MltdbgApp(Options(cwd=str(repo), resume=""))

    async def go():
        async with picker.run_test(size=(160, 30)) as pilot:
            await pilot.pause()
            t = picker.screen.query_one(DataTable)
            await until(pilot, lambda: t.row_count >= 1, timeout=10, what="the session listed")
            cells = [str(getattr(c, "plain", c)) for c in t.get_row_at(0)]
            assert "^[]0;pwned^G[@click=app.quit]x[/]" in cells, cells
            assert picker.is_running
    run(go())
    assert os.path.isdir(s.dir)


def _shared_fix_session(tmp_path: Path) -> tuple[Path, str]:
    """A repo and a session log (as shared by someone) that says a fix was applied to a.py."""
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\ny = 2\n"})
    s = Session.create(repo, name="shared", environment={"notes": []})
    sid, events = s.id, s.dir / "events.jsonl"
    s.close()
    _write_raw(events.parent, [
        ("fix_proposed", {"source": "playbook", "files": ["a.py"],
                          "diff": "--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x = 1\n+y = 2\n"}),
        ("fix_confirmed", {}), ("fix_applied", {}),
        ("step_changed", {"step": "fix", "hypothesis_id": "h1"}),
    ])
    return repo, sid


def test_revert_of_a_recorded_diff_takes_the_typed_confirmation(tmp_path):
    repo, sid = _shared_fix_session(tmp_path)
    app = MltdbgApp(Options(cwd=str(repo), resume=sid))

    async def go():
        async with app.run_test(size=(140, 40)) as pilot:
            await until(pilot, lambda: type(app.screen).__name__ == "FixScreen", timeout=20, what="fix screen")
            app.screen.query_one("#body").focus()
            await pilot.press("u")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmApply)
            assert "a.py" in "\n".join(plain(s) for s in app.screen.query(Static))
            await pilot.press("escape")
            await pilot.pause()
            assert (repo / "a.py").read_text() == "x = 1\ny = 2\n"
            await pilot.press("u")
            await pilot.pause()
            await pilot.press(*"yes", "enter")                # not the word: nothing happens
            await pilot.pause()
            assert (repo / "a.py").read_text() == "x = 1\ny = 2\n"
            await pilot.press("u")
            await pilot.pause()
            await pilot.press(*"apply", "enter")
            await until(pilot, lambda: (repo / "a.py").read_text() == "x = 1\n", timeout=20, what="reverted")
    run(go())


def test_verify_shows_the_whole_command_for_approval_and_runs_nothing_when_refused(tmp_path):
    repo, sid = _shared_fix_session(tmp_path)
    app = MltdbgApp(Options(cwd=str(repo), resume=sid))
    marker = tmp_path / "ran"

    async def go():
        async with app.run_test(size=(160, 40)) as pilot:
            await until(pilot, lambda: type(app.screen).__name__ == "FixScreen", timeout=20, what="fix screen")
            app.screen.query_one("#repro").value = f"python -c 'pass'\ntouch {marker}; rm -rf ~{OSC0}"
            app.screen.query_one("#body").focus()
            await pilot.press("v")
            await pilot.pause()
            assert isinstance(app.screen, ApproveCommand)
            shown = "\n".join(plain(s) for s in app.screen.query(Static))
            assert f"python -c 'pass'⏎touch {marker}; rm -rf ~^[]0;pwned^G" in shown
            assert "FLAGGED" in shown
            await pilot.press("enter")                        # Enter does not run a flagged command
            await pilot.pause()
            assert isinstance(app.screen, ApproveCommand)
            await pilot.press("n")
            await pilot.pause(0.5)
            assert not app.session.state.verifications and not marker.exists()
    run(go())


def test_the_one_hour_reset_shows_debug_md_as_text(tmp_path):
    from mltdbg.app.dialogs.reset import ResetPrompt
    app, repo = demo_app(tmp_path)
    md = tmp_path / "debug.md"
    md.write_text(f"# Bug\n{HOSTILE}\n")

    async def go():
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            await app.push_screen(ResetPrompt(md))
            await pilot.pause()
            assert_shown_not_obeyed("\n".join(plain(s) for s in app.screen.query(Static)))
            await pilot.press("escape")
            await pilot.pause()
            assert app.is_running
    run(go())


def test_verify_quotes_a_recorded_test_file_name_so_it_stays_one_argument(tmp_path, monkeypatch):
    """A shared session names its test file `t;touch PWNED;#.py`: the verify command passes it to pytest
    as one quoted argument, so the shell never runs the `touch` hidden in the name."""
    from tui_helpers import use_this_python
    from mltdbg.sessions.fixgate import TestFile
    use_this_python(monkeypatch)
    repo, sid = _shared_fix_session(tmp_path)
    name, content = "t;touch PWNED;#.py", "def test_ok():\n    assert True\n"
    (repo / name).write_text(content)
    _write_raw(Session.open(sid, repo, readonly=True).dir,
               [("test_added", {"file": name, "diff": TestFile(name, content).diff, "written": True})])
    app = MltdbgApp(Options(cwd=str(repo), resume=sid))

    async def go():
        async with app.run_test(size=(160, 40)) as pilot:
            await until(pilot, lambda: type(app.screen).__name__ == "FixScreen", timeout=20, what="fix screen")
            assert app.screen.gate.test is not None and app.screen.gate.test.written
            app.screen.query_one("#repro").value = "python -c 'pass'"
            app.screen.query_one("#body").focus()
            await pilot.press("v")
            await pilot.pause()
            assert isinstance(app.screen, ApproveCommand)
            await pilot.press("y")
            await until(pilot, lambda: len(app.session.state.verifications) >= 2 and not app.screen._verifying,
                        timeout=60, what="verification")
            return [v["command"] for v in app.session.state.verifications]
    commands = run(go())
    assert commands[-1].endswith("'t;touch PWNED;#.py'")
    assert not (repo / "PWNED").exists() and not (tmp_path / "PWNED").exists()
