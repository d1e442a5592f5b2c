"""Small helpers that write metric files in the layouts real loggers use."""
import csv, io, json, os, time, datetime


class Clock:
    """Real elapsed time of the training, shifted to a fixed calendar start."""
    def __init__(self, base_unix):
        self.base = base_unix
        self.t0 = time.perf_counter()
        self.offset = 0.0

    def elapsed(self):
        return time.perf_counter() - self.t0 + self.offset

    def now(self):
        return self.base + self.elapsed()

    def pause(self, seconds):
        # a gap between two processes (job queue); only shifts the calendar
        self.offset += seconds


def iso(ts):
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]


def f32(x):
    """A value as Keras/Lightning print it: a float32 widened to a Python float."""
    import numpy as np
    return repr(float(np.float32(x)))


class LightningCSV:
    """Imitates lightning.pytorch.loggers.CSVLogger (metrics.csv + hparams.yaml)."""
    def __init__(self, folder):
        self.folder = folder
        self.rows = []

    def log(self, step, **metrics):
        row = {k: v for k, v in metrics.items()}
        row["step"] = step
        self.rows.append(row)

    @staticmethod
    def _fmt(key, v):
        if isinstance(v, int):
            return v
        if key.startswith("lr-"):
            return repr(float(v))      # LearningRateMonitor logs the optimizer's Python float
        return f32(v)                  # self.log() values are float32 tensors

    def save(self, hparams):
        os.makedirs(self.folder, exist_ok=True)
        keys = sorted(set().union(*self.rows))
        with open(os.path.join(self.folder, "metrics.csv"), "w", newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(keys)
            for r in self.rows:
                w.writerow([self._fmt(k, r[k]) if k in r else "" for k in keys])
        import yaml
        with open(os.path.join(self.folder, "hparams.yaml"), "w") as fh:
            yaml.safe_dump(hparams, fh, sort_keys=False, default_flow_style=False)


def keras_csv(path, rows):
    """Keras CSVLogger: epoch first, then the metric keys sorted."""
    keys = sorted(k for k in rows[0] if k != "epoch")
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\r\n")
        w.writerow(["epoch"] + keys)
        for r in rows:
            w.writerow([r["epoch"]] + [f32(r[k]) for k in keys])


def tb_export(path, points):
    """TensorBoard scalars dashboard 'download CSV'."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["Wall time", "Step", "Value"])
        for wall, step, val in points:
            w.writerow([repr(float(wall)), step, repr(float(val))])


def jsonl(path, records):
    with open(path, "w") as fh:
        for r in records:
            fh.write(json.dumps(r) + "\n")


def wandb_history_csv(path, rows):
    """pandas DataFrame.to_csv of wandb.Api().run(...).history(samples=...)."""
    keys = sorted(set().union(*rows))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([""] + keys)
    for i, r in enumerate(rows):
        out = [i]
        for k in keys:
            v = r.get(k)
            if v is None:
                out.append("")
            elif isinstance(v, int):
                out.append(v)
            else:
                out.append(repr(float(v)))
        w.writerow(out)
    with open(path, "w") as fh:
        fh.write(buf.getvalue())


def hf_trainer_state(path, log_history, global_step, max_steps, num_train_epochs, train_batch_size,
                     logging_steps, eval_steps=None, save_steps=500):
    state = {
        "best_global_step": None,
        "best_metric": None,
        "best_model_checkpoint": None,
        "epoch": float(num_train_epochs),
        "eval_steps": eval_steps if eval_steps is not None else 500,
        "global_step": global_step,
        "is_hyper_param_search": False,
        "is_local_process_zero": True,
        "is_world_process_zero": True,
        "log_history": log_history,
        "logging_steps": logging_steps,
        "max_steps": max_steps,
        "num_input_tokens_seen": 0,
        "num_train_epochs": num_train_epochs,
        "save_steps": save_steps,
        "stateful_callbacks": {
            "TrainerControl": {
                "args": {
                    "should_epoch_stop": False,
                    "should_evaluate": False,
                    "should_log": False,
                    "should_save": True,
                    "should_training_stop": True,
                },
                "attributes": {},
            }
        },
        "total_flos": 0.0,
        "train_batch_size": train_batch_size,
        "trial_name": None,
        "trial_params": None,
    }
    with open(path, "w") as fh:
        fh.write(json.dumps(state, indent=2, sort_keys=True) + "\n")
