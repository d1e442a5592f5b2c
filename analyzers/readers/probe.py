"""Reader for probe result files (`mltdbg probe ... --out X.json`): kept whole as a TextArtifact of
kind "probe", so `analyzers/probes/results.py` turns its findings into signals and the verifier can
re-read every quoted finding. Tried first: the metric-table reader would otherwise take the JSON.
"""
from __future__ import annotations

from pathlib import Path

from mltdbg.analyzers.ingest import read_text
from mltdbg.analyzers.model import Run, TextArtifact
from mltdbg.analyzers.probes.results import is_probe_head


def sniff(path: Path, head: bytes) -> bool:
    return is_probe_head(head)


def read(path: Path, rel: str, run: Run) -> None:
    run.texts.append(TextArtifact(path=rel, abspath=path, kind="probe", text=read_text(path, rel, run)))
