"""``truegreen localize TEST_ID...``: rank suspect lines, show the values that differ."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from truegreen.cli._app import JsonOpt, PythonOpt, RepoOpt, SandboxOpt, app, emit_json, err, out


@app.command("localize")
def localize(
    test_ids: Annotated[
        list[str], typer.Argument(help="The failing tests' pytest node ids (relative to the root).")
    ],
    repo: RepoOpt = Path("."),
    python: PythonOpt = None,
    sandbox: SandboxOpt = None,
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope",
            help="Where passing tests come from: 'suite', or comma-separated test files/dirs "
            "(default: the failing tests' files and files importing the same modules).",
        ),
    ] = None,
    budget_tokens: Annotated[
        int, typer.Option("--budget-tokens", min=50, help="Token budget of the context (chars/4).")
    ] = 1500,
    formula: Annotated[
        str, typer.Option("--formula", help="ochiai | dstar | tarantula (ranking order).")
    ] = "ochiai",
    timeout: Annotated[float | None, typer.Option("--timeout", help="Seconds for one run.")] = None,
    limit: Annotated[
        int,
        typer.Option(
            "--limit", min=1, help="Ranking entries in the JSON document (ranked_lines counts all)."
        ),
    ] = 30,
    json_out: JsonOpt = False,
) -> None:
    """Localize a failing test: crash site, ranked suspect lines, values, order dependence."""
    from truegreen.localize import LocalizeOptions
    from truegreen.localize import localize as run_localize
    from truegreen.localize.ranking import FORMULAS
    from truegreen.project import open_project

    if formula not in FORMULAS:
        from truegreen.errors import UsageError

        raise UsageError(f"unknown formula {formula!r}", hint=f"use one of {', '.join(FORMULAS)}")
    scopes = None if scope is None else [s.strip() for s in scope.split(",") if s.strip()]
    project = open_project(repo, python, sandbox, notify=lambda m: err.print(m, markup=False))
    opts = LocalizeOptions(
        scope=scopes,
        budget_tokens=budget_tokens,
        formula=formula,
        timeout=timeout,
        limit=limit,
    )
    doc = run_localize(project, test_ids, opts, notify=lambda m: err.print(m, markup=False))
    if json_out:
        emit_json(doc)
        return
    out.print(doc["context"]["text"], markup=False)
