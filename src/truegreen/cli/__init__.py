"""The command line: ``truegreen ...``. Thin over the engine; see :mod:`truegreen.cli._app`."""

from __future__ import annotations

import sys

# Each command lives in its own module and registers itself on ``app`` when imported.
from truegreen.cli import demo as _demo  # noqa: F401
from truegreen.cli import diagnose as _diagnose  # noqa: F401
from truegreen.cli import env as _env  # noqa: F401
from truegreen.cli import info as _info  # noqa: F401  (version, doctor)
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
    """Entry point of the ``truegreen`` console script and ``python -m truegreen``."""
    try:
        app(args=argv, prog_name="truegreen")
    except TruegreenError as exc:
        err.print(f"truegreen: error: {exc}", markup=False)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print(INTERRUPTED, markup=False)
        sys.exit(130)
    except SystemExit as exc:
        if exc.code == 130:  # typer turns Ctrl-C into exit 130, silently
            err.print(INTERRUPTED, markup=False)
        raise
