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


@pytest.mark.parametrize("line,names", [
    ("Époque {e:02d} | perte entraînement {l} | perte validation {v} | exactitude {a} %", {"loss", "val_loss", "accuracy"}),
    ("Epoca {e}: perdita {l} perdita validazione {v} accuratezza {a}%", {"loss", "val_loss", "accuracy"}),
    ("Epoche {e}/20 - Verlust: {l} - Genauigkeit: {a} %", {"loss", "accuracy"}),
    ("epoch {e} | verlies {l} | nauwkeurigheid {a}", {"loss", "accuracy"}),
])
def test_numbers_printed_with_decimal_commas_are_read(tmp_path, line, names):
    """French, Italian, German and Dutch code prints 1,5624 where English prints 1.5624: read as the number (was not
    read at all, or as 1 and 5624), with the labels of such a log read even where they are ASCII ("perdita
    validazione"); the text a user sees keeps its commas."""
    def c(x: float) -> str:
        return f"{x:.4f}".replace(".", ",")
    rows = [line.format(e=e, l=c(1.5 / e), v=c(1.6 / e), a=f"{50 + 2 * e:.2f}".replace(".", ",")) for e in range(1, 9)]
    got, run = _series(tmp_path, "\n".join(rows) + "\n")
    assert names <= set(got), sorted(got)
    assert got["loss"].values.tolist() == [round(1.5 / e, 4) for e in range(1, 9)]
    assert got["accuracy"].values.tolist() == [50 + 2 * e for e in range(1, 9)]
    assert run.texts[0].line(1) == rows[0]


def test_english_thousands_and_tuples_are_no_decimal_commas(tmp_path):
    """'1,024 samples' is a thousands separator and '(0,1)' a tuple: a log of those keeps its numbers as they were."""
    from mltdbg.analyzers.readers.textlog.scan import decimal_commas
    text = "".join(f"step {e}: 1,024 samples, loss: {1 / e:.4f}, range (0,1), lr=0.001\n" for e in range(1, 9)).encode()
    assert decimal_commas(text) is text
    # a long log's later block whose head holds only two decimals, and no other comma number, is read the same way
    assert decimal_commas(b"Verlust: 0,4123\nVerlust: 0,3981\n") == b"Verlust: 0.4123\nVerlust: 0.3981\n"
    mixed = b"step 1: 1,024 samples, range 0,1\n"
    assert decimal_commas(mixed) is mixed
    header = b"Using GPUs: 0,1\nimages/s = 1,057\n"
    assert decimal_commas(header) is header
    dec = b"Verlust: 0,4123\nVerlust: 0,3981\nVerlust: 0,3517\nSchritte: 1,024\n"
    assert decimal_commas(dec) == b"Verlust: 0.4123\nVerlust: 0.3981\nVerlust: 0.3517\nSchritte: 1.024\n"
