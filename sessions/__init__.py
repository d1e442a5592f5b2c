"""Sessions: a crash-safe record of a debugging session, resume, read-only replay, export. UI-free.

A session is an append-only JSON-lines event log (`events.jsonl`, one event a
line: `v`, `seq`, `t`, `type`, `payload`) with `debug.md` beside it, in
`<repo>/.mltdbg/sessions/<id>/` (excluded via `.git/info/exclude`) or, outside
a repo, in the user data dir. Each append is fsynced before it returns. The
TUI renders `SessionState`, a pure fold of the events; resuming is loading.

This package exports the names below; none of them shadows a submodule
(`import mltdbg.sessions.X` is always the module X).

API
    Session.create(repo_root=None, name=None, environment=None) -> Session
    Session.open(path_or_id, repo_root=None, readonly=False) -> Session
        (resume; read-only with a notice when another live process holds it)
    session.append(event) -> Event | None                a typed event (mltdbg.sessions.events), fsynced,
    session.append(type, payload) -> Event | None         redacted, paths made relative; the dict form is
                                                          checked against the same contract (EventError)
    session.state -> SessionState                       step, capture, diagnoses (DiagnosisRecord, with
                                                        HypothesisRecord items), plans, checks (CheckRecord),
                                                        verdicts, fixes, verifications, lesson, commits, notes
    session.notices / session.warnings                  what to tell the user on open
    list_sessions(repo_root=None) -> [SessionSummary]
    Replay(path_or_id).next() / .prev() / .jump(n) -> SessionState   never runs or writes anything
    describe(event, state, full=False) -> str           one event as replay shows it
    render_debug_md(capture, date), export_md(state), export_json(state, events)
    plot_record(steps, values, anomalies)               downsampled plot for `diagnosis_made.plots`
    (secret redaction is mltdbg.analyzers.common.redact)

Workflow core (import the modules)
    diagnosis.diagnose_session(session, ...) -> SessionDiagnosis   diagnose, with the plots to record
    checks.CheckRun(cmd, cwd, timeout_s, session, on_line).run() / .cancel()   a check in its own process group
    scratch.ScratchWorktree(repo).instrument(snippet) / .diff() / .check(cmd)  instrumentation on a scratch copy
    fixgate.FixGate(repo, session): propose / from_worktree / add_test / confirm(typed) / apply(token) /
        verify(failing_cmd, test_cmd) / revert                                  the confirmed write gate
    lesson.lesson_entry(...) / lesson_draft(...) / append_lesson(repo, entry) / commit_fix(repo, files, message)
    demo.make_demo_repo(dest=None) -> Path                                      the bundled failing demo, git-initialised

Event types (past tense: they are facts), payload keys; one dataclass each in
mltdbg.sessions.events, which is the contract (these lines summarise it):
    session_started {id, name, root, in_repo, schema, pid}
    environment_recorded {python, platform, torch, cuda, gpus, pip_freeze, git: {commit, branch, dirty}, notes}
    session_resumed {root, pid, interrupted_checks[, leftovers]}  written by every writable open
    session_adopted {root}                               a session recorded elsewhere, continued here (--adopt);
                                                         until then it opens read-only
    capture_edited {field: command|expected|happened|tried, value}
    artifacts_chosen {paths, excluded}
    diagnosis_made {engine, diagnosis: <diagnosis.schema.json object>, plots: {metric: plot_record(...)}}
    check_approved | check_edited | check_skipped {hypothesis_id, command[, original_command]}
    check_started {check_id, command, cwd, timeout_s, hypothesis_id}
    check_output {check_id, chunk[, tail, truncated_bytes]}   stored output capped per check at
        OUTPUT_CAP_BYTES (256 KiB): the first half is written as it comes, the last half is
        written before check_finished with the count of bytes dropped in between. Each append
        costs an fsync (~1-5 ms), so a check runner sends output in batches (say every 0.2 s)
    check_finished {check_id, exit_code, duration_s, timed_out, cancelled[, output_bytes, interrupted, flooded, error]}
    verdict_recorded {hypothesis_id, verdict: confirmed|denied|inconclusive, note[, check_id]}
    fix_proposed {source: playbook|claude|user, diff, files, test_diff[, hypothesis_id]}
    fix_confirmed | fix_applied | fix_reverted {[note, files]}   (apply to the latest proposal)
    test_added {file, diff, written}                     a test file for the latest fix (written: on disk)
    verification_ran {command, exit_code, passed[, check_id, output, status]}
    lesson_written {text, file}
    commit_made {sha, message, files}
    note_added {text}
    step_changed {step: capture|diagnose|check|fix|lesson[, hypothesis_id]}
    claude_ran {...}                                     the Claude engine's run record (redacted)
    probe_ran {probe, status, target, result_file, exit_code, duration_s, argv, findings[, error, python]}
                                                         one `mltdbg probe` run (sessions/probes.py)
"""
from mltdbg.sessions.errors import EventError, ReadOnlyError, SessionError
from mltdbg.sessions.events import EVENT_TYPES, STEPS, SessionEvent
from mltdbg.sessions.export import describe, export_json, export_md, render_debug_md
from mltdbg.sessions.log import SCHEMA_VERSION, Event
from mltdbg.sessions.plots import plot_record
from mltdbg.sessions.replay import Replay
from mltdbg.sessions.session import OUTPUT_CAP_BYTES, Session, SessionSummary, list_sessions
from mltdbg.sessions.state import (CheckPlan, CheckRecord, DiagnosisRecord, EvidenceRecord, Fix, HypothesisRecord,
                                   SessionState, Verdict, fold)

__all__ = [
    "SCHEMA_VERSION", "Event", "EVENT_TYPES", "STEPS", "OUTPUT_CAP_BYTES", "Session", "SessionError", "ReadOnlyError",
    "EventError", "SessionEvent", "SessionSummary", "SessionState", "DiagnosisRecord", "HypothesisRecord",
    "EvidenceRecord", "CheckPlan", "CheckRecord", "Fix", "Verdict", "Replay", "fold", "list_sessions", "describe",
    "export_md", "export_json", "render_debug_md", "plot_record",
]
