"""The workflow logic the TUI screens call, tested headless (no Pilot): diagnosing inside a session,
the recorded plots, the lesson draft, context packages."""
import datetime as dt
import json
import math

import pytest

from mltdbg.analyzers.model import Signal
from mltdbg.playbooks.context import ContextError, load_context
from mltdbg.sessions import Session
from mltdbg.sessions.demo import make_demo_repo
from mltdbg.sessions.diagnosis import diagnose_session, diagnosis_inputs, metric_series
from mltdbg.sessions.events import DiagnosisMade
from mltdbg.sessions.lesson import lesson_draft, lesson_files, split_lesson
from mltdbg.sessions.log import Event
from mltdbg.sessions.plots import anomalies_from_signals, recorded_series
from mltdbg.sessions.state import fold

PLAYBOOK_LESSON = ("optimizer.zero_grad() was missing, so gradients summed across steps. Caught from a climbing "
                   "grad_norm. Added a test. Lesson: check that grads do not carry over between steps.")


@pytest.fixture
def demo_session(tmp_path, monkeypatch):
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    repo = make_demo_repo(tmp_path / "demo")
    s = Session.create(repo, name="demo", environment={"notes": "test"})
    yield s
    s.close()


def test_diagnose_session_records_what_replay_draws(demo_session):
    s = demo_session
    s.append("capture_edited", {"field": "expected", "value": "final loss below 0.8"})
    s.append("capture_edited", {"field": "happened", "value": "AssertionError: final loss is not below 0.8"})
    s.append("artifacts_chosen", {"paths": ["runs/latest/train.log", "train.py"], "excluded": []})
    inp = diagnosis_inputs(s)
    assert (s.dir / "happened.txt").read_text() == "AssertionError: final loss is not below 0.8"
    assert inp.paths[-1] == str(s.dir / "happened.txt") and inp.paths[0] == str(s.root / "runs/latest/train.log")
    assert inp.symptoms == ["final loss below 0.8", "AssertionError: final loss is not below 0.8"]
    statuses = []
    r = diagnose_session(s, engine="offline", on_status=statuses.append)
    assert statuses == ["diagnosed; drawing the curves ..."]
    assert isinstance(r.event, DiagnosisMade) and r.event.engine == "offline"
    top = r.event.diagnosis["root_causes"][0]
    assert top["id"] == "missing_zero_grad" and top["title"] and top["instrumentation"] and top["lesson"]
    assert {"loss", "grad_norm"} <= set(r.event.plots) <= {"loss", "val_loss", "grad_norm", "lr"}
    assert set(r.series) == set(r.event.plots)
    assert len(r.series["loss"][0]) == r.event.plots["loss"]["n_points"]
    s.append(r.event)
    rec = s.state.diagnosis
    assert rec.hypotheses[0].id == "missing_zero_grad" and rec.hypotheses[0].instrumentation == top["instrumentation"]
    series, baseline, _ = recorded_series(rec.plots)
    assert set(series) == set(r.series) and baseline == {}


def test_the_plot_draws_the_loss_the_analyzers_read_and_marks_its_nan(tmp_path):
    # two logs: the first (in the run's order) short and clean, the second where the NaN is
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose
    (tmp_path / "a_eval.log").write_text("".join(f"step={s} loss={2 - s / 100:.3f}\n" for s in range(1, 6)))
    (tmp_path / "b_train.log").write_text("".join(f"step={s} loss={'nan' if s == 40 else f'{2 - s / 100:.3f}'}\n"
                                                  for s in range(1, 60)))
    assert [s.source for s in ingest([tmp_path]).series if s.name == "loss"][0] == "a_eval.log"
    steps, values = metric_series(ingest([tmp_path]))["loss"]
    assert len(steps) == 59 and math.isnan(values[39])
    d = diagnose([str(tmp_path)], [])
    nan = next(s for s in d.signals if s.kind == "nonfinite")
    assert nan.evidence[0].source == "b_train.log" and nan.data["step"] == 40


def test_recorded_series_splits_the_baseline_and_keeps_each_mark_once():
    mark = {"step": 3, "metric": None, "label": "first non-finite"}
    plots = {"loss": {"steps": [1, 2, 3], "values": [1.0, 0.5, "NaN"], "anomalies": [mark]},
             "grad_norm": {"steps": [1, 2], "values": [2.0, 9.0], "anomalies": [mark]},
             "baseline/loss": {"steps": [1, 2, 3], "values": [1.0, 0.4, 0.2], "anomalies": []}}
    series, baseline, marks = recorded_series(plots)
    assert series == {"loss": ([1, 2, 3], [1.0, 0.5, "NaN"]), "grad_norm": ([1, 2], [2.0, 9.0])}
    assert baseline == {"loss": ([1, 2, 3], [1.0, 0.4, 0.2])} and marks == [mark]


def test_anomaly_marks_from_signals():
    sig = [Signal("nonfinite_grad", 1.0, "grad NaN at 40", data={"step": 40}),
           Signal("train_val_divergence", 0.7, "val up", data={"step": 900}),
           Signal("loss_spike", 0.5, "spike", data={"worst_step": 77}),
           Signal("loss_spike", 0.5, "no step recorded", data={}),
           Signal("plateau", 0.5, "flat", data={"step": 5})]
    assert anomalies_from_signals(sig) == [
        {"step": 40, "metric": "grad_norm", "label": "first non-finite"},
        {"step": 900, "metric": "val_loss", "label": "diverges"},
        {"step": 77, "metric": "loss", "label": "spike"}]


def test_split_playbook_lesson():
    assert split_lesson(PLAYBOOK_LESSON) == (
        "optimizer.zero_grad() was missing, so gradients summed across steps",
        "Caught by a climbing grad_norm", "check that grads do not carry over between steps.")
    assert split_lesson("") == ("", "", "")


def _events(*items):
    return [Event(i, f"2026-05-04T10:00:{i:02d}.000Z", t, p) for i, (t, p) in enumerate(items, 1)]


def test_lesson_draft_from_the_session_record():
    diag = {"status": "diagnosis_complete", "root_causes": [
        {"id": "missing_zero_grad", "issue": "grads accumulate", "title": "zero_grad missing", "lesson": PLAYBOOK_LESSON}]}
    test_diff = ("--- /dev/null\n+++ b/tests/test_grads.py\n@@ -0,0 +1,2 @@\n+def test_grads_reset():\n+    pass\n")
    st = fold(_events(("diagnosis_made", {"engine": "offline", "diagnosis": diag}),
                      ("fix_proposed", {"source": "playbook", "diff": "-a\n+b\n", "files": ["train.py"]}),
                      ("fix_applied", {})))
    draft = lesson_draft(st, "missing_zero_grad", dt.date(2026, 5, 4))
    assert draft.entry == ("- (2026-05-04) optimizer.zero_grad() was missing, so gradients summed across steps. Caught by a "
                           "climbing grad_norm. No test added. Lesson: check that grads do not carry over between steps.")
    assert draft.message.startswith("Fix: zero_grad missing\n\nRoot cause: missing_zero_grad")
    assert draft.files == ["train.py"] and draft.test_name is None
    fold(_events(*[("note_added", {"text": "pad"})] * 3,
                 ("test_added", {"file": "tests/test_grads.py", "diff": test_diff, "written": True})), st)
    draft = lesson_draft(st, "missing_zero_grad", "2026-05-04")
    assert draft.test_name == "test_grads_reset" and "Added test_grads_reset." in draft.entry
    assert lesson_files(st) == ["train.py", "tests/test_grads.py"]
    # Once a lesson was written, the draft is that line; an unknown hypothesis still gives a draft.
    fold(_events(("lesson_written", {"text": "- (2026-05-04) mine.", "file": "CLAUDE.md"})), st)
    assert lesson_draft(st, "missing_zero_grad", None).entry == "- (2026-05-04) mine."
    assert lesson_draft(fold([]), None, "2026-05-04").entry.startswith("- (2026-05-04) the bug.")


def test_context_package_paths_are_relative_to_the_package(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    (pkg / "logs").mkdir(parents=True)
    (pkg / "logs" / "train.log").write_text("step=1 loss=2\n")
    (pkg / "ctx.json").write_text(json.dumps({
        "task": "Diagnose", "artifacts": {"logs": "logs/train.log", "code": ["train.py", 3]},
        "symptoms": ["NaN", 7], "constraints": {"max_analysis_time": "5 minutes"}}))
    monkeypatch.chdir(tmp_path)
    c = load_context(pkg / "ctx.json")
    assert c.paths == [str(pkg / "logs" / "train.log"), "train.py"]     # a missing path stays as written
    assert c.symptoms == ["NaN"] and c.task == "Diagnose" and c.time_budget_s == 300.0
    (pkg / "bad.json").write_text('{"artifacts": 5}')
    with pytest.raises(ContextError, match=r"bad\.json: not a readable context package"):
        load_context(pkg / "bad.json")
    with pytest.raises(ContextError, match="missing.json"):
        load_context(pkg / "missing.json")
