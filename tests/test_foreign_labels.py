"""Metric labels printed in Spanish, Portuguese, French, German or Russian (a user's own print labels), read as the
English names they stand for: accented and Cyrillic labels rewritten in the scanned bytes only
(readers/textlog/vocabulary.foreign_keys), ASCII ones translated word by word (names.normalize)."""
from __future__ import annotations

import pytest

from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.names import normalize
from mltdbg.analyzers.readers.textlog.vocabulary import cjk_keys


def _series(tmp_path, text: str) -> dict:
    (tmp_path / "train.log").write_text(text, encoding="utf-8")
    run = ingest([str(tmp_path)])
    return {s.name: s for s in run.series}, run


@pytest.mark.parametrize("line,names", [
    ("Época {e}/15 - perda: {l:.4f} - acurácia: {a:.4f} - perda_teste: {v:.4f} - acurácia_teste: {b:.4f}",
     {"loss", "accuracy", "val_loss", "val_accuracy"}),
    ("Эпоха {e}/15 потеря: {l:.4f} точность: {a:.4f} вал_потеря: {v:.4f} вал_точность: {b:.4f}",
     {"loss", "accuracy", "val_loss", "val_accuracy"}),
    ("Época {e} | pérdida: {l:.4f} | precisión: {a:.4f} | pérdida de validación: {v:.4f}", {"loss", "accuracy", "val_loss"}),
    ("Época {e}/15 - pérdida: {l:.4f} - exactitud: {a:.4f} - val_pérdida: {v:.4f} - val_exactitud: {b:.4f}",
     {"loss", "accuracy", "val_loss", "val_accuracy"}),
])
def test_labels_with_accented_or_cyrillic_letters_are_read_as_their_english_names(tmp_path, line, names):
    """'acurácia' was cut at its accent and read as a metric 'cia'; 'потеря' was not read at all."""
    rows = [line.format(e=e, l=1.5 / e, a=0.5 + 0.02 * e, v=1.6 / e, b=0.45 + 0.02 * e) for e in range(1, 9)]
    got, run = _series(tmp_path, "\n".join(rows) + "\n")
    assert names <= set(got), sorted(got)
    assert got["loss"].values.tolist() == [round(1.5 / e, 4) for e in range(1, 9)]
    assert got["loss"].steps.tolist() == list(range(1, 9)) and got["loss"].locs.tolist() == list(range(1, 9))
    assert "cia" not in got and not any(n.endswith("_teste") for n in got)
    # the text a user sees keeps its own words
    assert run.texts[0].line(1) == rows[0]


def test_prose_and_lengths_stay_as_they_were():
    for t in ("La pérdida es muy alta: 3.2", "Потеря растёт, а точность падает", "перевод: 3", "interval_pérdida: 0.5", "3pérdida: 0.5"):
        assert cjk_keys(t.encode()) == t.encode()
    b = "Эпоха 3 потеря на валидации: 0.7".encode()
    out = cjk_keys(b)
    assert len(out) == len(b) and out.split() == [b"epoch", b"3", b"val_loss:", b"0.7"]


@pytest.mark.parametrize("raw,name", [("perda", "loss"), ("perda_teste", "val_loss"), ("acuracia_validacao", "val_accuracy"),
                                      ("Verlust", "loss"), ("norma_grad", "grad_norm"), ("treino_perda", "loss"),
                                      ("prueba_loss", "val_loss")])
def test_ascii_foreign_words_of_a_name_are_translated(raw, name):
    assert normalize(raw) == name
