"""Progress as typed events: what an engine operation reports while it works.

An operation (seal, verify, localize...) is given an :class:`Events` and reports through it;
each report reaches the caller's listener as one :class:`Event`:

    Event(operation="verify", layer="exam", phase="step", n=2, total=6,
          subject="tests/test_x.py::test_y", message=None)

``message`` is the line a person reads (what the command line prints on stderr); an event
without one (a step of a loop: run 2 of 6) is for a progress bar, an MCP progress
notification or a dashboard. Listeners are called one at a time, also when the base and
the head run on two threads, so a listener need not be thread-safe; it must be quick and
must not raise (what it raises ends the call).

This module imports nothing of truegreen: every layer may report through it.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

#: where an operation is in a layer of its work
#:
#: * ``start``  the layer begins (``total``: how many steps it will take, when known)
#: * ``step``   one step of the layer (``n`` of ``total``; ``subject``: the test, the mutant)
#: * ``note``   something worth saying that is not a step (a file carried, a fallback)
#: * ``end``    the layer is done
Phase = Literal["start", "step", "note", "end"]


@dataclass(frozen=True)
class Event:
    """One report of an operation's progress."""

    #: the api function that reports it: seal, verify, strength, localize, run, demo, env
    operation: str
    #: the part of the work: exam, regression, tamper, strength, worktrees, sandbox, ...
    layer: str
    phase: Phase
    #: the line a person reads (None for a step that is only a count)
    message: str | None = None
    n: int | None = None
    total: int | None = None
    #: what the step is about: a test id, a mutant (``file:line mutation``), a side
    subject: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


Listener = Callable[[Event], None]


class Events:
    """How an engine function reports: the events of ``operation`` to ``listener`` (none:
    nobody listens, and nothing is built), one at a time."""

    def __init__(
        self,
        operation: str,
        listener: Listener | None = None,
        *,
        _lock: threading.RLock | None = None,
    ) -> None:
        self.operation = operation
        self._listener = listener
        self._lock = _lock or threading.RLock()

    def of(self, operation: str) -> Events:
        """The same listener, for another operation (one the operation calls: the demo
        seals and verifies)."""
        return Events(operation, self._listener, _lock=self._lock)

    def emit(
        self,
        layer: str,
        phase: Phase,
        message: str | None = None,
        *,
        n: int | None = None,
        total: int | None = None,
        subject: str | None = None,
    ) -> None:
        if self._listener is None:
            return
        event = Event(self.operation, layer, phase, message, n, total, subject)
        with self._lock:
            self._listener(event)

    def start(self, layer: str, message: str | None = None, *, total: int | None = None) -> None:
        self.emit(layer, "start", message, total=total)

    def step(
        self,
        layer: str,
        n: int,
        total: int | None,
        subject: str | None = None,
        message: str | None = None,
    ) -> None:
        self.emit(layer, "step", message, n=n, total=total, subject=subject)

    def note(self, layer: str, message: str) -> None:
        self.emit(layer, "note", message)

    def end(self, layer: str, message: str | None = None) -> None:
        self.emit(layer, "end", message)

    def steps(self, layer: str, total: int | None) -> Callable[[str | None], None]:
        """``subject -> None``: the next step of ``layer`` (1, 2, ... of ``total``), also
        when steps are taken on two threads."""
        count = itertools.count(1)
        lock = threading.Lock()

        def step(subject: str | None = None) -> None:
            with lock:
                n = next(count)
            self.step(layer, n, total, subject)

        return step

    def notes(self, layer: str) -> Callable[[str], None]:
        """``message -> None``: notes of ``layer``, for code that reports plain lines."""
        return lambda message: self.note(layer, message)


#: no listener: what an engine function reports to when its caller passes none
QUIET = Events("quiet")
