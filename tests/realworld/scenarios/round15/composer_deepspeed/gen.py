#!/usr/bin/env python
"""Generate the 12 benchmark run folders under ./runs by really training small torch models on CPU.

Every run's training script lives in src/scripts/<run>/ and is executed in a scratch project folder
(work/<project>/) with its data built by src/mkdata.py (deterministic seeds). The console/log styles
(MosaicML Composer, DeepSpeed, HF Accelerate) come from small stand-in packages under
src/env/lib/python3.11/site-packages that only print in those stacks' formats; all numbers are produced
by the real torch loops. Crashes are the real Python exceptions of those loops.

Usage: /opt/conda/envs/train/bin/python gen.py [run01 run02 ...]
"""
import json
import os
import shutil
import subprocess
import sys
import time

OUT = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(OUT, "src")
SITE = os.path.join(SRC, "env", "lib", "python3.11", "site-packages")
WORK = os.path.join(OUT, "work")
RUNS_DIR = os.path.join(OUT, "runs")
PY = sys.executable

sys.path.insert(0, SRC)
import mkdata  # noqa: E402

DS = [PY, "-m", "deepspeed.launcher.runner", "train.py", "--deepspeed", "--deepspeed_config", "ds_config.json"]

RUNS = {
    "run01": dict(
        project="spiral-clf", style="accelerate", log="train.log",
        cmds=[[PY, "train.py", "--lr", "0.05", "--batch_size", "32", "--gradient_accumulation_steps", "2",
               "--epochs", "15"]],
        ship=["train.py", "accelerate_config.yaml", "launch.sh"],
        truth="missing_zero_grad",
        symptom="Loss on my little spiral classifier shoots up into the hundreds after the first epoch and "
                "grad_norm just keeps climbing the whole run, even though lr is only 0.05. What's going on?",
        how="train.py never calls optimizer.zero_grad() in its gradient-accumulation loop, so every "
            "optimizer step uses the sum of all gradients since the start (SGD, momentum 0.9, lr 0.05)."),
    "run02": dict(
        project="ticket-router", style="deepspeed", log="ds_train.log", cmds=[DS],
        ship=["ds_config.json"],
        truth="healthy",
        symptom="My DeepSpeed fp16 run has a very jumpy loss and prints a few OVERFLOW messages. Is this run ok?",
        how="Healthy: 6-class MLP, fp16 with dynamic loss scaling, micro-batch 8, AdamW 3e-4 WarmupDecayLR, "
            "3 epochs. Per-step loss is noisy because the batch is tiny; the overflow skips are the normal "
            "initial/periodic loss-scale probes (scale regrows every 500 clean steps); val loss falls "
            "steadily."),
    "run03": dict(
        project="segments-mlp", style="composer", log="console.log",
        cmds=[[PY, "train.py"]], ship=["train.py"],
        truth="lr_schedule_bug",
        symptom="Training stalls after the first epoch: eval accuracy is stuck at 0.5310 from epoch 2 to epoch 30 "
                "and the train loss stays around 1.8.",
        how="StepLR(step_size=10, gamma=0.5) meant per epoch, but the Trainer is given "
            "step_schedulers_every_batch=True, so it halves every 10 batches: lr 0.05 -> ~8e-4 after epoch 1 "
            "and ~0 after epoch 2."),
    "run04": dict(
        project="price-model", style="deepspeed", log="train.log", cmds=[DS],
        ship=["ds_config.json"],
        truth="mixed_precision_overflow",
        symptom="The DeepSpeed job dies after ~17 steps with 'Current loss scale already at minimum' and the "
                "loss doesn't move at all before that.",
        how="fp16 run of a log-price regression MLP with a sum-reduced MSE over a 4096 batch: the fp16 "
            "gradients overflow even at loss scale 1, so every step is skipped, the dynamic scale halves "
            "65536 -> 1 and DeepSpeed raises at the minimum scale (same code in fp32 trains: val RMSE 12.0 -> 2.4 "
            "in 6 epochs)."),
    "run05": dict(
        project="patch-inspect", style="accelerate", log="stdout.txt",
        cmds=[[PY, "train.py", "--data_dir", "data/patches", "--epochs", "3", "--batch_size", "64"]],
        ship=["accelerate_config.yaml", "launch.sh"],
        truth="dataloader_bottleneck",
        symptom="Training a tiny CNN on 32x32 patches only manages ~12 it/s (about 750 samples/s). It does learn, but why is it "
                "so slow?",
        how="Dataset reads one .npz file per sample and does a pure-Python per-pixel rotation/jitter in "
            "__getitem__, with num_workers=0: measured data_time ~0.07-0.08 s vs compute ~0.006 s per step (>90% of each step waits on data; exact timings vary with machine load)."),
    "run06": dict(
        project="glyph-cnn", style="composer", log="train.log",
        cmds=[[PY, "train.py"]], ship=["train.py"],
        truth="healthy",
        symptom="is this run ok?",
        how="Healthy: small BN CNN on 12x12 glyph images, DecoupledAdamW 2e-3 with 1-epoch warmup + cosine, "
            "12 epochs; converges to ~97% eval accuracy."),
    "run07": dict(
        project="event-rnn", style="deepspeed", log="ds.log",
        cmds=[DS + ["--curriculum", "10:150,40:150,80:150"]], ship=["ds_config.json", "launch.sh"],
        truth="exploding_gradients",
        symptom="The RNN trains fine on the short sequences, then the moment the curriculum moves to length "
                "40 the loss goes to ~1e7 and afterwards it never gets back to where it was.",
        how="ReLU RNN with identity recurrent init, AdamW 1e-3, gradient_clipping 0.0: the recurrent matrix "
            "grows past spectral radius 1 on length-10 sequences; at length 40 the gradient norm jumps from "
            "~1 to ~7e8, loss to ~1e7, and the poisoned Adam state leaves the model stuck at loss ~0.9."),
    "run08": dict(
        project="risk-buckets", style="composer", log="run.log",
        cmds=[[PY, "train.py"]], ship=[],
        truth="label_out_of_range",
        symptom="Training crashes about 30 batches into the first epoch with an IndexError coming from the loss.",
        how="Labels are np.digitize(score, edges[1:]) with edges = linspace(min, max, 6): the sample holding the "
            "maximum score gets label 5 with num_classes=5; cross_entropy raises 'Target 5 is out of bounds' "
            "when its batch comes up."),
    "run09": dict(
        project="sensor-faults", style="accelerate", log="train.log",
        cmds=[[PY, "train.py", "--config", "hparams.yaml"]],
        ship=["hparams.yaml", "accelerate_config.yaml", "launch.sh"],
        truth="optimizer_misconfigured",
        symptom="The MLP barely learns: after 40 epochs eval accuracy is 32% and the loss only went from 2.08 to "
                "2.01, with a normal lr of 1e-3.",
        how="AdamW eps set to 1.0 in hparams.yaml (should be ~1e-8): the denominator sqrt(v)+eps is ~1, so "
            "updates are ~lr*grad and training crawls (the same config with eps 1e-8 reaches ~80% in 8 epochs)."),
    "run10": dict(
        project="intent-mlp", style="deepspeed", log="train.log",
        cmds=[DS + ["--max_steps_this_job", "700"], DS + ["--resume"]],
        ship=["train.py", "ds_config.json", "launch.sh"],
        truth="resume_mismatch",
        symptom="After the job was resubmitted and resumed from the step-700 checkpoint, eval loss went up and "
                "the lr printout looks odd. Did the resume work?",
        how="Resume calls engine.load_checkpoint(..., load_optimizer_states=False, "
            "load_lr_scheduler_states=False): global step continues at 700 but AdamW state is fresh and the "
            "WarmupDecayLR restarts from warm-up (lr 0.00156 -> warm-up -> 0.003 peak at step ~750)."),
    "run11": dict(
        project="glyph-finetune", style="composer", log="console.log",
        cmds=[[PY, "train.py"]], ship=["train.py"],
        truth="frozen_parameters",
        symptom="Fine-tuning my pretrained glyph CNN on all 10 classes: loss stays at ~2.33 and accuracy at "
                "chance for all 10 epochs.",
        how="Backbone frozen on purpose, optimizer built from the trainable params, then the 10-class head is "
            "swapped in afterwards: the new head is not in the optimizer, so no parameter of the model is "
            "ever updated."),
    "run12": dict(
        project="load-forecast", style="accelerate", log="train.log",
        cmds=[[PY, "train.py", "--epochs", "10"]], ship=["train.py", "accelerate_config.yaml", "launch.sh"],
        truth="shape_mismatch",
        symptom="My load forecaster crashes partway through the first epoch with a RuntimeError from the "
                "DataLoader.",
        how="Window dataset's __len__ is len(series) - window instead of len - window - horizon + 1, so the "
            "last windows return targets shorter than 6; default_collate's torch.stack fails when one lands "
            "in a batch (step ~55)."),
}


def run_one(name, spec):
    work = os.path.join(WORK, spec["project"])
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(SRC, "scripts", name), work)
    os.makedirs(os.path.join(work, "data"), exist_ok=True)
    if name in mkdata.BUILDERS:
        mkdata.BUILDERS[name](work)
    env = dict(os.environ, PYTHONPATH=SITE, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONHASHSEED="0")
    log_path = os.path.join(work, spec["log"])
    t0 = time.time()
    with open(log_path, "w") as log:
        for cmd in spec["cmds"]:
            rc = subprocess.call(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    dest = os.path.join(RUNS_DIR, name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    shutil.copy(log_path, dest)
    for f in spec["ship"]:
        shutil.copy(os.path.join(work, f), dest)
    print(f"{name}: {spec['project']} rc={rc} {time.time() - t0:.1f}s", flush=True)


def main():
    names = sys.argv[1:] or sorted(RUNS)
    for name in names:
        run_one(name, RUNS[name])
    truth = {n: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for n, s in sorted(RUNS.items())}
    with open(os.path.join(OUT, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
