#!/usr/bin/env python
"""Generator for the 'works in training, not in production' run folders.

Every run is produced by really executing user-style scripts (train / export /
batch inference / serving) in a scratch folder next to this file, then copying
only the files a user would hand over into runs/<name>/.

usage:  python gen.py            # all runs
        python gen.py run03 ...  # only these runs
"""
import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"
WORK = HERE / "_work"
PY = sys.executable
SITE = sysconfig.get_paths()["purelib"]
STDLIB = sysconfig.get_paths()["stdlib"]
PREFIX = sys.prefix

TRUTH = {}


# ----------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------
def dd(s):
    return textwrap.dedent(s).lstrip("\n")


class Run:
    def __init__(self, name, train_root, serve_root="/app", train_site=None, serve_site=None):
        self.name = name
        self.work = WORK / name
        self.out = RUNS / name
        if self.work.exists():
            shutil.rmtree(self.work)
        if self.out.exists():
            shutil.rmtree(self.out)
        self.work.mkdir(parents=True)
        (self.work / "data").mkdir()
        self.out.mkdir(parents=True)
        self.train_root = train_root
        self.serve_root = serve_root
        self.train_site = train_site or (train_root.rsplit("/", 1)[0] + "/.venv/lib/python3.11/site-packages")
        self.serve_site = serve_site or "/usr/local/lib/python3.11/site-packages"

    # -- sanitising: no scratch paths in shipped text
    def clean(self, text, side="train"):
        root = self.train_root if side == "train" else self.serve_root
        site = self.train_site if side == "train" else self.serve_site
        if side == "serve":
            for f in ("export.py", "train.py"):
                text = text.replace(f"{self.work}/{f}", f"{self.train_root}/{f}")
        text = text.replace(str(self.work), root)
        text = text.replace(SITE, site)
        text = text.replace(STDLIB, "/usr/local/lib/python3.11" if side == "serve" else "/usr/lib/python3.11")
        text = text.replace(PREFIX, "/opt/venv")
        text = text.replace(str(HERE), root)
        return text

    def write(self, rel, text):
        p = self.work / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def py(self, script, *args, side="train", env=None, expect_fail=False, timeout=300, cwd=None):
        e = dict(os.environ)
        e.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
                  "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"})
        e.pop("PYTHONPATH", None)
        if env:
            e.update(env)
        r = subprocess.run([PY, script, *map(str, args)], cwd=self.work / (cwd or "."), env=e, timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = r.stdout
        if r.returncode != 0 and not expect_fail:
            print(out)
            raise SystemExit(f"[{self.name}] {script} failed rc={r.returncode}")
        if expect_fail and r.returncode == 0:
            print(out)
            raise SystemExit(f"[{self.name}] {script} was expected to fail")
        return self.clean(out, side), r.returncode

    def ship(self, rel, dest=None, side="train"):
        src = self.work / rel
        dst = self.out / (dest or rel)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(self.clean(src.read_text(), side))

    def put(self, rel, text):
        p = self.out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)

    def both(self, rel, text, ship=True):
        """write into the scratch folder and ship the same text"""
        self.write(rel, text)
        if ship:
            self.put(rel, text)

    def truth(self, truth, symptom, how):
        TRUTH[self.name] = {"truth": truth, "symptom": symptom, "how": how}


def console(cmd, out, prompt="$ "):
    return f"{prompt}{cmd}\n{out}"


def ts_iso(t, sep="T", ms_sep="."):
    d = _dt.datetime.fromtimestamp(t, _dt.timezone.utc)
    return d.strftime(f"%Y-%m-%d{sep}%H:%M:%S") + f"{ms_sep}{d.microsecond // 1000:03d}"


def epoch_of(s):
    return _dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(tzinfo=_dt.timezone.utc).timestamp()


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out) + "\n"


def read_jsonl(p):
    return [json.loads(l) for l in Path(p).read_text().splitlines() if l.strip()]


def write_jsonl(p, rows):
    Path(p).parent.mkdir(parents=True, exist_ok=True)
    Path(p).write_text("".join(json.dumps(r) + "\n" for r in rows))


def ips(rng, n):
    pool = [f"10.{rng.integers(0, 60)}.{rng.integers(0, 255)}.{rng.integers(2, 250)}" for _ in range(6)]
    return [(pool[rng.integers(0, len(pool))], int(rng.integers(32768, 60999))) for _ in range(n)]


# ----------------------------------------------------------------------------
# synthetic data sets (numpy only)
# ----------------------------------------------------------------------------
def make_classification(rng, n, n_features, n_informative, n_classes, sep=1.0, flip=0.0,
                        n_redundant=2, scale_range=(1.0, 1.0)):
    cent = rng.normal(size=(n_classes, n_informative)) * sep
    y = rng.integers(0, n_classes, n)
    xi = cent[y] + rng.normal(size=(n, n_informative))
    a = rng.normal(size=(n_informative, n_informative)) / np.sqrt(n_informative)
    xi = xi @ (np.eye(n_informative) + 0.5 * a)
    xr = xi @ rng.normal(size=(n_informative, n_redundant)) * 0.5
    xn = rng.normal(size=(n, n_features - n_informative - n_redundant))
    x = np.concatenate([xi, xr, xn], 1)[:, rng.permutation(n_features)]
    lo, hi = scale_range
    scales = np.exp(rng.uniform(np.log(lo), np.log(hi), n_features))
    offs = rng.normal(size=n_features) * scales * 2
    x = x * scales + offs
    if flip:
        m = rng.random(n) < flip
        y[m] = rng.integers(0, n_classes, m.sum())
    return x, y


def make_moons(rng, n, noise):
    n1 = n // 2
    t1 = rng.uniform(0, np.pi, n1)
    t2 = rng.uniform(0, np.pi, n - n1)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 1 - np.sin(t2) - 0.5], 1)
    x = np.concatenate([a, b]) + rng.normal(scale=noise, size=(n, 2))
    y = np.concatenate([np.zeros(n1, int), np.ones(n - n1, int)])
    p = rng.permutation(n)
    return x[p], y[p]


def glyph_images(rng, n, size, classes):
    """small grey-scale glyphs (uint8 0..255) with jitter, stroke width and noise"""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    X = np.zeros((n, size, size), np.float32)
    y = rng.integers(0, len(classes), n)
    for i in range(n):
        c = classes[y[i]]
        cx, cy = size / 2 + rng.normal(0, size * 0.08, 2)
        w = rng.uniform(0.8, 1.6)
        L = size * rng.uniform(0.28, 0.4)
        img = np.zeros((size, size), np.float32)
        if c in ("hbar", "cross", "plus"):
            img = np.maximum(img, (np.abs(yy - cy) < w) & (np.abs(xx - cx) < L))
        if c in ("vbar", "cross", "plus"):
            img = np.maximum(img, (np.abs(xx - cx) < w) & (np.abs(yy - cy) < L))
        if c in ("diag", "x"):
            img = np.maximum(img, (np.abs((xx - cx) - (yy - cy)) < w * 1.2) & (np.abs(xx - cx) < L))
        if c in ("anti", "x"):
            img = np.maximum(img, (np.abs((xx - cx) + (yy - cy)) < w * 1.2) & (np.abs(xx - cx) < L))
        if c == "ring":
            r = np.hypot(xx - cx, yy - cy)
            img = np.maximum(img, np.abs(r - L * 0.8) < w)
        if c == "dot":
            img = np.maximum(img, np.hypot(xx - cx, yy - cy) < L * 0.45)
        if c == "box":
            inside = (np.abs(xx - cx) < L * 0.75) & (np.abs(yy - cy) < L * 0.75)
            inner = (np.abs(xx - cx) < L * 0.75 - w * 1.5) & (np.abs(yy - cy) < L * 0.75 - w * 1.5)
            img = np.maximum(img, inside & ~inner)
        X[i] = img * rng.uniform(150, 235)
    X += rng.normal(18, 14, X.shape)
    return np.clip(X, 0, 255).astype(np.uint8), y


# ----------------------------------------------------------------------------
# serving emulation drivers (scratch only, never shipped)
# ----------------------------------------------------------------------------
FASTAPI_DRIVER = dd(r'''
import asyncio, importlib, json, logging, random, sys, time, traceback, warnings, datetime as dt

mod_name, req_path, log_path, resp_path, base_ts, seed, fmt = sys.argv[1:8]
clock = [float(base_ts)]
rnd = random.Random(int(seed))
logf = open(log_path, "w")

class F(logging.Formatter):
    def formatTime(self, record, datefmt=None):
        d = dt.datetime.fromtimestamp(clock[0], dt.timezone.utc)
        return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)

h = logging.StreamHandler(logf)
h.setFormatter(F(fmt))
root = logging.getLogger(); root.handlers[:] = [h]; root.setLevel(logging.INFO)
logging.captureWarnings(True)
ulog = logging.getLogger("uvicorn.error"); alog = logging.getLogger("uvicorn.access")

def trim(exc, keep_from):
    te = traceback.TracebackException.from_exception(exc)
    st = list(te.stack)
    for i, fr in enumerate(st):
        if any(k in fr.filename for k in keep_from):
            st = st[i:]; break
    te.stack = traceback.StackSummary.from_list(st)
    return "".join(te.format()).rstrip()

ulog.info("Started server process [1]")
ulog.info("Waiting for application startup.")
try:
    import torch
    torch.manual_seed(int(seed))
    mod = importlib.import_module(mod_name)
except Exception as e:
    tb = trim(e, [mod_name + ".py"])
    logf.write(tb + "\n")
    ulog.error("Application startup failed. Exiting.")
    logf.close()
    open(resp_path, "w").close()
    sys.exit(3)
app = mod.app
ulog.info("Application startup complete.")
ulog.info("Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)")

PHRASE = {200: "OK", 422: "Unprocessable Content", 500: "Internal Server Error", 400: "Bad Request"}

async def call(method, path, body, client):
    raw = json.dumps(body).encode() if body is not None else b""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())],
             "client": tuple(client), "server": ("10.0.0.2", 8080)}
    sent = [False]
    async def receive():
        if not sent[0]:
            sent[0] = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await asyncio.sleep(3600)
    out = {"status": None, "body": b""}
    async def send(m):
        if m["type"] == "http.response.start":
            out["status"] = m["status"]
        elif m["type"] == "http.response.body":
            out["body"] += m.get("body", b"")
    err = None
    try:
        await app(scope, receive, send)
    except Exception as e:
        err = e
    return out, err

resps = []
for line in open(req_path):
    r = json.loads(line)
    clock[0] += r.get("gap", rnd.uniform(0.05, 2.0))
    t0 = time.perf_counter()
    out, err = asyncio.run(call(r["method"], r["path"], r.get("body"), r["client"]))
    clock[0] += time.perf_counter() - t0
    st = out["status"]
    alog.info('%s:%d - "%s %s HTTP/1.1" %d %s', r["client"][0], r["client"][1], r["method"], r["path"], st, PHRASE.get(st, ""))
    if err is not None:
        ulog.error("Exception in ASGI application\n" + trim(err, ["/starlette/", "/fastapi/"]))
    try:
        body = json.loads(out["body"] or b"null")
    except Exception:
        body = out["body"].decode(errors="replace")
    resps.append({"id": r.get("id"), "status": st, "body": body})
with open(resp_path, "w") as f:
    for x in resps:
        f.write(json.dumps(x) + "\n")
logging.shutdown()
logf.close()
''')

TORCHSERVE_DRIVER = dd(r'''
import importlib, json, logging, random, sys, time, traceback, datetime as dt, platform

(mod_name, cls_name, model_name, model_dir, req_path, log_path, resp_path, base_ts, seed,
 batch_size) = sys.argv[1:11]
batch_size = int(batch_size)
clock = [float(base_ts)]
rnd = random.Random(int(seed))
logf = open(log_path, "w")
W = f"W-9000-{model_name}_1.0"

def stamp():
    d = dt.datetime.fromtimestamp(clock[0], dt.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ",%03d" % (d.microsecond // 1000)

def fe(level, src, msg):
    for l in str(msg).splitlines() or [""]:
        logf.write(f"{stamp()} [{level:<5}] {src} - {l}\n")

class H(logging.Handler):
    def emit(self, record):
        msg = record.getMessage()
        fe("INFO", f"{W}-stdout MODEL_LOG", f"{record.levelname} - {msg}" if record.levelno >= logging.WARNING else msg)

root = logging.getLogger(); root.handlers[:] = [H()]; root.setLevel(logging.INFO)
logging.captureWarnings(True)

def adv(a, b):
    clock[0] += rnd.uniform(a, b)

fe("INFO", "main org.pytorch.serve.servingsdk.impl.PluginsManager", "Initializing plugins manager...")
adv(0.2, 0.4)
fe("INFO", "main org.pytorch.serve.ModelServer", "\nTorchserve version: 0.11.0\nTS Home: /usr/local/lib/python3.11/site-packages\n"
   "Current directory: /home/model-server\nTemp directory: /home/model-server/scratch\nNumber of GPUs: 0\nNumber of CPUs: 4\n"
   f"Model Store: /home/model-server/model-store\nInitial Models: {model_name}={model_name}.mar\nDefault workers per model: 1\n"
   f"Blacklist Regex: N/A\nMaximum Response Size: 6553500\nMaximum Request Size: 6553500")
adv(0.5, 1.0)
fe("INFO", "main org.pytorch.serve.wlm.ModelManager", f"Model {model_name} loaded.")
fe("DEBUG", "main org.pytorch.serve.wlm.ModelManager", f"updateModel: {model_name}, count: 1")
fe("INFO", "main org.pytorch.serve.ModelServer", "Inference API bind to: http://0.0.0.0:8080")
adv(0.5, 1.0)
fe("INFO", f"{W}-stdout MODEL_LOG", "Listening on port: /home/model-server/scratch/.ts.sock.9000")
fe("INFO", f"{W}-stdout MODEL_LOG", "Successfully loaded /usr/local/lib/python3.11/site-packages/ts/configs/metrics.yaml.")
fe("INFO", f"{W}-stdout MODEL_LOG", f"[PID]412")
fe("INFO", f"{W}-stdout MODEL_LOG", "Torch worker started.")
fe("INFO", f"{W}-stdout MODEL_LOG", f"Python runtime: {platform.python_version()}")

def trim(exc, keep):
    te = traceback.TracebackException.from_exception(exc)
    st = list(te.stack)
    for i, fr in enumerate(st):
        if keep in fr.filename:
            st = st[i:]; break
    te.stack = traceback.StackSummary.from_list(st)
    return "".join(te.format()).rstrip()

import torch
torch.manual_seed(int(seed))
mod = importlib.import_module(mod_name)
handler = getattr(mod, cls_name)()
class Ctx:
    system_properties = {"model_dir": model_dir, "gpu_id": None, "batch_size": batch_size}
    manifest = {"model": {"modelName": model_name, "serializedFile": None, "handler": mod_name + ".py", "modelVersion": "1.0"}}
t0 = time.perf_counter()
handler.initialize(Ctx())
clock[0] += time.perf_counter() - t0 + 0.3
fe("INFO", f"{W} org.pytorch.serve.wlm.WorkerThread", f"Backend response time: {int((time.perf_counter()-t0)*1000)+300}")
fe("DEBUG", f"{W} org.pytorch.serve.wlm.WorkerThread", f"{W} State change WORKER_STARTED -> WORKER_MODEL_LOADED")

reqs = [json.loads(l) for l in open(req_path)]
resps = []
i = 0
while i < len(reqs):
    batch = reqs[i:i + batch_size] if batch_size > 1 else reqs[i:i + 1]
    i += len(batch)
    clock[0] += batch[0].get("gap", rnd.uniform(0.05, 1.5))
    data = [{"body": json.dumps(r["body"]).encode()} for r in batch]
    t0 = time.perf_counter()
    try:
        out = handler.handle(data, Ctx())
        err = None
    except Exception as e:
        out, err = None, e
    dtm = (time.perf_counter() - t0) * 1000
    clock[0] += dtm / 1000
    if err is not None:
        fe("INFO", f"{W}-stdout MODEL_LOG", "Invoking custom service failed.")
        fe("INFO", f"{W}-stdout MODEL_LOG", trim(err, mod_name + ".py"))
        fe("INFO", f"{W} ACCESS_LOG" if False else f"{W} org.pytorch.serve.wlm.WorkerThread", f"Backend response time: {int(dtm)}")
        for r in batch:
            fe("INFO", f"{W} ACCESS_LOG", f'/{r["client"][0]}:{r["client"][1]} "POST /predictions/{model_name} HTTP/1.1" 500 {int(dtm)+2}')
            fe("INFO", f"{W} TS_METRICS", f"Requests5XX.Count:1.0|#Level:Host|#hostname:{model_name}-7c9f,timestamp:{int(clock[0])}")
            resps.append({"id": r.get("id"), "status": 500,
                          "body": {"code": 500, "type": "InternalServerException", "message": "Prediction failed"}})
    else:
        fe("INFO", f"{W}-stdout MODEL_METRICS", f"PredictionTime.Milliseconds:{dtm:.2f}|#ModelName:{model_name},Level:Model|#type:GAUGE|#hostname:{model_name}-7c9f,timestamp:{int(clock[0])}")
        fe("INFO", f"{W} org.pytorch.serve.wlm.WorkerThread", f"Backend response time: {int(dtm)}")
        for r, o in zip(batch, out):
            fe("INFO", f"{W} ACCESS_LOG", f'/{r["client"][0]}:{r["client"][1]} "POST /predictions/{model_name} HTTP/1.1" 200 {int(dtm)+2}')
            resps.append({"id": r.get("id"), "status": 200, "body": o})
with open(resp_path, "w") as f:
    for x in resps:
        f.write(json.dumps(x) + "\n")
logging.shutdown()
logf.close()
''')


def fastapi_replay(run, module, requests, base, seed, fmt="%(asctime)s %(levelname)s [%(name)s] %(message)s",
                   log="serving.log", expect_fail=False):
    run.write("_replay_fastapi.py", FASTAPI_DRIVER)
    write_jsonl(run.work / "_requests.jsonl", requests)
    out, rc = run.py("_replay_fastapi.py", module, "_requests.jsonl", "_serving_raw.log", "_responses.jsonl",
                     base, seed, fmt, side="serve", expect_fail=expect_fail)
    (run.work / log).write_text(run.clean((run.work / "_serving_raw.log").read_text(), "serve"))
    return read_jsonl(run.work / "_responses.jsonl"), rc


def torchserve_replay(run, module, cls, model_name, model_dir, requests, base, seed, batch_size=1,
                      log="ts_log.log"):
    run.write("_replay_ts.py", TORCHSERVE_DRIVER)
    write_jsonl(run.work / "_requests.jsonl", requests)
    run.py("_replay_ts.py", module, cls, model_name, model_dir, "_requests.jsonl", "_ts_raw.log",
           "_responses.jsonl", base, seed, batch_size, side="serve")
    txt = run.clean((run.work / "_ts_raw.log").read_text(), "serve")
    txt = txt.replace(f"/app/{model_dir}", f"/home/model-server/scratch/models/{model_name}")
    (run.work / log).write_text(txt)
    return read_jsonl(run.work / "_responses.jsonl")


def acc(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float((a == b).mean())


def pct(x):
    return f"{100 * x:.1f}%"


def save_csv(path, X, y, cols, ycol="label", extra=None):
    import pandas as pd
    df = pd.DataFrame(np.round(X, 4), columns=cols)
    if extra:
        for k, v in extra.items():
            df[k] = v
    df[ycol] = y
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
    return df


# ============================================================================
# run01 -- healthy, converges well (tabular MLP, Adam, FastAPI, TorchScript)
# ============================================================================
def run01():
    r = Run("run01", train_root="/home/priya/segment-clf")
    rng = np.random.default_rng(101)
    X, y = make_classification(rng, 6000, 20, 8, 3, sep=1.1, scale_range=(0.3, 40))
    cols = [f"f{i:02d}" for i in range(20)]
    save_csv(r.work / "data/train.csv", X[:4500], y[:4500], cols)
    save_csv(r.work / "data/val.csv", X[4500:5500], y[4500:5500], cols)
    save_csv(r.work / "data/holdout.csv", X[5500:], y[5500:], cols)

    r.both("train_config.yaml", dd("""
        seed: 7
        data:
          train: data/train.csv
          val: data/val.csv
        model:
          hidden: 64
          n_classes: 3
        optim:
          name: adam
          lr: 0.0005
          weight_decay: 0.0001
          batch_size: 64
          epochs: 30
        out_dir: artifacts
        """))
    r.both("model.py", dd("""
        import torch.nn as nn


        class MLP(nn.Module):
            def __init__(self, n_in: int, hidden: int, n_classes: int):
                super().__init__()
                self.net = nn.Sequential(
                    nn.Linear(n_in, hidden), nn.ReLU(),
                    nn.Linear(hidden, hidden), nn.ReLU(),
                    nn.Linear(hidden, n_classes),
                )

            def forward(self, x):
                return self.net(x)
        """))
    r.both("train.py", dd("""
        import json
        import os

        import numpy as np
        import pandas as pd
        import torch
        import torch.nn as nn
        import yaml

        from model import MLP

        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("train_config.yaml"))
        torch.manual_seed(cfg["seed"])
        os.makedirs(cfg["out_dir"], exist_ok=True)

        train = pd.read_csv(cfg["data"]["train"])
        val = pd.read_csv(cfg["data"]["val"])
        feats = [c for c in train.columns if c != "label"]
        mean = train[feats].mean().values
        std = train[feats].std().values
        with open(os.path.join(cfg["out_dir"], "scaler.json"), "w") as f:
            json.dump({"features": feats, "mean": mean.tolist(), "std": std.tolist()}, f, indent=1)


        def tensors(df):
            x = (df[feats].values - mean) / std
            return torch.tensor(x, dtype=torch.float32), torch.tensor(df["label"].values)


        xtr, ytr = tensors(train)
        xva, yva = tensors(val)
        model = MLP(len(feats), cfg["model"]["hidden"], cfg["model"]["n_classes"])
        opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
        loss_fn = nn.CrossEntropyLoss()
        bs = cfg["optim"]["batch_size"]
        history = []
        for epoch in range(1, cfg["optim"]["epochs"] + 1):
            model.train()
            perm = torch.randperm(len(xtr))
            tot = 0.0
            for i in range(0, len(xtr), bs):
                idx = perm[i:i + bs]
                opt.zero_grad()
                loss = loss_fn(model(xtr[idx]), ytr[idx])
                loss.backward()
                opt.step()
                tot += loss.item() * len(idx)
            model.eval()
            with torch.no_grad():
                logits = model(xva)
                val_loss = loss_fn(logits, yva).item()
                val_acc = (logits.argmax(1) == yva).float().mean().item()
            history.append({"epoch": epoch, "train_loss": tot / len(xtr), "val_loss": val_loss, "val_acc": val_acc})
            print(f"epoch {epoch:02d} | train_loss {tot / len(xtr):.4f} | val_loss {val_loss:.4f} | val_acc {val_acc:.4f}")

        pd.DataFrame(history).to_csv(os.path.join(cfg["out_dir"], "metrics.csv"), index=False, float_format="%.5f")
        torch.save(model.state_dict(), os.path.join(cfg["out_dir"], "model_state.pt"))
        print(f"final: val_loss={val_loss:.4f} val_acc={val_acc:.4f}")
        """))
    r.both("export.py", dd("""
        import json

        import numpy as np
        import pandas as pd
        import torch

        from model import MLP

        torch.set_num_threads(1)
        scaler = json.load(open("artifacts/scaler.json"))
        model = MLP(len(scaler["features"]), 64, 3)
        model.load_state_dict(torch.load("artifacts/model_state.pt", map_location="cpu"))
        model.eval()

        scripted = torch.jit.script(model)
        scripted.save("artifacts/model.ts")
        print("saved artifacts/model.ts")

        val = pd.read_csv("data/val.csv")
        x = (val[scaler["features"]].values - np.array(scaler["mean"])) / np.array(scaler["std"])
        x = torch.tensor(x, dtype=torch.float32)
        reloaded = torch.jit.load("artifacts/model.ts")
        with torch.no_grad():
            a, b = model(x), reloaded(x)
        print("eager vs torchscript max |diff|:", f"{(a - b).abs().max().item():.2e}")
        print("argmax agreement:", (a.argmax(1) == b.argmax(1)).float().mean().item())
        print("params:", sum(p.numel() for p in model.parameters()))
        """))
    r.both("batch_infer.py", dd("""
        import json
        import sys

        import numpy as np
        import pandas as pd
        import torch

        torch.set_num_threads(1)
        path = sys.argv[1] if len(sys.argv) > 1 else "data/holdout.csv"
        scaler = json.load(open("artifacts/scaler.json"))
        model = torch.jit.load("artifacts/model.ts")
        model.eval()
        df = pd.read_csv(path)
        x = (df[scaler["features"]].values - np.array(scaler["mean"])) / np.array(scaler["std"])
        with torch.no_grad():
            probs = torch.softmax(model(torch.tensor(x, dtype=torch.float32)), 1).numpy()
        pred = probs.argmax(1)
        np.save("artifacts/notebook_preds.npy", probs)
        hist = pd.read_csv("artifacts/metrics.csv")
        print(f"scored {len(df)} rows from {path}")
        print(f"accuracy: {(pred == df['label'].values).mean():.4f}")
        for k in range(probs.shape[1]):
            m = df["label"].values == k
            print(f"  class {k}: n={m.sum():4d} recall={(pred[m] == k).mean():.4f}")
        print(f"training run final val_acc={hist['val_acc'].iloc[-1]:.4f} val_loss={hist['val_loss'].iloc[-1]:.4f}")
        """))
    r.both("serve_config.yaml", dd("""
        model_path: artifacts/model.ts
        scaler_path: artifacts/scaler.json
        classes: [basic, plus, premium]
        """))
    r.both("serve.py", dd("""
        import json
        import logging

        import numpy as np
        import torch
        import yaml
        from fastapi import FastAPI
        from pydantic import BaseModel

        torch.set_num_threads(1)
        log = logging.getLogger("segment_clf")
        cfg = yaml.safe_load(open("serve_config.yaml"))

        model = torch.jit.load(cfg["model_path"], map_location="cpu")
        model.eval()
        scaler = json.load(open(cfg["scaler_path"]))
        MEAN = np.array(scaler["mean"], dtype=np.float32)
        STD = np.array(scaler["std"], dtype=np.float32)
        CLASSES = cfg["classes"]
        log.info("model %s loaded, %d features, classes=%s", cfg["model_path"], len(MEAN), CLASSES)

        app = FastAPI(title="segment-clf", version="1.3.0")


        class PredictRequest(BaseModel):
            instances: list[list[float]]


        @app.get("/health")
        def health():
            return {"status": "ok"}


        @app.post("/predict")
        def predict(req: PredictRequest):
            x = (np.asarray(req.instances, dtype=np.float32) - MEAN) / STD
            with torch.no_grad():
                probs = torch.softmax(model(torch.from_numpy(x)), dim=1).numpy()
            pred = probs.argmax(1)
            log.info("predict n=%d classes=%s", len(x), [CLASSES[p] for p in pred])
            return {"predictions": [{"label": CLASSES[p], "class_id": int(p),
                                     "probs": [round(float(v), 5) for v in pr]} for p, pr in zip(pred, probs)]}
        """))
    r.both("requirements-train.txt", "torch==2.13.0\nnumpy==2.4.6\npandas==3.1.1\npyyaml==6.0.4\n")
    r.both("requirements-serve.txt", "torch==2.13.0\nnumpy==2.4.6\npyyaml==6.0.4\nfastapi==0.165.0\nuvicorn==0.55.0\n")
    r.write("artifacts/.keep", "")

    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    r.ship("artifacts/metrics.csv", "metrics.csv")
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    out, _ = r.py("batch_infer.py", "data/holdout.csv")
    r.put("batch_infer_output.txt", console("python batch_infer.py data/holdout.csv", out))

    import pandas as pd
    hold = pd.read_csv(r.work / "data/holdout.csv")
    reqs, i = [], 0
    cl = ips(rng, 400)
    k = 0
    while i < len(hold):
        n = int(rng.integers(1, 9))
        rows = hold.iloc[i:i + n][cols].values.round(4).tolist()
        reqs.append({"id": i, "method": "POST", "path": "/predict", "body": {"instances": rows}, "client": cl[k]})
        i += n
        k += 1
        if k % 25 == 0:
            reqs.append({"id": None, "method": "GET", "path": "/health", "body": None, "client": ["10.0.0.1", 41000 + k]})
    resps, _ = fastapi_replay(r, "serve", reqs, epoch_of("2024-05-14 09:12:00"), 1)
    r.ship("serving.log", side="serve")
    server_p = []
    for q, s in zip(reqs, resps):
        if q["path"] == "/predict":
            server_p += [p["probs"] for p in s["body"]["predictions"]]
    server_p = np.array(server_p)
    nb = np.load(r.work / "artifacts/notebook_preds.npy")
    yh = hold["label"].values
    samples = [{"request": reqs[j]["body"], "response": resps[j]["body"]} for j in (0, 1, 2)]
    r.put("request_samples.json", json.dumps(samples, indent=1) + "\n")
    r.put("comparison.md", "# notebook vs /predict on data/holdout.csv\n\n" + md_table(
        ["", "notebook (batch_infer.py)", "server (/predict replay)"],
        [["rows", len(nb), len(server_p)],
         ["accuracy", f"{acc(nb.argmax(1), yh):.4f}", f"{acc(server_p.argmax(1), yh):.4f}"],
         ["argmax agreement", "-", pct(acc(nb.argmax(1), server_p.argmax(1)))],
         ["max abs prob diff", "-", f"{np.abs(nb - server_p).max():.1e}"],
         ["mean top prob", f"{nb.max(1).mean():.4f}", f"{server_p.max(1).mean():.4f}"]]) +
        "\nserver probs are rounded to 5 decimals in the response.\n")
    r.truth("healthy", "Before we switch traffic to the new FastAPI service, can you check this training run and "
            "the serving numbers and tell me if everything is OK?",
            "No fault: 3-class MLP on standardised tabular data, Adam 5e-4, 30 epochs; TorchScript export, "
            "FastAPI server applies the same scaler; server and notebook agree on the holdout.")
    return r




# ============================================================================
# run02 -- preprocessing_mismatch (glyph CNN, SGD, TorchServe; no train/serve code)
# ============================================================================
GLYPH4 = ["hbar", "vbar", "ring", "cross"]


def run02():
    r = Run("run02", train_root="/home/marco/glyphs", serve_root="/home/model-server/scratch/models/9c1e47a2")
    rng = np.random.default_rng(202)
    X, y = glyph_images(rng, 2800, 16, GLYPH4)
    np.savez_compressed(r.work / "train.npz", x=X[:2000], y=y[:2000])
    np.savez_compressed(r.work / "val.npz", x=X[2000:2400], y=y[2000:2400])
    np.savez_compressed(r.work / "test.npz", x=X[2400:], y=y[2400:])
    mean = float((X[:2000] / 255.0).mean())
    std = float((X[:2000] / 255.0).std())
    r.both("train_config.yaml", dd(f"""
        experiment: glyphs-cnn-v2
        seed: 3
        data:
          train: data/train.npz
          val: data/val.npz
          classes: {GLYPH4}
        preprocess:
          scale: 0.00392156862745098   # 1/255
          mean: {mean:.4f}
          std: {std:.4f}
        model:
          channels: [16, 32]
          fc: 64
        optim:
          sgd: {{lr: 0.02, momentum: 0.9}}
          batch_size: 32
          epochs: 15
        """))
    r.write("train.py", dd("""
        import numpy as np, torch, torch.nn as nn, yaml, json
        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("train_config.yaml"))
        torch.manual_seed(cfg["seed"])
        pp = cfg["preprocess"]
        def load(p):
            d = np.load(p.replace("data/", ""))
            x = (d["x"].astype(np.float32) * pp["scale"] - pp["mean"]) / pp["std"]
            return torch.tensor(x).unsqueeze(1), torch.tensor(d["y"])
        xtr, ytr = load(cfg["data"]["train"]); xva, yva = load(cfg["data"]["val"])
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                              nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
                self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 4))
            def forward(self, x):
                return self.head(self.features(x))
        model = Net()
        opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
        lf = nn.CrossEntropyLoss()
        E = cfg["optim"]["epochs"]; bs = cfg["optim"]["batch_size"]
        for ep in range(1, E + 1):
            model.train(); perm = torch.randperm(len(xtr)); tl = tc = 0
            for i in range(0, len(xtr), bs):
                idx = perm[i:i + bs]
                opt.zero_grad(); out = model(xtr[idx]); loss = lf(out, ytr[idx]); loss.backward(); opt.step()
                tl += loss.item() * len(idx); tc += (out.argmax(1) == ytr[idx]).sum().item()
            model.eval()
            with torch.no_grad():
                o = model(xva); vl = lf(o, yva).item(); vc = (o.argmax(1) == yva).float().mean().item()
            n = len(xtr) // bs + 1
            print(f"Epoch {ep}/{E}")
            print(f"{n}/{n} - loss: {tl/len(xtr):.4f} - acc: {tc/len(xtr):.4f} - val_loss: {vl:.4f} - val_acc: {vc:.4f}")
        torch.save(model.state_dict(), "glyphs_cnn.pt")
        torch.save(model, "_model_obj.pt")
        """))
    r.both("export.py", dd("""
        import os
        import shutil

        import torch
        import torch.nn as nn

        torch.set_num_threads(1)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                              nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
                self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 4))

            def forward(self, x):
                return self.head(self.features(x))


        model = Net()
        model.load_state_dict(torch.load("glyphs_cnn.pt", map_location="cpu"))
        model.eval()
        example = torch.zeros(1, 1, 16, 16)
        traced = torch.jit.trace(model, example)
        os.makedirs("model_store/glyphs", exist_ok=True)
        traced.save("model_store/glyphs/glyphs_traced.pt")
        for f in ["handler.py", "handler_config.yaml", "index_to_name.json"]:
            shutil.copy(f, "model_store/glyphs/")
        x = torch.randn(8, 1, 16, 16)
        with torch.no_grad():
            print("trace check max |diff|:", (traced(x) - model(x)).abs().max().item())
        print("wrote model_store/glyphs/{glyphs_traced.pt,handler.py,handler_config.yaml,index_to_name.json}")
        print("next: torch-model-archiver --model-name glyphs --version 1.0 "
              "--serialized-file model_store/glyphs/glyphs_traced.pt --handler model_store/glyphs/handler.py "
              "--extra-files model_store/glyphs/handler_config.yaml,model_store/glyphs/index_to_name.json "
              "--export-path model-store")
        """))
    r.both("index_to_name.json", json.dumps({str(i): c for i, c in enumerate(GLYPH4)}) + "\n")
    r.both("handler_config.yaml", dd("""
        input_size: 16
        grayscale: true
        scale: 0.00392156862745098
        normalize:
          mean: [0.485]
          std: [0.229]
        topk: 1
        """))
    r.both("config.properties", dd("""
        inference_address=http://0.0.0.0:8080
        management_address=http://0.0.0.0:8081
        metrics_address=http://0.0.0.0:8082
        model_store=/home/model-server/model-store
        load_models=glyphs.mar
        default_workers_per_model=1
        job_queue_size=100
        """))
    r.write("handler.py", dd("""
        import base64
        import io
        import json
        import logging
        import os

        import numpy as np
        import torch
        import yaml

        logger = logging.getLogger(__name__)


        class GlyphHandler:
            def initialize(self, context):
                d = context.system_properties["model_dir"]
                torch.set_num_threads(1)
                self.model = torch.jit.load(os.path.join(d, "glyphs_traced.pt"), map_location="cpu")
                self.model.eval()
                self.cfg = yaml.safe_load(open(os.path.join(d, "handler_config.yaml")))
                self.names = json.load(open(os.path.join(d, "index_to_name.json")))
                n = self.cfg["normalize"]
                self.mean = np.array(n["mean"], dtype=np.float32)
                self.std = np.array(n["std"], dtype=np.float32)
                logger.info("GlyphHandler ready: model=glyphs_traced.pt input=%dx%d scale=%.6f mean=%s std=%s",
                            self.cfg["input_size"], self.cfg["input_size"], self.cfg["scale"], n["mean"], n["std"])

            def preprocess(self, data):
                xs = []
                for row in data:
                    body = json.loads(row.get("data") or row.get("body"))
                    raw = base64.b64decode(body["image"])
                    img = np.frombuffer(raw, dtype=np.uint8).reshape(self.cfg["input_size"], self.cfg["input_size"])
                    x = (img.astype(np.float32) * self.cfg["scale"] - self.mean) / self.std
                    xs.append(torch.from_numpy(x)[None])
                return torch.stack(xs)

            def inference(self, x):
                with torch.no_grad():
                    return torch.softmax(self.model(x), dim=1)

            def postprocess(self, probs):
                out = []
                for p in probs:
                    k = int(p.argmax())
                    out.append({"label": self.names[str(k)], "score": round(float(p[k]), 4)})
                return out

            def handle(self, data, context):
                return self.postprocess(self.inference(self.preprocess(data)))
        """))
    r.write("batch_infer.py", dd("""
        import numpy as np, torch, yaml
        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("train_config.yaml")); pp = cfg["preprocess"]
        m = torch.jit.load("model_store/glyphs/glyphs_traced.pt"); m.eval()
        d = np.load("test.npz")
        x = torch.tensor((d["x"].astype(np.float32) * pp["scale"] - pp["mean"]) / pp["std"]).unsqueeze(1)
        with torch.no_grad():
            p = torch.softmax(m(x), 1).numpy()
        np.save("_nb_probs.npy", p)
        pred = p.argmax(1)
        print(f"test images: {len(pred)}")
        print(f"test_acc: {(pred == d['y']).mean():.4f}")
        for k, c in enumerate(cfg["data"]["classes"]):
            mk = d["y"] == k
            print(f"  {c:6s} n={mk.sum():3d} acc={(pred[mk] == k).mean():.4f}")
        """))
    r.both("requirements-train.txt", "torch==2.13.0\nnumpy==2.4.6\npyyaml==6.0.4\n")
    r.both("requirements-serve.txt", "torch==2.13.0\ntorchserve==0.11.0\ntorch-model-archiver==0.11.0\nnumpy==2.4.6\npyyaml==6.0.4\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py --config train_config.yaml", out))
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    out, _ = r.py("batch_infer.py")
    r.put("batch_infer_output.txt", console("python batch_infer.py  # notebook cell, test.npz", out))

    import base64
    d = np.load(r.work / "test.npz")
    cl = ips(rng, 400)
    reqs = [{"id": i, "body": {"image": base64.b64encode(d["x"][i].tobytes()).decode()}, "client": cl[i]}
            for i in range(len(d["y"]))]
    resps = torchserve_replay(r, "handler", "GlyphHandler", "glyphs", "model_store/glyphs", reqs,
                              epoch_of("2024-06-03 14:20:05"), 2, batch_size=1)
    r.ship("ts_log.log", side="serve")
    names = {c: i for i, c in enumerate(GLYPH4)}
    sp = np.array([names[s["body"]["label"]] for s in resps])
    nb = np.load(r.work / "_nb_probs.npy").argmax(1)
    yt = d["y"]
    r.put("request_samples.json", json.dumps(
        [{"request": "curl -s -X POST http://localhost:8080/predictions/glyphs -H 'Content-Type: application/json' -d @req_%03d.json" % i,
          "body": reqs[i]["body"], "true_label": GLYPH4[yt[i]], "response": resps[i]["body"]} for i in range(4)], indent=1) + "\n")
    rows = [["overall", len(yt), f"{acc(nb, yt):.3f}", f"{acc(sp, yt):.3f}"]]
    for k, c in enumerate(GLYPH4):
        m = yt == k
        rows.append([c, int(m.sum()), f"{acc(nb[m], k):.3f}", f"{acc(sp[m], k):.3f}"])
    pred_hist = {c: int((sp == k).sum()) for k, c in enumerate(GLYPH4)}
    r.put("comparison.md", "# test.npz: notebook vs TorchServe (/predictions/glyphs)\n\n" +
          md_table(["class", "n", "notebook acc", "torchserve acc"], rows) +
          f"\nagreement notebook vs server: {pct(acc(nb, sp))}\n\nserver predicted label counts: {pred_hist}\n")
    r.truth("preprocessing_mismatch",
            "The CNN gets ~99% on validation and in my notebook, but through TorchServe it misclassifies most of the "
            "same test images - what is going on?",
            "The TorchServe handler normalises with the template ImageNet values (mean 0.485, std 0.229 in "
            "handler_config.yaml) while training normalised with the data set's own mean/std (train_config.yaml); "
            "same traced model, same images.")
    return r


# ============================================================================
# run03 -- eval_mode_forgotten (moons+noise MLP with dropout, RMSprop, FastAPI, state_dict export)
# ============================================================================
def run03():
    r = Run("run03", train_root="/home/tkovacs/lead-scoring")
    rng = np.random.default_rng(303)
    X2, y = make_moons(rng, 2400, 0.22)
    Xn = rng.normal(size=(2400, 8))
    X = np.concatenate([X2 * 1.5, Xn], 1)
    cols = ["visits_z", "recency_z"] + [f"x{i}" for i in range(8)]
    save_csv(r.work / "data/train.csv", X[:1600], y[:1600], cols, ycol="converted")
    save_csv(r.work / "data/val.csv", X[1600:2000], y[1600:2000], cols, ycol="converted")
    save_csv(r.work / "data/holdout_q2.csv", X[2000:], y[2000:], cols, ycol="converted")
    r.both("params.json", json.dumps({
        "seed": 11, "epochs": 60, "batch_size": 64, "lr": 0.001, "optimizer": "rmsprop",
        "hidden": [128, 128], "dropout": 0.5, "features": cols, "target": "converted"}, indent=2) + "\n")
    r.both("net.py", dd("""
        import torch.nn as nn


        class LeadNet(nn.Module):
            def __init__(self, n_in, hidden=(128, 128), dropout=0.4):
                super().__init__()
                layers, d = [], n_in
                for h in hidden:
                    layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(dropout)]
                    d = h
                layers.append(nn.Linear(d, 1))
                self.body = nn.Sequential(*layers)

            def forward(self, x):
                return self.body(x).squeeze(-1)
        """))
    r.both("train.py", dd("""
        import json

        import numpy as np
        import pandas as pd
        import torch
        import torch.nn as nn

        from net import LeadNet

        torch.set_num_threads(1)
        P = json.load(open("params.json"))
        torch.manual_seed(P["seed"])


        def load(path):
            df = pd.read_csv(path)
            return (torch.tensor(df[P["features"]].values, dtype=torch.float32),
                    torch.tensor(df[P["target"]].values, dtype=torch.float32))


        def auc(scores, labels):
            order = np.argsort(scores)
            ranks = np.empty(len(scores))
            ranks[order] = np.arange(1, len(scores) + 1)
            pos = labels == 1
            return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())


        xtr, ytr = load("data/train.csv")
        xva, yva = load("data/val.csv")
        model = LeadNet(len(P["features"]), P["hidden"], P["dropout"])
        opt = torch.optim.RMSprop(model.parameters(), lr=P["lr"])
        crit = nn.BCEWithLogitsLoss()
        log = open("train_metrics.jsonl", "w")
        for epoch in range(P["epochs"]):
            model.train()
            perm = torch.randperm(len(xtr))
            losses = []
            for i in range(0, len(xtr), P["batch_size"]):
                b = perm[i:i + P["batch_size"]]
                opt.zero_grad()
                loss = crit(model(xtr[b]), ytr[b])
                loss.backward()
                opt.step()
                losses.append(loss.item())
            model.eval()
            with torch.no_grad():
                logit = model(xva)
                vloss = crit(logit, yva).item()
                p = torch.sigmoid(logit).numpy()
            rec = {"epoch": epoch, "loss": float(np.mean(losses)), "val_loss": vloss,
                   "val_acc": float(((p > 0.5) == yva.numpy()).mean()), "val_auc": float(auc(p, yva.numpy()))}
            log.write(json.dumps(rec) + "\\n")
            if epoch % 5 == 0 or epoch == P["epochs"] - 1:
                print(f"[{epoch:3d}] loss={rec['loss']:.4f} val_loss={vloss:.4f} val_acc={rec['val_acc']:.4f} val_auc={rec['val_auc']:.4f}")
        torch.save(model.state_dict(), "leadnet.pt")
        print("saved leadnet.pt")
        """))
    r.both("export.py", dd("""
        import hashlib
        import json
        import os

        import torch

        from net import LeadNet

        P = json.load(open("params.json"))
        os.makedirs("export", exist_ok=True)
        state = torch.load("leadnet.pt", map_location="cpu")
        model = LeadNet(len(P["features"]), P["hidden"], P["dropout"])
        print(model.load_state_dict(state))
        torch.save(model.state_dict(), "export/leadnet_v3.pt")
        cfg = {"n_in": len(P["features"]), "hidden": P["hidden"], "dropout": P["dropout"], "features": P["features"]}
        json.dump(cfg, open("export/model_config.json", "w"), indent=2)
        digest = hashlib.sha256(open("export/leadnet_v3.pt", "rb").read()).hexdigest()[:16]
        print(f"exported export/leadnet_v3.pt sha256:{digest} params={sum(p.numel() for p in model.parameters())}")
        """))
    r.both("serve.py", dd("""
        import json
        import logging

        import torch
        from fastapi import FastAPI
        from pydantic import BaseModel

        from net import LeadNet

        torch.set_num_threads(1)
        logger = logging.getLogger("leadscore")

        CFG = json.load(open("export/model_config.json"))
        model = LeadNet(CFG["n_in"], CFG["hidden"], CFG["dropout"])
        model.load_state_dict(torch.load("export/leadnet_v3.pt", map_location="cpu"))
        logger.info("LeadNet loaded from export/leadnet_v3.pt (%d features)", CFG["n_in"])

        app = FastAPI(title="lead-scoring")


        class Lead(BaseModel):
            lead_id: str
            features: dict[str, float]


        class Batch(BaseModel):
            leads: list[Lead]


        @app.post("/score")
        def score(batch: Batch):
            x = torch.tensor([[l.features[f] for f in CFG["features"]] for l in batch.leads], dtype=torch.float32)
            with torch.no_grad():
                p = torch.sigmoid(model(x)).tolist()
            for l, pi in zip(batch.leads, p):
                logger.info("lead=%s p_convert=%.4f", l.lead_id, pi)
            return {"scores": [{"lead_id": l.lead_id, "p_convert": round(pi, 4), "converted": pi > 0.5}
                               for l, pi in zip(batch.leads, p)]}
        """))
    r.both("batch_infer.py", dd("""
        import json
        import sys

        import numpy as np
        import pandas as pd
        import torch

        from net import LeadNet

        torch.set_num_threads(1)
        CFG = json.load(open("export/model_config.json"))
        model = LeadNet(CFG["n_in"], CFG["hidden"], CFG["dropout"])
        model.load_state_dict(torch.load("export/leadnet_v3.pt", map_location="cpu"))
        model.eval()
        df = pd.read_csv(sys.argv[1])
        with torch.no_grad():
            p = torch.sigmoid(model(torch.tensor(df[CFG["features"]].values, dtype=torch.float32))).numpy()
        np.save("nb_scores.npy", p)
        y = df["converted"].values
        print(f"rows={len(df)} acc={((p > 0.5) == y).mean():.4f} positives_predicted={(p > 0.5).mean():.3f}")
        last = [json.loads(l) for l in open("train_metrics.jsonl")][-1]
        print(f"training (epoch {last['epoch']}): val_acc={last['val_acc']:.4f} val_auc={last['val_auc']:.4f}")
        """))
    r.both("requirements.txt", "torch==2.13.0\nnumpy==2.4.6\npandas==3.1.1\nfastapi==0.165.0\nuvicorn[standard]==0.55.0\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    r.ship("train_metrics.jsonl")
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    out, _ = r.py("batch_infer.py", "data/holdout_q2.csv")
    r.put("batch_infer_output.txt", console("python batch_infer.py data/holdout_q2.csv", out))

    import pandas as pd
    hold = pd.read_csv(r.work / "data/holdout_q2.csv")
    cl = ips(rng, 400)
    nb = np.load(r.work / "nb_scores.npy")
    ci = int(np.argmin(np.abs(nb - 0.7)))
    canary = {"lead_id": "canary-0001", "features": {c: float(v) for c, v in zip(cols, hold.iloc[ci][cols].round(4))}}
    reqs, i, k = [], 0, 0
    while i < len(hold):
        n = int(rng.integers(1, 6))
        leads = [{"lead_id": f"L{240000 + j}", "features": {c: float(v) for c, v in zip(cols, hold.iloc[j][cols].round(4))}}
                 for j in range(i, min(i + n, len(hold)))]
        reqs.append({"id": i, "method": "POST", "path": "/score", "body": {"leads": leads}, "client": cl[k]})
        i += n
        k += 1
        if k % 12 == 0:
            reqs.append({"id": "canary", "method": "POST", "path": "/score", "body": {"leads": [canary]},
                         "client": ["10.0.0.9", 40000 + k]})
    resps, _ = fastapi_replay(r, "serve", reqs, epoch_of("2024-07-09 08:00:00"), 3,
                              fmt="%(asctime)s | %(levelname)s | %(name)s | %(message)s")
    r.ship("serving.log", side="serve")
    sp, cp = [], []
    for q, s in zip(reqs, resps):
        vals = [x["p_convert"] for x in s["body"]["scores"]]
        (cp if q["id"] == "canary" else sp).extend(vals)
    sp = np.array(sp)
    nb = np.load(r.work / "nb_scores.npy")
    yh = hold["converted"].values
    r.put("request_samples.json", json.dumps(
        [{"request": reqs[j]["body"], "response": resps[j]["body"]} for j in (0, 1)] +
        [{"request": reqs[j]["body"], "response": resps[j]["body"]} for j in range(len(reqs)) if reqs[j]["id"] == "canary"][:3],
        indent=1) + "\n")
    r.put("comparison.md", "# holdout_q2.csv: offline batch vs /score\n\n" + md_table(
        ["metric", "batch_infer.py", "API (/score)"],
        [["rows", len(nb), len(sp)],
         ["accuracy @0.5", f"{acc(nb > 0.5, yh):.4f}", f"{acc(sp > 0.5, yh):.4f}"],
         ["mean p_convert", f"{nb.mean():.4f}", f"{sp.mean():.4f}"],
         ["label agreement", "-", pct(acc(nb > 0.5, sp > 0.5))],
         ["mean abs score diff", "-", f"{np.abs(nb - sp).mean():.4f}"]]) +
        f"\ncanary-0001 (same payload every ~12 requests), offline score {float(nb[ci]):.4f}, API scores: " +
        ", ".join(f"{v:.4f}" for v in cp) + "\n")
    r.truth("eval_mode_forgotten",
            "Validation accuracy was ~0.9 and the offline batch script agrees, but the lead-scoring API is noticeably "
            "worse and our canary lead gets a different score every time.",
            "serve.py builds LeadNet (dropout 0.5) and loads the state_dict but never calls model.eval(), so dropout "
            "stays active at inference; batch_infer.py calls eval().")
    return r


# ============================================================================
# run04 -- wrong_checkpoint (ResMLP + EMA, AdamW, Triton libtorch; export.py only)
# ============================================================================
TRITON_DRIVER = dd(r'''
import json, os, re, sys, time, random, datetime as dt
import numpy as np, torch
torch.set_num_threads(1)
repo, model_name, req_path, log_path, resp_path, base_ts, seed = sys.argv[1:8]
clock = [float(base_ts)]; rnd = random.Random(int(seed))
logf = open(log_path, "w")
def L(level, src, msg):
    d = dt.datetime.fromtimestamp(clock[0], dt.timezone.utc)
    logf.write(f"{level}{d.strftime('%m%d %H:%M:%S')}.{d.microsecond:06d} 1 {src}] {msg}\n")
    clock[0] += rnd.uniform(0.0002, 0.004)
cfgtxt = open(os.path.join(repo, model_name, "config.pbtxt")).read()
L("I", "pinned_memory_manager.cc:277", "Pinned memory pool is created at '0x7f3a9c000000' with size 268435456")
L("I", "model_lifecycle.cc:469", f"loading: {model_name}:1")
clock[0] += 0.8
path = os.path.join(repo, model_name, "1", "model.pt")
L("I", "libtorch.cc:2467", f"TRITONBACKEND_Initialize: pytorch")
L("I", "libtorch.cc:2479", f"Triton TRITONBACKEND API version: 1.19")
L("I", "libtorch.cc:2513", f"TRITONBACKEND_ModelInitialize: {model_name} (version 1)")
L("W", "libtorch.cc:318", "skipping model configuration auto-complete for '" + model_name + "': not supported for pytorch backend")
L("I", "libtorch.cc:347", "Optimized execution is enabled for model instance '" + model_name + "'")
model = torch.jit.load(path, map_location="cpu"); model.eval()
clock[0] += 0.4
L("I", "libtorch.cc:2557", f"TRITONBACKEND_ModelInstanceInitialize: {model_name}_0_0 (CPU device 0)")
L("I", "model_lifecycle.cc:835", f"successfully loaded '{model_name}'")
L("I", "server.cc:604", "\n+------------+---------+--------+\n| Backend    | Path    | Config |\n+------------+---------+--------+\n| pytorch    | /opt/tritonserver/backends/pytorch/libtriton_pytorch.so | {} |\n+------------+---------+--------+")
L("I", "server.cc:647", f"\n+------------+---------+--------+\n| Model      | Version | Status |\n+------------+---------+--------+\n| {model_name} | 1       | READY  |\n+------------+---------+--------+")
L("I", "grpc_server.cc:2495", "Started GRPCInferenceService at 0.0.0.0:8001")
L("I", "http_server.cc:4619", "Started HTTPService at 0.0.0.0:8000")
L("I", "http_server.cc:282", "Started Metrics Service at 0.0.0.0:8002")
resps = []
n_req = 0
for line in open(req_path):
    r = json.loads(line)
    clock[0] += rnd.uniform(0.01, 0.3)
    inp = r["body"]["inputs"][0]
    x = torch.tensor(inp["data"], dtype=torch.float32).reshape(inp["shape"])
    with torch.no_grad():
        y = model(x)
    n_req += 1
    resps.append({"id": r["id"], "status": 200, "body": {"model_name": model_name, "model_version": "1",
        "outputs": [{"name": "OUTPUT__0", "datatype": "FP32", "shape": list(y.shape),
                     "data": [round(v, 5) for v in y.reshape(-1).tolist()]}]}})
    if n_req % 50 == 0:
        L("I", "infer_handler.cc:1083", f"[stats] {model_name}:1 inference_count={n_req} execution_count={n_req} success=true")
with open(resp_path, "w") as f:
    for x in resps: f.write(json.dumps(x) + "\n")
logf.close()
''')


def run04():
    r = Run("run04", train_root="/data/users/okafor/sensor-fault")
    rng = np.random.default_rng(404)
    X, y = make_classification(rng, 6000, 16, 10, 5, sep=0.9, flip=0.03, scale_range=(1, 1))
    X = (X - X[:4200].mean(0)) / X[:4200].std(0)
    cols = [f"s{i:02d}" for i in range(16)]
    classes = ["normal", "bearing_wear", "misalignment", "imbalance", "looseness"]
    save_csv(r.work / "data/train.csv", X[:4200], y[:4200], cols, ycol="fault_class")
    save_csv(r.work / "data/val.csv", X[4200:5100], y[4200:5100], cols, ycol="fault_class")
    save_csv(r.work / "data/plant_b_labelled.csv", X[5100:], y[5100:], cols, ycol="fault_class")
    r.both("config.yaml", dd("""
        run_name: resmlp-ema-0519
        data: {train: data/train.csv, val: data/val.csv, target: fault_class}
        model: {in_dim: 16, width: 64, blocks: 2, n_classes: 5}
        optim: {name: adamw, lr: 0.001, weight_decay: 0.05, batch_size: 128, epochs: 25}
        ema: {decay: 0.98}
        ckpt_dir: checkpoints
        """))
    r.both("resmlp.py", dd("""
        import torch
        import torch.nn as nn


        class Block(nn.Module):
            def __init__(self, w):
                super().__init__()
                self.norm = nn.LayerNorm(w)
                self.fc1 = nn.Linear(w, 2 * w)
                self.fc2 = nn.Linear(2 * w, w)

            def forward(self, x):
                return x + self.fc2(torch.relu(self.fc1(self.norm(x))))


        class ResMLP(nn.Module):
            def __init__(self, in_dim, width, blocks, n_classes):
                super().__init__()
                self.inp = nn.Linear(in_dim, width)
                self.blocks = nn.Sequential(*[Block(width) for _ in range(blocks)])
                self.out = nn.Linear(width, n_classes)

            def forward(self, x):
                return self.out(self.blocks(self.inp(x)))
        """), ship=False)
    r.write("train.py", dd("""
        import json, os, yaml, pandas as pd, torch, torch.nn as nn
        from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
        from resmlp import ResMLP
        torch.set_num_threads(1); torch.manual_seed(5)
        cfg = yaml.safe_load(open("config.yaml"))
        def load(p):
            df = pd.read_csv(p); f = [c for c in df.columns if c != cfg["data"]["target"]]
            return torch.tensor(df[f].values, dtype=torch.float32), torch.tensor(df[cfg["data"]["target"]].values)
        xtr, ytr = load(cfg["data"]["train"]); xva, yva = load(cfg["data"]["val"])
        model = ResMLP(**cfg["model"])
        ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(cfg["ema"]["decay"]))
        o = cfg["optim"]
        opt = torch.optim.AdamW(model.parameters(), lr=o["lr"], weight_decay=o["weight_decay"])
        lf = nn.CrossEntropyLoss(); os.makedirs(cfg["ckpt_dir"], exist_ok=True)
        best = 0.0; log = open("metrics.jsonl", "w")
        for ep in range(1, o["epochs"] + 1):
            model.train(); perm = torch.randperm(len(xtr)); tot = 0.0
            for i in range(0, len(xtr), o["batch_size"]):
                b = perm[i:i + o["batch_size"]]
                opt.zero_grad(); loss = lf(model(xtr[b]), ytr[b]); loss.backward(); opt.step(); ema.update_parameters(model)
                tot += loss.item() * len(b)
            ema.eval()
            with torch.no_grad():
                out = ema(xva); vl = lf(out, yva).item(); va = (out.argmax(1) == yva).float().mean().item()
            rec = {"epoch": ep, "train_loss": round(tot / len(xtr), 5), "val_loss_ema": round(vl, 5), "val_acc_ema": round(va, 5)}
            log.write(json.dumps(rec) + "\\n")
            msg = f"epoch {ep:2d}  train_loss {rec['train_loss']:.4f}  ema val_loss {vl:.4f}  ema val_acc {va:.4f}"
            if va > best:
                best = va; torch.save(ema.state_dict(), os.path.join(cfg["ckpt_dir"], "best.pt")); msg += "  -> checkpoints/best.pt"
            print(msg)
        torch.save(model.state_dict(), os.path.join(cfg["ckpt_dir"], "last_raw.pt"))
        print(f"best ema val_acc {best:.4f}")
        """))
    r.put("resmlp.py", (r.work / "resmlp.py").read_text())
    r.both("export.py", dd("""
        import os

        import torch
        import yaml

        from resmlp import ResMLP

        torch.set_num_threads(1)
        torch.manual_seed(0)
        cfg = yaml.safe_load(open("config.yaml"))
        model = ResMLP(**cfg["model"])
        state = torch.load(os.path.join(cfg["ckpt_dir"], "best.pt"), map_location="cpu")
        print(model.load_state_dict(state, strict=False))
        model.eval()

        scripted = torch.jit.script(model)
        os.makedirs("model_repository/sensor_fault/1", exist_ok=True)
        scripted.save("model_repository/sensor_fault/1/model.pt")
        with torch.no_grad():
            y = scripted(torch.zeros(4, cfg["model"]["in_dim"]))
        print("exported model_repository/sensor_fault/1/model.pt, output", tuple(y.shape))
        """))
    r.both("model_repository/sensor_fault/config.pbtxt", dd("""
        name: "sensor_fault"
        platform: "pytorch_libtorch"
        max_batch_size: 64
        input [
          {
            name: "INPUT__0"
            data_type: TYPE_FP32
            dims: [ 16 ]
          }
        ]
        output [
          {
            name: "OUTPUT__0"
            data_type: TYPE_FP32
            dims: [ 5 ]
          }
        ]
        instance_group [ { kind: KIND_CPU, count: 1 } ]
        """))
    r.both("requirements-train.txt", "torch==2.13.0\npandas==3.1.1\npyyaml==6.0.4\n")
    r.both("requirements-client.txt", "tritonclient[http]==2.59.0\nnumpy==2.4.6\npandas==3.1.1\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    r.ship("metrics.jsonl")
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    # notebook check that the user ran on the EMA weights right after training
    r.write("_nb.py", dd("""
        import torch, pandas as pd, numpy as np, yaml
        from torch.optim.swa_utils import AveragedModel
        from resmlp import ResMLP
        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("config.yaml"))
        ema = AveragedModel(ResMLP(**cfg["model"])); ema.load_state_dict(torch.load("checkpoints/best.pt")); ema.eval()
        df = pd.read_csv("data/plant_b_labelled.csv"); f = [c for c in df.columns if c != "fault_class"]
        with torch.no_grad():
            p = torch.softmax(ema(torch.tensor(df[f].values, dtype=torch.float32)), 1).numpy()
        np.save("_nb_probs.npy", p)
        print(f"notebook (AveragedModel + checkpoints/best.pt) on plant_b_labelled.csv: acc={(p.argmax(1) == df['fault_class'].values).mean():.4f} n={len(df)}")
        """))
    nb_out, _ = r.py("_nb.py")

    import pandas as pd
    df = pd.read_csv(r.work / "data/plant_b_labelled.csv")
    reqs, i = [], 0
    while i < len(df):
        n = int(rng.integers(1, 17))
        rows = df.iloc[i:i + n][cols].values.astype(np.float32).round(4)
        reqs.append({"id": i, "body": {"inputs": [{"name": "INPUT__0", "shape": list(rows.shape), "datatype": "FP32",
                                                     "data": [round(float(v), 4) for v in rows.reshape(-1)]}]}})
        i += n
    r.write("_triton.py", TRITON_DRIVER)
    write_jsonl(r.work / "_requests.jsonl", reqs)
    r.py("_triton.py", "model_repository", "sensor_fault", "_requests.jsonl", "_triton_raw.log", "_responses.jsonl",
         epoch_of("2024-05-21 16:02:11"), 4, side="serve")
    log = r.clean((r.work / "_triton_raw.log").read_text(), "serve")
    head = ("+ tritonserver --model-repository=/models --log-verbose=0\n"
            "I0521 16:02:11.000000 1 server.cc:?] Triton version 2.59.0 (build 24.05)\n")
    r.put("triton_server.log", head.replace("server.cc:?]", "main.cc:231]") + log)
    resps = read_jsonl(r.work / "_responses.jsonl")
    logits = []
    for s in resps:
        o = s["body"]["outputs"][0]
        logits.append(np.array(o["data"]).reshape(o["shape"]))
    logits = np.concatenate(logits)
    sp = logits.argmax(1)
    nb = np.load(r.work / "_nb_probs.npy").argmax(1)
    yt = df["fault_class"].values
    cnt = np.bincount(sp, minlength=5)
    lines = ["$ python triton_eval.py --url localhost:8000 --model sensor_fault --csv data/plant_b_labelled.csv",
             f"sent {len(reqs)} requests ({len(yt)} rows), 0 errors",
             f"accuracy: {acc(sp, yt):.4f}",
             "predicted class counts: " + ", ".join(f"{c}={n}" for c, n in zip(classes, cnt)),
             f"mean max softmax: {(1.0 / np.exp(logits - logits.max(1, keepdims=True)).sum(1)).mean():.3f}",
             "per-class recall:"]
    for k, c in enumerate(classes):
        m = yt == k
        lines.append(f"  {c:13s} {acc(sp[m], k):.3f}  (n={m.sum()})")
    r.put("triton_eval_output.txt", "\n".join(lines) + "\n")
    r.put("request_samples.json", json.dumps([{"POST": "/v2/models/sensor_fault/infer", "request": reqs[j]["body"],
                                                "response": resps[j]["body"]} for j in (0, 1)], indent=1) + "\n")
    last = read_jsonl(r.work / "metrics.jsonl")
    best = max(x["val_acc_ema"] for x in last)
    r.put("comparison.md", "# sensor_fault: training vs Triton\n\n" + md_table(
        ["where", "data", "accuracy"],
        [["training log (best ema val_acc)", "data/val.csv", f"{best:.4f}"],
         ["notebook, AveragedModel + best.pt", "plant_b_labelled.csv", nb_out.split("acc=")[1].split()[0]],
         ["Triton sensor_fault v1", "plant_b_labelled.csv", f"{acc(sp, yt):.4f}"]]) +
        f"\nnotebook vs Triton argmax agreement: {pct(acc(nb, sp))}\n")
    r.truth("wrong_checkpoint",
            "Training reports ~90% accuracy and the Triton model loads and answers without any error, but its "
            "predictions on labelled plant data are basically random.",
            "checkpoints/best.pt holds the AveragedModel (EMA) state_dict, whose keys are prefixed 'module.' plus "
            "'n_averaged'; export.py loads it into a bare ResMLP with strict=False, so no weight is loaded and the "
            "randomly initialised network is exported (missing/unexpected keys printed in export_log.txt).")
    return r


# ============================================================================
# run05 -- tokenizer_mismatch (EmbeddingBag intent classifier, Adam, FastAPI; vocab rebuilt at serving)
# ============================================================================
INTENT_WORDS = {
    "billing": "invoice charged charge bill billing payment card debit statement overcharged fee fees vat receipt "
               "subscription plan upgrade downgrade price pricing amount twice monthly annual credit balance",
    "shipping": "delivery shipping shipped courier tracking track parcel package arrived arrive late delayed "
                "dispatch warehouse address postcode driver lost damaged box eta express standard",
    "account": "login password reset account locked username email verify verification code twofactor 2fa sign "
               "signin logout profile settings access blocked otp link expired security phone",
    "refund": "refund refunded return returned money back reimburse reimbursement cancel cancelled cancellation "
              "exchange faulty broken wrong item replacement rma voucher credit_note store_credit",
    "technical": "app crash crashes error bug loading slow freeze frozen screen update version android ios browser "
                 "website page button sync notification install uninstall timeout offline",
}
COMMON_WORDS = ("i my the a an to and is it was for on in of with this that please can you help me not have "
                "has but when why how do did no still get got need want order account hi hello thanks thank "
                "again today yesterday week since already just").split()
INTENTS = list(INTENT_WORDS)


def make_tickets(rng, n, mix):
    words = {k: v.split() for k, v in INTENT_WORDS.items()}
    zipf = {k: (1.0 / np.arange(1, len(v) + 1) ** 0.8) for k, v in words.items()}
    zipf = {k: z / z.sum() for k, z in zipf.items()}
    rows = []
    labels = rng.choice(len(INTENTS), size=n, p=np.array(mix) / np.sum(mix))
    for lab in labels:
        k = INTENTS[lab]
        L = int(rng.integers(6, 19))
        toks = []
        for _ in range(L):
            u = rng.random()
            if u < 0.5:
                toks.append(COMMON_WORDS[rng.integers(0, len(COMMON_WORDS))])
            elif u < 0.9:
                toks.append(words[k][rng.choice(len(words[k]), p=zipf[k])])
            else:
                o = INTENTS[rng.integers(0, len(INTENTS))]
                toks.append(words[o][rng.choice(len(words[o]), p=zipf[o])])
        rows.append({"text": " ".join(toks), "intent": k})
    return rows


def run05():
    r = Run("run05", train_root="/home/jsato/helpdesk-router")
    rng = np.random.default_rng(505)
    write_jsonl(r.work / "data/tickets_train.jsonl", make_tickets(rng, 3000, [1, 1, 1, 1, 1]))
    write_jsonl(r.work / "data/tickets_val.jsonl", make_tickets(rng, 600, [1, 1, 1, 1, 1]))
    latest = make_tickets(rng, 2500, [0.8, 1.6, 0.5, 2.2, 0.9])
    write_jsonl(r.work / "data/tickets_latest.jsonl", [{"text": x["text"]} for x in latest])
    labelled = make_tickets(rng, 500, [0.8, 1.6, 0.5, 2.2, 0.9])
    write_jsonl(r.work / "data/labelled_sample_june.jsonl", labelled)
    r.both("text_utils.py", dd("""
        import re
        from collections import Counter

        TOKEN_RE = re.compile(r"[a-z0-9_]+")


        def tokenize(text):
            return TOKEN_RE.findall(text.lower())


        def build_vocab(texts, max_size=5000, min_freq=1):
            counts = Counter(t for text in texts for t in tokenize(text))
            itos = ["<pad>", "<unk>"] + [w for w, c in counts.most_common(max_size - 2) if c >= min_freq]
            return {w: i for i, w in enumerate(itos)}


        def encode(text, vocab):
            return [vocab.get(t, 1) for t in tokenize(text)] or [1]
        """))
    r.both("train.py", dd("""
        import json
        import os

        import torch
        import torch.nn as nn

        from text_utils import build_vocab, encode

        torch.set_num_threads(1)
        torch.manual_seed(0)
        INTENTS = ["billing", "shipping", "account", "refund", "technical"]
        EPOCHS, LR, BS, DIM = 20, 0.01, 128, 48


        def read(path):
            return [json.loads(l) for l in open(path)]


        train, val = read("data/tickets_train.jsonl"), read("data/tickets_val.jsonl")
        vocab = build_vocab([r["text"] for r in train])
        print(f"vocab size {len(vocab)}")
        os.makedirs("artifacts", exist_ok=True)
        json.dump(vocab, open("artifacts/vocab.json", "w"))


        def batchify(rows):
            ids, offsets = [], []
            for r in rows:
                offsets.append(len(ids))
                ids.extend(encode(r["text"], vocab))
            y = torch.tensor([INTENTS.index(r["intent"]) for r in rows])
            return torch.tensor(ids), torch.tensor(offsets), y


        class IntentClassifier(nn.Module):
            def __init__(self, vocab_size, dim, n_classes):
                super().__init__()
                self.emb = nn.EmbeddingBag(vocab_size, dim, mode="mean")
                self.fc = nn.Linear(dim, n_classes)

            def forward(self, ids, offsets):
                return self.fc(self.emb(ids, offsets))


        model = IntentClassifier(len(vocab), DIM, len(INTENTS))
        opt = torch.optim.Adam(model.parameters(), lr=LR)
        lossf = nn.CrossEntropyLoss()
        vi, vo, vy = batchify(val)
        for epoch in range(1, EPOCHS + 1):
            model.train()
            order = torch.randperm(len(train)).tolist()
            total = 0.0
            for s in range(0, len(train), BS):
                ids, off, y = batchify([train[i] for i in order[s:s + BS]])
                opt.zero_grad()
                loss = lossf(model(ids, off), y)
                loss.backward()
                opt.step()
                total += loss.item() * len(y)
            model.eval()
            with torch.no_grad():
                out = model(vi, vo)
                vl = lossf(out, vy).item()
                pred = out.argmax(1)
            acc = (pred == vy).float().mean().item()
            f1s = []
            for k in range(len(INTENTS)):
                tp = ((pred == k) & (vy == k)).sum().item()
                fp = ((pred == k) & (vy != k)).sum().item()
                fn = ((pred != k) & (vy == k)).sum().item()
                f1s.append(2 * tp / max(2 * tp + fp + fn, 1))
            print(f"epoch={epoch} loss={total / len(train):.4f} val_loss={vl:.4f} val_accuracy={acc:.4f} val_macro_f1={sum(f1s) / len(f1s):.4f}")
        torch.save({"state_dict": model.state_dict(), "vocab_size": len(vocab), "dim": DIM, "intents": INTENTS},
                   "artifacts/intent_clf.pt")
        print("saved artifacts/intent_clf.pt, artifacts/vocab.json")
        """))
    r.both("export.py", dd("""
        import os

        import torch

        os.makedirs("release", exist_ok=True)
        ckpt = torch.load("artifacts/intent_clf.pt", map_location="cpu")
        sd = ckpt["state_dict"]
        print({k: tuple(v.shape) for k, v in sd.items()})
        assert sd["emb.weight"].shape[0] == ckpt["vocab_size"]
        torch.save(ckpt, "release/intent_clf-2024.06.pt")
        print("copied to release/intent_clf-2024.06.pt  (intents:", ckpt["intents"], ")")
        """))
    r.both("serve_config.yaml", dd("""
        model_path: release/intent_clf-2024.06.pt
        corpus_path: data/tickets_latest.jsonl
        port: 8080
        """))
    r.both("serve.py", dd("""
        import json
        import logging

        import torch
        import torch.nn as nn
        import yaml
        from fastapi import FastAPI
        from pydantic import BaseModel

        from text_utils import build_vocab, encode, tokenize

        torch.set_num_threads(1)
        log = logging.getLogger("router")
        cfg = yaml.safe_load(open("serve_config.yaml"))


        class IntentClassifier(nn.Module):
            def __init__(self, vocab_size, dim, n_classes):
                super().__init__()
                self.emb = nn.EmbeddingBag(vocab_size, dim, mode="mean")
                self.fc = nn.Linear(dim, n_classes)

            def forward(self, ids, offsets):
                return self.fc(self.emb(ids, offsets))


        ckpt = torch.load(cfg["model_path"], map_location="cpu")
        INTENTS = ckpt["intents"]
        model = IntentClassifier(ckpt["vocab_size"], ckpt["dim"], len(INTENTS))
        model.load_state_dict(ckpt["state_dict"])
        model.eval()

        texts = [json.loads(l)["text"] for l in open(cfg["corpus_path"])]
        vocab = build_vocab(texts, max_size=ckpt["vocab_size"])
        log.info("model %s loaded; vocab %d tokens built from %s (%d docs)",
                 cfg["model_path"], len(vocab), cfg["corpus_path"], len(texts))

        app = FastAPI(title="helpdesk-router")


        class Ticket(BaseModel):
            ticket_id: str
            text: str


        @app.post("/route")
        def route(t: Ticket):
            ids = encode(t.text, vocab)
            with torch.no_grad():
                p = torch.softmax(model(torch.tensor(ids), torch.tensor([0])), 1)[0]
            k = int(p.argmax())
            log.info("ticket=%s tokens=%d ids=%s intent=%s p=%.3f", t.ticket_id, len(ids), ids[:6], INTENTS[k], p[k])
            return {"ticket_id": t.ticket_id, "intent": INTENTS[k], "confidence": round(float(p[k]), 4)}
        """))
    r.both("eval_offline.py", dd("""
        import json
        import sys

        import torch

        from text_utils import encode

        torch.set_num_threads(1)
        ckpt = torch.load("release/intent_clf-2024.06.pt", map_location="cpu")
        vocab = json.load(open("artifacts/vocab.json"))
        emb = torch.nn.EmbeddingBag(ckpt["vocab_size"], ckpt["dim"], mode="mean")
        fc = torch.nn.Linear(ckpt["dim"], len(ckpt["intents"]))
        emb.weight.data = ckpt["state_dict"]["emb.weight"]
        fc.weight.data, fc.bias.data = ckpt["state_dict"]["fc.weight"], ckpt["state_dict"]["fc.bias"]
        rows = [json.loads(l) for l in open(sys.argv[1])]
        correct = 0
        preds = []
        with torch.no_grad():
            for r in rows:
                ids = torch.tensor(encode(r["text"], vocab))
                k = int(fc(emb(ids, torch.tensor([0]))).argmax())
                preds.append(ckpt["intents"][k])
                correct += ckpt["intents"][k] == r["intent"]
        json.dump(preds, open("_nb_preds.json", "w"))
        print(f"{sys.argv[1]}: n={len(rows)} accuracy={correct / len(rows):.4f}")
        """))
    r.both("requirements.txt", "torch==2.13.0\npyyaml==6.0.4\nfastapi==0.165.0\nuvicorn==0.55.0\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    out1, _ = r.py("eval_offline.py", "data/tickets_val.jsonl")
    out2, _ = r.py("eval_offline.py", "data/labelled_sample_june.jsonl")
    r.put("eval_offline_output.txt", console("python eval_offline.py data/tickets_val.jsonl", out1) +
          console("python eval_offline.py data/labelled_sample_june.jsonl", out2))
    cl = ips(rng, 500)
    reqs = [{"id": i, "method": "POST", "path": "/route", "body": {"ticket_id": f"T-{88100 + i}", "text": x["text"]},
             "client": cl[i]} for i, x in enumerate(labelled)]
    resps, _ = fastapi_replay(r, "serve", reqs, epoch_of("2024-06-18 10:30:00"), 5,
                              fmt="%(asctime)s %(levelname)s %(name)s: %(message)s")
    r.ship("serving.log", side="serve")
    sp = [s["body"]["intent"] for s in resps]
    nb = json.load(open(r.work / "_nb_preds.json"))
    yt = [x["intent"] for x in labelled]
    r.put("request_samples.json", json.dumps([{"request": reqs[j]["body"], "response": resps[j]["body"],
                                                "agent_label": yt[j]} for j in range(5)], indent=1) + "\n")
    rows = []
    for k in INTENTS:
        idx = [i for i, t in enumerate(yt) if t == k]
        rows.append([k, len(idx), f"{np.mean([nb[i] == k for i in idx]):.3f}", f"{np.mean([sp[i] == k for i in idx]):.3f}"])
    rows.append(["all", len(yt), f"{acc(nb, yt):.3f}", f"{acc(sp, yt):.3f}"])
    r.put("comparison.md", "# June labelled sample: eval_offline.py vs /route\n\n" +
          md_table(["intent", "n", "offline recall", "service recall"], rows) +
          f"\nsame tickets, same release/intent_clf-2024.06.pt. offline vs service agreement: {pct(acc(nb, sp))}\n")
    r.truth("tokenizer_mismatch",
            "The ticket router scored ~95% on validation and on the June labelled sample offline, but the deployed "
            "service sends most tickets to the wrong queue.",
            "serve.py does not load artifacts/vocab.json: it rebuilds the vocabulary at startup with build_vocab() "
            "from data/tickets_latest.jsonl, whose word frequencies differ, so most token ids point at other "
            "words' embeddings (same vocab size, so no error).")
    return r


# ============================================================================
# run06 -- dtype_mismatch (ETA regression MLP, SGD nesterov, TorchServe batch; no train/serve code)
# ============================================================================
def run06():
    r = Run("run06", train_root="/home/lena/eta-model", serve_root="/home/model-server/scratch/models/51b0d3f8")
    rng = np.random.default_rng(606)
    n = 5000
    cols = ["distance_km", "n_items", "hour", "weekday", "prep_min_avg", "courier_rating", "rain_mm",
            "temp_c", "traffic_idx", "zone_density", "is_weekend", "basket_eur"]
    Z = np.column_stack([
        rng.gamma(2.0, 2.0, n), rng.integers(1, 12, n), rng.integers(8, 23, n), rng.integers(0, 7, n),
        rng.normal(14, 4, n).clip(3), rng.normal(4.6, 0.25, n).clip(3, 5), rng.exponential(0.8, n),
        rng.normal(15, 7, n), rng.uniform(0, 1, n), rng.uniform(0.2, 3, n), np.zeros(n), rng.gamma(3, 12, n)])
    Z[:, 10] = (Z[:, 3] >= 5).astype(float)
    t = (8 + 3.1 * Z[:, 0] + 0.9 * Z[:, 4] + 0.6 * Z[:, 1] + 9 * Z[:, 8] ** 2 + 2.2 * np.log1p(Z[:, 6]) * Z[:, 0] ** 0.5
         + 4 * ((Z[:, 2] >= 18) & (Z[:, 2] <= 20)) - 2.5 * (Z[:, 5] - 4.6) + 1.5 * Z[:, 9] + rng.normal(0, 2.5, n))
    save_csv(r.work / "data/train.csv", Z[:3600], t[:3600].round(2), cols, ycol="eta_min")
    save_csv(r.work / "data/val.csv", Z[3600:4300], t[3600:4300].round(2), cols, ycol="eta_min")
    save_csv(r.work / "data/test.csv", Z[4300:], t[4300:].round(2), cols, ycol="eta_min")
    r.both("train_config.yaml", dd("""
        target: eta_min
        features: [distance_km, n_items, hour, weekday, prep_min_avg, courier_rating, rain_mm, temp_c,
                   traffic_idx, zone_density, is_weekend, basket_eur]
        model: {hidden: [64, 32]}
        optimizer: {type: sgd, lr: 0.001, momentum: 0.9, nesterov: true, weight_decay: 1.0e-4}
        batch_size: 32
        epochs: 80
        seed: 21
        """))
    r.write("train.py", dd("""
        import json, yaml, numpy as np, pandas as pd, torch, torch.nn as nn
        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("train_config.yaml")); torch.manual_seed(cfg["seed"])
        tr, va = pd.read_csv("data/train.csv"), pd.read_csv("data/val.csv")
        F = cfg["features"]; mu, sd = tr[F].mean(), tr[F].std()
        json.dump({"features": F, "mean": mu.tolist(), "std": sd.tolist()}, open("scaler.json", "w"), indent=1)
        def T(df):
            return torch.tensor(((df[F] - mu) / sd).values, dtype=torch.float32), torch.tensor(df["eta_min"].values, dtype=torch.float32)
        xtr, ytr = T(tr); xva, yva = T(va)
        h = cfg["model"]["hidden"]
        model = nn.Sequential(nn.Linear(len(F), h[0]), nn.ReLU(), nn.Linear(h[0], h[1]), nn.ReLU(), nn.Linear(h[1], 1))
        o = cfg["optimizer"]
        opt = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"], nesterov=o["nesterov"], weight_decay=o["weight_decay"])
        mse = nn.MSELoss(); hist = []
        for ep in range(1, cfg["epochs"] + 1):
            model.train(); perm = torch.randperm(len(xtr)); tot = 0
            for i in range(0, len(xtr), cfg["batch_size"]):
                b = perm[i:i + cfg["batch_size"]]
                opt.zero_grad(); l = mse(model(xtr[b]).squeeze(1), ytr[b]); l.backward(); opt.step(); tot += l.item() * len(b)
            model.eval()
            with torch.no_grad():
                p = model(xva).squeeze(1)
            rmse = ((p - yva) ** 2).mean().sqrt().item(); mae = (p - yva).abs().mean().item()
            hist.append({"epoch": ep, "train_mse": round(tot / len(xtr), 4), "val_rmse": round(rmse, 4), "val_mae": round(mae, 4)})
            if ep % 10 == 0 or ep == 1:
                print(f"ep {ep:3d} train_mse {tot / len(xtr):8.3f} val_rmse {rmse:.3f} val_mae {mae:.3f}")
        pd.DataFrame(hist).to_csv("history.csv", index=False)
        torch.save(model.state_dict(), "eta_mlp.pt")
        """))
    r.both("export.py", dd("""
        import json
        import os
        import shutil

        import torch
        import torch.nn as nn
        import yaml

        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("train_config.yaml"))
        F, h = cfg["features"], cfg["model"]["hidden"]
        model = nn.Sequential(nn.Linear(len(F), h[0]), nn.ReLU(), nn.Linear(h[0], h[1]), nn.ReLU(), nn.Linear(h[1], 1))
        model.load_state_dict(torch.load("eta_mlp.pt", map_location="cpu"))
        model.eval()
        example = torch.randn(4, len(F))
        traced = torch.jit.trace(model, example)
        os.makedirs("model_store/eta", exist_ok=True)
        traced.save("model_store/eta/eta_traced.pt")
        shutil.copy("scaler.json", "model_store/eta/scaler.json")
        with torch.no_grad():
            print("traced vs eager max |diff|:", (traced(example) - model(example)).abs().max().item())
        print(traced.graph)
        print("torch-model-archiver --model-name eta --version 1.0 --serialized-file model_store/eta/eta_traced.pt "
              "--handler eta_handler.py --extra-files model_store/eta/scaler.json -f --export-path model-store")
        """))
    r.write("eta_handler.py", dd("""
        import json
        import logging
        import os

        import numpy as np
        import torch

        log = logging.getLogger(__name__)


        class ETAHandler:
            def initialize(self, ctx):
                d = ctx.system_properties["model_dir"]
                torch.set_num_threads(1)
                self.model = torch.jit.load(os.path.join(d, "eta_traced.pt"), map_location="cpu")
                self.model.eval()
                s = json.load(open(os.path.join(d, "scaler.json")))
                self.features = s["features"]
                self.mean = np.array(s["mean"])
                self.std = np.array(s["std"])
                log.info("ETAHandler initialised with %d features", len(self.features))

            def preprocess(self, data):
                rows = []
                for req in data:
                    body = json.loads(req.get("body") or req.get("data"))
                    rows.append([body["features"][f] for f in self.features])
                x = (np.asarray(rows) - self.mean) / self.std
                return torch.from_numpy(x)

            def inference(self, x):
                with torch.no_grad():
                    return self.model(x).squeeze(1)

            def postprocess(self, y):
                return [{"eta_min": round(float(v), 1)} for v in y]

            def handle(self, data, ctx):
                return self.postprocess(self.inference(self.preprocess(data)))
        """))
    r.both("config.properties", dd("""
        inference_address=http://0.0.0.0:8080
        management_address=http://0.0.0.0:8081
        model_store=/home/model-server/model-store
        load_models=eta.mar
        models={"eta": {"1.0": {"defaultVersion": true, "marName": "eta.mar", "minWorkers": 1, "maxWorkers": 2, "batchSize": 8, "maxBatchDelay": 50, "responseTimeout": 30}}}
        """))
    r.write("batch_score.py", dd("""
        import json, sys, numpy as np, pandas as pd, torch
        torch.set_num_threads(1)
        s = json.load(open("scaler.json")); m = torch.jit.load("model_store/eta/eta_traced.pt"); m.eval()
        df = pd.read_csv(sys.argv[1])
        x = torch.tensor(((df[s["features"]].values - np.array(s["mean"])) / np.array(s["std"])), dtype=torch.float32)
        with torch.no_grad():
            p = m(x).squeeze(1).numpy()
        y = df["eta_min"].values
        print(f"{sys.argv[1]}: n={len(df)} rmse={np.sqrt(((p - y) ** 2).mean()):.3f} mae={np.abs(p - y).mean():.3f}")
        h = pd.read_csv("history.csv").iloc[-1]
        print(f"last epoch in history.csv: epoch={int(h.epoch)} val_rmse={h.val_rmse:.3f} val_mae={h.val_mae:.3f}")
        """))
    r.both("requirements-train.txt", "torch==2.13.0\nnumpy==2.4.6\npandas==3.1.1\npyyaml==6.0.4\n")
    r.both("requirements-serve.txt", "torchserve==0.11.0\ntorch-model-archiver==0.11.0\ntorch==2.13.0\nnumpy==2.4.6\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    r.ship("history.csv")
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    shutil.copy(r.work / "eta_handler.py", r.work / "model_store/eta/eta_handler.py")
    out, _ = r.py("batch_score.py", "data/test.csv")
    r.put("batch_score_output.txt", console("python batch_score.py data/test.csv", out))

    import pandas as pd
    te = pd.read_csv(r.work / "data/test.csv")
    cl = ips(rng, 60)
    reqs = [{"id": i, "body": {"order_id": f"o_{510200 + i}", "features": {c: float(te.iloc[i][c]) for c in cols}},
             "client": cl[i], "gap": float(rng.uniform(0.0, 0.02)) if i % 8 else float(rng.uniform(0.5, 3))}
            for i in range(48)]
    resps = torchserve_replay(r, "eta_handler", "ETAHandler", "eta", "model_store/eta", reqs,
                              epoch_of("2024-08-02 11:40:00"), 6, batch_size=8)
    r.ship("ts_log.log", side="serve")
    r.put("request_samples.json", json.dumps(
        [{"request": "POST /predictions/eta", "body": reqs[j]["body"], "status": resps[j]["status"],
          "response": resps[j]["body"]} for j in (0, 1)], indent=1) + "\n")
    n500 = sum(s["status"] == 500 for s in resps)
    h = pd.read_csv(r.work / "history.csv").iloc[-1]
    bs = out.splitlines()[0]
    r.put("comparison.md", "# ETA model: offline vs TorchServe\n\n" + md_table(
        ["", "offline (batch_score.py, test.csv)", "TorchServe /predictions/eta"],
        [["rows", len(te), f"{len(resps)} requests"],
         ["rmse", bs.split("rmse=")[1].split()[0], "n/a"],
         ["mae", bs.split("mae=")[1].split()[0], "n/a"],
         ["HTTP 200", "-", len(resps) - n500], ["HTTP 500", "-", n500]]) +
        f"\ntraining history.csv last epoch: val_rmse={h.val_rmse:.3f} val_mae={h.val_mae:.3f}\n")
    r.truth("dtype_mismatch",
            "Export went fine and the offline batch scoring matches the training RMSE, but every request to the "
            "TorchServe ETA endpoint comes back 500 'Prediction failed'.",
            "The TorchServe handler standardises with float64 numpy arrays and passes torch.from_numpy(x) (Double) "
            "to the float32 traced model: 'mat1 and mat2 must have the same dtype' on every batch; the offline "
            "script builds float32 tensors.")
    return r


# ============================================================================
# run07 -- device_mismatch (GRU sequence classifier, Adam, FastAPI; model built on 'meta' at serving)
# ============================================================================
def make_motif_sequences(rng, n, T=40, C=6, K=5):
    y = rng.integers(0, K, n)
    x = rng.normal(0, 0.6, (n, T, C)).astype(np.float32)
    t = np.arange(T)
    for i in range(n):
        s = int(rng.integers(0, T - 12))
        k = y[i]
        if k == 0:
            x[i, s:s + 12, 0] += np.linspace(0, 2.5, 12)
        elif k == 1:
            x[i, :, 1] += 1.2 * np.sin(2 * np.pi * t / rng.uniform(5, 7))
        elif k == 2:
            x[i, s:s + 3, 2] += 3.0
            x[i, s + 6:s + 9, 2] += 3.0
        elif k == 3:
            x[i, s:, 3] += 1.5
            x[i, s:, 4] -= 1.5
        else:
            x[i, :, 5] += np.cumsum(rng.normal(0, 0.35, T))
    return x, y


def run07():
    r = Run("run07", train_root="/home/ana/machine-events")
    rng = np.random.default_rng(707)
    X, y = make_motif_sequences(rng, 3400)
    np.savez_compressed(r.work / "data/events_train.npz", x=X[:2400], y=y[:2400])
    np.savez_compressed(r.work / "data/events_val.npz", x=X[2400:2900], y=y[2400:2900])
    np.savez_compressed(r.work / "data/events_test.npz", x=X[2900:], y=y[2900:])
    classes = ["ramp", "oscillation", "double_spike", "step_split", "creep"]
    hp = {"input_size": 6, "hidden_size": 48, "num_layers": 1, "num_classes": 5}
    r.both("hparams.json", json.dumps({**hp, "lr": 0.003, "batch_size": 64, "epochs": 25, "seed": 4,
                                       "classes": classes}, indent=2) + "\n")
    r.both("model_def.py", dd("""
        import torch.nn as nn


        class GRUClassifier(nn.Module):
            def __init__(self, input_size, hidden_size, num_layers, num_classes):
                super().__init__()
                self.gru = nn.GRU(input_size, hidden_size, num_layers=num_layers, batch_first=True)
                self.head = nn.Linear(hidden_size, num_classes)

            def forward(self, x):
                _, h = self.gru(x)
                return self.head(h[-1])
        """))
    r.write("train.py", dd("""
        import json, numpy as np, torch, torch.nn as nn
        from model_def import GRUClassifier
        torch.set_num_threads(1)
        H = json.load(open("hparams.json")); torch.manual_seed(H["seed"])
        def load(p):
            d = np.load(p); return torch.tensor(d["x"]), torch.tensor(d["y"])
        xtr, ytr = load("data/events_train.npz"); xva, yva = load("data/events_val.npz")
        model = GRUClassifier(H["input_size"], H["hidden_size"], H["num_layers"], H["num_classes"])
        opt = torch.optim.Adam(model.parameters(), lr=H["lr"]); lf = nn.CrossEntropyLoss()
        rows = []
        for ep in range(1, H["epochs"] + 1):
            model.train(); perm = torch.randperm(len(xtr)); tl = 0
            for i in range(0, len(xtr), H["batch_size"]):
                b = perm[i:i + H["batch_size"]]
                opt.zero_grad(); l = lf(model(xtr[b]), ytr[b]); l.backward()
                gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0); opt.step(); tl += l.item() * len(b)
            model.eval()
            with torch.no_grad():
                o = model(xva); vl = lf(o, yva).item(); va = (o.argmax(1) == yva).float().mean().item()
            rows.append(f"{ep},{tl / len(xtr):.5f},{vl:.5f},{va:.5f},{gn.item():.4f}")
            print(f"Epoch {ep:02d}/{H['epochs']}: loss {tl / len(xtr):.4f}, val_loss {vl:.4f}, val_accuracy {va:.4f}, grad_norm {gn.item():.3f}")
        open("training_metrics.csv", "w").write("epoch,loss,val_loss,val_accuracy,grad_norm\\n" + "\\n".join(rows) + "\\n")
        torch.save(model.state_dict(), "gru_events.pt")
        """))
    r.both("export.py", dd("""
        import hashlib
        import json
        import os

        import numpy as np
        import torch

        from model_def import GRUClassifier

        torch.set_num_threads(1)
        H = json.load(open("hparams.json"))
        keys = ["input_size", "hidden_size", "num_layers", "num_classes"]
        model = GRUClassifier(**{k: H[k] for k in keys})
        model.load_state_dict(torch.load("gru_events.pt", map_location="cpu"))
        model.eval()
        os.makedirs("export", exist_ok=True)
        torch.save({"hparams": {k: H[k] for k in keys}, "classes": H["classes"], "state_dict": model.state_dict()},
                   "export/gru_events_v1.pt")
        d = np.load("data/events_test.npz")
        with torch.no_grad():
            acc = (model(torch.tensor(d["x"])).argmax(1).numpy() == d["y"]).mean()
        print("wrote export/gru_events_v1.pt",
              "sha256", hashlib.sha256(open("export/gru_events_v1.pt", "rb").read()).hexdigest()[:12])
        print("params", sum(p.numel() for p in model.parameters()), "| test accuracy (events_test.npz)", round(float(acc), 4))
        """))
    r.both("serve_config.yaml", dd("""
        model:
          checkpoint: export/gru_events_v1.pt
          device: cpu
          init_on_meta: true      # skip random init, weights come from the checkpoint
        server:
          workers: 1
          max_batch: 32
        """))
    r.write("serve.py", dd("""
        import logging

        import torch
        import yaml
        from fastapi import FastAPI
        from pydantic import BaseModel

        from model_def import GRUClassifier

        torch.set_num_threads(1)
        log = logging.getLogger("events-api")
        cfg = yaml.safe_load(open("serve_config.yaml"))["model"]

        ckpt = torch.load(cfg["checkpoint"], map_location=cfg["device"])
        if cfg.get("init_on_meta"):
            with torch.device("meta"):
                model = GRUClassifier(**ckpt["hparams"])
        else:
            model = GRUClassifier(**ckpt["hparams"])
        model.load_state_dict(ckpt["state_dict"])
        model.eval()
        CLASSES = ckpt["classes"]
        log.info("loaded %s (%s), classes=%s", cfg["checkpoint"], ckpt["hparams"], CLASSES)

        app = FastAPI(title="machine-events")


        class Window(BaseModel):
            machine_id: str
            series: list[list[float]]


        @app.get("/health")
        def health():
            return {"status": "ok", "model_loaded": model is not None}


        @app.post("/v1/classify")
        def classify(w: Window):
            x = torch.tensor(w.series, dtype=torch.float32, device=cfg["device"]).unsqueeze(0)
            with torch.no_grad():
                p = torch.softmax(model(x), dim=1)[0]
            k = int(p.argmax())
            return {"machine_id": w.machine_id, "event": CLASSES[k], "p": round(float(p[k]), 4)}
        """))
    r.both("requirements-train.txt", "torch==2.13.0\nnumpy==2.4.6\n")
    r.both("requirements-serve.txt", "torch==2.13.0\nfastapi==0.165.0\nuvicorn==0.55.0\npyyaml==6.0.4\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    r.ship("training_metrics.csv")
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    d = np.load(r.work / "data/events_test.npz")
    cl = ips(rng, 40)
    reqs = [{"id": None, "method": "GET", "path": "/health", "body": None, "client": ["10.0.0.1", 40100]}]
    for i in range(24):
        reqs.append({"id": i, "method": "POST", "path": "/v1/classify",
                     "body": {"machine_id": f"press-{int(rng.integers(1, 30)):02d}", "series": d["x"][i].round(3).tolist()},
                     "client": cl[i]})
        if i % 8 == 7:
            reqs.append({"id": None, "method": "GET", "path": "/health", "body": None, "client": ["10.0.0.1", 40101 + i]})
    resps, _ = fastapi_replay(r, "serve", reqs, epoch_of("2024-09-10 07:55:00"), 7,
                              fmt="[%(asctime)s] %(levelname)s %(name)s - %(message)s")
    r.ship("serving.log", side="serve")
    s0 = [j for j, q in enumerate(reqs) if q["path"] == "/v1/classify"][0]
    short = dict(reqs[s0]["body"])
    short["series"] = short["series"][:3] + [["... 37 more rows of 6 floats ..."]]
    r.put("request_samples.json", json.dumps([
        {"request": "GET /health", "status": resps[0]["status"], "response": resps[0]["body"]},
        {"request": "POST /v1/classify", "body": short, "status": resps[s0]["status"], "response": resps[s0]["body"]}],
        indent=1) + "\n")
    codes = {}
    for q, s in zip(reqs, resps):
        codes.setdefault(q["path"], []).append(s["status"])
    exp_acc = out.split("test accuracy (events_test.npz)")[1].strip()
    r.put("comparison.md", "# machine-events: export check vs API\n\n" + md_table(
        ["", "export.py (events_test.npz)", "API"],
        [["accuracy", exp_acc, "-"],
         ["/health", "-", f"{codes['/health'].count(200)}/{len(codes['/health'])} x 200"],
         ["/v1/classify", "-", f"{codes['/v1/classify'].count(200)} x 200, {codes['/v1/classify'].count(500)} x 500"]]))
    r.truth("device_mismatch",
            "/health says the model is loaded, but every /v1/classify call returns a 500, while the exported "
            "checkpoint scores fine in export.py.",
            "serve_config.yaml sets init_on_meta: true, so the service builds the GRU under torch.device('meta') "
            "and then calls load_state_dict without assign=True: the copy is a no-op (UserWarnings at startup), "
            "parameters stay on 'meta' and every forward raises 'Input and parameter tensors are not at the same "
            "device, found input tensor at cpu and parameter tensor at meta'.")
    return r


# ============================================================================
# run08 -- metric_changed (churn MLP, SGD momentum, FastAPI + monitoring job)
# ============================================================================
def run08():
    r = Run("run08", train_root="/home/wbrandt/churn")
    rng = np.random.default_rng(808)
    n = 6000
    X, _ = make_classification(rng, n, 14, 6, 2, sep=1.0, scale_range=(1, 1))
    w = rng.normal(size=14)
    z = (X - X.mean(0)) / X.std(0)
    logit = z @ w * 0.9 + 0.6 * z[:, 0] * z[:, 1] - 5.0
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    cols = ["tenure_m", "monthly_fee", "n_tickets_90d", "n_logins_30d", "discount_pct", "n_products", "age",
            "late_payments", "nps_last", "usage_gb", "contract_left_m", "region_risk", "devices", "referrals"]
    save_csv(r.work / "data/churn_train.csv", X[:4200], y[:4200], cols, ycol="churned")
    save_csv(r.work / "data/churn_val.csv", X[4200:5000], y[4200:5000], cols, ycol="churned")
    save_csv(r.work / "data/outcomes_2024_07.csv", X[5000:], y[5000:], cols, ycol="churned",
             extra={"customer_id": [f"C{700000 + i}" for i in range(n - 5000)]})
    r.both("metrics.py", dd("""
        import numpy as np


        def f1_score(y_true, y_pred):
            y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
            scores, weights = [], []
            for c in np.unique(y_true):
                tp = np.sum((y_pred == c) & (y_true == c))
                fp = np.sum((y_pred == c) & (y_true != c))
                fn = np.sum((y_pred != c) & (y_true == c))
                scores.append(2 * tp / max(2 * tp + fp + fn, 1))
                weights.append(np.sum(y_true == c))
            return float(np.average(scores, weights=weights))


        def accuracy(y_true, y_pred):
            return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))
        """))
    r.both("train.py", dd("""
        import json

        import numpy as np
        import pandas as pd
        import torch
        import torch.nn as nn

        from metrics import accuracy, f1_score

        torch.set_num_threads(1)
        torch.manual_seed(2)
        FEATURES = ["tenure_m", "monthly_fee", "n_tickets_90d", "n_logins_30d", "discount_pct", "n_products", "age",
                    "late_payments", "nps_last", "usage_gb", "contract_left_m", "region_risk", "devices", "referrals"]
        tr = pd.read_csv("data/churn_train.csv")
        va = pd.read_csv("data/churn_val.csv")
        mu, sd = tr[FEATURES].mean(), tr[FEATURES].std()
        json.dump({"mean": mu.to_dict(), "std": sd.to_dict()}, open("norm.json", "w"), indent=1)
        to_x = lambda df: torch.tensor(((df[FEATURES] - mu) / sd).values, dtype=torch.float32)
        xtr, ytr = to_x(tr), torch.tensor(tr["churned"].values)
        xva, yva = to_x(va), va["churned"].values
        print(f"train rows {len(tr)} (churn rate {ytr.float().mean():.3f}), val rows {len(va)} (churn rate {yva.mean():.3f})")

        model = nn.Sequential(nn.Linear(len(FEATURES), 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        crit = nn.CrossEntropyLoss()
        for epoch in range(1, 51):
            model.train()
            perm = torch.randperm(len(xtr))
            run = 0.0
            for i in range(0, len(xtr), 128):
                b = perm[i:i + 128]
                opt.zero_grad()
                loss = crit(model(xtr[b]), ytr[b])
                loss.backward()
                opt.step()
                run += loss.item() * len(b)
            model.eval()
            with torch.no_grad():
                logits = model(xva)
                vloss = crit(logits, torch.tensor(yva)).item()
            pred = logits.argmax(1).numpy()
            print(f"epoch {epoch:2d} train_loss={run / len(xtr):.4f} val_loss={vloss:.4f} "
                  f"val_acc={accuracy(yva, pred):.4f} val_f1={f1_score(yva, pred):.4f}")
        torch.save(model, "churn_model_full.pt")
        torch.save(model.state_dict(), "churn_mlp.pt")
        """))
    r.both("export.py", dd("""
        import torch
        import torch.nn as nn

        torch.set_num_threads(1)
        model = nn.Sequential(nn.Linear(14, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
        model.load_state_dict(torch.load("churn_mlp.pt"))
        model.eval()
        scripted = torch.jit.script(model)
        scripted.save("churn_mlp.ts")
        print(scripted.code)
        print("saved churn_mlp.ts")
        """))
    r.both("serve.py", dd("""
        import json
        import logging

        import torch
        from fastapi import FastAPI
        from pydantic import BaseModel

        torch.set_num_threads(1)
        log = logging.getLogger("churn-api")
        NORM = json.load(open("norm.json"))
        FEATURES = list(NORM["mean"])
        model = torch.jit.load("churn_mlp.ts")
        model.eval()
        app = FastAPI(title="churn")


        class Customer(BaseModel):
            customer_id: str
            features: dict[str, float]


        @app.post("/predict")
        def predict(c: Customer):
            x = torch.tensor([[(c.features[f] - NORM["mean"][f]) / NORM["std"][f] for f in FEATURES]])
            with torch.no_grad():
                p = torch.softmax(model(x), 1)[0, 1].item()
            pred = int(p >= 0.5)
            log.info("prediction customer_id=%s p_churn=%.4f pred=%d", c.customer_id, p, pred)
            return {"customer_id": c.customer_id, "p_churn": round(p, 4), "churn": pred}
        """))
    r.both("monitor_job.py", dd("""
        \"\"\"nightly job: join logged predictions with observed outcomes, push metrics to the dashboard\"\"\"
        import json
        import re
        import sys

        import numpy as np
        import pandas as pd

        log_path, outcomes_path = sys.argv[1], sys.argv[2]
        pat = re.compile(r"customer_id=(\\S+) p_churn=([0-9.]+) pred=(\\d)")
        rows = [m.groups() for m in map(pat.search, open(log_path)) if m]
        preds = pd.DataFrame(rows, columns=["customer_id", "p_churn", "pred"]).astype({"p_churn": float, "pred": int})
        df = preds.merge(pd.read_csv(outcomes_path)[["customer_id", "churned"]], on="customer_id")

        y, p = df["churned"].values, df["pred"].values
        tp = int(((p == 1) & (y == 1)).sum())
        fp = int(((p == 1) & (y == 0)).sum())
        fn = int(((p == 0) & (y == 1)).sum())
        precision = tp / max(tp + fp, 1)
        recall = tp / max(tp + fn, 1)
        f1 = 2 * precision * recall / max(precision + recall, 1e-12)
        out = {"n": len(df), "accuracy": round(float((p == y).mean()), 4), "precision": round(precision, 4),
               "recall": round(recall, 4), "f1": round(f1, 4), "base_rate": round(float(y.mean()), 4)}
        print(json.dumps(out))
        """))
    r.both("requirements.txt", "torch==2.13.0\nnumpy==2.4.6\npandas==3.1.1\nfastapi==0.165.0\nuvicorn==0.55.0\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    import pandas as pd
    oc = pd.read_csv(r.work / "data/outcomes_2024_07.csv")
    cl = ips(rng, len(oc))
    reqs = [{"id": i, "method": "POST", "path": "/predict",
             "body": {"customer_id": row.customer_id, "features": {c: float(getattr(row, c)) for c in cols}},
             "client": cl[i], "gap": float(rng.uniform(0.5, 40))} for i, row in enumerate(oc.itertuples())]
    resps, _ = fastapi_replay(r, "serve", reqs, epoch_of("2024-07-01 06:00:00"), 8,
                              fmt="%(asctime)s %(levelname)s %(name)s %(message)s")
    r.ship("serving.log", side="serve")
    out, _ = r.py("monitor_job.py", "serving.log", "data/outcomes_2024_07.csv")
    r.put("monitor_job_output.txt", console("python monitor_job.py logs/churn-api/serving.log data/outcomes_2024_07.csv", out))
    mon = json.loads(out.strip().splitlines()[-1])
    # the user's notebook: score July with the training code path
    r.write("_nb.py", dd("""
        import json, numpy as np, pandas as pd, torch
        from metrics import f1_score, accuracy
        torch.set_num_threads(1)
        m = torch.load("churn_model_full.pt", weights_only=False); m.eval()
        N = json.load(open("norm.json")); F = list(N["mean"])
        df = pd.read_csv("data/outcomes_2024_07.csv")
        x = torch.tensor(((df[F] - pd.Series(N["mean"])) / pd.Series(N["std"])).values, dtype=torch.float32)
        with torch.no_grad():
            pred = m(x).argmax(1).numpy()
        np.save("_nb_pred.npy", pred)
        y = df["churned"].values
        print(json.dumps({"n": len(df), "accuracy": round(accuracy(y, pred), 4), "f1": round(f1_score(y, pred), 4)}))
        """))
    nbo, _ = r.py("_nb.py")
    nb = json.loads(nbo.strip().splitlines()[-1])
    nbp = np.load(r.work / "_nb_pred.npy")
    sp = np.array([s["body"]["churn"] for s in resps])
    last = [l for l in (r.out / "train_log.txt").read_text().splitlines() if l.startswith("epoch")][-1]
    vf1 = float(last.split("val_f1=")[1])
    vacc = float(last.split("val_acc=")[1].split()[0])
    r.put("request_samples.json", json.dumps([{"request": reqs[j]["body"], "response": resps[j]["body"]}
                                              for j in range(3)], indent=1) + "\n")
    r.put("comparison.md", "# churn model: offline vs production dashboard\n\n" + md_table(
        ["", "val (train.py, epoch 50)", "July outcomes, notebook (train code path)", "July outcomes, prod dashboard (monitor_job)"],
        [["n", 800, nb["n"], mon["n"]],
         ["accuracy", f"{vacc:.4f}", nb["accuracy"], mon["accuracy"]],
         ["F1", f"{vf1:.4f}", nb["f1"], mon["f1"]]]) +
        f"\nnotebook vs API churn flag agreement on July customers: {pct(acc(nbp, sp))}\n")
    r.truth("metric_changed",
            f"Offline the churn model had F1 {vf1:.2f} on validation, but the production dashboard shows F1 around "
            f"{mon['f1']:.2f} for July - has the model degraded in production?",
            "No model or serving change: train.py reports a support-weighted F1 over both classes (metrics.f1_score), "
            "while the production monitor_job.py computes the positive-class (churn) F1; the "
            "two differ a lot (churn rate ~13%) although predictions are identical and accuracy matches.")
    return r


# ============================================================================
# run09 -- ci_environment_drift (glyph CNN, Adam, 5 epochs; torch.load default changed between versions)
# ============================================================================
GLYPH6 = ["hbar", "vbar", "diag", "anti", "ring", "dot"]
OLD_TORCH_SHIM = dd('''
    # emulates the training box's torch 2.3.1 (torch.load default weights_only=False before 2.6)
    import torch

    _load = torch.load


    def _load_pre26(f, map_location=None, pickle_module=None, *, weights_only=False, **kw):
        if pickle_module is not None:
            kw["pickle_module"] = pickle_module
        return _load(f, map_location=map_location, weights_only=weights_only, **kw)


    torch.load = _load_pre26
    torch.__version__ = "2.3.1"
    ''')


def run09():
    r = Run("run09", train_root="/home/kim/glyph-api", serve_root="/app")
    rng = np.random.default_rng(909)
    X, y = glyph_images(rng, 2400, 12, GLYPH6)
    np.savez_compressed(r.work / "data/glyphs12.npz", x=X, y=y)
    r.write("_oldenv/sitecustomize.py", OLD_TORCH_SHIM)
    old = {"PYTHONPATH": str(r.work / "_oldenv")}
    r.write("glyphnet.py", dd("""
        import torch.nn as nn


        class GlyphNet(nn.Module):
            def __init__(self, n_classes):
                super().__init__()
                self.conv = nn.Sequential(nn.Conv2d(1, 12, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                          nn.Conv2d(12, 24, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(3))
                self.fc = nn.Linear(24 * 9, n_classes)

            def forward(self, x):
                return self.fc(self.conv(x).flatten(1))
        """))
    r.write("train.py", dd("""
        import argparse, os, numpy as np, torch, torch.nn as nn
        from glyphnet import GlyphNet
        p = argparse.ArgumentParser()
        p.add_argument("--data", default="data/glyphs12.npz"); p.add_argument("--epochs", type=int, default=5)
        p.add_argument("--lr", type=float, default=2e-3); p.add_argument("--batch-size", type=int, default=64)
        p.add_argument("--classes", default="hbar,vbar,diag,anti,ring,dot"); p.add_argument("--out", default="ckpt/last.pt")
        p.add_argument("--seed", type=int, default=0)
        args = p.parse_args(); args.classes = args.classes.split(",")
        torch.set_num_threads(1); torch.manual_seed(args.seed)
        print("torch", torch.__version__, "| args", vars(args))
        d = np.load(args.data); x = d["x"].astype(np.float32) / 255.0; y = d["y"]
        mean, std = x[:1800].mean(), x[:1800].std()
        xt = torch.tensor((x - mean) / std).unsqueeze(1); yt = torch.tensor(y)
        xtr, ytr, xva, yva = xt[:1800], yt[:1800], xt[1800:], yt[1800:]
        model = GlyphNet(len(args.classes)); opt = torch.optim.Adam(model.parameters(), lr=args.lr); lf = nn.CrossEntropyLoss()
        for ep in range(1, args.epochs + 1):
            model.train(); perm = torch.randperm(len(xtr)); tot = 0
            for i in range(0, len(xtr), args.batch_size):
                b = perm[i:i + args.batch_size]; opt.zero_grad(); l = lf(model(xtr[b]), ytr[b]); l.backward(); opt.step(); tot += l.item() * len(b)
            model.eval()
            with torch.no_grad():
                o = model(xva); vl = lf(o, yva).item(); va = (o.argmax(1) == yva).float().mean().item()
            print(f"epoch {ep}/{args.epochs}  loss {tot / len(xtr):.4f}  val_loss {vl:.4f}  val_acc {va:.4f}")
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        torch.save({"model": model.state_dict(), "args": args, "norm_mean": np.float32(mean), "norm_std": np.float32(std),
                    "epoch": args.epochs}, args.out)
        np.savez_compressed("data/glyphs12_val.npz", x=d["x"][1800:], y=d["y"][1800:])
        print("saved", args.out)
        """))
    r.both("export.py", dd("""
        import hashlib
        import os
        import shutil

        import torch

        src, dst = "ckpt/last.pt", "serve/model/last.pt"
        ckpt = torch.load(src, map_location="cpu")
        print("torch", torch.__version__)
        print("checkpoint keys:", list(ckpt))
        print("args:", ckpt["args"])
        print("epoch:", ckpt["epoch"], "norm:", ckpt["norm_mean"], ckpt["norm_std"])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(src, dst)
        print("copied", src, "->", dst, "sha256", hashlib.sha256(open(dst, "rb").read()).hexdigest()[:12])
        """))
    r.write("serve/glyphnet.py", (r.work / "glyphnet.py").read_text())
    r.write("serve/serve.py", dd("""
        import logging
        import os

        import numpy as np
        import torch
        from fastapi import FastAPI
        from pydantic import BaseModel

        from glyphnet import GlyphNet

        torch.set_num_threads(1)
        log = logging.getLogger("glyph-api")
        MODEL_PATH = os.environ.get("MODEL_PATH", "model/last.pt")

        ckpt = torch.load(MODEL_PATH, map_location="cpu")
        CLASSES = ckpt["args"].classes
        MEAN, STD = float(ckpt["norm_mean"]), float(ckpt["norm_std"])
        model = GlyphNet(len(CLASSES))
        model.load_state_dict(ckpt["model"])
        model.eval()
        log.info("loaded %s (epoch %s, classes %s)", MODEL_PATH, ckpt["epoch"], CLASSES)

        app = FastAPI(title="glyph-api")


        class Image(BaseModel):
            pixels: list[list[int]]


        def predict_array(img):
            x = (np.asarray(img, dtype=np.float32) / 255.0 - MEAN) / STD
            with torch.no_grad():
                p = torch.softmax(model(torch.from_numpy(x)[None, None]), 1)[0]
            k = int(p.argmax())
            return CLASSES[k], float(p[k])


        @app.post("/classify")
        def classify(img: Image):
            label, score = predict_array(img.pixels)
            return {"label": label, "score": round(score, 4)}
        """))
    r.write("serve/tests/test_serve.py", dd("""
        import numpy as np


        def test_model_loads_and_scores_val():
            import serve
            d = np.load("../data/glyphs12_val.npz")
            preds = [serve.predict_array(x)[0] for x in d["x"][:200]]
            acc = np.mean([p == serve.CLASSES[t] for p, t in zip(preds, d["y"][:200])])
            print(f"val[:200] accuracy {acc:.3f}")
            assert acc > 0.9
        """))
    r.write("serve/pytest.ini", "[pytest]\naddopts = -p no:cacheprovider --tb=short\ntestpaths = tests\npythonpath = .\n")
    r.write("serve/batch_eval.py", dd("""
        import numpy as np
        import serve
        d = np.load("../data/glyphs12_val.npz")
        preds = np.array([serve.CLASSES.index(serve.predict_array(x)[0]) for x in d["x"]])
        print(f"torch {serve.torch.__version__}: val accuracy {np.mean(preds == d['y']):.4f} on {len(preds)} images")
        """))
    r.both("requirements-train.txt", "torch==2.3.1\nnumpy==1.26.4\n")
    r.both("serve/requirements.txt", "torch>=2.1\nnumpy\nfastapi\nuvicorn[standard]\npydantic>=2\n")
    r.both("serve/Dockerfile", dd("""
        FROM python:3.11-slim
        WORKDIR /app
        COPY requirements.txt .
        RUN pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cpu -r requirements.txt
        COPY glyphnet.py serve.py pytest.ini ./
        COPY tests/ tests/
        COPY model/ model/
        RUN python -c "import torch, numpy; print('torch', torch.__version__, 'numpy', numpy.__version__)"
        CMD ["uvicorn", "serve:app", "--host", "0.0.0.0", "--port", "8080"]
        """))
    r.both(".github/workflows/serve-image.yml", dd("""
        name: serve-image
        on: [push]
        jobs:
          build-test:
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@v4
              - uses: actions/setup-python@v5
                with: {python-version: "3.11"}
              - run: pip install -r serve/requirements.txt pytest
              - run: python -c "import torch; print(torch.__version__)"
              - run: cd serve && pytest -q
              - run: docker build -t glyph-api:${{ github.sha }} serve
        """))

    # ---- training box (pinned torch 2.3.1) ----
    out, _ = r.py("train.py", env=old)
    r.put("train_log.txt", console("python train.py", out, prompt="(glyph) kim@gpu-box:~/glyph-api$ "))
    out, _ = r.py("export.py", env=old)
    r.put("export_log.txt", console("python export.py", out, prompt="(glyph) kim@gpu-box:~/glyph-api$ "))
    r.write("_pytest_run.py", "import sys, pytest\nsys.exit(pytest.main(sys.argv[1:]))\n")
    r.write("serve/_pytest_run.py", "import sys, pytest\nsys.exit(pytest.main(sys.argv[1:]))\n")
    r.write("serve/_cd.py", "import os, runpy, sys\nos.chdir(os.path.dirname(os.path.abspath(__file__)))\n"
            "sys.path.insert(0, os.getcwd())\nsys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n")
    lt, _ = r.py("serve/_cd.py", "_pytest_run.py", "-q", env=old)
    be, _ = r.py("serve/_cd.py", "batch_eval.py", env=old)
    P = "(glyph) kim@gpu-box:~/glyph-api/serve$ "
    r.put("local_checks.txt",
          console('python -c "import torch; print(torch.__version__)"', "2.3.1\n", prompt=P) +
          console("pytest -q", lt, prompt=P) + console("python batch_eval.py", be, prompt=P))
    # ---- CI / container (unpinned -> whatever pip resolves today) ----
    import importlib.metadata as md
    vers = {p: md.version(p) for p in ["torch", "numpy", "fastapi", "uvicorn", "pydantic", "starlette", "pytest"]}
    tv, _ = r.py("-c", "import torch, numpy; print(torch.__version__)", side="serve")
    ct, rc = r.py("serve/_cd.py", "_pytest_run.py", "-q", side="serve", expect_fail=True)
    ct = ct.replace("/app/serve/", "/home/runner/work/glyph-api/glyph-api/serve/").replace("/app/serve", "/home/runner/work/glyph-api/glyph-api/serve")
    ci = ["Run pip install -r serve/requirements.txt pytest",
          "Collecting torch>=2.1 (from -r serve/requirements.txt (line 1))",
          f"  Downloading torch-{vers['torch']}-cp311-cp311-manylinux_2_28_x86_64.whl.metadata (30 kB)",
          "Collecting numpy (from -r serve/requirements.txt (line 2))",
          f"  Downloading numpy-{vers['numpy']}-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl.metadata (62 kB)",
          "Collecting fastapi (from -r serve/requirements.txt (line 3))", "...",
          "Successfully installed " + " ".join(f"{p}-{v}" for p, v in vers.items()),
          "", 'Run python -c "import torch; print(torch.__version__)"', tv.strip(), "", "Run cd serve && pytest -q",
          ct.rstrip(), f"Error: Process completed with exit code {rc}."]
    r.put("ci_build_log.txt", "\n".join(ci) + "\n")
    so, _ = r.py("-m", "uvicorn", "serve:app", "--host", "0.0.0.0", "--port", "8080", cwd="serve", side="serve",
                 expect_fail=True)
    raw = so.replace("/app/serve/", "/app/")
    r.put("serving.log", "$ docker run --rm -p 8080:8080 glyph-api:9f2c1e7\n" + raw)
    r.put("serve/pytest.ini", (r.work / "serve/pytest.ini").read_text())
    r.put("comparison.md", "# training box vs CI / container\n\n" + md_table(
        ["", "training box (local)", "CI runner / docker image"],
        [["torch", "2.3.1 (requirements-train.txt)", vers["torch"] + " (resolved from torch>=2.1)"],
         ["numpy", "1.26.4", vers["numpy"]],
         ["pytest -q (serve/tests)", "1 passed", "1 failed"],
         ["batch_eval.py val accuracy", be.split("val accuracy ")[1].split()[0], "- (model does not load)"],
         ["uvicorn serve:app", "starts", "exits while importing serve.py"]]))
    r.truth("ci_environment_drift",
            "Tests pass and the model scores ~97% on my training box, but the same serve code fails in CI and the "
            "container dies on startup.",
            "serve/requirements.txt leaves torch unpinned (torch>=2.1): the training box runs torch 2.3.1, CI and the "
            "image resolve torch 2.13, where torch.load defaults to weights_only=True; the checkpoint pickles an "
            "argparse.Namespace and numpy scalars, so loading raises UnpicklingError there. (The training-box "
            "outputs are produced with torch.load's pre-2.6 default, weights_only=False, and the version string "
            "2.3.1; the CI/container outputs come from the real torch 2.13.)")
    return r


# ============================================================================
# run10 -- shape_mismatch (1-D CNN on accelerometer windows, SGD, FastAPI; some clients send 120 samples)
# ============================================================================
ACTS = ["still", "walk", "run", "stairs"]


def make_accel(rng, n, L=128, fs=50.0):
    y = rng.integers(0, 4, n)
    t = np.arange(L) / fs
    X = np.zeros((n, L), np.float32)
    for i in range(n):
        ph = rng.uniform(0, 2 * np.pi)
        if y[i] == 0:
            s = rng.normal(0, 0.05, L)
        elif y[i] == 1:
            f = rng.uniform(1.6, 2.2)
            s = 0.9 * np.sin(2 * np.pi * f * t + ph) + 0.3 * np.sin(4 * np.pi * f * t + ph)
        elif y[i] == 2:
            f = rng.uniform(2.6, 3.3)
            s = 2.2 * np.abs(np.sin(np.pi * f * t + ph)) - 1.4
        else:
            f = rng.uniform(1.2, 1.6)
            s = 0.8 * np.sin(2 * np.pi * f * t + ph) + 0.6 * np.sign(np.sin(np.pi * f * t + ph))
        X[i] = s + rng.normal(0, 1.1, L) + rng.normal(0, 0.3)
    return X, y


def run10():
    r = Run("run10", train_root="/home/dev/har-service")
    rng = np.random.default_rng(1010)
    X, y = make_accel(rng, 2600)
    np.savez_compressed(r.work / "data/har_windows.npz", x=X, y=y)
    r.both("train_config.yaml", dd("""
        data: data/har_windows.npz
        window: 128          # 2.56 s @ 50 Hz
        classes: [still, walk, run, stairs]
        split: {train: 2000, val: 600}
        model: {channels: [16, 32], kernel: 5, fc: 64}
        sgd: {lr: 0.05, momentum: 0.9}
        batch_size: 64
        epochs: 6
        seed: 1
        """))
    r.both("har_model.py", dd("""
        import torch.nn as nn


        class HARNet(nn.Module):
            def __init__(self, window=128, channels=(16, 32), kernel=5, fc=64, n_classes=4):
                super().__init__()
                c1, c2 = channels
                self.features = nn.Sequential(
                    nn.Conv1d(1, c1, kernel, padding=kernel // 2), nn.ReLU(), nn.MaxPool1d(2),
                    nn.Conv1d(c1, c2, kernel, padding=kernel // 2), nn.ReLU(), nn.MaxPool1d(2),
                )
                self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(c2 * (window // 4), fc), nn.ReLU(),
                                                nn.Linear(fc, n_classes))

            def forward(self, x):
                return self.classifier(self.features(x))
        """))
    r.both("train.py", dd("""
        import numpy as np
        import torch
        import torch.nn as nn
        import yaml

        from har_model import HARNet

        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("train_config.yaml"))
        torch.manual_seed(cfg["seed"])
        d = np.load(cfg["data"])
        x = torch.tensor(d["x"]).unsqueeze(1)
        y = torch.tensor(d["y"])
        n_tr = cfg["split"]["train"]
        xtr, ytr, xva, yva = x[:n_tr], y[:n_tr], x[n_tr:], y[n_tr:]
        m = cfg["model"]
        model = HARNet(cfg["window"], m["channels"], m["kernel"], m["fc"], len(cfg["classes"]))
        opt = torch.optim.SGD(model.parameters(), lr=cfg["sgd"]["lr"], momentum=cfg["sgd"]["momentum"])
        ce = nn.CrossEntropyLoss()
        step = 0
        for epoch in range(cfg["epochs"]):
            model.train()
            perm = torch.randperm(n_tr)
            for i in range(0, n_tr, cfg["batch_size"]):
                b = perm[i:i + cfg["batch_size"]]
                opt.zero_grad()
                loss = ce(model(xtr[b]), ytr[b])
                loss.backward()
                opt.step()
                step += 1
                if step % 8 == 0:
                    print(f"step {step:4d}  train/loss {loss.item():.4f}")
            model.eval()
            with torch.no_grad():
                out = model(xva)
            print(f"epoch {epoch + 1}  val/loss {ce(out, yva).item():.4f}  val/top1 {(out.argmax(1) == yva).float().mean().item():.4f}")
        torch.save(model.state_dict(), "harnet.pt")
        """))
    r.both("export.py", dd("""
        import numpy as np
        import torch
        import yaml

        from har_model import HARNet

        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("train_config.yaml"))
        m = cfg["model"]
        model = HARNet(cfg["window"], m["channels"], m["kernel"], m["fc"], len(cfg["classes"]))
        model.load_state_dict(torch.load("harnet.pt", map_location="cpu"))
        model.eval()
        traced = torch.jit.trace(model, torch.zeros(1, 1, cfg["window"]))
        traced.save("harnet_traced.pt")
        d = np.load(cfg["data"])
        xv = torch.tensor(d["x"][cfg["split"]["train"]:]).unsqueeze(1)
        with torch.no_grad():
            top1 = (traced(xv).argmax(1).numpy() == d["y"][cfg["split"]["train"]:]).mean()
        print(f"traced model saved to harnet_traced.pt; input (N, 1, {cfg['window']}); val top1 {top1:.4f}")
        """))
    r.both("serve.py", dd("""
        import logging

        import torch
        from fastapi import FastAPI
        from pydantic import BaseModel

        torch.set_num_threads(1)
        log = logging.getLogger("har")
        CLASSES = ["still", "walk", "run", "stairs"]
        model = torch.jit.load("harnet_traced.pt")
        model.eval()
        app = FastAPI(title="har-service")


        class Window(BaseModel):
            device_id: str
            firmware: str
            sample_rate_hz: float
            samples: list[float]


        @app.post("/activity")
        def activity(w: Window):
            x = torch.tensor(w.samples, dtype=torch.float32).view(1, 1, -1)
            with torch.no_grad():
                p = torch.softmax(model(x), dim=1)[0]
            k = int(p.argmax())
            log.info("device=%s fw=%s n=%d -> %s (%.3f)", w.device_id, w.firmware, len(w.samples), CLASSES[k], p[k])
            return {"device_id": w.device_id, "activity": CLASSES[k], "confidence": round(float(p[k]), 4)}
        """))
    r.both("requirements.txt", "torch==2.13.0\nnumpy==2.4.6\npyyaml==6.0.4\nfastapi==0.165.0\nuvicorn==0.55.0\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    # live traffic: fw 3.1 devices stream 2.4 s windows at 50 Hz (120 samples) after an update
    Xl, yl = make_accel(rng, 400, L=128)
    devs = [(f"wr-{int(rng.integers(1000, 9999))}", "3.1.0" if j % 3 == 0 else "2.8.4") for j in range(30)]
    cl = ips(rng, 400)
    reqs = []
    for i in range(90):
        dev, fw = devs[int(rng.integers(0, len(devs)))]
        s = Xl[i][:120] if fw.startswith("3.") else Xl[i]
        reqs.append({"id": i, "method": "POST", "path": "/activity", "client": cl[i],
                     "body": {"device_id": dev, "firmware": fw, "sample_rate_hz": 50.0,
                              "samples": [round(float(v), 3) for v in s]}})
    resps, _ = fastapi_replay(r, "serve", reqs, epoch_of("2024-11-05 17:20:00"), 10,
                              fmt="%(asctime)s %(levelname)s %(name)s: %(message)s")
    r.ship("serving.log", side="serve")
    ok = [(q, s) for q, s in zip(reqs, resps) if s["status"] == 200]
    bad = [(q, s) for q, s in zip(reqs, resps) if s["status"] != 200]
    okacc = np.mean([s["body"]["activity"] == ACTS[yl[q["id"]]] for q, s in ok])

    def short(b):
        b = dict(b)
        b["samples"] = b["samples"][:6] + [f"... {len(b['samples']) - 6} more"]
        return b
    r.put("request_samples.json", json.dumps(
        [{"request": short(ok[0][0]["body"]), "status": 200, "response": ok[0][1]["body"]},
         {"request": short(bad[0][0]["body"]), "status": bad[0][1]["status"], "response": bad[0][1]["body"]}],
        indent=1) + "\n")
    by_fw = {}
    for q, s in zip(reqs, resps):
        by_fw.setdefault(q["body"]["firmware"], []).append(s["status"])
    rows = [[fw, len(v), v.count(200), v.count(500)] for fw, v in sorted(by_fw.items())]
    r.put("comparison.md", "# HAR: offline vs /activity (last 90 requests)\n\n"
          f"offline (export.py, val set): top1 {out.split('val top1 ')[1].strip()}\n\n"
          f"service, requests that returned 200: accuracy vs app labels {okacc:.3f} (n={len(ok)})\n\n" +
          md_table(["firmware", "requests", "200", "500"], rows))
    r.truth("shape_mismatch",
            "The activity API works for most wristbands but returns 500s for a subset of devices, although the "
            "model validated fine offline.",
            "The traced HARNet has Linear(32*32, 64) after two pools, i.e. it only accepts 128-sample windows; "
            "devices on firmware 3.1 send 120-sample windows and serve.py reshapes whatever arrives with view(1,1,-1), "
            "so those requests fail with 'mat1 and mat2 shapes cannot be multiplied (1x960 and 1024x64)'.")
    return r


# ============================================================================
# run11 -- seed_or_split_changed (fraud MLP, Adam, FastAPI; offline eval re-splits with another seed)
# ============================================================================
def run11():
    r = Run("run11", train_root="/home/sofia/txn-risk")
    rng = np.random.default_rng(1111)
    n = 4000 + 800
    X, _ = make_classification(rng, n, 24, 12, 2, sep=1.0, scale_range=(1, 1))
    X = (X - X.mean(0)) / X.std(0)
    w = rng.normal(size=24) * (rng.random(24) < 0.6)
    logit = X @ w * 0.8 + 0.8 * np.sin(2 * X[:, 0]) * X[:, 1] - 1.6
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    cols = [f"v{i:02d}" for i in range(24)]
    save_csv(r.work / "data/transactions.csv", X[:4000], y[:4000], cols, ycol="is_fraud",
             extra={"txn_id": [f"t{i:06d}" for i in range(4000)]})
    save_csv(r.work / "data/prod_labelled_2024_06.csv", X[4000:], y[4000:], cols, ycol="is_fraud",
             extra={"txn_id": [f"p{i:06d}" for i in range(800)]})
    r.both("config.yaml", dd("""
        data:
          path: data/transactions.csv
          target: is_fraud
          val_frac: 0.2
          split_seed: 2024
        train:
          seed: 17
          epochs: 60
          lr: 0.001
          weight_decay: 0.0001
          batch_size: 64
          hidden: 256
        artifacts: artifacts/
        """))
    r.both("data.py", dd("""
        import numpy as np
        import pandas as pd


        def load_frame(cfg):
            df = pd.read_csv(cfg["data"]["path"])
            features = [c for c in df.columns if c.startswith("v")]
            return df, features


        def make_split(n, val_frac, seed):
            rng = np.random.default_rng(seed)
            perm = rng.permutation(n)
            n_val = int(n * val_frac)
            return perm[n_val:], perm[:n_val]
        """))
    r.both("train.py", dd("""
        import os

        import numpy as np
        import torch
        import torch.nn as nn
        import yaml

        from data import load_frame, make_split

        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("config.yaml"))
        T = cfg["train"]
        torch.manual_seed(T["seed"])
        df, features = load_frame(cfg)
        tr_idx, va_idx = make_split(len(df), cfg["data"]["val_frac"], cfg["data"]["split_seed"])
        X = torch.tensor(df[features].values, dtype=torch.float32)
        y = torch.tensor(df[cfg["data"]["target"]].values)
        xtr, ytr, xva, yva = X[tr_idx], y[tr_idx], X[va_idx], y[va_idx]
        print(f"train={len(tr_idx)} val={len(va_idx)} fraud_rate={y.float().mean():.3f}")

        model = nn.Sequential(nn.Linear(len(features), T["hidden"]), nn.ReLU(),
                              nn.Linear(T["hidden"], T["hidden"]), nn.ReLU(),
                              nn.Linear(T["hidden"], 2))
        opt = torch.optim.Adam(model.parameters(), lr=T["lr"], weight_decay=T["weight_decay"])
        ce = nn.CrossEntropyLoss()
        os.makedirs(cfg["artifacts"], exist_ok=True)
        with open(os.path.join(cfg["artifacts"], "history.csv"), "w") as h:
            h.write("epoch,train_loss,train_acc,val_loss,val_acc\\n")
            for epoch in range(1, T["epochs"] + 1):
                model.train()
                perm = torch.randperm(len(xtr))
                for i in range(0, len(xtr), T["batch_size"]):
                    b = perm[i:i + T["batch_size"]]
                    opt.zero_grad()
                    ce(model(xtr[b]), ytr[b]).backward()
                    opt.step()
                model.eval()
                with torch.no_grad():
                    otr, ova = model(xtr), model(xva)
                row = (epoch, ce(otr, ytr).item(), (otr.argmax(1) == ytr).float().mean().item(),
                       ce(ova, yva).item(), (ova.argmax(1) == yva).float().mean().item())
                h.write("%d,%.5f,%.5f,%.5f,%.5f\\n" % row)
                if epoch % 10 == 0 or epoch == 1:
                    print("epoch %3d  train_loss %.4f  train_acc %.4f  val_loss %.4f  val_acc %.4f" % row)
        torch.save(model.state_dict(), os.path.join(cfg["artifacts"], "model.pt"))
        """))
    r.both("evaluate.py", dd("""
        import json

        import numpy as np
        import torch
        import torch.nn as nn
        import yaml

        from data import load_frame, make_split

        torch.set_num_threads(1)
        cfg = yaml.safe_load(open("config.yaml"))
        df, features = load_frame(cfg)
        _, va_idx = make_split(len(df), cfg["data"]["val_frac"], cfg["train"]["seed"])
        H = cfg["train"]["hidden"]
        model = nn.Sequential(nn.Linear(len(features), H), nn.ReLU(), nn.Linear(H, H), nn.ReLU(), nn.Linear(H, 2))
        model.load_state_dict(torch.load(cfg["artifacts"] + "model.pt"))
        model.eval()
        x = torch.tensor(df.iloc[va_idx][features].values, dtype=torch.float32)
        yv = df.iloc[va_idx][cfg["data"]["target"]].values
        with torch.no_grad():
            p = torch.softmax(model(x), 1)[:, 1].numpy()
        pred = (p >= 0.5).astype(int)
        tp = int(((pred == 1) & (yv == 1)).sum())
        report = {"n_val": len(va_idx), "accuracy": round(float((pred == yv).mean()), 4),
                  "precision": round(tp / max(pred.sum(), 1), 4), "recall": round(tp / max(yv.sum(), 1), 4)}
        print(json.dumps(report, indent=2))
        json.dump(report, open(cfg["artifacts"] + "offline_report.json", "w"), indent=2)
        """))
    r.both("serve.py", dd("""
        import logging

        import torch
        import torch.nn as nn
        import yaml
        from fastapi import FastAPI
        from pydantic import BaseModel

        torch.set_num_threads(1)
        log = logging.getLogger("txn-risk")
        cfg = yaml.safe_load(open("config.yaml"))
        FEATURES = [f"v{i:02d}" for i in range(24)]
        H = cfg["train"]["hidden"]
        model = nn.Sequential(nn.Linear(len(FEATURES), H), nn.ReLU(), nn.Linear(H, H), nn.ReLU(), nn.Linear(H, 2))
        model.load_state_dict(torch.load(cfg["artifacts"] + "model.pt", map_location="cpu"))
        model.eval()
        app = FastAPI(title="txn-risk")


        class Txn(BaseModel):
            txn_id: str
            features: dict[str, float]


        @app.post("/risk")
        def risk(t: Txn):
            x = torch.tensor([[t.features[f] for f in FEATURES]])
            with torch.no_grad():
                p = torch.softmax(model(x), 1)[0, 1].item()
            log.info("txn=%s p_fraud=%.4f", t.txn_id, p)
            return {"txn_id": t.txn_id, "p_fraud": round(p, 4), "flag": p >= 0.5}
        """))
    r.both("requirements.txt", "torch==2.13.0\nnumpy==2.4.6\npandas==3.1.1\npyyaml==6.0.4\nfastapi==0.165.0\nuvicorn==0.55.0\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    r.ship("artifacts/history.csv", "history.csv")
    out, _ = r.py("evaluate.py")
    r.put("evaluate_output.txt", console("python evaluate.py", out))
    rep = json.loads(out[out.index("{"):])
    import hashlib
    sha = {f: hashlib.sha256((r.work / "artifacts" / f).read_bytes()).hexdigest() for f in ("model.pt", "offline_report.json")}
    r.put("export_log.txt", console("cp artifacts/model.pt artifacts/offline_report.json release/txn-risk-1.4/ && "
                                    "sha256sum release/txn-risk-1.4/*",
                                    "".join(f"{h}  release/txn-risk-1.4/{f}\n" for f, h in sha.items())))
    import pandas as pd
    pdf = pd.read_csv(r.work / "data/prod_labelled_2024_06.csv")
    cl = ips(rng, len(pdf))
    reqs = [{"id": i, "method": "POST", "path": "/risk", "client": cl[i], "gap": float(rng.uniform(0.2, 6)),
             "body": {"txn_id": row.txn_id, "features": {c: round(float(getattr(row, c)), 4) for c in cols}}}
            for i, row in enumerate(pdf.itertuples())]
    resps, _ = fastapi_replay(r, "serve", reqs, epoch_of("2024-06-03 00:00:05"), 11,
                              fmt="%(asctime)s %(levelname)s %(name)s %(message)s")
    r.ship("serving.log", side="serve")
    sp = np.array([int(s["body"]["flag"]) for s in resps])
    yp = pdf["is_fraud"].values
    tp = int(((sp == 1) & (yp == 1)).sum())
    hist = pd.read_csv(r.work / "artifacts/history.csv").iloc[-1]
    r.put("request_samples.json", json.dumps([{"request": reqs[j]["body"], "response": resps[j]["body"]}
                                              for j in range(2)], indent=1) + "\n")
    r.put("comparison.md", "# txn-risk 1.4: offline report vs June production labels\n\n" + md_table(
        ["", "offline (evaluate.py)", "production /risk, June chargeback labels"],
        [["n", rep["n_val"], len(yp)],
         ["accuracy", rep["accuracy"], f"{acc(sp, yp):.4f}"],
         ["precision", rep["precision"], f"{tp / max(sp.sum(), 1):.4f}"],
         ["recall", rep["recall"], f"{tp / max(yp.sum(), 1):.4f}"]]) +
        "\nsame artifacts/model.pt in both columns.\n")
    def _split(nn_, frac, seed):
        perm = np.random.default_rng(seed).permutation(nn_)
        return perm[int(nn_ * frac):], perm[:int(nn_ * frac)]
    overlap = np.isin(_split(4000, 0.2, 17)[1], _split(4000, 0.2, 2024)[0]).mean()
    r.truth("seed_or_split_changed",
            f"Our offline evaluation said {rep['accuracy']:.0%} accuracy, but on labelled June production traffic the "
            f"fraud model only gets {acc(sp, yp):.0%} - why does it do so much worse in production?",
            "train.py splits with data.split_seed (2024) but evaluate.py rebuilds the validation split with "
            f"train.seed (17): {overlap:.0%} of the offline 'validation' rows were training rows, so the offline "
            f"number is inflated; train.py's own val_acc ({hist.val_acc:.3f}) matches production.")
    return r


# ============================================================================
# run12 -- healthy but noisy/slow (3-class MLP, plain SGD batch 16, step logging, TorchServe)
# ============================================================================
def run12():
    r = Run("run12", train_root="/home/ravi/soil-clf", serve_root="/home/model-server/scratch/models/a7d20c41")
    rng = np.random.default_rng(1212)
    X, y = make_classification(rng, 4400, 10, 6, 3, sep=0.8, flip=0.08, scale_range=(1, 1))
    X = (X - X[:3000].mean(0)) / X[:3000].std(0)
    cols = ["ph", "moisture", "n_ppm", "p_ppm", "k_ppm", "ec", "organic", "clay", "sand", "temp"]
    save_csv(r.work / "data/train.csv", X[:3000], y[:3000], cols, ycol="soil_class")
    save_csv(r.work / "data/val.csv", X[3000:3600], y[3000:3600], cols, ycol="soil_class")
    save_csv(r.work / "data/field_2024.csv", X[3600:], y[3600:], cols, ycol="soil_class",
             extra={"sample_id": [f"S24-{i:04d}" for i in range(800)]})
    r.both("train_config.json", json.dumps({"features": cols, "target": "soil_class", "classes": ["A", "B", "C"],
                                            "hidden": 32, "optimizer": "sgd", "lr": 0.02, "momentum": 0.0,
                                            "batch_size": 16, "steps": 2000, "log_every": 10, "eval_every": 100,
                                            "seed": 12}, indent=2) + "\n")
    r.write("train.py", dd("""
        import json, numpy as np, pandas as pd, torch, torch.nn as nn
        torch.set_num_threads(1)
        C = json.load(open("train_config.json")); torch.manual_seed(C["seed"])
        tr, va = pd.read_csv("data/train.csv"), pd.read_csv("data/val.csv")
        xtr = torch.tensor(tr[C["features"]].values, dtype=torch.float32); ytr = torch.tensor(tr[C["target"]].values)
        xva = torch.tensor(va[C["features"]].values, dtype=torch.float32); yva = torch.tensor(va[C["target"]].values)
        model = nn.Sequential(nn.Linear(len(C["features"]), C["hidden"]), nn.Tanh(), nn.Linear(C["hidden"], 3))
        opt = torch.optim.SGD(model.parameters(), lr=C["lr"], momentum=C["momentum"]); ce = nn.CrossEntropyLoss()
        g = torch.Generator().manual_seed(C["seed"])
        with open("train_steps.csv", "w") as f:
            f.write("step,loss,val_loss,val_acc\\n")
            for step in range(1, C["steps"] + 1):
                b = torch.randint(0, len(xtr), (C["batch_size"],), generator=g)
                model.train(); opt.zero_grad(); loss = ce(model(xtr[b]), ytr[b]); loss.backward(); opt.step()
                if step % C["log_every"] == 0:
                    vl = va_ = ""
                    if step % C["eval_every"] == 0:
                        model.eval()
                        with torch.no_grad():
                            o = model(xva)
                        vl, va_ = f"{ce(o, yva).item():.4f}", f"{(o.argmax(1) == yva).float().mean().item():.4f}"
                        print(f"step {step:5d} | loss {loss.item():.4f} | val_loss {vl} | val_acc {va_}")
                    f.write(f"{step},{loss.item():.4f},{vl},{va_}\\n")
        torch.save(model.state_dict(), "soil_mlp.pt")
        """))
    r.both("export.py", dd("""
        import json
        import os

        import torch
        import torch.nn as nn

        torch.set_num_threads(1)
        C = json.load(open("train_config.json"))
        model = nn.Sequential(nn.Linear(len(C["features"]), C["hidden"]), nn.Tanh(), nn.Linear(C["hidden"], 3))
        model.load_state_dict(torch.load("soil_mlp.pt", map_location="cpu"))
        model.eval()
        scripted = torch.jit.script(model)
        os.makedirs("model_store/soil", exist_ok=True)
        scripted.save("model_store/soil/soil_mlp.ts")
        json.dump({"features": C["features"], "classes": C["classes"]}, open("model_store/soil/meta.json", "w"))
        x = torch.randn(16, len(C["features"]))
        with torch.no_grad():
            print("scripted vs eager max |diff|:", (scripted(x) - model(x)).abs().max().item())
        print("wrote model_store/soil/soil_mlp.ts + meta.json")
        """))
    r.write("soil_handler.py", dd("""
        import json
        import logging
        import os

        import torch

        log = logging.getLogger(__name__)


        class SoilHandler:
            def initialize(self, ctx):
                d = ctx.system_properties["model_dir"]
                torch.set_num_threads(1)
                self.model = torch.jit.load(os.path.join(d, "soil_mlp.ts"))
                self.model.eval()
                meta = json.load(open(os.path.join(d, "meta.json")))
                self.features, self.classes = meta["features"], meta["classes"]
                log.info("SoilHandler: %d features, classes %s", len(self.features), self.classes)

            def handle(self, data, ctx):
                rows = [json.loads(d.get("body") or d.get("data")) for d in data]
                x = torch.tensor([[r["features"][f] for f in self.features] for r in rows], dtype=torch.float32)
                with torch.no_grad():
                    p = torch.softmax(self.model(x), 1)
                return [{"sample_id": r["sample_id"], "class": self.classes[int(q.argmax())],
                         "probs": [round(float(v), 4) for v in q]} for r, q in zip(rows, p)]
        """))
    r.both("config.properties", dd("""
        inference_address=http://0.0.0.0:8080
        model_store=/home/model-server/model-store
        load_models=soil.mar
        models={"soil": {"1.0": {"defaultVersion": true, "marName": "soil.mar", "minWorkers": 1, "maxWorkers": 1, "batchSize": 4, "maxBatchDelay": 100}}}
        """))
    r.write("_nb.py", dd("""
        import json, numpy as np, pandas as pd, torch
        torch.set_num_threads(1)
        m = torch.jit.load("model_store/soil/soil_mlp.ts"); m.eval(); C = json.load(open("train_config.json"))
        for path in ["data/val.csv", "data/field_2024.csv"]:
            df = pd.read_csv(path)
            with torch.no_grad():
                p = torch.softmax(m(torch.tensor(df[C["features"]].values, dtype=torch.float32)), 1).numpy()
            if "field" in path:
                np.save("_nb_probs.npy", p)
            print(f"{path}: n={len(df)} acc={(p.argmax(1) == df['soil_class'].values).mean():.4f}")
        """))
    r.both("requirements-train.txt", "torch==2.13.0\npandas==3.1.1\n")
    r.both("requirements-serve.txt", "torchserve==0.11.0\ntorch-model-archiver==0.11.0\ntorch==2.13.0\n")
    out, _ = r.py("train.py")
    r.put("train_log.txt", console("python train.py", out))
    r.ship("train_steps.csv")
    out, _ = r.py("export.py")
    r.put("export_log.txt", console("python export.py", out))
    shutil.copy(r.work / "soil_handler.py", r.work / "model_store/soil/soil_handler.py")
    nbo, _ = r.py("_nb.py")
    r.put("batch_infer_output.txt", console("python batch_check.py  # notebook: scripted model on val + field data", nbo))
    import pandas as pd
    fd = pd.read_csv(r.work / "data/field_2024.csv")
    cl = ips(rng, len(fd))
    reqs = [{"id": i, "client": cl[i], "gap": float(rng.uniform(0.01, 0.2)) if i % 4 else float(rng.uniform(0.5, 4)),
             "body": {"sample_id": row.sample_id, "features": {c: round(float(getattr(row, c)), 4) for c in cols}}}
            for i, row in enumerate(fd.itertuples())]
    resps = torchserve_replay(r, "soil_handler", "SoilHandler", "soil", "model_store/soil", reqs,
                              epoch_of("2024-09-23 08:15:00"), 12, batch_size=4)
    r.ship("ts_log.log", side="serve")
    sp = np.array([s["body"]["probs"] for s in resps])
    nb = np.load(r.work / "_nb_probs.npy")
    yf = fd["soil_class"].values
    steps = pd.read_csv(r.work / "train_steps.csv").dropna()
    r.put("request_samples.json", json.dumps([{"request": reqs[j]["body"], "response": resps[j]["body"]}
                                              for j in range(3)], indent=1) + "\n")
    r.put("comparison.md", "# soil classifier: notebook vs TorchServe on field_2024.csv\n\n" + md_table(
        ["", "val.csv (training run, last eval)", "field_2024, notebook", "field_2024, TorchServe"],
        [["n", 600, len(nb), len(sp)],
         ["accuracy", f"{steps.val_acc.iloc[-1]:.4f}", f"{acc(nb.argmax(1), yf):.4f}", f"{acc(sp.argmax(1), yf):.4f}"],
         ["agreement with notebook", "-", "-", pct(acc(nb.argmax(1), sp.argmax(1)))],
         ["max abs prob diff", "-", "-", f"{np.abs(nb - sp).max():.1e}"]]) +
        "\nthe training loss curve (train_steps.csv) is very jumpy and val_acc only creeps up.\n")
    r.truth("healthy",
            "The training loss jumps around a lot and field accuracy through TorchServe is a bit lower than the "
            "validation number - is this run OK or is something wrong?",
            "No fault: small tanh MLP trained with plain SGD (lr 0.02, no momentum, batch 16) on noisy data with "
            "random label flips on ~8% of rows; per-step loss is noisy and val_acc rises slowly, and TorchServe "
            "reproduces the notebook exactly; the field/val difference is sampling noise.")
    return r


# ============================================================================
RUN_FUNCS = [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]


def main():
    only = set(sys.argv[1:])
    RUNS.mkdir(parents=True, exist_ok=True)
    tp = HERE / "truth.json"
    if tp.exists():
        TRUTH.update(json.loads(tp.read_text()))
    for f in RUN_FUNCS:
        if only and f.__name__ not in only:
            continue
        print(f"== {f.__name__}", flush=True)
        f()
        tp.write_text(json.dumps(dict(sorted(TRUTH.items())), indent=2) + "\n")
    if WORK.exists() and not only:
        shutil.rmtree(WORK)
    bad = ("/tmp", str(HERE), str(WORK), PREFIX, SITE)
    leaks = [str(p.relative_to(HERE)) for p in RUNS.rglob("*")
             if p.is_file() and any(b in p.read_text(errors="ignore") for b in bad)]
    if leaks:
        raise SystemExit(f"absolute scratch paths left in: {leaks}")
    print("done:", ", ".join(sorted(TRUTH)))


if __name__ == "__main__":
    main()
