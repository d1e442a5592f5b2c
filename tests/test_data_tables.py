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


def _nan_log(n: int = 30, nan_at: int = 20) -> str:
    return "".join(f"step={i} loss={'nan' if i >= nan_at else f'{2.0 - i * 0.03:.3f}'}\n" for i in range(n))


def test_a_nan_row_in_a_npy_data_file_is_cited_and_verified(tmp_path):
    import numpy as np  # noqa: PLC0415 - this test's data
    x = np.random.default_rng(0).normal(size=(500, 8)).astype(np.float32)
    x[417, 3] = np.nan
    (tmp_path / "data").mkdir()
    np.save(tmp_path / "data" / "features.npy", x)
    np.save(tmp_path / "data" / "labels.npy", np.arange(500))            # ints: nothing to scan
    (tmp_path / "train.log").write_text(_nan_log())
    run = ingest([str(tmp_path)])
    assert [(a.source, a.key, a.bad_rows, a.first_row, a.first_value) for a in run.arrays] == \
        [("data/features.npy", "", 1, 417, "NaN")]
    out = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "diagnose", str(tmp_path), "--json"],
                         capture_output=True, text=True, timeout=120)
    top = json.loads(out.stdout)["root_causes"][0]
    assert top["id"] == "nan_in_data"
    cited = [e for e in top["evidence"] if e.get("source") == "data/features.npy"]
    assert cited and cited[0]["metric"] == "row 417" and cited[0]["verified"] is True


def test_an_npz_names_its_array_and_the_verifier_reads_the_row_again(tmp_path):
    import numpy as np  # noqa: PLC0415 - this test's data
    from mltdbg.playbooks.verify import Verifier  # noqa: PLC0415 - the verifier is the next layer up
    x = np.ones((50, 3))
    x[7, 0] = np.inf
    np.savez(tmp_path / "batch.npz", x=x, y=np.zeros(50))
    run = ingest([str(tmp_path)])
    sig = [s for s in analyze(run) if s.kind == "data:nonfinite"]
    assert len(sig) == 1 and sig[0].evidence[0].metric == "x: row 7" and sig[0].data["value"] == "inf"
    assert Verifier(run).check(sig[0].evidence[0]) is True
    x[7, 0] = 1.0                                  # the file changed since: the citation no longer holds
    np.savez(tmp_path / "batch.npz", x=x, y=np.zeros(50))
    assert Verifier(run).check(sig[0].evidence[0]) is False


def test_a_pickled_object_array_is_never_unpickled(tmp_path):
    import numpy as np  # noqa: PLC0415 - this test's data
    np.save(tmp_path / "objs.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    run = ingest([str(tmp_path)])
    assert not run.arrays and any("objs.npy: not read as numpy data" in w for w in run.warnings)


def test_clean_arrays_and_a_healthy_run_with_nan_padding_raise_no_alarm(tmp_path):
    import numpy as np  # noqa: PLC0415 - this test's data
    np.save(tmp_path / "clean.npy", np.ones((100, 4)))
    run = ingest([str(tmp_path)])
    assert not run.arrays
    pad = np.ones((100, 4))
    pad[50:, 3] = np.nan                            # NaN as padding in a run whose loss is fine
    np.save(tmp_path / "padded.npy", pad)
    (tmp_path / "train.log").write_text("".join(f"step={i} loss={2.0 * 0.97 ** i:.4f}\n" for i in range(200)))
    out = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "diagnose", str(tmp_path), "--json"],
                         capture_output=True, text=True, timeout=120)
    d = json.loads(out.stdout)
    assert not any(h["severity"] == "critical" and h["confidence"] > 0.5 for h in d["root_causes"]), d["root_causes"]


def test_a_printed_missing_value_count_is_missing_values(tmp_path):
    # a post's `df.isnull().sum()` and its output: income has 213 missing values
    (tmp_path / "notes.txt").write_text("print(df.isnull().sum())\nage          0\nincome     213\nscore        0\n"
                                        "dtype: int64\n")
    s = {x.kind: x for x in analyze(ingest([tmp_path]))}["data:missing_values"]
    assert s.data["columns"] == ["income"] and s.evidence[0].line == 3 and s.evidence[0].quote == "income     213"
    # a value_counts() (a "Name:" line) or a count with no missing-value word above it is not one
    (tmp_path / "notes.txt").write_text("df.label.value_counts()\ncat    120\ndog     80\nName: label, dtype: int64\n")
    assert "data:missing_values" not in {x.kind for x in analyze(ingest([tmp_path]))}
    (tmp_path / "notes.txt").write_text("counts per class\ncat    120\ndog     80\ndtype: int64\n")
    assert "data:missing_values" not in {x.kind for x in analyze(ingest([tmp_path]))}


def test_a_printed_describe_or_info_that_counts_fewer_values_in_a_column_is_missing_values(tmp_path):
    """pandas' own describe(), describe().T and info() output, pasted in a post: one column counts 3
    values fewer than the others (a count is of the values that are not NaN). The same summaries of
    a frame without NaN say nothing."""
    import io

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"sqft_living": rng.normal(2000, 900, 500), "sqft_lot15": rng.normal(1e4, 3e3, 500),
                       "bedrooms": rng.integers(1, 6, 500).astype(float)})
    clean = df.copy()
    df.loc[[7, 99, 311], "sqft_lot15"] = np.nan

    def info(frame):
        buf = io.StringIO()
        frame.info(buf=buf)
        return buf.getvalue()

    def info_rows(frame):       # a post that pastes only info()'s column rows, under their header
        text = info(frame)
        return text[text.index(" #   Column"):text.index("dtypes:")]

    def indented(text):         # a post's code block (four spaces), or an index printed right-aligned
        return "\n".join("    " + ln for ln in text.split("\n"))

    for name, show in (("T", lambda f: f.describe().T.to_string()), ("wide", lambda f: f.describe().to_string()),
                       ("info", info), ("info rows", info_rows),
                       ("T indented", lambda f: indented(f.describe().T.to_string())),
                       ("wide indented", lambda f: indented(f.describe().to_string()))):
        (tmp_path / "notes.txt").write_text(f"In [3]: df.describe()\n{show(df)}\n")
        s = {x.kind: x for x in analyze(ingest([tmp_path]))}.get("data:missing_values")
        assert s is not None, name
        assert s.data["columns"] == ["sqft_lot15"], name
        assert "3 missing" in s.evidence[0].text, name
        (tmp_path / "notes.txt").write_text(f"In [3]: df.describe()\n{show(clean)}\n")
        assert "data:missing_values" not in {x.kind for x in analyze(ingest([tmp_path]))}, name


def test_a_printed_describe_whose_columns_differ_in_scale_a_thousandfold_is_scale_spread(tmp_path):
    """pandas' own describe() (wide, or a few of its rows) and describe().T of income in yen beside a 0-1
    ratio: data:scale_spread, the std row cited. Columns of one scale say nothing."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    df = pd.DataFrame({"income": rng.normal(4.8e6, 2e6, 300), "age": rng.normal(41, 12, 300),
                       "dti": rng.uniform(0, 1, 300)})
    for name, shown in (("rows", df.describe().loc[["mean", "std", "min", "max"]].to_string()),
                        ("T", df.describe().T.to_string()),
                        ("T, some columns", df.describe().T[["mean", "std", "min", "max"]].to_string())):
        (tmp_path / "output.txt").write_text(">>> df.describe()\n" + shown + "\n")
        s = {x.kind: x for x in analyze(ingest([tmp_path]))}.get("data:scale_spread")
        assert s is not None and s.data["largest"] == "income" and s.data["smallest"] == "dti", name
        lines = (tmp_path / "output.txt").read_text().split("\n")
        assert lines[s.evidence[0].line - 1].strip() == s.evidence[0].quote.strip(), name
    (tmp_path / "output.txt").write_text(">>> df.describe()\n" + (df / df.std()).describe().to_string() + "\n")
    assert "data:scale_spread" not in {x.kind for x in analyze(ingest([tmp_path]))}


def test_a_truncated_describe_row_is_no_crash(tmp_path):
    """pandas prints a wide describe() with '...' between its first and last columns: that std row holds no
    number to read, and reading it had raised ValueError and lost every data-table signal of the run."""
    from mltdbg.analyzers.data_tables import data_table_signals
    from mltdbg.analyzers.ingest import ingest

    (tmp_path / "out.txt").write_text("df.describe()\n       a    ...    z\nmean   0.5  ...  0.4\n"
                                      "std    0.3  ...  0.2\nmin    0.0  ...  0.0\n")
    run = ingest([tmp_path])
    assert data_table_signals(run) == [] and not any("data tables" in w for w in run.warnings)
