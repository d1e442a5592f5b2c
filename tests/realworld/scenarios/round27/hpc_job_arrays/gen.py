#!/usr/bin/env python3
"""Generate 12 SLURM-style ML-debugging runs from real (tiny, CPU) training runs.
Writes runs/runNN/ (user-visible files only) and truth.json. Seeded; run: .venv/bin/python gen.py"""
import datetime as dt, json, os, re, shutil, sys, time
import numpy as np

OUT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(OUT, "gen_support"))
from runner import run as _run  # noqa: E402
import slurm as S  # noqa: E402

SCRIPTS = os.path.join(OUT, "gen_support", "scripts")
RUNS = os.path.join(OUT, "runs")
WORK = os.path.join(OUT, ".work")
VENV = os.path.join(OUT, ".venv")
PY = os.path.join(VENV, "bin", "python") if os.path.exists(os.path.join(VENV, "bin", "python")) else sys.executable
T_START = time.time()
TRUTH = {}
BASE = dt.datetime(2024, 3, 4, 9, 12, 5)


# ---------------------------------------------------------------- helpers
def workdir(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "data"))
    return d


def rundir(name):
    d = os.path.join(RUNS, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def put_script(src, wd, dst=None):
    shutil.copy(os.path.join(SCRIPTS, src), os.path.join(wd, dst or src))


def scrub(text, wd, home, env="torch"):
    text = text.replace(VENV, f"/home/{home.split('/')[2]}/.conda/envs/{env}")
    text = text.replace(wd, home)
    text = text.replace(".venv/lib/", f"/home/{home.split('/')[2]}/.conda/envs/{env}/lib/")
    return text


def run(cmd, wd, **kw):
    r = _run(cmd, wd, PY, **kw)
    print(f"  ran {' '.join(cmd[1:3])}: rc={r['rc']} {r['elapsed']:.1f}s rss={r['maxrss_mb']:.0f}MB", flush=True)
    return r


def write(d, name, text):
    p = os.path.join(d, name)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def copy_user(wd, src, d, dst):
    shutil.copy(os.path.join(wd, src), os.path.join(d, dst))


def header(jobid, task, node, t, extra=""):
    tid = f"{jobid}_{task}" if task is not None else str(jobid)
    return (f"==== SLURM job {tid} on {node} ====\n"
            f"start: {S.date_line(t)}\n"
            f"SLURM_SUBMIT_DIR={{home}}\n" + extra)


def footer(t):
    return f"end: {S.date_line(t)}\n"


# ---------------------------------------------------------------- data
def teacher_data(seed, n_train=8000, n_val=2000, d=20, k=10, noise_temp=None):
    r = np.random.default_rng(seed)
    W1 = r.normal(0, 1, (d, 64)) / np.sqrt(d)
    W2 = r.normal(0, 1, (64, k)) / np.sqrt(64)
    X = r.normal(0, 1, (n_train + n_val, d)).astype(np.float32)
    logits = np.tanh(X @ W1) @ W2
    if noise_temp is None:
        y = logits.argmax(1)
    else:
        z = logits * noise_temp
        p = np.exp(z - z.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
        y = np.array([r.choice(k, p=pi) for pi in p])
    y = y.astype(np.int64)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def save_teacher(path, seed, **kw):
    a, b, c, d = teacher_data(seed, **kw)
    np.savez(path, x_train=a, y_train=b, x_val=c, y_val=d)
    return a, b, c, d


# ================================================================ run01 lr_schedule_bug
def run01():
    print("run01", flush=True)
    wd = workdir("run01"); rd = rundir("run01")
    home = "/home/mkoval/proj/tabmlp"
    save_teacher(os.path.join(wd, "data/teacher_k10.npz"), 11)
    put_script("train_sched.py", wd, "train.py")
    jobid, lrs, node = 8812345, [1e-3, 3e-3, 1e-2], "cpu-a17"
    t = BASE + dt.timedelta(days=2, hours=5)
    sacct_rows = []
    for i, lr in enumerate(lrs):
        r = run(["PY", "train.py", "--lr", str(lr)], wd)
        t1 = t + dt.timedelta(seconds=r["elapsed"] + 3)
        out = header(jobid, i, node, t).format(home=home)
        out += f"python: {os.path.basename(PY)} 3.11 | torch 2.13.0 | lr={lr:g}\n"
        out += scrub(r["out"], wd, home) + footer(t1)
        write(rd, f"slurm-{jobid}_{i}.out", out)
        write(rd, f"slurm-{jobid}_{i}.err", S.LMOD_RELOAD.lstrip("\n") + scrub(r["err"], wd, home))
        sacct_rows += S.job_rows(f"{jobid}_{i}", "lr_sweep", "cpu", "COMPLETED", "0:0",
                                 r["maxrss_mb"] * 1024, r["elapsed"] + 3, node)
    write(rd, "sweep.sbatch", f"""#!/bin/bash
#SBATCH --job-name=lr_sweep
#SBATCH --partition=cpu
#SBATCH --array=0-2
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=02:00:00
#SBATCH --output=slurm-%A_%a.out
#SBATCH --error=slurm-%A_%a.err

module purge
module load GCCcore/12.3.0 Python/3.11.3-GCCcore-12.3.0
source ~/venvs/torch/bin/activate

LRS=(1e-3 3e-3 1e-2)
LR=${{LRS[$SLURM_ARRAY_TASK_ID]}}

echo "==== SLURM job ${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}} on $(hostname -s) ===="
echo "start: $(date)"
echo "SLURM_SUBMIT_DIR=$SLURM_SUBMIT_DIR"
echo "python: $(basename $(which python)) $(python -c 'import sys;print(".".join(map(str,sys.version_info[:2])))') | torch $(python -c 'import torch;print(torch.__version__)') | lr=$LR"

cd {home}
python train.py --lr $LR --epochs 8 --decay-epochs 3 --gamma 0.5
echo "end: $(date)"
""")
    copy_user(wd, "train.py", rd, "train.py")
    write(rd, "sacct.txt", f"$ sacct -j {jobid} --format=JobID,JobName,Partition,State,ExitCode,MaxRSS,Elapsed,NodeList\n"
          + S.sacct(sacct_rows))
    write(rd, "slack_message.txt", """#ml-help  (Slack, Monday)

mkoval: hey all, quick sanity check before I burn more allocation. I ran a 3-task array sweeping lr (1e-3, 3e-3, 1e-2) on the small tabular MLP, halving the lr every 3 epochs. All three tasks flatline after the first epoch at basically the same loss, even 1e-2. Is a 2x128 MLP just too small for this? I was going to ask for bigger nodes and go 4x512. logs + script attached
""")
    TRUTH["run01"] = {"truth": "lr_schedule_bug",
                      "symptom": "All three learning rates in my sweep flatline at about the same loss after the first epoch; is my 2x128 MLP just too small, should I go wider?",
                      "how": "train.py calls StepLR(step_size=3 'epochs', gamma=0.5).step() inside the batch loop, so the lr halves every 3 batches and is ~1e-20 after epoch 1; the logged lr= column collapses and loss/val_acc freeze in every task."}


# ================================================================ run02 data_leakage
def run02():
    print("run02", flush=True)
    wd = workdir("run02"); rd = rundir("run02")
    home = "/home/tnguyen/forecast"
    r0 = np.random.default_rng(22)
    n = 6000
    tt = np.arange(n)
    ar = np.zeros(n)
    for i in range(1, n):
        ar[i] = 0.8 * ar[i - 1] + r0.normal(0, 1.0)
    load = 50 + 10 * np.sin(2 * np.pi * tt / 24) + 4 * np.sin(2 * np.pi * tt / (24 * 7)) + 3 * ar
    np.savez(os.path.join(wd, "data/load_hourly.npz"), load=load.astype(np.float32))
    put_script("forecast.py", wd)
    r = run(["PY", "forecast.py"], wd)
    code = open(os.path.join(wd, "forecast.py")).read().splitlines()
    i0 = next(i for i, l in enumerate(code) if l.startswith("window = args.window"))
    snippet = "\n".join(code[i0:i0 + 6])
    jobid = 5520931
    write(rd, "slack_post.md", f"""**#forecasting-group** — tnguyen

Finally got the load forecaster running on the cluster (job {jobid}, `sbatch forecast.sbatch`, 1 node, cpu partition). Numbers look great right from epoch 1 and val MSE is even lower than train MSE. I guess that's just dropout making train look worse? If this is fine I'll launch the big sweep over window sizes tonight.

Windowing (24 h window, predict the next value):
```python
{snippet}
```

`slurm-{jobid}.out`:
```
{scrub(r['out'], wd, home).rstrip()}
```
""")
    TRUTH["run02"] = {"truth": "data_leakage",
                      "symptom": "Val MSE is lower than train MSE from the very first epoch; is that just dropout? If it's fine I'll launch the big sweep.",
                      "how": "The window series[t-window+1:t+1] includes series[t], the target itself, so the target leaks into the inputs; val MSE is tiny from epoch 1, below train, and ~100x below the persistence baseline printed in the log."}


# ================================================================ run03 nan_in_data
def run03():
    print("run03", flush=True)
    wd = workdir("run03"); rd = rundir("run03")
    home = "/scratch/ahmadi/churn"
    r0 = np.random.default_rng(33)
    w = r0.normal(0, 1, 24)
    for s in range(4):
        X = r0.normal(0, 1, (18000, 24)) * r0.uniform(0.5, 20, 24) + r0.uniform(-5, 50, 24)
        z = ((X - X.mean(0)) / X.std(0)) @ w / 3 + 0.5 * np.sin(((X - X.mean(0)) / X.std(0))[:, 0] * 2)
        y = (z + r0.logistic(0, 0.3, len(z)) > 0).astype(np.float32)
        if s == 2:
            rows = r0.choice(np.arange(1800, 18000), 3, replace=False)
            X[rows, 7] = np.nan
        np.savez(os.path.join(wd, f"data/shard_{s:02d}.npz"), x=X.astype(np.float32), y=y)
    put_script("train_tab.py", wd, "train.py")
    jobid, node_list = 7730211, ["cn041", "cn041", "cn052", "cn052"]
    t = BASE + dt.timedelta(days=5, hours=1, minutes=17)
    rows = []
    for s in range(4):
        r = run(["PY", "train.py", "--shard", f"data/shard_{s:02d}.npz", "--lr", "1e-3"], wd)
        out = header(jobid, s, node_list[s], t).format(home=home) + "lr=1e-3\n" + scrub(r["out"], wd, home)
        out += footer(t + dt.timedelta(seconds=r["elapsed"] + 2))
        write(rd, f"slurm-{jobid}_{s}.out", out)
        rows += S.job_rows(f"{jobid}_{s}", "churn_arr", "cpu", "COMPLETED", "0:0", r["maxrss_mb"] * 1024,
                           r["elapsed"] + 2, node_list[s])
    j2 = 7731877
    t2 = t + dt.timedelta(hours=3, minutes=41)
    r = run(["PY", "train.py", "--shard", "data/shard_02.npz", "--lr", "3e-4"], wd)
    out = header(j2, 2, "cn044", t2).format(home=home) + "lr=3e-4\n" + scrub(r["out"], wd, home)
    out += footer(t2 + dt.timedelta(seconds=r["elapsed"] + 2))
    write(rd, f"slurm-{j2}_2.out", out)
    rows += S.job_rows(f"{j2}_2", "churn_arr", "cpu", "COMPLETED", "0:0", r["maxrss_mb"] * 1024,
                       r["elapsed"] + 2, "cn044")
    write(rd, "sacct.txt", f"$ sacct -j {jobid},{j2} -o JobID,JobName,Partition,State,ExitCode,MaxRSS,Elapsed,NodeList\n" + S.sacct(rows))
    write(rd, "churn_array.sbatch", f"""#!/bin/bash
#SBATCH -J churn_arr
#SBATCH -p cpu
#SBATCH -a 0-3
#SBATCH -c 2
#SBATCH --mem=4G
#SBATCH -t 01:00:00
#SBATCH -o slurm-%A_%a.out

module load Python/3.11.3-GCCcore-12.3.0
source /scratch/ahmadi/envs/pt/bin/activate
LR=${{LR:-1e-3}}
SHARD=$(printf "data/shard_%02d.npz" $SLURM_ARRAY_TASK_ID)
echo "==== SLURM job ${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}} on $(hostname -s) ===="
echo "start: $(date)"
echo "SLURM_SUBMIT_DIR=$SLURM_SUBMIT_DIR"
echo "lr=$LR"
cd {home}
python train.py --shard $SHARD --lr $LR --epochs 3
echo "end: $(date)"
""")
    write(rd, "helpdesk_ticket.txt", f"""Subject: array task keeps producing NaN, others fine (jobs {jobid}, {j2})

Hi HPC support,

I'm training a small MLP on 4 data shards as a job array ({jobid}, tasks 0-3). Tasks 0, 1 and 3 are fine, but
task 2 turns into NaN in the first epoch, around the same step every time. I assumed the learning rate was too
high for that shard so I resubmitted only task 2 with LR=3e-4 (job {j2}) and it still goes NaN at the same place.
Do I need gradient clipping, or could something be wrong with the node (cn052)? Logs and sacct attached.

Thanks,
Reza Ahmadi
""")
    TRUTH["run03"] = {"truth": "nan_in_data",
                      "symptom": "Task 2 of my array goes NaN around the same step every time; I lowered the lr from 1e-3 to 3e-4 and it still blows up. Do I need gradient clipping, or is the node bad?",
                      "how": "shard_02 has 3 NaN cells in one feature column (the nan-aware scaler keeps them); loss and grad_norm are normal until the shuffled batch containing the first NaN row, then NaN forever, at the identical step for lr 1e-3 and 3e-4, while the other shards train fine."}


# ================================================================ run04 label_out_of_range
def run04():
    print("run04", flush=True)
    wd = workdir("run04"); rd = rundir("run04")
    home = "/home/lpetit/sites"
    r0 = np.random.default_rng(44)
    sites = ["siteA", "siteB", "siteC", "siteD"]
    W = r0.normal(0, 1, (12, 10))
    for s, name in enumerate(sites):
        X = r0.normal(0, 1, (5000, 12)) * 3 + 10
        y = ((X - 10) @ W + r0.normal(0, 1.5, (5000, 10))).argmax(1)
        if name == "siteD":
            y = y + 1   # this site's export codes classes 1..10
        hdr = ",".join([f"f{j}" for j in range(12)] + ["label"])
        np.savetxt(os.path.join(wd, f"data/{name}.csv"), np.column_stack([X, y]), delimiter=",",
                   header=hdr, comments="", fmt=["%.4f"] * 12 + ["%d"])
    put_script("train_site.py", wd, "train_site.py")
    jobid, node = 6604418, "c3-07"
    t = BASE + dt.timedelta(days=9, hours=6, minutes=2)
    rows = []
    for s, name in enumerate(sites):
        r = run(["PY", "train_site.py", "--csv", f"data/{name}.csv"], wd)
        state, ec = ("COMPLETED", "0:0") if r["rc"] == 0 else ("FAILED", f"{r['rc']}:0")
        rows += S.job_rows(f"{jobid}_{s}", "sites", "short", state, ec, r["maxrss_mb"] * 1024, r["elapsed"] + 1, node)
        if s in (0, 3):
            out = f"[{S.iso(t)}] task {s} site={name} host={node}\n" + scrub(r["out"], wd, home)
            if r["rc"] == 0:
                out += f"[{S.iso(t + dt.timedelta(seconds=r['elapsed'] + 1))}] done\n"
            write(rd, f"slurm-{jobid}_{s}.out", out)
            write(rd, f"slurm-{jobid}_{s}.err", scrub(r["err"], wd, home))
    write(rd, "sites.sbatch", f"""#!/bin/bash
#SBATCH --job-name=sites
#SBATCH --partition=short
#SBATCH --array=0-3
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=00:30:00
#SBATCH --output=slurm-%A_%a.out
#SBATCH --error=slurm-%A_%a.err

SITES=(siteA siteB siteC siteD)
SITE=${{SITES[$SLURM_ARRAY_TASK_ID]}}
module load PyTorch/2.1.2-foss-2023a
echo "[$(date +%Y-%m-%dT%H:%M:%S)] task $SLURM_ARRAY_TASK_ID site=$SITE host=$(hostname -s)"
cd {home}
srun python train_site.py --csv data/$SITE.csv
echo "[$(date +%Y-%m-%dT%H:%M:%S)] done"
""")
    write(rd, "sacct.txt", S.sacct(rows))
    write(rd, "ticket.txt", f"""From: Lea Petit
To: hpc-support
Subject: job array {jobid}: task 3 fails, tasks 0-2 ok

Hello, same script and same sbatch for all four sites, but task 3 (siteD) dies right at the start with an
IndexError while siteA-C train normally. The CSV loads fine (rows/columns printed in the log). Attached: .out/.err
of task 0 and task 3, the sbatch and sacct. Any idea?
""")
    TRUTH["run04"] = {"truth": "label_out_of_range",
                      "symptom": "Task 3 of my array dies right at the start with an IndexError while the other three sites train fine with the same script.",
                      "how": "siteD.csv stores classes 1..10 instead of 0..9; num_classes = len(unique) = 10, so cross_entropy raises 'Target 10 is out of bounds' on the first batch (traceback in slurm-*_3.err); the other sites use 0..9."}


# ================================================================ run05 zero_variance_statistic
def run05():
    print("run05", flush=True)
    wd = workdir("run05"); rd = rundir("run05")
    home = "/home/oyelaran/bnexp"
    bss = [32, 48, 64, 96]
    n = next(n for n in range(9000, 11000) if n % 48 == 1 and all(n % b not in (0, 1) for b in (32, 64, 96)))
    a, b, c, d = teacher_data(55, n_train=n, n_val=2000, d=32)
    np.savez(os.path.join(wd, "data/features.npz"), x_train=a, y_train=b, x_val=c, y_val=d)
    put_script("train_bn.py", wd, "train.py")
    jobid = 3390152
    nodes = ["gpu-r2n1", "gpu-r2n1", "gpu-r2n3", "gpu-r2n3"]
    t = BASE + dt.timedelta(days=12, hours=11, minutes=40)
    rows = []
    for i, bs in enumerate(bss):
        r = run(["PY", "train.py", "--batch-size", str(bs)], wd)
        st, ec = ("COMPLETED", "0:0") if r["rc"] == 0 else ("FAILED", f"{r['rc']}:0")
        rows += S.job_rows(f"{jobid}_{i}", "bn_bs", "gpu", st, ec, r["maxrss_mb"] * 1024, r["elapsed"] + 2, nodes[i])
        out = header(jobid, i, nodes[i], t).format(home=home) + f"BATCH_SIZE={bs}\n" + scrub(r["out"], wd, home)
        if r["rc"] == 0:
            out += footer(t + dt.timedelta(seconds=r["elapsed"] + 2))
        write(rd, f"slurm-{jobid}_{i}.out", out)
        if r["err"].strip():
            write(rd, f"slurm-{jobid}_{i}.err", scrub(r["err"], wd, home))
    write(rd, "bs_sweep.sbatch", f"""#!/bin/bash
#SBATCH --job-name=bn_bs
#SBATCH --partition=gpu
#SBATCH --gres=gpu:1
#SBATCH --array=0-3
#SBATCH --cpus-per-task=4
#SBATCH --mem=16G
#SBATCH --time=04:00:00
#SBATCH --output=slurm-%A_%a.out
#SBATCH --error=slurm-%A_%a.err

BS_LIST=(32 48 64 96)
BATCH_SIZE=${{BS_LIST[$SLURM_ARRAY_TASK_ID]}}
module load cuda/12.1 miniconda3
conda activate bn
echo "==== SLURM job ${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}} on $(hostname -s) ===="
echo "start: $(date)"
echo "SLURM_SUBMIT_DIR=$SLURM_SUBMIT_DIR"
echo "BATCH_SIZE=$BATCH_SIZE"
cd {home}
python train.py --batch-size $BATCH_SIZE --epochs 3
echo "end: $(date)"
""")
    write(rd, "sacct.txt", S.sacct(rows))
    write(rd, "slack_message.txt", f"""@channel anyone seen this? batch-size sweep {jobid}: the bs=48 task dies with a ValueError right at the end of the first epoch, 32/64/96 all run through. Same code, same data. What's different about 48?? logs attached
""")
    TRUTH["run05"] = {"truth": "zero_variance_statistic",
                      "symptom": "Only the batch_size=48 task crashes, right at the end of the first epoch; 32/64/96 run through with the same code and data. What's different about 48?",
                      "how": f"{n} training samples with drop_last=False leave a final batch of exactly 1 sample only for bs=48; BatchNorm1d in train mode raises 'Expected more than 1 value per channel when training' at the last step of epoch 1 (steps/epoch and traceback in the logs)."}


# ================================================================ run06 host_oom
def run06():
    print("run06", flush=True)
    wd = workdir("run06"); rd = rundir("run06")
    home = "/home/bschulz/spec_ae"
    r0 = np.random.default_rng(66)
    D, N = 2048, 16000
    grid = np.linspace(0, 1, D)
    centers = r0.uniform(0.05, 0.95, 12)
    basis = np.exp(-((grid[None, :] - centers[:, None]) ** 2) / (2 * 0.01 ** 2))
    amps = r0.gamma(2.0, 1.0, (N, 12))
    X = (amps @ basis + r0.normal(0, 0.05, (N, D))).astype(np.float32)
    np.save(os.path.join(wd, "data/spectra.npy"), X)
    del X
    put_script("train_ae.py", wd, "train.py")
    limit_mb = 2048
    r = run(["PY", "train.py", "--epochs", "10"], wd, mem_limit_mb=limit_mb)
    jobid, node = 2209871, "node0342"
    t = BASE + dt.timedelta(days=15, hours=13, minutes=5)
    t1 = t + dt.timedelta(seconds=r["elapsed"] + 1)
    out = header(jobid, None, node, t).format(home=home)
    out += f"CPUS={8} MEM={limit_mb}M\n" + scrub(r["out"], wd, home)
    err = scrub(r["err"], wd, home)
    if r["killed"] == "OUT_OF_MEMORY":
        err += (f"/var/spool/slurmd/job{jobid}/slurm_script: line 17: {r0.integers(20000, 90000)} Killed"
                f"                  python train.py --epochs 10\n"
                f"slurmstepd: error: Detected 1 oom_kill event in StepId={jobid}.batch. "
                f"Some of your processes may have been killed by the cgroup out-of-memory handler.\n")
        st, ec = "OUT_OF_MEMORY", "0:125"
    else:
        st, ec = ("COMPLETED", "0:0")
    write(rd, f"slurm-{jobid}.out", out)
    write(rd, f"slurm-{jobid}.err", err)
    copy_user(wd, "train.py", rd, "train.py")
    write(rd, "train_ae.sbatch", f"""#!/bin/bash
#SBATCH --job-name=spec_ae
#SBATCH --partition=standard
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=8
#SBATCH --mem={limit_mb}M
#SBATCH --time=06:00:00
#SBATCH --output=slurm-%j.out
#SBATCH --error=slurm-%j.err

module load anaconda3/2023.09
source activate torch
echo "==== SLURM job $SLURM_JOB_ID on $(hostname -s) ===="
echo "start: $(date)"
echo "SLURM_SUBMIT_DIR=$SLURM_SUBMIT_DIR"
echo "CPUS=$SLURM_CPUS_PER_TASK MEM=${{SLURM_MEM_PER_NODE}}M"
cd {home}
python train.py --epochs 10
echo "end: $(date)"
""")
    rows = [dict(JobID=str(jobid), JobName="spec_ae", Partition="standard", State=st, ExitCode=ec, MaxRSS="",
                 Elapsed=S.hms(r["elapsed"] + 1), NodeList=node),
            dict(JobID=f"{jobid}.batch", JobName="batch", Partition="", State=st, ExitCode=ec,
                 MaxRSS=f"{int(r['maxrss_mb'] * 1024)}K", Elapsed=S.hms(r["elapsed"] + 1), NodeList=node),
            dict(JobID=f"{jobid}.extern", JobName="extern", Partition="", State="COMPLETED", ExitCode="0:0",
                 MaxRSS="0", Elapsed=S.hms(r["elapsed"] + 1), NodeList=node)]
    write(rd, "sacct.txt", S.sacct(rows))
    write(rd, "seff.txt", f"$ seff {jobid}\n" + S.seff(jobid, None, "bschulz", "physchem", st, ec.split(":")[1] if st != "OUT_OF_MEMORY" else 0,
                                                      8, r["cpu_s"], r["elapsed"] + 1, r["maxrss_mb"], limit_mb / 1024))
    write(rd, "ticket.txt", f"""Subject: job {jobid} killed without error message

Dear HPC team,

my autoencoder job ({jobid}) on node0342 stops after a couple of epochs. There is no Python traceback, the .out
just ends in the middle of an epoch. I requested 2 GB which should be plenty for a model with ~1M parameters and
a 128 MB dataset, and I already use num_workers=0. Is there a problem with the node or the filesystem? I attached
the script, output, sacct and seff.

Best regards,
Benedikt Schulz
""")
    TRUTH["run06"] = {"truth": "host_oom",
                      "symptom": "My autoencoder job stops after a couple of epochs with no Python traceback, the .out just ends; 2 GB should be plenty. Is something wrong with the node or filesystem?",
                      "how": "recons/targets lists are created once before the epoch loop and every batch output is appended and torch.cat'ed each epoch, so host RAM grows epoch after epoch until the 2G cgroup limit: the process was really SIGKILLed at the limit (oom_kill line, State OUT_OF_MEMORY, MaxRSS at the limit)."}


# ================================================================ run07 distributed_hang
def run07():
    print("run07", flush=True)
    wd = workdir("run07"); rd = rundir("run07")
    home = "/home/jrivera/ddp_mlp"
    a, b, c, d = teacher_data(77, n_train=7937, n_val=2000)
    np.savez(os.path.join(wd, "data/teacher_k10.npz"), x_train=a, y_train=b, x_val=c, y_val=d)
    put_script("train_ddp.py", wd, "train_ddp.py")
    t = dt.datetime.now().replace(microsecond=0)
    r = run(["PY", "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", "train_ddp.py"], wd)
    jobid, node = 4120087, "cn-c12"
    out = header(jobid, None, node, t).format(home=home)
    out += "MASTER_ADDR=cn-c12 NPROC=2 backend=gloo\n" + scrub(r["out"], wd, home)
    err = scrub(r["err"], wd, home).replace("host      : " + os.uname().nodename, "host      : " + node)
    err = err.replace("localhost", node)
    err += f"srun: error: {node}: task 0: Exited with exit code 1\n"
    write(rd, f"slurm-{jobid}.out", out)
    write(rd, f"slurm-{jobid}.err", err)
    copy_user(wd, "train_ddp.py", rd, "train_ddp.py")
    write(rd, "ddp.sbatch", f"""#!/bin/bash
#SBATCH --job-name=ddp_mlp
#SBATCH --partition=cpu
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=01:00:00
#SBATCH --output=slurm-%j.out
#SBATCH --error=slurm-%j.err

module load PyTorch/2.1.2-foss-2023a
echo "==== SLURM job $SLURM_JOB_ID on $(hostname -s) ===="
echo "start: $(date)"
echo "SLURM_SUBMIT_DIR=$SLURM_SUBMIT_DIR"
echo "MASTER_ADDR=$(hostname -s) NPROC=2 backend=gloo"
cd {home}
srun torchrun --standalone --nproc_per_node=2 train_ddp.py
""")
    rows = S.job_rows(str(jobid), "ddp_mlp", "cpu", "FAILED", "1:0", r["maxrss_mb"] * 1024, r["elapsed"] + 1, node)
    rows.insert(2, dict(JobID=f"{jobid}.0", JobName="torchrun", Partition="", State="FAILED", ExitCode="1:0",
                        MaxRSS=f"{int(r['maxrss_mb'] * 1024)}K", Elapsed=S.hms(r["elapsed"]), NodeList=node))
    write(rd, "sacct.txt", S.sacct(rows))
    write(rd, "ticket.txt", f"""Subject: torchrun job {jobid} crashes with gloo error

Hi, my 2-process torchrun job on the cpu partition crashes at the end of the first epoch with a gloo error in
the .err file. When I run the same script as a single process it trains fine. Script, sbatch and logs attached,
I don't know what to make of the error. Thanks, Javier
""")
    TRUTH["run07"] = {"truth": "distributed_hang",
                      "symptom": "My 2-process torchrun job crashes at the end of the first epoch with a gloo error; single-process it trains fine.",
                      "how": "Each rank takes np.array_split of the data, so rank 0 gets one more batch per epoch than rank 1; rank 1 reaches the epoch-end all_reduce while rank 0 is still in the DDP gradient all_reduce, a collective mismatch: real gloo 'Received data size doesn't match expected size. Is there a distributed collective mismatch' then torchrun ChildFailedError."}


# ================================================================ run08 resume_mismatch
def run08():
    print("run08", flush=True)
    wd = workdir("run08"); rd = rundir("run08")
    home = "/home/skaur/mlp12"
    save_teacher(os.path.join(wd, "data/teacher_k10.npz"), 88, n_train=16000)
    put_script("train_resume.py", wd, "train.py")
    r1 = run(["PY", "train.py", "--epochs", "20"], wd, stop_when=lambda l: l.startswith("epoch 15 step  40"))
    r2 = run(["PY", "train.py", "--epochs", "20"], wd)
    j1, j2, node1, node2 = 9034411, 9035502, "cpu-b04", "cpu-b11"
    t = BASE + dt.timedelta(days=20, hours=22, minutes=3)
    tlim = r1.get("elapsed", 0)
    out1 = header(j1, None, node1, t).format(home=home) + scrub(r1["out"], wd, home)
    t_kill = t + dt.timedelta(seconds=tlim)
    err1 = S.LMOD_RELOAD.lstrip("\n") + scrub(r1["err"], wd, home)
    err1 += f"slurmstepd: error: *** JOB {j1} ON {node1} CANCELLED AT {S.iso(t_kill)} DUE TO PREEMPTION ***\n"
    t2 = t_kill + dt.timedelta(minutes=47)
    out2 = header(j2, None, node2, t2).format(home=home) + scrub(r2["out"], wd, home)
    out2 += footer(t2 + dt.timedelta(seconds=r2["elapsed"] + 1))
    write(rd, f"slurm-{j1}.out", out1)
    write(rd, f"slurm-{j1}.err", err1)
    write(rd, f"slurm-{j2}.out", out2)
    copy_user(wd, "train.py", rd, "train.py")
    write(rd, "train.sbatch", f"""#!/bin/bash
#SBATCH --job-name=mlp12
#SBATCH --partition=preempt
#SBATCH --qos=scavenger
#SBATCH --cpus-per-task=4
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=slurm-%j.out
#SBATCH --error=slurm-%j.err

module load Python/3.11.3-GCCcore-12.3.0
source ~/envs/pt213/bin/activate
echo "==== SLURM job $SLURM_JOB_ID on $(hostname -s) ===="
echo "start: $(date)"
echo "SLURM_SUBMIT_DIR=$SLURM_SUBMIT_DIR"
cd {home}
# picks up checkpoints/last.pt automatically if it exists
python train.py --epochs 20 --lr 3e-3
echo "end: $(date)"
""")
    rows = S.job_rows(str(j1), "mlp12", "preempt", "PREEMPTED", "0:0", r1["maxrss_mb"] * 1024, tlim, node1,
                      batch_state="CANCELLED", batch_exit="0:15")
    rows += S.job_rows(str(j2), "mlp12", "preempt", "COMPLETED", "0:0", r2["maxrss_mb"] * 1024, r2["elapsed"] + 1, node2)
    write(rd, "sacct.txt", S.sacct(rows))
    write(rd, "slack_message.txt", f"""#hpc-users  skaur:
my run {j1} on the scavenger partition got preempted in epoch 15, so I just resubmitted the same sbatch ({j2}); it picks up checkpoints/last.pt. But after the restart the loss jumps way back up and the final val acc is worse than what I had before the kill. Did the checkpoint get corrupted when SLURM killed the job mid-write? Should I add --signal and save on SIGTERM?
""")
    TRUTH["run08"] = {"truth": "resume_mismatch",
                      "symptom": "After my job got preempted and I resubmitted it, the loss jumps way back up; did the checkpoint get corrupted when SLURM killed the job?",
                      "how": "On resume train.py restores only the model weights and epoch; the AdamW state and the per-step cosine LambdaLR restart from step 0, so the logged lr jumps from its decayed value back to 3e-3 with fresh Adam moments, and the loss (fine at the first resumed step, so the weights loaded correctly) spikes after the resume."}


# ================================================================ run09 wrong_checkpoint
def run09():
    print("run09", flush=True)
    wd = workdir("run09"); rd = rundir("run09")
    home = "/home/mchen/cls10"
    save_teacher(os.path.join(wd, "data/teacher_k10.npz"), 99)
    put_script("train_cls.py", wd, "train.py")
    put_script("eval.py", wd, "eval.py")
    run(["PY", "train.py", "--run-name", "exp12", "--epochs", "1", "--lr", "1e-4"], wd)  # an earlier short try
    r = run(["PY", "train.py", "--run-name", "exp13", "--epochs", "10", "--lr", "2e-3"], wd)
    os.makedirs(os.path.join(wd, "configs"), exist_ok=True)
    cfg = "# evaluation config\ncheckpoint: runs/exp12/best.pt\ndata: data/teacher_k10.npz\nsplit_x: x_val\nsplit_y: y_val\n"
    write(wd, "configs/eval.yaml", cfg)
    re_ = run(["PY", "eval.py"], wd)
    best = float(re.search(r"best val_acc ([0-9.]+)", r["out"]).group(1))
    ev = float(re.search(r"accuracy=([0-9.]+)", re_["out"]).group(1))
    jt, je = 1187320, 1187955
    t = BASE + dt.timedelta(days=23, hours=8, minutes=30)
    write(rd, f"slurm-{jt}.out", header(jt, None, "n17", t).format(home=home) + scrub(r["out"], wd, home)
          + footer(t + dt.timedelta(seconds=r["elapsed"] + 1)))
    t2 = t + dt.timedelta(hours=1, minutes=12)
    write(rd, f"slurm-{je}.out", header(je, None, "n09", t2).format(home=home) + scrub(re_["out"], wd, home)
          + footer(t2 + dt.timedelta(seconds=re_["elapsed"] + 1)))
    write(rd, "configs/eval.yaml", cfg)
    copy_user(wd, "eval.py", rd, "eval.py")
    common = """#SBATCH --partition=cpu
#SBATCH --cpus-per-task=4
#SBATCH --mem=4G
#SBATCH --output=slurm-%j.out
module load Python/3.11.3-GCCcore-12.3.0
source ~/venvs/cls/bin/activate
echo "==== SLURM job $SLURM_JOB_ID on $(hostname -s) ===="
echo "start: $(date)"
echo "SLURM_SUBMIT_DIR=$SLURM_SUBMIT_DIR"
"""
    write(rd, "train.sbatch", "#!/bin/bash\n#SBATCH --job-name=cls_train\n#SBATCH --time=02:00:00\n" + common +
          f"cd {home}\npython train.py --run-name exp13 --epochs 10 --lr 2e-3\necho \"end: $(date)\"\n")
    write(rd, "eval.sbatch", "#!/bin/bash\n#SBATCH --job-name=cls_eval\n#SBATCH --time=00:15:00\n" + common +
          f"cd {home}\npython eval.py --config configs/eval.yaml\necho \"end: $(date)\"\n")
    write(rd, "ticket.txt", f"""Subject: eval job gives much lower accuracy than training log

Hi, training job {jt} reports a best val_acc of {best:.3f}, but my separate eval job {je} on the *same* val split
only gets {ev:.3f}. I'm wondering whether eval.py normalises the data differently from train.py
(I copy mean/std into the checkpoint and reuse them). Could it be a numpy version difference between the nodes?
Logs, eval.py and the config are attached.  -- Min Chen
""")
    TRUTH["run09"] = {"truth": "wrong_checkpoint",
                      "symptom": "Training log says a much higher best val_acc than my separate eval job gets on the same val split; is eval.py preprocessing the data differently?",
                      "how": "configs/eval.yaml points at runs/exp12/best.pt (an earlier 1-epoch, lr 1e-4 run) while the training job wrote runs/exp13/best.pt; the eval log prints the exp12 path and 'epoch 1', and the accuracy it gets is that of the old checkpoint."}


# ================================================================ run10 data_not_shuffled
def run10():
    print("run10", flush=True)
    wd = workdir("run10"); rd = rundir("run10")
    home = "/home/dwojcik/merged10"
    a, b, c, d = teacher_data(1010, n_train=6000, n_val=2000)
    order = np.argsort(b, kind="stable")  # data file was built by concatenating the per-class exports
    np.savez(os.path.join(wd, "data/merged.npz"), x_train=a[order], y_train=b[order], x_val=c, y_val=d)
    put_script("train_sorted.py", wd, "train.py")
    jobid = 5012876
    nodes = ["hpc-n101", "hpc-n101", "hpc-n102"]
    t = BASE + dt.timedelta(days=26, hours=15)
    rows = []
    for s in range(3):
        r = run(["PY", "train.py", "--seed", str(s)], wd)
        out = header(jobid, s, nodes[s], t).format(home=home) + scrub(r["out"], wd, home)
        out += footer(t + dt.timedelta(seconds=r["elapsed"] + 1))
        write(rd, f"slurm-{jobid}_{s}.out", out)
        rows += S.job_rows(f"{jobid}_{s}", "merged10", "cpu", "COMPLETED", "0:0", r["maxrss_mb"] * 1024, r["elapsed"] + 1, nodes[s])
    copy_user(wd, "train.py", rd, "train.py")
    write(rd, "seeds.sbatch", f"""#!/bin/bash
#SBATCH --job-name=merged10
#SBATCH --partition=cpu
#SBATCH --array=0-2
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=01:00:00
#SBATCH --output=slurm-%A_%a.out

module load Python/3.11.3-GCCcore-12.3.0
source ~/pt/bin/activate
echo "==== SLURM job ${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}} on $(hostname -s) ===="
echo "start: $(date)"
echo "SLURM_SUBMIT_DIR=$SLURM_SUBMIT_DIR"
cd {home}
python train.py --seed $SLURM_ARRAY_TASK_ID --epochs 6
echo "end: $(date)"
""")
    write(rd, "sacct.txt", S.sacct(rows))
    write(rd, "slack_message.txt", """dwojcik [4:12 PM]
ran 3 seeds as an array on the merged 10-class dataset. The loss goes up and down in a weird repeating pattern in all three and val acc is awful, nothing like the per-class pilot runs. What is going on? logs + train.py in thread
""")
    TRUTH["run10"] = {"truth": "data_not_shuffled",
                      "symptom": "The loss goes up and down in a weird repeating pattern in all three seeds and val accuracy is awful. What is going on?",
                      "how": "merged.npz stores the training set sorted by class (per-class exports concatenated) and make_loader builds the train DataLoader without shuffle=True, so each epoch walks class by class: loss drops inside a class block and jumps at every class boundary, the same saw-tooth every epoch, and val_acc stays low."}


# ================================================================ run11 healthy (benign warning / low efficiency)
def run11():
    print("run11", flush=True)
    wd = workdir("run11"); rd = rundir("run11")
    home = "/home/ikarlsson/wd_sweep"
    save_teacher(os.path.join(wd, "data/teacher_k10.npz"), 111, n_train=10000)
    put_script("train_wd.py", wd, "train.py")
    jobid, wds, node = 7345120, [0.0, 1e-4, 1e-2], "cpu-c22"
    t = BASE + dt.timedelta(days=29, hours=10, minutes=44)
    rows, seff_txt = [], ""
    for i, w in enumerate(wds):
        r = run(["PY", "train.py", "--weight-decay", str(w)], wd)
        out = header(jobid, i, node, t).format(home=home) + f"WD={w:g}\n" + scrub(r["out"], wd, home)
        out += footer(t + dt.timedelta(seconds=r["elapsed"] + 1))
        write(rd, f"slurm-{jobid}_{i}.out", out)
        write(rd, f"slurm-{jobid}_{i}.err", S.LMOD_RELOAD.lstrip("\n") + scrub(r["err"], wd, home))
        rows += S.job_rows(f"{jobid}_{i}", "wd_sweep", "cpu", "COMPLETED", "0:0", r["maxrss_mb"] * 1024, r["elapsed"] + 1, node)
        if i == 1:
            seff_txt = f"$ seff {jobid}_{i}\n" + S.seff(jobid + 2, f"{jobid}_{i}", "ikarlsson", "mlgroup", "COMPLETED", 0,
                                                       2, r["cpu_s"], r["elapsed"] + 1, r["maxrss_mb"], 8)
            eff = 100 * r["cpu_s"] / (2 * max(int(round(r["elapsed"] + 1)), 1))
    write(rd, "seff.txt", seff_txt)
    write(rd, "sacct.txt", S.sacct(rows))
    write(rd, "wd_sweep.sbatch", f"""#!/bin/bash
#SBATCH --job-name=wd_sweep
#SBATCH --partition=cpu
#SBATCH --array=0-2
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=00:30:00
#SBATCH --output=slurm-%A_%a.out
#SBATCH --error=slurm-%A_%a.err

WDS=(0 1e-4 1e-2)
WD=${{WDS[$SLURM_ARRAY_TASK_ID]}}
module purge
module load GCCcore/12.3.0 Python/3.11.3-GCCcore-12.3.0
source ~/envs/torch/bin/activate
echo "==== SLURM job ${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}} on $(hostname -s) ===="
echo "start: $(date)"
echo "SLURM_SUBMIT_DIR=$SLURM_SUBMIT_DIR"
echo "WD=$WD"
cd {home}
python train.py --weight-decay $WD --epochs 6 --workers 4
echo "end: $(date)"
""")
    write(rd, "ticket.txt", f"""Subject: low CPU efficiency + warning in every .err (array {jobid})

Hello, I got the automatic "low efficiency" e-mail for my weight-decay sweep {jobid} and seff shows only
{eff:.0f}% CPU efficiency. Every task's .err also has a warning from the DataLoader. Is my job wasting the allocation, or is
something wrong with the training itself? I attached .out/.err of all 3 tasks plus sacct and seff. Ingrid
""")
    TRUTH["run11"] = {"truth": "healthy",
                      "symptom": "I got the low-efficiency e-mail, seff shows a low CPU efficiency and there's a DataLoader warning in every .err; is my sweep wasting the allocation or is the training broken?",
                      "how": "No fault: all three weight-decay tasks converge normally (train/val loss fall, val_acc high, similar across wd). The .err warning is the real DataLoader notice about more workers than available CPUs and the low seff efficiency comes from a tiny single-threaded MLP that cannot keep 2 cores busy; neither affects training."}


# ================================================================ run12 healthy (thin)
def run12():
    print("run12", flush=True)
    wd = workdir("run12"); rd = rundir("run12")
    home = "/home/pvarga/noisy10"
    save_teacher(os.path.join(wd, "data/teacher_noisy.npz"), 1212, n_train=12000, n_val=3000)
    put_script("train_small.py", wd, "train.py")
    r = run(["PY", "train.py"], wd)
    lines = scrub(r["out"], wd, home).splitlines()
    keep = [lines[i] for i in (0, 1, 4, 9, 14, 17, 18, 19)]
    write(rd, "slack_post.md", f"""**pvarga** in #ml-questions

job 3318804 finished (20 epochs, small MLP, 10 classes). tail of `slurm-3318804.out`, grepped for Epoch:
```
{chr(10).join(keep)}
```
val loss is *lower* than train loss for the whole run. Did I mess up the train/val split, is something leaking? Or is this fine and I can launch the full run?
""")
    TRUTH["run12"] = {"truth": "healthy",
                      "symptom": "Val loss is lower than train loss for the whole run; did I mess up the split or is something leaking, or is this fine?",
                      "how": "No fault: small MLP with dropout on clean, separately drawn train/val data; both losses fall and flatten together, val slightly below train only because train loss is a dropout-on running average over the epoch, val_acc ~0.8 (not near-perfect, not from epoch 1)."}


if __name__ == "__main__":
    os.makedirs(RUNS, exist_ok=True)
    only = sys.argv[1:]
    for name in ["run01", "run02", "run03", "run04", "run05", "run06", "run07", "run08", "run09", "run10", "run11", "run12"]:
        if not only or name in only:
            globals()[name]()
    tp = os.path.join(OUT, "truth.json")
    old = json.load(open(tp)) if (only and os.path.exists(tp)) else {}
    old.update(TRUTH)
    with open(tp, "w") as f:
        json.dump(dict(sorted(old.items())), f, indent=2)
    shutil.rmtree(WORK, ignore_errors=True) if not only else None
    print(f"gen.py wall time: {time.time() - T_START:.1f}s")
