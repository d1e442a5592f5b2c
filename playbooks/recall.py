"""Lessons in the ranking: what this repo learned before lifts the same cause now, a little.

In:  `DiagnosisContext.lessons` (Lesson records of mltdbg.analyzers.lessons: CLAUDE.md entries and
     earlier sessions' confirmed causes), a cause playbook and the signals that support it.
Out: for OfflineEngine: `facts(ctx)` once per diagnosis, `matches_for(ctx, pb, contrib, facts)`, the capped
     prior bonus `bonus_of(matches)`, `annotate(h, matches, ...)` (evidence items citing the lesson's
     file:line and quote, the earlier check and fix as the first suggestions), `verify(h, ctx)` (lesson
     citations are re-read under the repo root, like any quote) and `hold_back(...)` (a lesson never
     completes a diagnosis on its own); for `diagnose`: `lessons_for(repo_root, given)`.

A lesson is a hint, not proof: it only lifts a cause the artifacts (or the symptom) already put
forward, by at most LESSON_BONUS_CAP log-odds, and a top hypothesis that reaches the complete bar
only thanks to it stays "needs_more_data", asking for the check that settled it last time.
"""
from __future__ import annotations

import math
import re
from typing import Any

from mltdbg.analyzers.lessons import (Facts, Lesson, LessonMatch, LessonSet, facts_of, infer_causes, match,
                                      read_claude_md)
from mltdbg.analyzers.model import Evidence, Run
from mltdbg.playbooks import library
from mltdbg.playbooks.verify import Verifier

# Log-odds a matching lesson of a confirmed cause adds (x1.65 on the prior), and the most all
# matching lessons together may add (x2.7): enough to break a tie between confusable causes,
# never enough to outvote a decisive signal (those weigh 3-6).
LESSON_BONUS = 0.5
LESSON_BONUS_CAP = 1.0
# A lesson matched only by its words (not by the cause id a session recorded) counts half.
WORDS_ONLY_FACTOR = 0.5
# Lesson citations per hypothesis.
MAX_LESSON_EVIDENCE = 2
_TEST = re.compile(r"\bAdded (test_\w+)")


def lessons_for(repo_root, given: Any) -> tuple[list[Lesson], list[str]]:
    """The lessons to use and notes for the user: `given` (a LessonSet or a list, from a caller that
    also read the sessions) or else CLAUDE.md at the repo root."""
    if given is None:
        given = read_claude_md(repo_root) if repo_root is not None else LessonSet()
    if isinstance(given, LessonSet):
        return list(given.lessons), [f"(lessons) {n}" for n in given.notes]
    return list(given), []


def facts(ctx) -> Facts | None:
    return facts_of(ctx.run, ctx.signals) if getattr(ctx, "lessons", None) else None


def matches_for(ctx, pb, contrib, fx: Facts | None) -> list[LessonMatch]:
    """The repo's lessons that fit this cause, best first."""
    if not getattr(ctx, "lessons", None) or fx is None:
        return []
    kinds = [s.kind for c, s in contrib if c > 0]
    out = []
    for ls in ctx.lessons:
        if ls.inferred is None:
            ls.inferred = infer_causes(ls.text, cause_words())
        m = match(ls, pb.id, fx, kinds)
        if m is not None:
            out.append(m)
    out.sort(key=lambda m: (-(pb.id in m.lesson.cause_ids), -m.score))
    return out


def cause_words() -> dict:
    """cause id -> (title, its symptom reader: text -> patterns matched): what infer_causes reads a
    lesson's words against (the lessons panel too)."""
    return {pb.id: (pb.title, pb.symptom_hits) for pb in library.causes().values()}


def bonus_of(matches: list[LessonMatch]) -> float:
    """The capped prior bonus of a cause's matching lessons (confirmed causes only)."""
    b = 0.0
    for m in matches:
        if m.lesson.confirmed and m.same_cause:
            b += LESSON_BONUS * (1.0 if m.lesson.cause_ids else WORDS_ONLY_FACTOR)
    return min(LESSON_BONUS_CAP, b)


def annotate(h, matches: list[LessonMatch], bonus: float, share, max_evidence: int) -> None:
    """Lesson evidence on the hypothesis, the earlier check and fix first, and its confidence without
    the lesson (`h.confidence_without_lessons`) for hold_back. `share`: the engine's confidence of a
    score (its softmax over this diagnosis's scores)."""
    if not matches:
        return
    ev = []
    for i, m in enumerate(matches[:MAX_LESSON_EVIDENCE]):
        words = m.words()
        if i == 0 and bonus > 0:
            words += f"; prior x{math.exp(bonus):.1f} for this repo (a lesson is a hint, not proof)"
        ev.append(Evidence(text=words, source=m.lesson.source, line=m.lesson.line, quote=m.lesson.quote))
    keep = max(1, max_evidence - len(ev))
    h.evidence = h.evidence[:keep] + ev
    h.lessons = [m.lesson for m in matches]
    first = next((m.lesson for m in matches if m.lesson.check or m.lesson.fix), None) or matches[0].lesson
    if first.check:
        h.check = f"The check that settled it on {first.when} ({first.where}): {first.check}. Otherwise: {h.check}"
        if first.check_command and not h.check_command:
            h.check_command = first.check_command
    else:
        t = _TEST.search(first.text)
        if t:
            h.check = (f"Seen before ({first.when}, {first.where}): run the test added then, "
                       f"`python -m pytest -q -k {t.group(1)}`. Then: {h.check}")
            if not h.check_command:
                h.check_command = f"python -m pytest -q -k {t.group(1)}"
    if first.fix:
        h.fix = f"What fixed it on {first.when}{f' (commit {first.commit})' if first.commit else ''}: {first.fix}. {h.fix}"
    if bonus > 0:   # the same softmax with this cause's score less the bonus
        with_b, without = share(h.score), share(h.score - bonus)
        h.confidence_without_lessons = without / (1.0 - with_b + without)


def verify(h, ctx) -> None:
    """Lesson citations live at the repo root (CLAUDE.md, .mltdbg/sessions/...): re-read them there."""
    root = getattr(ctx, "repo_root", None)
    if root is None:
        return
    todo = [e for e in h.evidence if not e.verified and e.source and e.quote
            and any(e.source == ls.source and e.line == ls.line for ls in getattr(h, "lessons", []) or [])]
    if todo:
        Verifier(Run(root=root)).verify(todo)


def hold_back(hyps: list, status: str, needs: list[str], complete_at: float) -> tuple[str, list[str]]:
    """A top hypothesis over the complete bar only thanks to a lesson stays needs_more_data."""
    if status != "diagnosis_complete" or not hyps:
        return status, needs
    h = hyps[0]
    w = getattr(h, "confidence_without_lessons", None)
    if w is None or w >= complete_at:
        return status, needs
    ls = h.lessons[0] if getattr(h, "lessons", None) else None
    when = f" (it was the cause on {ls.when}, {ls.where}; a lesson is a hint, not proof)" if ls else ""
    return "needs_more_data", [f"the result of the check for {h.id}{when}"] + list(needs)
