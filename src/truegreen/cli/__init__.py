"""The command line: ``truegreen ...``. Thin over the engine; see :mod:`truegreen.cli._app`."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import NoReturn

import click

from truegreen.cli import _app

# Each command lives in its own module and registers itself on ``app`` when imported.
from truegreen.cli import ci as _ci  # noqa: F401
from truegreen.cli import claude as _claude  # noqa: F401
from truegreen.cli import demo as _demo  # noqa: F401
from truegreen.cli import diagnose as _diagnose  # noqa: F401
from truegreen.cli import env as _env  # noqa: F401
from truegreen.cli import flaky as _flaky  # noqa: F401
from truegreen.cli import info as _info  # noqa: F401  (doctor)
from truegreen.cli import localize as _localize  # noqa: F401
from truegreen.cli import mcp as _mcp  # noqa: F401
from truegreen.cli import policy as _policy  # noqa: F401
from truegreen.cli import report as _report  # noqa: F401
from truegreen.cli import run as _run  # noqa: F401
from truegreen.cli import seal as _seal  # noqa: F401
from truegreen.cli import store as _store  # noqa: F401
from truegreen.cli import verify as _verify  # noqa: F401
from truegreen.cli._app import app, describe, err
from truegreen.errors import TruegreenError

__all__ = ["app", "main"]

INTERRUPTED = (
    "truegreen: interrupted; its worktrees and processes were cleaned up and nothing was recorded"
)
TERMINATED = (
    "truegreen: terminated (SIGTERM); its worktrees and processes were cleaned up and nothing"
    " was recorded"
)
#: the status of a command ended by SIGTERM (128 + 15, as a shell reports a process the
#: signal killed): `timeout`, a CI cancellation and a service stop send it
TERMINATED_STATUS = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, unwound as Ctrl-C is: every ``finally`` and every clean-up that Ctrl-C
    runs (worktrees removed, process trees killed, nothing recorded) runs for it too."""


#: set by the SIGTERM handler: the interrupt that ends the command is a termination
#: (click may have turned the exception into an ``Abort`` on its way up)
_terminated = threading.Event()


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``truegreen`` console script and ``python -m truegreen``.

    Always ends in ``SystemExit``: 0, the command's own status, 2 for a usage error or a
    refused input (with one line naming the problem and what to do), 130 when interrupted,
    143 when terminated (SIGTERM). Ctrl-C and SIGTERM cancel the command's engine calls
    (their processes are killed at once, also those run by worker threads), then unwind
    as a KeyboardInterrupt, which cleans up as it goes.
    """
    _app._tokens.clear()
    _app._cancellers.clear()
    _app._at_once.clear()
    _terminated.clear()
    restore = _interrupt_cancels()
    try:
        status = app.main(args=argv, prog_name="truegreen", standalone_mode=False)
    except TruegreenError as exc:
        err.print(f"truegreen: error: {describe(exc)}", markup=False)
        sys.exit(2)
    except (KeyboardInterrupt, click.Abort):  # click turns Ctrl-C into Abort
        terminated = _terminated.is_set()
        err.print(TERMINATED if terminated else INTERRUPTED, markup=False)
        _stopped(TERMINATED_STATUS if terminated else 130)
    except click.ClickException as exc:  # a usage error: the option or argument it names
        exc.show()
        sys.exit(exc.exit_code)
    finally:
        restore()
    sys.exit(status if isinstance(status, int) else 0)


def _stopped(status: int) -> NoReturn:
    """End a command a signal stopped, once its clean-up is done: at once when the command
    asked for it (threads blocked for ever, which the interpreter would wait for)."""
    if _app._at_once:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(status)
    sys.exit(status)


def _interrupt_cancels() -> Callable[[], None]:
    """While a command runs, Ctrl-C cancels its engine calls before it raises
    KeyboardInterrupt (where Python's own handler is in place: not in a thread, not where
    the caller handles SIGINT itself), and SIGTERM does the same, raising
    :class:`Terminated` (where its default action, to die on the spot leaving worktrees
    and processes behind, is in place). Returns what puts the old handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    undo: list[Callable[[], object]] = []
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.default_int_handler:

        def interrupted(signum: int, frame: FrameType | None) -> None:
            _app.cancel_calls()
            raise KeyboardInterrupt

        signal.signal(signal.SIGINT, interrupted)
        undo.append(lambda: signal.signal(signal.SIGINT, previous))
    previous_term = signal.getsignal(signal.SIGTERM)
    if previous_term == signal.SIG_DFL:

        def terminated(signum: int, frame: FrameType | None) -> None:
            _app.cancel_calls()
            if _terminated.is_set():
                return  # a second SIGTERM: the clean-up the first started goes on
            _terminated.set()
            raise Terminated

        signal.signal(signal.SIGTERM, terminated)
        undo.append(lambda: signal.signal(signal.SIGTERM, previous_term))

    def restore() -> None:
        for step in undo:
            step()

    return restore
