"""``truegreen run TEST_ID...``: the clean reproduction a person or an agent needs."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

from truegreen.cli._app import JsonOpt, PythonOpt, RepoOpt, SandboxOpt, app, emit_json, err, out
from truegreen.cli._app import fail as exit_2
from truegreen.run.results import exit_meaning


@app.command("run")
def run(
    test_ids: Annotated[
        list[str], typer.Argument(help="pytest node ids, relative to the repository root.")
    ],
    repo: RepoOpt = Path("."),
    python: PythonOpt = None,
    sandbox: SandboxOpt = None,
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="Run the selection N times.")] = 1,
    timeout: Annotated[float | None, typer.Option("--timeout", help="Seconds for one run.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Reproduce tests in the project's own interpreter: outcome, signature, excerpt, rerun command."""
    from truegreen.project import open_project
    from truegreen.reproduce import reproduce
    from truegreen.seal import refuse_another_checkouts_code

    project = open_project(repo, python, sandbox, notify=lambda m: err.print(m, markup=False))
    refuse_another_checkouts_code(project)
    doc = reproduce(project, test_ids, repeat=repeat, timeout=timeout)
    if json_out:
        emit_json(doc)
    else:
        show(doc)
    deadline = exit_meaning(0, timed_out=True)
    if doc["meaning"] == deadline:
        # the outcomes were cut short: not a reproduction
        exit_2(
            f"{deadline} after {timeout or project.settings.suite_timeout:g} s: "
            "the outcomes are incomplete",
            hint="pass a larger --timeout, or fewer tests",
        )


def show(doc: dict[str, Any]) -> None:
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
