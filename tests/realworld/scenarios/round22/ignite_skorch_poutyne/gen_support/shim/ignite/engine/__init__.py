import logging
import time

import torch

torch.set_num_threads(1)


class _Event:
    def __init__(self, name, every=None, once=None):
        self.name = name
        self.every = every
        self.once = once

    def __call__(self, every=None, once=None):
        return _Event(self.name, every=every, once=once)

    def __repr__(self):
        return "Events." + self.name


class Events:
    STARTED = _Event("STARTED")
    EPOCH_STARTED = _Event("EPOCH_STARTED")
    ITERATION_STARTED = _Event("ITERATION_STARTED")
    ITERATION_COMPLETED = _Event("ITERATION_COMPLETED")
    EPOCH_COMPLETED = _Event("EPOCH_COMPLETED")
    COMPLETED = _Event("COMPLETED")


class State:
    def __init__(self):
        self.iteration = 0
        self.epoch = 0
        self.epoch_length = None
        self.max_epochs = None
        self.output = None
        self.batch = None
        self.metrics = {}
        self.dataloader = None
        self.times = {}


def _fmt_time(sec):
    h = int(sec // 3600)
    m = int((sec % 3600) // 60)
    s = sec - 3600 * h - 60 * m
    return "%02d:%02d:%06.3f" % (h, m, s)


class Engine:
    def __init__(self, process_function):
        self._process_function = process_function
        self._handlers = []
        self.state = State()
        self.should_terminate = False
        self.logger = logging.getLogger("ignite.engine.engine.Engine")

    def add_event_handler(self, event, handler, *args, **kwargs):
        self._handlers.append((event, handler, args, kwargs))
        return handler

    def on(self, event, *args, **kwargs):
        def deco(f):
            self.add_event_handler(event, f, *args, **kwargs)
            return f
        return deco

    def _fire(self, name, counter=None):
        for ev, h, a, kw in list(self._handlers):
            if ev.name != name:
                continue
            if ev.every is not None and counter is not None and counter % ev.every != 0:
                continue
            if ev.once is not None and counter is not None and counter != ev.once:
                continue
            h(self, *a, **kw)

    def terminate(self):
        self.logger.info("Terminate signaled. Engine will stop after current iteration is finished.")
        self.should_terminate = True

    def state_dict(self):
        return {"iteration": self.state.iteration, "epoch_length": self.state.epoch_length,
                "max_epochs": self.state.max_epochs}

    def run(self, data, max_epochs=1, epoch_length=None):
        self.state = State()
        self.state.iteration = 0
        self.state.epoch = 0
        self.state.max_epochs = max_epochs
        self.state.dataloader = data
        self.state.epoch_length = epoch_length or len(data)
        self.state.metrics = {}
        self.should_terminate = False
        self.logger.info("Engine run starting with max_epochs=%d." % max_epochs)
        t_run = time.time()
        self._fire("STARTED")
        while self.state.epoch < max_epochs and not self.should_terminate:
            self.state.epoch += 1
            t_ep = time.time()
            self._fire("EPOCH_STARTED", self.state.epoch)
            for batch in data:
                self.state.batch = batch
                self.state.iteration += 1
                self._fire("ITERATION_STARTED", self.state.iteration)
                self.state.output = self._process_function(self, batch)
                self._fire("ITERATION_COMPLETED", self.state.iteration)
                if self.should_terminate:
                    break
            took = time.time() - t_ep
            self.state.times["EPOCH_COMPLETED"] = took
            self._fire("EPOCH_COMPLETED", self.state.epoch)
            self.logger.info("Epoch[%d] Complete. Time taken: %s" % (self.state.epoch, _fmt_time(took)))
        self._fire("COMPLETED")
        self.logger.info("Engine run complete. Time taken: %s" % _fmt_time(time.time() - t_run))
        return self.state


def _prepare_batch(batch, device=None):
    x, y = batch
    return x, y


def create_supervised_trainer(model, optimizer, loss_fn, device=None, output_transform=None):
    def update(engine, batch):
        model.train()
        optimizer.zero_grad()
        x, y = _prepare_batch(batch, device)
        y_pred = model(x)
        loss = loss_fn(y_pred, y)
        loss.backward()
        optimizer.step()
        if output_transform is not None:
            return output_transform(x, y, y_pred, loss)
        return loss.item()
    return Engine(update)


def create_supervised_evaluator(model, metrics=None, device=None):
    def inference(engine, batch):
        model.eval()
        with torch.no_grad():
            x, y = _prepare_batch(batch, device)
            y_pred = model(x)
            return y_pred, y
    ev = Engine(inference)
    for name, metric in (metrics or {}).items():
        metric.attach(ev, name)
    return ev
