"""The caller's side of the Claude engine's record: the TUI appends each run's ClaudeRun to the
session as a `claude_ran` event (the engine itself writes nothing). Real TUI (Textual pilot),
real demo repo, the real client against the scripted Messages API."""
from __future__ import annotations

import asyncio
import json

from fake_anthropic_server import FakeAnthropic, Status
from mltdbg.app.dialogs.consent import ClaudeConsent
from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.sessions.demo import make_demo_repo
from tui_helpers import until

KEY = "sk-ant-api03-" + "Tu1" * 20 + "-tuikeyAA"


def test_the_tui_records_each_claude_run_in_the_session(tmp_path, monkeypatch):
    repo = tmp_path / "demo-classifier"
    make_demo_repo(repo)
    with FakeAnthropic() as srv:
        srv.push(Status(401, "invalid x-api-key"))                # the run falls back; its record is still kept
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.url)
        app = MltdbgApp(Options(cwd=str(repo), name="demo", command="python train.py", engine="auto"))

        async def walk():
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.pause()
                await pilot.press("ctrl+n")
                await until(pilot, lambda: isinstance(app.screen, ClaudeConsent), what="the consent question")
                await pilot.press("y")
                await until(pilot, lambda: app.session.state.diagnoses, what="a diagnosis")
        asyncio.run(walk())
    runs = app.session.state.engine_runs
    assert len(srv.requests) == 1 and len(runs) == 1
    assert runs[0]["outcome"] == "api_error" and runs[0]["model"] == "claude-sonnet-5-5"
    log = (app.session.dir / "events.jsonl").read_text()
    types = [json.loads(x)["type"] for x in log.splitlines()]
    assert types.index("claude_ran") < types.index("diagnosis_made") and KEY not in log
