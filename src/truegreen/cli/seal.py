"""``truegreen seal``: seal a failing test for a bug before anyone fixes it."""

from __future__ import annotations

from pathlib import Path

import click

from truegreen.cli._app import (
    app,
    call,
    db_option,
    describe,
    emit_json,
    err,
    json_option,
    out,
    project_options,
)


@app.command("seal")
@click.argument("test_id", required=False, metavar="TEST_ID")
@project_options
@click.option(
    "--rev", default="HEAD", show_default=True, help="The revision the test must fail at."
)
@click.option(
    "--test-file",
    type=click.Path(path_type=Path),
    default=None,
    help="The exam's content, placed at the path TEST_ID names.",
)
@click.option("--issue", default=None, help="The issue the exam is for.")
@click.option(
    "--issue-file",
    type=click.Path(path_type=Path),
    default=None,
    help="The bug report the exam is for: its sha256 and title are recorded with the exam "
    "(and the issue number its title names, unless --issue is given).",
)
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="How many times it must fail.",
)
@click.option(
    "--hidden",
    is_flag=True,
    help="Hide the exam's content from fixers: no command prints it, a bundle carries it "
    "only encoded.",
)
@click.option(
    "--export", type=click.Path(path_type=Path), default=None, help="Also write a bundle to DIR."
)
@db_option
@json_option
def seal_command(
    test_id: str | None,
    repo: Path,
    python: str | None,
    sandbox: str | None,
    rev: str,
    test_file: Path | None,
    issue: str | None,
    issue_file: Path | None,
    runs: int,
    hidden: bool,
    export: Path | None,
    db: str | None,
    json_out: bool,
) -> None:
    """Run the test N times at REV; store it, hashed, in the ledger when it fails every time the same way.

    TEST_ID is the failing test's pytest node id."""
    from truegreen.api import SealRefused, SealRequest, seal
    from truegreen.cli.store import hidden_bundle_note

    if test_id is None:
        if issue_file is not None:
            raise click.BadParameter(
                "writing an exam from a bug report is not available in this version; "
                "write the failing test, then pass its TEST_ID (with --test-file FILE if it "
                "is not committed) and --issue-file F to record the report with the exam",
                param_hint="--issue-file",
            )
        raise click.BadParameter(
            "pass the failing test's node id (e.g. tests/test_x.py::test_y)", param_hint="TEST_ID"
        )
    request = SealRequest(
        repo=repo,
        python=python,
        sandbox=sandbox,
        db=db,
        test_id=test_id,
        rev=rev,
        test_file=test_file,
        issue=issue,
        issue_file=issue_file,
        runs=runs,
        hidden=hidden,
        export=export,
    )
    try:
        sealed = seal(request, **call())
    except SealRefused as exc:
        err.print(f"truegreen: error: {describe(exc)}", markup=False)
        for line in exc.evidence:
            err.print(f"  | {line}", markup=False)
        raise SystemExit(2) from None
    exam = sealed.exam
    if sealed.bundle_path is not None and exam.hidden:
        hidden_bundle_note({"hidden_exams": [exam.id]}, str(sealed.bundle_path))
    for entry in sealed.carry_unmatched:
        err.print(f"note: carry entry {entry!r} matches no file git ignores here", markup=False)
    carried = f"  carried from the checkout (git ignores them): {', '.join(sealed.carried)}"
    if json_out:
        if sealed.carried:  # stdout holds the exam's document and nothing else
            err.print(carried, markup=False)
        emit_json(sealed.to_json())
        return
    verb = "sealed" if sealed.created else "already sealed"
    out.print(f"[green]{verb}[/] {exam.id}", end="  ")
    out.print(f"{exam.test}", markup=False)
    out.print(
        f"  fails at {exam.rev[:12]} in {len(exam.runs)} of {len(exam.runs)} runs as", markup=False
    )
    out.print(f"  {exam.signature}", markup=False)
    out.print(f"  files: {', '.join(f.path for f in exam.files)}", markup=False)
    if exam.issue_report is not None:
        r = exam.issue_report
        issue = f"issue {exam.issue}: " if exam.issue is not None else ""
        out.print(f"  for {issue}{r.title} (report sha256 {r.sha256[:12]})", markup=False)
    if sealed.carried:
        out.print(carried, markup=False)
    out.print(f"  ledger entry #{sealed.seq}  {(sealed.entry_hash or '')[:16]}", markup=False)
    if sealed.bundle_path is not None:
        out.print(f"  bundle: {sealed.bundle_path}", markup=False)
    out.print(
        f"next: truegreen verify --base {exam.rev[:12]} --head <fix> --exam {exam.id}", markup=False
    )
