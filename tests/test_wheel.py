"""The wheel holds every module and every package-data file (a subpackage missing
from pyproject's `packages` is silently dropped from the wheel while the editable
install still imports it)."""
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOP = {"app": "mltdbg/app", "analyzers": "mltdbg/analyzers", "playbooks": "mltdbg/playbooks", "sessions": "mltdbg/sessions"}
DATA_SUFFIXES = (".py", ".yaml", ".json", ".tcss", ".md", ".log")


def _expected() -> set[str]:
    out = set()
    for folder, pkg in TOP.items():
        for p in (REPO / folder).rglob("*"):
            if not p.is_file() or "__pycache__" in p.parts or p.suffix not in DATA_SUFFIXES:
                continue
            rel = p.relative_to(REPO / folder)
            if folder == "app" and rel.parts[:1] == ("demo",) and p.name.endswith(".pyc"):
                continue
            out.add(f"{pkg}/{rel.as_posix()}")
    return out


def test_wheel_contains_every_module_and_data_file(tmp_path):
    r = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path), str(REPO)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    wheel = next(tmp_path.glob("*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(_expected() - names)
    assert not missing, f"missing from the wheel: {missing[:20]}"
    assert not any(n.startswith("mltdbg/__init__") for n in names), "mltdbg must stay a namespace package"
