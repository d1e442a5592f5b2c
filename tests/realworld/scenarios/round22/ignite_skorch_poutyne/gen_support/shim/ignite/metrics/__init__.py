import torch

from ignite.engine import Events


class Metric:
    def __init__(self, output_transform=lambda x: x):
        self._output_transform = output_transform

    def attach(self, engine, name):
        def _started(e):
            self.reset()

        def _iter(e):
            self.update(self._output_transform(e.state.output))

        def _completed(e):
            e.state.metrics[name] = self.compute()

        engine.add_event_handler(Events.EPOCH_STARTED, _started)
        engine.add_event_handler(Events.ITERATION_COMPLETED, _iter)
        engine.add_event_handler(Events.EPOCH_COMPLETED, _completed)


class Accuracy(Metric):
    def reset(self):
        self._correct = 0
        self._n = 0

    def update(self, output):
        y_pred, y = output
        self._correct += (y_pred.argmax(dim=1) == y).sum().item()
        self._n += y.shape[0]

    def compute(self):
        return self._correct / max(self._n, 1)


class Loss(Metric):
    def __init__(self, loss_fn, output_transform=lambda x: x):
        super().__init__(output_transform)
        self._loss_fn = loss_fn

    def reset(self):
        self._sum = 0.0
        self._n = 0

    def update(self, output):
        y_pred, y = output
        self._sum += self._loss_fn(y_pred, y).item() * y.shape[0]
        self._n += y.shape[0]

    def compute(self):
        return self._sum / max(self._n, 1)


class RunningAverage(Metric):
    def __init__(self, output_transform=lambda x: x, alpha=0.98):
        super().__init__(output_transform)
        self.alpha = alpha

    def attach(self, engine, name):
        self._value = None

        def _iter(e):
            v = float(self._output_transform(e.state.output))
            self._value = v if self._value is None else self._value * self.alpha + (1 - self.alpha) * v
            e.state.metrics[name] = self._value

        engine.add_event_handler(Events.ITERATION_COMPLETED, _iter)
