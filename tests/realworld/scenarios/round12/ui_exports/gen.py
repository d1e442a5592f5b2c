"""Round 12 generator: trains each user script in scripts/ (CPU, 1 thread, fixed seeds) under a
recording shim for wandb / SummaryWriter, then writes the run folders as UI exports
(W&B chart CSV export, TensorBoard scalar CSV / JSON download)."""
import csv, json, os, re, subprocess, sys, shutil
from collections import defaultdict
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/work/main/.venv/bin/python"
SCRIPTS = os.path.join(HERE, "scripts")
WORK = os.path.join(HERE, "_work")
RUNS = os.path.join(HERE, "runs")

# name: (script, truth, style, ship_code, run_name, extra files, symptom, how)
SPEC = {
 "run01": ("g_leak.py", "data_leakage", "wandb", True, "churn-mlp-v2", {},
           "My churn model hits ~100% validation accuracy after the first epoch and val loss is lower than train loss; it feels too good to be true.",
           "Feature days_since_last_activity is generated from the churn label (30-90 for churners, 0-20 otherwise), so the target leaks into the inputs."),
 "run02": ("i_zerograd.py", "missing_zero_grad", "tb_json", False, None, {},
           "Loss goes down for the first few dozen steps and then keeps climbing for the whole run; val accuracy ends up worse than at the start.",
           "optimizer.zero_grad() is never called: gradients accumulate across steps (SGD momentum 0.9, lr 0.01)."),
 "run03": ("k_good.py", "healthy", "tb_csv", False, None, {},
           "Is this run ok? Val accuracy jumps around a bit in the first epochs.",
           "Healthy: small BN CNN, AdamW 2e-3 with cosine decay, 15 epochs on synthetic shapes."),
 "run04": ("e_dead.py", "dead_relu", "wandb", False, "peach-thunder-12", {},
           "Accuracy went up for one epoch and then dropped to chance; the loss has been sitting at ~1.6 ever since and won't move.",
           "SGD lr 0.7 momentum 0.9 on a 2-hidden-layer ReLU MLP: an early blow-up pushes the second layer's units negative; dead-unit share of fc2 reaches 100% and the loss stays at ln 5."),
 "run05": ("b_sched.py", "lr_schedule_bug", "tb_csv", True, None, {},
           "Training stops improving after about two epochs; loss is stuck around 1.27 and val accuracy at ~50% for the remaining 28 epochs.",
           "StepLR(step_size=10, gamma=0.5) meant per epoch but scheduler.step() is called every batch: lr halves every 10 batches and is ~1e-5 by epoch 5, 1e-24 at the end."),
 "run06": ("c_overfit.py", "overfitting", "wandb", False, "mlp-wide-adam",
           {"notes.txt": "240 labelled rows, 60 columns. Wide MLP (2x512), Adam 2e-4, batch 32, 150 epochs.\n"
                          "I pick the last checkpoint for deployment.\n"},
           "Train loss goes to basically zero but the validation loss gets worse the longer I train.",
           "Wide 2x512 MLP on 240 training rows with 60 features (6 informative), no regularisation, 150 epochs."),
 "run07": ("h_eval.py", "eval_mode_forgotten", "tb_csv", True, None,
           {"question.txt": "Why is my validation accuracy so jumpy from epoch to epoch and always a few points below train? "
                            "Train and val come from the same generator. Plots attached.\n"},
           "Validation accuracy bounces around from epoch to epoch and stays below train accuracy even though both sets come from the same data.",
           "evaluate() runs under torch.no_grad() but the model is never switched to eval(): Dropout(0.5) stays on and BatchNorm normalises with the statistics of val batches of 8."),
 "run08": ("a_lrhigh.py", "lr_too_high", "wandb", False, "mlp-sgd-bs64", {},
           "Loss drops nicely for a few steps, then shoots up and turns into NaN before the end of the first epoch.",
           "SGD lr 0.2 with momentum 0.9 on a Tanh MLP regression (MSE): loss falls to ~0.3, oscillates, then grows to 1e35 / inf and NaN by step ~45."),
 "run09": ("d_noise.py", "label_noise", "tb_json", False, None,
           {"notes.txt": "6-class problem, 2000 samples, 12 features. Labels are from our annotation vendor.\n"
                          "Train accuracy is stuck around 67% no matter how long I train.\n"},
           "Train accuracy won't go past ~67% and train loss stays above 1.0 even after 100 epochs; val is about the same.",
           "40% of all labels (train and val) replaced by a uniformly random class before the split; 1-hidden-layer MLP, Adam 1e-3."),
 "run10": ("j_frozen.py", "frozen_parameters", "wandb", True, "enc-head-warmup", {},
           "Accuracy stays at ~45% on a 4-class problem and the loss barely moves, even after the encoder is switched on at epoch 3.",
           "Encoder frozen for a head warm-up and the optimizer is built from the trainable params at that moment; the later requires_grad=True never adds them to the optimizer, so the encoder never changes (param_norm constant)."),
 "run11": ("f_init.py", "bad_initialization", "tb_csv", True, None, {},
           "My loss starts at about a million and stays in the hundreds to thousands for the whole run, with a gradient norm around 1e5.",
           "Custom init nn.init.normal_(weight, std=1.0) on a 6x256 ReLU MLP: activations grow ~11x per layer, logits ~1e5, loss 1e6 at step 0, grad norm 1e5-1e6 throughout."),
 "run12": ("l_noisy.py", "healthy", "wandb", True, "tiny-mlp-bs8", {},
           "The training loss is really noisy and slow to come down; is this run ok?",
           "Healthy: tiny Tanh MLP, plain SGD lr 0.01, batch 8 on noisy two-moons (Bayes ~88%); noisy batch loss, val accuracy plateaus ~0.87 with no gap."),
}

ADJ = ["peach", "dazzling", "rosy", "glorious", "fanciful", "stellar", "youthful", "lively"]
NOUN = ["thunder", "sun", "firefly", "wave", "meadow", "dream", "sky", "river"]


def run_script(name, script):
    os.makedirs(WORK, exist_ok=True)
    out = os.path.join(WORK, name + ".json")
    subprocess.run([PY, os.path.join(SCRIPTS, "_shim.py"), os.path.join(SCRIPTS, script), out],
                   check=True, cwd=WORK)
    return json.load(open(out))


def fmt(v):
    if v != v: return "NaN"
    if v in (float("inf"), float("-inf")): return "Infinity" if v > 0 else "-Infinity"
    return repr(float(v))


def panel_key(m):
    k = re.sub(r"(^|[/_])(train|val)(?=$|[/_])", "", m).strip("/_")
    return k or m


def write_wandb(d, rec, run_name, seed):
    rng = np.random.default_rng(seed)
    hist = defaultdict(dict)
    for step, row in rec["wandb"]:
        hist[step].update(row)
    metrics = []
    for _, row in rec["wandb"]:
        for k in row:
            if k not in metrics and k != "epoch": metrics.append(k)
    panels = defaultdict(list)
    for m in metrics: panels[panel_key(m)].append(m)
    h, mi, s = 12 + seed % 8, 5, 7
    for pk, ms in panels.items():
        s += int(rng.integers(3, 40))
        mi += s // 60; s %= 60
        fn = f"wandb_export_2024-03-{7 + seed % 20:02d}T{h:02d}_{mi:02d}_{s:02d}.csv"
        steps = sorted(st for st in hist if any(m in hist[st] for m in ms))
        with open(os.path.join(d, fn), "w", newline="") as f:
            w = csv.writer(f, quoting=csv.QUOTE_ALL)
            hdr = ["Step"]
            for m in ms: hdr += [f"{run_name} - {m}", f"{run_name} - {m}__MIN", f"{run_name} - {m}__MAX"]
            w.writerow(hdr)
            for st in steps:
                row = [st]
                for m in ms:
                    v = hist[st].get(m)
                    row += ["", "", ""] if v is None else [fmt(v)] * 3
                w.writerow(row)


def write_tb(d, rec, as_json, seed):
    rng = np.random.default_rng(seed)
    logdir = rec.get("logdir") or "runs"
    run = os.path.basename(logdir.rstrip("/"))
    t0 = 1709800000.0 + seed * 86400 + rng.uniform(0, 3600)
    dt = rng.uniform(0.05, 0.4)
    tags = defaultdict(list)
    for tag, step, v in rec["tb"]:
        tags[tag].append((step, float(np.float32(v))))
    for tag, pts in tags.items():
        rows = []
        for step, v in pts:
            wall = t0 + step * dt + rng.uniform(0, dt * 0.3)
            rows.append([round(wall, 6), step, v])
        base = f"run-{run}-tag-{tag.replace('/', '_')}"
        if as_json:
            with open(os.path.join(d, base + ".json"), "w") as f:
                f.write(json.dumps(rows).replace("NaN", "NaN"))
        else:
            with open(os.path.join(d, base + ".csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["Wall time", "Step", "Value"])
                for wall, step, v in rows: w.writerow([repr(wall), step, fmt(v)])


def main():
    only = sys.argv[1:]
    truth = {}
    for i, (name, (script, tr, style, code, rname, extra, symptom, how)) in enumerate(sorted(SPEC.items())):
        truth[name] = {"truth": tr, "symptom": symptom, "how": how}
        if only and name not in only: continue
        rec = run_script(name, script)
        d = os.path.join(RUNS, name)
        shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
        if style == "wandb":
            rname = rname or f"{ADJ[i % 8]}-{NOUN[(i * 3) % 8]}-{i * 7 + 3}"
            write_wandb(d, rec, rname, i + 1)
        else:
            write_tb(d, rec, style == "tb_json", i + 1)
        if code:
            shutil.copy(os.path.join(SCRIPTS, script), os.path.join(d, "train.py"))
        for fn, txt in extra.items():
            open(os.path.join(d, fn), "w").write(txt)
        print(name, "written", flush=True)
    json.dump(truth, open(os.path.join(HERE, "truth.json"), "w"), indent=2)


if __name__ == "__main__":
    main()
