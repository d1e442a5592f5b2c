"""The probe runner: `python mltdbg_probe.py PROBE ... --out RESULT.json`.

Runs INSIDE the user's interpreter (the one their training uses), so the user's model, data and
packages import as they do in training; it needs only the stdlib (+ torch for model/checkpoint
probes, numpy for data) and never imports mltdbg. The result goes to --out as JSON (rewritten
atomically after every stage, so a hang or a kill leaves the last partial state); the model's own
prints go to stdout/stderr, which the launcher (mltdbg.sessions.probes) keeps apart.

Probes: params, gradients, memory, nan-hunt (a TARGET that builds the model), checkpoint, box, data.
Exit status: 0 done; 3 failed with a partial or error result written; 4 bad input (named in the result).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mltdbg_probe_util import (
    E_BAD_INPUT,
    E_IMPORT,
    E_NEEDS_GPU,
    E_NO_TORCH,
    E_TOO_LARGE,
    Doc,
    ProbeError,
    classify,
    load_callable,
    load_kwargs,
    torch_environment,
)

PROBES = ("params", "gradients", "memory", "nan-hunt", "checkpoint", "box", "data")
RC_OK, RC_FAILED, RC_BAD_INPUT = 0, 3, 4


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mltdbg_probe.py")
    p.add_argument("probe", choices=PROBES)
    p.add_argument("subject", nargs="?", help="TARGET (model builder) or PATH (checkpoint, data)")
    p.add_argument("--out", required=True)
    p.add_argument("--kwargs", default=None)
    p.add_argument("--config", default=None)
    p.add_argument("--device", default=None)
    p.add_argument("--batch", default="auto")
    p.add_argument("--batch-size", type=int, default=None)
    p.add_argument("--seq-len", type=int, default=None)
    p.add_argument("--step", default=None)
    p.add_argument("--steps", type=int, default=None)
    p.add_argument("--optimizer", default="adam")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--target", default=None)
    p.add_argument("--val", default=None)
    p.add_argument("--num-classes", type=int, default=None)
    p.add_argument("--label-column", default=None)
    p.add_argument("--checkpoint-dir", default=None)
    p.add_argument("--max-memory-gb", type=float, default=None)
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if args.max_memory_gb:
        _limit_memory(args.max_memory_gb)
    doc = Doc(args.out, args.probe, argv)
    doc.save()
    cuda = False
    try:
        if args.probe == "box":
            doc.d["result"] = _box(args, doc)
        elif args.probe == "data":
            doc.d["result"] = _data(args, doc)
        else:
            cuda = _torch(doc)
            if args.probe == "checkpoint":
                doc.d["result"] = _checkpoint(args, doc)
            else:
                _model_probe(args, doc)
        doc.d["status"] = "ok"
        rc = RC_OK
    except ProbeError as e:
        doc.fail(e.kind, e.message, partial=bool(doc.d["result"]))
        rc = RC_BAD_INPUT if e.kind in (E_BAD_INPUT, E_IMPORT, E_NO_TORCH) else RC_FAILED
    except KeyboardInterrupt:
        doc.fail("interrupted", "interrupted", partial=bool(doc.d["result"]))
        rc = RC_FAILED
    except BaseException as e:  # noqa: BLE001 - the user's model may raise anything, SystemExit included
        kind, msg = classify(e, cuda)
        doc.fail(kind, msg, partial=bool(doc.d["result"]))
        rc = RC_FAILED
    doc.d["stage"] = "done"
    doc.save()
    return rc


def _limit_memory(gb: float) -> None:
    """Cap this process's address space (before torch is imported): an allocation past it fails with a
    MemoryError/RuntimeError the probe reports, instead of the kernel's OOM killer ending the machine's jobs."""
    import resource
    n = int(gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (n, n))


def _torch(doc) -> bool:
    try:
        import torch  # noqa: F401
    except Exception as e:  # noqa: BLE001 - ImportError, or a broken install raising anything
        raise ProbeError(E_NO_TORCH, f"torch is not importable in {sys.executable} ({type(e).__name__}: {e}); "
                                     "pass --python with the interpreter your training uses") from None
    torch_environment(doc.d["environment"])
    return bool(doc.d["environment"]["cuda_available"])


def _device(arg: str | None, default: str) -> str:
    import torch
    d = arg or default
    if d == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if d.startswith("cuda") and not torch.cuda.is_available():
        raise ProbeError(E_NEEDS_GPU, f"--device {d}: this machine has no usable CUDA device "
                                      f"(torch {torch.__version__}, torch.cuda.is_available() is False)")
    if d not in ("cpu", "meta") and not d.startswith("cuda"):
        raise ProbeError(E_BAD_INPUT, f"--device {d!r}: expected auto, cpu, meta, cuda or cuda:N")
    return d


def _need_subject(args, what: str) -> str:
    if not args.subject:
        raise ProbeError(E_BAD_INPUT, f"{args.probe}: {what} is required")
    return args.subject


def _available_bytes(device: str) -> int | None:
    """Free memory on the device the model would be built on (None: unknown)."""
    import torch
    if device.startswith("cuda"):
        try:
            return int(torch.cuda.mem_get_info(torch.device(device))[0])
        except (RuntimeError, AssertionError):
            return None
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
    except OSError:
        return None
    try:
        mx = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        cur = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        if mx != "max":
            avail = min(avail or 2**62, int(mx) - cur)
    except (OSError, ValueError):
        pass
    return avail


def _model_probe(args, doc) -> None:
    import mltdbg_probe_model as M
    import torch
    target_spec = _need_subject(args, "TARGET (FILE.py:build_model or module:Class)")
    doc.d["target"] = target_spec
    res = doc.d["result"]
    default_device = "meta" if args.probe == "params" else "auto"
    device = _device(args.device, default_device)
    if args.probe != "params" and device == "meta":
        raise ProbeError(E_BAD_INPUT, f"{args.probe} runs the model: --device meta only counts (use `params`)")
    doc.d["environment"]["device"] = device
    doc.stage("loading TARGET")
    kwargs = load_kwargs(args.kwargs, args.config)
    target = load_callable(target_spec, "TARGET")
    if not callable(target):
        raise ProbeError(E_BAD_INPUT, f"TARGET {target_spec!r} is a {type(target).__name__}, not a class or function")
    torch.manual_seed(args.seed)
    summary = None
    doc.stage("counting parameters on the meta device")
    try:
        summary = M.params_summary(M.build(target, kwargs, "meta"))
        summary["counted_on"] = "meta"
        res["params"] = summary
    except ProbeError:
        raise
    except Exception as e:  # noqa: BLE001 - a model that cannot be built on meta is still probed for real
        kind, msg = classify(e, bool(doc.d["environment"].get("cuda_available")))
        if kind == "exception" and isinstance(e, (ImportError, NameError, SyntaxError, TypeError)) and device == "meta":
            raise ProbeError(E_BAD_INPUT, f"TARGET {target_spec!r} failed to build: {msg}") from None
        doc.note(f"could not build on the meta device ({msg}); built on {'cpu' if device == 'meta' else device} instead")
    if args.probe == "params":
        if summary is None:
            device = "cpu"
            doc.stage("building on cpu")
            summary = M.params_summary(M.build(target, kwargs, device))
            summary["counted_on"] = device
            res["params"] = summary
        elif device != "meta":
            doc.stage(f"building on {device}")
            summary = M.params_summary(M.build(target, kwargs, device))
            summary["counted_on"] = device
            res["params"] = summary
        M.params_findings(summary, doc)
        return
    if summary is not None:
        doc.stage("checking that it fits")
        need = M.estimate_need(summary["total"], max(1, summary["bytes"] // max(summary["total"], 1)), args.optimizer)
        avail = _available_bytes(device)
        res["fit"] = {"need_bytes_without_activations": need, "available_bytes": avail, "device": device}
        if avail is not None and need > avail:
            raise ProbeError(E_TOO_LARGE, f"{M.fmt_count(summary['total'])} parameters: weights, gradients and "
                             f"{args.optimizer} state need ~{need / 2**30:.1f} GiB before activations, and {device} has "
                             f"{avail / 2**30:.1f} GiB free; not built (the counts, from the meta device, are in the result)")
    doc.stage(f"building on {device}")
    model = M.build(target, kwargs, device)
    if summary is None:
        summary = M.params_summary(model)
        summary["counted_on"] = device
        res["params"] = summary
    step_fn = load_callable(args.step, "--step") if args.step else None
    doc.stage("making batches")
    it, how = M.batches(args.batch, model, load_callable, device, args.batch_size, args.seq_len, doc.d["notes"])
    res["batch"] = how
    trainable = [p for p in model.parameters() if p.requires_grad]
    if not trainable:
        M.params_findings(summary, doc)
        raise ProbeError("nothing_to_train", "every parameter is frozen (requires_grad=False): nothing gets a gradient")
    opt = M.make_optimizer(args.optimizer, trainable, args.lr, load_callable)
    res["optimizer"] = f"{type(opt).__name__}(lr={args.lr:g})" if args.optimizer.lower() in ("sgd", "adam", "adamw") else args.optimizer
    if args.probe == "gradients":
        res.update(M.gradients(model, it, step_fn, opt, max(1, args.steps or 1), doc))
    elif args.probe == "memory":
        res.update(M.memory(model, it, step_fn, opt, device, doc))
    else:
        res.update(M.nan_hunt(model, it, step_fn, opt, max(1, args.steps or 20), doc))


def _checkpoint(args, doc) -> dict:
    import mltdbg_probe_files as FP
    import mltdbg_probe_model as M
    path = Path(_need_subject(args, "PATH of the checkpoint"))
    doc.d["target"] = str(path)
    target_sd = None
    if args.target:
        doc.stage("building TARGET on the meta device")
        target = load_callable(args.target, "--target")
        model = M.build(target, load_kwargs(args.kwargs, args.config), "meta")
        target_sd = model.state_dict()
    return FP.checkpoint(path, target_sd, doc)


def _data(args, doc) -> dict:
    import mltdbg_probe_files as FP
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise ProbeError(E_NO_TORCH, f"numpy is not importable in {sys.executable}; pass --python with the interpreter "
                                     "your training uses") from None
    path = Path(_need_subject(args, "PATH of the data file"))
    doc.d["target"] = str(path)
    return FP.data(path, Path(args.val) if args.val else None, args.num_classes, args.label_column, doc)


def _box(args, doc) -> dict:
    import mltdbg_probe_box as B
    return B.box(args.checkpoint_dir or os.getcwd(), doc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
