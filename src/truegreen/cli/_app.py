"""The Typer application and the helpers every command shares.

Adapters translate arguments into engine calls and results into output, with no logic
of their own. Progress and logs go to stderr; ``--json`` prints exactly one JSON
document on stdout and nothing else there.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console

from truegreen import canonical

app = typer.Typer(
    name="truegreen",
    help=(
        "Turn 'the tests pass' into evidence a maintainer can trust.\n\n"
        "'Verified' means: passes the sealed exam, no tampering found, no new failures. "
        "It never means 'correct'."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

#: Progress, logs and human-readable output that must not pollute --json on stdout.
err = Console(stderr=True, highlight=False, soft_wrap=True)
#: Human-readable results (when --json is not given).
out = Console(highlight=False, soft_wrap=True)

# Shared option types, so every command spells them the same way.
RepoOpt = Annotated[
    Path,
    typer.Option("--repo", help="The project's git repository (default: the current directory)."),
]
PythonOpt = Annotated[
    str | None,
    typer.Option(
        "--python",
        help="The project's interpreter (default: .venv/bin/python in the repository, else the current one).",
    ),
]
SandboxOpt = Annotated[
    str | None,
    typer.Option(
        "--sandbox", help="none | bwrap | docker (default: bwrap where it works, else none)."
    ),
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON document on stdout, nothing else.")
]
DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db", help="Database URL (default: $TRUEGREEN_DB, else SQLite in the data directory)."
    ),
]


def emit_json(document: Any) -> None:
    """Print ``document`` as the one JSON document of this command (deterministic bytes)."""
    sys.stdout.write(canonical.pretty(document))
    sys.stdout.flush()


def fail(message: str, hint: str | None = None) -> NoReturn:
    """Exit 2 with a one-line message naming the problem and what to do."""
    text = f"truegreen: error: {message}"
    if hint:
        text += f"; {hint}"
    err.print(text, markup=False)
    raise typer.Exit(2)
