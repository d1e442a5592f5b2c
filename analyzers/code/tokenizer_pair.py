"""`code:tokenizer_model_differ`: the tokenizer and the model are loaded from different checkpoints.

In:  every parsed code file of the run (training and serving code may be two files).
Out: `check_tokenizer_pair(files)` -> (PyFile, Finding) pairs.

`AutoTokenizer.from_pretrained("bert-base-cased")` beside a model loaded from
"./finetuned-bert-base-uncased": the ids the model learned do not name the same pieces of text. Each
name is read for a model family (bert, roberta, gpt2, llama, t5, ...) and for a cased/uncased marker; the
check fires when both names give a family and the families differ, or the family is the same and one is
cased where the other is uncased. A local directory that names no family ("./out") says nothing.

It fires too where the run's code adds tokens to a tokenizer (add_tokens / add_special_tokens, then
resize_token_embeddings) and a file loads its tokenizer from one checkpoint and its model from another
(`AutoTokenizer.from_pretrained("roberta-base")` beside the fine-tuned "/models/router-v3"): the added
tokens exist only in the tokenizer training saved, and the base one splits them into pieces the model's
new embeddings never saw. A name may be a module-level constant (MODEL_DIR = "...").

`check_model_named_in_post(files, run)`: a post's code loads its model from a folder that names no family and a
tokenizer of one family, while the post says the model was fine-tuned from another ("fine-tuned roberta-base").
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import CLEAR, MEDIUM, Finding, PyFile, const, dotted, last
from mltdbg.analyzers.model import Run

# Families, longest first where one name holds another (distilbert before bert, roberta before bert).
_FAMILIES = ("distilbert", "roberta", "deberta", "albert", "electra", "xlnet", "camembert", "bert", "gpt2", "gpt-neo",
             "gptj", "llama", "mistral", "mixtral", "qwen", "gemma", "phi", "falcon", "bloom", "opt-", "t5", "bart",
             "mbart", "pegasus", "whisper", "wav2vec2", "clip", "vit", "bigbird", "longformer")
_UNCASED = re.compile(r"uncased", re.I)
_CASED = re.compile(r"(?<!un)cased", re.I)


def _identity(name: str) -> tuple[str | None, str | None]:
    low = name.lower()
    fam = next((f for f in _FAMILIES if re.search(rf"(?<![a-z]){re.escape(f)}", low)), None)
    case = "uncased" if _UNCASED.search(low) else "cased" if _CASED.search(low) else None
    return fam, case


def _loads(f: PyFile) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(line, checkpoint) of the tokenizers and of the models the file loads with from_pretrained("...")."""
    toks, models = [], []
    for c in f.calls:
        if last(c) != "from_pretrained" or not c.args or not isinstance(c.func, ast.Attribute):
            continue
        name = const(c.args[0])
        if not isinstance(name, str) and isinstance(c.args[0], ast.Name):    # MODEL_DIR = "/models/router-v3"
            name = const(f.value_near(c.args[0].id, c))
        if not isinstance(name, str):
            continue
        cls = dotted(c.func.value) or ""
        if re.search(r"Tokenizer|Processor", cls):
            toks.append((c.lineno, name))
        elif not re.search(r"Config|FeatureExtractor|ImageProcessor", cls):
            models.append((c.lineno, name))
    return toks, models


def check_tokenizer_pair(files: list[PyFile]) -> list[tuple[PyFile, Finding]]:
    loads = [(f, *_loads(f)) for f in files]
    models = [(line, name) for _, _, ms in loads for line, name in ms]
    for f, toks, _ in loads:
        for line, tok in toks:
            tf, tc = _identity(tok)
            for _, model in models:
                mf, mc = _identity(model)
                if tf and mf and (tf != mf or (tc and mc and tc != mc)):
                    why = f"{tf} vs {mf}" if tf != mf else f"{tc} vs {mc}"
                    return [(f, Finding("code:tokenizer_model_differ", CLEAR, line,
                                        f"the tokenizer is loaded from {tok!r} and the model from {model!r} ({why}): "
                                        "the token ids do not mean what the model learned", data={"tokenizer": tok,
                                                                                                  "model": model}))]
    return _added_tokens_lost(files, loads)


# A sentence of the post that says which checkpoint the model was trained from ("fine-tuned roberta-base on ...",
# "a deberta-v3 model trained with Trainer"): read where the model itself is loaded from a local folder.
_TRAINED_FROM = re.compile(r"(?:fine[- ]?tun\w*|train\w*|finetun\w*)\s+(?:an?\s+|the\s+|my\s+|our\s+)?"
                           r"(?P<name>[A-Za-z][\w./-]{2,60})", re.I)


def check_model_named_in_post(files: list[PyFile], run: Run) -> list[tuple[PyFile, Finding]]:
    """The model is loaded from a folder that names no family ("ckpt/final"), and the post the code came in
    says it was trained from a checkpoint of another family than the tokenizer's: the Trainer's save_model
    folder holds no tokenizer, and a tokenizer named from memory is the wrong one. (Read per run, not with
    the code-only checks: the finding depends on the words around the code, not on the code alone.)"""
    posts = {id(t.memo["post_code"]): t for t in run.texts if t.memo.get("post_code") is not None}
    for f in files:
        post = posts.get(id(f))
        if post is None:       # (a script alone says nothing of what its model was trained from)
            continue
        toks, models = _loads(f)
        if not toks or not models or any(_identity(m)[0] for _, m in models):
            continue
        fams = {_identity(m.group("name"))[0] for m in _TRAINED_FROM.finditer(post.text)} - {None}
        for line, tok in toks:
            tf, _ = _identity(tok)
            if tf is not None and len(fams) == 1 and tf not in fams:
                (mf,) = fams
                return [(f, Finding("code:tokenizer_model_differ", MEDIUM, line,
                                    f"the tokenizer is loaded from {tok!r} ({tf}) while the post says the model was "
                                    f"trained from a {mf} checkpoint: the token ids do not mean what the model learned",
                                    data={"tokenizer": tok, "model": models[0][1]}))]
    return []


def _added_tokens_lost(files: list[PyFile], loads: list) -> list[tuple[PyFile, Finding]]:
    """The added-tokens case (see the module's doc): the first file that loads a tokenizer and a model from
    two different checkpoints, where some file of the run adds tokens and resizes the embeddings."""
    adds = [(f, c.lineno) for f in files for c in f.calls if last(c) in ("add_tokens", "add_special_tokens")]
    if not adds or not any(last(c) == "resize_token_embeddings" for f in files for c in f.calls):
        return []
    af, aline = adds[0]
    for f, toks, models in loads:
        for line, tok in toks:
            other = next((m for _, m in models if m != tok), None)
            if other is not None and tok not in (m for _, m in models):
                return [(f, Finding("code:tokenizer_model_differ", CLEAR, line,
                                    f"tokens are added to the tokenizer in training ({af.t.path}:{aline}), but the tokenizer "
                                    f"here is loaded from {tok!r} and the model from {other!r}: the added tokens are split "
                                    "into pieces the fine-tuned embeddings never saw", data={"tokenizer": tok, "model": other}))]
    return []
