"""What kind of text a file is: code, config, prose or a log (by extension, then by content).

In:  a path and its decoded text.
Out: `text_kind(path, text)` -> "code", "config", "text" or "log".
"""
from __future__ import annotations

import json
import re
from pathlib import Path


# A config sniffed by content is parsed only when small.
MAX_CONFIG_SNIFF = 256 * 1024

CODE_EXT = {".py", ".pyx", ".pyi", ".sh", ".bash", ".zsh"}
CONFIG_EXT = {".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".conf", ".env", ".gin"}
# Prose that quotes errors ("CUDA out of memory" in a README) is not a log of this run.
TEXT_EXT = {".md", ".rst", ".html", ".htm", ".tex", ".css", ".js", ".ts", ".c", ".cc", ".cpp",
            ".h", ".hpp", ".cu", ".java", ".go", ".rs", ".r", ".sql", ".xml", ".svg",
            ".csv", ".tsv"}  # a CSV the tabular reader did not take is data, not a log

# Names that promise a metrics table (a `.gz` after them too): the table reader reads such a file even
# when its head is one record, and the text reader says so when it gets one and finds no metrics.
JSONL_EXT = (".jsonl", ".ndjson")
TABLE_EXT = (".csv", ".tsv")


def table_name(path: Path) -> str | None:
    """"jsonl" or "csv" when the file's name promises that kind of metrics table, else None."""
    name = path.name.lower().removesuffix(".gz")
    return "jsonl" if name.endswith(JSONL_EXT) else "csv" if name.endswith(TABLE_EXT) else None


_YAML_LINE = re.compile(r"^(?:[ \t]*(?:#.*|-[ \t].*|-|[A-Za-z_][\w.\-]*[ \t]*:(?:[ \t].*)?))?$")
_LOG_HINT = re.compile(r"\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|Traceback|\b(?:INFO|WARNING|ERROR|DEBUG)\b")


def text_kind(path: Path, text: str) -> str:
    """'code', 'config', 'text' or 'log' for a file (by extension, then by content)."""
    name = path.name.lower()
    for suf in (".gz",):
        if name.endswith(suf):
            name = name[: -len(suf)]
    i = name.rfind(".")
    ext = name[i:] if 0 < i < len(name) - 1 else ""     # Path(name).suffix, without building a Path
    if ext in CODE_EXT:
        return "code"
    if ext in CONFIG_EXT or name in ("dockerfile", "requirements.txt", "environment.yml"):
        return "config"
    if ext in TEXT_EXT:
        return "text"
    if ext in ("", ".txt", ".cfg", ".out") and len(text) <= MAX_CONFIG_SNIFF and _looks_like_config(text):
        return "config"
    return "log"


def _looks_like_config(text: str) -> bool:
    """Clearly a JSON object or a YAML mapping (not a log that happens to say `loss: 0.5`)."""
    s = text.lstrip()
    if not s or _LOG_HINT.search(text[:4096]):
        return False
    if s[0] == "{":
        try:
            return isinstance(json.loads(s), dict)
        except ValueError:
            return False
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 3 or not all(_YAML_LINE.match(ln) for ln in lines):
        return False
    top = [ln.split(":", 1)[0] for ln in lines if ln[:1].isalpha() or ln[:1] == "_"]
    if len(top) != len(set(top)):  # repeated top-level keys: a log of "loss: ..." lines
        return False
    try:
        import yaml  # noqa: PLC0415 - only for a file that looks like YAML
        return isinstance(yaml.safe_load(text), dict)
    except Exception:
        return False
