"""TensorBoard reader on event files written by torch's SummaryWriter and by
tensorboard's own EventFileWriter, checked point for point against
tensorboard's EventAccumulator (keeping every point)."""
from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from mltdbg.analyzers.analyze import analyze
from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import LOC_RECORD, Run
from mltdbg.analyzers.readers import tensorboard as tb

pytest.importorskip("tensorboard")
torch_tb = pytest.importorskip("torch.utils.tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

N_STEPS = 17_000          # crosses the 1-, 2- and 3-byte step varint boundaries (128, 16384)
SPIKE_STEP, NAN_STEP = 12_345, 15_000


def _read(path: Path) -> Run:
    run = Run(root=path.parent)
    assert tb.sniff(path, path.read_bytes()[:4096])
    tb.read(path, path.name, run)
    return run


def _reference(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """tag -> (steps, values) from tensorboard's own loader, nothing dropped."""
    ea = EventAccumulator(str(path), size_guidance={"scalars": 0, "tensors": 0})
    ea.Reload()
    out = {}
    for tag in ea.Tags()["scalars"]:
        ev = ea.Scalars(tag)
        out[tag] = (np.array([e.step for e in ev]), np.array([e.value for e in ev]))
    for tag in ea.Tags()["tensors"]:
        ev = ea.Tensors(tag)
        arrs = [tensor_util.make_ndarray(e.tensor_proto) for e in ev]
        if all(a.size == 1 and a.dtype.kind == "f" for a in arrs):
            out[tag] = (np.array([e.step for e in ev]), np.array([float(a.ravel()[0]) for a in arrs]))
    return out


def _assert_same(run: Run, ref: dict) -> None:
    ours = {s.raw_name: s for s in run.series}
    assert set(ours) == set(ref)
    for tag, (steps, values) in ref.items():
        s = ours[tag]
        np.testing.assert_array_equal(s.steps, steps, err_msg=tag)
        np.testing.assert_array_equal(s.values, values, err_msg=tag)   # NaN == NaN here
        assert s.loc_kind == LOC_RECORD and len(s.locs) == len(steps) and np.all(np.diff(s.locs) > 0)


@pytest.fixture(scope="module")
def mixed_file(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("tb_mixed")
    w = torch_tb.SummaryWriter(str(d), max_queue=5000)
    img = np.zeros((3, 8, 8), np.float32)
    for s in range(N_STEPS):
        loss = 3.0 * math.exp(-s / 4000) + 0.2
        if s == SPIKE_STEP:
            loss = 50.0
        if s == NAN_STEP:
            loss = float("nan")
        w.add_scalar("train/loss", loss, s)
        if s % 10 == 0:
            w.add_scalar("grad_norm", 1.0 + (s % 7) * 0.01, s)
            w.add_scalar("lr", 1e-3 * (1 - s / N_STEPS), s, new_style=True)
            w.add_scalar("lr_double", 1e-3 * (1 - s / N_STEPS), s, new_style=True, double_precision=True)
        if s % 1000 == 0:
            w.add_histogram("weights", np.random.default_rng(s).normal(size=100), s)
            w.add_scalars("acc", {"train": 0.5, "val": 0.4}, s)
        if s % 5000 == 0:
            w.add_text("note", f"step {s}", s)
            w.add_image("img", img, s)
    w.close()
    return next(d.glob("events.out.tfevents.*"))


@pytest.fixture(scope="module")
def mixed_ref(mixed_file) -> dict:
    return _reference(mixed_file)


def test_matches_event_accumulator_all_points(mixed_file, mixed_ref):
    run = _read(mixed_file)
    assert run.warnings == []
    ref = mixed_ref
    assert set(ref) == {"train/loss", "grad_norm", "lr", "lr_double"}   # text/histogram/image skipped
    assert len(ref["train/loss"][0]) == N_STEPS > 10_000
    _assert_same(run, ref)
    loss = run.metric("loss")
    assert loss.raw_name == "train/loss"
    assert loss.values[loss.steps == SPIKE_STEP].tolist() == [50.0]
    assert np.isnan(loss.values[loss.steps == NAN_STEP]).all()
    assert np.isnan(loss.values).sum() == 1
    assert run.metric("lr") is not None and len(run.metric("lr")) == N_STEPS // 10


def test_add_scalars_folders_name_the_curves(mixed_file):
    runs = {}
    for sub in ("acc_train", "acc_val"):
        f = next((mixed_file.parent / sub).glob("events.out.tfevents.*"))
        runs[sub] = _read(f)
        (s,) = runs[sub].series
        np.testing.assert_array_equal(s.values, _reference(f)["acc"][1])
    assert runs["acc_train"].series[0].name == "accuracy"
    assert runs["acc_val"].series[0].name == "val_accuracy"


def test_truncated_last_record_is_silent(mixed_file, tmp_path):
    full = _read(mixed_file)
    n_full = sum(len(s) for s in full.series)
    data = mixed_file.read_bytes()
    for cut in (1, 7, 30):
        f = tmp_path / f"events.out.tfevents.cut{cut}"
        f.write_bytes(data[:-cut])
        run = _read(f)
        assert run.warnings == []
        # the last record is the closing flush of the last scalar: exactly one point lost
        assert sum(len(s) for s in run.series) == n_full - 1


def test_corrupt_record_in_middle_warns_once_and_keeps_prefix(mixed_file, mixed_ref, tmp_path):
    data = bytearray(mixed_file.read_bytes())
    off = len(data) // 2
    # find a record boundary near the middle by walking the headers
    p = 0
    idx = 0
    while p < off:
        p += int.from_bytes(data[p:p + 8], "little") + 16
        idx += 1
    data[p + 3] ^= 0x40           # corrupt the length of record idx
    f = tmp_path / "events.out.tfevents.bad"
    f.write_bytes(bytes(data))
    run = _read(f)
    assert len(run.warnings) == 1
    assert f"record {idx} at byte {p}" in run.warnings[0] and f.name in run.warnings[0]
    loss = run.metric("loss")
    ref_steps = mixed_ref["train/loss"][0]
    assert 0 < len(loss) < N_STEPS
    np.testing.assert_array_equal(loss.steps, ref_steps[:len(loss)])
    assert loss.locs.max() < idx


def test_garbage_named_tfevents_one_warning(tmp_path):
    f = tmp_path / "events.out.tfevents.123.host"
    f.write_bytes(np.random.default_rng(0).bytes(5000))
    run = Run(root=tmp_path)
    tb.read(f, f.name, run)
    assert run.series == [] and len(run.warnings) == 1
    assert f.name in run.warnings[0]


def test_empty_file_is_not_an_error(tmp_path):
    f = tmp_path / "events.out.tfevents.0.host"
    f.write_bytes(b"")
    run = Run(root=tmp_path)
    tb.read(f, f.name, run)
    assert run.series == [] and run.warnings == []


def test_sniff_by_content(mixed_file, tmp_path):
    f = tmp_path / "renamed.bin"
    shutil.copy(mixed_file, f)
    assert tb.sniff(f, f.read_bytes()[:4096])
    g = tmp_path / "other.bin"
    g.write_bytes(b"\x48" + b"\x00" * 200)
    assert not tb.sniff(g, g.read_bytes())
    assert not tb.sniff(tmp_path / "log.txt", b"step 1 loss 2.0\n")


def test_restart_two_files_one_series_both_sides_kept(tmp_path):
    """A job restarted into the same folder writes a second event file: one series per tag, the
    files in wall-time order, the overlapping steps of both kept (curves see the restart), and a
    NaN in the second file is cited there (before, the longer first file hid it)."""
    for part, (a, b) in enumerate([(0, 300), (200, 500)]):
        w = torch_tb.SummaryWriter(str(tmp_path), filename_suffix=f".part{part}")
        for s in range(a, b):
            w.add_scalar("loss", float("nan") if (part, s) == (1, 431) else 1.0 / (s + 1) + part, s)
        w.close()
    run = ingest([tmp_path])
    losses = [s for s in run.series if s.name == "loss"]
    assert len(losses) == 1
    loss = losses[0]
    assert len(loss) == 600 and loss.source == "."
    assert loss.steps[:300].tolist() == list(range(300)) and loss.steps[300:].tolist() == list(range(200, 500))
    assert loss.values[300] == pytest.approx(1.0 / 201 + 1)
    assert np.all(np.diff(loss.locs) > 0)           # one record order across both files
    sigs = {x.kind: x for x in analyze(run)}
    assert sigs["step_restart"].data["step"] == 200
    nan = sigs["nonfinite"]
    assert nan.data["step"] == 431 and nan.evidence[0].value == "NaN" and nan.evidence[0].source == "."
    assert nan.evidence[1].step == 430 and nan.evidence[1].value == pytest.approx(1.0 / 431 + 1)


def test_one_file_per_folder_keeps_its_name(tmp_path):
    for d in ("a", "b"):
        w = torch_tb.SummaryWriter(str(tmp_path / d))
        for s in range(5):
            w.add_scalar("loss", 1.0 + s, s)
        w.close()
    run = ingest([tmp_path])
    assert sorted(s.source.split("/")[0] for s in run.series) == ["a", "b"]
    assert all(s.source.split("/")[1].startswith("events.out.tfevents") for s in run.series)


def test_truncated_tail_read_to_the_last_whole_record(tmp_path):
    w = torch_tb.SummaryWriter(str(tmp_path))
    for s in range(100):
        w.add_scalar("loss", float(s), s)
    w.close()
    f = next(tmp_path.glob("events.out.tfevents.*"))
    data = f.read_bytes()
    for cut in (5, 13, 30):            # inside the last record's header, its payload, its CRC
        f.write_bytes(data[:-cut])
        run = Run(root=tmp_path)
        tb.read(f, f.name, run)
        assert run.warnings == [] and run.series[0].steps.tolist() == list(range(99))


def test_irregular_interleaving_matches(tmp_path):
    """Tags logged in a random order/subset each step (no period) and same-length
    tags ('loss'/'accu') exercise the per-record and multi-template paths."""
    rng = np.random.default_rng(1)
    w = torch_tb.SummaryWriter(str(tmp_path))
    tags = ["loss", "accu", "lr", "val/loss", "grad_norm/layer.0"]
    for s in range(3000):
        for t in rng.permutation(tags)[: rng.integers(0, 5)]:
            v = float(rng.normal())
            if rng.random() < 0.01:
                v = float(rng.choice([np.inf, -np.inf, np.nan]))
            w.add_scalar(t, v, s, new_style=bool(rng.random() < 0.3))
    w.close()
    f = next(tmp_path.glob("events.out.tfevents.*"))
    run = _read(f)
    # a tag written both ways is split by EventAccumulator into scalars and tensors: merge by record order
    ours = {s.raw_name: s for s in run.series}
    assert set(ours) == set(tags)
    ea = EventAccumulator(str(f), size_guidance={"scalars": 0, "tensors": 0})
    ea.Reload()
    for t in tags:
        pts = [(e.wall_time, e.step, e.value) for e in ea.Scalars(t)]
        pts += [(e.wall_time, e.step, float(tensor_util.make_ndarray(e.tensor_proto))) for e in ea.Tensors(t)]
        pts.sort(key=lambda x: x[0])
        np.testing.assert_array_equal(ours[t].steps, [p[1] for p in pts])
        np.testing.assert_array_equal(ours[t].values, [p[2] for p in pts])


def test_tf2_style_tensors_float_val_and_plugins(tmp_path):
    """TF2 writes scalars as tensors with float_val and plugin metadata only on the
    first event of a tag; text tensors (plugin 'text') are not scalars."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboard.compat.proto.tensor_pb2 import TensorProto
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    w = EventFileWriter(str(tmp_path))
    for s in range(500):
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars")) if s == 0 else None
        vals = [Summary.Value(tag="epoch_loss", tensor=TensorProto(dtype=1, float_val=[1.0 / (s + 1)]), metadata=meta)]
        vals.append(Summary.Value(tag="epoch_lr", tensor=TensorProto(dtype=2, double_val=[0.1]), metadata=meta))
        tmeta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text")) if s == 0 else None
        vals.append(Summary.Value(tag="notes", tensor=TensorProto(dtype=7, string_val=[b"x"]), metadata=tmeta))
        w.add_event(Event(wall_time=1.5e9 + s, step=s, summary=Summary(value=vals)))
    w.close()
    f = next(tmp_path.glob("events.out.tfevents.*"))
    run = _read(f)
    assert run.warnings == []
    assert {s.raw_name for s in run.series} == {"epoch_loss", "epoch_lr"}
    _assert_same(run, _reference(f))


def test_many_same_length_tags(tmp_path):
    """Per-layer norms give dozens of tags with identical record layouts: the
    group-by-fixed-bytes path must keep every tag apart."""
    w = torch_tb.SummaryWriter(str(tmp_path))
    for s in range(300):
        for layer in range(10, 22):
            w.add_scalar(f"grad_norm/layer.{layer}", layer + s * 1e-3, s)
        if s % 3 == 0:
            w.add_scalar("loss", 1.0 / (s + 1), s)
    w.close()
    f = next(tmp_path.glob("events.out.tfevents.*"))
    run = _read(f)
    _assert_same(run, _reference(f))
    assert len(run.series) == 13
    assert run.metric("grad_norm/layer.15").values[7] == np.float32(15 + 7e-3)


def test_gradient_histograms_give_per_layer_norms_and_dead_units_are_found(tmp_path):
    # torch's add_histogram of each parameter's .grad (and of the weights, which are no curve of ours):
    # the histogram's sum of squares is the gradient's L2 norm, exactly
    from torch.utils.tensorboard import SummaryWriter  # noqa: PLC0415
    from torch_runs import relu_mlp_steps  # noqa: PLC0415

    w = SummaryWriter(str(tmp_path / "run"))
    norms = {}
    for step, model, loss in relu_mlp_steps(kill_at=4):    # the second hidden layer's units die at step 4
        for name, p in model.named_parameters():
            w.add_histogram(f"{name}.grad", p.grad, step)
            w.add_histogram(name, p, step)
            norms[(name, step)] = p.grad.norm().item()
        w.add_scalar("train/loss", loss.item(), step)
    w.close()
    run = ingest([tmp_path])
    by = {s.name: s for s in run.series}
    assert set(by) == {"loss"} | {f"grad_norm/{n}" for n, _ in model.named_parameters()}
    assert by["grad_norm/0.weight"].values[:4].tolist() == pytest.approx([norms[("0.weight", s)] for s in range(4)], rel=1e-6)
    kinds = {s.kind: s for s in analyze(run)}
    assert "grad_norm/0.weight" in kinds["grad_died"].data["layers"]
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    assert diagnose([str(tmp_path)], []).hypotheses[0].id == "dead_relu"
