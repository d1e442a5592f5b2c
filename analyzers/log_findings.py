"""Detectors over log text: crash, warning and error lines become `log:*` signals.

In:  a `Run` whose `texts` hold logs (kind log/text/traceback) and whose `tracebacks`
     were filled by analyzers/tracebacks.py (filled here when they were not).
Out: `text_signals(run)` returns `log:*` Signals (vocabulary in signals.md);
     `param_imbalance(art)` reads a printed parameter table.

Speed: a log of a million lines is mostly metric lines that hold nothing for
us. We never loop over lines in Python. Every detector line holds one of the
literal GATES; a gate costs one C-speed scan for its rarest character
(common/textfind.py), and only the lines
holding a gate (the first `_GATE_CAP` per gate: causes come first) reach the
detector regexes. On a big log (> 6 MB) all gates scan its head and tail (setup
warnings, the crash) and CORE_GATES (events that also happen mid-run: errors,
warnings, NaN, loss scale, resume/checkpoint) scan all of it. Log text is
untrusted: it is matched, never evaluated; quotes are capped at 300 chars.
"""
from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Callable

from mltdbg.analyzers.code.index import REPL_CONTINUED, REPL_PROMPT
from mltdbg.analyzers.common.textfind import SHORT_TEXT, TextFinder, contains_any
from mltdbg.analyzers.model import Evidence, Run, Signal, TextArtifact
from mltdbg.analyzers.tracebacks import LOG_KINDS, blank_json_escapes, extract_tracebacks, line_quote, lines_of_offsets

_GATE_CAP = 5000          # lines per gate handed to detectors (the first ones: causes come first)

# --------------------------------------------------------------------------- line detectors

def _few_modes(k: int, m: int) -> dict | None:
    """A coverage of k of m modes/classes that says collapse: m at least 4 and k at most max(1, m // 4)."""
    return {"covered": k, "of": m} if 4 <= m <= 1000 and k <= max(1, m // 4) else None


@dataclass
class _Det:
    kind: str
    pattern: re.Pattern
    strength: float
    words: Callable[[re.Match], str]            # one line in words for the evidence
    data: Callable[[re.Match], dict | None] | None = None   # None from it: the detector's own check said no
    exclude: re.Pattern | None = None          # lines matching this are not this kind
    # where the words are made from what `data` read (a count, a share): read from it, not parsed from the match again
    said: Callable[[dict], str] | None = None
    # the kind is an everyday word ("resume", "load the checkpoint"): in the user's own narration ("When I resume
    # training ...", _NARRATED) it is what they say happened, words, not a line a program printed (data "narrated")
    told: bool = False


# A user's narration: "I" with a verb, "I'm", "I've", "my" (a program's messages do not speak so; TensorFlow's
# "I tensorflow/..." level prefix is no verb)
_NARRATED = re.compile(r"\bI(?:'m|'ve|'d|\s+(?:am|was|have|had|do|did|don'?t|didn'?t|can'?t|could|tried|try|use|used|"
                       r"train|trained|run|ran|resume|resumed|call|called|set|get|got|see|saw|load|loaded|think|only|just|"
                       r"also|then|noticed|realized|save|saved|want|need|start|started|changed|added|removed|restart\w*)\b)"
                       r"|\b[Mm]y\b")


_P = re.compile
# a state dict's token embedding or output projection of another size: another vocabulary (read as
# log:vocab_size_mismatch, and kept out of log:shape_mismatch)
_VOCAB_SIZE = _P(r"size mismatch for [\w.]*(?:embed_tokens|word_embeddings|wte|embed_out|lm_head|output_projection"
                 r"|tok_embeddings|token_embedding|embeddings?\.weight|shared\.weight)[\w.]*\b")
# (torch's newer wording names scalar types and the bias: "Input type (float) and bias type (c10::Half)")
_INPUT_WEIGHT = re.compile(r"Input type \(([\w.:]+)\) and (?:weight|bias) type \(([\w.:]+)\)")


# A mixture-of-experts load list: a name with "expert" and load / count / usage / tokens / fraction, then a bracketed
# list of 3 to 64 numbers (several lists, one per layer, may follow)
_EXPERT_LOAD = _P(r"(?i)\bexperts?[_ ]?(?:load|counts?|usage|util\w*|tokens?|fractions?|distribution)"
                  r"|(?:load|tokens?|counts?)[_ ]per[_ ]expert")
_NUM_ITEM = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_LIST = re.compile(r"\[\s*((?:" + _NUM_ITEM + r"[,\s]+){2,63}" + _NUM_ITEM + r")\s*\]")
# the load lists right after the name: one per layer, side by side ("[0.00 1.00 0.00 0.00] [0.00 0.00 1.00 0.00]")
_LISTS_AFTER = re.compile(r"\s*[:=]?\s*((?:\[[^\[\]\n]{0,800}\]\s*)+)")
# ... read as collapsed where one expert's share leaves at most this much to the others (in one of those lists); a list of
# whole counts only where they add up to EXPERT_MIN_TOKENS a expert (one decoded token is no load)
EXPERT_COLLAPSED_REST = 0.02
EXPERT_MIN_TOKENS = 8


def _expert_share(m: re.Match) -> float:
    """The largest share one expert takes in the load lists right after the match (0 where none is read)."""
    after = _LISTS_AFTER.match(m.string, m.end())
    best = 0.0
    for lm in _LIST.finditer(after.group(1)) if after else ():
        vals = [float(x) for x in re.split(r"[,\s]+", lm.group(1).strip()) if x]
        total = sum(v for v in vals if v > 0)
        counts = not re.search(r"[.eE]", lm.group(1))      # whole numbers as printed: token counts, not shares
        if len(vals) >= 3 and total > 0 and min(vals) >= 0 and not (counts and total < EXPERT_MIN_TOKENS * len(vals)):
            best = max(best, max(vals) / total)
    return best


# A parameter count with both the total and the trainable number on one line, in either order and the usual wordings
_PARAMS = r"(?:\s+param(?:eter)?s)?"
# ... counting parameters, not layers, blocks or tokens ("12 trainable layers", "7 trainable / 2048 tokens")
_NOT_PARTS = r"(?!\s*(?:layers?|blocks?|modules?|tensors?|groups?|heads?|tokens?|samples?|steps?|examples?|images?)\b)"
_TRAINABLE_COUNT = _P(
    r"(?i)(?<![\d,])(?P<a>\d[\d,]*)\s+total" + _PARAMS + r"\s*[,;|/]+\s*(?P<b>\d[\d,]*)\s+trainable\b" + _NOT_PARTS
    + r"|(?<![-\w])trainable" + _PARAMS + r"\s*[:=]\s*(?P<c>\d[\d,]*)\s*[,;|/]+\s*(?:all|total)" + _PARAMS
    + r"\s*[:=]\s*(?P<d>\d[\d,]*)"
    r"|\b(?:all|total)" + _PARAMS + r"\s*[:=]\s*(?P<e>\d[\d,]*)\s*[,;|/]+\s*trainable" + _PARAMS
    + r"\s*[:=]\s*(?P<f>\d[\d,]*)"
    r"|(?<![\d,])(?P<g>\d[\d,]*)\s+trainable" + _PARAMS + _NOT_PARTS
    + r"\s*(?:[,;|/]+|\bof\b|\bout of\b)\s*(?P<h>\d[\d,]*)" + _NOT_PARTS)
# At most this many trainable parameters in a model of at least TRAINABLE_MODEL_MIN: a scalar or two (a logit scale),
# not an adapter
TRAINABLE_FEW = 100
TRAINABLE_MODEL_MIN = 1000


def _trainable_counts(m: re.Match) -> tuple[int, int]:
    """(trainable, total) of a _TRAINABLE_COUNT match."""
    def num(*names: str) -> int:
        return int(next(m.group(n) for n in names if m.group(n)).replace(",", ""))
    return num("b", "c", "f", "g"), num("a", "d", "e", "h")


def _trainable_data(counts: tuple[int, int]) -> dict | None:
    trainable, total = counts
    if total < TRAINABLE_MODEL_MIN or trainable > TRAINABLE_FEW or trainable > total:
        return None
    return {"trainable": trainable, "total": total}


def _trainable_words(data: dict) -> str:
    trainable, total = data["trainable"], data["total"]
    if trainable == 0:
        return f"none of the model's {total:,} parameters is trainable: everything is frozen"
    return f"only {trainable:,} of the model's {total:,} parameters are trainable: nearly everything is frozen"


def _tensor_type(name: str) -> tuple[str, str]:
    """(device, scalar type) of a legacy tensor type name: torch.cuda.HalfTensor -> (cuda, Half),
    torch.FloatTensor -> (cpu, Float), MPSFloatType -> (mps, Float), torch.xpu.FloatTensor -> (xpu, Float); a
    scalar type's own name (float, c10::Half) -> (cpu, Float), (cpu, Half)."""
    parts = name.split(".")
    last = parts[-1].split("::")[-1]        # c10::Half
    if last.islower():                      # float, double, half: a scalar type's own name
        last = {"bfloat16": "BFloat16"}.get(last, last.capitalize())
    device = parts[-2] if len(parts) >= 2 and parts[-2] != "torch" else "cpu"
    if (m := re.match(r"(CUDA|CPU|MPS|XPU|HIP)(?=[A-Z])", last)) is not None:      # CUDABFloat16Type, MPSFloatType
        device, last = m.group(1).lower(), last[m.end():]
    return device, re.sub(r"(?:Tensor|Type)$", "", last)

RUNNING_VAR_ZERO = 1e-8
# a printed number, nan / inf too ("mean inf max inf": no variance of 0)
_VAR_NUM = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])|\b(?:nan|inf)\b", re.I)
# ... printed finely enough to show a value within RUNNING_VAR_ZERO of 0 (1.5e-12, 0.000000001): "0.000" may hold 4e-4
_FINE = re.compile(r"[eE][-+]?\d|\.\d{8}")


def _running_var_zero(m: re.Match) -> dict | None:
    """A running variance line whose printed values are all within RUNNING_VAR_ZERO of 0, one of them printed
    finely enough to say so (not a TensorFlow variable's name, `moving_variance:0`, nor a rounded 0.000), none
    of them NaN or inf."""
    nums = _VAR_NUM.findall(m.group(0))
    if not any(_FINE.search(x) for x in nums) or any(x.lower().lstrip("+-") in ("nan", "inf") for x in nums):
        return None
    top = max(abs(float(x)) for x in nums)
    return {"max": top} if top <= RUNNING_VAR_ZERO else None


# Accelerator memory exhausted, in the wordings of torch (CUDA, HIP, MPS), cuBLAS/cuDNN and TF/XLA;
# also read by the cross-rank view (crossrank.py) to say which rank ran out.
# (Ray's and the JVM's OutOfMemoryError are the host's memory: see log:host_oom)
CUDA_OOM = _P(r"CUDA out of memory|(?<!Ray)(?<!java\.lang\.)OutOfMemoryError(?!: Java heap)"
              r"|CUDA error: out of memory|HIP out of memory"
              r"|CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED|cudaErrorMemoryAllocation"
              r"|MPS backend out of memory|RESOURCE_EXHAUSTED: Out of memory|OOM when allocating tensor"
              # other frameworks' and runtimes' wordings: TF's BFC allocator, XLA (GPU/TPU), the CUDA driver,
              # PaddlePaddle, MindSpore, MXNet, TensorRT
              r"|ran out of memory trying to allocate(?![^\n]*is not a failure)|RESOURCE_EXHAUSTED: Failed to allocate request"
              r"|RESOURCE_EXHAUSTED:[^\n]{0,60}Ran out of memory in memory space|CUDA_ERROR_OUT_OF_MEMORY"
              r"|Out of memory error on GPU \d+|Memory not enough: current free memory size|memory isn't enough and alloc failed"
              r"|cudaMalloc(?:Async)? failed: out of memory|Requested amount of GPU memory \(\d+ bytes\) could not be allocated"
              r"|\[TRT\][^\n]{0,120}(?:Error Code 2: OutOfMemory|\(out of memory\))")

DETECTORS: list[_Det] = [
    # --- CUDA memory
    _Det("log:cuda_oom", CUDA_OOM,
         1.0, lambda m: "GPU memory exhausted",
         None),
    # cuDNN could not start or find a kernel for a convolution: most often the GPU memory is already full (TF's
    # "Could not create cudnn handle" and "Failed to get convolution algorithm", fixed by memory growth or a
    # smaller batch; darknet's "cuDNN isn't found FWD algo"), less often a CUDA/cuDNN version mismatch.
    # Weaker than the allocator's own out-of-memory words: it names no memory
    _Det("log:cudnn_init_failed", _P(r"CUDNN_STATUS_NOT_INITIALIZED|Could not create cudnn handle"
                                     r"|Failed to get convolution algorithm|cuDNN isn't found FWD algo"
                                     r"|Unable to find a valid cuDNN algorithm to run convolution"),
         0.8, lambda m: "cuDNN failed to initialise (usually the GPU memory is already full)"),
    # --- host memory / SIGKILL
    _Det("log:host_oom", _P(r"DefaultCPUAllocator: can't allocate memory|Cannot allocate memory|std::bad_alloc"
                            r"|RayOutOfMemoryError|running low on memory|java\.lang\.OutOfMemoryError"
                            r"|killed due to memory pressure"  # Ray's memory monitor: "Workers ... killed due to memory pressure (OOM)"
                            r"|\binvoked oom-killer|srun: error: [^\n]{0,80}task \d+: Out Of Memory"
                            r"|OutOfMemoryError: Java heap"
                            r"|\bMemoryError\b|(?i:out of memory): Kill(?:ed)? process|oom[-_ ]kill|OOMKilled"
                            r"|cgroup out-of-memory|is killed by signal: Killed|Signal 9 \(SIGKILL\)"
                            r"|exit ?code\s*[:=]?\s*(?:-9|137)\b|exit status\s*[:=]?\s*137\b|exitcode\s*:\s*-9\b"
                            r"|Signals\.SIGKILL|(?:^|[\s:])\d{2,}\s+Killed\s"
                            # the shell's "Killed" alone on its line, or its job line padded before the command
                            # ("Killed                  python train.py"), or a post naming it ("I get the Killed
                            # error", "Process Killed Suddenly"): not another sentence ("Killed again." in a timeline)
                            r"|(?:^|\s)[\"'“]?Killed[\"'”]?(?:(?:[ \t]{2,}|[ \t]+(?=python|torchrun|accelerate|deepspeed|srun|\./|/))"
                            r"[A-Za-z./][\w./-]*.*|[ \t]+(?i:errors?|message|suddenly|signal|process)\b.*)?\s*$"
                            r"|out of shared memory|killed by signal: Bus error"
                            # numpy asking for one array bigger than the host's memory
                            r"|_ArrayMemoryError|Unable to allocate [\d.]+ ?[KMGTP]i?B for an array"
                            # a container's small /dev/shm, filled by the loader's workers
                            r"|Unexpected bus error encountered in worker|insufficient shared memory"
                            r"|No space left on device[^\n]{0,80}/dev/shm|/dev/shm[^\n]{0,80}No space left"
                            # a loader worker gone with no error of its own: most often the OOM killer's (or a full
                            # /dev/shm); read weaker, see _scan_lines
                            r"|DataLoader worker \(pid\(s\)? [\d, ]+\) exited unexpectedly", re.M),
         1.0, lambda m: "process killed for memory (SIGKILL / exit 137 / host allocator)"),
    # --- labels / indices
    _Det("log:label_out_of_range", _P(r"Assertion `t >= 0 && t < n_classes` failed|Target -?\d+ is out of bounds"
                                      r"|all elements of target should be between 0 and 1|cur_target >= 0 && cur_target < n_classes"
                                      r"|Assertion `cur_target"
                                      # TensorFlow / Keras sparse cross-entropy
                                      r"|Received a label value of -?\d+ which is outside the valid range of"
                                      # PaddlePaddle, ultralytics, sklearn's encoders
                                      r"|expected >= 0 and < \d+, but got -?\d+|The value of label expected >= 0 and < \d+"
                                      r"|Label class \d+ exceeds dataset class count \d+|y contains previously unseen labels"),
         1.0, lambda m: "a target label is outside [0, num_classes)"),
    _Det("log:label_out_of_range", _P(r"device-side assert(?:ion)? triggered"),
         0.8, lambda m: "an index (label or token id) out of range on the device"),
    # CUDA's illegal memory access: a kernel read or wrote out of bounds; in training most often an index past its
    # table (a label past num_classes, a class count changed in the config), less often a custom kernel or a
    # driver. No memory exhaustion (cuda_oom's words "memory" + "cuda" are not read from it)
    _Det("log:illegal_memory_access", _P(r"an illegal memory access was encountered|cudaErrorIllegalAddress"
                                         r"|CUDA_ERROR_ILLEGAL_ADDRESS"),
         0.6, lambda m: "a CUDA kernel accessed memory out of bounds (often an index past its table)"),
    # nn.Embedding's lookup (index_select: "index out of range in self" on the CPU, srcIndex on CUDA):
    # a token id past the vocabulary or a position past the model's maximum length, not a target
    _Det("log:embedding_index", _P(r"index out of range in self|Assertion `srcIndex < srcSelectDimSize` failed"),
         0.8, lambda m: "an index out of range in an embedding lookup (a token id past the vocabulary, "
                        "or a position past the maximum length)"),
    # --- a checkpoint whose vocabulary is not the model's: its token embedding or output projection
    # differs in size (a dictionary or tokenizer swapped, tokens added on one side only)
    _Det("log:vocab_size_mismatch", _VOCAB_SIZE,
         0.9, lambda m: "a checkpoint's token embedding (vocabulary) has another size than the model's"),
    # --- shapes
    _Det("log:shape_mismatch", _P(r"stack expects each tensor to be equal size|size mismatch for [\w.]+|size mismatch"
                                  r"|fields number not same among samples in a batch"     # PaddlePaddle's collate
                                  # JAX, Keras, Horovod, MXNet, ONNX Runtime, MindSpore, Triton, TF Lite, Flax, sklearn
                                  r"|got incompatible shapes for broadcasting|is incompatible with the layer: expected axis"
                                  r"|Mismatched \w+ tensor shapes|Shape inconsistent, Provided = |Got invalid dimensions for input"
                                  r"|For '\w+', the input dimensions must be equal|unexpected shape for input '"
                                  r"|specifies invalid shape for input '|the model expects \d+ dimensions \(shape"
                                  r"|Cannot set tensor: Dimension mismatch|Inconsistent shapes between value and initializer"
                                  r"|Initializer expected to generate shape|X has \d+ features, but \w+ is expecting \d+ features"
                                  r"|Arguments `target` and `output` must have the same shape"
                                  r"|mat1 and mat2 shapes cannot be multiplied|The size of tensor a \(\d+\) must match the size of tensor b"
                                  r"|shape '\[[^\]]*\]' is invalid for input of size|Sizes of tensors must match"
                                  r"|Expected input batch_size \(\d+\) to match target batch_size|Target size \(.*?\) must be the same as input size"
                                  r"|could not be broadcast together with shapes|doesn't match the broadcast shape"
                                  r"|to have \d+ channels, but got \d+ channels|Expected \d+D \(unbatched\) or \d+D \(batched\) input"
                                  r"|Expected \d+-dimensional input for \d+-dimensional weight|shapes \(.*?\) and \(.*?\) not aligned"
                                  r"|Incompatible shapes|Dimension out of range \(expected to be in range of"
                                  r"|Using a target size \(.*?\) that is different to the input size"
                                  r"|target tensor expected, multi-target not supported|Expected target size"
                                  # Keras: integer labels given to categorical_crossentropy, a Dense of the wrong width
                                  r"|Shapes \([^()\n]*\) and \([^()\n]*\) are incompatible"
                                  r"|logits and labels must have the same (?:first dimension|shape)"),
         1.0, lambda m: "tensor shapes do not fit", None, _VOCAB_SIZE),
    # --- devices (the Input type/weight type message is a device one only when cuda is on one side)
    _Det("log:device_mismatch", _P(r"Expected all tensors to be on the same device|Expected object of device type"
                                   r"|is on (?:CPU|cpu|cuda:\d+), (?:but|different from)|indices should be either on cpu or on the same device"
                                   r"|Attempting to deserialize object on a CUDA device but torch\.cuda\.is_available\(\) is False"
                                   # JAX, torch.compile's fake tensors, PyTorch/XLA, MXNet, Horovod, FSDP
                                   r"|Received incompatible devices for jitted computation|found two different devices (?:cuda:\d+, cpu|cpu, cuda:\d+)"
                                   r"|Input tensor is not an XLA tensor|was not initiali[sz]ed on context \w+\(\d+\)\. It was only initiali[sz]ed on"
                                   r"|Mismatched \w+ CPU/GPU device selection|Inconsistent compute device and `device_id`"
                                   # cuDNN's RNN wording
                                   r"|Input and parameter tensors are not at the same device"),
         1.0, lambda m: "tensors on different devices"),
    # "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)" or (MPSFloatType): device
    # when the sides' devices differ, dtype when their scalar types do (both can hold).
    _Det("log:device_mismatch", _INPUT_WEIGHT, 1.0, lambda m: "input and weights on different devices",
         lambda m: {} if _tensor_type(m.group(1))[0] != _tensor_type(m.group(2))[0] else None),
    _Det("log:dtype_mismatch", _INPUT_WEIGHT, 1.0, lambda m: "input and weights of different dtypes",
         lambda m: {"input": _tensor_type(m.group(1))[1], "weight": _tensor_type(m.group(2))[1]}
         if _tensor_type(m.group(1))[1] != _tensor_type(m.group(2))[1] else None),
    # --- dtypes
    _Det("log:dtype_mismatch", _P(r"expected scalar type \w+ but found \w+|\"[\w\s]+\" not implemented for '\w+'"
                                  r"|expected dtype \w+|result type \w+ can't be cast to the desired output type \w+"
                                  r"|mat1 and mat2 must have the same dtype|Found dtype \w+ but expected \w+"
                                  r"|Expected object of scalar type \w+ but got scalar type \w+"
                                  r"|to have (?:one of )?the following scalar types?: .*?; but got"
                                  r"|expected m1 and m2 to have the same dtype"
                                  r"|expected (?:target|input|weight|index|mask|src|self) dtype to be \w+"
                                  r"|must have the same dtype|dtype mismatch|should be the same dtype"
                                  r"|Unexpected input data type\. Actual: \(tensor\(\w+\)\)"      # ONNX Runtime
                                  # PaddlePaddle, Triton, TF Lite, JAX
                                  r"|Tensor holds the wrong type, it holds \w+, but desires to be \w+"
                                  r"|The type of data we are trying to retrieve \(\w+\) does not match the type of data"
                                  r"|unexpected datatype TYPE_\w+ for inference input|data-type is '\w+', but model '[^'\n]+' expects"
                                  r"|Cannot set tensor: Got value of type \w+ but expected type|requires arguments to have the same dtypes"
                                  r"|Mismatched data types: One rank had type|was expected to be a \w+ tensor but is a \w+ tensor"
                                  r"|Expected \w+ to be of (?:scalar )?type \w+"),
         1.0, lambda m: "incompatible dtypes in one op"),
    # GradScaler refuses gradients of fp16 parameters: the trainable weights were cast to half
    # (model.half(), torch_dtype=float16) while AMP expects fp32 master weights
    _Det("log:dtype_mismatch", _P(r"Attempting to unscale FP16 gradients"),
         1.0, lambda m: "trainable parameters are fp16: AMP's GradScaler needs fp32 weights"),
    # --- nothing to differentiate: the loss does not depend on any trainable tensor
    _Det("log:no_grad_fn", _P(r"element 0 of tensors does not require grad and does not have a grad_fn"),
         1.0, lambda m: "the loss has no grad_fn: no trainable tensor reaches it (every parameter frozen, "
                        "or the graph cut by no_grad/detach/checkpointing of frozen inputs)"),
    # torch.utils.checkpoint's warning is the same cut inside the model: a checkpointed block whose inputs need
    # no grad (frozen embeddings before it) gives its own parameters no gradient (a warning: weaker)
    _Det("log:no_grad_fn", _P(r"None of the inputs have requires_grad=True\. Gradients will be None"),
         0.6, lambda m: "gradient checkpointing: a checkpointed block's inputs need no grad, so its parameters "
                        "get no gradient (frozen embeddings before it; enable_input_require_grads)"),
    # an optimizer state dict loaded into an optimizer over other parameters (another model, other param
    # groups, parameters frozen or added since the checkpoint): the resume cannot restore training state
    _Det("log:optimizer_state_mismatch",
         _P(r"loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            r"|loaded state dict has a different number of parameter groups"),
         0.9, lambda m: "the optimizer's saved state does not fit this optimizer's parameter groups"),
    # --- distributed
    _Det("log:nccl_timeout", _P(r"Watchdog caught collective operation timeout|WorkNCCL\(.*?Timeout\(ms\)=\d+"
                                r"|ProcessGroupNCCL.*?[Tt]imeout|NCCL.*?[Tt]imed? ?out|Some NCCL operations have failed or timed out"
                                r"|DistStoreError: .*?[Tt]imed? ?out|RendezvousTimeoutError|Socket Timeout|collective operation timeout"
                                r"|mismatch between collectives|[Cc]ollective.{0,40}desync"
                                # JAX's multi-host barrier, TF's collectives
                                r"|DEADLINE_EXCEEDED: Barrier timed out|Barrier timed out\. Barrier_id|Collective ops is aborted by"
                                r"|Timed out initializing process group in store based barrier"
                                r"|BaseCollectiveExecutor::StartAbort DEADLINE_EXCEEDED"
                                # Horovod's stall inspector (gloo's "Timed out waiting ...ms for recv" is left to the
                                # cross-rank view, which names the rank that stopped: crossrank.py)
                                r"|submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting"),
         1.0, lambda m: "a collective operation timed out (a rank stalled or crashed)",
         lambda m: _nccl_data(m.string)),
    _Det("log:nccl_error", _P(r"NCCL error|nccl(?:Internal|UnhandledCuda|System|InvalidUsage|InvalidArgument|Remote)Error"
                              r"|NCCL WARN|DistBackendError|NCCL communicator was aborted"),
         0.9, lambda m: "NCCL reported an error"),
    # DDP's gradient reduction found parameters that took no part in the loss (a branch not run on
    # this step, a frozen part): the ranks' reductions no longer line up
    _Det("log:ddp_unused_params", _P(r"Expected to have finished reduction in the prior iteration before starting a new one"
                                     r"|parameters that were not used in producing (?:the )?loss"),
         0.9, lambda m: "DDP: parameters took no part in the loss, so its gradient reduction did not finish",
         None, _P(r"did not find any unused parameters")),   # DDP's harmless performance warning
    _Det("log:child_failed", _P(r"ChildFailedError:|failed \(exitcode: -?\d+\) local_rank: \d+"),
         1.0, lambda m: "a torchrun worker process failed"),
    # --- numerics
    _Det("log:var_dof", _P(r"(?:var|std|var_mean|std_mean)\(\): degrees of freedom is <= 0|Degrees of freedom <= 0"
                           # batch norm over one sample (a last batch of 1): its variance is undefined
                           r"|Expected more than 1 value per channel when training"),
         1.0, lambda m: "variance/std over a single element (degrees of freedom <= 0)"),
    # batch norm's running variance printed at ~0 ("bn1: running_var min 0.000e+00 mean 1.5e-12 max 3.7e-11"): its
    # statistics were taken over identical inputs (one sample repeated, a constant calibration batch)
    _Det("log:running_var_zero", _P(r"(?i:(?:running|moving)[_ ]?var(?:iance)?)\b[^\n]{0,120}"),
         1.0, lambda m: "batch norm's running variance is ~0: statistics over identical inputs", _running_var_zero),
    # numpy's RuntimeWarnings from data preparation: a 0/0 or x/0 (standardising by a std of 0, a ratio feature
    # over a zero count) and a log or sqrt of 0 or less put inf/NaN into the arrays the model is fed
    _Det("log:numpy_divide_invalid",
         _P(r"RuntimeWarning: (?:invalid value|divide by zero) encountered in (?:true_divide|divide|double_scalars|"
            r"scalar divide|reciprocal|remainder)"),
         0.8, lambda m: "numpy divided by zero while preparing arrays (inf/NaN produced)"),
    _Det("log:numpy_log_invalid",
         _P(r"RuntimeWarning: (?:invalid value|divide by zero) encountered in (?:log|log2|log10|log1p|sqrt|power|arccos|arcsin)"),
         0.8, lambda m: "numpy took a log or a root of 0 or a negative value (inf/NaN produced)"),
    # a framework stopping (or warning) because the loss went non-finite: the curve's NaN, said in
    # words (a post may quote only this line)
    _Det("log:loss_nonfinite", _P(r"Loss became infinite or NaN at iteration=?\s*(\d+)"
                                  r"|Batch \d+: Invalid loss, terminating training|Nan in summary histogram for"
                                  r"|non-finite loss, ending training|Loss is NaN, stopping training|Non-finite loss (?:detected|encountered)"
                                  r"|The (?:total )?loss is (?:NaN|nan|inf|Inf)(?:,| and| \()"
                                  # TensorFlow: clip_by_global_norm / check_numerics meeting a NaN gradient or tensor
                                  r"|Found Inf or NaN global norm|Tensor had (?:NaN|Inf) values"
                                  # PaddlePaddle's check_nan_inf, JAX's jax_debug_nans
                                  r"|There are NAN or INF \(num_nan=|FloatingPointError: invalid value \(nan\) encountered"
                                  # MindSpore's and Keras' TerminateOnNaN, TF Estimator's NanTensorHook
                                  r"|Invalid loss, terminating training|NanLossDuringTrainingError"
                                  # ... and its log line and message (TF 1.x / 2.x Estimator)
                                  r"|Model diverged with loss = (?:NaN|nan|inf|Inf)|NaN loss during training"
                                  # a training script's own stop: "non-finite loss at epoch 0 step 181: nan"
                                  r"|\b(?:[Nn]on-?finite|NaN|nan|[Ii]nf(?:inite)?) loss (?:at|in|on) (?:epoch \d+,? )?"
                                  r"(?:step|iter(?:ation)?|batch) (\d+)"),
         0.9, lambda m: "the framework reports the loss (or weights) went non-finite",
         lambda m: {"step": int(m.group(1) or m.group(2))} if (m.group(1) or m.group(2)) else {},
         # (a loop that drops the batch's update: "nan loss at step 1213, skipping batch", a scaler backing off; not one
         # that carries on with the NaN, "continuing (nan_policy=warn)")
         _P(r"(?i)\bskip|\bignor|\bretry|\bscal(?:e|ing)\b")),
    # torch.distributions refusing a NaN parameter: the network's output (a policy's mean, a VAE's
    # mu) went non-finite, the same evidence as a NaN loss one step earlier in the graph
    _Det("log:loss_nonfinite", _P(r"Expected parameter (\w+) \(Tensor of shape .*?\) of distribution \w+"
                                  r".*?to satisfy the constraint \w+\(.*?\), but found invalid values"),
         0.9, lambda m: f"a distribution's parameter {m.group(1)} is non-finite: the network's output went NaN"),
    # TensorBoard refusing to log a NaN scalar: what was logged (the loss, mostly) went non-finite (weaker:
    # which scalar it was is not said)
    _Det("log:loss_nonfinite", _P(r"NaN or Inf found in input tensor"),
         0.6, lambda m: "TensorBoard was asked to log a NaN/inf scalar (the loss, most often)"),
    # a value too big for float16 written into a half tensor (a mask filled with -1e9 under autocast,
    # a fill constant, a cast): half precision's range, not the data
    _Det("log:half_overflow", _P(r"value cannot be converted to type (?:at|c10)::Half without overflow"),
         0.9, lambda m: "a value too large for float16 was written into a half-precision tensor"),
    # Keras 3's warning that the model it trains has no trainable weights: the whole model is frozen, nothing the
    # optimizer steps moves it (not a summary's "Trainable params: 0": the usual recipe prints the frozen base's summary
    # before it adds a trainable head)
    _Det("log:no_trainable_params", _P(r"The model does not have any trainable weights"),
         1.0, lambda m: "the model has no trainable parameter: everything is frozen"),
    # a mixture-of-experts model's per-expert load printed as a list ("expert_load=[0.00 0.00 1.00 0.00]", "tokens per
    # expert: [0, 1024, 0, 0]") with one expert taking all but EXPERT_COLLAPSED_REST of it: the router sends every token
    # to one expert, the others get nothing (routing collapse, a degenerate output of the router)
    _Det("log:expert_collapse", _EXPERT_LOAD, 0.8, lambda m: "",
         data=lambda m: {"share": share} if (share := _expert_share(m)) >= 1 - EXPERT_COLLAPSED_REST else None,
         said=lambda d: f"one expert takes {d['share']:.0%} of the routed tokens: the router collapsed onto it"),
    # ... or a count of the model's parameters that names both its total and its trainable ones on one line (peft's
    # "trainable params: 0 || all params: ...", "Params: 59,969 total, 1 trainable") with at most a handful trainable:
    # a temperature or a bias is all the optimizer moves (a LoRA adapter is thousands; a summary table's separate
    # "Trainable params: 0" row is the frozen base's, printed before its head is added, and not read)
    _Det("log:no_trainable_params", _TRAINABLE_COUNT, 0.8, lambda m: "",
         data=lambda m: _trainable_data(_trainable_counts(m)), said=_trainable_words),
    # TensorFlow/Keras: variables the loss does not depend on get no gradient (a branch not connected to
    # the output, layers built but unused, a loss computed outside the tape): they never train
    _Det("log:vars_without_grad", _P(r"Gradients do not exist for variables \[?([^\]\n]{0,200})"),
         0.9, lambda m: "TensorFlow: some variables get no gradient from the loss (they never train)",
         lambda m: {"variables": m.group(1).strip()}),
    # OneCycleLR (and other schedulers built for a step count) stepped past the steps it was built for: its
    # total_steps / epochs x steps_per_epoch do not match the loop that steps it (raised; before the raise the
    # lr ran the whole cycle in fewer steps than training takes)
    _Det("log:scheduler_overrun", _P(r"Tried to step (\d+) times?\. The specified number of total steps is (\d+)"),
         0.9, lambda m: f"the lr scheduler was stepped {m.group(1)} times, past the {m.group(2)} total steps it was"
                        " built for", lambda m: {"stepped": int(m.group(1)), "total": int(m.group(2))}),
    # ... and BertAdam's warm-up schedules (pytorch-pretrained-bert, FARM) past their t_total: the lr multiplier is
    # set to 0 for every step after it ("Training beyond specified 't_total'. Learning rate multiplier set to 0."). A
    # warning, logged once, often in the last steps only: half the strength of the raised error
    _Det("log:scheduler_overrun", _P(r"Training beyond specified 't_total'"),
         0.5, lambda m: "the warm-up schedule ran past its t_total: the learning rate multiplier is set to 0 from there"
                        " on", lambda m: {}),
    _Det("log:anomaly_nan", _P(r"Function '(\w+)' returned nan values in its (\d+)\w* output"),
         1.0, lambda m: f"autograd anomaly: {m.group(1)} returned NaN", lambda m: {"function": m.group(1)}),
    # ... and when the function is a math op with a singular point (the log, square root, power or
    # norm of 0, a division by 0, acos at 1), the op named is where the NaN starts: the gradient of
    # sqrt(|a - b|^2) at a == b is inf, 0 * inf is NaN (also from anomaly mode's "Error detected in")
    _Det("log:anomaly_math", _P(r"(?:Function '|Error detected in )((?:Log|Log1p|Log2|Log10|Sqrt|Rsqrt|Div|Pow|Reciprocal"
                                r"|Norm|LinalgVectorNorm|Cdist|Acos|Asin|Atan2|Atanh|Acosh|Exp|Expm1|BinaryCrossEntropy"
                                r"|Digamma|Lgamma|Polygamma|Erfinv|Tan|Logit|Xlogy)Backward\d*)\b"),
         1.0, lambda m: f"autograd anomaly: {m.group(1)}, a math op undefined or infinite at some inputs (log, sqrt,"
                        " division or power at 0), produced the NaN", lambda m: {"function": m.group(1)}),
    _Det("log:nan_input",
         # (the words between stay in one sentence: "a great example on how ... . I have a nan issue"
         # is not data with NaN in it)
         _P(r"\b(?:nan|inf|NaN|Inf|NAN|INF)s?\b(?:(?![.!?]\s)[^\n]){0,40}?\b(?:in|inside|within)\s+"
            r"(?:the\s+|this\s+|current\s+)?(?:input|batch|data|dataset|sample|feature|image|label|target|x|inputs"
            r"|example)s?\b"
            r"|\b(?:input|batch|data|dataset|sample|feature|image|label|target|inputs|example)s?\b"
            r"(?:(?![.!?]\s)[^\n]){0,40}?"
            r"\b(?:has|have|had|contains?|containing|with|is|are)\s+(?:a\s+|some\s+)?(?:nan|NaN|NAN|inf|Inf)s?\b"
            r"|\b(?:found|detected|encountered)\s+(?:a\s+)?(?:nan|NaN|NAN)s?\b(?![^\n]{0,20}\b(?:loss|grad))"
            # a statistic of the inputs printed before training that is NaN ("feature range [nan, nan]",
            # "X mean: nan std: nan", "input min/max: nan nan"): a NaN in the data makes every min, max and mean NaN
            r"|\b(?:input|feature|data|X_train|x_train|inputs|features|images?)s?\s+(?:range|min|max|mean|std|stats?)"
            r"(?:\s*/\s*(?:min|max|mean|std))?\s*[:=]?\s*[\[(]?\s*(?:nan|NaN|NAN)\b", re.I),
         0.8, lambda m: "a log line reports NaN in the input data",
         lambda m: _batch_data(m.string),
         # (TensorBoard's "NaN or Inf found in input tensor" is about a logged scalar, not data)
         # ... nor a line that denies it: "no nans in the batch (`jnp.isnan(x).any()` is False)"
         _P(r"\b(?:loss|grad\w*|norm|lr|learning rate)\b[^\n]{0,12}?\b(?:is|=|:)?\s*(?:nan|inf)\b"
            r"|NaN or Inf found in input tensor"
            r"|\b(?:no|not|without|zero|never)\s+(?:any\s+|a\s+|single\s+){0,2}(?:nan|inf)s?\b|isnan\([^)\n]*\)[^\n]{0,24}\bFalse\b",
            re.I)),
    _Det("log:loss_scale_overflow",
         _P(r"Gradient overflow\.?\s+Skipping step|reducing loss scale to\s*([\d.e+-]+)|Minimum loss scale reached"
            r"|Attempted loss scale: ([\d.e+-]+), reducing to ([\d.e+-]+)|OVERFLOW!.*?Skipping step"
            r"|gradient overflow detected|setting loss scale to:?\s*([\d.e+-]+)|loss scale already at minimum"
            r"|Current loss scale already at minimum", re.I),
         0.7, lambda m: "fp16 gradient overflow: step skipped, loss scale reduced",
         lambda m: _scale_data(m.string)),
    # --- weights / checkpoints
    _Det("log:missing_keys",
         _P(r"Missing key\(s\) in state_dict|Unexpected key\(s\) in state_dict"
            r"|missing_keys=\[[^\]]|unexpected_keys=\[[^\]]"
            r"|Some weights of \S+ were not initiali[sz]ed from the model checkpoint"
            r"|weights? (?:was|were) not (?:loaded|used|initiali[sz]ed)|were newly initiali[sz]ed"
            r"|were not used when initiali[sz]ing"
            # timm, mmcv, detectron2/fvcore, PaddlePaddle, MXNet, HF Trainer, PEFT, Keras 2 and 3
            r"|Missing keys \(.*?\) discovered while loading pretrained weights|Unexpected keys \(.*?\) found while loading"
            r"|The model and loaded state dict do not match exactly|(?:unexpected|missing) keys? in source state_dict"
            r"|Skip loading parameter '[^'\n]+' to the model due to incompatible shapes"
            r"|Some model parameters or buffers are not found in the checkpoint|Skip loading for [\w.]+\. [\w.]+ (?:is not found|receives a shape)"
            r"|Parameter '[^'\n]+' is missing in file|There were missing keys in the checkpoint model loaded"
            r"|Found missing adapter keys while loading the checkpoint"
            r"|You are trying to load a weight file containing \d+ layers into a model with \d+ layers"
            r"|expected \d+ variables, but received \d+ variables during loading"),
         0.8, lambda m: "weights missing or unused when loading a state dict",
         lambda m: _keys_data(m.string)),
    # a printed list of a checkpoint's keys, every one under DDP's / DataParallel's "module." prefix: loaded into the
    # bare model with strict=False, none of them matches and nothing loads
    _Det("log:ddp_prefixed_keys",
         _P(r"(?:\[|odict_keys\(\[|keys\(\[)\s*['\"]module\.[\w.]+['\"](?:\s*,\s*['\"]module\.[\w.]+['\"]){2,}"),
         0.7, lambda m: "the checkpoint's keys all carry DDP's 'module.' prefix"),
    _Det("log:resume",
         _P(r"\b(?:[Rr]esum(?:e|es|ing|ed)|RESUM\w*)\b(?![_=])(?!\s*=)[^\n]{0,120}"
            r"|Restored (?:all states )?from|Continuing training from|[Rr]estoring (?:states|training state|checkpoint)"),
         0.6, lambda m: "training resumed from a checkpoint", lambda m: _resume_data(m.string),
         _P(r"resume_from_checkpoint\s*[=:]\s*(?:None|False|null|'')|[Nn]ot resum|[Nn]o checkpoint found|without resum"),
         told=True),
    _Det("log:checkpoint_path",
         _P(r"\b(?:[Ll]oad(?:ing|ed)?|LOAD\w*|[Rr]estor(?:e|ing|ed)|[Rr]esum(?:e|ing|ed)|from_pretrained)\b"
            r"[^\n]{0,60}?(?:checkpoint|ckpt|weights|state[_ ]dict|model)\b"
            r"|\b(?:[Ll]oad(?:ing|ed)?|[Rr]estor(?:e|ing|ed)|[Rr]esum(?:e|ing|ed))\b[^\n]{0,80}?\S+\.(?:pt|pth|ckpt|bin|safetensors|pkl|h5|tar)\b"),
         0.5, lambda m: "checkpoint loaded", lambda m: d if "path" in (d := _path_data(m.string)) else None,
         _P(r"[Ss]av(?:e|ing|ed) |resume_from_checkpoint\s*[=:]\s*(?:None|False|null)|[Nn]o checkpoint|[Ff]ailed to load"),
         told=True),
    # --- tests / environment
    _Det("log:tests_skipped", _P(r"^=*\s*(?:\d+ (?:passed|failed|errors?|warnings?|xfailed|xpassed|deselected), )*\d+ skipped\b"
                                 r"|\bSKIPPED \[\d+\] \S+|\bOK \(skipped=\d+\)|SKIPPED \(.*?(?:CUDA|GPU|cuda|gpu)", re.M),
         0.5, lambda m: "tests were skipped", lambda m: _pytest_data(m.string)),
    _Det("log:import_error",
         _P(r"ModuleNotFoundError: No module named ['\"]?([\w.]+)|ImportError: (.*)"
            r"|AttributeError: module '([\w.]+)' has no attribute '(\w+)'"
            r"|pip's dependency resolver does not currently take into account"
            r"|requires ([\w.\-\[\]]+[^,]*), but you have ([\w.\-]+ [\w.+\-]+) which is incompatible"
            r"|conflicting dependencies|ResolutionImpossible|Could not find a version that satisfies the requirement"
            r"|No matching distribution found for|got an unexpected keyword argument '(\w+)'"
            # Keras 3 (TF 2.16+) refuses an argument Keras 2 took ("Adam(lr=1e-3)"): another version than the code's
            r"|Argument\(s\) not recognized: \{'(\w+)'"),
         0.9, lambda m: "an import failed or package versions conflict", lambda m: _import_data(m)),
    # the installed build does not fit the machine: a CPU-only torch, no driver, a driver older than the
    # CUDA runtime, kernels not built for this GPU's architecture
    _Det("log:import_error",
         _P(r"Torch not compiled with CUDA enabled|Found no NVIDIA driver on your system"
            r"|CUDA driver version is insufficient for CUDA runtime version|no kernel image is available for execution on the device"),
         0.9, lambda m: "the installed torch build does not fit this machine's GPU / driver"),
    _Det("log:dataloader_slow",
         _P(r"does not have many workers which may be a bottleneck|data ?loading (?:is|was|may be) (?:the |a )?(?:main )?bottleneck"
            r"|[Dd]ata[Ll]oader[^\n]{0,80}\bbottleneck|DataLoader timed out after \d+ seconds"
            r"|Your program is (?:HIGHLY|MODERATELY) input-bound", re.I),      # TensorFlow's profiler
         0.5, lambda m: "the DataLoader warns about its throughput"),
    # more workers than the machine's CPUs: a setting torch warns about on every run so set, which may slow loading; no
    # measure of a starved step (runs that print it train fine, or fail for other reasons)
    _Det("log:loader_workers_over",
         _P(r"This DataLoader will create (\d+) worker processes in total\. Our suggested max number of worker in current system is (\d+)"),
         0.5, lambda m: f"the DataLoader starts {m.group(1)} workers where the machine suggests at most {m.group(2)}",
         lambda m: {"workers": int(m.group(1)), "suggested_max": int(m.group(2))}),
    _Det("log:tokenizer_warning",
         _P(r"Token indices sequence length is longer than the specified maximum sequence length"
            r"|The tokenizer class you load from this checkpoint is not the same type"
            r"|Asking to (?:truncate|pad)\b.*? but (?:no maximum length|the tokenizer does not have)"
            r"|A decoder-only architecture is being used, but right-padding was detected"
            r"|Special tokens have been added in the vocabulary|vocab(?:ulary)? size mismatch"),
         0.5, lambda m: "the tokenizer warns (length / class / vocabulary)"),
    # dead ReLUs as a debugging printout says it: "64/64 units dead", "fraction of outputs == 0 -> 1.000", "dead
    # neurons: 87%" (a share of half or more; the curves read the same from a logged series: curves._dead_units)
    _Det("dead_units",
         _P(r"\b(\d+)\s*/\s*(\d+)\s+(?:units|neurons|relus?|channels|filters|activations)\s+(?:are\s+|were\s+)?"
            r"(?:dead|inactive|zero|never\s+(?:fire|active))"
            r"|\b(?:fraction|share|ratio|percent(?:age)?)\s+of\s+(?:the\s+)?(?:relu\s+)?(?:outputs?|activations?|units|neurons)"
            r"\s*(?:that\s+are\s+)?(?:==|=|equal\s+to|at)\s*0(?:\.0+)?\s*(?:->|:|=|is)?\s*(\d*\.\d+|\d+(?:\.\d+)?\s*%|[01])"
            r"|\bdead\s+(?:relu\s+)?(?:units|neurons|relus)\s*[:=]?\s*(\d{1,3}(?:\.\d+)?)\s*%"
            r"|\b(\d{1,3}(?:\.\d+)?)\s*%\s+of\s+(?:the\s+|all\s+)?(?:relu\s+|hidden\s+)?(?:units|neurons|relus?|activations)\b"
            r"[^.\n]{0,40}?\b(?:outputs?|are|were|is|stay|stays|gives?|returns?)\s+(?:always\s+|exactly\s+|all\s+)?"
            r"(?:0(?![.\d])|zeros?\b|dead\b|inactive\b)", re.I),
         0.8, lambda m: "a printout says most units output zero (dead ReLUs)", lambda m: _dead_share(m)),
    # ... and as hooks print it per layer: "units never active: 251/256", "always_zero_units=126/128"
    _Det("dead_units",
         _P(r"\b(?:units?|neurons?|relus?)[ _](?:never[ _](?:active|fire[sd]?)|always[ _]zero|dead)\s*[:=]?\s*(\d+)\s*/\s*(\d+)"
            r"|\b(?:always[ _]zero|never[ _](?:active|fired?)|dead)[ _](?:units?|neurons?|relus?)\s*[:=]?\s*(\d+)\s*/\s*(\d+)", re.I),
         0.8, lambda m: "a printout says most units output zero (dead ReLUs)", lambda m: _dead_count(m)),
    # ... and per layer, named: "relu zero frac: features.1=0.99 features.3=1.00", "units never active: fc1=30/256
    # fc2=233/256" (the most dead layer counts)
    _Det("dead_units",
         _P(r"\b(?:relu[ _]|act(?:ivation)?s?[ _])zero[ _]frac(?:tion)?s?\s*[:=]\s*((?:[\w./-]+\s*=\s*\d*\.?\d+,?\s*){1,32})"
            r"|\b(?:units?|neurons?)[ _]never[ _]active\s*[:=]\s*((?:[\w./-]+\s*=\s*\d+\s*/\s*\d+,?\s*){1,32})", re.I),
         0.8, lambda m: "a printout says most units of a layer output zero (dead ReLUs)", lambda m: _dead_layers(m)),
    # ... and as a count of the units that still fire, per layer: "active_units=[128, 117, 0]" (a layer at 0 is dead)
    _Det("dead_units",
         _P(r"\b(?:active|alive|live|firing|nonzero|non_zero)[ _](?:units|neurons|relus)\s*[:=]\s*[\[(]\s*((?:\d+\s*,\s*){0,63}\d+)\s*[\])]",
            re.I),
         0.8, lambda m: "a printout says a layer has no unit that fires (dead ReLUs)", lambda m: _dead_active(m)),
    # ... a count of the predictions that names one class, or one beside a stray few ("eval prediction counts:
    # {'normal': 1600}", "{'normal': 1597, 'major': 3}"): every input gets the same answer
    _Det("log:collapse_output",
         _P(r"\bpred(?:iction)?s?[_ ]?(?:counts?|hist(?:ogram)?|distribution)\s*[:=]\s*(\{[^}\n]{0,2000}\}|Counter\(\{[^}\n]{0,2000}\}\))",
            re.I),
         0.7, lambda m: "the model's predictions pile onto one class",
         lambda m: _one_class_data(m.group(1), min_classes=1)),
    _Det("log:collapse_output",
         _P(r"\b(?:pred(?:iction)?s?|class(?:es)?|output|label)[_ ]?(?:counts?|hist(?:ogram)?|distribution|freq(?:uenc(?:y|ies))?)"
            r"\s*[:=]\s*(\[[^\]\n]{0,2000}\]|\{[^}\n]{0,2000}\}|\([^)\n]{0,2000}\))", re.I),
         0.7, lambda m: "the model's predictions pile onto one class",
         lambda m: _one_class_data(m.group(1))),
    # ... a generative model's printed coverage: "modes 1/8", "modes covered: 0/25", "generated digits cover 1/10
    # classes", "2 of 10 classes": at most a quarter of what the data has (and at most one of small sets)
    _Det("log:collapse_output",
         _P(r"\bmodes?(?:\s+covered)?\s*[:=]?\s*(\d+)\s*(?:/|of|out\s+of)\s*(\d+)"
            r"|\bcover(?:s|ed|age)?\s*[:=]?\s*(\d+)\s*(?:/|of|out\s+of)\s*(\d+)\s+(?:modes|classes|clusters|digits)\b", re.I),
         0.7, lambda m: f"the samples cover {m.group(1) or m.group(3)} of {m.group(2) or m.group(4)} modes: the generator "
                        "emits few of the data's kinds",
         lambda m: _few_modes(int(m.group(1) or m.group(3)), int(m.group(2) or m.group(4)))),
    _Det("log:collapse_output",
         _P(r"\b(?:sample|samples|generated|generation|output|outputs|prediction|predictions|pred|preds|completion|decoded)\b"
            r"(?:\s*#?\d+)?\s*(?:text)?\s*[:=]\s*(.*)", re.I),
         0.5, lambda m: "the model emits the same token/class over and over",
         lambda m: _collapse_data(m.group(1))),
    # --- inputs: printed statistics of a batch or of the data that show raw, unscaled values
    _Det("log:inputs_unscaled",
         _P(r"^(?=.*\b(?:inputs?|batch|images?|imgs?|pixels?|x|data|features?|samples?)\b)(?=.*\b(?:mean|max)\b).*$", re.I),
         0.7, lambda m: "printed input statistics show raw, unscaled values",
         lambda m: _input_stats_data(m.group(0))),
    _Det("log:exception", _P(r"Segmentation fault|core dumped|Fatal Python error: (\w+)|Bus error \(core dumped\)"),
         0.6, lambda m: "the process crashed", lambda m: {"exc_type": m.group(1) or m.group(0)}),
]

# Literal substrings that gate the detectors: every detector line contains one of
# them. Keep in step with DETECTORS (tests check every example line is found).
GATES = (
    "rror", "emory", "ALLOC_FAILED", "OOM", "bad_alloc", "illed", "KILL", "xit", "ssert", "out of range", "bounds",
    "ismatch", "Warning", "shape", "NCCL", "imeout", "imed out", "freedom", "returned nan",
    "nan", "NaN", "NAN", "verflow", "oss scale", "key", "nitiali", "not used", "esum", "estor", "ontinuing",
    "oad", "kipped", "SKIPPED", "ependenc", "ncompatible", "ERROR", "ottleneck", "worker", "okenizer",
    "Token indices", "vocab", "ample", "enerat", "redict", "pred", "utput", "_count", "_hist", "istribution", "decoded", "completion",
    "core dumped", "egmentation", "Fatal Python", "nvalid loss", "non-finite", "label value", "reduction",
    "radients do not exist", "otal steps", "t_total", "require grad", "requires_grad=True", "parameter group",
    "nable to allocate", "inimum loss scale", "nput tensor", "Half without", "compiled with CUDA", "NVIDIA driver",
    "driver version", "kernel image",
    "std", "255",     # input statistics (log:inputs_unscaled): a std beside the mean, or a raw 8-bit max
    "dead", "units", "neurons", "_zero", "never_active",    # a printout of dead units (dead_units)
    "rainable",        # a parameter count naming the trainable ones (log:no_trainable_params)
    "xpert",           # a mixture of experts' load per expert (log:expert_collapse)
    "modes", "cover",   # a generative model's printed coverage of the data's modes (log:collapse_output)
    "encountered in",  # numpy's RuntimeWarnings (log:numpy_divide_invalid, log:numpy_log_invalid)
    "unning_var", "oving_var", "unning var", "oving var", "unning Var", "oving Var", "UNNING_VAR", "OVING_VAR",
    "UNNING VAR",   # batch norm's running variance (log:running_var_zero)
    "'module.", '"module.',          # a checkpoint's keys under DDP's prefix (log:ddp_prefixed_keys)
)

# Gates scanned over the whole of a big log (mid-run events); the others only over its head and tail.
CORE_GATES = ("rror", "Warning", "nan", "NaN", "oss scale", "esum", "heckpoint")
_SMALL_TEXT = 6_000_000
_HEAD_CHARS = 512_000
_TAIL_CHARS = 1_000_000

# ---- data extractors (all on one line of text)

_OOM_DATA = re.compile(r"Tried to allocate ([\d.]+ ?[KMGT]i?B)")
_OOM_TOTAL = re.compile(r"([\d.]+ ?[KMGT]iB) total capacity|total capacity of ([\d.]+ ?[KMGT]iB)")
_OOM_GPU = re.compile(r"GPU (\d+)")


def _oom_data(s: str) -> dict:
    d: dict = {}
    if m := _OOM_DATA.search(s):
        d["tried_to_allocate"] = m.group(1)
    if m := _OOM_TOTAL.search(s):
        d["total_capacity"] = m.group(1) or m.group(2)
    if m := _OOM_GPU.search(s):
        d["gpu"] = int(m.group(1))
    return d


def _nccl_data(s: str) -> dict:
    d: dict = {}
    for key, pat in (("seq", r"SeqNum=(\d+)"), ("op", r"OpType=(\w+)"), ("timeout_ms", r"Timeout\(ms\)=(\d+)"),
                     ("rank", r"\[Rank (\d+)\]"), ("ran_for_ms", r"ran for (\d+) milliseconds")):
        if m := re.search(pat, s):
            d[key] = int(m.group(1)) if m.group(1).isdigit() else m.group(1)
    return d


_BATCH = re.compile(r"\b(batch|step|iter(?:ation)?|idx|index|sample)\s*(?:#|no\.?|idx|index)?\s*[:=]?\s*(\d+)", re.I)


def _batch_data(s: str) -> dict:
    m = _BATCH.search(s)
    return {m.group(1).lower(): int(m.group(2))} if m else {}


_SCALE_TO = re.compile(r"(?:reducing (?:loss scale )?to|setting loss scale to:?)\s*([\d.]+(?:e[+-]?\d+)?)", re.I)


# What a dynamic loss scaler does as a matter of course (read from DeepSpeed's counters): skip a step now and then, halve
# the scale, and grow it back. Benign when the scale never sinks below OVERFLOW_BENIGN_SCALE, no "minimum" is reached,
# and the skipped steps are at most OVERFLOW_BENIGN_SHARE of the steps taken (DeepSpeed's "step=1200, skipped=6").
OVERFLOW_BENIGN_SCALE = 1024.0
OVERFLOW_BENIGN_SHARE = 0.02
OVERFLOW_BENIGN_STRENGTH = 0.1
OVERFLOW_SCAN = 1 << 20
_SCALE_ALL = re.compile(r"(?:reducing (?:loss scale )?to|setting loss scale to:?)\s*([\d.e+-]+)", re.I)
_SKIPPED = re.compile(r"\bstep[=:]\s*(\d+),\s*skipped[=:]\s*(\d+)")
_AT_MINIMUM = re.compile(r"(?i)minimum loss scale reached|loss scale already at minimum")


def _overflow_backoff(run: Run, hit: Signal) -> Signal | None:
    """log:loss_scale_backoff, and log:loss_scale_overflow lowered to a note, when the logs show the scaler's normal
    backoff (see above): a healthy fp16 run prints a few OVERFLOW lines, and they are no sign of an overflow problem
    (nor is the user's word "OVERFLOW" quoted from them)."""
    scales: list[float] = []
    steps = skipped = 0
    for art in run.texts:
        if art.kind not in LOG_KINDS:
            continue
        # (a head and a tail of a big log: the scaler's messages and the last "step=N, skipped=K" are there)
        text = art.text if len(art.text) <= 2 * OVERFLOW_SCAN else art.text[:OVERFLOW_SCAN] + "\n" + art.text[-OVERFLOW_SCAN:]
        if _AT_MINIMUM.search(text):
            return None
        for m in _SCALE_ALL.finditer(text):
            try:
                scales.append(float(m.group(1)))
            except ValueError:
                continue
        for m in _SKIPPED.finditer(text):
            if int(m.group(1)) >= steps:
                steps, skipped = int(m.group(1)), int(m.group(2))
    if steps and skipped <= OVERFLOW_BENIGN_SHARE * steps and (not scales or min(scales) >= OVERFLOW_BENIGN_SCALE):
        floor = f", the scale never under {min(scales):g}" if scales else ""
        hit.strength = min(hit.strength, OVERFLOW_BENIGN_STRENGTH)
        hit.summary += f" (the scaler's normal backoff: {skipped} of {steps} steps skipped{floor})"
        hit.data["benign"] = True
        txt = f"{skipped} of {steps} steps skipped by the fp16 loss scaler{floor}: its normal backoff, not an overflow problem"
        return Signal("log:loss_scale_backoff", 1.0, txt, hit.evidence[:1], {"steps": steps, "skipped": skipped})
    return None


def _scale_data(s: str) -> dict:
    m = _SCALE_TO.search(s)
    return {"scale": float(m.group(1))} if m else {}


_KEYS_LIST = re.compile(r"(missing|unexpected)_keys=\[(.*?)\]|newly initiali[sz]ed: \[(.*?)\]")
_HEAD = re.compile(r"classifier|score|lm_head|pooler|qa_outputs|head|fc\.|logits", re.I)


def _keys_data(s: str) -> dict:
    d: dict = {}
    for m in _KEYS_LIST.finditer(s):
        keys = re.findall(r"['\"]([^'\"]+)['\"]", m.group(2) if m.group(1) else m.group(3))
        d[(m.group(1) or "newly_initialized") + "_keys"] = keys[:20]
    return d


_STEP = re.compile(r"\b(?:global[_ ]step|step|iteration|iter|it)\b\s*[:=#]?\s*(\d+)", re.I)
_EPOCH = re.compile(r"\bepoch\b\s*[:=#]?\s*(\d+)", re.I)
_PATH = re.compile(r"""['"]?((?:[A-Za-z]:)?[\w.~+-]*(?:[/\\][\w.+=@-]+)+/?|[\w.+=@-]+\.(?:pt|pth|ckpt|bin|safetensors|pkl|h5|tar|msgpack|npz))['"]?""")


def _path_data(s: str) -> dict:
    d: dict = {}
    for m in _PATH.finditer(s):
        p = m.group(1)
        if "/" in p or "\\" in p or re.search(r"\.(?:pt|pth|ckpt|bin|safetensors|pkl|h5|tar|msgpack|npz)$", p):
            if re.fullmatch(r"[\d/.:\\-]+|[\d.]+\w{0,2}/\w{1,3}", p):   # dates, ratios, rates (1.5s/it)
                continue
            d["path"] = p
            break
    if m := _STEP.search(s):
        d["step"] = int(m.group(1))
    return d


def _resume_data(s: str) -> dict:
    d = _path_data(s)
    if m := _EPOCH.search(s):
        d["epoch"] = int(m.group(1))
    return d


_PYTEST_COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)\b")


def _pytest_data(s: str) -> dict:
    d: dict = {k: int(n) for n, k in _PYTEST_COUNTS.findall(s)}
    if m := re.search(r"skipped=(\d+)", s):
        d["skipped"] = int(m.group(1))
    if m := re.search(r"SKIPPED \[\d+\] (.*)", s):
        d["reasons"] = [m.group(1)[:200]]
    if re.search(r"cuda|gpu|nvidia", s, re.I):
        d["gpu_related"] = True
    return d


def _dead_share(m: re.Match) -> dict | None:
    """The share of dead units a printout names (n/m, a fraction, a percent); None under half."""
    n, tot, frac, pct, pct_of = m.groups()
    pct = pct or (pct_of + "%" if pct_of else None)
    try:
        if n is not None:
            share = int(n) / int(tot) if int(tot) else 0.0
        else:
            v = (frac or pct or "").strip()
            share = float(v.rstrip("% ")) / (100.0 if v.endswith("%") or float(v.rstrip("% ")) > 1 else 1.0)
    except ValueError:
        return None
    return {"share": share} if share >= 0.5 else None


def _dead_count(m: re.Match) -> dict | None:
    """The share of n/m units a hook's printout says never fire; None under half."""
    g = [x for x in m.groups() if x is not None]
    n, tot = int(g[0]), int(g[1])
    share = n / tot if tot else 0.0
    return {"share": share} if share >= 0.5 else None


# A layer whose ReLU outputs are zero this often is dead (half the outputs of a live ReLU layer are zero).
DEAD_ZERO_FRAC = 0.95


def _dead_layers(m: re.Match) -> dict | None:
    """The most dead layer of a per-layer printout: zero fractions (0.99, DEAD_ZERO_FRAC at least) or never-active
    counts (n/m, half at least); None when no layer is that dead."""
    fracs, counts = m.groups()
    if fracs:
        shares = [float(x) for x in re.findall(r"=\s*(\d*\.?\d+)", fracs)]
        share = max(shares, default=0.0)
        return {"share": share} if share >= DEAD_ZERO_FRAC else None
    pairs = [(int(a), int(b)) for a, b in re.findall(r"=\s*(\d+)\s*/\s*(\d+)", counts or "")]
    share = max((a / b for a, b in pairs if b), default=0.0)
    return {"share": share} if share >= 0.5 else None


def _dead_active(m: re.Match) -> dict | None:
    """A layer whose count of firing units is 0 in a per-layer printout of them; None when every layer has one."""
    counts = [int(x) for x in re.findall(r"\d+", m.group(1))]
    dead = [i for i, c in enumerate(counts) if c == 0]
    return {"share": 1.0, "layer": dead[0]} if dead and len(counts) >= 2 else None


def _import_data(m: re.Match) -> dict:
    g = m.groups()
    d: dict = {}
    if g[0]:
        d["module"] = g[0]
    elif g[2]:
        d.update(module=g[2], name=g[3])
    elif g[4]:
        d.update(requires=g[4].strip(), installed=g[5])
    elif g[6] or g[7]:
        d["keyword"] = g[6] or g[7]
    return d


_REPEAT = re.compile(r"(\S{1,12}?)(?:[\s,]*\1){9,}")
_SEPARATOR = re.compile(r"[-=_*#~.+|/\\<>\[\]() ]+")


_NUMS = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


# A prediction count naming fewer than three classes is a collapse only over this many predictions ...
ONE_CLASS_MIN_COUNT = 20
# ... and, of two classes, only where the second holds less than this share (a stray few)
ONE_CLASS_STRAY = 0.005


def _one_class_data(value: str, min_classes: int = 3) -> dict | None:
    """A count/frequency list where one class holds >= 95 % of the mass (and there are >= min_classes classes;
    with fewer than 3, counts of ONE_CLASS_MIN_COUNT predictions or more)."""
    body = re.sub(r"['\"]?\w+['\"]?\s*:\s*", " ", value) if "{" in value else value   # dict: keep the values
    nums = [float(x) for x in _NUMS.findall(body)]
    if len(nums) < min_classes or sum(nums) <= 0 or len(nums) < 3 and sum(nums) < ONE_CLASS_MIN_COUNT:
        return None
    if len(nums) == 2 and min(nums) / sum(nums) >= ONE_CLASS_STRAY:
        return None         # two classes at 98.7 / 1.3 %: an imbalanced task predicted near its base rate
    share = max(nums) / sum(nums)
    if share < 0.95:
        return None
    return {"share": round(share, 3), "classes": len(nums), "top_class": nums.index(max(nums))}


_STAT = re.compile(r"\b(mean|std|min|max)\b(?:\(\))?\s*(?:[:=]|\bis\b)?\s*(\[[^\]\n]{0,300}\]|\([^)\n]{0,300}\)|(?:tensor|array)\([^)\n]{0,300}\)"
                   r"|[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)", re.I)
_STAT_NUM = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
# Raw 8-bit pixels: a max of 200-255.x with no negative min; features not standardised: means of 20 or
# more with standard deviations of 10 or more (a standardised input sits near mean 0, std 1).
RAW_PIXEL_MAX = (200.0, 255.5)
UNSCALED_MEAN, UNSCALED_STD = 20.0, 10.0
UNSCALED_HEAVY_MAX = 1000.0   # (and a min of 0 or more: _input_stats_data's heavy-tailed raw magnitudes)
# ... of features, inputs or a spectrogram, not of times, ids, tokens, lengths or counts
_HEAVY_WHAT = re.compile(r"\b(?:features?|feats?|inputs?|spec\w*|mels?|fbank\w*|x)\b", re.I)
_NOT_VALUES = re.compile(r"\b(?:time|ms|sec\w*|ids?|input_ids|tokens?|len\w*|counts?|shards?|samples per)\b|_ids\b", re.I)


def _input_stats_data(line: str) -> dict | None:
    """mean/std/min/max printed for inputs (a number, a list, a tuple or a tensor each) when they show
    raw 0-255 pixels or unstandardised features; else None."""
    vals: dict[str, list[float]] = {}
    for m in _STAT.finditer(line):
        nums = [float(x) for x in _STAT_NUM.findall(m.group(2))]
        if nums:
            vals.setdefault(m.group(1).lower(), nums)
    mx, mn, mean, std = (vals.get(k, []) for k in ("max", "min", "mean", "std"))
    raw = bool(mx) and RAW_PIXEL_MAX[0] <= max(mx) <= RAW_PIXEL_MAX[1] and (not mn or min(mn) >= 0)
    big = bool(mean) and bool(std) and max(abs(x) for x in mean) >= UNSCALED_MEAN and min(std) >= UNSCALED_STD
    if not big and len(mean) == len(std) > 1:
        # per-feature vectors: one feature at its raw size (square feet, years) is inputs left unscaled, whatever the
        # small ones beside it (a bedroom count's std of 1.4)
        big = any(abs(m) >= UNSCALED_MEAN and sd >= UNSCALED_STD for m, sd in zip(mean, std))
    # ... or heavy-tailed raw magnitudes from 0 (a power spectrogram without its log, counts): a max in the thousands and
    # a std of UNSCALED_STD or more, however small the mean
    heavy = bool(mx) and bool(std) and max(mx) >= UNSCALED_HEAVY_MAX and min(std) >= UNSCALED_STD and bool(mn) \
        and min(mn) >= 0 and _HEAVY_WHAT.search(line) is not None and _NOT_VALUES.search(line) is None
    if not (raw or big or heavy):
        return None
    return {"max": max(mx) if mx else None, "mean": mean[:4] or None, "std": std[:4] or None, "raw_pixels": raw}


def _collapse_data(value: str) -> dict | None:
    """The repeated unit when the output is one token/class over and over, else None."""
    m = _REPEAT.search(value)
    if not m or _SEPARATOR.fullmatch(m.group(1)):
        return None
    unit = m.group(1)
    if len(m.group(0)) < 0.6 * len(value.strip()):
        return None
    return {"repeated": unit, "span_chars": len(m.group(0))}


# --------------------------------------------------------------------------- candidate lines

def _line_text(text: str, off: int) -> tuple[int, str]:
    """(start offset, text) of the line holding `off`; on a line longer than LONG_LINE, of the
    carriage-return record holding it (a progress bar redirected to a file writes thousands of
    records, each ended by a CR, on one line: one is what the terminal showed, and each detector's
    pass over a 100 KB line cost ~1 ms)."""
    a = text.rfind("\n", 0, off) + 1
    b = text.find("\n", off)
    b = b if b >= 0 else len(text)
    if b - a > LONG_LINE:
        a = max(a, text.rfind("\r", a, off) + 1)
        cr = text.find("\r", off, b)
        b = cr if cr >= 0 else b
    return a, text[a:b].rstrip("\r")


# A line longer than this is read record by record where it holds carriage returns.
LONG_LINE = 4096


# Gates that are also a metric's printed value: `loss=nan`, `'loss': NaN,` (a NaN curve is read
# from the metric series, not from its text) do not hand a line to the detectors. A value is
# the gate right after `=`/`:` and followed by the end of the line, a separator or the next
# `key=`; "root:NaN detected in batch 3" stays a hit.
_VALUE_GATES = ("nan", "NaN", "NAN")
_VALUE_END = r"""(?=['"]?(?:[ \t]*(?:[,;|})\]]|\r?\n|\Z)|[ \t]+[\w./\-]+[ \t]*[:=]))"""


@lru_cache(maxsize=None)
def _gate_re(g: str) -> re.Pattern:
    """The gate as a literal search; a value gate skips metric values (lookarounds come after
    the literal, so the search still scans for the literal first)."""
    lit = re.escape(g)
    if g not in _VALUE_GATES:
        return re.compile(lit)
    after_sep = "|".join(f"(?<=[=:]{sep}{lit})" for sep in ("", " ", "-", " -", "'", '"', " '", ' "'))
    return re.compile(f"{lit}(?!(?:{after_sep}){_VALUE_END})")


def _candidates(art: TextArtifact) -> list[tuple[int, str]]:
    """(line number, text) of every line holding a gate (first _GATE_CAP per gate), in line order.

    Every gate costs a pass over the text, so on a big log all gates run over its
    head and tail (setup warnings, the crash) and only CORE_GATES, the events that
    also happen mid-run, over the whole of it.
    """
    text = art.text
    n = len(text)
    spans: list[tuple[int, int, tuple[str, ...]]]
    if n <= SHORT_TEXT:       # a short text (most logs of a folder of many): `in` is the quickest test
        spans = [(0, n, tuple(g for g in GATES if g in text))]
    elif n <= _SMALL_TEXT:
        spans = [(0, n, GATES)]
    else:
        tail = max(_HEAD_CHARS, n - _TAIL_CHARS)
        spans = [(0, n, CORE_GATES), (0, _HEAD_CHARS, GATES), (tail, n, GATES)]
    starts: dict[int, str] = {}
    whole: set[str] = set()   # gates whose every hit in the whole text was taken
    finder = TextFinder(text)
    for a, b, gates in spans:
        for g in gates:
            if g in whole:
                continue
            i = finder.find(g, a, b)
            if i < 0:
                if a == 0 and b == n:
                    whole.add(g)   # not in the text at all: not in its head or tail either
                continue
            hits = 0
            for m in islice(_gate_re(g).finditer(text, i, b), _GATE_CAP):
                hits += 1
                ls, s = _line_text(text, m.start())
                starts.setdefault(ls, s)
            if a == 0 and b == n and hits < _GATE_CAP:
                whole.add(g)   # all its hits are in: the head and tail add nothing
    if not starts:
        return []
    offs = sorted(starts)
    nums = lines_of_offsets(art, offs)
    return [(k, starts[o]) for k, o in zip(nums, offs)]


# --------------------------------------------------------------------------- signals

# The strength of "DataLoader worker (pid(s) N) exited unexpectedly": the OOM killer's work, usually (or a
# full /dev/shm), but a segfault in a worker prints it too.
WORKER_EXIT = 0.4
# The strength of a load message that fine-tuning prints as a matter of course (a pre-training head dropped,
# a fresh task head initialised): a hint only (data "expected"); analyze.py drops it beside a run that trained well.
EXPECTED_KEYS = 0.3


class _Acc:
    """Collects hits per kind: first occurrence, count, up to 3 evidence lines."""

    def __init__(self) -> None:
        self.hits: dict[str, dict] = {}

    def add(self, kind: str, strength: float, source: str, line: int, quote: str, words: str, data: dict,
            narrated: bool = False) -> None:
        h = self.hits.get(kind)
        if h is None:
            h = self.hits[kind] = {"strength": strength, "ev": [], "count": 0, "data": {}, "seen": set(),
                                   "words": words, "narrated": True}
        h["narrated"] = h["narrated"] and narrated      # (words only while every hit is the user's narration)
        h["strength"] = max(h["strength"], strength)
        for k, v in data.items():   # the first value of a field wins; lists gather
            old = h["data"].get(k)
            if isinstance(old, list) and isinstance(v, list):
                old.extend(x for x in v if x not in old and len(old) < 10)
            elif old is None:
                h["data"][k] = list(v) if isinstance(v, list) else v
        if (source, line) in h["seen"]:
            return
        h["seen"].add((source, line))
        h["count"] += 1
        if len(h["ev"]) < 3:
            h["ev"].append(Evidence(text=words, source=source, line=line, quote=quote))

    def signals(self) -> list[Signal]:
        out = []
        for kind, h in self.hits.items():
            n = h["count"]
            data = h["data"]
            data["count"] = n
            if h["narrated"]:
                data["narrated"] = True
            more = f" ({n} times)" if n > 1 else ""
            first = h["ev"][0]
            summary = f"{h['words']}{more}, first at {first.source}:{first.line}"
            out.append(Signal(kind=kind, strength=round(min(1.0, h["strength"]), 3), summary=summary,
                              evidence=h["ev"], data=data))
        return out


def _line_hits(s: str) -> list[tuple[_Det, re.Match, float, dict]]:
    """What the detectors find in one line: (detector, match, strength, data), each detector's own check applied."""
    out = []
    for d in DETECTORS:
        m = d.pattern.search(s)
        if not m:
            continue
        if d.exclude is not None and d.exclude.search(s):
            continue
        data = d.data(m) if d.data else {}
        if data is None:     # the detector's own check said no
            continue
        if d.kind == "log:cuda_oom":
            data = _oom_data(s)
        strength = d.strength
        if d.kind == "log:missing_keys" and "were not used when initializing" in s:
            strength = EXPECTED_KEYS   # checkpoint weights dropped (a pre-training head), usually expected
        elif d.kind == "log:missing_keys" and "newly_initialized_keys" in data:
            keys = data["newly_initialized_keys"]
            if keys and all(_HEAD.search(k) for k in keys):
                strength = EXPECTED_KEYS   # a fresh task head is expected when fine-tuning
        if d.kind == "log:no_trainable_params" and data.get("trainable") == 0:
            strength = 1.0       # a count of nothing trainable is as sure as Keras's warning
        if d.kind == "log:tests_skipped" and data.get("gpu_related"):
            strength = 0.8
        if d.kind == "log:host_oom" and re.fullmatch(r"\s*Killed\s*", s):
            strength = 0.8       # bare "Killed": the OOM killer, usually
        elif d.kind == "log:host_oom" and "exited unexpectedly" in m.group(0):
            strength = WORKER_EXIT      # a worker that died without saying why: memory, usually
        out.append((d, m, strength, data))
    return out


def _scan_lines(art: TextArtifact, acc: _Acc) -> None:
    for n, s in _candidates(art):
        for d, m, strength, data in _line_hits(s):
            acc.add(d.kind, strength, art.path, n, line_quote(s, m.start()), d.said(data) if d.said else d.words(m), data,
                    d.told and bool(_NARRATED.search(s)))


_CF_FIELD = re.compile(r"^\s*(rank|exitcode|error_file|traceback|host|time)\s*:\s*(.*?)\s*$", re.M)


def _child_failed_data(msg: str) -> dict:
    """Fields of torchrun's ChildFailedError table (first 'Root Cause' entry wins)."""
    root = msg.split("Root Cause", 1)[-1]
    d: dict = {}
    for k, v in _CF_FIELD.findall(root):
        if k in d:
            continue
        if k == "rank":
            m = re.match(r"(-?\d+)(?: \(local_rank: (\d+)\))?", v)
            if m:
                d["rank"] = int(m.group(1))
                if m.group(2):
                    d["local_rank"] = int(m.group(2))
        elif k == "exitcode":
            m = re.match(r"(-?\d+)(?: \(pid: (\d+)\))?", v)
            if m:
                d["exitcode"] = int(m.group(1))
                if m.group(2):
                    d["pid"] = int(m.group(2))
        elif k == "traceback":
            d["traceback"] = v[:200]
        elif k == "error_file":
            d["error_file"] = v
    return d


_LAUNCHER_FAIL = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)")


# A frame of a prediction / evaluation entry point: its file or its function named for inference
_INFER_FRAME = re.compile(r"(?:^|[/\\_])(?:predict|prediction|infer|inference|serve|serving|score|evaluate|eval|test)"
                          r"(?:ion)?(?:[_.]|$)", re.I)
# ... but not pytest's own names (files test_*.py and *_test.py, functions test_*): a test of a training step with a batch
# of one meets the same error, and the name says where the test lives, not where the model is used
_PYTEST_FILE = re.compile(r"test_\w+\.py|\w+_test\.py")


def _infer_frame(f) -> bool:
    file = f.file.replace("\\", "/").rsplit("/", 1)[-1]
    return bool((_INFER_FRAME.search(file) and not _PYTEST_FILE.fullmatch(file))
                or (_INFER_FRAME.search(f.func) and not f.func.startswith("test_")))


def _train_mode_at_inference(tb) -> bool:
    """Batch norm's "Expected more than 1 value per channel when training" raised below a prediction or evaluation
    entry point (predict.py, def predict): the model is still in training mode where it should be in eval mode."""
    return ("value per channel when training" in tb.message
            and any(_infer_frame(f) for f in tb.frames))


def _traceback_signals(run: Run, acc: _Acc, specific_lines: set[tuple[str, int]]) -> None:
    """Tracebacks: ChildFailedError tables, and `log:exception` for those no detector explained."""
    for tb in run.tracebacks:
        quote = tb.quote
        if _train_mode_at_inference(tb):
            acc.add("log:train_mode_at_inference", 0.8, tb.source, tb.line, quote or "",
                    "batch norm's training-mode error raised from a prediction / evaluation entry point: the model "
                    "was not put in eval mode there", {})
        if tb.exc_type.endswith("ChildFailedError"):
            d = _child_failed_data(tb.message)
            acc.add("log:child_failed", 1.0, tb.source, tb.line, quote,
                    f"torchrun: rank {d.get('rank', '?')} failed with exit code {d.get('exitcode', '?')}", d)
            if d.get("exitcode") in (-9, 137):
                acc.add("log:host_oom", 0.8, tb.source, tb.line, quote,
                        f"rank {d.get('rank', '?')} was killed with SIGKILL (exit {d['exitcode']}): the OOM killer, usually",
                        {"exitcode": d["exitcode"], "rank": d.get("rank")})
            continue
        # Explained when a specific detector fired inside this traceback's lines
        # (its exception line or message lines).
        n_msg = tb.message.count("\n") + 1
        if any((tb.source, i) in specific_lines for i in range(tb.line, tb.line + n_msg)):
            continue
        if tb.chained_from is not None and tb.exc_type == tb.chained_from.exc_type:
            continue
        first = tb.message.split("\n", 1)[0][:200]
        acc.add("log:exception", 0.7, tb.source, tb.line, quote,
                f"{tb.exc_type or 'exception'}: {first}" if first else (tb.exc_type or "exception"),
                {"exc_type": tb.exc_type, "message": first, "exc_types": [tb.exc_type]})


def _launcher_failures(art: TextArtifact, acc: _Acc) -> None:
    """torchrun's own `failed (exitcode: -9) local_rank: 0 (pid: ...)` lines carry the exit code."""
    if not contains_any(art.text, ("failed (exitcode:",)):
        return
    for m in islice(_LAUNCHER_FAIL.finditer(art.text), 50):
        n = lines_of_offsets(art, [m.start()])[0]
        _, s = _line_text(art.text, m.start())
        code = int(m.group(1))
        d = {"exitcode": code, "local_rank": int(m.group(2)), "pid": int(m.group(3))}
        acc.add("log:child_failed", 1.0, art.path, n, line_quote(s, m.start() - (len(s) and 0)),
                f"torchrun: local rank {d['local_rank']} exited with code {code}", d)
        if code in (-9, 137):
            acc.add("log:host_oom", 0.8, art.path, n, line_quote(s),
                    f"local rank {d['local_rank']} was killed with SIGKILL (exit {code})", {"exitcode": code})


# The kinds whose detectors match a framework's own error text, word for word ("Attempting to unscale FP16
# gradients", "Expected all tensors to be on the same device"): quoted in the user's sentence, such a message
# names its failure as a log line would (quoted_messages); not the kinds read from everyday words or numbers
# (a NaN, a resume, a checkpoint path, printed batch statistics)
MESSAGE_KINDS = frozenset({
    "log:cuda_oom", "log:host_oom", "log:label_out_of_range", "log:embedding_index", "log:vocab_size_mismatch",
    "log:shape_mismatch", "log:device_mismatch", "log:dtype_mismatch", "log:no_grad_fn", "log:optimizer_state_mismatch",
    "log:nccl_timeout", "log:nccl_error", "log:ddp_unused_params", "log:var_dof", "log:half_overflow",
    "log:vars_without_grad", "log:scheduler_overrun", "log:anomaly_nan", "log:anomaly_math", "log:missing_keys",
    "log:import_error", "log:cudnn_init_failed", "log:illegal_memory_access", "log:no_trainable_params"})


def quoted_messages(texts: list[str]) -> dict[str, tuple[float, str]]:
    """The MESSAGE_KINDS whose framework message the user's words quote: kind -> (the strength a log line of it
    has, the message as quoted)."""
    out: dict[str, tuple[float, str]] = {}
    for text in texts:
        for line in text.splitlines():
            for d, m, strength, _data in _line_hits(line):
                if d.kind in MESSAGE_KINDS and strength > out.get(d.kind, (0.0, ""))[0]:
                    out[d.kind] = (strength, m.group(0))
    return out


# A JSON file's strings that hold a program's printed output with its line breaks escaped (Gradescope's results.json
# "output", a CI report's log field): their error messages are read as a log's, at the file's own lines
_JSON_OUTPUT_WORDS = ("Error", "Exception", "Traceback", "NaN", "Warning")
# ... under a key that names printed output (not a dataset's strings: an instruction set's samples may quote errors)
_JSON_OUTPUT_KEY = re.compile(r'"(?:output|stdout|stderr|log|logs|traceback|console|message)"\s*:\s*"', re.I)
JSON_OUTPUT_MAX = 1 << 20      # (a bigger JSON file is data, and its blanked lines would be searched whole)


def _output_in_json(art: TextArtifact) -> TextArtifact | None:
    """The artifact's text with its JSON escapes blanked (tracebacks.blank_json_escapes), as a log of the same path,
    where it is a .json file (read as a config) of at most JSON_OUTPUT_MAX characters whose output-named strings
    carry escaped line breaks and an error word."""
    if (art.kind != "config" or not art.path.lower().endswith(".json") or len(art.text) > JSON_OUTPUT_MAX
            or "\\n" not in art.text or not contains_any(art.text, _JSON_OUTPUT_WORDS)
            or _JSON_OUTPUT_KEY.search(art.text) is None):
        return None
    return TextArtifact(path=art.path, abspath=art.abspath, kind="log", text=blank_json_escapes(art.text))


def text_signals(run: Run) -> list[Signal]:
    """`log:*` signals from every log-like text artifact and from run.tracebacks.

    Tracebacks are extracted here for logs not yet read by extract_tracebacks.
    """
    extract_tracebacks(run)
    acc = _Acc()
    for art in run.texts:
        try:
            if art.kind not in LOG_KINDS:
                if (inner := _output_in_json(art)) is not None:
                    _scan_lines(inner, acc)
                continue
            _scan_lines(art, acc)
            _launcher_failures(art, acc)
        except Exception as e:  # an odd log must not stop the others
            run.warnings.append(f"{art.path}: log signals not read ({type(e).__name__}: {e})")
    specific = {(e.source, e.line) for k, h in acc.hits.items() if k != "log:exception"
                for e in h["ev"]} | {(s, n) for k, h in acc.hits.items() if k != "log:exception" for (s, n) in h["seen"]}
    _traceback_signals(run, acc, specific)
    out = acc.signals()
    for hit in out:
        if hit.kind == "log:missing_keys" and hit.strength <= EXPECTED_KEYS:
            hit.data["expected"] = True     # every load message was one fine-tuning prints as a matter of course
        if hit.kind == "log:loss_scale_overflow" and (note := _overflow_backoff(run, hit)) is not None:
            out.append(note)
    # per-log readings, each kept from the first log that shows it (and not read where another reading gave its kind)
    per_log: tuple[tuple[Callable[[TextArtifact], Signal | None], str | None], ...] = (
        (param_imbalance, None), (printed_input_stats, "log:inputs_unscaled"), (described_unscaled, "log:inputs_unscaled"),
        (repl_input_stats, "log:inputs_unscaled"),
        (dead_table, "dead_units"), (zero_share_dict, "dead_units"), (same_output, "log:collapse_output"),
        (repeated_strings, "log:collapse_output"), (prefixed_key_lines, "log:ddp_prefixed_keys"),
        (nan_at_math_line, "log:anomaly_math"), (transforms_differ, None))
    for read_log, kind in per_log:
        if kind is None or not any(s.kind == kind for s in out):
            if (sig := _first_log_reading(run, read_log)) is not None:
                out.append(sig)
    # (one model's two evaluations may sit in two logs, the old version's and the new one's: the lines read so far
    # are carried from log to log)
    seen: dict = {}
    if (sig := _first_log_reading(run, lambda art: metric_disagrees(art, seen), "metric_disagrees")) is not None:
        out.append(sig)
    loaded = _loaded_checkpoints(run)
    for reading in (checkpoint_of_other_run, checkpoint_of_earlier_epoch):
        if (sig := reading(run, loaded)) is not None:
            out.append(sig)
    if (sig := vocab_files_differ(run)) is not None:
        out.append(sig)
    return out


# A vocabulary's file a log says it read (nanoGPT's "found vocab_size = 65 (inside data/shakespeare_char/meta.pkl)" and
# its sample.py's "Loading meta from data/stories_char/meta.pkl...", a tokenizer.json / vocab.txt / spm .model loaded):
# the base name found first, its folder read from the bytes before it (a pattern that runs back over a path from every
# start position is quadratic on a long line of hex); a save is no reading
_VOCAB_BASE = re.compile(r"(?<=/)(?:meta\.pkl|vocab\.(?:json|txt|pkl)|tokenizer\.(?:json|model)|spm\.model"
                         r"|sentencepiece\.bpe\.model|merges\.txt|word_index\.json|stoi\.pkl)\b")
_VOCAB_DIR = re.compile(r"(?:[\w.\-~]+/)+\Z")
_VOCAB_READ = re.compile(r"\b(?:load\w*|read\w*|found|inside|from|using|open\w*)\b", re.I)
_VOCAB_NOT_READ = re.compile(r"\b(?:sav\w*|writ\w*|dump\w*|export\w*|cop(?:y|ie)\w*)\b", re.I)
# folders that hold one model's copies, not another vocabulary: a hub cache, checkpoints
_VOCAB_COPY_DIR = re.compile(r"\.cache/|huggingface|/snapshots/|checkpoint|ckpt", re.I)
VOCAB_DIR_BACK = 300           # bytes before a base name its folder is read from


def _same_folder(a: str, b: str) -> bool:
    """One folder written two ways: one path's parts end the other's (an absolute and a relative path), or one is the
    working folder itself."""
    pa, pb = [x for x in a.split("/") if x], [x for x in b.split("/") if x]
    n = min(len(pa), len(pb))
    return n == 0 or pa[-n:] == pb[-n:]


def vocab_files_differ(run: Run) -> Signal | None:
    """`log:vocab_files_differ`: two logs of the run say they read a vocabulary file of one name from two folders
    (training's data/stories_char/meta.pkl, sampling's data/shakespeare_char/meta.pkl): the text is encoded with one
    vocabulary and decoded with another, the same ids other characters (a decoder's output turns to gibberish).
    Folders are compared by their last two parts (an absolute and a relative path to one folder are the same); a
    hub cache's or a checkpoint's copy is no other vocabulary."""
    seen: dict[str, dict[str, tuple[TextArtifact, int]]] = {}
    for art in run.texts:
        if art.kind not in LOG_KINDS:
            continue
        head = art.text[:SAME_OUTPUT_SCAN_CHARS]
        if not any(b in head for b in ("meta.pkl", "vocab.", "tokenizer.", ".model", "merges.txt", "word_index", "stoi")):
            continue        # (finds in the head read alone: a 50 MB log's whole text is no place to look)
        for m in _VOCAB_BASE.finditer(head):
            back = head[max(0, m.start() - VOCAB_DIR_BACK):m.start()]
            d = _VOCAB_DIR.search(back)
            line_start = head.rfind("\n", max(0, m.start() - VOCAB_DIR_BACK), m.start()) + 1
            # (the words before the path, its folder cut off: a folder named saved/ or exports/ is no save)
            words = head[max(line_start, m.start() - VOCAB_DIR_BACK):m.start() - (len(d.group()) if d else 0)]
            if d is None or _VOCAB_COPY_DIR.search(d.group()) or not _VOCAB_READ.search(words) \
                    or _VOCAB_NOT_READ.search(words):
                continue
            folder = "/".join(p for p in d.group().strip("/").split("/") if p not in ("", "."))
            seen.setdefault(m.group(), {}).setdefault(folder, (art, art.line_of(m.start())))
    for base, by_dir in seen.items():
        pair = next(((x, y) for i, x in enumerate(by_dir.items()) for y in list(by_dir.items())[i + 1:]
                     if x[1][0].path != y[1][0].path and not _same_folder(x[0], y[0])), None)
        if pair is None:
            continue
        (da, (a, la)), (db, (b, lb)) = pair
        txt = (f"{a.path} and {b.path} read {base} from two folders ({da} and {db}): text encoded with one vocabulary "
               "is decoded with another")
        return Signal("log:vocab_files_differ", 0.8, txt,
                      [Evidence(text=f"{base} in {a.path}", source=a.path, line=la, quote=a.line(la).strip()[:300]),
                       Evidence(text=f"{base} in {b.path}", source=b.path, line=lb, quote=b.line(lb).strip()[:300])],
                      {"file": base, "folders": list(by_dir)[:4]})
    return None


def _first_log_reading(run: Run, reading: Callable[[TextArtifact], Signal | None], name: str = "") -> Signal | None:
    """`reading` of the first log text that gives one; a log it fails on is skipped with a warning naming the reading
    (`name`, else its function's) (an odd log must not stop the other readings)."""
    for art in run.texts:
        if art.kind not in LOG_KINDS:
            continue
        try:
            if (sig := reading(art)) is not None:
                return sig
        except Exception as e:  # noqa: BLE001
            run.warnings.append(f"{art.path}: {name or reading.__name__} not read ({type(e).__name__}: {e})")
    return None


# --------------------------------------------------------------------------- printed transforms of two splits

# A split's transform as a log prints it ("train transform: Compose(RandomHorizontalFlip(p=0.5), ToTensor(), Normalize(
# mean=[0.485, ...], std=[...]))", torchvision's multi-line repr after "val_transforms =") and the Normalize step in it
_SPLIT_TRANSFORM = re.compile(r"(?im)^[ \t]*(?:[\w\[\]:.-]+[ \t]+)?(?P<split>train(?:ing)?|val(?:id(?:ation)?)?|eval(?:uation)?|test"
                              r"|query|gallery|inference|predict(?:ion)?)[ \t_-]*(?:set[ \t_-]*)?(?:transforms?|tfms|preprocess\w*)"
                              r"[ \t]*[:=][ \t]*Compose\(")
_NORMALIZE = re.compile(r"Normalize\(\s*mean\s*=\s*[\[(]?([^\])]*)[\])]?\s*,\s*std\s*=\s*[\[(]?([^\])]*)")
TRANSFORM_SPAN = 2000      # characters of a printed Compose(...) read after its opening


def _compose_body(text: str, at: int) -> str | None:
    """The printed Compose( ... ) from `at` (just after its opening parenthesis) to its closing one; None where it runs
    past TRANSFORM_SPAN (a long AutoAugment policy: its Normalize may lie beyond what is read)."""
    depth, i, end = 1, at, min(len(text), at + TRANSFORM_SPAN)
    while i < end and depth:
        ch = text[i]
        depth += ch == "("
        depth -= ch == ")"
        i += 1
    return text[at:i] if depth == 0 else None


def _floats(s: str) -> tuple[float, ...]:
    return tuple(float(x) for x in re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", s))


def transforms_differ(art: TextArtifact) -> Signal | None:
    """`log:eval_preprocessing_differs`: the transforms a log prints for two splits normalise differently: one has
    Normalize(mean, std) and another none, or other constants (a re-ID run's query transform without the
    Normalize its gallery and training transforms have). Augmentations that differ are not compared."""
    head = art.text[:CHECKPOINT_HEAD]
    if "Compose(" not in head:
        return None
    seen: dict[str, tuple[tuple[float, ...] | None, int]] = {}
    for m in _SPLIT_TRANSFORM.finditer(head):
        body = _compose_body(head, m.end())
        n = _NORMALIZE.search(body) if body is not None else None
        if body is None or ("Normalize" in body and not n):
            continue        # (cut off, or a Normalize spelled another way: positional, albumentations': unknown)
        norm = _floats(n.group(1) + " " + n.group(2)) if n else None
        seen.setdefault(m.group("split").lower(), (norm, art.line_of(m.start("split"))))

    def same(a: tuple[float, ...] | None, b: tuple[float, ...] | None) -> bool:
        return a is None and b is None or a is not None and b is not None and len(a) == len(b) and all(
            abs(x - y) <= 1e-3 * max(1.0, abs(x)) for x, y in zip(a, b))
    ka, (na, la) = next(((k, v) for k, v in seen.items() if v[0] is not None), ("", (None, 0)))
    kb, (nb, lb) = next(((k, v) for k, v in seen.items() if not same(v[0], na)), ("", (None, 0)))
    if na is None or not kb:
        return None
    what = "no Normalize" if nb is None else f"Normalize with {', '.join(f'{x:g}' for x in nb)}"
    txt = (f"the {ka} transform normalises with {', '.join(f'{x:g}' for x in na)} ({art.path}:{la}) and the {kb} transform "
           f"has {what} ({art.path}:{lb}): the splits' inputs are on different scales")
    return Signal("log:eval_preprocessing_differs", 0.8, txt,
                  [Evidence(f"{ka} transform", art.path, la, quote=art.line(la)),
                   Evidence(f"{kb} transform", art.path, lb, quote=art.line(lb))], {"splits": [ka, kb]})


# --------------------------------------------------------------------------- weights of another run

# A weights file in a folder (group 1), as saves, loads and evaluation flags name it
_WEIGHTS_FILE = r"((?:[\w.~-]+/)+[\w.-]+\.(?:pt|pth|ckpt|bin|safetensors|h5|keras|pkl|tar))\b"
# Where a run says it wrote its results ("Results saved to runs/train/exp2", "Saving model checkpoint to
# out/checkpoint-500", "model saved in ckpt/run3/") and which weights file a later step loads ("Loaded weights:
# runs/train/exp/best.pt", "loading checkpoint 'ckpt/run2/model.pth'"), read in the head of each log or post.
_SAVED_TO = re.compile(r"(?i)\b(?:sav(?:ed?|ing)|logging\s+results|writ(?:ten|ing))\b[^\n]{0,40}?\b(?:to|in|at|into|under)\s+"
                       r"['\"`]?(?:\x1b\[[\d;]*m)?(/?(?:[\w.~-]+/)+[\w.-]+)/?")
# ... or names the weights file it saved with no preposition ("new best val_acc 0.7770 -> saved runs/exp13/best.pt")
_SAVED_FILE = re.compile(r"(?i)\bsav(?:ed?|ing)\b[^\n/]{0,20}?[\s:=>'\"`]" + _WEIGHTS_FILE)
# A text that trains (a word of training, or a line that starts with its epoch): a load in a text without them and without
# saves of its own is another job (an evaluation's output, "loaded runs/exp12/best.pt (epoch 1)"), compared with the saves
# of the run's other texts
_TRAINS = re.compile(r"(?im)(?<![\w/\\.])train|^[^\w\n]*epoch\b")     # (not a path's folder: runs/detect/train/...)
_LOADED = re.compile(r"(?i)\b(?:load(?:ed|ing|s)?|restor(?:ed|ing|es))\b[^\n]{0,60}?['\"`:=\s]" + _WEIGHTS_FILE)
CHECKPOINT_HEAD = 262144
# An evaluation job's command that names its weights by a flag ("python3 -m espnet2.bin.asr_inference ... --asr_model_file
# exp/asr_train_v1/valid.acc.ave.pth --output_dir exp/asr_train_v2/decode"): a load too, and, being another job, it is
# compared with the folders any of the run's texts saved to (not only those printed before it in its own text).
_COMMAND_SCRIPT = re.compile(r"[#$> \t]*(?:\S*python\S*[ \t]+(?:-m[ \t]+)?)?(\S+)")
_EVAL_WORDS = frozenset({"infer", "inference", "decode", "decoding", "eval", "evaluate", "evaluation", "test", "predict",
                         "transcribe", "generate"})


def _evaluation_command(line: str) -> bool:
    """The line runs an evaluation job: its script or module name holds one of _EVAL_WORDS as a whole word, and no
    word of a training job ("train_and_eval.py" trains)."""
    m = _COMMAND_SCRIPT.match(line)
    words = set(re.split(r"[._/\-]+", m.group(1).lower())) if m else set()
    return bool(words & _EVAL_WORDS) and not any(w.startswith("train") for w in words)


_FLAG_LOADED = re.compile(r"--\w*(?:model_file|model_path|checkpoint|ckpt|weights|model)\w*[= ]+['\"]?" + _WEIGHTS_FILE)


def _parts(p: str) -> tuple[str, ...]:
    return tuple(x for x in p.replace("\\", "/").split("/") if x not in ("", "."))


def _loaded_checkpoints(run: Run) -> list[tuple[str, TextArtifact, int]]:
    """(path, text, offset) of each weights file a log says it loaded (_LOADED, in the head of each log): read once
    by text_signals and handed to the two readings below."""
    return [(m.group(1), art, m.start(1)) for art in run.texts
            if art.kind in LOG_KINDS and "/" in (head := art.text[:CHECKPOINT_HEAD]) for m in _LOADED.finditer(head)]


def _saved_into(folder: tuple[str, ...], saved: list[tuple[tuple[str, ...], TextArtifact, int]]) -> bool:
    """Whether `folder` is one the run saved to, inside one, or holds one."""
    return any(folder[:len(sp)] == sp or sp[:len(folder)] == folder for sp, _, _ in saved)


def checkpoint_of_other_run(run: Run, loaded: list[tuple[str, TextArtifact, int]] | None = None) -> Signal | None:
    """log:checkpoint_other_run: a weights file loaded from a folder beside the one the run wrote its results to
    (runs/train/exp/best.pt loaded after "Results saved to runs/train/exp2"), neither that folder nor under it, nor
    one the run saved to: an older run's weights evaluated in place of the new ones (YOLO-style exp, exp2, ...)."""
    saved: list[tuple[tuple[str, ...], TextArtifact, int]] = []
    loads = [(_parts(path), art, off) for path, art, off in (_loaded_checkpoints(run) if loaded is None else loaded)]
    jobs: set[int] = set()     # loads named by an evaluation command's flags (another job than the training)
    for art in run.texts:
        if art.kind not in LOG_KINDS:
            continue
        head = art.text[:CHECKPOINT_HEAD]
        if "/" not in head:
            continue
        saved += [(_parts(m.group(1)), art, m.start(1)) for rx in (_SAVED_TO, _SAVED_FILE) for m in rx.finditer(head)]
        for m in _FLAG_LOADED.finditer(head) if "--" in head else ():
            start = head.rfind("\n", 0, m.start()) + 1
            end = head.find("\n", m.end())
            if _evaluation_command(head[start:end if end >= 0 else len(head)]):
                loads.append((_parts(m.group(1)), art, m.start(1)))
                jobs.add(len(loads) - 1)
    # a text with no saves and no training of its own is another job; one that also loads from a folder the run saved
    # to evaluates the run's weights, its other loads being a backbone or a baseline it compares with
    savers = {id(a) for _, a, _ in saved}
    own = {id(art) for lp, art, _ in loads if _saved_into(lp[:-1], saved)}
    job_texts = {id(a): a for _, a, _ in loads if id(a) not in savers and id(a) not in own}
    trains = {k: bool(_TRAINS.search(a.text[:CHECKPOINT_HEAD])) for k, a in job_texts.items()}     # (once a text)
    jobs.update(i for i, (_, art, _) in enumerate(loads) if id(art) in trains and not trains[id(art)])
    for n_load, (lp, art, off) in enumerate(loads):
        folder = lp[:-1]
        if not folder or _saved_into(folder, saved):
            continue        # its own output (or a folder it saved into): the run's weights
        # (only saves printed before it in the same text: a load before the run's saves is a warm start or a resume;
        # an evaluation job's flags against any text's saves)
        for sp, sart, soff in [x for x in saved if n_load in jobs or (x[1] is art and x[2] < off)]:
            sdir = sp[:-1] if "." in sp[-1] else sp
            anc = folder[:len(sdir)]       # the loaded folder, or the one above it at the saved folder's depth
            if len(anc) == len(sdir) >= 2 and anc[:-1] == sdir[:-1] and anc[-1] != sdir[-1]:
                line, sline = art.line_of(off), sart.line_of(soff)
                txt = (f"weights loaded from {'/'.join(lp)} ({art.path}:{line}), a folder beside "
                       f"{'/'.join(sdir)} where this run saved its results ({sart.path}:{sline}): another run's weights")
                return Signal("log:checkpoint_other_run", 0.8, txt,
                              [Evidence(text="results saved here", source=sart.path, line=sline, quote=sart.line(sline)),
                               Evidence(text=txt, source=art.path, line=line, quote=art.line(line))],
                              {"loaded": "/".join(lp), "saved": "/".join(sdir)})
    return None


# The epoch (or step) a checkpoint's file name carries: "epoch_9.pt", "model-epoch=09.ckpt", "checkpoint-500",
# "step_1200.pth". A "best" / "last" file names no epoch the run went past.
_CKPT_EPOCH = re.compile(r"(?i)(?:^|[_\-./=])(?:epoch|ep)[_\-=]?(\d+)(?=[_\-.])")
_CKPT_STEP = re.compile(r"(?i)(?:^|[_\-./=])(?:step|iter|checkpoint|ckpt|global_step)[_\-=]?(\d+)(?=[_\-.]|$)")
# How far below the run's best validation score the loaded checkpoint's own epoch must sit: 5 points of accuracy,
# or a validation loss 20 % above the best.
STALE_ACC_GAP = 0.05
STALE_LOSS_RATIO = 1.2


def checkpoint_of_earlier_epoch(run: Run, loaded: list[tuple[str, TextArtifact, int]] | None = None) -> Signal | None:
    """log:checkpoint_stale: weights loaded from a file named for an epoch (or step) the run trained past, whose own
    validation score in the run's log is well below the best the run reached later ("restored weights from
    checkpoints/epoch_9.pt" after 24 epochs ending at val_acc 0.986, epoch 9's 0.76): the evaluation scores an
    early checkpoint, neither the best nor the last (a text sort of the names, a wrong glob, a stale path)."""
    for path, art, off in _loaded_checkpoints(run) if loaded is None else loaded:
        name = path.rsplit("/", 1)[-1]
        if re.search(r"(?i)best|last|final|latest", name):
            continue
        for rx, by_epoch in ((_CKPT_EPOCH, True), (_CKPT_STEP, False)):
            if (m := rx.search(name)) is None:
                continue
            at = int(m.group(1))
            # (training that goes on past it in the same text: a resume or a warm start, no evaluation)
            later = _EPOCH if by_epoch else _STEP
            if any(int(x.group(1)) > at for x in islice(later.finditer(art.text, off), 200)):
                continue
            # the accuracy when the run logs one (a loss that still falls after the accuracy has peaked is no worse model)
            found = [(s, higher) for metric, higher in (("val_accuracy", True), ("val_loss", False))
                     if (s := _series_over(run, metric, by_epoch)) is not None][:1]
            for (steps, vals), higher in found:
                metric = "val_accuracy" if higher else "val_loss"
                if at not in steps or at >= max(steps):
                    continue
                v = vals[steps.index(at)]
                best_i = max(range(len(vals)), key=lambda i: vals[i] if higher else -vals[i])
                best = vals[best_i]
                scale = 100.0 if higher and best > 1.5 else 1.0
                stale = (best - v) / scale >= STALE_ACC_GAP if higher else v >= STALE_LOSS_RATIO * best > 0
                if steps[best_i] > at and stale:
                    line = art.line_of(off)
                    what = "epoch" if by_epoch else "step"
                    txt = (f"weights loaded from {path} ({art.path}:{line}), {what} {at} of a run that went on to {what} "
                           f"{max(steps)}: its {metric} there was {v:g}, the run's best {best:g} at {what} {steps[best_i]}"
                           " (an early checkpoint evaluated, neither the best nor the last)")
                    return Signal("log:checkpoint_stale", 0.8, txt,
                                  [Evidence(text=txt, source=art.path, line=line, quote=art.line(line))],
                                  {"loaded": path, "at": at, "best_at": steps[best_i]})
    return None


def _series_over(run: Run, metric: str, by_epoch: bool) -> tuple[list[int], list[float]] | None:
    """The longest `metric` series as (steps, finite values), its steps read as epochs when `by_epoch` (a series
    logged once per epoch whose steps are the epoch numbers, or with an epoch series of the same steps beside it)."""
    cands = sorted((s for s in run.series if s.name == metric and len(s) >= 3), key=len, reverse=True)
    for s in cands:
        if s.step_is_index and not by_epoch:
            continue        # (its steps are the points' indices, no step numbers)
        pairs = [(int(st), float(v)) for st, v in zip(s.steps, s.values) if v == v and abs(v) != float("inf")]
        if len(pairs) < 3:
            continue
        steps = [p[0] for p in pairs]
        if by_epoch:
            ep = next((e for e in run.series if e.name == "epoch" and e.source == s.source and len(e) == len(s)), None)
            if ep is None or any(int(a) != int(b) for a, b in zip(ep.steps, ep.values) if b == b):
                continue        # its steps are not the epoch numbers
        return steps, [p[1] for p in pairs]
    return None


# --------------------------------------------------------------------------- one model, two scores

# Two result lines of one evaluation printed the same way ("accuracy: 0.8841   f1: 0.8841" by the old script,
# "accuracy: 0.8841   f1: 0.7012" by the new one): the same predictions (one metric equal to its last digit) and
# another metric that moved. Read in the head of a text (a post), on lines of two to six "name: number" pairs.
_SCORE_NAME = (r"acc(?:uracy)?|f1(?:[_-]?(?:score|macro|micro|weighted))?|precision|recall|auc|roc_auc|map(?:50)?"
               r"|bleu|rouge\w*|wer|cer|iou|miou|dice|top1|top5|exact_match|em")
# (a name may carry its split's prefix, "eval_acc"; a loss equal to its last digit is the same predictions as well,
# "eval_loss=0.5416 eval_acc=0.7850" before a refactor and "eval_loss=0.5416 eval_acc=0.5738" after it, but a loss
# that moved is a changed model, never the metric that moved)
_PAIR_NAME = rf"(?:[a-z0-9]+_)?(?:{_SCORE_NAME}|loss)"
# ("acc: 0.7167", "acc=0.7167", or a logger's "acc 0.7167 | f1 0.7005")
_SCORE_VALUE = r"(?:\s*[:=]\s*|[ \t]+)(?:\d*\.\d+|\d+)"
_SCORE_PAIR = re.compile(rf"\b({_PAIR_NAME})(?:\s*[:=]\s*|[ \t]+)(\d*\.\d+|\d+)(%?)(?![A-Za-z_])", re.I)   # (not "{acc:.4f}")
_TWO_SCORES = re.compile(rf"\b(?:{_PAIR_NAME}){_SCORE_VALUE}[^\n]{{0,200}}?\b(?:{_PAIR_NAME}){_SCORE_VALUE}", re.I)
METRIC_PAIR_HEAD = 65536
_SCORE_WORDS = ("acc", "f1", "precision", "recall", "auc", "map", "bleu", "rouge", "wer", "cer", "iou", "dice", "top1",
                "top5", "exact_match", "loss")
# lines of a training log (an epoch's or a step's scores, a class's row of a report) are no two evaluations of one model
_PROGRESS_WORDS = re.compile(r"\b(?:epoch|ep|step|iter(?:ation)?|batch|class|fold|round)\b", re.I)
METRIC_MOVED = 0.02


def metric_disagrees(art: TextArtifact, seen: dict) -> Signal | None:
    """log:metric_disagrees: two lines scoring one model with the same metrics, where one metric is equal to its
    last printed digit and another differs by METRIC_MOVED or more: the predictions are the same, so the
    difference is in how the other metric is computed (its averaging, threshold or ignored labels). `seen`: the
    lines of the log texts read before (text_signals reads them in turn), filled with this one's."""
    # (one search over the head, then the lines that hold two pairs or more: a log of many small files pays one
    # regex call each, not one a line)
    head = art.text[:METRIC_PAIR_HEAD].lower()
    if sum(w in head for w in _SCORE_WORDS) < 2 or _TWO_SCORES.search(head) is None:
        return None     # (two metrics' names somewhere first, by finds in C: most logs stop there)
    found = list(_SCORE_PAIR.finditer(art.text, 0, METRIC_PAIR_HEAD))
    if len(found) < 2:
        return None
    by_line: dict[int, list[tuple[str, str, str]]] = {}
    for m in found:
        by_line.setdefault(art.line_of(m.start()), []).append((m.group(1), m.group(2), m.group(3)))
    for ln_no, pairs in sorted(by_line.items()):
        if not 2 <= len(pairs) <= 6 or _PROGRESS_WORDS.search(art.line(ln_no)):
            continue
        vals = {k.lower(): v + pct for k, v, pct in pairs}
        if len(vals) < len(pairs):
            continue
        key = tuple(sorted(vals))
        if key in seen:
            art0, line0, before = seen[key]
            same = [k for k in key if before[k] == vals[k] and len(before[k].rstrip("%").partition(".")[2]) >= 3]
            moved = [k for k in key if k not in same and abs(_score_value(before[k]) - _score_value(vals[k])) >= METRIC_MOVED]
            if any(k.endswith("loss") and before[k] != vals[k] for k in key):
                moved = []      # the model's outputs changed (a training log's next line)
            if same and moved:
                k = moved[0]
                words = (f"{same[0]} is {vals[same[0]]} on both lines while {k} goes from {before[k]} to {vals[k]}: the same "
                         f"predictions scored two ways (the metric's computation changed)")
                return Signal("log:metric_disagrees", 0.8, words,
                              [Evidence(text=f"{k} = {before[k]}", source=art0.path, line=line0, quote=art0.line(line0).strip()),
                               Evidence(text=words, source=art.path, line=ln_no, quote=art.line(ln_no).strip())],
                              {"same": same[0], "moved": k, "before": before[k], "after": vals[k]})
        else:
            seen[key] = (art, ln_no, vals)
    return None


def _score_value(v: str) -> float:
    return float(v.rstrip("%")) / (100.0 if v.endswith("%") else 1.0)


# --------------------------------------------------------------------------- a NaN check's traceback, at a math op

# A NaN checker's error (JAX's jax_debug_nans, numpy's seterr(all="raise"), torch's anomaly mode) and, within
# NAN_FRAME_CHARS of it, a traceback frame whose source line takes a log, a square root, a power or a reciprocal:
# where the NaN starts (log(0) of a saturated sigmoid, sqrt of 0's gradient)
_NAN_CHECK = re.compile(r"FloatingPointError: invalid value \(nan\) encountered|FloatingPointError: (?:invalid value|divide by zero)"
                        r" encountered in|RuntimeError: Function '\w+' returned nan values")
_FRAME_LINE = re.compile(r"File \"[^\"\n]+\", line \d+, in [^\n]+\n[ \t]+(?P<code>[^\n]+)")
_FRAME_MATH_CALL = re.compile(r"\b(?:torch|jnp|np|numpy|tf|tf\.math|math|F|jax\.numpy|mx\.nd|paddle|ops)\."
                        r"(?:log|log1p|log2|log10|sqrt|rsqrt|reciprocal|arccos|arcsin|acos|asin|power|pow)\(")
NAN_FRAME_CHARS = 4000


def nan_at_math_line(art: TextArtifact) -> Signal | None:
    """log:anomaly_math from a NaN checker's traceback whose frame's source line calls log / sqrt / pow / a
    reciprocal (see _NAN_CHECK): `return -jnp.mean(y * jnp.log(p) + ...)` under "FloatingPointError: invalid
    value (nan) encountered in mul"."""
    text = art.text
    if "FloatingPointError" not in text and "returned nan values" not in text:
        return None     # (what _NAN_CHECK needs, by finds in C: most logs stop here)
    m = _NAN_CHECK.search(text)
    if m is None:
        return None
    lo, hi = max(0, m.start() - NAN_FRAME_CHARS), min(len(text), m.end() + NAN_FRAME_CHARS)
    for fr in _FRAME_LINE.finditer(text, lo, hi):
        code = fr.group("code")
        if (op := _FRAME_MATH_CALL.search(code)) is not None:
            line = art.line_of(fr.start("code"))
            fn = op.group(0)[:-1].rsplit(".", 1)[-1]
            words = f"the NaN check stops in a frame that takes {fn}(): `{code.strip()[:80]}`"
            return Signal("log:anomaly_math", 0.8, words, [Evidence(text=words, source=art.path, line=line,
                                                                    quote=art.line(line).strip())], {"function": fn})
    return None


# --------------------------------------------------------------------------- input statistics, printed bare

# `print(X_train.shape, X_train.dtype, X_train.min(), X_train.max(), X_train.mean())` in a notebook or a post, its
# output on a following line ("(12000, 64, 64, 3) float32 0.0 255.0 118.74213"): the numbers are named by the call,
# not on their own line, so they are paired with its arguments. Texts up to INPUT_STATS_CHARS.
INPUT_STATS_CHARS = 200_000
_PRINT_CALL = re.compile(r"^[ \t]*(?:>>> )?print\((?P<args>.*)\)[ \t]*$", re.M)
_STAT_CALL = ("min", "max", "mean", "std", "amin", "amax")
_INPUT_HEAD = re.compile(r"(?:x|xb|x_\w*|inputs?|batch|images?|imgs?|pixels?|data|features?|samples?|train_x|arr)$", re.I)
_OUT_TOKEN = re.compile(r"\([^()\n]*\)|\[[^\[\]\n]*\]|tensor\([^()\n]*\)|\S+")


# pandas' describe() of a frame, transposed (`X.describe().T`: a column per statistic, a row per feature) or as
# printed (a row per statistic, the features across; a wide frame wrapped in blocks whose header line ends in "\\");
# pandas' "..." for what the width hides.
_DESCRIBE_STATS = {"count", "mean", "std", "min", "25%", "50%", "75%", "max", "..."}
_NUM_OR_GAP = re.compile(rf"(?:{_STAT_NUM.pattern}|\.\.\.)\Z")
# (possessive: a line of blanks costs one pass)
_DESCRIBE_T_HEAD = re.compile(r"^[ \t]*+count[ \t]++mean(?:[ \t]++\S++)*+[ \t]*+\r?$", re.M)
DESCRIBE_SCAN_CHARS = 400_000
# A feature is standardised when |mean| <= SCALED_MEAN and its std is within SCALED_STD (or, where the width hid the
# std, |mean| <= SCALED_MEAN). 0/1 columns (one-hot, flags: mean in [0, 1], std <= 0.5) count neither way. A table
# with SCALED_MIN standardised columns or more, SCALED_SHARE of the rest at least, and a column whose std is
# UNSCALED_RATIO times theirs, UNSCALED_STD at least (where the std is hidden: a mean of UNSCALED_MEAN_ALONE or
# more), was standardised but for that column: the preprocessing left it out. Identifiers, dates and targets
# (customer_id, year, label) are not read as features.
SCALED_MEAN = 0.1
SCALED_STD = (0.8, 1.2)
SCALED_MIN = 3
SCALED_SHARE = 0.5
UNSCALED_RATIO = 100.0
UNSCALED_MEAN_ALONE = 100.0
_NOT_FEATURE = re.compile(r"(?:^|_)(?:id|idx|index|year|date|time|timestamp|target|label|labels|y)$", re.I)

_Described = list[tuple[str, float, float | None, int]]     # (feature, mean, std or None, the line that shows it)


def _num(tok: str) -> float | None:
    return None if tok == "..." else float(tok)


def _describe_rows(art: TextArtifact, head: str) -> list[_Described]:
    """Each describe() table in `head`: [(feature, mean, std or None where hidden, the line that shows it)]."""
    tables: list[_Described] = []
    for m in _DESCRIBE_T_HEAD.finditer(head):
        cols = m.group(0).split()
        if cols[-1] != "max" or not set(cols) <= _DESCRIBE_STATS:
            continue
        line = art.line_of(m.start()) + 1
        rows: _Described = []
        while line <= art.n_lines:
            toks = art.line(line).split()
            if len(toks) != len(cols) + 1 or not all(_NUM_OR_GAP.match(t) for t in toks[1:]):
                break
            got = dict(zip(cols, toks[1:]))
            if (mu := _num(got["mean"])) is not None:
                rows.append((toks[0], mu, _num(got.get("std", "...")), line))
            line += 1
        if rows:
            tables.append(rows)
    if "\nmean " in head and "\nstd " in head:
        lines = head.split("\n")
        rows, wrapped = [], False
        for i in range(1, len(lines) - 2):
            if not lines[i].startswith("count ") or not lines[i + 1].startswith("mean ") or not lines[i + 2].startswith("std "):
                continue
            header = lines[i - 1].rstrip()
            if rows and not wrapped:
                tables.append(rows)         # (a block that does not continue a wrapped one starts a new table)
                rows = []
            wrapped = header.endswith("\\")
            names = header.rstrip("\\").split()
            mean, std = lines[i + 1].rstrip(" \\").split()[1:], lines[i + 2].rstrip(" \\").split()[1:]
            if not (len(names) == len(mean) == len(std)) or not all(_NUM_OR_GAP.match(t) for t in mean + std):
                continue
            rows += [(n, mu, _num(sd), i + 3) for n, mu_t, sd in zip(names, mean, std)
                     if n != "..." and (mu := _num(mu_t)) is not None]
        if rows:
            tables.append(rows)
    return tables


def described_unscaled(art: TextArtifact) -> Signal | None:
    """log:inputs_unscaled from a printed describe() of features that are standardised but for a few columns left at
    their raw size (an income column of std 40,000 beside columns of mean 0 and std 1)."""
    head = art.text[:DESCRIBE_SCAN_CHARS]
    if "count " not in head or "mean " not in head or "max" not in head:
        return None
    for rows in _describe_rows(art, head):
        feats = [r for r in rows if not _NOT_FEATURE.search(r[0])]
        flags = [r for r in feats if 0 <= r[1] <= 1 and r[2] is not None and r[2] <= 0.5 and abs(r[1]) > SCALED_MEAN]
        ok = [r for r in feats if abs(r[1]) <= SCALED_MEAN and (r[2] is None or SCALED_STD[0] <= r[2] <= SCALED_STD[1])]
        if len(ok) < SCALED_MIN or len(ok) < SCALED_SHARE * (len(feats) - len(flags)):
            continue
        top = max(r[2] if r[2] is not None else 1.0 for r in ok)
        wild = [r for r in feats if (r[2] >= max(UNSCALED_STD, UNSCALED_RATIO * top) if r[2] is not None
                                     else abs(r[1]) >= UNSCALED_MEAN_ALONE)]
        if not wild:
            continue
        n, mu, sd, at = max(wild, key=lambda r: r[2] if r[2] is not None else abs(r[1]))
        spread = f"mean {mu:g} and std {sd:g}" if sd is not None else f"mean {mu:g}"
        txt = (f"{n} is printed with {spread} beside {len(ok)} columns standardised to mean 0 / std 1: the "
               f"preprocessing left {len(wild)} column{'s' if len(wild) > 1 else ''} unscaled")
        ev = Evidence(text=txt, source=art.path, line=at, quote=art.line(at).strip()[:300])
        return Signal("log:inputs_unscaled", 0.8, txt, [ev], {"column": n, "std": sd, "columns": [w[0] for w in wild]})
    return None


def _stat_of(node: ast.expr) -> tuple[str, str] | None:
    """(statistic, the array's name) for `X.max()`, `np.max(X)`, `X.max().item()`; None otherwise."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item":
        node = node.func.value
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr in _STAT_CALL and not node.args:
        base, stat = f.value, f.attr
    elif isinstance(f, ast.Attribute) and f.attr in _STAT_CALL and node.args:
        # `np.max(X)`, or the array's own method over an axis (`X.mean(0)`, `xb.std(dim=0)`)
        own = _INPUT_HEAD.match(re.split(r"[.\[]", ast.unparse(f.value), maxsplit=1)[0])
        base, stat = (f.value if own and isinstance(node.args[0], ast.Constant) else node.args[0]), f.attr
    else:
        return None
    name = ast.unparse(base)
    head = re.split(r"[.\[]", name, maxsplit=1)[0]
    return (stat.replace("amin", "min").replace("amax", "max"), name) if _INPUT_HEAD.match(head) else None


# An interactive session's input cell that evaluates an input array's statistics (`In [14]: X.mean(0), X.std(0)`,
# `>>> xb.mean(), xb.std()`), its value shown in the lines after it (IPython's "Out[14]: (tensor([...]), tensor([...]))")
_REPL_STATS = re.compile(r"^(?:In \[\d+\]:|>>>)[ \t]*(?P<expr>[^\n]*\.(?:mean|std|max)\([^\n]*?)[ \t]*\r?$", re.M)
_REPL_VALUE = re.compile(rf"(?:tensor|array)\(\[[^\]\n]*\]\)?|\[[^\[\]\n]*\]|{_STAT_NUM.pattern}")
REPL_OUT_LINES = 6


def repl_input_stats(art: TextArtifact) -> Signal | None:
    """log:inputs_unscaled from an interactive session's cell that evaluates an input array's mean and std (or max):
    its shown value, read in the expression's order, as printed_input_stats reads a print()'s output."""
    text = art.text
    if len(text) > INPUT_STATS_CHARS or ("In [" not in text and ">>>" not in text):
        return None
    read: set[str] = set()
    # (the latest such cell of an array speaks for it: raw statistics, then the array standardised and shown again,
    # are inputs that were scaled)
    for m in reversed(list(_REPL_STATS.finditer(text))):
        try:
            node = ast.parse(m.group("expr").strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        stats = [_stat_of(e) for e in (node.elts if isinstance(node, ast.Tuple) else [node])]
        if sum(x is not None for x in stats) < 2:
            continue
        names = {x[1] for x in stats if x is not None}
        if names & read:
            continue
        read |= names
        line = art.line_of(m.start())
        shown: list[str] = []
        first = 0
        for n in range(line + 1, min(art.n_lines, line + REPL_OUT_LINES) + 1):
            row = art.line(n)
            if REPL_CONTINUED.match(row):
                continue        # (the cell's own continuation lines)
            if REPL_PROMPT.match(row):
                break
            first = first or n
            shown.append(re.sub(r"^Out\[\d+\]:", "", row))
        values = _REPL_VALUE.findall(" ".join(shown))
        if len(values) != len(stats) or not first:
            continue
        named = " ".join(f"{st[0]}={v}" for st, v in zip(stats, values) if st is not None)
        if (data := _input_stats_data(named)) is None:
            continue
        words = f"the session's printed input statistics show raw, unscaled values ({named[:200]})"
        return Signal("log:inputs_unscaled", 0.7, words,
                      [Evidence(text=words, source=art.path, line=first, quote=art.line(first).strip()[:300]),
                       Evidence(text="the cell that asks for them", source=art.path, line=line,
                                quote=art.line(line).strip())], data)
    return None


def printed_input_stats(art: TextArtifact) -> Signal | None:
    """log:inputs_unscaled from a print() of an input array's statistics and its output (see _PRINT_CALL)."""
    text = art.text
    if len(text) > INPUT_STATS_CHARS or "print(" not in text or not any(f".{s}(" in text for s in ("max", "mean")):
        return None
    for m in _PRINT_CALL.finditer(text):
        try:
            call = ast.parse("f(" + m.group("args") + ")", mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if not isinstance(call, ast.Call) or call.keywords:
            continue
        stats = [_stat_of(a) for a in call.args]
        if sum(x is not None for x in stats) < 2:
            continue
        line = art.line_of(m.start())
        # the output of the k-th print of a cell is the k-th line after the cell's code (past blank lines and a
        # notebook's "Out[2]:")
        is_print = lambda i: art.line(i).lstrip().startswith(("print(", ">>> print("))     # noqa: E731
        idx = next(j for j in range(line) if not (line - j - 1 >= 1 and is_print(line - j - 1)))   # prints above
        k, n = 0, line + 1
        while n <= art.n_lines and n <= line + 12 and is_print(n):
            n += 1
        for n in range(n, min(art.n_lines, n + 12) + 1):
            out_line = art.line(n).strip()
            if not out_line or re.fullmatch(r"Out\[\d*\]:?|#.*", out_line):
                continue
            k += 1
            if k <= idx:        # (an earlier print's output)
                continue
            if k > idx + 1:
                break
            if "=" in out_line or out_line.startswith(("print(", ">>>", "In [")):
                break
            tokens = _OUT_TOKEN.findall(out_line)
            if len(tokens) != len(stats):
                break
            named = " ".join(f"{st[0]}={tok}" for st, tok in zip(stats, tokens) if st is not None)
            data = _input_stats_data(named)
            if data is None:
                break
            words = f"printed input statistics show raw, unscaled values ({named})"
            return Signal("log:inputs_unscaled", 0.7, words,
                          [Evidence(text=words, source=art.path, line=n, quote=art.line(n).strip()),
                           Evidence(text="the print() that names them", source=art.path, line=line,
                                    quote=art.line(line).strip())], data)
    return None


# --------------------------------------------------------------------------- dead units, per layer

# A printed table of each layer's share of units that never fire ("fc1 0.873", "relu2: 99.6%"), under a header
# or a comment within DEAD_HEADER_LINES lines above it that says what it counts ("# fraction of hidden units that
# are zero for EVERY sample", "dead ReLU share per layer"). Read in texts up to DEAD_TABLE_CHARS.
DEAD_TABLE_CHARS = 200_000
DEAD_HEADER_LINES = 8
# the words a dead-unit table's header uses, and a layer's name in its rows (conv1, relu_2, encoder.layer.3)
_DEAD_WORDS = r"\b(?:dead|zeros?|inactive|never\s+(?:fire|activ)\w*)\b"
_LAYER_NAME = r"(?P<name>[A-Za-z_][\w.]{0,60}?\d[\w.]{0,20}|[A-Za-z_]\w{0,40}\.[\w.]{1,40})"
_DEAD_HEADER = re.compile(rf"^(?=[^\n]*{_DEAD_WORDS})"
                          r"(?=[^\n]*(?:fraction|share|ratio|proportion|percent|%|rate))", re.I)
_DEAD_ROW = re.compile(rf"^[ \t|]*{_LAYER_NAME}[ \t]*[:=|]?[ \t]*"
                       r"(?P<v>0?\.\d+|1\.0*|[01]|\d{1,3}(?:\.\d+)?[ \t]*%)[ \t]*\|?[ \t]*\r?$", re.M)
DEAD_LINE_CHARS = 200      # a table row or its header is a short line; longer ones are not tried
# ... or a wider table, a row per layer with its unit count and how many of them are dead (a share in brackets and
# other columns may follow): "relu_1   256   249 (97.3%)   0.0041", under a header that names dead or zero units
# ("layer  units  zero for all inputs  mean activation")
_DEAD_WIDE_ROW = re.compile(rf"^[ \t|]*{_LAYER_NAME}[ \t|]+"
                            r"(?P<units>\d+)[ \t|]+(?P<n>\d+)[ \t]*(?:\([ \t]*\d{1,3}(?:\.\d+)?[ \t]*%[ \t]*\))?"
                            r"(?:[ \t|]+[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?%?)*[ \t|]*\r?$", re.M)
_DEAD_WIDE_HEADER = re.compile(_DEAD_WORDS, re.I)


def dead_table(art: TextArtifact) -> Signal | None:
    """dead_units from a per-layer table of never-firing shares (see _DEAD_HEADER): the largest share, where it
    is half or more."""
    text = art.text
    if len(text) > DEAD_TABLE_CHARS or not any(w in text for w in ("zero", "dead", "Zero", "Dead", "inactive")):
        return None
    for run_ in _row_runs(art, _DEAD_ROW):
        first = run_[0][0]
        if not any(_DEAD_HEADER.match(art.line(n)[:DEAD_LINE_CHARS]) for n in range(max(1, first - DEAD_HEADER_LINES), first)):
            continue
        shares = [(float(m.group("v").rstrip("% \t")) / (100.0 if "%" in m.group("v") else 1.0), line, m)
                  for line, m in run_]
        share, line, m = max(shares, key=lambda x: x[0])
        if share < 0.5 or share > 1.0:
            continue
        return _dead_signal(art, share, line, m.group("name"), len(run_))
    return _dead_wide_table(art)


def _row_runs(art: TextArtifact, row: re.Pattern) -> list[list[tuple[int, re.Match]]]:
    """The runs of consecutive lines `row` matches in a text (two rows at least, each naming another layer), as
    (1-based line, match) lists: a printed per-layer table."""
    runs: list[list[tuple[int, re.Match]]] = []
    for m in row.finditer(art.text):
        if len(m.group(0)) > DEAD_LINE_CHARS:
            continue
        line = art.line_of(m.start())
        if runs and line == runs[-1][-1][0] + 1:
            runs[-1].append((line, m))
        else:
            runs.append([(line, m)])
    return [r for r in runs if len(r) >= 2 and len({m.group("name") for _, m in r}) == len(r)]


def _dead_signal(art: TextArtifact, share: float, line: int, layer: str, layers: int) -> Signal:
    words = f"a per-layer table says {share:.0%} of {layer}'s units never fire (dead ReLUs)"
    return Signal("dead_units", 0.8, words, [Evidence(text=words, source=art.path, line=line, quote=art.line(line).strip())],
                  {"share": share, "layer": layer, "layers": layers})


# A dict printed with each activation layer's share of zero outputs ({'relu1': 0.686, 'relu3': 0.989}: a forward hook's
# reading in a notebook or a debugger), under the expression that computed it ("(v == 0).float().mean()" in the lines
# just above, or the dict's own line): the keys name activation layers, every value a share.
_ZERO_DICT = re.compile(r"\{(?P<body>(?:\s*['\"][\w./-]*(?:relu|act|activation|hidden|layer|block)[\w./-]*['\"]\s*:\s*"
                        r"(?:0?\.\d+|[01](?:\.0+)?)\s*,?){2,40})\s*\}", re.I)
_ZERO_ITEM = re.compile(r"['\"]([\w./-]+)['\"]\s*:\s*(0?\.\d+|[01](?:\.0+)?)")
_ZERO_EXPR = re.compile(r"==\s*0(?![.\d])|<=\s*0(?![.\d])|\bzeros?\b|\bdead\b|\binactive\b", re.I)
ZERO_EXPR_LINES = 4


# A checkpoint's keys printed one a line with their shapes ("module.encoder.0.weight   (128, 24)", "module.fc.bias:
# torch.Size([10])"), three or more in a row and each under DDP's / DataParallel's "module." prefix (the list form is
# a log:ddp_prefixed_keys detector's)
_PREFIXED_KEY_LINE = r"[ \t>]*['\"]?module\.[\w.]+['\"]?[ \t]*[:,]?[ \t]+(?:\(|torch\.Size|\[|tensor\(|\d)[^\n]*"
_PREFIXED_KEY_LINES = re.compile(rf"(?m)^{_PREFIXED_KEY_LINE}(?:\r?\n{_PREFIXED_KEY_LINE}){{2,}}")


_LOAD_CONTEXT = re.compile(r"(?i)\bload|state_dict|checkpoint|ckpt|\.pth?\b|missing|unexpected|strict")
LOAD_CONTEXT_LINES = 4


def prefixed_key_lines(art: TextArtifact) -> Signal | None:
    """log:ddp_prefixed_keys from a checkpoint's keys printed one a line, every one of three or more in a row under
    the "module." prefix: loaded into the bare model with strict=False, none of them matches."""
    if "module." not in art.text:
        return None
    m = _PREFIXED_KEY_LINES.search(art.text)
    if m is None:
        return None
    line = art.line_of(m.start())
    # (a checkpoint's keys, loaded or looked at: not a DDP model printing its own parameters as it trains)
    if not _LOAD_CONTEXT.search("\n".join(art.line(n) for n in range(max(1, line - LOAD_CONTEXT_LINES), line))):
        return None
    n = m.group(0).count("\n") + 1
    txt = f"the checkpoint's keys printed at {art.path}:{line} all carry DDP's 'module.' prefix ({n} of {n})"
    return Signal("log:ddp_prefixed_keys", 0.7, txt,
                  [Evidence(text=txt, source=art.path, line=line, quote=line_quote(art.line(line).rstrip("\r")))],
                  {"keys": n})


def zero_share_dict(art: TextArtifact) -> Signal | None:
    """dead_units from a printed dict of zero shares per activation layer (see _ZERO_DICT): the largest share, where it
    is half or more."""
    text = art.text
    if len(text) > DEAD_TABLE_CHARS or "{" not in text:
        return None
    for m in _ZERO_DICT.finditer(text):
        line = art.line_of(m.start())
        above = "\n".join(art.line(n) for n in range(max(1, line - ZERO_EXPR_LINES), line + 1)).replace(m.group(0), " ")
        if not _ZERO_EXPR.search(above):
            continue
        items = _ZERO_ITEM.findall(m.group("body"))
        share, layer = max((float(v), k) for k, v in items)
        if share >= 0.5:
            return _dead_signal(art, share, line, layer, len(items))
    return None


def _dead_wide_table(art: TextArtifact) -> Signal | None:
    """dead_units from a table of unit counts and dead counts per layer (_DEAD_WIDE_ROW): two rows at least, under
    a header that names dead or zero units; the largest share, where it is half or more."""
    for run_ in _row_runs(art, _DEAD_WIDE_ROW):
        first = run_[0][0]
        if not any(_DEAD_WIDE_HEADER.search(art.line(n)[:DEAD_LINE_CHARS]) for n in range(max(1, first - 2), first)):
            continue
        shares = [(int(m.group("n")) / int(m.group("units")), line, m) for line, m in run_
                  if 0 < int(m.group("units")) and int(m.group("n")) <= int(m.group("units"))]
        if len(shares) < len(run_):
            continue
        share, line, m = max(shares, key=lambda x: x[0])
        if share >= 0.5:
            return _dead_signal(art, share, line, m.group("name"), len(run_))
    return None


# --------------------------------------------------------------------------- parameter budget

# A row of a parameter table: a module name, a count (1,234,567 / 7.9M / 1.2e6) and maybe a share.
_PARAM_ROW = re.compile(
    r"^[^\n\w]{0,40}?(?P<name>[A-Za-z_][\w.\-/]{0,60})\s*(?:\(\w+\))?\s*[:|=]?\s+"
    r"(?P<count>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?\s*[KMB]\b|\d+(?:\.\d+)?e\+?\d+|\d{3,})"
    r"(?:\s*(?:params|parameters|weights))?\s*[|(\s]*(?:(?P<pct>\d{1,3}(?:\.\d+)?)\s*%)?", re.M | re.I)
# Lightning's ModelSummary: "0 | embed | Embedding | 768 K | train" (any prefix such as [rank0]:).
_LIGHTNING_ROW = re.compile(r"^.{0,40}?\b\d+\s*\|\s*(?P<name>[A-Za-z_][\w.\-]*)\s*\|\s*[\w.\[\]]+\s*\|"
                            r"\s*(?P<count>\d+(?:[.,]\d+)*\s*[KMBT]?)\s*(?:\||$)", re.M)
# Parts that are vocabulary-sized: embeddings and the output projection over the vocabulary.
_VOCAB_PART = re.compile(r"emb|wte|wpe|token|vocab|lm_head|tok_|word|proj_out|output|decoder|head|unembed", re.I)
_TOTAL_ROW = re.compile(r"^(total|trainable|all|sum|non-trainable)", re.I)
# Above this share of all parameters in vocabulary-sized parts, the body is starved.
VOCAB_SHARE_HIGH = 0.75
PARAM_SCAN_CHARS = 400_000


def _count(s: str) -> float:
    s = s.replace(",", "").strip()
    mult = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}.get(s[-1:].upper(), 1.0) if s[-1:].isalpha() else 1.0
    return float(s[:-1] if mult != 1.0 else s) * mult


def param_imbalance(art: TextArtifact) -> Signal | None:
    """`log:param_imbalance` from a printed parameter table (3+ modules) whose
    vocabulary-sized parts (embeddings, output head) hold most of the parameters."""
    head = art.text[:PARAM_SCAN_CHARS]
    if "Embedding(" in head and (printed := _repr_rows(head)) and (found := _summary_imbalance(art, printed)):
        return found
    if "param" not in head.lower():     # (a case-blind regex search is ~10x slower than lower + find)
        return None
    rows = [(m.group("name"), _count(m.group("count")), None, m.start()) for m in _LIGHTNING_ROW.finditer(head)]
    if len(rows) < 3 and (summary := _summary_rows(head)) and (found := _summary_imbalance(art, summary)) is not None:
        return found
    for m in ([] if len(rows) >= 3 else _PARAM_ROW.finditer(head)):
        name = m.group("name")
        if _TOTAL_ROW.match(name) or name.lower() in ("step", "epoch", "iter", "loss", "lr"):
            continue
        try:
            rows.append((name, _count(m.group("count")), float(m.group("pct")) if m.group("pct") else None, m.start()))
        except ValueError:
            continue
    # Keep one contiguous table: rows whose offsets are close together.
    if len(rows) < 3:
        return None
    block = [rows[0]]
    for r in rows[1:]:
        if r[3] - block[-1][3] < 300:
            block.append(r)
        elif len(block) < 3:
            block = [r]
        else:
            break
    if len(block) < 3:
        return None
    total = sum(r[1] for r in block)
    if total <= 0:
        return None
    shares = [r[1] / total for r in block]
    vocab = sum(sh for r, sh in zip(block, shares) if _VOCAB_PART.search(r[0]))
    big = max(zip(block, shares), key=lambda t: t[1])
    return _imbalance_signal(art, vocab, block[0][3], big[0][0], big[1])


def _imbalance_signal(art: TextArtifact, vocab: float, at: int, part: str, part_share: float) -> Signal | None:
    """log:param_imbalance where the vocabulary-sized parts hold VOCAB_SHARE_HIGH of the parameters or more (and
    not all of them), cited at the line of offset `at`; `part` the largest, holding `part_share`."""
    if vocab < VOCAB_SHARE_HIGH or vocab > 0.999:
        return None
    line = art.line_of(at) + (1 if art.text[at:at + 1] == "\n" else 0)
    txt = (f"embeddings/output head hold {vocab * 100:.1f}% of the parameters; the rest of the model "
           f"{(1 - vocab) * 100:.1f}% (largest: {part} {part_share * 100:.1f}%)")
    ev = Evidence(text=txt, source=art.path, line=line, quote=art.line(line).strip()[:300])
    return Signal("log:param_imbalance", min(1.0, 0.5 + (vocab - VOCAB_SHARE_HIGH) * 2), txt, [ev],
                  {"share": round(vocab, 4), "part": part})


# A model summary's rows: Keras' `embedding (Embedding)  (None, 20, 512)  25600000` (Keras 3 between │ bars) and
# torchinfo's `├─Embedding: 1-1  [16, 512, 256]  64,000,512`: a layer, its output shape, its parameter count.
_SUMMARY_ROW = re.compile(
    r"^[ \t│|]*(?:[├└│─ \t]*)(?P<name>[A-Za-z_][\w.]*)(?:\s*\((?P<type>[A-Za-z_]\w*)\)|:\s*[\d-]+)?[ \t│|]+"
    r"(?P<shape>\[[^\]\n]*\]|\([^)\n]*\)|--)[ \t│|]+(?P<count>\d{1,3}(?:,\d{3})+|\d+)[ \t│|]*$", re.M)
# an output this wide is a vocabulary's (a Dense(50000) / Linear(256, 250002) head)
VOCAB_WIDE = 10_000


def _summary_rows(head: str) -> list[tuple[str, int, bool, int]]:
    """(layer, parameters, vocabulary-sized, offset) of a printed model summary's rows with parameters: a layer is
    vocabulary-sized by its name or type (embedding, lm_head ...), by an output VOCAB_WIDE or wider, or by a count
    equal to an embedding's (an untied output projection)."""
    if "Param #" not in head:
        return []
    rows = []
    for m in _SUMMARY_ROW.finditer(head):
        n = int(m.group("count").replace(",", ""))
        if n <= 0:
            continue
        dims = [int(d) for d in re.findall(r"\d+", m.group("shape"))]
        label = f"{m.group('name')} {m.group('type') or ''}"
        vocab = bool(_VOCAB_PART.search(label) and re.search(r"emb|wte|vocab|lm_head|tok", label, re.I)) \
            or bool(dims and dims[-1] >= VOCAB_WIDE)
        rows.append((m.group("name"), n, vocab, m.start()))
    embeds = {n for name, n, v, _ in rows if v and re.search(r"emb", name, re.I)}
    return [(name, n, v or any(abs(n - e) <= 0.01 * e for e in embeds), at) for name, n, v, at in rows]


def _summary_imbalance(art: TextArtifact, rows: list[tuple[str, int, bool, int]]) -> Signal | None:
    """log:param_imbalance from a model summary (see _summary_rows): the vocabulary-sized layers hold
    VOCAB_SHARE_HIGH or more of the parameters."""
    total = sum(n for _, n, _, _ in rows)
    if len(rows) < 3 or total <= 0:
        return None
    vocab = sum(n for _, n, v, _ in rows if v) / total
    big = max(rows, key=lambda r: r[1])
    return _imbalance_signal(art, vocab, big[3], big[0], big[1] / total)


# A printed torch module (`print(model)`): `  (emb): Embedding(4000, 256)`, `  (fc): Linear(in_features=64,
# out_features=10, bias=True)`, containers opening with `(name): Type(` and closing with `)` at their indent.
# (possessive: a line of thousands of blanks costs one pass, not a quadratic backtrack; the ")" that closes a leaf
# is taken off its arguments in _repr_rows)
_REPR_LINE = re.compile(r"^(?P<ind>[ \t]*+)\((?P<name>[\w.-]++)\): (?P<type>[A-Za-z_][\w.]*+)\((?P<args>[^\n]*+)", re.M)
# A printed model's body this many times narrower than its embeddings (its widest layer against the embedding width)
BODY_NARROW = 8
_REPR_INT = re.compile(r"(?<![\w.=])(\d+)(?![\w.])")
# Leaves whose printed arguments give their parameter count; any other leaf with arguments is taken to hold none
# (activations, dropout, pooling print theirs too), so a model of unknown layers is not read (see _repr_rows).
_REPR_KNOWN = ("Embedding", "Linear", "Conv", "LSTM", "GRU", "RNN", "BatchNorm", "LayerNorm", "GroupNorm")
_REPR_FREE = re.compile(r"ReLU|GELU|SiLU|Tanh|Sigmoid|Softmax|Dropout|Pool|Identity|Flatten|Upsample|Mish|Swish"
                        r"|ELU|Hardswish|Unflatten|PixelShuffle|Module(List|Dict)|Sequential", re.I)


def _repr_args(args: str) -> tuple[dict[str, str], list[int]]:
    """A printed leaf's keyword arguments (name -> text) and its positional integers."""
    return (dict(re.findall(r"(\w+)=([^,()]+|\([^)]*\))", args)),
            [int(x) for x in _REPR_INT.findall(re.sub(r"\w+=(?:\([^)]*\)|[^,]+)", "", args))])


def _repr_params(typ: str, args: str, kw: dict[str, str], pos: list[int]) -> int | None:
    """The parameters of one printed torch leaf module (its arguments as printed and as _repr_args reads them), or
    None where its arguments do not say."""
    bias = kw.get("bias", "True").strip() != "False"
    if typ.endswith("Embedding") or typ == "EmbeddingBag":
        return pos[0] * pos[1] if len(pos) >= 2 else None
    if typ.endswith("Linear"):
        a, b = kw.get("in_features"), kw.get("out_features")
        if a is None or b is None:
            a, b = (str(pos[0]), str(pos[1])) if len(pos) >= 2 else (None, None)
        return int(a) * int(b) + (int(b) if bias else 0) if a and b and a.isdigit() and b.isdigit() else None
    if re.fullmatch(r"(?:Lazy)?Conv(?:Transpose)?[123]d", typ):
        k = [int(x) for x in re.findall(r"\d+", kw.get("kernel_size", ""))] or pos[2:3]
        groups = int(kw.get("groups", "1")) if kw.get("groups", "1").strip().isdigit() else 1
        if len(pos) < 2 or not k:
            return None
        dims = int(typ[-2])
        kk = 1
        for d in (k * dims)[:dims]:
            kk *= d
        return pos[0] * pos[1] * kk // max(groups, 1) + (pos[1] if bias else 0)
    if typ in ("LSTM", "GRU", "RNN"):
        if len(pos) < 2:
            return None
        gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[typ]
        layers = int(kw.get("num_layers", "1")) if kw.get("num_layers", "1").strip().isdigit() else 1
        dirs = 2 if kw.get("bidirectional", "False").strip() == "True" else 1
        i, h = pos[0], pos[1]
        total = 0
        for layer in range(layers):
            total += dirs * gates * ((i if layer == 0 else h * dirs) * h + h * h + (2 * h if bias else 0))
        return total
    if "Norm" in typ:
        if kw.get("affine", "True").strip() == "False" or kw.get("elementwise_affine", "True").strip() == "False":
            return 0
        if typ == "GroupNorm":          # GroupNorm(num_groups, num_channels)
            return 2 * pos[1] if len(pos) >= 2 else None
        size = 1
        for d in re.findall(r"\d+", args.split("eps")[0]):   # LayerNorm((16, 16), eps=...): the shape's product
            size *= int(d)
        if not pos and size == 1:
            return None
        # (an RMSNorm has a scale and no shift)
        return (1 if "RMS" in typ else 2) * (size if size > 1 else pos[0])
    return None


def _repr_width(typ: str, kw: dict[str, str], pos: list[int]) -> int:
    """The width a printed leaf gives its output (a Linear's out_features, a Conv's out channels, an RNN's hidden
    size times its directions); 0 for other layers."""
    if typ.endswith("Linear"):
        out = kw.get("out_features", str(pos[1]) if len(pos) >= 2 else "0").strip()
        return int(out) if out.isdigit() else 0
    if re.fullmatch(r"(?:Lazy)?Conv(?:Transpose)?[123]d", typ) or typ in ("LSTM", "GRU", "RNN"):
        dirs = 2 if kw.get("bidirectional", "False").strip() == "True" else 1
        return pos[1] * dirs if len(pos) >= 2 else 0
    return 0


def _repr_rows(head: str) -> list[tuple[str, int, bool, int]]:
    """(top-level module, parameters, vocabulary-sized, offset) of a printed torch model whose top-level children
    hold an Embedding: each child's leaves summed (see _repr_params), vocabulary-sized when it is an embedding or
    a Linear VOCAB_WIDE wide. Empty where any leaf that may hold parameters does not say how many."""
    lines = list(_REPR_LINE.finditer(head))
    if not lines:
        return []
    top = min(len(m.group("ind")) for m in lines)
    rows: list[list] = []       # [name, params, vocab, offset]
    emb_dim, body_width, prev = 0, 0, lines[0].start()
    for m in lines:
        typ, args = m.group("type"), m.group("args").rstrip()
        leaf = args.endswith(")")
        args = args[:-1] if leaf else args
        if m.start() - prev > 20_000:
            break                # (a second model printed far below is another print)
        prev = m.start()
        if len(m.group("ind")) == top:
            rows.append([m.group("name"), 0, False, m.start()])
        if not rows or not leaf:
            continue
        kw, pos = _repr_args(args)
        n = _repr_params(typ, args, kw, pos)
        if n is None:
            if any(typ.startswith(k) for k in _REPR_KNOWN) or (_REPR_INT.search(args) and not _REPR_FREE.search(typ)):
                return []        # a layer whose parameters the print does not tell
            continue
        rows[-1][1] += n
        if typ.endswith("Embedding"):
            rows[-1][2] = True
            emb_dim = max(emb_dim, pos[1] if len(pos) >= 2 else 0)
            continue
        width = _repr_width(typ, kw, pos)
        if typ.endswith("Linear") and n >= VOCAB_WIDE * 2 and width >= VOCAB_WIDE:
            rows[-1][2] = True
        else:
            body_width = max(body_width, width)
    # Only a body far narrower than the embedding is starved: a word-level LSTM classifier's 20,000 x 100 table
    # beside a 128-wide LSTM holds most of the parameters and is an ordinary design.
    if not emb_dim or body_width * BODY_NARROW > emb_dim:
        return []
    out = [(r[0], r[1], r[2], r[3]) for r in rows if r[1] > 0]
    return out if any(v for _, _, v, _ in out) else []


# --------------------------------------------------------------------------- one output for every input

# A line that prints what the model produced ("generated_sentence => <pad>.", "Prediction: 3",
# "[response] I don't know"): the key at the line's start, then =>, ->, : or =.
_OUTPUT_LINE = re.compile(
    r"^[ \t]*[\[(]?(?:generated(?:[ _]\w+)?|samples?|outputs?|predictions?|preds?|predicted(?:[ _]\w+)?|responses?|answers?"
    r"|completions?|translations?|decoded|hypothes[ie]s|hyp|reply)[ \t]*(?:#?\d+)?[\])]?[ \t]*(?:=>|->|:|=)[ \t]*(\S[^\n]*?)[ \t]*\r?$",
    re.I | re.M)
_OUTPUT_WORDS = ("generat", "sample", "output", "pred", "respon", "answer", "complet", "translat", "decod", "hyp", "reply",
                 "out:", "out :")
# Printed outputs needed, and the share of them that must be one and the same text.
SAME_OUTPUT_MIN = 4
SAME_OUTPUT_SHARE = 0.8
SAME_OUTPUT_SCAN_CHARS = 200_000
# A file path or a URL printed after "output:" is where something was written, not what the model said.
_PATHLIKE = re.compile(r"^(?:[\w.~-]*[/\\][^\s]*|\w+://\S+)$")
# An output printed as "out: ..." counts where inputs are printed as "in: ..." beside it (a bare "out:" is as often a
# shape or a path)
_IN_LINE = re.compile(r"^[ \t]*(?:in|input)[ \t]*(?::|=>|->)[ \t]*\S", re.I | re.M)
_OUT_LINE = re.compile(r"^[ \t]*out[ \t]*(?::|=>|->)[ \t]*(\S[^\n]*?)[ \t]*\r?$", re.I | re.M)
# Outputs listed one a line under a caption that names them ("samples from prior:", "Generated texts:", "Predictions
# for the test images:"), up to the first blank line
_OUTPUT_CAPTION = re.compile(r"^[ \t]*(?:[\w-]+[ \t]+){0,3}(?:samples?|generated|generations?|outputs?|predictions?|completions?)"
                             r"\b[^\n:]{0,40}:[ \t]*\r?\n", re.I | re.M)
_LISTED = re.compile(r"[ \t]*(?:\d{1,4}[:.)][ \t]*)?(\S[^\n]*?)[ \t]*\r?(?:\n|$)")
LISTED_MAX = 200
_SHAPE_PRINT = re.compile(r"torch\.Size|\(?\d+(?:,[ \t]*\d+)+\)?$|shape\b", re.I)


def _an_output(v: str) -> bool:
    """Whether a printed value can be what a model produced: not a shape (`torch.Size([32, 10])`, `(32, 10)`) nor a bare
    number (a channel count beside "in: 64")."""
    return not _SHAPE_PRINT.match(v) and not _NUMBERISH.fullmatch(v)


def _listed_outputs(head: str) -> list[tuple[int, str]]:
    """(offset, text) of the outputs listed under each caption (_OUTPUT_CAPTION), at most LISTED_MAX each."""
    out: list[tuple[int, str]] = []
    for c in _OUTPUT_CAPTION.finditer(head):
        at = c.end()
        for _ in range(LISTED_MAX):
            m = _LISTED.match(head, at)
            if m is None or m.end() == at:
                break
            if _an_output(m.group(1)):
                out.append((m.start(1), m.group(1)))
            at = m.end()
    return out


# The expected answer printed beside each output ("reference: ...", "target: ...", "REF:"; not the input: a model that
# echoes its prompt has collapsed): when it is one and the same text, the very text the outputs repeat, the run printed
# one fixed example each time (a speech run's dev utterance each epoch) and the model gets it right: no collapse.
_REFERENCE_LINE = re.compile(
    r"^[ \t]*[\[(]?(?:references?|ref|targets?|ground[ _]truth|gt|labels?|expected|gold)"
    r"[ \t]*(?:#?\d+)?[\])]?[ \t]*(?:=>|->|:|=)[ \t]*(\S[^\n]*?)[ \t]*\r?$", re.I | re.M)


# Generations printed bare, one repr() per line ('::::::::::::::', "the the the the ..."), or as a chat prints them
# under each prompt (">>> 1+1等于几" then "！！！！！！..."): REPEATED_MIN or more such lines, each one short unit over
# and over (_collapse_data), with at most REPEATED_GAP other lines (the prompts) between one and the next.
REPEATED_MIN = 3
REPEATED_MIN_BARE = 2      # ... unquoted lines: a prompt between each (a log prints no such line twice)
REPEATED_GAP = 2
REPEATED_CHARS = 16        # distinct characters in such a line at most (a unit of up to 12, quotes, spaces, a comma)
_QUOTED_LINE = re.compile(r"^[ \t]*(?:\d{1,3}[:.)][ \t]*)?(?P<q>['\"]?)(?P<s>[^\n]{10,}?)(?P=q),?[ \t]*\r?$")


_NUMBERISH = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+|nan|inf)(?:e[-+]?\d+)?[,.;]?", re.I)


def _bar_like(unit: str) -> bool:
    """A unit of box-drawing / block characters (tqdm's bars) or of ASCII punctuation only."""
    return all("\u2500" <= c <= "\u259f" or (c.isascii() and not c.isalnum()) for c in unit)


def repeated_strings(art: TextArtifact) -> Signal | None:
    """`log:collapse_output` from printed outputs that each repeat one unit (see REPEATED_MIN)."""
    head = art.text[:SAME_OUTPUT_SCAN_CHARS]
    lines = head.split("\n")
    group: list[tuple[int, str, bool]] = []         # (line, unit, quoted)
    for i, ln in enumerate(lines + [""] * (REPEATED_GAP + 1), 1):
        # (a line of one unit over and over has few distinct characters: most lines are passed over before any regex)
        m = _QUOTED_LINE.match(ln) if len(ln) >= 10 and len(set(ln)) <= REPEATED_CHARS else None
        d = _collapse_data(m.group("s")) if m else None
        if m is not None and d is not None and ((not m.group("q") and _bar_like(d["repeated"]))
                                                or _NUMBERISH.fullmatch(d["repeated"])
                                                or d["repeated"].strip("[],") in ("True", "False", "None")
                                                or m.group("s").lstrip("[( ").startswith(("tensor", "array"))):
            d = None        # (a progress bar's blocks, a rule of ASCII punctuation, a tensor of zeros: no model output)
        if m is not None and d is not None:
            quoted = bool(m.group("q"))
            if group and (i - group[-1][0] > REPEATED_GAP + 1 or (not quoted and i - group[-1][0] == 1)):
                group = []      # (bare lines with a prompt between each: one array printed over lines is no chat)
            group.append((i, d["repeated"], quoted))
            continue
        if group and i - group[-1][0] > REPEATED_GAP:
            n_quoted = sum(q for _, _, q in group)
            if n_quoted >= REPEATED_MIN or len(group) >= max(REPEATED_MIN_BARE, REPEATED_MIN if n_quoted else 0):
                i0, unit, _ = group[0]
                txt = (f"{len(group)} printed outputs are {unit!r} repeated: the model emits one token over and over")
                return Signal("log:collapse_output", 0.7, txt,
                              [Evidence(text=txt, source=art.path, line=i0, quote=lines[i0 - 1].strip()[:300])],
                              {"repeated": unit, "count": len(group), "outputs": len(group)})
            group = []
    return None


_FRAME = re.compile(r'[ \t]*File "[^"\n]*", line \d+')


def _in_traceback(text: str, at: int) -> bool:
    """Whether the line holding offset `at` is a traceback's source line (`response = await f(request)` under
    `File ".../routing.py", line 161, in app`): code the frame ran, no output the model printed."""
    start = text.rfind("\n", 0, at) + 1
    prev = text.rfind("\n", 0, max(0, start - 1)) + 1
    return _FRAME.match(text, prev, start) is not None


def same_output(art: TextArtifact) -> Signal | None:
    """`log:collapse_output` from SAME_OUTPUT_MIN or more printed model outputs (samples, predictions,
    responses) of which SAME_OUTPUT_SHARE or more are one identical text: the model says the same thing
    whatever it is given (a chatbot answering every question with '<pad>.', a classifier printing
    'Prediction: 3' for every image). Reads the first SAME_OUTPUT_SCAN_CHARS characters."""
    head = art.text[:SAME_OUTPUT_SCAN_CHARS]
    if not contains_any(head.lower(), _OUTPUT_WORDS):
        return None
    found = [(m.start(1), m.group(1).strip(" \"'`")) for m in _OUTPUT_LINE.finditer(head)]
    if _IN_LINE.search(head):       # "in : <input>" / "out: <output>" pairs (not a layer's shapes or channel counts)
        found += [(m.start(1), v) for m in _OUT_LINE.finditer(head) if _an_output(v := m.group(1).strip(" \"'`"))]
    found += _listed_outputs(head)
    found = [(at, v) for at, v in found if v and not _PATHLIKE.match(v) and not _in_traceback(head, at)]
    if len(found) < SAME_OUTPUT_MIN:
        return None
    value, n = Counter(v for _, v in found).most_common(1)[0]
    if n < SAME_OUTPUT_SHARE * len(found):
        return None
    refs = [m.group(1).strip(" \"'`") for m in _REFERENCE_LINE.finditer(head)]
    if len(refs) * 2 >= len(found):
        ref, k = Counter(refs).most_common(1)[0]
        if k >= SAME_OUTPUT_SHARE * len(refs) and ref.lower() == value.lower():
            return None
    first = next(at for at, v in found if v == value)
    line = art.line_of(first)
    txt = f"the model's output is {value[:60]!r} in {n} of {len(found)} printed outputs: the same whatever the input"
    ev = Evidence(text=txt, source=art.path, line=line, quote=art.line(line).strip()[:300])
    return Signal("log:collapse_output", min(1.0, 0.5 + 0.05 * n), txt, [ev],
                  {"repeated": value[:200], "count": n, "outputs": len(found)})
