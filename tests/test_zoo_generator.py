"""The fault zoo: the generator really trains and writes parseable artifacts,
deterministically; the committed cases are well-formed and cover the taxonomy."""
from __future__ import annotations

import csv
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

ZOO = Path(__file__).parent / "zoo"
CASES = ZOO / "cases"
QUICK = ["sched_steplr_per_batch_csv", "double_softmax_cnn_tb"]   # a CSV case and a TensorBoard-only case


def _taxonomy_ids() -> set[str]:
    from mltdbg.playbooks.library import taxonomy   # the shipped copy (a test keeps it equal to ../shared)
    return set(taxonomy()["causes"])


def _make(out: Path, names: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ZOO / "make_zoo.py"), "--only", ",".join(names), "--out", str(out),
                           "--jobs", "2"], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("zoo")
    r = _make(out, QUICK)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def test_generator_writes_csv_case_with_its_bug_and_label(generated):
    case = generated / "sched_steplr_per_batch_csv"
    meta = yaml.safe_load((case / "case.yaml").read_text())
    assert meta["expected"] == "lr_schedule_bug" and meta["split"] == "tune"
    # the injected bug is in the shipped code: the scheduler steps inside the batch loop
    code = (case / "train.py").read_text()
    assert "scheduler.step()" in code and "StepLR" in code
    rows = list(csv.DictReader((case / "logs/train_metrics.csv").open()))
    assert list(rows[0]) == ["step", "epoch", "loss", "lr", "grad_norm"]
    lrs = [float(r["lr"]) for r in rows]
    # the real run shows what the bug does: lr collapses by many orders of magnitude
    assert lrs[0] >= 1e-3 and lrs[-1] < 1e-12
    val = list(csv.DictReader((case / "logs/val_metrics.csv").open()))
    assert len(val) == yaml.safe_load((case / "config.yaml").read_text())["epochs"]


def test_generator_writes_tensorboard_case_readable_by_tensorboard(generated):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    case = generated / "double_softmax_cnn_tb"
    files = list((case / "tb").glob("events.out.tfevents.*"))
    assert len(files) == 1 and ".gpu-node-07.31337." in files[0].name
    ea = EventAccumulator(str(files[0]))
    ea.Reload()
    tags = set(ea.Tags()["scalars"])
    assert {"train/total_loss", "optim/gnorm", "optim/lr-AdamW", "eval/total_loss"} <= tags
    loss = [e.value for e in ea.Scalars("train/total_loss")]
    assert len(loss) >= 20 and all(v == v for v in loss)   # finite, no NaN


def test_generated_text_has_no_build_paths(generated):
    for p in generated.rglob("*"):
        if p.is_file() and "tfevents" not in p.name:
            text = p.read_text(errors="replace")
            assert "zoo_build_" not in text and str(generated) not in text, p
            assert "/work/main" not in text, p


def test_generator_is_deterministic(generated, tmp_path):
    r = _make(tmp_path, QUICK[:1])
    assert r.returncode == 0, r.stdout + r.stderr
    a, b = generated / QUICK[0], tmp_path / QUICK[0]
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_unknown_case_name_is_refused(tmp_path):
    r = _make(tmp_path, ["no_such_case"])
    assert r.returncode == 2 and "unknown case" in r.stderr


# ---------------------------------------------------------------------------
# The committed cases
# ---------------------------------------------------------------------------

def _committed() -> list[tuple[Path, dict]]:
    assert CASES.exists(), "tests/zoo/cases is missing: run tests/zoo/make_zoo.py"
    return [(d, yaml.safe_load((d / "case.yaml").read_text())) for d in sorted(CASES.iterdir()) if d.is_dir()]


def test_every_case_yaml_is_well_formed():
    ids = _taxonomy_ids()
    for d, meta in _committed():
        assert meta["split"] in ("tune", "holdout"), d.name
        assert ("expected" in meta) != bool(meta.get("healthy")), d.name
        if "expected" in meta:
            assert meta["expected"] in ids, d.name
        assert set(meta.get("also_acceptable", [])) <= ids, d.name
        assert meta["symptom_kind"] in ("honest", "misleading", "none")
        assert (meta["symptom"] is None) == (meta["symptom_kind"] == "none"), d.name
        assert meta["notes"], d.name
        for a in meta["args"]:
            if not a.startswith("--"):
                assert (d / a).exists(), (d.name, a)
        code = [p for p in d.rglob("*.py") if p.name != "conftest.py"]
        assert code, f"{d.name}: no training code"


def test_coverage_of_the_taxonomy():
    ids = _taxonomy_ids()
    by = defaultdict(set)
    healthy = 0
    cases = _committed()
    for _, meta in cases:
        if meta.get("healthy"):
            healthy += 1
        else:
            by[meta["expected"]].add(meta["split"])
    missing = [i for i in ids if by.get(i) != {"tune", "holdout"}]
    assert not missing, f"causes without a tune and a hold-out case: {missing}"
    assert healthy >= 6
    kinds = [m["symptom_kind"] for _, m in cases]
    assert kinds.count("misleading") >= 0.08 * len(kinds)
    assert kinds.count("none") >= 0.2 * len(kinds)


def test_cases_are_small_and_hold_no_weights():
    for d, _ in _committed():
        files = [p for p in d.rglob("*") if p.is_file()]
        assert sum(p.stat().st_size for p in files) < 300 * 1024, d.name
        assert not [p for p in files if p.suffix in (".pt", ".pth", ".ckpt", ".safetensors")], d.name


def test_repo_bundles_clone_with_good_then_refactor_commit(tmp_path):
    bundles = [(d, m) for d, m in _committed() if m.get("repo_bundle") and "--baseline" in m["args"]]
    assert len(bundles) >= 8
    for d, meta in bundles:
        assert meta["args"] == ["--baseline", "baseline_run"] and (d / "baseline_run").is_dir()
        dest = tmp_path / d.name
        subprocess.run(["git", "clone", "-q", str(d / meta["repo_bundle"]), str(dest)], check=True)
        log = subprocess.run(["git", "log", "--format=%s"], cwd=dest, capture_output=True, text=True, check=True)
        assert len(log.stdout.splitlines()) == 2, d.name
        # the refactor commit's code is what the case folder ships
        for p in dest.rglob("*.py"):
            assert p.read_text() == (d / p.relative_to(dest)).read_text(), (d.name, p.name)
