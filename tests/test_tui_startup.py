"""Start-up of the TUI: the entry modules load no heavy library, and a new session's environment record
(pip freeze, nvidia-smi, git) is written by a worker after the first screen, even when the user quits at once."""
from __future__ import annotations

import asyncio
import subprocess
import sys

from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.capture import CaptureScreen
from mltdbg.sessions import Session

from repo_helpers import make_repo
from tui_helpers import until

HEAVY = ("torch", "pandas", "plotext", "anthropic", "git", "pyarrow")


def test_the_tui_entry_modules_import_no_heavy_library():
    code = ("import sys\nimport mltdbg.app.tui, mltdbg.app.mltdbg_app, mltdbg.app.screens.capture\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_first_screen_loads_neither_numpy_nor_the_readers_nor_the_other_screens():
    """What the first paint needs: the capture screen (screen_for loads only the screen it shows); the
    readers (numpy with them) load in the file-discovery worker, after the first paint."""
    code = ("import sys\nfrom mltdbg.app.screens import screen_for\nimport mltdbg.app.mltdbg_app\n"
            "screen_for('capture')\n"
            "print(sorted(m for m in sys.modules if m in ('numpy', 'mltdbg.analyzers.ingest', 'mltdbg.analyzers.crossrank',"
            " 'mltdbg.app.screens.check', 'mltdbg.app.screens.hypotheses', 'mltdbg.app.screens.fix')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_cli_help_loads_neither_the_sessions_core_nor_a_heavy_library():
    """`mltdbg --help` builds every subcommand's parser; the code behind them loads only when one runs."""
    code = ("import sys, contextlib, io\nfrom mltdbg.app.cli import main\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n    main(['--help'])\n"
            f"print(sorted(m for m in sys.modules if m.startswith('mltdbg.sessions') or m in {HEAVY!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_deferred_session_has_no_environment_until_it_is_recorded(tmp_path):
    repo = make_repo(tmp_path / "r", {"train.py": "print(1)\n"})
    s = Session.create(repo, name="x", defer_environment=True)
    assert not s.state.environment
    ev = s.record_environment()
    assert ev is not None and s.state.environment["python"] and s.state.environment["git"]["commit"]
    s.close()
    assert s.record_environment({"python": "3.11"}) is None     # closed: nothing written
    assert Session.open(s.dir, repo, readonly=True).state.environment["python"] == ev.payload["python"]


def test_the_environment_is_recorded_after_the_first_screen_even_on_a_quick_quit(tmp_path):
    repo = make_repo(tmp_path / "r", {"train.py": "print(1)\n"})
    app = MltdbgApp(Options(cwd=str(repo), engine="offline"))

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, CaptureScreen), what="first screen")
            await pilot.press("ctrl+q")                          # quit at once: on_unmount waits for the record
    asyncio.run(go())
    events = [e.type for e in Session.open(app.session.dir, repo, readonly=True).events]
    assert events.count("environment_recorded") == 1
    assert events.index("environment_recorded") > events.index("session_started")


def test_warm_loads_ahead_what_the_first_diagnosis_would():
    """playbooks.diagnose.warm() (the capture screen's discovery worker calls it after the first paint):
    every analyzer module analyze() loads by name, the playbooks, the fitted weights and the word model
    are loaded once it returns, so the first diagnosis only reads and scores."""
    code = ("import sys\nfrom mltdbg.analyzers.analyze import MODULES\nfrom mltdbg.playbooks import diagnose, library, scoring, textmodel\n"
            "before = [m for m in MODULES if 'mltdbg.analyzers.' + m in sys.modules]\n"
            "diagnose.warm()\n"
            "after = [m for m in MODULES if 'mltdbg.analyzers.' + m not in sys.modules]\n"
            "print(len(before) < len(MODULES), after, library.causes.cache_info().currsize,"
            " scoring.model.cache_info().currsize, textmodel.model.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "[]", "1", "1", "1"]
