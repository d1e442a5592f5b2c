"""Generator: trains every run for real and writes runs/<name>/ (notebooks with captured outputs).

Usage: python gen.py [run names...]   (default: all)
Each notebook's code cells are executed in order in one namespace (a fresh one after a
"kernel restart" marker); stdout/stderr of each cell become the cell's stream outputs, a
trailing expression becomes an execute_result, and an exception becomes an error output
(execution stops there, like "Run All").
"""
import ast, contextlib, hashlib, io, json, linecache, os, random, shutil, sys, tempfile
import textwrap, traceback, warnings

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(HERE, "runs")
REAL_SITE = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
FAKE_SITE = "/opt/conda/lib/python3.11/site-packages"
REAL_STDLIB = os.path.dirname(os.__file__)
FAKE_STDLIB = "/opt/conda/lib/python3.11"


def md(text):
    return ("markdown", textwrap.dedent(text).strip("\n"))


def code(text, script=True):
    return ("code", textwrap.dedent(text).strip("\n"), script)


RESTART = ("restart",)


# ----------------------------------------------------------------------------------------
# notebook execution harness
# ----------------------------------------------------------------------------------------
class StreamRecorder(io.TextIOBase):
    def __init__(self, name, sink):
        self.name, self.sink = name, sink

    def write(self, s):
        if not s:
            return 0
        if self.sink and self.sink[-1][0] == self.name:
            self.sink[-1][1].append(s)
        else:
            self.sink.append((self.name, [s]))
        return len(s)

    def flush(self):
        pass


def _fake_path(fn):
    if fn.startswith(REAL_SITE):
        return FAKE_SITE + fn[len(REAL_SITE):]
    if fn.startswith(REAL_STDLIB):
        return FAKE_STDLIB + fn[len(REAL_STDLIB):]
    return fn


def _format_tb(exc, cellmap):
    """IPython-like plain traceback (list of blocks)."""
    blocks = ["-" * 75,
              f"{type(exc).__name__:<42}Traceback (most recent call last)"]
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        co = tb.tb_frame.f_code
        if co.co_filename != __file__:
            frames.append(traceback.FrameSummary(co.co_filename, tb.tb_lineno,
                                                 getattr(co, "co_qualname", co.co_name),
                                                 lookup_line=False))
        tb = tb.tb_next
    for fr in frames:
        lines = linecache.getlines(fr.filename) or []
        lo, hi = max(1, fr.lineno - 2), min(len(lines), fr.lineno + 2)
        if fr.filename in cellmap:
            head = f"Cell In[{cellmap[fr.filename]}], line {fr.lineno}"
            if fr.name != "<module>":
                head += f", in {fr.name}()"
        else:
            head = f"File {_fake_path(fr.filename)}:{fr.lineno}, in {fr.name}"
            lo = max(1, fr.lineno - 2)
            hi = fr.lineno
        body = []
        w = len(str(hi))
        for i in range(lo, hi + 1):
            if i - 1 >= len(lines):
                break
            src = lines[i - 1].rstrip("\n")
            mark = "---> " if (i == fr.lineno and fr.filename in cellmap) else ("-> " if i == fr.lineno else "")
            prefix = f"{mark}{i:>{w}}" if mark else f"{i:>{w + (5 if fr.filename in cellmap else 3)}}"
            body.append(f"{prefix} {src}")
        blocks.append(head + "\n" + "\n".join(body) + "\n")
    blocks.append(f"{type(exc).__name__}: {exc}")
    return blocks


def _lines(text):
    out = text.splitlines(keepends=True)
    return out


def execute_notebook(cells, workdir, seed):
    rng = random.Random(seed)
    nb_cells = []
    ns = None
    count = 0
    kid = rng.randint(1000, 99999)
    cellmap = {}
    stopped = False
    old_cwd = os.getcwd()
    os.chdir(workdir)
    warnings.resetwarnings()
    warnings.simplefilter("default")
    try:
        for c in cells:
            if c[0] == "restart":
                ns, count = None, 0
                kid = rng.randint(1000, 99999)
                warnings.resetwarnings()
                warnings.simplefilter("default")
                continue
            cid = "%08x" % rng.getrandbits(32)
            if c[0] == "markdown":
                nb_cells.append({"cell_type": "markdown", "id": cid, "metadata": {},
                                 "source": _lines(c[1])})
                continue
            src = c[1]
            cell = {"cell_type": "code", "execution_count": None, "id": cid, "metadata": {},
                    "outputs": [], "source": _lines(src)}
            nb_cells.append(cell)
            if stopped:
                continue
            if ns is None:
                ns = {"__name__": "__main__", "__builtins__": __builtins__}
            count += 1
            cell["execution_count"] = count
            fname = f"/tmp/ipykernel_{kid}/{rng.randint(10**8, 4 * 10**9)}.py"
            cellmap[fname] = count
            srcn = src + "\n"
            linecache.cache[fname] = (len(srcn), None, srcn.splitlines(keepends=True), fname)
            tree = ast.parse(srcn, fname)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            sink = []
            result = None
            err = None
            with contextlib.redirect_stdout(StreamRecorder("stdout", sink)), \
                    contextlib.redirect_stderr(StreamRecorder("stderr", sink)):
                try:
                    exec(compile(tree, fname, "exec"), ns)
                    if last is not None:
                        result = eval(compile(last, fname, "eval"), ns)
                except Exception as e:  # noqa
                    err = e
            for name, parts in sink:
                cell["outputs"].append({"name": name, "output_type": "stream",
                                        "text": _lines("".join(parts))})
            if err is not None:
                cell["outputs"].append({"ename": type(err).__name__, "evalue": str(err),
                                        "output_type": "error",
                                        "traceback": _format_tb(err, cellmap)})
                stopped = True
            elif result is not None:
                cell["outputs"].append({"data": {"text/plain": _lines(repr(result))},
                                        "execution_count": count, "metadata": {},
                                        "output_type": "execute_result"})
    finally:
        os.chdir(old_cwd)
    nb = {"cells": nb_cells,
          "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                      "name": "python3"},
                       "language_info": {"codemirror_mode": {"name": "ipython", "version": 3},
                                         "file_extension": ".py", "mimetype": "text/x-python",
                                         "name": "python", "nbconvert_exporter": "python",
                                         "pygments_lexer": "ipython3", "version": "3.11.7"}},
          "nbformat": 4, "nbformat_minor": 5}
    return nb


def script_from(cells):
    parts = []
    for c in cells:
        if c[0] == "code" and c[2]:
            parts.append(c[1])
        elif c[0] == "restart":
            break  # train.py is the first (training) session only
    return "\n\n\n".join(parts) + "\n"


# ----------------------------------------------------------------------------------------
# run definitions
# ----------------------------------------------------------------------------------------
RUNS = {}

# run01 ------------------------------------------------------------------ resume
_r01_setup = """
import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)

X, y = make_classification(n_samples=8000, n_features=24, n_informative=12, n_redundant=4,
                           n_classes=4, class_sep=1.0, flip_y=0.0, random_state=7)
X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
mu, sd = X_tr.mean(0), X_tr.std(0)
X_tr = torch.tensor((X_tr - mu) / sd, dtype=torch.float32)
X_va = torch.tensor((X_va - mu) / sd, dtype=torch.float32)
y_tr = torch.tensor(y_tr)
y_va = torch.tensor(y_va)
print(X_tr.shape, X_va.shape)
"""
_r01_model = """
TOTAL_EPOCHS = 30
BATCH = 64

model = nn.Sequential(
    nn.Linear(24, 128), nn.ReLU(), nn.Dropout(0.1),
    nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.1),
    nn.Linear(128, 4),
)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10, 20], gamma=0.1)
loss_fn = nn.CrossEntropyLoss()

def run_epoch(epoch):
    model.train()
    g = torch.Generator().manual_seed(epoch)
    perm = torch.randperm(len(X_tr), generator=g)
    tot = 0.0
    for i in range(0, len(perm), BATCH):
        idx = perm[i:i + BATCH]
        optimizer.zero_grad()
        loss = loss_fn(model(X_tr[idx]), y_tr[idx])
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        out = model(X_va)
        vl = loss_fn(out, y_va).item()
        va = (out.argmax(1) == y_va).float().mean().item()
    return tot / len(X_tr), vl, va
"""
RUNS["run01"] = dict(
    nb="train_mlp_4class.ipynb",
    train_py=False,
    cells=[
        md("""
        # 4-class MLP — step schedule (x0.1 at 10 and 20), 30 epochs
        Training got interrupted, so it's split into two sessions (see part 2).
        """),
        code(_r01_setup),
        code(_r01_model),
        code("""
        for epoch in range(1, 16):
            tl, vl, va = run_epoch(epoch)
            lr = optimizer.param_groups[0]["lr"]
            scheduler.step()
            print(f"epoch {epoch:02d}  lr={lr:.2e}  train_loss={tl:.4f}  val_loss={vl:.4f}  val_acc={va:.4f}")
            torch.save({"epoch": epoch, "model": model.state_dict()}, "checkpoint.pt")
        """),
        md("""
        ## Part 2 — resume (new kernel, next morning)
        """),
        RESTART,
        code(_r01_setup),
        code(_r01_model),
        code("""
        ckpt = torch.load("checkpoint.pt")
        model.load_state_dict(ckpt["model"])
        start_epoch = ckpt["epoch"] + 1
        print("resuming from epoch", start_epoch)
        """),
        code("""
        for epoch in range(start_epoch, TOTAL_EPOCHS + 1):
            tl, vl, va = run_epoch(epoch)
            lr = optimizer.param_groups[0]["lr"]
            scheduler.step()
            print(f"epoch {epoch:02d}  lr={lr:.2e}  train_loss={tl:.4f}  val_loss={vl:.4f}  val_acc={va:.4f}")
            torch.save({"epoch": epoch, "model": model.state_dict()}, "checkpoint.pt")
        """),
    ],
    extra={},
    truth="resume_mismatch",
    symptom="I had to resume this run from the checkpoint halfway through and the loss jumped up right at the resume point; is the second half of the run trustworthy?",
    how="Part 2 reloads only the model weights (checkpoint has no optimizer/scheduler state); a fresh Adam and a fresh MultiStepLR are built, so at epoch 16 the lr jumps from 3e-4 back to 3e-3 and Adam moments restart, train loss jumps 0.098 -> 0.138, and the second decay lands at epoch 26 instead of 21 (the 3e-5 stage is never reached).",
)


# run02 ------------------------------------------------------------------ healthy (clean)
RUNS["run02"] = dict(
    nb="digits_cnn.ipynb",
    train_py=True,
    cells=[
        md("""
        # Digits (8x8) small CNN
        """),
        code("""
        import numpy as np
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.utils.data import DataLoader, TensorDataset
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split

        torch.manual_seed(42)
        torch.set_num_threads(1)
        """),
        code("""
        digits = load_digits()
        X = digits.images.astype(np.float32) / 16.0
        y = digits.target
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=42, stratify=y)
        X_train, X_val, y_train, y_val = train_test_split(X_train, y_train, test_size=0.15, random_state=42, stratify=y_train)

        def to_ds(a, b):
            return TensorDataset(torch.from_numpy(a).unsqueeze(1), torch.from_numpy(b).long())

        train_dl = DataLoader(to_ds(X_train, y_train), batch_size=64, shuffle=True)
        val_dl = DataLoader(to_ds(X_val, y_val), batch_size=256)
        test_dl = DataLoader(to_ds(X_test, y_test), batch_size=256)
        print(len(X_train), len(X_val), len(X_test))
        """),
        code("""
        class SmallCNN(nn.Module):
            def __init__(self, n_classes=10):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
                self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
                self.fc1 = nn.Linear(32 * 4 * 4, 64)
                self.fc2 = nn.Linear(64, n_classes)

            def forward(self, x):
                x = F.relu(self.conv1(x))
                x = F.max_pool2d(F.relu(self.conv2(x)), 2)
                x = F.relu(self.fc1(x.flatten(1)))
                return self.fc2(x)

        model = SmallCNN()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        criterion = nn.CrossEntropyLoss()
        print(sum(p.numel() for p in model.parameters()), "params")
        """),
        code("""
        @torch.no_grad()
        def evaluate(dl):
            model.eval()
            loss, correct, n = 0.0, 0, 0
            for xb, yb in dl:
                out = model(xb)
                loss += criterion(out, yb).item() * len(yb)
                correct += (out.argmax(1) == yb).sum().item()
                n += len(yb)
            return loss / n, correct / n

        EPOCHS = 20
        history = []
        for epoch in range(EPOCHS):
            model.train()
            run_loss, run_correct, seen = 0.0, 0, 0
            for xb, yb in train_dl:
                opt.zero_grad()
                out = model(xb)
                loss = criterion(out, yb)
                loss.backward()
                opt.step()
                run_loss += loss.item() * len(yb)
                run_correct += (out.argmax(1) == yb).sum().item()
                seen += len(yb)
            val_loss, val_acc = evaluate(val_dl)
            history.append((run_loss / seen, run_correct / seen, val_loss, val_acc))
            print(f"Epoch {epoch + 1}/{EPOCHS} - loss: {run_loss / seen:.4f} - acc: {run_correct / seen:.4f}"
                  f" - val_loss: {val_loss:.4f} - val_acc: {val_acc:.4f}")
        """),
        code("""
        test_loss, test_acc = evaluate(test_dl)
        print(f"test_loss={test_loss:.4f} test_acc={test_acc:.4f}")
        torch.save(model.state_dict(), "digits_cnn.pt")
        """),
    ],
    extra={},
    truth="healthy",
    symptom="Is this run ok? First time training a CNN, want to know if anything looks off before I use it.",
    how="No fault: small CNN on sklearn digits, Adam 1e-3, batch 64, 20 epochs, proper train/val/test split and eval().",
)


# run03 ------------------------------------------------------------------ metric
RUNS["run03"] = dict(
    nb="moons_classifier.ipynb",
    train_py=True,
    cells=[
        code("""
        import numpy as np
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        from sklearn.datasets import make_moons
        from sklearn.model_selection import train_test_split

        torch.manual_seed(3)
        torch.set_num_threads(1)
        """),
        code("""
        X, y = make_moons(n_samples=3000, noise=0.25, random_state=3)
        X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.2, random_state=3)
        train_ds = TensorDataset(torch.tensor(X_tr, dtype=torch.float32), torch.tensor(y_tr, dtype=torch.float32))
        val_ds = TensorDataset(torch.tensor(X_val, dtype=torch.float32), torch.tensor(y_val, dtype=torch.float32))
        train_loader = DataLoader(train_ds, batch_size=128, shuffle=True)
        val_loader = DataLoader(val_ds, batch_size=256)
        """),
        md("""
        Moved the eval code into `evaluate()` so I can reuse it from the sweep script.
        """),
        code("""
        def evaluate(model, loader, loss_fn):
            model.eval()
            losses, accs = [], []
            with torch.no_grad():
                for xb, yb in loader:
                    logits = model(xb)
                    losses.append(loss_fn(logits, yb.unsqueeze(1)).item())
                    preds = (logits > 0).float()
                    accs.append((preds == yb).float().mean().item())
            return float(np.mean(losses)), float(np.mean(accs))
        """),
        code("""
        model = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
        loss_fn = nn.BCEWithLogitsLoss()
        opt = torch.optim.Adam(model.parameters(), lr=5e-3)

        for epoch in range(1, 31):
            model.train()
            tl = []
            for xb, yb in train_loader:
                opt.zero_grad()
                loss = loss_fn(model(xb), yb.unsqueeze(1))
                loss.backward()
                opt.step()
                tl.append(loss.item())
            vl, va = evaluate(model, val_loader, loss_fn)
            print(f"[{epoch:02d}] train_loss {np.mean(tl):.4f} | val_loss {vl:.4f} | val_acc {va:.3f}")
        """),
    ],
    extra={"question.md": """
        The old version of this notebook (eval inline in the training loop) gave val acc ~0.95 on the same
        moons data. Since I cleaned it up, val_acc is stuck around 0.5 for the whole run. The loss numbers look
        about the same as before. What broke?
        """},
    truth="metric_changed",
    symptom="After I refactored the eval code into a function, val accuracy sits at ~0.5 every epoch even though the loss goes down like before.",
    how="evaluate() compares preds of shape (B,1) with labels of shape (B,); == broadcasts to (B,B) so the 'accuracy' is the mean over all label/prediction pairs (~0.5) at every epoch; the loss uses yb.unsqueeze(1) and is right (both are averaged per batch over a ragged last batch, a minor extra bias).",
)


# run04 ------------------------------------------------------------------ label range
RUNS["run04"] = dict(
    nb="review_rating_model.ipynb",
    train_py=False,
    cells=[
        md("""
        # Predict star rating from review features
        features come from the feature-extraction job (`review_features.parquet`, regenerated here)
        """),
        code("""
        import numpy as np
        import pandas as pd
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset

        torch.manual_seed(11)
        torch.set_num_threads(1)
        """),
        code("""
        rng = np.random.default_rng(11)
        n = 5000
        feats = rng.normal(size=(n, 16)).astype(np.float32)
        w = rng.normal(size=16)
        score = feats @ w + rng.normal(scale=1.5, size=n)
        stars = np.digitize(score, np.quantile(score, [0.1, 0.25, 0.5, 0.75])) + 1
        df = pd.DataFrame(feats, columns=[f"f{i}" for i in range(16)])
        df["stars"] = stars
        df.head()
        """),
        code("""
        df["stars"].value_counts().sort_index()
        """),
        code("""
        num_classes = df["stars"].nunique()
        X = torch.tensor(df.drop(columns="stars").values, dtype=torch.float32)
        y = torch.tensor(df["stars"].values, dtype=torch.long)
        n_train = int(0.8 * len(df))
        train_dl = DataLoader(TensorDataset(X[:n_train], y[:n_train]), batch_size=64, shuffle=True)
        val_dl = DataLoader(TensorDataset(X[n_train:], y[n_train:]), batch_size=512)

        model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, num_classes))
        opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
        crit = nn.CrossEntropyLoss()
        print("num_classes =", num_classes)
        """),
        code("""
        for epoch in range(15):
            model.train()
            total = 0.0
            for step, (xb, yb) in enumerate(train_dl):
                logits = model(xb)
                loss = crit(logits, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.item()
            model.eval()
            with torch.no_grad():
                correct = sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in val_dl)
            print(f"epoch {epoch}: loss={total / len(train_dl):.4f} val_acc={correct / (len(df) - n_train):.4f}")
        """),
    ],
    extra={},
    truth="label_out_of_range",
    symptom="Training crashes on the very first batch with an IndexError inside the loss and I don't see why, the model output has one unit per rating.",
    how="Star ratings are 1..5 and num_classes = nunique() = 5, so the head has outputs 0..4; CrossEntropyLoss gets target 5 and raises 'IndexError: Target 5 is out of bounds.' on the first batch.",
)


# run05 ------------------------------------------------------------------ preprocessing
RUNS["run05"] = dict(
    nb="digits_mlp_train_and_predict.ipynb",
    train_py=True,
    cells=[
        md("""
        ## Training
        """),
        code("""
        import numpy as np
        import torch
        import torch.nn as nn
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import StandardScaler

        torch.manual_seed(5)
        torch.set_num_threads(1)

        digits = load_digits()
        X_all, y_all = digits.data, digits.target
        X_dev, X_holdout, y_dev, y_holdout = train_test_split(X_all, y_all, test_size=300, random_state=5)
        X_train, X_val, y_train, y_val = train_test_split(X_dev, y_dev, test_size=0.2, random_state=5)

        scaler = StandardScaler().fit(X_train)
        Xtr = torch.tensor(scaler.transform(X_train), dtype=torch.float32)
        Xva = torch.tensor(scaler.transform(X_val), dtype=torch.float32)
        ytr, yva = torch.tensor(y_train), torch.tensor(y_val)
        """),
        code("""
        net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
        ce = nn.CrossEntropyLoss()

        for ep in range(25):
            net.train()
            perm = torch.randperm(len(Xtr))
            for i in range(0, len(perm), 32):
                b = perm[i:i + 32]
                opt.zero_grad()
                loss = ce(net(Xtr[b]), ytr[b])
                loss.backward()
                opt.step()
            net.eval()
            with torch.no_grad():
                tr_loss = ce(net(Xtr), ytr).item()
                va_out = net(Xva)
                va_loss = ce(va_out, yva).item()
                va_acc = (va_out.argmax(1) == yva).float().mean().item()
            print(f"ep {ep:2d} train_loss {tr_loss:.4f} val_loss {va_loss:.4f} val_acc {va_acc:.3f}")

        torch.save(net.state_dict(), "digits_mlp.pt")
        """),
        md("""
        ## Predict on the holdout digits
        (this part is what goes into `predict.py` for the labelling tool)
        """),
        code("""
        def preprocess(pixels):
            x = np.asarray(pixels, dtype=np.float32) / 16.0
            return torch.from_numpy(x)

        clf = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        clf.load_state_dict(torch.load("digits_mlp.pt"))
        clf.eval()

        with torch.no_grad():
            pred = clf(preprocess(X_holdout)).argmax(1).numpy()
        print("holdout accuracy:", (pred == y_holdout).mean())
        print("predicted class counts:", np.bincount(pred, minlength=10))
        """, script=False),
    ],
    extra={},
    truth="preprocessing_mismatch",
    symptom="Validation accuracy is ~97% during training but the same model only gets about 60% of the holdout digits right when I run the prediction cell.",
    how="Training standardises pixels with a StandardScaler fit on the train split; the prediction code's preprocess() only divides by 16, so the holdout inputs are on a different scale/offset than what the net was trained on.",
)


# run06 ------------------------------------------------------------------ lr
RUNS["run06"] = dict(
    nb="mlp_digits_sgd.ipynb",
    train_py=True,
    cells=[
        md("""
        # MLP on digits, plain SGD+momentum
        wanted it to train faster than last time, so I bumped the learning rate
        """),
        code("""
        import math
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split

        torch.manual_seed(6)
        torch.set_num_threads(1)

        d = load_digits()
        Xtr, Xva, ytr, yva = train_test_split(d.data / 16.0, d.target, test_size=0.2, random_state=6)
        train_dl = DataLoader(TensorDataset(torch.tensor(Xtr, dtype=torch.float32), torch.tensor(ytr)),
                              batch_size=64, shuffle=True)
        Xva, yva = torch.tensor(Xva, dtype=torch.float32), torch.tensor(yva)
        """),
        code("""
        config = dict(lr=0.55, momentum=0.9, epochs=12, hidden=256, log_every=5)
        model = nn.Sequential(nn.Linear(64, config["hidden"]), nn.ReLU(),
                              nn.Linear(config["hidden"], config["hidden"]), nn.ReLU(),
                              nn.Linear(config["hidden"], 10))
        optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])
        criterion = nn.CrossEntropyLoss()
        config
        """),
        code("""
        step = 0
        for epoch in range(config["epochs"]):
            model.train()
            for xb, yb in train_dl:
                optimizer.zero_grad()
                loss = criterion(model(xb), yb)
                loss.backward()
                grad_norm = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
                optimizer.step()
                step += 1
                if step % config["log_every"] == 0:
                    print(f"step {step:4d} | loss {loss.item():7.4f} | grad_norm {grad_norm:8.3f} | lr {optimizer.param_groups[0]['lr']}")
            model.eval()
            with torch.no_grad():
                out = model(Xva)
                print(f"== epoch {epoch + 1} val_loss {criterion(out, yva).item():.4f} "
                      f"val_acc {(out.argmax(1) == yva).float().mean().item():.4f}")
        """),
    ],
    extra={},
    truth="lr_too_high",
    symptom="Loss goes down for the first ~20 steps, then shoots up, bounces around and ends stuck near 2.3 with val accuracy around 10%.",
    how="SGD with momentum 0.9 at lr=0.55 (tens of times a sane value for this MLP): loss falls 2.12 -> 1.32 by step 20, spikes to 15.5 (grad_norm 21.9) at step 25, oscillates, and ends flat at ~2.33 (chance) with val_acc 0.08-0.10.",
)


# run07 ------------------------------------------------------------------ healthy (noisy, slow)
RUNS["run07"] = dict(
    nb="tabular_3class_sgd.ipynb",
    train_py=False,
    cells=[
        code("""
        import numpy as np
        import torch
        import torch.nn as nn
        from sklearn.datasets import make_classification
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import StandardScaler

        torch.manual_seed(77)
        torch.set_num_threads(1)
        """),
        code("""
        X, y = make_classification(n_samples=5000, n_features=30, n_informative=8, n_redundant=6,
                                   n_classes=3, n_clusters_per_class=2, class_sep=0.8, random_state=77)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=77, stratify=y)
        sc = StandardScaler().fit(X_tr)
        X_tr = torch.tensor(sc.transform(X_tr), dtype=torch.float32)
        X_te = torch.tensor(sc.transform(X_te), dtype=torch.float32)
        y_tr, y_te = torch.tensor(y_tr), torch.tensor(y_te)
        """),
        code("""
        model = nn.Sequential(nn.Linear(30, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 3))
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
        loss_fn = nn.CrossEntropyLoss()
        BS = 16
        """),
        code("""
        def test_metrics():
            model.eval()
            with torch.no_grad():
                out = model(X_te)
                l = loss_fn(out, y_te).item()
                a = (out.argmax(1) == y_te).float().mean().item()
            model.train()
            return l, a

        step = 0
        for epoch in range(8):
            perm = torch.randperm(len(X_tr))
            for i in range(0, len(perm), BS):
                idx = perm[i:i + BS]
                opt.zero_grad()
                loss = loss_fn(model(X_tr[idx]), y_tr[idx])
                loss.backward()
                opt.step()
                step += 1
                if step % 50 == 0:
                    print(f"it {step:5d}  batch_loss {loss.item():.3f}")
                if step % 250 == 0:
                    tl, ta = test_metrics()
                    print(f"it {step:5d}  test_loss {tl:.4f}  test_acc {ta:.4f}")
        """),
    ],
    extra={"README.md": """
        3-class tabular model, SGD batch 16. Loss printout is very jumpy and test accuracy creeps up slowly.
        Is this normal or is something wrong with the training?
        """},
    truth="healthy",
    symptom="The batch loss jumps around a lot and test accuracy only creeps up slowly; is this run ok?",
    how="No fault: hard synthetic 3-class data (class_sep 0.8), SGD lr 0.01 momentum 0.9, batch 16, dropout; per-batch loss printed so it is noisy, test loss falls steadily and test acc rises and plateaus.",
)


# run08 ------------------------------------------------------------------ checkpoint
RUNS["run08"] = dict(
    nb="gru_seq_classifier.ipynb",
    train_py=False,
    cells=[
        md("""
        # GRU sequence classifier (which of 4 marker tokens dominates the sequence)
        Training was run on the 2-GPU box, evaluation happens in the second half on my laptop.
        """),
        code("""
        import numpy as np
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset

        torch.manual_seed(8)
        torch.set_num_threads(1)

        VOCAB, SEQ_LEN, N_CLASSES = 20, 24, 4

        def make_data(n, seed):
            g = np.random.default_rng(seed)
            x = g.integers(N_CLASSES, VOCAB, size=(n, SEQ_LEN))
            y = g.integers(0, N_CLASSES, size=n)
            for i in range(n):
                k = g.integers(3, 7)
                others = g.permutation([c for c in range(N_CLASSES) if c != y[i]])
                counts = [k, k - 1, g.integers(0, k - 1)]
                free = g.permutation(SEQ_LEN)
                start = 0
                for c, cnt in zip([y[i], others[0], others[1]], counts):
                    x[i, free[start:start + cnt]] = c
                    start += cnt
            return torch.tensor(x), torch.tensor(y)

        x_train, y_train = make_data(4000, 1)
        x_val, y_val = make_data(800, 2)
        x_test, y_test = make_data(800, 3)
        """),
        code("""
        class GRUClassifier(nn.Module):
            def __init__(self, vocab=VOCAB, emb=16, hidden=32, n_classes=N_CLASSES):
                super().__init__()
                self.emb = nn.Embedding(vocab, emb)
                self.gru = nn.GRU(emb, hidden, batch_first=True)
                self.head = nn.Linear(hidden, n_classes)

            def forward(self, x):
                _, h = self.gru(self.emb(x))
                return self.head(h[-1])
        """),
        code("""
        model = nn.DataParallel(GRUClassifier())
        opt = torch.optim.Adam(model.parameters(), lr=2e-3)
        crit = nn.CrossEntropyLoss()
        train_dl = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=True)

        best = 0.0
        for epoch in range(1, 11):
            model.train()
            tot = 0.0
            for xb, yb in train_dl:
                opt.zero_grad()
                loss = crit(model(xb), yb)
                loss.backward()
                opt.step()
                tot += loss.item() * len(xb)
            model.eval()
            with torch.no_grad():
                val_acc = (model(x_val).argmax(-1) == y_val).float().mean().item()
            flag = ""
            if val_acc > best:
                best = val_acc
                torch.save(model.state_dict(), "gru_best.pt")
                flag = "  (saved)"
            print(f"epoch {epoch:2d} loss {tot / len(x_train):.4f} val_acc {val_acc:.4f}{flag}")
        """),
        md("""
        ## Evaluation (laptop)
        """),
        code("""
        clf = GRUClassifier()
        clf.load_state_dict(torch.load("gru_best.pt", map_location="cpu"), strict=False)
        clf.eval()
        with torch.no_grad():
            test_pred = clf(x_test).argmax(-1)
        print(f"test accuracy: {(test_pred == y_test).float().mean().item():.4f}")
        print("confusion counts per predicted class:", torch.bincount(test_pred, minlength=N_CLASSES).tolist())
        """),
    ],
    extra={"question.md": """
        Best val accuracy during training was high (see the training cell), but when I load the saved best
        checkpoint for the test set I get roughly chance. Same data generator, same class. Overfitting to val?
        """},
    truth="wrong_checkpoint",
    symptom="The best checkpoint had very high val accuracy during training, but when I load it for testing I get roughly chance accuracy.",
    how="Training wraps the model in nn.DataParallel so saved keys are prefixed 'module.'; the eval cell loads them into a bare GRUClassifier with strict=False, which silently skips every key, leaving a randomly initialised model.",
)


# run09 ------------------------------------------------------------------ zero variance
RUNS["run09"] = dict(
    nb="sensor_alarm_classifier.ipynb",
    train_py=True,
    cells=[
        md("""
        # Sensor alarm classifier
        Inputs are standardised inside the model per batch (the sensor scales drift between plants, so I
        didn't want to bake in a fixed scaler).
        """),
        code("""
        import numpy as np
        import pandas as pd
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        from sklearn.datasets import make_classification
        from sklearn.model_selection import train_test_split

        torch.manual_seed(9)
        torch.set_num_threads(1)
        """),
        code("""
        X, y = make_classification(n_samples=2082, n_features=12, n_informative=6, n_classes=2,
                                   weights=[0.7, 0.3], random_state=9)
        X = X * np.array([1, 10, 100, 0.1, 5, 50, 1, 2, 1000, 3, 0.5, 20]) + 7.0
        sensors = pd.DataFrame(X, columns=[f"s{i:02d}" for i in range(12)])
        sensors["alarm"] = y
        print(sensors.shape)
        X_tr, X_va, y_tr, y_va = train_test_split(sensors.drop(columns="alarm").values, sensors["alarm"].values,
                                                  test_size=0.2, random_state=9)
        train_dl = DataLoader(TensorDataset(torch.tensor(X_tr, dtype=torch.float32), torch.tensor(y_tr)),
                              batch_size=64, shuffle=True)
        val_dl = DataLoader(TensorDataset(torch.tensor(X_va, dtype=torch.float32), torch.tensor(y_va)),
                            batch_size=128)
        print(len(train_dl.dataset), "train rows,", len(val_dl.dataset), "val rows")
        """),
        code("""
        class BatchStandardize(nn.Module):
            def forward(self, x):
                return (x - x.mean(dim=0, keepdim=True)) / (x.std(dim=0, keepdim=True) + 1e-6)

        model = nn.Sequential(BatchStandardize(), nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 2))
        optim = torch.optim.Adam(model.parameters(), lr=1e-2)
        crit = nn.CrossEntropyLoss()
        """),
        code("""
        gstep = 0
        for epoch in range(6):
            model.train()
            epoch_loss = []
            for xb, yb in train_dl:
                optim.zero_grad()
                loss = crit(model(xb), yb)
                loss.backward()
                optim.step()
                epoch_loss.append(loss.item())
                gstep += 1
                if gstep % 10 == 0:
                    print(f"  step {gstep:3d} loss {loss.item():.4f}")
            model.eval()
            correct = 0
            with torch.no_grad():
                for xb, yb in val_dl:
                    correct += (model(xb).argmax(1) == yb).sum().item()
            print(f"epoch {epoch}: mean_train_loss={np.mean(epoch_loss):.4f} val_acc={correct / len(val_dl.dataset):.4f}")
        """),
    ],
    extra={},
    truth="zero_variance_statistic",
    symptom="Loss looks fine for the first ~25 steps and then becomes nan from the end of the first epoch on, and val accuracy is stuck at exactly 0.717 every epoch.",
    how="The model standardises each batch with x.std(dim=0); the training set has 1665 rows = 26*64 + 1, so the last batch of every epoch has one sample, std() warns 'degrees of freedom is <= 0' and returns NaN, the loss and all weights become NaN.",
)


# run10 ------------------------------------------------------------------ eval mode
RUNS["run10"] = dict(
    nb="digits_bn_cnn.ipynb",
    train_py=False,
    cells=[
        code("""
        import numpy as np
        import torch
        import torch.nn as nn
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split

        torch.manual_seed(10)
        torch.set_num_threads(1)

        digits = load_digits()
        imgs = torch.tensor(digits.images / 16.0, dtype=torch.float32).unsqueeze(1)
        labels = torch.tensor(digits.target)
        idx_tr, idx_te = train_test_split(np.arange(len(labels)), test_size=0.25, random_state=10, stratify=digits.target)
        Xtr, ytr, Xte, yte = imgs[idx_tr], labels[idx_tr], imgs[idx_te], labels[idx_te]
        print(Xtr.shape, Xte.shape)
        """),
        code("""
        def make_net():
            return nn.Sequential(
                nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                nn.Flatten(), nn.Dropout(0.5), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Dropout(0.5),
                nn.Linear(128, 10),
            )

        net = make_net()
        opt = torch.optim.RMSprop(net.parameters(), lr=1e-3)
        lossf = nn.CrossEntropyLoss()
        """),
        code("""
        for epoch in range(1, 9):
            net.train()
            perm = torch.randperm(len(Xtr))
            losses = []
            for i in range(0, len(perm), 50):
                b = perm[i:i + 50]
                opt.zero_grad()
                loss = lossf(net(Xtr[b]), ytr[b])
                loss.backward()
                opt.step()
                losses.append(loss.item())
            net.eval()
            with torch.no_grad():
                acc = (net(Xte).argmax(1) == yte).float().mean().item()
            print(f"epoch {epoch}  loss {np.mean(losses):.4f}  test_acc {acc:.4f}")
        torch.save(net.state_dict(), "bn_cnn.pt")
        """),
        md("""
        ### Serving check
        Reload the saved weights the way the labelling service does and score the test images one at a time.
        """),
        code("""
        served = make_net()
        served.load_state_dict(torch.load("bn_cnn.pt"))

        def predict_one(model, img):
            with torch.no_grad():
                return model(img.unsqueeze(0)).argmax(1).item()

        for trial in range(3):
            preds = torch.tensor([predict_one(served, img) for img in Xte])
            print(f"run {trial}: accuracy {(preds == yte).float().mean().item():.4f}")
        """),
    ],
    extra={"README.md": """
        Test accuracy at the end of training is 99%. When the saved model is reloaded and images are scored
        one by one (like the service does), accuracy drops to ~92-93% and is different every time I run it.
        Same weights, same images.
        """},
    truth="eval_mode_forgotten",
    symptom="Reloaded model scores clearly worse (about 93% instead of 99%) on the same test images than at the end of training, and the number changes every time I rerun the cell.",
    how="The serving cell reloads the weights but never calls served.eval(): BatchNorm2d normalises each single image with its own statistics (and keeps updating running stats) and Dropout(0.5) stays active, so per-image predictions are degraded and random.",
)


# run11 ------------------------------------------------------------------ dtype
RUNS["run11"] = dict(
    nb="churn_model.ipynb",
    train_py=True,
    cells=[
        md("""
        # Churn classifier (3 classes: stays / downgrades / leaves)
        """),
        code("""
        import numpy as np
        import pandas as pd
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset

        torch.manual_seed(12)
        torch.set_num_threads(1)
        """),
        code("""
        rng = np.random.default_rng(12)
        n = 3000
        df = pd.DataFrame({
            "tenure_months": rng.integers(1, 72, n),
            "monthly_spend": rng.gamma(3.0, 20.0, n).round(2),
            "support_calls": rng.poisson(1.5, n),
            "logins_30d": rng.poisson(12, n),
            "discount": rng.choice([0.0, 0.1, 0.2], n),
        })
        risk = 0.04 * df.support_calls * 10 - 0.03 * df.tenure_months - 0.05 * df.logins_30d + rng.normal(0, 0.6, n)
        df["churn_class"] = np.digitize(risk, np.quantile(risk, [0.5, 0.8]))
        # the export has some rows where the label wasn't filled in yet
        df.loc[rng.choice(n, 60, replace=False), "churn_class"] = np.nan
        df = df.dropna(subset=["churn_class"]).reset_index(drop=True)
        df.describe().T[["mean", "std", "min", "max"]]
        """),
        code("""
        feature_cols = ["tenure_months", "monthly_spend", "support_calls", "logins_30d", "discount"]
        feats = df[feature_cols].astype("float32")
        feats = (feats - feats.mean()) / feats.std()
        X = torch.tensor(feats.values)
        y = torch.tensor(df["churn_class"].values)
        ds = TensorDataset(X, y)
        train_ds, val_ds = torch.utils.data.random_split(ds, [2400, len(ds) - 2400], generator=torch.Generator().manual_seed(12))
        train_dl = DataLoader(train_ds, batch_size=128, shuffle=True)
        val_dl = DataLoader(val_ds, batch_size=256)

        model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 3))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        criterion = nn.CrossEntropyLoss()
        """),
        code("""
        for epoch in range(20):
            model.train()
            for xb, yb in train_dl:
                opt.zero_grad()
                loss = criterion(model(xb), yb)
                loss.backward()
                opt.step()
            print(f"epoch {epoch:02d} loss {loss.item():.4f}")
        """),
    ],
    extra={},
    truth="dtype_mismatch",
    symptom="The training cell crashes immediately with 'expected target dtype to be Long or Byte' from the loss and I don't understand where a Double comes from.",
    how="The label column holds NaNs in the export, so pandas stores it as float64; after dropna it stays float64 and torch.tensor(df['churn_class'].values) gives a Double target, which CrossEntropyLoss rejects with a RuntimeError on the first batch.",
)


# run12 ------------------------------------------------------------------ split
RUNS["run12"] = dict(
    nb="plant_quality_v1_vs_v2.ipynb",
    train_py=False,
    cells=[
        md("""
        # Plant QC classifier — comparing old and refactored pipeline
        v2 is the cleaned-up pipeline (split moved into `make_splits`, no sklearn dependency there).
        Training code is identical for both.
        """),
        code("""
        import numpy as np
        import pandas as pd
        import torch
        import torch.nn as nn
        from sklearn.model_selection import train_test_split

        torch.set_num_threads(1)
        """),
        code("""
        # qc_export.csv is produced by concatenating the per-plant exports (plant_A ... plant_D)
        rng = np.random.default_rng(2024)
        frames = []
        for p, plant in enumerate("ABCD"):
            n = 1000
            base = rng.normal(size=(n, 10))
            label = (base[:, 0] + 0.8 * base[:, 1] - 0.6 * base[:, 2] * base[:, 3] + 0.3 * rng.normal(size=n) > 0).astype(int)
            drift = rng.normal(scale=1.5, size=10) * (p == 3) + 0.1 * p
            gain = 1.0 + 0.8 * (p == 3)
            frames.append(pd.DataFrame(base * gain + drift, columns=[f"m{i}" for i in range(10)]).assign(plant=plant, ok=label))
        qc = pd.concat(frames, ignore_index=True)
        FEATURES = [f"m{i}" for i in range(10)]
        qc.groupby("plant").size()
        """),
        code("""
        def train_and_eval(train_df, val_df, seed=0, epochs=40):
            torch.manual_seed(seed)
            Xtr = torch.tensor(train_df[FEATURES].values, dtype=torch.float32)
            ytr = torch.tensor(train_df["ok"].values, dtype=torch.float32)
            Xva = torch.tensor(val_df[FEATURES].values, dtype=torch.float32)
            yva = torch.tensor(val_df["ok"].values, dtype=torch.float32)
            mu, sd = Xtr.mean(0), Xtr.std(0)
            Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
            model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
            opt = torch.optim.Adam(model.parameters(), lr=2e-3)
            lossf = nn.BCEWithLogitsLoss()
            for ep in range(1, epochs + 1):
                model.train()
                perm = torch.randperm(len(Xtr))
                for i in range(0, len(perm), 100):
                    b = perm[i:i + 100]
                    opt.zero_grad()
                    loss = lossf(model(Xtr[b]).squeeze(1), ytr[b])
                    loss.backward()
                    opt.step()
                if ep % 5 == 0:
                    model.eval()
                    with torch.no_grad():
                        tr_out = model(Xtr).squeeze(1)
                        va_out = model(Xva).squeeze(1)
                        tr_acc = ((tr_out > 0).float() == ytr).float().mean().item()
                        va_loss = lossf(va_out, yva).item()
                        va_acc = ((va_out > 0).float() == yva).float().mean().item()
                    print(f"  ep {ep:3d}  train_loss {lossf(tr_out, ytr).item():.4f}  train_acc {tr_acc:.4f}  "
                          f"val_loss {va_loss:.4f}  val_acc {va_acc:.4f}")
            return va_acc
        """),
        md("""
        ## v1 (old notebook, commit `7c1e0a2`)
        """),
        code("""
        tr_v1, va_v1 = train_test_split(qc, test_size=0.25, random_state=0, stratify=qc["ok"])
        print("v1 val size", len(va_v1), "| plants in val:", sorted(va_v1.plant.unique()))
        acc_v1 = train_and_eval(tr_v1, va_v1)
        print("v1 final val_acc:", round(acc_v1, 4))
        """),
        md("""
        ## v2 (refactored, current `main`)
        """),
        code("""
        def make_splits(df, val_frac=0.25):
            n_val = int(len(df) * val_frac)
            return df.iloc[:-n_val], df.iloc[-n_val:]

        tr_v2, va_v2 = make_splits(qc)
        print("v2 val size", len(va_v2))
        acc_v2 = train_and_eval(tr_v2, va_v2)
        print("v2 final val_acc:", round(acc_v2, 4))
        """),
    ],
    extra={"question.md": """
        After the pipeline refactor (v2) our validation accuracy dropped from ~0.9 to much lower. Model and
        training loop did not change (same `train_and_eval`). Both versions are in the notebook. Did the
        refactor break the model?
        """},
    truth="seed_or_split_changed",
    symptom="After refactoring the data pipeline, validation accuracy dropped a lot even though the model and training loop are unchanged.",
    how="v2's make_splits takes the last 25% of rows without shuffling; the export is concatenated per plant, so v2's validation set (1000 rows) is exactly plant D (a plant with its own offset/gain never seen in training), while v1 used a stratified random split across all plants.",
)


def build(name):
    spec = RUNS[name]
    out = os.path.join(RUNS_DIR, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    work = tempfile.mkdtemp(prefix=f"work_{name}_")
    seed = int(hashlib.md5(name.encode()).hexdigest()[:8], 16)
    nb = execute_notebook(spec["cells"], work, seed)
    with open(os.path.join(out, spec["nb"]), "w") as f:
        json.dump(nb, f, indent=1, ensure_ascii=False)
        f.write("\n")
    if spec["train_py"]:
        with open(os.path.join(out, "train.py"), "w") as f:
            f.write(script_from(spec["cells"]))
    for fn, txt in spec["extra"].items():
        with open(os.path.join(out, fn), "w") as f:
            f.write(textwrap.dedent(txt).lstrip("\n"))
    shutil.rmtree(work, ignore_errors=True)


def main():
    names = sys.argv[1:] or sorted(RUNS)
    for n in names:
        t0 = __import__("time").time()
        build(n)
        print(f"{n}: built in {__import__('time').time() - t0:.1f}s", file=sys.__stdout__)
    truth = {n: {"truth": RUNS[n]["truth"], "symptom": RUNS[n]["symptom"], "how": RUNS[n]["how"]}
             for n in sorted(RUNS)}
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
