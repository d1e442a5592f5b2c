#!/usr/bin/env python3
"""Generate 12 ML-debugging scenario runs (forum/chat posts in fa/th/sv/cs/el) by really training
small torch models on CPU. Writes runs/run01..run12 and truth.json. Seeded; ~2-3 min on 1 core."""
import json, os, shutil, sys, time
import numpy as np
import torch

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_support import common as C
from gen_support import trainers as T
from gen_support import posts as P

RUNS = os.path.join(HERE, "runs")
WORK = os.path.join(HERE, "_work")
SCRIPTS = os.path.join(HERE, "gen_support", "scripts")


def workdir(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "data"))
    return d


def put_script(wd, src, dst):
    shutil.copy(os.path.join(SCRIPTS, src), os.path.join(wd, dst))
    return open(os.path.join(SCRIPTS, src), encoding="utf-8").read()


def main():
    t_all = time.time()
    shutil.rmtree(RUNS, ignore_errors=True)
    R = {}

    # run01: resume from checkpoint (weights only)
    wd = workdir("r01")
    sample, rng = C.teacher_data(101, 0, 32, 8, hidden=8, w1s=1.0)
    Xtr, ytr = sample(8000, rng); Xva, yva = sample(1500, rng)
    np.savez(f"{wd}/data/features.npz", X_train=Xtr, y_train=ytr, X_val=Xva, y_val=yva)
    src = put_script(wd, "r01_train.py", "train.py")
    saved = {"n": 0}

    def preempted(line):  # the SLURM job hit its time limit right after the 6th checkpoint
        if line.startswith("saved checkpoint"):
            saved["n"] += 1
        return saved["n"] == 6
    out1, _ = C.run_script(wd, "train.py", stream_until=preempted)
    out2, rc2 = C.run_script(wd, "train.py", ["--resume", "checkpoints/last.pt"])
    assert "(epoch 5)" in out2, out2[:300]
    R["r01"] = dict(src=src, out1=out1, out2=out2)

    # run02: per-batch standardisation, last batch of size 1
    wd = workdir("r02")
    sample, rng = C.blobs(202, 0, 24, 5, sep=0.9)
    X, y = sample(64 * 20 + 1, rng)
    scales = rng.uniform(0.5, 400, size=24).astype(np.float32)
    offs = rng.uniform(-50, 900, size=24).astype(np.float32)
    np.savez(f"{wd}/data/senzory_train.npz", X=X * scales + offs, y=y)
    src = put_script(wd, "r02_train.py", "train.py")
    out, rc = C.run_script(wd, "train.py")
    R["r02"] = dict(src=src, out=C.sanitize(out, wd, "/home/petr/projekty/senzory", "/home/petr/.venv/lib/python3.11/site-packages"), rc=rc)

    # run03: labels 1..10 with 10 classes
    wd = workdir("r03")
    sample, rng = C.blobs(303, 0, 16, 10, sep=1.2)
    X, y = sample(5000, rng)
    with open(f"{wd}/data/train.csv", "w") as f:
        f.write(",".join([f"f{i}" for i in range(16)] + ["label"]) + "\n")
        for xi, yi in zip(X, y + 1):
            f.write(",".join(f"{v:.5f}" for v in xi) + f",{yi}\n")
    put_script(wd, "r03_train.py", "train.py")
    out, rc = C.run_script(wd, "train.py")
    R["r03"] = dict(out=C.sanitize(out, wd, "/home/somchai/work/cls", "/home/somchai/miniconda3/envs/dl/lib/python3.11/site-packages"), rc=rc)

    # run04: ordered data, shuffle off
    R["r04"] = T.train_run04()

    # run05: softmax output + CrossEntropyLoss
    wd = workdir("r05")
    sample, rng = C.teacher_data(505, 0, 30, 10, hidden=8, w1s=0.8)
    xt, yt = sample(6000, rng); xv, yv = sample(1000, rng)
    np.savez(f"{wd}/data/dataset.npz", x_train=xt, y_train=yt, x_val=xv, y_val=yv)
    src = put_script(wd, "r05_train.py", "train.py")
    o_a, _ = C.run_script(wd, "train.py", ["--lr", "1e-3"])
    o_b, _ = C.run_script(wd, "train.py", ["--lr", "1e-2"])
    R["r05"] = dict(src=src, out_a=o_a, out_b=o_b)

    # run06: predict.py without model.eval()
    wd = workdir("r06")
    tr = T.train_run06(wd)
    src = put_script(wd, "r06_predict.py", "predict.py")
    p1, _ = C.run_script(wd, "predict.py", ["data/val.npz"], seed=61)
    p2, _ = C.run_script(wd, "predict.py", ["data/val.npz"], seed=62)
    R["r06"] = dict(train=tr, src=src, p1=p1, p2=p2)

    # run07: jittered copies before the split
    R["r07"] = T.train_run07()

    # run08: DataParallel checkpoint loaded with strict=False
    R["r08"] = T.train_run08(workdir("r08"))

    # run09: StepLR stepped per batch
    wd = workdir("r09")
    sample, rng = C.teacher_data(909, 0, 20, 12, hidden=8, w1s=0.9)
    Xtr, ytr = sample(5000, rng); Xva, yva = sample(1000, rng)
    np.savez(f"{wd}/data/shop_features.npz", X_train=Xtr, y_train=ytr, X_val=Xva, y_val=yva)
    src = put_script(wd, "r09_train.py", "train.py")
    out, rc = C.run_script(wd, "train.py")
    R["r09"] = dict(src=src, out=out)

    # run10: Adam weight_decay 5e-2, two widths
    R["r10"] = dict(h128=T.train_run10(128), h512=T.train_run10(512))

    # run11: healthy, dropout (val loss < train loss)
    wd = workdir("r11")
    sample, rng = C.teacher_data(1111, 0, 24, 7, hidden=6, w1s=0.8)
    Xtr, ytr = sample(8000, rng); Xva, yva = sample(1500, rng)
    np.savez(f"{wd}/data/train.npz", X=Xtr, y=ytr)
    np.savez(f"{wd}/data/val.npz", X=Xva, y=yva)
    src = put_script(wd, "r11_train.py", "train.py")
    out, rc = C.run_script(wd, "train.py")
    R["r11"] = dict(src=src, out=out)

    # run12: healthy, short
    R["r12"] = T.train_run12()

    truth = P.write_all(R, RUNS)
    with open(os.path.join(HERE, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, ensure_ascii=False, indent=2)
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"gen.py done in {time.time() - t_all:.1f}s")


if __name__ == "__main__":
    main()
