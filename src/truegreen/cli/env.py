"""``truegreen env build``: the install phase (the only phase with network access)."""

from __future__ import annotations

from pathlib import Path

import click

from truegreen.cli._app import app, call, emit_json, json_option, out, repo_option


@app.group("env", no_args_is_help=True)
def env_app() -> None:
    """The target project's environment (the install phase)."""


@env_app.command("build")
@repo_option
@click.option(
    "--python", default=None, help="The base interpreter for a new venv (default: the current one)."
)
@click.option(
    "--venv",
    type=click.Path(path_type=Path),
    default=None,
    help="Where the virtualenv goes (default: REPO/.venv, the one commands use without "
    "--python; for another one, pass --python VENV/bin/python to them).",
)
@click.option(
    "--extra",
    "extras",
    multiple=True,
    help="Extras to install, repeatable (default: test/tests/testing/dev if declared).",
)
@click.option(
    "--timeout", type=float, default=1800.0, show_default=True, help="Seconds for each step."
)
@json_option
def build(
    repo: Path,
    python: str | None,
    venv: Path | None,
    extras: tuple[str, ...],
    timeout: float,
    json_out: bool,
) -> None:
    """Create or update the project's virtualenv: pip install -e .[test extras] pytest.

    This phase has network access (to reach the package index) and runs the project's
    build code unconfined; tests later run in the sandbox without network."""
    from truegreen.api import EnvBuildRequest, build_env

    request = EnvBuildRequest(repo=repo, python=python, venv=venv, extras=extras, timeout=timeout)
    result = build_env(request, **call())
    if json_out:
        emit_json(result.to_json())
        return
    verb = "created" if result.created else "updated"
    out.print(f"{verb} {result.venv}", markup=False)
    if result.extras:
        out.print(f"extras: {', '.join(result.extras)}", markup=False)
    if result.default:
        out.print(
            f"tests will run with {result.python}: commands use it when no --python is given",
            markup=False,
        )
    else:
        usual = repo.expanduser().resolve() / ".venv"
        out.print(
            f"{result.venv} is not the default environment (without --python, commands use "
            f"{usual} when it exists, else the current interpreter); to run tests with it, "
            f"pass --python {result.python} to run, localize, seal, verify and strength",
            markup=False,
        )
