"""Eval-regression cases: a good commit and a refactor commit of a tiny train/evaluate project.

Each case ships the bad (refactored) code and its run's outputs at the top of the
case folder, the good run's outputs in `baseline_run/`, and `repo.bundle` holding
the two commits (good, then refactor); `args: ["--baseline", "baseline_run"]`.
The good project is trained once per project/log style and reused (cached).
"""
from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

from make_zoo import Ctx, case
from zoo_lib import _tidy, yaml_dump

# ---------------------------------------------------------------------------
# Project 1: tabular classifier (blobs, raw-unit features) with dropout.
# ---------------------------------------------------------------------------

CLS_CONFIG = dict(seed=0, data_seed=1, split_seed=42, test_fraction=0.25, n_samples=3000, dim=16, num_classes=6,
                  hidden=128, dropout=0.5, lr=0.003, epochs=6, batch_size=64, checkpoint="checkpoints/best.pt",
                  metric="accuracy")

CLS_DATA = '''"""Dataset, split and preprocessing shared by train.py and evaluate.py."""
import torch


def load_dataset(cfg):
    """Rows as exported from the warehouse: raw sensor units, grouped by label."""
    g = torch.Generator().manual_seed(0)
    centres = torch.randn(cfg["num_classes"], cfg["dim"], generator=g)
    offsets = torch.rand(cfg["dim"], generator=g) * 100
    scales = torch.rand(cfg["dim"], generator=g) * 20 + 1
    g = torch.Generator().manual_seed(cfg["data_seed"])
    y = torch.arange(cfg["n_samples"]) * cfg["num_classes"] // cfg["n_samples"]
    x = centres[y] + torch.randn(cfg["n_samples"], cfg["dim"], generator=g) * 1.3
    return x * scales + offsets, y


def split(x, y, cfg):
    """Random train/test split (seeded)."""
    g = torch.Generator().manual_seed(cfg["split_seed"])
    perm = torch.randperm(len(x), generator=g)
    n_test = int(len(x) * cfg["test_fraction"])
    test, train = perm[:n_test], perm[n_test:]
    return (x[train], y[train]), (x[test], y[test])


def fit_normalizer(x):
    return {"mean": x.mean(0), "std": x.std(0)}


def normalize(x, stats):
    return (x - stats["mean"]) / stats["std"]
'''

CLS_MODEL = '''"""The classifier."""
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(cfg["dim"], cfg["hidden"]), nn.ReLU(), nn.Dropout(cfg["dropout"]),
                                  nn.Linear(cfg["hidden"], cfg["hidden"]), nn.ReLU(), nn.Dropout(cfg["dropout"]))
        self.head = nn.Linear(cfg["hidden"], cfg["num_classes"])

    def forward(self, x):
        return self.head(self.body(x))
'''

CLS_TRAIN = '''"""Train the classifier; keeps the best checkpoint by validation accuracy."""
import json
import os

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

from data import fit_normalizer, load_dataset, normalize, split
from model import Classifier


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    torch.manual_seed(cfg["seed"])
    (xtr, ytr), _ = split(*load_dataset(cfg), cfg)
    n_val = len(xtr) // 10
    stats = fit_normalizer(xtr[n_val:])
    xv, yv = normalize(xtr[:n_val], stats), ytr[:n_val]
    loader = DataLoader(TensorDataset(normalize(xtr[n_val:], stats), ytr[n_val:]), batch_size=cfg["batch_size"], shuffle=True)
    model = Classifier(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    os.makedirs("checkpoints", exist_ok=True)
    best = 0.0
    for epoch in range(1, cfg["epochs"] + 1):
        model.train()
        tot = 0.0
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(y)
        model.eval()
        with torch.no_grad():
            val_acc = (model(xv).argmax(-1) == yv).float().mean().item()
        LOG(epoch, tot / len(loader.dataset), val_acc)
        ckpt = {"model": model.state_dict(), "normalizer": stats, "epoch": epoch}
        torch.save(ckpt, f"checkpoints/epoch_{epoch}.pt")
        if val_acc > best:
            best = val_acc
            torch.save(ckpt, "checkpoints/best.pt")


if __name__ == "__main__":
    main()
'''

CLS_EVAL = '''"""Evaluate a checkpoint on the held-out test split."""
import json

import torch
import yaml

from data import load_dataset, normalize, split
from model import Classifier


def accuracy(logits, y):
    return (logits.argmax(-1) == y).float().mean().item()


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    _, (xte, yte) = split(*load_dataset(cfg), cfg)
    ckpt = torch.load(cfg["checkpoint"])
    model = Classifier(cfg)
    model.load_state_dict(ckpt["model"])
    model.eval()
    with torch.no_grad():
        logits = model(normalize(xte, ckpt["normalizer"]))
    score = accuracy(logits, yte)
    REPORT(cfg, score, len(yte))


if __name__ == "__main__":
    main()
'''

# Two log styles so tune and hold-out cases look different.
LOGS = {
    "plain": ('''
def LOG(epoch, train_loss, val_acc):
    print(f"epoch {epoch:2d} | train_loss {train_loss:.4f} | val_acc {val_acc:.4f}", flush=True)
''', '''
def REPORT(cfg, score, n):
    print(f"checkpoint: {cfg['checkpoint']}")
    print(f"test_{cfg['metric']}: {score:.4f} (n={n})")
    with open("eval_results.json", "w") as f:
        json.dump({"checkpoint": cfg["checkpoint"], "metric": cfg["metric"], "value": round(score, 4), "n": n}, f, indent=2)
'''),
    "jsonl": ('''
def LOG(epoch, train_loss, val_acc):
    with open("train_log.jsonl", "a") as f:
        f.write(json.dumps({"epoch": epoch, "train/loss": round(train_loss, 5), "val/acc": round(val_acc, 5)}) + "\\n")
''', '''
def REPORT(cfg, score, n):
    rec = {"eval/" + cfg["metric"]: round(score, 4), "n_examples": n, "checkpoint": cfg["checkpoint"]}
    print("[rank0]: " + json.dumps(rec), flush=True)
    with open("metrics_eval.json", "w") as f:
        json.dump(rec, f, indent=2)
'''),
}


def cls_project(log: str) -> dict[str, str]:
    log_fn, report_fn = LOGS[log]
    return {
        "config.yaml": yaml_dump(CLS_CONFIG),
        "data.py": CLS_DATA,
        "model.py": CLS_MODEL,
        "train.py": _tidy(CLS_TRAIN.replace("\n\ndef main():", "\n" + log_fn + "\n\ndef main():", 1)),
        "evaluate.py": _tidy(CLS_EVAL.replace("\n\ndef main():", "\n" + report_fn + "\n\ndef main():", 1)),
    }


# ---------------------------------------------------------------------------
# Project 2: char LM with a saved vocabulary (tokenizer cases).
# ---------------------------------------------------------------------------

LM_CONFIG = dict(seed=0, n_sentences=800, block=48, emb=32, hidden=96, lr=0.004, epochs=3, batch_size=32,
                 tokenizer="tokenizer/vocab_v1.json", checkpoint="checkpoints/best.pt")

LM_DATA = '''"""Corpus and character tokenizer."""
import json

import torch

WORDS = ("the cat dog sat ran on a mat log big small red blue fox jumps over lazy quick brown "
         "and then saw it was very far near under tree house").split()


def make_corpus(n_sentences, seed):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_sentences):
        n = int(torch.randint(4, 9, (1,), generator=g))
        idx = torch.randint(0, len(WORDS), (n,), generator=g)
        out.append(" ".join(WORDS[i] for i in idx.tolist()) + ".")
    return " ".join(out)


class CharTokenizer:
    def __init__(self, chars):
        self.chars = list(chars)
        self.stoi = {c: i for i, c in enumerate(self.chars)}

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls(json.load(f)["chars"])

    def save(self, path):
        with open(path, "w") as f:
            json.dump({"chars": self.chars}, f)

    def encode(self, text):
        return torch.tensor([self.stoi.get(c, 0) for c in text])
'''

LM_MODEL = '''"""Char-level GRU LM."""
import torch.nn as nn


class CharLM(nn.Module):
    def __init__(self, vocab, cfg):
        super().__init__()
        self.embed = nn.Embedding(vocab, cfg["emb"])
        self.rnn = nn.GRU(cfg["emb"], cfg["hidden"], batch_first=True)
        self.head = nn.Linear(cfg["hidden"], vocab)

    def forward(self, x):
        h, _ = self.rnn(self.embed(x))
        return self.head(h)
'''

LM_TRAIN = '''"""Train the char LM; writes the tokenizer it used next to the checkpoint."""
import os

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

from data import CharTokenizer, make_corpus
from model import CharLM


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    torch.manual_seed(cfg["seed"])
    text = make_corpus(cfg["n_sentences"], seed=1)
    os.makedirs("tokenizer", exist_ok=True)
    tok = CharTokenizer(sorted(set(text)))
    tok.save("tokenizer/vocab_v1.json")
    ids = tok.encode(text)
    b = cfg["block"]
    n = (len(ids) - 1) // b
    x = ids[: n * b].view(n, b)
    y = ids[1: n * b + 1].view(n, b)
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)
    model = CharLM(len(tok.chars), cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    step = 0
    for epoch in range(cfg["epochs"]):
        for xb, yb in loader:
            step += 1
            loss = F.cross_entropy(model(xb).reshape(-1, len(tok.chars)), yb.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 5 == 0:
                print(f"step {step} loss {loss.item():.4f}", flush=True)
    os.makedirs("checkpoints", exist_ok=True)
    torch.save({"model": model.state_dict(), "vocab_size": len(tok.chars)}, cfg["checkpoint"])


if __name__ == "__main__":
    main()
'''

LM_EVAL = '''"""Held-out loss and perplexity of the char LM."""
import json
import math

import torch
import torch.nn.functional as F
import yaml

from data import CharTokenizer, make_corpus
from model import CharLM


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    text = make_corpus(200, seed=2)
    tok = CharTokenizer.load(cfg["tokenizer"])
    ckpt = torch.load(cfg["checkpoint"])
    model = CharLM(ckpt["vocab_size"], cfg)
    model.load_state_dict(ckpt["model"])
    model.eval()
    ids = tok.encode(text)
    with torch.no_grad():
        logits = model(ids[:-1].unsqueeze(0))[0]
        loss = F.cross_entropy(logits, ids[1:]).item()
    print(f"tokenizer: {cfg['tokenizer']} ({len(tok.chars)} symbols)")
    print(f"eval_loss: {loss:.4f}  eval_ppl: {math.exp(loss):.3f}")
    with open("eval_results.json", "w") as f:
        json.dump({"eval_loss": round(loss, 4), "eval_ppl": round(math.exp(loss), 3), "tokenizer": cfg["tokenizer"]}, f, indent=2)


if __name__ == "__main__":
    main()
'''


def lm_project() -> dict[str, str]:
    return {"config.yaml": yaml_dump(LM_CONFIG), "data.py": LM_DATA, "model.py": LM_MODEL,
            "train.py": LM_TRAIN, "evaluate.py": LM_EVAL}


# ---------------------------------------------------------------------------
# Running: good project once per key (cached), bad project per case.
# ---------------------------------------------------------------------------

_cache_lock = threading.Lock()
_cache: dict[str, Path] = {}
_cache_root = Path(tempfile.mkdtemp(prefix="zoo_regression_"))
_OUTPUTS = ("train.log", "train_log.jsonl", "eval.log", "eval_results.json", "metrics_eval.json")


def _run_project(c: Ctx, files: dict[str, str], where: Path, train: bool = True,
                 from_dir: Path | None = None, eval_runs: int = 1) -> None:
    """Write files into `where` and run train (or copy its outputs from `from_dir`) and evaluate."""
    where.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_text(text)
    if train:
        _run(c, where, ["python", "train.py"], "train.log")
    else:
        for name in ("checkpoints", "tokenizer"):
            if (from_dir / name).exists():
                shutil.copytree(from_dir / name, where / name, dirs_exist_ok=True)
        for name in ("train.log", "train_log.jsonl"):
            if (from_dir / name).exists():
                shutil.copy(from_dir / name, where / name)
    for _ in range(eval_runs):
        _run(c, where, ["python", "evaluate.py"], "eval.log")


def _run(c: Ctx, where: Path, cmd: list[str], log: str) -> None:
    import subprocess
    import sys
    with open(where / log, "ab") as f:
        subprocess.run([sys.executable, *cmd[1:]], cwd=where, env=c.env(HOME=str(where)), stdout=f,
                       stderr=subprocess.STDOUT, timeout=120)


def _good_run(c: Ctx, key: str, files: dict[str, str]) -> Path:
    with _cache_lock:
        if key not in _cache:
            d = _cache_root / key
            shutil.rmtree(d, ignore_errors=True)
            fake = type("C", (), {"dir": _cache_root, "env": c.env})()
            _run_project(fake, files, d)
            _cache[key] = d
        return _cache[key]


def regression_case(c: Ctx, project: str, log: str, change: dict[str, tuple[str, str] | str], message: str,
                    retrain: bool, eval_runs: int = 1) -> None:
    """Build a case: baseline_run/ from the good project, the refactored project + its outputs at the top.

    change maps a file to (old, new) text to replace, or to the whole new text.
    """
    good = cls_project(log) if project == "cls" else lm_project()
    bad = dict(good)
    for rel, ch in change.items():
        if isinstance(ch, tuple):
            assert ch[0] in bad[rel], (rel, ch[0])
            bad[rel] = bad[rel].replace(ch[0], ch[1])
        else:
            bad[rel] = ch
    src = _good_run(c, f"{project}-{log}", good)
    base = c.dir / "baseline_run"
    base.mkdir(parents=True)
    for name in _OUTPUTS + ("config.yaml",):
        if (src / name).exists():
            shutil.copy(src / name, base / name)
    _run_project(c, bad, c.dir, train=retrain, from_dir=src, eval_runs=eval_runs)
    shutil.rmtree(c.dir / "checkpoints", ignore_errors=True)   # binary weights are not kept
    c.bundle([("Train/evaluate pipeline", good), (message, bad)])


ARGS = ["--baseline", "baseline_run"]


def reg(name, **kw):
    return case(name, args=ARGS, repo_bundle="repo.bundle", **kw)


# --- preprocessing_mismatch ----------------------------------------------------

@reg("preproc_minmax_eval_plain", split="tune", expected="preprocessing_mismatch",
     symptom="After the refactor test accuracy dropped from 0.95 to 0.68. Training curves look identical.",
     fmt="plain train/eval logs + eval_results.json, baseline_run/, repo.bundle",
     notes="Refactor commit makes evaluate.py scale test features with min-max (computed on the test set) while "
           "training still standardises with the train mean/std saved in the checkpoint.")
def _(c: Ctx):
    regression_case(c, "cls", "plain", {"evaluate.py": (
        "        logits = model(normalize(xte, ckpt[\"normalizer\"]))",
        "        # min-max scale to [0, 1] (shared with the serving code)\n"
        "        xte = (xte - xte.min(0).values) / (xte.max(0).values - xte.min(0).values)\n"
        "        logits = model(xte)")}, "Refactor: share min-max scaling with serving", retrain=False)


@reg("preproc_double_normalize_jsonl", split="holdout", expected="preprocessing_mismatch", symptom=None,
     fmt="JSONL train log + rank-prefixed eval JSON, baseline_run/, repo.bundle",
     notes="Refactor moves normalisation into data.load_dataset() for everyone (with the full-data stats) "
           "while evaluate.py still applies the checkpoint's normaliser: test inputs are normalised twice.")
def _(c: Ctx):
    regression_case(c, "cls", "jsonl", {"data.py": (
        "    return x * scales + offsets, y\n",
        "    x = x * scales + offsets\n    return (x - x.mean(0)) / x.std(0), y   # normalise once, here\n")},
        "Refactor: normalise in load_dataset", retrain=False)


# --- seed_or_split_changed -------------------------------------------------------

@reg("split_unshuffled_tail_plain", split="tune", expected="seed_or_split_changed",
     symptom="Test accuracy fell off a cliff after I cleaned up the data split code.",
     fmt="plain train/eval logs + eval_results.json, baseline_run/, repo.bundle",
     notes="Refactor replaces the seeded random split with 'the last test_fraction rows are the test set'; "
           "rows are grouped by label, so the test set is classes 4-5 and training never sees class 5.")
def _(c: Ctx):
    regression_case(c, "cls", "plain", {"data.py": (
        '''    g = torch.Generator().manual_seed(cfg["split_seed"])
    perm = torch.randperm(len(x), generator=g)
    n_test = int(len(x) * cfg["test_fraction"])
    test, train = perm[:n_test], perm[n_test:]''',
        '''    n_test = int(len(x) * cfg["test_fraction"])
    idx = torch.arange(len(x))
    train, test = idx[:-n_test], idx[-n_test:]   # deterministic: last rows are the test set''')},
        "Refactor: simpler deterministic split", retrain=True)


@reg("split_seed_and_fraction_jsonl", split="holdout", expected="seed_or_split_changed", symptom=None,
     fmt="JSONL train log + rank-prefixed eval JSON, baseline_run/, repo.bundle",
     notes="Refactor commit changes config.yaml: split_seed 42 -> 7, data_seed 1 -> 3 and test_fraction 0.25 "
           "-> 0.85 ('bigger test set for tighter error bars'): the model trains on 15% of the data and the test "
           "score drops.")
def _(c: Ctx):
    cfg = yaml_dump({**CLS_CONFIG, "split_seed": 7, "data_seed": 3, "test_fraction": 0.85})
    regression_case(c, "cls", "jsonl", {"config.yaml": cfg}, "Bigger test set, new seeds", retrain=True)


# --- metric_changed -----------------------------------------------------------------

@reg("metric_confidence_threshold_plain", split="tune", expected="metric_changed",
     symptom="Accuracy dropped from 0.95 to 0.83 after the eval cleanup but the model didn't change!",
     fmt="plain train/eval logs + eval_results.json, baseline_run/, repo.bundle",
     notes="Refactor changes accuracy() to count a prediction as correct only when its softmax probability "
           "exceeds 0.9 (a 'confident accuracy'); same checkpoint, lower number.")
def _(c: Ctx):
    regression_case(c, "cls", "plain", {"evaluate.py": (
        '''def accuracy(logits, y):
    return (logits.argmax(-1) == y).float().mean().item()''',
        '''def accuracy(logits, y, threshold=0.9):
    probs = logits.softmax(-1)
    conf, pred = probs.max(-1)
    return ((pred == y) & (conf > threshold)).float().mean().item()''')},
        "Eval cleanup: accuracy ignores low-confidence predictions", retrain=False)


@reg("metric_per_session_jsonl", split="holdout", expected="metric_changed", symptom="eval score regressed",
     fmt="JSONL train log + rank-prefixed eval JSON, baseline_run/, repo.bundle",
     notes="Refactor changes accuracy() to a per-session score (8 consecutive test rows form a session; a "
           "session counts only if all its rows are right) while still reporting it as eval/accuracy; the "
           "checkpoint and predictions are the same.")
def _(c: Ctx):
    regression_case(c, "cls", "jsonl", {"evaluate.py": ('''def accuracy(logits, y):
    return (logits.argmax(-1) == y).float().mean().item()''', '''def accuracy(logits, y, session=8):
    """Session-level accuracy: a session (8 consecutive rows) is correct when all its rows are."""
    hit = (logits.argmax(-1) == y).float()
    n = len(hit) // session * session
    return hit[:n].view(-1, session).min(dim=1).values.mean().item()''')},
        "Report session-level accuracy", retrain=False)


# --- eval_mode_forgotten (with baseline) -------------------------------------------------

@reg("eval_mode_dropped_in_refactor_jsonl", split="holdout", expected="eval_mode_forgotten",
     symptom="test numbers got worse and change every time I run evaluate.py",
     fmt="JSONL train log + rank-prefixed eval JSON (two eval runs), baseline_run/, repo.bundle",
     notes="Refactor moves model construction into load_model() and drops model.eval(): dropout (p=0.5) is "
           "active at test time; scores drop and differ between two evaluate.py runs (eval.log has both).")
def _(c: Ctx):
    text = cls_project("jsonl")["evaluate.py"]
    text = text.replace('''    model = Classifier(cfg)
    model.load_state_dict(ckpt["model"])
    model.eval()
''', '''    model = load_model(cfg, ckpt)
''').replace("def main():", '''def load_model(cfg, ckpt):
    model = Classifier(cfg)
    model.load_state_dict(ckpt["model"])
    return model


def main():''', 1)
    regression_case(c, "cls", "jsonl", {"evaluate.py": text}, "Refactor: load_model helper", retrain=False,
                    eval_runs=2)


# --- wrong_checkpoint (with baseline) -----------------------------------------------------

@reg("checkpoint_path_epoch1_plain", split="holdout", expected="wrong_checkpoint", symptom=None,
     fmt="plain train/eval logs + eval_results.json, baseline_run/, repo.bundle",
     notes="The refactor commit's config.yaml points checkpoint: at checkpoints/epoch_1.pt (an early "
           "snapshot) instead of checkpoints/best.pt; eval.log prints the path.")
def _(c: Ctx):
    regression_case(c, "cls", "plain", {"config.yaml": yaml_dump({**CLS_CONFIG, "checkpoint": "checkpoints/epoch_1.pt"})},
                    "Config cleanup", retrain=False)


# --- tokenizer_mismatch ---------------------------------------------------------------------

@reg("tokenizer_rebuilt_at_eval", split="tune", expected="tokenizer_mismatch",
     symptom="Eval perplexity went from ~3 to over 100 after I refactored evaluate.py.",
     fmt="plain train/eval logs + eval_results.json, baseline_run/, repo.bundle",
     notes="Refactor makes evaluate.py build its CharTokenizer from the eval text's own characters (in order "
           "of appearance) instead of loading tokenizer/vocab_v1.json written at training (sorted): the ids no "
           "longer match the embedding rows and the eval loss explodes.")
def _(c: Ctx):
    regression_case(c, "lm", "plain", {"evaluate.py": (
        '    tok = CharTokenizer.load(cfg["tokenizer"])',
        '    tok = CharTokenizer(dict.fromkeys(text))   # no file dependency: symbols in order of appearance')}, "Refactor: build tokenizer inline",
        retrain=False)


@reg("tokenizer_v2_config_holdout", split="holdout", expected="tokenizer_mismatch", symptom=None,
     fmt="plain train/eval logs + eval_results.json, baseline_run/, repo.bundle",
     notes="The refactor commit adds tokenizer/vocab_v2.json (<pad> and <unk> prepended, same size) and "
           "switches config tokenizer: to it; the checkpoint was trained with vocab_v1, so every id is off by two.")
def _(c: Ctx):
    import json as _json
    good = lm_project()
    src = _good_run(c, "lm-plain", good)
    v1 = _json.loads((src / "tokenizer/vocab_v1.json").read_text())["chars"]
    v2 = _json.dumps({"chars": ["<pad>", "<unk>"] + v1[:-2]})
    regression_case(c, "lm", "plain", {"config.yaml": yaml_dump({**LM_CONFIG, "tokenizer": "tokenizer/vocab_v2.json"}),
                                       "tokenizer/vocab_v2.json": v2},
                    "Add vocab v2 with special tokens and use it", retrain=False)


# --- standalone (no baseline): eval_mode_forgotten, wrong_checkpoint -------------------------

PREDICT_NO_EVAL = '''"""Batch inference on new data: prints predictions and their agreement with the labels."""
import json

import torch
import yaml

from data import load_dataset, normalize, split
from model import Classifier


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    _, (xte, yte) = split(*load_dataset(cfg), cfg)
    ckpt = torch.load(cfg["checkpoint"])
    model = Classifier(cfg)
    model.load_state_dict(ckpt["model"])
    x = normalize(xte, ckpt["normalizer"])
    for run in (1, 2):
        with torch.no_grad():
            probs = model(x).softmax(-1)
        acc = (probs.argmax(-1) == yte).float().mean().item()
        print(f"inference run {run}: accuracy {acc:.4f} on {len(yte)} rows")
        print(f"  sample 0 probs: {[round(p, 3) for p in probs[0].tolist()]}")
        print(f"  sample 1 probs: {[round(p, 3) for p in probs[1].tolist()]}")


if __name__ == "__main__":
    main()
'''


@case("inference_without_eval_plain", split="tune", expected="eval_mode_forgotten",
      symptom="predict.py gives different probabilities for the same rows every time I run it, and a different "
              "accuracy each run.",
      fmt="plain train log + predict.log", notes="predict.py loads the checkpoint and never calls model.eval(): "
                                                 "dropout (p=0.5) stays on; two inference passes over the same "
                                                 "rows give different probabilities and accuracies.")
def _(c: Ctx):
    files = {**cls_project("plain"), "predict.py": PREDICT_NO_EVAL}
    files.pop("evaluate.py")
    src = _good_run(c, "cls-plain", cls_project("plain"))
    for rel, text in files.items():
        c.write(rel, text)
    shutil.copytree(src / "checkpoints", c.dir / "checkpoints")
    shutil.copy(src / "train.log", c.dir / "train.log")
    _run(c, c.dir, ["python", "predict.py"], "predict.log")
    shutil.rmtree(c.dir / "checkpoints")


DP_TRAIN_PATCH = ('''    model = Classifier(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])''', '''    model = torch.nn.DataParallel(Classifier(cfg))   # multi-GPU when available
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])''')


@case("checkpoint_strict_false_plain", split="tune", expected="wrong_checkpoint",
      symptom="The evaluation accuracy is ~20%, basically random, even though validation reached 92% in training.",
      fmt="plain train/eval logs + eval_results.json",
      notes="train.py wraps the model in nn.DataParallel, so saved keys start with 'module.'; evaluate.py loads "
            "with strict=False and prints the real _IncompatibleKeys(missing_keys=[...], unexpected_keys=[...]) "
            "line: no weight is loaded and the test accuracy is chance.")
def _(c: Ctx):
    files = cls_project("plain")
    files["train.py"] = files["train.py"].replace(*DP_TRAIN_PATCH)
    files["evaluate.py"] = files["evaluate.py"].replace(
        '    model.load_state_dict(ckpt["model"])',
        '    print(model.load_state_dict(ckpt["model"], strict=False))   # tolerate heads added later')
    _run_project(c, files, c.dir)
    shutil.rmtree(c.dir / "checkpoints", ignore_errors=True)
