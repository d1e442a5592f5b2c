"""Generate the benchmark run folders under ./runs by really training small torch models.

Usage:  <python with torch, numpy, pyyaml> gen.py [run01 run02 ...]

Every training script lives in ./scripts; it is copied into its run folder as train.py, executed
there with sys.executable (cwd = run folder), and removed again unless the run ships its code.
The ground truth (taxonomy id, the user's complaint, how the fault was planted) goes to ./truth.json.
All seeds are fixed; only wall-clock figures (timestamps, speeds, batch_cost) differ between runs.
"""
import json
import os
import shutil
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "scripts")
RUNS_DIR = os.path.join(HERE, "runs")

RUNS = [
    dict(name="run01", truth="healthy",
         script="run01.py", ship_script=False, args=[],
         configs={"run01_config.yaml": "ResNet_tiny.yaml"},
         log="train.log", log_from="stdout",
         home="/home/zhangwei/PaddleClas",
         symptom="Is this run ok? It's our small ResNet recipe on the 16x16 shapes set, val top1 ends around 0.95 "
                 "after 20 epochs. Anything to worry about before I scale it up?",
         how="No fault: ResNet-style CNN with BN, Momentum 0.05, 1-epoch linear warm-up + cosine, L2 5e-4, "
             "normalised inputs, shuffled data."),
    dict(name="run02", truth="lr_too_high",
         script="run02.py", ship_script=True,
         args=["--lr", "0.5", "--num-epochs", "10", "--batch-size", "100"],
         extra={"cmd.txt": "python train.py --lr 0.5 --num-epochs 10 --batch-size 100 2>&1 | tee train.log\n"},
         log="train.log", log_from="stdout+stderr",
         home="/home/mike/sensor_mlp",
         symptom="My MLP hits ~93% train accuracy in the first epoch, then it gets worse every epoch, the "
                 "cross-entropy throws some huge values and from epoch 4 on it's stuck at ~20% (chance). Why does "
                 "it unlearn?",
         how="SGD with momentum 0.9 at lr=0.5 (passed on the command line; the script's default 0.1 trains to "
             "~96%) on a 3-layer ReLU MLP over standardised tabular data."),
    dict(name="run03", truth="lr_too_low",
         script="run03.py", ship_script=False, args=[],
         configs={"run03_config.yaml": "lenet_config.yaml"},
         log="train.log", log_from="stdout",
         home="/home/liu/models/lenet",
         symptom="LeNet trained for 12 epochs and the loss only crept down from 2.3, final accuracy is poor. "
                 "Is LeNet just too small for this data?",
         how="Momentum optimizer with lr=0.0002 in lenet_config.yaml (the same net reaches ~93% in 10 epochs "
             "at lr 0.01); everything else standard."),
    dict(name="run04", truth="lr_schedule_bug",
         script="run04.py", ship_script=True, args=["-c", "VGG_tiny.yaml"],
         configs={"run04_config.yaml": "VGG_tiny.yaml"},
         extra={"cmd.txt": "python train.py -c VGG_tiny.yaml 2>&1 | tee train.log\n"},
         log="train.log", log_from="stdout",
         home="/home/chen/color_shapes",
         symptom="Loss drops during the first few iterations of epoch 1 and then barely moves for the other "
                 "19 epochs; val top1 only reaches ~0.58. The config is a normal piecewise schedule starting "
                 "at 0.1.",
         how="MultiStepLR(milestones=decay_epochs=[8,12,16]) is stepped after every batch instead of every "
             "epoch, so the lr decays 0.1->0.01->0.001->0.0001 within the first 16 iterations of epoch 1."),
    dict(name="run05", truth="overfitting",
         script="run05.py", ship_script=False, args=[],
         log="train.log", log_from="stdout+stderr",
         home="/home/ana/tabular",
         symptom="Training accuracy is 100% after a few epochs but validation accuracy never gets past ~73%, and "
                 "the validation cross-entropy keeps going up the longer it trains.",
         how="2x512 ReLU MLP trained 120 epochs with Adam on only 300 training rows of 60 features (6 "
             "informative), no regularisation / early stopping; 2000 validation rows."),
    dict(name="run06", truth="label_noise",
         script="run06.py", ship_script=False, args=[],
         configs={"run06_config.yaml": "ShallowCNN_parts.yaml"},
         log="train.log", log_from="stdout",
         home="/home/wangfang/PaddleClas",
         symptom="训练集 top1 一直卡在 0.55~0.63 上不去，train loss 也停在 1.2 以上，可验证集 top1 反而有 0.73~0.85，"
                 "这正常吗？",
         how="40% of the training labels replaced by uniformly random class ids (validation labels clean); "
             "small CNN, Momentum 0.05 cosine, 30 epochs."),
    dict(name="run07", truth="label_out_of_range",
         script="run07.py", ship_script=True, args=[],
         configs={"run07_config.yaml": "gru_intent.yaml"},
         log="train.log", log_from="stdout+stderr",
         home="/home/kevin/intent_cls",
         symptom="Training runs for ~25 steps and then dies with an IndexError inside cross_entropy. "
                 "It worked on the previous version of the data.",
         how="The label map is built from the sorted label names found in the data (6 names incl. a rare "
             "'unknown', id 5) while the config/model has num_classes: 5; the first batch that contains an "
             "'unknown' sample crashes with 'Target 5 is out of bounds'."),
    dict(name="run08", truth="unnormalized_inputs",
         script="run08.py", ship_script=True, args=[],
         log="train.log", log_from="stdout",
         home="/home/zhao/jittor_glyphs",
         symptom="Loss starts at 10, jumps to crazy values in the first few batches and then sits at 2.30 for "
                 "all 5 epochs; test accuracy stays at 11.5%.",
         how="Raw uint8 pixel values (0-255) fed to the CNN as float without /255 or mean/std normalisation; "
             "SGD lr 0.01 momentum 0.9 (with /255 the same script reaches 94% after one epoch and 100% after "
             "two)."),
    dict(name="run09", truth="bad_initialization",
         script="run09.py", ship_script=True,
         args=["--num-layers", "8", "--hidden", "256", "--lr", "0.001", "--num-epochs", "15"],
         extra={"cmd.txt": "python train.py --num-layers 8 --hidden 256 --lr 0.001 --num-epochs 15\n"},
         log="train_deep_mlp.log", log_from="file",
         home="/home/sam/gluon_mlp",
         symptom="The training loss is in the hundreds of millions from the very first batch and still around "
                 "half a million after 15 epochs; validation err-top1 stays near 47-50% even though train accuracy "
                 "keeps going up.",
         how="All Linear weights of an 8-layer ReLU MLP initialised from N(0, 1.0) (sigma=1) instead of a "
             "fan-in scaled init; Adam lr 1e-3. With the default init the same net reaches ~97% train accuracy "
             "and loss < 0.1."),
    dict(name="run10", truth="data_not_shuffled",
         script="run10.py", ship_script=False, args=[],
         configs={"run10_config.yaml": "mlp_config.yaml"},
         log="train.log", log_from="stdout",
         home="/home/sun/bearing",
         symptom="loss 在每个 epoch 里都是先降下去然后突然跳高，每个 epoch 都一模一样地重复，验证准确率前 5 个 epoch "
                 "只有 0.4~0.47，最后也才 0.68，是学习率的问题吗？",
         how="Training set built by concatenating the four per-class files (sorted by class) and iterated with "
             "shuffle: False, so every epoch is 15 batches of class 0, then 15 of class 1, ...; Adam lr 0.01. "
             "With shuffle: True the same script gives val accuracy ~0.86 from epoch 1."),
    dict(name="run11", truth="frozen_parameters",
         script="run11.py", ship_script=True, args=[],
         configs={"run11_config.yaml": "ShapeNet_tiny_finetune.yaml"},
         pre="run11_pretrain.py", cleanup=["pretrained"],
         log="train.log", log_from="stdout",
         home="/home/li/PaddleClas",
         symptom="Fine-tuning our pretrained model on a new 5-class set: loss stays at ~1.67 and top1 at ~0.23 "
                 "for all 12 epochs, nothing moves at all.",
         how="Backbone frozen on purpose, but the optimizer is built from the trainable parameters BEFORE the "
             "10-class head is replaced by a new 5-class nn.Linear, so the new head is never in the optimizer "
             "and no parameter is ever updated (the fixed order reaches val top1 ~0.89)."),
    dict(name="run12", truth="healthy",
         script="run12.py", ship_script=False, args=[],
         extra={"cmd.txt": "bash tools/train.sh tools/train_net.py configs/spiral_mlp.py 1\n"},
         log="log.txt", log_from="stdout",
         home="/home/huang/libai",
         symptom="batch 只有 8，loss 上下跳得很厉害（0.003 到 1.0 都有），训练要 6000 个 iter，这个训练正常吗？",
         how="No fault: small tanh MLP on noisy two-spirals, SGD lr 0.02 momentum 0.9, batch 8; the per-iteration "
             "loss is noisy but validation Acc@1 climbs steadily from ~60% to ~90%."),
]


def sanitize(path, run_dir, home):
    purelib = sysconfig.get_paths()["purelib"]
    stdlib = sysconfig.get_paths()["stdlib"]
    env_root = "/home/{}/miniconda3/envs/dl".format(home.split("/")[2])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for src, dst in [(purelib, env_root + "/lib/python3.11/site-packages"),
                     (stdlib, env_root + "/lib/python3.11"),
                     (run_dir, home)]:
        text = text.replace(src, dst)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    for bad in ("/tmp/", "/work/", HERE):
        if bad in text:
            raise RuntimeError("{} still contains {!r}".format(path, bad))


def run_one(spec):
    name = spec["name"]
    run_dir = os.path.join(RUNS_DIR, name)
    if os.path.isdir(run_dir):
        shutil.rmtree(run_dir)
    os.makedirs(run_dir)
    shutil.copy(os.path.join(SCRIPTS, spec["script"]), os.path.join(run_dir, "train.py"))
    for src, dst in spec.get("configs", {}).items():
        shutil.copy(os.path.join(SCRIPTS, src), os.path.join(run_dir, dst))
    for fname, content in spec.get("extra", {}).items():
        with open(os.path.join(run_dir, fname), "w", encoding="utf-8") as f:
            f.write(content)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0",
               PYTHONDONTWRITEBYTECODE="1")
    if spec.get("pre"):
        pre_path = os.path.join(run_dir, "_pre.py")
        shutil.copy(os.path.join(SCRIPTS, spec["pre"]), pre_path)
        subprocess.run([sys.executable, "_pre.py"], cwd=run_dir, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        os.remove(pre_path)
    cmd = [sys.executable, "train.py"] + spec["args"]
    log_path = os.path.join(run_dir, spec["log"])
    if spec["log_from"] == "file":
        proc = subprocess.run(cmd, cwd=run_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    else:
        with open(log_path, "w", encoding="utf-8") as f:
            stderr = subprocess.STDOUT if spec["log_from"] == "stdout+stderr" else subprocess.PIPE
            proc = subprocess.run(cmd, cwd=run_dir, env=env, stdout=f, stderr=stderr)
    expect_fail = spec["truth"] == "label_out_of_range"
    if (proc.returncode != 0) != expect_fail:
        err = proc.stderr.decode() if proc.stderr else open(log_path).read()[-3000:]
        raise RuntimeError("{} exited with {}:\n{}".format(name, proc.returncode, err))
    sanitize(log_path, run_dir, spec["home"])
    if not spec["ship_script"]:
        os.remove(os.path.join(run_dir, "train.py"))
    for extra in spec.get("cleanup", []):
        p = os.path.join(run_dir, extra)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
    for leftover in ("__pycache__",):
        p = os.path.join(run_dir, leftover)
        if os.path.isdir(p):
            shutil.rmtree(p)
    print("{}: {} -> {}".format(name, spec["truth"], sorted(os.listdir(run_dir))), flush=True)


def main():
    wanted = set(sys.argv[1:])
    os.makedirs(RUNS_DIR, exist_ok=True)
    for spec in RUNS:
        if not wanted or spec["name"] in wanted:
            run_one(spec)
    truth = {s["name"]: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for s in RUNS}
    with open(os.path.join(HERE, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
