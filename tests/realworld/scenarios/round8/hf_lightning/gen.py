#!/usr/bin/env python
"""Generate 12 benchmark run folders (HF-Trainer-style and Lightning-CSVLogger-style) by really training
small torch models on CPU, each with one planted fault (or healthy). Usage: python gen.py [OUTDIR]

Each run is produced by executing scripts/runNN.py with cwd=runs/runNN (deterministic seeds). For about half
of the runs the script is copied into the run folder as train.py. truth.json holds the hidden labels.
After generation, check() re-reads what the runs wrote and asserts that each fault is visible in the numbers."""
import glob, json, math, os, shutil, subprocess, sys, tempfile

import numpy as np
import pandas as pd

PY = "/work/main/.venv/bin/python"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.abspath(next((a for a in sys.argv[1:] if not a.startswith("--")), HERE))
SCRIPTS = os.path.join(HERE, "scripts")

RUNS = {
    "run01": dict(style="lightning", ship_code=False, truth="label_noise",
                  symptom="Training accuracy sits around 55-60% for dozens of epochs and only creeps up near the end, while validation accuracy started above 90% and has been sliding down since. What is going on?",
                  how="sklearn digits, 2-layer MLP, Adam 1e-3, 150 epochs; 40% of the TRAIN labels replaced by a random other class (validation labels clean)."),
    "run02": dict(style="hf", ship_code=True, truth="healthy",
                  symptom="Is this run ok? Anything I should worry about before I use this checkpoint?",
                  how="Bag-of-embeddings text classifier on a synthetic 3-class corpus, AdamW 2e-3, linear schedule with 10% warm-up, 4 epochs; nothing planted."),
    "run03": dict(style="lightning", ship_code=False, truth="batch_size_too_small",
                  symptom="The step loss jumps all over the place (0.3 to 2.5 from one log line to the next) and the model never gets past ~60% accuracy on a simple shapes dataset.",
                  how="Small CNN with BatchNorm2d/BatchNorm1d on synthetic 16x16 shapes, SGD lr 0.05 momentum 0.9 with batch_size=4 (in a prototype with noise_std 0.2, batch 64 reached ~0.95 val acc)."),
    "run04": dict(style="hf", ship_code=True, truth="lr_schedule_bug",
                  symptom="Loss stays flat for the first two epochs before it starts to drop, and the final accuracy is lower than what the same CNN got in my other project.",
                  how="Cosine schedule with warmup_ratio 0.1, but num_training_steps computed as len(train_ds)*epochs (samples, not batches): warm-up is 3.2x longer than the run, so the lr rises linearly for the whole run and never decays."),
    "run05": dict(style="lightning", ship_code=True, truth="mode_collapse",
                  symptom="Validation accuracy is exactly the same (0.815) at every epoch even though the training loss keeps going down.",
                  how="Imbalanced 5-class tabular data (82% class 0); the 'balanced' class weights are computed as counts/counts.sum() (proportional to frequency instead of inverse), so the model predicts class 0 for every input."),
    "run06": dict(style="hf", ship_code=False, truth="nan_in_data",
                  symptom="The loss was going down nicely and then after ~100 steps everything turned into NaN and stayed there.",
                  how="Tabular sensor table with two missing readings (NaN in s07 of row 4417 and s19 of row 9102) not imputed; pandas mean/std skip NaN so normalisation is fine, but the first batch containing a NaN row makes loss and grad_norm NaN at step 101-110 and the weights stay NaN."),
    "run07": dict(style="lightning", ship_code=False, truth="overfitting",
                  symptom="Training accuracy hits 100% but the validation loss keeps climbing the longer I train.",
                  how="300 training samples, 40 features, 2x256 MLP without any regularisation, Adam 2e-4, 200 epochs; val loss bottoms out around epoch 10 and then rises steadily."),
    "run08": dict(style="hf", ship_code=True, truth="resume_mismatch",
                  symptom="The job was killed at step ~1310; I resumed from checkpoint-1250 and right after that the loss went up and the final eval is worse than before the interruption.",
                  how="First run killed after 1310 optimizer steps (checkpoints every 250); second run resumed with --resume_from_checkpoint checkpoint-1250, which loads the weights, log_history and global_step but creates a fresh AdamW and a fresh linear schedule: lr jumps 5e-4 -> 2.95e-3 at step 1251 and ends at 2.5e-3 instead of 0, Adam moments reset."),
    "run09": dict(style="lightning", ship_code=False, truth="healthy",
                  symptom="Is this run ok? It did almost nothing for the first three or four epochs and I nearly killed it.",
                  how="GRU sequence classifier (count of marker tokens), Adam 1e-4, batch 16, gradient clipping 1.0, 25 epochs; slow start then converges to ~99.7% val acc; nothing planted."),
    "run10": dict(style="hf", ship_code=True, truth="eval_mode_forgotten",
                  symptom="Training loss goes to almost zero but eval accuracy is stuck around 35% and the eval loss goes up every epoch.",
                  how="Digits CNN with BatchNorm and Dropout; evaluate() never calls model.eval() and the per-class split makes eval batches (size 32, unshuffled) nearly single-class, so batch statistics wipe out the class signal (the same weights score ~97% in eval mode)."),
    "run11": dict(style="lightning", ship_code=True, truth="dead_relu",
                  symptom="The loss dropped in the first epoch, then went back up to ~1.40 and has not moved for 35 epochs.",
                  how="3x128 ReLU MLP, SGD lr 0.5 momentum 0.9: the large early updates push every unit of the last hidden layer into the dead regime (act_zero_frac/net.5 = 1.0); hidden-layer gradients are exactly 0 and the loss sits at ln(4)."),
    "run12": dict(style="hf", ship_code=False, truth="data_leakage",
                  symptom="Eval accuracy is 99.9% after the first epoch on our churn data, where our gradient-boosting baseline gets about 83%. Is this real?",
                  how="Feature 'retention_offer_code' = 2*label + N(0, 0.3) left among the inputs (listed in config.json feature_columns): near-perfect eval from epoch 1 and eval loss below train loss."),
}

PREEMPT = r'''
import os, runpy, sys
import torch
_limit = int(os.environ["PREEMPT_AFTER_STEPS"])
_orig = torch.optim.AdamW.step
_n = [0]
def _step(self, *a, **k):
    _n[0] += 1
    if _n[0] > _limit:
        sys.stdout.flush(); os._exit(137)
    return _orig(self, *a, **k)
torch.optim.AdamW.step = _step
script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
'''


def run_script(name, rundir):
    script = os.path.join(SCRIPTS, f"{name}.py")
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if name == "run08":
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(PREEMPT)
        r = subprocess.run([PY, f.name, script], cwd=rundir, env=dict(env, PREEMPT_AFTER_STEPS="1310"))
        os.unlink(f.name)
        assert r.returncode == 137, r.returncode
        subprocess.run([PY, script, "--resume_from_checkpoint", "./checkpoint-1250"], cwd=rundir, env=env, check=True)
        for d in glob.glob(os.path.join(rundir, "checkpoint-*")):
            shutil.rmtree(d)
    else:
        subprocess.run([PY, script], cwd=rundir, env=env, check=True)


def generate():
    runs_dir = os.path.join(OUT, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    for name, spec in RUNS.items():
        rundir = os.path.join(runs_dir, name)
        shutil.rmtree(rundir, ignore_errors=True)
        os.makedirs(rundir)
        print(f"[gen] {name} ...", flush=True)
        run_script(name, rundir)
        if spec["ship_code"]:
            shutil.copy(os.path.join(SCRIPTS, f"{name}.py"), os.path.join(rundir, "train.py"))
    truth = {n: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for n, s in RUNS.items()}
    with open(os.path.join(OUT, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


# ---------------------------------------------------------------- checks
def hf(name):
    with open(os.path.join(OUT, "runs", name, "trainer_state.json")) as f:
        lh = json.load(f)["log_history"]
    tr = pd.DataFrame([e for e in lh if "loss" in e])
    ev = pd.DataFrame([e for e in lh if "eval_loss" in e])
    return tr, ev


def pl(name):
    d = pd.read_csv(os.path.join(OUT, "runs", name, "lightning_logs", "version_0", "metrics.csv"))
    ep = d[d.filter(like="_epoch").notna().any(axis=1)].set_index("epoch").filter(like="_epoch")
    va = d[d.filter(like="val_").notna().any(axis=1)].set_index("epoch").filter(like="val_")
    st = d[d.filter(like="_step").notna().any(axis=1)]
    return d, ep.join(va), st


def check():
    out = {}
    d, e, st = pl("run01")
    assert e.train_acc_epoch.iloc[5:60].max() < 0.67 and e.train_loss_epoch.iloc[5:40].min() > 1.2
    assert e.val_acc.max() > 0.9 and e.train_acc_epoch.iloc[-1] > 0.85 and e.val_acc.iloc[-1] < 0.75
    out["run01"] = (f"train acc plateaus {e.train_acc_epoch.iloc[5]:.2f}-{e.train_acc_epoch.iloc[50]:.2f} (loss floor ~{e.train_loss_epoch.iloc[30]:.2f}) for ~60 epochs, "
                    f"then memorises to {e.train_acc_epoch.iloc[-1]:.2f}; val acc peaks {e.val_acc.max():.3f} (ep {int(e.val_acc.idxmax())}) and falls to {e.val_acc.iloc[-1]:.3f}")
    tr, ev = hf("run02")
    assert ev.eval_accuracy.iloc[-1] > 0.95 and tr.loss.iloc[-1] < 0.1
    out["run02"] = f"loss {tr.loss.iloc[0]:.3f} -> {tr.loss.iloc[-1]:.3f}, eval acc {', '.join(f'{a:.3f}' for a in ev.eval_accuracy)}; lr warm-up then linear decay to ~0"
    d, e, st = pl("run03")
    assert st.train_loss_step.std() > 0.3 and e.val_acc.max() < 0.7
    out["run03"] = (f"step loss std {st.train_loss_step.std():.2f} (range {st.train_loss_step.min():.2f}-{st.train_loss_step.max():.2f}) every epoch; "
                    f"train acc {e.train_acc_epoch.iloc[0]:.2f}->{e.train_acc_epoch.iloc[-1]:.2f}, val acc jumps {', '.join(f'{a:.2f}' for a in e.val_acc)}")
    tr, ev = hf("run04")
    assert (np.diff(tr.learning_rate) >= 0).all() and tr.learning_rate.iloc[-1] < 0.35 * 3e-3
    assert tr[tr.epoch <= 2].loss.min() > 1.3
    out["run04"] = (f"learning_rate rises linearly the whole run {tr.learning_rate.iloc[0]:.2e} -> {tr.learning_rate.iloc[-1]:.2e} (peak 3e-3 never reached, no decay); "
                    f"loss ~{tr[tr.epoch <= 2].loss.mean():.2f} (chance 1.386) for 2 epochs; final eval acc {ev.eval_accuracy.iloc[-1]:.3f}")
    d, e, st = pl("run05")
    assert e.val_acc.nunique() == 1 and e.val_f1.max() < 0.2 and e.train_loss_epoch.iloc[-1] < e.train_loss_epoch.iloc[1]
    out["run05"] = (f"val_acc exactly {e.val_acc.iloc[0]:.4f} (= class-0 share) and val_f1 {e.val_f1.iloc[0]:.3f} at all {len(e)} epochs, "
                    f"while train loss falls {e.train_loss_epoch.iloc[0]:.3f} -> {e.train_loss_epoch.iloc[-1]:.3f} and val loss {e.val_loss.iloc[0]:.3f} -> {e.val_loss.iloc[-1]:.3f}")
    tr, ev = hf("run06")
    first_nan = int(tr[tr.loss.isna()].step.iloc[0])
    assert tr[tr.step < first_nan].loss.notna().all() and tr[tr.step >= first_nan].loss.isna().all() and first_nan > 50
    assert tr[tr.step >= first_nan].grad_norm.isna().all() and ev.eval_loss.isna().iloc[-1]
    out["run06"] = (f"finite, falling loss {tr.loss.iloc[0]:.3f} -> {tr[tr.step < first_nan].loss.iloc[-1]:.3f} up to step {first_nan - 10}, "
                    f"loss and grad_norm NaN from step {first_nan} to the end; eval_loss NaN, eval acc {ev.eval_accuracy.iloc[0]:.3f} -> {ev.eval_accuracy.iloc[-1]:.3f}")
    d, e, st = pl("run07")
    best = int(e.val_loss.idxmin())
    assert best < 25 and e.val_loss.iloc[-1] > 2 * e.val_loss.min() and e.train_acc_epoch.iloc[-1] == 1.0
    out["run07"] = (f"train loss -> {e.train_loss_epoch.iloc[-1]:.4f}, train acc 1.0 from ep {int((e.train_acc_epoch == 1.0).idxmax())}; "
                    f"val loss min {e.val_loss.min():.3f} at ep {best}, then rises to {e.val_loss.iloc[-1]:.3f}; val acc {e.val_acc.max():.3f} -> {e.val_acc.iloc[-1]:.3f}")
    tr, ev = hf("run08")
    before, after = tr[tr.step <= 1250], tr[tr.step > 1250]
    assert after.learning_rate.iloc[0] > 5 * before.learning_rate.iloc[-1]
    assert after.loss.iloc[:3].mean() > 1.2 * before.loss.iloc[-3:].mean()
    assert ev[ev.step > 1250].eval_loss.min() > ev[ev.step == 1250].eval_loss.iloc[0]
    out["run08"] = (f"lr {before.learning_rate.iloc[-1]:.2e} at step 1250 -> {after.learning_rate.iloc[0]:.2e} at 1275, ends {after.learning_rate.iloc[-1]:.2e}; "
                    f"loss {before.loss.iloc[-1]:.3f} -> {after.loss.max():.3f}; eval loss {ev[ev.step == 1250].eval_loss.iloc[0]:.3f} -> {ev.eval_loss.iloc[-1]:.3f}, "
                    f"eval acc {ev[ev.step == 1250].eval_accuracy.iloc[0]:.3f} -> {ev.eval_accuracy.iloc[-1]:.3f}")
    d, e, st = pl("run09")
    assert e.val_acc.iloc[-1] > 0.95 and e.val_acc.iloc[:3].max() < 0.7 and d.select_dtypes("number").notna().any().all()
    out["run09"] = (f"val acc {', '.join(f'{a:.2f}' for a in e.val_acc.iloc[:6])} ... {e.val_acc.iloc[-1]:.3f}; val loss tracks train loss "
                    f"({e.train_loss_epoch.iloc[-1]:.3f} / {e.val_loss.iloc[-1]:.3f}); lr constant 1e-4")
    tr, ev = hf("run10")
    assert ev.eval_accuracy.max() < 0.5 and tr.loss.iloc[-5:].mean() < 0.1 and ev.eval_loss.iloc[-1] > ev.eval_loss.iloc[0]
    out["run10"] = (f"train loss {tr.loss.iloc[0]:.3f} -> {tr.loss.iloc[-1]:.3f}; eval acc {ev.eval_accuracy.min():.3f}-{ev.eval_accuracy.max():.3f} "
                    f"from epoch 1 on, eval loss rises {ev.eval_loss.iloc[0]:.2f} -> {ev.eval_loss.iloc[-1]:.2f}")
    d, e, st = pl("run11")
    late = st[st.epoch >= 8]
    assert e.train_loss_epoch.iloc[5:].between(1.35, 1.46).all() and (late["grad_2.0_norm/net.0.weight"] == 0).mean() > 0.95
    assert (late["act_zero_frac/net.5"] == 1.0).mean() > 0.95 and d.select_dtypes("number").max().max() < 1e6
    out["run11"] = (f"train loss {e.train_loss_epoch.iloc[0]:.3f}, {e.train_loss_epoch.iloc[1]:.3f}, then {e.train_loss_epoch.iloc[3]:.3f} and flat "
                    f"{e.train_loss_epoch.iloc[5:].min():.3f}-{e.train_loss_epoch.iloc[5:].max():.3f} (ln4=1.386) for 35 epochs; val acc ~{e.val_acc.iloc[5:].mean():.2f}; "
                    f"from epoch 8 grad_2.0_norm of net.0/2/4 = 0 and act_zero_frac/net.5 = 1.0 (0.99 at epochs 5-7)")
    tr, ev = hf("run12")
    assert ev.eval_accuracy.iloc[0] > 0.99 and ev.eval_loss.iloc[-1] < tr.loss.iloc[-5:].mean()
    out["run12"] = (f"eval acc {ev.eval_accuracy.iloc[0]:.4f} at epoch 1 (gbdt baseline without the column: 0.834), "
                    f"eval loss {ev.eval_loss.iloc[-1]:.4f} below train loss ~{tr.loss.iloc[-5:].mean():.4f}")
    return out


if __name__ == "__main__":
    if "--check-only" not in sys.argv:
        generate()
    res = check()
    for k, v in res.items():
        print(f"{k} [{RUNS[k]['truth']}]: {v}")
    print("all checks passed")
