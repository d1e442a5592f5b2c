"""`mltdbg skill install|uninstall`: the Claude Code skill, its read-only specialist agent and the
references generated from the playbooks. Real files in tmp folders, the real CLI in a subprocess."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mltdbg.playbooks import library
from mltdbg.playbooks.skill import (
    AGENT_NAME,
    MANIFEST,
    SKILL_NAME,
    SkillError,
    claude_dir,
    install,
    render,
    uninstall,
)

REPO = Path(__file__).resolve().parents[1]
SKILL = f"skills/{SKILL_NAME}/SKILL.md"
AGENT = f"agents/{AGENT_NAME}.md"


def _cli(args, cwd, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    e.update(env)
    return subprocess.run([sys.executable, "-m", "mltdbg.app.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=e, timeout=120)


def _frontmatter(text: str) -> dict:
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert m, text[:200]
    return yaml.safe_load(m.group(1))


def test_the_files_parse_and_say_what_claude_code_reads():
    files = render()
    assert set(files) == {SKILL, AGENT, *(f"skills/{SKILL_NAME}/references/{n}.md" for n in
                                         ("common-failure-modes", "debugging-checklist", "fix-templates"))}
    skill = _frontmatter(files[SKILL])
    assert skill["name"] == SKILL_NAME and re.fullmatch(r"[a-z0-9-]{1,64}", skill["name"])
    assert 50 < len(skill["description"]) <= 1024 and "training" in skill["description"]
    agent = _frontmatter(files[AGENT])
    assert agent["name"] == AGENT_NAME and agent["description"]
    tools = {t.strip() for t in agent["tools"].split(",")}
    assert tools and not tools & {"Write", "Edit", "MultiEdit", "NotebookEdit"}     # read-only
    for rel, text in files.items():
        assert text.count("```") % 2 == 0, rel                  # every code block is closed
    # The context package the skill writes is the spec's, and what `diagnose --context` reads.
    block = re.search(r"```json\n(.*?)```", files[SKILL], re.S).group(1)
    pkg = json.loads(block)
    assert set(pkg) == {"task", "artifacts", "symptoms", "constraints"} and "max_analysis_time" in pkg["constraints"]


def test_the_references_come_from_the_playbooks():
    files = render()
    modes = files[f"skills/{SKILL_NAME}/references/common-failure-modes.md"]
    fixes = files[f"skills/{SKILL_NAME}/references/fix-templates.md"]
    checklist = files[f"skills/{SKILL_NAME}/references/debugging-checklist.md"]
    for pb in library.causes().values():
        assert f"`{pb.id}`" in modes and f"`{pb.id}`" in fixes and f"`{pb.id}`" in checklist
        assert pb.fix.split(".")[0] in fixes
    for c in library.classes().values():
        assert f"## {c.title}" in modes and c.title in files[SKILL]
    for cid in library.taxonomy()["causes"]:
        assert f"`{cid}`" in files[AGENT]                        # the agent uses the engine's cause ids
    assert render() == files                                      # regenerating gives identical files


def test_every_command_line_the_files_mention_runs(tmp_path):
    text = "\n".join(render().values())
    code = "\n".join(re.findall(r"```[a-z]*\n(.*?)```", text, re.S))        # code blocks, then inline code
    lines = re.findall(r"(?m)^(mltdbg(?: [a-z][a-z-]*)+)", code) + re.findall(r"`(mltdbg(?: [a-z][a-z-]*)+)", text)
    chains = {tuple(x.split()[1:]) for x in lines}
    assert {("diagnose",), ("sessions", "export"), ("probe",)} <= chains
    missing = []
    for chain in sorted(chains):
        r = _cli([*chain, "--help"], cwd=tmp_path)
        if r.returncode != 0:
            missing.append(chain)
            assert "invalid choice" in r.stderr, r.stderr
        else:
            assert "usage: mltdbg" in r.stdout
    # `mltdbg probe` is being built as its own part of mltdbg; until it lands it is the only command the skill
    # may name that this CLI lacks (the skill says "when your mltdbg has it"). Everything else must run.
    assert all(c[0] == "probe" for c in missing), missing


def test_install_is_idempotent_and_uninstall_removes_exactly_what_it_wrote(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "sub").mkdir()
    base = claude_dir("project", cwd=proj / "sub")
    assert base == proj.resolve() / ".claude"
    (base).mkdir()
    (base / "settings.json").write_text("{}\n")                  # the user's own file
    r = install(base)
    assert sorted(r.written) == sorted(render()) and (base / MANIFEST).is_file()
    for rel, text in render().items():
        assert (base / rel).read_text("utf-8") == text
    snapshot = {p: p.read_bytes() for p in base.rglob("*") if p.is_file()}
    r = install(base)                                             # again: nothing changes
    assert r.written == [] and sorted(r.unchanged) == sorted(render())
    assert {p: p.read_bytes() for p in base.rglob("*") if p.is_file()} == snapshot
    r = uninstall(base)
    assert sorted(r.removed) == sorted(render()) and not r.kept
    assert sorted(p.relative_to(base).as_posix() for p in base.rglob("*")) == ["settings.json"]
    with pytest.raises(SkillError, match="no mltdbg skill is installed"):
        uninstall(base)


def test_nothing_is_overwritten_without_force(tmp_path):
    base = tmp_path / ".claude"
    mine = base / SKILL
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nname: ml-training-debugger\ndescription: my own\n---\nmine\n")
    with pytest.raises(SkillError, match=re.escape(str(mine))):
        install(base)
    assert mine.read_text().endswith("mine\n") and not (base / AGENT).exists()      # nothing written at all
    install(base, force=True)
    assert mine.read_text() == render()[SKILL]
    # A file changed after install is kept by uninstall, and still listed so that --force removes it.
    (base / AGENT).write_text("edited by hand\n")
    r = uninstall(base)
    assert r.kept == [AGENT] and (base / AGENT).read_text() == "edited by hand\n" and not mine.exists()
    r = uninstall(base, force=True)
    assert r.removed == [AGENT] and not (base / AGENT).exists()


def test_cli_user_scope_and_errors(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    r = _cli(["skill", "install", "--user"], cwd=tmp_path, HOME=str(home))
    assert r.returncode == 0, r.stderr
    assert (home / ".claude" / SKILL).is_file() and (home / ".claude" / AGENT).is_file()
    (home / ".claude" / AGENT).write_text("x\n")
    (home / ".claude" / MANIFEST).unlink()                       # no longer ours: install must not overwrite it
    r = _cli(["skill", "install", "--user"], cwd=tmp_path, HOME=str(home))
    assert r.returncode == 2 and r.stderr.startswith("mltdbg: error: ") and "--force" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    r = _cli(["skill", "install", "--user", "--force"], cwd=tmp_path, HOME=str(home))
    assert r.returncode == 0 and (home / ".claude" / AGENT).read_text() == render()[AGENT]
    r = _cli(["skill", "uninstall", "--user"], cwd=tmp_path, HOME=str(home))
    # Every file is gone; folders are removed only where this install created them (the first one did).
    assert r.returncode == 0 and not [p for p in (home / ".claude").rglob("*") if p.is_file()]
    r = _cli(["skill", "uninstall", "--user"], cwd=tmp_path, HOME=str(home))
    assert r.returncode == 2 and "no mltdbg skill is installed" in r.stderr
