"""The command line: ``truegreen ...``. Thin over the engine; see :mod:`truegreen.cli._app`."""

from __future__ import annotations

import sys

import click
import typer

from truegreen.cli._app import app, err
from truegreen.errors import TruegreenError

# Each command lives in its own module and registers itself on ``app`` when imported.
from truegreen.cli import info as _info  # noqa: E402,F401  (version, doctor)
from truegreen.cli import run as _run  # noqa: E402,F401

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``truegreen`` console script and ``python -m truegreen``."""
    try:
        code = app(args=argv, prog_name="truegreen", standalone_mode=False)
    except TruegreenError as exc:
        err.print(f"truegreen: error: {exc}", markup=False)
        sys.exit(2)
    except click.exceptions.Abort:
        err.print("truegreen: interrupted", markup=False)
        sys.exit(130)
    except KeyboardInterrupt:
        err.print("truegreen: interrupted", markup=False)
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except typer.Exit as exc:  # pragma: no cover - typer.Exit is click's Exit
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
