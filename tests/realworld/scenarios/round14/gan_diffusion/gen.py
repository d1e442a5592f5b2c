"""Generate the gan_diffusion benchmark runs: each run is a real (small, CPU) training of a
generative model; the script under src/ is expanded into runs/<name>/train.py, executed there,
and the artefacts a user would post are kept. Deterministic seeds throughout.

usage: python gen.py [run01 run02 ...]   (default: all)
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(ROOT, "src")
RUNS = os.path.join(ROOT, "runs")
PY = sys.executable


def expand(name):
    s = open(os.path.join(SRC, name)).read()
    s = s.replace("#%DIGITS%", open(os.path.join(SRC, "digits_snippet.txt")).read().rstrip())
    s = s.replace("#%EVAL%", open(os.path.join(SRC, "eval_snippet.txt")).read().rstrip())
    return s


# name: template, config yaml (copied as config.yaml), cli args, stdout file, ship train.py, truth
SPECS = {
    "run01": dict(src="run01.py", cfg="run01.yaml", args=[], log="train.log", ship=False, truth={
        "truth": "lr_too_high",
        "symptom": "Tiny DDPM on the 8-gaussian ring: loss dropped to ~0.6 in the first few hundred steps, then jumped to ~0.9 around step 900 and has sat there since; the samples end up as a blob near the origin instead of 8 clusters.",
        "how": "Adam lr=5e-2 (config optim.lr) for an epsilon-prediction MLP denoiser that trains fine at 1e-3; grad-norm spikes (66 at the start, 15 at step ~800), loss rises from 0.59 to 0.89 and stays ~0.86 vs ~0.45 at lr 1e-3; 2.5% of samples on a mode vs 45% at 1e-3."}),
    "run02": dict(src="run02.py", cfg=None, args=[], log="output.txt", ship=True, truth={
        "truth": "healthy",
        "symptom": "My GAN's D loss bounces between ~0.55 and 0.7 and G loss wanders between 0.8 and 1.1 for the whole run without ever settling; is this actually training or just oscillating?",
        "how": "No fault: Keras-GAN style MLP GAN (BN in G, dropout in D, Adam 2e-4, b1 0.5) on 8x8 digits; per-iteration losses are noisy but the sample checks cover 10/10 classes with FD falling from 2.45 to ~0.7-0.9."}),
    "run03": dict(src="run03.py", cfg=None, args=[], log="console.log", ship=True, truth={
        "truth": "frozen_parameters",
        "symptom": "pix2pix digit completion: G_L1 stays around 61-64 for all 12 epochs and the validation L1 never moves from 0.63, while D_real/D_fake go to ~0.002 and G_GAN keeps climbing.",
        "how": "optimize_parameters() calls set_requires_grad(self.netG, False) before the G update instead of netD, so after the first iteration netG's parameters have requires_grad=False, receive no gradient and Adam skips them; G is frozen at its init (fixed version reaches G_L1 ~7, val L1 0.11 in 3 epochs)."}),
    "run04": dict(src="run04.py", cfg="run04.yaml", args=[], log="log.txt", ship=False, truth={
        "truth": "mode_collapse",
        "symptom": "GAN on an 8-mode ring: D and G losses both hover near 0.69 like the textbook says, but almost every sample lands in one tiny cluster (std ~0.05) that hops to a different place every epoch; never more than 1 of the 8 modes covered.",
        "how": "Generator over-trained relative to the discriminator: n_gen_steps=2 per D step and lr_G=1e-3 vs lr_D=1e-4 (config). G keeps jumping to the single point D currently rates highest; eval shows modes 0-1/8 and sample std 0.02-0.6 vs data std 1.41 throughout."}),
    "run05": dict(src="run05.py", cfg="run05.yaml", args=[], log="train_log.txt", ship=False, truth={
        "truth": "healthy",
        "symptom": "VAE on 8x8 digits: recon flattens out around 30 and the KL keeps creeping up from 1 to ~3.5; is this run ok or is something off?",
        "how": "No fault: MLP VAE (z=8, Adam 1e-3, BCE-with-logits recon, analytic KL); train and val ELBO improve together from -39 to -33.5, sample checks go from 7/10 classes FD 8.0 to 10/10 FD 2.3."}),
    "run06": dict(src="run06.py", cfg=None, args=[], log="stdout.txt", ship=True, truth={
        "truth": "missing_zero_grad",
        "symptom": "DCGAN on 8x8 digits: loss_D creeps up from 0.7 to 3-4 while loss_G drops to ~0.01, samples collapse to one digit, and the D gradient norm I log keeps growing every epoch.",
        "how": "optimizer_D.zero_grad() is never called: D's .grad accumulates every D-loss backward and also the G-loss backward that flows through D, so D steps on an ever-growing stale sum; gradnorm_D climbs 0.75 -> ~1e3 while gradnorm_G stays around 0.2-1."}),
    "run07": dict(src="run07.py", cfg=None, args=[], log="wgan_train.log", ship=False, truth={
        "truth": "exploding_gradients",
        "symptom": "WGAN on the 25-gaussian grid: the critic loss swings into the thousands and tens of thousands with flipping signs, gnorm_D/gnorm_G keep growing, and the generated points cover only a few grid modes.",
        "how": "WGAN critic trained with no Lipschitz constraint at all (no weight clipping, no gradient penalty) with Adam lrD 1e-3 / lrG 1e-4, 5 critic steps: critic weights grow without bound, gnorm_D goes 2 -> ~5e3 and gnorm_G 0.15 -> ~2e5 within 1000 generator iterations, losses reach 1e4."}),
    "run08": dict(src="run08.py", cfg=None, args=["--seed", "60", "--steps", "1500", "--log_every", "20"], log="train.log", ship=True, truth={
        "truth": "numerical_instability",
        "symptom": "Score-based diffusion on two moons: the loss looked normal for the first ~140 steps, then turned nan and stayed nan (grad_norm nan too); sampling afterwards returns nan.",
        "how": "betas = linspace(0, beta_max, T) makes sigma_0 = sqrt(1 - alphas_bar[0]) exactly 0; the loss forms target = -noise / sigma and multiplies by sigma**2, so any batch that samples t=0 gives inf*0 = nan (first at step ~141 with this seed) and the nan gradients poison Adam's state; beta_start=1e-4 or the stable form (sigma*score + noise)**2 trains fine."}),
    "run09": dict(src="run09.py", cfg=None, args=[], log="train_out.txt", ship=True, truth={
        "truth": "double_softmax",
        "symptom": "DCGAN-style run on 8x8 digits: from about epoch 15 on Loss_D is pinned at 1.3866 and Loss_G at 0.6929, D(x) reads 0.0000 and D(G(z)) ~0.0005, and every generated image is the same digit.",
        "how": "Discriminator ends in nn.Sigmoid() but the criterion is nn.BCEWithLogitsLoss (sigmoid applied twice): the loss can never fall below ~0.31 per term or exceed ln 2 for G, D drives its inner sigmoid into saturation at 0 for every input, gradients vanish and both losses freeze at 2 ln 2 / ln 2 (same code without the Sigmoid reaches 9/10 classes, FD 7.7)."}),
    "run10": dict(src="run10.py", cfg="run10.yaml", args=[], log="train.log", ship=False, truth={
        "truth": "bad_initialization",
        "symptom": "Vanilla GAN on digits: d_loss starts around 250 and g_loss is already 420 at the first log line, climbs past 1000 within two epochs and never comes down; the generated images are almost entirely pure 0/1 pixels.",
        "how": "All Linear weights initialised N(0, 1.0) (config init.std=1.0, width 256) instead of a fan-in scaled init: pre-activations in the thousands, G's tanh saturated on 99.7% of pixels and D's logits ~1e3, so g_loss starts at ~420 and sits at ~1000-1200 from epoch 2 to 30; the same config with xavier init reaches 10/10 classes, FD 2.9."}),
    "run11": dict(src="run11.py", cfg=None, args=[], log="output.log", ship=True, truth={
        "truth": "unnormalized_inputs",
        "symptom": "Simple GAN on 8x8 digit images: D loss goes to ~0.004 and G loss climbs steadily to ~5, and the sample checks never look like the data (FD stays 65-104, mostly one class).",
        "how": "Real images are fed to D as raw 0-255 float pixels (uint8 converted with no /127.5-1 normalisation) while G ends in Tanh, so fakes live in [-1,1] and reals in [0,255]; D separates them trivially and G's gradient can't close the gap."}),
    "run12": dict(src="run12.py", cfg="run12.yaml", args=[], log="train.log", ship=False, truth={
        "truth": "lr_schedule_bug",
        "symptom": "DDPM on 8x8 digits: the loss drops during the first epoch and then nothing changes; val_loss prints exactly 0.2732 at every check from epoch 5 to 40 and the samples are poor.",
        "how": "StepLR(step_size=lr_step_epochs=10, gamma=0.5) meant per epoch but sched.step() is called every batch: lr halves every 10 steps, 2e-3 -> 2e-6 by step 100 and ~1e-51 by the end, so training effectively stops after ~100 steps (per-epoch stepping reaches val 0.114, FD 1.45 vs 0.273, FD 29)."}),
}

JUNK_EXT = (".pt", ".pth", ".ckpt", ".npy")


def build(name):
    spec = SPECS[name]
    d = os.path.join(RUNS, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    if spec["cfg"]:
        shutil.copy(os.path.join(SRC, spec["cfg"]), os.path.join(d, "config.yaml"))
    with open(os.path.join(d, "train.py"), "w") as f:
        f.write(expand(spec["src"]))
    t0 = time.time()
    with open(os.path.join(d, spec["log"]), "w") as out:
        r = subprocess.run([PY, "train.py"] + spec["args"], cwd=d, stdout=out, stderr=subprocess.PIPE, text=True)
    dt = time.time() - t0
    if r.returncode != 0 or r.stderr.strip():
        print(f"[{name}] rc={r.returncode} stderr:\n{r.stderr[-2000:]}")
    # keep only what a user would post: logs, configs, csv, (script)
    for p in glob.glob(os.path.join(d, "**", "*"), recursive=True):
        if os.path.isfile(p) and p.endswith(JUNK_EXT):
            os.remove(p)
    for sub in sorted(glob.glob(os.path.join(d, "**", ""), recursive=True), reverse=True):
        if sub.rstrip("/") != d and os.path.isdir(sub) and not os.listdir(sub):
            os.rmdir(sub)
    if not spec["ship"]:
        os.remove(os.path.join(d, "train.py"))
    print(f"[{name}] {spec['truth']['truth']}: {dt:.1f}s -> {sorted(os.listdir(d))}")


def main():
    names = sys.argv[1:] or sorted(SPECS)
    for n in names:
        build(n)
    truth_path = os.path.join(ROOT, "truth.json")
    with open(truth_path, "w") as f:
        json.dump({n: SPECS[n]["truth"] for n in sorted(SPECS)}, f, indent=2)


if __name__ == "__main__":
    main()
