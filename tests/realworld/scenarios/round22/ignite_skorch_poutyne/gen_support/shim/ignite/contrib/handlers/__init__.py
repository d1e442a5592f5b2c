import sys
import time

from ignite.engine import Events


def _fmt(sec):
    return "%02d:%02d" % (int(sec // 60), int(sec % 60))


class ProgressBar:
    """Prints the final state of each epoch's tqdm bar (persist=True), as pasted from a terminal."""

    def __init__(self, persist=False, bar_format=None, ncols=None):
        self.persist = persist

    def attach(self, engine, metric_names=None, output_transform=None):
        self._t0 = None

        def _start(e):
            self._t0 = time.time()

        def _end(e):
            n = e.state.epoch_length
            parts = []
            if output_transform is not None:
                out = output_transform(e.state.output)
                if isinstance(out, dict):
                    parts += ["%s=%.3g" % (k, v) for k, v in out.items()]
                else:
                    parts.append("loss=%.3g" % out)
            if metric_names:
                for k in metric_names:
                    if k in e.state.metrics:
                        parts.append("%s=%.3g" % (k, e.state.metrics[k]))
            post = (", " + ", ".join(parts)) if parts else ""
            el = time.time() - self._t0
            sys.stdout.write("Epoch [%d/%d]: [%d/%d] 100%%|%s%s [%s<00:00]\n"
                             % (e.state.epoch, e.state.max_epochs, n, n, "\u2588" * 10, post, _fmt(el)))
            sys.stdout.flush()

        engine.add_event_handler(Events.EPOCH_STARTED, _start)
        engine.add_event_handler(Events.EPOCH_COMPLETED, _end)

    def log_message(self, message):
        sys.stdout.write(message + "\n")
        sys.stdout.flush()
