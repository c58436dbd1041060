"""``truegreen doctor`` (``--version`` is an option of the root command, in _app)."""

from __future__ import annotations

import sys
from pathlib import Path

from truegreen import __version__
from truegreen.cli._app import app, emit_json, json_option, out, python_option, repo_option


@app.command("doctor")
@repo_option
@python_option
@json_option
def doctor(repo: Path, python: str | None, json_out: bool) -> None:
    """Say what is installed and configured, what is missing, and what to do about each
    (exit 2 when something required is missing)."""
    from truegreen.api import DoctorRequest
    from truegreen.api import doctor as check
    from truegreen.cli._app import err

    report = check(DoctorRequest(repo=repo, python=python))
    results = report.to_json()["checks"]
    missing = report.missing
    if json_out:
        emit_json(report.to_json())
        if missing:
            raise SystemExit(2)
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
        raise SystemExit(2)
