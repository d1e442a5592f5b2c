"""Check that each planted fault shows in the numbers the runs wrote, and run the control experiments.

Usage: python check.py [--controls]
Prints a compact curve summary per run; with --controls also re-runs the fault-free counterparts
(scratch output under work/controls, nothing is written into runs/).
"""
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
WORK = os.path.join(HERE, "work")


def fs_summary(text):
    train = [(int(m.group(1)), float(m.group(2))) for m in
             re.finditer(r"\| train \| epoch (\d+) \| loss ([\d.e+-]+|inf|nan)", text)]
    valid = [(int(m.group(1)), float(m.group(2))) for m in
             re.finditer(r"\| valid \| epoch (\d+) \| valid on 'valid' subset \| loss ([\d.e+-]+|inf|nan)", text)]
    inner = [(int(d["num_updates"]), float(d["loss"]), float(d["gnorm"]), d["lr"]) for d in
             (dict(re.findall(r"(\w+)=([^,\s]+)", line)) for line in text.splitlines() if "| train_inner |" in line)]
    err = [line for line in text.splitlines() if "Error" in line]
    return train, valid, inner, err


def mg_summary(text):
    it = []
    for line in text.splitlines():
        m = re.search(r"iteration\s+(\d+)/", line)
        if m and "consumed samples" in line:
            g = lambda k: (re.search(k + r": ([^|]+)\|", line) or [None, None])[1]
            it.append((int(m.group(1)), g("lm loss"), g("learning rate"), g("grad norm"), g("loss scale"),
                       g("number of skipped iterations"), g("number of nan iterations")))
    val = [(m.group(1), m.group(2)) for m in re.finditer(r"validation loss at (.*?) \| lm loss value: (\S+)", text)]
    return it, val


def show(name, truth):
    text = open(os.path.join(RUNS, name, "train.log")).read()
    files = sorted(os.listdir(os.path.join(RUNS, name)))
    print(f"=== {name} [{truth}] files={files}")
    if "fairseq" in text:
        train, valid, inner, err = fs_summary(text)
        print("  inner (upd, loss, gnorm):", [(u, l, g) for u, l, g, _ in inner[:: max(1, len(inner) // 12)]])
        print("  train/epoch:", [round(x[1], 3) for x in train])
        print("  valid/epoch:", [round(x[1], 3) for x in valid])
        if err:
            print("  error:", err[-1].strip())
    else:
        it, val = mg_summary(text)
        step = max(1, len(it) // 15)
        for row in it[::step] + ([it[-1]] if it and it[-1] is not it[::step][-1] else []):
            print("  it %5d loss %-13s lr %-13s gn %-8s scale %-13s skip %s nan %s" % tuple(
                (x.strip() if isinstance(x, str) else ("-" if x is None else x)) for x in row))
        print("  valid:", [(k.replace("iteration ", ""), v) for k, v in val])


def controls():
    py = sys.executable
    ctl = os.path.join(WORK, "controls")
    os.makedirs(ctl, exist_ok=True)
    import gen
    specs = {s["name"]: s for s in gen.SPECS}

    def rerun(name, argv, tag):
        wd = os.path.join(WORK, name)
        r = subprocess.run([py, "train.py"] + argv, cwd=wd, capture_output=True, text=True,
                           env=dict(os.environ, OMP_NUM_THREADS="1"))
        with open(os.path.join(ctl, f"{name}_{tag}.log"), "w") as f:
            f.write(r.stdout + r.stderr)
        return r.stdout + r.stderr

    # run03 without --fp16: same patched script and flags
    a = [x for x in specs["run03"]["argv"] if x != "--fp16"]
    it, val = mg_summary(rerun("run03", a, "fp32"))
    print("control run03 fp32: last loss", it[-1][1], "valid", val[-2:])
    # run06 with lr 1e-3, 2 epochs
    a = list(specs["run06"]["argv"])
    a[a.index("--lr") + 1] = "1e-3"
    a[a.index("--max-epoch") + 1] = "2"
    a[a.index("--save-dir") + 1] = "checkpoints/ctl"
    tr, va, _, _ = fs_summary(rerun("run06", a, "lr1e-3"))
    print("control run06 lr 1e-3: valid/epoch", va)
    # run09 with the default adam eps
    a = list(specs["run09"]["argv"])
    a[a.index("--adam-eps") + 1] = "1e-8"
    it, val = mg_summary(rerun("run09", a, "eps1e-8"))
    print("control run09 eps 1e-8: loss at", it[len(it) * 3 // 4][0], it[len(it) * 3 // 4][1], "last", it[-1][1],
          "valid", val[-1])
    # run12 with SGD lr 0.3
    a = list(specs["run12"]["argv"])
    a[a.index("--lr") + 1] = "0.3"
    a[a.index("--min-lr") + 1] = "0.03"
    it, val = mg_summary(rerun("run12", a, "lr0.3"))
    print("control run12 lr 0.3: losses", [r[1] for r in it[::5]], "valid", val[-1])
    # run04: final checkpoint on documents that are really held out
    ev = r"""
import sys, math, torch, importlib.util
spec = importlib.util.spec_from_file_location("fs", "train.py"); fs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fs)
sys.argv = ["x", sys.argv[1]] + sys.argv[2:]
args = fs.get_args()
d = fs.Dictionary(args.data + "/dict.txt")
m = fs.build_model(args, len(d)); m.load_state_dict(torch.load("checkpoints/tales/checkpoint_last.pt")["model"]); m.eval()
for split in ("valid",):
    src, tgt = fs.make_blocks(fs.load_split(args.data, split, d), args.tokens_per_sample)
    with torch.no_grad():
        l, n = fs.lm_loss(m(src), tgt, args)
    print("HELDOUT bits/token %.3f" % (l.item() / tgt.numel() / math.log(2)))
"""
    a = list(specs["run04"]["argv"])
    a[0] = os.path.join(WORK, "data", "tales_heldout")
    r = subprocess.run([py, "-c", ev] + a, cwd=os.path.join(WORK, "run04"), capture_output=True, text=True)
    print("control run04:", [l for l in (r.stdout + r.stderr).splitlines() if "HELDOUT" in l or "Error" in l])


def main():
    truth = json.load(open(os.path.join(HERE, "truth.json")))
    for name in sorted(truth):
        if os.path.exists(os.path.join(RUNS, name, "train.log")):
            show(name, truth[name]["truth"])
    if "--controls" in sys.argv:
        controls()


if __name__ == "__main__":
    main()
