"""The user's words inside the artifacts (analyzers/prose.py) and what the engine reads of them."""
from __future__ import annotations

import numpy as np

from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.prose import prose_sentences
from mltdbg.playbooks import library
from mltdbg.playbooks import scoring as S
from mltdbg.playbooks.diagnose import context_for, diagnose

POST = """Loss does not go down

Hi,

I am training a small CNN on my own dataset and the loss couldn't converge after 30 epochs.
I tried a smaller learning rate but the loss remains the same.
(see train.log)
Thank you.
"""
LOG = "".join(f"2024-05-01 12:00:{i:02d} | INFO | step={i} loss={2.3 - 0.01 * i:.3f} lr=0.001\n" for i in range(40))
CONSOLE = "model: 6154 parameters, 2000 training samples\nGPU available: True (cuda), used: True\n"
SAMPLES = "sample: 'the wlg smar r tm log tr rat iug smatilg. it'\nsample: 'the eda u ededn edve ededve brjnge'\n"
TRACE = """Traceback (most recent call last):
  File "train.py", line 12, in <module>
    loss.backward()
RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB
"""


def _texts(tmp_path, files: dict[str, str]):
    tmp_path.mkdir(exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return ingest([str(tmp_path)]).texts


def test_a_post_saved_beside_the_log_is_read_as_the_users_words(tmp_path):
    texts = _texts(tmp_path, {"question.txt": POST, "train.log": LOG})
    got = prose_sentences(texts)
    assert len(got) == 1
    assert "couldn't converge" in got[0] and "remains the same" in got[0]
    assert "step=" not in got[0] and "Thank you" not in got[0]


def test_logs_status_lines_model_samples_and_tracebacks_are_not_prose(tmp_path):
    texts = _texts(tmp_path, {"train.log": LOG, "console.log": CONSOLE, "samples.log": SAMPLES, "traceback.txt": TRACE})
    assert prose_sentences(texts) == []


def test_a_one_line_chinese_post_is_a_paragraph(tmp_path):
    """One sentence of 18 CJK characters and four Latin words (26 by _cjk_length) says what fifteen English
    words say: read as the user's words, so half precision there meets mixed_precision_overflow's requirement
    (the post had an empty ranking). A short Chinese status line is still no paragraph."""
    post = "开启amp混合精度训练后，loss变成nan，关掉amp之后就正常了。\n"
    assert prose_sentences(_texts(tmp_path, {"question.txt": post})) == [post.strip()]
    d = diagnose([str(tmp_path / "question.txt")], [])
    assert d.hypotheses and d.hypotheses[0].id == "mixed_precision_overflow" and d.hypotheses[0].confidence < 0.8
    assert prose_sentences(_texts(tmp_path / "status", {"log.txt": "训练完成，模型已经保存到output目录\n"})) == []


QUOTES_A_CALL = ("GPU utilization stays around 15% during training and each epoch takes 40 minutes. nvidia-smi shows "
                 "the GPU mostly idle. I use DataLoader(dataset, batch_size=256, num_workers=0) and the images are "
                 "decoded with PIL on the fly.\n")


def test_a_sentence_quoting_a_calls_arguments_is_prose_and_a_metric_line_is_not(tmp_path):
    """Two `key=value` shapes make a metric line only when they are most of it: a post that quotes
    DataLoader(..., batch_size=256, num_workers=0) in a long sentence is still the user's words."""
    got = prose_sentences(_texts(tmp_path, {"q.txt": QUOTES_A_CALL}))
    assert len(got) == 1 and "num_workers=0" in got[0]
    metric_lines = "Epoch 1: loss=0.693 acc=0.50 and the same for all\nEpoch 2: loss=0.693 acc=0.50 and the same\n"
    assert prose_sentences(_texts(tmp_path / "log", {"log.txt": metric_lines})) == []
    # end to end: the question alone in a file ranks its cause (it gave an empty ranking before)
    d = diagnose([str(tmp_path / "q.txt")], [])
    assert d.hypotheses and d.hypotheses[0].id == "dataloader_bottleneck"


def test_keras_checkpoint_messages_are_a_frameworks_status_lines_not_prose(tmp_path):
    """ModelCheckpoint prints a sentence-like line per epoch; beside the progress lines they made half the
    file, so a healthy run's log was read as a post ('overfitting 0.16: suggested by the symptom only')."""
    lines = []
    for e in range(1, 11):
        v = 0.9 * 0.8 ** e + 0.15
        lines += [f"Epoch {e}/10",
                  f"938/938 [==============================] - 4s 4ms/step - loss: {v - 0.02:.4f} - accuracy: "
                  f"{1 - v / 2:.4f} - val_loss: {v:.4f} - val_accuracy: {1 - v / 2.2:.4f}",
                  f"Epoch {e}: val_loss improved from {0.9 * 0.8 ** (e - 1) + 0.15:.5f} to {v:.5f}, saving model to best.h5"]
    (tmp_path / "log.txt").write_text("\n".join(lines) + "\n")
    assert prose_sentences(ingest([str(tmp_path)]).texts) == []
    assert diagnose([str(tmp_path)], []).status == "no_issue_found"


def test_the_engine_reads_the_post_like_a_symptom(tmp_path):
    (tmp_path / "question.txt").write_text(POST)
    run = ingest([str(tmp_path)])
    words = S.user_words([], run)
    feat = S.extract([], words, ())
    assert "loss_not_decreasing" in {c.id for c in library.classes_for(words)}
    assert feat.failure_said and feat.symptom_given
    assert "said:lower_lr_no_help" in feat.strengths      # "tried a smaller learning rate but ... remains"
    # end to end: a failure in the post is never "no issue", and the class's causes are ranked
    d = diagnose([str(tmp_path)], [])
    assert d.status != "no_issue_found" and d.hypotheses


def test_a_tracebacks_error_line_joins_the_users_words(tmp_path):
    (tmp_path / "traceback.txt").write_text(TRACE)
    run = context_for([str(tmp_path)], ["it crashed"]).run       # tracebacks are parsed by the analyzers
    assert any(w.startswith("RuntimeError: CUDA out of memory") for w in S.user_words(["it crashed"], run))


def test_the_quick_no_sentence_test_never_drops_a_text_the_regex_would_read():
    """prose_sentences skips an ASCII text when none of its letter runs is a function word; that must
    hold for every text where _FUNCTION finds one (contractions, escapes, digits and '_' beside it)."""
    import random
    import string
    from mltdbg.analyzers import prose as P
    rng = random.Random(7)
    words = sorted(P._FUNCTION_TOKENS) + ["don't", "Can't", "DOESN'T", "didn't", "The", "IS", "it's", "x", "_", "9"]
    alphabet = string.printable + "\x1b\x01\x7f"
    seen = 0
    for _ in range(30000):
        t = "".join(rng.choice(words) if rng.random() < 0.3 else
                    "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(1, 6)))
        if P._FUNCTION.search(t):
            seen += 1
            assert not P._FUNCTION_TOKENS.isdisjoint(t.lower().translate(P._LETTERS_ONLY).split()), repr(t)
    assert seen > 5000
    log = "2024-05-01 12:00:00 INFO step=0 loss=2.0 lr=0.001\n" * 20
    assert P._FUNCTION.search(log) is None and P._FUNCTION_TOKENS.isdisjoint(log.lower().translate(P._LETTERS_ONLY).split())


def test_an_error_line_pasted_without_its_traceback_is_the_users_words(tmp_path):
    """'RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR' alone in a file: no traceback header, so the
    traceback analyzers never read it, and prose leaves exception lines to them; it had an empty ranking. It
    joins the user's words as a traceback's last line does: the crash class ranks its causes."""
    from mltdbg.analyzers.prose import bare_error_lines
    texts = _texts(tmp_path, {"err.txt": "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n"})
    assert bare_error_lines(texts, 4) == ["RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR"]
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses and {h.id for h in d.hypotheses} & {"cuda_oom", "shape_mismatch", "label_out_of_range"}
    assert "RuntimeError: cuDNN error" in " ".join(S.user_words([], ingest([str(tmp_path)])))
    # a traceback's own last line is read once, from the traceback
    (tmp_path / "err.txt").write_text(TRACE)
    words = S.user_words([], ingest([str(tmp_path)]))
    assert sum("CUDA out of memory" in w for w in words) == 1


def test_what_a_post_fences_is_not_counted_against_its_prose(tmp_path):
    """A markdown post: a title, a fenced training loop and one sentence. The eight code lines had counted as
    lines that are no sentence, so the file was no prose and the post's words were lost (an empty ranking). What
    a post fences is read as code or log elsewhere; a file that fences what it quotes is a post."""
    post = ("My training loop:\n\n```python\nfor epoch in range(epochs):\n    for x, y in loader:\n"
            "        optimizer.zero_grad()\n        out = model(x)\n        loss = criterion(out, y)\n"
            "        loss.backward()\n    optimizer.step()\n```\n\nThe loss barely moves after 20 epochs.\n")
    assert prose_sentences(_texts(tmp_path, {"question.md": post})) == ["The loss barely moves after 20 epochs."]
    d = diagnose([str(tmp_path / "question.md")], [])
    assert d.hypotheses and "loss_not_decreasing" in {c.id for c in library.classes_for(S.user_words([], ingest([str(tmp_path)])))}
    # a log with a stray fence line is still no prose
    log = "```\n" + LOG
    assert prose_sentences(_texts(tmp_path / "log", {"train.log": log})) == []


def test_posts_in_other_languages_are_prose(tmp_path):
    """A one-line post in Spanish, Portuguese, French or German had no English function word, so it was no
    sentence and the run had an empty ranking. Their own function words count; the loan words in them
    ("nan", "batch size", "GPU", "learning rate") are what the word model reads."""
    posts = {
        "es.txt": "Cuando aumento el batch size a 64 me sale un error de memoria en la GPU, con 16 funciona bien.",
        "pt.txt": "A acurácia de treino chega a 99% mas a acurácia de validação cai para 55% depois da época 5.",
        "fr.txt": "J'entraîne un ResNet avec SGD et un learning rate de 1.0 et la loss explose puis devient nan.",
        "de.txt": "Ich trainiere ein Netz mit Adam und der Loss ist nach zwei Epochen immer nan.",
    }
    for name, text in posts.items():
        assert prose_sentences(_texts(tmp_path / name[:2], {name: text})) == [text], name
    d = diagnose([str(tmp_path / "es" / "es.txt")], [])
    assert d.hypotheses and d.hypotheses[0].id == "cuda_oom", [(h.id, h.confidence) for h in d.hypotheses]
    # a log whose lines carry such tokens ("de", "la") is still no prose
    log = "".join(f"step {i} | loss {1.0 / (i + 1):.3f} | lr de la 0.001 | run en_US\n" for i in range(30))
    assert prose_sentences(_texts(tmp_path / "log", {"train.log": log})) == []


def test_a_short_note_in_shorthand_is_the_users_words(tmp_path):
    """A chat-style note of a line or three has no sentence in it ("bs 64 OOMs on a 24GB 3090, bs 32 works"): no
    function word, or too many digits. It had an empty ranking. A short file whose every line is such a note
    (words of letters, a word no progress line has) is read whole; a three-line progress log is not."""
    note = "bs 64 OOMs on a 24GB 3090, bs 32 works. seq len 2048, 7B model"
    assert prose_sentences(_texts(tmp_path / "a", {"note.txt": note + "\n"})) == [note]
    d = diagnose([str(tmp_path / "a" / "note.txt")], [])
    assert d.hypotheses and d.hypotheses[0].id == "cuda_oom", [(h.id, h.confidence) for h in d.hypotheses]
    log = "epoch 1 loss 2.30 acc 0.10\nepoch 2 loss 2.30 acc 0.10\nepoch 3 loss 2.30 acc 0.10\n"
    assert prose_sentences(_texts(tmp_path / "b", {"train.log": log})) == []
    # a function word serves as well ("gpu 0% util most of the time")
    note2 = "gpu 0% util most of the time, cpu 100%, num_workers 0, epoch takes 2h"
    assert prose_sentences(_texts(tmp_path / "d", {"note.txt": note2 + "\n"})) == [note2]
    # a project's README of one line describes the project: no note ("a project with no run yet" had ranked dead_relu)
    assert prose_sentences(_texts(tmp_path / "e", {"README.md": "a project with no run yet\n"})) == []
    # (nor a longer file: a note is short)
    assert prose_sentences(_texts(tmp_path / "c", {"n.txt": (note + "\n") * 4})) == []


def test_a_post_that_pastes_its_log_bare_is_the_users_words(tmp_path):
    """"My CNN predicts the same class for every image." above two Keras epoch lines pasted without fences: the
    epoch lines outnumbered the one sentence, so the file was no prose and the ranking was empty. A file that
    opens with the user's own sentence (first person, or a question) leaves its pasted progress lines to the
    readers; a log that opens with a program's line stays no prose."""
    post = ("My CNN predicts the same class for every image.\n\n"
            "Epoch 1/20 - loss: 14.5063 - accuracy: 0.1000\nEpoch 2/20 - loss: 14.5063 - accuracy: 0.1000\n")
    assert prose_sentences(_texts(tmp_path / "a", {"q.txt": post})) == ["My CNN predicts the same class for every image."]
    d = diagnose([str(tmp_path / "a" / "q.txt")], [])
    assert d.hypotheses, "no ranking"
    log = ("Training the model for twenty epochs on the full dataset.\n"
           "Epoch 1/20 - loss: 14.5063 - accuracy: 0.1000\nEpoch 2/20 - loss: 14.5063 - accuracy: 0.1000\n")
    assert prose_sentences(_texts(tmp_path / "b", {"train.log": log})) == []
    # one progress line alone is no pasted log: the post's share of sentences still decides
    one = "My CNN predicts the same class for every image.\nEpoch 1/20 - loss: 14.5063 - accuracy: 0.1000\n" \
          "Epoch 1/20 was the first epoch and the loss was not moving at all.\n"
    assert prose_sentences(_texts(tmp_path / "c", {"q.txt": one}))


def test_a_one_line_note_in_chinese_with_its_numbers_is_the_users_words(tmp_path):
    """"训练的时候batch_size设置成64就报显存不足，改成16就可以跑，显卡是3060 12G。": its digits (64, 16, 3060, 12G) are too
    large a share for a sentence, and it has no spaces to count words by, so the file had no words of the user's
    and an empty ranking. A short note's line of CJK text is read as a note (its OOM words name the failure)."""
    note = "训练的时候batch_size设置成64就报显存不足，改成16就可以跑，显卡是3060 12G。"
    assert prose_sentences(_texts(tmp_path / "a", {"post.txt": note + "\n"})) == [note]
    d = diagnose([str(tmp_path / "a" / "post.txt")], [])
    assert d.hypotheses and d.hypotheses[0].id == "cuda_oom", [(h.id, h.confidence) for h in d.hypotheses]
    # a CJK log line of a program is a status line still
    assert prose_sentences(_texts(tmp_path / "b", {"train.log": "epoch 3 | 训练损失 2.30 | 验证准确率 0.10 | 学习率 0.001\n"})) == []


def test_a_post_that_pastes_its_log_first_and_asks_after_is_the_users_words(tmp_path):
    """Four "Epoch 5: train 0.85 val 0.74" lines, then the question: the sentence that says so may come after the
    pasted lines (it had an empty ranking)."""
    post = ("Epoch 1: train 0.62 val 0.60\nEpoch 5: train 0.85 val 0.74\nEpoch 10: train 0.97 val 0.72\n"
            "Epoch 20: train 0.999 val 0.69\nsmall dataset (800 images), fine-tuning EfficientNet-B3, no augmentation. "
            "Val acc peaks at epoch 5 and drops after. What should I do?\n")
    got = prose_sentences(_texts(tmp_path / "a", {"post.txt": post}))
    assert got and "What should I do?" in got[0]
    assert diagnose([str(tmp_path / "a" / "post.txt")], []).hypotheses


def test_a_post_that_pastes_trainer_dict_lines_is_the_users_words(tmp_path):
    """A post that pastes the HF Trainer's log dicts ({'loss': 0.6931, 'learning_rate': 0.005, 'epoch': 0.05}) between
    its sentences: a dict line's `'loss': 0.6931` was no metric shape (a quote before the colon), so the eight lines
    counted against the four sentences, the file was no prose and the ranking was empty."""
    lines = "".join(f"{{'loss': {v}, 'learning_rate': 0.005, 'epoch': {e}}}\n"
                    for v, e in ((0.6931, 0.05), (0.6412, 0.1), (0.7233, 0.15), (0.6987, 0.2), (0.6934, 0.25),
                                 (0.6932, 0.3), (0.6931, 0.35)))
    post = ("Loss goes up after a few hundred steps when fine-tuning roberta-base\n\n"
            "I'm using the Trainer with learning_rate=5e-3, warmup 0, batch 32. Here is the log:\n\n" + lines +
            "{'eval_loss': 0.6931, 'eval_accuracy': 0.5, 'epoch': 1.0}\n\nAccuracy is exactly 50%. What happened?\n")
    got = prose_sentences(_texts(tmp_path / "a", {"question.txt": post}))
    assert got and "What happened?" in got[0] and "'loss'" not in got[0]
    d = diagnose([str(tmp_path / "a" / "question.txt")], [])
    assert d.hypotheses and d.hypotheses[0].id == "lr_too_high", [(h.id, h.confidence) for h in d.hypotheses]
    assert d.hypotheses[0].confidence < 0.8       # (the lr is the user's words: no finding)


def test_a_post_in_russian_is_the_users_words(tmp_path):
    """"При обучении модели лосс сначала падает, а потом становится nan. Использую Adam с lr=0.1.": no function word
    of the languages prose knew, so the post was no prose and its ranking was empty."""
    post = "При обучении модели лосс сначала падает, а потом становится nan. Использую Adam с lr=0.1. Что делать?\n"
    assert prose_sentences(_texts(tmp_path / "a", {"question.txt": post}))
    d = diagnose([str(tmp_path / "a" / "question.txt")], [])
    assert d.hypotheses and d.hypotheses[0].id == "lr_too_high", [(h.id, h.confidence) for h in d.hypotheses]


def test_a_text_file_that_holds_only_code_is_checked_as_code(tmp_path):
    """A training loop saved as question.txt and nothing else: code quoted in a file with no sentence was left
    unread (a log that printed code), so the run had an empty ranking. Code that is all a file holds is a snippet;
    a log with other lines beside its code still quotes none."""
    loop = ("for data, target in loader:\n    output = model(data)\n    loss = F.nll_loss(output, target)\n"
            "    loss.backward()\n    optimizer.step()\n")
    _texts(tmp_path / "a", {"question.txt": loop})
    d = diagnose([str(tmp_path / "a" / "question.txt")], [])
    assert d.hypotheses and d.hypotheses[0].id == "missing_zero_grad", [(h.id, h.confidence) for h in d.hypotheses]
    log = "2024-01-01 10:00:01 starting\n" + loop + "2024-01-01 10:00:05 epoch 1 loss 0.52\n"
    from mltdbg.analyzers.code.index import fenced_code
    assert fenced_code(_texts(tmp_path / "b", {"train.log": log})[0]) is None


def test_a_post_that_pastes_a_command_and_a_results_table_between_its_sentences_is_still_a_post(tmp_path):
    """A YOLOv5 issue: a title, a command line, a few sentences, then the progress table it printed
    ("0/99  6.21G  0.09812 ..."). The command is neither a sentence nor a reason to call the file no prose
    (the table's rows still count against it); it had given an empty ranking (no word of the user's read).
    A log with only such rows stays no prose."""
    post = tmp_path / "question.txt"
    post.write_text(
        "Training with --optimizer Adam much worse than SGD on my custom dataset\n\n"
        "python train.py --data mydata.yaml --weights yolov5s.pt --img 640 --batch 32 --epochs 100 --optimizer Adam\n"
        "hyp is default hyp.scratch-low.yaml (lr0: 0.01). Dataset ~4k images, 3 classes.\n"
        "With SGD mAP@.5 reach 0.89. With Adam, box/obj loss jump up at first epochs and mAP stays near 0.\n"
        "Is Adam not supported? I read Adam usually better.\n\n"
        "      Epoch   gpu_mem       box       obj       cls    labels  img_size\n"
        + "".join(f"       {e}/99     6.21G   0.{9 + e}812   0.04411   0.02871       121       640\n" for e in range(4)))
    assert any("Adam usually better" in p for p in prose_sentences(ingest([post]).texts))
    assert diagnose([str(post)], []).hypotheses
    log = tmp_path / "train.log"
    log.write_text("".join(f"       {e}/99     6.21G   0.{9 + e}812   0.04411   0.02871       121       640\n"
                           for e in range(6)))
    assert prose_sentences(ingest([log]).texts) == []


def test_a_terse_post_with_a_title_labelled_lines_and_a_question_is_the_users_words():
    """A title of its own words, code and log lines labelled in shorthand ("Old code:", "New env:"), and one
    sentence that asks: too few sentences for the share rule, yet a post, so its words are read (an empty ranking
    before). A log whose first line is a progress line, with the same question, is not."""
    from pathlib import Path

    from mltdbg.analyzers.model import TextArtifact

    body = ("Old code: self.val_acc = torchmetrics.Accuracy()\nNew code: self.val_acc = torchmetrics.Accuracy(task='multiclass')\n"
            "Old env: Validation DataLoader 0: 100%|##########| 79/79 [00:04<00:00] val_loss=0.2113, val_acc=0.9412\n"
            "New env: Validation DataLoader 0: 100%|##########| 79/79 [00:04<00:00] val_loss=0.2113, val_acc=0.8836\n"
            "Dataset is skin lesion images. Does torchmetrics 1.x sync differently? Single GPU here though.\n")
    post = "Lightning: val_acc went from 0.94 to 0.88 after upgrading torchmetrics, same checkpoint\n" + body
    said = prose_sentences([TextArtifact("q.txt", Path("q.txt"), "text", post)])
    assert said and "after upgrading torchmetrics" in said[0] and "sync differently?" in said[0]
    log = "Epoch 3: 100%|##########| 79/79 [00:04<00:00] val_loss=0.2113, val_acc=0.9412\n" + body
    assert prose_sentences([TextArtifact("x.log", Path("x.log"), "log", log)]) == []


def test_a_comment_with_a_semicolon_in_a_short_post_is_no_statement_and_no_crash(tmp_path):
    """`# TODO: fix; later` parses to nothing (a comment): it had made the ';' rule take the max of no statements
    and the whole diagnosis exit with an internal error."""
    from mltdbg.analyzers.prose import _statement
    assert _statement("# TODO: fix; later") == 0
    assert _statement("loss = crit(out, y); loss.backward()") == 2
    (tmp_path / "q.txt").write_text("loss goes nan, why?\nfor x, y in loader:\n    # TODO: fix; later\n"
                                    "    loss = crit(model(x), y); loss.backward()\n    opt.step()\n")
    assert diagnose([str(tmp_path)], []).hypotheses


def test_an_issue_templates_environment_fields_are_not_the_users_words(tmp_path):
    """TensorFlow's issue template lists "- GPU model and memory: Colab gpu default": read as a sentence, its
    "memory ... gpu" was the user saying the GPU ran out of memory (cuda_oom ranked first on a post about a
    lower accuracy). The fields are neither sentence nor log; the user's own sentences stay."""
    post = ("**System information**\n- Have I written custom code: no, the Keras MNIST example\n"
            "- OS Platform and Distribution: Linux (Google Colab)\n- TensorFlow version: 2.2.0-rc3\n"
            "- CUDA/cuDNN version: Colab gpu default\n- GPU model and memory: Colab gpu default\n\n"
            "**Describe the current behavior**\nIf I train a simple CNN on the mnist dataset I get a different "
            "accuracy depending on whether I use tf.keras or keras.\n\n**Describe the expected behavior**\n"
            "I think that the accuracy should be the same for both of them.\n")
    texts = _texts(tmp_path, {"question.txt": post})
    words = " ".join(prose_sentences(texts))
    assert "simple CNN on the mnist dataset" in words and "the accuracy should be the same" in words
    assert "memory" not in words and "Platform" not in words
    ctx = context_for([str(tmp_path)], [])
    feat = S.features_for(ctx.signals, ctx.symptoms, ctx.run, ("loss",))
    assert "cuda_oom" not in feat.symptom_causes
    # a user's own sentence that says where memory ran out stays theirs
    texts = _texts(tmp_path / "b", {"post.txt": "I train a CNN on my GPU and it runs out of memory after 3 epochs.\n"
                                                "GPU: it runs out of memory after the third epoch with batch size 64.\n"})
    assert "runs out of memory after the third epoch" in " ".join(prose_sentences(texts))
    # ... a field the user left empty still makes the block
    texts = _texts(tmp_path / "d", {"question.txt": post.replace("- CUDA/cuDNN version: Colab gpu default", "- CUDA/cuDNN version:")})
    assert "memory" not in " ".join(prose_sentences(texts))
    # ... and a lone "label: value" line of theirs, outside a template's block of fields
    texts = _texts(tmp_path / "c", {"post.txt": "My detector trains fine on the small set, but not on the full one.\n"
                                                "GPU: runs out of memory at batch size 32.\n"
                                                "What can I change so that it fits?\n"})
    assert "runs out of memory at batch size 32" in " ".join(prose_sentences(texts))


_CARD = """---
tags:
- generated_from_trainer
---

<!-- This model card has been generated automatically according to the information the Trainer had access to. You
should probably proofread and complete it, then remove this comment. -->

# intent-router

This model was trained from scratch on an unknown dataset.
It achieves the following results on the evaluation set:
- Loss: 0.4734
- Accuracy: 0.845

### Training hyperparameters

The following hyperparameters were used during training:
- learning_rate: 0.002
- optimizer: Adam with betas=(0.9,0.999) and epsilon=1e-08
- num_epochs: 4

### Training results

| Training Loss | Epoch | Step | Validation Loss | Accuracy |
|:-------------:|:-----:|:----:|:---------------:|:--------:|
| No log        | 1.0   | 75   | 0.9245          | 0.685    |
| 0.912         | 2.0   | 150  | 0.6356          | 0.8417   |
| 0.8266        | 3.0   | 225  | 0.5443          | 0.9033   |
| 0.8167        | 4.0   | 300  | 0.5202          | 0.8767   |
"""


def test_a_model_card_is_a_run_record_not_documentation_nor_the_users_words(tmp_path):
    """The Trainer's README.md model card: its table of evaluations is the run's curve (a loss first, then its Epoch
    and Step axes; every metric after the two losses the evaluation set's), its "results on the evaluation set"
    bullets are held-out values, and its generated sentences ("Adam with betas=(0.9,0.999) and epsilon=1e-08") are
    nobody's words about the run (they named optimizer_misconfigured). A project README stays documentation."""
    (tmp_path / "README.md").write_text(_CARD)
    run = ingest([str(tmp_path)])
    got = {(s.name, s.raw_name, len(s)) for s in run.series}
    assert {("loss", "Training Loss", 4), ("val_loss", "Validation Loss", 4), ("val_accuracy", "Accuracy", 4),
            ("val_loss", "Loss", 1), ("val_accuracy", "Accuracy", 1)} <= got
    assert not any(s.raw_name == "Step" for s in run.series)
    loss = next(s for s in run.series if s.raw_name == "Training Loss")
    assert loss.steps.tolist() == [1, 2, 3, 4] and np.isnan(loss.values[0])
    assert prose_sentences(run.texts) == []
    post = tmp_path / "post"            # a post that pastes the card keeps its own sentences
    post.mkdir()
    (post / "issue.md").write_text("My validation accuracy is stuck at 0.5 while the training loss falls, and the "
                                   "learning rate is 2e-5. Here is the card the Trainer wrote:\n\n" + _CARD)
    assert any("stuck at 0.5" in p for p in prose_sentences(ingest([str(post)]).texts))
    other = tmp_path / "proj"
    other.mkdir()
    (other / "README.md").write_text(_CARD.replace("generated_from_trainer", "vision").replace(
        "This model card has been generated automatically", "Notes").replace("### Training results", "### Results"))
    assert not ingest([str(other)]).series


def test_a_data_file_s_text_cells_are_not_the_users_words(tmp_path):
    """A sample of the training CSV with a text column (support tickets) is data, not a post about the run: its words
    ("slow", "reset", "overcharged") once named causes."""
    texts = _texts(tmp_path, {"train_sample.csv": "text,label\n" + "".join(
        f'"my order was late and the courier never called me back about it, item {i}",{i % 3}\n' for i in range(30))})
    assert prose_sentences(texts) == []
