"""``truegreen diagnose LOG|- [--json]`` and ``--github OWNER/REPO --run ID [--job ID]``."""

from __future__ import annotations

import click

from truegreen.cli._app import app, emit_json, json_option, out

_COLORS = {
    "unknown": "magenta",
    "infrastructure": "yellow",
    "network": "yellow",
    "timeout": "yellow",
}


@app.command("diagnose")
@click.argument("log", required=False, metavar="[LOG]")
@click.option(
    "--github",
    default=None,
    metavar="OWNER/REPO",
    help="Fetch the log from GitHub Actions (token: $GITHUB_TOKEN).",
)
@click.option(
    "--run", "run_id", type=click.IntRange(min=1), default=None, help="The workflow run id."
)
@click.option(
    "--job", "job_id", type=click.IntRange(min=1), default=None, help="One job id of the run."
)
@json_option
def diagnose_cmd(
    log: str | None,
    github: str | None,
    run_id: int | None,
    job_id: int | None,
    json_out: bool,
) -> None:
    """Classify a failed CI log or pytest output: class, evidence lines, failing tests, next step.

    LOG is a CI log file (text, .gz, or a run's logs .zip), or - for stdin."""
    from truegreen.api import DiagnoseRequest, diagnose

    request = DiagnoseRequest(log=log, github=github, run_id=run_id, job_id=job_id)
    doc = diagnose(request).to_json()
    if json_out:
        emit_json(doc)
        return
    color = _COLORS.get(doc["class"], "red")
    out.print(f"[bold {color}]{doc['class']}[/] (confidence {doc['confidence']:.2f})")
    for reason in doc["reasons"]:
        out.print(f"  because {reason}", markup=False)
    step = doc["step"]
    if step:
        out.print(f"failing step (line {step['line']}): ", end="")
        out.print(step["name"].splitlines()[0][:160], markup=False)
    if doc["evidence"]:
        out.print("[bold]evidence[/] (line: text, quoted from the log as data)")
        for ev in doc["evidence"]:
            where = f"{ev['source']}:" if ev.get("source") else ""
            out.print(f"  {where}{ev['line']:>7}: {ev['text'][:240]}", markup=False)
    if doc["failing_tests"]:
        out.print(f"[bold]failing tests[/] ({len(doc['failing_tests'])})")
        sigs = {s["test"]: s["signature"] for s in doc["signatures"]}
        for test in doc["failing_tests"][:20]:
            out.print(f"  {test}", markup=False)
            if test in sigs:
                out.print(f"      signature: {sigs[test]}", markup=False)
    flaky = doc["flaky"]
    if flaky["suspected"]:
        out.print("[yellow]flaky suspicion[/] (not a verdict):")
        for line in flaky["evidence"][:5]:
            out.print(f"  {line}", markup=False)
    if doc["untrusted"]["lines"]:
        out.print(
            f"note: lines {', '.join(map(str, doc['untrusted']['lines'][:10]))} address a reader "
            "with instructions; they were treated as data",
            markup=False,
        )
    out.print("[bold]next step:[/] ", end="")
    out.print(doc["next_step"], markup=False)
