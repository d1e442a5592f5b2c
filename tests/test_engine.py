"""The offline engine: ranking, calibration guards, verdicts, symptoms as hints, status."""
import json
import math
from dataclasses import replace
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from mltdbg.analyzers.curves import curve_signals
from mltdbg.analyzers.model import Evidence, Run, Series, Signal, TextArtifact
from mltdbg.playbooks import library
from mltdbg.playbooks.diagnose import diagnose as diagnose_paths
from mltdbg.playbooks.engine import DiagnosisContext, OfflineEngine

rng = np.random.default_rng(1)


def run_with(tmp_path: Path, **series) -> Run:
    run = Run(root=tmp_path)
    for name, v in series.items():
        v = np.asarray(v, dtype=float)
        run.series.append(Series(name, name, np.arange(len(v)), v, "log.txt", np.arange(len(v)) + 1))
    return run


def diagnose(run, signals=None, symptoms=(), verdicts=None):
    sig = curve_signals(run) if signals is None else signals
    return OfflineEngine().diagnose(DiagnosisContext(run, sig, list(symptoms), dict(verdicts or {})))


def test_output_is_valid_against_the_schema(tmp_path):
    n = 300
    loss = np.concatenate([2 * np.exp(-np.arange(150) / 30) + 0.2, 0.2 * np.exp(np.linspace(0, 4, 150))])
    d = diagnose(run_with(tmp_path, loss=loss, grad_norm=np.logspace(0, 3, n)))
    jsonschema.validate(d.to_json(), library.diagnosis_schema())
    assert d.hypotheses and all(e.verified for h in d.hypotheses for e in h.evidence)


def test_healthy_run_gives_no_issue(tmp_path):
    loss = 2.3 * np.exp(-np.arange(400) / 80) + 0.1 + rng.normal(0, 0.01, 400)
    d = diagnose(run_with(tmp_path, loss=loss, grad_norm=1 + rng.normal(0, 0.02, 400)))
    assert d.status == "no_issue_found"


def test_a_failure_the_user_describes_is_never_no_issue(tmp_path):
    """The same healthy-looking curves, but the user says something is wrong ('train accuracy stops
    around 70%, it should reach 95%'): an open question, not 'no issue'; the need says the artifacts
    look healthy and asks for the numbers that show the failure."""
    loss = 2.3 * np.exp(-np.arange(400) / 80) + 0.1 + rng.normal(0, 0.01, 400)
    d = diagnose(run_with(tmp_path, loss=loss, grad_norm=1 + rng.normal(0, 0.02, 400)),
                 symptoms=["train accuracy stops around 70% on CIFAR-10, which should reach 95%+"])
    assert d.status == "needs_more_data" and d.hypotheses
    assert any(n.startswith("the artifacts look healthy (loss falls") for n in d.needs), d.needs
    # a confusable group's need names whole clauses, those about the causes ranked here
    sep = next((n for n in d.needs if n.startswith("evidence that separates")), None)
    assert sep is None or (sep.endswith(")") and d.hypotheses[0].id in sep.split(": ", 1)[1]), sep
    # a question that names no failure leaves a healthy run healthy
    d = diagnose(run_with(tmp_path, loss=loss, grad_norm=1 + rng.normal(0, 0.02, 400)), symptoms=["is this ok?"])
    assert d.status == "no_issue_found"
    assert not any(h.severity == "critical" and h.confidence > 0.5 for h in d.hypotheses)


def test_misleading_symptom_does_not_outvote_artifacts(tmp_path):
    # Gradients are exactly zero all run and the loss is flat: frozen, whatever the user thinks.
    run = run_with(tmp_path, loss=2.3 + rng.normal(0, 0.002, 300), grad_norm=np.zeros(300))
    d = diagnose(run, symptoms=["I think the learning rate is too high, loss explodes"])
    assert d.top.id == "frozen_parameters"
    lr = next((h for h in d.hypotheses if h.id == "lr_too_high"), None)
    assert lr is None or lr.confidence < 0.2


def test_symptom_only_is_never_a_finding(tmp_path):
    d = diagnose(Run(root=tmp_path), signals=[], symptoms=["CUDA out of memory"])
    assert d.status == "needs_more_data" and d.needs
    assert d.top is None or d.top.confidence < 0.8


def test_denied_verdict_reranks(tmp_path):
    run = run_with(tmp_path, loss=2.3 + rng.normal(0, 0.002, 300), grad_norm=np.zeros(300))
    first = diagnose(run).top.id
    second = diagnose(run, verdicts={first: "denied"})
    assert all(h.id != first for h in second.hypotheses)


def test_confirmed_verdict_lifts(tmp_path):
    run = run_with(tmp_path, loss=2.3 + rng.normal(0, 0.002, 300), grad_norm=np.zeros(300))
    d = diagnose(run)
    runner_up = d.hypotheses[1].id
    d2 = diagnose(run, verdicts={runner_up: "confirmed"})
    assert d2.top.id == runner_up


def test_decisive_traceback_signal_completes(tmp_path):
    (tmp_path / "err.txt").write_text("x\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    run = Run(root=tmp_path)
    run.texts.append(TextArtifact("err.txt", tmp_path / "err.txt", "log", (tmp_path / "err.txt").read_text()))
    sig = Signal("log:cuda_oom", 1.0, "CUDA out of memory", [Evidence("OOM", "err.txt", 2, quote="CUDA out of memory. Tried to allocate 2.00 GiB")])
    d = diagnose(run, signals=[sig])
    assert d.status == "diagnosis_complete" and d.top.id == "cuda_oom" and d.top.evidence[0].verified


def test_evidence_that_does_not_verify_is_dropped(tmp_path):
    (tmp_path / "err.txt").write_text("nothing to see\n")
    run = Run(root=tmp_path)
    sig = Signal("log:cuda_oom", 1.0, "CUDA out of memory", [Evidence("OOM", "err.txt", 1, quote="CUDA out of memory")])
    d = diagnose(run, signals=[sig])
    assert d.top.evidence == []


def test_the_word_model_adds_candidates_only_for_the_users_words(tmp_path):
    """A README alone is no failure to explain: no cause is ranked from artifact words; the user's
    sentence in plain words (no playbook regex needed) gets a ranking of words-only candidates."""
    (tmp_path / "README.md").write_text("# notes\nWe train a small convnet on CIFAR-10 with SGD.\n")
    assert diagnose_paths([str(tmp_path)], []).hypotheses == []
    d = diagnose_paths([str(tmp_path)], ["the model keeps predicting the majority class for every input"])
    assert d.hypotheses and d.status == "needs_more_data"
    from mltdbg.playbooks.engine import COMPLETE_AT, WORDS_ONLY_CAP  # noqa: PLC0415
    assert all(h.confidence <= WORDS_ONLY_CAP < COMPLETE_AT for h in d.hypotheses)


def test_the_word_model_counts_the_forms_of_a_word_as_one():
    """Stemming: a cause learned from "diverged" scores a post that says "diverging"; identifiers and
    short words stay whole, so `grad_norm` and `nan` are not cut."""
    from mltdbg.playbooks import textmodel as T  # noqa: PLC0415 - the word model's own helpers
    assert T.stem("diverges") == T.stem("diverged") == T.stem("diverging") == "diverg"
    assert T.stem("gradients") == "gradient" and T.stem("grad_norm") == "grad_norm" and T.stem("nan") == "nan"
    assert T.stem("fp16") == "fp16" and T.stem("loss") == "loss"
    m = T.TextModel.build({"lr_too_high": ["the loss diverged after warmup"], "cuda_oom": ["cuda out of memory error"]})
    s = m.scores(["my loss is diverging"])
    assert s["lr_too_high"] > s["cuda_oom"]


def test_the_word_model_does_not_count_the_users_guess_as_what_they_saw():
    """"I suspect the default init, should I change it?" names a hypothesis to test, not an observation: the words
    of a guess (to the end of its clause) are not scored, in the symptom or in a post; what the user saw still is."""
    from mltdbg.playbooks import textmodel as T  # noqa: PLC0415 - the word model's own helpers
    m = T.TextModel.build({"bad_initialization": ["default weight init is wrong, change the init"] * 3,
                           "unnormalized_inputs": ["raw feature values in the thousands, huge first loss"] * 3})
    seen = "The first loss is huge and the features are in the thousands."
    for guess in ("I suspect the default init, should I change the init", "Maybe the weight init is wrong",
                  "could it be the init?"):
        s = m.scores([f"{seen} {guess}."])
        assert list(s)[0] == "unnormalized_inputs", guess
        assert s == m.scores([seen])
        # the same in a post (a text artifact), not in a log: a framework's "this might be caused by ..." is its text
        post = TextArtifact(path="post.md", abspath=Path("post.md"), kind="text", text=f"{seen} {guess}.")
        assert T.scores_for([], [post], m) == T.scores_for([], [replace(post, text=seen)], m)
        assert T.scores_for([], [replace(post, kind="log")], m) != T.scores_for([], [replace(post, kind="log", text=seen)], m)
    # said plainly, the words count; a clause after ", and" is what was seen, and a decimal point ends no guess
    assert list(m.scores(["the default weight init is wrong"]))[0] == "bad_initialization"
    assert list(m.scores(["I think it is the init, and the features are in the thousands"]))[0] == "unnormalized_inputs"
    from mltdbg.analyzers.prose import without_guesses  # noqa: PLC0415 - the blanking itself
    assert without_guesses("maybe it is overfitting at 0.01, and the loss is nan").split() == [",", "and", "the", "loss", "is", "nan"]


def test_the_word_model_reads_chinese_japanese_and_korean_text_by_character_pairs():
    """A post written in Chinese has no spaces and no Latin words: its character pairs are its tokens,
    so a cause learned from one Chinese post scores another that shares its words."""
    from mltdbg.playbooks import textmodel as T  # noqa: PLC0415 - the word model's own helpers
    assert T.tokens("学习率") == ["学习", "习率"] and T.tokens("显存") == ["显存"] and T.tokens("值") == ["值"]
    assert T.tokens("loss变为nan") == ["loss", "nan", "loss nan", "变为"]   # Latin words and CJK pairs apart
    m = T.TextModel.build({"lr_too_high": ["学习率太大, 损失发散"] * 5, "cuda_oom": ["显存不足, 内存溢出"] * 5})
    s = m.scores(["把学习率调小以后损失不再发散"])
    assert s["lr_too_high"] > s["cuda_oom"]


def test_an_environment_listing_is_no_text_for_the_word_model():
    """environment.txt / env.txt / pip freeze say which GPU and versions the run had, not what went wrong:
    their words ("CUDA 10.0", "RTX 2080Ti") read as cuda_oom to the word model, so they are left out of the
    artifact text it scores; a log beside them is kept."""
    from mltdbg.analyzers.model import TextArtifact  # noqa: PLC0415 - the word model's input type
    from mltdbg.playbooks import textmodel as T  # noqa: PLC0415 - the word model's own helpers

    def art(name, text):
        return TextArtifact(path=name, abspath=Path(name), kind="text", text=text)
    texts = [art("environment.txt", "RTX 2080Ti CUDA 10.0"), art("run/env.txt", "torch 2.1 cuda 12.1"),
             art("pip_freeze.txt", "numpy==1.26"), art("train.log", "mAP 0.41 after loading the same weights")]
    assert T.artifact_text(texts) == "mAP 0.41 after loading the same weights"
    assert T.artifact_text([art("environmental_sound.log", "epoch 1 loss 2.3")]) == "epoch 1 loss 2.3"
    assert T.artifact_text([art("collect_env.txt", "PyTorch version: 2.1"), art("sysinfo.txt", "RTX 4090")]) == ""
    kept = [TextArtifact(path="env.py", abspath=Path("env.py"), kind="code", text="class CartPole: pass"),
            art("env-train.log", "step 1 loss 2.3")]    # an RL environment's code, a log named after it
    assert T.artifact_text(kept) == "step 1 loss 2.3\nclass CartPole: pass"
    # a data file's text cells (a CSV sample of support tickets: "slow", "reset", "overcharged") are the data's words
    sample = art("train_sample.csv", 'text,label\n"the courier was slow and the reset link failed",1\n')
    assert T.artifact_text([sample, art("train.log", "epoch 1 loss 2.3")]) == "epoch 1 loss 2.3"


def test_the_word_models_scores_keep_its_order_past_the_clip():
    """Causes the words speak against are all clipped to the same floor; the dict keeps the model's
    own order, which is what completes a short ranking (engine.FILL_TO)."""
    from mltdbg.playbooks import textmodel as T  # noqa: PLC0415 - the word model's own helpers
    m = T.TextModel.build({"lr_too_high": ["the loss diverged after warmup"] * 30,
                           "cuda_oom": ["cuda out of memory error"] * 30,
                           "host_oom": ["killed out of memory host ram loss"] * 30})
    s = m.scores(["the loss diverged after warmup, the loss diverged"] * 20)
    assert s["cuda_oom"] == s["host_oom"] == -T.TEXT_CLIP          # both at the floor ...
    assert list(s) == ["lr_too_high", "host_oom", "cuda_oom"]     # ... host_oom shares "loss": it comes first


def test_a_short_ranking_is_completed_from_the_words_below_the_causes_ranked_on_their_own(tmp_path, monkeypatch):
    """A thin post (one traceback) ranks one cause on its evidence; the ranking is completed to three
    (the spec's 2-5) with the causes the words point to next, each at or below the confidence of the
    one above it, never a finding, and the causes ranked on their own keep their order and numbers."""
    from mltdbg.playbooks import engine as E  # noqa: PLC0415 - its knob, to see the ranking without the completion
    (tmp_path / "err.txt").write_text(
        'Traceback (most recent call last):\n  File "train.py", line 40, in <module>\n    loss.backward()\n'
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity)\n")
    words = ["training crashes at the first backward pass"]
    full = diagnose_paths([str(tmp_path)], words)
    monkeypatch.setattr(E, "FILL_TO", 0)
    alone = diagnose_paths([str(tmp_path)], words)
    assert [h.id for h in alone.hypotheses] == ["cuda_oom"]
    assert [(h.id, h.confidence) for h in full.hypotheses[:1]] == [(h.id, h.confidence) for h in alone.hypotheses]
    added = full.hypotheses[1:]
    assert len(added) == 2 and len({h.id for h in full.hypotheses}) == 3
    confs = [h.confidence for h in full.hypotheses]
    assert confs == sorted(confs, reverse=True) and all(h.confidence < 0.8 for h in added)
    assert all("suggested by the symptom only" in h.issue and not h.evidence for h in added)
    assert full.status == alone.status
    jsonschema.validate(full.to_json(), library.diagnosis_schema())


def _nan_run(folder: Path, extra: str = "") -> Path:
    folder.mkdir()
    lines = [f"step={i} loss={2.0 - 0.03 * i:.3f}" for i in range(1, 41)] + ["step=41 loss=nan"]
    (folder / "train.log").write_text(extra + "\n".join(lines) + "\n")
    return folder


def test_a_confusable_cause_without_its_separating_evidence_stays_below_the_bar(tmp_path):
    """A NaN after a falling loss fits several causes of the non_finite_loss group; none of their
    separating signals is there, so no member is a finding and the needs say what would separate them."""
    d = diagnose_paths([str(_nan_run(tmp_path / "a"))], ["loss becomes nan"])
    assert d.hypotheses and d.hypotheses[0].confidence <= 0.75 and d.status == "needs_more_data"
    assert any("non_finite_loss" in n for n in d.needs), d.needs
    # the separating evidence of nan_in_data (the data reported a NaN) lets it through
    d2 = diagnose_paths([str(_nan_run(tmp_path / "b", "WARNING: found NaN in input batch 40\n"))], ["loss becomes nan"])
    assert d2.hypotheses[0].id == "nan_in_data" and d2.hypotheses[0].confidence > 0.75


def test_val_at_chance_from_the_first_epoch_is_a_gap_not_overfitting(tmp_path):
    """Per-epoch lines without a step: train learns, validation sits at chance from epoch 0 and its
    loss creeps up. Validation never improved, so this is not overfitting (the issue's new-user case)."""
    lines = []
    for e in range(15):
        tl, ta = 2.3 * math.exp(-e / 3) + 0.05, min(0.99, 0.1 + 0.9 * (1 - math.exp(-e / 3)))
        lines.append(f"epoch {e}: train_loss={tl:.4f} train_acc={ta:.4f} val_loss={2.35 + 0.05 * e:.4f} "
                     f"val_acc={0.1 + 0.005 * ((e * 7) % 3):.4f}")
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    d = diagnose_paths([str(tmp_path)], ["val_acc stays at chance from the first epoch"])
    ids = [h.id for h in d.hypotheses]
    assert "overfitting" not in ids[:1] and d.status == "needs_more_data", [(h.id, h.confidence) for h in d.hypotheses]
    assert ids[0] in ("label_misalignment", "preprocessing_mismatch", "data_leakage", "label_noise")
    assert any(e.metric == "val_loss" and e.line == 1 for e in d.hypotheses[0].evidence)
    # no filler: a cause shown with no artifact behind it has at least a few percent from the words
    assert all(h.evidence or h.confidence >= 0.03 for h in d.hypotheses), [(h.id, h.confidence) for h in d.hypotheses]


def test_val_at_chance_with_no_word_or_config_is_no_finding_for_either_gap_cause(tmp_path):
    """A metrics.csv alone: train accuracy climbs to 0.92, validation sits at 0.10-0.12 (1/10) from epoch 1. Val
    targets not paired with their inputs score exactly chance; so does a val set from another distribution (other
    class centres, val_dir: data/val_v2). val_at_chance weighed label_misalignment alone and read it 0.89, a finding:
    both causes now weigh it, it separates neither, and the leader is held below the bar."""
    (tmp_path / "metrics.csv").write_text("epoch,train_acc,val_acc,train_loss,val_loss\n1,0.55,0.11,1.30,3.9\n"
                                          "2,0.71,0.10,0.85,4.6\n3,0.82,0.12,0.55,5.1\n4,0.88,0.11,0.38,5.8\n"
                                          "5,0.92,0.10,0.25,6.2\n")
    d = diagnose_paths([str(tmp_path)], [])
    top2 = {h.id for h in d.hypotheses[:2]}
    assert top2 == {"label_misalignment", "preprocessing_mismatch"} and d.hypotheses[0].confidence <= 0.75 \
        and d.status == "needs_more_data", [(h.id, h.confidence) for h in d.hypotheses]


def test_a_nan_at_the_first_logged_step_is_not_blamed_on_the_lr(tmp_path):
    """The first loss is computed before any update: a NaN there comes from the forward pass or the
    data (or the init), not from the learning rate."""
    (tmp_path / "train.log").write_text("".join(f"step={i} loss=nan acc=0.1\n" for i in range(0, 50, 10)))
    d = diagnose_paths([str(tmp_path)], ["loss is nan from the first step"])
    assert d.hypotheses and d.hypotheses[0].id != "lr_too_high"
    lr = next((h.confidence for h in d.hypotheses if h.id == "lr_too_high"), 0.0)
    assert lr < 0.1 and d.status == "needs_more_data"


def test_the_failure_class_brings_its_most_frequent_causes_beside_the_symptom_matches():
    # "loss became NaN" matches the NaN class and the symptom words of nan_in_data; the class's first
    # causes (lr_too_high at rank 0) are candidates too, its rare ones (rank >= CLASS_JOIN) are not.
    from mltdbg.playbooks import scoring as S
    nan_class = library.classes()["loss_is_nan"]
    ranks = {h["cause"]: i for i, h in enumerate(nan_class.hypotheses)}
    feat = S.Features(strengths={}, strongest={}, symptom_causes={"nan_in_data"}, class_causes=ranks,
                      symptom_given=True)
    got = {c.cause: c for c in S.score_causes(feat, S.Model())}
    first = [c for c, r in ranks.items() if r < S.CLASS_JOIN]
    rare = [c for c, r in ranks.items() if r >= S.CLASS_JOIN and c != "nan_in_data"]
    assert "lr_too_high" in first and set(first) <= set(got)
    assert rare and not set(rare) & set(got)
    assert got["lr_too_high"].terms["class"] == 1.0        # rank 0: the class term at its largest
    assert got["nan_in_data"].terms["class"] == S.class_term(ranks["nan_in_data"])
    # without a class, nothing joins by frequency
    bare = S.Features(strengths={}, strongest={}, symptom_causes={"nan_in_data"}, symptom_given=True)
    assert {c.cause for c in S.score_causes(bare, S.Model())} == {"nan_in_data"}


def test_words_that_name_a_failure_lower_the_healthy_share_by_the_fitted_weight():
    from mltdbg.playbooks import scoring as S
    said = S.Features(strengths={}, strongest={}, symptom_causes={"nan_in_data"}, symptom_given=True)
    quiet = S.Features(strengths={}, strongest={}, symptom_given=True)
    m = S.Model(healthy_said=-2.0)
    assert said.failure_said and not quiet.failure_said
    assert S.pseudo_scores(said, m)[0] == S.pseudo_scores(quiet, m)[0] - 2.0
    assert S.pseudo_scores(said)[0] == S.pseudo_scores(quiet)[0]      # the playbooks alone: no such term
    assert S.model().healthy_said < 0       # the shipped fit learned it (a described failure is rarely "fine")


def test_broad_failure_words_lower_the_healthy_share_by_their_own_fitted_weight():
    # "the loss didn't really go down" names no class's or cause's pattern in every spelling, but it
    # is a failure report: its own term, fitted beside healthy_said (a question names none)
    from mltdbg.playbooks import scoring as S
    m = S.Model(healthy_said=-2.0, healthy_named=-1.5)
    named = S.extract([], ["the training keeps giving me a bad result"], ())
    asked = S.extract([], ["Can you sanity check this run?"], ())
    assert named.failure_named and not named.failure_said and not asked.failure_named
    assert S.pseudo_scores(named, m)[0] == S.pseudo_scores(asked, m)[0] - 1.5
    assert S.model().healthy_named < 0       # the shipped fit learned it


@pytest.mark.parametrize("text,cls", [
    ("When I run the codes, the loss couldn't converge.", "loss_not_decreasing"),
    ("the loss during training didn't really went down even after many epochs", "loss_not_decreasing"),
    ("For some reason, I can't get a loss below 5.545 regardless of options", "loss_not_decreasing"),
    ("the model stayed at low performance, which will not increase with training", "loss_not_decreasing"),
    ("the gradients of every conv layer are 0", "loss_not_decreasing"),
    ("after a few hundred steps the loss goes to exactly the same value", "loss_not_decreasing"),
    ("DDP training hangs after the first epoch", "distributed_hang"),
    ("eval accuracy dropped after the refactor of the data module", "eval_dropped_after_refactor"),
])
def test_failure_classes_read_how_posts_say_it(text, cls):
    assert cls in {c.id for c in library.classes_for([text])}


@pytest.mark.parametrize("text,cls", [
    ("I changed the batch size and the loss went up", "distributed_hang"),      # 'change' holds no 'hang'
    ("It doesn't matter if I reduce my learning rate", "loss_not_decreasing"),
    ("keep getting fp16 gradscale is 0 when training", "loss_not_decreasing"),     # the loss scale, not a gradient
    ("the gradients are not zero", "loss_not_decreasing"),
    ("Training a regression neural network on tabular data", "eval_dropped_after_refactor"),
    ("the validation accuracy is decreasing while training accuracy rises", "eval_dropped_after_refactor"),
])
def test_failure_classes_do_not_match_look_alikes(text, cls):
    assert cls not in {c.id for c in library.classes_for([text])}


def test_a_training_scripts_words_weigh_causes_but_never_nominate_one():
    # the word model reads the code too (its words weigh the candidates), but what makes a cause a
    # candidate by words alone is what was said about the run: the user's words, logs, tracebacks
    from mltdbg.playbooks import scoring as S
    from mltdbg.playbooks import textmodel as T
    code = TextArtifact(path="train.py", abspath=Path("train.py"), kind="code",
                        text="optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)\nscaler = GradScaler()\n" * 20)
    words = ["model only outputs colons"]
    with_code = T.scores_for(words, [code])
    said = T.said_scores_for(words, [code])
    assert said == T.said_scores_for(words, [])          # the code is not read for nominations
    feat = S.Features(strengths={}, strongest={}, symptom_given=True, text=with_code, text_user=said)
    assert feat.text_causes() <= {c for c, v in said.items() if v >= S.TEXT_CANDIDATE_AT}
    assert S.Features(strengths={}, strongest={}, symptom_given=True, text=with_code).text_causes() == \
        {c for c, v in sorted(with_code.items(), key=lambda kv: -kv[1])[:S.TEXT_CANDIDATES] if v >= S.TEXT_CANDIDATE_AT}


def test_zero_grads_below_a_live_head_stay_a_question_between_frozen_and_dead_relu(tmp_path):
    (tmp_path / "grads.txt").write_text("layer            grad_norm\nconv1.weight     0.0\nconv1.bias       0.0\n"
                                        "conv2.weight     0.0\nfc1.weight       0.0\nfc2.weight       0.0012\n")
    d = diagnose_paths([str(tmp_path)], [])
    ids = [h.id for h in d.hypotheses]
    assert d.status == "needs_more_data" and d.hypotheses[0].confidence < 0.8
    assert {"frozen_parameters", "dead_relu"} <= set(ids)


def test_a_resume_line_without_a_step_still_dates_the_loss_jump_after_it(tmp_path):
    from mltdbg.playbooks.diagnose import context_for
    (tmp_path / "train.log").write_text(
        "epoch 1 step 1000 loss 1.92\nepoch 2 step 2000 loss 1.41\nepoch 3 step 3000 loss 1.18\n"
        "Resuming from checkpoint ckpt/epoch3.pt\n"
        "epoch 4 step 3100 loss 2.87\nepoch 4 step 3200 loss 2.51\nepoch 4 step 3300 loss 2.20\n")
    ctx = context_for([str(tmp_path)], [])
    (jump,) = [s for s in ctx.signals if s.kind == "loss_jump_at_resume"]
    assert jump.data["step"] == 3100 and [e.line for e in jump.evidence] == [3, 5]   # the lines around it
    d = diagnose_paths([str(tmp_path)], [])
    assert d.hypotheses[0].id == "resume_mismatch"
    # a notes table that says "resumed" first (the resume's first citation, in another file) dates nothing: the
    # log's own resume line still does
    (tmp_path / "experiments.csv").write_text("run,status,notes\ncos30-b,done (resumed),resumed with --resume last.pt\n")
    ctx = context_for([str(tmp_path)], [])
    assert [s.data["step"] for s in ctx.signals if s.kind == "loss_jump_at_resume"] == [3100]


def test_a_scheduler_stepped_at_the_wrong_interval_is_the_cause_of_its_tiny_lr_not_a_low_setting(tmp_path):
    """Lightning steps a bare-returned OneCycleLR once per epoch: the lr sits at its start, max_lr / 25, for the
    whole run while the loss falls. The run is not healthy, and its tiny lr is the schedule's doing:
    lr_schedule_bug ranks above lr_too_low."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose

    (tmp_path / "train.py").write_text(
        "import lightning as L\nimport torch\nimport torch.nn.functional as F\n\n\nclass Lit(L.LightningModule):\n"
        "    def training_step(self, batch, batch_idx):\n        x, y = batch\n"
        "        return F.cross_entropy(self.net(x), y)\n\n    def configure_optimizers(self):\n"
        "        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)\n"
        "        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=self.hparams.lr, total_steps=9000)\n"
        "        return [opt], [sched]\n")
    rows = "".join(f"{e},{450 * e + 449},{4e-05 * (1 + 1e-5 * e):.9g},{0.55 + 0.97 * 0.8 ** e:.4f},"
                   f"{0.60 + 0.87 * 0.8 ** e:.4f}\n" for e in range(20))
    (tmp_path / "metrics.csv").write_text("epoch,step,lr-AdamW,train_loss,val_loss\n" + rows)
    assert "healthy" not in {s.kind for s in analyze(ingest([tmp_path]))}
    ranked = [h.id for h in diagnose([str(tmp_path)], []).hypotheses]
    assert ranked[0] == "lr_schedule_bug" and ("lr_too_low" not in ranked or ranked.index("lr_too_low") > 0)


def test_gradients_that_blow_up_under_an_lr_far_too_high_point_at_the_lr(tmp_path):
    """A RoBERTa fine-tune at AdamW 1e-2 (the Trainer's default optimizer): loss falls, then climbs while
    grad_norm grows by orders of magnitude into NaN. The gradient growth is what the lr does; the lr
    outranks exploding gradients (clipping would only hide it)."""
    rows = [(1.0712, 4.87), (0.9634, 6.12), (0.9921, 21.5), (1.3817, 87.4), (2.9104, 1408.2), (7.5512, 25190.7),
            ("nan", "nan"), ("nan", "nan")]
    (tmp_path / "train.log").write_text("".join(
        f"{{'loss': {lo}, 'grad_norm': {g}, 'learning_rate': {0.01 * (1 - i / 90):.6g}, 'epoch': {0.03 * (i + 1):.2f}}}\n"
        for i, (lo, g) in enumerate(rows)))
    (tmp_path / "train.py").write_text(
        "model = AutoModelForSequenceClassification.from_pretrained('roberta-base', num_labels=3)\n"
        "args = TrainingArguments(output_dir='out', learning_rate=1e-2, warmup_ratio=0.0)\n"
        "Trainer(model=model, args=args, train_dataset=ds).train()\n")
    ids = [h.id for h in diagnose_paths([str(tmp_path)], []).hypotheses]
    assert ids[0] == "lr_too_high" and "exploding_gradients" in ids


def test_an_optimizer_setting_in_the_wrong_slot_outranks_a_loss_that_still_falls(tmp_path):
    """optax.adamw(sched, cfg.beta2, cfg.beta1, ...) swaps the betas; the loss still falls by half, in waves.
    A run that learns can learn badly under a wrong optimizer setting: the finding leads the ranking."""
    (tmp_path / "train.py").write_text(
        "import optax\n\ndef make_tx(cfg, sched):\n"
        "    return optax.adamw(sched, cfg.beta2, cfg.beta1, cfg.eps, weight_decay=cfg.weight_decay)\n")
    loss = [9.01, 6.56, 5.18, 4.46, 4.11, 3.83, 3.81, 3.91, 3.39, 3.27, 3.24, 3.32, 3.49, 3.97, 3.49, 3.28, 3.22]
    (tmp_path / "train.log").write_text("".join(f"step {250 * i:6d} | loss {v:.4f}\n" for i, v in enumerate(loss)))
    said = ["loss goes down then comes back up in slow waves every ~1.5k steps, never settles"]
    assert diagnose_paths([str(tmp_path)], said).hypotheses[0].id == "optimizer_misconfigured"


def test_the_word_model_reads_the_same_artifacts_whatever_order_they_were_named_in():
    """More than MAX_FILES text artifacts (an MLflow folder's many small files beside a post): the ones read
    are chosen by kind and path, so naming the files in another order gives the same text."""
    from mltdbg.analyzers.model import TextArtifact  # noqa: PLC0415 - the word model's input type
    from mltdbg.playbooks import textmodel as T  # noqa: PLC0415 - the word model's own helpers

    def art(name, kind, text):
        return TextArtifact(path=name, abspath=Path(name), kind=kind, text=text)
    texts = [art(f"mlruns/0/abc/params/p{i:02d}", "config", f"value {i}") for i in range(T.MAX_FILES + 3)]
    texts += [art("question.txt", "text", "after resuming the loss went back up"), art("train.py", "code", "x = 1")]
    one, other = T.artifact_text(texts), T.artifact_text(texts[::-1])
    assert one == other and "after resuming the loss went back up" in one and "x = 1" not in one


@pytest.mark.parametrize("said, hang", [
    ("the train loss hangs between 0.5 and 1 for 20 epochs", False),     # a plateau, no process that hangs
    ("loss hangs around ~0.7 and never improves", False),
    ("accuracy is hanging around 0.7", False),
    ("the loss hung around 2.3 for hours", False),
    ("training hangs at 0% after the first all_reduce", True),
    ("the job hangs forever with 8 GPUs", True),
    # the launcher and the setup name no stall (a NaN or an OOM under DDP is not a hang) unless a stall is said beside them
    ("with distributed training on six cards the loss is NaN", False),
    ("torchrun --nproc_per_node=8 train.py gives a CUDA out of memory error", False),
    ("DDP training is stuck at the first iteration", True),
    ("the workers wait forever under torchrun", True),
    # (a loss stuck at a value, "blocks" of a model and "never goes below" are no stall)
    ("DDP model with 4 residual blocks gives NaN", False),
    ("with distributed training the loss never goes below 2.0", False),
    ("DDP validation loss is stuck at 0.69", False),
])
def test_a_metric_that_hangs_around_a_value_is_no_hang(said, hang):
    assert library.causes()["distributed_hang"].symptom_match([said]) is hang


@pytest.mark.parametrize("cause, said, named", [
    # "gradients" holds "die": a ReLU named beside a NaN gradient is no dead unit
    ("dead_relu", "an MLP (ReLU hidden 256, softmax output) gives NaN loss gradients", False),
    ("dead_relu", "after a few epochs most ReLU units die and output zero", True),
    # an annotation format, and a training accuracy beside a low validation score, name no label noise
    ("label_noise", "I converted the annotations with a converter script and get nan values", False),
    ("label_noise", "training accuracy gets high (about 70%) but the validation rate on LFW is only about 5%", False),
    ("label_noise", "many annotations are wrong in the crowd-sourced set", True),
    ("label_noise", "the training accuracy is stuck around 80% however long I train", True),
    ("data_leakage", "New churn MLP gets ~0.99 validation AUC from the very first epoch. Did we just get lucky?", True),
    ("data_leakage", "val acc 1.0 from epoch 1", True),
    ("data_leakage", "the test AUC is 0.87 and the validation loss 0.99", False),
    ("data_leakage", "Sometimes I get lucky with the seed and training works, but most runs diverge to NaN", False),
    ("data_leakage", "my validation accuracy drops from 0.99 to 0.45 after the update", False),
    ("data_leakage", "MNIST CNN: val acc 0.99 after 3 epochs, is that normal?", False),
    ("data_leakage", "Reward model eval accuracy goes to ~1.0 and stays right with (even above) train accuracy", True),
    ("data_leakage", "val acc reaches 0.99 at the end, a bit below the training accuracy", False),
    ("data_leakage", "my validation loss stays above the training loss, is that normal?", False),
    ("data_leakage", "val acc 0.99 matches train acc 0.995 on MNIST", False),
    ("data_leakage", "my validation accuracy drops from ~0.99 in the first epoch to 0.45", False),
    ("data_leakage", "test accuracy 0.991 at the end; the first 5 epochs were noisy", False),
    ("dataloader_bottleneck", "Validation accuracy peaked at 0.903 and then slowly drifted down to 0.845", False),
    ("dataloader_bottleneck", "the loss slowly goes down, then climbs again", False),
    ("dataloader_bottleneck", "It is going down, just painfully slowly.", False),
    ("dataloader_bottleneck", "training is slow, 2 it/s on an A100", True),
])
def test_a_cause_s_words_name_it_only_in_its_own_sense(cause, said, named):
    assert library.causes()[cause].symptom_match([said]) is named


_VALIDATE_CODE = ("import argparse\nimport torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader, TensorDataset\n\n"
    "def loaders(batch_size):\n    g = torch.Generator().manual_seed(0)\n    x = torch.randn(2000, 64, generator=g)\n"
    "    y = torch.randint(0, 10, (2000,), generator=g)\n"
    "    train = DataLoader(TensorDataset(x[:1500], y[:1500]), batch_size=batch_size, shuffle=True)\n"
    "    val = DataLoader(TensorDataset(x[1500:], y[1500:]), batch_size=batch_size)\n    return train, val\n\n"
    "def validate(model, loader):\n{eval}    correct = 0\n    with torch.no_grad():\n        for x, y in loader:\n"
    "            out = model(x)\n            correct += (out.argmax(1) == y).sum().item()\n    return correct\n\n"
    "def main():\n    p = argparse.ArgumentParser()\n    p.add_argument('--epochs', type=int, default=40)\n"
    "    p.add_argument('--batch-size', type=int, default=64)\n    args = p.parse_args()\n"
    "    train_loader, val_loader = loaders(args.batch_size)\n"
    "    model = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10))\n"
    "    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)\n"
    "    for epoch in range(args.epochs):\n        model.train()\n        for x, y in train_loader:\n"
    "            optimizer.zero_grad()\n            loss = nn.functional.cross_entropy(model(x), y)\n"
    "            loss.backward()\n            optimizer.step()\n        print(epoch, validate(model, val_loader))\n\n"
    "if __name__ == '__main__':\n    main()\n")


def test_overfitting_is_no_finding_beside_inference_code_without_eval(tmp_path):
    """A validation loss that falls, then rises while the training loss goes to ~0 reads as overfitting; beside a
    validate() that runs a dropout/batch-norm model without model.eval() it stays below the bar: that code makes
    the held-out numbers worse by itself (timm-style run, read before as overfitting 0.90)."""
    rows = ["epoch,train_loss,eval_loss,eval_top1"]
    for e in range(40):
        rows.append(f"{e},{2.3 * math.exp(-e / 5) + 0.002:.4f},{0.9 + 1.4 * math.exp(-e / 3) + 0.03 * max(0, e - 8):.4f},"
                    f"{min(75.0, 20 + 7 * e) - 0.3 * max(0, e - 8):.2f}")
    (tmp_path / "summary.csv").write_text("\n".join(rows) + "\n")
    words = ["validation loss goes up after epoch 8 while the training loss keeps falling"]
    (tmp_path / "train.py").write_text(_VALIDATE_CODE.format(eval="    model.eval()\n"))
    top = diagnose_paths([str(tmp_path)], words).hypotheses[0]
    assert top.id == "overfitting" and top.confidence >= 0.8
    (tmp_path / "train.py").write_text(_VALIDATE_CODE.format(eval=""))
    held = {h.id: h.confidence for h in diagnose_paths([str(tmp_path)], words).hypotheses}
    assert held["overfitting"] < 0.8 and "eval_mode_forgotten" in held


def test_a_gap_beside_inference_code_without_eval_ranks_the_code_first(tmp_path):
    """Validation that levels off far below training (never rising again: no trajectory of overfitting) beside a
    validate() that runs a dropout/batch-norm model without model.eval(): the gap is what that code opens by itself,
    so the missing eval() leads (an audio run read overfitting 0.47 above eval_mode_forgotten 0.31)."""
    rows = ["epoch,train_loss,eval_loss,train_acc,eval_acc"]
    for e in range(20):
        rows.append(f"{e},{2.3 * math.exp(-e / 6) + 0.4:.4f},{1.4 + 0.9 * math.exp(-e / 4):.4f},"
                    f"{min(0.93, 0.14 + 0.05 * e):.3f},{min(0.48, 0.15 + 0.03 * e):.3f}")
    (tmp_path / "history.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "train.py").write_text(_VALIDATE_CODE.format(eval=""))
    words = ["Train accuracy gets to ~93% but validation stays around 45-50% and jumps around between epochs; the test "
             "set is just as bad."]
    conf = {h.id: h.confidence for h in diagnose_paths([str(tmp_path)], words).hypotheses}
    assert conf["eval_mode_forgotten"] > 3 * conf.get("overfitting", 0.0)


def test_overfitting_is_no_finding_when_embeddings_hold_the_parameters(tmp_path):
    """The same rise after a minimum, from a model whose printed layers put 99.8% of its parameters in an embedding
    per node (a GCN body 8 units wide): such a model memorises its training nodes by construction, so the gap is
    no finding of overfitting alone (PyG-style run read as overfitting 0.90)."""
    lines = []
    for e in range(1, 121, 5):
        tr = 1.6 * math.exp(-e / 25) + 0.1
        va = 0.85 + 0.75 * math.exp(-e / 8) + 0.004 * max(0, e - 30)
        lines.append(f"Epoch: {e:03d}, Loss: {tr:.4f}, Valid loss: {va:.4f}, Train: {min(1.0, 0.2 + e / 40):.4f}, "
                     f"Val: {min(0.72, 0.2 + e / 50):.4f}")
    words = ["train accuracy reaches 100% but validation tops out at 72% and its loss goes up"]
    curve = "\n".join(lines) + "\n"
    (tmp_path / "nohup.out").write_text(curve)
    top = diagnose_paths([str(tmp_path)], words).hypotheses[0]
    assert top.id == "overfitting" and top.confidence >= 0.8
    embed = ("Net(\n  (emb): Embedding(4000, 256)\n  (conv1): GCNConv(\n"
             "    (lin): Linear(in_features=272, out_features=8, bias=True)\n  )\n"
             "  (conv2): GCNConv(\n    (lin): Linear(in_features=8, out_features=5, bias=True)\n  )\n)\n")
    (tmp_path / "nohup.out").write_text(embed + curve)
    held = {h.id: h.confidence for h in diagnose_paths([str(tmp_path)], words).hypotheses}
    assert held["overfitting"] < 0.8 and "architecture_imbalance" in held


def test_a_rankings_confidences_never_sum_past_one():
    """Words-only causes that complete a short ranking were scored outside the softmax's sum: a post about a depth
    model whose loss rises after the batch went from 8 to 1 ranked lr_too_high 0.63 and overfitting 0.45. Each added
    cause now gets at most what the ranked ones leave."""
    from mltdbg.playbooks.diagnose import diagnose
    case = Path(__file__).parent / "realworld" / "cases" / "lr_too_high__depth_toolbox_adabins_kitti_batch_8_to_1_loss_rises_near_20k"
    sym = json.loads((case / "case.json").read_text())["symptom"]
    d = diagnose([str(case / "run")], [sym])
    assert len(d.hypotheses) >= 2 and sum(h.confidence for h in d.hypotheses) <= 1.0 + 1e-9


def test_a_score_stuck_while_the_loss_falls_beside_a_frozen_network_is_the_freeze(tmp_path):
    """pytorch-metric-learning's trunk and embedder with gradient norms of exactly 0 every epoch while the CosFace
    layer's class weights learn: the loss falls, Recall@1 stays where it began. The stuck score (the curves' reading
    and the user's words alike) is the frozen network's, not a metric computed from something else (read
    metric_changed 0.51 before); `trunk_grad_norm` / `embedder_grad_norm` are per-part gradient norms."""
    rows = ["epoch,mean_loss,trunk_grad_norm,embedder_grad_norm,loss_W_grad_norm,Recall@1"]
    for e in range(1, 16):
        rows.append(f"{e},{21.9 + 12.4 * math.exp(-e / 3):.3f},0.0000,0.0000,{6.8 + 7.7 * math.exp(-e / 4):.3f},"
                    f"{0.20 + 0.01 * (e % 2):.3f}")
    (tmp_path / "accuracies.csv").write_text("\n".join(rows) + "\n")
    words = ["The CosFace loss drops a bit in the first epochs and then flattens at a high value, and Recall@1 stays at "
             "about 0.20 after every epoch, the same as before training."]
    d = diagnose_paths([str(tmp_path)], words)
    assert d.hypotheses[0].id == "frozen_parameters" and d.hypotheses[0].confidence >= 0.8


def test_zero_gradients_beside_biases_that_keep_relus_off_are_the_dead_units(tmp_path):
    """Hidden biases initialised at -1 (a config) and hidden-layer gradient norms of exactly 0: a dead ReLU passes no
    gradient back, so the zeros are the dead units' (read frozen_parameters 0.79 before); loss at ln 4."""
    rows = ["epoch,loss,accuracy,grad_norm"] + [f"{e},{1.3863 - 0.00001 * e:.5f},0.25,0.0" for e in range(1, 31)]
    (tmp_path / "history.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "config.yaml").write_text("model:\n  hidden: [256, 256, 256]\n  bias_init: -1.0\noptim:\n  lr: 0.001\n")
    ranked = [h.id for h in diagnose_paths([str(tmp_path)], ["Loss is stuck at 1.386 from the first epoch"]).hypotheses]
    assert ranked[0] == "dead_relu"
