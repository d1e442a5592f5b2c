"""Consistency of the playbook YAML data with the taxonomy and the signal vocabulary.

In: playbooks/causes/*.yaml, playbooks/classes/*.yaml, playbooks/contracts/taxonomy.yaml,
analyzers/signals.md. Out: assertions only; nothing is generated.
"""
from __future__ import annotations

import ast
import math
import re
import string
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CAUSES = ROOT / "playbooks" / "causes"
CLASSES = ROOT / "playbooks" / "classes"
TAXONOMY = yaml.safe_load((ROOT / "playbooks" / "contracts" / "taxonomy.yaml").read_text())
SIGNALS_MD = (ROOT / "analyzers" / "signals.md").read_text()

CODEMODS = {"add_zero_grad", "log_softmax", "add_eval", "add_grad_clip", "halve_lr",
            "remove_softmax_before_ce"}
SEVERITIES = {"critical", "high", "medium", "low"}
REQUIRED = {"id", "title", "severity", "prior", "evidence", "requires_any", "symptoms",
            "needs", "issue", "check", "fix", "lesson"}
CHECK_PLACEHOLDERS = {"script", "config", "lr", "half_lr"}
TEST_PLACEHOLDERS = {"module"}


def _signal_kinds() -> set[str]:
    """Signal kinds named in signals.md: the first column of its tables (`a` / `b` rows too)
    plus every backticked prefixed kind (`log:...`, `code:...`, `config:...`, `baseline:...`, `versions:...`, `data:...`)."""
    rows = re.findall(r"^\|\s*`([a-z0-9_]+)`(?:\s*/\s*`([a-z0-9_]+)`)?", SIGNALS_MD, re.M)
    table = {k for pair in rows for k in pair if k}
    prefixed = set(re.findall(r"`((?:log|code|config|baseline|versions|probe|ranks|said|data):[a-z0-9_]+)`", SIGNALS_MD))
    return table | prefixed


def _fact_names() -> set[str]:
    """Fact names from the 'Facts:' paragraph of signals.md (usable as lesson placeholders)."""
    facts = re.search(r"^Facts:(.*?)^Signals:", SIGNALS_MD, re.M | re.S).group(1)
    return set(re.findall(r"`([a-z0-9_]+)`", facts))


KINDS = _signal_kinds()
FACTS = _fact_names()


def _load(folder: Path) -> dict[str, dict]:
    return {p.stem: yaml.safe_load(p.read_text()) for p in sorted(folder.glob("*.yaml"))}


CAUSE_DOCS = _load(CAUSES)
CLASS_DOCS = _load(CLASSES)


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_vocabulary_parse_is_sane():
    # guards the parser itself: known kinds from each section must be present, prose words absent
    for k in ("divergence", "healthy", "low_throughput", "data_time_high", "log:cuda_oom",
              "code:missing_zero_grad", "config:fp16", "baseline:val_metric_drop"):
        assert k in KINDS
    assert "kind" not in KINDS and "lr" not in KINDS
    assert {"lr", "optimizer", "batch_size", "num_classes"} <= FACTS


def test_one_cause_file_per_taxonomy_id():
    ids = set(TAXONOMY["causes"])
    assert len(ids) == 41
    assert set(CAUSE_DOCS) == ids
    for stem, doc in CAUSE_DOCS.items():
        assert doc["id"] == stem


@pytest.mark.parametrize("cid", sorted(CAUSE_DOCS))
def test_cause_file_is_well_formed(cid):
    doc = CAUSE_DOCS[cid]
    assert REQUIRED <= set(doc), REQUIRED - set(doc)
    assert doc["severity"] in SEVERITIES
    assert 0 < doc["prior"] <= 0.3
    unknown = (set(doc["evidence"]) | set(doc["requires_any"])) - KINDS
    assert not unknown, f"{cid}: not in signals.md: {unknown}"
    assert all(isinstance(w, (int, float)) and -10 <= w <= 10 for w in doc["evidence"].values())
    # every requirement must also move the score, upward
    assert all(doc["evidence"].get(k, 0) > 0 for k in doc["requires_any"]), cid
    assert doc["symptoms"] and all(re.compile(s, re.I) for s in doc["symptoms"])
    assert all(re.compile(s, re.I) for s in doc.get("symptoms_unless") or [])
    assert doc["needs"] and all(isinstance(n, str) and n for n in doc["needs"])
    if "codemod" in doc:
        assert doc["codemod"] in CODEMODS
    assert _placeholders(doc["issue"]) <= {"top_signal"}
    assert _placeholders(doc["lesson"]) <= FACTS | {"top_signal"}
    if "check_command" in doc:
        assert _placeholders(doc["check_command"]) <= CHECK_PLACEHOLDERS
    for key in ("instrumentation", "test_template"):
        if key in doc:  # must be valid Python once placeholders are filled
            ast.parse(doc[key].replace("{module}", "mymodule"))
    if "test_template" in doc:
        assert _placeholders(doc["test_template"]) <= TEST_PLACEHOLDERS
        assert "def test_" in doc["test_template"]
    # a lesson that says "Added test_x" must name the test its template defines
    for name in re.findall(r"Added (test_\w+)", doc["lesson"]):
        assert f"def {name}(" in doc.get("test_template", ""), (cid, name)


def test_healthy_lowers_every_cause_that_shows_in_training_curves():
    # causes whose failure is outside the training curves (eval/serving/CI/speed) may keep it mild;
    # a leaked validation split trains exactly like a healthy run (only val and the split code show it)
    # (optimizer_misconfigured joins only with a config or code finding, requires_any: a wrong setting still lets
    # the loss fall, slowly or in waves, so a falling loss weighs less against it; still below zero)
    mild = {"overfitting", "zero_variance_statistic", "mode_collapse", "architecture_imbalance",
            "dataloader_bottleneck", "ci_environment_drift", "data_leakage", "optimizer_misconfigured"} | {
        c for c, v in TAXONOMY["causes"].items() if v["family"] == "inference" and c != "resume_mismatch"}
    for cid, doc in CAUSE_DOCS.items():
        w = doc["evidence"].get("healthy", 0)
        assert w <= -2.5 if cid not in mild else w <= 0, cid
    assert CAUSE_DOCS["optimizer_misconfigured"]["evidence"]["healthy"] < 0


def test_mechanical_fixes_have_their_codemod():
    expected = {"missing_zero_grad": "add_zero_grad", "numerical_instability": "log_softmax",
                "eval_mode_forgotten": "add_eval", "exploding_gradients": "add_grad_clip",
                "lr_too_high": "halve_lr", "double_softmax": "remove_softmax_before_ce"}
    assert {c: d["codemod"] for c, d in CAUSE_DOCS.items() if "codemod" in d} == expected


def _score(cid: str, signals: dict[str, float]) -> float:
    """Log-odds of a cause for given signal strengths, the way the engines combine the weights."""
    import math
    doc = CAUSE_DOCS[cid]
    p = doc["prior"]
    return math.log(p / (1 - p)) + sum(doc["evidence"].get(k, 0) * s for k, s in signals.items())


def _best(members: list[str], signals: dict[str, float]) -> str:
    offered = [m for m in members if set(CAUSE_DOCS[m]["requires_any"]) & set(signals)]
    return max(offered, key=lambda m: _score(m, signals))


# Within each confusable group, the separating signals named in taxonomy.yaml must rank the right member first.
GROUP_CASES = {
    "flat_loss_at_chance": [
        ({"loss_at_chance": 0.8, "grad_zero": 1.0}, "frozen_parameters"),
        ({"plateau": 0.6, "code:params_not_in_optimizer": 0.9}, "frozen_parameters"),
        ({"loss_at_chance": 0.6, "grad_vanish_layers": 0.8}, "vanishing_gradients"),
        ({"slow_descent": 0.7, "lr_tiny": 0.9}, "lr_too_low"),
        ({"below_chance_stuck": 0.7, "code:softmax_before_ce": 0.9}, "double_softmax"),
        ({"loss_at_chance": 0.9, "code:separate_shuffle": 0.9}, "label_misalignment"),
        ({"loss_at_chance": 0.9}, "label_misalignment"),
        ({"plateau": 0.8}, "plateau_underfitting"),
    ],
    "non_finite_loss": [
        ({"nonfinite": 1.0, "log:nan_input": 0.9}, "nan_in_data"),
        ({"nonfinite": 1.0, "code:log_softmax_unstable": 0.9}, "numerical_instability"),
        ({"nonfinite": 1.0, "loss_scale_drop": 0.8, "config:fp16": 1.0}, "mixed_precision_overflow"),
        ({"nonfinite": 1.0, "divergence": 0.8, "lr_high": 0.5}, "lr_too_high"),
        ({"nonfinite": 1.0, "grad_growth": 0.9, "nonfinite_grad": 1.0}, "exploding_gradients"),
        ({"nonfinite": 1.0, "log:var_dof": 1.0}, "zero_variance_statistic"),
    ],
    "eval_regression": [
        ({"baseline:val_metric_drop": 0.8, "baseline:preprocessing_changed": 0.9}, "preprocessing_mismatch"),
        ({"baseline:val_metric_drop": 0.8, "baseline:split_changed": 0.9}, "seed_or_split_changed"),
        ({"baseline:val_metric_drop": 0.8, "baseline:seed_changed": 0.9}, "seed_or_split_changed"),
        ({"baseline:val_metric_drop": 0.8, "baseline:metric_changed": 0.9}, "metric_changed"),
        ({"baseline:val_metric_drop": 0.8, "baseline:eval_call_removed": 0.9}, "eval_mode_forgotten"),
        ({"baseline:val_metric_drop": 0.8, "baseline:checkpoint_changed": 0.9}, "wrong_checkpoint"),
        ({"baseline:val_metric_drop": 0.8, "baseline:tokenizer_changed": 0.9}, "tokenizer_mismatch"),
    ],
    "train_val_gap": [
        ({"train_val_divergence": 0.8, "healthy": 0.6}, "overfitting"),
        ({"train_acc_capped": 0.85, "val_above_train": 0.8, "plateau": 0.6}, "label_noise"),
        ({"val_above_train": 0.7, "plateau": 0.6}, "label_noise"),
        ({"val_near_perfect": 0.8, "val_above_train": 0.5, "healthy": 1.0}, "data_leakage"),
        ({"code:val_overlaps_train": 0.8, "val_near_perfect": 0.6, "healthy": 1.0}, "data_leakage"),
        ({"val_gap_from_start": 0.8, "baseline:preprocessing_changed": 0.9}, "preprocessing_mismatch"),
        ({"val_gap_from_start": 0.8, "code:separate_shuffle": 0.9}, "label_misalignment"),
    ],
}


@pytest.mark.parametrize("group,signals,want", [
    (g, s, w) for g, cases in GROUP_CASES.items() for s, w in cases])
def test_separating_signals_rank_the_right_member_first(group, signals, want):
    members = TAXONOMY["confusable"][group]["members"]
    assert _best(members, signals) == want


def test_decisive_log_signals_win_over_everything():
    for kind, want in [("log:cuda_oom", "cuda_oom"), ("log:shape_mismatch", "shape_mismatch"),
                       ("log:device_mismatch", "device_mismatch"), ("log:dtype_mismatch", "dtype_mismatch"),
                       ("log:label_out_of_range", "label_out_of_range"), ("log:host_oom", "host_oom"),
                       ("log:nccl_timeout", "distributed_hang"), ("log:var_dof", "zero_variance_statistic")]:
        assert _best(sorted(CAUSE_DOCS), {kind: 1.0, "log:exception": 0.5}) == want, kind
        p_alone = 1 / (1 + math.exp(-_score(want, {kind: 1.0})))   # logistic of the cause's score
        assert p_alone > 0.8, kind


def test_class_files():
    required = {"loss_is_nan", "loss_diverged", "eval_dropped_after_refactor", "inference_broken",
                "ci_only_failure", "loss_not_decreasing", "out_of_memory", "crash_with_traceback",
                "training_slow", "distributed_hang"}
    assert required <= set(CLASS_DOCS)
    for stem, doc in CLASS_DOCS.items():
        assert doc["id"] == stem and doc["title"]
        assert doc["symptoms"] and all(re.compile(s, re.I) for s in doc["symptoms"])
        causes = [h["cause"] for h in doc["hypotheses"]]
        assert causes and set(causes) <= set(TAXONOMY["causes"]), stem
        assert len(causes) == len(set(causes)), f"{stem}: a cause listed twice"
        assert all(isinstance(h["check"], str) and h["check"] for h in doc["hypotheses"])
        if "instrumentation" in doc:
            ast.parse(doc["instrumentation"])


@pytest.mark.parametrize("text,cls", [
    ("loss became nan at step 200", "loss_is_nan"),
    ("My model was training fine until epoch 7, then loss started increasing", "loss_diverged"),
    ("accuracy dropped after I refactored the data module", "eval_dropped_after_refactor"),
    ("model trains fine but predictions at serving time are garbage", "inference_broken"),
    ("tests pass locally but fail in CI", "ci_only_failure"),
    ("loss is stuck at 2.30 and not decreasing", "loss_not_decreasing"),
    ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", "out_of_memory"),
    ("the job hangs at the first all_reduce with 8 GPUs", "distributed_hang"),
    ("training is very slow, GPU utilization is 20%", "training_slow"),
    ("Model only outputs colons (::::) regardless of input", "outputs_degenerate"),
])
def test_class_symptoms_match_plain_descriptions(text, cls):
    assert any(re.search(s, text, re.I) for s in CLASS_DOCS[cls]["symptoms"])


@pytest.mark.parametrize("text,cid", [
    ("loss became nan at step 200", "nan_in_data"),
    ("loss diverged at epoch 7", "lr_too_high"),
    ("Getting warning 'var(): degrees of freedom is <= 0' during training", "zero_variance_statistic"),
    ("RuntimeError: stack expects each tensor to be equal size", "shape_mismatch"),
    ("Model only outputs colons (::::) regardless of input", "mode_collapse"),
    ("Embedding layer has 79% of params", "architecture_imbalance"),
    ("gradient norm exploded", "exploding_gradients"),
    ("process was Killed, exit code 137", "host_oom"),
    ("While training I am getting 0 accuracy, is there a bug?", "metric_changed"),
    ("the training accuracy is still 0.000000 after 7 epochs", "metric_changed"),
    ("the learning rate becomes 0 after the first epoch", "lr_schedule_bug"),
    ("LR stays 0 the whole time", "lr_schedule_bug"),
])
def test_cause_symptoms_match_plain_descriptions(text, cid):
    assert any(re.search(s, text, re.I) for s in CAUSE_DOCS[cid]["symptoms"])


@pytest.mark.parametrize("text,leak", [
    ("val accuracy stays at 10% while train accuracy goes to 99%", False),
    ("val acc 12%, train 99.5%", False),
    ("after one epoch both validation and training accuracy reach 100% every time", True),
    ("the first testing pass reports 100% accuracy", True),
    ("val loss 0.5, val acc 99%", True),
])
def test_a_near_perfect_score_is_leakage_words_only_when_it_is_validations(text, leak):
    """data_leakage's "validation at 99-100 %" reads the first percentage after the word: a
    validation at chance beside a training at 99 % is the opposite of a too-good validation."""
    assert any(re.search(s, text, re.I) for s in CAUSE_DOCS["data_leakage"]["symptoms"]) is leak


@pytest.mark.parametrize("text", ["val accuracy reaches 1.0 at epoch 3", "accuracy at epoch 0 is 0.85",
                                  "accuracy of 0.5 after 10 epochs", "mAP is always 0", "准确率一直10% 左右"])
def test_a_zero_accuracy_symptom_needs_a_zero(text):
    """metric_changed's words for an accuracy of exactly 0 do not fire on other numbers near the word."""
    assert not any(re.search(s, text, re.I) for s in CAUSE_DOCS["metric_changed"]["symptoms"])


@pytest.mark.parametrize("text,slow_steps", [
    ("why does it converge so slowly?", False),
    ("为什么收敛如此的慢", False),
    ("the loss decreases very slowly after epoch 10", False),
    ("slow convergence with the default config", False),
    ("accuracy was growing pretty slow", False),
    ("training is slow, GPU util is 10%", True),
    ("an epoch takes 2.5 hours, much slower than the paper", True),
    ("data loading is slow with num_workers=0", True),
])
def test_slowness_of_learning_is_not_read_as_slow_steps(text, slow_steps):
    """`symptoms_unless` blanks the phrasings a symptom regex would misread: "converges so slowly"
    names no slow step (dataloader_bottleneck)."""
    from mltdbg.playbooks import library
    causes = library.causes()
    assert causes["dataloader_bottleneck"].symptom_match([text]) is slow_steps


@pytest.mark.parametrize("text,dropout_like", [
    ("the model output changed when calling it repeatedly with the same input", True),
    ("I get different outputs for the same word every time", True),
    ("the same image gets very different probabilities on different runs", True),
    ("the same mask doesn't show up if I enter the same input image", True),
    ("with different latents the generator produces the same pictures", False),   # one output, many inputs
    ("the loss is the same for every input", False),
    ("validation accuracy is the same as the training accuracy", False),
    ("running the saved model gives different prediction results every time", True),
    ("I call predict twice and get two different results", True),
    ("it should have different predictions for different inputs (ages)", False),   # what the user expects
    ("during test time I get different results in two different settings", False),  # two inputs, not one twice
    ("the evaluation and accuracy methods give totally different results", False),
])
def test_the_same_input_giving_other_outputs_reads_as_eval_mode(text, dropout_like):
    """eval_mode_forgotten's words for one input giving another output on each call or run (dropout
    left on); not the opposite, many inputs giving one output (mode collapse, a constant model)."""
    from mltdbg.playbooks import library
    assert library.causes()["eval_mode_forgotten"].symptom_match([text]) is dropout_like


@pytest.mark.parametrize("text,apart", [
    ("the test data has the shuffle operation but the label y_test has not the corresponding operation", True),
    ("x and y are shuffled separately", True),
    ("the tensors go through two separate flatten_and_shuffle calls", True),
    ("I shuffle the data every epoch and the loss still jumps", False),
    ("shuffle=False in the training loader", False),
])
def test_inputs_and_targets_shuffled_apart_read_as_misaligned_labels(text, apart):
    """Shuffled, but inputs and targets apart: label_misalignment's words, blanked from data_not_shuffled's
    (whose pattern reads any 'shuffl')."""
    from mltdbg.playbooks import library
    causes = library.causes()
    assert causes["label_misalignment"].symptom_match([text]) is apart
    assert causes["data_not_shuffled"].symptom_match([text]) is not apart


@pytest.mark.parametrize("text,named", [
    ("accuracy sits at chance (~10%) for 20 epochs", False),
    ("the loss stays around 0.693, ln(2), no better than a random guess", False),
    ("I think the labels are shuffled wrong after my change", True),
    ("the labels mismatch the images after the crop", True),
    ("the labels are shuffled together with the images (shuffle=True)", False),
])
def test_a_score_at_chance_alone_is_not_misaligned_labels_words(text, named):
    """A loss or accuracy at chance is what every cause that keeps a model from learning shows (in the
    corpus's tune part none of the 12 posts that said it were label_misalignment): the words of the cause
    are labels said to be shuffled, wrong or mismatched."""
    from mltdbg.playbooks import library
    assert library.causes()["label_misalignment"].symptom_match([text]) is named


@pytest.mark.parametrize("text,named", [
    ("the cross-entropy loss stays around 2.3 for every epoch", False),
    ("the training loss (softmax cross-entropy + L2) falls smoothly", True),
    ("my model's last layer is a Softmax and the loss is CrossEntropyLoss", True),
])
def test_double_softmax_words_name_a_softmax(text, named):
    """A cross-entropy loss that stays high is every classifier's complaint (in the tune part far more often
    another cause's than double_softmax's); its words are a softmax named."""
    from mltdbg.playbooks import library
    assert library.causes()["double_softmax"].symptom_match([text]) is named


@pytest.mark.parametrize("text,named", [
    ("accuracy stays at 0.0955 every epoch", False),
    ("inference with the provided ShuffleNet checkpoint predicts the wrong class", False),
    ("the loss is periodic during iteration", True),
    ("I forgot to shuffle the training list", True),
    ("I used an unshuffled loader", True),
    ("loss oscillates every epoch", True),
    ("loss zigzags per epoch", True),
    ("I reshuffle the data every epoch, but validation loss still goes up", False),
    ("GPU memory spikes every epoch during validation", False),
])
def test_unshuffled_data_words_are_order_not_any_epoch(text, named):
    """data_not_shuffled's words are the order of the data (shuffle, sorted, periodic, saw-tooth); 'every
    epoch' is how any post tells a per-epoch number, and ShuffleNet is a network."""
    from mltdbg.playbooks import library
    assert library.causes()["data_not_shuffled"].symptom_match([text]) is named


@pytest.mark.parametrize("text,seed_named", [
    ("we changed the seed and the accuracy moved by 3 points", True),
    ("results differ with a different seed", True),
    ("same code, same data, same seed; after the torch upgrade the accuracy is lower", False),
    ("the seed is fixed to 42 and the runs still differ", False),
    ("I set all random seeds, but every run ends elsewhere", False),
    ("the seed is fixed, but someone regenerated the test split with a new random_state", True),
])
def test_a_seed_the_user_says_is_unchanged_is_no_changed_seed(text, seed_named):
    """seed_or_split_changed's words read any 'seed'; a seed the user says stayed the same (the usual
    'same code, same data, same seed' of a post about something else) is blanked first."""
    from mltdbg.playbooks import library
    assert library.causes()["seed_or_split_changed"].symptom_match([text]) is seed_named


@pytest.mark.parametrize("text,precision_said", [
    ("nan loss with fp16 after 2k steps", True),
    ("training with amp gives inf", True),
    ("the loss is not nan with fp32 but nan with fp16", True),
    ("fp16: true in the config", True),
    ("the loss becomes NaN or Inf (not during fp16 training)", False),
    ("I'm not using amp and it still gives nan", False),
    ("I don't use mixed precision", False),
    ("fp16=False, lr 1e-4", False),
])
def test_reduced_precision_denied_is_not_read_as_used(text, precision_said):
    """mixed_precision_overflow's symptom words skip a denied precision ("not during fp16 training",
    "fp16=False"): a post that says fp16 was off names the other causes, not this one."""
    from mltdbg.playbooks import library
    assert library.causes()["mixed_precision_overflow"].symptom_match([text]) is precision_said


@pytest.mark.parametrize("cause,text,read", [
    ("cuda_oom", "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", True),
    ("cuda_oom", "training always stops with 'SILog is NAN' - not an out-of-memory error", False),
    ("cuda_oom", "it is not OOM, the loss goes nan", False),
    ("nan_in_data", "the loss does not produce nan, it just stays at 2.3", False),
    ("data_not_shuffled", "the training data is not shuffled", True),
    ("data_not_shuffled", "I train without shuffling the dataset", True),
])
def test_a_denied_failure_is_not_read_as_one(cause, text, read):
    """A failure the user says did not happen ("not an out-of-memory error", "no nan") names no cause;
    the absence a cause is made of ("not shuffled") still names it."""
    from mltdbg.playbooks import library
    assert library.causes()[cause].symptom_match([text]) is read


@pytest.mark.parametrize("text,classes", [
    ("loss becomes nan after 300 steps", {"loss_is_nan"}),
    ("the loss is not nan, it stays flat at 2.3 and does not decrease", {"loss_not_decreasing"}),
    ("training runs without any error but accuracy is bad", set()),
])
def test_a_denied_failure_names_no_failure_class(text, classes):
    """The failure classes read the user's words as the causes do: "not nan" is no NaN."""
    from mltdbg.playbooks import library
    assert {c.id for c in library.classes_for([text])} == classes


@pytest.mark.parametrize("text,unshuffled", [
    ("my dataset is sorted by class and the loss jumps", True),
    ("the files were sorted so every batch is one label", True),
    ("the images are sorted alphabetically per folder", True),
    ("class id from sorted set of names in the xmls, then data.yaml by hand", False),
    ("I sorted the predictions by score before computing mAP", False),
])
def test_data_not_shuffleds_sorted_words_name_the_data_order(text, unshuffled):
    """"sorted" as the data's order ("sorted by class", "the files were sorted") is data_not_shuffled's; a
    sorted list of class names or of predictions is not (a YOLO post's "sorted set of names" had read so)."""
    from mltdbg.playbooks import library
    assert library.causes()["data_not_shuffled"].symptom_match([text]) is unshuffled


def test_a_patterns_gap_stays_inside_one_sentence():
    """`learning rate.*(wrong|...)` links the two words in one sentence ("the learning rate drops to 0.001 at
    epoch 3"), not across a post ("a small learning rate 5e-5 ... the loss does not go down. Is something set
    wrong?" names no schedule); a full stop inside a number or a dotted name does not end the sentence."""
    from mltdbg.playbooks import library
    sched = library.causes()["lr_schedule_bug"]
    low = library.causes()["lr_too_low"]
    post = ("I train with a small learning rate 5e-5 on ten thousand examples, and the loss does not go down. "
            "Is something set wrong?")
    assert not sched.symptom_match([post])
    assert low.symptom_match(["maybe the learning rate (1e-6) is too small?"])
    assert sched.symptom_match(["the learning rate of 0.001 drops after epoch 3"])
    assert not low.symptom_match(["I set the learning rate to 0.01. Training is slow."])


def test_a_restart_the_user_asks_about_is_no_resume():
    """"Should I restart with a higher lr?" asks about a restart that has not happened: no resume symptom; a resume
    that happened still is one."""
    from mltdbg.playbooks import library
    pb = library.causes()["resume_mismatch"]
    assert not pb.symptom_match(["Is my run stuck? Should I restart with a higher lr or a bigger model?"])
    assert not pb.symptom_match(["the loss plateaued, do I need to restart from scratch?"])
    assert pb.symptom_match(["I'm trying to resume my pretraining and the lr is much bigger than before"])
    assert pb.symptom_match(["after I restarted from the last checkpoint the loss jumped"])
