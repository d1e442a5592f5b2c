"""`code:vocab_rebuilt_at_inference`, `code:encoder_refit_at_inference`: a serving or prediction script builds its
vocabulary (or fits its category encoder) again from the data it has, while the training script saved the one the
model was trained with; `code:vocab_per_split`: one loader builds a vocabulary for each split it is called for.

In:  the run's parsed files (PyFile, from code/index.py).
Out: `check_inference_refit(files)` -> [(file, Finding)].

A vocabulary rebuilt from another corpus gives the same words other ids (often the same size, so nothing fails:
the model reads other tokens), and an encoder fitted again maps categories to other codes. The training side must
write it out (json / pickle / joblib / torch.save of a name that holds it, a tokenizer's save), and the other side
must build one from data (build_vocab, fit_on_texts, a LabelEncoder's fit, a dict of enumerate(...) over the
texts' words) in a file named for inference or serving (serve, predict, inference, infer, app, handler, api,
deploy, export) that never loads such a file.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import STRONG, Finding, PyFile, last, src

_INFER_FILE = re.compile(r"(?:^|[_\-/])(?:serve|serving|server|predict\w*|inference|infer|app|handler|api|deploy\w*|export\w*)"
                         r"(?:[_\-.]|$)", re.I)
_VOCAB_NAME = re.compile(r"vocab|tokeni[sz]er|stoi|itos|word2idx|word_to_id|w2i|char2idx|token2id|word_index", re.I)
_ENCODER_NAME = re.compile(r"(?<!auto)encoder|label_map|class_to_idx|cat(?:egor\w*)?_map|mapping|categories", re.I)
# a file path the code opens or loads that holds a vocabulary / an encoder ("artifacts/vocab.txt", VOCAB_PATH, "enc.pkl")
_SAVED_FILE = re.compile(r"vocab|tokeni[sz]er|stoi|itos|word2idx|meta\.pkl|encoder|label_map", re.I)
_SAVE_CALLS = ("dump", "save", "save_pretrained", "save_vocabulary", "to_json", "write_text")
_LOAD_CALLS = ("load", "from_pretrained", "read_json", "load_vocab", "load_vocabulary", "read_text", "from_file")
_BUILD_VOCAB = ("build_vocab", "build_vocabulary", "build_vocab_from_iterator", "fit_on_texts", "make_vocab",
                "create_vocab", "get_vocab_from", "Vocab")
_FIT = ("fit", "fit_transform")
_ENCODERS = ("LabelEncoder", "OrdinalEncoder", "OneHotEncoder", "CountVectorizer", "TfidfVectorizer", "Tokenizer")


def _saves(f: PyFile, rx: re.Pattern) -> bool:
    return any(last(c) in _SAVE_CALLS and any(rx.search(src(a)) for a in c.args[:2]) for c in f.calls)


def _loads(f: PyFile, rx: re.Pattern) -> bool:
    """The file loads a saved one: a load call naming it, or an open() / load of a path that names a vocabulary or an
    encoder (`with open('artifacts/vocab.txt') as f: itos = f.read().splitlines()`; not any .json or .txt: the corpus
    a rebuilt vocabulary comes from is one)."""
    return any((last(c) in _LOAD_CALLS and rx.search(src(c)))
               or (last(c) in ("open", "load", "read_csv", "read_json", "loadtxt") and c.args
                   and _SAVED_FILE.search(src(c.args[0])))
               for c in f.calls)


def _built(f: PyFile) -> tuple[str, ast.Call | ast.Assign] | None:
    """('vocab' | 'encoder', the node) where the file builds a vocabulary or fits an encoder from data."""
    for c in f.calls:
        name = last(c)
        if name in _BUILD_VOCAB:
            return "vocab", c
        if name in _FIT and isinstance(c.func, ast.Attribute):
            recv = src(c.func.value)
            if any(e in recv for e in _ENCODERS) or _ENCODER_NAME.search(recv) or _VOCAB_NAME.search(recv):
                return ("vocab" if _VOCAB_NAME.search(recv) or "Tokenizer" in recv or "Vectorizer" in recv
                        else "encoder"), c
    for n in f.of_type(ast.Assign):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and _VOCAB_NAME.search(src(n.targets[0])) \
                and isinstance(n.value, ast.DictComp) and "enumerate" in src(n.value):
            return "vocab", n
    return None


# A vocabulary built from the text a function is handed: a builder call (also a tokenizer class's from_text), or the
# characters of it (`sorted(set(text))`) bound to a vocabulary's name
_FROM_TEXT = ("from_text", "from_texts", "from_corpus")
_CHARSET = re.compile(r"sorted\(\s*set\(|\bset\(")
# ... and encodes the text with it: an encode call, or a lookup of each token in the vocabulary
_ENCODES = re.compile(r"\.encode\(|\.tokenize\(|\b(?:stoi|vocab|char2idx|word2idx|w2i|token2id|char_to_idx|word_to_id)\s*\[",
                      re.I)
_TRAIN_ARG = re.compile(r"\btrain", re.I)
_HELD_ARG = re.compile(r"\b(?:val|valid|validation|test|held\w*|dev|eval)\b|(?:val|valid|test|heldout|dev|eval)(?:[_.]|\.txt)", re.I)


def _builds_vocab(f: PyFile, fn: ast.AST) -> bool:
    """Whether function `fn` builds a vocabulary from data: a builder call, or `sorted(set(...))` bound to a name
    like a vocabulary's (chars, itos, vocab: not a folder's file list or a frame's class list)."""
    for n in f.subtree(fn):
        if isinstance(n, ast.Call) and last(n) in (*_BUILD_VOCAB, *_FROM_TEXT):
            return True
        if isinstance(n, ast.Assign) and _CHARSET.search(src(n.value)) \
                and any(_VOCAB_NAME.search(src(t)) or re.search(r"\bchars?\b", src(t)) for t in n.targets):
            return True
    return False


def _vocab_per_split(f: PyFile) -> list[Finding]:
    """`code:vocab_per_split`: a function that builds a vocabulary from the text it loads (`load_split(path)`: read the
    file, then `CharTokenizer.from_text(text)`), called once for the training data and once, in another call with no
    more arguments (no vocabulary handed to it), for the held-out data: each split gets a vocabulary of its own, and a
    character or word missing from one shifts every id after it (the validation text scored on other ids than
    training taught)."""
    out: list[Finding] = []
    for fn in f.funcs:
        name = getattr(fn, "name", "")
        if not name or not _builds_vocab(f, fn):
            continue
        calls = [c for c in f.calls if isinstance(c.func, ast.Name) and c.func.id == name and c.args]
        train = next((c for c in calls if _TRAIN_ARG.search(src(c.args[0])) and not _HELD_ARG.search(src(c.args[0]))), None)
        held = next((c for c in calls if c is not train and _HELD_ARG.search(src(c.args[0]))
                     and not _TRAIN_ARG.search(src(c.args[0]))), None)
        if train is None or held is None:
            continue
        if len(held.args) + len(held.keywords) > len(train.args) + len(train.keywords) or any(
                _VOCAB_NAME.search(src(a)) for a in [*held.args[1:], *(k.value for k in held.keywords)]):
            continue        # (the held-out call hands the training vocabulary over: `load_split(val_path, stoi)`)
        if not _ENCODES.search(src(fn)):
            continue        # (a function that builds a vocabulary but encodes nothing with it: a reader, a stats printer)
        out.append(Finding("code:vocab_per_split", STRONG, held.lineno,
                           f"{name}() builds a vocabulary from the text it loads and is called for the training "
                           f"and for the held-out data: each split gets its own, and the same tokens other ids",
                           [(train.lineno, "the training split's vocabulary built here")], data={"function": name}))
    return out


def check_inference_refit(files: list[PyFile]) -> list[tuple[PyFile, Finding]]:
    out: list[tuple[PyFile, Finding]] = [(f, x) for f in files for x in _vocab_per_split(f)]
    for f in files:
        if not _INFER_FILE.search(f.t.path.rsplit("/", 1)[-1]) or (hit := _built(f)) is None:
            continue
        what, node = hit
        rx = _VOCAB_NAME if what == "vocab" else _ENCODER_NAME
        if _loads(f, rx):
            continue
        saver = next((g for g in files if g is not f and _saves(g, rx)), None)
        if saver is None:
            continue
        kind = "code:vocab_rebuilt_at_inference" if what == "vocab" else "code:encoder_refit_at_inference"
        thing = "vocabulary" if what == "vocab" else "category encoder"
        out.append((f, Finding(kind, STRONG, node.lineno,
                               f"{f.t.path} builds its {thing} again from the data it has, while {saver.t.path} saved the "
                               f"one the model was trained with: the same tokens / categories get other ids",
                               data={"saved_in": saver.t.path})))
    return out
