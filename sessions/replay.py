"""Read-only replay of a recorded session: a cursor over its events.

    r = Replay("20260504-153012-ab12")        # id, folder or events file
    r.next(); r.prev(); r.jump(40)            # each returns the SessionState after that many events
    r.event                                    # the event just applied (None before the first)
    describe(r.event, r.state)                 # its text (mltdbg.sessions.export), as the export words it

Replay reads the log and nothing else: it never runs a command, applies a
diff, takes the writer's lock or creates a file. The state it returns is the
cursor's own and changes when the cursor moves; `state.copy()` keeps one.
"""
from __future__ import annotations

from pathlib import Path

from mltdbg.sessions.errors import SessionError
from mltdbg.sessions.log import Event, read_log
from mltdbg.sessions.session import held_elsewhere, root_of
from mltdbg.sessions.state import SessionState, apply, finalize, state_warnings
from mltdbg.sessions.store import resolve

# A snapshot every SNAPSHOT_EVERY events keeps prev()/jump() to a short re-fold.
SNAPSHOT_EVERY = 256


class Replay:
    def __init__(self, path_or_id: str | Path, repo_root: Path | str | None = None):
        ref, why = resolve(path_or_id, Path(repo_root) if repo_root else None)
        if ref is None:
            raise SessionError(why)
        self.ref = ref
        loaded = read_log(ref.events, f"{ref.id}/{ref.events.name}")
        self.events: list[Event] = loaded.events
        self.warnings = loaded.warnings
        self.notices: list[str] = []
        self.root = root_of(ref, loaded, self.notices)
        # A log whose writer is gone ends with its running checks interrupted;
        # one still being written shows them running.
        self.live = held_elsewhere(ref.dir)
        self._snaps: dict[int, SessionState] = {0: SessionState()}
        self._state = SessionState()
        self.index = 0
        end = self.jump(len(self.events))
        self.warnings = self.warnings + state_warnings(end, f"{ref.id}/{ref.events.name}")
        missing = [a for a in end.artifacts if not (self.root / a).exists()]
        if missing:
            self.notices.append(f"{len(missing)} of {len(end.artifacts)} artifacts are absent here "
                                f"(e.g. {missing[0]}): plots and outputs come from the session record")
        self.jump(0)

    def __len__(self) -> int:
        return len(self.events)

    @property
    def state(self) -> SessionState:
        return self._state

    @property
    def event(self) -> Event | None:
        return self.events[self.index - 1] if self.index else None

    @property
    def at_end(self) -> bool:
        return self.index >= len(self.events)

    def next(self) -> SessionState | None:
        """Apply the next event; None when already at the end."""
        if self.at_end:
            return None
        apply(self._state, self.events[self.index])
        self.index += 1
        self._snapshot()
        if self.at_end and not self.live:
            finalize(self._state)
        return self._state

    def prev(self) -> SessionState | None:
        """Step back one event; None when already at the start."""
        return None if self.index == 0 else self.jump(self.index - 1)

    def jump(self, n: int) -> SessionState:
        """The state after the first n events (clamped to 0..len)."""
        n = max(0, min(int(n), len(self.events)))
        base = max(k for k in self._snaps if k <= n)
        st = self._snaps[base].copy()
        for ev in self.events[base:n]:
            apply(st, ev)
            base += 1
            if base % SNAPSHOT_EVERY == 0 and base not in self._snaps:
                self._snaps[base] = st.copy()
        self._state, self.index = st, n
        if self.at_end and not self.live:
            finalize(self._state)
        return st

    def _snapshot(self) -> None:
        if self.index % SNAPSHOT_EVERY == 0 and self.index not in self._snaps:
            self._snaps[self.index] = self._state.copy()

    def __iter__(self):
        """Yields the state after each event from the current position on."""
        while (st := self.next()) is not None:
            yield st
