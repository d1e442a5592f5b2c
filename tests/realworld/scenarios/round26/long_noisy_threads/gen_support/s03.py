"""run03: a few rows carry label -1 (unknown) -> CrossEntropy target out of range, crash mid-epoch."""
import random, traceback, datetime as dt, sys
from common import *
from thread import GHIssue, code, details, when
import noise

USER_PATH = "/home/akhan/work/defect-cls/train.py"
SITE = "/home/akhan/miniconda3/envs/defect/lib/python3.11/site-packages/"

# the user's training loop, compiled under the user's file name so the traceback looks like theirs
LOOP = "\n" * 70 + '''def run(model, opt, X, y, bs, gen, log_every, logf):
    step = 0
    for epoch in range(100):
        model.train()
        perm = torch.randperm(len(X), generator=gen)
        for i in range(0, len(X), bs):
            idx = perm[i:i + bs]
            xb, yb = X[idx], y[idx]
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % log_every == 0:
                logf(epoch, step, loss.item())
'''


def crash_run(X, y, bs, seed, log_every=50):
    ns = {"torch": torch, "F": F}
    exec(compile(LOOP, USER_PATH, "exec"), ns)
    torch.manual_seed(seed)
    model = mlp(X.shape[1], 128, 8, depth=2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(seed)
    logs = []
    perm_seen = {}
    try:
        ns["run"](model, opt, X, y, bs, g, log_every, lambda e, s, l: logs.append((e, s, l)))
    except IndexError:
        tb = traceback.format_exc()
    # find the failing step / position by replaying the permutation
    g2 = torch.Generator().manual_seed(seed)
    step = 0
    for epoch in range(100):
        perm = torch.randperm(len(X), generator=g2)
        for i in range(0, len(X), bs):
            step += 1
            yb = y[perm[i:i + bs]]
            bad = (yb < 0) | (yb >= 8)
            if bad.any():
                pos = int(bad.nonzero()[0])
                return logs, tb, epoch, step, pos, int(yb[pos])
    raise RuntimeError


def clean_tb(tb):
    out = []
    for l in tb.splitlines():
        if "site-packages/" in l:
            l = l.split("File \"")[0] + "File \"" + SITE + l.split("site-packages/")[1]
        out.append(l)
    # the user's script calls run() from main(); add those frames like the real script has
    out.insert(1, f'  File "{USER_PATH}", line 142, in <module>\n    main()')
    out.insert(2, f'  File "{USER_PATH}", line 136, in main\n    run(model, opt, X_train, y_train, cfg.batch_size, gen, cfg.log_every, log_fn)')
    # drop the exec-frame of the generator itself; add the source line of the user's frame
    res, skip = [], False
    for l in out:
        if skip:
            skip = False
            continue
        if "s03.py" in l:
            skip = True
            continue
        res.append(l)
        if USER_PATH in l and "in run" in l:
            res.append("    loss = F.cross_entropy(out, yb)")
            res.append("           ^^^^^^^^^^^^^^^^^^^^^^^^")
    return "\n".join(res)


def build(out):
    r = random.Random(303)
    task = Mixture(12, 8, 51, blobs=3, sigma=0.9)
    X, y = task.sample(20000, 52)
    # rows whose label could not be resolved in the export keep the sentinel -1
    for s in range(53, 200):
        rr = np.random.default_rng(s)
        yy = y.copy()
        bad_rows = rr.choice(len(y), 3, replace=False)
        yy[bad_rows] = -1
        Xt, yt = torch.tensor(X), torch.tensor(yy)
        logs, tb, ep, step, pos, val = crash_run(Xt, yt, 64, 0)
        if 180 <= step <= 500:
            break
    logs32, tb32, ep32, step32, pos32, _ = crash_run(Xt, yt, 32, 0)
    logs_s1, tb_s1, ep_s1, step_s1, pos_s1, _ = crash_run(Xt, yt, 64, 1)
    tb_cpu = clean_tb(tb)
    nuniq = len(np.unique(yy)); ymax = int(yy.max())
    # second reporter: their labels are 1..K (K=5) -> crash on the first batch
    task2 = Mixture(10, 5, 61, sigma=1.0)
    X2, y2 = task2.sample(2000, 62)
    y2 = y2 + 1
    ns = {}
    g = torch.Generator().manual_seed(7)
    perm = torch.randperm(len(X2), generator=g)[:32]
    pos2 = int((torch.tensor(y2)[perm] >= 5).nonzero()[0])

    def q(a):
        return [len(a), a.mean(), a.std(ddof=1), a.min(), *np.percentile(a, [25, 50, 75]), a.max()]
    cols = [("label", yy.astype(float)), ("width_mm", X[:, 0] * 3.1 + 24.0), ("lum_mean", X[:, 3] * 18.5 + 121.0)]
    stats = [q(c) for _, c in cols]
    names = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]
    describe = ">>> df = pd.read_csv(\"data/parts_2024q2.csv\")\n>>> df[[\"label\", \"width_mm\", \"lum_mean\"]].describe()\n"
    describe += " " * 5 + "".join(f"{n:>14}" for n, _ in cols) + "\n"
    for i, nm in enumerate(names):
        describe += f"{nm:<5}" + "".join(f"{st[i]:14.6f}" for st in stats) + "\n"
    gpu_tb = lambda p, s: f"""../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [{p},0,0] Assertion `t >= 0 && t < n_classes` failed.
Traceback (most recent call last):
  File "{USER_PATH}", line 142, in <module>
    main()
  File "{USER_PATH}", line 136, in main
    run(model, opt, X_train, y_train, cfg.batch_size, gen, cfg.log_every, log_fn)
  File "{USER_PATH}", line 82, in run
    loss.backward()
  File "{SITE}torch/_tensor.py", line 521, in backward
    torch.autograd.backward(
  File "{SITE}torch/autograd/__init__.py", line 289, in backward
    _engine_run_backward(
  File "{SITE}torch/autograd/graph.py", line 768, in _engine_run_backward
    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."""
    loglines = lambda L: "\n".join(f"[epoch {e}] step {s:5d}  loss {l:.4f}" for e, s, l in L)

    base = dt.datetime(2024, 6, 3, 11, 20)
    iss = GHIssue("defect-ai/inspect-train", 88, "RuntimeError: CUDA error: device-side assert triggered — random crash after a few hundred steps",
                  "akhan-dev", base, labels=["bug"])
    iss.comment("akhan-dev", base, f"""Training crashes with a device-side assert after a few hundred steps. It's not at a fixed point in time and the first ~{step - 1} steps look completely normal, so I'm starting to suspect the GPU (it's a second-hand 3090).

Log right before the crash:

{code(loglines(logs[-4:]) + chr(10) + gpu_tb(pos, step))}

Config: 8 classes, batch 64, AdamW 1e-3, tabular features from our new export (`parts_2024q2.csv`, 20k rows).

{details("collect_env", code(noise.collect_env(r, torch_v="2.4.1", gpu_name="3090")))}""")
    iss.comment("vpetrov", when(base, hours=2), f"""+1 I get the exact same assert with a completely different model, but it happens on the very first batch for me:

{code(f"../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [{pos2},0,0] Assertion `t >= 0 && t < n_classes` failed.{chr(10)}RuntimeError: CUDA error: device-side assert triggered")}

torch 2.4.0, A10G on AWS.""")
    iss.comment("bgriffin", when(base, hours=3), "device-side asserts are usually a driver/CUDA mismatch. Check that your "
                "driver supports the CUDA version torch was built with, and post `nvidia-smi`.")
    iss.comment("akhan-dev", when(base, hours=4), code(noise.nvidia_smi(r, gpu_name="3090", when=dt.datetime(2024, 6, 3, 15, 2, 37))) + "\n\nDriver looks recent enough to me?")
    iss.comment("tomasz-w", when(base, hours=7), "Could also be OOM showing up as an assert on some cards. Try halving the batch size.")
    iss.comment("akhan-dev", when(base, days=1, hours=1), f"""Batch 32: still crashes, now at step {step32}. With batch 64 but `--seed 1` it crashes at step {step_s1} instead of {step}. So it moves around, which again smells like hardware to me.

{code(loglines(logs32[-3:]))}""")
    iss.comment("lmueller", when(base, days=1, hours=2), "Same family of error on a V100 here, ours went away after a reboot. Might be worth a try.")
    iss.comment("n-ishikawa", when(base, days=1, hours=5), "Hi, maintainer here. CUDA errors are reported asynchronously so the "
                "stack trace above is not where the failure happened. Please rerun with `CUDA_LAUNCH_BLOCKING=1`, or even "
                "simpler, on CPU (`--device cpu`) with the same seed, and post the full traceback.", role="Member")
    iss.comment("akhan-dev", when(base, days=2, hours=2), f"""Ran on CPU with `--device cpu --seed 0`. Took a while but it crashes at the same step ({step}). Full output:

{code(loglines(logs[-2:]) + chr(10) + tb_cpu)}

I don't get it, the labels look fine to me (0-7 as in the config):

{code(describe, 'python')}

Why would the same data run fine for {step - 1} steps?""")
    iss.comment("bgriffin", when(base, days=2, hours=4), "Can you try torch 2.2.2? We pinned to it in our lab because 2.4 "
                "had some regressions with AdamW fused kernels.\n\n" + details("our working env", code(noise.pip_freeze(r, torch_v="2.2.2"))))
    iss.comment("vpetrov", when(base, days=3), "Reboot did not fix it for me fwiw.")
    write(f"{out}/thread.md", iss.render())
    return {"truth": "label_out_of_range",
            "symptom": "Training dies with 'CUDA error: device-side assert triggered' after a few hundred normal steps, "
                       "and the step where it dies changes with the seed and batch size.",
            "how": f"3 of 20000 rows in the export carry the sentinel label -1 with num_classes=8; the run trains normally "
                   f"until the first batch that holds one (step {step}, seed 0) and dies; the CPU traceback in the thread says "
                   f"'Target -1 is out of bounds' and the reporter's own describe() shows label min -1.0 while he reads it as 0-7."}
