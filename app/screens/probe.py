"""The probe view: the probe results a session holds, one at a time, as findings, the probe's table and
(for `gradients`) the bar chart of per-layer gradient norms (mltdbg.app.widgets.probe.ProbeView).

In: the session state and the repo root. A session holds a probe result when
- a `probe_ran` event names its result file (`mltdbg probe ... --session ID`),
- a captured artifact is a probe result document (a JSON the user ran `mltdbg probe` for), or
- a check it ran was a `mltdbg probe` command whose output ends in `result: PATH`.
Out: `session_probe_results` (pure: reads those files, newest last) and `ProbeScreen`, which the
hypotheses and check screens push with `p`. Files that are gone or do not parse are listed as
one-line notes, never a traceback. Every string from a result is shown as plain text.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from mltdbg.analyzers.common.sanitize import visible
from mltdbg.analyzers.probes.results import MARKER, ProbeResult, parse
from mltdbg.app.screens.base import step_footer
from mltdbg.app.widgets.probe import ProbeView

# A probe result document is small JSON; a bigger file named as one is refused, not read (bytes).
MAX_RESULT_BYTES = 20 * 1024 * 1024
# The launcher's last output line (mltdbg.app.probe_cli): "result: PATH".
_RESULT_LINE = re.compile(r"^result: (.+?)\s*$", re.M)


@dataclass
class HeldProbes:
    results: list[ProbeResult] = field(default_factory=list)   # oldest first
    notes: list[str] = field(default_factory=list)             # one line per file that could not be shown


def _is_probe_command(cmd: str) -> bool:
    try:
        words = shlex.split(cmd)
    except ValueError:
        return False
    return any(Path(w).name in ("mltdbg", "mltdbg.app.cli") and words[i + 1:i + 2] == ["probe"]
               for i, w in enumerate(words))


def _candidates(state: Any, root: Path) -> list[tuple[int, Path]]:
    """(event seq, path) of every file the session names as a probe result."""
    out: list[tuple[int, Path]] = []
    for p in state.probes:
        if p.get("result_file"):
            out.append((int(p.get("seq") or 0), root / p["result_file"]))
    for a in state.artifacts:
        if str(a).endswith(".json"):
            out.append((0, root / a))
    for c in state.checks.values():
        if c.status != "running" and _is_probe_command(c.command):
            for m in _RESULT_LINE.finditer(c.output or ""):
                out.append((c.started_seq, Path(c.cwd or root) / m.group(1)))
    return out


def session_probe_results(state: Any, root: Path) -> HeldProbes:
    """The probe results the session holds, oldest first, each file once."""
    held = HeldProbes()
    seen: set[Path] = set()
    for _, path in sorted(_candidates(state, Path(root)), key=lambda sp: sp[0]):
        try:
            key = path.resolve()
        except OSError:
            key = path
        if key in seen:
            continue
        seen.add(key)
        try:
            if path.stat().st_size > MAX_RESULT_BYTES:
                held.notes.append(f"{path}: larger than {MAX_RESULT_BYTES >> 20} MB, not a probe result; not read")
                continue
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            held.notes.append(f"{path}: cannot read ({e.strerror or e})")
            continue
        if MARKER not in data[:200]:
            continue        # a captured JSON that is not a probe result: not ours to show
        try:
            held.results.append(parse(data.decode("utf-8", "replace"), str(path)))
        except ValueError as e:
            held.notes.append(str(e))
    return held


class ProbeScreen(Screen):
    """One probe result at a time (newest first); n/b walk through the others."""

    BINDINGS = [
        Binding("escape,p", "close", "Back", id="close"),
        Binding("n", "step(-1)", "Older", id="older"),
        Binding("b", "step(1)", "Newer", id="newer"),
    ]

    def __init__(self, held: HeldProbes) -> None:
        super().__init__()
        self.held = held
        self.index = len(held.results) - 1

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="probe_title")
        with VerticalScroll(id="probe_body"):
            yield ProbeView(id="probe_view")
            yield Static("", id="probe_notes")
        yield step_footer()

    def on_mount(self) -> None:
        notes = self.held.notes
        self.query_one("#probe_notes", Static).update(
            Text("\n".join(visible(n) for n in notes), style="dim") if notes else "")
        self._show()
        self.query_one("#probe_body").focus()

    def _show(self) -> None:
        rs = self.held.results
        title = self.query_one("#probe_title", Static)
        view = self.query_one("#probe_view", ProbeView)
        if not rs:
            title.update(Text("no probe result in this session", style="bold"))
            view.set_result(None)
        else:
            pr = rs[self.index]
            title.update(Text.assemble(("Probe result ", "bold"), f"{self.index + 1}/{len(rs)}  ",
                                       (visible(pr.source), "dim")))
            view.set_result(pr)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "step":
            return 0 <= self.index + parameters[0] < len(self.held.results)
        return True

    def action_step(self, d: int) -> None:
        if 0 <= self.index + d < len(self.held.results):
            self.index += d
            self._show()
            self.query_one("#probe_body", VerticalScroll).scroll_home(animate=False)

    def action_close(self) -> None:
        self.app.pop_screen()


def holds_probe(state: Any, root: Path) -> bool:
    """Whether the session names a probe result (for `p` in a footer, asked at every bindings refresh:
    answered once per session state, i.e. per (state, events applied); reads 200 bytes per JSON artifact)."""
    key = (id(state), getattr(state, "n_events", None), str(root))
    if key not in _HOLDS:
        if len(_HOLDS) > 64:
            _HOLDS.clear()
        _HOLDS[key] = _holds_probe(state, root)
    return _HOLDS[key]


_HOLDS: dict[tuple, bool] = {}


def _holds_probe(state: Any, root: Path) -> bool:
    for seq, path in _candidates(state, Path(root)):
        if seq or path.suffix != ".json":
            return True
        try:
            with open(path, "rb") as f:
                if MARKER in f.read(200):
                    return True
        except OSError:
            continue
    return False


def open_probe_view(screen: Screen, state: Any, root: Path) -> None:
    """Push the probe view for the session's results (the hypotheses and check screens' `p`)."""
    screen.app.push_screen(ProbeScreen(session_probe_results(state, root)))
