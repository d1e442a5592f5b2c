"""Model probes: params, gradients, memory, nan-hunt. Runs in the USER's interpreter (torch needed;
never imports mltdbg). In: a built nn.Module, batches, an optional loss/step callable. Out: findings and
tables written into the result document by mltdbg_probe.py.

Thresholds are named here with where they come from; analyzers/probes/results.py turns the findings
into signals for the engines.
"""
from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.nn.functional as F
from mltdbg_probe_util import E_BAD_INPUT, ProbeError
from torch import nn

# Embeddings + output head above this share of all parameters, with the body (attention, MLP,
# recurrent, conv) below BODY_MAX_SHARE, is an architecture imbalance: the architecture_imbalance
# playbook's check ("over ~60%"); the spec's worked case has 79 % in the embedding.
EMB_HEAD_SHARE = 0.6
BODY_MAX_SHARE = 0.4
# Early layers' gradient RMS below this fraction of the late layers' is vanishing: the same two orders
# of magnitude as the curve analyzer's grad_vanish_layers (analyzers/curves.py).
VANISH_RATIO = 1e-2
# Early layers' gradient RMS above this multiple of the late layers' is exploding toward the input.
EXPLODE_RATIO = 1e2
# A total gradient norm above this is exploding: three orders of magnitude above max_norm=1.0, the
# clipping value most training recipes use.
EXPLODE_TOTAL_NORM = 1e3
# A ReLU layer with this share of its units never positive over the probe's batches is dead: the
# dead_units signal's bar (analyzers/signals.md: "above 0.5").
DEAD_SHARE = 0.5
# A sigmoid output below 1-x or above x (tanh |out| above x) is saturated (gradient < 1 % of its
# maximum); a layer with SATURATED_SHARE of its outputs there passes little gradient.
SATURATION = 0.99
SATURATED_SHARE = 0.5
# Rows of the per-module table kept in the result (the total is always over every parameter).
MAX_MODULE_ROWS = 200
MAX_LAYER_ROWS = 400
# Synthetic batches when --batch auto: batch size and sequence length (small: a probe, not a run).
AUTO_BATCH = 8
AUTO_SEQ = 32
AUTO_IMAGE = 32

NORM_TYPES = tuple(t for t in (getattr(nn, n, None) for n in (
    "LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "InstanceNorm1d",
    "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "RMSNorm", "SyncBatchNorm")) if t is not None)
_EMB_RX = re.compile(r"(^|[._])(embed\w*|wte|wpe|tok_emb\w*|pos_emb\w*|word_embeddings|position_embeddings|"
                     r"token_type_embeddings|shared)($|[._])")
_NORM_RX = re.compile(r"(^|[._])(ln\w*|\w*norm\w*|rms\w*)($|[._])")
_ATTN_RX = re.compile(r"attn|attention|(^|[._])(q_proj|k_proj|v_proj|o_proj|qkv\w*|query|key|value|wq|wk|wv|wo)($|[._])")
_HEAD_NAMES = {"lm_head", "head", "output", "out", "classifier", "fc_out", "decoder", "output_layer",
               "logits", "cls", "score", "output_projection", "proj_out", "final_layer", "generator"}
_MLP_RX = re.compile(r"mlp|ffn|feed_?forward|(^|[._])(fc\d*|c_fc|linear\d*|dense\w*|w[123]|up_proj|down_proj|gate_proj)($|[._])")
BODY_KINDS = ("attention", "mlp", "recurrent", "conv")
KINDS = ("embeddings", "attention", "mlp", "recurrent", "conv", "norms", "output_head", "other")


# ============================================================================= params

def _head_module(model: nn.Module) -> str | None:
    """The output head's module path: a known head name near the top, else the last top-level Linear."""
    for name, mod in model.named_modules():
        if name and name.count(".") <= 1 and name.rsplit(".", 1)[-1] in _HEAD_NAMES and \
                (any(True for _ in mod.parameters(recurse=False)) or isinstance(mod, nn.Linear)):
            return name
    last = None
    for name, mod in model.named_children():
        if isinstance(mod, nn.Linear):
            last = name
        elif isinstance(mod, nn.Sequential) and len(mod) and isinstance(mod[-1], nn.Linear):
            last = f"{name}.{len(mod) - 1}"
    children = list(model.named_children())
    if last is not None and children and (children[-1][0] == last.split(".")[0]):
        return last
    return None


def kind_of(mod: nn.Module, path: str, head: str | None) -> str:
    """Which part of the architecture a module's own parameters belong to."""
    low = path.lower()
    if isinstance(mod, (nn.Embedding, nn.EmbeddingBag)) or (_EMB_RX.search(low) and not isinstance(mod, NORM_TYPES)
                                                              and "norm" not in type(mod).__name__.lower()):
        return "embeddings"
    if isinstance(mod, NORM_TYPES) or "norm" in type(mod).__name__.lower() or _NORM_RX.search(low.rsplit(".", 1)[-1]):
        return "norms"
    if isinstance(mod, nn.MultiheadAttention) or _ATTN_RX.search(low):
        return "attention"
    if head is not None and (path == head or path.startswith(head + ".")):
        return "output_head"
    if isinstance(mod, (nn.RNNBase, nn.RNNCell, nn.LSTMCell, nn.GRUCell)):
        return "recurrent"
    if isinstance(mod, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)):
        return "conv"
    if isinstance(mod, (nn.Linear, nn.Bilinear)) or _MLP_RX.search(low) or type(mod).__name__ == "Conv1D":
        return "mlp"
    return "other"


def params_summary(model: nn.Module) -> dict[str, Any]:
    """Counts per module and by kind (tied weights once), trainable vs frozen, dtypes, ties."""
    head = _head_module(model)
    owner: dict[int, tuple[str, str, nn.Parameter, str]] = {}   # id -> (module path, param name, p, kind)
    names_of: dict[int, list[str]] = {}
    for mpath, mod in model.named_modules(remove_duplicate=False):
        for pname, p in mod.named_parameters(recurse=False, remove_duplicate=False):
            full = f"{mpath}.{pname}" if mpath else pname
            names_of.setdefault(id(p), []).append(full)
            if id(p) not in owner:
                owner[id(p)] = (mpath, pname, p, kind_of(mod, mpath, head))
    total = sum(p.numel() for _, _, p, _ in owner.values())
    trainable = sum(p.numel() for _, _, p, _ in owner.values() if p.requires_grad)
    by_kind = {k: 0 for k in KINDS}
    dtypes: dict[str, int] = {}
    nbytes = 0
    for _, _, p, k in owner.values():
        by_kind[k] += p.numel()
        dt = str(p.dtype).replace("torch.", "")
        dtypes[dt] = dtypes.get(dt, 0) + p.numel()
        nbytes += p.numel() * p.element_size()
    share = (lambda n: n / total if total else 0.0)
    # per module: recursive counts of the params each module owns first (depth <= 2)
    per_mod: dict[str, dict[str, Any]] = {}
    types = {n: type(m).__name__ for n, m in model.named_modules()}
    for mpath, _, p, k in owner.values():
        parts = mpath.split(".") if mpath else []
        for depth in range(min(len(parts), 2) + 1):
            key = ".".join(parts[:depth]) if depth else "(root)"
            row = per_mod.setdefault(key, {"name": key, "type": types.get(".".join(parts[:depth]), type(model).__name__),
                                           "depth": depth, "params": 0, "trainable": 0, "kinds": {}})
            if depth == 0 and key != "(root)":
                continue
            row["params"] += p.numel()
            row["trainable"] += p.numel() if p.requires_grad else 0
            row["kinds"][k] = row["kinds"].get(k, 0) + p.numel()
    rows = [r for r in per_mod.values() if r["name"] != "(root)"]
    root_own = sum(p.numel() for mpath, _, p, _ in owner.values() if not mpath)
    if root_own:
        rows.append({"name": "(own parameters of the root)", "type": type(model).__name__, "depth": 1,
                     "params": root_own, "trainable": root_own, "kinds": {}})
    for r in rows:
        r["share"] = share(r["params"])
        r["kind"] = max(r["kinds"], key=r["kinds"].get) if r["kinds"] else ""
        del r["kinds"]
    rows.sort(key=lambda r: (r["depth"] != 1, -r["params"]))
    frozen_names = [names_of[i][0] for i, (_, _, p, _) in owner.items() if not p.requires_grad]
    return {
        "total": total, "trainable": trainable, "frozen": total - trainable, "bytes": nbytes,
        "tensors": len(owner), "head_module": head,
        "by_kind": {k: {"params": n, "share": share(n)} for k, n in by_kind.items() if n},
        "modules": rows[:MAX_MODULE_ROWS], "modules_total_rows": len(rows),
        "tied": [v for v in names_of.values() if len(v) > 1],
        "dtypes": dtypes, "frozen_tensors": frozen_names[:100], "frozen_tensors_total": len(frozen_names),
        "model_class": type(model).__name__,
    }


def fmt_count(n: float) -> str:
    n = float(n)
    for unit, div in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(n) >= div:
            return f"{n / div:.2f}{unit}"
    return f"{int(n)}"


def params_findings(s: dict[str, Any], doc) -> None:
    """architecture_imbalance and frozen_params findings from a params summary."""
    total = s["total"]
    if not total:
        doc.note("the model has no parameters")
        return
    k = {name: v["share"] for name, v in s["by_kind"].items()}
    emb, head = k.get("embeddings", 0.0), k.get("output_head", 0.0)
    body = sum(k.get(x, 0.0) for x in BODY_KINDS)
    if emb + head >= EMB_HEAD_SHARE and body <= BODY_MAX_SHARE:
        parts = ", ".join(f"{name.replace('_', ' ')} {100 * v:.1f}%" for name, v in
                          sorted(k.items(), key=lambda t: -t[1]) if name != "embeddings" and v >= 0.0005)
        lead = (f"embeddings hold {100 * emb:.1f}% of {fmt_count(total)} parameters" if emb >= head else
                f"the output head holds {100 * head:.1f}% of {fmt_count(total)} parameters (embeddings {100 * emb:.1f}%)")
        doc.finding("param_imbalance", f"{lead} ({parts}); the layers that mix information hold {100 * body:.1f}%",
                    "high", embeddings_share=emb, head_share=head, body_share=body, total=total,
                    tied=bool(s["tied"]))
    if s["frozen"]:
        groups: dict[str, int] = {}
        for n in s["frozen_tensors"]:
            g = n.split(".")[0]
            groups[g] = groups.get(g, 0) + 1
        where = ", ".join(f"{g}.* ({c} tensors)" for g, c in sorted(groups.items(), key=lambda t: -t[1])[:4])
        frac = s["frozen"] / total
        doc.finding("frozen_params", f"{fmt_count(s['frozen'])} of {fmt_count(total)} parameters ({100 * frac:.1f}%) are "
                    f"frozen (requires_grad=False): {where}", "high" if frac >= 0.999 else "medium",
                    frozen=s["frozen"], total=total, share=frac, tensors=s["frozen_tensors_total"])


# ============================================================================= building

class _IgnoreCudaMoves:
    """While counting on the meta device: `.cuda()` / `.to('cuda')` calls in the user's build code
    become no-ops, so a GPU model can be counted on a CPU-only machine without allocating."""

    def __enter__(self):
        self.saved = (nn.Module.cuda, nn.Module.to, torch.Tensor.cuda, torch.Tensor.to)
        mod_to, ten_to = nn.Module.to, torch.Tensor.to

        def strip(args, kwargs):
            args = tuple(a for a in args if not _is_cuda(a))
            if _is_cuda(kwargs.get("device")):
                kwargs = {k: v for k, v in kwargs.items() if k != "device"}
            return args, kwargs

        def m_to(self, *a, **kw):
            a, kw = strip(a, kw)
            return mod_to(self, *a, **kw) if (a or kw) else self

        def t_to(self, *a, **kw):
            a, kw = strip(a, kw)
            return ten_to(self, *a, **kw) if (a or kw) else self
        nn.Module.cuda = lambda self, *a, **k: self
        torch.Tensor.cuda = lambda self, *a, **k: self
        nn.Module.to, torch.Tensor.to = m_to, t_to
        return self

    def __exit__(self, *exc):
        nn.Module.cuda, nn.Module.to, torch.Tensor.cuda, torch.Tensor.to = self.saved
        return False


def _is_cuda(x) -> bool:
    if isinstance(x, torch.device):
        return x.type == "cuda"
    return isinstance(x, str) and x.startswith("cuda")


def build(target: Callable, kwargs: dict[str, Any], device: str) -> nn.Module:
    """Call TARGET(**kwargs) with `device` as the default device; on meta, moves to CUDA are ignored."""
    if device == "meta":
        with _IgnoreCudaMoves(), torch.device("meta"):
            model = target(**kwargs)
    else:
        with torch.device(device):
            model = target(**kwargs)
    if not isinstance(model, nn.Module):
        raise ProbeError(E_BAD_INPUT, f"TARGET returned {type(model).__name__}, not a torch.nn.Module")
    if device != "meta":
        model = model.to(device)
    return model


# ============================================================================= batches

def _tree_map(x, fn):
    if isinstance(x, torch.Tensor):
        return fn(x)
    if isinstance(x, dict):
        return type(x)({k: _tree_map(v, fn) for k, v in x.items()}) if type(x) is dict else {k: _tree_map(v, fn) for k, v in x.items()}
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_tree_map(v, fn) for v in x)
    return x


def tensors_of(x, prefix: str = "batch") -> list[tuple[str, torch.Tensor]]:
    out = []
    if isinstance(x, torch.Tensor):
        out.append((prefix, x))
    elif isinstance(x, dict):
        for k, v in x.items():
            out += tensors_of(v, f"{prefix}[{k!r}]")
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            out += tensors_of(v, f"{prefix}[{i}]")
    return out


def to_device(batch, device: str):
    return _tree_map(batch, lambda t: t.to(device))


def auto_batch(model: nn.Module, batch_size: int | None, seq_len: int | None) -> tuple[Any, str]:
    """A synthetic input of the shape the model's first layer expects; raises ProbeError when no
    first layer says it."""
    b, t = batch_size or AUTO_BATCH, seq_len or AUTO_SEQ
    first = next((m for m in model.modules() if any(True for _ in m.parameters(recurse=False))), None)
    g = torch.Generator().manual_seed(0)
    if isinstance(first, nn.Embedding):
        return torch.randint(0, first.num_embeddings, (b, t), generator=g), f"randint:0:{first.num_embeddings}:{b},{t}"
    if isinstance(first, nn.RNNBase):
        shape = (b, t, first.input_size) if first.batch_first else (t, b, first.input_size)
        return torch.randn(*shape, generator=g), "randn:" + ",".join(map(str, shape))
    if isinstance(first, nn.Linear):
        return torch.randn(b, first.in_features, generator=g), f"randn:{b},{first.in_features}"
    for cls, extra in ((nn.Conv1d, (64,)), (nn.Conv2d, (AUTO_IMAGE, AUTO_IMAGE)), (nn.Conv3d, (8, AUTO_IMAGE, AUTO_IMAGE))):
        if isinstance(first, cls):
            shape = (b, first.in_channels, *extra)
            return torch.randn(*shape, generator=g), "randn:" + ",".join(map(str, shape))
    if isinstance(first, nn.MultiheadAttention):
        shape = (b, t, first.embed_dim) if first.batch_first else (t, b, first.embed_dim)
        return torch.randn(*shape, generator=g), "randn:" + ",".join(map(str, shape))
    name = type(first).__name__ if first is not None else "nothing"
    raise ProbeError(E_BAD_INPUT, f"--batch auto: cannot tell the input shape from the model's first layer ({name}); "
                                  "pass --batch randn:B,C,H,W (or randint:LOW:HIGH:B,T) or --batch FILE.py:make_batch")


def synthetic(spec: str) -> Any:
    """randn:2,3,32,32 | rand:... | randint:LOW:HIGH:2,16 -> a tensor (seeded)."""
    kind, _, rest = spec.partition(":")
    g = torch.Generator().manual_seed(0)
    try:
        if kind == "randint":
            lo, hi, shape = rest.split(":")
            dims = tuple(int(x) for x in shape.split(","))
            return torch.randint(int(lo), int(hi), dims, generator=g)
        dims = tuple(int(x) for x in rest.split(","))
        return (torch.randn if kind == "randn" else torch.rand)(*dims, generator=g)
    except ValueError:
        raise ProbeError(E_BAD_INPUT, f"--batch {spec!r}: expected randn:B,D,... or rand:B,D,... or "
                                      f"randint:LOW:HIGH:B,T") from None


def batches(spec: str, model: nn.Module, load_callable, device: str, batch_size: int | None,
            seq_len: int | None, notes: list[str]) -> tuple[Iterator[Any], str]:
    """An iterator of batches (on `device`) from --batch SPEC, and how they were made."""
    if spec == "auto":
        b, how = auto_batch(model, batch_size, seq_len)
        notes.append(f"synthetic batch {how} inferred from the model's first layer (not your data)")
        return _repeat(to_device(b, device)), how
    if spec.split(":", 1)[0] in ("randn", "rand", "randint"):
        b = synthetic(spec)
        notes.append(f"synthetic batch {spec} (not your data)")
        return _repeat(to_device(b, device)), spec
    fn = load_callable(spec, "--batch")
    obj = fn() if callable(fn) and not isinstance(fn, (torch.Tensor, list, tuple, dict)) else fn
    if isinstance(obj, list) and obj and all(isinstance(b, (tuple, list, dict)) for b in obj):
        return (to_device(b, device) for b in obj), f"{spec} (a list of {len(obj)} batches)"
    if isinstance(obj, (torch.Tensor, list, tuple, dict)):
        return _repeat(to_device(obj, device)), f"{spec} (one batch, reused)"
    if hasattr(obj, "__iter__"):
        return (to_device(b, device) for b in obj), f"{spec} (iterated)"
    raise ProbeError(E_BAD_INPUT, f"--batch {spec!r} returned {type(obj).__name__}: expected a batch "
                                  "(tensor, tuple, list or dict of tensors) or an iterable of batches (a DataLoader)")


def _repeat(b) -> Iterator[Any]:
    while True:
        yield b


# ============================================================================= loss

def first_tensor(out) -> torch.Tensor | None:
    if isinstance(out, torch.Tensor):
        return out
    for key in ("loss", "logits", "last_hidden_state", "out", "output", "prediction"):
        v = out.get(key) if isinstance(out, dict) else getattr(out, key, None)
        if isinstance(v, torch.Tensor):
            return v
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        for v in out:
            t = first_tensor(v)
            if t is not None:
                return t
    return None


def call_model(model: nn.Module, batch) -> tuple[Any, Any]:
    """(model output, target or None): a tensor is the input; (x, y) / (x1, x2, ..., y) tuples end with
    the target; a dict is passed as keyword arguments (its 'labels'/'target' kept for the loss)."""
    if isinstance(batch, dict):
        target = next((batch[k] for k in ("labels", "label", "target", "targets", "y") if k in batch), None)
        return model(**batch), target
    if isinstance(batch, (list, tuple)):
        if len(batch) == 1:
            return model(batch[0]), None
        return model(*batch[:-1]), batch[-1]
    return model(batch), None


def default_loss(model: nn.Module, batch) -> tuple[torch.Tensor, str]:
    """Cross-entropy / MSE against the batch's target when there is one, else a surrogate."""
    out, target = call_model(model, batch)
    own = out.get("loss") if isinstance(out, dict) else getattr(out, "loss", None)
    if isinstance(own, torch.Tensor) and own.dim() == 0:
        return own, "the model's own loss output"
    y = first_tensor(out)
    if y is None:
        raise ProbeError(E_BAD_INPUT, f"the model returned {type(out).__name__} with no tensor in it; pass --step FILE.py:loss_fn")
    if isinstance(target, torch.Tensor):
        if not target.is_floating_point() and y.dim() >= 2:
            if tuple(y.shape[:-1]) == tuple(target.shape):
                return F.cross_entropy(y.reshape(-1, y.shape[-1]).float(), target.reshape(-1)), "cross-entropy on the batch's target"
            if y.shape[0] == target.shape[0] and tuple(y.shape[2:]) == tuple(target.shape[1:]):
                return F.cross_entropy(y.float(), target), "cross-entropy on the batch's target"
        if target.is_floating_point() and target.numel() == y.numel():
            return F.mse_loss(y.float().reshape(target.shape), target.float()), "mean squared error on the batch's target"
    return y.float().pow(2).mean(), "surrogate loss: mean of the squared outputs (no usable target; pass --step for yours)"


def loss_terms(step_fn: Callable | None, model: nn.Module, batch) -> tuple[torch.Tensor, dict[str, float], str]:
    """(total loss tensor, {term: value}, how) from the user's loss/step function or the default."""
    if step_fn is None:
        loss, how = default_loss(model, batch)
        return loss, {"loss": _item(loss)}, how
    r = step_fn(model, batch)
    if isinstance(r, torch.Tensor):
        return r, {"loss": _item(r)}, "your --step function"
    if isinstance(r, dict):
        ts = {k: v for k, v in r.items() if isinstance(v, torch.Tensor)}
        if not ts:
            raise ProbeError(E_BAD_INPUT, "--step returned a dict without tensors")
        if "loss" in ts and len(ts) > 1:
            total = ts["loss"]
        else:
            total = sum(v.float().sum() for v in ts.values())
        return total, {k: _item(v) for k, v in ts.items()}, "your --step function"
    if isinstance(r, (tuple, list)) and r and isinstance(r[0], torch.Tensor):
        return r[0], {"loss": _item(r[0])}, "your --step function"
    raise ProbeError(E_BAD_INPUT, f"--step returned {type(r).__name__}: expected a loss tensor or a dict of loss tensors")


def _item(t: torch.Tensor) -> float:
    t = t.detach()
    return float(t.float().sum() if t.numel() > 1 else t.float().reshape(()))


def make_optimizer(spec: str, params, lr: float, load_callable):
    s = spec.lower()
    if s == "sgd":
        return torch.optim.SGD(params, lr=lr)
    if s == "adam":
        return torch.optim.Adam(params, lr=lr)
    if s == "adamw":
        return torch.optim.AdamW(params, lr=lr)
    fn = load_callable(spec, "--optimizer")
    return fn(params)


# ============================================================================= gradients

class _ActivationWatch:
    """Forward hooks: module call order, dead-ReLU share and saturated share per activation layer
    (nn.ReLU/Sigmoid/Tanh modules and F.relu / torch.sigmoid / torch.tanh calls inside other modules),
    and the largest outputs by module. Removed by close()."""

    def __init__(self, model: nn.Module, track_outputs: bool = False):
        self.order: dict[str, int] = {}
        self.alive: dict[str, torch.Tensor] = {}     # layer -> bool per unit (ever > 0)
        self.sat: dict[str, list[float]] = {}        # layer -> [saturated count, total]
        self.kind: dict[str, str] = {}
        self.out_bytes: dict[str, int] = {}
        self.track_outputs = track_outputs
        self.stack: list[str] = []
        self.fcount: dict[str, int] = {}
        self.handles = []
        self.by_name = dict(model.named_modules())
        self.busy = 0                                # inside a patched call (F.relu calls torch.relu)
        for name, mod in model.named_modules():
            self.handles.append(mod.register_forward_pre_hook(self._pre(name)))
            self.handles.append(mod.register_forward_hook(self._post(name, mod)))
        self._patch()

    def _pre(self, name):
        def h(mod, inp):
            self.stack.append(name)
            self.order.setdefault(name, len(self.order))
        return h

    def _post(self, name, mod):
        def h(m, inp, out):
            if self.stack and self.stack[-1] == name:
                self.stack.pop()
            if isinstance(out, torch.Tensor):
                if isinstance(mod, (nn.ReLU, nn.ReLU6)):
                    self._relu(name, out)
                elif isinstance(mod, nn.Sigmoid):
                    self._sat(name, out, "sigmoid")
                elif isinstance(mod, nn.Tanh):
                    self._sat(name, out, "tanh")
                if self.track_outputs and name and not any(True for _ in mod.children()):
                    self.out_bytes[name] = max(self.out_bytes.get(name, 0), out.numel() * out.element_size())
        return h

    def _patch(self):
        self.saved = (F.relu, torch.relu, torch.sigmoid, torch.tanh, F.sigmoid if hasattr(F, "sigmoid") else None,
                      F.tanh if hasattr(F, "tanh") else None)
        orig_relu, t_relu, t_sig, t_tanh = F.relu, torch.relu, torch.sigmoid, torch.tanh
        watch = self

        def where(kind):
            owner = watch.stack[-1] if watch.stack else ""
            return owner, f"{owner or '(root)'} ({kind} call)"

        def wrap(orig, label, record, module_types):
            def f(x, *a, **k):
                if watch.busy:
                    return orig(x, *a, **k)
                watch.busy += 1
                try:
                    out = orig(x, *a, **k)
                finally:
                    watch.busy -= 1
                owner, key = where(label)
                if isinstance(out, torch.Tensor) and not (owner and isinstance(watch._mod(owner), module_types)):
                    record(key, out)
                return out
            return f
        relu = wrap(orig_relu, "F.relu", watch._relu, (nn.ReLU, nn.ReLU6))
        trelu = wrap(t_relu, "torch.relu", watch._relu, (nn.ReLU, nn.ReLU6))
        sig = wrap(t_sig, "sigmoid", lambda key, out: watch._sat(key, out, "sigmoid"), (nn.Sigmoid,))
        tanh = wrap(t_tanh, "tanh", lambda key, out: watch._sat(key, out, "tanh"), (nn.Tanh,))
        F.relu, torch.relu, torch.sigmoid, torch.tanh = relu, trelu, sig, tanh
        if hasattr(F, "sigmoid"):
            F.sigmoid = sig
        if hasattr(F, "tanh"):
            F.tanh = tanh

    def _mod(self, name):
        return self.by_name.get(name)

    def _relu(self, key: str, out: torch.Tensor) -> None:
        with torch.no_grad():
            o = out.detach()
            if o.dim() == 0:
                return
            dim = 1 if o.dim() == 2 or o.dim() >= 4 else o.dim() - 1
            alive = (o > 0).movedim(dim, -1).reshape(-1, o.shape[dim]).any(dim=0).cpu()
            prev = self.alive.get(key)
            self.alive[key] = alive if prev is None or prev.shape != alive.shape else (prev | alive)
            self.kind[key] = "relu"
            self.order.setdefault("@" + key, len(self.order))

    def _sat(self, key: str, out: torch.Tensor, kind: str) -> None:
        with torch.no_grad():
            o = out.detach().float()
            n = (o.abs() > SATURATION).sum() if kind == "tanh" else ((o > SATURATION) | (o < 1 - SATURATION)).sum()
            c = self.sat.setdefault(key, [0.0, 0.0])
            c[0] += float(n)
            c[1] += float(o.numel())
            self.kind[key] = kind
            self.order.setdefault("@" + key, len(self.order))

    def layers(self) -> list[dict[str, Any]]:
        rows = []
        for key in sorted(set(self.alive) | set(self.sat), key=lambda k: self.order.get("@" + k, 0)):
            r: dict[str, Any] = {"layer": key, "activation": self.kind.get(key, "")}
            if key in self.alive:
                a = self.alive[key]
                r["units"] = int(a.numel())
                r["dead_share"] = float(1.0 - a.float().mean()) if a.numel() else 0.0
            if key in self.sat:
                s, n = self.sat[key]
                r["saturated_share"] = s / n if n else 0.0
            rows.append(r)
        return rows

    def close(self):
        for h in self.handles:
            h.remove()
        F.relu, torch.relu, torch.sigmoid, torch.tanh = self.saved[:4]
        if self.saved[4] is not None:
            F.sigmoid = self.saved[4]
        if self.saved[5] is not None:
            F.tanh = self.saved[5]


def _sq_norm(t: torch.Tensor) -> float:
    """Squared L2 norm, computed without a squared copy of the tensor (float64 for the square)."""
    v = float(torch.linalg.vector_norm(t if t.is_floating_point() else t.float()))
    return v * v


def layer_grads(model: nn.Module, order: dict[str, int]) -> list[dict[str, Any]]:
    """Per module owning parameters: grad norm, RMS, weight norm, in forward-call order."""
    rows = []
    seen: set[int] = set()
    for name, mod in model.named_modules():
        own = [(pn, p) for pn, p in mod.named_parameters(recurse=False) if id(p) not in seen]
        if not own:
            continue
        seen.update(id(p) for _, p in own)
        g2, w2, n, ng, frozen, missing, nonfinite = 0.0, 0.0, 0, 0, 0, 0, 0
        has_matrix = any(p.dim() >= 2 for _, p in own)
        for pn, p in own:
            n += p.numel()
            w2 += _sq_norm(p.detach())
            if not p.requires_grad:
                frozen += 1
            elif p.grad is None:
                missing += 1
            else:
                g = p.grad.detach()
                sq = _sq_norm(g)
                if not math.isfinite(sq) and not bool(torch.isfinite(g).all()):
                    nonfinite += 1
                g2 += sq
                ng += p.numel()
        rows.append({"layer": name or "(root)", "type": type(mod).__name__, "order": order.get(name),
                     "params": n, "grad_norm": math.sqrt(g2) if ng else None,
                     "grad_rms": math.sqrt(g2 / ng) if ng else None, "weight_norm": math.sqrt(w2),
                     "matrix": has_matrix, "embedding": isinstance(mod, (nn.Embedding, nn.EmbeddingBag)),
                     "frozen_tensors": frozen, "no_grad_tensors": missing, "nonfinite_grad_tensors": nonfinite})
    rows.sort(key=lambda r: (r["order"] is None, r["order"] if r["order"] is not None else 0))
    return rows


def flow_ratio(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Median grad RMS of the first quarter of weight layers (forward order) over the last quarter's.
    Embeddings (sparse gradients by nature), layers without a gradient and layers whose gradient is
    exactly zero (dead units or a blocked path: not vanishing, which is small but non-zero) are left out."""
    ls = [r for r in rows if r["matrix"] and not r["embedding"] and r["order"] is not None
          and isinstance(r["grad_rms"], float) and math.isfinite(r["grad_rms"]) and r["grad_rms"] > 0]
    if len(ls) < 3:
        return None
    q = max(1, len(ls) // 4)
    early, late = ls[:q], ls[-q:]
    med = (lambda xs: sorted(xs)[len(xs) // 2])
    e, l_ = med([r["grad_rms"] for r in early]), med([r["grad_rms"] for r in late])
    return {"early_rms": e, "late_rms": l_, "ratio": (e / l_) if l_ > 0 else (math.inf if e > 0 else 1.0),
            "early_layers": [r["layer"] for r in early], "late_layers": [r["layer"] for r in late], "layers": len(ls)}


def gradients(model, batch_iter, step_fn, opt, steps: int, doc) -> dict[str, Any]:
    """Forward/backward/step `steps` times; per-layer grad norms of the first step, update/weight
    ratios of its optimizer step, parameters without a gradient, activation health."""
    model.train()
    watch = _ActivationWatch(model)
    totals, losses, how = [], [], ""
    first_rows: list[dict[str, Any]] = []
    updates: dict[str, float] = {}
    try:
        for i in range(steps):
            doc.stage(f"forward (step {i})")
            try:
                batch = next(batch_iter)
            except StopIteration:
                doc.note(f"the batches ran out after {i} steps")
                break
            opt.zero_grad(set_to_none=True)
            loss, terms, how = loss_terms(step_fn, model, batch)
            losses.append(terms)
            doc.stage(f"backward (step {i})")
            loss.backward()
            rows = layer_grads(model, watch.order)
            tot = math.sqrt(sum((r["grad_norm"] or 0.0) ** 2 for r in rows))
            totals.append(tot)
            if i == 0:
                first_rows = rows
                before = {n: p.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
            doc.stage(f"optimizer step (step {i})")
            opt.step()
            if i == 0:
                per_layer: dict[str, list[float]] = {}
                for n, p in model.named_parameters():
                    if n in before:
                        layer = n.rsplit(".", 1)[0] if "." in n else "(root)"
                        acc = per_layer.setdefault(layer, [0.0, 0.0])
                        acc[0] += _sq_norm(p.detach() - before[n])
                        acc[1] += _sq_norm(before[n])
                del before
                updates = {k: (math.sqrt(a) / math.sqrt(b)) if b > 0 else math.inf for k, (a, b) in per_layer.items()}
            doc.d["result"]["steps_done"] = i + 1
    finally:
        watch.close()
    for r in first_rows:
        r["update_ratio"] = updates.get(r["layer"])
    act = watch.layers()
    frozen = [n for n, p in model.named_parameters() if not p.requires_grad]
    no_grad = [n for n, p in model.named_parameters() if p.requires_grad and p.grad is None]
    flow = flow_ratio(first_rows)
    res = {"loss": how, "loss_terms": losses, "total_grad_norm": totals, "layers": first_rows[:MAX_LAYER_ROWS],
           "layers_total_rows": len(first_rows), "activations": act, "flow": flow,
           "frozen_params": frozen[:100], "frozen_params_total": len(frozen),
           "no_grad_params": no_grad[:100], "no_grad_params_total": len(no_grad)}
    _grad_findings(res, doc)
    return res


def _grad_findings(res: dict[str, Any], doc) -> None:
    flow, rows, totals = res["flow"], res["layers"], res["total_grad_norm"]
    if flow and flow["ratio"] < VANISH_RATIO:
        doc.finding("grad_vanish", f"gradients vanish toward the input: early layers' grad RMS {flow['early_rms']:.2e} "
                    f"({', '.join(flow['early_layers'][:3])}) is {flow['ratio']:.1e} of the late layers' "
                    f"{flow['late_rms']:.2e} ({', '.join(flow['late_layers'][:3])}) over {flow['layers']} layers",
                    "high", ratio=flow["ratio"], early_rms=flow["early_rms"], late_rms=flow["late_rms"],
                    first_layer=flow["early_layers"][0], last_layer=flow["late_layers"][-1])
    bad = [r["layer"] for r in rows if r["nonfinite_grad_tensors"]]
    big = max((t for t in totals if math.isfinite(t)), default=0.0)
    if bad or any(not math.isfinite(t) for t in totals):
        doc.finding("grad_explode", f"non-finite gradients after backward in {len(bad)} layers "
                    f"({', '.join(bad[:4])})", "critical", nonfinite_layers=bad[:20], total_norm=totals[0] if totals else None)
    elif big >= EXPLODE_TOTAL_NORM:
        worst = max((r for r in rows if isinstance(r["grad_norm"], float)), key=lambda r: r["grad_norm"], default=None)
        doc.finding("grad_explode", f"total gradient norm {big:.3e} (over {EXPLODE_TOTAL_NORM:g}); largest in "
                    f"{worst['layer'] if worst else '?'} ({worst['grad_norm']:.3e})" if worst else
                    f"total gradient norm {big:.3e}", "critical", total_norm=big,
                    worst_layer=worst["layer"] if worst else None)
    elif flow and flow["ratio"] > EXPLODE_RATIO:
        doc.finding("grad_explode", f"gradients grow toward the input: early layers' grad RMS is {flow['ratio']:.1e}x "
                    f"the late layers'", "high", ratio=flow["ratio"], total_norm=big)
    dead = [a for a in res["activations"] if a.get("dead_share", 0) >= DEAD_SHARE]
    if dead:
        dead.sort(key=lambda a: -a["dead_share"])
        worst = dead[0]
        doc.finding("dead_units", f"{len(dead)} ReLU layer(s) with most units never active over the probe's batches: "
                    f"{worst['layer']} has {100 * worst['dead_share']:.0f}% of {worst['units']} units dead" +
                    "".join(f"; {a['layer']} {100 * a['dead_share']:.0f}%" for a in dead[1:3]), "high",
                    share=worst["dead_share"], layer=worst["layer"], layers=[a["layer"] for a in dead][:20])
    sat = [a for a in res["activations"] if a.get("saturated_share", 0) >= SATURATED_SHARE]
    if sat:
        sat.sort(key=lambda a: -a["saturated_share"])
        w = sat[0]
        doc.finding("saturated", f"{len(sat)} {w['activation']} layer(s) saturated: {w['layer']} has "
                    f"{100 * w['saturated_share']:.0f}% of outputs beyond {SATURATION}", "medium",
                    share=w["saturated_share"], layer=w["layer"])
    if res["frozen_params_total"]:
        doc.finding("frozen_params", f"{res['frozen_params_total']} parameter tensors get no gradient because they are "
                    f"frozen (requires_grad=False), e.g. {', '.join(res['frozen_params'][:3])}", "medium",
                    tensors=res["frozen_params_total"], names=res["frozen_params"][:20])
    if res["no_grad_params_total"]:
        doc.finding("no_grad_params", f"{res['no_grad_params_total']} trainable parameter tensors got no gradient "
                    f"(detached or unused in forward), e.g. {', '.join(res['no_grad_params'][:3])}", "high",
                    tensors=res["no_grad_params_total"], names=res["no_grad_params"][:20])


# ============================================================================= memory

def _storage_key(t: torch.Tensor) -> tuple[int, int]:
    try:
        s = t.untyped_storage()
        return (s.data_ptr(), s.nbytes())
    except (RuntimeError, NotImplementedError):
        return (id(t), t.numel() * t.element_size())


def _unique_bytes(ts) -> int:
    seen: dict[int, int] = {}
    for t in ts:
        ptr, n = _storage_key(t)
        seen[ptr] = max(seen.get(ptr, 0), n)
    return sum(seen.values())


class _RssPeak:
    """Linux: the process's resident-set high-water mark per phase (VmHWM, reset through
    /proc/self/clear_refs). Elsewhere: unavailable, said so."""

    def __init__(self):
        self.ok = os.path.exists("/proc/self/status")
        self.resettable = False

    def reset(self) -> None:
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self.resettable = True
        except OSError:
            self.resettable = False

    def peak(self) -> int | None:
        if not self.ok:
            return None
        try:
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            return None
        return None


def memory(model, batch_iter, step_fn, opt, device: str, doc) -> dict[str, Any]:
    """Peak memory of forward, backward and optimizer step, and by kind."""
    cuda = device.startswith("cuda")
    model.train()
    params = [p for p in model.parameters()]
    p_bytes = _unique_bytes(params) + _unique_bytes(list(model.buffers()))
    res: dict[str, Any] = {"device": device, "phases": {}, "by_kind": {}}
    watch = _ActivationWatch(model, track_outputs=True)
    saved: list[torch.Tensor] = []
    param_ptrs = {_storage_key(p)[0] for p in params}

    def pack(t):
        if _storage_key(t)[0] not in param_ptrs:
            saved.append(t)
        return t
    batch = next(batch_iter)
    rss = _RssPeak()
    try:
        if cuda:
            torch.cuda.synchronize(device)
            base = torch.cuda.memory_allocated(device)
            res["method"] = "cuda_allocator"
            res["method_note"] = ("torch.cuda allocator statistics: memory_allocated / max_memory_allocated per phase "
                                  "(reserved adds the caching allocator's slack)")
            total = torch.cuda.get_device_properties(device).total_memory
            res["device_total_bytes"] = total
        else:
            res["method"] = "cpu_tensor_bytes"
            res["method_note"] = ("CPU: parameters, gradients, optimizer state and activations are exact sums of "
                                  "tensor bytes (activations = tensors autograd saved for backward); the peaks are "
                                  "the whole process's resident set (interpreter and torch libraries included)"
                                  + ("" if rss.ok else "; peaks unavailable on this OS"))
        for phase in ("forward", "backward", "optimizer_step"):
            doc.stage(phase)
            if cuda:
                torch.cuda.reset_peak_memory_stats(device)
                before = torch.cuda.memory_allocated(device)
            else:
                rss.reset()
            t0 = time.perf_counter()
            if phase == "forward":
                opt.zero_grad(set_to_none=True)
                with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                    loss, _, how = loss_terms(step_fn, model, batch)
                res["loss"] = how
                act_bytes = _unique_bytes(saved)
            elif phase == "backward":
                loss.backward()
                del loss
                saved.clear()
            else:
                opt.step()
            ph: dict[str, Any] = {"seconds": time.perf_counter() - t0}
            if cuda:
                torch.cuda.synchronize(device)
                ph["peak_allocated_bytes"] = torch.cuda.max_memory_allocated(device) - base
                ph["allocated_after_bytes"] = torch.cuda.memory_allocated(device) - base
                ph["delta_bytes"] = torch.cuda.memory_allocated(device) - before
                ph["peak_reserved_bytes"] = torch.cuda.max_memory_reserved(device)
            else:
                ph["peak_rss_bytes"] = rss.peak()
                ph["peak_rss_resettable"] = rss.resettable
            res["phases"][phase] = ph
    finally:
        watch.close()
    g_bytes = _unique_bytes([p.grad for p in params if p.grad is not None])
    o_bytes = _unique_bytes([v for st in opt.state.values() for v in st.values() if isinstance(v, torch.Tensor)])
    res["by_kind"] = {"parameters": p_bytes, "gradients": g_bytes, "optimizer_state": o_bytes, "activations": act_bytes}
    if cuda:
        res["by_kind_method"] = ("parameters/gradients/optimizer state: tensor bytes; activations: tensor bytes autograd "
                                 "saved for backward; peaks: allocator")
        res["base_allocated_bytes"] = base
    res["largest_activations"] = [{"module": k, "bytes": v} for k, v in
                                  sorted(watch.out_bytes.items(), key=lambda t: -t[1])[:15]]
    if cuda:
        peak = max(ph.get("peak_allocated_bytes", 0) for ph in res["phases"].values()) + base
        res["peak_bytes"] = peak
        if peak >= CUDA_FULL_SHARE * res["device_total_bytes"]:
            doc.finding("cuda_oom", f"peak GPU memory {_gib(peak)} of {_gib(res['device_total_bytes'])} "
                        f"({100 * peak / res['device_total_bytes']:.0f}%) for one step at this batch: no headroom",
                        "high", peak_bytes=peak, total_bytes=res["device_total_bytes"])
    return res


# A step peaking above this share of the GPU's memory leaves no headroom (fragmentation, longer batches).
CUDA_FULL_SHARE = 0.9


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def estimate_need(n_params: int, bytes_per: int, optimizer: str) -> int:
    """Bytes for parameters + gradients + optimizer state (activations not included)."""
    states = {"sgd": 0, "adam": 2, "adamw": 2}.get(optimizer.lower(), 2)
    return n_params * bytes_per * (2 + states)


# ============================================================================= nan-hunt

def _stats(t: torch.Tensor) -> dict[str, Any]:
    with torch.no_grad():
        x = t.detach()
        d: dict[str, Any] = {"shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", "")}
        if x.numel() == 0:
            return d
        if not (x.is_floating_point() or x.is_complex()):
            d.update(min=float(x.min()), max=float(x.max()), has_nan=False, has_inf=False)
            return d
        xf = x.float()
        fin = torch.isfinite(xf)
        d["has_nan"] = bool(torch.isnan(xf).any())
        d["has_inf"] = bool(torch.isinf(xf).any())
        d["nonfinite"] = int((~fin).sum())
        if bool(fin.any()):
            v = xf[fin]
            d.update(min=float(v.min()), max=float(v.max()), mean=float(v.mean()))
        return d


def _finite(x) -> bool:
    return all(bool(torch.isfinite(t.detach()).all()) for _, t in tensors_of(x) if t.is_floating_point() or t.is_complex())


def nan_hunt(model, batch_iter, step_fn, opt, steps: int, doc) -> dict[str, Any]:
    """Train `steps` batches; stop at the first non-finite input, module output, loss, gradient or
    parameter, naming the batch and the module. The model's files are never touched."""
    model.train()
    log: list[dict[str, Any]] = []
    first: dict[str, Any] | None = None
    state = {"origin": None, "batch": -1}

    def hook(name):
        def h(mod, inp, out):
            if state["origin"] is not None or not tensors_of(out):
                return
            if not _finite(out):
                state["origin"] = {"module": name or "(model)", "type": type(mod).__name__,
                                   "inputs_finite": _finite(inp), "output": [_stats(t) for _, t in tensors_of(out)][:3]}
        return h
    handles = [m.register_forward_hook(hook(n)) for n, m in model.named_modules()]
    top_out: dict[str, Any] = {}
    handles.append(model.register_forward_hook(lambda m, i, o: top_out.__setitem__("o", o)))
    res: dict[str, Any] = {"steps_requested": steps, "batches": log}
    try:
        for i in range(steps):
            doc.stage(f"batch {i}")
            try:
                batch = next(batch_iter)
            except StopIteration:
                doc.note(f"the batches ran out after {i}")
                break
            rec: dict[str, Any] = {"batch": i, "inputs": {n: _stats(t) for n, t in tensors_of(batch)}}
            log.append(rec)
            if not _finite(batch):
                bad = [n for n, s in rec["inputs"].items() if s.get("has_nan") or s.get("has_inf")]
                first = {"batch": i, "phase": "input", "where": ", ".join(bad),
                         "detail": "; ".join(f"{n}: {rec['inputs'][n].get('nonfinite')} non-finite of "
                                             f"{math.prod(rec['inputs'][n]['shape'])}" for n in bad)}
                break
            state["origin"] = None
            top_out.clear()
            opt.zero_grad(set_to_none=True)
            loss, terms, how = loss_terms(step_fn, model, batch)
            res["loss"] = how
            rec["loss_terms"] = terms
            if "o" in top_out:
                rec["outputs"] = {n: _stats(t) for n, t in tensors_of(top_out["o"], "output")[:4]}
            if state["origin"] is not None:
                o = state["origin"]
                first = {"batch": i, "phase": "forward", "where": o["module"], "module_type": o["type"],
                         "inputs_finite": o["inputs_finite"],
                         "detail": f"output of {o['module']} ({o['type']}) non-finite"
                                   + (" with finite inputs" if o["inputs_finite"] else " (its inputs were already non-finite)")}
                break
            if not all(math.isfinite(v) for v in terms.values()) or not _finite(loss):
                bad = [k for k, v in terms.items() if not math.isfinite(v)] or ["loss"]
                first = {"batch": i, "phase": "loss", "where": ", ".join(bad),
                         "detail": "model outputs finite, loss term(s) " + ", ".join(f"{k}={terms.get(k)}" for k in bad)}
                break
            try:
                with torch.autograd.detect_anomaly(check_nan=True):
                    loss.backward()
            except RuntimeError as e:
                m = re.search(r"Function '(\w+)' returned nan values in its (\d+)(?:st|nd|rd|th) output", str(e))
                if m is None:
                    raise
                first = {"batch": i, "phase": "backward", "where": m.group(1),
                         "detail": f"autograd anomaly: {m.group(1)} returned NaN in its output {m.group(2)}"}
                break
            gn = math.sqrt(sum(float(p.grad.detach().float().pow(2).sum()) for p in model.parameters() if p.grad is not None))
            rec["grad_norm"] = gn
            bad = [n for n, p in model.named_parameters() if p.grad is not None and not bool(torch.isfinite(p.grad).all())]
            if bad or not math.isfinite(gn):
                first = {"batch": i, "phase": "backward", "where": ", ".join(bad[:3]),
                         "detail": f"non-finite gradient in {len(bad)} parameter tensors"}
                break
            opt.step()
            bad = [n for n, p in model.named_parameters() if not bool(torch.isfinite(p.detach()).all())]
            if bad:
                first = {"batch": i, "phase": "optimizer_step", "where": ", ".join(bad[:3]),
                         "detail": f"parameters non-finite after the step (grad norm {gn:.3e})"}
                break
            doc.d["result"]["batches_done"] = i + 1
    finally:
        for h in handles:
            h.remove()
    res["first_nonfinite"] = first
    res["batches_done"] = len(log)
    if first is None:
        doc.note(f"no non-finite value in {len(log)} batches")
    else:
        kind = {"input": "nonfinite_input", "forward": "nonfinite_forward", "loss": "nonfinite_loss",
                "backward": "nonfinite_backward", "optimizer_step": "nonfinite_step"}[first["phase"]]
        gns = [r["grad_norm"] for r in log if isinstance(r.get("grad_norm"), float) and r["grad_norm"] > 0]
        growth = (gns[-1] / gns[0]) if len(gns) >= 2 else None
        where = {"input": f"in the inputs ({first['where']})", "forward": f"first in the output of module {first['where']}",
                 "loss": f"in the loss ({first['where']})", "backward": f"in the backward pass ({first['where']})",
                 "optimizer_step": f"in the parameters after the optimizer step ({first['where']})"}[first["phase"]]
        doc.finding(kind, f"first non-finite value at batch {first['batch']}, {where}: {first['detail']}", "critical",
                    batch=first["batch"], phase=first["phase"], where=first["where"], grad_growth=growth)
    return res
