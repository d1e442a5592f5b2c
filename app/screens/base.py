"""What every step screen shares: the header/footer frame, worker failure reporting, the app handle,
Esc leaving a text field before it means "back"."""
from __future__ import annotations

import threading

from textual import on
from textual.screen import Screen
from textual.widgets import Footer, Input, TextArea
from textual.worker import Worker, WorkerState


# The engine's modules are imported in worker threads, off the event loop: the capture screen's warm-up and the
# diagnosis itself. Two threads importing one cycle of them at once can each hold a module the other needs, and
# Python breaks that by handing one of them the other's half-initialised module: "cannot import name 'InputError'
# from mltdbg.playbooks.diagnose", a diagnosis that failed in about one run of three when ctrl+n came during the
# warm-up. They are imported, and warmed, by one thread at a time.
_ENGINE_IMPORT = threading.Lock()


def load_engine():
    """Import and warm the engine (playbooks.diagnose.warm), one thread at a time; (diagnose_session, InputError)."""
    with _ENGINE_IMPORT:
        from mltdbg.playbooks.diagnose import InputError, warm  # noqa: PLC0415 - heavy: in a worker, under the lock
        from mltdbg.sessions.diagnosis import diagnose_session  # noqa: PLC0415 - see above
        warm()
    return diagnose_session, InputError


def step_footer() -> Footer:
    """The footer of every step screen: compact and without the palette key (^p still works), so that at
    80 columns it holds each screen's primary keys; they are listed in priority order in BINDINGS,
    secondary ones `show=False` (the F1 help lists every key)."""
    return Footer(compact=True, show_command_palette=False)


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

    def leave_input(self) -> bool:
        """Esc in a text field: focus the screen's body instead, so that the next single-key action (a, y)
        acts instead of being typed. Returns whether a field was left (then Esc does nothing else)."""
        if isinstance(self.focused, (Input, TextArea)):
            self.set_focus(None)
            self.focus_body()
            return True
        return False

    def focus_body(self) -> None:
        """Hook: what gets focus after leaving a text field (default: nothing, the screen's keys act)."""

    def worker_failed(self, name: str, error: BaseException) -> None:
        """Hook: put the screen back in a usable state after a failed worker."""
