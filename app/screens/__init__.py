"""One screen per workflow step (sessions.STEPS): capture, diagnose, check, fix, lesson."""
from __future__ import annotations


def screen_for(step: str):
    """A new screen instance for a step name (unknown names show the capture form)."""
    # Deferred, and only the screen asked for: every screen module loads this package first (importing
    # all five here would make each load the others), and the first paint needs one of them.
    if step == "diagnose":
        from mltdbg.app.screens.hypotheses import HypothesesScreen  # noqa: PLC0415 - see the comment above
        return HypothesesScreen()
    if step == "check":
        from mltdbg.app.screens.check import CheckScreen  # noqa: PLC0415 - see the comment above
        return CheckScreen()
    if step == "fix":
        from mltdbg.app.screens.fix import FixScreen  # noqa: PLC0415 - see the comment above
        return FixScreen()
    if step == "lesson":
        from mltdbg.app.screens.lesson import LessonScreen  # noqa: PLC0415 - see the comment above
        return LessonScreen()
    from mltdbg.app.screens.capture import CaptureScreen  # noqa: PLC0415 - see the comment above
    return CaptureScreen()
