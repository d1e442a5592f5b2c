"""The check screen's snippet editor: an instrumentation name mltdbg cannot read from the user's code is
marked `<<name?>>`; the check is refused until the user fills it in (i, a TextArea, ctrl+s); then the same
approval dialog as every command, and the check runs for real with the edit. The edit is a check_edited
event, so resume and the export show it. A real temp git repo (not the demo), real subprocesses."""
from __future__ import annotations

import asyncio
import sys

from textual.widgets import TextArea

from mltdbg.app.dialogs.approve import ApproveCommand
from mltdbg.app.dialogs.snippet import EditSnippet
from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.check import CheckScreen
from mltdbg.playbooks.library import causes
from mltdbg.sessions import Session
from mltdbg.sessions.diagnosis import diagnose_session
from mltdbg.sessions.export import export_md

from repo_helpers import make_repo
from test_guided_real_script import TRAIN
from tui_helpers import footer_keys, until

PY = sys.executable
# `for xb, yb in list(dl)`: the loop iterates a call, so there is no loader name to reuse.
NO_LOADER = TRAIN.replace("for xb, yb in dl:", "for xb, yb in list(dl):")


def _session(tmp_path):
    repo = make_repo(tmp_path / "r", {"train.py": NO_LOADER,
                                      "train.log": "".join(f"step={i} loss=0.69{i % 10} grad_norm={0.1 * i:.3f}\n"
                                                           for i in range(1, 60))})
    s = Session.create(repo, name="snippet")
    s.append("capture_edited", {"field": "command", "value": f"{PY} train.py 1"})
    s.append("capture_edited", {"field": "happened", "value": "the loss stays at 0.69"})
    ev = diagnose_session(s, engine="offline").event
    top = ev.diagnosis["root_causes"][0]
    # The hypothesis under check gets the label-alignment playbook's snippet: it needs `{loader}`.
    top["instrumentation"] = causes()["label_misalignment"].instrumentation
    s.append(ev)
    s.append("step_changed", {"step": "check", "hypothesis_id": top["id"]})
    sid, hid = s.id, top["id"]
    s.close()
    return repo, sid, hid


def test_fill_in_a_marker_then_approve_and_run(tmp_path):
    repo, sid, hid = _session(tmp_path)

    async def go():
        app = MltdbgApp(Options(cwd=str(repo), resume=sid, engine="offline"))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, CheckScreen), 60, "the check screen")
            screen = app.screen
            await until(pilot, lambda: screen._snippet, 60, "the scratch copy")
            assert screen._left == ["loader"] and "<<loader?>>" in screen._snippet
            assert "fill in loader" in str(screen.query_one("#instr").render())
            # the footer is laid out a refresh or two after the screen shows: wait for it, then read it
            await until(pilot, lambda: footer_keys(app), 30, "the footer")
            await until(pilot, lambda: ("i", "Snippet") in [(k, d) for k, d, right in footer_keys(app) if right <= 80],
                        10, "the Snippet key on screen")
            # approving is refused while the marker is there: no dialog
            await pilot.press("a")
            await pilot.pause()
            assert not isinstance(app.screen, ApproveCommand)

            # Esc in the editor changes nothing
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, EditSnippet), 10, "the editor")
            assert "fill in: loader" in str(app.screen.query_one("#fill").render())
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is screen, 10, "back")
            assert screen._left == ["loader"]

            # a save with the marker still there is refused, saying which
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, EditSnippet), 10, "the editor")
            area = app.screen.query_one(TextArea)
            area.text = area.text + "\n# a comment\n"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: app.screen is screen and "# a comment" in screen._snippet
                        and "re-instrumenting" not in str(screen.query_one("#instr").render()), 60, "re-bound")
            assert screen._left == ["loader"]
            await pilot.press("a")
            await pilot.pause()
            assert not isinstance(app.screen, ApproveCommand)

            # fill it in: the marker is selected when the editor opens, typing replaces it
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, EditSnippet), 10, "the editor")
            area = app.screen.query_one(TextArea)
            assert area.selected_text == "<<loader?>>"
            await pilot.press("d", "l")
            assert "no marker left" in str(app.screen.query_one("#fill").render())
            await pilot.press("ctrl+s")
            await until(pilot, lambda: app.screen is screen and not screen._left and "next(iter(dl))" in screen._snippet,
                        60, "the edit applied")

            screen.query_one("#cmd").value = f"{PY} train.py 1"
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, ApproveCommand), 10, "the approval dialog")
            dialog = app.screen
            assert "next(iter(dl))" in dialog.detail and "<<" not in dialog.detail
            await pilot.press("y")
            await until(pilot, lambda: screen._run is None and screen._last_check() is not None
                        and screen._last_check().status != "running", 120, "the check finished")
            return app.session.state
    st = asyncio.run(go())
    check = [c for c in st.checks.values() if c.hypothesis_id == hid][-1]
    assert check.output.count("[mltdbg] pair ") == 5, check.output[-2000:]
    plan = st.plans[hid]
    assert plan.instrumentation and "next(iter(dl))" in plan.instrumentation
    # resume and the export show the edited snippet
    s = Session.open(sid, repo, readonly=True)
    try:
        assert "next(iter(dl))" in (s.state.plans[hid].instrumentation or "")
        assert "instrumentation edited to" in export_md(s.state)
    finally:
        s.close()
