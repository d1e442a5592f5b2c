"""Skill references never show raw `{placeholder}` braces: real names where known, readable generic ones else."""
from __future__ import annotations

import re

from mltdbg.playbooks import library
from mltdbg.playbooks.skill import GENERIC_NAMES, placeholders_left, readable, render

_ANY = re.compile(r"\{(\w+)\}")
_FSTR = re.compile(r"""\bf(["'])""")


def _outside_fstrings(text: str) -> list[str]:
    """Every `{word}` in text, leaving out the fields of Python f-strings (the code's own braces)."""
    out = []
    for line in text.split("\n"):
        m = _FSTR.search(line)
        out += _ANY.findall(line[:m.start()] if m else line)
    return out


def _playbook_texts():
    for pb in library.causes().values():
        for name in ("check", "check_command", "fix", "lesson", "test_template", "issue"):
            yield f"{pb.id}.{name}", getattr(pb, name, None) or ""
        for i, n in enumerate(pb.needs):
            yield f"{pb.id}.needs[{i}]", n
    for c in library.classes().values():
        yield f"{c.id if hasattr(c, 'id') else c.title}.instrumentation", c.instrumentation or ""
        for i, h in enumerate(c.hypotheses):
            yield f"{c.title}.hypotheses[{i}].check", h.get("check", "") or ""


def test_every_playbook_placeholder_has_a_readable_name():
    unknown = {f"{where}: {{{n}}}" for where, text in _playbook_texts() for n in _outside_fstrings(text)
               if n not in GENERIC_NAMES}
    assert not unknown, f"placeholders the skill cannot name: {sorted(unknown)[:10]}"


def test_no_placeholder_braces_reach_the_skill_files():
    used = {n for _, text in _playbook_texts() for n in _outside_fstrings(text)}
    assert {"script", "module", "top_signal"} <= used      # the playbooks do use them (the test can fail)
    for path, text in render().items():
        left = [n for n in _outside_fstrings(text) if n in used]
        assert not left, f"{path} still shows {left}"
        assert not placeholders_left(text), path
    refs = "".join(render().values())
    assert "python <your training script>" in refs
    assert "from <your training module> import" in refs


def test_every_playbook_field_renders_without_braces():
    for where, text in _playbook_texts():
        out = readable(text)
        assert not [n for n in _outside_fstrings(out) if n in GENERIC_NAMES], where


def test_real_names_win_and_fstrings_stay():
    assert readable("python {script} --lr {half_lr}", {"script": "train.py"}, code=True) == \
        "python train.py --lr <half your learning rate>"
    assert readable("check {model} first") == "check your model first"
    line = 'print(f"step={step} loss={loss.item():.4f}")'
    assert readable(line, code=True) == line
    files = render({"script": "fit.py", "module": "mypkg.train"})
    assert "from mypkg.train import" in files["skills/ml-training-debugger/references/fix-templates.md"]
