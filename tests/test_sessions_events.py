"""Typed session events: the contract is checked when an event is written, and a log that breaks it
is read with warnings instead of a crash; the state's typed records; replay text of each event."""
import json
import re

import pytest

import mltdbg.sessions as sessions_pkg
from mltdbg.sessions import EventError, Replay, Session, SessionError, describe, list_sessions
from mltdbg.sessions.events import (EVENT_CLASSES, EVENT_TYPES, CheckFinished, CheckStarted, NoteAdded, StepChanged,
                                    VerdictRecorded)
from mltdbg.sessions.log import Event
from mltdbg.sessions.state import fold
from repo_helpers import make_repo

ENV = {"python": "3.11", "torch": None, "cuda": None, "gpus": [], "pip_freeze": [], "git": None}
DIAGNOSIS = {"status": "needs_more_data", "needs": ["grad_norm per step"], "root_causes": [
    {"id": "lr_too_high", "issue": "lr 1.0 for Adam", "severity": "critical", "confidence": 0.6, "engine": "offline",
     "evidence": [{"text": "lr = 1.0", "source": "train.py", "line": 3, "quote": "lr = 1.0", "verified": True}],
     "check": "one step at lr 1e-3", "fix": "lower lr", "title": "Learning rate too high", "lesson": "What. Lesson: L."},
    {"id": "nan_in_data", "issue": "NaN batch", "severity": "high", "confidence": 0.3, "evidence": [],
     "check": "scan", "fix": "filter"}]}


@pytest.fixture
def session(tmp_path, monkeypatch):
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    repo = make_repo(tmp_path / "proj", {"train.py": "lr = 1.0\n"})
    s = Session.create(repo, name="typed", environment=ENV)
    yield s
    s.close()


def ev(seq: int, type: str, payload: dict) -> Event:
    return Event(seq, f"2026-05-04T10:00:{seq:02d}.000Z", type, payload)


def test_every_type_has_a_class_and_is_documented():
    assert set(EVENT_CLASSES) == set(EVENT_TYPES) and len(EVENT_TYPES) >= 24
    doc = sessions_pkg.__doc__
    for t in EVENT_TYPES:
        assert re.search(rf"\b{t}\b", doc), f"{t} missing from the contract summary in sessions/__init__.py"


def test_typed_and_named_appends_write_the_same_event(session):
    a = session.append(NoteAdded(text="hello", extra={"mood": "ok"}))
    b = session.append("note_added", {"text": "hello", "mood": "ok"})
    assert a.payload == b.payload == {"text": "hello", "mood": "ok"}
    assert [n["text"] for n in session.state.notes] == ["hello", "hello"]
    # Optional keys left unset are not written; set ones are, paths made relative to the repo root.
    e = session.append(CheckStarted(check_id="c1", command="pytest", cwd=str(session.root / "sub"), extra={"purpose": "x"}))
    assert e.payload == {"check_id": "c1", "command": "pytest", "cwd": "sub", "purpose": "x"}


@pytest.mark.parametrize("type,payload,why", [
    ("hologram_projected", {}, "unknown event type 'hologram_projected'"),
    ("note_added", {}, "missing key 'text'"),
    ("verdict_recorded", {"hypothesis_id": "a", "verdict": "maybe"}, "verdict 'maybe' is not one of"),
    ("check_finished", {"check_id": "c", "exit_code": "1", "duration_s": 1.0}, "'exit_code' should be an integer or null"),
    ("capture_edited", {"field": "mood", "value": "x"}, "field 'mood' is not one of"),
    ("step_changed", {"step": "celebrate"}, "step 'celebrate' is not one of"),
    ("artifacts_chosen", {"paths": "train.log"}, "'paths' should be a list of text"),
])
def test_a_bad_event_is_refused_and_nothing_is_written(session, type, payload, why):
    before = session.ref.events.read_bytes()
    n = len(session.events)
    with pytest.raises(EventError, match=re.escape(why)) as info:
        session.append(type, payload)
    assert isinstance(info.value, SessionError)
    assert session.ref.events.read_bytes() == before and len(session.events) == n


def test_typed_events_check_themselves_when_built():
    with pytest.raises(EventError, match="verdict 'sure'"):
        VerdictRecorded(hypothesis_id="a", verdict="sure")
    with pytest.raises(EventError, match="'duration_s' should be a number or null, not str"):
        CheckFinished(check_id="c", exit_code=0, duration_s="fast")
    with pytest.raises(EventError, match="given twice"):
        NoteAdded(text="a", extra={"text": "b"})
    assert StepChanged(step="fix", hypothesis_id="lr_too_high").payload() == {"step": "fix", "hypothesis_id": "lr_too_high"}


def test_append_takes_an_event_or_a_type_and_payload_not_both(session):
    with pytest.raises(TypeError):
        session.append(NoteAdded(text="x"), {"text": "y"})


def test_a_log_that_breaks_the_contract_loads_with_warnings(session):
    session.append("note_added", {"text": "kept"})
    session.close()
    with open(session.ref.events, "a") as f:
        for seq, type, payload in [(90, "note_added", {}), (91, "verdict_recorded", {"hypothesis_id": "a", "verdict": "maybe"}),
                                   (92, "hologram_projected", {"x": 1}), (93, "note_added", {"text": "after"})]:
            f.write(json.dumps({"v": 1, "seq": seq, "t": "x", "type": type, "payload": payload}) + "\n")
    s = Session.open(session.id, session.root, readonly=True)
    assert [n["text"] for n in s.state.notes] == ["kept", "after"] and not s.state.verdicts
    assert any("seq 90 (note_added): missing key 'text'; skipped" in w for w in s.warnings)
    assert any("seq 91 (verdict_recorded)" in w for w in s.warnings)
    assert any("'hologram_projected', unknown to this version; ignored" in w for w in s.warnings)
    assert any("3 problem(s) in the log" in n for n in s.notices)
    r = Replay(session.id, session.root)
    assert len(r.warnings) == 3
    texts = [describe(e, r.jump(i + 1)) for i, e in enumerate(r.events)]
    assert any(t.endswith("note_added  (damaged: missing key 'text'; skipped)") for t in texts)
    assert any(t.endswith("hologram_projected  (unknown to this version; ignored)") for t in texts)
    assert list_sessions(session.root)[0].problems == 3


def test_state_holds_typed_hypotheses_and_the_focus():
    events = [ev(1, "session_started", {"id": "s", "name": None, "root": "/r", "in_repo": True}),
              ev(2, "diagnosis_made", {"engine": "offline", "diagnosis": DIAGNOSIS, "plots": {}})]
    st = fold(events)
    d = st.diagnosis
    assert d.engine == "offline" and d.status == "needs_more_data" and d.needs == ["grad_norm per step"]
    top = st.hypotheses[0]
    assert (top.id, top.confidence, top.title, top.label) == ("lr_too_high", 0.6, "Learning rate too high", "Learning rate too high")
    assert top.evidence[0].location == "train.py:3" and top.evidence[0].verified is True
    assert st.hypothesis("nan_in_data").label == "NaN batch" and st.hypothesis("nope") is None
    assert st.focused_hypothesis == "lr_too_high"                       # nothing chosen yet: the top one
    fold([ev(3, "step_changed", {"step": "check", "hypothesis_id": "nan_in_data"}),
          ev(4, "step_changed", {"step": "diagnose"})], st)             # no hypothesis: the choice stands
    assert st.focused_hypothesis == "nan_in_data"
    fold([ev(5, "verdict_recorded", {"hypothesis_id": "lr_too_high", "verdict": "denied"})], st)
    assert st.focused_hypothesis == "lr_too_high"
    assert st.to_json()["diagnoses"][0] == {"engine": "offline", "diagnosis": DIAGNOSIS, "plots": {}, "seq": 2,
                                            "time": "2026-05-04T10:00:02.000Z"}


def test_checks_and_verifications_since_the_fix():
    st = fold([
        ev(1, "check_started", {"check_id": "c1", "command": "a", "hypothesis_id": "h1"}),
        ev(2, "check_started", {"check_id": "c2", "command": "b", "hypothesis_id": "h2"}),
        ev(3, "fix_proposed", {"source": "user", "diff": "", "files": []}),
        ev(4, "fix_applied", {}),
        ev(5, "verification_ran", {"command": "x", "exit_code": 1, "passed": False}),
        ev(6, "fix_reverted", {}), ev(7, "fix_applied", {}),
        ev(8, "verification_ran", {"command": "x", "exit_code": 0, "passed": True}),
    ])
    assert [c.check_id for c in st.checks_for("h2")] == ["c2"]
    assert [v["passed"] for v in st.last_verifications()] == [True]


def test_replay_text_words_events_as_the_export_does():
    st = fold([ev(1, "diagnosis_made", {"engine": "offline", "diagnosis": DIAGNOSIS, "plots": {}})])
    text = describe(ev(1, "diagnosis_made", {"engine": "offline", "diagnosis": DIAGNOSIS, "plots": {}}), st)
    assert "1. lr_too_high 60%  lr 1.0 for Adam" in text
    assert "- lr = 1.0 (train.py:3) `lr = 1.0`" in text            # the citation, as in export_md
    fold([ev(2, "fix_proposed", {"source": "user", "diff": "+x\n", "files": ["t.py"]})], st)
    added = ev(3, "test_added", {"file": "tests/test_x.py", "diff": "+def test_x(): pass\n", "written": True})
    fold([added], st)
    assert describe(added, st).endswith("test_added  tests/test_x.py (written)")
    assert "+def test_x" in describe(added, st, full=True)


def test_the_latest_verification_round_decides():
    # A failed round, then a passing one: verified (one failed round never fails the later ones).
    events = [
        ev(1, "fix_proposed", {"source": "user", "diff": "", "files": []}), ev(2, "fix_applied", {}),
        ev(3, "verification_ran", {"command": "r", "exit_code": 1, "passed": False, "round": "a"}),
        ev(4, "verification_ran", {"command": "t", "exit_code": 1, "passed": False, "round": "a"}),
        ev(5, "verification_ran", {"command": "r", "exit_code": 0, "passed": True, "round": "b"}),
        ev(6, "verification_ran", {"command": "t", "exit_code": 0, "passed": True, "round": "b"}),
    ]
    st = fold(events)
    assert [v["seq"] for v in st.last_verifications()] == [5, 6] and st.verified is True
    # ... and a failure in the latest round fails it, even when its other command passed.
    fold([ev(7, "verification_ran", {"command": "r", "exit_code": 0, "passed": True, "round": "c"}),
          ev(8, "verification_ran", {"command": "t", "exit_code": 1, "passed": False, "round": "c"})], st)
    assert st.verified is False
    assert fold([ev(1, "fix_proposed", {"source": "user", "diff": "", "files": []})]).verified is None


def test_rounds_without_ids_are_told_apart_by_repeated_commands():
    # Sessions recorded before rounds had ids: a round runs each command once.
    st = fold([
        ev(1, "fix_proposed", {"source": "user", "diff": "", "files": []}), ev(2, "fix_applied", {}),
        ev(3, "verification_ran", {"command": "r", "exit_code": 1, "passed": False}),
        ev(4, "verification_ran", {"command": "t", "exit_code": 1, "passed": False}),
        ev(5, "verification_ran", {"command": "r", "exit_code": 0, "passed": True}),
        ev(6, "verification_ran", {"command": "t", "exit_code": 0, "passed": True}),
    ])
    assert [v["seq"] for v in st.last_verifications()] == [5, 6] and st.verified is True
    fold([ev(7, "verification_ran", {"command": "r", "exit_code": 1, "passed": False})], st)
    assert st.verified is False
