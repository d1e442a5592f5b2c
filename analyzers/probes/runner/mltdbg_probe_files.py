"""File probes: checkpoint (torch.load with weights_only=True: never unpickles code) and data
(.npy/.npz/CSV/TSV/Parquet/.pt). Runs in the USER's interpreter; never imports mltdbg; reads files,
writes none. Out: findings and tables for the result document.
"""
from __future__ import annotations

import csv
import hashlib
import math
import re
import zipfile
from pathlib import Path
from typing import Any

from mltdbg_probe_util import E_BAD_INPUT, ProbeError

# Keys under which training scripts commonly save each part of a checkpoint.
MODEL_KEYS = ("state_dict", "model_state_dict", "model", "module", "net", "network", "model_state", "weights", "params")
OPTIM_KEYS = ("optimizer", "optimizer_state_dict", "optim", "opt", "optimizer_state", "optimizers")
SCHED_KEYS = ("scheduler", "lr_scheduler", "scheduler_state_dict", "sched", "lr_scheduler_state_dict", "schedulers")
SCALER_KEYS = ("scaler", "grad_scaler", "amp", "scaler_state_dict")
STEP_KEYS = ("step", "global_step", "epoch", "iteration", "iter", "num_updates")
# Rows/columns/tensors listed in full in the result; counts are always over everything.
MAX_LIST = 50
MAX_COLUMNS = 256
# Normalised inputs have mean ~0 and std ~1 (or lie in [0, 1]); a feature whose |mean| or std is
# above RAW_SCALE, or raw 0-255 pixel values, is unnormalised. Columns whose stds differ by more than
# SCALE_SPREAD are on different scales (a distance/gradient dominated by a few features).
RAW_SCALE = 10.0
SCALE_SPREAD = 1e3
LABEL_NAMES = ("label", "labels", "y", "target", "targets", "class", "classes", "class_id", "category")


# ============================================================================= checkpoint

def load_checkpoint(path: Path, doc) -> Any:
    import pickle

    import torch
    if not path.is_file():
        raise ProbeError(E_BAD_INPUT, f"{path}: no such file")
    try:
        try:
            return torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except (RuntimeError, ValueError) as e:
            if "mmap" not in str(e) and "zip" not in str(e).lower():
                raise
            return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        if not re.search(r"GLOBAL|Unsupported (?:global|class)", str(e)):
            m = re.search(r"WeightsUnpickler error:\s*(.+?)(?:\n\n|$)", str(e), re.S)
            why = " ".join((m.group(1) if m else str(e)).split())[:200]
            raise ProbeError(E_BAD_INPUT, f"{path}: not a readable torch checkpoint ({why})") from None
        glob = re.search(r"GLOBAL ([\w.]+)", str(e)) or re.search(r"Unsupported (?:global|class)[:\s]+([\w.]+)", str(e))
        what = glob.group(1) if glob else "a Python object"
        entries = _zip_listing(path)
        if entries is not None:
            doc.d["result"]["archive_entries"] = entries
        raise ProbeError(E_BAD_INPUT, f"{path}: holds pickled Python objects ({what}) that torch.load(weights_only=True) "
                                      "refuses; they were not loaded, since unpickling them would run code "
                                      "(save state_dict()s of plain tensors, or allow-list the class after reading it)") from None
    except (RuntimeError, OSError, EOFError, ValueError) as e:
        raise ProbeError(E_BAD_INPUT, f"{path}: not a readable torch checkpoint ({type(e).__name__}: "
                                      f"{' '.join(str(e).split())[:200]})") from None


def _zip_listing(path: Path) -> dict[str, Any] | None:
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            return {"entries": len(names), "tensor_records": sum(1 for n in names if "/data/" in n),
                    "bytes": sum(i.file_size for i in z.infolist())}
    except (zipfile.BadZipFile, OSError):
        return None


def _is_state_dict(d: Any) -> bool:
    import torch
    if not isinstance(d, dict) or not d:
        return False
    n = sum(1 for v in d.values() if isinstance(v, torch.Tensor))
    return n >= max(1, len(d) // 2)


def find_parts(obj: Any) -> dict[str, Any]:
    """{model: (key, state dict), optimizer, scheduler, scaler, step} as found in a loaded checkpoint."""
    parts: dict[str, Any] = {}
    if _is_state_dict(obj):
        parts["model"] = ("(top level)", obj)
        return parts
    if not isinstance(obj, dict):
        return parts
    for k in MODEL_KEYS:
        if k in obj and _is_state_dict(obj[k]):
            parts["model"] = (k, obj[k])
            break
    else:
        for k, v in obj.items():
            if _is_state_dict(v):
                parts["model"] = (str(k), v)
                break
    for name, keys in (("optimizer", OPTIM_KEYS), ("scheduler", SCHED_KEYS), ("scaler", SCALER_KEYS)):
        for k in keys:
            if k in obj and obj[k] is not None:
                parts[name] = (k, obj[k])
                break
    for k in STEP_KEYS:
        if k in obj and isinstance(obj[k], (int, float)) and not isinstance(obj[k], bool):
            parts.setdefault("counters", {})[k] = obj[k]
    parts["top_keys"] = [str(k) for k in list(obj)[:MAX_LIST]]
    return parts


def checkpoint(path: Path, target_sd: dict[str, Any] | None, doc) -> dict[str, Any]:
    import torch
    doc.stage("loading")
    obj = load_checkpoint(path, doc)
    parts = find_parts(obj)
    res: dict[str, Any] = {"file": str(path), "bytes": path.stat().st_size, "top_keys": parts.get("top_keys", [])}
    if "model" not in parts:
        raise ProbeError(E_BAD_INPUT, f"{path}: no state dict of tensors found (top-level keys: "
                                      f"{', '.join(parts.get('top_keys', [])[:12]) or type(obj).__name__})")
    key, sd = parts["model"]
    res["state_dict_key"] = key
    doc.stage("scanning tensors")
    tensors = {k: v for k, v in sd.items() if isinstance(v, torch.Tensor)}
    res["tensors"] = len(tensors)
    res["numel"] = sum(t.numel() for t in tensors.values())
    res["float_numel"] = sum(t.numel() for t in tensors.values() if t.is_floating_point())
    dtypes: dict[str, dict[str, int]] = {}
    bad = []
    for k, t in tensors.items():
        dt = str(t.dtype).replace("torch.", "")
        e = dtypes.setdefault(dt, {"tensors": 0, "numel": 0})
        e["tensors"] += 1
        e["numel"] += t.numel()
        if t.is_floating_point() and t.numel():
            n_nan = int(torch.isnan(t).sum())
            n_inf = int(torch.isinf(t).sum())
            if n_nan or n_inf:
                bad.append({"name": k, "nan": n_nan, "inf": n_inf, "numel": t.numel()})
    res["dtypes"] = dtypes
    res["nonfinite_tensors"] = bad[:MAX_LIST]
    res["nonfinite_tensors_total"] = len(bad)
    prefix = "module." if tensors and all(k.startswith("module.") for k in tensors) else None
    res["ddp_prefix"] = prefix
    res["optimizer_state"] = _optim_summary(parts.get("optimizer"))
    res["scheduler_state"] = {"key": parts["scheduler"][0]} if "scheduler" in parts else None
    res["scaler_state"] = {"key": parts["scaler"][0]} if "scaler" in parts else None
    res["counters"] = parts.get("counters", {})
    if bad:
        doc.finding("ckpt_nonfinite", f"{len(bad)} tensors in the checkpoint hold NaN/inf: " + ", ".join(
            f"{b['name']} ({b['nan']} NaN, {b['inf']} inf)" for b in bad[:3]), "critical", tensors=len(bad),
            names=[b["name"] for b in bad[:20]])
    if len(dtypes) > 1:
        floats = [d for d in dtypes if d.startswith(("float", "bfloat"))]
        if len(floats) > 1:
            doc.note("mixed float dtypes: " + ", ".join(f"{d} {v['tensors']} tensors" for d, v in dtypes.items()))
    if res["optimizer_state"] is None:
        missing = "optimizer state" + ("" if res["scheduler_state"] else " and no scheduler state")
        holds = f"top-level keys: {', '.join(res['top_keys'][:8])}" if res["top_keys"] else "a bare state dict"
        doc.finding("ckpt_no_optimizer", f"no {missing} in the checkpoint ({holds}): a resume from it restarts the "
                    "optimizer's moments"
                    + ("" if res["scheduler_state"] else " and the lr schedule"), "medium",
                    has_scheduler=res["scheduler_state"] is not None)
    if target_sd is not None:
        doc.stage("comparing with TARGET")
        ck = {(k[len(prefix):] if prefix else k): v for k, v in tensors.items()}
        want = {k: tuple(v.shape) for k, v in target_sd.items()}
        missing_k = sorted(set(want) - set(ck))
        unexpected = sorted(set(ck) - set(want))
        shapes = sorted(k for k in set(want) & set(ck) if tuple(ck[k].shape) != want[k])
        res["against_target"] = {"target_keys": len(want), "missing": missing_k[:MAX_LIST], "missing_total": len(missing_k),
                                 "unexpected": unexpected[:MAX_LIST], "unexpected_total": len(unexpected),
                                 "shape_mismatch": [{"key": k, "checkpoint": list(ck[k].shape), "target": list(want[k])}
                                                    for k in shapes[:MAX_LIST]], "shape_mismatch_total": len(shapes)}
        if missing_k or unexpected:
            doc.finding("ckpt_missing_keys", f"against TARGET: {len(missing_k)} of {len(want)} keys missing from the "
                        f"checkpoint" + (f" (e.g. {', '.join(missing_k[:3])})" if missing_k else "") +
                        f", {len(unexpected)} unexpected" + (f" (e.g. {', '.join(unexpected[:3])})" if unexpected else ""),
                        "high", missing=len(missing_k), unexpected=len(unexpected), target_keys=len(want))
        if shapes:
            a = res["against_target"]["shape_mismatch"][0]
            doc.finding("ckpt_shape_mismatch", f"{len(shapes)} keys differ in shape from TARGET: {a['key']} "
                        f"{tuple(a['checkpoint'])} in the checkpoint vs {tuple(a['target'])}", "high", keys=len(shapes))
    return res


def _optim_summary(part) -> dict[str, Any] | None:
    if part is None:
        return None
    key, o = part
    if isinstance(o, dict) and "state" in o:
        groups = o.get("param_groups") or []
        lrs = [g.get("lr") for g in groups if isinstance(g, dict)]
        return {"key": key, "param_states": len(o.get("state") or {}), "param_groups": len(groups),
                "lr": [x for x in lrs if isinstance(x, (int, float))][:8]}
    return {"key": key, "param_states": None, "note": f"not a torch optimizer state_dict ({type(o).__name__})"}


# ============================================================================= data

def load_arrays(path: Path, label_column: str | None, notes: list[str]) -> tuple[dict[str, Any], dict[str, list]]:
    """({name: numpy array}, {name: list of non-numeric values}) from a data file."""
    import numpy as np
    if not path.is_file():
        raise ProbeError(E_BAD_INPUT, f"{path}: no such file")
    suf = "".join(path.suffixes[-2:]).lower() if path.suffix.lower() == ".gz" else path.suffix.lower()
    try:
        if suf == ".npy":
            return {path.stem: np.load(path, allow_pickle=False, mmap_mode="r")}, {}
        if suf == ".npz":
            with np.load(path, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}, {}
    except ValueError as e:
        if "allow_pickle" in str(e) or "pickle" in str(e).lower():
            raise ProbeError(E_BAD_INPUT, f"{path}: holds pickled Python objects (dtype=object); not loaded "
                                          "(allow_pickle stays off: unpickling runs code)") from None
        raise ProbeError(E_BAD_INPUT, f"{path}: not a readable NumPy file ({e})") from None
    if suf in (".pt", ".pth", ".bin"):
        return _torch_arrays(path), {}
    if suf in (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz"):
        return _table(path, "\t" if ".tsv" in suf else ",", notes)
    if suf == ".parquet":
        try:
            import pandas as pd
        except ImportError:
            raise ProbeError(E_BAD_INPUT, f"{path}: Parquet needs pandas with pyarrow or fastparquet, not installed "
                                          "in this interpreter (pass --python for one that has them)") from None
        try:
            df = pd.read_parquet(path)
        except ImportError as e:
            raise ProbeError(E_BAD_INPUT, f"{path}: Parquet needs pyarrow or fastparquet ({e}); not installed in this "
                                          "interpreter (pass --python for one that has them)") from None
        except Exception as e:  # noqa: BLE001 - the Parquet engines' own error types
            raise ProbeError(E_BAD_INPUT, f"{path}: not a readable Parquet file ({type(e).__name__}: "
                                          f"{' '.join(str(e).split())[:200]})") from None
        return _frame(df)
    raise ProbeError(E_BAD_INPUT, f"{path}: unsupported data file type {suf or '(none)'} "
                                  "(.npy, .npz, .csv, .tsv, .parquet, .pt)")


def _torch_arrays(path: Path) -> dict[str, Any]:
    import pickle

    import torch
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        glob = re.search(r"GLOBAL ([\w.]+)", str(e))
        if not re.search(r"GLOBAL|Unsupported (?:global|class)", str(e)):
            raise ProbeError(E_BAD_INPUT, f"{path}: not a readable torch file (UnpicklingError)") from None
        raise ProbeError(E_BAD_INPUT, f"{path}: holds pickled Python objects ({glob.group(1) if glob else 'not tensors'}) "
                                      "that torch.load(weights_only=True) refuses; not loaded (unpickling runs code)") from None
    except (RuntimeError, OSError, EOFError) as e:
        raise ProbeError(E_BAD_INPUT, f"{path}: not a readable torch file ({type(e).__name__})") from None
    out: dict[str, Any] = {}

    def add(name, v):
        if isinstance(v, torch.Tensor):
            t = v.detach()
            out[name] = (t.float() if t.dtype in (torch.bfloat16, torch.float16) else t).numpy()
    if isinstance(obj, torch.Tensor):
        add(path.stem, obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            add(str(k), v)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            add(str(i), v)
    if not out:
        raise ProbeError(E_BAD_INPUT, f"{path}: no tensors found (a {type(obj).__name__})")
    return out


def _table(path: Path, sep: str, notes: list[str]):
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        try:
            return _frame(pd.read_csv(path, sep=sep))
        except Exception as e:  # noqa: BLE001 - parser errors
            raise ProbeError(E_BAD_INPUT, f"{path}: not a readable table ({type(e).__name__}: "
                                          f"{' '.join(str(e).split())[:200]})") from None
    import numpy as np
    notes.append("pandas is not installed here: read with the csv module")
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f, delimiter=sep))
    if not rows:
        raise ProbeError(E_BAD_INPUT, f"{path}: empty file")
    head, body = rows[0], rows[1:]
    num, text = {}, {}
    for j, name in enumerate(head):
        col = [r[j] if j < len(r) else "" for r in body]
        try:
            num[name] = np.array([float(x) if x.strip() else math.nan for x in col], dtype=np.float64)
        except ValueError:
            text[name] = col
    return num, text


def _frame(df):
    import numpy as np
    num, text = {}, {}
    for c in df.columns:
        s = df[c]
        if s.dtype.kind in "biufc":
            num[str(c)] = s.to_numpy()
        elif s.dtype.kind == "b":
            num[str(c)] = s.to_numpy().astype(np.int64)
        else:
            text[str(c)] = [str(x) for x in s.tolist()]
    return num, text


def _array_stats(a) -> dict[str, Any]:
    import numpy as np
    d: dict[str, Any] = {"shape": list(a.shape), "dtype": str(a.dtype)}
    if a.size == 0 or a.dtype.kind not in "biufc":
        return d
    x = np.asarray(a)
    if x.dtype.kind in "fc":
        fin = np.isfinite(x)
        d["nan"] = int(np.isnan(x).sum())
        d["inf"] = int(np.isinf(x).sum())
        v = x[fin]
    else:
        d["nan"] = d["inf"] = 0
        v = x.reshape(-1)
    if v.size:
        v64 = v.astype(np.float64)
        d.update(min=float(v64.min()), max=float(v64.max()), mean=float(v64.mean()), std=float(v64.std()))
    return d


def _channel_axis(shape) -> int | None:
    if len(shape) < 3:
        return None
    if shape[1] in (1, 2, 3, 4) and len(shape) >= 4:
        return 1
    if shape[-1] in (1, 2, 3, 4):
        return len(shape) - 1
    return 1 if len(shape) >= 4 else None


def _is_labels(name: str, a, label_column: str | None) -> bool:
    if label_column is not None:
        return name == label_column
    return (name.lower() in LABEL_NAMES or (a.ndim == 1 and a.dtype.kind in "iu" and name in ("1",))) and a.ndim == 1


def _row_hashes(a) -> list[bytes]:
    import numpy as np
    x = np.ascontiguousarray(np.asarray(a).reshape(len(a), -1)) if len(a) else np.zeros((0, 1))
    return [hashlib.blake2b(r.tobytes(), digest_size=16).digest() for r in x]


def data(path: Path, val: Path | None, num_classes: int | None, label_column: str | None, doc) -> dict[str, Any]:
    import numpy as np
    doc.stage("loading")
    arrays, text = load_arrays(path, label_column, doc.d["notes"])
    res: dict[str, Any] = {"file": str(path), "arrays": {}, "text_columns": sorted(text)[:MAX_COLUMNS]}
    labels_name = next((n for n, a in arrays.items() if _is_labels(n, a, label_column)), None)
    if label_column is not None and labels_name is None:
        raise ProbeError(E_BAD_INPUT, f"{path}: no numeric column/array named {label_column!r} "
                                      f"(has: {', '.join(list(arrays)[:12])})")
    tabular = all(a.ndim == 1 for a in arrays.values()) and len(arrays) > 1
    doc.stage("statistics")
    total_nonfinite = 0
    for name, a in list(arrays.items())[:MAX_COLUMNS]:
        st = _array_stats(a)
        res["arrays"][name] = st
        total_nonfinite += st.get("nan", 0) + st.get("inf", 0)
        ax = _channel_axis(a.shape) if a.dtype.kind in "fiu" and name != labels_name else None
        if ax is not None:
            x = np.moveaxis(np.asarray(a, dtype=np.float64), ax, -1).reshape(-1, a.shape[ax])
            with np.errstate(invalid="ignore"):
                st["per_channel"] = {"axis": ax, "mean": np.nanmean(np.where(np.isfinite(x), x, np.nan), axis=0).tolist(),
                                     "std": np.nanstd(np.where(np.isfinite(x), x, np.nan), axis=0).tolist()}
        elif a.ndim == 2 and a.shape[1] <= MAX_COLUMNS and a.dtype.kind in "fiu":
            x = np.asarray(a, dtype=np.float64)
            with np.errstate(invalid="ignore"), _quiet():
                xf = np.where(np.isfinite(x), x, np.nan)
                st["per_column"] = {"nan": np.isnan(x).sum(axis=0).tolist(), "min": np.nanmin(xf, axis=0).tolist(),
                                    "max": np.nanmax(xf, axis=0).tolist(), "mean": np.nanmean(xf, axis=0).tolist(),
                                    "std": np.nanstd(xf, axis=0).tolist()}
    if total_nonfinite:
        bad = {n: s.get("nan", 0) + s.get("inf", 0) for n, s in res["arrays"].items() if s.get("nan") or s.get("inf")}
        doc.finding("data_nonfinite", f"{path.name}: {total_nonfinite} NaN/inf values: " + ", ".join(
            f"{n} {v} ({res['arrays'][n].get('nan', 0)} NaN, {res['arrays'][n].get('inf', 0)} inf)"
            for n, v in list(bad.items())[:4]), "critical", count=total_nonfinite, where=list(bad)[:20])
    if labels_name is not None:
        _labels(np.asarray(arrays[labels_name]), labels_name, num_classes, path, res, doc)
    _normalisation(arrays, labels_name, tabular, path, res, doc)
    if val is not None:
        doc.stage("duplicates between train and val")
        varrays, vtext = load_arrays(val, label_column, doc.d["notes"])
        _dups(arrays, text, varrays, vtext, labels_name, tabular, path, val, res, doc)
    return res


class _quiet:
    def __enter__(self):
        import warnings
        self.w = warnings.catch_warnings()
        self.w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *a):
        return self.w.__exit__(*a)


def _labels(y, name, num_classes, path, res, doc) -> None:
    import numpy as np
    if y.dtype.kind == "f" and (not np.all(np.isfinite(y)) or not np.all(y == np.round(y))):
        res["labels"] = {"name": name, "note": "float values that are not whole numbers: not class labels"}
        return
    yi = y.astype(np.int64)
    vals, counts = np.unique(yi, return_counts=True)
    order = np.argsort(-counts)[:MAX_LIST]
    res["labels"] = {"name": name, "classes_seen": len(vals), "min": int(vals.min()) if len(vals) else None,
                     "max": int(vals.max()) if len(vals) else None,
                     "histogram": {str(int(vals[i])): int(counts[i]) for i in order}}
    if num_classes is not None:
        bad = (yi < 0) | (yi >= num_classes)
        n = int(bad.sum())
        res["labels"]["out_of_range"] = n
        if n:
            where = np.flatnonzero(bad)[:5].tolist()
            badv = sorted(set(yi[bad].tolist()))[:5]
            doc.finding("label_out_of_range", f"{path.name}: {n} labels outside [0, {num_classes - 1}] for "
                        f"--num-classes {num_classes}: values {badv} (first at rows {where})", "critical",
                        count=n, values=badv, rows=where, num_classes=num_classes)


def _normalisation(arrays, labels_name, tabular, path, res, doc) -> None:
    import numpy as np
    feats = {n: a for n, a in arrays.items() if n != labels_name and a.dtype.kind in "fiu" and a.size}
    if not feats:
        return
    if tabular:
        stds = {n: res["arrays"][n].get("std") for n in feats if res["arrays"].get(n, {}).get("std")}
        big = {n: (res["arrays"][n]["mean"], res["arrays"][n]["std"]) for n in stds
               if abs(res["arrays"][n]["mean"]) > RAW_SCALE or res["arrays"][n]["std"] > RAW_SCALE}
        pos = [v for v in stds.values() if v > 0]
        spread = max(pos) / min(pos) if len(pos) >= 2 else 1.0
        if big or spread > SCALE_SPREAD:
            ex = ", ".join(f"{n} (mean {m:.3g}, std {s:.3g})" for n, (m, s) in list(big.items())[:3])
            doc.finding("unnormalized", f"{path.name}: feature columns not standardised: " +
                        (ex + "; " if ex else "") + f"column stds differ by {spread:.1e}x", "medium",
                        columns=list(big)[:20], spread=spread)
        return
    for n, a in feats.items():
        st = res["arrays"][n]
        if "mean" not in st:
            continue
        raw_pixels = a.dtype == np.uint8 or (st["min"] >= 0 and 1.5 < st["max"] <= 255 and a.ndim >= 3)
        if raw_pixels or abs(st["mean"]) > RAW_SCALE or st["std"] > RAW_SCALE:
            ch = st.get("per_channel")
            chs = (" per channel mean " + ", ".join(f"{m:.3g}" for m in ch["mean"][:4]) +
                   " std " + ", ".join(f"{s:.3g}" for s in ch["std"][:4])) if ch else ""
            doc.finding("unnormalized", f"{path.name}: {n} is not normalised: values {st['min']:.3g}..{st['max']:.3g}, "
                        f"mean {st['mean']:.3g}, std {st['std']:.3g}" + (" (raw 0-255 pixels)" if raw_pixels else "") +
                        (";" + chs if chs else ""), "medium", array=n, mean=st["mean"], std=st["std"], raw_pixels=bool(raw_pixels))
            return


def _dups(arrays, text, varrays, vtext, labels_name, tabular, path, val, res, doc) -> None:
    if tabular:
        cols = [c for c in list(arrays) + list(text) if c != labels_name and (c in varrays or c in vtext)]
        if not cols:
            res["duplicates"] = {"note": "no shared columns between the two files"}
            return

        def rows(ar, tx):
            n = len(next(iter(ar.values()))) if ar else len(next(iter(tx.values())))
            cs = [ar[c] if c in ar else tx[c] for c in cols]
            return [hashlib.blake2b(repr(tuple(_cell(c[i]) for c in cs)).encode(), digest_size=16).digest() for i in range(n)]
        th, vh = rows(arrays, text), rows(varrays, vtext)
        key = f"rows over columns {', '.join(cols[:8])}"
    else:
        name = next((n for n in arrays if n != labels_name and arrays[n].ndim >= 1), None)
        vname = name if name in varrays else next((n for n, a in varrays.items() if not _is_labels(n, a, None)), None)
        if name is None or vname is None:
            res["duplicates"] = {"note": "no feature array to compare"}
            return
        th, vh = _row_hashes(arrays[name]), _row_hashes(varrays[vname])
        key = f"samples of {name} / {vname}"
    train = set(th)
    shared = [i for i, h in enumerate(vh) if h in train]
    res["duplicates"] = {"val_file": str(val), "compared": key, "val_rows": len(vh), "train_rows": len(th),
                         "val_rows_in_train": len(shared), "examples": shared[:10],
                         "within_train": len(th) - len(train)}
    if shared:
        frac = len(shared) / max(len(vh), 1)
        doc.finding("data_leak", f"{len(shared)} of {len(vh)} validation samples ({100 * frac:.1f}%) in {val.name} are "
                    f"identical to training samples in {path.name} (by content hash; first val rows {shared[:5]})",
                    "high", count=len(shared), share=frac)


def _cell(v):
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return v.item() if hasattr(v, "item") else v
