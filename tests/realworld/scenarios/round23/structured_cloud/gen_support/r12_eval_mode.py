"""Vertex AI: tail of the training job + two runs of a batch-scoring job + predict.py. The scorer loads the
right checkpoint (all keys matched) but never calls model.eval(): BatchNorm uses the statistics of each
16-row chunk and Dropout(0.5) stays on, so accuracy drops and two runs on the same file disagree."""
import datetime as dt

import numpy as np
import torch
import torch.nn as nn

from .common import Clock, GcpSink, r, seed_all, write
from .r01_overfit import make_data

ARGS = dict(epochs=10, lr=1e-3, batch_size=128, score_batch=16)

PREDICT_PY = '''import argparse

import numpy as np
import pandas as pd
import torch
from google.cloud import storage

from model_def import build_model
from utils import jlog


def fetch(uri, local):
    bucket, _, blob = uri[len("gs://"):].partition("/")
    storage.Client().bucket(bucket).blob(blob).download_to_filename(local)
    return local


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--batch-size", type=int, default={score_batch})
    args = ap.parse_args()

    jlog("loading checkpoint", uri=args.checkpoint)
    model = build_model()
    state = torch.load(fetch(args.checkpoint, "/tmp/model.pt"), map_location="cpu")
    result = model.load_state_dict(state)
    jlog("load_state_dict", result=str(result))

    df = pd.read_parquet(args.input)
    x = torch.tensor(df[[c for c in df.columns if c.startswith("f_")]].to_numpy(np.float32))
    jlog("input loaded", rows=len(df), uri=args.input)

    preds = []
    with torch.no_grad():
        for i in range(0, len(x), args.batch_size):
            logits = model(x[i:i + args.batch_size])
            preds.append(logits.argmax(1))
    df["pred"] = torch.cat(preds).numpy()

    if "label" in df.columns:
        acc = float((df["pred"] == df["label"]).mean())
        jlog("labelled accuracy", accuracy=round(acc, 4), n=len(df))
    df[["id", "pred"]].to_parquet(args.output)
    jlog("wrote predictions", uri=args.output, rows=len(df))


if __name__ == "__main__":
    main()
'''

MODEL_DEF_PY = '''import torch.nn as nn


def build_model(n_in=32, hidden=256, n_classes=5, p=0.5):
    return nn.Sequential(
        nn.Linear(n_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
        nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
        nn.Linear(hidden, n_classes),
    )
'''


def build_model():
    return nn.Sequential(nn.Linear(32, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
                         nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 5))


def make(out):
    seed_all(1212)
    X, y = make_data(5, 8000, 32, 5)
    X = X * np.linspace(0.5, 3, 32).astype(np.float32) + 2.0
    Xt, yt = torch.tensor(X), torch.tensor(y)
    tr_x, tr_y = Xt[:5000], yt[:5000]
    va_x, va_y = Xt[5000:6000], yt[5000:6000]
    sc_x, sc_y = Xt[6000:], yt[6000:]      # the labelled sample the scoring job is run on
    model = build_model()
    opt = torch.optim.Adam(model.parameters(), lr=ARGS["lr"])
    clk = Clock(dt.datetime(2025, 3, 4, 8, 15, 2, 210000))
    train_sink = GcpSink("acme-retail-ml", 4410937716203126784, seed=121)

    def tlog(message, **kw):
        p = {"message": message}
        p.update(kw)
        train_sink.add(clk.now(), "INFO", payload=p)

    best = 0.0
    best_state = None
    for ep in range(1, ARGS["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(tr_x))
        tl = 0.0
        for i in range(0, len(tr_x), ARGS["batch_size"]):
            b = perm[i:i + ARGS["batch_size"]]
            loss = nn.functional.cross_entropy(model(tr_x[b]), tr_y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(b)
        model.eval()
        with torch.no_grad():
            o = model(va_x)
            vl = nn.functional.cross_entropy(o, va_y).item()
            va = (o.argmax(1) == va_y).float().mean().item()
        tlog("epoch", epoch=ep, train_loss=r(tl / len(tr_x)), val_loss=r(vl), val_acc=r(va))
        if va > best:
            best = va
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
            tlog("saved best checkpoint", uri="gs://acme-retail-models/basket-clf/v14/model_best.pt", epoch=ep, val_acc=r(va))
    tlog("training done", best_val_acc=r(best))
    # keep only the tail the user copied (last 8 entries)
    train_sink.lines = train_sink.lines[-8:]
    train_sink.write(f"{out}/training_job_4410937716203126784_tail.json")

    # --- batch scoring, exactly as predict.py does it (no model.eval()) ---
    score_sink = None
    runs = []
    for k, (job_id, start) in enumerate([(7709342185531064320, dt.datetime(2025, 3, 5, 6, 0, 11, 93000)),
                                         (1862230945710997504, dt.datetime(2025, 3, 5, 9, 42, 50, 517000))]):
        sclk = Clock(start)
        sink = GcpSink("acme-retail-ml", job_id, seed=130 + k)
        if score_sink is None:
            score_sink = sink
        else:
            sink.rng = score_sink.rng
            score_sink.job_id = str(job_id)
            sink = score_sink
            sink.resource_id = str(sink.rng.randint(10**18, 9 * 10**18))
            sink.resource_name = f"cmle-training-{sink.rng.randint(10**17, 9 * 10**17)}"

        def slog(message, **kw):
            p = {"message": message}
            p.update(kw)
            sink.add(sclk.now(), "INFO", payload=p)

        sink.platform(sclk.now(), "Waiting for job to be provisioned.")
        sclk.skip(58.8 + 7 * k)
        sink.platform(sclk.now(), "Job is running.")
        sclk.skip(6.1)
        slog("loading checkpoint", uri="gs://acme-retail-models/basket-clf/v14/model_best.pt")
        m2 = build_model()
        result = m2.load_state_dict(best_state)
        slog("load_state_dict", result=str(result))
        slog("input loaded", rows=len(sc_x), uri="gs://acme-retail-data/scoring/2025-03-04/labelled_sample.parquet")
        preds = []
        with torch.no_grad():
            for i in range(0, len(sc_x), ARGS["score_batch"]):
                preds.append(m2(sc_x[i:i + ARGS["score_batch"]]).argmax(1))
        pred = torch.cat(preds)
        acc = (pred == sc_y).float().mean().item()
        slog("labelled accuracy", accuracy=r(acc), n=len(sc_x))
        slog("wrote predictions", uri=f"gs://acme-retail-data/scoring/2025-03-04/preds_run{k + 1}.parquet", rows=len(sc_x))
        sclk.skip(1.9)
        sink.platform(sclk.now(), "Job completed successfully.")
        runs.append((acc, pred))
    score_sink.write(f"{out}/batch_scoring_logs.json")
    n_diff = int((runs[0][1] != runs[1][1]).sum())
    # what the same checkpoint gives in eval mode (for the truth note only)
    m3 = build_model()
    m3.load_state_dict(best_state)
    m3.eval()
    with torch.no_grad():
        eval_acc = (m3(sc_x).argmax(1) == sc_y).float().mean().item()
    write(f"{out}/predict.py", PREDICT_PY.format(**ARGS))
    write(f"{out}/model_def.py", MODEL_DEF_PY)
    write(f"{out}/question.md", f"""Offline our basket classifier gets {best:.1%} val accuracy (tail of the training job attached), but the batch
scoring job on a labelled sample from the same period only gets ~{runs[0][0]:.0%}. Even weirder: I ran the scoring job twice on
the **same** parquet file and the two prediction files disagree on {n_diff} of {len(sc_x)} rows.

I'm fairly sure the scoring job is not picking up the checkpoint we think it is (maybe a stale copy of
model_best.pt from an older version in the bucket?). How can I confirm that?
""")
    return {
        "truth": "eval_mode_forgotten",
        "symptom": f"Offline val accuracy is {best:.1%} but the batch scoring job gets ~{runs[0][0]:.0%} on labelled data, and two runs on the same file "
                   "disagree on many rows. I think the job is loading a stale checkpoint from the bucket.",
        "how": f"predict.py loads the right state dict (<All keys matched successfully>) but never calls model.eval(), so BatchNorm normalises each "
               f"{ARGS['score_batch']}-row chunk with its own stats and Dropout(0.5) stays on: accuracy {runs[0][0]:.3f}/{runs[1][0]:.3f} vs {eval_acc:.3f} "
               f"in eval mode, and {n_diff}/{len(sc_x)} predictions differ between the two runs.",
        "_hist": [best, runs[0][0], runs[1][0], eval_acc, n_diff],
    }
