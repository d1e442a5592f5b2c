"""The shipped copies of the shared contracts match ../shared when it is there."""
from pathlib import Path

import pytest

from mltdbg.playbooks import library

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
COPIES = REPO / "playbooks" / "contracts"


@pytest.mark.parametrize("name", ["taxonomy.yaml", "diagnosis.schema.json"])
def test_shipped_copy_matches_shared(name):
    if not (SHARED / name).exists():
        # Only a checkout with the shared contracts beside it can compare; CI and this repo's
        # sessions have ../shared, a user testing an installed copy does not.
        pytest.skip("../shared is not beside this checkout (installed elsewhere)")
    assert (COPIES / name).read_bytes() == (SHARED / name).read_bytes(), f"playbooks/contracts/{name} differs from ../shared/{name}"


def test_schema_ids_are_taxonomy_ids():
    ids = set(library.taxonomy()["causes"])
    enum = set(library.diagnosis_schema()["properties"]["root_causes"]["items"]["properties"]["id"]["enum"])
    assert ids == enum and len(ids) == 41


def test_every_cause_has_one_playbook():
    assert set(library.causes()) == set(library.taxonomy()["causes"])
