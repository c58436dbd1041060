"""``truegreen localize TEST_ID...``: rank suspect lines, show the values that differ."""

from __future__ import annotations

from pathlib import Path

import click

from truegreen.cli._app import (
    app,
    call,
    emit_json,
    json_option,
    out,
    project_options,
)


@app.command("localize")
@click.argument("test_ids", nargs=-1, required=True, metavar="TEST_ID...")
@project_options
@click.option(
    "--scope",
    default=None,
    help="Where passing tests come from: 'suite', or comma-separated test files/dirs "
    "(default: the failing tests' files and files importing the same modules).",
)
@click.option(
    "--budget-tokens",
    type=click.IntRange(min=50),
    default=1500,
    show_default=True,
    help="Token budget of the context (chars/4).",
)
@click.option(
    "--budget-seconds",
    type=click.FloatRange(min=0),
    default=120.0,
    show_default=True,
    help="Seconds the whole localize should take: passing tests that do not fit are left "
    "out (the failing test's own file first; the output says what). 0: no budget.",
)
@click.option(
    "--formula",
    default="ochiai",
    show_default=True,
    help="ochiai | dstar | tarantula (ranking order).",
)
@click.option("--timeout", type=float, default=None, help="Seconds for one run.")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=30,
    show_default=True,
    help="Ranking entries in the JSON document (ranked_lines counts all).",
)
@click.option(
    "--mutants/--no-mutants",
    default=True,
    show_default=True,
    help="Break ties near the top by rerunning the failing test under small changes of "
    "the tied lines (in the bare run's process, after its session). --no-mutants saves "
    "the reruns' time and leaves those ties standing.",
)
@click.option(
    "--history/--no-history",
    default=True,
    show_default=True,
    help="Order lines still equal in every other key by their last change (git blame of "
    "the working tree, most recent first). --no-history leaves those ties standing.",
)
@json_option
def localize(
    test_ids: tuple[str, ...],
    repo: Path,
    python: str | None,
    sandbox: str | None,
    scope: str | None,
    budget_tokens: int,
    budget_seconds: float,
    formula: str,
    timeout: float | None,
    limit: int,
    mutants: bool,
    history: bool,
    json_out: bool,
) -> None:
    """Localize a failing test: crash site, ranked suspect lines, values, order dependence.

    TEST_ID... are the failing tests' pytest node ids, relative to the repository root."""
    from truegreen.api import LocalizeRequest
    from truegreen.api import localize as run_localize

    scopes = None if scope is None else tuple(s.strip() for s in scope.split(",") if s.strip())
    request = LocalizeRequest(
        repo=repo,
        python=python,
        sandbox=sandbox,
        test_ids=test_ids,
        scope=scopes,
        budget_tokens=budget_tokens,
        budget_seconds=budget_seconds or None,
        formula=formula,
        timeout=timeout,
        limit=limit,
        mutants=mutants,
        history=history,
    )
    result = run_localize(request, **call())
    if json_out:
        emit_json(result.to_json())
        return
    out.print(result.text, markup=False)
