"""Playbook data: the 35 cause playbooks, the failure-class playbooks, the contracts.

Everything is package data read with importlib.resources, so an installed
wheel works with no checkout around it. See SCHEMA.md for the file format.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_PKG = "mltdbg.playbooks"


def _files(folder: str):
    return sorted((p for p in resources.files(_PKG).joinpath(folder).iterdir() if p.name.endswith(".yaml")),
                  key=lambda p: p.name)


# A failure the user says did NOT happen: "not an out-of-memory error", "without any inf", "it doesn't
# produce nan", "no error". The negator and up to two words, then a word that names something going
# wrong; the whole span is blanked before any cause reads its symptoms. Only words for something that
# happened are listed: what a cause is the absence of ("not shuffled", "without normalization",
# "no zero_grad", "works without fp16") stays evidence for it.
DENIED_FAILURE = re.compile(
    r"(?:\b(?:not|no|never|without|nor)\b|n't|n’t)(?:\s+(?:any|an?|the|single|more|signs?|of|even|get|got|"
    r"show|shows|see|produce|produces|raise|raises|throw|throws|give|gives|cause|causes|hit|report|reports)){0,2}"
    r"\s+(?:nan|nans|inf|infs|infinity|oom|out[ -]of[ -]memory(?:\s+error)?|cuda\s+oom|overflow|errors?|exceptions?)\b"
    # the same in Chinese: "没有出现nan", "也没有溢出", "未报错", "不会报错"
    r"|(?:没有|没|未|不会|并未)(?:出现|发生|遇到|产生)?\s*(?:nan|NaN|inf|溢出|报错|错误|异常|崩溃|爆显存|显存不足)",
    re.I)


@lru_cache(maxsize=4096)
def undenied(text: str) -> str:
    """`text` with its denied failures (DENIED_FAILURE) blanked: done once per text, though every cause,
    every failure class and said.names_failure read it."""
    return DENIED_FAILURE.sub(" ", text)


# The playbooks' patterns are read sentence by sentence, so a pattern's `.*` links two words of one sentence, not of a
# whole post ("learning rate 5e-5 ... the loss does not go down. Is something set wrong?" names no schedule gone wrong).
# A sentence ends at a stop before whitespace (not inside 0.001 or torch.float16), a line's end, or 。？！؟. A "sentence"
# longer than SENTENCE_MAX (a pasted log run together) is read in pieces of that length: a pattern with three `.*` gaps
# costs the cube of what it reads (3 KB of one unpunctuated line took 1 s).
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|[\n\u3002\uff1f\uff01\u061f]")
SENTENCE_MAX = 500


@lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[str, ...]:
    """`text` cut into its sentences (see _SENTENCE_END), the long ones into SENTENCE_MAX pieces."""
    out: list[str] = []
    for s in _SENTENCE_END.split(text):
        if len(s) > SENTENCE_MAX:
            out += [s[i:i + SENTENCE_MAX] for i in range(0, len(s), SENTENCE_MAX)]
        elif s.strip():
            out.append(s)
    return tuple(out)


@dataclass
class CausePlaybook:
    id: str
    title: str
    severity: str
    prior: float
    evidence: dict[str, float]
    requires_any: list[str]
    symptoms: list[re.Pattern]
    needs: list[str]
    issue: str
    check: str
    fix: str
    lesson: str = ""
    described_as: list[str] = field(default_factory=list)
    # requires_any kinds that are settings, not symptoms (fp16 on): they meet the requirement only where the
    # failure the user or the artifacts describe is one this cause makes (its class)
    requires_in_class: list[str] = field(default_factory=list)
    # requires_any kinds that are the cause's usual reading but not proof (cuDNN that cannot start: most often a
    # full GPU, sometimes a version mismatch): they rank the cause, and alone hold it below the bar as words do
    requires_held: list[str] = field(default_factory=list)
    symptoms_unless: list[re.Pattern] = field(default_factory=list)
    check_command: str | None = None
    instrumentation: str | None = None
    codemod: str | None = None
    test_template: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    def symptom_hits(self, text: str) -> int:
        """How many symptom regexes the text holds, after a denied failure (DENIED_FAILURE) and the spans
        of `symptoms_unless` are blanked from it (phrasings whose words the symptoms would misread:
        "converges slowly" is not a slow step). Every reader of a cause's symptoms (the engine, lesson
        recall) goes through here."""
        text = undenied(text)
        for u in self.symptoms_unless:
            text = u.sub(" ", text)
        parts = sentences(text)
        return sum(1 for p in self.symptoms if any(p.search(x) for x in parts))

    def symptom_match(self, texts: list[str]) -> bool:
        return any(self.symptom_hits(t) for t in texts)


@dataclass
class ClassPlaybook:
    id: str
    title: str
    symptoms: list[re.Pattern]
    hypotheses: list[dict[str, str]]
    instrumentation: str | None = None

    def symptom_match(self, texts: list[str]) -> bool:
        """Whether any of the texts holds one of the class's symptom patterns, a denied failure
        (DENIED_FAILURE) blanked first, sentence by sentence, as a cause's symptoms are read."""
        return any(p.search(x) for u in map(undenied, texts) for x in sentences(u) for p in self.symptoms)


@lru_cache(maxsize=1)
def taxonomy() -> dict[str, Any]:
    return yaml.load(resources.files(_PKG).joinpath("contracts/taxonomy.yaml").read_text("utf-8"), Loader=_Loader)


@lru_cache(maxsize=1)
def diagnosis_schema() -> dict[str, Any]:
    return json.loads(resources.files(_PKG).joinpath("contracts/diagnosis.schema.json").read_text("utf-8"))


def _rx(items) -> list[re.Pattern]:
    return [re.compile(s, re.I | re.A) for s in (items or [])]


@lru_cache(maxsize=1)
def causes() -> dict[str, CausePlaybook]:
    """Cause playbooks by id; every taxonomy id has one (a test checks)."""
    out: dict[str, CausePlaybook] = {}
    for p in _files("causes"):
        d = yaml.load(p.read_text("utf-8"), Loader=_Loader)
        out[d["id"]] = CausePlaybook(
            id=d["id"], title=d.get("title", d["id"]), severity=d.get("severity", "high"),
            prior=float(d.get("prior", 0.03)), evidence={k: float(v) for k, v in (d.get("evidence") or {}).items()},
            requires_any=list(d.get("requires_any") or []), symptoms=_rx(d.get("symptoms")),
            needs=list(d.get("needs") or []), issue=d.get("issue", d.get("title", d["id"])),
            check=(d.get("check") or "").strip(), fix=(d.get("fix") or "").strip(), lesson=(d.get("lesson") or "").strip(),
            described_as=[str(x) for x in d.get("described_as") or []],
            requires_in_class=list(d.get("requires_in_class") or []),
            requires_held=list(d.get("requires_held") or []),
            symptoms_unless=_rx(d.get("symptoms_unless")), check_command=d.get("check_command"), instrumentation=d.get("instrumentation"),
            codemod=d.get("codemod"), test_template=d.get("test_template"), raw=d)
    return out


@lru_cache(maxsize=1)
def classes() -> dict[str, ClassPlaybook]:
    out: dict[str, ClassPlaybook] = {}
    for p in _files("classes"):
        d = yaml.load(p.read_text("utf-8"), Loader=_Loader)
        out[d["id"]] = ClassPlaybook(id=d["id"], title=d.get("title", d["id"]), symptoms=_rx(d.get("symptoms")),
                                     hypotheses=list(d.get("hypotheses") or []), instrumentation=d.get("instrumentation"))
    return out


def classes_for(symptoms: list[str]) -> list[ClassPlaybook]:
    """Failure classes whose symptom patterns match the user's text."""
    return [c for c in classes().values() if c.symptom_match(symptoms)]
