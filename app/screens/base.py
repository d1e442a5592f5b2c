"""What every step screen shares: the header/footer frame, worker failure reporting, the app handle."""
from __future__ import annotations

from textual import on
from textual.screen import Screen
from textual.worker import Worker, WorkerState


class StepScreen(Screen):
    """A workflow step. Subclasses compose their body in `body()`."""

    STEP = ""

    @property
    def mapp(self):
        return self.app   # the MltdbgApp (typed loosely: screens are also shown by tests' apps)

    @property
    def state(self):
        return self.app.session.state

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        # One place for every worker failure: a message in the UI, never a traceback.
        if event.state == WorkerState.ERROR:
            err = event.worker.error
            self.notify(f"{event.worker.name}: {type(err).__name__}: {err}", title="Failed", severity="error",
                        timeout=10)
            self.worker_failed(event.worker.name, err)

    def worker_failed(self, name: str, error: BaseException) -> None:
        """Hook: put the screen back in a usable state after a failed worker."""
