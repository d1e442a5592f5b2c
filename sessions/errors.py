"""The errors of the sessions core, in one place below every other module of it.

SessionError: a session could not be found, created or written (the message says why).
ReadOnlyError: an append to a session opened read-only.
EventError: an event that breaks the contract of `mltdbg.sessions.events` (unknown type,
missing key, wrong value); raised when such an event is appended, a warning when one is read.
"""
from __future__ import annotations


class SessionError(Exception):
    """A session could not be found or created (the message says why)."""


class ReadOnlyError(SessionError):
    """An append to a session opened read-only."""


class EventError(SessionError, ValueError):
    """An event that does not follow the event contract; the message names the type and the key."""


class UnknownEventType(EventError):
    """An event type this version does not know (written by a newer mltdbg, or a typo)."""
