"""Data files posted with a run (a CSV of samples, not a metric table): placeholder cells in a numeric
column are found and cited (data:missing_values), through the real reader, analyzer and engine."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mltdbg.analyzers.analyze import analyze
from mltdbg.analyzers.ingest import ingest

AUTO_MPG = ("mpg,cylinders,displacement,horsepower,weight,acceleration,model year,origin,car name\n"
            "25.0,4,113.0,95.00,2228.,14.0,71,3,toyota corona\n"
            "25.0,4,98.00,?,2046.,19.0,71,1,ford pinto\n"
            "19.0,6,232.0,100.0,2634.,13.0,71,1,amc gremlin\n")


def _signals(tmp_path, name: str, text: str):
    (tmp_path / name).write_text(text)
    run = ingest([str(tmp_path)])
    return run, [s for s in analyze(run) if s.kind == "data:missing_values"]


def test_a_question_mark_in_a_numeric_column_is_cited_at_its_line(tmp_path):
    run, sig = _signals(tmp_path, "auto.csv", AUTO_MPG)
    assert not run.series, "a table of features is not a metric log ('acceleration' is not an accuracy)"
    assert len(sig) == 1 and sig[0].strength == 0.7
    ev = sig[0].evidence[0]
    assert (ev.source, ev.line, ev.quote) == ("auto.csv", 3, "25.0,4,98.00,?,2046.,19.0,71,1,ford pinto")
    assert sig[0].data["columns"] == ["horsepower"] and sig[0].data["placeholders"] == ["?"]


def test_the_engine_ranks_nan_in_data_with_the_cell_verified(tmp_path):
    (tmp_path / "auto.csv").write_text(AUTO_MPG)
    out = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "diagnose", str(tmp_path), "--json"],
                         capture_output=True, text=True, timeout=120)
    d = json.loads(out.stdout)
    top = d["root_causes"][0]
    assert top["id"] == "nan_in_data" and top["confidence"] < 0.8      # a data file alone is not a finding
    assert any(e.get("line") == 3 and e.get("verified") for e in top["evidence"])


@pytest.mark.parametrize("text", [
    # empty cells in a text column only: nothing numeric is missing
    "text,label\nhello world,1\n,0\nbye,1\n",
    # a metric table with a gap is the tabular reader's business, not a data file's
    "epoch,loss,val_acc\n1,2.3,0.1\n2,,0.2\n3,1.9,0.3\n",
    # a column of words with one number is not numeric
    "city,size\nParis,big\nRome,?\nOslo,12\nBern,small\n",
])
def test_no_finding_without_a_numeric_column_missing_a_value(tmp_path, text):
    _, sig = _signals(tmp_path, "t.csv", text)
    assert sig == []


def test_empty_cells_are_weaker_and_a_quoted_multiline_cell_keeps_line_numbers(tmp_path):
    text = 'id,note,x\n1,"two\nlines",0.5\n2,plain,\n3,plain,0.7\n'
    _, sig = _signals(tmp_path, "t.csv", text)
    assert len(sig) == 1 and sig[0].strength == 0.5
    assert sig[0].evidence[0].line == 4 and sig[0].evidence[0].quote == "2,plain,"


@pytest.mark.parametrize("header", ["step,val_acc", "epoch,top1_acc", "it,trainacc", "epoch,accuracy"])
def test_accuracy_names_still_make_a_metric_table(tmp_path, header):
    (tmp_path / "m.csv").write_text(header + "\n1,0.5\n2,0.6\n3,0.7\n")
    run = ingest([str(tmp_path)])
    assert run.series and len(run.series[0]) == 3
