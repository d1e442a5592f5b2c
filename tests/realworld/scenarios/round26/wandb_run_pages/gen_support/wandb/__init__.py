"""Minimal offline stand-in for the wandb client, used only by gen.py.

It records config / history / summary of a run to a JSON file so that gen.py can
render run pages and panel exports from the real numbers, and prints the console
banner lines the real client prints.
"""
import atexit, json, math, os, sys, time, random

__version__ = "0.16.6"
_SPARK = "▁▂▃▄▅▆▇█"
run = None
config = None
summary = None


class _Config(dict):
    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k)

    def __setattr__(self, k, v):
        self[k] = v

    def update(self, d=None, allow_val_change=False, **kw):
        if d:
            dict.update(self, dict(d))
        dict.update(self, kw)


class _Summary(dict):
    def update(self, d=None, **kw):
        if d:
            for k, v in dict(d).items():
                self[k] = v
        dict.update(self, kw)


def _clean(v):
    try:
        import torch
        if isinstance(v, torch.Tensor):
            v = v.item()
    except Exception:
        pass
    try:
        import numpy as np
        if isinstance(v, np.generic):
            v = v.item()
    except Exception:
        pass
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return {"__nonfinite__": str(v)}
    return v


class Run:
    def __init__(self, project, name, cfg, job_type, run_id, group, tags, resumed_rec):
        self.project = project
        self.entity = os.environ.get("FAKE_WANDB_ENTITY", "ml-team")
        self.name = name
        self.id = run_id
        self.job_type = job_type
        self.group = group
        self.tags = tags or []
        self.config = _Config()
        self.summary = _Summary()
        self._t0 = time.time()
        self._finished = False
        self._exit_code = 0
        self._rec = resumed_rec
        if resumed_rec:
            self.config.update(resumed_rec["config"])
            self._history = resumed_rec["history"]
            self._step = resumed_rec["history"][-1]["_step"] + 1 if resumed_rec["history"] else 0
            self._rt0 = resumed_rec["runtime"]
            self._start = resumed_rec["start_time"]
            self._segments = resumed_rec.get("segments", [])
        else:
            self._history = []
            self._step = 0
            self._rt0 = 0.0
            self._start = float(os.environ.get("FAKE_WANDB_START", "1710234862"))
            self._segments = []
        self._seg_start_wall = self._start + self._rt0 + (float(os.environ.get("FAKE_WANDB_GAP", "0")) if resumed_rec else 0)
        if cfg:
            self.config.update(dict(cfg))
        self._pending = {}
        self._preempt = int(os.environ.get("FAKE_WANDB_PREEMPT_AT_STEP", "-1"))

    @property
    def url(self):
        return f"https://wandb.ai/{self.entity}/{self.project}/runs/{self.id}"

    def _now(self):
        return time.time() - self._t0

    def log(self, data, step=None, commit=None):
        if step is not None:
            step = int(step)
            if step < self._step:
                print(f"wandb: WARNING Tried to log to step {step} that is less than the current step {self._step}. "
                      "Steps must be monotonically increasing, so this data will be ignored. "
                      "See https://wandb.me/define-metric to log data out of order.", file=sys.stderr)
                sys.stderr.flush()
                return
            if step > self._step:
                self._commit()
                self._step = step
            for k, v in data.items():
                self._pending[k] = _clean(v)
            if commit:
                self._commit()
            return
        for k, v in data.items():
            self._pending[k] = _clean(v)
        if commit is not False:
            self._commit()

    def _commit(self):
        if not self._pending:
            return
        row = dict(self._pending)
        rt = self._rt0 + self._now()
        row["_step"] = self._step
        row["_runtime"] = round(rt, 3)
        row["_timestamp"] = round(self._seg_start_wall + self._now(), 3)
        self._history.append(row)
        self._pending = {}
        self._step += 1
        if self._preempt >= 0 and row["_step"] >= self._preempt:
            self._dump("preempted", 143)
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(143)

    def watch(self, *a, **k):
        return None

    def define_metric(self, *a, **k):
        return None

    def _full_summary(self):
        s = {}
        for row in self._history:
            for k, v in row.items():
                s[k] = v
        s.update({k: _clean(v) for k, v in self.summary.items()})
        return s

    def _dump(self, state, exit_code):
        rt = self._rt0 + self._now()
        segs = list(self._segments) + [{"start_rt": self._rt0, "end_rt": rt, "state": state,
                                        "exit_code": exit_code, "wall_start": self._seg_start_wall}]
        rec = {"project": self.project, "entity": self.entity, "name": self.name, "id": self.id,
               "job_type": self.job_type, "group": self.group, "tags": self.tags,
               "config": {k: _clean(v) for k, v in self.config.items()},
               "history": self._history, "summary": self._full_summary(), "state": state,
               "exit_code": exit_code, "runtime": rt, "start_time": self._start, "segments": segs}
        out = os.environ.get("FAKE_WANDB_DIR", ".")
        with open(os.path.join(out, f"{self.id}.json"), "w") as f:
            json.dump(rec, f)

    def finish(self, exit_code=0, quiet=None):
        if self._finished:
            return
        self._commit()
        self._finished = True
        state = "finished" if exit_code == 0 else "crashed"
        self._dump(state, exit_code)
        _footer(self, exit_code)


def _spark(vals):
    vals = [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not vals:
        return ""
    n = len(vals)
    if n > 40:
        idx = [int(i * (n - 1) / 39) for i in range(40)]
        vals = [vals[i] for i in idx]
    lo, hi = min(vals), max(vals)
    if hi - lo < 1e-12:
        return _SPARK[0] * len(vals)
    return "".join(_SPARK[min(7, int((v - lo) / (hi - lo) * 7.999))] for v in vals)


def _fmt(v):
    if isinstance(v, dict) and "__nonfinite__" in v:
        return v["__nonfinite__"]
    if isinstance(v, float):
        return f"{v:.5g}"
    return str(v)


def _footer(r, exit_code):
    e = sys.stderr
    status = "success" if exit_code == 0 else f"failed {exit_code}"
    print(f"wandb: Waiting for W&B process to finish... ({status}).", file=e)
    keys = sorted({k for row in r._history for k in row if not k.startswith("_")})
    if keys:
        w = max(len(k) for k in keys)
        print("wandb: ", file=e)
        print("wandb: Run history:", file=e)
        for k in keys:
            vals = [row[k] for row in r._history if k in row]
            print(f"wandb: {k.rjust(w + 1)} {_spark(vals)}", file=e)
        print("wandb: ", file=e)
        print("wandb: Run summary:", file=e)
        s = r._full_summary()
        for k in sorted(k for k in s if not k.startswith("_")):
            print(f"wandb: {k.rjust(w + 1)} {_fmt(s[k])}", file=e)
    print("wandb: ", file=e)
    print(f"wandb: 🚀 View run {r.name} at: {r.url}", file=e)
    print(f"wandb: ️⚡ View job at https://wandb.ai/{r.entity}/{r.project}/jobs/QXJ0aWZhY3RDb2xsZWN0aW9uOjE0NTk2MzI0Mw==/version_details/v3", file=e)
    print("wandb: Synced 6 W&B file(s), 0 media file(s), 2 artifact file(s) and 0 other file(s)", file=e)
    print(f"wandb: Find logs at: ./wandb/run-{time.strftime('%Y%m%d_%H%M%S', time.gmtime(r._start))}-{r.id}/logs", file=e)
    e.flush()


def _excepthook(tp, val, tb):
    sys.__excepthook__(tp, val, tb)
    sys.stderr.flush()
    if run is not None and not run._finished:
        run.finish(exit_code=1)


def _atexit():
    if run is not None and not run._finished:
        run.finish(exit_code=0)


def init(project=None, entity=None, name=None, config=None, job_type=None, id=None, resume=None,
         group=None, tags=None, notes=None, dir=None, reinit=None, mode=None, settings=None, **kw):
    global run, config_, summary
    name = name or os.environ.get("FAKE_WANDB_NAME", "run")
    run_id = id or os.environ.get("FAKE_WANDB_ID", "abcd1234")
    project = project or "uncategorized"
    resumed = None
    path = os.path.join(os.environ.get("FAKE_WANDB_DIR", "."), f"{run_id}.json")
    if resume and os.path.exists(path):
        with open(path) as f:
            resumed = json.load(f)
        name = resumed["name"]
    r = Run(project, name, config, job_type, run_id, group, tags, resumed)
    run = r
    globals()["config"] = r.config
    globals()["summary"] = r.summary
    e = sys.stderr
    user = os.environ.get("FAKE_WANDB_USER", "user")
    home = os.environ.get("FAKE_WANDB_HOME", "/home/user/project")
    stamp = time.strftime('%Y%m%d_%H%M%S', time.gmtime(r._seg_start_wall))
    print(f"wandb: Currently logged in as: {user} ({r.entity}). Use `wandb login --relogin` to force relogin", file=e)
    print(f"wandb: Tracking run with wandb version {__version__}", file=e)
    print(f"wandb: Run data is saved locally in {home}/wandb/run-{stamp}-{r.id}", file=e)
    print("wandb: Run `wandb offline` to turn off syncing.", file=e)
    print(f"wandb: {'Resuming' if resumed else 'Syncing'} run {r.name}", file=e)
    print(f"wandb: ⭐️ View project at https://wandb.ai/{r.entity}/{project}", file=e)
    print(f"wandb: 🚀 View run at {r.url}", file=e)
    e.flush()
    sys.excepthook = _excepthook
    atexit.register(_atexit)
    return r


def log(data, step=None, commit=None):
    run.log(data, step=step, commit=commit)


def finish(exit_code=0, quiet=None):
    if run is not None:
        run.finish(exit_code=exit_code)


def watch(*a, **k):
    return None


def define_metric(*a, **k):
    return None
