"""The benchmark-style scenario runs (tests/realworld/scenarios: real CPU trainings with planted faults, in the
shapes other projects ship them) stay diagnosed: most runs right, and no confident wrong answer (every
answer at >= 0.8 names the planted cause). Floors, not the current score: refits move single runs."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import evaluate_scenarios  # noqa: E402

SETS = sorted(p.parent for p in evaluate_scenarios.ROOT.glob("*/*/truth.json"))


def test_there_are_scenario_sets():
    assert len(SETS) >= 3


@pytest.mark.parametrize("folder", SETS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_scenarios_are_mostly_right_and_never_confidently_wrong(folder):
    r = evaluate_scenarios.score_set(folder)
    assert r["right"] >= r["runs"] - 3, r
    assert r["confident_right"] == r["confident"], r
