"""``truegreen ci``: inside a GitHub Actions job, verify the pull request of the event.

What GitHub Actions gives a step is read here (the adapter's part): ``GITHUB_EVENT_PATH``,
``GITHUB_EVENT_NAME``, ``GITHUB_REPOSITORY``, ``GITHUB_RUN_ID``, ``GITHUB_STEP_SUMMARY``
(the Markdown report is appended to it), ``GITHUB_OUTPUT`` (``decision=`` and
``verdict=``); the workflow commands (annotations) go to standard output.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import click

from truegreen.cli._app import (
    app,
    call,
    db_option,
    emit_json,
    err,
    fail,
    given,
    grading_options,
    json_option,
    out,
    project_options,
)


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def _append(path: Path, text: str, what: str) -> None:
    try:
        with path.open("a", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        fail(f"cannot write {what} {path}: {exc.strerror}", "check the path GitHub gave")


@app.command("ci")
@click.option("--diagnose", is_flag=True, help="Diagnose the failed jobs of the run instead.")
@click.option(
    "--event",
    type=click.Path(path_type=Path),
    default=None,
    help="The event's payload (default: $GITHUB_EVENT_PATH).",
)
@click.option(
    "--event-name", default=None, help="pull_request, push, ... (default: $GITHUB_EVENT_NAME)."
)
@click.option(
    "--writes",
    type=click.Choice(["shadow", "live", "off"]),
    default=None,
    help="Write the comment, check run and label to GitHub (live), only log them (shadow), "
    "or neither (off). Default: $TRUEGREEN_GITHUB_WRITES, else shadow.",
)
@click.option(
    "--summary",
    type=click.Path(path_type=Path),
    default=None,
    help="Append the Markdown report here (default: $GITHUB_STEP_SUMMARY).",
)
@click.option(
    "--outputs",
    type=click.Path(path_type=Path),
    default=None,
    help="Append decision= and verdict= here (default: $GITHUB_OUTPUT).",
)
@grading_options
@project_options
@db_option
@json_option
def ci_command(
    diagnose: bool,
    event: Path | None,
    event_name: str | None,
    writes: str | None,
    summary: Path | None,
    outputs: Path | None,
    runs: int,
    no_strength: bool,
    regression: str | None,
    report: Path | None,
    repo: Path,
    python: str | None,
    sandbox: str | None,
    db: str | None,
    json_out: bool,
) -> None:
    """In a GitHub Actions job: verify the event's pull request against the exams sealed
    for the issues it fixes (exit 0 approve, 1 reject, 3 escalate, 2 error)."""
    from truegreen.api import CiRequest, ci

    event = event or _env_path("GITHUB_EVENT_PATH")
    event_name = event_name or os.environ.get("GITHUB_EVENT_NAME")
    if event is None or not event_name:
        fail(
            "no GitHub event: GITHUB_EVENT_PATH and GITHUB_EVENT_NAME are not set",
            "run truegreen ci in a GitHub Actions job, or give --event FILE --event-name NAME",
        )
    writes = writes or os.environ.get("TRUEGREEN_GITHUB_WRITES") or None
    if writes not in (None, "shadow", "live", "off"):
        fail(f"TRUEGREEN_GITHUB_WRITES={writes!r} is not shadow, live or off", "set one of them")
    run_id = os.environ.get("GITHUB_RUN_ID", "")
    request = CiRequest(
        repo=repo,
        python=python,
        sandbox=sandbox,
        db=db,
        event_path=event,
        event_name=event_name,
        repository=os.environ.get("GITHUB_REPOSITORY") or None,
        diagnose=diagnose,
        run_id=int(run_id) if run_id.isdigit() else None,
        writes=cast(Any, writes),
        runs=runs,
        strength=not no_strength,
        **given(regression=regression),
        report_dir=report,
    )
    result = ci(request, **call(), log=lambda line: err.print(line, markup=False))
    summary = summary or _env_path("GITHUB_STEP_SUMMARY")
    if summary is not None:
        _append(summary, result.summary, "the step summary")
    outputs = outputs or _env_path("GITHUB_OUTPUT")
    if outputs is not None and result.decision is not None:
        verdict = result.verification.verdict if result.verification else ""
        _append(outputs, f"decision={result.decision}\nverdict={verdict}\n", "the step outputs")
    if json_out:
        emit_json(result.to_json())
    else:
        for line in result.commands:
            out.print(line, markup=False)
        if summary is None:
            out.print(result.summary, markup=False, end="")
    raise SystemExit(result.exit_code)
