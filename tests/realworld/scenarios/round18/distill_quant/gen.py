"""Generate the distillation / quantization / pruning benchmark runs.

Every run is produced by really executing the user script(s) under scripts/<run>/ with the
interpreter running this file.  The script sources are copied into runs/<run>/, executed there,
and afterwards only what a user would hand over is kept (logs, configs, metrics and, for about
half the runs, the training script).  Seeds are fixed inside each script.
"""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "scripts"
RUNS = HERE / "runs"

# name -> spec
#   cmds: list of (script, console log file) executed in order inside the run folder
#   ship: source files kept in the run folder (everything else from scripts/<run> that is .py is removed)
#   home: fake user path used to replace absolute paths in logs
SPECS = {
    "run01": dict(
        truth="lr_too_high",
        cmds=[("train.py", "train.log")], ship=[], home="/home/priya/work/gru-distill",
        symptom="Distilling my 2-layer GRU into a 1-layer one: the loss drops nicely for the first ~30 steps, then climbs back "
                "up and bounces around above where it started; the student ends at ~61% eval accuracy while the teacher gets ~93%.",
        how="AdamW peak learning_rate 0.3 (sane value ~3e-3) with 60 warm-up steps and linear decay; loss falls during early "
            "warm-up then rises/oscillates once lr passes ~0.15, ce_loss goes above ln(4), grad_norm spikes."),
    "run02": dict(
        truth="healthy",
        cmds=[("train.py", "train.log")], ship=["train.py"], home="/home/jonas/kd-glyphs",
        symptom="Distilled a 85k-param MLP teacher into a 17k-param student. Student ends a few points under the teacher. Is this run ok?",
        how="No fault: standard Hinton KD (T=4, alpha=0.7, Adam + cosine) from a well-trained teacher."),
    "run03": dict(
        truth="eval_mode_forgotten",
        cmds=[("train.py", "train.log")], ship=["train.py"], home="/home/li/tabular-kd",
        symptom="During distillation kd_loss stops improving at ~1.1 and the teacher_acc I log changes every epoch and is lower "
                "than the teacher's own val accuracy, even though the teacher is frozen. What is going on?",
        how="Teacher (BatchNorm + Dropout 0.5) is frozen with requires_grad=False and queried under no_grad, but evaluate() "
            "puts models back in train() mode and teacher.eval() is never called before distillation, so the soft targets "
            "come from dropout/batch-stat mode."),
    "run04": dict(
        truth="zero_variance_statistic",
        cmds=[("train.py", "train.log")], ship=["train.py"], home="/home/samir/ptq",
        symptom="After pruning and BN recalibration the int8 model is at ~48% accuracy and even the fp32 model drops to ~64%; "
                "before compression it was 96%.",
        how="BatchNorm re-calibration and observer calibration both use calib_x = x_train[offset].repeat(bs, 1): one sample "
            "repeated, i.e. one constant batch; BN running_var becomes ~0, so eval-mode BN divides by sqrt(eps)."),
    "run05": dict(
        truth="double_softmax",
        cmds=[("train.py", "train.log")], ship=["train.py"], home="/home/maria/distiller-shapes",
        symptom="Student CNN plateaus around 81% top-1 while the teacher is at 97%; the distillation loss hardly moves from ~20 "
                "and the student loss never gets below ~1.2.",
        how="Student classifier ends in nn.Softmax(dim=1); its probabilities are then fed to F.cross_entropy and to "
            "log_softmax(output / T) for the KD term."),
    "run06": dict(
        truth="wrong_checkpoint",
        cmds=[("train_teacher.py", "teacher_train.log"), ("distill.py", "distill.log")], ship=[], home="/home/tom/glyph-kd",
        symptom="My distilled student only reaches ~77% and the distill log shows teacher_acc 0.097, although the teacher "
                "checkpoint I load reports val_acc 0.991.",
        how="Checkpoint saved as {'epoch','val_acc','model': state_dict} but loaded with teacher.load_state_dict(ckpt, "
            "strict=False) on the outer dict, so no weight is loaded and the teacher stays at random init."),
    "run07": dict(
        truth="healthy",
        cmds=[("train.py", "train.log")], ship=[], home="/home/ana/qat-tabular",
        symptom="QAT run on our tabular model: accuracy is noisy and hovers around 80% the whole time. Is this run ok?",
        how="No fault: overlapping classes (Bayes ceiling ~0.8), small batch 16 SGD, fp32 pretraining then QAT with "
            "freeze_bn/observer; int8 matches fp32."),
    "run08": dict(
        truth="frozen_parameters",
        cmds=[("train.py", "train.log")], ship=["train.py"], home="/home/kenji/nni-prune-kd",
        symptom="Pruning + distillation run: the loss doesn't move at all over 24 epochs and the student stays at ~27% accuracy "
                "on a 4-class problem.",
        how="optimizer = build_optimizer(model, kc) where `model` is the (frozen) teacher variable, so the student's "
            "parameters are never given to the optimizer; grad_norm logged over the optimizer's params is exactly 0."),
    "run09": dict(
        truth="overfitting",
        cmds=[("train.py", "train.log")], ship=[], home="/home/elena/kd-small-data",
        symptom="Train loss goes practically to zero but the student's validation loss started rising after ~epoch 17 and the "
                "val accuracy never gets past ~75%.",
        how="Only 240 training samples, a 256-wide 2-layer student (and teacher trained on the same 240), 150 epochs, "
            "no weight decay/early stopping."),
    "run10": dict(
        truth="numerical_instability",
        cmds=[("train.py", "train.log")], ship=["train.py"], home="/home/pat/kd-anneal",
        symptom="kd_loss becomes nan at epoch 27 of 30 (when the temperature drops below ~0.45) and in the last epoch the "
                "student's accuracy falls to 10%.",
        how="KD loss written as p_t * (torch.log(softmax(t/T)) - torch.log(softmax(s/T))) and CE as "
            "nll_loss(torch.log(softmax)); with the annealed temperature the probabilities underflow to 0 and log(0) gives "
            "-inf/NaN."),
    "run11": dict(
        truth="dtype_mismatch",
        cmds=[("train.py", "train.log")], ship=[], home="/home/omar/wave-kd",
        symptom="Distillation finishes fine but the script crashes right after saving the fp16 export of the student.",
        how="Export step casts the student to float16 (.to(torch.float16)) and then evaluates it on the float32 validation "
            "loader: RuntimeError Input type (float) and bias type (c10::Half) should be the same."),
    "run12": dict(
        truth="preprocessing_mismatch",
        cmds=[("train_teacher.py", "teacher_train.log"), ("distill.py", "distill.log")], ship=[], home="/home/ravi/sensor-kd",
        symptom="Student distilled from our 99% teacher only reaches ~52%, and the teacher_acc in tensorboard during "
                "distillation is 44%.",
        how="Teacher trained on standardized (z-score) features; distill.yaml uses preprocessing: minmax and feeds the same "
            "min-max scaled tensors to teacher and student."),
}

KEEP_ALWAYS_SUFFIX = {".log", ".csv", ".json", ".jsonl", ".yaml", ".yml", ".txt"}
DROP_SUFFIX = {".pt", ".pth", ".tar"}


def sanitize(path, home):
    """Replace machine-specific absolute paths (run folder, generator folder, venv) in text outputs."""
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        return
    user_root = "/".join(home.split("/")[:3])  # /home/<user>
    new = text
    for d in sorted((str(p) for p in RUNS.iterdir()), key=len, reverse=True):
        new = new.replace(d, home)
    new = new.replace(str(HERE), home)
    for prefix in sorted({sys.prefix, os.path.realpath(sys.prefix)}, key=len, reverse=True):
        new = new.replace(prefix, user_root + "/.venv")
    if new != text:
        path.write_text(new)


def run_one(name, spec):
    src, dst = SRC / name, RUNS / name
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0", PYTHONUNBUFFERED="1")
    env.pop("PYTHONWARNINGS", None)
    rcs = []
    for script, logname in spec["cmds"]:
        t0 = time.time()
        with open(dst / logname, "w") as fh:
            rc = subprocess.call([sys.executable, script], cwd=dst, stdout=fh, stderr=subprocess.STDOUT, env=env)
        rcs.append(rc)
        print(f"  {name}: {script} rc={rc} ({time.time() - t0:.1f}s)", flush=True)
    # strip what the user would not hand over
    for p in sorted(dst.rglob("*"), key=lambda q: len(q.parts), reverse=True):
        if p.is_dir():
            if p.name == "__pycache__":
                shutil.rmtree(p)
            elif not any(p.iterdir()):
                p.rmdir()
            continue
        if p.suffix == ".py" and p.relative_to(dst).as_posix() not in spec["ship"]:
            p.unlink()
        elif p.suffix in DROP_SUFFIX or p.name.endswith(".pth.tar"):
            p.unlink()
    for p in sorted(dst.rglob("*"), key=lambda q: len(q.parts), reverse=True):
        if p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    for p in dst.rglob("*"):
        if p.is_file() and (p.suffix in KEEP_ALWAYS_SUFFIX or p.suffix == ".py"):
            sanitize(p, spec["home"])
    return rcs


def main():
    only = sys.argv[1:]
    RUNS.mkdir(exist_ok=True)
    for name, spec in SPECS.items():
        if only and name not in only:
            continue
        run_one(name, spec)
    truth = {n: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for n, s in SPECS.items()}
    (HERE / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")


if __name__ == "__main__":
    main()
