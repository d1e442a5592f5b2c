"""The user's own words inside the artifacts: a post, an issue body, a notes file saved beside the log.

A thin report is often a text file of prose (what was run, what happened, what was tried) with a few
pasted lines in it. Its sentences say what the symptom sentence says, at more length: the engine
reads them as the user's words (failure classes, "what I tried", the failure words), not as a log.

In: the run's TextArtifacts. Out: `prose_sentences(texts)` -> the prose lines of the files that are
mostly prose (at most MAX_FILES files, MAX_CHARS characters each). A file is prose when at least
PROSE_SHARE of its non-blank lines read as sentences (MIN_SENTENCES of them, or one paragraph): several words with
a function word among them, mostly letters, few digits, no `key=value` or `key: number` metric shapes,
no traceback frame; or a short note in a chat's shorthand (_short_note). Logs, code, configs and tracebacks
are not. `bare_error_lines(texts, most)` -> the exception lines ("ValueError: ...") pasted without a traceback header, which the traceback analyzers cannot
find and prose leaves out. `quoted_code(lines)` -> the blocks of Python a post quotes without fences (a
four-space indent, or pasted as it ran): prose skips them, and code/index checks them as the post's code.
Cost: at most one pass over each text artifact's first SCAN_CHARS characters, left as soon as the
share is out of reach; the cheap tests of a line (code, metric shapes, words) before its characters.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from mltdbg.analyzers.model import TextArtifact

# A guess in the user's words: the cue ("I suspect the default init", "maybe the lr is too high", "could it be
# overfitting?"). What follows it in its clause names a hypothesis to test, not something the user saw.
HEDGE_CUE = (r"\b(?:i\s+(?:think|suspect|guess|believe|assume|wonder\s+(?:if|whether))|maybe|perhaps|probably|possibly"
             r"|my\s+guess|could\s+it\s+be|is\s+it\s+(?:because|possible|that)|might|may\s+be)\b")
# ... to the end of its clause: a sentence's end (not a decimal point), or ", and" / ", but" that starts what was seen
_GUESS = re.compile(HEDGE_CUE + r"(?:[^.;!?\n,]|\.(?=\d)|,(?!\s*(?:and|but)\b))*", re.I)


def without_guesses(text: str) -> str:
    """`text` with each guess (HEDGE_CUE to the end of its clause) blanked: what the user saw, not what they suspect.
    For the user's own words (a symptom, a post), not a log: a framework's "this might be caused by ..." is its text."""
    return _GUESS.sub(" ", text)


# A conversation with an AI assistant pasted or exported as text ("## User" / "## Assistant", "User:" / "ChatGPT:",
# "**You:**" / "**Claude:**"): the user's turns hold what they saw and pasted; the assistant's hold its guesses, model
# output, which is no observation of the run (the cause it names, the errors it quotes as examples).
_TURN = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*|>[ \t]*)?(?:\*\*)?(?P<who>user|you|me|human|assistant|chatgpt|gpt-?4o?|claude|gemini"
                   r"|copilot|bard|ai assistant)(?:[ \t]+said)?[ \t]*(?:\*\*)?[ \t]*:?[ \t]*(?:\*\*)?(?=[ \t]*$|[ \t]*:|:)",
                   re.I | re.M)
_ASSISTANT = frozenset({"assistant", "chatgpt", "gpt4", "gpt-4", "gpt4o", "gpt-4o", "claude", "gemini", "copilot", "bard",
                        "ai assistant"})
TURN_SCAN = 200_000      # (a transcript is a small file: only this much is looked at for its turns)
TURN_LEAD_LINES = 3      # non-blank lines before its first turn (a title, an export's date line)
_NOT_NEWLINE = re.compile(r"[^\n]")
# (a few substring finds before any pattern: a folder of 5,000 small logs paid 0.34 s for one case-blind search each)
_ASSISTANT_HINTS = ("ssistant", "SSISTANT", "hatGPT", "HATGPT", "hatgpt", "laude", "LAUDE", "emini", "EMINI", "opilot",
                    "OPILOT", "Bard", "BARD", "bard")


def without_assistant_turns(text: str) -> str:
    """`text` with an AI assistant's turns blanked (spaces; line breaks kept, so lines and offsets stay the file's), when
    it is a transcript: it opens with a user's turn header (under a title at most) and holds an assistant's, each on a
    line of its own or before its first words. Any other text as it is; for posts and logs only, never code or a config
    (a chat template's "Assistant:")."""
    if len(text) > TURN_SCAN or not any(h in text for h in _ASSISTANT_HINTS):
        return text
    heads = [(m.start(), m.group("who").lower()) for m in _TURN.finditer(text)]
    if not heads or heads[0][1] in _ASSISTANT or not any(w in _ASSISTANT for _, w in heads) \
            or len([ln for ln in text[:heads[0][0]].splitlines() if ln.strip()]) > TURN_LEAD_LINES:
        return text     # (a transcript opens with the user's turn, under a title at most: not a sample a log printed)
    parts, done = [], 0
    for (at, who), (nxt, _) in zip(heads, heads[1:] + [(len(text), "")]):
        if who in _ASSISTANT:
            parts += [text[done:at], _NOT_NEWLINE.sub(" ", text[at:nxt])]
            done = nxt
    return "".join(parts) + text[done:]


PROSE_SHARE = 0.5
# a line with two or more `key=value` / `key: number` shapes is a metric line unless it has at least this
# many words per shape: a sentence may quote a call ("I use DataLoader(ds, batch_size=256, num_workers=0)")
WORDS_PER_METRIC = 6
MIN_WORDS = 6          # a sentence has this many words (CJK: MIN_CJK characters)
MIN_CJK = 12
MAX_FILES = 4
MAX_CHARS = 6000
SCAN_CHARS = 20000
_KINDS = ("log", "text")
_METRIC = re.compile(r"[\w\]\)'\"]\s*(?:=|:)\s*[-+]?\d*\.?\d+(?:e[-+]?\d+)?\b", re.I)
_CODE = re.compile(r"^\s*(?:def |class |import |from \S+ import|for .+:$|if .+:$|return\b|#include|\$ |>>> |@)|[{};]\s*$")
# Chinese, Japanese and Korean characters (ideographs, kana, hangul): text written without spaces
CJK_CHARS = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
_CJK = re.compile(f"[{CJK_CHARS}]")
# a sentence someone wrote has function words; a status line ("model: 6154 parameters, 2000 samples") has none
_FUNCTION_WORDS = ("the", "is", "are", "was", "were", "i", "my", "we", "it", "this", "that", "to", "of", "and", "but",
                   "when", "why", "how", "not", "have", "has", "can", "does", "don't", "doesn't", "didn't", "can't",
                   # ... and their like in the other languages posts come in most (Spanish, Portuguese, French,
                   # German, Italian): "la pérdida se vuelve nan", "la loss devient nan", "der Loss ist nan"
                   "el", "la", "los", "las", "del", "que", "es", "mi", "con", "para", "por", "se", "pero", "cuando",
                   "os", "do", "da", "em", "meu", "minha", "com", "mas", "quando", "não",
                   "le", "les", "du", "des", "est", "et", "je", "mon", "ma", "avec", "pour", "mais", "quand", "pas",
                   "der", "die", "das", "ist", "und", "ich", "mein", "mit", "aber", "wenn", "nicht",
                   "il", "di", "che", "mio", "per", "ma", "non",
                   # ... and Russian ("лосс сначала падает, а потом становится nan")
                   "и", "в", "не", "на", "что", "я", "с", "а", "но", "как", "при", "это", "у", "по", "для", "мой", "моя")
# (the lookahead, the words' first letters, only spares the alternation where none can start: ~4x faster)
_FUNCTION = re.compile(r"\b(?=[%s])(?:%s)\b" % ("".join(sorted({w[0] for w in _FUNCTION_WORDS})), "|".join(_FUNCTION_WORDS)),
                       re.I)
# The same words as plain tokens, and a table that blanks every ASCII character but letters: in an ASCII
# text, a word _FUNCTION finds is one of the letter runs left (the contractions by their first part),
# so a text with none of these tokens has no sentence (one split, ~5x quicker than the regex on a log).
_FUNCTION_TOKENS = frozenset(w.split("'")[0] for w in _FUNCTION_WORDS)
_LETTERS_ONLY = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalpha()})
# a traceback's frames and its error line are read by the traceback analyzers, not as the user's words
_TRACE = re.compile(r"^\s*(?:File \"|Traceback \(|[\w.]*(?:Error|Exception|Warning)\b:?|at [\w.$]+\()")
# a file is prose with this many sentence lines, or one paragraph of MIN_PARAGRAPH_WORDS words
MIN_SENTENCES = 2
MIN_PARAGRAPH_WORDS = 15
# ... or of this many CJK characters (_cjk_length): a Chinese sentence says in about 1.6 characters what an
# English one says in a word, so 15 words are some 24 characters ("开启amp混合精度训练后，loss变成nan，关掉amp之后就正常了。")
MIN_PARAGRAPH_CJK = 24
# model output a log prints ("sample: 'the wlg smar r'") is not the user's words
_SAMPLE = re.compile(r"^[\w ]{1,24}:\s*['\"]")
# nor a status line a framework prints per epoch or step (Keras' ModelCheckpoint: "Epoch 3: val_loss improved
# from 0.41 to 0.39, saving model to best.h5"; "Epoch 00010: early stopping")
# (or a metric's name after the number, no separator: "epoch 2  loss 2.3026  acc 0.0998")
_STATUS = re.compile(r"^[\[(]?(?:epoch|step|iter(?:ation)?|batch)\s*\d+(?:\s*/\s*\d+)?[\])]?"
                     r"(?:\s*[:|-]|\s+(?:train\w*|val\w*|loss|acc\w*|lr|err\w*)\s+[-+]?\d*\.?\d)", re.I)


def is_sentence(line: str) -> bool:
    s = line.strip()
    # every test below is a reason to say no, so their order is only speed: the cheapest first
    words = s.isascii() or len(_CJK.findall(s)) < MIN_CJK     # read by its words (not CJK characters)
    if not s or (words and len(s.split()) < MIN_WORDS):
        return False
    if _CODE.search(s) or _TRACE.search(s) or _SAMPLE.search(s) or _STATUS.match(s):
        return False
    metrics = len(_METRIC.findall(s))
    if metrics >= 2 and len(s.split()) < WORDS_PER_METRIC * metrics:
        return False     # a metric line ("Epoch 1: loss=0.69 acc=0.50"), not a sentence quoting a call's arguments
    if words and not _FUNCTION.search(s):
        return False
    letters = sum(map(str.isalpha, s))
    digits = sum(map(str.isdigit, s))
    return letters >= 0.6 * len(s.replace(" ", "")) and digits <= 0.2 * len(s)


_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def _cjk_length(line: str) -> int:
    """A CJK sentence's length in characters, each Latin word in it counted as two (a Chinese post names
    "loss", "nan", "epoch", "SGD" in Latin letters: 训练到第3个epoch的时候loss突然变成nan了)."""
    cjk = len(_CJK.findall(line))
    return cjk + 2 * len(_LATIN_WORD.findall(line)) if cjk else 0


# A project's documentation, not a post: a README's usage examples are sketches, not the code that ran; its
# tables of results are no run's history
_DOC_NAME = re.compile(r"(?:^|/)(?:readme|changelog|changes|history|contributing|code_of_conduct|license|notice)[^/]*$",
                       re.I)


# ... but a model card is a run's record: the Trainer writes its README.md with the run's settings and its table of
# evaluations ("This model card has been generated automatically", the `generated_from_trainer` tag)
_MODEL_CARD = re.compile(r"generated_from_trainer|model card has been generated automatically", re.I)


def is_model_card(path: str, text: str) -> bool:
    """A README the Hugging Face Trainer wrote: named as documentation, its head marks it as generated."""
    return bool(_DOC_NAME.search(path)) and bool(_MODEL_CARD.search(text[:MODEL_CARD_HEAD]))


def is_documentation(path: str, text: str | None = None) -> bool:
    """A project's documentation by its file name; `text`, where given, clears a model card."""
    return bool(_DOC_NAME.search(path)) and not (text is not None and is_model_card(path, text))


MODEL_CARD_HEAD = 20_000
# Data samples: a table whose header names a column of free text (text, sentence, review, ...): its cells are
# the data's words, nobody's about the run (a metrics export's names, "train:loss", are words about it)
_DATA_EXT = (".csv", ".tsv")
_TEXT_COLUMN = re.compile(r"(?:^|[,\t;|])[ \t\"']*(?:text|texts|sentence\d?|review|comment|content|utterance|question"
                          r"|answer|title|body|document|tweet|prompt|response|transcript|caption)[ \t\"']*(?=[,\t;|]|$)",
                          re.I)


def is_data_sample(path: str, text: str) -> bool:
    """A CSV / TSV whose header names a free-text column: a sample of the data set."""
    return path.lower().endswith(_DATA_EXT) and bool(_TEXT_COLUMN.search(text[:text.find("\n") if "\n" in text else 512]))


# A markdown fence line, ``` or ~~~ and the block's language ("```python", "~~~ {.py}"): what a post quotes
# (code/index.fenced_code reads the Python of it)
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*\{?\.?([\w+-]*)")


# Markdown and HTML structure of a post (a GitHub issue template's "## Environment", "- torch 2.2.0", a table row,
# "<details>", an image): what is not a sentence of it counts neither way
_MARKUP = re.compile(r"^\s*(?:#{1,6}\s|[-*+]\s|\d{1,2}[.)]\s|\|.*\|\s*$|</?[A-Za-z][^>]*>|!?\[[^\]]*\]\([^)]*\)\s*$"
                     r"|\*\*[^*]+\*\*:?\s*$)")


# ... nor an issue template's fields of the environment ("- GPU model and memory: Colab gpu default", "**CUDA/cuDNN
# version**: 10.1", "OS Platform and Distribution: Linux"), two or more in a row: a short label naming a version, a
# platform or the hardware, a colon and a short value. Read as sentences, "memory ... gpu" was a user saying they ran out of GPU memory
_FIELD = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*)?([^:*]{2,60}?)(?:\*\*)?\s*:(?:\*\*)?(?:\s+(\S.*))?\s*$")
_ENV_LABEL = re.compile(r"\b(?:versions?|platform|distribution|os|gpu|gpus|hardware|installed|compiler|bazel|driver"
                        r"|device|environment|cpu)\b", re.I)
_PERSON = re.compile(r"\b(?:i|my|we|our|it|you)\b", re.I)


def _template_fields(lines: list[str]) -> set[int]:
    """Indices of the environment fields that stand in a template's block of them (two or more in a row, a field
    the user left empty, "- CUDA/cuDNN version:", counted in the row): a lone "GPU: runs out of memory at batch 32"
    is the user's own sentence."""
    flag = [_env_field(ln) for ln in lines]
    return {i for i, f in enumerate(flag) if f and ((i > 0 and flag[i - 1]) or (i + 1 < len(flag) and flag[i + 1]))}


def _env_field(line: str) -> bool:
    m = _FIELD.match(line)
    if m is None:
        return False
    label, value = m[1], m[2] or ""         # (a field the user left empty counts in a template's block)
    return len(label.split()) <= 7 and len(value.split()) <= 8 and bool(_ENV_LABEL.search(label)) \
        and not _PERSON.search(label)


# ... nor the commands a post pastes between its sentences ("python train.py --batch 32 ...", "$ fairseq-generate
# ..."): neither sentence nor a reason to call the file no prose. (Rows of numbers, a results table's "0/99  6.21G
# 0.09812", were read so too: two held-aside diagnoses got worse (top-1 0.540 -> 0.539, top-3 0.734 -> 0.732), so
# they count against a post as before.)
_COMMAND = re.compile(r"^\s*(?:\$\s+|>\s+)?(?:python[\d.]*|torchrun|accelerate|deepspeed|fairseq-\w+|cat|grep|bash|sh|pip3?"
                      r"|git|nvidia-smi|srun|sbatch|mpirun|horovodrun|CUDA_VISIBLE_DEVICES=\S*|export)\s")


def _unfenced(text: str) -> list[str]:
    """The lines of `text` outside its ``` / ~~~ fences."""
    out, inside = [], False
    for ln in text.splitlines():
        if FENCE.match(ln):
            inside = not inside
        elif not inside:
            out.append(ln)
    return out


# Code a post quotes without fences: Stack Overflow's four-space indent, or lines pasted as they ran. A
# file holds some only if a line looks like one of these (one search over the file, before any line is parsed)
_CODE_HINT = re.compile(r"^[ \t]*(?:def |class |import |from [\w.]+ import |for .+:[ \t]*$"
                        r"|(?:[\w.\[\]]+(?:\s*,\s*[\w.\[\]]+)*\s*=\s*)?[A-Za-z_][\w.]*\()", re.M)
_CLAUSE = re.compile(r"^(?:else|try|finally)\s*:$|^(?:elif|except)\b.*:$")
_OPEN, _CLOSE = "([{", ")]}"
QUOTED_MIN = 2     # statements in a block of quoted code (one line is as often a traceback's or a sentence's)


def _depth(s: str) -> int:
    """Brackets `s` leaves open (strings not parsed: a quick count)."""
    return sum(s.count(c) for c in _OPEN) - sum(s.count(c) for c in _CLOSE)


def _closers(s: str) -> str:
    """The brackets that close what `s` leaves open, innermost first ("model = keras.Sequential([" -> "])");
    strings not parsed, as _depth."""
    stack: list[str] = []
    for ch in s:
        if ch in _OPEN:
            stack.append(_CLOSE[_OPEN.index(ch)])
        elif ch in _CLOSE and stack and stack[-1] == ch:
            stack.pop()
    return "".join(reversed(stack))


def _statement(s: str) -> int:
    """2 when `s` (one stripped line) is a Python statement that does something (a call, an import, a def /
    for / class opener), 1 when it is one that may (an assignment, a return, a clause), 0 when it is none:
    a sentence does not parse; "Thanks" parses as a name and "lr: 0.001" as an annotation, neither code."""
    if _CLAUSE.match(s):
        return 1
    text = s + " pass" if s.endswith(":") else s + _closers(s)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return 0
    if not tree.body:
        return 0        # (a comment, `# TODO: fix; later`)
    if len(tree.body) != 1 and not (";" in s and len(tree.body) <= 4):
        return 0        # (statements joined by ';' on one line, `loss = crit(out, y); loss.backward()`, are each read)
    kinds = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.While, ast.With,
                             ast.Import, ast.ImportFrom)):
            kinds.append(2)
        elif isinstance(node, ast.AnnAssign) or (isinstance(node, ast.Expr) and not isinstance(node.value, ast.Call)):
            return 0
        else:
            kinds.append(2 if any(isinstance(n, ast.Call) for n in ast.walk(node)) else 1)
    return max(kinds)      # (the body is not empty: checked above)


def quoted_code(lines: list[str]) -> list[range]:
    """The blocks of Python a post quotes without fences (indices into `lines`): runs of statement lines, with
    the comments, blank lines and bracket continuations between them, of QUOTED_MIN statements or more, one
    of them doing something (_statement 2). A file with no _CODE_HINT line holds none."""
    if not _CODE_HINT.search("\n".join(lines)):
        return []
    out: list[range] = []
    start, last, count, strong, depth = -1, -1, 0, False, 0
    for i, ln in enumerate(lines + ["\0"]):        # (a sentinel line that ends the last block)
        s = ln.strip()
        if start >= 0 and depth > 0:              # inside brackets a statement left open
            depth, last = max(0, depth + _depth(s)), i
            continue
        if start >= 0 and (not s or s.startswith("#")):
            continue
        kind = _statement(s) if s else 0
        if kind:
            if start < 0:
                start, count, strong = i, 0, False
            last, count, strong, depth = i, count + 1, strong or kind == 2, max(0, _depth(s))
            continue
        if start >= 0 and count >= QUOTED_MIN and strong:
            out.append(range(start, last + 1))
        start, depth = -1, 0
    return out


def prose_sentences(texts: Iterable[TextArtifact]) -> list[str]:
    """The sentence lines of each text artifact that is mostly prose, joined per file."""
    out: list[str] = []
    for t in texts:
        if t.kind not in _KINDS:
            continue
        if "prose" not in t.memo:      # (asked of one file by the readers and the code index, then of all by the engine)
            t.memo["prose"] = _prose_of(t)
        if t.memo["prose"]:
            out.append(t.memo["prose"])
            if len(out) >= MAX_FILES:
                break
    return out


def _prose_of(t: TextArtifact) -> str:
    """`t`'s sentence lines joined, or its short note; "" when it is no prose."""
    head = t.text[:SCAN_CHARS]
    if is_data_sample(t.path, head) or is_model_card(t.path, head):
        return ""     # a data file's text column (a sample of the training set) or a model card's generated sentences
        #               (its README.md; a post that pastes a card keeps its own sentences)
    if head.isascii() and _FUNCTION_TOKENS.isdisjoint(head.lower().translate(_LETTERS_ONLY).split()):
        # (a sentence has a function word: a log of metric lines has none in all its head; a note may not)
        return _short_note(head, t.path)
    fenced = "```" in head or "~~~" in head
    # greetings, titles and "(see train.log)" say nothing either way: not counted; nor what a post
    # quotes in ``` fences (its code or log: read as such, code/index.fenced_code)
    lines = _unfenced(head) if fenced else head.splitlines()
    # ... nor the code it quotes unfenced (quoted_code): a file that quotes code is a post as well
    if quoted := quoted_code(lines):
        inside = {i for r in quoted for i in r}
        lines, fenced = [ln for i, ln in enumerate(lines) if i not in inside], True
    lines = [ln for ln in lines if len(ln.split()) >= 3 or len(_CJK.findall(ln)) >= 3]
    if not lines:
        return ""
    # ... nor the log lines it pastes bare beside a sentence of the user's own ("My CNN predicts the same class
    # for every image." above two Keras epoch lines, or "What should I do?" below them): read as a log by the readers
    # (the progress lines first: a regex; most files have none, and then no line is asked whether it is a sentence)
    if (pasted := _metric_lines(lines)) and any(_users_sentence(ln) for ln in lines[:PASTED_SCAN]):
        lines, fenced = [ln for i, ln in enumerate(lines) if i not in pasted], True
    keep: list[str] = []
    misses, most = 0, len(lines) - PROSE_SHARE * len(lines)
    fields = _template_fields(lines)
    for i, ln in enumerate(lines):
        if i in fields:
            continue
        if is_sentence(ln):
            keep.append(ln.strip())
        elif _MARKUP.match(ln) or _COMMAND.match(ln):
            continue     # a post's headings, list items, tables and tags are neither sentence nor log
        else:
            misses += 1
            if misses > most:    # the share is out of reach: not prose, stop reading
                break
    # (a file that fences or quotes code is a post: one sentence of it is the user's words)
    enough = fenced or len(keep) >= MIN_SENTENCES or sum(len(k.split()) for k in keep) >= MIN_PARAGRAPH_WORDS \
        or sum(_cjk_length(k) for k in keep) >= MIN_PARAGRAPH_CJK
    if keep and enough and misses <= most:
        return " ".join(keep)[:MAX_CHARS]
    # ... or a terse post: a title line of its own words, then code and log lines labelled in its shorthand ("Old
    # code: ...", "New env: ..."), and a sentence that asks (a program's log asks nothing)
    asks = [ln.strip() for ln in lines if _ASKS.search(ln) and is_sentence(ln)]
    title = head.lstrip().split("\n", 1)[0].strip()
    if asks and _title_like(title):
        return " ".join(dict.fromkeys([title] + keep + asks))[:MAX_CHARS]
    return _short_note(head, t.path)


def _title_like(line: str) -> bool:
    """A post's first line as a title: TITLE_WORDS words or more, most of them words of letters, not a log's
    progress line, a traceback's or a command."""
    words = line.split()
    return len(words) >= TITLE_WORDS and sum(w.strip(",.:;()").isalpha() for w in words) >= len(words) / 2 \
        and not _STATUS.match(line) and len(_METRIC.findall(line)) < 2 and not _TRACE.match(line) \
        and not _COMMAND.match(line)


TITLE_WORDS = 5
_ASKS = re.compile(r"[?？](?:\s|$)")


# The user's own sentence: first person, or a question (a program's log prints neither); looked for in a file's
# first PASTED_SCAN lines (a post opens with its log pasted, or with its question)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|my|me|we|our)\b|\?\s*$", re.I)
PASTED_SCAN = 40


def _users_sentence(line: str) -> bool:
    return is_sentence(line) and bool(_FIRST_PERSON.search(line))


def _metric_lines(lines: list[str]) -> set[int]:
    """Indices of the progress lines ("Epoch 2/20 - loss: 14.5 - accuracy: 0.10", "step 30 | loss 2.1") that come
    two or more in a row."""
    hit = [bool(_STATUS.match(ln.strip())) or len(_METRIC.findall(ln)) >= 2 for ln in lines]
    return {i for i, h in enumerate(hit) if h and ((i > 0 and hit[i - 1]) or (i + 1 < len(hit) and hit[i + 1]))}


# A note of a line or three, in the shorthand of a chat message, no sentence in it: "loss went 2.3 -> 45.2 -> nan
# in 300 steps, sgd lr 0.8", "bs 64 OOMs on a 24GB 3090, bs 32 works". The whole file is the user's words when
# each line has SHORT_NOTE_WORDS words, three of them words of letters, one a _TERSE or function word (what a
# progress line has none of: "epoch 3 loss 2.30 acc 0.10"), and is no code, traceback, status or sample line.
SHORT_NOTE_CHARS = 400
SHORT_NOTE_LINES = 3
SHORT_NOTE_WORDS = 5
_TERSE = re.compile(r"\b(?:went|goes|go|after|with|every|over|on|off|at|in|no|fine|works?|worked|from|still|only|for|but"
                    r"|then|when|same|never|always|stuck|help|why|what|any|tips?|vs|instead|without|than|both|a)\b", re.I)


# ... a CJK line of the user's is told by what a program's status line ("训练完成，模型已经保存到output目录") has none of:
# a person (我, 私, 저는), a "then / but / can", a question word or particle
_CJK_SPOKEN = re.compile(r"我|就|但|吗|呢|为什么|怎么|请问|可以|不行|私|けど|ですが|ません|でしょうか|저는|제가|는데|나요|까요")


def _short_note(head: str, path: str) -> str:
    if len(head) > SHORT_NOTE_CHARS or is_documentation(path):     # (a README's one line describes the project)
        return ""
    lines = [ln.strip() for ln in head.splitlines() if ln.strip()]
    if not 0 < len(lines) <= SHORT_NOTE_LINES:
        return ""
    for s in lines:
        words = s.split()
        if _CODE.search(s) or _TRACE.search(s) or _SAMPLE.search(s) or _STATUS.match(s):
            return ""
        if len(_CJK.findall(s)) >= MIN_CJK and _CJK_SPOKEN.search(s):
            continue      # a line in Chinese, Japanese or Korean with its numbers ("batch_size设置成64就报显存不足 ... 3060 12G")
        if len(words) < SHORT_NOTE_WORDS or sum(w.strip(",.;:!?()").isalpha() for w in words) < 3:
            return ""
        if not (_TERSE.search(s) or _FUNCTION.search(s)):
            return ""
    return " ".join(lines)


# An exception's own line pasted without its traceback ("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
# a post's title): what the traceback analyzers read from a traceback's last line, with no header before it
# to find it by. `_TRACE` keeps such lines out of the prose above.
_BARE_ERROR = re.compile(r"^\s*((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Exit)):\s*(\S.{0,300})$", re.M)


def bare_error_lines(texts: Iterable[TextArtifact], most: int) -> list[str]:
    """The first `most` exception lines ("ValueError: ...") of the run's logs and texts (each file's first
    SCAN_CHARS characters), as written."""
    out: list[str] = []
    for t in texts:
        if t.kind not in _KINDS and t.kind != "traceback":
            continue
        for m in _BARE_ERROR.finditer(t.text, 0, SCAN_CHARS):
            out.append(f"{m.group(1)}: {m.group(2).strip()}")
            if len(out) >= most:
                return out
    return out

