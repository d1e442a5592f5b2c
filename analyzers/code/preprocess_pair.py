"""`code:eval_preprocessing_differs`: evaluation data is prepared differently from training data.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_preprocess_pair(f)` -> Findings.

Two shapes, each a pair of names that differ only in their split word (train / test, val, valid,
eval, inference):
- transform pipelines (torchvision's or albumentations' `Compose([...])`): the training one normalizes
  (`Normalize(mean, std)`) and the evaluation one does not, or with other constants. Augmentations
  that differ (random crops and flips for training only) are normal and not read;
- arrays: the training array is scaled (`x_train = x_train / 255.0`, `scaler.fit_transform(x_train)`,
  `preprocess_input(x_train)`) and its evaluation twin, used in the file, is never assigned
  anything scaled. The model then sees inputs 255 times larger (or unstandardized) at test time.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import STRONG, Finding, PyFile, const, core, dotted, last, src
from mltdbg.analyzers.code.input_scaling import IMAGE_READERS, SKLEARN_SCALERS, UINT8_TENSOR_SOURCES

_TRAIN = re.compile(r"train(?:ing)?", re.I)
_EVAL_WORDS = ("test", "val", "valid", "validation", "eval", "inference", "infer")
# What is left of an array's name without its split word names data, not a loss or a count
# (`x_train` -> `x_`, `trainX` -> `X`, `train_images` -> `_images`; not `train_loss`, `n_train`).
_DATA_NAME = re.compile(r"^_*(?:x|data|images?|imgs?|features?|feats?|inputs?|samples?|pixels?|df|seqs?|sequences?"
                        r"|audio|signals?|arrays?)_*$", re.I)
# a call that scales: by its name's words (`scaler.transform`, `preprocess_input`, a helper `normalize_images`)
_SCALE_WORDS = ("transform", "norm", "scal", "standard", "preprocess", "prep")


def _twins(name: str, names: set[str]) -> list[str]:
    """The names in `names` that are `name` with its split word 'train' replaced by an evaluation one."""
    m = _TRAIN.search(name)
    if not m:
        return []
    out = []
    for w in _EVAL_WORDS:
        for cand in (name[:m.start()] + w + name[m.end():], name[:m.start()] + w.upper() + name[m.end():],
                     name[:m.start()] + w.capitalize() + name[m.end():]):
            if cand in names and cand not in out:
                out.append(cand)
    return out


def _normalize_args(c: ast.Call) -> tuple | None:
    """The Normalize call inside a Compose([...]) as a comparable tuple of its constants, None when it has none."""
    for n in ast.walk(c):
        if isinstance(n, ast.Call) and last(n) == "Normalize":
            return tuple(src(a) for a in n.args) + tuple(f"{k.arg}={src(k.value)}" for k in n.keywords)
    return None


def _transform_pairs(f: PyFile) -> list[Finding]:
    pipes = {d: v for d, v in f.all_assigns() if isinstance(v, ast.Call) and last(v) == "Compose"}
    out = []
    for name, pipe in pipes.items():
        for twin in _twins(name, set(pipes)):
            train_norm, eval_norm = _normalize_args(pipe), _normalize_args(pipes[twin])
            if train_norm is None:
                continue
            if eval_norm is None:
                why = f"{name} normalizes (Normalize) and {twin} does not"
            elif eval_norm != train_norm:
                why = f"{name} and {twin} normalize with different constants"
            else:
                continue
            out.append(Finding("code:eval_preprocessing_differs", STRONG, pipes[twin].lineno,
                               f"{why}: the model sees differently scaled inputs at evaluation than in training",
                               [(pipe.lineno, "the training transform", f)]))
    return out


def _scaling_call(c: ast.Call) -> bool:
    name = last(c).lower()
    return any(w in name for w in _SCALE_WORDS)


def _scales(v: ast.AST) -> bool:
    """Is the assigned value a scaling of data: x / 255, (x - mean) / std, scaler.transform(x) ..."""
    c = core(v)
    if isinstance(c, ast.BinOp) and isinstance(c.op, (ast.Div, ast.Sub, ast.Mult)):
        return True
    if isinstance(c, ast.Call):
        if _scaling_call(c):
            return True
        if last(c) == "astype" and isinstance(c.func, ast.Attribute):
            return _scales(c.func.value)
    return False


def _is_train_data(name: str) -> bool:
    m = _TRAIN.search(name)
    return m is not None and "." not in name and bool(_DATA_NAME.match(name[:m.start()] + name[m.end():]))


def _array_pairs(f: PyFile) -> list[Finding]:
    scaled: dict[str, int] = {}            # name -> line of its scaling
    assigned_scaled: set[str] = set()
    for n in f.of_type(ast.Assign):
        if not isinstance(n, ast.Assign):
            continue
        pairs: list[tuple[ast.AST, ast.AST]] = []
        for t in n.targets:
            if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(t.elts) == len(n.value.elts):
                pairs += list(zip(t.elts, n.value.elts))
            else:
                pairs.append((t, n.value))
        for tgt, v in pairs:
            d = dotted(tgt)
            if d and _scales(v):
                assigned_scaled.add(d)
                if _is_train_data(d) and d not in scaled:
                    scaled[d] = n.lineno
    for a in f.of_type(ast.AugAssign):
        if not isinstance(a, ast.AugAssign) or not isinstance(a.op, (ast.Div, ast.Sub, ast.Mult)):
            continue
        d = dotted(a.target)
        if d and _is_train_data(d) and d not in scaled:
            scaled[d] = a.lineno
    if not scaled:
        return []
    used = {n.id for n in f.of_type(ast.Name) if isinstance(n, ast.Name)}
    out = []
    for name, line in scaled.items():
        for twin in _twins(name, used):
            if twin in assigned_scaled or _scaled_in_place(f, twin):
                continue
            out.append(Finding("code:eval_preprocessing_differs", STRONG, line,
                               f"{name} is scaled here and {twin} is never scaled: the model sees raw inputs at"
                               " evaluation (values on another scale than in training)"))
            break
    return out


def _scaled_in_place(f: PyFile, name: str) -> bool:
    """`x_test /= 255`, or the twin scaled where it is used: `model.predict(scaler.transform(x_test))`,
    `model.evaluate(x_test / 255.0, y_test)`."""
    for n in f.of_type(ast.AugAssign):
        if isinstance(n, ast.AugAssign) and dotted(n.target) == name and isinstance(n.op, (ast.Div, ast.Sub, ast.Mult)):
            return True
    for c in f.calls:
        for a in list(c.args) + [k.value for k in c.keywords]:
            if isinstance(a, ast.Name) and a.id == name and _scaling_call(c):
                return True
            if isinstance(a, ast.BinOp) and isinstance(a.op, (ast.Div, ast.Sub, ast.Mult)) \
                    and dotted(core(a.left)) == name:
                return True
    return False


def check_preprocess_pair(f: PyFile) -> list[Finding]:
    """The first of the pair checks that finds something (one finding a file: each names the same cause)."""
    for check in (_transform_pairs, _array_pairs, _scaler_fit_at_inference, _codes_at_inference, _rescale_vs_preprocess_input,
                  _preprocess_input_vs_rescale, _bgr_as_rgb, _mapped_scale_then_raw_predict, _sample_rates_differ,
                  _pretrained_fed_unnormalized):
        if got := check(f):
            return got[:1]
    return []


PREDICT_READ_LINES = 40
# An image read on its way to predict(), and a division by 255 on that way
_PREDICT_READERS = ("img_to_array", "load_img", "imread", "decode_image", "decode_jpeg")
_DIV255 = re.compile(r"/\s*255(?:\.0*)?(?![\d.])")
_SCALE_TEXT = re.compile(r"/\s*255|\*\s*\(?1\.?0?\s*/\s*255|Rescaling|Normali[sz]ation|preprocess_input|normali[sz]e|standardi[sz]e")


def _mapped_scale_then_raw_predict(f: PyFile) -> list[Finding]:
    """Keras: the training dataset scaled in the input pipeline (`train_ds.map(lambda x, y: (rescale(x), y))` with
    a Rescaling layer, or a `/ 255` in the lambda), not in the model; an image loaded for prediction
    (`img_to_array(load_img(...))`) and given to predict() with no scaling on its way: 255 times the inputs."""
    rescalers = {d for d, v in f.all_assigns() if isinstance(v, ast.Call) and last(v) in ("Rescaling", "Normalization")}
    mapped = None
    for c in f.calls_named("map"):
        if c.args and isinstance(c.args[0], ast.Lambda):
            body = src(c.args[0].body)
            if _DIV255.search(body) or any(re.search(rf"\b{re.escape(r)}\(", body) for r in rescalers):
                mapped = c
                break
    if mapped is None:
        return []
    reads_by: dict[int, list[ast.Call]] = {}        # image reads per scope, gathered once
    for r in f.calls_named(*_PREDICT_READERS):
        reads_by.setdefault(id(f.scope_of(r)), []).append(r)
    for c in f.calls_named("predict", "predict_on_batch"):
        if c.lineno < mapped.lineno:
            continue
        # (the read nearest before the predict, a few lines up: an image's way to the model)
        reads = [r for r in reads_by.get(id(f.scope_of(c)), []) if c.lineno - PREDICT_READ_LINES <= r.lineno <= c.lineno]
        if not reads:
            continue
        lo = max(r.lineno for r in reads)
        between = "\n".join(f.t.line(i) for i in range(lo, c.lineno + 1))
        if not _SCALE_TEXT.search(between):
            return [Finding("code:eval_preprocessing_differs", STRONG, c.lineno,
                            f"training images are scaled in the input pipeline ({src(mapped)[:50]}), not in the model; "
                            "the image given to predict() here is not scaled: the model sees values 255 times larger",
                            [(mapped.lineno, "the training pipeline's scaling"), (lo, "the image read for prediction")])]
    return []


# ImageNet's channel means in RGB order, as code writes them (0-1 or 0-255 scale)
_RGB_MEANS = ((0.485, 0.456, 0.406), (123.675, 116.28, 103.53), (124, 116, 104))
_BGR_FIXES = re.compile(r"cvtColor|COLOR_BGR2RGB|BGR2RGB|::\s*-1\]|\.flip\(|\[\s*2\s*,\s*1\s*,\s*0\s*\]|to_rgb|rgb=True", re.I)


def _bgr_as_rgb(f: PyFile) -> list[Finding]:
    """Images read with cv2.imread (blue, green, red order) fed on without a conversion to RGB, in a file that
    normalizes with ImageNet's RGB-ordered means: the model, trained on RGB, sees red and blue swapped."""
    reads = [c for c in f.calls_named("imread") if src(c.func).startswith(("cv2.", "cv."))]
    if not reads or _BGR_FIXES.search(f.t.text):
        return []
    def triple(n: ast.AST) -> list[float] | None:
        if not isinstance(n, (ast.List, ast.Tuple)) or len(n.elts) != 3:
            return None
        vals = [e.value for e in n.elts if isinstance(e, ast.Constant) and isinstance(e.value, (int, float))]
        return [float(v) for v in vals] if len(vals) == 3 else None
    means = [n for n in f.of_type(ast.List, ast.Tuple) if isinstance(n, (ast.List, ast.Tuple)) and (t := triple(n)) is not None
             and any(all(abs(v - m) <= 0.01 * max(1.0, m) for v, m in zip(t, ms)) for ms in _RGB_MEANS)]
    if not means:
        return []
    return [Finding("code:eval_preprocessing_differs", STRONG, reads[0].lineno,
                    "cv2.imread gives blue-green-red channels and nothing turns them to RGB, while the inputs are "
                    "normalized with ImageNet's RGB-ordered means: red and blue are swapped for the model "
                    "(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))", [(means[0].lineno, "RGB-ordered means")])]


# ---- in one file: a serving path that prepares its input its own way

# a function that serves or predicts: by a word of its name, or by a web route's decorator
_SERVE_WORDS = frozenset({"predict", "prediction", "infer", "inference", "serve", "serving", "handler", "handle",
                          "classify", "endpoint", "api"})


def _serving(fn: ast.AST) -> bool:
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return bool(set(fn.name.lower().split("_")) & _SERVE_WORDS) \
        or any(re.search(r"\.(?:post|get|route|put)\b", src(d)) for d in fn.decorator_list)


def _scaler_fit_at_inference(f: PyFile) -> list[Finding]:
    """A scaler built and fit on the input inside a serving function (`StandardScaler().fit_transform(x)` on one
    request): the statistics are the request's own, not the training set's. One row comes out all zeros."""
    for c in f.calls_named("fit_transform", "fit"):
        if not isinstance(c.func, ast.Attribute):
            continue
        ctor = core(c.func.value)
        if not (isinstance(ctor, ast.Call) and last(ctor) in SKLEARN_SCALERS):
            continue
        if _serving(f.scope_of(c)) or _predicted_on(f, c):
            return [Finding("code:eval_preprocessing_differs", STRONG, c.lineno,
                            f"{src(c)[:60]} fits a new {last(ctor)} on the input being served: it is scaled by its own "
                            "statistics, not the training set's (save the fitted scaler and call transform)")]
    return []


# A script that scores new data, by its whole base name (predict.py, inference.py, serve_api.py, score_batch.py; not
# infer_types.py, scoring_utils.py)
_INFERENCE_FILE = re.compile(r"(?:^|[/\\])(?:[a-z0-9]+[_-])?(?:predict(?:ion)?|infer(?:ence)?|serv(?:e|ing)|scor(?:e|ing)|deploy)"
                             r"(?:[_-](?!(?:utils?|types?|helpers?)(?:[_-]|\.py$))\w+)?\.py$", re.I)
# A mapping the script loads (under any loader): the training categories it codes by
_MAPPING_WORDS = r"(?:encoder|mapping|categor|vocab|levels|codes|label_map|cat_map|classes)"
_SAVED_MAPPING = re.compile(rf"\b{_MAPPING_WORDS}\w*\s*=\s*[\w.]*load\(|\bload\([^\n]*?\b{_MAPPING_WORDS}", re.I)
# sklearn's category encoders, fit where they are called
_CATEGORY_ENCODERS = ("LabelEncoder", "OrdinalEncoder")


def _codes_at_inference(f: PyFile) -> list[Finding]:
    """Category codes made afresh from the data being scored (`pd.factorize(df[c])`, `df[c].astype("category")
    .cat.codes`, `LabelEncoder().fit_transform(...)`) in an inference script or a serving function: each category's
    code is its order in this data, not the one the model's embedding rows were trained on (factorize numbers by
    first appearance, cat.codes by sorted value). Not where the script loads a saved mapping (a pickle / joblib /
    json load of an encoder, categories or vocabulary)."""
    inference_file = bool(_INFERENCE_FILE.search(f.t.path))
    hits: list[ast.expr] = [c for c in f.calls_named("factorize")]
    # (`.astype(pd.CategoricalDtype(categories=cats)).cat.codes` codes by the given categories: the right way)
    hits += [n for n in f.of_type(ast.Attribute) if isinstance(n, ast.Attribute) and n.attr == "codes"     # (for mypy)
             and isinstance(n.value, ast.Attribute) and n.value.attr == "cat" and "categories" not in src(n.value)]
    for c in f.calls_named("fit_transform", "fit"):
        ctor = core(c.func.value) if isinstance(c.func, ast.Attribute) else None
        # (an encoder fit on the training and scored rows together, pd.concat([train, test]), codes both alike)
        if isinstance(ctor, ast.Call) and last(ctor) in _CATEGORY_ENCODERS and "concat" not in src(c):
            hits.append(c)
    hits = [h for h in hits if inference_file or _serving(f.scope_of(h))]
    if not hits or _SAVED_MAPPING.search(f.t.text):
        return []
    h = min(hits, key=lambda n: n.lineno)
    return [Finding("code:eval_preprocessing_differs", STRONG, h.lineno,
                    f"{src(h)[:60]} numbers the categories of the data being scored afresh: their codes follow this "
                    "data's order, not the mapping the model was trained with (save the training mapping and apply it)")]


def _predicted_on(f: PyFile, c: ast.Call) -> bool:
    """Whether what a fit_transform call returns (the name it is assigned to) is handed to a predict() later in its
    scope, and to no fit(): the statistics of the data being predicted on, not the training set's."""
    parent = f.parent.get(c)
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name):
        return False
    name = parent.targets[0].id
    scope = f.scope_of(c)
    later = [k for k in f.calls_in(scope) if k.lineno >= c.lineno and any(dotted(a) == name for a in k.args)]
    return any(last(k) in ("predict", "predict_proba") for k in later) and not any(last(k) == "fit" for k in later)


def _rescale_vs_preprocess_input(f: PyFile) -> list[Finding]:
    """Training images rescaled by ImageDataGenerator(rescale=1/255) with no preprocessing_function, and a
    prediction path that calls a Keras application's preprocess_input instead: two different input scales
    (preprocess_input maps to [-1, 1], to mean-subtracted 0-255, or leaves 0-255 as it is, by the model)."""
    gens = [c for c in f.calls_named("ImageDataGenerator") if any(k.arg == "rescale" for k in c.keywords)
            and not any(k.arg == "preprocessing_function" for k in c.keywords)]
    if not gens:
        return []
    for c in f.calls_named("preprocess_input"):
        if _serving(f.scope_of(c)):
            return [Finding("code:eval_preprocessing_differs", STRONG, c.lineno,
                            "training rescales images by ImageDataGenerator(rescale=...) and prediction prepares them "
                            "with preprocess_input: the model sees inputs on another scale than it learned on",
                            [(gens[0].lineno, "the training rescale")])]
    return []


PREDICT_SCALE_LINES = 6


def _div255_after(f: PyFile, read: ast.Call) -> int | None:
    """The line, within PREDICT_SCALE_LINES of an image read, that divides by 255 (the image's way to the model)."""
    return next((i for i in range(read.lineno, read.lineno + PREDICT_SCALE_LINES) if _DIV255.search(f.t.line(i) or "")),
                None)


def _preprocess_input_vs_rescale(f: PyFile) -> list[Finding]:
    """The other way round: training images prepared by a Keras application's preprocess_input (an
    ImageDataGenerator's preprocessing_function, or a dataset's map), and an image read for prediction
    (load_img / img_to_array / imread) divided by 255 a few lines on, in a function that never calls
    preprocess_input: MobileNetV2 learned on [-1, 1] and is served [0, 1]."""
    trains = [c for c in f.calls_named("ImageDataGenerator")
              if any(k.arg == "preprocessing_function" and "preprocess_input" in src(k.value) for k in c.keywords)]
    trains += [c for c in f.calls_named("map") if c.args and "preprocess_input" in src(c.args[0])]
    if not trains or not f.calls_named("predict", "predict_on_batch"):
        return []
    for r in f.calls_named(*_PREDICT_READERS):
        if r.lineno < trains[0].lineno or any(last(c) == "preprocess_input" for c in f.calls_in(f.scope_of(r))):
            continue
        if (i := _div255_after(f, r)) is not None:
            return [Finding("code:eval_preprocessing_differs", STRONG, i,
                            "training prepares images with preprocess_input, and the image read for prediction here "
                            "is divided by 255 instead: the model sees inputs on another scale than it learned on",
                            [(trains[0].lineno, "the training preprocess_input")])]
    return []


# An ImageNet-pretrained image model built here: timm's create_model, torchvision's constructors with weights
_IMAGE_MODEL = re.compile(r"^timm\.create_model$|^(?:torchvision\.)?models\.\w+$")
_MEAN_STD = re.compile(r"Normalize|normalize|\bmean\b|\bstd\b|IMAGENET_DEFAULT|imagenet_mean|resolve_data_config|create_transform"
                       r"|preprocess|processor|transforms\(\)|\.transforms\b", re.I)


def _pretrained(c: ast.Call) -> bool:
    """timm.create_model(...) (a checkpoint of timm's own training, or its pretrained weights), or a torchvision
    constructor given weights / pretrained=True (weights=None is a net trained from scratch, on whatever scale)."""
    kw = {k.arg: k.value for k in c.keywords if k.arg}
    if "weights" in kw or "pretrained" in kw:
        return const(kw.get("weights", kw.get("pretrained"))) not in (None, False)
    return (dotted(c.func) or "").startswith("timm.")


def _pretrained_fed_unnormalized(f: PyFile) -> list[Finding]:
    """An ImageNet-trained image model (timm.create_model, a torchvision model) fed images read by hand (cv2.imread,
    Image.open) and only divided by 255, with no mean/std anywhere in the file: the network learned on inputs
    normalised by ImageNet's mean and std (timm's train.py and validate.py apply them) and sees a shifted input."""
    models = [c for c in f.calls if _IMAGE_MODEL.search(dotted(c.func) or "") and _pretrained(c)]
    if not models or _MEAN_STD.search(re.sub(r"#[^\n]*", "", f.t.text)):      # (the code, not its comments)
        return []
    reads = [c for c in f.calls if last(c) in ("imread", "open") and ("cv2" in src(c.func) or "Image" in src(c.func))]
    for r in reads:
        if (i := _div255_after(f, r)) is not None:
            return [Finding("code:eval_preprocessing_differs", STRONG, i,
                            f"images read here are only divided by 255 and fed to {src(models[0].func)}(...), a model "
                            "trained on inputs normalised with ImageNet's mean and std: nothing in this file normalises them",
                            [(models[0].lineno, "the pretrained model")])]
    return []


# librosa.load resamples to 22,050 Hz unless told otherwise (sr=None keeps the file's own rate)
LIBROSA_DEFAULT_SR = 22050


def _sample_rates_differ(f: PyFile) -> list[Finding]:
    """Audio loaded by librosa.load at two different rates in one file (features made at sr=16000, the
    inference path's load left at its default 22,050 Hz): the same frame and hop sizes then cover other
    stretches of time and other frequencies, and the model sees spectrograms unlike its training ones."""
    rates: dict[object, ast.Call] = {}
    for c in f.calls_named("load"):
        if not src(c.func).startswith("librosa."):
            continue
        k = next((kw.value for kw in c.keywords if kw.arg == "sr"), c.args[1] if len(c.args) > 1 else None)
        if k is None:
            sr: object = LIBROSA_DEFAULT_SR
        elif isinstance(k, ast.Constant) and k.value is not None:       # (sr=None: the file's own rate, not compared)
            sr = k.value
        else:
            continue        # a rate from a variable: unknown, not compared
        rates.setdefault(sr, c)
    if len(rates) < 2:
        return []
    (a, ca), (b, cb) = sorted(rates.items(), key=lambda kv: kv[1].lineno)[:2]
    def say(v: object) -> str:
        return f"{v} Hz" + (" (the default)" if v == LIBROSA_DEFAULT_SR else "")
    return [Finding("code:eval_preprocessing_differs", STRONG, cb.lineno,
                    f"audio is loaded at {say(a)} here and at {say(b)} there: the same n_fft and hop cover other "
                    "times and frequencies, so the features differ from the ones the model learned on",
                    [(ca.lineno, "the other load's rate")])]


# ---- across files: a training pipeline that normalizes, an inference script that does not

# An inference / serving / export-check script, by its file name or by the runtime it loads a model with.
# (a name part: infer_onnx.py, predict.py, serve/app.py; not "capital" or "rapids")
_INFER_FILE = re.compile(r"(?:^|[/_\-.])(?:infer\w*|predict\w*|serv(?:e|er|ing)\w*|deploy\w*|onnx\w*|demo\w*|api|app)"
                         r"(?=[_\-.]|$)", re.I)
_RUNTIMES = ("InferenceSession", "load_model", "jit.load", "Interpreter", "from_saved_model")
# what prepares an image the way a training pipeline does: a transform or processor object, a mean/std
_PREPARED = re.compile(r"transform|tfms?|(?:^|_)tfs?$|Normalize|normalize|processor|feature_extractor|preprocess_input"
                       r"|Compose|standardi[sz]e", re.I)


def _normalizes(f: PyFile) -> int | None:
    """Line of a training Normalize(mean, std) in `f` (torchvision / albumentations), None when it has none."""
    return next((c.lineno for c in f.calls if last(c) == "Normalize" and (c.args or c.keywords)), None)


def _mean_std_by_hand(f: PyFile) -> bool:
    """(x - mean) / std written out: a subtraction whose right side names a mean or is a list of constants."""
    for n in f.of_type(ast.BinOp):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub):
            r = core(n.right)
            name = (dotted(r) or "").lower()
            if "mean" in name or "mu" == name or isinstance(r, (ast.List, ast.Tuple)) or \
                    (isinstance(r, ast.Call) and last(r) in ("array", "tensor", "asarray")):
                return True
    return False


def check_inference_unnormalized(files: list[PyFile]) -> list[tuple[PyFile, Finding]]:
    """code:eval_preprocessing_differs across files: the training code normalizes its images with
    Normalize(mean, std), and an inference script of the run (by its name: infer / predict / serve /
    onnx ..., or by the runtime it loads a model with) reads images and feeds them with no mean/std
    and no transform or processor object of its own: the model sees inputs on another scale than it
    learned on (ImageNet statistics left out: every channel off by ~2 std)."""
    train = next(((f, line) for f in files if (line := _normalizes(f)) is not None), None)
    if train is None:
        return []
    tf, tline = train
    for f in files:
        if f is tf or _normalizes(f) is not None:
            continue
        if not (_INFER_FILE.search(f.t.path) or any(last(c) in _RUNTIMES for c in f.calls)):
            continue
        reads = [c for c in f.calls if (last(c) in IMAGE_READERS and last(c) not in UINT8_TENSOR_SOURCES)
                 or (last(c) == "open" and "Image" in src(c.func))]
        if not reads or _mean_std_by_hand(f) or any(_PREPARED.search(last(c)) for c in f.calls):
            continue
        if any(isinstance(n, ast.Name) and _PREPARED.search(n.id) for n in f.of_type(ast.Name)):
            continue      # a transform object built elsewhere and used here (val_tf(img))
        return [(f, Finding("code:eval_preprocessing_differs", STRONG, reads[0].lineno,
                            f"training normalizes its inputs with Normalize(mean, std) ({tf.t.path}:{tline}), and this "
                            "inference code reads images and feeds them without that mean/std: the model sees inputs "
                            "on another scale than it learned on", [(tline, "the training normalization", tf)]))]
    return []
