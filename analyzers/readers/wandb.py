"""Weights & Biases run folders (`wandb/offline-run-<date>-<id>/`, `wandb/run-...`).

In:
  run-<id>.wandb           W&B's datastore: 7-byte header ":W&B" + magic 0xBEE1 + version,
                           then 32 KiB blocks of LevelDB-log records (uint32 CRC-32 of
                           type+data seeded with the type byte, uint16 length, uint8 type
                           FULL/FIRST/MIDDLE/LAST); payloads are protobuf `Record`s
                           (wandb_internal.proto). Decoded by hand, no wandb import.
  files/config.yaml        `{key: {value: X}}` layout (older SDKs write it offline)
  files/wandb-metadata.json  environment (python, gpu, git, host)
  files/wandb-summary.json   final values: claimed; kept (one point per key) only when the run folder
                           has no .wandb datastore (a post's files/ alone): a NaN there is then the only trace
  files/output.log         NOT claimed: the text log reader reads it.
  logs/debug*.log          the SDK's own logs: claimed, nothing kept.
Out:
  Series: one per history key (Record.history = field 2: items {key | nested_key,
          value_json}), steps from HistoryRecord.step (or `_step`), locs = record index
          in the .wandb file (`loc_kind="record"`); W&B's own `_runtime`/`_timestamp`/`_step` are skipped.
  Facts:  config (lr, batch_size, seed, optimizer, epochs, ... normalised; others keep
          their dotted key), python_version, gpu, gpu_count, cuda_version, git_sha,
          git_remote, host, exit_code.
A truncated tail (run still writing) is ignored; a bad CRC in the middle is one
warning and reading stops there.
"""
from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from mltdbg.analyzers.common import yamlsafe
from mltdbg.analyzers.ingest import read_text
from mltdbg.analyzers.model import LOC_RECORD, Fact, Run, Series
from mltdbg.analyzers.names import normalize
from mltdbg.analyzers.readers.mlflow import fact_name
from mltdbg.analyzers.readers.protowire import iter_fields

_MAGIC = b":W&B" + struct.pack("<H", 0xBEE1)
_BLOCK = 32768
_HDR = 7
_FULL, _FIRST, _MIDDLE, _LAST = 1, 2, 3, 4
_TYPE_CRC = {t: zlib.crc32(bytes([t])) for t in range(1, 5)}
_RUN_DIR = re.compile(r"^(offline-)?run-\d{8}_\d{6}-[A-Za-z0-9]+$")
_CLAIMED = {"config.yaml", "wandb-metadata.json", "wandb-summary.json"}
# the SDK's own logs (connection, threads, sync state): not the training's output
_SDK_LOGS = {"debug.log", "debug-internal.log", "debug-core.log"}
_INTERNAL_KEYS = {"_runtime", "_timestamp", "_step", "_wandb", "wandb_version"}


def _is_run_dir(d: Path) -> bool:
    if _RUN_DIR.match(d.name):
        return True
    try:
        return any(p.suffix == ".wandb" for p in d.iterdir())
    except OSError:
        return False


def sniff(path: Path, head: bytes) -> bool:
    """The .wandb datastore by its magic bytes; config/metadata/summary files by their place
    in a W&B run folder (output.log and requirements.txt are left to other readers)."""
    if head.startswith(_MAGIC):
        return True
    if path.name in _CLAIMED:
        return path.parent.name == "files" and _is_run_dir(path.parent.parent)
    if path.name in _SDK_LOGS:
        real = path.resolve()
        return real.parent.name == "logs" and _is_run_dir(real.parent.parent)
    return False


def read(path: Path, rel: str, run: Run) -> None:
    if path.name == "config.yaml":
        _read_config_yaml(path, rel, run)
    elif path.name == "wandb-metadata.json":
        _read_metadata(path, rel, run)
    elif path.name == "wandb-summary.json":
        _read_summary(path, rel, run)
    elif path.name in _SDK_LOGS:
        return
    else:
        _read_datastore(path, rel, run)


def _read_summary(path: Path, rel: str, run: Run) -> None:
    """The summary's numbers (the last value logged per key) as one-point series, when the folder has
    no datastore whose history holds them all."""
    try:
        if any(p.suffix == ".wandb" for p in path.parent.parent.iterdir()):
            return
    except OSError:
        return
    text = read_text(path, rel, run)
    try:
        d = json.loads(text)
    except ValueError as e:
        run.warnings.append(f"{rel}: not valid JSON ({e}); its final values not read")
        return
    if not isinstance(d, dict):
        return
    items: list[tuple[str, Any]] = []
    for k, v in d.items():
        if k not in _INTERNAL_KEYS:
            _flatten(k, v, items)
    step = d.get("_step") if isinstance(d.get("_step"), int) else 0
    for key, v in items:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        at = text.find(json.dumps(key.rsplit(".", 1)[-1]))
        line = text.count("\n", 0, at) + 1 if at >= 0 else 1
        run.series.append(Series(name=normalize(key.replace(".", "/")), raw_name=key, steps=np.array([step], np.int64),
                                 values=np.array([float(v)]), source=rel, locs=np.array([line], np.int64)))


# ---------------------------------------------------------------- facts helpers

def _flatten(key: str, value: Any, out: list) -> None:
    """{'model': {'depth': 4}} -> [('model.depth', 4)]."""
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten(f"{key}.{k}", v, out)
    else:
        out.append((key, value))


def _config_facts(items: list[tuple[str, Any]], source: str, text: str | None = None) -> list[Fact]:
    """Config items -> Facts (nested dicts flattened to dotted keys). With the YAML
    `text`, each fact cites the line holding its value."""
    facts = []
    for key, value in items:
        if key.split(".")[0] in _INTERNAL_KEYS:
            continue
        flat: list = []
        _flatten(key, value, flat)
        for k, v in flat:
            line = _yaml_line(text, k) if text else None
            facts.append(Fact(name=fact_name(k), value=v, source=source, line=line,
                              quote=_line(text, line).strip() if line else f"{k}: {v}"))
    return facts


def _yaml_line(text: str, dotted: str) -> int | None:
    """1-based line of a key's value in W&B's config.yaml ({key: {desc, value}}): the
    top-level key, then its `value:`, then each nested key below it."""
    parts = dotted.split(".")
    m = re.search(rf"^{re.escape(parts[0])}:", text, re.M)
    if not m:
        return None
    pos = m.start()
    v = re.compile(r"^\s+value:", re.M).search(text, pos)
    nxt = re.compile(r"^\S", re.M).search(text, m.end())      # the next top-level key
    if v and (nxt is None or v.start() < nxt.start()):
        pos = v.start()
    for sub in parts[1:]:
        m = re.compile(rf"^\s+{re.escape(sub)}:", re.M).search(text, pos)
        if not m:
            break
        pos = m.start()
    return text.count("\n", 0, pos) + 1


def _python_version(s: str) -> str:
    m = re.search(r"\d+\.\d+(\.\d+)?", s)
    return m.group(0) if m else s


# ---------------------------------------------------------------- files/

def _read_config_yaml(path: Path, rel: str, run: Run) -> None:
    import yaml  # noqa: PLC0415 - loaded only on this path, keeps the common path light

    text = read_text(path, rel, run)
    try:
        data = yamlsafe.load(text)     # bounded: a YAML bomb is refused, not expanded
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        run.warnings.append(f"{rel}:{mark.line + 1 if mark else 1}: not valid YAML ({getattr(e, 'problem', e)})")
        return
    if not isinstance(data, dict):
        return
    items = []
    for k, v in data.items():
        # W&B's layout: {key: {desc: ..., value: X}}; plain {key: X} is accepted too
        if isinstance(v, dict) and "value" in v:
            v = v["value"]
        items.append((str(k), v))
    run.facts.extend(_config_facts(items, rel, text))


def _line(text: str, n: int) -> str:
    parts = text.split("\n", n)
    return parts[n - 1].rstrip("\r") if len(parts) >= n else ""


def _read_metadata(path: Path, rel: str, run: Run) -> None:
    text = read_text(path, rel, run)
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as e:
        run.warnings.append(f"{rel}:{e.lineno}: not valid JSON ({e.msg})")
        return
    if not isinstance(meta, dict):
        return
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    gpu = meta.get("gpu")
    if gpu is None and isinstance(meta.get("gpu_nvidia"), list) and meta["gpu_nvidia"]:
        gpu = meta["gpu_nvidia"][0].get("name") if isinstance(meta["gpu_nvidia"][0], dict) else None
    found = [("python_version", "python", _python_version(str(meta["python"])) if meta.get("python") else None),
             ("gpu", "gpu", gpu), ("gpu_count", "gpu_count", meta.get("gpu_count")),
             ("cuda_version", "cuda", meta.get("cuda") or meta.get("cudaVersion")),
             ("git_sha", "commit", git.get("commit")), ("git_remote", "remote", git.get("remote") or git.get("remoteUrl")),
             ("host", "host", meta.get("host"))]
    for name, key, value in found:
        if value in (None, ""):
            continue
        m = re.search(rf'"{key}"\s*:', text)
        line = text.count("\n", 0, m.start()) + 1 if m else None
        run.facts.append(Fact(name=name, value=value, source=rel, line=line,
                              quote=_line(text, line).strip() if line else None))


# ---------------------------------------------------------------- run-<id>.wandb

def _records(buf: bytes, rel: str, run: Run):
    """Yield complete Record payloads (bytes) in file order."""
    n = len(buf)
    p = _HDR
    pending: list[bytes] | None = None
    while True:
        left = _BLOCK - p % _BLOCK
        if left < _HDR:                               # block trailer: zero padding
            p += left
        if p + _HDR > n:
            return                                     # end, or a header still being written
        crc, length, rtype = struct.unpack_from("<IHB", buf, p)
        if rtype == 0 and length == 0 and crc == 0:
            return                                     # zero-filled (preallocated) tail
        if p + _HDR + length > n:
            return                                     # last record still being written
        data = buf[p + _HDR:p + _HDR + length]
        if rtype not in _TYPE_CRC or zlib.crc32(data, _TYPE_CRC[rtype]) != crc:
            run.warnings.append(f"{rel}: bad record checksum at byte {p}; stopped reading this file there")
            return
        p += _HDR + length
        if rtype == _FULL:
            pending = None
            yield data
        elif rtype == _FIRST:
            pending = [data]
        elif pending is not None:
            pending.append(data)
            if rtype == _LAST:
                yield b"".join(pending)
                pending = None


def _item(b: bytes, a: int, z: int) -> tuple[str | None, Any]:
    """HistoryItem / ConfigItem / SummaryItem -> (key, value); value is a float for
    numbers, the decoded JSON for value_json, or None."""
    key = None
    nested = []
    value: Any = None
    for f, wt, s, e, v in iter_fields(b, a, z):
        if f == 1 and wt == 2:
            key = b[s:e].decode("utf-8", "replace")
        elif f == 2 and wt == 2:
            nested.append(b[s:e].decode("utf-8", "replace"))
        elif f == 16 and wt == 2:
            value = b[s:e].decode("utf-8", "replace")
        elif f == 5 and wt == 0:                      # typed HistoryItem.integer
            value = float(v - (1 << 64) if v >= 1 << 63 else v)
        elif f == 6 and wt == 1:                      # typed HistoryItem.number
            value = struct.unpack_from("<d", b, s)[0]
    if key is None and nested:
        key = ".".join(nested)
    return key, value


def _json(s: Any) -> Any:
    if not isinstance(s, str):
        return s
    try:
        return json.loads(s)
    except ValueError:
        return s


def _number(s: Any) -> float | None:
    if isinstance(s, float):
        return s
    try:
        return float(s)          # "1.5", "NaN", "Infinity", "-Infinity"; JSON objects/strings fail
    except (TypeError, ValueError):
        return None


def _nested_numbers(key: str, text: str) -> list[tuple[str, float]]:
    """'{"acc": 0.5, "f1": {"macro": 0.4}}' -> [(key.acc, 0.5), (key.f1.macro, 0.4)];
    media/table objects (they carry "_type") give nothing."""
    d = _json(text)
    if not isinstance(d, dict) or "_type" in d:
        return []
    flat: list = []
    _flatten(key, d, flat)
    return [(k, float(v)) for k, v in flat
            if isinstance(v, (int, float)) and not isinstance(v, bool)]


def _read_datastore(path: Path, rel: str, run: Run) -> None:
    with open(path, "rb") as f:
        buf = f.read()
    if not buf.startswith(_MAGIC):
        run.warnings.append(f"{rel}: not a W&B datastore (bad header)")
        return
    cols: dict[str, tuple[list, list, list]] = {}      # key -> (record index, step, value)
    config: list[tuple[str, Any]] = []
    env: dict[str, Any] = {}
    exit_code = None
    bad = 0
    for idx, rec in enumerate(_records(buf, rel, run)):
        try:
            for f, wt, a, z, v in iter_fields(rec, 0, len(rec)):
                if wt != 2:
                    continue
                if f == 2:                                          # history
                    items = []
                    step = None
                    for g, wt2, a2, z2, _ in iter_fields(rec, a, z):
                        if g == 1 and wt2 == 2:
                            items.append(_item(rec, a2, z2))
                        elif g == 2 and wt2 == 2:
                            step = 0
                            for h, wt3, _a3, _z3, v3 in iter_fields(rec, a2, z2):
                                if h == 1 and wt3 == 0:
                                    step = v3 - (1 << 64) if v3 >= 1 << 63 else v3
                    # `_step` is what W&B plots against; the legacy SDK leaves HistoryRecord.step unset
                    _step = next((_number(val) for k, val in items if k == "_step"), None)
                    if _step is not None and np.isfinite(_step):
                        step = int(_step)
                    elif step is None:
                        step = idx
                    for k, val in items:
                        if k is None or k in _INTERNAL_KEYS or k.startswith("_wandb"):
                            continue
                        x = _number(val)
                        if x is not None:
                            pairs = [(k, x)]
                        elif isinstance(val, str) and val.startswith("{"):
                            pairs = _nested_numbers(k, val)   # legacy SDK: {"eval": {"acc": 1}} as JSON
                        else:
                            continue                           # strings, lists
                        for k2, x2 in pairs:
                            c = cols.setdefault(k2, ([], [], []))
                            c[0].append(idx)
                            c[1].append(step)
                            c[2].append(x2)
                elif f == 5:                                        # config updates
                    config += [(k, _json(val)) for g, wt2, a2, z2, _ in iter_fields(rec, a, z)
                               if g == 1 and wt2 == 2 for k, val in [_item(rec, a2, z2)] if k]
                elif f == 17:                                       # run: config, host, git
                    _run_record(rec, a, z, config, env)
                elif f == 26:                                       # environment
                    _environment(rec, a, z, env)
                elif f == 18:                                       # exit
                    exit_code = 0
                    for g, wt2, _a2, _z2, v2 in iter_fields(rec, a, z):
                        if g == 1 and wt2 == 0:
                            exit_code = v2 - (1 << 64) if v2 >= 1 << 63 else v2
        except (ValueError, IndexError, struct.error):
            bad += 1
    if bad:
        run.warnings.append(f"{rel}: {bad} record(s) could not be decoded; skipped")
    for key, (idx, steps, vals) in cols.items():
        run.series.append(Series(name=normalize(key), raw_name=key, steps=np.array(steps, np.int64),
                                 values=np.array(vals, np.float64), source=rel,
                                 locs=np.array(idx, np.int64), loc_kind=LOC_RECORD))
    # files/config.yaml and wandb-metadata.json (older SDKs) carry line numbers: prefer them
    files = path.parent / "files"
    if config and not (files / "config.yaml").is_file():
        last: dict[str, Any] = {}
        for k, v in config:                                   # later updates win
            last[k] = v
        run.facts.extend(_config_facts(list(last.items()), rel))
    if not (files / "wandb-metadata.json").is_file():
        for name, value in env.items():
            if value not in (None, ""):
                run.facts.append(Fact(name=name, value=value, source=rel, quote=f"{name}: {value}"))
    if exit_code is not None:
        run.facts.append(Fact(name="exit_code", value=exit_code, source=rel, quote=f"exit_code: {exit_code}"))


def _git(rec: bytes, a: int, z: int, env: dict) -> None:
    for g, wt, a2, z2, _ in iter_fields(rec, a, z):
        if wt == 2 and g == 1:
            env.setdefault("git_remote", rec[a2:z2].decode("utf-8", "replace"))
        elif wt == 2 and g == 2:
            env.setdefault("git_sha", rec[a2:z2].decode("utf-8", "replace"))


def _run_record(rec: bytes, a: int, z: int, config: list, env: dict) -> None:
    for g, wt, a2, z2, _ in iter_fields(rec, a, z):
        if wt != 2:
            continue
        if g == 4:                                                   # ConfigRecord
            config += [(k, _json(val)) for h, wt3, a3, z3, _ in iter_fields(rec, a2, z2)
                       if h == 1 and wt3 == 2 for k, val in [_item(rec, a3, z3)] if k]
        elif g == 13:
            env.setdefault("host", rec[a2:z2].decode("utf-8", "replace"))
        elif g == 21:
            _git(rec, a2, z2, env)
        elif g == 19:                                                # telemetry: python_version = 2
            for h, wt3, a3, z3, _ in iter_fields(rec, a2, z2):
                if h == 2 and wt3 == 2:
                    env.setdefault("python_version", rec[a3:z3].decode("utf-8", "replace"))


def _environment(rec: bytes, a: int, z: int, env: dict) -> None:
    for g, wt, a2, z2, v in iter_fields(rec, a, z):
        s = rec[a2:z2].decode("utf-8", "replace") if wt == 2 else None
        if g == 2 and s:
            env["python_version"] = _python_version(s)
        elif g == 9 and wt == 2:
            _git(rec, a2, z2, env)
        elif g == 12 and s:
            env.setdefault("host", s)
        elif g == 18 and s:
            env["gpu"] = s
        elif g == 19 and wt == 0:
            env["gpu_count"] = v
        elif g == 25 and s:
            env["cuda_version"] = s
