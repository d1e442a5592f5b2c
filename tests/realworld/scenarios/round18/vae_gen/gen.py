"""Generate the benchmark run folders under runs/ by really training each model.

Usage: <python> gen.py            (runs from any directory)
Each run's training script lives in src/runXX.py; it is copied into runs/runXX/train.py,
executed there with the same interpreter (cwd = run folder, 1 thread, fixed seeds), and its
console output captured to the run's log file. train.py is kept only for the runs listed with
keep_code=True. Absolute paths that leak into tracebacks are rewritten to a neutral user path.
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
RUNS = os.path.join(HERE, "runs")
sys.path.insert(0, SRC)

from data_run04 import write_sensors_csv  # noqa: E402

# name: (script, console-log file name or None, keep train.py?, extra input files {dest: src-file})
PLAN = {
    "run01": ("run01.py", "train.log", False, {"config.yaml": "run01_config.yaml"}),
    "run02": ("run02.py", "train_log.txt", True, {}),
    "run03": ("run03.py", "training.log", True, {}),
    "run04": ("run04.py", "ae_sensors.log", True, {}),
    "run05": ("run05.py", "stdout.txt", False, {}),
    "run06": ("run06.py", "run.log", False, {}),
    "run07": ("run07.py", "stdout.log", True, {"configs/vae.yaml": "run07_vae.yaml"}),
    "run08": ("run08.py", None, False, {}),
    "run09": ("run09.py", "console.log", False, {"config.json": "run09_config.json"}),
    "run10": ("run10.py", "log.txt", True, {}),
    "run11": ("run11.py", "out.txt", True, {}),
    "run12": ("run12.py", "train.log", False, {}),
}

USER_HOME = {
    "run01": "/home/mara/code/hvae", "run02": "/home/jli/vae-shapes", "run03": "/home/ob/pythae_exps",
    "run04": "/home/svc-ml/sensor-ae", "run05": "/home/tk/deep_ae", "run06": "/home/research/flows2d",
    "run07": "/home/ana/PyTorch-VAE", "run08": "/home/pl/lit-vae", "run09": "/home/dev/mlpvae",
    "run10": "/home/r.k/gvae", "run11": "/home/student/ae_hw", "run12": "/home/lab/spectra",
}
SITE = "/opt/conda/envs/ml/lib/python3.11/site-packages"

TRUTH = {
    "run01": {"truth": "mixed_precision_overflow",
              "symptom": "Since I switched this VAE to 16-mixed precision the train nll becomes inf around epoch 3-6 and a few epochs later everything is nan; val_elbo looked fine right up to that point.",
              "how": "Heteroscedastic Gaussian-decoder VAE trained under torch.autocast(float16) with GradScaler; the decoder precision term exp(-x_logvar) overflows fp16 (x_logvar < -11.1) on near-constant background pixels, so every step gets inf grads, the scaler skips all steps and halves the loss scale to 0, then params go nan. The same code in fp32 trains fine (checked)."},
    "run02": {"truth": "healthy",
              "symptom": "Is this conv VAE run ok? I want to reuse the setup for a bigger sweep.",
              "how": "Conv VAE, 8-d latent, Adam 1e-3, BCE-sum recon + KL, 30 epochs on 16x16 generated shapes; no fault."},
    "run03": {"truth": "lr_schedule_bug",
              "symptom": "Eval loss drops in the first epoch and then sits at ~31.8 for all 60 epochs; the model basically stops learning right away.",
              "how": "StepLR(step_size=20, gamma=0.5) meant per epoch but scheduler.step() is called inside the batch loop, so the lr halves every 20 batches and is ~1e-7 by epoch 5 (1e-70 at the end); the same model with per-epoch stepping reaches eval loss ~20.8 (checked)."},
    "run04": {"truth": "nan_in_data",
              "symptom": "The autoencoder loss turns into nan about 50 steps into the first epoch and never recovers, even though I clip gradients.",
              "how": "data/sensors.csv has two empty cells (row 1874 'flow', row 2411 'rpm'); pandas reads them as NaN, mean/std skip NaN so standardisation keeps them, and the first batch that contains one of those rows (between logged steps 50 and 55) makes loss, grads and then all weights nan."},
    "run05": {"truth": "vanishing_gradients",
              "symptom": "My deep autoencoder's reconstruction error gets stuck at ~0.06 after two epochs and doesn't improve at all over 40 epochs.",
              "how": "14-layer all-sigmoid MLP autoencoder (6 hidden layers of 128 per side, no normalisation/residuals), SGD; the per-layer grad norms in metrics.csv fall from ~3e-4 at the output to ~5e-13 at encoder.0, and the loss sits at the mean-image MSE."},
    "run06": {"truth": "healthy",
              "symptom": "The flow's train nll is really noisy and val nll has hardly moved over the last thousand steps. Is something wrong, or is this run fine?",
              "how": "RealNVP (6 affine couplings) on 2-D two moons, Adam 3e-4, batch 32, 2000 steps; per-step batch nll is noisy because of the small batch, val nll falls 2.52 -> ~1.80 and flattens; no fault."},
    "run07": {"truth": "mode_collapse",
              "symptom": "Every sample and every reconstruction from my VAE comes out as the same blurry blob, even though the loss keeps going down.",
              "how": "PyTorch-VAE style VanillaVAE with F.mse_loss (mean over pixels) + kld_weight 1.0 * KL (summed over latents): the KL dominates, the posterior collapses to the prior (KLD -> ~0, 0/16 active units), and the decoder outputs the mean image for every z (val_sample_pixel_std 0.027 -> 0.006 over 20 epochs)."},
    "run08": {"truth": "lr_too_high",
              "symptom": "The ELBO jumps all over the place, the KL term sometimes explodes into the thousands and the final val elbo is worse than after epoch 2.",
              "how": "MLP VAE with Adam at lr 0.1 (no clipping): recon stays at the mean-image level (~31.6), KL and grad norm spike repeatedly (grad norm up to ~5e3), val elbo oscillates between about -90 and -1700; at lr 1e-3 the same model reaches val elbo ~-24 (checked)."},
    "run09": {"truth": "label_out_of_range",
              "symptom": "Training runs fine for three epochs and then crashes at the start of epoch 4 with a RuntimeError from the loss.",
              "how": "Brightness/noise augmentation switched on from epoch 4 (augment.start_epoch=4) rescales images by U(0.85, 1.2) and adds Gaussian noise without clamping, and the augmented images are used as BCE targets; F.binary_cross_entropy raises 'all elements of target should be between 0 and 1'."},
    "run10": {"truth": "numerical_instability",
              "symptom": "The ELBO was improving steadily and then at epoch 25 everything suddenly became nan.",
              "how": "Gaussian likelihood computed as torch.log(torch.exp(-0.5*((x-mean)/sigma)**2)/(sigma*sqrt(2pi))); as the learned sigma_x shrinks to ~0.15 a heavy-tailed (student-t) outlier gives exp underflow to 0, log(0) = -inf, nan grads and nan weights. The same model with the log-density written analytically trains through 40 epochs (checked)."},
    "run11": {"truth": "missing_zero_grad",
              "symptom": "The autoencoder loss never really goes down, it bounces and then blows up while the grad norm grows every epoch; I already lowered the lr to 5e-5 and it still diverges.",
              "how": "optimizer.zero_grad() is never called in the training loop, so .grad accumulates across all steps; with SGD momentum 0.9 the logged grad norm climbs steadily from ~3 to ~3e3 and the MSE oscillates with growing amplitude to ~1e3."},
    "run12": {"truth": "unnormalized_inputs",
              "symptom": "Reconstruction MSE starts around ten million, sits near 40k for a long time, then jumps around; the gradient norms are in the hundreds of thousands.",
              "how": "Autoencoder fed raw spectrometer counts (values ~700-33000, mean ~4300) with no scaling, MSE loss, Adam 1e-3: loss starts ~3e7, plateaus at ~4e4 from epoch ~10 to ~25 before dropping, then stays noisy; grad norms 1e5-3e6 throughout."},
}


def scrub(run_dir, name):
    real_run = os.path.realpath(run_dir)
    site = None
    try:
        import torch  # noqa: F401
        site = os.path.dirname(os.path.dirname(os.path.realpath(sys.modules["torch"].__file__)))
    except Exception:
        pass
    reps = [(real_run, USER_HOME[name]), (run_dir, USER_HOME[name])]
    if site:
        reps.append((site, SITE))
    for root, _, files in os.walk(run_dir):
        for fn in files:
            p = os.path.join(root, fn)
            if fn.startswith("events.out.tfevents"):
                continue
            try:
                with open(p) as fh:
                    s = fh.read()
            except UnicodeDecodeError:
                continue
            t = s
            for a, b in reps:
                t = t.replace(a, b)
            if t != s:
                with open(p, "w") as fh:
                    fh.write(t)


def run_one(name):
    script, logname, keep, extra = PLAN[name]
    run_dir = os.path.join(RUNS, name)
    if os.path.exists(run_dir):
        shutil.rmtree(run_dir)
    os.makedirs(run_dir)
    shutil.copy(os.path.join(SRC, script), os.path.join(run_dir, "train.py"))
    for dest, srcf in extra.items():
        os.makedirs(os.path.dirname(os.path.join(run_dir, dest)) or run_dir, exist_ok=True)
        shutil.copy(os.path.join(SRC, srcf), os.path.join(run_dir, dest))
    if name == "run04":
        os.makedirs(os.path.join(run_dir, "data"), exist_ok=True)
        write_sensors_csv(os.path.join(run_dir, "data", "sensors.csv"))
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0", PYTHONUNBUFFERED="1",
               PYTHONDONTWRITEBYTECODE="1")
    t0 = time.time()
    proc = subprocess.run([sys.executable, "train.py"], cwd=run_dir, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if logname:
        with open(os.path.join(run_dir, logname), "w") as fh:
            fh.write(proc.stdout)
    elif proc.stdout.strip():
        print(f"[{name}] unexpected console output:\n{proc.stdout[-2000:]}")
    if not keep:
        os.remove(os.path.join(run_dir, "train.py"))
    shutil.rmtree(os.path.join(run_dir, "__pycache__"), ignore_errors=True)
    scrub(run_dir, name)
    print(f"[{name}] exit={proc.returncode} {time.time() - t0:.1f}s truth={TRUTH[name]['truth']}", flush=True)


def main():
    names = sys.argv[1:] or list(PLAN)
    os.makedirs(RUNS, exist_ok=True)
    for n in names:
        run_one(n)
    truth_path = os.path.join(HERE, "truth.json")
    with open(truth_path, "w") as fh:
        json.dump(TRUTH, fh, indent=2)


if __name__ == "__main__":
    main()
