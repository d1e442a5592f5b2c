"""One call from paths to a Diagnosis, used by the CLI, the TUI and the benchmarks.

ingest -> analyze (signals) -> engine (ranked hypotheses, verified evidence) -> patches.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from mltdbg.analyzers.analyze import analyze, warm as warm_analyzers
from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import Run
from mltdbg.analyzers.lessons import LESSON_FILE
from mltdbg.playbooks import library, scoring, textmodel
from mltdbg.playbooks.recall import lessons_for

from mltdbg.playbooks.engine import Diagnosis, DiagnosisContext, OfflineEngine


class InputError(Exception):
    """Input that cannot be diagnosed at all; the message is one line for the user."""


def load(paths: list[str], root: str | os.PathLike | None = None, exclude: list[str] | None = None) -> Run:
    missing = [p for p in paths if not os.path.lexists(p)]
    if missing:
        raise InputError(f"{missing[0]}: no such file or directory")
    return ingest(paths, root=root, exclude=exclude or ())


def context_for(paths: list[str], symptoms: list[str] | None = None, baseline: list[str] | None = None,
                verdicts: dict[str, str] | None = None, repo_root: Path | None = None,
                lessons=None) -> DiagnosisContext:
    """`lessons`: this repo's lessons (a LessonSet or list, e.g. sessions.history.repo_lessons); None reads
    CLAUDE.md at repo_root."""
    base = load(baseline) if baseline else None
    skip = list(baseline or [])
    if repo_root is not None and (Path(repo_root) / LESSON_FILE).is_file():
        skip.append(str(Path(repo_root) / LESSON_FILE))   # its lessons are hints (recall.py), never this run's artifacts
    run = load(paths, exclude=skip)
    signals = analyze(run, base, repo_root)
    if base is not None:
        run.warnings += [f"(baseline) {w}" for w in base.warnings]
    known, notes = lessons_for(repo_root, lessons)
    run.warnings += notes
    return DiagnosisContext(run=run, signals=signals, symptoms=list(symptoms or []),
                            verdicts=dict(verdicts or {}), baseline=base, repo_root=repo_root, lessons=known)


def warm() -> None:
    """Load what every diagnosis loads on its first call in a process: the analyzers' modules, the
    playbooks with their compiled patterns, the fitted weights and the word model (~0.3 s, most of it
    regular expressions compiling). A caller with idle time pays it early (the TUI, in its
    file-discovery worker while the user writes debug.md), so the first diagnosis does not."""
    warm_analyzers()
    library.causes()
    library.classes()
    scoring.model()
    scoring.separating_kinds()
    textmodel.model()


def diagnose(paths: list[str], symptoms: list[str] | None = None, baseline: list[str] | None = None,
             verdicts: dict[str, str] | None = None, repo_root: Path | None = None,
             engine: str = "offline", *, notices: list[str] | None = None, on_event=None, cancel=None,
             config=None, task: str | None = None, debug_md=None, lessons=None) -> Diagnosis:
    """Diagnose the run under `paths`. Raises InputError for unusable input.

    engine: "offline", "claude" or "auto" (see claude.select_engine); with Claude the two
    rankings are merged. A line for the user about the engine choice (how to enable Claude)
    is appended to `notices` when given; a Claude run that fell back says so in warnings.
    on_event/cancel/config/task/debug_md go to the Claude engine (progress callback, threading.Event,
    UserConfig, the context package's task, the session's debug.md). The Claude run's record is
    `d.engine_run` (None offline): the caller keeps it (a session's `claude_ran` event).
    lessons: see context_for (the caller passes the sessions' lessons; CLAUDE.md is read otherwise).
    """
    t0 = time.perf_counter()
    ctx = context_for(paths, symptoms, baseline, verdicts, repo_root, lessons)
    if not ctx.run.artifacts:
        why = f" ({ctx.run.warnings[0]})" if ctx.run.warnings else ""
        if not any(s.strip() for s in ctx.symptoms):
            raise InputError(f"{paths[0]}: no readable artifacts found{why}")
        # a post with an error line and no files: the words alone order the causes (never a finding)
        ctx.run.warnings.insert(0, f"{paths[0]}: no readable artifacts found{why}; ranked from your words only")
    d = OfflineEngine().diagnose(ctx)
    if engine != "offline":
        from mltdbg.playbooks.claude import ClaudeEngine, merge, select_engine  # noqa: PLC0415 - the Claude engine loads only when asked for
        eng, notice = select_engine(engine, config)
        if notice:
            if notices is not None:
                notices.append(notice)
            if engine == "claude":   # asked for explicitly: the result itself says it is offline
                d.warnings.insert(0, f"(engine) {notice}")
        if isinstance(eng, ClaudeEngine):
            eng.task, eng.debug_md = task, debug_md
            d = merge(d, eng.diagnose(ctx, on_event=on_event, cancel=cancel, offline=d))
    attach_patches(d, ctx)
    d.run, d.baseline = ctx.run, ctx.baseline   # so views can plot without reading the artifacts again
    d.elapsed_s = time.perf_counter() - t0
    return d


def attach_patches(d: Diagnosis, ctx: DiagnosisContext) -> None:
    """Mechanical fixes as unified diffs, where a playbook names a codemod and a repo is known."""
    root = ctx.repo_root or ctx.run.root
    if not any(h.codemod for h in d.hypotheses):
        return   # (importing the codemods costs ~20 ms of every diagnosis)
    try:
        from mltdbg.playbooks import codemods  # noqa: PLC0415 - loaded only on this path, keeps the common path light
    except ImportError:
        return
    for h in d.hypotheses:
        if not h.codemod:
            continue
        try:
            sig = next((s for s in ctx.signals if s.kind in ("code:" + h.id,)), None)
            p = codemods.propose(h.codemod, Path(root), ctx.run, sig)
        except Exception as e:  # noqa: BLE001 - a codemod that cannot apply is not a failed diagnosis
            d.warnings.append(f"(fix) {h.codemod} could not produce a diff: {type(e).__name__}: {e}")
            continue
        if p is not None:
            h.patch = p.diff
