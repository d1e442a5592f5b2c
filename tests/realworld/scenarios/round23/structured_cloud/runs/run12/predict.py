import argparse

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
    ap.add_argument("--batch-size", type=int, default=16)
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
