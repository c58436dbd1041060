"""``truegreen report RECEIPT_OR_JSON --format html|md|json``: render a stored verification."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from truegreen.cli._app import app, db_option, emit_json, err, json_option, out


@app.command("report")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "md", "json"]),
    default="html",
    show_default=True,
    help="The page (html), a pull-request comment (md), or the verification document (json).",
)
@click.option(
    "--repo",
    type=click.Path(path_type=Path),
    default=None,
    help="The repository it was verified in: adds the diff and the exam's code.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Write to this file (whole or not at all) instead of stdout.",
)
@db_option
def report_command(
    file: Path, fmt: str, repo: Path | None, output: Path | None, db: str | None
) -> None:
    """Render a stored verification again, from its receipt.json (the hash is checked
    first) or its verification.json."""
    from truegreen.api import ReportRequest, render_report, write_text

    rendered = render_report(ReportRequest(file=file, format=fmt, repo=repo, db=db))
    if output is None:
        sys.stdout.write(rendered.text)
        sys.stdout.flush()
        return
    write_text(output, rendered.text)
    err.print(f"truegreen: {rendered.decision}: wrote {output}", markup=False)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


@app.command("stats")
@click.option(
    "--since",
    default=None,
    help="Only verifications recorded since: 30d, 12h, 2w, or a date (default: all).",
)
@click.option("--repo-id", default=None, help="Only this repository identity's verifications.")
@db_option
@json_option
def stats_command(since: str | None, repo_id: str | None, db: str | None, json_out: bool) -> None:
    """Verifications by decision and reason, and the verified rate beside the tests-green rate."""
    from truegreen.api import StatsRequest, stats

    doc = stats(StatsRequest(since=since, repo_id=repo_id, db=db)).to_json()
    if json_out:
        emit_json(doc)
        return
    n = doc["verifications"]
    window = f"since {doc['since']}" if doc["since"] else "in the ledger"
    out.print(f"{n} verification{'' if n == 1 else 's'} {window}", markup=False)
    if not n:
        return
    out.print(
        "  decisions: " + ", ".join(f"{k} {v}" for k, v in doc["by_decision"].items()),
        markup=False,
    )
    out.print(f"  tests green (what CI shows):  {_share(doc['tests_green'], n)}", markup=False)
    out.print(
        f"  verified (passes the sealed exam, no tampering, no new failures): "
        f"{_share(doc['verified'], n)}",
        markup=False,
    )
    out.print(
        f"  green but not verified (CI alone would have let them through): "
        f"{doc['green_not_verified']}",
        markup=False,
    )
    if doc["by_reason"]:
        out.print("  reasons (verifications with each):", markup=False)
        for code, count in doc["by_reason"].items():
            out.print(f"    {count:>4}  {code}", markup=False)
