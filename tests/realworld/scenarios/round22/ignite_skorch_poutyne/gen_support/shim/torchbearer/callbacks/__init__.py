import csv


class Callback:
    def on_start(self, trial):
        pass

    def on_end_epoch(self, trial, logs):
        pass

    def on_end(self, trial):
        pass


class CSVLogger(Callback):
    def __init__(self, filename, separator=",", append=False):
        self.filename = filename
        self.sep = separator

    def on_start(self, trial):
        self._fh = open(self.filename, "w", newline="")
        self._w = None

    def on_end_epoch(self, trial, logs):
        keys = ["epoch"] + [k for k in logs if k != "epoch"]
        if self._w is None:
            self._w = csv.DictWriter(self._fh, fieldnames=keys, delimiter=self.sep)
            self._w.writeheader()
        self._w.writerow({k: logs[k] for k in keys})
        self._fh.flush()

    def on_end(self, trial):
        self._fh.close()
