"""Lessons a repo already learned: the "Things that have bitten us" entries of its CLAUDE.md.

In:  a repo root (`read_claude_md(root)`), or CLAUDE.md text (`parse_claude_md(text)`). Entries are
     list items under a heading named "Things that have bitten us" (any level, any case), in the
     format mltdbg writes (`- (2026-05-04) What. Caught by ... Added test_x. Lesson: ...`) or written
     by hand: any date format (2026-05-04, 2026/05/04, 04.05.2026, 4 May 2026, May 4, 2026, ...) or
     none, wrapped over several lines, in any language.
Out: `LessonSet(lessons, notes, info)`: one `Lesson` per entry (the entry's text, file:line and first
     line as written, so the verifier can re-read it, its date, and the names in it: files, functions,
     exception types, quoted error text, metrics); `notes` say what was wrong with the file (too big,
     not UTF-8, too many entries) and reach the diagnosis's warnings; `info` says what is normal but
     worth saying (no such section, an empty one, a lesson not in English), one line each.
     `match(lesson, cause_id, cause_patterns, facts)` says whether a lesson fits a hypothesis of a new
     diagnosis (same cause id, same file or function, same error text, same metric pattern) and why;
     `facts_of(run, signals)` collects what a diagnosis offers to match against;
     `related_to_text(lessons, text, cause_words)` matches a pasted traceback before any diagnosis.
sessions/history.py builds the same `Lesson` records from earlier sessions (origin "session").

Bounded: CLAUDE.md is read up to MAX_BYTES, at most MAX_LESSONS entries (the newest: entries are
appended at the end), each capped at MAX_ENTRY_CHARS. The text is data: matched, never evaluated.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from mltdbg.analyzers.model import Run, Signal

LESSON_FILE = "CLAUDE.md"
# A CLAUDE.md is a page of notes; 16 MB is already far beyond one. Beyond it we read the first 16 MB.
MAX_BYTES = 16 * 1024 * 1024
# Entries kept per file (the last ones: new lessons are appended at the end of the section).
MAX_LESSONS = 300
MAX_ENTRY_CHARS = 2000
QUOTE_MAX = 300
# A lesson is English when at least this share of its words are common English words; below, only
# the names in it (files, functions, exception types) are matched.
ENGLISH_SHARE = 0.12

_HEADING = re.compile(r"^(#{1,6})[ \t]+\**things that have bitten us\**[ \t]*:?[ \t]*#*[ \t]*\r?$", re.I | re.M)
_ANY_HEADING = re.compile(r"^(#{1,6})[ \t]+\S", re.M)
_BULLET = re.compile(r"^[ \t]{0,3}(?:[-*+]|\d{1,3}[.)])[ \t]+")

_MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_DATE_PATTERNS = [
    # 2026-05-04, 2026/05/04, 2026.05.04
    (re.compile(r"\b(20\d\d|19\d\d)[-/.](\d{1,2})[-/.](\d{1,2})\b"), "ymd"),
    # 04.05.2026 (day first, the dotted European form), 04/05/2026 (ambiguous unless one part > 12)
    (re.compile(r"\b(\d{1,2})([./-])(\d{1,2})\2(20\d\d|19\d\d)\b"), "dmy?"),
    # 4 May 2026, 4th May 2026
    (re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(20\d\d|19\d\d)\b"), "d mon y"),
    # May 4, 2026 / May 4 2026
    (re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(20\d\d|19\d\d)\b"), "mon d y"),
]

_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|ipynb|yaml|yml|json|toml|cfg|ini|sh|txt|csv|jsonl|md))\b")
_CALL = re.compile(r"(?<![\w.])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\(\)")
_TICKED = re.compile(r"`([^`\n]{2,80})`")
_SNAKE = re.compile(r"(?<![\w.])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w(])")
_EXC = re.compile(r"\b((?:[A-Z][a-z0-9]+)+(?:Error|Exception|Interrupt|Warning)|OutOfMemoryError|ChildFailedError)\b")
_QUOTED = re.compile(r"""(?:"([^"\n]{12,200})"|'([^'\n]{12,200})'|“([^”\n]{12,200})”|`([^`\n]{12,200})`)""")
_PHRASES = re.compile(r"(?i)CUDA out of memory|out of memory|SIGKILL|exit code 137|Killed|NCCL|watchdog|timed out|"
                      r"device-side assert|NaN|\binf\b|OOM")
_METRICS = ("val_loss", "grad_norm", "loss", "lr", "learning rate", "accuracy", "acc", "perplexity", "loss scale",
            "throughput", "memory", "rss")
# Words for a metric's shape, and the curve signals that show it.
_SHAPES = [
    (re.compile(r"(?i)\bnan\b|\binf\b|not a number"), ("nonfinite", "nonfinite_grad", "nonfinite_sudden", "log:anomaly_nan")),
    (re.compile(r"(?i)climb|grow|grew|increas|rising|rose|blow|explod"), ("grad_growth", "grad_growth_with_loss", "grad_steady_climb",
                                                                        "divergence")),
    (re.compile(r"(?i)spike"), ("loss_spike", "grad_spike")),
    (re.compile(r"(?i)plateau|flat|stuck|stall"), ("plateau", "loss_at_chance", "below_chance_stuck")),
    (re.compile(r"(?i)diverg"), ("divergence", "train_val_divergence")),
    (re.compile(r"(?i)zero grad|grad(?:ient)?s? (?:were |was |are )?(?:all )?zero|no grad"), ("grad_zero", "grad_zero_below_head")),
    (re.compile(r"(?i)oscillat|sawtooth|saw-tooth"), ("oscillation", "sawtooth_epoch")),
]
_COMMON_EN = frozenset(
    "the a an of to in on at by for with from and or not no is was were be been it its this that which when "
    "after before every each all any one our we us caught added lesson test tests fix fixed because but so "
    "then than too as into out up down first last run runs step steps epoch data loader model training train "
    "should must never always only use used using missing wrong bug if".split())
_WORD = re.compile(r"[^\W\d_]+", re.U)
# Words too common in code to say anything when a lesson and a traceback share them.
_DULL_NAMES = frozenset({"main", "forward", "__call__", "_call_impl", "_wrapped_call_impl", "train", "run", "step",
                         "wrapper", "module", "<module>", "backward", "fit", "loss", "data", "model", "self", "print"})


@dataclass
class Lesson:
    """One thing the repo learned: a CLAUDE.md entry or an earlier session's confirmed cause."""

    text: str                            # the entry as one line
    source: str                          # CLAUDE.md, or .mltdbg/sessions/<id>/events.jsonl (relative to the repo root)
    line: int                            # 1-based line of the entry's first line in `source`
    quote: str                           # that line as written (capped): what the verifier re-reads
    date: str | None = None              # ISO date when it could be read unambiguously
    date_raw: str | None = None          # the date as written
    origin: str = "claude_md"            # claude_md | session
    cause_ids: list[str] = field(default_factory=list)    # ids a session confirmed (or the text names)
    inferred: list[str] | None = None                     # causes its words point to (infer_causes), once known
    confirmed: bool = True               # written after a fix (CLAUDE.md) or a confirmed verdict/applied fix
    files: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)        # functions and code names (zero_grad, evaluate)
    errors: list[str] = field(default_factory=list)       # exception types and error phrases
    error_texts: list[str] = field(default_factory=list)  # quoted error text
    metrics: list[str] = field(default_factory=list)
    shapes: list[str] = field(default_factory=list)       # signal kinds its metric words describe
    english: bool = True
    session_id: str | None = None
    check: str | None = None             # the check that settled it (sessions)
    check_command: str | None = None
    fix: str | None = None               # the fix that was applied (sessions)
    commit: str | None = None

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"

    @property
    def when(self) -> str:
        return self.date or self.date_raw or "undated"

    def headline(self, n: int = 90) -> str:
        """The entry without its date and bullet, cut at n characters."""
        t = self.text
        if self.date_raw:
            t = t.replace(f"({self.date_raw})", "").replace(self.date_raw, "")
        t = " ".join(t.split()).lstrip("-:–— ")
        return t if len(t) <= n else t[: n - 3].rstrip() + "..."


@dataclass
class LessonSet:
    lessons: list[Lesson] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)        # problems, one line each, for the user's warnings
    info: list[str] = field(default_factory=list)         # what is normal but worth saying (no section, a language)

    def __iter__(self):
        return iter(self.lessons)

    def __len__(self) -> int:
        return len(self.lessons)


# ----------------------------------------------------------------------------- reading CLAUDE.md

def read_claude_md(repo_root: str | Path | None, name: str = LESSON_FILE) -> LessonSet:
    """The lessons of `<repo_root>/CLAUDE.md` (an empty set with no note when there is no such file)."""
    if repo_root is None:
        return LessonSet()
    path = Path(repo_root) / name
    try:
        if not path.is_file():
            return LessonSet()
        size = path.stat().st_size
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES)
    except OSError as e:
        return LessonSet(notes=[f"{name}: cannot read ({e.strerror or e}); no lessons read"])
    notes: list[str] = []
    if size > MAX_BYTES:
        notes.append(f"{name}: {size / 2**20:.1f} MB; read its first {MAX_BYTES // 2**20} MB for lessons")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = data.count(b"\n", 0, e.start) + 1
        notes.append(f"{name}:{bad}: not valid UTF-8; undecodable bytes replaced")
        text = data.decode("utf-8", errors="replace")
    out = parse_claude_md(text, name)
    out.notes[:0] = notes
    return out


def parse_claude_md(text: str, source: str = LESSON_FILE) -> LessonSet:
    """Lessons from CLAUDE.md text: the list items of its "Things that have bitten us" section(s)."""
    notes: list[str] = []
    heads = list(_HEADING.finditer(text))
    if not heads:
        return LessonSet(info=[f"{source}: no 'Things that have bitten us' section; no lessons read from it"])
    info: list[str] = []
    entries: list[tuple[int, list[str]]] = []
    for h in heads:
        level = len(h.group(1))
        end = len(text)
        for m in _ANY_HEADING.finditer(text, h.end()):
            if len(m.group(1)) <= level:
                end = m.start()
                break
        first_line = text.count("\n", 0, h.end()) + 2
        entries += _entries(text[h.end() + 1:end], first_line)
    if len(entries) > MAX_LESSONS:
        notes.append(f"{source}: {len(entries)} lessons; the newest {MAX_LESSONS} are used")
        entries = entries[-MAX_LESSONS:]
    lessons = []
    for line, raw in entries:
        lesson = _lesson(raw, source, line)
        if lesson is None:
            continue
        if not lesson.english:
            info.append(f"{source}:{line}: lesson not in English; matched by the file, function and error names "
                        f"in it only")
        lessons.append(lesson)
    if not lessons:
        info.append(f"{source}: the 'Things that have bitten us' section has no entries")
    return LessonSet(lessons, notes, info)


def _entries(section: str, first_line: int) -> list[tuple[int, list[str]]]:
    """(line number, its lines) of each list item; an item runs to the next item, blank line or heading."""
    out: list[tuple[int, list[str]]] = []
    cur: tuple[int, list[str]] | None = None
    for i, raw in enumerate(section.split("\n")):
        s = raw.rstrip("\r")
        if _BULLET.match(s):
            cur = (first_line + i, [s])
            out.append(cur)
        elif not s.strip() or s.lstrip().startswith("#"):
            cur = None
        elif cur is not None:
            cur[1].append(s)
    return out


def _lesson(lines: list[str], source: str, line: int) -> Lesson | None:
    text = " ".join(" ".join(lines).split())
    text = _BULLET.sub("", text, count=1).strip()
    if not text:
        return None
    text = text[:MAX_ENTRY_CHARS]
    date, raw = parse_date(text)
    ls = Lesson(text=text, source=source, line=line, quote=lines[0].strip()[:QUOTE_MAX], date=date, date_raw=raw)
    fill_names(ls, text)
    return ls


def parse_date(text: str) -> tuple[str | None, str | None]:
    """(ISO date or None when ambiguous, the date as written) of the first date in `text`."""
    head = text[:120]
    best: tuple[int, str | None, str] | None = None
    for rx, kind in _DATE_PATTERNS:
        m = rx.search(head)
        if not m or (best is not None and m.start() >= best[0]):
            continue
        iso = _iso(m, kind)
        if iso is False:
            continue
        best = (m.start(), iso, m.group(0))
    if best is None:
        return None, None
    return best[1], best[2]


def _iso(m: re.Match, kind: str):
    """ISO string, None (a real but ambiguous date), or False (not a date)."""
    try:
        if kind == "ymd":
            return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
        if kind == "dmy?":
            a, b, y = int(m.group(1)), int(m.group(3)), int(m.group(4))
            if m.group(2) == "." or a > 12:          # 04.05.2026 and 25/05/2026 are day first
                return _dt.date(y, b, a).isoformat()
            if b > 12:                                # 05/25/2026 is month first
                return _dt.date(y, a, b).isoformat()
            _dt.date(y, b, a)
            return None                               # 04/05/2026: April or May
        if kind == "d mon y":
            mon = _MONTHS.get(m.group(2)[:3].lower())
            return _dt.date(int(m.group(3)), mon, int(m.group(1))).isoformat() if mon else False
        if kind == "mon d y":
            mon = _MONTHS.get(m.group(1)[:3].lower())
            return _dt.date(int(m.group(3)), mon, int(m.group(2))).isoformat() if mon else False
    except (ValueError, TypeError):
        return False
    return False


def fill_names(ls: Lesson, text: str) -> None:
    """The names a lesson mentions (files, functions, exception types, quoted errors, metrics)."""
    ls.files = _uniq(m.group(1) for m in _FILE.finditer(text))
    names = [m.group(1).rsplit(".", 1)[-1] for m in _CALL.finditer(text)]
    for m in _TICKED.finditer(text):
        t = m.group(1).strip().rstrip("()")
        if re.fullmatch(r"[A-Za-z_][\w.]*", t) and not _FILE.fullmatch(t):
            names.append(t.rsplit(".", 1)[-1])
    names += [m.group(1) for m in _SNAKE.finditer(text)]
    ls.names = _uniq(n for n in names if n not in _DULL_NAMES and len(n) > 2)
    ls.errors = _uniq([m.group(1) for m in _EXC.finditer(text)] + [m.group(0) for m in _PHRASES.finditer(text)])
    ls.error_texts = _uniq(next(g for g in m.groups() if g) for m in _QUOTED.finditer(text))
    low = text.lower()
    ls.metrics = [mt for mt in _METRICS if re.search(rf"(?<![\w]){re.escape(mt)}(?![\w])", low)]
    ls.shapes = _uniq(k for rx, kinds in _SHAPES if rx.search(text) for k in kinds)
    words = _WORD.findall(text)
    common = sum(1 for w in words if w.lower() in _COMMON_EN)
    letters = sum(len(w) for w in words)
    foreign = sum(1 for w in words for ch in w if ord(ch) > 127)
    ls.english = not words or (common / len(words) >= ENGLISH_SHARE and foreign <= 0.3 * letters)


def _uniq(xs: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(x for x in xs if x))[:30]


# ----------------------------------------------------------------------------- which cause a lesson is about

_STOP = frozenset("a an the of or and in on to for with not is be by too from at as one its it".split())
# A cause's title counts as named when this share of its word stems is in the lesson.
TITLE_SHARE = 2 / 3


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if w not in _STOP and len(w) > 1}


def infer_causes(text: str, causes: dict[str, tuple[str, Callable[[str], int]]]) -> list[str]:
    """The cause(s) a lesson's words are about: its id (3 points), its title's words (2; `lr` reads as
    learning rate) and each of its symptom patterns that matches (1, counted by the cause's own
    reader: `hits(text)`). The best-scoring causes, when the
    best score is 2 or more or a single cause has it; else none (words that fit everything say nothing)."""
    low = text.lower()
    stems = _stems(re.sub(r"\blr\b", "learning rate", low))
    scores: dict[str, int] = {}
    for cid, (title, hits) in causes.items():
        sc = 3 if (cid in low or cid.replace("_", " ") in low) else 0
        ts = _stems(title)
        if ts and len(ts & stems) / len(ts) >= TITLE_SHARE:
            sc += 2
        sc += hits(text)
        if sc:
            scores[cid] = sc
    if not scores:
        return []
    top = max(scores.values())
    best = sorted(c for c, v in scores.items() if v == top)
    return best if top >= 2 or len(best) == 1 else []


# ----------------------------------------------------------------------------- matching

@dataclass
class Facts:
    """What a new diagnosis offers to match lessons against."""

    files: set[str] = field(default_factory=set)          # base names of files in tracebacks and citations
    functions: set[str] = field(default_factory=set)      # functions in traceback frames
    code: str = ""                                        # the frames' code lines and the cited quotes, joined
    errors: set[str] = field(default_factory=set)         # exception types (short names)
    messages: str = ""                                    # exception messages and error lines, joined
    kinds: set[str] = field(default_factory=set)          # signal kinds present


@dataclass
class LessonMatch:
    lesson: Lesson
    reasons: list[str]                    # "same cause", "same function evaluate()", ...
    same_cause: bool = False

    @property
    def score(self) -> int:
        return len(self.reasons)

    def words(self) -> str:
        """'seen before: 2026-05-04, CLAUDE.md:41: Off-by-one in DataLoader ... (same cause, same file data.py)'."""
        return f"seen before: {self.lesson.when}, {self.lesson.where}: {self.lesson.headline()} ({', '.join(self.reasons)})"


MAX_FACT_CHARS = 200_000


def facts_of(run: Run, signals: Iterable[Signal]) -> Facts:
    """Files, functions, exception types and messages of a run's tracebacks and its signals' citations."""
    f = Facts()
    code: list[str] = []
    msgs: list[str] = []
    for tb in run.tracebacks[:200]:
        f.errors.add(tb.exc_type.rsplit(".", 1)[-1])
        msgs.append(tb.message[:2000])
        for fr in tb.frames[-30:]:
            if "site-packages" in fr.file or "/lib/python" in fr.file:
                continue
            f.files.add(Path(fr.file).name)
            f.functions.add(fr.func)
            if fr.code:
                code.append(fr.code)
    for s in signals:
        f.kinds.add(s.kind)
        for e in s.evidence[:3]:
            if e.source:
                f.files.add(Path(e.source.split("@")[0]).name)
            if e.quote:
                (msgs if s.kind.startswith(("log:", "ranks:")) else code).append(e.quote)
    f.code = "\n".join(code)[:MAX_FACT_CHARS]
    f.messages = "\n".join(msgs)[:MAX_FACT_CHARS]
    f.functions -= _DULL_NAMES
    return f


def facts_of_text(text: str) -> Facts:
    """Facts from a pasted traceback or error text (before any diagnosis)."""
    f = Facts()
    text = text[:MAX_FACT_CHARS]
    for m in re.finditer(r'File "([^"]+)", line \d+, in (\S+)', text):
        if "site-packages" in m.group(1) or "/lib/python" in m.group(1):
            continue
        f.files.add(Path(m.group(1)).name)
        f.functions.add(m.group(2))
    f.errors = {m.group(1).rsplit(".", 1)[-1] for m in re.finditer(r"^\s*(?:\[\w+\]:\s*)?([A-Za-z_][\w.]*(?:Error|Exception))\b",
                                                                    text, re.M)}
    f.functions -= _DULL_NAMES
    f.code = text
    f.messages = text
    return f


def match(lesson: Lesson, cause_id: str | None, facts: Facts, cause_kinds: Iterable[str] = ()) -> LessonMatch | None:
    """Whether `lesson` fits a hypothesis of cause `cause_id`, and why.

    A lesson fits when it is about the same cause (a session confirmed that id, or, for an English
    lesson, its words point to it: `lesson.inferred`, see infer_causes), or when it names the same error
    text and the same file or function. The reasons add the same file, function, error text and metric
    pattern it shares with the facts.
    """
    reasons: list[str] = []
    same_cause = False
    if cause_id and cause_id in lesson.cause_ids:
        same_cause = True
        reasons.append("same cause")
    elif cause_id and lesson.english and not lesson.cause_ids and cause_id in (lesson.inferred or []):
        same_cause = True
        reasons.append("same kind of failure")
    files = [x for x in lesson.files if Path(x).name in facts.files]
    if files:
        reasons.append(f"same file {files[0]}")
    funcs = [n for n in lesson.names if n in facts.functions or (len(n) > 4 and n in facts.code)]
    if funcs:
        reasons.append(f"same function {funcs[0]}()" if funcs[0] in facts.functions else f"same code {funcs[0]}")
    err = [e for e in lesson.errors if e in facts.errors or (len(e) > 3 and e in facts.messages)]
    txt = [t for t in lesson.error_texts if t in facts.messages or t in facts.code]
    if txt:
        reasons.append(f"same error text '{txt[0][:60]}'")
    elif err:
        reasons.append(f"same error {err[0]}")
    kinds = set(cause_kinds) or facts.kinds
    shape = [k for k in lesson.shapes if k in kinds]
    if shape and lesson.metrics:
        reasons.append(f"same {lesson.metrics[0]} pattern ({shape[0]})")
    if same_cause or ((txt or err) and (files or funcs)):
        return LessonMatch(lesson, reasons, same_cause)
    return None


def related_to_text(lessons: Iterable[Lesson], text: str,
                    causes: dict[str, tuple[str, Callable[[str], int]]] | None = None) -> list[LessonMatch]:
    """Lessons that fit a pasted traceback: its error text and its files or functions, or a cause its
    words point to (`causes`: cause id -> (title, symptom reader), recall.cause_words; the text's own causes are inferred
    the same way as a lesson's). Best first."""
    facts = facts_of_text(text)
    causes = causes or {}
    hinted = infer_causes(text[:MAX_FACT_CHARS], causes) if causes else []
    out: list[LessonMatch] = []
    for ls in lessons:
        if ls.inferred is None and causes:
            ls.inferred = infer_causes(ls.text, causes)
        best = None
        for cid in hinted or [None]:
            m = match(ls, cid, facts)
            if m is not None and (best is None or m.score > best.score):
                best = m
        if best is not None and (len(best.reasons) >= 2 or not best.same_cause or ls.cause_ids):
            out.append(best)
    out.sort(key=lambda m: (-m.score, -(m.lesson.line if m.lesson.origin == "claude_md" else 0)))
    return out[:10]
