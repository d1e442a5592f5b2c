"""Replay (read-only cursor), the `sessions` CLI, exports, and import hygiene."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mltdbg.sessions import ReadOnlyError, Replay, Session, export_json, export_md, plot_record, render_debug_md
from repo_helpers import git

ENV = {"python": "3.11.9", "torch": "2.13.0", "cuda": "12.4", "gpus": ["GPU 0: NVIDIA H200"], "pip_freeze": ["numpy==2.0"],
       "git": {"commit": "a" * 40, "branch": "main", "dirty": True}}


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """A finished session whose check would create a file and whose fix would create another."""
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "train.py").write_text("lr = 1.0\n")
    (repo / "train.log").write_text("step 100 loss nan\n")
    marker = repo / "created_by_check.txt"
    s = Session.create(repo, name="nan loss", environment=ENV)
    s.append("capture_edited", {"field": "command", "value": "python train.py"})
    s.append("capture_edited", {"field": "expected", "value": "loss falls"})
    s.append("capture_edited", {"field": "happened", "value": "loss is nan at step 100"})
    s.append("artifacts_chosen", {"paths": [str(repo / "train.log")], "excluded": []})
    steps = np.arange(10_000)
    loss = np.exp(-steps / 3000.0)
    loss[9000:] = np.nan
    s.append("diagnosis_made", {"engine": "offline", "diagnosis": {
        "status": "diagnosis_complete", "root_causes": [
            {"id": "lr_too_high", "issue": "lr 1.0 for Adam", "severity": "critical", "confidence": 0.85,
             "evidence": [{"text": "lr = 1.0", "source": "train.py", "line": 1, "quote": "lr = 1.0"}],
             "check": "run one step at lr 1e-3", "fix": "lower lr to 1e-3"},
            {"id": "nan_in_data", "issue": "NaN batch", "severity": "high", "confidence": 0.3, "evidence": [],
             "check": "scan batches", "fix": "filter"}], "quick_fixes": [], "needs": []},
        "plots": {"loss": plot_record(steps, loss, [{"step": 9000, "kind": "nonfinite"}])}})
    s.append("step_changed", {"step": "check"})
    cmd = f"touch {marker}"
    s.append("check_approved", {"hypothesis_id": "lr_too_high", "command": cmd})
    s.append("check_skipped", {"hypothesis_id": "nan_in_data", "command": "python scan.py"})
    s.append("check_started", {"check_id": "c1", "command": cmd, "cwd": str(repo), "timeout_s": 30, "hypothesis_id": "lr_too_high"})
    s.append("check_output", {"check_id": "c1", "chunk": "step 1 loss 2.31\nstep 2 loss nan\n"})
    s.append("check_finished", {"check_id": "c1", "exit_code": 0, "duration_s": 0.4, "timed_out": False, "cancelled": False})
    s.append("verdict_recorded", {"hypothesis_id": "lr_too_high", "verdict": "confirmed", "note": "nan after 2 steps"})
    diff = "--- a/new_file.py\n+++ b/new_file.py\n@@ -0,0 +1 @@\n+print('fix')\n"
    s.append("fix_proposed", {"source": "playbook", "diff": diff, "files": ["new_file.py"], "test_diff": ""})
    s.append("fix_confirmed", {})
    s.append("fix_applied", {})
    s.append("verification_ran", {"command": "pytest -q", "exit_code": 0, "passed": True})
    s.append("lesson_written", {"text": "Adam wants lr around 1e-3.", "file": "CLAUDE.md"})
    s.append("commit_made", {"sha": "b" * 40, "message": "Lower lr to 1e-3", "files": ["train.py"]})
    s.append("note_added", {"text": "teammates: check lr first"})
    s.close()
    return repo, s, marker


def tree(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def run_cli(repo, *args):
    return subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "sessions", "--repo", str(repo), *args],
                          capture_output=True, text=True, cwd=repo)


def test_replay_runs_nothing_and_writes_nothing(recorded):
    repo, s, marker = recorded
    before = tree(repo)
    r = Replay(s.id, repo)
    states = [st.copy() for st in r]
    assert len(states) == len(r.events)
    check_at = next(i for i, e in enumerate(r.events) if e.type == "check_started")
    assert states[check_at].checks["c1"].status == "running"            # as the author saw it then
    assert states[check_at + 2].checks["c1"].status == "done"
    fix_at = next(i for i, e in enumerate(r.events) if e.type == "fix_proposed")
    assert states[fix_at].fix.status == "proposed" and states[-1].fix.status == "applied"
    assert run_cli(repo, "replay", s.id).returncode == 0
    assert run_cli(repo, "export", s.id, "--format", "md").returncode == 0
    assert not marker.exists() and not (repo / "new_file.py").exists()
    assert tree(repo) == before


def test_cursor_next_prev_jump_agree(recorded):
    repo, s, _ = recorded
    r = Replay(s.dir)
    forward = [json.dumps(st.to_json(), sort_keys=True) for st in r]
    assert r.next() is None and r.at_end
    for n in range(len(r), 0, -1):                     # walking back reproduces every state
        assert json.dumps(r.jump(n).to_json(), sort_keys=True) == forward[n - 1]
    assert r.jump(0) and r.prev() is None
    assert r.jump(0).n_events == 0 and r.event is None
    r.jump(5)
    r.next()
    assert r.index == 6 and json.dumps(r.state.to_json(), sort_keys=True) == forward[5]
    assert json.dumps(r.prev().to_json(), sort_keys=True) == forward[4]
    assert r.jump(10_000).n_events == len(r)           # clamped


def test_replay_elsewhere_uses_the_record_and_says_artifacts_are_absent(recorded, tmp_path):
    repo, s, _ = recorded
    shared = tmp_path / "from_a_teammate.jsonl"         # only the log travels
    shared.write_bytes(s.ref.events.read_bytes())
    r = Replay(shared)
    st = r.jump(len(r))
    plot = st.diagnosis.plots["loss"]
    assert plot["n_points"] == 10_000 and len(plot["steps"]) <= 410 and "NaN" in plot["values"]
    assert 9000 in plot["steps"]                        # the first NaN survives downsampling
    os.rename(repo / "train.log", repo / "gone.log")
    r2 = Replay(s.id, repo)
    assert any("absent" in n for n in r2.notices)
    with pytest.raises(ReadOnlyError):
        Session.open(shared).append("note_added", {"text": "x"})    # a loose file opens read-only


def test_export_md_follows_the_debug_md_shape(recorded):
    repo, s, _ = recorded
    st = Replay(s.id, repo).jump(10_000)
    md = export_md(st)
    assert md.startswith(render_debug_md(st.capture, st.created_at[:10]))
    order = ["# bug-", "## Command", "## What I expected", "## What happened", "## What I've already tried",
             "## Hypotheses", "## Checks", "## Verdicts", "## Fix", "## Verification", "## Lesson", "## Commit"]
    positions = [md.index(h) for h in order]
    assert positions == sorted(positions)
    assert "lr_too_high (85%): **confirmed**" in md and "train.py:1" in md
    assert "step 2 loss nan" in md and "+print('fix')" in md and "Adam wants lr" in md
    assert "nan_in_data: check skipped" in md
    doc = json.loads(export_json(st, Replay(s.id, repo).events))
    assert doc["state"]["session_id"] == s.id and doc["state"]["checks"]["c1"]["output"].startswith("step 1")
    assert len(doc["events"]) == st.n_events


def test_render_debug_md_shape():
    md = render_debug_md({"command": "make train", "expected": "", "happened": "RuntimeError: x", "tried": ""}, "2026-05-04")
    assert md.splitlines()[0] == "# bug-2026-05-04"
    assert "## Command\n\nmake train\n" in md and "## What happened\n\nRuntimeError: x\n" in md
    assert md.rstrip().endswith("## What I've already tried\n\nNothing yet.")


def test_cli_list_export_replay(recorded, tmp_path):
    repo, s, _ = recorded
    out = run_cli(repo, "list")
    assert out.returncode == 0 and s.id in out.stdout and "nan loss" in out.stdout and "lr_too_high" in out.stdout
    md = run_cli(repo, "export", s.id[:17], "--format", "md")       # a unique id prefix works
    assert md.returncode == 0 and md.stdout.startswith("# bug-")
    js = run_cli(repo, "export", s.id, "--format", "json", "-o", str(tmp_path / "s.json"))
    assert js.returncode == 0 and json.loads((tmp_path / "s.json").read_text())["session"] == s.id
    rp = run_cli(repo, "replay", s.id)
    assert rp.returncode == 0
    assert "not run by replay" in rp.stdout and "1. lr_too_high 85%" in rp.stdout and "-- end:" in rp.stdout
    assert "plot loss:" in rp.stdout
    step = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "sessions", "--repo", str(repo), "replay",
                           s.id, "--step"], input="\n\n3\np\nq\n", capture_output=True, text=True)
    assert step.returncode == 0 and "#3" in step.stdout and "#2" in step.stdout
    missing = run_cli(repo, "export", "no-such-session")
    assert missing.returncode == 1 and "no session" in missing.stderr


def test_core_never_imports_textual():
    code = ("import importlib, pkgutil, sys\nimport mltdbg.sessions, mltdbg.analyzers, mltdbg.playbooks\n"
            "import mltdbg.analyzers.downsample\n"
            "for m in pkgutil.iter_modules(mltdbg.sessions.__path__):\n"
            "    importlib.import_module('mltdbg.sessions.' + m.name)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'textual')\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_package_names_never_shadow_a_submodule():
    import importlib
    import pkgutil
    import types

    import mltdbg.sessions as pkg
    subs = [m.name for m in pkgutil.iter_modules(pkg.__path__)]
    assert {"events", "state", "export", "session"} <= set(subs)
    assert not set(pkg.__all__) & set(subs)
    for name in subs:
        importlib.import_module(f"mltdbg.sessions.{name}")
        assert isinstance(getattr(pkg, name), types.ModuleType), name     # the attribute is the module itself


def test_a_huge_note_is_cut_in_replay_not_in_the_export(tmp_path, monkeypatch):
    """A shared session with a 30 MB note: replay shows a bounded excerpt; the export keeps it all."""
    from mltdbg.sessions.export import REPLAY_MAX_CHARS, describe
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    s = Session.create(repo, name="big note", environment=ENV)
    s.append("note_added", {"text": "x" * 30_000_000})
    sid = s.id
    s.close()
    r = Replay(sid, repo_root=repo)
    st = Session.open(sid, repo_root=repo, readonly=True).state
    text = describe(r.events[-1], st)
    assert len(text) < REPLAY_MAX_CHARS + 200 and "more characters" in text
    assert "x" * 1_000_000 in export_md(st)
