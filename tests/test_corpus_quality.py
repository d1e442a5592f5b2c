"""Diagnosis quality on the real-failure corpus (tests/realworld), as regression floors.

Floors sit a little under the measured values (numbers in the issue note); the held-aside
part is far below the issue's targets (top-1 0.75 / top-3 0.90 / p80 0.90): these floors
guard against regressions, they do not claim the targets. New held-aside cases are scored by an
engine that never learned from them and are often harder than the older ones, so a batch can lower
the part's numbers with no change to the engine (batch 27: 0.559 / 0.754 -> 0.550 / 0.747); the
floors then move down with the data (the new cases, and the refit on the tune part that the fixed
procedure makes with them: batch 42, 0.539 -> 0.533 from its 21 held-aside cases, 0.533 -> 0.526 after
its refit; batch 52, 0.542 -> 0.535 from its 42 held-aside cases, 0.535 -> 0.522 after its refit), never to
cover a change to the engine's rules or readings."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from evaluate import evaluate, load_corpus  # noqa: E402


@pytest.fixture(scope="module")
def results():
    return evaluate("corpus")


def test_corpus_is_there_and_split_by_source():
    tune, held = load_corpus("tune"), load_corpus("heldaside")
    assert len(tune) + len(held) >= 150
    assert len(held) / (len(tune) + len(held)) >= 0.40
    from evaluate import split_key
    assert not {split_key(c) for _, c in tune} & {split_key(c) for _, c in held}


def test_tune_part_floor(results):
    r = results["corpus-tune"]
    assert r["top1"] >= 0.84 and r["top3"] >= 0.95


def test_held_aside_part_floor(results):
    r = results["corpus-heldaside"]
    assert r["top1"] >= 0.51 and r["top3"] >= 0.71


def test_confident_answers_are_mostly_right(results):
    for part in ("corpus-tune", "corpus-heldaside"):
        r = results[part]
        if r["n80"]:
            assert r["p80"] >= 0.75, part


def test_phrasebook_records_are_valid_and_held_aside_projects_are_left_out():
    """tests/realworld/phrases/*.jsonl: training text for the word model (scripts/fit_weights.py).
    Every record names a taxonomy id and a source; the fit keeps only tune-part projects."""
    import json

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import fit_weights
    from evaluate import corpus_split

    from mltdbg.playbooks import library
    ids = set(library.causes())
    records = [json.loads(line) for f in sorted(fit_weights.PHRASES.glob("*.jsonl"))
               for line in f.read_text("utf-8").splitlines() if line.strip()]
    assert records
    for r in records:
        assert r["truth"] in ids and set(r.get("acceptable") or []) <= ids, r
        assert r["symptom"].strip() and r["source"].strip(), r
    kept = fit_weights.phrases()
    assert len(kept) == sum(1 for r in records if corpus_split(r) == "tune") < len(records)
