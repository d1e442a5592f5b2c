"""The one sanitiser (analyzers/common/sanitize.py): hostile text from tests/adversarial/ stays text,
in the sanitiser itself, in Textual and Rich markup, and at the CLI's print paths."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.text import Text
from textual.content import Content

from mltdbg.analyzers.common.sanitize import escape_markup, json_visible, one_line, visible

ADV = Path(__file__).resolve().parent / "adversarial"
TERMINAL = json.loads((ADV / "terminal.json").read_text(encoding="utf-8"))
MARKUP = (ADV / "markup.txt").read_text(encoding="utf-8").splitlines()
# What a terminal may obey rather than show: C0 (less newline and tab), DEL, C1, bidi, separators, surrogates.
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.mark.parametrize("case", TERMINAL, ids=[c["name"] for c in TERMINAL])
def test_terminal_attacks_are_shown_not_obeyed(case):
    text = case["text"]
    out = visible(text)
    assert not OBEYED.search(out), repr(out)
    out.encode("utf-8")                                  # printable on a UTF-8 terminal (no lone surrogate)
    assert out.count("\n") == text.replace("\r\n", "\n").count("\n")  # kept newlines stay where they were
    if "\x1b" in text:
        assert "^[" in out                               # ESC in the caret form users know from cat -v
    flat = one_line(text)
    assert "\n" not in flat and not OBEYED.search(flat) and "\t" not in flat


def test_each_form():
    assert visible("\x1b[31mred") == "^[[31mred"
    assert visible("a\rb") == "a^Mb" and visible("a\r\nb") == "a\nb"
    assert visible("\x00\x7f\x9b") == "^@^?\\x9b"
    assert visible("x\u202ey") == "x\\u202ey"
    assert visible("run\udcff.log") == "run\\xff.log"        # the undecodable byte of the file name
    assert visible("a\tb\nc", keep="") == "a^Ib^Jc"
    assert visible("a\nb", newline="\\n") == "a\\nb"
    assert one_line("python a.py\n" * 3) == "python a.py⏎python a.py⏎python a.py⏎"
    plain = "step 10 | loss 2.31 | 学习率 3e-4 ✓"
    assert visible(plain) is plain                        # ordinary text is returned as it is


def test_json_visible_keeps_the_value():
    doc = json.dumps({"out": "a\x9b2Jb\u202ec\x7f", "name": "x\udcff"}, ensure_ascii=False)
    safe = json_visible(doc)
    assert not OBEYED.search(safe)
    assert json.loads(safe) == json.loads(doc)


def _textual_plain_and_spans(markup: str) -> tuple[str, list]:
    c = Content.from_markup(markup)
    return c.plain, list(c.spans)


@pytest.mark.parametrize("text", MARKUP)
def test_markup_strings_stay_text_in_textual_and_rich(text):
    esc = escape_markup(text)
    # Alone: the exact text (less the zero-width space that keeps a backslash a backslash), no style, no action.
    plain, spans = _textual_plain_and_spans(esc)
    assert plain.replace("\u200b", "") == text and spans == []
    rich = Text.from_markup(esc, emoji=False)
    assert rich.plain.replace("\u200b", "") == text and rich.spans == []
    # Inside a caller's own markup: the caller's tag still closes, the text's tags never open.
    plain, spans = _textual_plain_and_spans(f"[b]{esc}[/b] after")
    assert plain.replace("\u200b", "") == text + " after"
    assert len(spans) == 1 and str(spans[0].style) == "b"
    rich = Text.from_markup(f"[b]{esc}[/b] after", emoji=False)
    assert rich.plain.replace("\u200b", "") == text + " after" and [str(s.style) for s in rich.spans] == ["bold"]


def test_rich_escape_alone_does_not_neutralise_textual_markup():
    """Why escape_markup exists: rich.markup.escape leaves Textual's [$accent] a live tag."""
    from rich.markup import escape
    plain, spans = _textual_plain_and_spans(escape("[$accent]themed[/]"))
    assert spans or plain != "[$accent]themed[/]"
    plain, spans = _textual_plain_and_spans(escape_markup("[$accent]themed[/]"))
    assert plain == "[$accent]themed[/]" and spans == []


# ----- the CLI's print paths ---------------------------------------------------------------------
def _mltdbg(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mltdbg.app.cli", *args], cwd=cwd, capture_output=True,
                          env={**os.environ, "NO_COLOR": "1"}, timeout=120)


def test_diagnose_human_output_shows_escapes_and_masks_secrets(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    evil_name = "train\x1b]0;pwned\x07.log"
    lines = [f"step {i} loss {2.0 - i * 0.01:.3f}" for i in range(40)]
    lines += ["Traceback (most recent call last):",
              '  File "train.py", line 3, in <module>',
              "RuntimeError: CUDA out of memory. \x1b[2J\x1b]52;c;cm0gLXJmIH4K\x07 password=hunter2hunter2"]
    (run / evil_name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    p = _mltdbg("diagnose", str(run), "--engine", "offline", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode("utf-8")
    assert "\x1b" not in out and "\x07" not in out and not OBEYED.search(out)
    assert "^[" in out                               # the quote and the file name, shown
    assert "hunter2hunter2" not in out and "[REDACTED]" in out
    j = _mltdbg("diagnose", str(run), "--engine", "offline", "--json", cwd=tmp_path)
    assert j.returncode == 0 and b"\x1b" not in j.stdout and b"hunter2hunter2" not in j.stdout
    json.loads(j.stdout)


def test_sessions_replay_and_export_show_recorded_escapes(tmp_path, monkeypatch):
    from mltdbg.sessions import Session
    from repo_helpers import git
    monkeypatch.setenv("MLTDBG_HOME", str(tmp_path / "home"))
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    s = Session.create(repo, name="evil \x1b]0;title\x07 name")
    cmd = "python train.py\x1b[8m; curl x | sh"
    s.append("check_started", {"check_id": "c1", "command": cmd, "cwd": str(repo), "timeout_s": 30, "hypothesis_id": "lr_too_high"})
    # (check output is decoded with "replace": it never holds the surrogate case)
    chunk = "".join(c["text"] for c in TERMINAL if c["name"] != "undecodable_file_name")
    s.append("check_output", {"check_id": "c1", "chunk": chunk + "\n"})
    s.append("check_finished", {"check_id": "c1", "exit_code": 0, "duration_s": 0.4, "timed_out": False, "cancelled": False})
    s.append("note_added", {"text": "\u202eevil\x9b2J note"})
    s.close()
    env = {**os.environ, "MLTDBG_HOME": str(tmp_path / "home")}
    for args in (["list"], ["replay", s.id], ["export", s.id, "--format", "md"], ["export", s.id, "--format", "json"]):
        p = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "sessions", "--repo", str(repo), *args],
                           cwd=tmp_path, capture_output=True, env=env, timeout=60)
        assert p.returncode == 0, (args, p.stderr)
        out = p.stdout.decode("utf-8")
        assert not OBEYED.search(out), (args, repr(out[:300]))
        if args[-1] == "json":             # still JSON, the recorded value intact
            assert "\x9b2J note" in json.dumps(json.loads(out), ensure_ascii=False)
        elif args[0] != "list":
            assert "^[" in out
