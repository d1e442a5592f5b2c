"""`code:raw_pixels_unscaled`: 8-bit images cast to float and fed to the model without scaling;
`code:features_unscaled`: table columns fed to a scale-sensitive learner without scaling.

In:  every parsed code file of the run (the scaling may live in another file than the cast).
Out: `check_input_scaling(files)` -> (PyFile, Finding) pairs.

Image data read as uint8 (0..255) and turned into floats with `.float()` / `.astype(np.float32)` /
`torch.tensor(..., dtype=torch.float32)` keeps values ~100x larger than the unit scale layers are
initialised for. The check fires at such a cast when the run's code has no scaling anywhere:
no division or multiplication by 255 / 127.5 (or `div(255)`), no `Normalize` / `ToTensor` /
`ConvertImageDtype` / `to_tensor` / `rescale` / scaler, no `(x - mean) / std`. Image data is
recognised by uint8 in the code or by image readers (imread, Image.open, read_image,
decode_image), and the cast by what it converts (a name like image/img/pixel/frame); where a transform
yields uint8 image tensors (PILToTensor, pil_to_tensor, read_image), by any float cast.

Tables: columns read with pandas / numpy (read_csv, loadtxt, a sklearn dataset of raw units) keep their
units (square feet in the thousands beside a count of rooms); a gradient-trained or distance-based learner
(sklearn's MLP, SGD, SVM and nearest-neighbour models, a Keras Dense or torch Linear net) fitted on them with
no scaler anywhere (the same test as for images, with zscore / scale / power and quantile transforms) trains
slowly or not at all. MEDIUM: the file may hold columns already scaled.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import (
    CLEAR,
    FIT_CALLS,
    MEDIUM,
    Finding,
    PyFile,
    const,
    dotted,
    kwarg,
    last,
    src,
)

_IMAGE_NAME = re.compile(r"im(a)?g(e)?s?\b|image|pixel|frame|photo|picture|\bpng|\bjpe?g", re.IGNORECASE)
IMAGE_READERS = {"imread", "open_image", "read_image", "decode_image", "imdecode", "load_img", "decode_jpeg",
                  "decode_png", "imread_collection", "PILToTensor", "pil_to_tensor"}
# a cast of what an image reader returns ("np.array([cv2.imread(p) for p in paths]).astype('float32')")
_READ_IN = re.compile(r"\b(?:%s)\(" % "|".join(sorted(IMAGE_READERS)))
# sklearn's scalers (also what preprocess_pair looks for refit at serving time)
SKLEARN_SCALERS = frozenset({"StandardScaler", "MinMaxScaler", "RobustScaler", "MaxAbsScaler", "Normalizer",
                             "QuantileTransformer", "PowerTransformer"})
_SCALERS = {"Normalize", "ToTensor", "to_tensor", "ConvertImageDtype", "convert_image_dtype", "rescale",
            "normalize", "Rescaling", "Normalization", "ToDtype", "ToImage", "image_processor", "feature_extractor",
            "AutoImageProcessor", "standardize", "BatchNorm2d_input", "ImageProcessor", "zscore", "minmax_scale",
            "robust_scale", "maxabs_scale"} | SKLEARN_SCALERS
_SCALE_CONSTS = {255, 127.5, 256, 128}
# the ranges images other than 8-bit ones come in: 4-bit (sklearn's digits), 10-, 12- and 16-bit
_RANGE_CONSTS = {15, 16, 1023, 1024, 4095, 4096, 65535, 65536}
_FLOAT_DTYPES = re.compile(r"float(16|32|64)?\b|double|half|FloatTensor", re.IGNORECASE)


def _num(e: ast.AST):
    """A number an expression is: a constant, or a product / quotient of constants (1.0 / 255, 128 * 16 * 16)."""
    v = const(e)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mult, ast.Div)):
        a, b = _num(e.left), _num(e.right)
        if a is not None and b is not None:
            return a * b if isinstance(e.op, ast.Mult) else (a / b if b else None)
    return None


# What a standardisation subtracts: a mean, a centre, a minimum
_CENTRE = re.compile(r"mean|\bmu\b|avg|average|cent(?:er|re)|\bmin\b|_min\b|\.min\(", re.IGNORECASE)
# A random draw's call as the whole cast expression: noise at the scale asked for, not 8-bit data (noise added to an
# image, `img + np.random.normal(0, 25, img.shape)`, is still the image)
_RANDOM_DRAW = re.compile(r"\s*[\w.]*\b(?:standard_normal|normal|randn|rand|uniform|randn_like|rand_like)\([^()]*(?:\([^()]*\))?[^()]*\)\s*$")


def _scaling_anywhere(files: list[PyFile]) -> bool:
    for f in files:
        for n in f.of_type(ast.BinOp, ast.AugAssign, ast.Call):
            # a value less a fractional constant or a mean, divided: a standardisation, `(imgs - 0.35) / 1.0`,
            # `(x - mu) / s` (not an elapsed time per step, `(time.time() - t0) / step`, nor `(kernel_size - 1) / 2`)
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and isinstance(n.left, ast.BinOp) \
                    and isinstance(n.left.op, ast.Sub) and (isinstance(_num(n.left.right), float)
                                                            and not float(_num(n.left.right)).is_integer()
                                                            or _CENTRE.search(src(n.left.right))):
                return True
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Mult, ast.FloorDiv, ast.Sub)):
                sides = (n.left, n.right)
                # (a product of constants is a size, `128 * 16 * 16`; only a division or a subtraction by 255, 128 ...
                # scales, a product only by 1/255)
                for side in sides if not all(_num(x) is not None for x in sides) else ():
                    v = _num(side)
                    # (255 divided by something is no scaling: a PSNR's 20 * log10(255 / sqrt(mse)))
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and (
                            (v in _SCALE_CONSTS and not isinstance(n.op, ast.Mult)
                             and not (isinstance(n.op, (ast.Div, ast.FloorDiv)) and side is n.left))
                            or (0 < v < 0.01 and abs(v * 255 - 1) < 0.05)):
                        return True
                # (an array's own maximum, `x / x.max()`, `np.max(x)`; not the builtin max of two sizes, `max(h, w)`)
                if isinstance(n.op, ast.Div) and re.search(r"std|sigma|scale|(?:\.\w*|\b\w+)max\(|norm",
                                                           src(n.right), re.IGNORECASE):
                    return True
                # images divided by their own range, whatever it is (sklearn's 8x8 digits are 0..16, 12- and 16-bit
                # scans 0..4095 / 0..65535): an image array over such a range, or a float cast over any constant of 2
                # or more (`images.astype(np.float32) / 16.0`); not a size (`imgs.shape[2] / 2`, `len(frames) / 2`)
                v = _num(n.right)
                left = src(n.left)
                if isinstance(n.op, ast.Div) and isinstance(v, (int, float)) and not isinstance(v, bool) \
                        and not re.search(r"\.shape\b|\blen\(|\.size\(|\bfloat\(|\bint\(", left) and (
                            (v in _RANGE_CONSTS and _IMAGE_NAME.search(left))
                            or (v >= 2 and isinstance(n.left, ast.Call) and last(n.left) in ("astype", "float", "double", "type")
                                and (last(n.left) in ("float", "double") or _FLOAT_DTYPES.search(left)))):
                    return True
            elif isinstance(n, ast.AugAssign) and isinstance(n.op, (ast.Div, ast.Mult)):
                v = const(n.value)
                if isinstance(v, (int, float)) and v in _SCALE_CONSTS:
                    return True
            elif isinstance(n, ast.Call):
                name = last(n)
                if name in _SCALERS or "normaliz" in name.lower() or "standardi" in name.lower():
                    return True
                # Keras' ImageDataGenerator(rescale=1./255), Rescaling(scale=1/255)
                if any(k.arg in ("rescale", "scale") and isinstance(_num(k.value), (int, float))
                       and 0 < _num(k.value) < 0.01 for k in n.keywords):
                    return True
                if name in ("div", "div_", "true_divide", "mul", "mul_") and n.args:
                    v = const(n.args[0])
                    if isinstance(v, (int, float)) and (v in _SCALE_CONSTS or 0 < v < 0.01):
                        return True
                if name == "ToDtype" or (name in ("to_dtype",) and const(kwarg(n, "scale")) is True):
                    return True
    return False


def _uint8_source(files: list[PyFile]) -> bool:
    for f in files:
        for n in f.of_type(ast.Attribute, ast.Constant, ast.Call):
            if isinstance(n, ast.Attribute) and n.attr == "uint8":
                return True
            if isinstance(n, ast.Constant) and n.value == "uint8":
                return True
            if isinstance(n, ast.Call) and (last(n) in IMAGE_READERS or (last(n) == "open" and
                                                                          (dotted(n.func) or "").endswith("Image.open"))):
                return True
    return False


# Calls that hand back images as uint8 tensors (torchvision): what they yield is 0..255 until scaled.
UINT8_TENSOR_SOURCES = {"PILToTensor", "pil_to_tensor", "read_image", "decode_image", "decode_jpeg", "decode_png"}


def _uint8_tensor_source(files: list[PyFile]) -> bool:
    return any(last(c) in UINT8_TENSOR_SOURCES for f in files for c in f.calls)


def _float_casts(f: PyFile) -> list[tuple[ast.Call, str]]:
    """(cast call, the source text of what it converts) for float conversions in a file."""
    out = []
    for c in f.calls:
        name = last(c)
        method = isinstance(c.func, ast.Attribute)
        what = None
        cast_method = method and ((name in ("float", "double", "half") and not c.args) or
                                  (name in ("astype", "to", "type") and c.args and _FLOAT_DTYPES.search(src(c.args[0]))))
        if cast_method:
            what = c.func.value
        elif name in ("tensor", "as_tensor", "from_numpy", "FloatTensor", "array", "asarray") and c.args:
            dt = kwarg(c, "dtype")
            if name == "FloatTensor" or (dt is not None and _FLOAT_DTYPES.search(src(dt))):
                what = c.args[0]
        if what is not None:
            out.append((c, src(what)))
    return out


# Keras' bundled image sets: load_data() hands back uint8 arrays (0..255)
_KERAS_IMAGE_SETS = {"mnist", "fashion_mnist", "cifar10", "cifar100"}
_FEEDS = {"fit", "train_on_batch", "fit_generator"}


def _keras_images_fed(files: list[PyFile]) -> tuple[PyFile, ast.Call, str, str] | None:
    """(file, fit call, input name, data set) where an array from keras.datasets.<mnist|cifar10|...>.load_data()
    ("(x_train, y_train), (x_test, y_test) = cifar10.load_data()") is fed to fit() as it is."""
    for f in files:
        for n in f.nodes_of(ast.Assign):
            v = n.value
            if not (isinstance(v, ast.Call) and last(v) == "load_data" and isinstance(v.func, ast.Attribute)):
                continue
            dataset = (dotted(v.func.value) or "").rsplit(".", 1)[-1]
            if dataset not in _KERAS_IMAGE_SETS:
                continue
            inputs = {t.elts[0].id for t in ast.walk(n.targets[0]) if isinstance(t, ast.Tuple) and t.elts
                      and isinstance(t.elts[0], ast.Name)}      # the first of each (x, y) pair
            for c in f.calls:
                if last(c) in _FEEDS and c.args and isinstance(c.args[0], ast.Name) and c.args[0].id in inputs:
                    return f, c, c.args[0].id, dataset
    return None


def _image_lists(f: PyFile) -> set[str]:
    """Names a loop collects images into: `X.append(img)` where img is named like an image or read by an
    image reader (`img = cv2.imread(p)`): "X = np.array(X, dtype='float32')" casts those images."""
    out = set()
    for c in f.calls:
        if last(c) == "append" and c.args and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name):
            a = c.args[0]
            v = f.value_of(a.id, f.scope_of(c), c.lineno) if isinstance(a, ast.Name) else a
            if (isinstance(a, ast.Name) and _IMAGE_NAME.search(a.id)) or _READ_IN.search(src(v) if v is not None else ""):
                out.add(c.func.value.id)
    return out


def check_input_scaling(files: list[PyFile]) -> list[tuple[PyFile, Finding]]:
    casts = [(f, c, w) for f in files for c, w in _float_casts(f)]
    # with a transform that yields 8-bit image tensors (PILToTensor, read_image), any float cast is the
    # images' ("model(x.float())"); otherwise the cast must convert something named like an image, read by an
    # image reader, or a list a loop collected images into
    lists = {f: _image_lists(f) for f in {id(f): f for f, _, _ in casts}.values()} if casts else {}
    image_casts = casts if casts and _uint8_tensor_source(files) else [
        (f, c, w) for f, c, w in casts if _IMAGE_NAME.search(w) or _READ_IN.search(w) or w in lists.get(f, ())]
    # (a random draw shaped like the images, `rng.standard_normal(img.shape)`, is noise at unit scale, no pixels)
    image_casts = [(f, c, w) for f, c, w in image_casts if not _RANDOM_DRAW.match(w)]
    if not image_casts:
        fed = _keras_images_fed(files)
        if fed is None or _scaling_anywhere(files):
            return []
        f, c, name, dataset = fed
        return [(f, Finding("code:raw_pixels_unscaled", CLEAR, c.lineno,
                            f"`{name}` from keras' {dataset}.load_data() (8-bit images, 0..255) is fed to {last(c)}() with "
                            f"no scaling anywhere in the code (no /255, Rescaling or (x - mean) / std): inputs reach the "
                            f"first layer at ~100x the scale it is initialised for", data={"uint8": True}))]
    if _scaling_anywhere(files):
        return []
    uint8 = _uint8_source(files)
    f, c, what = image_casts[0]
    return [(f, Finding("code:raw_pixels_unscaled", CLEAR if uint8 else MEDIUM, c.lineno,
                        f"`{what}` is cast to float with no scaling anywhere in the code (no /255, Normalize, "
                        f"ToTensor or (x - mean) / std)" + (" and the images are 8-bit (uint8)" if uint8 else "")
                        + ": inputs reach the first layer at 0..255, ~100x the scale it is initialised for",
                        data={"uint8": uint8}))]


_TABLE_READERS = {"read_csv", "read_excel", "read_parquet", "read_table", "read_feather", "loadtxt", "genfromtxt",
                  "load_boston", "fetch_california_housing", "load_diabetes", "fetch_openml", "load_wine"}
_SENSITIVE = {"MLPRegressor", "MLPClassifier", "SGDRegressor", "SGDClassifier", "SVR", "SVC", "LinearSVC",
              "LinearSVR", "KNeighborsRegressor", "KNeighborsClassifier", "Perceptron", "Dense", "Linear"}
_TRAINS = FIT_CALLS


# Inputs made up in the code over a wide range ("x = np.arange(-100, 100, 0.5)", "torch.linspace(0, 1000, 500)",
# "np.random.uniform(0, 300, n)"): the toy fits of y = x**4 or sin(x) that do not converge. Integer draws
# (randint) are left out: they are mostly token ids or indices.
_RANGES = {"arange", "linspace", "uniform"}
_WIDE = 50


def _wide_range(files: list[PyFile]) -> tuple[PyFile, ast.Call, str] | None:
    """(file, call, assigned name) of the first wide-range array fed to a fit or a model call."""
    fed = {a.id for f in files for c in f.calls
           if last(c) in _TRAINS or last(c) == "predict" or re.search(r"model|net", last(c), re.I)
           for a in c.args if isinstance(a, ast.Name)}
    for f in files:
        for n in f.of_type(ast.Assign):
            if not isinstance(n, ast.Assign) or len(n.targets) != 1 or not isinstance(n.targets[0], ast.Name) or n.targets[0].id not in fed:
                continue
            call = next((c for c in ast.walk(n.value) if isinstance(c, ast.Call) and last(c) in _RANGES), None)
            if call is None:
                continue
            bounds = [const(a) for a in call.args[:2]]
            if any(isinstance(b, (int, float)) and not isinstance(b, bool) and abs(b) >= _WIDE for b in bounds):
                return f, call, n.targets[0].id
    return None


def _columns_taken(files: list[PyFile], net: bool = False) -> tuple[PyFile, ast.AST] | None:
    """A frame's named columns taken as the features, `df[["income", "age", ...]]` (two names or more): a
    table in its raw units, wherever the frame came from (a snippet often leaves out its read_csv)."""
    for f in files:
        for n in f.of_type(ast.Subscript):
            if not isinstance(n, ast.Subscript) or not isinstance(n.value, ast.Name):
                continue
            cols: ast.AST | None = n.slice
            if isinstance(cols, ast.Name):      # df[feature_cols], feature_cols = ["income", "age", ...]
                if not net:
                    continue
                cols = f.value_near(cols.id, n)
            if not (isinstance(cols, ast.List) and len(cols.elts) >= 2 and all(isinstance(const(e), str) for e in cols.elts)):
                continue
            # for a torch / Keras net: numeric columns (no text, file or image column) that become its input array
            if net and (any(_TEXT_COLUMN.search(str(const(e))) for e in cols.elts) or not _to_array(f, n)):
                continue
            return f, n
    return None


# a column of text, file names or images: not a numeric feature a scaler would touch
_TEXT_COLUMN = re.compile(r"text|review|sentence|comment|title|descr|caption|file|path|image|img|url|token|word|name", re.I)


def _to_array(f: PyFile, n: ast.AST) -> bool:
    """The taken columns become an array: `.values` / `.to_numpy()` on them, or handed to torch.tensor / np.array /
    a fit call."""
    p = f.parent.get(n)
    if isinstance(p, ast.Attribute) and p.attr in ("values", "to_numpy"):
        return True
    return isinstance(p, ast.Call) and last(p) in ("tensor", "Tensor", "FloatTensor", "array", "asarray", "from_numpy", "fit")


def check_tabular_scaling(files: list[PyFile]) -> list[tuple[PyFile, Finding]]:
    reader: tuple[PyFile, ast.AST] | None = next(((f, c) for f in files for c in f.calls if last(c) in _TABLE_READERS), None)
    if reader is None and any(last(c) in ("MLPRegressor", "MLPClassifier") for f in files for c in f.calls):
        reader = _columns_taken(files)     # (the learners that need scaled columns most: sklearn's MLPs)
    if reader is None and any(last(c) in ("Linear", "Dense") for f in files for c in f.calls):
        reader = _columns_taken(files, net=True)    # (a net's: numeric columns made its input array)
    if reader is None:
        made = _wide_range(files)
        if made is None or _scaling_anywhere(files):
            return []
        f, c, name = made
        return [(f, Finding("code:features_unscaled", MEDIUM, c.lineno,
                            f"`{name}` = {src(c)} spans values far outside -1..1 and is fed to the model with no scaling "
                            f"anywhere in the code: a net initialised for unit-scale inputs fits it slowly or not at all",
                            data={"learner": "", "reader": last(c)}))]
    learner = next(((f, c) for f in files for c in f.calls if last(c) in _SENSITIVE), None)
    # (trained: a fit / backward call, or an optimizer built, as a post's excerpt of the setup shows it)
    trained = any(last(c) in _TRAINS for f in files for c in f.calls) or any(f.optimizer_ctors() for f in files)
    if learner is None or not trained or _scaling_anywhere(files) \
            or any(last(c) in ("log", "log1p", "log10") for f in files for c in f.calls):
        return []
    f, c = learner
    how = f"read with {last(reader[1])}()" if isinstance(reader[1], ast.Call) else f"taken as {src(reader[1])}"
    return [(f, Finding("code:features_unscaled", MEDIUM, c.lineno,
                        f"table columns {how} reach {last(c)} with no scaler anywhere in the code "
                        f"(no StandardScaler, MinMaxScaler, normalize or (x - mean) / std): features in their raw units "
                        f"train a gradient or distance based model slowly or not at all",
                        data={"learner": last(c), "reader": last(reader[1]) if isinstance(reader[1], ast.Call) else "columns"}))]
