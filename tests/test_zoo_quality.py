"""Diagnosis quality on the fault zoo, as regression floors (numbers in the issue note).

The floors sit a little under the measured values so an honest change in one detector
does not break the build, while a broken reader, analyzer or playbook does."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from evaluate_zoo import evaluate  # noqa: E402


@pytest.fixture(scope="module")
def results():
    return evaluate("all")


def test_zoo_is_there():
    from evaluate_zoo import load_cases
    assert len(load_cases("tune")) >= 40 and len(load_cases("holdout")) >= 30


def test_healthy_runs_raise_no_critical_cause(results):
    assert all(r["false_alarms"] == 0 for r in results.values())


def test_tune_split_ranking(results):
    assert results["tune"]["top1"] >= 0.9 and results["tune"]["top3"] >= 0.95


def test_holdout_split_ranking(results):
    assert results["holdout"]["top1"] >= 0.8 and results["holdout"]["top3"] >= 0.9


def test_confidence_is_calibrated_at_the_complete_bar(results):
    for r in results.values():
        if r["given_0.8"]:
            assert r["right_at_0.8"] >= 0.8
