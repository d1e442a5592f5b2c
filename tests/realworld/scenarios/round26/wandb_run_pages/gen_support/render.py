"""One function per run: turn the recorded training runs into the user-visible files + truth entry."""
import math
import time

import pages as P


def hist_vals(rec, key):
    return [(row["_step"], P.nf(row[key])) for row in rec["history"] if key in row]


def by_epoch(rec, key, ep_key="epoch"):
    return [(row[ep_key], P.nf(row[key])) for row in rec["history"] if key in row and ep_key in row]


def console_log(text, keep_warnings=True):
    """what the W&B Files tab keeps as output.log: console after the client banner"""
    out = []
    for l in text.split("\n"):
        if l.startswith("wandb: ") and not (keep_warnings and l.startswith("wandb: WARNING")):
            continue
        out.append(l)
    return "\n".join(out).strip("\n") + "\n"


def f4(v):
    return f"{v:.4f}"


# ----------------------------------------------------------------------------------------------------------
def run01(run, outs, recs, g):
    r = g.rec_of(recs, "run01")
    g.write(run, "train.py", g.src(run, "train.py"))
    g.write(run, "config.yaml", g.src(run, "config.yaml"))
    g.write(run, "run_page.txt", P.run_page(r, g.meta_for(run, "train.py --config config.yaml")))
    g.write(run, "panel_train_loss.csv", P.panel_csv([(r["name"], r["history"], "train/loss")]))
    g.write(run, "panel_val_acc.csv", P.panel_csv([(r["name"], r["history"], "val/acc")]))
    tl = hist_vals(r, "train/loss")
    va = by_epoch(r, "val/acc")
    lr = hist_vals(r, "lr")
    lr_at = {s: v for s, v in lr}
    return {"truth": "lr_schedule_bug",
            "symptom": f"Loss drops a little in the first few steps and then sits flat around {tl[-1][1]:.1f} for all "
                       f"{len(va)} epochs, val acc never gets past {max(v for _, v in va):.0%}. I guess a 2-layer MLP "
                       f"is just too small for this data, should I go deeper?",
            "how": f"StepLR(step_size=8, gamma=0.1) is meant per epoch (config comment) but train.py calls sched.step() "
                   f"after every batch, so lr is {lr_at.get(10, lr[1][1]):.2g} at step 10, {lr_at.get(30, lr[3][1]):.2g} at "
                   f"step 30 and {lr[-1][1]:.2g} at the end (Summary 'lr'); train loss freezes at ~{tl[-1][1]:.2f} and "
                   f"val/loss and val/acc are identical every epoch ({va[-1][1]:.4f})."}


def run02(run, outs, recs, g):
    r1, r2 = g.rec_of(recs, "run02_v1"), g.rec_of(recs, "run02_v2")
    g.write(run, "train.py", g.src(run, "train.py"))
    g.write(run, "config.yaml", g.src(run, "config.yaml"))
    created = {r1["id"]: "Mar 1, 2024", r2["id"]: "Mar 22, 2024"}
    extra = {r1["id"]: {"Git commit": "9c1e0d7 (emg-trainer-v1)"}, r2["id"]: {"Git commit": "b41f7c2 (main)"}}
    cols = [("config.optimizer.lr", lambda r: str(r["config"]["optimizer"]["lr"])),
            ("config.optimizer.momentum", lambda r: str(r["config"]["optimizer"]["momentum"])),
            ("config.batch_size", lambda r: str(r["config"]["batch_size"])),
            ("val/acc", lambda r: f"{P.nf(r['summary']['val/acc']):.4f}"),
            ("val/loss", lambda r: f"{P.nf(r['summary']['val/loss']):.4f}"),
            ("train/loss", lambda r: f"{P.nf(r['summary']['train/loss']):.4f}")]
    txt = ("emg-gestures  >  Workspace\n\n" + P.runs_table([r2, r1], cols, created) + "\n\n\n"
           + P.run_comparer([r1, r2], diff_only=True, extra=extra) + "\n")
    g.write(run, "runs_compare.txt", txt)
    g.write(run, "panel_val_acc.csv", P.panel_csv([(r1["name"], r1["history"], "val/acc"),
                                                   (r2["name"], r2["history"], "val/acc")], x="epoch"))
    g.write(run, "panel_train_loss.csv", P.panel_csv([(r1["name"], r1["history"], "train/loss"),
                                                      (r2["name"], r2["history"], "train/loss")],
                                                     x="trainer/global_step", max_points=60))
    a1, a2 = P.nf(r1["summary"]["val/acc"]), P.nf(r2["summary"]["val/acc"])
    e3_1 = dict(by_epoch(r1, "val/acc"))[3]
    e3_2 = dict(by_epoch(r2, "val/acc"))[3]
    return {"truth": "optimizer_misconfigured",
            "symptom": f"Same config and same data, but since we moved to the new trainer repo the run learns much "
                       f"slower: {a2:.3f} val acc after {r2['config']['epochs']} epochs vs {a1:.3f} with the old trainer. "
                       f"What changed?",
            "how": f"build_optimizer() in the new train.py creates SGD without momentum/nesterov although the config "
                   f"(identical for both runs) says momentum 0.9, nesterov true; the old trainer passed them. New run "
                   f"reaches val acc {e3_2:.3f} at epoch 3 vs {e3_1:.3f} and {a2:.3f} vs {a1:.3f} at the end, with a "
                   f"slow, smooth loss decline at the same lr."}


def run03(run, outs, recs, g):
    r = g.rec_of(recs, "run03")
    g.write(run, "train.py", g.src(run, "train.py"))
    g.write(run, "output.log", console_log(outs[0]["console"]))
    g.write(run, "panel_train_loss.csv", P.panel_csv([(r["name"], r["history"], "train/loss")]))
    va = by_epoch(r, "val/acc")
    tl = hist_vals(r, "train/loss")
    per_epoch = len(tl) // len(va)
    return {"truth": "data_not_shuffled",
            "symptom": "My training loss has a weird saw-tooth shape that repeats every epoch, and val accuracy is "
                       "poor and swings a lot from one epoch to the next. What's going on?",
            "how": f"train.py concatenates the per-class .npy files and slices batches in order without any "
                   f"permutation, so every epoch walks through the classes one after another ({per_epoch} steps/epoch): "
                   f"the per-step loss jumps at each class boundary and the epoch-end model favours the last classes "
                   f"(val acc {', '.join(f'{v:.2f}' for _, v in va)}; per-class accuracies in output.log)."}


def run04(run, outs, recs, g):
    r = g.rec_of(recs, "run04")
    g.write(run, "train.py", g.src(run, "train.py"))
    g.write(run, "config.yaml", g.src(run, "config.yaml"))
    head1 = "+ srun python train.py --config configs/spectra.yaml --wandb-id h4n8b2t6\n"
    seg = r["segments"][0]
    t_cancel = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seg["wall_start"] + seg["end_rt"] - seg["start_rt"] + 1))
    g.write(run, "slurm-4815162.out", head1 + outs[0]["console"].rstrip("\n") + "\n"
            + f"slurmstepd: error: *** JOB 4815162 ON gpu-a40-117 CANCELLED AT {t_cancel} DUE TO PREEMPTION ***\n")
    head2 = ("+ srun python train.py --config configs/spectra.yaml --resume checkpoints/resmlp_w128/last.pt "
             "--wandb-id h4n8b2t6\n")
    g.write(run, "slurm-4815203.out", head2 + outs[1]["console"])
    g.write(run, "run_page.txt", P.run_page(
        r, g.meta_for(run, "train.py --config configs/spectra.yaml --resume checkpoints/resmlp_w128/last.pt "
                           "--wandb-id h4n8b2t6", pyexe="/scratch/jb/envs/raman/bin/python")))
    g.write(run, "panel_train_loss.csv", P.panel_csv([(r["name"], r["history"], "train/loss")]))
    g.write(run, "panel_train_lr.csv", P.panel_csv([(r["name"], r["history"], "train/lr")]))
    va = dict(by_epoch(r, "val/acc"))
    lr = hist_vals(r, "train/lr")
    before = [v for s, v in lr if s <= 650][-1]
    after = [v for s, v in lr if s > 650][0]
    tl = hist_vals(r, "train/loss")
    pre = [v for s, v in tl if 550 < s <= 650]
    post = [v for s, v in tl if 700 < s <= 800]
    return {"truth": "resume_mismatch",
            "symptom": f"The job got preempted in epoch 6 and I resumed from last.pt. Right after the resume the loss "
                       f"went back up and val acc fell from {va[5]:.3f} to {va[6]:.3f} and never recovered. Could the "
                       f"checkpoint have been corrupted when the node was killed?",
            "how": f"On --resume train.py restores only the model weights and epoch/step; the saved optimizer state "
                   f"is not loaded and the MultiStepLR scheduler is rebuilt from scratch, so lr jumps from {before:g} "
                   f"back to {after:g} at the resume step (momentum buffers reset): mean train loss goes from "
                   f"{sum(pre) / len(pre):.3f} before to {sum(post) / len(post):.3f} after, final val acc {va[max(va)]:.3f}."}


def run05(run, outs, recs, g):
    rt, re_ = g.rec_of(recs, "run05_train"), g.rec_of(recs, "run05_eval")
    g.write(run, "eval.py", g.src(run, "eval.py"))
    g.write(run, "model.py", g.src(run, "model.py"))
    train_log = console_log(outs[0]["console"])
    g.write(run, "train_run_page.txt", P.run_page(
        rt, g.meta_for(run, "train.py"), logs=P.logs_tab(train_log)))
    eval_log = console_log(outs[1]["console"])
    g.write(run, "eval_run_page.txt", P.run_page(
        re_, g.meta_for(run, "eval.py"), logs=P.logs_tab(eval_log)))
    best = P.nf(rt["summary"]["best_val_acc"])
    acc = P.nf(re_["summary"]["eval/acc"])
    return {"truth": "wrong_checkpoint",
            "symptom": f"Training reports {best:.1%} best val accuracy, but when I run eval.py on best.pt against the "
                       f"very same val file I get {acc:.1%}. I suspect the normalization in eval.py doesn't match training?",
            "how": f"train.py wraps the model in nn.DataParallel (printed in the train log), so best.pt keys start with "
                   f"'module.'; eval.py loads them with load_state_dict(..., strict=False), which silently matches no "
                   f"key and leaves a randomly initialised LeafNet: {acc:.3f} accuracy (chance, lopsided per-class) vs "
                   f"{best:.3f} during training. Normalisation is identical (norm.json)."}


def run06(run, outs, recs, g):
    r32, r16 = g.rec_of(recs, "run06_fp32"), g.rec_of(recs, "run06_fp16")
    g.write(run, "config.yaml", g.src(run, "config_fp16.yaml"))
    created = {r32["id"]: "May 2, 2024 10:25", r16["id"]: "May 2, 2024 10:45"}
    cols = [("precision", lambda r: r["config"]["precision"]), ("lr", lambda r: str(r["config"]["lr"])),
            ("batch_size", lambda r: str(r["config"]["batch_size"])),
            ("train/loss", lambda r: P.ui_val(r["summary"]["train/loss"])),
            ("val/mae_s", lambda r: P.ui_val(r["summary"]["val/mae_s"]))]
    txt = ("eta-model  >  Workspace\n\n" + P.runs_table([r16, r32], cols, created) + "\n\n\n"
           + P.run_comparer([r32, r16], diff_only=True) + "\n")
    g.write(run, "runs_compare.txt", txt)
    g.write(run, "panel_train_loss.csv", P.panel_csv([(r32["name"], r32["history"], "train/loss"),
                                                      (r16["name"], r16["history"], "train/loss")], max_points=84))
    g.write(run, "panel_amp_loss_scale.csv", P.panel_csv([(r16["name"], r16["history"], "amp/loss_scale")]))
    g.write(run, "output_eta-mlp-amp.log", console_log(outs[1]["console"]))
    tl16 = hist_vals(r16, "train/loss")
    first_inf = next(s for s, v in tl16 if not math.isfinite(v))
    sc = hist_vals(r16, "amp/loss_scale")
    sc_before = [v for s, v in sc if s < first_inf][-1]
    return {"truth": "mixed_precision_overflow",
            "symptom": f"I turned on fp16 AMP to speed up our ETA model and the loss goes to inf around step "
                       f"{first_inf} and NaN after that, while the fp32 run with the same config trains fine. How do I "
                       f"fix this without giving up fp16?",
            "how": f"Targets are raw seconds (up to ~1e5) regressed with MSE; under fp16 autocast the output layer "
                   f"overflows once predictions pass 65504: loss becomes inf at step {first_inf}, every step is then "
                   f"skipped and the GradScaler halves the scale from {sc_before:g} down to "
                   f"{sc[-1][1]:g}, loss NaN; the fp32 twin reaches val MAE {P.nf(r32['summary']['val/mae_s']):.0f} s."}


def run07(run, outs, recs, g):
    r = g.rec_of(recs, "run07")
    con = outs[0]["console"].rstrip("\n").split("\n")
    steps = [l for l in con if l.startswith("epoch ")]
    tb_start = next(i for i, l in enumerate(con) if l.startswith("Traceback"))
    tb_end = next(i for i, l in enumerate(con) if l.startswith("IndexError"))
    # trimmed traceback as users paste it: keep own frames + the last torch frames
    tb = con[tb_start:tb_end + 1]
    last_step = r["history"][-1]["_step"]
    post = f"""**[Training] IndexError in cross_entropy since the data refresh, model code unchanged**

Hi all, our product categorizer retrains weekly on the latest catalog embeddings. Since the refresh on Monday
(`catalog_emb_2024-05-27.npz`) the run dies in the first epoch, the W&B run ({r['name']}) just shows *Crashed*
after step {last_step}. Config:

```yaml
{g.src(run, "config.yaml").strip()}
```

Last lines of the W&B Logs tab:

```
{chr(10).join(steps)}
{chr(10).join(tb)}
```

The model is a 2-layer MLP on the embeddings + `nn.CrossEntropyLoss()`, optimizer AdamW. Nothing in the
training code changed between the last good run and this one. Is this a PyTorch bug? Runs on a CPU box.
"""
    g.write(run, "forum_post.md", post)
    return {"truth": "label_out_of_range",
            "symptom": "Since Monday's data refresh our weekly retrain dies in the first epoch with an IndexError "
                       "inside cross_entropy. The model code hasn't changed, what broke?",
            "how": f"The refreshed file contains samples labelled 20 while num_classes is 20 (valid 0-19); the first "
                   f"batch holding one crashes with 'IndexError: Target 20 is out of bounds.' after step {last_step}."}


def run08(run, outs, recs, g):
    r = g.rec_of(recs, "run08")
    g.write(run, "config.yaml", g.src(run, "config.yaml"))
    log = console_log(outs[0]["console"])
    g.write(run, "run_page.txt", P.run_page(r, g.meta_for(run, "train.py --config config.yaml"),
                                            logs=P.logs_tab(log, last=45)))
    return {"truth": "zero_variance_statistic",
            "symptom": "Our nightly retrain that has been fine for weeks now crashes right at the end of the first "
                       "epoch with a ValueError. Nothing in the code changed, only the new day's data export.",
            "how": "The new export has 10241 rows; with batch_size 128 and drop_last=False the last batch of the epoch "
                   "holds a single row, and BatchNorm1d in training mode raises 'Expected more than 1 value per "
                   "channel when training, got input size torch.Size([1, 128])' (batch statistics over one sample)."}


def run09(run, outs, recs, g):
    r = g.rec_of(recs, "run09")
    g.write(run, "config.yaml", g.src(run, "config.yaml"))
    g.write(run, "run_page.txt", P.run_page(r, g.meta_for(run, "train.py", os="macOS-14.4.1-arm64-arm-64bit")))
    g.write(run, "panel_accuracy.csv", P.panel_csv([(r["name"], r["history"], "train/acc"),
                                                    (r["name"], r["history"], "val/acc")], x="epoch"))
    va = dict(by_epoch(r, "val/acc"))
    ta = dict(by_epoch(r, "train/acc"))
    auc = dict(by_epoch(r, "val/auc"))
    return {"truth": "data_leakage",
            "symptom": f"My first neural churn model hits {va[0]:.1%} val accuracy and {auc[0]:.2f} AUC right after "
                       f"epoch 0. Is that realistic, or is my validation split too small to trust?",
            "how": f"The feature list includes cancellation_ticket_open, a CRM flag set by the cancellation workflow "
                   f"that agrees with the churn label ~98.5% of the time; val acc is {va[0]:.3f} after epoch 0 (train "
                   f"{ta[0]:.3f}), val acc within "
                   f"{max(abs(ta[e] - va[e]) for e in va if e > 0) * 100:.1f} points of train acc afterwards "
                   f"({va[max(va)]:.3f} vs {ta[max(ta)]:.3f} at the end), AUC {auc[max(auc)]:.3f}."}


def run10(run, outs, recs, g):
    r = g.rec_of(recs, "run10")
    g.write(run, "config.yaml", g.src(run, "config.yaml"))
    log = console_log(outs[0]["console"])
    g.write(run, "output.log", log)
    g.write(run, "run_page.txt", P.run_page(r, g.meta_for(run, "train.py"), logs=P.logs_tab(log, last=30)))
    g.write(run, "panel_accuracy.csv", P.panel_csv([(r["name"], r["history"], "train/acc"),
                                                    (r["name"], r["history"], "val/acc")], x="epoch"))
    g.write(run, "panel_loss.csv", P.panel_csv([(r["name"], r["history"], "train/loss"),
                                                (r["name"], r["history"], "val/loss")], x="epoch"))
    ta = dict(by_epoch(r, "train/acc"))
    va = dict(by_epoch(r, "val/acc"))
    tl = dict(by_epoch(r, "train/loss"))
    best_ep = max(va, key=va.get)
    return {"truth": "label_noise",
            "symptom": f"Training accuracy crawls around {ta[10]:.0%}-{ta[max(ta)]:.0%} no matter how long I train, "
                       f"while val accuracy is way higher. What is limiting the model?",
            "how": f"40% of the training labels were replaced by a random other class (val labels clean): train acc "
                   f"sits at {ta[10]:.3f} at epoch 10 with train loss ~{tl[10]:.2f}, only creeping up late "
                   f"({ta[max(ta)]:.3f} at the end) as the net memorises, while val acc peaks at {va[best_ep]:.3f} "
                   f"(epoch {best_ep}) and then drops to {va[max(va)]:.3f}."}


def run11(run, outs, recs, g):
    r = g.rec_of(recs, "run11")
    g.write(run, "train.py", g.src(run, "train.py"))
    g.write(run, "run_page.txt", P.run_page(r, g.meta_for(run, "train.py")))
    g.write(run, "panel_loss.csv", P.panel_csv([(r["name"], r["history"], "train/loss"),
                                                (r["name"], r["history"], "val/loss")], x="epoch"))
    va = dict(by_epoch(r, "val/acc"))
    ta = dict(by_epoch(r, "train/acc"))
    return {"truth": "healthy",
            "symptom": "My val loss is lower than my train loss for the whole run. Doesn't that mean validation data "
                       "is leaking into training?",
            "how": f"No fault. The train loss is the running mean over the epoch with dropout 0.5 active, the val "
                   f"loss is measured in eval mode at the end of the epoch, so val < train is expected; both fall "
                   f"steadily and val acc ends at {va[max(va)]:.3f} (train {ta[max(ta)]:.3f}), not near-perfect from "
                   f"the start, and train/val come from separate files."}


def run12(run, outs, recs, g):
    r = g.rec_of(recs, "run12")
    con = [l for l in outs[0]["console"].split("\n") if l.startswith("epoch ")]
    pick = [con[0], con[4], con[9], con[12], con[14], con[16], con[18], con[19]]
    s = r["summary"]
    post = f"""**Loss stops moving in the last epochs, is training stuck?**

Small keyword-spotting MLP (2x256, GELU), AdamW lr 3e-3, wd 0.05, 100 warm-up steps then cosine, 20 epochs,
batch 128. Run `{r['name']}` on W&B. Some lines from the console:

```
{chr(10).join(pick)}
```

W&B summary: `val/acc {P.nf(s['val/acc']):.4f}`, `val/loss {P.nf(s['val/loss']):.4f}`, `train/loss {P.nf(s['train/loss']):.4f}`.

Over the last several epochs the loss barely changes anymore. Is the optimizer stuck? Should I raise
the LR or just train for 40 epochs instead?
"""
    g.write(run, "forum_post.md", post)
    return {"truth": "healthy",
            "symptom": "Over the last several epochs my loss barely changes anymore. Is training stuck, should I raise "
                       "the LR or train longer?",
            "how": f"No fault: the cosine schedule anneals lr to 0 at the end of epoch 20, so the last epochs make "
                   f"small steps; val acc rises to {P.nf(s['val/acc']):.4f} with val loss flat-to-falling, "
                   f"nothing is stuck or diverging."}
