"""``truegreen --version`` and ``truegreen doctor``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from truegreen import __version__
from truegreen.cli._app import JsonOpt, PythonOpt, RepoOpt, app, emit_json, out


def _version(value: bool) -> None:
    if value:
        out.print(f"truegreen {__version__}", markup=False)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Turn 'the tests pass' into evidence a maintainer can trust."""


@app.command("doctor")
def doctor(repo: RepoOpt = Path("."), python: PythonOpt = None, json_out: JsonOpt = False) -> None:
    """Say what is installed and configured, what is missing, and what to do about each
    (exit 2 when something required is missing)."""
    from truegreen.cli._app import err
    from truegreen.doctor import checks

    results = checks(repo, python)
    missing = [item["name"] for item in results if item["status"] == "missing"]
    if json_out:
        emit_json({"schema": "truegreen.doctor/1", "version": __version__, "checks": results})
        if missing:
            raise typer.Exit(2)
        return
    marks = {"ok": "[green]ok[/]", "warn": "[yellow]warn[/]", "missing": "[red]missing[/]"}
    out.print(f"truegreen {__version__} (Python {sys.version.split()[0]})")
    for item in results:
        out.print(f"  {marks.get(item['status'], item['status'])}  {item['name']}: ", end="")
        out.print(item["detail"], markup=False)
        if item.get("fix"):
            out.print("        -> ", end="")
            out.print(item["fix"], markup=False)
    if missing:
        err.print(
            f"truegreen: error: missing: {', '.join(missing)}; see what to do above", markup=False
        )
        raise typer.Exit(2)
