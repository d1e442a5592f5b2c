#!/usr/bin/env python3
"""Generate 12 W&B-style ML debugging scenario runs by really training small torch models on CPU.

Usage: OUTDIR/.venv/bin/python gen.py      (writes runs/runNN/ and truth.json next to this file)
Every training script lives in gen_support/scripts/runNN/ and is executed as a subprocess with a small
offline stand-in for the wandb client (gen_support/wandb) that records config/history/summary.
"""
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SUP = os.path.join(HERE, "gen_support")
sys.path.insert(0, SUP)
import data as D  # noqa: E402
import pages as P  # noqa: E402

WORK = os.path.join(HERE, "_work")
RUNS = os.path.join(HERE, "runs")
PY = sys.executable
SITE = os.path.dirname(os.path.dirname(np.__file__))  # .../site-packages
SEED = 20240312

# ----------------------------------------------------------------------------------------------------------
# per-run identity (formatting only)
META = {
    "run01": dict(user="mkovacs", entity="wearables-lab", home="/home/mkovacs/sensor-activity", host="ws-mkovacs",
                  repo="git@github.com:wearables-lab/sensor-activity.git", commit="8e1c0a4f2b7d93e51a06c2d4f8b9e7a1c3d5f602",
                  hw="CPU count 12 | GPU count 1 | GPU type NVIDIA GeForce RTX 3060", pyexe="/home/mkovacs/.venvs/torch/bin/python"),
    "run02": dict(user="r.iyer", entity="neuro-hci", home="/home/riyer/emg-trainer", host="lab-gpu-02",
                  repo="git@gitlab.com:neuro-hci/emg-trainer.git", commit="b41f7c29e0d8a3b5c6e7f8091a2b3c4d5e6f7081",
                  hw="CPU count 32 | GPU count 2 | GPU type NVIDIA RTX A5000"),
    "run03": dict(user="tanvi_s", entity="tanvi_s", home="/home/tanvi/har", host="tanvi-laptop",
                  repo="https://github.com/tanvi-s/har-imu.git", commit="3a9d0e1f4c5b6a7980e1d2c3b4a5968778695a4b",
                  hw="CPU count 8 | GPU count 1 | GPU type NVIDIA GeForce RTX 4060 Laptop GPU", pyexe="/usr/bin/python3"),
    "run04": dict(user="jb", entity="spectroscopy-ml", home="/scratch/jb/raman", host="gpu-a40-117.cluster.local",
                  repo="git@github.com:spectroscopy-ml/raman-cls.git", commit="c0ffee12d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8",
                  hw="CPU count 16 | GPU count 1 | GPU type NVIDIA A40"),
    "run05": dict(user="osei.k", entity="agri-vision", home="/home/kosei/leafnet", host="dgx-01",
                  repo="git@github.com:agri-vision/leafnet.git", commit="77aa0b3c9d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6",
                  hw="CPU count 128 | GPU count 8 | GPU type NVIDIA A100-SXM4-80GB"),
    "run06": dict(user="lmoreau", entity="logistics-ds", home="/home/lmoreau/eta", host="ip-10-42-7-19",
                  repo="git@github.com:logistics-ds/eta-model.git", commit="5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80",
                  hw="CPU count 8 | GPU count 1 | GPU type NVIDIA T4"),
    "run07": dict(user="p.nowak", entity="shopcat", home="/home/pnowak/catalog", host="ml-batch-4",
                  repo="git@github.com:shopcat/categorizer.git", commit="0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"),
    "run08": dict(user="svc-retrain", entity="risk-ml", home="/opt/jobs/fraud-scoring", host="retrain-worker-3",
                  repo="git@github.com:risk-ml/fraud-scoring.git", commit="9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
                  hw="CPU count 16 | GPU count 0", pyexe="/opt/jobs/fraud-scoring/.venv/bin/python"),
    "run09": dict(user="dana.w", entity="growth-analytics", home="/home/dana/churn-nn", host="dana-mbp.local",
                  repo="https://github.com/growth-analytics/churn-nn.git", commit="1234abcd5678ef901234abcd5678ef901234abcd",
                  hw="CPU count 10 | GPU count 0", os="macOS-14.4.1-arm64-arm-64bit", pyexe="/opt/homebrew/bin/python3"),
    "run10": dict(user="hwang", entity="fab-inspection", home="/data/hwang/defect-cls", host="inspect-gpu-1",
                  repo="git@github.com:fab-inspection/defect-classifier.git", commit="aa55bb66cc77dd88ee99ff00112233445566778a",
                  hw="CPU count 24 | GPU count 1 | GPU type NVIDIA RTX A6000"),
    "run11": dict(user="ftorres", entity="ftorres", home="/home/ftorres/urban-sound", host="colab-vm",
                  repo="https://github.com/ftorres/urban-sound.git", commit="e3b0c44298fc1c149afbf4c8996fb92427ae41e4",
                  hw="CPU count 2 | GPU count 1 | GPU type Tesla T4", pyexe="/usr/bin/python3"),
    "run12": dict(user="yuki_m", entity="yuki_m", home="/home/yuki/kws", host="yuki-desktop",
                  repo="https://github.com/yuki-m/gesture-kws.git", commit="4b825dc642cb6eb9a060e54bf8d69288fbee4904",
                  hw="CPU count 16 | GPU count 1 | GPU type NVIDIA GeForce RTX 3090"),
}
NAMES = {  # (run name, run id) per launched process key
    "run01": ("brisk-wave-12", "3kq9x2ab"),
    "run02_v1": ("fiery-dawn-58", "p0w3m1ks"), "run02_v2": ("stellar-sun-71", "x8c2n5rv"),
    "run03": ("fresh-meadow-9", "a7d2k4qz"),
    "run04": ("resmlp-w128-d3", "h4n8b2t6"),
    "run05_train": ("olive-forest-33", "t2r9w6yq"), "run05_eval": ("eval-best-val", "e5v1l8qa"),
    "run06_fp32": ("eta-mlp-fp32", "f32b7k1m"), "run06_fp16": ("eta-mlp-amp", "f16c3z9p"),
    "run07": ("sweet-plasma-104", "c4t9g2lk"),
    "run08": ("nightly-2024-06-04", "nt8q1w3e"),
    "run09": ("glowing-river-5", "ch8r2n4x"),
    "run10": ("wobbly-cloud-27", "df3c7a0s"),
    "run11": ("dazzling-pine-14", "us7n2d9k"),
    "run12": ("golden-moon-40", "kw5s8x2c"),
}
START = {  # fake wall-clock start of each process (UTC epoch seconds)
    "run01": 1710234862, "run02_v1": 1709286112, "run02_v2": 1711108021, "run03": 1712503417,
    "run04": 1713859230, "run05_train": 1714039201, "run05_eval": 1714123377, "run06_fp32": 1714645503,
    "run06_fp16": 1714646711, "run07": 1716822190, "run08": 1717466402, "run09": 1714727711,
    "run10": 1715590004, "run11": 1716201337, "run12": 1717930111,
}


def savez(path, **arrs):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez(path, **arrs)


def copy_scripts(run, w, files, rename=None):
    rename = rename or {}
    for f in files:
        dst = os.path.join(w, rename.get(f, f))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(os.path.join(SUP, "scripts", run, f), dst)


# ----------------------------------------------------------------------------------------------------------
# data + scripts for every run (all seeded)
def prep(run, w):
    if run == "run01":
        x, y = D.gmm_classification(10000, 32, 10, seed=101, sep=0.8, sub=4)
        savez(f"{w}/data/train.npz", x=x[:8000], y=y[:8000]); savez(f"{w}/data/val.npz", x=x[8000:], y=y[8000:])
        copy_scripts(run, w, ["train.py", "config.yaml"])
    elif run == "run02":
        x, y = D.gmm_classification(10000, 48, 8, seed=202, sep=0.8, sub=4)
        x = x * 3.0 + 1.5
        savez(f"{w}/data/emg_v4/train.npz", x=x[:8000], y=y[:8000])
        savez(f"{w}/data/emg_v4/val.npz", x=x[8000:], y=y[8000:])
        copy_scripts(run, w, ["train.py", "train_v1.py", "config.yaml"], {"config.yaml": "configs/emg_sgd.yaml"})
    elif run == "run03":
        x, y = D.gmm_classification(7200, 40, 6, seed=303, sep=0.6, sub=3)
        names = ["walking", "jogging", "upstairs", "downstairs", "sitting", "standing"]
        for split in ("train", "val"):
            os.makedirs(f"{w}/data/har_windows/{split}", exist_ok=True)
        for k, nm in enumerate(names):
            xk = x[y == k]
            nv = len(xk) // 6
            np.save(f"{w}/data/har_windows/val/{nm}.npy", xk[:nv])
            np.save(f"{w}/data/har_windows/train/{nm}.npy", xk[nv:])
        copy_scripts(run, w, ["train.py"])
    elif run == "run04":
        x, y = D.gmm_classification(8400, 64, 12, seed=404, sep=0.38, sub=4)
        savez(f"{w}/data/spectra_train.npz", x=x[:6400], y=y[:6400])
        savez(f"{w}/data/spectra_val.npz", x=x[6400:], y=y[6400:])
        copy_scripts(run, w, ["train.py", "config.yaml"], {"config.yaml": "configs/spectra.yaml"})
    elif run == "run05":
        x, y = D.gmm_classification(10000, 64, 10, seed=505, sep=0.55, sub=3)
        x = x * 12 + 40
        savez(f"{w}/data/leaf_features/train.npz", x=x[:8000], y=y[:8000])
        savez(f"{w}/data/leaf_features/val.npz", x=x[8000:], y=y[8000:])
        copy_scripts(run, w, ["train.py", "eval.py", "model.py"])
    elif run == "run06":
        x, y = D.delivery_regression(20000, seed=606)
        savez(f"{w}/data/eta_2024q1.npz", x=x, y=y)
        copy_scripts(run, w, ["train.py", "config_fp16.yaml", "config_fp32.yaml"],
                     {"config_fp16.yaml": "configs/eta_amp.yaml", "config_fp32.yaml": "configs/eta.yaml"})
    elif run == "run07":
        x, y = D.gmm_classification(15000, 64, 20, seed=707, sep=1.0, sub=2)
        y = y.copy(); y[[9270, 13311]] = 20
        savez(f"{w}/data/catalog_emb_2024-05-27.npz", x=x, y=y)
        copy_scripts(run, w, ["train.py", "config.yaml"])
    elif run == "run08":
        x, y = D.gmm_classification(10241, 30, 2, seed=808, sep=0.9, sub=4)
        savez(f"{w}/data/txn_features_2024-06-03.npz", x=x, y=y)
        copy_scripts(run, w, ["train.py", "config.yaml"])
    elif run == "run09":
        cols, churn = D.churn_table(12500, seed=909)
        savez(f"{w}/data/crm_snapshot_2024_04.npz", churned_90d=churn, **cols)
        copy_scripts(run, w, ["train.py", "tabio.py", "config.yaml"])
    elif run == "run10":
        x, y = D.gmm_classification(8000, 32, 10, seed=1010, sep=0.9, sub=3)
        rng = np.random.default_rng(1011)
        ytr = y[:6000].copy()
        flip = rng.random(6000) < 0.4
        ytr[flip] = (ytr[flip] + rng.integers(1, 10, flip.sum())) % 10
        savez(f"{w}/data/wafer_feats_train_v3.npz", x=x[:6000], y=ytr)
        savez(f"{w}/data/wafer_feats_val_v3.npz", x=x[6000:], y=y[6000:])
        copy_scripts(run, w, ["train.py", "config.yaml"])
    elif run == "run11":
        x, y = D.gmm_classification(10000, 64, 10, seed=1111, sep=0.5, sub=4)
        savez(f"{w}/data/audio_embeddings/train.npz", x=x[:8000], y=y[:8000])
        savez(f"{w}/data/audio_embeddings/val.npz", x=x[8000:], y=y[8000:])
        copy_scripts(run, w, ["train.py"])
    elif run == "run12":
        x, y = D.gmm_classification(10000, 40, 12, seed=1212, sep=0.9, sub=3)
        savez(f"{w}/data/train.npz", x=x[:8000], y=y[:8000]); savez(f"{w}/data/val.npz", x=x[8000:], y=y[8000:])
        copy_scripts(run, w, ["train.py"])


# the processes each run launches: (key, argv, extra env)
CMDS = {
    "run01": [("run01", ["train.py", "--config", "config.yaml"], {})],
    "run02": [("run02_v1", ["train_v1.py", "--config", "configs/emg_sgd.yaml"], {}),
              ("run02_v2", ["train.py", "--config", "configs/emg_sgd.yaml"], {})],
    "run03": [("run03", ["train.py"], {})],
    "run04": [("run04", ["train.py", "--config", "configs/spectra.yaml", "--wandb-id", "h4n8b2t6"],
               {"FAKE_WANDB_PREEMPT_AT_STEP": "650"}),
              ("run04", ["train.py", "--config", "configs/spectra.yaml", "--resume",
                         "checkpoints/resmlp_w128/last.pt", "--wandb-id", "h4n8b2t6"], {"FAKE_WANDB_GAP": "1417"})],
    "run05": [("run05_train", ["train.py"], {}), ("run05_eval", ["eval.py"], {})],
    "run06": [("run06_fp32", ["train.py", "--config", "configs/eta.yaml", "--name", "eta-mlp-fp32"], {}),
              ("run06_fp16", ["train.py", "--config", "configs/eta_amp.yaml", "--name", "eta-mlp-amp"], {})],
    "run07": [("run07", ["train.py", "--config", "config.yaml"], {})],
    "run08": [("run08", ["train.py", "--config", "config.yaml"], {})],
    "run09": [("run09", ["train.py"], {})],
    "run10": [("run10", ["train.py"], {})],
    "run11": [("run11", ["train.py"], {})],
    "run12": [("run12", ["train.py"], {})],
}


def scrub(text, run, w):
    """make paths look like the user's machine (formatting only)"""
    home = META[run]["home"]
    text = text.replace(SITE, "/usr/local/lib/python3.11/site-packages")
    text = text.replace(w, home)
    text = text.replace(PY, META[run].get("pyexe", "/opt/conda/bin/python"))
    return text


def execute(run):
    w = os.path.join(WORK, run)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(os.path.join(w, "wandb_rec"))
    prep(run, w)
    outs = []
    for key, argv, extra in CMDS[run]:
        name, rid = NAMES[key]
        m = META[run]
        env = dict(os.environ, PYTHONPATH=SUP, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1",
                   PYTHONHASHSEED="0", FAKE_WANDB_DIR=os.path.join(w, "wandb_rec"), FAKE_WANDB_NAME=name,
                   FAKE_WANDB_ID=rid, FAKE_WANDB_START=str(START[key]), FAKE_WANDB_ENTITY=m["entity"],
                   FAKE_WANDB_USER=m["user"], FAKE_WANDB_HOME=m["home"], **extra)
        t0 = time.time()
        p = subprocess.run([PY] + argv, cwd=w, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        outs.append({"key": key, "rc": p.returncode, "console": scrub(p.stdout, run, w), "wall": time.time() - t0})
    recs = {}
    for f in os.listdir(os.path.join(w, "wandb_rec")):
        with open(os.path.join(w, "wandb_rec", f)) as fh:
            r = json.load(fh)
        recs[r["id"]] = r
    return run, outs, recs


# ----------------------------------------------------------------------------------------------------------
def write(run, fname, text):
    path = os.path.join(RUNS, run, fname)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def src(run, f):
    with open(os.path.join(SUP, "scripts", run, f)) as fh:
        return fh.read()


def rec_of(recs, key):
    return recs[NAMES[key][1]]


def meta_for(run, command, **kw):
    m = dict(META[run])
    m.update(author=m["user"], command=command, **kw)
    return m


def strip_banner(console):
    """console without the wandb client's banner lines (what output.log in the Files tab holds)"""
    return "\n".join(l for l in console.split("\n") if not l.startswith("wandb: ")) 


def fmt_hist_value(v, nd=4):
    v = P.nf(v)
    return "nan" if v != v else f"{v:.{nd}f}"




try:
    import render  # noqa: E402  (gen_support/render.py: one function per run)
except ImportError:
    render = None


def main():
    t_start = time.time()
    only = None
    if "--exec-only" in sys.argv:  # debugging aid: run some trainings and keep their records
        only = sys.argv[sys.argv.index("--exec-only") + 1].split(",")
        with cf.ThreadPoolExecutor(max_workers=2) as ex:
            for run, outs, recs in ex.map(execute, only):
                json.dump([outs, recs], open(os.path.join(WORK, f"{run}.json"), "w"))
                print(f"{run}: " + ", ".join(f"{o['key']} rc={o['rc']} {o['wall']:.1f}s" for o in outs), flush=True)
        return
    shutil.rmtree(RUNS, ignore_errors=True)
    os.makedirs(RUNS)
    order = ["run10", "run04", "run06", "run02", "run01", "run03", "run05", "run11", "run12", "run09", "run07", "run08"]
    results = {}
    with cf.ThreadPoolExecutor(max_workers=2) as ex:
        for run, outs, recs in ex.map(execute, order):
            results[run] = (outs, recs)
            print(f"{run}: " + ", ".join(f"{o['key']} rc={o['rc']} {o['wall']:.1f}s" for o in outs), flush=True)
    truth = {}
    for run in sorted(results):
        outs, recs = results[run]
        truth[run] = getattr(render, run)(run, outs, recs, sys.modules[__name__])
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2, ensure_ascii=False)
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"done in {time.time() - t_start:.1f}s")


if __name__ == "__main__":
    main()
