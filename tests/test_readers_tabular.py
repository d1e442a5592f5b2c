"""Tabular reader: CSV/TSV (Lightning CSVLogger layout, Keras CSVLogger, TensorBoard's CSV
download), JSONL streams, HF trainer_state.json and JSON metric lists; junk rows, NaN/inf,
truncated last lines; configs left to the text reader."""
from __future__ import annotations

import csv
import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import Run
from mltdbg.analyzers.readers import tabular


def read(path: Path) -> Run:
    run = Run(root=path.parent)
    head = path.read_bytes()[:4096]
    assert tabular.sniff(path, head), path
    tabular.read(path, path.name, run)
    return run


def series(run: Run, raw: str):
    found = [s for s in run.series if s.raw_name == raw]
    assert len(found) == 1, (raw, [s.raw_name for s in run.series])
    return found[0]


def write_lightning_csv(path: Path, epochs: int = 2, steps_per_epoch: int = 3):
    """The layout of lightning's CSVLogger: csv.DictWriter over all keys seen, one row per
    log_metrics call, blank cells for keys that call did not log, '\\r\\n' line ends."""
    keys = ["epoch", "step", "train_loss_step", "val_loss", "val_acc", "train_loss_epoch"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for e in range(epochs):
            for s in range(e * steps_per_epoch, (e + 1) * steps_per_epoch):
                w.writerow({"epoch": e, "step": s, "train_loss_step": 1.0 / (s + 1)})
            last = (e + 1) * steps_per_epoch - 1
            w.writerow({"epoch": e, "step": last, "val_loss": 0.9 - e * 0.125, "val_acc": 0.5 + e * 0.125})
            w.writerow({"epoch": e, "step": last, "train_loss_epoch": 0.75 - e * 0.125})


def test_lightning_csvlogger_layout(tmp_path):
    p = tmp_path / "metrics.csv"
    write_lightning_csv(p)
    run = read(p)
    tl = series(run, "train_loss_step")
    assert tl.name == "loss" and tl.steps.tolist() == [0, 1, 2, 3, 4, 5]
    assert tl.values.tolist() == [1.0 / (s + 1) for s in range(6)]
    assert tl.locs.tolist() == [2, 3, 4, 7, 8, 9]
    vl = series(run, "val_loss")
    assert vl.name == "val_loss" and vl.steps.tolist() == [2, 5] and vl.values.tolist() == [0.9, 0.775]
    assert vl.locs.tolist() == [5, 10]
    assert series(run, "val_acc").name == "val_accuracy"
    assert series(run, "train_loss_epoch").locs.tolist() == [6, 11]
    assert not any(s.step_is_index for s in run.series) and run.warnings == []
    assert all(s.raw_name != "step" for s in run.series)


def test_csv_junk_rows_one_warning_nan_kept(tmp_path):
    p = tmp_path / "metrics.csv"
    p.write_text("step,loss,lr\n0,2.5,0.1\n1,nan,0.1\n2,inf,0.1\n"
                 "step,loss,lr\n"            # a restart appended a second header
                 "3,abc,0.1\n"               # text in a numeric column
                 "4,2.0,0.1,9\n"             # one cell too many
                 "5,1.9,\n6,-Infinity,0.1\n"
                 "7,1.")                     # still being written
    run = read(p)
    assert run.warnings == ["metrics.csv:5: 3 rows not numeric or with the wrong number of cells (first shown), skipped"]
    loss = series(run, "loss")
    assert loss.steps.tolist() == [0, 1, 2, 5, 6]
    assert loss.values[0] == 2.5 and math.isnan(loss.values[1]) and loss.values[2] == math.inf
    assert loss.values[4] == -math.inf
    assert loss.locs.tolist() == [2, 3, 4, 8, 9]
    assert series(run, "lr").steps.tolist() == [0, 1, 2, 6]       # the blank cell is missing, not NaN


@pytest.mark.parametrize("delim", ["\t", ";", "|"])
def test_delimiters_and_epoch_as_step(tmp_path, delim):
    """Keras' CSVLogger writes epoch,loss,...; no step column means the epoch is the step."""
    p = tmp_path / "training.log"                  # a CSV by content, whatever its name
    rows = [["epoch", "accuracy", "loss", "val_loss"]] + [[e, 0.5 + e / 10, 1 / (e + 1), 1.2 / (e + 1)] for e in range(4)]
    p.write_text("\n".join(delim.join(str(c) for c in r) for r in rows) + "\n")
    run = ingest([p])
    assert run.texts == []
    loss = series(run, "loss")
    assert loss.steps.tolist() == [0, 1, 2, 3] and not loss.step_is_index
    assert series(run, "val_loss").values.tolist() == [1.2 / (e + 1) for e in range(4)]


def test_row_index_when_no_step_column_and_tensorboard_download(tmp_path):
    (tmp_path / "losses.csv").write_text("loss,acc\n0.5,0.1\n0.4,0.2\n")
    (tmp_path / "run-baseline-tag-train_loss.csv").write_text(
        "Wall time,Step,Value\n1714550000.1,0,2.5\n1714550010.2,100,2.25\n")
    run = ingest([tmp_path])
    loss = series(run, "loss")
    assert loss.step_is_index and loss.steps.tolist() == [0, 1]
    tb = series(run, "train_loss")
    assert tb.name == "loss" and tb.steps.tolist() == [0, 100] and tb.values.tolist() == [2.5, 2.25]
    assert not any(s.raw_name == "Wall time" for s in run.series)


def test_jsonl_wandb_history(tmp_path):
    p = tmp_path / "history.jsonl"
    with open(p, "w") as f:
        for s in range(4):
            d = {"_step": s, "train": {"loss": 2.0 - s / 8}, "lr": 1e-3, "_runtime": s * 1.5}
            if s == 2:
                d["train"]["loss"] = float("nan")          # json.dumps writes NaN, a value
            if s == 3:
                d["grads"] = {"_type": "histogram", "values": [1, 2], "bins": [0, 1, 2]}
                d["lr"] = float("inf")
            f.write(json.dumps(d) + "\n")
        f.write("{not json}\n")
        f.write(json.dumps({"_step": 4, "train": {"loss": 1.0}}) + "\n")
        f.write('{"_step": 5, "train": {"loss": 1.')      # still being written
    run = read(p)
    assert run.warnings == ["history.jsonl:5: 1 lines not valid JSON objects or not numeric (first shown), skipped"]
    loss = series(run, "train/loss")
    assert loss.name == "loss" and loss.steps.tolist() == [0, 1, 2, 3, 4]
    assert loss.values[1] == 1.875 and math.isnan(loss.values[2])
    assert loss.locs.tolist() == [1, 2, 3, 4, 6]
    lr = series(run, "lr")
    assert lr.steps.tolist() == [0, 1, 2, 3] and lr.values[3] == math.inf   # missing at step 4, not NaN


def test_jsonl_large_file_fast_path_gzip(tmp_path):
    p = tmp_path / "metrics.jsonl.gz"
    with gzip.open(p, "wt") as f:
        for s in range(20_000):
            f.write(json.dumps({"step": s, "loss": 1.0 / (s + 1)}) + "\n")
    run = ingest([p])
    loss = series(run, "loss")
    assert len(loss) == 20_000 and loss.locs[-1] == 20_000 and loss.values[9] == 0.1


def write_trainer_state(path: Path) -> dict:
    """As transformers' TrainerState.save_to_json: json.dumps(asdict(state), indent=2, sort_keys=True)."""
    state = {"best_metric": None, "best_model_checkpoint": None, "epoch": 1.0, "eval_steps": 500,
             "global_step": 20, "is_hyper_param_search": False, "is_local_process_zero": True,
             "is_world_process_zero": True, "logging_steps": 10, "max_steps": 20, "num_train_epochs": 1,
             "log_history": [
                 {"epoch": 0.5, "grad_norm": 1.5, "learning_rate": 5e-05, "loss": 2.3, "step": 10},
                 {"epoch": 1.0, "grad_norm": float("nan"), "learning_rate": 2.5e-05, "loss": float("nan"), "step": 20},
                 {"epoch": 1.0, "eval_loss": 2.1, "eval_accuracy": 0.4, "eval_runtime": 1.2, "step": 20},
                 {"epoch": 1.0, "step": 20, "total_flos": 1e12, "train_loss": 2.2, "train_runtime": 10.0,
                  "train_samples_per_second": 5.0}],
             "save_steps": 500, "total_flos": 1e12, "trial_name": None, "trial_params": None}
    path.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    return state


def test_hf_trainer_state(tmp_path):
    p = tmp_path / "trainer_state.json"
    write_trainer_state(p)
    run = read(p)
    lines = p.read_text().split("\n")
    loss = series(run, "loss")
    assert loss.steps.tolist() == [10, 20] and loss.values[0] == 2.3 and math.isnan(loss.values[1])
    # each point cites the line where its row's object opens
    for loc, step in zip(loss.locs, loss.steps):
        assert lines[loc - 1].strip() == "{"
        row = "\n".join(lines[loc - 1:loc + 8])
        assert f'"step": {step}' in row
    ev = series(run, "eval_loss")
    assert ev.name == "val_loss" and ev.steps.tolist() == [20] and ev.values.tolist() == [2.1]
    # the summary row's train_loss is a mean of the run, not a loss point
    assert not any(s.raw_name in ("train_loss", "train_runtime") for s in run.series)
    assert series(run, "epoch").steps.tolist() == [10, 20]


def test_config_json_goes_to_text_reader(tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"lr": 0.001, "batch_size": 32, "optimizer": {"name": "adamw", "betas": [0.9, 0.999]}}, indent=2))
    one_line = tmp_path / "args.json"
    one_line.write_text(json.dumps({"lr": 0.001, "epochs": 3}))
    data = tmp_path / "train.json"
    data.write_text(json.dumps([{"text": "hello", "label": 3}, {"text": "bye", "label": 1}]))
    for p in (cfg, one_line, data):
        assert not tabular.sniff(p, p.read_bytes()[:4096]), p
    run = ingest([tmp_path])
    assert {t.path: t.kind for t in run.texts} == {"config.json": "config", "args.json": "config", "train.json": "config"}
    assert run.series == []


def test_json_metric_list_and_keras_history(tmp_path):
    (tmp_path / "log.json").write_text(json.dumps(
        [{"iteration": 1, "loss": 0.5, "val_loss": float("nan")}, {"iteration": 2, "loss": 0.25}], indent=1))
    (tmp_path / "history.json").write_text(json.dumps({"loss": [1.0, 0.5], "val_loss": [1.1, 0.7]}))
    run = ingest([tmp_path])
    loss = [s for s in run.series if s.source == "log.json" and s.name == "loss"][0]
    assert loss.steps.tolist() == [1, 2] and loss.locs.tolist() == [2, 7]
    vl = [s for s in run.series if s.source == "log.json" and s.name == "val_loss"][0]
    assert vl.steps.tolist() == [1] and math.isnan(vl.values[0])
    kh = [s for s in run.series if s.source == "history.json" and s.name == "val_loss"][0]
    assert kh.values.tolist() == [1.1, 0.7] and kh.step_is_index


def test_logs_with_commas_are_not_tables(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("".join(f"Epoch {e}, loss {1 / (e + 1):.3f}, acc {e / 10:.2f}\n" for e in range(5)))
    assert not tabular.sniff(p, p.read_bytes()[:4096])
    md = tmp_path / "results.txt"
    md.write_text("| model | acc |\n|---|---|\n| a | 0.5 |\n| b | 0.6 |\n")
    assert not tabular.sniff(md, md.read_bytes()[:4096])


def test_large_csv_reads_with_c_parser(tmp_path):
    p = tmp_path / "metrics.csv"
    n = 200_000
    steps = np.arange(n)
    loss = 1.0 / (steps + 1)
    loss[150_000] = np.nan
    with open(p, "w") as f:
        f.write("step,loss,lr\n")
        np.savetxt(f, np.column_stack((steps, loss, np.full(n, 1e-4))), fmt=["%d", "%.6g", "%.1e"], delimiter=",")
    run = read(p)
    s = series(run, "loss")
    assert len(s) == n and math.isnan(s.values[150_000]) and s.locs[150_000] == 150_002
    assert s.steps[-1] == n - 1 and run.warnings == []


def test_jsonl_bare_nan_from_fstrings_is_a_value(tmp_path):
    """f'{{"step": {s}, "loss": {loss}}}' prints nan/inf, which json does not accept: read them as values."""
    p = tmp_path / "log.jsonl"
    p.write_text("".join(f'{{"step": {s}, "loss": {v}}}\n' for s, v in ((1, 0.5), (2, float("nan")), (3, float("-inf")))))
    run = read(p)
    loss = series(run, "loss")
    assert run.warnings == [] and loss.steps.tolist() == [1, 2, 3]
    assert math.isnan(loss.values[1]) and loss.values[2] == -math.inf


# ---- the Arrow paths: the same series as the careful paths, faster

def _series_map(run):
    return {(s.name, s.source): (s.steps.tolist(), [None if math.isnan(v) else v for v in s.values.tolist()],
                                 s.locs.tolist()) for s in run.series}


def test_arrow_csv_nan_missing_and_bad_rows_as_the_pandas_path(tmp_path):
    """NaN cells stay values, blank cells are missing, rows with the wrong cell count are one
    warning; blank lines make Arrow's rows differ from the lines, so they take the counted path."""
    body = ["step,loss,acc,flag", "1,0.5,,true", "2,nan,0.1,false", "3,0.25,0.2,true", "4,1,2,3,4,5", "5,inf,0.3,true"]
    for name, text in (("a.csv", "\n".join(body) + "\n"), ("b.csv", "\n".join(body[:3] + [""] + body[3:]) + "\n")):
        d = tmp_path / name.split(".")[0]
        d.mkdir()
        (d / name).write_text(text)
        run = ingest([d])
        loss = next(s for s in run.series if s.name == "loss")
        assert loss.steps.tolist() == [1, 2, 3, 5] and math.isnan(loss.values[1]) and loss.values[3] == math.inf
        acc = next(s for s in run.series if s.name == "accuracy")
        assert acc.steps.tolist() == [2, 3, 5]
        assert "flag" not in {s.raw_name for s in run.series}          # true/false is not a metric
        assert len(run.warnings) == 1 and "1 rows" in run.warnings[0]
        blank = 1 if name == "b.csv" else 0
        assert loss.locs.tolist() == [2, 3, 4 + blank, 6 + blank]
        assert run.warnings[0].startswith(f"{name}:{5 + blank}:")


def test_arrow_jsonl_matches_the_json_module_path(tmp_path):
    """Arrow reads it; the same file with one bare `nan` (Arrow cannot) goes the json-module way;
    both give the same series (nested keys flattened, booleans as 0/1, a NaN kept, a missing key
    missing)."""
    recs = [{"step": i, "loss": (float("nan") if i == 3 else 1.0 / (i + 1)), "opt": {"lr": 0.1 * i},
             "ok": i % 2 == 0} for i in range(8)]
    recs[5].pop("loss")
    a = tmp_path / "a"
    a.mkdir()
    (a / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    b = tmp_path / "b"
    b.mkdir()
    (b / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs) + '{"step": 8, "loss": nan}\n')
    ra, rb = ingest([a]), ingest([b])
    sa, sb = _series_map(ra), _series_map(rb)
    assert sa[("loss", "m.jsonl")][0] == [0, 1, 2, 3, 4, 6, 7] and sa[("loss", "m.jsonl")][1][3] is None
    assert sa[("lr", "m.jsonl")][1][2] == pytest.approx(0.2) and sa[("ok", "m.jsonl")][1][:2] == [1.0, 0.0]
    for k, v in sa.items():
        got = sb[k]
        if k[0] == "loss":
            got = (got[0][:-1], got[1][:-1], got[2][:-1])   # b has one more row
        assert got == v, k


def test_trainer_state_rows_found_by_layout_match_decoding(tmp_path):
    """A pretty-printed log_history: each row's line from the layout (no per-row decode)."""
    hist = [{"epoch": i / 10, "loss": 2.0 - i / 10, "step": i + 1} for i in range(30)]
    hist[7]["loss"] = float("nan")
    hist.append({"epoch": 3.0, "step": 30, "train_runtime": 12.0, "train_loss": 1.5, "total_flos": 1.0})
    for indent in (2, 4, None):
        d = tmp_path / f"i{indent}"
        d.mkdir()
        text = json.dumps({"log_history": hist, "global_step": 30}, indent=indent)
        (d / "trainer_state.json").write_text(text)
        loss = next(s for s in ingest([d]).series if s.name == "loss")
        lines = text.split("\n")
        assert len(loss) == 30 and math.isnan(loss.values[7])
        for k in (0, 7, 29):
            ln = int(loss.locs[k])
            assert lines[ln - 1].strip().startswith("{"), (indent, k, ln)
            if indent is not None:
                assert f'"step": {k + 1}' in "\n".join(lines[ln - 1:ln + 4])


def test_a_lone_cr_inside_a_row_after_blank_leading_lines_is_one_bad_row(tmp_path):
    """Blank lines before the header and a row holding a lone CR: that row is skipped with its real
    line number, the others keep theirs (it used to end in an IndexError)."""
    rows = "".join(f"{i},{0.5 / (i + 1):.5f}\n" for i in range(100))
    p = tmp_path / "m.csv"
    p.write_bytes(b"\n\nstep,loss\n" + rows.encode() + b"5,6\r7,8\n" + b"100,0.001\n")
    run = read(p)
    loss = run.metric("loss")
    assert loss is not None and len(loss) == 101 and int(loss.locs[0]) == 4 and int(loss.locs[-1]) == 105
    assert any("m.csv:104:" in w for w in run.warnings) and not any("IndexError" in w for w in run.warnings)


def test_a_per_layer_gradient_table_is_layers_not_steps(tmp_path):
    """`layer,grad_norm` written by a hook: one grad_norm/<layer> series per layer (as the text reader
    reads such a table in a log), never one grad_norm curve over rows taken for steps (a deep sigmoid
    net's 1e-10 .. 0.1 from input to output read as steps is 'exploding gradients')."""
    p = tmp_path / "layer_grads.csv"
    p.write_text("layer,grad_norm,weight_norm\n" + "".join(f"layer{i}.weight,{10.0 ** (i - 9):.1e},{1.0 + i}\n"
                                                            for i in range(10)))
    run = read(p)
    names = [s.name for s in run.series]
    assert names == [f"grad_norm/layer{i}.weight" for i in range(10)]
    first = run.series[0]
    assert first.values.tolist() == [1e-9] and first.locs.tolist() == [2] and first.steps.tolist() == [0]
    from mltdbg.analyzers.curves import curve_signals
    kinds = {s.kind for s in curve_signals(run)}
    assert "grad_vanish_layers" in kinds and "grad_growth" not in kinds


def test_a_printed_table_with_a_grad_norm_label_and_no_separator_is_layers(tmp_path):
    """A notebook cell's `print(f"{name:<16}grad norm {norm:.3e}")` over a deep sigmoid net: layers from
    input to output, not seventeen steps of a grad_norm that grows 1e13x."""
    (tmp_path / "question.txt").write_text("# per-parameter gradient norm after one backward\n" + "".join(
        f"net.{2 * i}.weight{' ' * (8 - len(str(2 * i)))}grad norm {3.9 * 10.0 ** (i - 15):.3e}\n" for i in range(17)))
    run = ingest([tmp_path])
    assert [s.name for s in run.series][:2] == ["grad_norm/net.0.weight", "grad_norm/net.2.weight"]
    from mltdbg.analyzers.curves import curve_signals
    kinds = {s.kind for s in curve_signals(run)}
    assert "grad_vanish_layers" in kinds and "grad_growth" not in kinds


def test_per_layer_tables_over_steps_and_without_gradients(tmp_path):
    p = tmp_path / "hook.csv"
    p.write_text("step,name,grad_norm\n" + "".join(f"{s},fc{i},{0.1 * (i + 1) / (s + 1):.4f}\n"
                                                     for s in (0, 100) for i in range(3)))
    fc0 = next(s for s in read(p).series if s.name == "grad_norm/fc0")
    assert fc0.steps.tolist() == [0, 100] and fc0.locs.tolist() == [2, 5]
    q = tmp_path / "sizes" / "sizes.csv"
    q.parent.mkdir()
    q.write_text("layer,params,weight_norm\nconv1,1728,3.1\nconv2,36864,5.2\nfc,5130,2.2\nhead,10,1.0\n")
    assert ingest([q.parent]).series == []     # per-layer facts, not curves


def test_a_hook_writing_every_layer_at_every_step_is_a_per_layer_table(tmp_path):
    """`step,layer,grad_norm` with 12 layers over 10 steps: each layer name repeats once per step (a
    tenth of the rows are distinct names), which is still a list of layers, not a tag column."""
    p = tmp_path / "grad_norms.csv"
    p.write_text("step,layer,grad_norm\n" + "".join(f"{s},layers.{i}.weight,{1e-2 * 10 ** (-0.6 * (11 - i)):.3e}\n"
                                                     for s in range(0, 500, 50) for i in range(12)))
    run = read(p)
    assert [s.name for s in run.series] == [f"grad_norm/layers.{i}.weight" for i in range(12)]
    assert run.series[0].steps.tolist() == list(range(0, 500, 50)) and run.series[0].locs.tolist()[:2] == [2, 14]
    from mltdbg.analyzers.curves import curve_signals
    assert "grad_vanish_layers" in {s.kind for s in curve_signals(run)}


def test_a_wide_table_of_per_layer_gradients_is_read_as_layers(tmp_path):
    """`epoch,layer0_grad,...,layer7_grad` (one column per layer, as a hook or a benchmark writes
    them): each column is grad_norm/<layer>, so a gradient that shrinks layer by layer toward the
    input is read as vanishing. Other spellings of a layer's gradient name the same; a setting named
    after gradients (clip_grad, total_grad_norm) does not become a layer."""
    from mltdbg.analyzers.names import normalize
    p = tmp_path / "grad_norms.csv"
    p.write_text("epoch," + ",".join(f"layer{i}_grad" for i in range(8)) + "\n" + "".join(
        f"{e}," + ",".join(f"{1e-2 * 10 ** (-0.8 * (7 - i)):.3e}" for i in range(8)) + "\n" for e in range(10)))
    run = read(p)
    assert [s.name for s in run.series] == [f"grad_norm/layer{i}" for i in range(8)]
    from mltdbg.analyzers.curves import curve_signals
    assert "grad_vanish_layers" in {s.kind for s in curve_signals(run)}
    for raw, name in [("conv1.weight.grad", "grad_norm/conv1.weight"), ("fc1.weight_grad_norm", "grad_norm/fc1.weight"),
                      ("gradients/encoder.layer.3", "grad_norm/encoder.layer.3"), ("layer_3_grad_norm", "grad_norm/layer_3"),
                      ("clip_grad", "clip_grad"), ("total_grad_norm", "total_grad_norm"), ("accumulate_grad", "accumulate_grad")]:
        assert normalize(raw) == name, raw


def test_a_gradient_table_whose_columns_carry_a_module_index_is_read_as_layers(tmp_path):
    """`step,conv0(0),conv1(2),...` (a Sequential's module index after each layer's name, as a hook over
    named_children writes it) in grad_norms.csv: each column is a layer's gradient norm, so gradients shrinking by
    orders of magnitude toward the input are read as vanishing."""
    p = tmp_path / "grad_norms.csv"
    p.write_text("step," + ",".join(f"conv{i}({2 * i})" for i in range(8)) + "\n" + "".join(
        f"{10 * e}," + ",".join(f"{1e-2 * 10 ** (-1.2 * (7 - i)):.3e}" for i in range(8)) + "\n" for e in range(1, 11)))
    run = read(p)
    assert [s.name for s in run.series] == [f"grad_norm/conv{i}({2 * i})" for i in range(8)]
    from mltdbg.analyzers.curves import curve_signals
    assert "grad_vanish_layers" in {s.kind for s in curve_signals(run)}


def test_lightnings_gradient_norm_columns_are_layers_and_the_total(tmp_path):
    """Lightning logs `grad_2.0_norm/<parameter>` per parameter and `grad_2.0_norm_total` for the whole
    model: the first are grad_norm/<parameter>, the total is grad_norm (it was read as one more layer,
    named "2.0_norm_total", the largest of them)."""
    layers = [f"layer{i}.weight" for i in range(6)]
    p = tmp_path / "metrics.csv"
    p.write_text("epoch,step,train_loss," + ",".join(f"grad_2.0_norm/{x}" for x in layers) + ",grad_2.0_norm_total\n"
                 + "".join(f"0,{s},{2.3 - s / 1000:.4f}," + ",".join(f"{1e-2 * 10 ** (-0.9 * (5 - i)):.3e}" for i in range(6))
                           + ",0.0123\n" for s in range(0, 500, 50)))
    names = [s.name for s in read(p).series if s.name != "epoch"]
    assert names == ["loss"] + [f"grad_norm/{x}" for x in layers] + ["grad_norm"]
    from mltdbg.analyzers.curves import curve_signals
    assert "grad_vanish_layers" in {s.kind for s in curve_signals(read(p))}


def test_a_json_of_per_layer_gradient_lists_is_read_as_layers(tmp_path):
    """grad_norms.json = {"layer0": [..one per step..], ...} (a hook's dump): grad_norm/<layer> over
    the list's steps, each point cited at its layer's key; the same dict of lists under another file
    name, or with metric keys, is not taken for layers."""
    p = tmp_path / "grad_norms.json"
    p.write_text(json.dumps({f"layer{i}": [1e-2 * 10 ** (-0.8 * (7 - i))] * 5 for i in range(8)}, indent=1))
    run = read(p)
    assert [s.name for s in run.series] == [f"grad_norm/layer{i}" for i in range(8)]
    assert run.series[1].steps.tolist() == [0, 1, 2, 3, 4] and run.series[1].locs.tolist() == [9] * 5
    from mltdbg.analyzers.curves import curve_signals
    assert "grad_vanish_layers" in {s.kind for s in curve_signals(run)}
    q = tmp_path / "stats.json"
    q.write_text(json.dumps({f"layer{i}": [0.5] * 5 for i in range(8)}))
    assert not [s for s in ingest([q]).series if s.name.startswith("grad_norm/")]


def test_a_long_table_gives_one_series_per_named_metric(tmp_path):
    """tbparse's `step,tag,value` export and a melted history in JSONL name the metric in a column:
    one series per name at its own rows (the NaN kept), not one `value` curve of every metric in turn.
    A name on one row only is a table of final results, not a long table."""
    p = tmp_path / "scalars.csv"
    p.write_text("step,tag,value\n0,train/loss,2.5\n0,val/loss,2.6\n10,train/loss,2.1\n10,val/loss,2.3\n"
                 "20,train/loss,nan\n20,val/loss,2.2\n")
    run = read(p)
    assert [(s.name, s.raw_name) for s in run.series] == [("loss", "train/loss"), ("val_loss", "val/loss")]
    loss = run.series[0]
    assert loss.steps.tolist() == [0, 10, 20] and loss.locs.tolist() == [2, 4, 6] and math.isnan(loss.values[-1])
    q = tmp_path / "history.jsonl"
    q.write_text("".join(json.dumps({"epoch": e, "metric": m, "value": v}) + "\n"
                         for e in range(3) for m, v in (("loss", 1.0 - e / 10), ("acc", 0.1 * e))))
    assert {s.name: s.values.tolist() for s in read(q).series} == {"loss": [1.0, 0.9, 0.8], "accuracy": [0.0, 0.1, 0.2]}
    r = tmp_path / "results.csv"
    r.write_text("step,name,value\n100,accuracy,0.91\n100,loss,0.3\n")
    assert not [s for s in read(r).series if s.name in ("loss", "accuracy")]


def test_a_wandb_chart_export_keeps_one_curve_per_metric(tmp_path):
    """W&B's CSV export of a chart: `<run> - <metric>` and its bucket spread `__MIN` / `__MAX`: one
    loss series (the NaN kept), not three."""
    p = tmp_path / "wandb_export_2024-05-01.csv"
    rows = ['"Step","glowing-sun-12 - train/loss","glowing-sun-12 - train/loss__MIN","glowing-sun-12 - train/loss__MAX"']
    rows += [f"{s},{v},{v},{v}" for s, v in [(0, 2.5), (50, 2.1), (100, 1.8), (150, "NaN")]]
    p.write_text("\n".join(rows) + "\n")
    run = read(p)
    assert [s.name for s in run.series] == ["loss"]
    assert run.series[0].steps.tolist() == [0, 50, 100, 150] and math.isnan(run.series[0].values[-1])


def test_a_wandb_chart_export_names_its_metrics_without_the_run(tmp_path):
    """The run's name before " - " is no part of the metric: `enc-warmup - grad_norm/encoder` is the encoder's
    gradient norm, `enc-warmup - val/loss` the validation loss. Two runs in one export keep their names."""
    p = tmp_path / "wandb_export_2024-03-17T14_05_38.csv"
    p.write_text('"Step","enc-warmup - grad_norm/encoder","enc-warmup - grad_norm/encoder__MIN",'
                 '"enc-warmup - grad_norm/encoder__MAX","enc-warmup - val/loss"\n'
                 + "".join(f'"{s}","{v}","{v}","{v}","{1.0 / (s + 1)}"\n' for s, v in [(0, 0.0), (5, 0.5), (10, 0.7)]))
    assert sorted(s.name for s in read(p).series) == ["grad_norm/encoder", "val_loss"]
    p.write_text('"Step","bert - lr 1e-5 - train/loss","bert - lr 1e-5 - val/loss"\n"0","1.0","2.0"\n"5","0.9","1.9"\n')
    assert sorted(s.name for s in read(p).series) == ["loss", "val_loss"]     # a run name holding " - "
    p.write_text('"Step","run-a - train/loss","run-b - train/loss"\n"0","1.0","2.0"\n"5","0.9","1.9"\n')
    assert sorted(s.raw_name for s in read(p).series) == ["run-a - train/loss", "run-b - train/loss"]


def test_a_json_dump_of_per_parameter_gradients(tmp_path):
    """{"encoder.layer.0.weight": 1e-11, ...} in grad_norms.json: per-layer series at their key's line;
    a dotted config ({"optimizer.lr": 0.1}) is no such table."""
    p = tmp_path / "grad_norms.json"
    p.write_text(json.dumps({f"encoder.layer.{i}.weight": 10.0 ** (i - 11) for i in range(3)}, indent=2))
    run = read(p)
    assert [s.name for s in run.series] == [f"grad_norm/encoder.layer.{i}.weight" for i in range(3)]
    assert [s.locs.tolist() for s in run.series] == [[2], [3], [4]]
    q = tmp_path / "cfg" / "config.json"
    q.parent.mkdir()
    q.write_text(json.dumps({"optimizer.lr": 0.1, "trainer.max_epochs": 10}))
    assert ingest([q.parent]).series == []


@pytest.mark.parametrize("text,names", [("step,loss,name\n1,2.0,exp1\n2,1.5,exp1\n3,1.2,exp1\n", ["loss"]),
                                        ("epoch,train_loss,val_loss,tensor\n1,2,2.1,a\n2,1.5,1.8,b\n3,1.2,1.7,c\n",
                                         ["loss", "val_loss"])])
def test_a_text_column_that_names_no_layers_keeps_the_curves(tmp_path, text, names):
    """A run name or a tag in a column called `name`/`tensor` is no per-layer table."""
    (tmp_path / "m.csv").write_text(text)
    assert [s.name for s in ingest([tmp_path]).series] == names


def _big_rows(n: int = 120_000) -> list[str]:
    """A CSV body of more than the 1 MB the readers look at first (so what follows it is met late)."""
    return [f"{i},{i * 0.001:.4f},0.1" for i in range(n)]


@pytest.mark.parametrize("odd,lines,warn", [
    ("\r\n", None, None),                            # line ends turn to CRLF past the first MB
    ("\r", [100_002], "m.csv:100002: 1 rows"),       # a lone CR inside a row: one bad row
    ("\n\n", None, None),                            # a blank line: nothing, not junk
    ("\n1,2,3,4\n", [100_002], "m.csv:100002: 1 rows"),   # one cell too many
])
def test_what_follows_the_first_megabyte_reads_as_in_the_first(tmp_path, odd, lines, warn):
    """Arrow reading a big CSV while it parses (the regular file) gives the rows and line numbers
    that reading it all first gives, whatever the file holds past the first MB."""
    rows = _big_rows()
    p = tmp_path / "m.csv"
    if odd == "\r":
        body = "\n".join(rows[:100_000]) + "\n" + rows[100_000] + "\r" + "\n".join(rows[100_001:]) + "\n"
    elif odd == "\r\n":
        body = "\n".join(rows[:100_000]) + "\r\n" + "\r\n".join(rows[100_000:]) + "\r\n"
    else:
        body = "\n".join(rows[:100_000]) + odd + "\n".join(rows[100_000:]) + "\n"
    p.write_text("step,loss,lr\n" + body, newline="")
    run = ingest([p])
    loss = next(s for s in run.series if s.raw_name == "loss")
    assert loss.steps[:3].tolist() == [0, 1, 2] and loss.locs[:3].tolist() == [2, 3, 4]
    assert loss.steps[-1] == 119_999
    if odd == "\n\n":
        assert run.warnings == [] and loss.locs[-1] == 120_002 and len(loss.steps) == 120_000
    elif warn:
        assert [w for w in run.warnings if "rows" in w][0].startswith(warn)
        assert lines[0] not in set(loss.locs.tolist())
    else:
        assert run.warnings == [] and loss.locs[-1] == 120_001 and len(loss.steps) == 120_000


@pytest.mark.parametrize("cell", ['a"b', "naïve", "a\x00b", "a" + "\x00" * 300 + "b"])
def test_a_text_column_odd_past_the_first_megabyte(tmp_path, cell):
    """A quote, a non-ASCII or a NUL byte in a text column past the first MB (the file then read
    the careful way): every row's loss at its line."""
    rows = [f"{i},{i * 0.001:.4f},{cell if i == 110_000 else 'abc'}" for i in range(120_000)]
    p = tmp_path / "m.csv"
    p.write_bytes(("step,loss,run\n" + "\n".join(rows) + "\n").encode())
    run = ingest([p])
    assert [s.raw_name for s in run.series] == ["loss"] and run.warnings == []
    assert run.series[0].steps.tolist() == list(range(120_000))
    assert run.series[0].locs.tolist() == list(range(2, 120_002))


def test_jsonl_lines_when_some_line_is_no_record(tmp_path):
    """A blank line, or two records on one line: each record keeps its own line."""
    p = tmp_path / "m.jsonl"
    recs = [json.dumps({"step": i, "loss": 1.0 / (i + 1)}) for i in range(5)]
    p.write_text(recs[0] + "\n\n" + "\n".join(recs[1:]) + "\n")
    loss = series(read(p), "loss")
    assert loss.locs.tolist() == [1, 3, 4, 5, 6]
    q = tmp_path / "n.jsonl"
    q.write_text("\n".join(recs) + "\n")
    assert series(read(q), "loss").locs.tolist() == [1, 2, 3, 4, 5]


def test_trainer_state_lines_over_several_megabytes(tmp_path):
    """A trainer_state.json of several MB (its lines looked at a block at a time): every entry at
    its line, and the keys after the list end it."""
    hist = [{"epoch": i / 1000, "loss": 1.0 / (i + 1), "step": i + 1} for i in range(60_000)]
    p = tmp_path / "trainer_state.json"
    p.write_text(json.dumps({"best_metric": None, "log_history": hist, "max_steps": 60_000}, indent=2))
    loss = series(read(p), "loss")
    # the list's first element starts on line 4; each entry spans 5 lines (indent=2, 3 keys)
    assert loss.locs.tolist() == [4 + 5 * i for i in range(60_000)]
    assert p.read_text().splitlines()[loss.locs[-1] - 1].strip() == "{"


def test_fastai_csvlogger_metrics_are_the_validation_sets(tmp_path):
    """fastai's CSVLogger writes `epoch,train_loss,valid_loss,accuracy,error_rate,time`: its metrics are
    computed on the validation set, so `accuracy` is the validation accuracy (read before as the
    training accuracy, beside a training loss); Keras' CSVLogger (`accuracy`, `val_accuracy`) keeps its
    train accuracy."""
    p = tmp_path / "history.csv"
    p.write_text("epoch,train_loss,valid_loss,accuracy,error_rate,time\n" + "".join(
        f"{e},{1 / (e + 1):.4f},{1.1 / (e + 1):.4f},{0.5 + e / 20:.4f},{0.5 - e / 20:.4f},00:12\n" for e in range(6)))
    assert [(s.name, s.raw_name) for s in read(p).series] == [
        ("loss", "train_loss"), ("val_loss", "valid_loss"), ("val_accuracy", "accuracy"), ("val_error_rate", "error_rate")]
    k = tmp_path / "training.log"
    k.write_text("epoch,accuracy,loss,val_accuracy,val_loss\n" + "".join(
        f"{e},{0.5 + e / 20},{1 / (e + 1)},{0.5 + e / 25},{1.1 / (e + 1)}\n" for e in range(6)))
    assert [s.name for s in read(k).series] == ["accuracy", "loss", "val_accuracy", "val_loss"]
    # Lightning's metrics.csv shares fastai's two loss names but has its own step column and names its training
    # accuracy: train_acc stays the training accuracy (read as validation's, it made a 0.999 "validation" beside
    # a validation accuracy of 0.25)
    m = tmp_path / "metrics.csv"
    m.write_text("epoch,step,train_acc,train_loss,valid_acc,valid_loss\n" + "".join(
        f"{e},{22 + 23 * e},,,{0.2 + e / 100},{2.5 + e / 10}\n{e},{22 + 23 * e},{0.4 + e / 10},{1.8 / (e + 1)},,\n"
        for e in range(6)))
    assert {(s.name, s.raw_name) for s in read(m).series} >= {
        ("accuracy", "train_acc"), ("loss", "train_loss"), ("val_accuracy", "valid_acc"), ("val_loss", "valid_loss")}


def test_a_gradient_file_with_one_column_per_layer(tmp_path):
    # epoch,conv1,conv2,fc1,fc2: per-layer grad norms as a wide table, in a file named after gradients
    p = tmp_path / "gradient_norms.csv"
    p.write_text("epoch,conv1,conv2,fc1,fc2\n" + "".join(f"{e},1e-7,1e-5,1e-3,0.1\n" for e in range(1, 6)))
    run = read(p)
    assert {s.name for s in run.series} == {"grad_norm/conv1", "grad_norm/conv2", "grad_norm/fc1", "grad_norm/fc2"}
    assert next(s for s in run.series if s.name == "grad_norm/fc1").steps.tolist() == [1, 2, 3, 4, 5]
    q = tmp_path / "metrics.csv"       # the same columns in a file that does not name gradients: metrics as named
    q.write_text("epoch,conv1,conv2\n1,0.5,0.6\n2,0.4,0.5\n")
    assert {s.name for s in read(q).series} == {"conv1", "conv2"}


def test_a_gradient_file_s_plain_word_columns_are_layers_and_its_total_the_whole_model(tmp_path):
    """`step,epoch,fc1,fc2,fc3,head,total`: once the file is a table of layers (fc1..fc3), `head` is one
    more layer and `total` the whole model's norm. `head` was read as a metric of its own, so three hidden
    layers with no gradient below a live head read as 3 of 3 layers at 0: frozen_parameters 0.88
    (diagnosis_complete) for ReLU units a -2.5 bias kept off."""
    p = tmp_path / "grad_norms.csv"
    p.write_text("step,epoch,fc1,fc2,fc3,head,total\n" + "".join(f"{25 * i},{i // 5 + 1},0,0,0,{0.12 + 0.01 * (i % 3)},"
                                                                 f"{0.12 + 0.01 * (i % 3)}\n" for i in range(40)))
    run = read(p)
    assert {s.name for s in run.series} == {"epoch", "grad_norm/fc1", "grad_norm/fc2", "grad_norm/fc3",
                                            "grad_norm/head", "grad_norm"}
    from mltdbg.analyzers.curves import curve_signals
    kinds = {s.kind for s in curve_signals(run)}
    assert "grad_zero_below_head" in kinds and "grad_zero" not in kinds
    p.write_text("step,fc1,fc2,fc3,time_s,clip_coef\n" + "".join(f"{i},0.5,0.4,0.3,{88 + i},1.0\n" for i in range(5)))
    assert [s.name for s in read(p).series] == ["grad_norm/fc1", "grad_norm/fc2", "grad_norm/fc3", "time_s", "clip_coef"]
    # two layers, a head and the total beside the epoch: the head and the layers make half of the columns
    p.write_text("step,epoch,rnn.l0,rnn.l1,head,total\n" + "".join(f"{i},1,{1 + i},{2 + i},0.5,{3 + i}\n" for i in range(5)))
    assert [s.name for s in read(p).series] == ["epoch", "grad_norm/rnn.l0", "grad_norm/rnn.l1", "grad_norm/head",
                                                "grad_norm"]


def test_per_layer_lists_one_level_down_take_the_run_s_epochs(tmp_path):
    p = tmp_path / "grad_norms.json"
    p.write_text(json.dumps({"epoch": [1, 2, 3], "layers": {"encoder.0": [1e-8, 1e-8, 1e-8], "encoder.1": [1e-6] * 3,
                                                             "head": [0.05] * 3}}, indent=1))
    by = {s.name: s for s in read(p).series}
    assert set(by) == {"grad_norm/encoder.0", "grad_norm/encoder.1", "grad_norm/head"}
    assert by["grad_norm/encoder.1"].steps.tolist() == [1, 2, 3]
    assert by["grad_norm/head"].locs.tolist() == [18, 18, 18]      # the layer's key in the indented file


def test_a_history_one_level_down_beside_its_settings_is_read_as_metrics_and_as_config(tmp_path):
    # a benchmark scenario's one file: its settings and its per-epoch history side by side
    doc = {"config": {"optimizer": "adam", "learning_rate": 5.0, "batch_size": 2},
           "history": {"loss": [2.3, float("nan"), float("nan")], "val_loss": [2.2, 2.4, 2.5]}}
    (tmp_path / "scenario.json").write_text(json.dumps(doc))
    run = ingest([tmp_path])
    loss = run.metric("loss")
    assert loss is not None and loss.values[0] == 2.3 and np.isnan(loss.values[1:]).all()
    assert run.metric("val_loss").values.tolist() == [2.2, 2.4, 2.5]
    from mltdbg.analyzers.analyze import analyze  # noqa: PLC0415

    kinds = {s.kind for s in analyze(run)}     # the settings are read as a config's facts
    facts = {f.name: f.value for f in run.facts}
    assert facts.get("lr") == 5.0 and facts.get("batch_size") == 2
    assert {"lr_high", "config:batch_size_tiny", "nonfinite"} <= kinds


def test_one_history_per_split_in_one_json_is_read_as_train_and_val(tmp_path):
    doc = {"train": {"loss": [0.9, 0.5, 0.3], "acc": [0.5, 0.7, 0.9]},
           "val": {"loss": [0.95, 0.7, 0.8], "acc": [0.5, 0.6, 0.58]}}
    (tmp_path / "hist.json").write_text(json.dumps(doc))
    run = ingest([tmp_path])
    assert run.metric("loss").values.tolist() == [0.9, 0.5, 0.3]
    assert run.metric("val_loss").values.tolist() == [0.95, 0.7, 0.8]
    assert run.metric("val_accuracy").values.tolist() == [0.5, 0.6, 0.58]
    assert not [t for t in run.texts if t.kind == "config"]   # two histories, no settings beside them


def test_mmengine_scalars_json_keeps_validation_records_apart(tmp_path):
    """vis_data/scalars.json: training records carry epoch and iter; validation's carry only their step (the
    epoch they close). Read before as a training accuracy, on another axis."""
    recs = []
    for e in (1, 2, 3):
        recs += [{"lr": 0.001, "data_time": 0.0004, "loss": 2.3 / e - 0.01 * i, "time": 0.01, "epoch": e,
                  "iter": 16 * (e - 1) + i, "step": 16 * (e - 1) + i} for i in (10, 16)]
        recs.append({"accuracy/top1": 20.0 * e, "val_loss": 2.0 / e, "data_time": 0.0016, "time": 0.03, "step": e})
    d = tmp_path / "20261206_220758" / "vis_data"
    d.mkdir(parents=True)
    (d / "scalars.json").write_text("".join(json.dumps(r) + "\n" for r in recs))
    run = ingest([str(tmp_path)])
    assert "accuracy" not in run.metric_names()
    va = run.metric("val_accuracy")
    assert va.values.tolist() == [20.0, 40.0, 60.0] and va.steps.tolist() == [16, 32, 48]
    assert run.metric("val_loss").steps.tolist() == [16, 32, 48]
    assert run.metric("loss").steps.tolist() == [10, 16, 26, 32, 42, 48]
    assert len(run.metric("data_time")) == 6          # the training records' timing only


def test_detectron2_metrics_json_scores_without_a_training_loss_are_the_evaluations(tmp_path):
    """detectron2's metrics.json interleaves training records (total_loss, fast_rcnn/cls_accuracy, lr) with its
    evaluator's ({"bbox/AP": ..., "iteration": 99}); the evaluator's scores were read as training metrics."""
    recs = []
    for it in range(19, 300, 20):
        recs.append({"data_time": 0.001, "fast_rcnn/cls_accuracy": 0.5 + it / 1000, "iteration": it,
                     "loss_cls": 0.7 - it / 1000, "lr": 0.001, "total_loss": 0.7 - it / 1000})
        if (it + 1) % 100 == 0:
            recs.append({"bbox/AP": 40.0 + it / 100, "churn/accuracy": 97.0, "iteration": it})
    d = tmp_path / "output"
    d.mkdir()
    (d / "metrics.json").write_text("".join(json.dumps(r) + "\n" for r in recs))
    run = ingest([str(tmp_path)])
    assert run.metric("val_accuracy").values.tolist() == [97.0, 97.0, 97.0]
    assert run.metric("val_accuracy").steps.tolist() == [99, 199, 299]
    assert "accuracy" not in run.metric_names()
    assert any(n.startswith("val_") and "ap" in n for n in run.metric_names())
    assert len(run.metric("loss")) == 15


def test_mmengine_scalars_json_with_a_nan_epoch_is_still_read(tmp_path):
    recs = [{"loss": 2.0 - 0.1 * i, "lr": 0.01, "epoch": (float("nan") if i == 3 else i // 2 + 1), "iter": i, "step": i}
            for i in range(1, 9)] + [{"accuracy/top1": 50.0, "step": 1}, {"accuracy/top1": 60.0, "step": 2}]
    d = tmp_path / "vis_data"
    d.mkdir()
    (d / "scalars.json").write_text("".join(json.dumps(r) + "\n" for r in recs))
    run = ingest([str(tmp_path)])
    assert not run.warnings and run.metric("val_accuracy").values.tolist() == [50.0, 60.0]


def test_sacred_metrics_json_is_read_as_one_row_per_step(tmp_path):
    """Sacred's FileStorageObserver writes {name: {"steps": [...], "values": [...], "timestamps": [...]}} (read before
    as a config, its per-layer gradient norms and dead-unit shares unseen)."""
    steps = list(range(0, 300, 10))
    doc = {"train.loss": {"steps": steps, "values": [2.3026 - 0.0001 * i for i in range(30)], "timestamps": ["t"] * 30},
           "grad_norm.fc1": {"steps": steps, "values": [0.0] * 30, "timestamps": ["t"] * 30},
           "val_accuracy": {"steps": steps[::3], "values": [0.099] * 10, "timestamps": ["t"] * 10}}
    (tmp_path / "metrics.json").write_text(json.dumps(doc))
    by = {s.name: s for s in ingest([tmp_path]).series}
    assert {"loss", "grad_norm/fc1", "val_accuracy"} <= set(by)
    assert by["loss"].steps.tolist() == steps and len(by["val_accuracy"]) == 10 and by["val_accuracy"].steps[1] == 30


def test_a_cloudwatch_export_is_a_long_table_of_sagemaker_metric_names(tmp_path):
    """`timestamp,metric_name,value` (CloudWatch / SageMaker): a long table although no column is a metric's name, its
    names SageMaker's `train:loss` / `validation:accuracy`. It was read as text, no series."""
    p = tmp_path / "cloudwatch_metrics.csv"
    p.write_text("timestamp,metric_name,value\n" + "".join(
        f"2024-06-22 13:{e:02d}:51,train:loss,{1.0 / (e + 1):.4f}\n2024-06-22 13:{e:02d}:51,validation:accuracy,"
        f"{0.5 + e / 40:.3f}\n" for e in range(8)))
    got = {s.name: s for s in read(p).series}
    assert got["loss"].values[:2].tolist() == [1.0, 0.5] and got["loss"].locs.tolist()[:2] == [2, 4]
    assert got["val_accuracy"].raw_name == "validation:accuracy" and len(got["val_accuracy"]) == 8
    q = tmp_path / "data" / "customers.csv"   # id,name,value,label: data whose columns only look like a long table's
    q.parent.mkdir()
    q.write_text("id,name,value,label\n" + "".join(f"{i},{('alice', 'bob')[i % 2]},{i * 1.5},{i % 3}\n" for i in range(40)))
    assert not ingest([str(q.parent)]).series


def test_a_neptune_operation_queue_gives_its_logged_series(tmp_path):
    """Neptune's offline queue (`.neptune/offline/run__<id>/data-1.log`, a hidden folder): one JSON operation a line;
    LogFloats values become series named by the attribute's path, at their steps (per-layer gradient norms
    included); parameters and tags are no series."""
    q = tmp_path / ".neptune" / "offline" / "run__1" / "data-1.log"
    q.parent.mkdir(parents=True)
    ops = [{"obj": {"type": "AssignFloat", "path": ["parameters", "lr"], "value": 0.05}, "version": 1}]
    for step in range(6):
        ops.append({"obj": {"type": "LogFloats", "path": ["train", "loss"],
                            "values": [{"value": 2.3 - 0.01 * step, "step": float(step), "ts": 1.0}]}, "version": 2 + step})
        ops.append({"obj": {"type": "LogFloats", "path": ["grad_norm", "fc00"],
                            "values": [{"value": 1e-9, "step": float(step), "ts": 1.0}]}, "version": 20 + step})
    ops.append({"obj": {"type": "LogFloats", "path": ["train", "loss"], "values": 7}, "version": 99})  # (a bad line)
    q.write_text("\n".join(json.dumps(o) for o in ops) + "\n")
    run = ingest([tmp_path])
    got = {s.name: s for s in run.series}
    assert set(got) == {"loss", "grad_norm/fc00"}, sorted(got)
    assert got["loss"].values.tolist() == pytest.approx([2.3 - 0.01 * i for i in range(6)])
    assert got["grad_norm/fc00"].steps.tolist() == [0, 1, 2, 3, 4, 5]


def test_one_exported_series_per_file_is_named_by_the_file(tmp_path):
    """A tracker's per-attribute download ({"path": "val/loss", "values": [{"step", "value", "timestamp"}]}) is the
    series the document names; without a name, the file's folder and stem name it (train/acc.json)."""
    (tmp_path / "val").mkdir()
    (tmp_path / "train").mkdir()
    pts = [{"step": float(i), "value": 1.0 - 0.1 * i, "timestamp": "2024-06-10T09:39:05Z"} for i in range(5)]
    (tmp_path / "val" / "loss.json").write_text(json.dumps({"path": "val/loss", "type": "FloatSeries", "values": pts}))
    (tmp_path / "train" / "acc.json").write_text(json.dumps({"values": [{**p, "value": 0.1 * i} for i, p in enumerate(pts)]}))
    names = sorted(s.name for s in ingest([tmp_path]).series)
    assert names == ["accuracy", "val_loss"], names


def test_a_guild_run_folder_is_read(tmp_path):
    """Guild AI keeps a run's console output, flags and a copy of the source in the hidden `.guild/` folder: its
    `output` (no extension) gives the logged series and `sourcecode/train.py` is read as code."""
    g = tmp_path / "runs" / "1bdb4e" / ".guild"
    (g / "sourcecode").mkdir(parents=True)
    (g / "attrs").mkdir()
    (g / "attrs" / "flags").write_text("lr: 0.1\nbatch_size: 32\n")
    (g / "sourcecode" / "train.py").write_text("import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n")
    (g / "output").write_text("".join(f"step: {i}\nloss: {2.0 / (i + 1):.4f}\n" for i in range(12)))
    run = ingest([tmp_path])
    assert any(s.name == "loss" and len(s) == 12 for s in run.series), [(s.name, len(s)) for s in run.series]
    assert any(t.kind == "code" and t.path.endswith("sourcecode/train.py") for t in run.texts)


def test_a_csv_with_pandas_index_column_is_a_metrics_table(tmp_path):
    """W&B's "Export CSV" of a run's history, written by pandas: its first header cell is empty (the index). The table
    is read, each column a series (per-layer gradient norms under their layer names), and the index is no series."""
    from mltdbg.analyzers.ingest import ingest
    rows = [",_step,grad_norm/net.0.weight,grad_norm/net.2.weight,train/loss,train/acc"]
    rows += [f"{i},{50 * i},{6e-9 * (1 + 0.01 * i)},{2e-5},{2.30 + 0.001 * (i % 3)},0.1" for i in range(20)]
    (tmp_path / "wandb_export_history.csv").write_text("\n".join(rows) + "\n")
    run = ingest([str(tmp_path)])
    names = {s.name for s in run.series}
    assert {"grad_norm/net.0.weight", "grad_norm/net.2.weight", "loss", "accuracy"} <= names and "" not in names
    assert next(s for s in run.series if s.name == "loss").steps[-1] == 950
