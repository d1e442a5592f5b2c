"""The screens' stylesheets: read once with the app, each rule scoped to its own screen."""
from __future__ import annotations

import re
from pathlib import Path

from textual.screen import Screen

import mltdbg.app.screens as screens_pkg
from mltdbg.app.mltdbg_app import MltdbgApp

SCREENS = Path(screens_pkg.__file__).parent


def _screen_classes() -> dict[str, type]:
    import importlib  # noqa: PLC0415 - every screen module, for the test only
    out = {}
    for f in SCREENS.glob("*.py"):
        mod = importlib.import_module(f"mltdbg.app.screens.{f.stem}")
        for v in vars(mod).values():
            if isinstance(v, type) and issubclass(v, Screen) and v.__module__ == mod.__name__:
                out[v.__name__] = v
    return out


def test_every_screen_stylesheet_is_read_with_the_app_and_no_screen_names_its_own():
    """A screen with its own CSS_PATH makes Textual re-parse the whole stylesheet the first time it shows."""
    listed = {Path(p).name for p in MltdbgApp.CSS_PATH}
    assert {p.name for p in SCREENS.glob("*.tcss")} <= listed
    for name, cls in _screen_classes().items():
        assert not cls.CSS_PATH, f"{name} names its own CSS_PATH"


def test_each_screen_rule_is_scoped_to_its_screen():
    """All rules are global once read: an unscoped `#status` or `Label` rule would restyle other screens."""
    classes = _screen_classes()
    for f in SCREENS.glob("*.tcss"):
        text = re.sub(r"/\*.*?\*/", "", f.read_text(), flags=re.S)
        selectors = [s.strip() for s in re.findall(r"([^{}]+)\{", text)]
        owner = {n for n, c in classes.items() if n.lower().startswith(f.stem)}
        assert selectors and owner, f.name
        for sel in selectors:
            for part in sel.split(","):
                assert re.match(r"[A-Za-z]+", part.strip()).group(0) in owner, f"{f.name}: {part.strip()!r} is not scoped"
