"""Which python the user's code runs with (sessions.interpreter), on real virtualenvs and real subprocesses."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mltdbg.sessions.checks import CheckRun
from mltdbg.sessions.interpreter import command_python, python_env, user_python


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("env") / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(d)], check=True)
    return d


def test_the_order_explicit_command_virtualenv_conda_path(venv, tmp_path):
    py = str(venv / "bin" / "python")
    bare = {"PATH": str(Path(sys.executable).parent)}
    assert user_python(py, "python train.py", bare).source == "--python"
    assert user_python(None, f"CUDA_VISIBLE_DEVICES=0 {py} train.py", bare) == user_python(None, f"{py} x.py", bare)
    assert user_python(None, f"{py} train.py", bare).path == py
    assert user_python(None, ".venv/bin/python train.py", bare, cwd=venv.parent).path == py
    assert user_python(None, "python train.py", {**bare, "VIRTUAL_ENV": str(venv)}).source == "VIRTUAL_ENV"
    assert user_python(None, "python train.py", {**bare, "CONDA_PREFIX": str(venv)}).path == py
    assert user_python(None, "python train.py", bare).source == "PATH"
    assert user_python(None, "python train.py", {"PATH": str(tmp_path)}).path is None
    assert command_python("python train.py") is None and command_python("./train.sh") is None
    with pytest.raises(ValueError, match="--python /no/such/python: not an executable file"):
        user_python("/no/such/python")


def test_python_in_a_check_is_the_users_interpreter(venv, tmp_path):
    py = user_python(None, "python x.py", {"PATH": "/usr/bin:/bin", "VIRTUAL_ENV": str(venv)})
    env = python_env(py, tmp_path / "shim", {"PATH": "/usr/bin:/bin"})
    r = CheckRun('python -c "import sys; print(sys.prefix)"; python3 -c "import sys; print(sys.prefix)"',
                 tmp_path, 30, env=env).run()
    assert r.passed and r.output.split() == [str(venv)] * 2     # the venv itself, not the base interpreter
    assert env["VIRTUAL_ENV"] == str(venv)
