"""The command line: ``truegreen ...``. Thin over the engine; see :mod:`truegreen.cli._app`."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

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


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``truegreen`` console script and ``python -m truegreen``.

    Always ends in ``SystemExit``: 0, the command's own status, 2 for a usage error or a
    refused input (with one line naming the problem and what to do), 130 when interrupted.
    Ctrl-C cancels the command's engine calls (their processes are killed at once, also
    those run by worker threads), then unwinds as a KeyboardInterrupt.
    """
    _app._tokens.clear()
    restore = _interrupt_cancels()
    try:
        status = app.main(args=argv, prog_name="truegreen", standalone_mode=False)
    except TruegreenError as exc:
        err.print(f"truegreen: error: {describe(exc)}", markup=False)
        sys.exit(2)
    except (KeyboardInterrupt, click.Abort):  # click turns Ctrl-C into Abort
        err.print(INTERRUPTED, markup=False)
        sys.exit(130)
    except click.ClickException as exc:  # a usage error: the option or argument it names
        exc.show()
        sys.exit(exc.exit_code)
    finally:
        restore()
    sys.exit(status if isinstance(status, int) else 0)


def _interrupt_cancels() -> Callable[[], None]:
    """While a command runs, Ctrl-C cancels its engine calls before it raises
    KeyboardInterrupt (where Python's own handler is in place: not in a thread, not where
    the caller handles SIGINT itself). Returns what puts the old handler back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        return lambda: None

    def interrupted(signum: int, frame: FrameType | None) -> None:
        _app.cancel_calls()
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupted)

    def restore() -> None:
        signal.signal(signal.SIGINT, previous)

    return restore
