"""A console log saved as JSON records of the streams: Kaggle's kernel log (`[{"stream_name": "stdout", "time": 5.3,
"data": "Epoch 1/10 ...\\n"}, ...]`, pretty-printed or one record a line), which people attach as
`__results___files_log.json` or `kernel-log.json`.

In:  the file. Out: one TextArtifact of kind "log" whose line N holds what the program printed in the record whose
`"data"` string stands on line N of the file (other lines blank), so every citation points at the file's own line;
and the metric series read from that text as from any log. A record printing several lines shows them on its one
line, joined by " | ". The evidence verifier (playbooks/verify.py) finds a quote in its JSON-escaped form too.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from mltdbg.analyzers.ingest import decode_utf8, read_bytes
from mltdbg.analyzers.model import Run, TextArtifact
from mltdbg.analyzers.readers.textlog.assemble import extract_metrics
from mltdbg.analyzers.readers.textlog.lists import with_lists

# A console log bigger than this is left to the text reader (as JSON text)
MAX_BYTES = 64 << 20
_DATA = re.compile(r'"data"\s*:\s*("(?:[^"\\]|\\.)*")')


def sniff(path: Path, head: bytes) -> bool:
    return path.suffix.lower() == ".json" and head.lstrip()[:1] == b"[" and b'"stream_name"' in head and b'"data"' in head


def read(path: Path, rel: str, run: Run) -> None:
    data = read_bytes(path)
    if len(data) > MAX_BYTES:
        run.warnings.append(f"{rel}: a console log of {len(data) >> 20} MB, more than {MAX_BYTES >> 20} MB; not read")
        return
    raw = decode_utf8(data, rel, run)
    lines = []
    for line in raw.split("\n"):
        m = _DATA.search(line)
        if m is None:
            lines.append("")
            continue
        try:
            s = json.loads(m.group(1))
        except ValueError:
            lines.append("")
            continue
        lines.append(" | ".join(str(s).rstrip("\n").split("\n")))
    text = "\n".join(lines)
    art = TextArtifact(path=rel, abspath=path, kind="log", text=text)
    run.texts.append(art)
    run.series.extend(with_lists(art, extract_metrics(text.encode("utf-8"), rel, run)))
