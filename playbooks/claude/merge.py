"""One ranking from both engines: `merge(offline, claude) -> Diagnosis` (engine "merged").

In: the offline diagnosis and the Claude engine's (which may be a fallback: then it
is returned unchanged). Out: at most 5 hypotheses, best first, each keeping the engine
that named it ("offline+claude" when both did), with the status recomputed from the
top confidence (COMPLETE_AT) and the needs, quick fixes and warnings of both.
"""
from __future__ import annotations

import copy

from mltdbg.playbooks.engine import COMPLETE_AT, Diagnosis, Hypothesis


def merge(offline: Diagnosis, claude: Diagnosis) -> Diagnosis:
    """One ranking of both engines' hypotheses, best first (at most 5).

    Each hypothesis keeps its `engine`; a cause both engines name is shown once, with
    engine "offline+claude", the higher confidence and the evidence of both. When the
    Claude run fell back (its engine is not "claude"), its result is returned as is. The
    Claude run's record (`engine_run`) stays with the merged result.
    """
    if claude.engine != "claude":
        return claude
    by_id: dict[str, Hypothesis] = {}
    for h in [*offline.hypotheses, *claude.hypotheses]:
        if h.id not in by_id:
            by_id[h.id] = copy.copy(h)
            continue
        a = by_id[h.id]
        best, other = (a, h) if a.confidence >= h.confidence else (copy.copy(h), a)
        seen = {(e.source, e.line, e.step, e.metric) for e in best.evidence}
        best.evidence = list(best.evidence) + [e for e in other.evidence if (e.source, e.line, e.step, e.metric) not in seen]
        best.engine = "offline+claude"
        best.patch = best.patch or other.patch
        best.codemod = best.codemod or other.codemod   # the offline codemod still produces a diff
        by_id[h.id] = best
    ranked = sorted(by_id.values(), key=lambda h: -h.confidence)[:5]
    top = ranked[0].confidence if ranked else 0.0
    if top >= COMPLETE_AT:
        status = "diagnosis_complete"
    elif offline.status == "no_issue_found" and claude.status == "no_issue_found":
        status = "no_issue_found"
    else:
        status = "needs_more_data"
    needs = list(dict.fromkeys([*claude.needs, *offline.needs])) if status == "needs_more_data" else []
    if status == "needs_more_data" and not needs:
        needs = [f"the result of the check for {ranked[0].id}" if ranked else "a training log with loss per step"]
    return Diagnosis(status=status, hypotheses=ranked, engine_run=claude.engine_run,
                     quick_fixes=list(dict.fromkeys([*claude.quick_fixes, *offline.quick_fixes]))[:5],
                     needs=needs[:8], warnings=list(dict.fromkeys([*claude.warnings, *offline.warnings])),
                     engine="merged", elapsed_s=max(offline.elapsed_s, claude.elapsed_s), signals=offline.signals)
