"""Python tracebacks in log text, and the line helpers the log detectors share with it.

In:  a `Run` whose `texts` hold logs (kind log/text/traceback).
Out: `extract_tracebacks(run)` fills `run.tracebacks` (exception type, message, frames,
     rank, DataLoader worker, chained exceptions); `lines_of_offsets(art, offs)` gives
     1-based line numbers of character offsets; `line_quote(line, at)` caps a quote.

Speed: tracebacks are found by a literal search and parsed from a window after each
header, so no line index of the whole log is built. Log text is untrusted: it is
matched, never evaluated; quotes are capped at QUOTE_MAX chars.
"""
from __future__ import annotations

import re
from itertools import islice

import numpy as np

from mltdbg.analyzers.model import Frame, Run, TextArtifact, Traceback
from mltdbg.analyzers.ranks import rank_of_prefix

LOG_KINDS = ("log", "text", "traceback")
QUOTE_MAX = 300
_TB_CAP = 1000            # tracebacks read per artifact
_TB_MAX_LINES = 3000      # lines looked at per traceback (interleaved ranks included)
_MSG_MAX_LINES = 40
_MSG_MAX_CHARS = 4000

# --------------------------------------------------------------------------- tracebacks

_TB_HEADER = re.compile(r"(?:Original )?Traceback \(most recent call last\):")
_FILE_LINE = re.compile(r'\s+File "([^"]*)", line (\d+)(?:, in (.*))?\s*$')
_EXC_LINE = re.compile(r"([A-Za-z_][\w.]*)(?::\s?(.*))?$")
_CARET = re.compile(r"\s*[~^]+\s*$")
_CHAIN = re.compile(r"During handling of the above exception, another exception occurred:"
                    r"|The above exception was the direct cause of the following exception:")
# A line that starts a new log record ends a multi-line exception message.
_NEW_RECORD = re.compile(
    r"\[?\d{4}[-/]\d\d[-/]\d\d[ T_]|\[?\d\d:\d\d:\d\d|[EWIF]\d{4} \d\d:|\[[EWIF] |"
    r"(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b|wandb:|\s*\d+%\|"
    r"|(?:Original )?Traceback \(most|During handling of|The above exception was")
_ERRORISH = re.compile(r"(?i)error|exception|fail|abort|killed|fatal|signal")
_WORKER = re.compile(r"in DataLoader worker process (\d+)")
_SPAWN_PROC = re.compile(r"Process (\d+) terminated with the following error")


def _prefix_matcher(prefix: str) -> re.Pattern | None:
    """A regex for a per-line log prefix like the header's (digits vary line to line)."""
    if not prefix.strip():
        return None
    return re.compile(re.sub(r"\\?\d+", r"\\d+", re.escape(prefix)))


_TB_WINDOW = 400_000      # characters read after a header (interleaved ranks included)


class _LineStream:
    """Lines of one traceback, log prefixes stripped, other ranks' lines skipped.

    Works on a window of text after the header, so no line index of the whole
    (possibly huge) log is needed.
    """

    def __init__(self, lines: list[str], header_line: int, prefix: str):
        self.lines = lines            # lines[0] is the header line
        self.base = header_line
        self.rank, rest = rank_of_prefix(prefix)
        # what is left of the prefix after the rank tag is a log prefix (timestamps...)
        self.pm = _prefix_matcher(rest)
        self.i = 0

    def next(self) -> tuple[int, str, str] | None:
        """(line number, stripped text, raw text) of the next line of this traceback, or None at the end."""
        while self.i + 1 < len(self.lines):
            self.i += 1
            raw = self.lines[self.i].rstrip("\r")
            s = raw
            if self.rank is not None:
                r, rest = rank_of_prefix(s)
                if r != self.rank:
                    continue  # another rank's (or the launcher's) line interleaved
                s = rest
            if self.pm is not None:
                m = self.pm.match(s)
                if m:
                    s = s[m.end():]
            return self.base + self.i, s, raw
        return None


def _parse_one(text: str, off: int, hline: int) -> tuple[Traceback, int] | None:
    """Parse the traceback whose header starts at offset `off` on line `hline`.
    Returns it and the offset just after its last line."""
    ls = text.rfind("\n", 0, off) + 1
    window = text[ls: ls + _TB_WINDOW]
    lines = window.split("\n", _TB_MAX_LINES)[:_TB_MAX_LINES]
    prefix = text[ls:off]
    st = _LineStream(lines, hline, prefix)
    frames: list[Frame] = []
    exc = None
    while True:
        nxt = st.next()
        if nxt is None:
            break
        n, s, raw = nxt
        m = _FILE_LINE.match(s)
        if m:
            frames.append(Frame(file=m.group(1), line=int(m.group(2)), func=(m.group(3) or "").strip()))
            continue
        if not s.strip() or _CARET.match(s) or s.strip().startswith("[Previous line repeated"):
            continue
        if s[:1] in (" ", "\t"):
            if frames and frames[-1].code is None:
                frames[-1].code = s.strip()[:QUOTE_MAX]
            continue
        if _TB_HEADER.match(s):   # a header with no exception line: the next one takes over
            return None
        exc = (n, s, raw)
        break
    if exc is None:
        return None
    n, s, raw = exc
    m = _EXC_LINE.match(s.strip())
    if m and m.group(1).rsplit(".", 1)[-1][:1].isupper():   # exception classes are CapWords
        exc_type, first = m.group(1), (m.group(2) or "")
    else:
        exc_type, first = "", s.strip()
        if _NEW_RECORD.match(first) and not _ERRORISH.search(first):
            # a log record where the exception line should be: the traceback was cut short (the process
            # was killed while printing it) and the log went on; that record is not the exception
            return None
    msg = [first]
    size = len(first)
    last_i = st.i
    while len(msg) < _MSG_MAX_LINES and size < _MSG_MAX_CHARS:
        nxt = st.next()
        if nxt is None:
            break
        _, t, _ = nxt
        if not t.strip() or _NEW_RECORD.match(t):
            break
        msg.append(t.rstrip())
        size += len(t)
        last_i = st.i
    end = ls + sum(len(x) + 1 for x in lines[: last_i + 1])
    tb = Traceback(exc_type=exc_type, message="\n".join(msg).strip("\n"), frames=frames,
                   source="", line=n, start_line=hline, rank=st.rank, quote=line_quote(raw))
    return tb, end


def _tracebacks_in(art: TextArtifact) -> list[Traceback]:
    text = art.text
    key = "Traceback (most recent call last):"
    if key not in text:
        return []
    # a literal search (fast); "Original " before it marks a DataLoader worker's traceback
    offs = [m.start() for m in islice(re.finditer(re.escape(key), text), _TB_CAP)]
    hlines = lines_of_offsets(art, offs)
    out: list[Traceback] = []
    ends: list[int] = []
    for off, hline in zip(offs, hlines):
        is_original = text.startswith("Original ", off - 9)
        parsed = _parse_one(text, off - 9 if is_original else off, hline)
        if parsed is None:
            continue
        tb, end = parsed
        tb.source = art.path
        prev_i = next((i for i in range(len(out) - 1, -1, -1) if out[i].rank == tb.rank), None)
        if prev_i is not None:
            prev = out[prev_i]
            gap = text[ends[prev_i]: off] if 0 <= off - ends[prev_i] < 5000 else ""
            if is_original:
                w = _WORKER.search(prev.message)
                if w:
                    tb.worker = int(w.group(1))
                prev.chained_from = tb   # the worker's exception caused the re-raise
            elif _CHAIN.search(gap):
                tb.chained_from = prev
        sp = _SPAWN_PROC.search(text, max(0, off - 300), off)
        if sp and tb.rank is None:
            tb.rank = int(sp.group(1))
        out.append(tb)
        ends.append(end)
    return out


def extract_tracebacks(run: Run) -> None:
    """Fill run.tracebacks from every log-like text artifact (in file order). Idempotent."""
    done = {t.source for t in run.tracebacks}
    for art in run.texts:
        if art.kind not in LOG_KINDS or art.path in done:
            continue
        try:
            run.tracebacks.extend(_tracebacks_in(art))
        except Exception as e:  # never let one odd log stop the analysis
            run.warnings.append(f"{art.path}: tracebacks not read ({type(e).__name__}: {e})")


# --------------------------------------------------------------------------- line helpers

def lines_of_offsets(art: TextArtifact, offs: list[int]) -> list[int]:
    """1-based line numbers for sorted offsets; uses the cached line index when there is one."""
    if art._starts is not None or len(offs) > 50_000:
        return [int(x) for x in art.lines_of(np.asarray(offs, dtype=np.int64))]
    out, line, pos = [], 1, 0
    for o in offs:  # few offsets: count newlines between them (one C pass in all)
        line += art.text.count("\n", pos, o)
        pos = o
        out.append(line)
    return out


# A JSON string's escapes for a line break, a tab and a quote mark: printed output kept inside a JSON file (an
# autograder's results.json, a CI job's report) reads as its lines once these are blanks
_JSON_ESCAPE = re.compile(r'\\[nrt"]')


def blank_json_escapes(text: str) -> str:
    """`text` with each JSON escape of a line break or tab made two blanks (and of a quote mark, a blank and the mark):
    the same length, so every offset and line stays where it was, and a message the string held stands apart
    ("...\\nValueError: ..." reads "...  ValueError: ...")."""
    return _JSON_ESCAPE.sub(lambda m: ' "' if m.group(0) == '\\"' else "  ", text)


def line_quote(line: str, at: int = 0) -> str:
    """The line itself, or a 300-char window of it around position `at`."""
    if len(line) <= QUOTE_MAX:
        return line
    a = max(0, min(at - 50, len(line) - QUOTE_MAX))
    return line[a: a + QUOTE_MAX]

