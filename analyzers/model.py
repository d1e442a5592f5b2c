"""The one representation every reader produces and every analyzer consumes.

UI-free, numpy-backed. A `Run` is what ingest returns for a set of paths:
metric series (each point traceable to file + line/record), text artifacts
with line numbers, typed config/environment facts, tracebacks and warnings.
Analyzers turn a Run into `Signal`s; engines turn signals into hypotheses.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


# Where a point of a series came from: a text line (1-based), a CSV row's
# line, a JSON record's line, or the index of a record in a binary file.
LOC_LINE = "line"
LOC_RECORD = "record"


@dataclass
class Series:
    """One named metric: parallel float64/int64 arrays, NaN/inf kept."""

    name: str                 # normalised ("loss", "val_loss", "grad_norm", ...)
    raw_name: str             # as written in the artifact, for display
    steps: np.ndarray         # int64; when the artifact has no step, 0..n-1 and step_is_index=True
    values: np.ndarray        # float64, NaN/inf kept as they were
    source: str               # artifact path relative to the run root
    locs: np.ndarray          # int64, per point: line number (1-based) or record index
    loc_kind: str = LOC_LINE
    step_is_index: bool = False
    rank: int | None = None   # from a `[rankN]` prefix, when present

    def __post_init__(self) -> None:
        self.steps = np.asarray(self.steps, dtype=np.int64)
        self.values = np.asarray(self.values, dtype=np.float64)
        self.locs = np.asarray(self.locs, dtype=np.int64)

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def point(self, i: int) -> dict[str, Any]:
        """Citation fields for point i (for Evidence)."""
        d: dict[str, Any] = {"source": self.source, "step": int(self.steps[i]),
                             "metric": self.name, "value": value_for_json(self.values[i])}
        if self.loc_kind == LOC_LINE:
            d["line"] = int(self.locs[i])
        return d


@dataclass
class TextArtifact:
    """A text file (log, code, config, traceback dump) with 1-based line access."""

    path: str                 # relative to the run root, used in citations
    abspath: Path
    kind: str                 # "log" | "code" | "config" | "traceback" | "text"
    text: str
    _starts: np.ndarray | None = field(default=None, repr=False)
    # what the analyzers derive from this text once and read more than once (code/index.post_code: the
    # code a post quotes, and notebook_cells: a notebook's cells, each read by the code checks and by the
    # config facts; prose._prose_of: its sentences)
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def line_starts(self) -> np.ndarray:
        """Offsets of each line's first character (index i -> line i+1)."""
        if self._starts is None:
            nl = _newline_offsets(self.text)
            self._starts = np.concatenate(([0], nl + 1)).astype(np.int64)
        return self._starts

    def _n_starts(self) -> int:
        """Entries of line_starts (the lines, and an empty one after a final newline)."""
        return len(self.line_starts)

    @property
    def n_lines(self) -> int:
        n = self._n_starts()
        return n - 1 if self.text.endswith("\n") else n

    def line_of(self, offset: int) -> int:
        """1-based line number of a character offset."""
        return int(np.searchsorted(self.line_starts, offset, side="right"))

    def lines_of(self, offsets: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.line_starts, np.asarray(offsets, dtype=np.int64), side="right")

    def start_of(self, n: int) -> int:
        """Character offset where 1-based line n starts (len(text) past the last line)."""
        starts = self.line_starts
        return int(starts[n - 1]) if 1 <= n <= len(starts) else len(self.text)

    def text_line_starts(self) -> np.ndarray:
        """Offsets of the lines that can hold text (all of them here; a big log's sparse text
        keeps fewer): for vectorised scans of line beginnings."""
        return self.line_starts[: self.n_lines]

    def line(self, n: int) -> str:
        """Text of 1-based line n without its newline ('' when out of range)."""
        count = self._n_starts()
        if n < 1 or n > count:
            return ""
        b = self.start_of(n + 1) - 1 if n < count else len(self.text)
        return self.text[self.start_of(n):b].rstrip("\r")


def _newline_offsets(text: str) -> np.ndarray:
    """Character offsets of every '\\n' in text, without a Python-level loop per line."""
    lines = text.split("\n")
    lens = np.fromiter((len(s) for s in lines), dtype=np.int64, count=len(lines))
    ends = np.cumsum(lens + 1) - 1       # offset of the '\n' after each line
    return ends[:-1]


@dataclass
class Fact:
    """A typed config or environment fact and where it was read."""

    name: str                 # normalised: lr, batch_size, optimizer, precision, grad_clip, warmup_steps, scheduler, seed, torch_version, cuda_version, gpu, git_sha, epochs, weight_decay, ...
    value: Any
    source: str
    line: int | None = None
    quote: str | None = None  # the artifact's text at that line


@dataclass
class Frame:
    file: str
    line: int
    func: str
    code: str | None = None


@dataclass
class Traceback:
    """A Python traceback found in a text artifact."""

    exc_type: str             # e.g. "RuntimeError", "torch.OutOfMemoryError"
    message: str
    frames: list[Frame]
    source: str               # artifact path
    line: int                 # 1-based line of the exception line ("RuntimeError: ...")
    start_line: int           # line of "Traceback (most recent call last):"
    chained_from: "Traceback | None" = None   # the earlier exception in a chain
    worker: int | None = None                 # DataLoader worker process N
    rank: int | None = None
    quote: str | None = None                  # the exception line as written in the artifact (for citations)


@dataclass
class Evidence:
    """One citation. Mirrors diagnosis.schema.json's evidence item."""

    text: str
    source: str | None = None
    line: int | None = None
    step: int | None = None
    quote: str | None = None
    metric: str | None = None
    value: float | str | None = None
    verified: bool | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"text": self.text}
        for k in ("source", "line", "step", "quote", "metric"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self.value is not None:
            d["value"] = value_for_json(self.value)
        if self.verified is not None:
            d["verified"] = self.verified
        return d


@dataclass
class Signal:
    """A typed observation an analyzer made, with its strength in [0, 1].

    `kind` is the vocabulary playbooks key on (see analyzers/signals.md).
    """

    kind: str
    strength: float
    summary: str              # one line with numbers, e.g. "loss +15% from step 1200 to 1400"
    evidence: list[Evidence] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class ArrayScan:
    """A float array in a numpy data file with NaN/inf in it (readers/npdata.py)."""

    source: str               # the .npy/.npz path relative to the run root
    key: str                  # the array's name in an .npz ("" for a .npy)
    shape: tuple[int, ...]
    dtype: str
    bad_rows: int             # rows (first-axis entries) holding a NaN/inf, among `rows` scanned
    rows: int
    first_row: int
    first_value: str          # "NaN", "inf" or "-inf"


@dataclass
class Run:
    """Everything ingest found under the given paths."""

    root: Path
    series: list[Series] = field(default_factory=list)
    texts: list[TextArtifact] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    tracebacks: list[Traceback] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)    # one line each: "path:line: what is wrong"
    artifacts: list[str] = field(default_factory=list)   # relative paths of every file read
    arrays: list[ArrayScan] = field(default_factory=list)  # numpy data arrays with NaN/inf rows

    def metric(self, name: str) -> Series | None:
        """The primary series for a normalised name: the one with the most points. Of two as long, the one on
        the training loss's axis: from the loss's own file, else numbered the way the loss is (by step or by
        position), else by step: a Keras history.json's 20 epochs (by position) beside train.log's 20 epoch
        lines at steps 63, 126, ... tie on val_loss, and the loss they are read against is the log's longer
        step-numbered series; points on another axis all sit at its start."""
        for ranked in (True, False):
            cands = [s for s in self.series if s.name == name and (not ranked or s.rank in (None, 0))]
            if not cands:
                continue
            n = max(len(s) for s in cands)
            tied = [s for s in cands if len(s) == n]
            if len(tied) == 1:
                return tied[0]
            loss = self.metric("loss") if name != "loss" else None
            return max(tied, key=lambda s: (loss is not None and s.source == loss.source,
                                            loss is not None and s.step_is_index == loss.step_is_index,
                                            not s.step_is_index, _numbered(s.source)))
        return None

    def metric_names(self) -> list[str]:
        return sorted({s.name for s in self.series})

    def fact(self, name: str) -> Fact | None:
        for f in self.facts:
            if f.name == name:
                return f
        return None

    def text(self, path: str) -> TextArtifact | None:
        for t in self.texts:
            if t.path == path:
                return t
        return None


def value_for_json(v: Any) -> Any:
    """Numbers for JSON: NaN/inf as strings (schema: 'NaN/inf as strings')."""
    if isinstance(v, (np.floating, float)):
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    if isinstance(v, np.integer):
        return int(v)
    return v


def _numbered(path: str) -> tuple[int, ...]:
    """The numbers in an artifact's path, in order: of two equally long logs of one metric, the
    later job (`job-2024-06-14-16-20.log` beside `job-2024-06-12-10-58.log`, `version_3/` beside
    `version_1/`, `run2.log` beside `run1.log`) is the run a user is asking about."""
    return tuple(int(d) for d in re.findall(r"\d+", path)[:12])
