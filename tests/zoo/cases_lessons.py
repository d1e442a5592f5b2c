"""Repeat failures: a second failure in a repo whose CLAUDE.md already holds the lesson of the first.

Each case is a repo (repo.bundle: the code, then a later commit that fixed an earlier incident and wrote
its lesson into CLAUDE.md under "Things that have bitten us") and the new run's artifacts, taken from a
zoo case of the same split (so no hold-out data is tuned on). The lessons are written the ways people
write them: mltdbg's own format, a hand-written line with another date format, a lesson about a
different cause (it must not pull the diagnosis its way). The harness clones the bundle and diagnoses
inside it, so the CLAUDE.md is found at the repo root.
"""
from __future__ import annotations

from make_zoo import HERE, Ctx, case

CODE = ("train.py", "config.yaml", "model.py", "data.py", "launch.sh", "job.sbatch")


def _repeat(c: Ctx, src: str, claude_md: str, fix_message: str) -> None:
    """The source case's files at the top of the case; its code and the CLAUDE.md in the bundle."""
    base = HERE / "cases" / src
    code: dict[str, str] = {}
    for p in sorted(base.rglob("*")):
        if not p.is_file() or p.name == "case.yaml":
            continue
        rel = p.relative_to(base).as_posix()
        if rel in CODE:
            code[rel] = p.read_text()
        c.write(rel, p.read_bytes())                # the code too: what the bundle's last commit holds
    c.bundle([("Training script", code), (fix_message, {"CLAUDE.md": claude_md})])


def _md(*entries: str) -> str:
    return ("# Project notes\n\nRun `python train.py --config config.yaml`; logs go to train.log.\n\n"
            "## Things that have bitten us\n\n" + "".join(e.rstrip("\n") + "\n" for e in entries) +
            "\n## Conventions\n\n- keep configs in config.yaml, never hard-code hyperparameters\n")


def lesson(name: str, **kw):
    return case(name, generated=False, repo_bundle="repo.bundle", **kw)


@lesson("repeat_zero_grad_again_kv", split="tune", expected="missing_zero_grad",
        symptom="grad_norm keeps growing the whole run and the loss gets worse after a while.",
        fmt="text log key=value (stdout) + CLAUDE.md lesson of the same cause (mltdbg's format), repo.bundle",
        notes="The run of no_zero_grad_mlp_kv (optimizer.zero_grad() missing) in a repo whose CLAUDE.md already "
              "records the same bug, found two months earlier in finetune.py.")
def _(c: Ctx):
    _repeat(c, "no_zero_grad_mlp_kv", _md(
        "- (2026-03-02) Gradients accumulated across steps in finetune.py (optimizer.zero_grad() missing after a "
        "refactor of the loop). Caught by a climbing grad_norm, not by a test. Added test_grads_do_not_accumulate. "
        "Lesson: an lr=0 test that checks grads repeat across steps catches accumulation."),
        "Fix: zero the gradients in finetune.py")


@lesson("repeat_exploding_rnn_lesson_pipe", split="tune", expected="exploding_gradients",
        symptom="Loss jumps to huge values and ends up nan. I think one of my input sequences has a NaN in it.",
        misleading=True,
        fmt="text log 'Step i/N | loss x' + hand-written CLAUDE.md lesson (2025/12/01 date), repo.bundle",
        notes="The run of explode_rnn_pipe (no clipping, recurrent weights scaled 1.2) in a repo whose CLAUDE.md says "
              "the char-RNN blew up the same way before and clipping fixed it.")
def _(c: Ctx):
    _repeat(c, "explode_rnn_pipe", _md(
        "* 2025/12/01 - char-RNN: the gradients exploded (grad_norm past 1e4 within 300 steps) and the loss went NaN. "
        "It was not the data: clip_grad_norm_ had been dropped from train.py. Lesson: always clip RNN gradients "
        "(max_norm=1.0)."),
        "Fix: clip gradients in the RNN loop again")


@lesson("repeat_lr_lesson_but_nan_data_rank", split="holdout", expected="nan_in_data",
        symptom="loss=nan after ~20 iterations, I'm guessing the learning rate is too high?", misleading=True,
        fmt="rank-prefixed [rank0]: lines; data .npz; CLAUDE.md lesson of a *different* cause (lr), repo.bundle",
        notes="The run of nan_sample_regression_rank (a NaN row in data/features.npy) in a repo whose CLAUDE.md "
              "remembers an lr that was too high (NaN loss) last spring: the lesson must not win over the data.")
def _(c: Ctx):
    _repeat(c, "nan_sample_regression_rank", _md(
        "- 14 April 2026: lr 0.1 was too high for SGD with momentum 0.9 after the optimizer change: the loss went NaN "
        "at step ~400; 0.01 trains fine. Caught by a NaN loss. Lesson: smoke-test a new lr for 500 steps before a "
        "long run."),
        "Fix: lower the learning rate to 0.01")


@lesson("repeat_lr_high_lesson_mmengine", split="holdout", expected="lr_too_high",
        symptom="loss goes up after the first epoch",
        fmt="mmengine Epoch(train) lines + CLAUDE.md lesson of the same cause (May 4, 2026 date), repo.bundle",
        notes="The run of lr_high_cnn_mmengine (lr=0.3 with SGD momentum 0.9) in a repo whose CLAUDE.md records "
              "that lr 0.3 was already too high for this CNN once; the artifacts alone rank exploding_gradients "
              "first (the taxonomy's confusable pair).")
def _(c: Ctx):
    _repeat(c, "lr_high_cnn_mmengine", _md(
        "- May 4, 2026: the CNN's loss went up after the first epoch and settled at chance: lr 0.3 was too high for "
        "SGD with momentum 0.9; lr 0.01 trains. Caught by the loss curve, not by a test. Lesson: keep lr at or below "
        "0.03 for this CNN and log lr per step."),
        "Fix: lr back to 0.01 for the CNN")
