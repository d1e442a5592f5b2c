"""The layer contracts (pyproject.toml [tool.importlinter]) hold, every import counted:
import-linter reads the source, so an import inside a function cannot hide a cycle."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_hold():
    exe = Path(sys.executable).with_name("lint-imports")
    r = subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "2 kept, 0 broken" in r.stdout


def test_a_broken_layer_is_reported(tmp_path):
    """The checker is live: a contract that the tree breaks (analyzers above app) fails."""
    cfg = tmp_path / "il.toml"
    cfg.write_text('[tool.importlinter]\nroot_packages = ["mltdbg"]\n\n[[tool.importlinter.contracts]]\n'
                   'name = "inverted"\ntype = "layers"\nlayers = ["mltdbg.analyzers", "mltdbg.app"]\n')
    exe = Path(sys.executable).with_name("lint-imports")
    r = subprocess.run([str(exe), "--no-cache", "--config", str(cfg)], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode != 0 and "BROKEN" in r.stdout
