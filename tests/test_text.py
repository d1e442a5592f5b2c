"""Text analysis: tracebacks, log signals and rank maps on real tool output and fixtures."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from mltdbg.analyzers.log_findings import text_signals
from mltdbg.analyzers.model import Run, TextArtifact
from mltdbg.analyzers.ranks import rank_lines
from mltdbg.analyzers.tracebacks import extract_tracebacks

FIX = Path(__file__).parent / "fixtures" / "text_signals"


def run_of(*arts: tuple[str, str], kind: str = "log") -> Run:
    run = Run(root=Path("."))
    for name, text in arts:
        run.texts.append(TextArtifact(name, Path(name), kind, text))
    return run


def fixture_run(*names: str) -> Run:
    return run_of(*[(n, (FIX / n).read_text()) for n in names])


def signals(run: Run) -> dict:
    extract_tracebacks(run)
    return {s.kind: s for s in text_signals(run)}


def check_quotes(run: Run, sigs: dict) -> None:
    """Every evidence quote is the artifact's text at that line (what the verifier re-reads)."""
    for s in sigs.values():
        assert s.evidence, s.kind
        for e in s.evidence:
            line = run.text(e.source).line(e.line)
            assert e.quote and e.quote in line and len(e.quote) <= 300, (s.kind, e)


# ----------------------------------------------------------------------------- real tracebacks

REAL = textwrap.dedent('''
    import sys, traceback
    import torch, torch.nn as nn, torch.nn.functional as F
    from torch.utils.data import DataLoader, Dataset

    def show(fn):
        try:
            fn()
        except Exception:
            traceback.print_exc()
            sys.stderr.flush()

    class Bad(Dataset):
        def __len__(self):
            return 8
        def __getitem__(self, i):
            if i == 5:
                raise ValueError(f"bad sample {i}")
            return torch.zeros(3)

    def chained():
        try:
            {}["lr"]
        except KeyError as e:
            raise RuntimeError("config has no lr") from e

    def anomaly():
        with torch.autograd.detect_anomaly():
            x = torch.zeros(1, requires_grad=True)
            (x.sqrt() * 0).sum().backward()

    def worker():
        for _ in DataLoader(Bad(), batch_size=2, num_workers=1):
            pass

    CASES = {
        "ce": lambda: F.cross_entropy(torch.randn(4, 10), torch.tensor([1, 2, 10, 3])),
        "stack": lambda: torch.stack([torch.zeros(3), torch.zeros(4)]),
        "dtype": lambda: nn.Linear(4, 2)(torch.zeros(3, 4, dtype=torch.float64)),
        "keys": lambda: nn.Linear(2, 2).load_state_dict({}),
        "hostmem": lambda: torch.empty(2 ** 60, dtype=torch.uint8),
        "var": lambda: torch.ones(1).var(),
        "anomaly": anomaly,
        "chain": chained,
        "worker": worker,
    }
    if __name__ == "__main__":
        for name, fn in CASES.items():   # one process: torch is imported once
            print(f"=== {name} ===", file=sys.stderr, flush=True)
            show(fn)
''')

CASES = ["ce", "stack", "dtype", "keys", "hostmem", "var", "anomaly", "chain", "worker"]


@pytest.fixture(scope="module")
def real_stderr(tmp_path_factory) -> dict[str, str]:
    """stderr of each snippet, run for real in one Python process, split at the markers."""
    d = tmp_path_factory.mktemp("real")
    script = d / "snippets.py"
    script.write_text(REAL)
    err = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=d, timeout=300).stderr
    parts = re.split(r"^=== (\w+) ===\n", err, flags=re.M)
    out = dict(zip(parts[1::2], parts[2::2]))
    assert sorted(out) == sorted(CASES), err[-2000:]
    return out


@pytest.mark.parametrize("case,kind,needle", [
    ("ce", "log:label_out_of_range", "Target 10 is out of bounds"),
    ("stack", "log:shape_mismatch", "stack expects each tensor to be equal size"),
    ("dtype", "log:dtype_mismatch", "mat1 and mat2 must have the same dtype"),
    ("keys", "log:missing_keys", "Missing key(s) in state_dict"),
    ("hostmem", "log:host_oom", "DefaultCPUAllocator: can't allocate memory"),
    ("var", "log:var_dof", "var(): degrees of freedom is <= 0"),
    ("anomaly", "log:anomaly_nan", "returned nan values"),
])
def test_real_errors_give_their_signal(real_stderr, case, kind, needle):
    run = run_of((f"{case}.err", real_stderr[case]))
    sigs = signals(run)
    assert kind in sigs, (case, sorted(sigs), real_stderr[case][-500:])
    assert needle in sigs[kind].evidence[0].quote
    assert sigs[kind].strength >= 0.8
    # a traceback the detectors explained is not also a generic exception
    assert "log:exception" not in sigs
    check_quotes(run, sigs)
    # the NaN from sqrt at 0 is named as a math op's (log:anomaly_math); a matmul's NaN is not one
    assert ("log:anomaly_math" in sigs) is (case == "anomaly")


def test_real_cross_entropy_traceback_parsed(real_stderr):
    run = run_of(("ce.err", real_stderr["ce"]))
    extract_tracebacks(run)
    (tb,) = run.tracebacks
    assert tb.exc_type == "IndexError"
    assert tb.message == "Target 10 is out of bounds."
    assert tb.start_line == 1
    art = run.texts[0]
    assert art.line(tb.line) == "IndexError: Target 10 is out of bounds." == tb.quote
    assert tb.frames[0].func == "show" and tb.frames[0].code == "fn()"
    assert tb.frames[-1].file.endswith("functional.py")


def test_real_chained_exception(real_stderr):
    run = run_of(("chain.err", real_stderr["chain"]))
    extract_tracebacks(run)
    first, second = run.tracebacks
    assert (first.exc_type, second.exc_type) == ("KeyError", "RuntimeError")
    assert second.chained_from is first and first.chained_from is None
    assert second.message == "config has no lr"
    sigs = signals(run)
    assert sigs["log:exception"].data["exc_type"] == "KeyError"


def test_real_dataloader_worker_traceback(real_stderr):
    run = run_of(("worker.err", real_stderr["worker"]))
    extract_tracebacks(run)
    outer, inner = run.tracebacks
    assert outer.message == "Caught ValueError in DataLoader worker process 0."
    assert inner.worker == 0 and inner.exc_type == "ValueError" and inner.message == "bad sample 5"
    assert inner.frames[-1].func == "__getitem__"
    assert outer.chained_from is inner
    sigs = signals(run)
    assert sigs["log:exception"].data["message"] == "bad sample 5"
    assert sigs["log:exception"].data["count"] == 1


# ----------------------------------------------------------------------------- fixtures

def test_torchrun_child_failed_sigkill():
    run = fixture_run("torchrun_sigkill.log")
    sigs = signals(run)
    cf = sigs["log:child_failed"]
    assert cf.data["exitcode"] == -9 and cf.data["rank"] == 1 and cf.data["local_rank"] == 1
    assert cf.strength == 1.0
    assert sigs["log:host_oom"].data["exitcode"] == -9
    (tb,) = run.tracebacks
    assert tb.exc_type == "torch.distributed.elastic.multiprocessing.errors.ChildFailedError"
    assert "Signal 9 (SIGKILL) received by PID 140013" in tb.message
    assert "log:exception" not in sigs
    check_quotes(run, sigs)


def test_rank_prefixed_tracebacks_interleaved():
    run = fixture_run("rank_tracebacks.log")
    sigs = signals(run)
    r0, r1 = run.tracebacks
    assert (r0.rank, r0.exc_type) == (0, "torch.OutOfMemoryError")
    assert [f.line for f in r0.frames] == [141, 120]
    assert (r1.rank, r1.exc_type, r1.message) == (1, "StopIteration", "")
    assert [f.line for f in r1.frames] == [141, 118]
    oom = sigs["log:cuda_oom"]
    assert oom.data["tried_to_allocate"] == "2.00 GiB" and oom.data["total_capacity"] == "79.15 GiB"
    assert sigs["log:exception"].data["exc_type"] == "StopIteration"
    assert sigs["log:child_failed"].data["exitcode"] == 1
    check_quotes(run, sigs)


def test_nccl_watchdog_timeout():
    run = fixture_run("nccl_timeout.log")
    sigs = signals(run)
    s = sigs["log:nccl_timeout"]
    assert s.data["timeout_ms"] == 600000 and s.data["op"] == "ALLREDUCE" and s.data["rank"] == 3
    assert s.data["count"] == 3 and len(s.evidence) == 3 and "3 times" in s.summary
    assert s.evidence[0].line == 2
    check_quotes(run, sigs)


def test_warnings_overflow_weights_resume_nan():
    run = fixture_run("misc_warnings.log")
    sigs = signals(run)
    assert sigs["log:var_dof"].evidence[0].line == 1
    assert sigs["log:loader_workers_over"].data == {"workers": 16, "suggested_max": 4, "count": 1}
    ls = sigs["log:loss_scale_overflow"]
    assert ls.data["count"] == 3 and ls.data["scale"] == 32768.0
    mk = sigs["log:missing_keys"]
    assert "classifier.bias" in mk.data["newly_initialized_keys"] and mk.strength == 0.8
    assert sigs["log:checkpoint_path"].data["path"] == "/ckpt/run7/step_12000.pt"
    assert sigs["log:resume"].data["step"] == 12000 and sigs["log:resume"].data["epoch"] == 3
    assert sigs["log:anomaly_nan"].data["function"] == "LogSoftmaxBackward0"
    assert "log:anomaly_math" not in sigs        # log-softmax is the stable op: the NaN came from upstream
    assert sigs["log:nan_input"].data["batch"] == 4711
    check_quotes(run, sigs)


def test_ci_pytest_and_pip():
    run = fixture_run("ci_pytest.log")
    sigs = signals(run)
    ts = sigs["log:tests_skipped"]
    assert ts.data["skipped"] == 6 and ts.data["passed"] == 8 and ts.data["gpu_related"]
    assert "tests/test_train.py:12: CUDA not available" in ts.data["reasons"]
    assert ts.strength == 0.8
    assert sigs["log:import_error"].data["requires"] == "torch==2.0.1"
    check_quotes(run, sigs)


def test_clean_training_log_gives_nothing():
    run = fixture_run("clean_train.log")
    assert signals(run) == {}
    assert run.tracebacks == []


# ----------------------------------------------------------------------------- single lines

@pytest.mark.parametrize("line,kind", [
    ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; 13.2 GiB already allocated)", "log:cuda_oom"),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", "log:cuda_oom"),
    ("Killed", "log:host_oom"),
    ("./train.sh: line 12: 48211 Killed                  python train.py --bs 512", "log:host_oom"),
    ("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed. ", "log:host_oom"),
    ("[12345.678] Out of memory: Killed process 4242 (python) total-vm:81234567kB", "log:host_oom"),
    ("slurmstepd: error: Detected 1 oom_kill event in StepId=1234.0. Some of your processes may have been killed by the cgroup out-of-memory handler.", "log:host_oom"),
    ("subprocess.CalledProcessError: Command '['python', 'train.py']' returned non-zero exit status 137.", "log:host_oom"),
    ("/pytorch/aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.", "log:label_out_of_range"),
    ("RuntimeError: CUDA error: device-side assert triggered", "log:label_out_of_range"),
    ("IndexError: index out of range in self", "log:embedding_index"),
    ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)", "log:shape_mismatch"),
    ("RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1", "log:shape_mismatch"),
    ("RuntimeError: shape '[32, -1, 768]' is invalid for input of size 1000", "log:shape_mismatch"),
    ("\tsize mismatch for fc.weight: copying a param with shape torch.Size([10, 512]) from checkpoint, the shape in current model is torch.Size([100, 512]).", "log:shape_mismatch"),
    ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!", "log:device_mismatch"),
    # cuDNN's RNN wording
    ("RuntimeError: Input and parameter tensors are not at the same device, found input tensor at cpu and parameter tensor at meta", "log:device_mismatch"),
    ("RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input should be a MKLDNN tensor and weight is a dense tensor", "log:device_mismatch"),
    ("RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same", "log:dtype_mismatch"),
    ("  bn1: running_var min 0.000e+00 mean 1.484e-12 max 3.711e-11", "log:running_var_zero"),
    ("Running variance of bn2: 0.000000000 (max 2.1e-13)", "log:running_var_zero"),
    ("RUNNING_VAR bn1 1e-12", "log:running_var_zero"),
    # torch's newer wording: scalar types by their own names, and the bias named
    ("RuntimeError: Input type (float) and bias type (c10::Half) should be the same", "log:dtype_mismatch"),
    ("RuntimeError: Input type (c10::BFloat16) and weight type (float) should be the same", "log:dtype_mismatch"),
    ("RuntimeError: Input type (torch.FloatTensor) and weight type (MPSFloatType) should be the same", "log:device_mismatch"),
    ("RuntimeError: Input type (MPSFloatType) and weight type (torch.FloatTensor) should be the same", "log:device_mismatch"),
    ("onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Unexpected "
     "input data type. Actual: (tensor(double)) , expected: (tensor(float))", "log:dtype_mismatch"),
    ("RuntimeError: fields number not same among samples in a batch", "log:shape_mismatch"),
    ("(raylet) node_manager.cc:3064: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed "
     "due to other reasons at node", "log:host_oom"),
    ("RuntimeError: expected scalar type Float but found Half", "log:dtype_mismatch"),
    ("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'", "log:dtype_mismatch"),
    ("RuntimeError: result type Float can't be cast to the desired output type Long", "log:dtype_mismatch"),
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.14.3\nncclUnhandledCudaError: Call to CUDA function failed.", "log:nccl_error"),
    ("UserWarning: std(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor", "log:var_dof"),
    ("found nan in inputs at step 88", "log:nan_input"),
    ("ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 256])",
     "log:var_dof"),
    ("InvalidArgumentError:  Received a label value of 10 which is outside the valid range of [0, 10).  Label values: 3 7",
     "log:label_out_of_range"),
    ("ValueError: Shapes (None, 1) and (None, 10) are incompatible", "log:shape_mismatch"),
    ("size mismatch for encoder.embed_tokens.weight: copying a param of torch.Size([43807, 768]) from checkpoint, where "
     "the shape is torch.Size([43771, 768]) in current model.", "log:vocab_size_mismatch"),
    ("FloatingPointError: Loss became infinite or NaN at iteration=1234!", "log:loss_nonfinite"),
    ("InvalidArgumentError: Nan in summary histogram for: conv1/kernel_0", "log:loss_nonfinite"),
    ("Batch 312: Invalid loss, terminating training", "log:loss_nonfinite"),
    ("RuntimeError: non-finite loss at epoch 0 step 181: nan", "log:loss_nonfinite"),
    ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error "
     "indicates that your module has parameters that were not used in producing loss.", "log:ddp_unused_params"),
    ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
     "log:host_oom"),
    ("Input contains NaN, infinity or a value too large for dtype('float32').", "log:nan_input"),
    ("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768", "log:loss_scale_overflow"),
    ("_IncompatibleKeys(missing_keys=['encoder.weight'], unexpected_keys=[])", "log:missing_keys"),
    ("Some weights of the model checkpoint at bert-base-uncased were not used when initializing BertForMaskedLM: ['cls.seq_relationship.bias']", "log:missing_keys"),
    ("Restored all states from the checkpoint at lightning_logs/version_3/checkpoints/epoch=4-step=500.ckpt", "log:resume"),
    ("=> loading checkpoint 'runs/exp1/model_best.pth.tar'", "log:checkpoint_path"),
    ("ModuleNotFoundError: No module named 'flash_attn'", "log:import_error"),
    ("ImportError: cannot import name 'soft_unicode' from 'markupsafe'", "log:import_error"),
    ("AttributeError: module 'numpy' has no attribute 'float'", "log:import_error"),
    ("ValueError: Argument(s) not recognized: {'lr': 0.001}", "log:import_error"),      # Keras 3 refusing Keras 2's lr
    ("ReLU 1: fraction of outputs == 0 -> 1.000  (64/64 units dead on whole train set)", "dead_units"),
    ("dead neurons: 87%", "dead_units"),
    ("['module.conv1.weight', 'module.block1.layer.0.bn1.weight', 'module.block1.layer.0.bn1.bias']", "log:ddp_prefixed_keys"),
    ("in layers 3-6, 94% of the units output exactly 0 for every single sample", "dead_units"),
    ("net.3 (ReLU)  units never active: 256/256  (100.0%)  mean frac of zeros per sample: 1.000", "dead_units"),
    ("dense_13 (3000, 64) max=0.0000 zero_ratio=1.0000 always_zero_units=64/64", "dead_units"),
    ("INFO - act stats (val) | relu zero frac: features.1=0.99 features.3=1.00 features.5=1.00 | units never active: "
     "features.1=30/256 features.3=233/256 features.5=128/128", "dead_units"),
    ("units never active: fc1=12/256 fc2=240/256", "dead_units"),
    ("epoch   1  train_loss=1.7918  train_acc=0.1620  val_loss=1.7915  val_acc=0.1611  active_units=[128, 117, 0]", "dead_units"),
    ("/tmp/ipykernel_71/3771.py:4: RuntimeWarning: invalid value encountered in divide", "log:numpy_divide_invalid"),
    ("pandas/core/arraylike.py:399: RuntimeWarning: divide by zero encountered in log", "log:numpy_log_invalid"),
    ("UserWarning: The 'train_dataloader' does not have many workers which may be a bottleneck. Consider increasing the value of the `num_workers` argument", "log:dataloader_slow"),
    ("Token indices sequence length is longer than the specified maximum sequence length for this model (1024 > 512). Running this sequence through the model will result in indexing errors", "log:tokenizer_warning"),
    ("sample 3: : : : : : : : : : : : : : : : : : : :", "log:collapse_output"),
    ("[epoch 5] eval prediction counts: {'normal': 1600}", "log:collapse_output"),
    ("[epoch 10] eval prediction counts: {'normal': 1597, 'major': 3}", "log:collapse_output"),
    ("Generated: the the the the the the the the the the the the the", "log:collapse_output"),
    ("Fatal Python error: Segmentation fault", "log:exception"),
    ("batch stats: mean=[125.3, 122.9, 113.8] std=[63.0, 62.1, 66.7] min=0.0 max=255.0", "log:inputs_unscaled"),
    ("x.min()=0 x.max()=255", "log:inputs_unscaled"),
    ("features mean=51234.5 std=20311.9", "log:inputs_unscaled"),
    # a power spectrogram without its log: a small mean, a max in the thousands
    ("feature stats: min=0 max=3.39e+03 mean=2.75 std=31.5", "log:inputs_unscaled"),
])
def test_single_line_detectors(line, kind):
    run = run_of(("x.log", "step 1 loss 2.0\n" + line + "\nstep 2 loss 1.9\n"))
    sigs = signals(run)
    assert kind in sigs, sorted(sigs)
    assert sigs[kind].evidence[0].line == 2
    check_quotes(run, sigs)


def test_a_per_layer_table_of_never_firing_shares_under_its_header_is_dead_units():
    """A notebook's comment says what it prints, the code runs, its output is a table of shares per layer: 0.996
    of fc2's units never fire. The same table under a header about weights, or with shares under half, is not."""
    head = "# fraction of hidden units that are zero for EVERY validation sample\nwith torch.no_grad():\n" \
           "    h1 = F.relu(model.fc1(X))\nfor name, h in hs:\n    print(name, (h.max(0).values == 0).float().mean())\n\n"
    sigs = signals(run_of(("q.txt", head + "fc1 0.873046875\nfc2 0.99609375\nfc3 1.0\n")))
    s = sigs["dead_units"]
    assert s.data["share"] == 1.0 and s.evidence[0].line == 9
    assert "dead_units" not in signals(run_of(("q.txt", head + "fc1 0.1\nfc2 0.2\nfc3 0.3\n")))
    assert "dead_units" not in signals(run_of(("q.txt", "# weight norm per layer\nfc1 0.873\nfc2 0.99\nfc3 1.0\n")))


def test_a_wide_table_of_unit_counts_and_dead_counts_per_layer_is_dead_units():
    """A forward hook's table: each layer's units, how many are zero for every input (with a share in brackets)
    and a mean activation. 256 of 256 is the largest share; the same table with few dead units, or under a
    header about something else, is not."""
    table = ("layer        units   zero for all inputs   mean activation\n"
             "relu_1       256     {} ({:.1f}%)           0.0041\n"
             "relu_2       256     256 (100.0%)          0.0000\n"
             "relu_3       128     128 (100.0%)          0.0000\n")
    s = signals(run_of(("q.txt", table.format(249, 97.3))))["dead_units"]
    assert s.data["share"] == 1.0 and s.data["layer"] == "relu_2" and s.evidence[0].line == 3
    few = table.format(3, 1.2).replace("256     256 (100.0%)", "256     4 (1.6%)").replace("128     128 (100.0%)", "128     2 (1.6%)")
    assert "dead_units" not in signals(run_of(("q.txt", few)))
    assert "dead_units" not in signals(run_of(("q.txt", table.format(249, 97.3).replace("zero for all inputs", "params (k)"))))


def test_input_statistics_printed_bare_are_paired_with_the_print_that_names_them():
    """A notebook cell prints the shape, dtype, min, max and mean of X_train, then a class count; its output comes
    after "Out[2]:". The first output line is the first print's: max 255.0 is raw pixels. Scaled inputs, or the
    same numbers printed by a call that names no input statistics, are not."""
    cell = ("In [2]:\nprint(X_train.shape, X_train.dtype, X_train.min(), X_train.max(), X_train.mean())\n"
            "print(np.bincount(y_train))\n\nOut[2]:\n{}\n[1200 1200 1200]\n")
    s = signals(run_of(("q.txt", cell.format("(12000, 64, 64, 3) float32 0.0 255.0 118.74213"))))["log:inputs_unscaled"]
    assert s.data["raw_pixels"] and s.evidence[0].line == 6 and s.evidence[1].line == 2
    assert "log:inputs_unscaled" not in signals(run_of(("q.txt", cell.format("(12000, 64, 64, 3) float32 0.0 1.0 0.46"))))
    assert "log:inputs_unscaled" not in signals(run_of(("q.txt", cell.replace("X_train.max()", "len(X_train)")
                                                        .format("(12000, 64, 64, 3) float32 0.0 255 118.7"))))


def test_generations_printed_bare_that_repeat_one_token_are_a_collapse():
    """Three repr()s of generated text in a row, each ':' forty times (a space here and there): the model emits one
    token over and over. Three different answers, or a separator line of '=' signs, are not."""
    same = "print(repr(tok.decode(out)))\n```\n'{}'\n':::::::::::::: ::::::::::::::::::::::::::'\n'{}'\n```\n".format(":" * 40, ":" * 40)
    s = signals(run_of(("q.md", same)))["log:collapse_output"]
    assert s.data["repeated"] == ":" and s.evidence[0].line == 3
    other = "```\n'Paris is the capital of France.'\n'Your order can be returned within 30 days.'\n'Hello there!!'\n```\n"
    assert "log:collapse_output" not in signals(run_of(("q.md", other)))
    assert "log:collapse_output" not in signals(run_of(("q.md", ("'" + "=" * 40 + "'\n") * 3)))
    # a chat's answers under each prompt, unquoted; a progress bar's blocks are no answer
    chat = ">>> 你好，介绍一下你自己\n" + "！" * 30 + "\n>>> 1+1等于几\n" + "！" * 30 + "\n"
    assert signals(run_of(("q.md", chat)))["log:collapse_output"].data["repeated"] == "！"
    bars = ("Epoch 1\n" + "█" * 60 + " 782/782\n") * 3
    assert "log:collapse_output" not in signals(run_of(("x.log", bars)))
    zeros = ("print(layer.bias)\ntensor([" + "0., " * 30 + "0.])\n") * 3
    assert "log:collapse_output" not in signals(run_of(("x.log", zeros)))
    mask = "print(mask)\n" + ("[ True  True  True  True  True  True  True  True  True  True  True]\n" * 4)
    assert "log:collapse_output" not in signals(run_of(("x.log", mask)))
    # a long line in front of a two-row table is passed over, not searched from every position
    long = "x" * 20_000 + "\n# fraction of units that are zero for every sample\nfc1 0.9\nfc2 1.0\n"
    assert signals(run_of(("q.txt", long)))["dead_units"].data["share"] == 1.0


def test_a_prediction_count_of_a_few_predictions_or_of_several_classes_is_no_collapse():
    for line in ("eval prediction counts: {'normal': 12}", "eval prediction counts: {'normal': 900, 'major': 700}",
                 "label counts: {'normal': 4454}", "eval prediction counts: {'legit': 9870, 'fraud': 130}"):
        assert "log:collapse_output" not in signals(run_of(("x.log", "step 1 loss 2.0\n" + line + "\n")))


def test_the_words_score_stays_while_the_loss_falls_give_way_to_predictions_on_one_class(tmp_path):
    """"Accuracy ~70 % from the first epoch, never changes, yet the loss goes down" beside printed prediction counts
    all on the majority class: a collapse (one answer for every input), not a score computed from nothing."""
    from mltdbg.playbooks.diagnose import diagnose
    log = "label counts (train): {'normal': 4454, 'minor': 981, 'major': 624, 'critical': 341}\n" + "".join(
        f"{{'loss': {0.63 - 0.03 * e:.4f}, 'epoch': {e}.0}}\n{{'eval_loss': 0.28, 'eval_accuracy': 0.69{5 + e % 2}, "
        f"'epoch': {e}.0}}\n[epoch {e}] eval prediction counts: {{'normal': {1600 - e % 2}, 'major': {e % 2}}}\n"
        for e in range(1, 11))
    (tmp_path / "train.out").write_text(log)
    d = diagnose([str(tmp_path)], ["Accuracy is ~70% from the very first epoch and never changes, and yet the "
                                   "training loss does go down."])
    assert d.hypotheses[0].id == "mode_collapse"


def test_a_printout_of_a_few_dead_units_is_no_dead_relu_finding():
    """12 of 64 units dead, or 30 %, is no finding (half or more is)."""
    for line in ("12/64 units dead", "dead neurons: 30%", "fraction of outputs == 0 -> 0.2",
                 "30% of the units output 0", "94% of the units output 0.25 on average",
                 "net.1 (ReLU)  units never active: 12/256  (4.7%)",
                 "relu zero frac: fc1=0.52 fc2=0.47", "units never active: fc1=3/256 fc2=5/128",
                 "active_units=[128, 117, 3]", "active_units=[0]"):
        assert "dead_units" not in signals(run_of(("x.log", "step 1 loss 2.0\n" + line + "\n")))


@pytest.mark.parametrize("line", [
    "step 100 loss nan lr 3e-4",
    "{'loss': nan, 'grad_norm': nan, 'learning_rate': 2e-05, 'epoch': 1.2}",
    "Saving model checkpoint to out/checkpoint-500",
    "resume_from_checkpoint=None,",
    "sample: the cat sat on the mat and looked at the dog",
    "==============================================================",
    "Loss is NaN at batch 12",
    "12 passed in 0.33s",
    "Epoch 3: 100%|██████████| 782/782 [00:31<00:00, 25.1it/s, loss=0.412]",
    "Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.52s/it]",
    "All model checkpoint weights were used when initializing BertModel.",
    "Epoch 00012: reducing learning rate of group 0 to 1.0000e-04.",
    "wandb: Run history:",
    # normalised inputs, and maxima that are no inputs
    "batch mean: tensor([0.4914, 0.4822, 0.4465]) std: tensor([0.2470, 0.2435, 0.2616])",
    "x.min()=0.0 x.max()=1.0 mean=0.45",
    "data loader: max_workers=8",
    "GPU max memory 15.2 GB",
    "loss mean 0.5 max 2.3",
    "input max 255.9 min -3.1",
    # DDP's performance warning, not a failure
    "Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in "
    "the forward pass. This flag results in an extra traversal of the autograd graph every iteration",
    # a noun in one sentence, NaN in the next (a post's prose): not data with NaN in it
    "Thank you for providing a great example on how to implement custom LSTMs. I have a nan issue, however.",
    # the user denies NaN in the data
    "checked the images, no nans in the batch (`jnp.isnan(x).any()` is False)",
    "there is not a single nan in the dataset",
    # a checkpoint's keys without DDP's prefix, or only one under it
    "['conv1.weight', 'module.fc.weight', 'bn1.bias']",
])
def test_ordinary_lines_give_nothing(line):
    assert signals(run_of(("x.log", line + "\n"))) == {}


def test_timestamped_traceback_prefixes_stripped():
    text = ("2024-01-02 10:00:01,100 | ERROR | Traceback (most recent call last):\n"
            "2024-01-02 10:00:01,100 | ERROR |   File \"/app/train.py\", line 12, in step\n"
            "2024-01-02 10:00:01,100 | ERROR |     out = model(batch)\n"
            "2024-01-02 10:00:01,101 | ERROR | KeyError: 'input_ids'\n"
            "2024-01-02 10:00:02,000 | INFO | shutting down\n")
    run = run_of(("app.log", text))
    extract_tracebacks(run)
    (tb,) = run.tracebacks
    assert (tb.exc_type, tb.message, tb.line) == ("KeyError", "'input_ids'", 4)
    assert tb.frames[0].file == "/app/train.py" and tb.frames[0].line == 12 and tb.frames[0].code == "out = model(batch)"


def test_bad_input_never_raises():
    garbage = "Traceback (most recent call last):\n  File \"x\", line\n\x00\x01 \ufffd\n" * 3 + "Traceback (most recent call last):"
    run = run_of(("g.log", garbage), ("e.log", ""))
    extract_tracebacks(run)
    text_signals(run)
    assert run.tracebacks == [] or all(isinstance(t.line, int) for t in run.tracebacks)


def test_big_log_mid_and_tail_events():
    """On a big log the mid-run warning and the final crash are both found; NaN lines are capped."""
    n = 300_000
    lines = [f"step {i} loss {1.0 + (i % 7) / 10:.3f} lr 3.0e-04 grad_norm 0.5" for i in range(n)]
    lines[120_000] = "/x/m.py:3: UserWarning: var(): degrees of freedom is <= 0."
    lines[200_000] = "NaN detected in batch 200001"
    for i in range(200_001, n):
        lines[i] = f"step {i} loss nan lr 3.0e-04 grad_norm nan"
    lines.append("Killed")
    run = run_of(("big.log", "\n".join(lines) + "\n"))
    sigs = signals(run)
    assert sigs["log:var_dof"].evidence[0].line == 120_001
    assert sigs["log:nan_input"].evidence[0].line == 200_001
    assert sigs["log:host_oom"].evidence[0].line == n + 1
    check_quotes(run, sigs)


# ----------------------------------------------------------------------------- ranks

def test_rank_lines_two_ranks_and_fallback():
    text = "setup\n[rank0]: a\n[rank1]: b\n[rank0]: c\n[default1]:d\n[rank12]: e\n[rank]: no\nplain [rank0]: no\n"
    want = {0: [2, 4], 1: [3, 5], 12: [6]}
    art = TextArtifact("r.log", Path("r.log"), "log", text)
    got = rank_lines(art)
    assert {k: v.tolist() for k, v in got.items()} == want
    # the non-ASCII path (regex) agrees with the vectorised one
    art2 = TextArtifact("r2.log", Path("r2.log"), "log", text.replace("setup", "sétup"))
    assert {k: v.tolist() for k, v in rank_lines(art2).items()} == want
    assert all(v.dtype.kind == "i" for v in got.values())
    assert rank_lines(TextArtifact("n.log", Path("n.log"), "log", "no ranks here\n")) == {}


def test_rank_lines_mpirun_tags():
    art = TextArtifact("m.log", Path("m.log"), "log", "[1,0]<stdout>:hello\n[1,1]<stderr>:x\n")
    assert {k: v.tolist() for k, v in rank_lines(art).items()} == {0: [1], 1: [2]}
    assert isinstance(rank_lines(art)[0], np.ndarray)


@pytest.mark.parametrize("line, kind", [
    ("ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node abc is used (29.1 / 30.6 GB).",
     "log:host_oom"),
    ("java.lang.OutOfMemoryError: Java heap space", "log:host_oom"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "log:cuda_oom"),
    ("torch.cuda.OutOfMemoryError: Tried to allocate 20.00 MiB", "log:cuda_oom"),
])
def test_an_out_of_memory_error_is_the_memory_it_names(line, kind):
    # Ray's and the JVM's OutOfMemoryError are the host's memory, torch's the GPU's
    sigs = signals(run_of(("err.log", f"Traceback (most recent call last):\n  File \"x.py\", line 1\n{line}\n")))
    other = {"log:host_oom": "log:cuda_oom", "log:cuda_oom": "log:host_oom"}[kind]
    assert kind in sigs and other not in sigs


def test_a_progress_bar_line_of_carriage_return_records_is_read_record_by_record():
    # a Keras progress bar redirected to a file: one line per epoch, each update a CR-ended record;
    # an fp16 overflow printed between two updates is quoted as that record, not as a window of bars
    bar = "".join(f"{i:4d}/1875 [==>...........................] - ETA: 5s - loss: 0.31{i % 10} - accuracy: 0.69\r"
                  for i in range(1, 200))
    msg = "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0"
    run = run_of(("train.log", "Epoch 1/3\n" + bar + msg + "\r" + bar + "\nEpoch 2/3\n"))
    sigs = signals(run)
    ls = sigs["log:loss_scale_overflow"]
    assert ls.evidence[0].line == 2 and ls.evidence[0].quote == msg and ls.data["scale"] == 32768.0
    check_quotes(run, sigs)


def test_a_point_on_a_progress_bar_line_is_quoted_by_the_record_that_prints_it(tmp_path):
    # Keras' bar redirected to a file: an epoch's 300 updates on one line, each ended by a CR; the
    # loss turns NaN at update 150 of epoch 3. The evidence quotes that record and the one before.
    from mltdbg.analyzers.analyze import analyze  # noqa: PLC0415
    from mltdbg.analyzers.ingest import ingest  # noqa: PLC0415

    lines = []
    for e in range(3):
        recs = []
        for i in range(1, 301):
            loss = "nan" if e == 2 and i >= 150 else f"{1.5 - 0.4 * e - 0.001 * i:.4f}"
            recs.append(f"{i:3d}/300 [==>...........................] - ETA: 1s - loss: {loss} - accuracy: 0.{500 + i}")
        lines += [f"Epoch {e + 1}/3", "\r".join(recs)]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    nf = next(s for s in analyze(ingest([str(tmp_path)])) if s.kind == "nonfinite")
    assert nf.evidence[0].line == 6 and nf.evidence[0].quote.startswith("150/300") and "loss: nan" in nf.evidence[0].quote
    assert nf.evidence[1].quote.startswith("149/300") and "loss: 0.5510" in nf.evidence[1].quote


def test_a_resume_the_user_narrates_is_their_words(tmp_path):
    """"When I resume training from the checkpoint ..." in a post matched log:resume like a trainer's own line,
    so a words-only post read resume_mismatch 0.85, a finding. The user's narration of an everyday event is
    marked narrated: it ranks the cause, and holds it below the bar like their other words."""
    from mltdbg.playbooks.diagnose import diagnose
    post = ("When I resume training from the checkpoint at epoch 50 the loss jumps from 0.3 back up to 1.2. I only save "
            "model.state_dict(), not the optimizer or the scheduler, and the learning rate starts from the initial value.")
    sigs = signals(run_of(("post.txt", post + "\n")))
    assert sigs["log:resume"].data.get("narrated") is True
    (tmp_path / "post.txt").write_text(post + "\n")
    d = diagnose([str(tmp_path / "post.txt")], [])
    assert d.hypotheses[0].id == "resume_mismatch" and d.hypotheses[0].confidence < 0.8, d.hypotheses[0]
    # a trainer's own line is no narration, nor is TensorFlow's "I" level prefix
    for line in ("Restored all states from the checkpoint at lightning_logs/version_3/checkpoints/epoch=4-step=500.ckpt",
                 "I tensorflow/core/util/resume.cc:12] Resuming training from checkpoint-500"):
        sigs = signals(run_of(("x.log", line + "\n")))
        assert "narrated" not in sigs["log:resume"].data, line


def test_model_summaries_of_keras_and_torchinfo_are_read_for_the_parameter_split():
    """Keras' model.summary() (an Embedding(50000, 512) and a Dense(50000) around an LSTM(32)) and torchinfo's
    (two 64M vocabulary layers, the output one a Linear named by its width and its count equal to the embedding's,
    around four 0.8M transformer layers): the vocabulary holds almost every parameter. A summary of a CNN does not."""
    keras = ("Model: \"sequential\"\n Layer (type)                Output Shape              Param #\n"
             "=================================================================\n"
             " embedding_2 (Embedding)     (None, 20, 512)           25600000\n\n"
             " lstm_2 (LSTM)               (None, 32)                69760\n\n"
             " dense_2 (Dense)             (None, 50000)             1650000\n\n"
             "=================================================================\nTotal params: 27319760\n")
    s = signals(run_of(("q.txt", keras)))["log:param_imbalance"]
    assert s.data["part"] == "embedding_2" and s.data["share"] > 0.99
    torchinfo = ("Layer (type:depth-idx)                        Output Shape              Param #\n"
                 "├─Embedding: 1-1                              [16, 512, 256]            64,000,512\n"
                 + "".join(f"│    │    └─TransformerEncoderLayer: 3-{i}      [16, 512, 256]            789,760\n"
                           for i in range(1, 5))
                 + "├─Linear: 1-5                                 [16, 512, 250002]         64,000,512\n"
                 "Total params: 131,291,648\n")
    assert signals(run_of(("q.txt", torchinfo)))["log:param_imbalance"].data["share"] > 0.97
    cnn = ("Layer (type)                Output Shape              Param #\n"
           " conv2d (Conv2D)             (None, 62, 62, 32)        896\n"
           " conv2d_1 (Conv2D)           (None, 29, 29, 64)        18496\n"
           " flatten (Flatten)           (None, 53824)             0\n"
           " dense (Dense)               (None, 128)               6889600\n"
           " dense_1 (Dense)             (None, 10)                1290\n")
    assert "log:param_imbalance" not in signals(run_of(("q.txt", cnn)))


def test_a_nan_checks_traceback_at_a_log_is_a_math_op_anomaly():
    """JAX's jax_debug_nans stops in the frame that takes jnp.log of a sigmoid's output: the NaN starts at log(0).
    The same check stopping at a plain matmul names no math op."""
    tb = ("FloatingPointError: invalid value (nan) encountered in mul\n...\n"
          '  File "train.py", line 41, in loss_fn\n    return -jnp.mean(y * jnp.log(p) + (1 - y) * jnp.log(1 - p))\n')
    s = signals(run_of(("q.txt", tb)))["log:anomaly_math"]
    assert s.data["function"] == "log" and s.evidence[0].line == 4
    plain = tb.replace("jnp.log(p) + (1 - y) * jnp.log(1 - p)", "(x @ w)")
    assert "log:anomaly_math" not in signals(run_of(("q.txt", plain)))


def _framework_messages() -> list[tuple[str, str, str]]:
    rows = Path(__file__).with_name("framework_messages.tsv").read_text(encoding="utf-8").splitlines()
    return [tuple(r.split("\t", 2)) for r in rows if r and not r.startswith("#")]   # type: ignore[misc]


@pytest.mark.parametrize("kind,framework,line", _framework_messages(), ids=lambda v: v[:40] if isinstance(v, str) else v)
def test_other_frameworks_messages_are_read_as_their_failure(kind, framework, line):
    """Error and warning lines as TensorFlow/Keras, JAX/XLA, PaddlePaddle, MindSpore, MXNet, ONNX Runtime, TensorRT,
    Triton, DeepSpeed, Horovod, Ray, HF, Lightning, timm, mmcv, detectron2, Slurm and the kernel print them
    (tests/framework_messages.tsv; each checked against the framework's source or a pasted log): each one alone,
    as a post's one pasted line, is read as its failure."""
    assert kind in signals(run_of(("err.log", line + "\n"))), (framework, line)


def test_one_models_two_scores_with_an_equal_accuracy_and_a_moved_f1_is_a_metric_disagreement():
    """The old script and the new one on the same checkpoint: accuracy 0.8841 on both lines, f1 0.8841 then 0.7012.
    Two runs whose accuracy also moved are two models, not one scored two ways."""
    post = ("$ python legacy/eval.py --ckpt e14\naccuracy: 0.8841   f1: 0.8841\n\n"
            "$ python eval.py --ckpt e14\naccuracy: 0.8841   f1: 0.7012\n")
    s = signals(run_of(("q.txt", post)))["log:metric_disagrees"]
    assert (s.data["same"], s.data["moved"]) == ("accuracy", "f1") and [e.line for e in s.evidence] == [2, 5]
    assert "log:metric_disagrees" not in signals(run_of(("q.txt", post.replace("0.8841   f1: 0.7012", "0.8012   f1: 0.7012"))))


def test_two_eval_logs_that_score_one_checkpoint_with_an_equal_accuracy_and_a_moved_f1_disagree(tmp_path):
    """One checkpoint evaluated by version 0.8.2 and by 0.9.0, each log in its own file, "acc 0.7167 | f1 0.7005" and
    "acc 0.7167 | f1 0.5644" (a logger's space form): log:metric_disagrees citing both files. A diff's format string
    ("acc {acc:.4f} | f1 {f1:.4f}") holds no scores."""
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.analyzers.log_findings import text_signals
    (tmp_path / "eval.diff").write_text('-    log.info(f"eval on {n} regions | acc {acc:.4f} | f1 {f1:.4f}")\n')
    (tmp_path / "eval_v0.8.2.log").write_text("INFO doclayout.eval: eval on 3000 regions | acc 0.7167 | f1 0.7005\n")
    (tmp_path / "eval_v0.9.0.log").write_text("INFO doclayout.eval: eval on 3000 regions | acc 0.7167 | f1 0.5644\n")
    s = {x.kind: x for x in text_signals(ingest([str(tmp_path)]))}["log:metric_disagrees"]
    assert (s.data["same"], s.data["moved"]) == ("acc", "f1")
    assert [e.source for e in s.evidence] == ["eval_v0.8.2.log", "eval_v0.9.0.log"]


def test_an_equal_eval_loss_beside_a_moved_accuracy_is_a_metric_disagreement():
    """One checkpoint evaluated before and after a refactor: eval_loss 0.5416 on both lines (the same outputs), eval_acc
    0.7850 then 0.5738. A training log's next line, whose loss moved however little, is another model."""
    post = "[main@3f1c2a9] eval_loss=0.5416 eval_acc=0.7850\n[main@b72e0d4] eval_loss=0.5416 eval_acc=0.5738\n"
    s = signals(run_of(("issue.md", post)))["log:metric_disagrees"]
    assert (s.data["same"], s.data["moved"]) == ("eval_loss", "eval_acc")
    train = "[000] loss=1.1179 acc=0.342 val_acc=0.317\n[015] loss=1.1126 acc=0.321 val_acc=0.317\n"
    assert "log:metric_disagrees" not in signals(run_of(("cout.txt", train)))


def test_warnings_and_training_lines_that_look_like_failures_are_not_read_as_them():
    """TensorFlow's BFC allocator warning that says it is not a failure; two epochs' scores of one training run;
    a bf16 weight on the GPU beside a float input on the GPU (no device differs); self.log(...) in a NaN traceback."""
    bfc = ("W tensorflow/core/common_runtime/bfc_allocator.cc:243] Allocator (GPU_0_bfc) ran out of memory trying to "
           "allocate 2.20GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that "
           "there could be performance gains if more memory were available.\n")
    assert "log:cuda_oom" not in signals(run_of(("err.log", bfc)))
    epochs = "epoch 1 acc: 0.5000 f1: 0.3312\nepoch 2 acc: 0.5000 f1: 0.4517\n"
    assert "log:metric_disagrees" not in signals(run_of(("train.log", epochs)))
    # an incident timeline's row says a job was killed (at a time limit), in words: no shell's OOM kill
    timeline = "| 2024-07-02 04:00 | Nightly retrain killed at the window limit. |\n| 2024-07-04 04:00 | Killed again. |\n"
    assert "log:host_oom" not in signals(run_of(("INC-3092.md", timeline)))
    assert "log:host_oom" not in signals(run_of(("jobs.txt", "worker-1    Killed    00:12:03\n")))     # a status table
    bf16 = "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (CUDABFloat16Type) should be the same\n"
    sig = signals(run_of(("err.log", bf16)))
    assert "log:dtype_mismatch" in sig and "log:device_mismatch" not in sig
    tb = ("FloatingPointError: invalid value (nan) encountered in mul\n"
          '  File "train.py", line 9, in training_step\n    self.log("loss", loss)\n')
    assert "log:anomaly_math" not in signals(run_of(("q.txt", tb)))
    # a running variance of ordinary size, from a batch norm layer named with a number; a TensorFlow variable's name;
    # zeros rounded to three decimals (4e-4 prints so); a variance that is inf
    for line in ("bn2: running_var min 0.012 mean 0.93 max 2.4",
                 "['batch_normalization/moving_mean:0', 'batch_normalization/moving_variance:0']",
                 "bn3: running_var min 0.000 mean 0.000 max 0.000", "bn1: running_var min 0.000e+00 mean inf max inf"):
        assert "log:running_var_zero" not in signals(run_of(("t.log", line + "\n"))), line


def test_weights_loaded_from_the_folder_beside_the_one_the_run_saved_to():
    """YOLO-style run folders: training wrote runs/train/exp2, evaluation loaded runs/train/exp/best.pt (an older
    run's). A best checkpoint the run saved itself, or pretrained weights from elsewhere, are no such finding."""
    log = ("Logging results to runs/train/exp2\nepoch 11 train_loss 0.19 val_acc 0.93\nResults saved to runs/train/exp2\n"
           "$ python eval.py --config config.yaml\nLoaded weights: runs/train/exp/best.pt\nall 1000 0.200\n")
    s = signals(run_of(("out.log", log)))["log:checkpoint_other_run"]
    assert s.data == {"loaded": "runs/train/exp/best.pt", "saved": "runs/train/exp2"} and s.evidence[1].line == 5
    assert "log:checkpoint_other_run" not in signals(run_of(("out.log", log.replace("train/exp/best", "train/exp2/best"))))
    hf = ("Saving model checkpoint to out/checkpoint-500\nSaving model checkpoint to out/checkpoint-1000\n"
          "Loading best model from out/checkpoint-500/pytorch_model.bin (score: 0.91).\n")
    assert "log:checkpoint_other_run" not in signals(run_of(("train.log", hf)))
    pre = "loading weights from pretrained/resnet50.pth\nResults saved to runs/train/exp2\n"
    assert "log:checkpoint_other_run" not in signals(run_of(("train.log", pre)))
    # a warm start or a resume loads before the run saves anything: its own start, not an evaluation of the wrong run
    warm = ("Loading pretrained weights from runs/train/exp/weights/best.pt\nepoch 1 loss 0.5\n"
            "Results saved to runs/train/exp2\n")
    assert "log:checkpoint_other_run" not in signals(run_of(("train.log", warm)))
    # YOLOv5 prints the folder in bold
    bold = log.replace("Results saved to runs/train/exp2", "Results saved to \x1b[1mruns/train/exp2\x1b[0m")
    assert signals(run_of(("out.log", bold)))["log:checkpoint_other_run"].data["saved"] == "runs/train/exp2"


def test_an_evaluation_jobs_output_loading_weights_from_beside_the_training_runs_folder():
    """Two cluster jobs: training printed "-> saved runs/exp13/best.pt" each time it kept a best model; the evaluation
    job's output (no training in it) says "loaded runs/exp12/best.pt (epoch 1)": it scored an older run's weights. The
    run's own file, or a second training job's warm start from a folder beside it, is no such finding."""
    train = ("epoch  1  train_loss 0.5995  val_acc 0.7770\n  new best val_acc 0.7770 -> saved runs/exp13/best.pt\n"
             "epoch  2  train_loss 0.4787  val_acc 0.7925\n  new best val_acc 0.7925 -> saved runs/exp13/best.pt\n")
    ev = ("config: {'checkpoint': 'runs/exp12/best.pt', 'split_x': 'x_val'}\nloaded runs/exp12/best.pt (epoch 1)\n"
          "n=2000  accuracy=0.3730\n")
    s = signals(run_of(("slurm-1187320.out", train), ("slurm-1187955.out", ev)))["log:checkpoint_other_run"]
    assert s.data == {"loaded": "runs/exp12/best.pt", "saved": "runs/exp13"}
    assert [(e.source, e.line) for e in s.evidence] == [("slurm-1187320.out", 2), ("slurm-1187955.out", 2)]
    own = ev.replace("exp12", "exp13")
    assert "log:checkpoint_other_run" not in signals(run_of(("slurm-1187320.out", train), ("slurm-1187955.out", own)))
    warm = "loaded runs/exp12/best.pt\nEpoch 1/10 loss 0.61\nEpoch 2/10 loss 0.52\n"     # another training job's start
    assert "log:checkpoint_other_run" not in signals(run_of(("slurm-1187320.out", train), ("slurm-1190000.out", warm)))
    # an evaluation job that loads the run's own weights and a backbone or a baseline beside them
    for other in ("runs/imagenet/backbone.pt", "runs/baseline/best.pt"):
        both = f"loaded {other}\nloaded runs/exp13/best.pt\nn=2000  accuracy=0.7730\n"
        assert "log:checkpoint_other_run" not in signals(run_of(("slurm-1187320.out", train), ("eval.out", both))), other
    # a YOLO-style path with a 'train' folder in it is no training of the job's own
    yolo = ("  new best -> saved runs/detect/train2/best.pt\n", "loaded runs/detect/train/best.pt\nmAP 0.31\n")
    s = signals(run_of(("slurm-1.out", "epoch 1 box_loss 1.2\n" + yolo[0]), ("slurm-2.out", yolo[1])))
    assert s["log:checkpoint_other_run"].data["saved"] == "runs/detect/train2"


def _ds_log(skips: list[int], steps: int, scale_to: int = 32768, minimum: bool = False) -> str:
    out, skipped = [], 0
    for st in range(0, steps + 1, 100):
        for k in [k for k in skips if st - 100 < k <= st]:
            skipped += 1
            out.append("[2026-12-07 00:55:07,043] [INFO] [loss_scaler.py:49:update_scale] [deepspeed] OVERFLOW! Rank 0 "
                       f"Skipping step. Attempted loss scale: {scale_to * 2}, reducing to {scale_to}")
        out.append(f"[2026-12-07 00:55:07,200] [INFO] [logging.py:30:log_dist] [Rank 0] step={st}, skipped={skipped}, "
                   "lr=[0.0003], mom=[(0.9, 0.999)]")
    if minimum:
        out.append("Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.")
    return "\n".join(out) + "\n"


def test_a_few_loss_scale_backoffs_are_the_scaler_at_work():
    """A healthy DeepSpeed fp16 run skips a step now and then (6 of 1200) and the scale stays at 32768: the scaler's
    normal backoff (log:loss_scale_backoff), the overflow reading lowered to a note. Skips at every step, or a scale
    at its minimum, are an overflow problem."""
    sig = signals(run_of(("ds_train.log", _ds_log([50, 51, 500, 501, 1000, 1001], 1200))))
    assert sig["log:loss_scale_backoff"].data == {"steps": 1200, "skipped": 6}
    assert sig["log:loss_scale_overflow"].strength <= 0.1 and sig["log:loss_scale_overflow"].data["benign"]
    every = signals(run_of(("ds_train.log", _ds_log(list(range(1, 300)), 300, scale_to=1))))
    assert "log:loss_scale_backoff" not in every and every["log:loss_scale_overflow"].strength == 0.7
    stuck = signals(run_of(("ds_train.log", _ds_log([50, 51], 1200, minimum=True))))
    assert "log:loss_scale_backoff" not in stuck


def test_a_printed_input_statistic_that_is_nan_is_nan_in_the_data():
    """A NaN anywhere in the data makes the min, max and mean printed before training NaN ("feature range [nan, nan]")."""
    for line in ("train (5100, 10) val (900, 10)  feature range [nan, nan]", "X_train mean: nan std: nan",
                 "input min/max: nan nan"):
        assert "log:nan_input" in signals(run_of(("cout.txt", line + "\nstep 0 loss 1.37\n"))), line
    for line in ("feature range [-3.1, 4.2]", "input mean: 0.12 std: 0.98", "train loss: nan", "x std: nan"):
        assert "log:nan_input" not in signals(run_of(("cout.txt", line + "\n"))), line



def test_tf_estimators_nan_loss_is_a_non_finite_loss():
    """TF's Estimator ends a run with "ERROR:tensorflow:Model diverged with loss = NaN." and raises "NaN loss during
    training." (its NanTensorHook): the loss went non-finite, whatever the last logged loss was."""
    log = ("INFO:tensorflow:loss = 0.004449606407433748, step = 550 (0.103 sec)\n"
           "ERROR:tensorflow:Model diverged with loss = NaN.\nTraceback (most recent call last):\n"
           '  File "train.py", line 72, in main\n    raise RuntimeError(\'NaN loss during training.\')\n'
           "RuntimeError: NaN loss during training.\n")
    assert "log:loss_nonfinite" in signals(run_of(("train_log.txt", log)))


def test_one_fixed_example_printed_right_each_epoch_is_no_collapse():
    """A speech run prints its one dev utterance each epoch ("reference: ..." then "predicted: ..."): the same output for
    the same input, matching its reference, is a model that gets it right, not one that says the same whatever the
    input. The same output beside references that differ still is a collapse."""
    fixed = "".join(f"epoch {e}\n    reference: fg ekbk nf elilm\n    predicted: fg ekbk nf elilm\n" for e in range(1, 8))
    assert "log:collapse_output" not in signals(run_of(("train.log", fixed)))
    varied = "".join(f"epoch {e}\n    reference: utterance number {e}\n    predicted: fg ekbk nf elilm\n" for e in range(1, 8))
    assert "log:collapse_output" in signals(run_of(("train.log", varied)))
    echoed = "".join(f"epoch {e}\n    input: hello there\n    predicted: hello there\n" for e in range(1, 8))
    assert "log:collapse_output" in signals(run_of(("train.log", echoed)))


def test_an_evaluation_commands_model_flag_from_the_experiment_beside_the_run():
    """ESPnet decodes with "asr_inference ... --asr_model_file exp/asr_v1/valid.acc.ave.pth" while training saved to
    exp/asr_v2: the decoding job scored the older experiment's model. The same flag naming the run's own folder is its
    weights; a training command's flags are no evaluation."""
    train = ("[host] 2026-12-07 01:14:18,346 (abs_task:1243) INFO: Saving the configuration in exp/asr_v2/config.yaml\n"
             "[host] 2026-12-07 01:14:41,267 (trainer:338) INFO: 13epoch results: [train] loss=2.1\n")
    decode = ("# python3 -m espnet2.bin.asr_inference --batch_size 1 --asr_train_config exp/asr_v1/config.yaml "
              "--asr_model_file exp/asr_v1/valid.acc.ave.pth --output_dir exp/asr_v2/decode/dev\n")
    s = signals(run_of(("train.log", train), ("asr_inference.dev.1.log", decode)))["log:checkpoint_other_run"]
    assert s.data == {"loaded": "exp/asr_v1/valid.acc.ave.pth", "saved": "exp/asr_v2"}
    own = decode.replace("exp/asr_v1/valid", "exp/asr_v2/valid")
    assert "log:checkpoint_other_run" not in signals(run_of(("train.log", train), ("asr_inference.dev.1.log", own)))
    warm = decode.replace("espnet2.bin.asr_inference", "espnet2.bin.asr_train")
    assert "log:checkpoint_other_run" not in signals(run_of(("train.log", train), ("asr_train.log", warm)))
    both = decode.replace("espnet2.bin.asr_inference", "train_and_eval.py")     # a training job that also evaluates
    assert "log:checkpoint_other_run" not in signals(run_of(("train.log", train), ("run.log", both)))


def test_blank_lines_and_prompts_do_not_slow_the_evaluation_command_reading():
    """(a review found the first version's pattern quadratic on runs of blank lines or prompt characters: 8,000 of
    them took 9-11 s)"""
    import time
    t = time.perf_counter()
    signals(run_of(("a.log", "\n" * 20000 + "#" * 8000 + "\n$ python eval.py --model_file x/y.pt\n")))
    assert time.perf_counter() - t < 5.0


def test_standardised_or_signed_features_with_a_large_max_are_no_unscaled_inputs():
    """A max in the thousands is a raw magnitude only from 0 with a std of 10 or more: standardised features with one
    outlier (std 1.0) or signed ones (min -3400) say nothing."""
    for line in ("feature stats: min=-3.2 max=1.2e+03 mean=0.01 std=1.0", "feature stats: min=-3400 max=3.39e+03 mean=0.2 std=31.5",
                 "batch load time (ms): min=0 max=1523 mean=12.3 std=58.1", "batch input_ids: min=0 max=50256 mean=12.5 std=801.2",
                 "data: samples per shard min=0 max=4096 mean=8.2 std=120.5"):
        assert "log:inputs_unscaled" not in signals(run_of(("train.log", line + "\n"))), line


def test_two_splits_transforms_printed_with_different_normalisation_are_read():
    """A re-ID log prints its train, query and gallery transforms: the query's has no Normalize, the others do (the
    queries are on another scale). torchvision's multi-line repr is read too; splits that normalise alike, whatever
    their augmentations, say nothing."""
    norm = "Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])"
    log = (f"train transform: Compose(RandomHorizontalFlip(p=0.5), ToTensor(), {norm})\n"
           "query transform: Compose(ToTensor())\n"
           f"gallery transform: Compose(ToTensor(), {norm})\nepoch 1 loss 4.77\n")
    sig = signals(run_of(("train_log.txt", log)))["log:eval_preprocessing_differs"]
    assert sig.data["splits"] == ["train", "query"] and [e.line for e in sig.evidence] == [1, 2]
    multi = (f"[INFO] train_transforms = Compose(\n    RandomResizedCrop(size=(224, 224))\n    ToTensor()\n    {norm}\n)\n"
             "[INFO] val_transforms = Compose(\n    Resize(size=256)\n    CenterCrop(size=(224, 224))\n    ToTensor()\n"
             "    Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])\n)\n")
    assert signals(run_of(("out.log", multi)))["log:eval_preprocessing_differs"].evidence[1].line == 6
    alike = multi.replace("Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])", norm)
    assert "log:eval_preprocessing_differs" not in signals(run_of(("out.log", alike)))
    # the same constants printed otherwise, a Normalize given positionally, a policy too long to read to its end: no finding
    same = alike.replace("mean=[0.485, 0.456, 0.406]", "mean=[0.4850, 0.4560, 0.4060]", 1)
    positional = (f"train_transform = Compose([ToTensor(), Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))])\n"
                  f"val_transform = Compose(ToTensor(), {norm})\n")
    long = f"train transform: Compose(AutoAugment({'SubPolicy(p=0.4), ' * 150}), ToTensor(), {norm})\nval transform: Compose(ToTensor())\n"
    for text in (same, positional, long):
        assert "log:eval_preprocessing_differs" not in signals(run_of(("out.log", text))), text[:60]


def test_a_summary_with_no_trainable_parameter_is_read():
    """Keras 3's warning "The model does not have any trainable weights." while it trains: everything is frozen
    (log:no_trainable_params). A summary's "Trainable params: 0" alone is no such thing: the usual transfer-learning
    recipe prints the frozen base's summary before it adds a trainable head."""
    log = (" Total params: 2,259,018 (8.62 MB)\n Trainable params: 0 (0.00 B)\n Non-trainable params: 2,259,018 (8.62 MB)\n"
           "UserWarning: The model does not have any trainable weights.\nEpoch 1/20\n")
    sig = signals(run_of(("finetune_stdout.txt", log)))["log:no_trainable_params"]
    assert [e.line for e in sig.evidence] == [4]
    base = " Total params: 2,257,984\n Trainable params: 0 (0.00 B)\n Non-trainable params: 2,257,984\n"
    assert "log:no_trainable_params" not in signals(run_of(("out.txt", base)))


def test_a_parameter_count_with_a_handful_trainable_on_one_line_is_read():
    """A count naming the total and the trainable parameters on one line, in the wordings people's scripts and peft
    print: a model of 59,969 with 1 trainable (both towers of a dual encoder locked, only its logit scale left) is
    nearly all frozen (log:no_trainable_params, 0.8; 1.0 at none). A LoRA adapter's thousands, a tiny model, and a
    summary's separate rows are no finding."""
    for line, trainable, total, strength in (
            ("2026-12-07 | INFO | Params: 59,969 total, 1 trainable", 1, 59969, 0.8),
            ("trainable params: 0 || all params: 124,439,808 || trainable%: 0.0", 0, 124439808, 1.0),
            ("Total params: 60000, trainable params: 2", 2, 60000, 0.8),
            ("3 trainable of 5000 parameters", 3, 5000, 0.8)):
        sig = signals(run_of(("train.log", f"start\n{line}\nepoch 1 loss 5.0\n")))["log:no_trainable_params"]
        assert sig.data["trainable"] == trainable and sig.data["total"] == total, line
        assert sig.strength == strength and sig.evidence[0].line == 2, line
    for line in ("1,024 total, 12 trainable layers", "7 trainable / 2048 tokens per batch",
                 "trainable params: 294,912 || all params: 124,734,720 || trainable%: 0.2364",
                 "Params: 120 total, 1 trainable", " Non-trainable params: 0\n Total params: 5000"):
        assert "log:no_trainable_params" not in signals(run_of(("train.log", f"{line}\nepoch 1 loss 5.0\n"))), line


def test_a_mixture_of_experts_load_list_with_one_expert_taking_everything_is_a_routing_collapse():
    """A MoE log printing each layer's expert load ("expert_load=[0.00 0.00 1.00 0.00] [0.00 1.00 0.00 0.00]") or the
    tokens per expert: one expert with all of it is the router collapsed onto that expert (log:expert_collapse);
    balanced or merely uneven loads are none."""
    log = ("[step   0] lm_loss=6.2525 expert_load=[0.21 0.27 0.22 0.29] [0.18 0.31 0.08 0.43]\n"
           "[step  15] lm_loss=6.1794 expert_load=[0.00 0.00 1.00 0.00] [0.00 1.00 0.00 0.00]\n"
           "[step  20] lm_loss=6.1259 expert_load=[0.00 0.00 1.00 0.00] [0.00 1.00 0.00 0.00]\n")
    sig = signals(run_of(("train.log", log)))["log:expert_collapse"]
    assert sig.data["share"] == 1.0 and [e.line for e in sig.evidence] == [2, 3]
    assert "log:expert_collapse" in signals(run_of(("out.log", "tokens per expert: [0, 1024, 0, 0]\n")))
    for text in ("expert counts [512, 256, 256]\n", log.splitlines()[0] + "\n",
                 # a later list of the line is no load; one decoded token is none; expert indices are none
                 "expert_load=[0.26 0.24 0.25 0.25] | grad_norm_per_group=[3.91, 0.02, 0.01]\n",
                 "tokens per expert: [0, 0, 1, 0]\n", "expert assignments: [0,0,0,0,0,0,0,3]\n"):
        assert "log:expert_collapse" not in signals(run_of(("out.log", text))), text
    assert "log:expert_collapse" in signals(run_of(("out.log", "expert_load: [1.000e+00 0.000e+00 0.000e+00]\n")))


def test_a_falling_loss_that_the_script_stops_for_a_nan_is_no_healthy_run(tmp_path):
    """A log whose every printed loss falls, ended by the script's own raise for a NaN loss (the NaN is in the
    message, not among the logged values): the stop is log:loss_nonfinite at its step, and the run is not called
    healthy. The same log without the stop is."""
    from mltdbg.analyzers.analyze import analyze  # noqa: PLC0415
    from mltdbg.analyzers.ingest import ingest  # noqa: PLC0415

    rows = "".join(f"epoch 0 | step {k:4d} | loss {1.1 * 0.985 ** k:.4f} | grad_norm 0.5\n" for k in range(5, 185, 5))
    (tmp_path / "train.log").write_text(rows)
    assert "healthy" in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    (tmp_path / "train.log").write_text(rows + 'Traceback (most recent call last):\n  File "train.py", line 71, in <module>\n'
                                        '    raise RuntimeError(f"non-finite loss at epoch {epoch} step {step}")\n'
                                        "RuntimeError: non-finite loss at epoch 0 step 181: nan\n")
    got = {s.kind: s for s in analyze(ingest([str(tmp_path)]))}
    assert "healthy" not in got and got["log:loss_nonfinite"].data.get("step") == 181
    # a loop that skips the batch and goes on has not stopped
    (tmp_path / "train.log").write_text(rows + "WARNING: nan loss at step 1213, skipping batch\n")
    got = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "log:loss_nonfinite" not in got and "healthy" in got


def test_a_checkpoints_keys_printed_one_a_line_under_the_module_prefix():
    """A post prints its checkpoint's keys one a line with their shapes, every one under DataParallel's "module."
    prefix: log:ddp_prefixed_keys at the first key's line. Keys without the prefix, or only two of them, say nothing."""
    keys = ["encoder.0.weight      (128, 24)", "encoder.0.bias        (128,)", "classifier.weight     (10, 128)",
            "classifier.bias       (10,)"]
    head = (">>> sd = torch.load('checkpoints/best.pt', map_location='cpu')\n"
            ">>> for k, v in sd.items(): print(f'{k:<28s} {tuple(v.shape)}')\n")
    text = head + "".join(f"module.{k}\n" for k in keys)
    got = signals(run_of(("post.md", text), kind="text"))["log:ddp_prefixed_keys"]
    assert got.evidence[0].line == 3 and got.data["keys"] == 4
    # a DDP job printing its own parameters as it starts (no checkpoint in sight) is no load of them
    own = "rank 0: model parameters\n" + "".join(f"module.{k}\n" for k in keys) + "epoch 1 loss 0.52\n"
    assert "log:ddp_prefixed_keys" not in signals(run_of(("train.log", own)))
    assert "log:ddp_prefixed_keys" not in signals(run_of(("post.md", head + "".join(f"{k}\n" for k in keys)), kind="text"))
    two = head + "".join(f"module.{k}\n" for k in keys[:2]) + "".join(f"{k}\n" for k in keys[2:])
    assert "log:ddp_prefixed_keys" not in signals(run_of(("post.md", two), kind="text"))


def test_an_ipython_cell_showing_raw_feature_means_and_stds_is_unscaled_inputs():
    """`In [14]: X.mean(0), X.std(0)` and its Out[14] of two tensors: square feet and years at their raw size beside a
    bedroom count (std 1.4) are inputs left unscaled, cited at the Out line. The same cell after standardising, or a
    cell over a model's outputs, says nothing."""
    raw = ("In [14]: X.mean(0), X.std(0)\n"
           "Out[14]: (tensor([1.7802e+03, 1.9848e+03, 7.9286e+03, 2.9660e+00]), "
           "tensor([5.9287e+02, 1.9969e+01, 3.2859e+03, 1.4090e+00]))\n\nIn [15]: model\n")
    s = signals(run_of(("ipython.txt", raw)))["log:inputs_unscaled"]
    assert s.evidence[0].line == 2 and s.evidence[1].line == 1 and s.data["mean"][0] == 1780.2
    scaled = raw.replace("1.7802e+03, 1.9848e+03, 7.9286e+03, 2.9660e+00", "1.2e-08, -3.1e-08, 2.2e-09, 4.0e-09").replace(
        "5.9287e+02, 1.9969e+01, 3.2859e+03, 1.4090e+00", "1.0000, 1.0000, 1.0000, 1.0000")
    assert "log:inputs_unscaled" not in signals(run_of(("ipython.txt", scaled)))
    assert "log:inputs_unscaled" not in signals(run_of(("ipython.txt", raw.replace("X.mean(0), X.std(0)", "out.mean(0), out.std(0)"))))
    # standardised afterwards and shown again: the latest cell speaks for X
    later = raw.replace("In [15]: model\n", "In [15]: X = (X - X.mean(0)) / X.std(0)\n\nIn [16]: X.mean(0), X.std(0)\n"
                        "Out[16]: (tensor([1.2e-08, -3.1e-08, 2.2e-09, 4.0e-09]), tensor([1.0000, 1.0000, 1.0000, 1.0000]))\n")
    assert "log:inputs_unscaled" not in signals(run_of(("ipython.txt", later)))
    # numpy's arrays as well as torch's tensors
    np_raw = raw.replace("tensor(", "array(")
    assert "log:inputs_unscaled" in signals(run_of(("ipython.txt", np_raw)))


def test_batch_norms_training_mode_error_raised_from_predict_is_a_model_left_in_training_mode():
    """`python predict.py --bs 1` crashes with batch norm's "Expected more than 1 value per channel when training": the
    model was never put in eval mode (log:train_mode_at_inference, beside log:var_dof). The same error from train.py's
    last batch of one is the batch's, not the mode's."""
    tb = ('Traceback (most recent call last):\n  File "/home/fh/har/{f}", line 26, in {fn}\n'
          "    preds.append(model(X[i:i + args.bs]).argmax(1))\n"
          "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 128])\n")
    got = signals(run_of(("out.txt", tb.format(f="predict.py", fn="<module>"))))
    assert "log:train_mode_at_inference" in got and "log:var_dof" in got
    assert "log:train_mode_at_inference" in signals(run_of(("out.txt", tb.format(f="run.py", fn="evaluate"))))
    assert "log:train_mode_at_inference" not in signals(run_of(("out.txt", tb.format(f="train.py", fn="train_one_epoch"))))
    # pytest's names say where a test lives, not where the model is used: a training step's test with a batch of one
    for f, fn in (("test_model.py", "test_train_step"), ("model_test.py", "<module>"), ("train.py", "test_one_batch")):
        assert "log:train_mode_at_inference" not in signals(run_of(("out.txt", tb.format(f=f, fn=fn)))), (f, fn)
    assert "log:train_mode_at_inference" in signals(run_of(("out.txt", tb.format(f="train.py", fn="test"))))
