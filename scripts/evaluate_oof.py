"""The engine on the corpus's tune part with the word model rebuilt out of each case's group.

    .venv/bin/python scripts/evaluate_oof.py [--fill N] [--words-cap X]

benchmarks/evaluate.py scores the tune part with the shipped word model, which learned every
tune case's own words: its tune numbers say little about a change to how the words are used.
Here each case is diagnosed by the whole engine (shipped weights, playbooks, rules) with a word
model built as scripts/fit_weights.py builds it, minus the case's own source group (the same
groups as the weight fit's cross-validation). What a change to the engine's use of the words
does on text it did not learn from is then measured without touching the held-aside part.

--fill N / --words-cap X: run with engine.FILL_TO / engine.WORDS_ONLY_CAP set to these values
(how the completion of short rankings and the words-only cap were chosen). Prints evaluate.py's
summary line for the part, and the spread of ranking lengths.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))
import evaluate  # noqa: E402
import fit_weights  # noqa: E402

from mltdbg.playbooks import engine as E  # noqa: E402
from mltdbg.playbooks import textmodel as T  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fill", type=int, help="engine.FILL_TO for this run (0: no completion)")
    ap.add_argument("--words-cap", type=float, help="engine.WORDS_ONLY_CAP for this run")
    a = ap.parse_args()
    if a.fill is not None:
        E.FILL_TO = a.fill
    if a.words_cap is not None:
        E.WORDS_ONLY_CAP = a.words_cap
    models = fit_weights.OutOfGroup(fit_weights.cases())   # the tune cases' words, less one group each
    rows = []
    for folder, case in evaluate.load_corpus("tune"):
        model = models["corpus:" + evaluate.split_key(case)]
        T.model = lambda m=model: m      # the engine reads the word model through this function
        rows.append(evaluate._row("corpus-tune, words out of group", folder.name, case["truth"],
                                  list(case.get("acceptable") or []), False,
                                  lambda f=folder, c=case: evaluate.run_corpus_case(f, c)))
    evaluate.summarise(rows)
    lengths = collections.Counter(len(r["ranked"]) for r in rows)
    print("ranking lengths:", ", ".join(f"{k}: {v}" for k, v in sorted(lengths.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
