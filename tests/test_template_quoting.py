"""Check templates are filled shell-quoted: a hostile file name stays one argument (playbooks/engine.py
`_fill`), and test templates take only Python names (sessions/fixgate.py `fill_template`)."""
from __future__ import annotations

import shlex
import subprocess
import sys

from mltdbg.playbooks.diagnose import diagnose
from mltdbg.playbooks.engine import _fill
from mltdbg.sessions.fixgate import fill_template

EVIL = "train;touch PWNED;#.py"
TRACEBACK = """step 1 loss 2.30
Traceback (most recent call last):
  File "train.py", line 40, in <module>
    loss = criterion(logits, targets)
IndexError: Target 10 is out of bounds.
"""


def test_fill_quotes_every_placeholder_of_a_command():
    cmd = _fill("python {script} --lr {half_lr}", {"script": EVIL, "half_lr": "0.0005"}, shell=True)
    assert shlex.split(cmd) == ["python", EVIL, "--lr", "0.0005"]
    assert cmd == "python 'train;touch PWNED;#.py' --lr 0.0005"        # plain values stay as they read
    assert _fill("fix {script}", {"script": EVIL}) == f"fix {EVIL}"      # prose is not a command: no quotes


def test_a_hostile_script_name_stays_one_argument_when_the_check_runs(tmp_path):
    (tmp_path / EVIL).write_text('# loss.backward()\nprint("script ran")\n', encoding="utf-8")
    (tmp_path / "train.log").write_text(TRACEBACK, encoding="utf-8")
    d = diagnose([str(tmp_path)], engine="offline")
    cmds = [h.check_command for h in d.hypotheses if h.check_command and "touch" in h.check_command]
    assert cmds, [h.check_command for h in d.hypotheses]
    # run it as the check runner does (/bin/sh), with this interpreter standing in for `python`
    cmd = cmds[0].replace("python ", f"{shlex.quote(sys.executable)} ", 1)
    p = subprocess.run(cmd, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "script ran" in p.stdout, (cmd, p.stderr)
    assert not (tmp_path / "PWNED").exists()


def test_test_templates_take_python_names_only():
    tpl = "from {module} import build_model\n"
    assert fill_template(tpl, {"module": "pkg.train"}) == "from pkg.train import build_model\n"
    hostile = "x; import os; os.system('touch PWNED')"
    assert fill_template(tpl, {"module": hostile}) == tpl       # left for the user to fill, never code
