"""A learned reading of the words: which causes the user's sentences and the artifacts' text point to.

In: the user's symptom sentences and the run's text artifacts (a bounded head and tail of each), each guess in the
user's own words (the symptom, a post; not a log) blanked to the end of its clause ("I suspect the default init"): a guess
is no observation (prose.without_guesses). The counts are learned from text as written (guesses in).
Out: one number per cause, `log p_text(cause) + log(n_causes)` (0 = no opinion, clipped to
+-TEXT_CLIP), which scoring.py adds as a feature with a fitted weight.

The model is a multinomial naive Bayes over stemmed word unigrams and bigrams. Its counts come from the
playbooks' own text (title, issue, check, fix, needs, symptom vocabulary: the prior every cause
has) plus the symptom sentences and artifact text of the tune cases (fault zoo tune split and the
real-failure corpus's tune part; never their held-out parts), written by scripts/fit_weights.py
to `textmodel.json`. Regular expressions only catch the phrasings someone wrote down; counted words
carry over to other people's phrasings ("accuracy stuck at 10%", "predicts the same class").

Artifact text is scaled to ARTIFACT_TOKENS effective tokens (the mean log-likelihood per token
times that number), so a 5 MB log does not drown the user's sentence. Cost: one pass over at
most MAX_FILES * (HEAD + TAIL) characters.
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from mltdbg.analyzers.prose import CJK_CHARS, is_data_sample, without_guesses

MODEL_FILE = "textmodel.json"
# How much of each text artifact is read: errors sit at the end of logs, setup at the start.
HEAD_CHARS = 3000
TAIL_CHARS = 1000
MAX_FILES = 12
# The artifacts together count as this many tokens of evidence (the experiment on the corpus's
# tune part, leave-one-repository-out: 20 gave top-3 0.74 against 0.67 for the symptom alone).
ARTIFACT_TOKENS = 20.0
# Additive smoothing of the counts. Re-chosen on 382 corpus tune cases (2026-12), the word model alone,
# leave-one-repository-out: 0.05 / 0.1 / 0.3 / 0.5 / 1.0 gave top-1 0.552 / 0.571 / 0.599 / 0.592 / 0.581,
# top-3 0.702 / 0.730 / 0.759 / 0.741 / 0.733 (with ARTIFACT_TOKENS 10 / 20 / 40 at 0.1: 0.563 / 0.571 / 0.552).
ALPHA = 0.3
TEXT_CLIP = 4.0

_STOP = frozenset(
    "the a an and or of to in is it i my on for with this that be are was were at by as from but not no after "
    "before when then so we you your have has had do does did can could will would should if its into than only "
    "also very just there their they them he she his her our me what which who how why all any some more most "
    "over out up down off about again same other such own too get got use used using".split())
_WORD = re.compile(r"[a-z][a-z0-9_]+")
# A run of CJK characters (prose.CJK_CHARS: ideographs, kana, hangul): read as overlapping character pairs (most Chinese words
# are two characters long; the usual unit for CJK text retrieval when no segmenter is at hand).
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")


# Endings stripped from plain words of five or more letters, so the forms of one word count as one:
# "diverges", "diverged", "diverging" -> "diverg"; "gradients" -> "gradient". Identifiers (with `_`
# or digits) are kept whole. Measured against the Snowball (Porter 2) stemmer of `snowballstemmer`
# on the corpus's tune part, out of fold through the whole model (scripts/fit_weights.py --oof):
# this one top-1 0.569 / top-3 0.751 / CV NLL 0.861, Snowball 0.555 / 0.742 / 0.864, no stemming
# 0.551 / 0.738 / 0.873. Adding the parts of snake_case identifiers as words gave 0.567 / 0.748 / 0.858:
# no better, so left out.
_SUFFIX = re.compile(r"(?:ations?|ings?|edly|ed|es|s|ly|ment|ness|ity|ies|ied|er|ers)$")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """`word` without its ending (see _SUFFIX); short words and identifiers unchanged."""
    if len(word) <= 4 or not word.isalpha():     # `_` and digits are not alphabetic: identifiers stay whole
        return word
    s = _SUFFIX.sub("", word)
    return s if len(s) >= 3 else word


def tokens(text: str) -> list[str]:
    """Lower-case words of three or more characters (stop words dropped), stemmed, and their bigrams;
    for Chinese, Japanese and Korean text (no spaces between words), its character bigrams."""
    w = [stem(x) for x in _WORD.findall(text.lower()) if len(x) > 2 and x not in _STOP]
    out = w + [f"{a} {b}" for a, b in zip(w, w[1:])]
    for run in _CJK_RUN.findall(text):
        out += [run[i:i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run]
    return out


# An environment listing: a text or YAML file named for one (environment.txt, env.txt, collect_env.txt, pip_freeze.txt,
# requirements.txt, conda_list.txt, sysinfo.txt, a conda environment.yml), never code or a log (env.py, env-train.log).
_ENV_FILE = re.compile(r"(?i)(?:[\w-]*[_-])?(?:env|environment|envinfo|sys(?:tem)?[_-]?info|versions?|pip[_-]?(?:freeze|list)"
                       r"|requirements|conda[_-]?(?:list|env))\.(?:txt|yml|yaml)")


# Which artifacts the word model reads first when a run has more than MAX_FILES: what people write (a post, a
# traceback), then logs, configs, code; each kind by path. Sorted, so the choice does not depend on the order the
# files were named in (an MLflow folder's many small files once pushed the post out when named first).
_KIND_ORDER = {"text": 0, "traceback": 1, "log": 2, "config": 3, "code": 4}


def artifact_text(texts) -> str:
    """Bounded head and tail of the run's text artifacts (TextArtifact-like: `.text`), environment listings and the
    text cells of data samples (a CSV of the training set's texts) left out, at most MAX_FILES of them in _KIND_ORDER."""
    parts = []
    kept = sorted((t for t in texts if not (t.kind != "code" and _ENV_FILE.fullmatch(t.path.rsplit("/", 1)[-1]))
                   and not (t.kind == "text" and is_data_sample(t.path, t.text))),
                  key=lambda t: (_KIND_ORDER.get(t.kind, 5), t.path))
    for t in kept[:MAX_FILES]:
        s = t.text
        s = s if len(s) <= HEAD_CHARS + TAIL_CHARS else s[:HEAD_CHARS] + "\n" + s[-TAIL_CHARS:]
        parts.append(without_guesses(s) if t.kind == "text" else s)     # (a post's guesses; a log's words as printed)
    return "\n".join(parts)


@dataclass
class TextModel:
    counts: dict[str, dict[str, float]]   # cause -> token -> count
    vocab: int
    _known_cache: frozenset[str] | None = field(default=None, repr=False)
    _totals_cache: dict[str, float] | None = field(default=None, repr=False)

    @classmethod
    def build(cls, docs: dict[str, list[str]]) -> "TextModel":
        """`docs`: cause -> texts (playbook text and tune-case texts already weighted by repetition)."""
        counts: dict[str, dict[str, float]] = {}
        for cause, texts in docs.items():
            c: Counter[str] = Counter()
            for t in texts:
                c.update(tokens(t))
            counts[cause] = dict(c)
        return cls.from_counts(counts)

    @classmethod
    def from_counts(cls, counts: dict[str, dict[str, float]]) -> "TextModel":
        vocab = len({w for c in counts.values() for w in c})
        return cls(counts=counts, vocab=max(1, vocab))

    def scores(self, symptoms: list[str], artifacts: str = "") -> dict[str, float]:
        """cause -> log p(cause | words) + log(n causes), clipped; {} when there are no words. In order
        of the unclipped value, highest first (what a ranking by the words reads past the clip)."""
        # (a guess, "I suspect the default init", is no evidence for what it names: prose.without_guesses; a post's
        # guesses are blanked by artifact_text)
        ws = Counter(tokens(without_guesses(" ".join(symptoms))))
        wf = Counter(tokens(artifacts)) if artifacts else Counter()
        if not ws and not wf or not self.counts:
            return {}
        n_s, n_f = sum(ws.values()), sum(wf.values())
        known = self._known()
        ws_k = [(w, n) for w, n in ws.items() if w in known]
        wf_k = [(w, n) for w, n in wf.items() if w in known]
        la = math.log(ALPHA)
        raw: dict[str, float] = {}
        for cause, c in self.counts.items():
            # every token scores log(alpha) - denom unless the cause has seen it: add the difference
            denom = math.log(self._totals()[cause] + ALPHA * self.vocab)
            s = n_s * (la - denom) + sum(n * (math.log(c[w] + ALPHA) - la) for w, n in ws_k if w in c)
            if n_f:
                f = n_f * (la - denom) + sum(n * (math.log(c[w] + ALPHA) - la) for w, n in wf_k if w in c)
                s += ARTIFACT_TOKENS * f / n_f
            raw[cause] = s
        m = max(raw.values())
        z = m + math.log(sum(math.exp(v - m) for v in raw.values()))
        n = math.log(len(raw))
        # highest first by the unclipped value: causes tied at the clip keep the model's own order
        return {k: max(-TEXT_CLIP, min(TEXT_CLIP, v - z + n)) for k, v in sorted(raw.items(), key=lambda kv: -kv[1])}

    def _known(self) -> frozenset[str]:
        if self._known_cache is None:
            self._known_cache = frozenset(w for c in self.counts.values() for w in c)
        return self._known_cache

    def _totals(self) -> dict[str, float]:
        if self._totals_cache is None:
            self._totals_cache = {k: float(sum(c.values())) for k, c in self.counts.items()}
        return self._totals_cache


@lru_cache(maxsize=1)
def model() -> TextModel | None:
    """The counts shipped as package data; None when the file is absent (the engine then ignores words)."""
    f = resources.files("mltdbg.playbooks").joinpath(MODEL_FILE)
    if not f.is_file():
        return None
    d = json.loads(f.read_text("utf-8"))
    return TextModel.from_counts(d["counts"])


def scores_for(symptoms: list[str], texts, m: TextModel | None = None) -> dict[str, float]:
    """A model's scores for a run (`texts`: its TextArtifacts); m: the shipped model when None;
    {} without one."""
    if m is None:
        m = model()
    return m.scores(symptoms, artifact_text(texts)) if m is not None else {}


def said_scores_for(words: list[str], texts, m: TextModel | None = None) -> dict[str, float]:
    """scores_for what was said about the run: the user's words and the text of its logs, tracebacks
    and configs, not its code (a training script's words, `lr`, `optimizer`, `init`, are in every
    script and name no failure)."""
    return scores_for(words, [t for t in texts if t.kind != "code"], m)


_REGEX_SYNTAX = re.compile(r"\\[bdswBDSW]|[\\()|?*+\[\]^$.{}]")


def playbook_docs() -> dict[str, list[str]]:
    """Each cause's own words: the prior of the word model (title, issue, check, fix, needs, lesson,
    the phrasings of `described_as`, and the symptom regexes with their syntax blanked)."""
    from mltdbg.playbooks import library  # noqa: PLC0415 - only the fit script builds from the playbooks
    out: dict[str, list[str]] = {}
    for pb in library.causes().values():
        parts = [pb.title, pb.issue, pb.check, pb.fix, " ".join(pb.needs), pb.lesson or "", *pb.described_as]
        parts += [_REGEX_SYNTAX.sub(" ", p.pattern) for p in pb.symptoms]
        out[pb.id] = [" ".join(str(x) for x in parts if x)]
    return out
