"""The offline engine's evidence model: features of a run, and the scores they give each cause.

In: a `DiagnosisContext` (signals, the user's symptom sentences). Out: a `Features`
record, and from it one score (log-odds) per candidate cause plus the two
pseudo-hypotheses "healthy" and "other". The engine turns scores into confidences
with a softmax at the fitted temperature.

score(cause) = log(prior) + sum_k (playbook_weight[cause,k] + learned_delta[cause,k]) * strength_k
               + symptom_match * (symptom_weight[cause] + THIN_BOOST * thinness)
               + text[cause] * (text_weight + text_thin * thinness)
               + class_rank_bonus (only when the failure class names the cause)

- The playbooks' weights are the prior; `weights.json` (written by scripts/fit_weights.py
  from the zoo's and the real-failure corpus's tune parts, never their held-out parts)
  holds the learned deltas, the per-cause symptom weights, the thinness boost and the
  temperature. Without the file the model is the playbooks alone.
- The user's words weigh more as the artifacts say less: `thinness` is 1 when no
  artifact signal speaks, 0 when a strong one does.
- `text[cause]` is the learned word model's opinion (textmodel.py: naive Bayes over the user's
  sentences and the artifacts' text); a cause it favours strongly joins the candidates even when
  no regular expression caught the phrasing, as a words-only candidate (capped by the engine).
- A cause no artifact supports (its `requires_any` unmet) can be lowered by the
  artifacts but never raised; it is a candidate only through the symptom or its
  failure class (the class playbooks list causes in order of frequency).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from mltdbg.analyzers.log_findings import quoted_messages
from mltdbg.analyzers.model import Run, Signal
from mltdbg.analyzers.prose import bare_error_lines, prose_sentences
from mltdbg.playbooks import library, said, textmodel

# A signal this weak does not satisfy a playbook's requires_any.
MIN_REQUIRED_STRENGTH = 0.15
# Without a fitted file: a symptom sentence is a hint worth this much log-odds.
DEFAULT_SYMPTOM_WEIGHT = 1.0
# Pseudo-hypotheses: prior log-odds of "the run is fine" and of "a cause no playbook has".
HEALTHY_PRIOR = math.log(0.25)
OTHER_PRIOR = math.log(0.12)
# Code findings that describe the setup rather than a bug; they do not count as the artifacts speaking.
BENIGN_CODE_KINDS = ("code:hf_trainer", "code:lightning", "code:no_grad_clip")
WEIGHTS_FILE = "weights.json"
# Without a fitted file: weight of the word model's log-odds (textmodel.py), and how far above
# "no opinion" (log-odds 0) it must put a cause for that cause to become a candidate by words alone:
# 1.5 is e^1.5 = 4.5x the uniform share; at most TEXT_CANDIDATES such causes join.
DEFAULT_TEXT_WEIGHT = 0.5
TEXT_CANDIDATE_AT = 1.5
TEXT_CANDIDATES = 3
# The failure class the user's words name (a NaN, a stall, an error) brings its most frequent causes
# as candidates: those of rank < CLASS_JOIN in the class's order of frequency, scored by the class
# term. Grouped CV on the tune data, class causes joining only when nothing else was ranked
# against these joining always: out-of-fold top-1 0.644 -> 0.665, top-3 0.786 -> 0.804 (2 and 8
# gave the same or less). The whole class still joins when nothing else would be ranked.
CLASS_JOIN = 4
# A train/val gap at the end this strong (gap.py: an accuracy gap of 24 points, a val loss ~5x the
# train loss) is a failure to explain, whatever the train loss does.
GAP_FAILING = 0.8


@dataclass
class Features:
    """What the engine knows about one run, reduced to numbers."""

    strengths: dict[str, float]                   # signal kind -> strongest strength seen
    strongest: dict[str, Signal] = field(default_factory=dict, repr=False)
    symptom_causes: set[str] = field(default_factory=set)    # causes whose symptom vocabulary the user's words hit
    class_causes: dict[str, int] = field(default_factory=dict)   # cause -> rank in the matching failure class(es)
    failing: bool = False
    thinness: float = 1.0
    text: dict[str, float] = field(default_factory=dict)        # cause -> word model log-odds (textmodel.py)
    # the same from what was said about the run (the user's words, logs, tracebacks, configs; not code):
    # what may make a cause a candidate by words (textmodel.said_scores_for)
    text_user: dict[str, float] | None = None
    symptom_given: bool = False
    failure_named: bool = False       # the user's words name a failure in any words (said.names_failure)

    @property
    def failure_said(self) -> bool:
        """The user's words match a failure class or a cause's symptom vocabulary."""
        return bool(self.class_causes or self.symptom_causes)

    @property
    def said_text(self) -> dict[str, float]:
        """The word model's reading of what was said about the run (when that score is known; else of
        all the text), in the model's order: what nominates causes. A training script's words are no
        report of a failure; they only weigh the causes (`text`)."""
        return self.text if self.text_user is None else self.text_user

    def text_causes(self) -> set[str]:
        """Causes the words alone make candidates: only when the user said something (a README or
        a clean log read by the word model is no failure to explain)."""
        if not self.symptom_given:
            return set()
        top = sorted(self.said_text.items(), key=lambda kv: -kv[1])[:TEXT_CANDIDATES]
        return {c for c, v in top if v >= TEXT_CANDIDATE_AT}


@dataclass
class Model:
    delta: dict[str, dict[str, float]] = field(default_factory=dict)
    symptom_weight: dict[str, float] = field(default_factory=dict)
    thin_boost: float = 0.0
    class_bonus: float = 0.5
    text_weight: float = DEFAULT_TEXT_WEIGHT
    text_thin: float = 0.0
    healthy_said: float = 0.0       # added to "the run is fine" when the user's words name a failure
    healthy_named: float = 0.0      # the same when only the broad failure words do (no class, no vocabulary)
    temperature: float = 1.0
    meta: dict[str, Any] = field(default_factory=dict)

    def sym_w(self, cause: str) -> float:
        return self.symptom_weight.get(cause, DEFAULT_SYMPTOM_WEIGHT)


@lru_cache(maxsize=1)
def model() -> Model:
    """The fitted model shipped as package data; the playbooks alone when there is none."""
    f = resources.files("mltdbg.playbooks").joinpath(WEIGHTS_FILE)
    if not f.is_file():
        return Model()
    d = json.loads(f.read_text("utf-8"))
    return Model(delta=d.get("delta", {}), symptom_weight=d.get("symptom_weight", {}),
                 thin_boost=float(d.get("thin_boost", 0.0)), class_bonus=float(d.get("class_bonus", 0.5)),
                 text_weight=float(d.get("text_weight", DEFAULT_TEXT_WEIGHT)), text_thin=float(d.get("text_thin", 0.0)),
                 healthy_said=float(d.get("healthy_said", 0.0)), healthy_named=float(d.get("healthy_named", 0.0)),
                 temperature=float(d.get("temperature", 1.0)), meta=d.get("meta", {}))


# at most this many tracebacks' error lines join the user's words
WORDS_TRACEBACKS = 4


def user_words(symptoms: list[str], run: Run) -> list[str]:
    """The user's sentences: the symptom they typed, the prose of a post or notes file among the
    artifacts (analyzers/prose.py) and the error line of each traceback (what a post's title says:
    "RuntimeError: CUDA out of memory"). What the failure classes, the causes' symptom patterns and
    said.py read; the word model reads the artifacts itself (textmodel.scores_for)."""
    errors = [f"{tb.exc_type}: {tb.message}" for tb in run.tracebacks[:WORDS_TRACEBACKS]] \
        or bare_error_lines(run.texts, WORDS_TRACEBACKS)      # (an error line pasted without its traceback)
    return list(symptoms) + prose_sentences(run.texts) + errors


def features_for(signals: list[Signal], symptoms: list[str], run: Run, failure_kinds: tuple[str, ...],
                 tm: textmodel.TextModel | None = None) -> Features:
    """extract() for a run: the user's words (user_words) and the word model's two readings (all the
    artifacts' text; what was said about the run, for nominations). tm: the shipped word model when
    None (the weight fit passes one built without the case's own group). The engine and the fit
    both come here, so what is fitted is what runs."""
    words = user_words(symptoms, run)
    return extract(signals, words, failure_kinds, textmodel.scores_for(symptoms, run.texts, tm),
                   textmodel.said_scores_for(words, run.texts, tm))


def extract(signals: list[Signal], symptoms: list[str], failure_kinds: tuple[str, ...],
            text: dict[str, float] | None = None, text_user: dict[str, float] | None = None) -> Features:
    """`text`: the word model's scores (textmodel.TextModel.scores), {} to leave words to the regexes;
    `text_user`: its scores without the code's words (None: `text` decides the word candidates too)."""
    strongest: dict[str, Signal] = dict(said.ruled_out(symptoms))   # what the user tried (against causes)
    for s in signals:      # (the run's own reading of a kind replaces the user's narration of it)
        if s.kind not in strongest or s.strength > strongest[s.kind].strength or strongest[s.kind].data.get("narrated"):
            strongest[s.kind] = s
    # the user's "the score stays while the loss falls" beside printed predictions that pile onto one class: the run
    # shows why the score stays (one answer for every input, which lowers the loss to the labels' entropy), so the
    # words' reading as a score not computed from the predictions gives way
    # (and beside parts of the model with no gradient at all: the loss's own weights learn while the frozen network,
    # whose outputs the score is computed from, stays; analyze.py drops the curves' reading there too)
    stuck = strongest.get("accuracy_stuck_loss_falls")
    if stuck is not None and stuck.data.get("narrated") and strongest.keys() & {"log:collapse_output", "grad_zero",
                                                                                "grad_zero_below_head"}:
        del strongest["accuracy_stuck_loss_falls"]
    # a framework's error message the user quotes ("the error ValueError: Attempting to unscale FP16 gradients
    # occurred") is that message's kind, as their words: it weighs the causes, meets no requirement
    for k, (v, quote) in quoted_messages(symptoms).items():
        if k not in strongest:
            strongest[k] = Signal(k, v, f"you quoted the error \"{quote[:100]}\"", data={"narrated": True})
    # the lr the user names beside a loss at ln K, said or shown by the run's own curve
    at_chance = strongest.get("said:loss_at_chance") or strongest.get("loss_at_chance")
    if "said:lr_huge" in strongest and at_chance is not None:
        strongest["said:chance_under_high_lr"] = said.chance_under_high_lr(at_chance, strongest["said:lr_huge"])
    strengths = {k: float(s.strength) for k, s in strongest.items()}
    failing = any(k.startswith(failure_kinds) and v >= 0.3 for k, v in strengths.items()) or any(
        (k.startswith("code:") and k not in BENIGN_CODE_KINDS and v >= 0.6) or
        (k in ("lr_schedule_odd", "loss_scale_drop", "data_time_high", "loss_noisy") and v >= 0.5) or
        (k == "train_val_gap_end" and v >= GAP_FAILING)
        for k, v in strengths.items())
    speaking = [v for k, v in strengths.items()
                if k != "healthy" and k not in BENIGN_CODE_KINDS and (k.startswith(failure_kinds) or k.startswith("code:"))
                and not strongest[k].data.get("narrated")]     # (the user's words: the run says no more for them)
    thinness = 1.0 - min(1.0, max(speaking, default=0.0))
    told = said.without_worked_around(symptoms)    # what the user asks about, less the errors they worked around
    sym = {pb.id for pb in library.causes().values() if pb.symptom_match(told)}
    ranks: dict[str, int] = {}
    for cl in library.classes_for(told):
        for i, h in enumerate(cl.hypotheses):
            c = h.get("cause")
            if c and (c not in ranks or i < ranks[c]):
                ranks[c] = i
    return Features(strengths=strengths, strongest=strongest, symptom_causes=sym, class_causes=ranks,
                    failing=failing, thinness=thinness, text=dict(text or {}), text_user=text_user,
                    symptom_given=any(t.strip() for t in symptoms), failure_named=said.names_failure(symptoms))


@dataclass
class CauseScore:
    cause: str
    score: float
    contrib: list[tuple[float, Signal]]
    has_req: bool
    terms: dict[str, float]          # parameter name -> feature value (what the fit differentiates)


def requirement_met(pb: library.CausePlaybook, feat: Features, words: bool = True) -> bool:
    """Whether `pb`'s required evidence (requires_any) is present; with words=False, present in what the
    artifacts show, not only in what the user said (`said:*`: "I train with --half", "the loss stays at
    0.693"), nor in a log kind read from their narration (data "narrated": "When I resume training ...",
    log_findings' `told` kinds). A setting (`requires_in_class`: fp16 on) meets it only when the failure
    described (in words or by the artifacts) is of the cause's class: fp16 on beside no failure is a setting. The user's words may meet a requirement, so their weight counts (score_causes),
    but they alone never make the cause a finding (the engine holds such a cause below the bar); so do the
    playbook's `requires_held` kinds (a reading that usually, not always, means the cause)."""
    out_of_class = pb.id not in feat.class_causes
    return not pb.requires_any or any(
        feat.strengths.get(k, 0.0) >= MIN_REQUIRED_STRENGTH for k in pb.requires_any
        if (words or not (k.startswith("said:") or k in pb.requires_held
                          or (k in feat.strongest and feat.strongest[k].data.get("narrated"))))
        and not (out_of_class and k in pb.requires_in_class))


def class_term(rank: int) -> float:
    """The failure class's order of frequency as a feature: 1 for its first cause, falling after."""
    return 1.0 / (1.0 + rank)


def score_causes(feat: Features, m: Model, verdicts: dict[str, str] | None = None,
                 confirmed_bonus: float = 8.0) -> list[CauseScore]:
    """Candidates with their scores. The failure class's first CLASS_JOIN causes join by their rank,
    the rest of the class only when nothing else would be ranked: a failure to explain never gets an
    empty ranking, and no cause joins without evidence or the class's frequency behind it."""
    out = _score(feat, m, verdicts, confirmed_bonus, class_upto=CLASS_JOIN)
    if not out and feat.class_causes:
        out = _score(feat, m, verdicts, confirmed_bonus, class_upto=len(feat.class_causes) + 1)
    return out


def words_only_scores(feat: Features, m: Model, causes: list[str], verdicts: dict[str, str] | None = None) -> dict[str, CauseScore]:
    """Scores of causes that joined no ranking, as if the words had made them candidates (the same
    terms as every candidate: prior, artifacts that weigh against them, words, failure class): what
    completes a short ranking (engine.FILL_TO). Denied causes are left out."""
    want = set(causes)
    return {cs.cause: cs for cs in _score(feat, m, verdicts, 0.0, class_upto=0, join=want) if cs.cause in want}


def _score(feat: Features, m: Model, verdicts: dict[str, str] | None, confirmed_bonus: float,
           class_upto: int, join: set[str] | None = None) -> list[CauseScore]:
    """class_upto: the failure class's causes of a lower rank than this join by their rank alone; a
    cause of the class that joins by other evidence gets its class term whatever its rank. join:
    causes that join whatever their evidence (words_only_scores)."""
    out: list[CauseScore] = []
    verdicts = verdicts or {}
    by_words = feat.text_causes() | (join or set())
    for pb in library.causes().values():
        verdict = verdicts.get(pb.id)
        if verdict == "denied":
            continue
        has_req = requirement_met(pb, feat)
        sym = pb.id in feat.symptom_causes
        rank = feat.class_causes.get(pb.id)
        joins = has_req or sym or pb.id in by_words or verdict == "confirmed"
        if not joins and (rank is None or rank >= class_upto):
            continue
        in_class = rank is not None
        deltas = m.delta.get(pb.id, {})
        contrib: list[tuple[float, Signal]] = []
        terms: dict[str, float] = {}
        support = 0.0
        explained = pb.id == "overfitting" and held_out_bug(feat)
        for k, x in feat.strengths.items():
            if explained and k in GROUP_SYMPTOMS["train_val_gap"]:
                continue        # the gap the code bug opens by itself (HELD_OUT_CODE_BUGS) is no overfitting's
            w = pb.evidence.get(k, 0.0) + deltas.get(k, 0.0)
            terms[f"d|{pb.id}|{k}"] = x       # every kind present may carry a learned weight for this cause
            if w:
                support += w * x
                contrib.append((w * x, feat.strongest[k]))
        if not has_req:
            support = min(support, 0.0)    # symptom-only: artifacts may lower it, never raise it
            if support == 0.0:
                terms = {}
        score = math.log(pb.prior) + support
        if sym:
            score += m.sym_w(pb.id) + m.thin_boost * feat.thinness
            terms[f"s|{pb.id}"] = 1.0
            terms["thin"] = feat.thinness
        tx = feat.text.get(pb.id, 0.0)
        if tx:
            score += tx * (m.text_weight + m.text_thin * feat.thinness)
            terms["text"] = tx
            terms["text_thin"] = tx * feat.thinness
        if in_class:
            ct = class_term(feat.class_causes[pb.id])
            score += m.class_bonus * ct
            terms["class"] = ct
        if verdict == "confirmed":
            score += confirmed_bonus
        out.append(CauseScore(pb.id, score, contrib, has_req, terms))
    return out


def pseudo_scores(feat: Features, m: Model | None = None) -> tuple[float, float]:
    """Scores of "healthy" and "other". m: the fitted model (its weight for "the user's words name a
    failure"); None for the playbooks alone."""
    h = HEALTHY_PRIOR + 3.0 * feat.strengths.get("healthy", 0.0) - (4.0 if feat.failing else 0.0)
    term = healthy_term(feat)
    if m is not None and term is not None:
        h += getattr(m, term)
    return h, OTHER_PRIOR


def healthy_term(feat: Features) -> str | None:
    """The fitted term (a Model field) the user's words add to "the run is fine": healthy_said when a
    failure class or a cause's vocabulary matches them, healthy_named when only the broad failure
    words do, None when they name no failure."""
    return "healthy_said" if feat.failure_said else "healthy_named" if feat.failure_named else None


def softmax(scores: list[float], temperature: float) -> list[float]:
    m = max(scores)
    e = [math.exp((s - m) / temperature) for s in scores]
    z = sum(e)
    return [x / z for x in e]


# Confusable groups (taxonomy.yaml `confusable`): a member is told apart from the others only by a
# signal that weighs for it at least this much more than for any other member (playbook weight +
# learned delta). Without one present (strength >= SEPARATING_MIN), its confidence stays below the bar.
SEPARATING_MARGIN = 1.5
SEPARATING_MIN = 0.3


# Signals that show a confusable group's shared symptom (taxonomy.yaml's `confusable`): they say the
# group is in play, never which member, however the fitted weights lean. A train/val gap at the end
# (one epoch line) is what every member of train_val_gap shows; overfitting's separating evidence is
# the trajectory (val falling, then rising: train_val_divergence). Validation near perfect from the start is
# "too good to be true": a leak most often, but a metric that compares the targets with themselves or targets
# that are all one class draw the same curve; only the leak itself (an overlap found in the code, the target
# among the features, the probe's hash check) makes data_leakage a finding, whatever weight a refit gives the curve.
GROUP_SYMPTOMS = {"train_val_gap": frozenset({"train_val_gap_end", "val_near_perfect"}),
                  "flat_loss_at_chance": frozenset({"loss_at_chance"})}


@lru_cache(maxsize=1)
def separating_kinds() -> dict[str, dict[str, frozenset[str]]]:
    """cause -> group name -> the signal kinds that separate it from the group's other members."""
    books = library.causes()
    m = model()
    groups = (library.taxonomy().get("confusable") or {})
    out: dict[str, dict[str, frozenset[str]]] = {}
    for name, g in groups.items():
        members = [c for c in (g.get("members") or []) if c in books]

        def w(c: str, k: str) -> float:
            return books[c].evidence.get(k, 0.0) + m.delta.get(c, {}).get(k, 0.0)
        for c in members:
            kinds = {k for k in books[c].evidence} | set(m.delta.get(c, {}))
            sep = {k for k in kinds - GROUP_SYMPTOMS.get(name, frozenset())
                   if w(c, k) > 0 and w(c, k) - max((w(o, k) for o in members if o != c), default=0.0) >= SEPARATING_MARGIN}
            out.setdefault(c, {})[name] = frozenset(sep)
    return out


def unseparated_group(cause: str, feat: Features) -> str | None:
    """The name of a confusable group `cause` belongs to in which no separating signal of it is present, or,
    for a group of CONTESTED_GROUPS, in which another member's separating signal is present too;
    None when every group it is in is separated (or it is in none)."""
    seps = separating_kinds()

    def shown(kinds: frozenset[str]) -> bool:
        return any(feat.strengths.get(k, 0.0) >= SEPARATING_MIN for k in kinds)
    for name, kinds in seps.get(cause, {}).items():
        if not shown(kinds) or name in CONTESTED_GROUPS and any(shown(g[name]) for o, g in seps.items()
                                                                 if o != cause and name in g):
            return name
        if cause == "overfitting" and held_out_bug(feat, OVERFIT_HOLDERS):
            return name
    return None


def held_out_bug(feat: Features, kinds: frozenset[str] | None = None) -> bool:
    """A finding (HELD_OUT_CODE_BUGS by default) that by itself makes held-out numbers worse than training's."""
    return any(feat.strengths.get(k, 0.0) >= HELD_OUT_BUG_MIN for k in (kinds or HELD_OUT_CODE_BUGS))


# Code that by itself makes the held-out numbers worse than training's (inference without eval(): dropout on and
# batch-norm on each evaluation batch's statistics; held-out data prepared another way): beside it, a validation
# loss that rose after its minimum is no finding of overfitting until the code is fixed (timm's validate() without
# model.eval(), val batches of one class each: overfitting 0.90 read from the curves, the cause the missing eval()).
HELD_OUT_CODE_BUGS = frozenset({"code:no_eval_at_inference", "code:dropout_always_on", "code:eval_preprocessing_differs",
                                "config:eval_preprocessing_differs", "log:eval_preprocessing_differs"})
HELD_OUT_BUG_MIN = 0.6
# ... and a parameter budget held mostly by embeddings (log_findings' param_imbalance: 75 % or more, and for a printed
# model a body 8x narrower than the embedding width; a learnable vector per node or per user that the rest of the
# model barely mixes): such a model memorises its training rows by construction, so its gap is the architecture's as
# much as the run's (a GCN 8 units wide behind a 256-wide embedding per node: overfitting 0.90).
OVERFIT_HOLDERS = HELD_OUT_CODE_BUGS | {"log:param_imbalance", "probe:param_imbalance"}


# Groups held when two members each show their separating evidence. Only the train/val gap, where each
# reading is one trajectory of the same two curves and two at once mean the run shows both stories
# (validation that rose after its minimum while the training loss sat near chance: noisy labels
# memorised). In the other groups a second member's evidence is often a side effect of the first
# (a dead ReLU layer's zero gradients beside the frozen model's; a NaN that a high lr and an unstable op
# both lead to), and holding every such answer cost right confident answers in the zoo (9 of 106).
CONTESTED_GROUPS = frozenset({"train_val_gap"})

