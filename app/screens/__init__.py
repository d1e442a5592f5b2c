"""One screen per workflow step (sessions.STEPS): capture, diagnose, check, fix, lesson."""
from __future__ import annotations


def screen_for(step: str):
    """A new screen instance for a step name (unknown names show the capture form)."""
    from .capture import CaptureScreen
    from .check import CheckScreen
    from .fix import FixScreen
    from .hypotheses import HypothesesScreen
    from .lesson import LessonScreen
    return {"capture": CaptureScreen, "diagnose": HypothesesScreen, "check": CheckScreen,
            "fix": FixScreen, "lesson": LessonScreen}.get(step, CaptureScreen)()
