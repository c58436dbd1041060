"""The command line: ``truegreen ...``. Thin over the engine; see :mod:`truegreen.cli._app`."""

from __future__ import annotations

import sys

import click

# Each command lives in its own module and registers itself on ``app`` when imported.
from truegreen.cli import demo as _demo  # noqa: F401
from truegreen.cli import diagnose as _diagnose  # noqa: F401
from truegreen.cli import env as _env  # noqa: F401
from truegreen.cli import info as _info  # noqa: F401  (doctor)
from truegreen.cli import localize as _localize  # noqa: F401
from truegreen.cli import run as _run  # noqa: F401
from truegreen.cli import seal as _seal  # noqa: F401
from truegreen.cli import store as _store  # noqa: F401
from truegreen.cli import verify as _verify  # noqa: F401
from truegreen.cli._app import app, err
from truegreen.errors import TruegreenError

__all__ = ["app", "main"]

INTERRUPTED = (
    "truegreen: interrupted; its worktrees and processes were cleaned up and nothing was recorded"
)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``truegreen`` console script and ``python -m truegreen``.

    Always ends in ``SystemExit``: 0, the command's own status, 2 for a usage error or a
    refused input (with one line naming the problem and what to do), 130 when interrupted.
    """
    try:
        status = app.main(args=argv, prog_name="truegreen", standalone_mode=False)
    except TruegreenError as exc:
        err.print(f"truegreen: error: {exc}", markup=False)
        sys.exit(2)
    except (KeyboardInterrupt, click.Abort):  # click turns Ctrl-C into Abort
        err.print(INTERRUPTED, markup=False)
        sys.exit(130)
    except click.ClickException as exc:  # a usage error: the option or argument it names
        exc.show()
        sys.exit(exc.exit_code)
    sys.exit(status if isinstance(status, int) else 0)
