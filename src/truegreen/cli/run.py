"""``truegreen run TEST_ID...``: the clean reproduction a person or an agent needs."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click

from truegreen.cli._app import (
    app,
    call,
    emit_json,
    json_option,
    out,
    project_options,
)
from truegreen.cli._app import fail as exit_2


@app.command("run")
@click.argument("test_ids", nargs=-1, required=True, metavar="TEST_ID...")
@project_options
@click.option("--repeat", type=click.IntRange(min=1), default=1, help="Run the selection N times.")
@click.option("--timeout", type=float, default=None, help="Seconds for one run.")
@json_option
def run(
    test_ids: tuple[str, ...],
    repo: Path,
    python: str | None,
    sandbox: str | None,
    repeat: int,
    timeout: float | None,
    json_out: bool,
) -> None:
    """Reproduce tests in the project's own interpreter: outcome, signature, excerpt, rerun command.

    TEST_ID... are pytest node ids, relative to the repository root.

    \b
    Exit status, as pytest's:
      0  every test passed (skipped and xfailed tests are not failures)
      1  a test failed, errored or ended without a report in some run
      2  an error: bad input, no test ran, or a run passed its deadline"""
    from truegreen.api import RunRequest, reproduce

    request = RunRequest(
        repo=repo, python=python, sandbox=sandbox, test_ids=test_ids, repeat=repeat, timeout=timeout
    )
    result = reproduce(request, **call())
    doc = result.to_json()
    if json_out:
        emit_json(doc)
    else:
        show(doc)
    if result.cut_short:
        # the outcomes were cut short: not a reproduction
        exit_2(
            f"{doc['meaning']} after {result.timeout:g} s: the outcomes are incomplete",
            hint="pass a larger --timeout, or fewer tests",
        )
    if not doc["tests"] and not doc["collection_errors"]:
        exit_2(
            f"no test ran for {' '.join(test_ids)} ({doc['meaning']}): nothing was reproduced",
            hint="name tests that exist: `python -m pytest --collect-only -q` lists them",
        )
    if result.not_passed:
        raise SystemExit(1)


def show(doc: dict[str, Any]) -> None:
    from truegreen.api import exit_meaning

    colors = {"passed": "green", "failed": "red", "error": "red", "no_report": "magenta"}
    for t in doc["tests"]:
        color = colors.get(t["outcome"], "yellow")
        runs = "" if doc["runs"] == 1 else f"  ({', '.join(t['outcomes'])})"
        out.print(f"[{color}]{t['outcome'].upper():9}[/] ", end="")
        out.print(f"{t['id']}{runs}", markup=False)
        if t.get("signature"):
            out.print(f"          signature: {t['signature']}", markup=False)
        if t.get("reason"):
            out.print(f"          reason: {t['reason']}", markup=False)
        if t["outcome"] in ("failed", "error") and t.get("excerpt"):
            for line in t["excerpt"].splitlines()[-12:]:
                out.print(f"          {line}", markup=False)
    for c in doc["collection_errors"]:
        out.print(f"[red]collection error[/] in {c['nodeid'] or 'the session'}:", markup=True)
        out.print(c["excerpt"], markup=False)
    meaning = doc["meaning"]
    if doc["collection_errors"] and meaning == exit_meaning(4):
        # pytest's usage-error status, because an id's module could not be imported
        meaning = "a test module could not be collected (above), so pytest found no test in it"
    out.print(f"pytest: {meaning}", markup=False)
    out.print("rerun by hand (from the repository root):", markup=False)
    out.print("  " + shlex.join(doc["command"]), markup=False)
