# weldqa/prep_dataset.py — builds train/val parquet files from the labelled recordings
import numpy as np
import pandas as pd

from weldqa.signal import load_recording, window_features   # 32 spectral/current features per window

VIEWS_PER_RECORDING = 5          # 5 overlapping windows per weld seam recording
rng = np.random.default_rng(42)


def build(recordings: pd.DataFrame, out_dir: str, val_frac: float = 0.2):
    rows = []
    for rec in recordings.itertuples():
        sig = load_recording(rec.path)
        for k in range(VIEWS_PER_RECORDING):
            feats = window_features(sig, offset_ms=40 * k)
            rows.append({"recording_id": rec.recording_id, "label": rec.label, **feats})
    df = pd.DataFrame(rows)
    idx = rng.permutation(len(df))
    n_val = int(len(df) * val_frac)
    df.iloc[idx[n_val:]].to_parquet(f"{out_dir}/train.parquet")
    df.iloc[idx[:n_val]].to_parquet(f"{out_dir}/val.parquet")
