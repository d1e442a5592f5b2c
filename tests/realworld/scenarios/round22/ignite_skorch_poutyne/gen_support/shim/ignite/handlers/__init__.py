import logging
import os

import torch

from ignite.engine import Events


def global_step_from_engine(engine):
    def f(_, __):
        return engine.state.epoch
    return f


class EarlyStopping:
    def __init__(self, patience, score_function, trainer, min_delta=0.0):
        self.patience = patience
        self.score_function = score_function
        self.trainer = trainer
        self.min_delta = min_delta
        self.counter = 0
        self.best_score = None
        self.logger = logging.getLogger("ignite.handlers.early_stopping.EarlyStopping")

    def __call__(self, engine):
        score = self.score_function(engine)
        if self.best_score is not None and score <= self.best_score + self.min_delta:
            self.counter += 1
            self.logger.debug("EarlyStopping: %i / %i" % (self.counter, self.patience))
            if self.counter >= self.patience:
                self.logger.info("EarlyStopping: Stop training")
                self.trainer.terminate()
        else:
            self.best_score = score
            self.counter = 0


class ModelCheckpoint:
    def __init__(self, dirname, filename_prefix="", n_saved=1, score_function=None, score_name=None,
                 require_empty=True, create_dir=True, global_step_transform=None):
        self.dirname = dirname
        self.prefix = filename_prefix
        self.n_saved = n_saved
        self.score_function = score_function
        self.score_name = score_name
        self.global_step_transform = global_step_transform
        self._saved = []
        self.last_checkpoint = None
        if create_dir:
            os.makedirs(dirname, exist_ok=True)

    def __call__(self, engine, to_save):
        step = self.global_step_transform(engine, None) if self.global_step_transform else engine.state.iteration
        priority = self.score_function(engine) if self.score_function else step
        if len(self._saved) >= self.n_saved and priority <= self._saved[0][0]:
            return
        if len(to_save) == 1:
            name, obj = next(iter(to_save.items()))
            payload = obj.state_dict()
        else:
            name = "checkpoint"
            payload = {k: v.state_dict() for k, v in to_save.items()}
        fname = "%s%s_%d" % (self.prefix + "_" if self.prefix else "", name, step)
        if self.score_name:
            fname += "_%s=%.4f" % (self.score_name, priority)
        fname += ".pt"
        path = os.path.join(self.dirname, fname)
        torch.save(payload, path)
        self._saved.append((priority, path))
        self._saved.sort(key=lambda t: t[0])
        while len(self._saved) > self.n_saved:
            _, old = self._saved.pop(0)
            if os.path.exists(old):
                os.remove(old)
        self.last_checkpoint = self._saved[-1][1]


Checkpoint = ModelCheckpoint
