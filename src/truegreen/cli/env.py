"""``truegreen env build``: the install phase (the only phase with network access)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from truegreen.cli._app import JsonOpt, RepoOpt, app, emit_json, err, out

env_app = typer.Typer(
    name="env",
    help="The target project's environment (the install phase).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(env_app, name="env")


@env_app.command("build")
def build(
    repo: RepoOpt = Path("."),
    python: Annotated[
        str | None,
        typer.Option(
            "--python", help="The base interpreter for a new venv (default: the current one)."
        ),
    ] = None,
    venv: Annotated[
        Path | None,
        typer.Option("--venv", help="Where the virtualenv goes (default: REPO/.venv)."),
    ] = None,
    extras: Annotated[
        list[str] | None,
        typer.Option(
            "--extra", help="Extras to install (default: test/tests/testing/dev if declared)."
        ),
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds for each step.")] = 1800.0,
    json_out: JsonOpt = False,
) -> None:
    """Create or update the project's virtualenv: pip install -e .[test extras] pytest.

    This phase has network access (to reach the package index) and runs the project's
    build code unconfined; tests later run in the sandbox without network."""
    from truegreen.sandbox.install import build_env

    result = build_env(
        repo,
        venv=venv,
        python=python,
        extras=extras,
        timeout=timeout,
        notify=lambda m: err.print(m, markup=False),
    )
    if json_out:
        emit_json(result.to_json())
        return
    verb = "created" if result.created else "updated"
    out.print(f"{verb} {result.venv}", markup=False)
    if result.extras:
        out.print(f"extras: {', '.join(result.extras)}", markup=False)
    out.print(
        f"tests will run with --python {result.python} (the default for this repo)", markup=False
    )
