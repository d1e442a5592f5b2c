"""MLflow tracking data: the file store (`mlruns/`) and the SQLite store (`mlflow.db`).

File store, one run = `mlruns/<exp_id>/<run_id>/`:
  metrics/<key>   lines "timestamp value step" (keys with "/" are nested folders)
                  -> one Series per file, locs = line numbers
  params/<key>    one value -> a config Fact (lr, batch_size, seed, optimizer, epochs
                  normalised; other params keep their raw name)
  tags/mlflow.source.git.commit -> Fact git_sha; other tags and meta.yaml are claimed
                  (so they are not read as logs) but give only the run name.
SQLite store: tables metrics(key, value, timestamp, step, is_nan, run_uuid), params,
  runs, tags. NaN is stored as value=0, is_nan=1 and comes out NaN; +-inf is stored
  as +-DBL_MAX and comes out +-inf. One Series per (run, key), locs = metric rowid
  (`loc_kind="record"`). With several runs, raw_name says which run.
"""
from __future__ import annotations

import re
import sqlite3
import urllib.parse
from pathlib import Path
from typing import Any

import numpy as np

from mltdbg.analyzers.config import key_name as config_key_name
from mltdbg.analyzers.ingest import read_text
from mltdbg.analyzers.model import LOC_LINE, LOC_RECORD, Fact, Run, Series
from mltdbg.analyzers.names import is_held_out, normalize

# ---------------------------------------------------------------- config facts (shared with wandb)

_PARAM_NAMES = {
    "lr": "lr", "learning_rate": "lr", "learning-rate": "lr", "base_lr": "lr", "max_lr": "lr", "initial_lr": "lr",
    "batch_size": "batch_size", "batch-size": "batch_size", "bs": "batch_size", "train_batch_size": "batch_size",
    "per_device_train_batch_size": "batch_size", "batchsize": "batch_size",
    "seed": "seed", "random_seed": "seed", "random_state": "seed",
    "optimizer": "optimizer", "optim": "optimizer", "opt": "optimizer", "optimizer_name": "optimizer",
    "epochs": "epochs", "num_epochs": "epochs", "n_epochs": "epochs", "max_epochs": "epochs",
    "num_train_epochs": "epochs", "epoch": "epochs",
    "weight_decay": "weight_decay", "wd": "weight_decay",
    "warmup_steps": "warmup_steps", "warmup_ratio": "warmup_ratio", "max_steps": "max_steps",
    "grad_clip": "grad_clip", "max_grad_norm": "grad_clip", "gradient_clip_val": "grad_clip", "clip_grad_norm": "grad_clip",
    "scheduler": "scheduler", "lr_scheduler": "scheduler", "lr_scheduler_type": "scheduler",
    "precision": "precision", "dropout": "dropout", "num_workers": "num_workers",
    "num_classes": "num_classes", "fp16": "fp16", "bf16": "bf16",
}


def fact_name(raw: str) -> str:
    """Config key (possibly dotted/nested, e.g. 'optimizer.lr', 'training/batch_size')
    -> the normalised fact name for well-known settings (the trackers' own spellings here, then the
    config reader's synonyms of numeric settings: n_classes, num_labels, hidden_dim, ...), else the raw key."""
    k = raw.strip().lower()
    if k in _PARAM_NAMES:
        return _PARAM_NAMES[k]
    leaf = re.split(r"[./]", k)[-1]
    if leaf in _PARAM_NAMES:
        return _PARAM_NAMES[leaf]
    name = config_key_name(k.replace("/", "."))
    # only the numeric settings the config reader needs no context or typing for (a `weights: [1.0, 5.0]` of class
    # weights is no checkpoint, `pretrained: False` no path), and not those of an evaluation section (eval.shuffle)
    parent = m.group(1) if (m := re.match(r"(.*)[./]", k)) else ""      # the keys above the last . or /
    if name in _NUMERIC_SYNONYMS and not (is_held_out(parent) or _INFER_PARENT.search(parent)):
        return name
    return raw


# the config reader's settings a tracker's key may name by another spelling (n_classes, hidden_dim, model.depth)
_NUMERIC_SYNONYMS = frozenset({"num_classes", "hidden_width", "num_layers", "momentum", "beta1", "beta2", "eps",
                               "warmup_steps", "warmup_ratio", "max_steps", "grad_accum", "vocab_size", "label_noise",
                               "init_std", "global_batch_size"})
# (a held-out set's section is names.is_held_out's; a prediction or inference section is no training either)
_INFER_PARENT = re.compile(r"(?:^|[./_-])(?:predict\w*|infer\w*)(?:$|[./_-])")


def parse_value(text: str) -> Any:
    """'0.01' -> 0.01, '32' -> 32, 'true' -> True, 'None' -> None, else the stripped string."""
    t = text.strip()
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return t


# ---------------------------------------------------------------- sniff

_SQLITE_MAGIC = b"SQLite format 3\x00"
_METRIC_LINE = re.compile(rb"^-?\d+ \S+ -?\d+\r?$", re.M)


def _run_part(path: Path) -> tuple[Path, str, str] | None:
    """For a file inside an MLflow run folder: (run_dir, 'metrics'|'params'|'tags', key)."""
    parts = path.parts
    hits = [i for i in range(1, len(parts) - 1) if parts[i] in ("metrics", "params", "tags")]
    for i in hits:                                   # outermost folder that sits in a real run dir
        run_dir = Path(*parts[:i])
        if (run_dir / "meta.yaml").is_file():
            return run_dir, parts[i], "/".join(parts[i + 1:])
    for i in reversed(hits):                         # a copied metrics/ folder without meta.yaml
        if parts[i] == "metrics":
            return Path(*parts[:i]), "metrics", "/".join(parts[i + 1:])
    return None


def sniff(path: Path, head: bytes) -> bool:
    if head.startswith(_SQLITE_MAGIC):
        return _is_mlflow_db(path)
    where = _run_part(path)
    if where is not None:
        run_dir, part, _ = where
        if part == "metrics":
            first = head.split(b"\n", 1)[0]
            return not head or bool(_METRIC_LINE.match(first))
        return (run_dir / "meta.yaml").is_file()
    # the run's meta.yaml (kept away from the config reader: it describes the run, not training)
    return path.name == "meta.yaml" and (path.parent / "metrics").is_dir() and b"run_id:" in head


def _connect(path: Path) -> sqlite3.Connection:
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    return sqlite3.connect(uri, uri=True)


def _is_mlflow_db(path: Path) -> bool:
    try:
        con = _connect(path)
        try:
            cols = {r[1] for r in con.execute("PRAGMA table_info(metrics)")}
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return {"key", "value", "step", "run_uuid", "is_nan"} <= cols


# ---------------------------------------------------------------- read

def read(path: Path, rel: str, run: Run) -> None:
    with open(path, "rb") as f:
        magic = f.read(16)
    if magic == _SQLITE_MAGIC:
        _read_db(path, rel, run)
        return
    where = _run_part(path)
    if where is None:
        return                                      # meta.yaml: claimed, nothing to keep
    run_dir, part, key = where
    if part == "metrics":
        _read_metric_file(path, rel, run, run_dir, key)
    elif part == "params":
        text = read_text(path, rel, run)
        run.facts.append(Fact(name=fact_name(key), value=parse_value(text), source=rel, line=1,
                              quote=text.strip().splitlines()[0] if text.strip() else ""))
    elif key == "mlflow.source.git.commit":
        text = read_text(path, rel, run).strip()
        if text:
            run.facts.append(Fact(name="git_sha", value=text, source=rel, line=1, quote=text))


def _run_name(run_dir: Path) -> str:
    """The run's name from meta.yaml (or tags/mlflow.runName), else its folder name."""
    try:
        m = re.search(r"^run_name:\s*'?([^'\n]*)'?\s*$", (run_dir / "meta.yaml").read_text(errors="replace"), re.M)
        if m and m.group(1):
            return m.group(1)
        return (run_dir / "tags" / "mlflow.runName").read_text(errors="replace").strip() or run_dir.name
    except OSError:
        return run_dir.name


def _sibling_runs(run_dir: Path) -> int:
    try:
        return sum(1 for d in run_dir.parent.iterdir() if (d / "meta.yaml").is_file() and (d / "metrics").is_dir())
    except OSError:
        return 1


def _read_metric_file(path: Path, rel: str, run: Run, run_dir: Path, key: str) -> None:
    text = read_text(path, rel, run)
    lines = text.splitlines()
    tokens = text.split()
    if len(tokens) == 3 * len(lines):               # the common case: parse in bulk
        arr = np.array(tokens, dtype=object).reshape(-1, 3)
        try:
            values = arr[:, 1].astype(np.float64)
            steps = arr[:, 2].astype(np.int64)
            locs = np.arange(1, len(lines) + 1)
        except (ValueError, OverflowError):
            values = None
    else:
        values = None
    if values is None:                               # something is off: line by line, with warnings
        vals, sts, lcs = [], [], []
        for i, ln in enumerate(lines, 1):
            f = ln.split()
            if not f:
                continue
            try:
                if len(f) != 3:
                    raise ValueError
                v, s = float(f[1]), int(f[2])
            except ValueError:
                run.warnings.append(f"{rel}:{i}: not 'timestamp value step': {ln[:80]!r}")
                continue
            vals.append(v)
            sts.append(s)
            lcs.append(i)
        values, steps, locs = np.array(vals, np.float64), np.array(sts, np.int64), np.array(lcs, np.int64)
    if not len(values):
        return
    raw = key if _sibling_runs(run_dir) <= 1 else f"{key} (run {_run_name(run_dir)})"
    run.series.append(Series(name=normalize(key), raw_name=raw, steps=steps, values=values,
                             source=rel, locs=locs, loc_kind=LOC_LINE))


def _read_db(path: Path, rel: str, run: Run) -> None:
    try:
        con = _connect(path)
    except sqlite3.Error as e:
        run.warnings.append(f"{rel}: cannot open MLflow database ({e})")
        return
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        names: dict[str, str] = {}
        if "runs" in tables:
            names = {u: (n or u[:8]) for u, n in con.execute("SELECT run_uuid, name FROM runs")}
        rows = con.execute("SELECT rowid, run_uuid, key, value, step, is_nan FROM metrics ORDER BY rowid").fetchall()
        params = con.execute("SELECT run_uuid, key, value FROM params").fetchall() if "params" in tables else []
        tags = []
        if "tags" in tables:
            tags = con.execute("SELECT run_uuid, value FROM tags WHERE key='mlflow.source.git.commit'").fetchall()
    except sqlite3.Error as e:
        run.warnings.append(f"{rel}: cannot read MLflow database ({e})")
        return
    finally:
        con.close()
    run_ids = sorted({r[1] for r in rows} | {p[0] for p in params})
    several = len(run_ids) > 1
    label = lambda u: names.get(u, u[:8])  # noqa: E731
    if rows:
        rowid = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        value = np.array([r[3] for r in rows], np.float64)
        step = np.array([r[4] or 0 for r in rows], np.int64)
        is_nan = np.array([bool(r[5]) for r in rows])
        value[is_nan] = np.nan
        big = np.finfo(np.float64).max                 # the store saves +-inf as +-DBL_MAX
        value[value >= big] = np.inf
        value[value <= -big] = -np.inf
        group = np.array([f"{r[1]}\x00{r[2]}" for r in rows], dtype=object)
        uniq, inv = np.unique(group, return_inverse=True)
        order = np.argsort(inv, kind="stable")        # rowid order within each (run, key)
        bounds = np.searchsorted(inv[order], np.arange(len(uniq) + 1))
        for g, (a, z) in enumerate(zip(bounds[:-1], bounds[1:])):
            run_uuid, key = uniq[g].split("\x00", 1)
            sel = order[a:z]
            raw = f"{key} (run {label(run_uuid)})" if several else key
            run.series.append(Series(name=normalize(key), raw_name=raw, steps=step[sel], values=value[sel],
                                     source=rel, locs=rowid[sel], loc_kind=LOC_RECORD))
    for run_uuid, key, val in params:
        q = f"{key}={val}" + (f" (run {label(run_uuid)})" if several else "")
        run.facts.append(Fact(name=fact_name(key), value=parse_value(str(val)), source=rel, quote=q))
    for run_uuid, sha in tags:
        if sha:
            run.facts.append(Fact(name="git_sha", value=sha, source=rel,
                                  quote=f"mlflow.source.git.commit={sha}" + (f" (run {label(run_uuid)})" if several else "")))
