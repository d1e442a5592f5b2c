"""Generate the metric-learning / retrieval / re-ID run folders.

Every run is produced by really executing its training script (CPU, one
thread, fixed seeds).  The script and any config it reads are written into
runs/<name>/, executed there, and the script is removed again for the runs
that ship without code.  Usage:  python gen.py [run01 run02 ...]
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
RUNS_DIR = os.path.join(HERE, "runs")

INCLUDES = {
    "#<<clusters>>": "inc_clusters.py",
    "#<<retrieval>>": "inc_retrieval.py",
    "#<<persons>>": "inc_persons.py",
    "#<<reid_eval>>": "inc_reid_eval.py",
    "#<<sequences>>": "inc_sequences.py",
    "#<<reid_model>>": "inc_reid_model.py",
}

# name, script template, extra files (src -> dest), ship train.py?, truth, symptom, how
RUNS = [
    dict(name="run01", script="label_pairs.py", extra={}, ship=True,
         truth="label_misalignment",
         symptom="The CosFace loss hardly moves (17.4 -> 15.2 in 15 epochs), train accuracy stays at a few percent "
                 "and test Recall@1 is below 1%, although the same network trains fine on our other descriptors.",
         how="train.py builds the feature matrix from records re-ordered by sorted sample_id but takes the "
             "label vector from the records in their original (shuffled) order, so features and labels are "
             "unpaired in both the train and the test split."),
    dict(name="run02", script="healthy_pml.py", extra={"healthy_pml.yaml": "config.yaml"}, ship=True,
         truth="healthy",
         symptom="Triplet + semihard miner baseline on our descriptor data; is this run ok?",
         how="No fault: MLP trunk + linear embedder, TripletMarginLoss(0.1), semihard miner, MPerClassSampler "
             "m=4, Adam 5e-4, 40 epochs; test classes disjoint from train classes."),
    dict(name="run03", script="reid_highlr.py", extra={"reid_highlr.yml": "config.yml"}, ship=False,
         truth="lr_too_high",
         symptom="Our bag-of-tricks baseline never gets going: the loss jumps up right after the start and bounces "
                 "around above its initial value, ID accuracy stays near zero and rank-1 is under 15% for the whole "
                 "run.",
         how="SGD momentum 0.9, no warm-up, BASE_LR 0.8 (REFERENCE_BASE_LR 0.05 linearly scaled from batch 8 "
             "to 128) for a small BNNeck CNN with label-smoothed ID loss + batch-hard triplet; the same script with "
             "lr 0.05 reaches rank-1 ~62% / mAP ~51%."),
    dict(name="run04", script="reid_noeval.py", extra={}, ship=True,
         truth="eval_mode_forgotten",
         symptom="ID accuracy on the training set goes above 90% but query->gallery rank-1 is stuck below 40% and "
                 "mAP around 22%; I expected much better from this baseline.",
         how="The feature-extraction function used for query/gallery never calls model.eval(), so the "
             "BatchNorm layers normalise each (identity-sorted, unshuffled, batch 16) test batch with its own "
             "statistics; adding model.eval() gives rank-1 ~77% / mAP ~64% on the same run."),
    dict(name="run05", script="contrastive_collapse.py", extra={"contrastive_collapse.json": "config.json"},
         ship=False, truth="mode_collapse",
         symptom="The contrastive loss goes almost to zero but Recall@1 gets worse every epoch and ends near "
                 "chance.",
         how="ContrastiveLoss configured with neg_margin=0.0 (pos_margin=0.0), so negative pairs never "
             "contribute; only positives are pulled together and all embeddings collapse to one direction "
             "(embedding std -> 0, zero active negative pairs)."),
    dict(name="run06", script="overfit_small.py", extra={}, ship=True,
         truth="overfitting",
         symptom="Train Recall@1 reaches 100% but validation Recall@1 is worse at the end of the 200 epochs "
                 "than it was after about six, and val loss keeps climbing.",
         how="A 1.25M-parameter MLP trained for 200 epochs with no regularisation or early stopping on only 40 "
             "identities x 6 samples; validation uses 100 unseen identities."),
    dict(name="run07", script="reid_leak.py", extra={"reid_leak.yml": "config.yml"}, ship=False,
         truth="data_leakage",
         symptom="A tiny CNN gets rank-1 94% / mAP 92% after 12 epochs, and rank-1 is higher than the training ID "
                 "accuracy from the first epoch on; this seems too good. Can I trust it?",
         how="DATASETS.COMBINEALL: true appends the query and gallery images (the 50 test identities) to the "
             "training set (200 ids / 2000 images), then the model is evaluated on those same query/gallery images."),
    dict(name="run08", script="arcface_sphere.py", extra={}, ship=True,
         truth="numerical_instability",
         symptom="ArcFace training with 3-d embeddings was going fine and then the loss became nan in the "
                 "middle of epoch 13 and stayed nan; accuracy dropped to 10%.",
         how="The hand-written ArcMarginProduct computes torch.acos(cosine) with no clamp to (-1+eps, 1-eps). With "
             "3-d embeddings a feature lines up with its class weight during epoch 13 and the float32 cosine rounds "
             "to exactly 1.0; acos' gradient there is infinite (a value just above 1 would give NaN directly), the "
             "update writes NaN into the weights and every later loss is NaN."),
    dict(name="run09", script="gait_supcon.py", extra={}, ship=False,
         truth="healthy",
         symptom="Recall on our gait signals goes up very slowly and is very noisy from epoch to epoch; is this "
                 "run ok or should I change something?",
         how="No fault: GRU encoder with SupCon loss (t=0.1), SGD lr 0.1 momentum 0.9, small batches "
             "(32 = 16 ids x 2), 80 epochs x 25 steps; noisy but steadily improving retrieval on unseen identities."),
    dict(name="run10", script="frozen_cosface.py", extra={"frozen_cosface.yaml": "config.yaml"}, ship=False,
         truth="frozen_parameters",
         symptom="The CosFace loss drops a bit in the first epochs and then flattens at a high value, and "
                 "Recall@1 stays at about 0.20 after every epoch, the same as before training.",
         how="The whole trunk+embedder was set to requires_grad=False before training (meant for BN layers "
             "only, config freeze_bn: true); only the CosFace class-weight matrix is updated, so the embedding "
             "network never changes (trunk/embedder grad norm 0; the small recall wiggle is BN running stats)."),
    dict(name="run11", script="unshuffled_triplet.py", extra={}, ship=True,
         truth="data_not_shuffled",
         symptom="Most iterations log loss 0.0000 with 0 triplets, only every third step has a loss, and R@1 "
                 "only reaches ~0.53.",
         how="DataLoader(shuffle=False) over a dataset stored sorted by class (96 samples per class, batch "
             "64): two batches out of three contain a single class, so the all-triplets miner finds no "
             "negatives there; the same script with shuffle=True reaches R@1 ~0.62."),
    dict(name="run12", script="reid_querynorm.py", extra={"reid_querynorm.yaml": "config.yaml"}, ship=False,
         truth="preprocessing_mismatch",
         symptom="Train loss and ID accuracy look great but query->gallery rank-1 is terrible, while "
                 "gallery->gallery retrieval looks fine.",
         how="Query images go through ToTensor only, gallery (and training) images through "
             "ToTensor + Normalize(ImageNet mean/std); query features come from differently scaled inputs."),
]


def build_script(template):
    text = open(os.path.join(SRC, template)).read()
    for tag, inc in INCLUDES.items():
        if tag in text:
            text = text.replace(tag, open(os.path.join(SRC, inc)).read().rstrip() + "\n")
    return text


def generate(spec):
    out = os.path.join(RUNS_DIR, spec["name"])
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for src, dst in spec["extra"].items():
        shutil.copy(os.path.join(SRC, src), os.path.join(out, dst))
    with open(os.path.join(out, "train.py"), "w") as f:
        f.write(build_script(spec["script"]))
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0",
               PYTHONDONTWRITEBYTECODE="1")
    t0 = time.time()
    res = subprocess.run([sys.executable, "train.py"], cwd=out, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # what the script printed goes where the user's shell would have put it
    if res.stdout.strip():
        with open(os.path.join(out, "stdout.log"), "w") as f:
            f.write(res.stdout)
    print(f"{spec['name']}: rc={res.returncode} {time.time() - t0:.1f}s", flush=True)
    if res.returncode != 0:
        print(res.stdout[-3000:])
    if not spec["ship"]:
        os.remove(os.path.join(out, "train.py"))
    shutil.rmtree(os.path.join(out, "__pycache__"), ignore_errors=True)


def main():
    only = set(sys.argv[1:])
    os.makedirs(RUNS_DIR, exist_ok=True)
    for spec in RUNS:
        if not only or spec["name"] in only:
            generate(spec)
    truth = {s["name"]: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for s in RUNS}
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


if __name__ == "__main__":
    main()
